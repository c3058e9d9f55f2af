"""Numba's ``numpy_support`` (``from numba.cuda.np import numpy_support``): NumPy dtypes and
Numba's types, each way (``ember.types`` has them)."""

from ...types import as_dtype, from_dtype

__all__ = ["as_dtype", "from_dtype"]
