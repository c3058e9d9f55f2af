"""``numba.core``: ``types`` (``ember.types``) and the harness plumbing ``errors``, ``config``,
``utils``; Numba's compiler modules are missing (see ``numba/_missing.py``)."""

import sys

from numba import _missing


def __getattr__(name: str):
    return _missing.package_getattr(sys.modules[__name__], name)
