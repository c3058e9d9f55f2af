"""Kernels from Python: ember's ``@cuda.jit`` (Numba's language, compiled by ``ember-jit``)."""

from .dispatcher import Dispatcher, jit

__all__ = ["Dispatcher", "jit"]
