"""ember's dtypes are NumPy's: this maps any dtype-like to a supported ``numpy.dtype``."""

from __future__ import annotations

import numpy as np

#: The dtypes ember arrays can hold (API.md), by NumPy name.
SUPPORTED = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
)
_SUPPORTED = frozenset(SUPPORTED)


def normalize(dtype, default="float64") -> np.dtype:
    """A supported ``numpy.dtype`` for ``dtype`` (``None`` gives ``default``)."""
    if dtype is None:
        dtype = default
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
