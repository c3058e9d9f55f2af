"""NumPy's logic functions beyond the ufuncs: closeness (``isclose``, ``allclose``), equality
of whole arrays, counting and finding non-zeros, and the real/complex tests.

``isclose`` is NumPy 2's formula over ember's ufuncs (automatic fusion makes it one kernel);
results that NumPy gives as Python scalars are 0-d arrays, as in CuPy (``bool(...)`` reads
them).
"""

from __future__ import annotations

import numpy as np

from . import _ember, _reductions
from ._creation import asarray, zeros
from ._indexing import nonzero
from ._reductions import all as _all
from ._shape import broadcast_shapes, ravel, stack
from ._ufuncs import UFUNCS, imag

__all__ = [
    "allclose", "argwhere", "array_equal", "array_equiv", "count_nonzero", "flatnonzero", "iscomplex",
    "iscomplexobj", "isclose", "isneginf", "isposinf", "isreal", "isrealobj",
]

_absolute, _isfinite, _isnan, _isinf = UFUNCS["absolute"], UFUNCS["isfinite"], UFUNCS["isnan"], UFUNCS["isinf"]
_signbit = UFUNCS["signbit"]


def _array(a):
    return a if isinstance(a, _ember.ndarray) else asarray(a)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether ``|a - b| <= atol + rtol * |b|`` element-wise (infinities equal only to
    themselves; NaNs equal when ``equal_nan``)."""
    x = a if isinstance(a, (int, float, complex)) else _array(a)
    y = b if isinstance(b, (int, float, complex)) else _array(b)
    # NumPy 2: b is made inexact first (integers would overflow |b|).
    if isinstance(y, _ember.ndarray):
        y = y.astype(np.result_type(y.dtype, 1.0), copy=False)
    elif isinstance(y, int):
        y = float(y)
    with np.errstate(invalid="ignore"):
        result = (_absolute(x - y) <= atol + rtol * _absolute(y)) & _isfinite(y) | (x == y)
        if equal_nan:
            result = result | (_isnan(x) & _isnan(y))
    return result if isinstance(result, _ember.ndarray) else asarray(result)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element is ``isclose`` (a 0-d bool array)."""
    return _all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """Whether both have the same shape and elements (a 0-d bool array)."""
    a1, a2 = _array(a1), _array(a2)
    if a1.shape != a2.shape:
        return asarray(False)
    same = a1 == a2
    if equal_nan and (a1.dtype.kind in "fc" or a2.dtype.kind in "fc"):
        same = same | (_isnan(a1) & _isnan(a2))
    return _all(same)


def array_equiv(a1, a2):
    """Whether both broadcast to one shape and are equal there (a 0-d bool array)."""
    a1, a2 = _array(a1), _array(a2)
    try:
        broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return asarray(False)
    return _all(a1 == a2)


def count_nonzero(a, axis=None, *, keepdims=False):
    """How many elements are not zero (along ``axis``), as ``intp``."""
    a = _array(a)
    return _reductions._reduce("count_nonzero", a, axis, None, None, keepdims)


def argwhere(a):
    """The indices of the non-zero elements, one row each (shape ``(N, a.ndim)``)."""
    a = _array(a)
    if a.ndim == 0:
        return zeros((1 if bool(a) else 0, 0), dtype=np.intp)
    return stack(nonzero(a), axis=1)


def flatnonzero(a):
    """The indices of the non-zero elements of the flattened array."""
    return nonzero(ravel(_array(a)))[0]


def isreal(x):
    """Whether each element has a zero imaginary part."""
    x = _array(x)
    return imag(x) == 0


def iscomplex(x):
    """Whether each element has a non-zero imaginary part."""
    x = _array(x)
    if x.dtype.kind != "c":
        return zeros(x.shape, dtype=bool)
    return imag(x) != 0


def isrealobj(x) -> bool:
    """Whether ``x``'s type is not complex (the values are not looked at)."""
    return not iscomplexobj(x)


def iscomplexobj(x) -> bool:
    """Whether ``x``'s type is complex (the values are not looked at)."""
    d = getattr(x, "dtype", None)
    return (np.dtype(d) if d is not None else np.asarray(x).dtype).kind == "c"


def isposinf(x, out=None):
    """Whether each element is +inf."""
    x = _array(x)
    if x.dtype.kind == "c":
        raise TypeError(f"This operation is not supported for {x.dtype} values because it would be ambiguous.")
    return UFUNCS["logical_and"](_isinf(x), ~_signbit(x), out=out)


def isneginf(x, out=None):
    """Whether each element is -inf."""
    x = _array(x)
    if x.dtype.kind == "c":
        raise TypeError(f"This operation is not supported for {x.dtype} values because it would be ambiguous.")
    return UFUNCS["logical_and"](_isinf(x), _signbit(x), out=out)
