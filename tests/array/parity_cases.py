"""NumPy parity sweep of ember's array API (the ``ember`` section of API.md), in the style of
CuPy's ``numpy_cupy_allclose``: every case runs one body with NumPy 2 and with ember and checks
that both give the same shape, the same dtype and the same values, or raise the same (public)
exception class. The cases are in ``test_parity_*.py``, one file per part of the API
(elementwise, operators, reductions, shapes, indexing, creation, linalg_random); this module
holds the case tables and helpers more than one of them reads.

Hypothesis draws shapes (0-d, empty, 1..5-d, broadcastable pairs), views (contiguous, stepped,
``[::-2]``-style negative steps, offsets, transposes: ember views are made by slicing a larger
ember array the same way the NumPy view slices the NumPy one) and values (NaN, +-inf, -0.0,
subnormals and finfo extremes for floats; iinfo extremes for integers).

On PoCL every new (function, dtypes, layout) compiles a kernel, so which (function, dtype)
pairs run is fixed by pytest parametrisation: each function on its main dtype, plus a rotating
subset of the other dtypes NumPy supports for it, chosen so that every dtype appears in every
family of functions somewhere in the sweep (``test_the_sweep_covers_every_dtype_of_every_family``
in test_parity_coverage.py checks that, from the case lists here). Hypothesis runs a few
derandomised examples per case, without shrinking (set ``EMBER_PARITY_SHRINK=1`` to shrink a
failure to a minimal example).

Known ember bugs are ``xfail(strict=True)`` cases (the ``*_BUGS`` tables beside the tests): the
suite stays green and the bug visible; once fixed, the case XPASSes and the mark must go.

The harness (``parity``, ``assert_same``, the special values, the Hypothesis strategies) is
``ember.testing``'s; the test files hold the cases.
"""

from __future__ import annotations

import math
import operator

import numpy as np
from ember.testing import DTYPE_NAMES, numpy_supports, rotation, ufunc_supports

# Examples per case: each new layout a case meets compiles kernels (about 0.3 s each on PoCL
# without its cache), so the sweeps draw few examples per case and many cases; a function's
# main dtype gets more (and its layouts), the rotating other dtypes fewer.
EXAMPLES = 6
EXTRA_EXAMPLES = 4


def dt(name) -> np.dtype:
    return np.dtype(name)


INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


# =================================================================================================
# Elementwise: unary ufuncs
# =================================================================================================
TRANSCENDENTAL = {"sqrt", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan",
                  "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "power", "arctan2", "logaddexp",
                  "logaddexp2", "cbrt", "float_power", "acos", "arcsinh", "arccosh", "arctanh", "asinh", "hypot"}
UNARY_FAMILIES = {
    "transcendental": {n: "float32" for n in ["sqrt", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1",
                                              "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh",
                                              "tanh"]},
    "rounding": {n: "float32" for n in ["floor", "ceil", "trunc", "rint"]},
    "arithmetic": {"negative": "float64", "positive": "int16", "absolute": "int8", "sign": "float32",
                   "square": "int32", "reciprocal": "float64", "conjugate": "complex64"},
    "classification": {n: "float32" for n in ["isnan", "isinf", "isfinite", "logical_not"]},
    "inverse hyperbolic": {"arcsinh": "float32", "arccosh": "float64", "arctanh": "float32"},
    "bitwise": {"invert": "int32", "bitwise_count": "int16"},
    "real functions": {"cbrt": "float32", "fabs": "float64", "deg2rad": "float32", "rad2deg": "float64",
                       "signbit": "float32", "spacing": "float64"},
}
UNARY_CASES = [c for fam in UNARY_FAMILIES.values() for c in rotation(fam, ufunc_supports(1))]
UNARY_CASES += [("invert", d) for d in ["bool"] + INTS if ("invert", d) not in UNARY_CASES]
UNARY_CASES += [("abs", "float32"), ("bitwise_not", "uint8"), ("acos", "float32"), ("radians", "float64"),
                ("asinh", "float64")]  # aliases


