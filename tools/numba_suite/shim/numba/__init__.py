"""Measuring shim: presents ember as ``numba`` (really ``numba.cuda``) for numba-cuda's tests.

Not part of ember and never installed: ``tools/numba_suite/run.py`` puts ``shim/`` first on
``sys.path``. It adds no behaviour of its own:

- ``numba.cuda`` is ember's ``cuda`` namespace (see ``numba/cuda/__init__.py``).
- ``numba.typeof`` is ``ember.types.typeof``; ``numba.types`` and its names (``numba.float32``,
  ``numba.void``, ...) are ``ember.types``'s (Numba's type objects); ``numba.vectorize``/
  ``guvectorize`` are ``ember``'s (every target).
  ``numba.core.errors`` and ``numba.errors`` are ``numba.cuda.core.errors``.
- Everything else (``numba.jit``, ``numba.njit``, Numba's compiler modules) is missing: tests
  that need the CPU Numba package fail to import and are counted as such.
"""

from __future__ import annotations

import sys

import ember

# Harness plumbing: where numba-cuda is installed (the GPU machine), its .pth file puts a finder
# (``_numba_cuda_redirector.NumbaCudaFinder``) that sends every ``numba.cuda`` import to its own
# package; these runs measure ember, so that finder goes.
sys.meta_path[:] = [f for f in sys.meta_path if type(f).__module__ != "_numba_cuda_redirector"]

# The type names Numba exports, as ember.types has them.
SCALARS = tuple(ember.types.__all__)


def __getattr__(name: str):
    if name == "types":
        return ember.types
    if name == "errors":
        import numba.cuda.core.errors

        return numba.cuda.core.errors
    if name == "typeof":
        return ember.types.typeof
    if name in ("vectorize", "guvectorize"):  # Numba's ufunc builders, every target
        return getattr(ember, name)
    if name in SCALARS:
        return getattr(ember.types, name)
    raise AttributeError(f"module 'numba' has no attribute {name!r}")


from numba import cuda  # noqa: E402, F401  (after __getattr__: numba.cuda imports numba)
