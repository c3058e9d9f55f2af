"""Numba's ``numba.cuda.kernels``: ready-made device routines (``transpose``)."""

from . import transpose  # noqa: F401
