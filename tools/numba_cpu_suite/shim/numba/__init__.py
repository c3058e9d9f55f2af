"""Measuring shim: presents ember as ``numba`` (Numba's CPU API) for Numba's own test suite.

Not part of ember and never installed: ``tools/numba_cpu_suite/run.py`` puts ``shim/`` first on
``sys.path``. What is ember's, the same objects:

- ``numba.njit``, ``jit``, ``prange``, ``vectorize``, ``guvectorize``, ``get_num_threads``,
  ``set_num_threads``, ``numba.extending.register_jitable``: ember's.
- ``numba.types`` / ``numba.core.types``: ``ember.types`` (ember's own Numba-style type objects:
  ``int32``, ``float64[:]``, ``Array``, ``UniTuple`` ...); ``numba.typeof`` and
  ``numba.from_dtype``: ``ember.types``'s; the type names (``numba.float32``, ``numba.void``
  ...) as ``ember.types`` has them.

Harness plumbing (decides nothing about ember): ``numba.core.errors`` (Numba's compile-time
error names -> ``ember.errors.JitError``), ``numba.core.config`` / ``utils`` (platform facts),
``numba.np.numpy_support.numpy_version``, ``numba.testing`` (what ``numba/tests/__init__.py``
imports) and ``numba.tests.support`` (``_support.py``: unittest base class and helpers).

Everything else Numba has (``numba.typed``, ``literally``, the rest of ``numba.extending``, compiler modules
...) is missing: see ``_missing.py`` for the two ways a missing name fails a test.
``numba.tests`` is Numba's own test package, from the tree run.py lays out
(``$NUMBA_CPU_SUITE_TREE``).
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import sys
from pathlib import Path

import ember
import ember.types

from numba import _missing

njit, jit, prange, vectorize, guvectorize = ember.njit, ember.jit, ember.prange, ember.vectorize, ember.guvectorize
get_num_threads, set_num_threads = ember.get_num_threads, ember.set_num_threads
typeof = ember.types.typeof
from_dtype = ember.types.from_dtype

# The type names Numba exports at top level, as ember.types has them.
SCALARS = tuple(ember.types.__all__)

_HERE = Path(__file__).resolve().parent
_TREE = os.environ.get("NUMBA_CPU_SUITE_TREE")
if _TREE:
    # numba.tests: Numba's own test package, from the tree run.py lays out.
    __path__.append(str(Path(_TREE) / "numba"))  # noqa: F821  (the package's own __path__)

# Numba re-exports its error classes at top level (``from numba import TypingError``).
_ERRORS = ("TypingError", "NumbaError", "UnsupportedError", "LoweringError", "NumbaWarning",
           "NumbaPerformanceWarning")


def __getattr__(name: str):
    if name == "types":
        import numba.core.types

        return numba.core.types
    if name in ("errors", "config"):
        import importlib

        return importlib.import_module(f"numba.core.{name}")
    if name in SCALARS:
        return getattr(ember.types, name)
    if name in _ERRORS:
        import numba.core.errors

        return getattr(numba.core.errors, name)
    return _missing.package_getattr(sys.modules[__name__], name)


class _Support(importlib.abc.MetaPathFinder):
    """The harness's own ``numba.tests.support`` in place of Numba's (which is built on Numba's
    compiler internals)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "numba.tests.support":
            return importlib.util.spec_from_file_location(fullname, _HERE / "_support.py")
        return None


if not any(isinstance(f, _Support) for f in sys.meta_path):
    sys.meta_path.insert(0, _Support())
_missing.install()
