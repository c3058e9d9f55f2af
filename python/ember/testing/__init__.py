"""Testing ember against NumPy, as ``cupy.testing`` tests CuPy.

- Assertions that take ember arrays, NumPy arrays or scalars on either side, with NumPy's
  messages: ``assert_allclose``, ``assert_array_equal``, ``assert_array_almost_equal``,
  ``assert_array_less``.
- Decorators that run one test body with ``xp=numpy`` and ``xp=ember`` and compare the results
  (or the exception classes): ``numpy_ember_allclose``, ``numpy_ember_array_equal``,
  ``numpy_ember_array_almost_equal``, and CuPy's names for them (``numpy_cupy_allclose``, ...).
- Decorators that run a test once per dtype: ``for_all_dtypes``, ``for_dtypes``,
  ``for_float_dtypes``, ``for_int_dtypes``, ``for_signed_dtypes``, ``for_unsigned_dtypes``,
  ``for_complex_dtypes`` (pytest parametrisation).
- Data: ``shaped_random``, ``shaped_arange``, ``random_array``, and the special values that find
  bugs (``special_values``, ``special_grid``, ``bulk_values``, ``grid_pairs``).
- The parity harness of ember's NumPy sweep: ``parity``, ``numpy_result``, ``assert_same``,
  ``assert_values``, ``rtol_for``, ``public_class``, ``quiet``, and the choice of cases
  (``rotation``, ``numpy_supports``, ``cases_with_bugs``).

Hypothesis strategies live in ``ember.testing.strategies``, which imports Hypothesis; this
package needs neither Hypothesis nor pytest to import (the dtype decorators and
``cases_with_bugs`` import pytest when called).

Example::

    from ember import testing

    @testing.for_float_dtypes()
    @testing.numpy_ember_allclose(rtol=1e-6)
    def test_mean_of_rows(xp, dtype):
        return testing.shaped_random((4, 5), xp, dtype).mean(axis=1)
"""

from __future__ import annotations

from .asserts import assert_allclose, assert_array_almost_equal, assert_array_equal, assert_array_less
from .cases import DTYPE_NAMES, cases_with_bugs, numpy_supports, rotation, ufunc_supports
from .comparisons import (
    numpy_cupy_allclose,
    numpy_cupy_array_almost_equal,
    numpy_cupy_array_equal,
    numpy_ember_allclose,
    numpy_ember_array_almost_equal,
    numpy_ember_array_equal,
)
from .data import (
    bulk_values,
    grid_pairs,
    random_array,
    shaped_arange,
    shaped_random,
    special_grid,
    special_values,
)
from .dtypes import (
    ALL_DTYPES,
    all_dtypes,
    for_all_dtypes,
    for_complex_dtypes,
    for_dtypes,
    for_float_dtypes,
    for_int_dtypes,
    for_signed_dtypes,
    for_unsigned_dtypes,
)
from .parity import (
    LOOSE,
    assert_same,
    assert_values,
    new_tally,
    numpy_result,
    parity,
    public_class,
    quiet,
    rtol_for,
)

__all__ = [
    "ALL_DTYPES",
    "DTYPE_NAMES",
    "LOOSE",
    "all_dtypes",
    "assert_allclose",
    "assert_array_almost_equal",
    "assert_array_equal",
    "assert_array_less",
    "assert_same",
    "assert_values",
    "bulk_values",
    "cases_with_bugs",
    "for_all_dtypes",
    "for_complex_dtypes",
    "for_dtypes",
    "for_float_dtypes",
    "for_int_dtypes",
    "for_signed_dtypes",
    "for_unsigned_dtypes",
    "grid_pairs",
    "new_tally",
    "numpy_cupy_allclose",
    "numpy_cupy_array_almost_equal",
    "numpy_cupy_array_equal",
    "numpy_ember_allclose",
    "numpy_ember_array_almost_equal",
    "numpy_ember_array_equal",
    "numpy_result",
    "numpy_supports",
    "parity",
    "public_class",
    "quiet",
    "random_array",
    "rotation",
    "rtol_for",
    "shaped_arange",
    "shaped_random",
    "special_grid",
    "special_values",
    "ufunc_supports",
]
