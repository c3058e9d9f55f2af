"""``ember.__array_namespace_info__()``: the Array API's inspection object (2023.12 and
later): what ember can do, its devices, and its dtypes by kind."""

from __future__ import annotations

import numpy as np

from . import _ember
from ._runtime import Device, current_device_id

__all__ = ["__array_namespace_info__"]

# The Array API's dtype kinds, over the dtypes ember holds that the standard names
# (bfloat16 and float16 are ember's extras, outside the standard's kinds, as in NumPy's).
_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


class __array_namespace_info__:  # noqa: N801  (the standard's name)
    """What ember's namespace supports, for code written against the Array API standard."""


    def capabilities(self) -> dict:
        """Boolean indexing and data-dependent shapes (``nonzero``, masks) are supported."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> Device:
        """The current device (``ember.cuda.Device``)."""
        return Device(current_device_id())

    def devices(self) -> list[Device]:
        """Every device of the backend in use."""
        return [Device(i) for i in range(_ember.device_count())]

    def default_dtypes(self, *, device=None) -> dict:
        """NumPy's defaults, which ember's creation functions use."""
        return {
            "real floating": np.dtype(np.float64),
            "complex floating": np.dtype(np.complex128),
            "integral": np.dtype(np.int64),
            "indexing": np.dtype(np.int64),
        }

    def dtypes(self, *, device=None, kind=None) -> dict:
        """The standard's dtypes ember holds, by name: all, one kind, or a tuple of kinds."""
        if kind is None:
            names = _KINDS["bool"] + _KINDS["numeric"]
        elif isinstance(kind, str):
            if kind not in _KINDS:
                raise ValueError(f"unsupported kind: {kind!r}")
            names = _KINDS[kind]
        elif isinstance(kind, tuple):
            names = tuple(n for k in kind for n in self.dtypes(kind=k))
        else:
            raise TypeError(f"kind must be None, a string or a tuple of strings, got {type(kind).__name__}")
        return {n: np.dtype(n) for n in dict.fromkeys(names)}
