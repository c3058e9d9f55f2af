"""``ember.fft``: NumPy's ``numpy.fft`` (as ``cupy.fft``) on ember arrays.

Transforms run on plans (:class:`Plan1d`, :class:`PlanNd`; CuPy's ``cupy.cuda.cufft`` classes,
also at ``ember.cuda.cufft``): cuFFT's on CUDA (loaded at run time from the toolkit or
``pip install nvidia-cufft``; real transforms as cuFFT's R2C/C2R, N-d ones as one plan of rank
2 or 3), ember's own Stockham passes elsewhere (lengths whose primes are 2, 3, 5 and 7;
Bluestein's algorithm for every other length). ``ember.fft.config.use_ember_passes()`` takes
the passes on CUDA too. Plans are cached per device and thread (``config.get_plan_cache()``);
``with plan:`` (a plan from :func:`get_fft_plan`) runs the transforms in the block on it.

Single precision stays single (float16/float32/complex64 give complex64, as CuPy and NumPy 2
do); everything else computes in complex128. ``norm`` is NumPy's (``"backward"``,
``"ortho"``, ``"forward"``); ``n``/``s`` crop or zero-pad.
"""

from __future__ import annotations

import numpy as np

from .._creation import arange, asarray
from .._manipulation import roll
from .._ndarray import ndarray
from .._shape import concatenate
from . import _fft as _impl  # the module: importing it binds the name ``_fft`` to it here
from . import config  # noqa: F401  (ember.fft.config, as cupy.fft.config)
from ._fft import _check_norm, _default_fft_func, _get_cufft_plan_nd, _last_output_size, _output_dtype
from ._plan import CUFFT_FORWARD, CUFFT_INVERSE, Plan1d, PlanNd, fft_type, get_current_plan

__all__ = [
    "fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn", "ifftshift", "ihfft", "irfft",
    "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn", "config", "get_fft_plan", "Plan1d", "PlanNd",
    "get_current_plan",
]


def _array(a) -> ndarray:
    return a if isinstance(a, ndarray) else asarray(a)


def _into(out, y: ndarray) -> ndarray:
    if out is None:
        return y
    out[...] = y
    return out


def _s_axes(a: ndarray, s, axes):
    """NumPy 2's ``s``: None entries mean the input's length."""
    if s is not None:
        s = tuple(s)
        if axes is None:
            axes_ = range(a.ndim - len(s), a.ndim)
        else:
            if len(s) != len(tuple(axes)):
                raise ValueError("Shape and axes have different lengths.")
            axes_ = axes
        if any(n is None for n in s):
            s = tuple(a.shape[ax] if n is None else n for n, ax in zip(s, axes_, strict=True))
    return s


def _c2c_nd(a, s, axes, norm, direction, out=None) -> ndarray:
    if s is None and norm is None and out is None:
        y = _impl._common_nd(a, axes, direction)
        if y is not None:
            return y
    a = _array(a)
    s = _s_axes(a, s, axes)
    func = _default_fft_func(a, s, axes)
    return _into(out, func(a, s, axes, norm, direction))


def _one_axis(a, n, axis, norm, direction, value_type):
    a = _array(a)
    if a.ndim == 0:
        raise np.exceptions.AxisError(axis, 0)
    if n is not None and int(n) < 1:
        raise ValueError(f"Invalid number of FFT data points ({int(n)}) specified.")
    return _impl._fft(a, (None if n is None else int(n),), (axis,), norm, direction, value_type)


def fft(a, n=None, axis=-1, norm=None, out=None) -> ndarray:
    """The discrete Fourier transform along ``axis``."""
    if n is None and axis == -1 and norm is None and out is None:
        y = _impl._common(a, CUFFT_FORWARD, "C2C")
        if y is not None:
            return y
    return _into(out, _one_axis(a, n, axis, norm, CUFFT_FORWARD, "C2C"))


