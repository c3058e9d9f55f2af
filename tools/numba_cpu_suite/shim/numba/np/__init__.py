"""``numba.np``: only ``numpy_support`` (plumbing and ``ember.types``' dtype conversions)."""

import sys

from numba import _missing


def __getattr__(name: str):
    return _missing.package_getattr(sys.modules[__name__], name)
