"""numba-cuda's ``numba.cuda.np`` path, for code that imports ``numpy_support`` from it."""

from . import numpy_support  # noqa: F401
