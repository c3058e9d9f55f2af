"""``numba.cuda`` is ember's ``cuda`` namespace (see ``numba/__init__.py`` for the whole shim).

- ``numba.cuda.X`` is ``ember.cuda.X``; then the scalar type names of ``numba``; any other name
  is missing (``AttributeError: module 'numba.cuda' has no attribute 'X'``).
- ``numba.cuda.Y`` submodules are ember's ``ember.cuda.Y`` modules where ember has one (e.g.
  ``numba.cuda.random``), the same module objects.
- Harness plumbing, not ember: ``HAS_NUMBA`` (False: the CPU Numba package is not installed),
  ``config`` / ``core.config`` (``ENABLE_CUDASIM``: ember's simulator switch), ``core.errors`` (Numba's error names
  that have an ember counterpart), ``testing`` and ``tests.support`` (unittest base classes and
  skip decorators). ``numba.cuda.tests`` is numba-cuda's own test package, loaded from the
  numba-cuda tree that run.py lays out (``$NUMBA_SUITE_TREE``).
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import sys
from pathlib import Path

import ember.cuda
import peer_suite
from ember.cuda import *  # noqa: F403  (numba.cuda's namespace is ember.cuda's)

from numba.cuda.core import config  # noqa: F401  (numba.cuda.config, as in numba-cuda)

HAS_NUMBA = False

_HERE = Path(__file__).resolve().parent
# numba.cuda.tests: numba-cuda's test package, from the tree run.py lays out.
_TREE = os.environ.get("NUMBA_SUITE_TREE")
if _TREE:
    __path__.append(str(Path(_TREE) / "numba" / "cuda"))  # noqa: F405  (the package's own __path__)


def __getattr__(name: str):
    try:
        return getattr(ember.cuda, name)
    except AttributeError:
        pass
    import numba

    if name in numba.SCALARS:
        return getattr(numba, name)
    raise AttributeError(f"module 'numba.cuda' has no attribute {name!r}")


class _Support(importlib.abc.MetaPathFinder):
    """The harness's own ``numba.cuda.tests.support`` in place of numba-cuda's (which needs
    Numba's compiler)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "numba.cuda.tests.support":
            return importlib.util.spec_from_file_location(fullname, _HERE / "_support.py")
        return None


def _own(fullname: str) -> bool:
    """numba-cuda's test package and the shim's plumbing modules are not ember's."""
    part = fullname.split(".")[2]
    return fullname.startswith("numba.cuda.tests") or (_HERE / part).exists() or (_HERE / (part + ".py")).exists()


if not any(isinstance(f, _Support) for f in sys.meta_path):
    sys.meta_path.insert(0, _Support())
# numba.cuda.Y -> ember.cuda.Y where ember has that module (the same module object).
peer_suite.ModuleRedirect("numba.cuda", "ember.cuda", _own).install()
