"""NumPy's reductions that skip NaN: ``nansum nanprod nancumsum nancumprod nanmax nanmin
nanargmax nanargmin nanmean nanvar nanstd``.

Each replaces NaN by the reduction's neutral value and runs ember's reduction (arrays of
integers or booleans, which hold no NaN, go straight to it). Where NumPy warns (an all-NaN
slice, an empty mean, no degrees of freedom) ember warns the same ``RuntimeWarning``, which
reads one flag from the device; ``nanargmax``/``nanargmin`` of an all-NaN slice raise NumPy's
``ValueError``.
"""

from __future__ import annotations

import warnings

import numpy as np

from . import _ember, _reductions
from ._creation import asarray
from ._indexing import where
from ._ufuncs import UFUNCS

__all__ = [
    "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmean", "nanmin", "nanprod", "nanstd", "nansum",
    "nanvar",
]

_isnan = UFUNCS["isnan"]


def _array(a):
    return a if isinstance(a, _ember.ndarray) else asarray(a)


def _inexact(a) -> bool:
    return a.dtype.kind in "fc"


def _replace_nan(a, value):
    """``a`` with NaN replaced by ``value``, and the mask of NaN (None for exact dtypes)."""
    a = _array(a)
    if not _inexact(a):
        return a, None
    mask = _isnan(a)
    return where(mask, asarray(value, dtype=a.dtype), a), mask


def _deliver(result, out):
    if out is None:
        return result
    out[...] = result
    return out


def nansum(a, axis=None, dtype=None, out=None, keepdims=False):
    """The sum, NaN counting as zero (one reduction reading ``a`` once)."""
    a = _array(a)
    if not _inexact(a):
        return _reductions.sum(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)
    return _reductions._reduce("nansum", a, axis, dtype, out, keepdims)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False):
    """The product, NaN counting as one."""
    a, _ = _replace_nan(a, 1)
    return _reductions.prod(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)


def nancumsum(a, axis=None, dtype=None, out=None):
    """The running sum, NaN counting as zero."""
    a, _ = _replace_nan(a, 0)
    return _reductions.cumsum(a, axis=axis, dtype=dtype, out=out)


def nancumprod(a, axis=None, dtype=None, out=None):
    """The running product, NaN counting as one."""
    a, _ = _replace_nan(a, 1)
    return _reductions.cumprod(a, axis=axis, dtype=dtype, out=out)


def _nan_extremum(a, axis, out, keepdims, largest: bool):
    a = _array(a)
    if not _inexact(a):
        reduction = _reductions.max if largest else _reductions.min
        return reduction(a, axis=axis, out=out, keepdims=keepdims)
    if a.dtype.kind == "c":
        # fmax/fmin keep the other operand where one is NaN, in NumPy's order of complex values.
        result = UFUNCS["fmax" if largest else "fmin"].reduce(a, axis=axis, keepdims=keepdims)
    else:
        filled = where(_isnan(a), asarray(-np.inf if largest else np.inf, dtype=a.dtype), a)
        extreme = (_reductions.max if largest else _reductions.min)(filled, axis=axis, keepdims=keepdims)
        all_nan = _reductions.all(_isnan(a), axis=axis, keepdims=keepdims)
        result = where(all_nan, asarray(np.nan, dtype=a.dtype), extreme)
    if bool(_reductions.any(_isnan(result))):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=3)
    return _deliver(result, out)


def nanmax(a, axis=None, out=None, keepdims=False):
    """The maximum, ignoring NaN (NaN, with a warning, where a slice is all NaN)."""
    return _nan_extremum(a, axis, out, keepdims, largest=True)


def nanmin(a, axis=None, out=None, keepdims=False):
    """The minimum, ignoring NaN (NaN, with a warning, where a slice is all NaN)."""
    return _nan_extremum(a, axis, out, keepdims, largest=False)


def _nan_arg(a, axis, out, keepdims, largest: bool):
    a = _array(a)
    arg = _reductions.argmax if largest else _reductions.argmin
    if not _inexact(a):
        return arg(a, axis=axis, out=out, keepdims=keepdims)
    mask = _isnan(a)
    if bool(_reductions.any(_reductions.all(mask, axis=axis))):
        raise ValueError("All-NaN slice encountered")
    fill = -np.inf if largest else np.inf
    filled = where(mask, asarray(fill if a.dtype.kind == "f" else complex(fill, 0), dtype=a.dtype), a)
    return arg(filled, axis=axis, out=out, keepdims=keepdims)


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    """The index of the maximum, ignoring NaN."""
    return _nan_arg(a, axis, out, keepdims, largest=True)


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """The index of the minimum, ignoring NaN."""
    return _nan_arg(a, axis, out, keepdims, largest=False)


def _count(mask, axis, keepdims):
    return _reductions.sum(~mask, axis=axis, dtype=np.intp, keepdims=keepdims)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False):
    """The mean of the values that are not NaN (NaN, with a warning, where there are none)."""
    a = _array(a)
    if not _inexact(a):
        return _reductions.mean(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)
    if a.dtype.kind == "c":
        count = _reductions.sum(~_isnan(a), axis=axis, keepdims=keepdims)
        total = _reductions._reduce("nansum", a, axis, dtype, None, keepdims)
        result_dtype = total.dtype
    else:
        # One reduction reading ``a`` once: the sum of the values (in float64) and their
        # count, as a complex128's parts.
        pair = _reductions._reduce("nan_sum_count", a, axis, None, None, keepdims)
        count, total = pair.imag, pair.real
        result_dtype = np.dtype(dtype) if dtype is not None else a.dtype
    if bool(_reductions.any(count == 0)):
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        result = total / count
    return _deliver(result.astype(result_dtype, copy=False), out)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """The variance of the values that are not NaN, with ``ddof`` degrees of freedom less."""
    filled, mask = _replace_nan(a, 0)
    if mask is None:
        return _reductions.var(filled, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)
    count = _count(mask, axis, True)
    with np.errstate(invalid="ignore", divide="ignore"):
        # As NumPy computes it: the mean in the sum's dtype, deviations in the array's.
        total = _reductions.sum(filled, axis=axis, dtype=dtype, keepdims=True)
        mean = (total / count).astype(total.dtype, copy=False)
        centred = where(mask, asarray(0, dtype=filled.dtype), (filled - mean).astype(filled.dtype, copy=False))
        if centred.dtype.kind == "c":
            squares = (centred * UFUNCS["conjugate"](centred)).real.copy()
        else:
            squares = centred * centred
        dof = _count(mask, axis, keepdims) - ddof
        if bool(_reductions.any(dof <= 0)):
            warnings.warn("Degrees of freedom <= 0 for slice.", RuntimeWarning, stacklevel=2)
        total = _reductions.sum(squares, axis=axis, dtype=dtype, keepdims=keepdims)
        result = where(dof > 0, total / dof, asarray(np.nan, dtype=total.dtype))
    return _deliver(result.astype(total.dtype, copy=False), out)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """The standard deviation of the values that are not NaN."""
    result = UFUNCS["sqrt"](nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims))
    return _deliver(result, out)
