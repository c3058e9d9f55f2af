"""``interp``: NumPy's one-dimensional piecewise-linear interpolation, on the device.

Each ``x`` finds its interval ``xp[j] <= x < xp[j+1]`` by one ``searchsorted``; the value is
NumPy's own expression, ``slope * (x - xp[j]) + fp[j]``, with NumPy's fallbacks: from the
other end of the interval when that is NaN (an infinite ``fp``), and ``fp[j]`` itself for
equal ends. The ends, exact hits, NaN ``x`` and one-point ``xp`` follow NumPy's C code
(``arr_interp`` in ``compiled_base.c``) case by case, so results match it bit for bit.
"""

from __future__ import annotations

import numpy as np

from . import _ember
from ._creation import asarray
from ._indexing import take, where
from ._shape import concatenate
from ._sorting import argsort, searchsorted
from ._ufuncs import UFUNCS, imag, real

__all__ = ["interp"]


def interp(x, xp, fp, left=None, right=None, period=None):
    """``fp`` at ``x``, linearly interpolated between the points ``(xp, fp)`` (``xp``
    increasing); ``left``/``right`` outside them (``fp[0]``/``fp[-1]`` by default). With
    ``period``, ``x`` and ``xp`` are angles of that period. Float64 (complex128 for complex
    ``fp``), as NumPy computes it."""
    fp = _array(fp)
    kind = np.complex128 if fp.dtype.kind == "c" else np.float64
    x, xp, fp = _array(x).astype(np.float64), _array(xp).astype(np.float64), fp.astype(kind)
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("object too deep for desired array" if max(xp.ndim, fp.ndim) > 1
                         else "object of too small depth for desired array")
    if xp.size == 0:
        raise ValueError("array of sample points is empty")
    if xp.size != fp.size:
        raise ValueError("fp and xp are not of the same length.")
    if period is not None:
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period = abs(period)
        left = right = None
        x, xp = UFUNCS["remainder"](x, period), UFUNCS["remainder"](xp, period)
        order = argsort(xp)
        xp, fp = take(xp, order), take(fp, order)
        # One point past each end, a period away, so every angle has an interval.
        xp = concatenate([xp[-1:] - period, xp, xp[0:1] + period])
        fp = concatenate([fp[-1:], fp, fp[0:1]])
    lval = fp[0] if left is None else asarray(left, dtype=kind)
    rval = fp[-1] if right is None else asarray(right, dtype=kind)
    if kind is np.float64:
        return _interp(x, xp, fp, lval, rval, _real_step)
    # NumPy's complex loop: one reciprocal of the interval, each part on its own.
    re = _interp(x, xp, real(fp), real(lval), real(rval), _complex_part_step)
    im = _interp(x, xp, imag(fp), imag(lval), imag(rval), _complex_part_step)
    return UFUNCS["add"](re, UFUNCS["multiply"](im, 1j))


def _array(a):
    return a if isinstance(a, _ember.ndarray) else asarray(a)


def _real_step(y0, y1, x0, x1):
    """NumPy's slope of a real interval."""
    return (y1 - y0) / (x1 - x0)


def _complex_part_step(y0, y1, x0, x1):
    """NumPy's slope of one part of a complex interval (times the reciprocal of its width)."""
    return (y1 - y0) * (1.0 / (x1 - x0))


def _interp(x, xp, fp, lval, rval, slope_of):
    n = xp.size
    if n == 1:  # NumPy's one-point case: below, above, or the point (NaN x included)
        return where(x < xp[0], lval, where(x > xp[0], rval, fp[0]))
    j = searchsorted(xp, x, side="right") - 1  # xp[j] <= x < xp[j+1]
    inner = j.clip(0, n - 2)
    x0, x1 = take(xp, inner), take(xp, inner + 1)
    y0, y1 = take(fp, inner), take(fp, inner + 1)
    slope = slope_of(y0, y1, x0, x1)
    value = slope * (x - x0) + y0
    isnan = UFUNCS["isnan"]
    # A NaN from one end (an infinite fp): from the other end; still NaN with equal ends: the end.
    value = where(isnan(value), slope * (x - x1) + y1, value)
    value = where(isnan(value) & (y0 == y1), y0, value)
    # NumPy's cases, last to first in its order of precedence.
    value = where(x0 == x, y0, value)
    value = where(j == n - 1, fp[n - 1], value)
    value = where(x > xp[n - 1], rval, value)
    value = where(j < 0, lval, value)
    return where(isnan(x), x, value)
