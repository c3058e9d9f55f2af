"""ember's dtypes are NumPy's: this maps any dtype-like to a supported ``numpy.dtype``."""

from __future__ import annotations

import numpy as np

#: The dtypes ember arrays can hold (API.md), by NumPy name.
SUPPORTED = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
)
_SUPPORTED = frozenset(SUPPORTED)


# dtype-like -> numpy.dtype: np.dtype() costs microseconds, a dict lookup nanoseconds.
_known: dict = {}


def normalize(dtype, default="float64") -> np.dtype:
    """A supported ``numpy.dtype`` for ``dtype`` (``None`` gives ``default``)."""
    if dtype is None:
        dtype = default
    try:
        return _known[dtype]
    except (KeyError, TypeError):
        pass
    d = _check(dtype)
    try:
        _known[dtype] = d
    except TypeError:  # an unhashable dtype-like: not cached
        pass
    return d


def name_of(dtype, default="float64") -> str:
    """The name of the supported dtype for ``dtype``, as the native module takes it. Cached:
    ``numpy.dtype.name`` is computed in Python and costs microseconds."""
    try:
        return _names[dtype]
    except (KeyError, TypeError):
        pass
    name = str(normalize(dtype, default))
    name = _name_by_dtype[np.dtype(name)]
    try:
        _names[dtype] = name
    except TypeError:
        pass
    return name


_names: dict = {}


def from_name(name: str) -> np.dtype:
    """The ``numpy.dtype`` of a supported dtype name (as the native module reports it)."""
    return _by_name[name]


def _check(dtype) -> np.dtype:
    try:
        d = np.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"{dtype!r} is not a dtype ember understands: {e}") from None
    if d.name not in _SUPPORTED or d.byteorder == ">":
        raise TypeError(
            f"ember arrays cannot hold dtype {d} ({d.name}); supported dtypes are {', '.join(SUPPORTED)}"
        )
    return d


def of_host(obj) -> np.dtype:
    """The dtype NumPy gives ``obj`` when converting it, checked to be supported."""
    return normalize(np.asarray(obj).dtype)


_by_name = {name: np.dtype(name) for name in SUPPORTED}
_name_by_dtype = {d: name for name, d in _by_name.items()}
