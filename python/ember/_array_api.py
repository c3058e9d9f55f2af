"""Array API standard functions NumPy 2 also has under these names: ``astype``,
``cumulative_sum``, ``cumulative_prod`` and ``vecdot``."""

from __future__ import annotations

from numpy.lib.array_utils import normalize_axis_index

from . import _ember, _reductions
from ._creation import asarray, full
from ._shape import broadcast_arrays, concatenate, moveaxis
from ._ufuncs import UFUNCS

__all__ = ["astype", "cumulative_prod", "cumulative_sum", "vecdot"]


def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` converted to ``dtype`` (a copy unless ``copy=False`` allows ``x`` itself)."""
    if not isinstance(x, _ember.ndarray):
        raise TypeError(f"Input should be an ember.ndarray, got {type(x).__name__}")
    return x.astype(dtype, copy=copy)


def _cumulative(scan, x, axis, dtype, include_initial, initial):
    x = x if isinstance(x, _ember.ndarray) else asarray(x)
    if axis is None:
        if x.ndim > 1:
            raise ValueError("axis must be specified for multi-dimensional arrays")
        axis = 0
    if x.ndim == 0:
        raise ValueError("cumulative functions need an array of at least one dimension")
    axis = normalize_axis_index(axis, x.ndim)
    out = scan(x, axis=axis, dtype=dtype)
    if not include_initial:
        return out
    shape = list(out.shape)
    shape[axis] = 1
    first = full(tuple(shape), initial, dtype=out.dtype)
    return concatenate([first, out], axis=axis)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """The running sum along ``axis`` (required for more than one dimension), after a 0 when
    ``include_initial``."""
    return _cumulative(_reductions.cumsum, x, axis, dtype, include_initial, 0)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """The running product along ``axis``, after a 1 when ``include_initial``."""
    return _cumulative(_reductions.cumprod, x, axis, dtype, include_initial, 1)


def vecdot(x1, x2, /, *, axis=-1):
    """The dot products of the vectors along ``axis`` (the first conjugated), broadcast over
    the other axes."""
    x1 = x1 if isinstance(x1, _ember.ndarray) else asarray(x1)
    x2 = x2 if isinstance(x2, _ember.ndarray) else asarray(x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("vecdot: the input operands must be at least 1-d")
    a, b = broadcast_arrays(x1, x2)
    a, b = moveaxis(a, axis, -1), moveaxis(b, axis, -1)
    if a.shape[-1] != x1.shape[axis] or a.shape[-1] != x2.shape[axis]:
        raise ValueError("vecdot: the vectors along the axis must have the same length")
    if a.dtype.kind == "c":
        a = UFUNCS["conjugate"](a)
    products = a * b
    # NumPy's vecdot sums in the products' dtype (uint8 stays uint8, wrapping).
    return _reductions.sum(products, axis=-1, dtype=products.dtype)