def ifft(a, n=None, axis=-1, norm=None, out=None) -> ndarray:
    """The inverse discrete Fourier transform along ``axis``."""
    if n is None and axis == -1 and norm is None and out is None:
        y = _impl._common(a, CUFFT_INVERSE, "C2C")
        if y is not None:
            return y
    return _into(out, _one_axis(a, n, axis, norm, CUFFT_INVERSE, "C2C"))


def fftn(a, s=None, axes=None, norm=None, out=None) -> ndarray:
    """The N-dimensional discrete Fourier transform over ``axes`` (all by default)."""
    return _c2c_nd(a, s, axes, norm, CUFFT_FORWARD, out)


def ifftn(a, s=None, axes=None, norm=None, out=None) -> ndarray:
    """The inverse N-dimensional discrete Fourier transform."""
    return _c2c_nd(a, s, axes, norm, CUFFT_INVERSE, out)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None) -> ndarray:
    """The two-dimensional discrete Fourier transform over the last two axes."""
    return _c2c_nd(a, s, axes, norm, CUFFT_FORWARD, out)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None) -> ndarray:
    """The inverse two-dimensional discrete Fourier transform."""
    return _c2c_nd(a, s, axes, norm, CUFFT_INVERSE, out)


def _real_dtype(a: ndarray) -> np.dtype:
    """NumPy's dtype of a complex-to-real result: float16 stays, single stays single."""
    return np.result_type(a.real.dtype if a.dtype.kind == "c" else a.dtype, 1.0)


def rfft(a, n=None, axis=-1, norm=None, out=None) -> ndarray:
    """The transform of real input: the ``n // 2 + 1`` non-negative frequencies."""
    if n is None and axis == -1 and norm is None and out is None:
        y = _impl._common(a, CUFFT_FORWARD, "R2C")
        if y is not None:
            return y
    return _into(out, _one_axis(a, n, axis, norm, CUFFT_FORWARD, "R2C"))


def irfft(a, n=None, axis=-1, norm=None, out=None) -> ndarray:
    """The inverse of ``rfft``: ``n`` real values (``2 (m - 1)`` by default) from the ``m``
    non-negative frequencies of a Hermitian spectrum."""
    a = _array(a)
    _check_norm(norm)
    y = _one_axis(a, n, axis, norm, CUFFT_INVERSE, "C2R")
    return _into(out, y.astype(_real_dtype(a), copy=False))


def hfft(a, n=None, axis=-1, norm=None, out=None) -> ndarray:
    """The transform of a Hermitian-symmetric signal given by its first half: real values."""
    a = _array(a)
    return irfft(a.conj(), n, axis, _swap(norm), out=out)


def ihfft(a, n=None, axis=-1, norm=None, out=None) -> ndarray:
    """The inverse of ``hfft``: the first half of a Hermitian spectrum."""
    return _into(out, rfft(a, n, axis, _swap(norm)).conj())


def _swap(norm):
    norm = _check_norm(norm)
    return {"backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]


def rfftn(a, s=None, axes=None, norm=None, out=None) -> ndarray:
    """The N-dimensional transform of real input: ``rfft`` over the last axis, then complex
    transforms over the others."""
    a = _array(a)
    s = _s_axes(a, s, axes)
    func = _default_fft_func(a, s, axes, value_type="R2C")
    return _into(out, func(a, s, axes, norm, CUFFT_FORWARD, "R2C"))


def irfftn(a, s=None, axes=None, norm=None, out=None) -> ndarray:
    """The inverse of ``rfftn``."""
    a = _array(a)
    s = _s_axes(a, s, axes)
    func = _default_fft_func(a, s, axes, value_type="C2R")
    y = func(a, s, axes, norm, CUFFT_INVERSE, "C2R")
    if axes is not None and len(tuple(axes)) == 1:
        y = y.astype(_real_dtype(a), copy=False)  # as irfft's
    return _into(out, y)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None) -> ndarray:
    """``rfftn`` over the last two axes."""
    return rfftn(a, s, axes, norm, out)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None) -> ndarray:
    """``irfftn`` over the last two axes."""
    return irfftn(a, s, axes, norm, out)