# =================================================================================================
# Elementwise: binary ufuncs
# =================================================================================================
BINARY_FAMILIES = {
    "arithmetic": {"add": "float32", "subtract": "int16", "multiply": "uint32", "true_divide": "float64",
                   "floor_divide": "int32", "remainder": "float32", "fmod": "int64", "power": "float64",
                   "arctan2": "float32"},
    "logarithmic": {"logaddexp": "float64", "logaddexp2": "float32"},
    "extrema": {"maximum": "float32", "minimum": "float64", "fmax": "float16", "fmin": "float32"},
    "comparison": {"equal": "float32", "not_equal": "complex64", "less": "int8", "less_equal": "uint64",
                   "greater": "float64", "greater_equal": "int64"},
    "logical": {"logical_and": "bool", "logical_or": "float32", "logical_xor": "int16"},
    "bitwise": {"bitwise_and": "int32", "bitwise_or": "uint8", "bitwise_xor": "int64", "left_shift": "int32",
                "right_shift": "int16"},
    "real functions": {"copysign": "float32", "heaviside": "float64", "float_power": "float64", "hypot": "float32",
                       "nextafter": "float64"},
    "divisors": {"gcd": "int32", "lcm": "int64"},
}
SECOND_DOMAIN = {"power": "exponent", "pow": "exponent", "bitwise_left_shift": "shift", "left_shift": "shift",
                 "right_shift": "shift", "ldexp": "shift", "floor_divide": "small", "remainder": "small",
                 "fmod": "small", "mod": "small"}
BINARY_CASES = [c for fam in BINARY_FAMILIES.values() for c in rotation(fam, ufunc_supports(2))]
BINARY_CASES += [("divide", "float32"), ("mod", "int32"), ("pow", "int64"),  # the aliases
                 ("bitwise_left_shift", "uint16")]


# Mixed dtypes: NumPy 2's promotion (and its exact int64/uint64 comparisons); ufuncs whose loops
# take two types (ldexp).
MIXED_CASES = [
    ("add", "int8", "uint8"), ("add", "int64", "uint64"), ("multiply", "int16", "float16"),
    ("add", "bool", "int8"), ("maximum", "uint64", "int64"), ("less", "int8", "uint64"),
    ("equal", "uint64", "int64"), ("greater_equal", "int32", "uint64"), ("add", "float16", "complex64"),
    ("power", "float16", "int32"), ("floor_divide", "uint8", "int8"), ("true_divide", "uint64", "bool"),
    ("subtract", "float64", "complex64"), ("ldexp", "float32", "int32"), ("ldexp", "float16", "int64"),
    ("ldexp", "float64", "int8"),
]

def binary_domains(name, dtype) -> tuple[str, str]:
    d = dt(dtype)
    if d.kind == "c" and name in TRANSCENDENTAL | {"true_divide", "divide", "floor_divide", "remainder"}:
        return "moderate", "moderate"  # complex specials: test_complex_special_values_match_numpy
    if d.kind in "iu":
        return "any", SECOND_DOMAIN.get(name, "any")
    return "any", "small" if name == "power" else "any"


# The ufuncs swept on complex zeros, infinities and NaN (test_complex_special_values_match_numpy).
COMPLEX_UNARY = ["negative", "positive", "absolute", "sign", "square", "reciprocal", "sqrt", "exp", "exp2", "expm1",
                 "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh",
                 "tanh", "isnan", "isinf", "isfinite", "logical_not", "rint", "arcsinh", "arccosh", "arctanh"]
COMPLEX_BINARY = ["add", "subtract", "multiply", "true_divide", "power", "maximum", "minimum", "fmax", "fmin", "equal",
                  "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
                  "logical_xor"]


