"""``pyopencl`` is ember's ``cl`` face: ``pyopencl.X`` is ``ember.cl.X``, and ``pyopencl.Y``
submodules are ember's ``ember.cl.Y`` modules where ember has one (``pyopencl.array`` is
``ember.cl.array``, the same module object). Anything ember lacks is missing, so a test that
needs it fails (or its module fails to import) and is counted as such. Nothing is stubbed.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import platform
import sys

import ember.cl
from ember.cl import *  # noqa: F403  (pyopencl's namespace is ember.cl's)

# Harness plumbing: PyOpenCL's flag for PyPy, which its tests read at import.
_PYPY = platform.python_implementation() == "PyPy"


def __getattr__(name: str):
    try:
        return getattr(ember.cl, name)
    except AttributeError:
        raise AttributeError(f"module 'pyopencl' has no attribute {name!r}") from None


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``pyopencl.Y`` -> ``ember.cl.Y`` where ember has that module."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("pyopencl."):
            return None
        ember_name = "ember.cl." + fullname[len("pyopencl."):]
        try:
            found = importlib.util.find_spec(ember_name)
        except ModuleNotFoundError:
            found = None
        if found is None:
            return None  # missing: the import fails as it would
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        # Replaced by ember's module object itself (no second copy).
        name = "ember.cl." + module.__name__[len("pyopencl."):]
        sys.modules[module.__name__] = importlib.import_module(name)


if not any(isinstance(f, _Finder) for f in sys.meta_path):
    sys.meta_path.insert(0, _Finder())