def fftfreq(n, d=1.0, *, device=None) -> ndarray:
    """The sample frequencies of an ``n``-point transform, for samples ``d`` apart."""
    n = int(n)
    k = concatenate([arange(0, (n - 1) // 2 + 1, dtype=np.float64), arange(-(n // 2), 0, dtype=np.float64)])
    return k * (1.0 / (n * d))


def rfftfreq(n, d=1.0, *, device=None) -> ndarray:
    """The non-negative sample frequencies of an ``n``-point ``rfft``."""
    n = int(n)
    return arange(0, n // 2 + 1, dtype=np.float64) * (1.0 / (n * d))


def _shifts(x: ndarray, axes, sign: int):
    if axes is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axes, (int, np.integer)):
        axes = (int(axes),)
    shift = tuple(sign * (x.shape[ax] // 2) for ax in axes)
    return shift, tuple(axes)


def fftshift(x, axes=None) -> ndarray:
    """The zero frequency moved to the middle (over ``axes``, all by default)."""
    x = _array(x)
    shift, axes = _shifts(x, axes, 1)
    return roll(x, shift, axes)


def ifftshift(x, axes=None) -> ndarray:
    """The inverse of ``fftshift``."""
    x = _array(x)
    shift, axes = _shifts(x, axes, -1)
    return roll(x, shift, axes)


def get_fft_plan(a, shape=None, axes=None, value_type="C2C"):
    """A plan for transforming ``a`` (C- or F-contiguous) over ``axes`` (all by default; up to
    three) to ``shape``: a :class:`Plan1d` for one axis, a :class:`PlanNd` for several (CuPy's
    ``cupyx.scipy.fftpack.get_fft_plan``). ``with plan:`` runs ``ember.fft``'s transforms of
    matching arrays on it; it is not put in the plan cache."""
    from ._cache import get_plan_cache
    from ._fft import _plan_key

    if a.flags.c_contiguous:
        order = "C"
    elif a.flags.f_contiguous:
        order = "F"
    else:
        raise ValueError("Input array a must be contiguous")
    if isinstance(shape, int):
        shape = (shape,)
    if isinstance(axes, int):
        axes = (axes,)
    if shape is not None and axes is not None and len(shape) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if axes is None:
        count = a.ndim if shape is None else len(shape)
        axes = tuple(range(-count, 0))
        axis1d = 0 if count == 1 else None
    else:
        count = len(axes)
        if count == 1:
            axis1d = axes[0]
            if not -a.ndim <= axis1d < a.ndim:
                raise ValueError(f"The chosen axis ({axis1d}) exceeds the number of dimensions of a ({a.ndim})")
        elif count > 3:
            raise ValueError("Only up to three axes is supported")
    # The shape of the (cropped or padded) input the plan transforms.
    transformed = shape
    cooked = list(a.shape)
    if transformed is not None:
        for size, axis in zip(transformed, axes, strict=True):
            if size is not None:
                if axis == axes[-1] and value_type == "C2R":
                    size = size // 2 + 1
                cooked[axis] = size
    cooked = tuple(cooked)
    kind = fft_type(_output_dtype(a.dtype, value_type), value_type)
    if count > 1 and value_type != "C2C" and a.flags.f_contiguous:
        raise ValueError("C2R/R2C PlanNd for F-order arrays is not supported")
    if count > 1:
        out_size = _last_output_size(cooked, transformed, axes[-1], value_type)
        return _get_cufft_plan_nd(cooked, kind, axes=axes, order=order, out_size=out_size, to_cache=False)
    if value_type != "C2R":
        out_size = cooked[axis1d]
    else:
        out_size = _last_output_size(cooked, transformed, axis1d, value_type)
    batch = int(np.prod(cooked)) // cooked[axis1d]
    devices = config.devices
    plan = get_plan_cache().get(_plan_key(out_size, kind, batch, devices))
    return plan if plan is not None else Plan1d(out_size, kind, batch, devices=devices)
