"""Measuring shim: presents ember as ``numba`` (really ``numba.cuda``) for numba-cuda's tests.

Not part of ember and never installed: ``tools/numba_suite/run.py`` puts ``shim/`` first on
``sys.path``. It adds no behaviour of its own:

- ``numba.cuda`` is ember's ``cuda`` namespace (see ``numba/cuda/__init__.py``).
- ``numba.X`` for the scalar type names (``float32``, ``int64``, ...) is ``ember.X`` (NumPy's
  scalar types: ember has no Numba type objects, so ``float32[:]`` or ``void(...)`` fail as
  they would). ``numba.core.errors`` is ``numba.cuda.core.errors``.
- Everything else (``numba.jit``, ``numba.types``, ``numba.njit``, Numba's compiler modules) is
  missing: tests that need the CPU Numba package fail to import and are counted as such.
"""

from __future__ import annotations

import ember

# The scalar type names Numba exports and ember has (as NumPy scalar types).
SCALARS = (
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128", "intp", "uintp",
)


def __getattr__(name: str):
    if name in SCALARS and hasattr(ember, name):
        return getattr(ember, name)
    raise AttributeError(f"module 'numba' has no attribute {name!r}")


from numba import cuda  # noqa: E402, F401  (after __getattr__: numba.cuda imports numba)
