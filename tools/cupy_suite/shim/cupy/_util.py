"""Harness plumbing: the names of CuPy's private ``cupy._util`` that its test modules read at
import (pytest resolves ``filterwarnings`` marks and ``skipif`` conditions at collection).

- ``PerformanceWarning`` is ember's own class (``ember.errors.PerformanceWarning``);
- ``ENABLE_SLICE_COPY`` is CuPy's switch for its own copy between overlapping slices; it is
  False here, so the tests of that CuPy-only feature are skipped (as CuPy skips them when off).
"""

from ember.errors import PerformanceWarning  # noqa: F401  (re-exported for the tests)

ENABLE_SLICE_COPY = False
