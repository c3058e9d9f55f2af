"""NumPy's names about types and numbers rather than arrays: ember uses NumPy's own, as CuPy
does (scalar types, dtype helpers, constants), and accepts ember arrays where they take arrays
(``result_type(x, 1.0)``, ``can_cast(x, 'float32')``, ``ndim(x)``)."""

from __future__ import annotations

import numpy as np
from numpy import (  # noqa: F401  (re-exported)
    False_,
    ScalarType,
    True_,
    base_repr,
    binary_repr,
    bool,
    byte,
    cdouble,
    character,
    clongdouble,
    complexfloating,
    csingle,
    double,
    dtype,
    e,
    euler_gamma,
    finfo,
    flexible,
    floating,
    generic,
    half,
    iinfo,
    inexact,
    inf,
    int_,
    intc,
    integer,
    intp,
    isdtype,
    isscalar,
    issubdtype,
    long,
    longdouble,
    longlong,
    mintypecode,
    nan,
    newaxis,
    number,
    pi,
    promote_types,
    sctypeDict,
    short,
    signedinteger,
    single,
    typecodes,
    typename,
    ubyte,
    uint,
    uintc,
    uintp,
    ulong,
    ulonglong,
    unsignedinteger,
    ushort,
)

from . import _ember

__all__ = [
    "False_", "ScalarType", "True_", "base_repr", "binary_repr", "sctypeDict", "typecodes",
    "bool", "byte", "can_cast", "cdouble", "character", "clongdouble", "common_type", "complexfloating", "csingle",
    "double", "dtype", "e", "euler_gamma", "finfo", "flexible", "floating", "generic", "half", "iinfo", "inexact",
    "inf", "int_", "intc", "integer", "intp", "isdtype", "isscalar", "issubdtype", "iterable",
    "long", "longdouble", "longlong", "min_scalar_type", "mintypecode", "nan", "ndim", "newaxis", "number", "pi",
    "promote_types", "result_type", "shape", "short", "signedinteger", "single", "size", "typename", "ubyte", "uint",
    "uintc", "uintp", "ulong", "ulonglong", "unsignedinteger", "ushort",
]


def _as_numpy_operand(x):
    """An ember array stands as its dtype (a 0-d one as a strong scalar of it, as NumPy 2 types
    0-d arrays); anything else is NumPy's to read."""
    return x.dtype if isinstance(x, _ember.ndarray) else x


def result_type(*arrays_and_dtypes):
    """NumPy's ``result_type`` (NEP 50), ember arrays counting by their dtype."""
    return np.result_type(*[_as_numpy_operand(x) for x in arrays_and_dtypes])


def can_cast(from_, to, casting="safe"):
    """NumPy's ``can_cast``; an ember array counts by its dtype."""
    return np.can_cast(_as_numpy_operand(from_), to, casting)


def min_scalar_type(a):
    """NumPy's ``min_scalar_type``; an ember array counts by its dtype (a 0-d one by its value)."""
    if isinstance(a, _ember.ndarray):
        return np.min_scalar_type(a.get()) if a.ndim == 0 else a.dtype
    return np.min_scalar_type(a)


def common_type(*arrays):
    """NumPy's ``common_type``: the inexact scalar type common to the arrays."""
    return np.common_type(*[np.empty(0, a.dtype) if isinstance(a, _ember.ndarray) else a for a in arrays])


def ndim(a) -> int:
    return a.ndim if isinstance(a, _ember.ndarray) else np.ndim(a)


def shape(a) -> tuple:
    return a.shape if isinstance(a, _ember.ndarray) else np.shape(a)


def size(a, axis=None) -> int:
    if not isinstance(a, _ember.ndarray):
        return np.size(a, axis)
    return a.size if axis is None else a.shape[axis]


def iterable(y) -> bool:
    """Whether ``y`` can be iterated (a 0-d array cannot)."""
    if isinstance(y, _ember.ndarray):
        return y.ndim > 0
    return np.iterable(y)
