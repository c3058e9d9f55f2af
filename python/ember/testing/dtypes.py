"""The dtypes ember supports, and decorators that run a test once per dtype (as
``cupy.testing.for_all_dtypes`` and its family).

The decorators are ``pytest.mark.parametrize`` marks: each dtype is a test of its own, named after
the dtype (``test_sum[float32]``), and they stack with each other and with
``numpy_ember_allclose``. The test receives NumPy's scalar type (``numpy.float32``), as CuPy's tests
do; ``numpy.dtype(dtype)`` gives the dtype.
"""

from __future__ import annotations

import numpy as np

BOOL = (np.bool_,)
SIGNED = (np.int8, np.int16, np.int32, np.int64)
UNSIGNED = (np.uint8, np.uint16, np.uint32, np.uint64)
FLOAT = (np.float16, np.float32, np.float64)
COMPLEX = (np.complex64, np.complex128)

# Every dtype, in NumPy's order of kinds: bool, signed, unsigned, float, complex.
ALL_DTYPES = [np.dtype(t) for t in BOOL + SIGNED + UNSIGNED + FLOAT + COMPLEX]


def all_dtypes(no_float16: bool = False, no_bool: bool = False, no_complex: bool = False) -> list:
    """The scalar types ``for_all_dtypes`` runs a test with."""
    return [d.type for d in ALL_DTYPES
            if not (no_float16 and d == np.float16) and not (no_bool and d == np.bool_)
            and not (no_complex and d.kind == "c")]


def for_dtypes(dtypes, name: str = "dtype"):
    """Runs the decorated test once per dtype of ``dtypes``, passed as the argument ``name``."""
    import pytest

    types = [np.dtype(d).type for d in dtypes]
    return pytest.mark.parametrize(name, types, ids=[np.dtype(t).name for t in types])


def for_all_dtypes(name: str = "dtype", no_float16: bool = False, no_bool: bool = False, no_complex: bool = False):
    """Runs the decorated test with every dtype: bool, the signed and unsigned integers, the
    floats and the complex types (less those the flags leave out)."""
    return for_dtypes(all_dtypes(no_float16, no_bool, no_complex), name)


def for_float_dtypes(name: str = "dtype", no_float16: bool = False):
    """Runs the decorated test with float16 (unless ``no_float16``), float32 and float64."""
    return for_dtypes(FLOAT[1:] if no_float16 else FLOAT, name)


def for_signed_dtypes(name: str = "dtype"):
    """Runs the decorated test with int8, int16, int32 and int64."""
    return for_dtypes(SIGNED, name)


def for_unsigned_dtypes(name: str = "dtype"):
    """Runs the decorated test with uint8, uint16, uint32 and uint64."""
    return for_dtypes(UNSIGNED, name)


def for_int_dtypes(name: str = "dtype", no_bool: bool = False):
    """Runs the decorated test with the signed and unsigned integers, and bool unless ``no_bool``
    (as CuPy's)."""
    return for_dtypes(SIGNED + UNSIGNED + (() if no_bool else BOOL), name)


def for_complex_dtypes(name: str = "dtype"):
    """Runs the decorated test with complex64 and complex128."""
    return for_dtypes(COMPLEX, name)
