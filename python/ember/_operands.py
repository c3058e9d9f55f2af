"""What counts as an array operand, decided once for every entry point (ufuncs, indexing,
linalg, fusion, ``@jit`` launches, ``@vectorize``): ember's own arrays, other libraries'
device arrays, and host data NumPy would convert."""

from __future__ import annotations

import numpy as np

from . import _ember


def is_device_array(x) -> bool:
    """Another library's device array: ``__cuda_array_interface__``, or DLPack on something
    that is not a NumPy array (NumPy's arrays speak DLPack too). ember arrays are not."""
    if isinstance(x, (np.ndarray, _ember.ndarray)):
        return False
    return hasattr(x, "__cuda_array_interface__") or hasattr(x, "__dlpack__")


def on_device(x) -> bool:
    """An ember array or another library's device array."""
    return isinstance(x, _ember.ndarray) or is_device_array(x)


def needs_conversion(x) -> bool:
    """An operand NumPy would convert that ember takes as an array once converted: a list, a
    tuple, or another library's device array."""
    return isinstance(x, (list, tuple)) or is_device_array(x)
