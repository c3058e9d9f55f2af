"""``pyopencl`` is ember's ``cl`` face: ``pyopencl.X`` is ``ember.cl.X``, and ``pyopencl.Y``
submodules are ember's ``ember.cl.Y`` modules where ember has one (``pyopencl.array`` is
``ember.cl.array``, the same module object). Anything ember lacks is missing, so a test that
needs it fails (or its module fails to import) and is counted as such. Nothing is stubbed.
"""

from __future__ import annotations

import platform

import ember.cl
import peer_suite
from ember.cl import *  # noqa: F403  (pyopencl's namespace is ember.cl's)

# Harness plumbing: PyOpenCL's flag for PyPy, which its tests read at import.
_PYPY = platform.python_implementation() == "PyPy"


def __getattr__(name: str):
    try:
        return getattr(ember.cl, name)
    except AttributeError:
        raise AttributeError(f"module 'pyopencl' has no attribute {name!r}") from None


# pyopencl.Y -> ember.cl.Y where ember has that module (the same module object).
peer_suite.ModuleRedirect("pyopencl", "ember.cl").install()
