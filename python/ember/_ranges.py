"""``linspace`` and ``logspace`` with array bounds: one progression per pair of (broadcast)
bounds, along ``axis`` of the result, as NumPy computes it. Scalar bounds go to
``_creation``'s kernels (NumPy's values to the bit)."""

from __future__ import annotations

import operator

import numpy as np

from . import _creation, _dtypes, _ember
from ._creation import arange, asarray
from ._reductions import any as _any
from ._shape import expand_dims, moveaxis
from ._ufuncs import UFUNCS

__all__ = ["linspace", "logspace"]


def _scalar(value) -> bool:
    return value.ndim == 0 if isinstance(value, _ember.ndarray) else np.ndim(value) == 0


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    """``num`` evenly spaced values from ``start`` to ``stop``, as ``numpy.linspace``; array
    bounds give one progression each, along ``axis``."""
    if device is not None:
        return _creation._elsewhere(device, linspace, start, stop, num, endpoint, retstep, dtype, axis)
    if _scalar(start) and _scalar(stop):
        return _creation.linspace(start, stop, num, endpoint, retstep, dtype, axis)
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    start, stop = asarray(start), asarray(stop)
    dt = np.result_type(start.dtype, stop.dtype, 1.0)
    d = _dtypes.normalize(dtype) if dtype is not None else dt
    div = (num - 1) if endpoint else num
    start, stop = start.astype(dt), stop.astype(dt)
    delta = stop - start
    y = arange(0, num, dtype=dt).reshape((-1,) + (1,) * delta.ndim)
    if div > 0:
        step = delta / div
        # Denormal steps: NumPy divides by div, then multiplies by delta.
        y = y / div * delta if bool(_any(step == 0)) else y * step
    else:
        step = float("nan")
        y = y * delta
    y = y + start
    if endpoint and num > 1:
        y[-1, ...] = stop
    if axis != 0:
        y = moveaxis(y, 0, axis)
    if d.kind in "iu":
        y = UFUNCS["floor"](y)
    out = y.astype(d, copy=False)
    return (out, step) if retstep else out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop, num, endpoint)``, as ``numpy.logspace``; bounds and
    ``base`` may be arrays (broadcast), the progression along ``axis``."""
    if _scalar(start) and _scalar(stop) and axis in (0, -1):
        return _creation.logspace(start, stop, num, endpoint, base, dtype, axis)
    ndmax = np.broadcast(np.empty(np.shape(start)), np.empty(np.shape(stop)), np.empty(np.shape(base))).ndim
    start, stop, b = (asarray(v) for v in (start, stop, base))
    start, stop, b = (v.reshape((1,) * (ndmax - v.ndim) + v.shape) for v in (start, stop, b))
    y = linspace(start, stop, num=num, endpoint=endpoint, axis=axis)
    out = expand_dims(b, axis) ** y
    return out if dtype is None else out.astype(dtype, copy=False)