# =================================================================================================
# Operators, in-place operators and out=
# =================================================================================================
OPERATORS = {
    "+": ("add", operator.add, operator.iadd), "-": ("subtract", operator.sub, operator.isub),
    "*": ("multiply", operator.mul, operator.imul), "/": ("true_divide", operator.truediv, operator.itruediv),
    "//": ("floor_divide", operator.floordiv, operator.ifloordiv), "%": ("remainder", operator.mod, operator.imod),
    "**": ("power", operator.pow, operator.ipow), "&": ("bitwise_and", operator.and_, operator.iand),
    "|": ("bitwise_or", operator.or_, operator.ior), "^": ("bitwise_xor", operator.xor, operator.ixor),
    "<<": ("left_shift", operator.lshift, operator.ilshift), ">>": ("right_shift", operator.rshift, operator.irshift),
    "==": ("equal", operator.eq, None), "!=": ("not_equal", operator.ne, None), "<": ("less", operator.lt, None),
    "<=": ("less_equal", operator.le, None), ">": ("greater", operator.gt, None),
    ">=": ("greater_equal", operator.ge, None),
}
_MAIN = {name: d for fam in BINARY_FAMILIES.values() for name, d in fam.items()}
OPERATOR_CASES = [(op, _MAIN[name]) for op, (name, _, _) in OPERATORS.items()]
INPLACE_CASES = [("+", "float32", "float32"), ("-", "int16", "int8"), ("*", "uint32", "uint32"),
                 ("/", "float64", "int32"), ("//", "int32", "int32"), ("%", "float32", "float16"),
                 ("**", "float64", "float64"), ("&", "int32", "bool"), ("<<", "int32", "int32"),
                 ("+", "complex64", "float32"), ("-", "float16", "uint8")]


# =================================================================================================
# Reductions
# =================================================================================================
REDUCTION_FAMILIES = {
    "sums and moments": {"sum": "float32", "prod": "int16", "mean": "float64", "cumsum": "int8", "std": "float32",
                         "var": "complex64"},
    "extrema and truth": {"max": "float16", "min": "int64", "argmax": "float32", "argmin": "uint8", "any": "float32",
                          "all": "complex128"},
}


def reduction_cases() -> list:
    supports = lambda name, d: numpy_supports(lambda x: getattr(np, name)(x), d)  # noqa: E731
    return [c for fam in REDUCTION_FAMILIES.values() for c in rotation(fam, supports)]


REDUCTION_CASES = reduction_cases()


# =================================================================================================
# Shape functions
# =================================================================================================
SHAPE_FUNCTIONS = ["reshape", "ravel", "transpose", "moveaxis", "swapaxes", "squeeze", "expand_dims", "broadcast_to",
                   "concatenate", "stack", "vstack", "hstack", "split"]
SHAPE_CASES = [(f, DTYPE_NAMES[(i * 2 + j) % len(DTYPE_NAMES)]) for i, f in enumerate(SHAPE_FUNCTIONS)
               for j in range(3)]


# =================================================================================================
# Creation
# =================================================================================================
def fill_values(dtype) -> list:
    """Fill values NumPy takes for ``dtype`` without undefined casts: Python and NumPy scalars of
    every kind that fit (floats into integer dtypes only when finite and in range; negative
    floats never into unsigned ones)."""
    d = dt(dtype)
    pool = [0, 1, -1, 7, 2.5, -2.5, 1e3, True, False, 1.5 - 2j, np.float32(1.5), np.int16(-3), np.uint8(200),
            math.nan, math.inf, -0.0, 1e300, np.float16(0.1), np.complex64(1j)]
    if d.kind in "biu":
        info = np.iinfo(d) if d.kind != "b" else None
        lo, hi = (info.min, info.max) if info else (0, 1)
        keep = []
        for v in pool:
            if isinstance(v, (complex, np.complexfloating)):
                continue  # complex -> int drops the imaginary part, then the real one is a float
            if isinstance(v, (float, np.floating)):
                if not math.isfinite(v) or not (lo <= float(v) <= hi) or (d.kind == "u" and v < 0):
                    continue
            elif d.kind != "b" and not (lo <= int(v) <= hi):
                continue  # out-of-range ints: test_full_with_an_out_of_range_python_int_raises_like_numpy
            keep.append(v)
        return keep + [lo, hi]
    return pool


# =================================================================================================
# Linear algebra
# =================================================================================================
LINALG_FAMILIES = {"products": {"matmul": "float32", "dot": "float64", "inner": "int32", "outer": "complex64",
                                "vdot": "complex128", "@": "int64"}}
LINALG_CASES = [c for fam in LINALG_FAMILIES.values() for c in rotation(fam, lambda name, d: True)]
