"""``ember.fft``: NumPy's ``numpy.fft`` (as ``cupy.fft``) on ember arrays.

Transforms run on the device: cuFFT on CUDA (loaded at run time from the toolkit or
``pip install nvidia-cufft``), ember's own Stockham passes elsewhere (lengths whose primes are
2, 3, 5 and 7; Bluestein's algorithm, three of those of a power-of-two length, for every other
length). ``ember.fft.config.use_ember_passes()`` takes the passes on CUDA too.

Single precision stays single (float16/float32/complex64 give complex64, as CuPy and NumPy 2
do); everything else computes in complex128. ``norm`` is NumPy's (``"backward"``,
``"ortho"``, ``"forward"``); ``n``/``s`` crop or zero-pad; multi-dimensional transforms are
one-dimensional ones along each axis. Real transforms go through the complex ones.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .._creation import asarray
from .._manipulation import roll
from .._ndarray import ndarray
from .._shape import concatenate
from .._ufuncs import UFUNCS
from . import config  # noqa: F401  (ember.fft.config, as cupy.fft.config)
from ._engine import c2c, check_norm, complex_dtype, resized

__all__ = [
    "fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn", "ifftshift", "ihfft", "irfft",
    "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn",
]

_SWAP = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def _array(a) -> ndarray:
    return a if isinstance(a, ndarray) else asarray(a)


def _into(out, y: ndarray) -> ndarray:
    if out is None:
        return y
    out[...] = y
    return out


def fft(a, n=None, axis=-1, norm=None, out=None) -> ndarray:
    """The discrete Fourier transform along ``axis``."""
    return c2c(_array(a), n, axis, norm, False, out)


def ifft(a, n=None, axis=-1, norm=None, out=None) -> ndarray:
    """The inverse discrete Fourier transform along ``axis``."""
    return c2c(_array(a), n, axis, norm, True, out)


def _axes_and_lengths(a: ndarray, s, axes) -> tuple[list[int], list[int | None]]:
    if axes is None:
        axes = list(range(a.ndim)) if s is None else list(range(a.ndim - len(s), a.ndim))
    axes = [normalize_axis_index(ax, a.ndim) for ax in axes]
    if s is None:
        lengths = [None] * len(axes)
    else:
        lengths = list(s)
        if len(lengths) != len(axes):
            raise ValueError("Shape and axes have different lengths.")
    return axes, lengths


def _cnd(a, s, axes, norm, inverse: bool, out=None) -> ndarray:
    x = _array(a)
    axes, lengths = _axes_and_lengths(x, s, axes)
    for ax, n in reversed(list(zip(axes, lengths, strict=True))):
        x = c2c(x, n, ax, norm, inverse)
    return _into(out, x)


def fftn(a, s=None, axes=None, norm=None, out=None) -> ndarray:
    """The N-dimensional discrete Fourier transform over ``axes`` (all by default)."""
    return _cnd(a, s, axes, norm, False, out)


def ifftn(a, s=None, axes=None, norm=None, out=None) -> ndarray:
    """The inverse N-dimensional discrete Fourier transform."""
    return _cnd(a, s, axes, norm, True, out)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None) -> ndarray:
    """The two-dimensional discrete Fourier transform over the last two axes."""
    return _cnd(a, s, axes, norm, False, out)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None) -> ndarray:
    """The inverse two-dimensional discrete Fourier transform."""
    return _cnd(a, s, axes, norm, True, out)


def _real_input(x: ndarray) -> ndarray:
    if x.dtype.kind == "c":
        raise TypeError("ufunc 'rfft' does not support complex input: take the real part or use fft")
    return x


def rfft(a, n=None, axis=-1, norm=None, out=None) -> ndarray:
    """The transform of real input: the ``n // 2 + 1`` non-negative frequencies."""
    x = _real_input(_array(a))
    if x.ndim == 0:
        raise np.exceptions.AxisError(axis, 0)
    axis = normalize_axis_index(axis, x.ndim)
    n = x.shape[axis] if n is None else int(n)
    y = c2c(x, n, axis, norm, False)
    index = [slice(None)] * y.ndim
    index[axis] = slice(0, n // 2 + 1)
    return _into(out, y[tuple(index)])


def irfft(a, n=None, axis=-1, norm=None, out=None) -> ndarray:
    """The inverse of ``rfft``: ``n`` real values (``2 (m - 1)`` by default) from the ``m``
    non-negative frequencies of a Hermitian spectrum."""
    check_norm(norm)
    x = _array(a)
    if x.ndim == 0:
        raise np.exceptions.AxisError(axis, 0)
    axis = normalize_axis_index(axis, x.ndim)
    n = 2 * (x.shape[axis] - 1) if n is None else int(n)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    dtype = complex_dtype(x.dtype)
    half = resized(x.astype(dtype, copy=False), n // 2 + 1, axis)
    index = [slice(None)] * half.ndim
    index[axis] = slice(n - n // 2 - 1, 0, -1)  # X[n - k] = conj(X[k]), k = 1 .. (n - 1) // 2
    mirrored = UFUNCS["conjugate"](half[tuple(index)])
    full = concatenate([half, mirrored], axis=axis)
    y = c2c(full, n, axis, norm, True).real
    real = np.float16 if x.dtype == np.float16 else y.dtype
    return _into(out, y if y.dtype == real else y.astype(real))


def hfft(a, n=None, axis=-1, norm=None, out=None) -> ndarray:
    """The transform of a Hermitian-symmetric signal given by its first half: real values."""
    check_norm(norm)
    x = _array(a)
    if n is None:
        n = 2 * (x.shape[axis] - 1)
    return irfft(UFUNCS["conjugate"](x), n, axis, norm=_SWAP[norm], out=out)


def ihfft(a, n=None, axis=-1, norm=None, out=None) -> ndarray:
    """The inverse of ``hfft``: the first half of a Hermitian spectrum."""
    check_norm(norm)
    return _into(out, UFUNCS["conjugate"](rfft(a, n, axis, norm=_SWAP[norm])))


def rfftn(a, s=None, axes=None, norm=None, out=None) -> ndarray:
    """The N-dimensional transform of real input: ``rfft`` over the last axis, then complex
    transforms over the others."""
    x = _real_input(_array(a))
    axes, lengths = _axes_and_lengths(x, s, axes)
    y = rfft(x, lengths[-1], axes[-1], norm)
    for ax, n in reversed(list(zip(axes[:-1], lengths[:-1], strict=True))):
        y = c2c(y, n, ax, norm, False)
    return _into(out, y)


def irfftn(a, s=None, axes=None, norm=None, out=None) -> ndarray:
    """The inverse of ``rfftn``."""
    x = _array(a)
    axes, lengths = _axes_and_lengths(x, s, axes)
    for ax, n in zip(axes[:-1], lengths[:-1], strict=True):
        x = c2c(x, n, ax, norm, True)
    return _into(out, irfft(x, lengths[-1], axes[-1], norm))


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None) -> ndarray:
    """``rfftn`` over the last two axes."""
    return rfftn(a, s, axes, norm, out)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None) -> ndarray:
    """``irfftn`` over the last two axes."""
    return irfftn(a, s, axes, norm, out)


def fftfreq(n, d=1.0, *, device=None) -> ndarray:
    """The sample frequencies of an ``n``-point transform, for samples ``d`` apart."""
    return asarray(np.fft.fftfreq(int(n), d))


def rfftfreq(n, d=1.0, *, device=None) -> ndarray:
    """The non-negative sample frequencies of an ``n``-point ``rfft``."""
    return asarray(np.fft.rfftfreq(int(n), d))


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
