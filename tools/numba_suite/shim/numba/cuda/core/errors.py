"""``numba.cuda.core.errors``: Numba's error names mapped onto ember's error classes.

Only names with a real ember counterpart are mapped; any other is missing.
"""

from ember.errors import EmberWarning, JitError, PerformanceWarning

# Numba's typing/lowering errors are ember's JIT errors; its warnings are ember's.
TypingError = JitError
LoweringError = JitError
NumbaWarning = EmberWarning
NumbaPerformanceWarning = PerformanceWarning


def __getattr__(name: str):
    raise AttributeError(f"module 'numba.cuda.core.errors' has no attribute {name!r}")
