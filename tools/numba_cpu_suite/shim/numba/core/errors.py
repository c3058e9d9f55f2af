"""``numba.core.errors`` (harness plumbing): Numba's compile-time error names mapped onto ember's.

Numba raises these while it compiles a function it cannot type or lower; ember's counterpart is
``ember.errors.JitError`` (what it cannot compile, named with file, line and construct). The
warnings map to ember's warning classes. Any other name is missing.
"""

from ember.errors import EmberWarning, JitError, PerformanceWarning

from numba import _missing

# Numba's errors for a construct or types it cannot compile (NumbaTypeError, NumbaValueError and
# NumbaNotImplementedError are TypingErrors in Numba).
TypingError = LoweringError = NumbaError = UnsupportedError = JitError
NumbaTypeError = NumbaValueError = NumbaNotImplementedError = JitError
NumbaWarning = EmberWarning
NumbaPerformanceWarning = PerformanceWarning


def __getattr__(name: str):
    return _missing.missing_name(__name__, name)
