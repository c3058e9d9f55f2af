"""``numba.np.numpy_support``: ``numpy_version`` (harness plumbing: NumPy's version as a tuple)
and ember's own dtype <-> type conversions (``ember.types.from_dtype`` / ``as_dtype``). Any
other name is missing."""

import numpy as np
from ember.types import as_dtype, from_dtype  # noqa: F401

from numba import _missing

numpy_version = tuple(int(p) for p in np.__version__.split(".")[:2])


def __getattr__(name: str):
    return _missing.missing_name(__name__, name)
