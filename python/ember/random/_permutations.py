"""The module's permutations (CuPy's ``cupy.random._permutations``) on the current device's
global ``RandomState``."""

from __future__ import annotations

from ._generator import module_function

__all__ = [
    "permutation", "shuffle",
]

permutation = module_function('permutation')
shuffle = module_function('shuffle')
