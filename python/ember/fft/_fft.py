"""The transforms of ``ember.fft`` on plans (CuPy's ``cupy.fft._fft`` names what it shares).

Two ways to transform several axes: :func:`_fft`, one batched 1-D plan (:class:`Plan1d`) per
axis, and :func:`_fftn`, one N-d plan (:class:`PlanNd`) over up to three adjacent axes that
include the first or the last; :func:`_default_fft_func` picks. A plan comes from the ``with
plan:`` block around the call, else from the plan cache of the device and thread, else it is
made (and cached). Results follow NumPy 2: single precision stays single, ``norm`` is NumPy's.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import _ember
from .._creation import asarray, ascontiguousarray, zeros
from .._ndarray import ndarray
from .._runtime import current_device_id
from .._shape import asfortranarray
from . import config
from ._cache import get_plan_cache
from ._callback import get_current_callback_manager
from ._plan import CUFFT_FORWARD, CUFFT_INVERSE, Plan1d, PlanNd, fft_type, get_current_plan

_NORMS = ("backward", "ortho", "forward")


def _check_norm(norm) -> str:
    norm = "backward" if norm is None else norm
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')
    return norm


def _array(a) -> ndarray:
    return a if isinstance(a, ndarray) else asarray(a)


def _output_dtype(dtype: np.dtype, value_type: str) -> np.dtype:
    """The dtype a transform computes in: complex64 (float32 for R2C's input) from float16,
    float32 and complex64, as NumPy 2 keeps single precision; double precision otherwise."""
    single = dtype.char in "efF"
    if value_type == "R2C":
        if dtype.kind == "c":
            raise TypeError(f"ufunc 'rfft' does not support complex input ({dtype}): take the real part or use fft")
        return np.dtype(np.float32 if single else np.float64)
    return np.dtype(np.complex64 if single else np.complex128)


def _convert_dtype(a: ndarray, value_type: str) -> ndarray:
    name = a._a.dtype
    if name in _COMPUTES[value_type]:
        return a  # already the dtype it computes in (the common call: no NumPy dtype made)
    return a.astype(_output_dtype(a.dtype, value_type))


# The dtype names each kind of transform computes in as they are.
_COMPUTES = {"C2C": ("complex64", "complex128"), "R2C": ("float32", "float64"), "C2R": ("complex64", "complex128")}


def _cook_shape(a: ndarray, s, axes, value_type: str, order: str = "C") -> ndarray:
    """``a`` cropped or zero-padded to ``s`` along ``axes`` (C2R: to the ``s[-1] // 2 + 1``
    values its output of ``s[-1]`` needs)."""
    if s is None:
        return a
    s = list(s)
    if value_type == "C2R" and s[-1] is not None:
        s[-1] = s[-1] // 2 + 1
    for size, axis in zip(s, axes, strict=True):
        if size is None or size == a.shape[axis]:
            continue
        if size < a.shape[axis]:
            index = [slice(None)] * a.ndim
            index[axis] = slice(0, size)
            a = a[tuple(index)]
        else:
            shape = list(a.shape)
            index = [slice(None)] * a.ndim
            index[axis] = slice(0, shape[axis])
            shape[axis] = size
            padded = zeros(tuple(shape), dtype=a.dtype, order=order)
            padded[tuple(index)] = a
            a = padded
    return a


def _scales(norm: str, direction: int) -> bool:
    """Whether ``norm`` scales the transform of ``direction`` (not the default forward one)."""
    return norm != ("backward" if direction == CUFFT_FORWARD else "forward")


def _normalize(out: ndarray, norm: str, direction: int, size: int) -> None:
    if (norm == "backward" and direction == CUFFT_INVERSE) or (norm == "forward" and direction == CUFFT_FORWARD):
        out *= 1.0 / size  # a Python float: the dtype stays
    elif norm == "ortho":
        out *= 1.0 / math.sqrt(size)


def _plan1d_key(out_size: int, kind: int, batch: int) -> tuple:
    """The cache key of a :class:`Plan1d` (the general path and :func:`_common` share it)."""
    return _plan_key(out_size, kind, batch, config.devices)


def _plan_key(*parts) -> tuple:
    """A cache key: the plan's own parameters, its engine, the stream it runs on (a plan's
    work area must not serve two streams at once) and the callbacks it runs."""
    callbacks = get_current_callback_manager()
    return (*parts, config.engine(), _ember.current_stream_handle(current_device_id()),
            *(() if callbacks is None else callbacks.key()))


# (value type, input dtype name) -> cufftType, for the calls :func:`_common` takes.
_COMMON_KINDS = {("C2C", "complex64"): 0x29, ("C2C", "complex128"): 0x69,
                 ("R2C", "float32"): 0x2A, ("R2C", "float64"): 0x6A}


def _common(a, direction: int, value_type: str):
    """The most common call, ``fft(a)``/``ifft(a)``/``rfft(a)`` of a C-contiguous array of
    the dtype it computes in along its last axis, with no plan block, no callbacks and its
    plan cached: straight to the plan, skipping the general path's checks and conversions
    (microseconds that show beside a transform of a few dozen). None for any other call:
    the general path takes it (and caches its plan)."""
    if type(a) is not ndarray or get_current_plan() is not None or get_current_callback_manager() is not None:
        return None
    native = a._a
    kind = _COMMON_KINDS.get((value_type, native.dtype))
    shape = native.shape
    if kind is None or not shape or not native.c_contiguous or shape[-1] < 1:
        return None
    n = shape[-1]
    batch = math.prod(shape) // n
    plan = get_plan_cache().get(_plan1d_key(n, kind, batch)) if batch else None
    if plan is None:
        return None
    out = plan.get_output_array(a)
    plan.fft(a, out, direction)
    if _scales("backward", direction):
        _normalize(out, "backward", direction, n)
    return out


# complex dtype name -> cufftType of its C2C transform, for :func:`_common_nd`.
_COMMON_ND_KINDS = {"complex64": 0x29, "complex128": 0x69}


def _common_nd(a, axes, direction: int):
    """:func:`_common` for ``fft2``/``fftn`` and their inverses: a C-contiguous complex array
    of the dtype it computes in, over trailing ``axes`` (as given: None, or ``(-2, -1)``), no
    ``s``, default norm, no plan block or callbacks, its N-d plan cached. None for any other
    call: the general path takes it (and caches the plan)."""
    if type(a) is not ndarray or get_current_plan() is not None or get_current_callback_manager() is not None:
        return None
    native = a._a
    kind = _COMMON_ND_KINDS.get(native.dtype)
    shape = tuple(native.shape)
    if kind is None or len(shape) < 2 or not native.c_contiguous or not config._enable_nd_planning.get():
        return None
    if axes is None:
        if len(shape) > 3:
            return None
        axes_sorted = tuple(range(len(shape)))
    elif axes == (-2, -1):
        axes_sorted = (len(shape) - 2, len(shape) - 1)
    else:
        return None
    if 0 in shape:
        return None
    plan = get_plan_cache().get(_plan_key(*_nd_layout(shape, kind, axes_sorted, "C", None)))
    if plan is None:
        return None
    out = plan.get_output_array(a, order="C")
    plan.fft(a, out, direction)
    if _scales("backward", direction):
        _normalize(out, "backward", direction, math.prod(shape[ax] for ax in axes_sorted))
    return out


def _exec_fft(a: ndarray, direction: int, value_type: str, norm: str, axis: int, out_size=None,
              plan=None) -> ndarray:
    """One batched 1-D transform of ``a`` along ``axis`` (``out_size``: C2R's output length)."""
    kind = fft_type(a.dtype, value_type)
    swapped = axis % a.ndim != a.ndim - 1
    if swapped:
        a = a.swapaxes(axis, -1)
    if not a._a.c_contiguous:
        a = a.copy()
    n = a.shape[-1]
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    out_size = n if out_size is None else out_size
    batch = a.size // n
    current = get_current_plan()
    if current is not None:
        if plan is not None:
            raise RuntimeError("Use the cuFFT plan either as a context manager or as an argument.")
        plan = current
    if plan is None:
        key = _plan1d_key(out_size, kind, batch)
        cache = get_plan_cache()
        plan = cache.get(key)
        if plan is None:
            plan = Plan1d(out_size, kind, batch, devices=config.devices)
            cache[key] = plan
    else:
        if not isinstance(plan, Plan1d):
            raise ValueError("expected plan to have type cufft.Plan1d")
        if kind != plan.fft_type:
            raise ValueError("cuFFT plan dtype mismatch.")
        if out_size != plan.nx:
            raise ValueError("Target array size does not match the plan.", out_size, plan.nx)
        if batch != plan.batch:
            raise ValueError("Batch size does not match the plan.")
        if config.use_multi_gpus != (plan.gpus is not None):
            raise ValueError("Unclear if multiple GPUs are to be used or not.")
    out = plan.get_output_array(a)
    if batch:
        plan.fft(a, out, direction)
    if _scales(norm, direction):
        _normalize(out, norm, direction, n if value_type == "R2C" else out.shape[-1])
    return out.swapaxes(axis, -1) if swapped else out


def _fft_c2c(a, direction, norm, axes, plan=None):
    for axis in axes:
        a = _exec_fft(a, direction, "C2C", norm, axis, plan=plan)
    return a


def _last_output_size(in_shape, s, last_axis: int, value_type: str):
    """The output length along the real transform's axis (C2C: None)."""
    if value_type == "C2R":
        if s is None or s[-1] is None:
            return 2 * (in_shape[last_axis] - 1)
        return s[-1]
    if value_type == "R2C":
        return in_shape[last_axis] // 2 + 1
    return None


def _fft(a, s, axes, norm, direction, value_type="C2C", overwrite_x=False, plan=None):
    """The transform over ``axes`` as one batched 1-D plan per axis."""
    if not isinstance(a, ndarray):
        raise TypeError("The input array a must be an ember ndarray")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if axes is None:
        axes = list(range(-(a.ndim if s is None else len(s)), 0))
    else:
        axes = tuple(axes)
    if not axes:
        if value_type == "C2C":
            return a
        raise IndexError("list index out of range")
    norm = _check_norm(norm)
    for axis in axes:
        if not -a.ndim <= axis < a.ndim:
            raise np.exceptions.AxisError(axis, a.ndim)
    a = _convert_dtype(a, value_type)
    a = _cook_shape(a, s, axes, value_type)
    if value_type == "C2C":
        return _fft_c2c(a, direction, norm, axes, plan)
    if value_type == "R2C":
        a = _exec_fft(a, direction, "R2C", norm, axes[-1], plan=plan)
        return _fft_c2c(a, direction, norm, axes[:-1])
    a = _fft_c2c(a, direction, norm, axes[:-1])
    out_size = _last_output_size(a.shape, s, axes[-1], value_type)
    if out_size < 1:
        raise ValueError(f"Invalid number of FFT data points ({out_size}) specified.")
    return _exec_fft(a, direction, "C2R", norm, axes[-1], out_size, plan=plan)


def _prep_fftn_axes(ndim: int, s=None, axes=None, value_type="C2C"):
    """``(axes, sorted axes)``: the axes as given (for cropping) and in the order an N-d plan
    takes them (ascending; R2C/C2R keep their real axis last)."""
    return _axes_in_order(ndim, None if s is None else tuple(s), None if axes is None else tuple(axes), value_type)


@functools.lru_cache(maxsize=256)
def _axes_in_order(ndim: int, s, axes, value_type):
    """:func:`_prep_fftn_axes` of hashable arguments, remembered: every N-d transform asks."""
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if axes is None:
        dim = ndim if s is None else len(s)
        axes = tuple(range(ndim - dim, ndim))
        return axes, axes
    axes = tuple(axes)
    if not axes:
        return (), ()
    if min(axes) < -ndim or max(axes) > ndim - 1:
        raise ValueError("The specified axes exceed the array dimensions.")
    if value_type == "C2C":
        return axes, tuple(sorted(ax % ndim for ax in axes))
    return axes, (*sorted(ax % ndim for ax in axes[:-1]), axes[-1] % ndim)


def _nd_plan_is_possible(axes_sorted, ndim: int) -> bool:
    """An N-d plan takes 1 to 3 adjacent, distinct axes that include the first or the last."""
    return (0 < len(axes_sorted) <= 3
            and (0 in axes_sorted or ndim - 1 in axes_sorted)
            and all(axes_sorted[k + 1] - axes_sorted[k] == 1 for k in range(len(axes_sorted) - 1)))


def _get_cufft_plan_nd(shape, kind, axes=None, order="C", out_size=None, to_cache=True):
    """The N-d plan (cached, or made) for an array of ``shape`` in ``order`` transformed over
    ``axes``, in cuFFT's advanced layout: the batch runs along the axes not transformed (the
    leading ones or the trailing ones)."""
    key = _nd_layout(tuple(shape), kind, None if axes is None else tuple(axes), order, out_size)
    cache = get_plan_cache()
    full = _plan_key(*key)
    plan = cache.get(full)
    if plan is None:
        plan = PlanNd(*key)
        if to_cache:
            cache[full] = plan
    return plan


@functools.lru_cache(maxsize=256)
def _nd_layout(shape, kind, axes, order, out_size) -> tuple:
    """PlanNd's arguments for :func:`_get_cufft_plan_nd`'s transform (remembered: a pure
    function of its arguments, asked by every N-d transform)."""
    ndim = len(shape)
    value_type = {0x29: "C2C", 0x69: "C2C", 0x2A: "R2C", 0x6A: "R2C", 0x2C: "C2R", 0x6C: "C2R"}[kind]
    fft_axes = tuple(range(ndim)) if axes is None else _prep_fftn_axes(ndim, None, axes, value_type)[1]
    if not _nd_plan_is_possible(fft_axes, ndim):
        raise ValueError("An n-dimensional cuFFT plan could not be created. The axes must be contiguous and "
                         "non-repeating. Between one and three axes can be transformed and either the first or "
                         "last axis must be included in axes.")
    if order not in ("C", "F"):
        raise ValueError("order must be 'C' or 'F'")
    dims = [shape[d] for d in fft_axes]
    if order == "F":
        dims = dims[::-1]
    in_dims = tuple(dims)
    out_dims = list(in_dims)
    if value_type != "C2C" and out_size is not None:
        out_dims[-1] = out_size
    out_dims = tuple(out_dims)
    plan_dims = out_dims if value_type == "C2R" else in_dims  # the real lengths
    if fft_axes == tuple(range(ndim)):
        batch, istride, idist, ostride, odist = 1, 1, 1, 1, 1
    elif 0 not in fft_axes:  # the batch along the leading axes
        batch = math.prod(shape[: min(fft_axes)])
        if order == "C":
            istride = ostride = 1
            idist, odist = math.prod(in_dims), math.prod(out_dims)
        else:
            istride = ostride = batch
            idist = odist = 1
    elif ndim - 1 not in fft_axes:  # the batch along the trailing axes
        batch = math.prod(shape[len(fft_axes) - ndim:])
        if order == "C":
            istride = ostride = batch
            idist = odist = 1
        else:
            istride = ostride = 1
            idist, odist = math.prod(in_dims), math.prod(out_dims)
    else:
        raise ValueError("General subsets of FFT axes not currently supported for GPU case (Can only batch FFT "
                         "over the first or last spatial axes).")
    for n in plan_dims:
        if n < 1:
            raise ValueError("Invalid number of FFT data points specified.")
    return (plan_dims, in_dims, istride, idist, out_dims, ostride, odist, kind, batch, order, fft_axes[-1], out_size)


def _exec_fftn(a, direction, value_type, norm, axes, overwrite_x=False, plan=None, out=None, out_size=None):
    kind = fft_type(a.dtype, value_type)
    if a._a.c_contiguous:
        order = "C"
    elif a._a.f_contiguous:
        order = "F"
    else:
        raise ValueError("a must be contiguous")
    current = get_current_plan()
    if current is not None:
        plan = current
    if plan is None:
        plan = _get_cufft_plan_nd(a.shape, kind, axes=axes, order=order, out_size=out_size)
    else:
        if not isinstance(plan, PlanNd):
            raise ValueError("expected plan to have type cufft.PlanNd")
        if order != plan.order:
            raise ValueError(f"array orders mismatch (plan: {plan.order}, input: {order})")
        if order == "C":
            expected = [a.shape[ax] for ax in axes]
            if value_type == "C2R":
                expected[-1] = out_size
        else:
            expected = [a.shape[ax] for ax in axes[::-1]]
        expected = tuple(expected)
        if expected != plan.shape:
            raise ValueError(f"The cuFFT plan and a.shape do not match: plan.shape = {plan.shape}, "
                             f"expected_shape={expected}, a.shape = {a.shape}")
        if kind != plan.fft_type:
            raise ValueError("cuFFT plan dtype mismatch.")
        if value_type != "C2C":
            if axes[-1] != plan.last_axis:
                raise ValueError("The last axis for R2C/C2R mismatch")
            if out_size != plan.last_size:
                raise ValueError("The size along the last R2C/C2R axis mismatch")
    if out is None:
        out = plan.get_output_array(a, order=order)
    else:
        plan.check_output_array(a, out)
    if out.size:
        plan.fft(a, out, direction)
    if _scales(norm, direction):
        sized = a if value_type == "R2C" else out
        _normalize(out, norm, direction, math.prod(sized.shape[ax] for ax in axes))
    return out


def _fftn(a, s, axes, norm, direction, value_type="C2C", order="A", plan=None, overwrite_x=False, out=None):
    """The transform over ``axes`` as one N-d plan."""
    if not isinstance(a, ndarray):
        raise TypeError("The input array a must be an ember ndarray")
    norm = _check_norm(norm)
    axes, axes_sorted = _prep_fftn_axes(a.ndim, s, axes, value_type)
    if not axes_sorted:
        if value_type == "C2C":
            return a
        raise IndexError("list index out of range")
    a = _convert_dtype(a, value_type)
    if order == "A":
        if a._a.f_contiguous:
            order = "F"
        elif a._a.c_contiguous:
            order = "C"
        else:
            a = ascontiguousarray(a)
            order = "C"
    elif order not in ("C", "F"):
        raise ValueError(f"Unsupported order: {order}")
    a = _cook_shape(a, s, axes, value_type, order=order)
    for n in a.shape:
        if n < 1:
            raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    if order == "C" and not a._a.c_contiguous:
        a = ascontiguousarray(a)
    elif order == "F" and not a._a.f_contiguous:
        a = asfortranarray(a)
    out_size = _last_output_size(a.shape, s, axes_sorted[-1], value_type)
    return _exec_fftn(a, direction, value_type, norm, axes_sorted, overwrite_x, plan, out, out_size)


def _default_fft_func(a, s=None, axes=None, plan=None, value_type="C2C"):
    """:func:`_fftn` where one N-d plan can do the transform (and N-d planning is on), else
    :func:`_fft`."""
    current = get_current_plan()
    if current is not None:
        if plan is not None:
            raise RuntimeError("Use the cuFFT plan either as a context manager or as an argument.")
        plan = current
    if isinstance(plan, PlanNd):
        return _fftn
    if isinstance(plan, Plan1d) or a.ndim == 1 or not config._enable_nd_planning.get():
        return _fft
    # A real transform of Fortran-ordered data has no N-d plan here (as in CuPy).
    if a._a.f_contiguous and value_type != "C2C":
        return _fft
    _, axes_sorted = _prep_fftn_axes(a.ndim, s, axes, value_type)
    if len(axes_sorted) > 1 and _nd_plan_is_possible(axes_sorted, a.ndim):
        return _fftn
    return _fft


def _size_last_transform_axis(shape, s, axes) -> int:
    if s is not None and s[-1] is not None:
        return s[-1]
    if axes is not None:
        return shape[axes[-1]]
    return shape[-1]
