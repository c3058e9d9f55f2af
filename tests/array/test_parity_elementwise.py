"""NumPy parity sweep of ember's array API (the ``ember`` section of API.md), in the style of
CuPy's ``numpy_cupy_allclose``: every case runs one body with NumPy 2 and with ember and checks
that both give the same shape, the same dtype and the same values, or raise the same (public)
exception class.

Hypothesis draws shapes (0-d, empty, 1..5-d, broadcastable pairs), views (contiguous, stepped,
``[::-2]``-style negative steps, offsets, transposes: ember views are made by slicing a larger
ember array the same way the NumPy view slices the NumPy one) and values (NaN, +-inf, -0.0,
subnormals and finfo extremes for floats; iinfo extremes for integers).

On PoCL every new (function, dtypes, layout) compiles a kernel, so which (function, dtype)
pairs run is fixed by pytest parametrisation: each function on its main dtype, plus a rotating
subset of the other dtypes NumPy supports for it, chosen so that every dtype appears in every
family of functions somewhere in this file (``test_the_sweep_covers_every_dtype_of_every_family``
checks that). Hypothesis runs a few derandomised examples per case, without shrinking (set
``EMBER_PARITY_SHRINK=1`` to shrink a failure to a minimal example).

Known ember bugs are ``xfail(strict=True)`` cases: the suite stays green and the bug visible;
once fixed, the case XPASSes and the mark must go.

The harness (``parity``, ``assert_same``, the special values, the Hypothesis strategies) is
``ember.testing``'s; this file holds the cases.
"""

from __future__ import annotations

import math
import operator

import ember as cp
import numpy as np
import pytest
from ember.testing import (
    DTYPE_NAMES,
    LOOSE,
    assert_same,
    assert_values,
    cases_with_bugs,
    grid_pairs,
    numpy_result,
    numpy_supports,
    parity,
    public_class,
    quiet,
    rotation,
    rtol_for,
    special_grid,
    ufunc_supports,
)
from ember.testing.strategies import SHAPES, SMALL_SHAPES, operands, placements, run_sweep, values
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

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
                  "logaddexp2"}
UNARY_FAMILIES = {
    "transcendental": {n: "float32" for n in ["sqrt", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1",
                                              "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh",
                                              "tanh"]},
    "rounding": {n: "float32" for n in ["floor", "ceil", "trunc", "rint"]},
    "arithmetic": {"negative": "float64", "positive": "int16", "absolute": "int8", "sign": "float32",
                   "square": "int32", "reciprocal": "float64", "conjugate": "complex64"},
    "classification": {n: "float32" for n in ["isnan", "isinf", "isfinite", "logical_not"]},
    "bitwise": {"invert": "int32"},
}
UNARY_DOMAIN = {"arcsin": "unit", "arccos": "unit", "log": "positive", "log2": "positive", "log10": "positive",
                "sqrt": "positive", "log1p": "positive", "floor": "ties", "ceil": "ties", "trunc": "ties",
                "rint": "ties"}
UNARY_CASES = [c for fam in UNARY_FAMILIES.values() for c in rotation(fam, ufunc_supports(1))]
UNARY_CASES += [("invert", d) for d in ["bool"] + INTS if ("invert", d) not in UNARY_CASES]
UNARY_CASES += [("abs", "float32"), ("bitwise_not", "uint8")]  # the aliases
UNARY_BUGS: dict = {}


def unary_domain(name, dtype) -> str:
    if dt(dtype).kind == "c" and name in TRANSCENDENTAL | {"reciprocal"}:
        return "moderate"  # complex zeros, infinities and NaN: test_complex_special_values_match_numpy
    return UNARY_DOMAIN.get(name, "any")


def unary_call(name):
    return lambda xp, x: getattr(xp, name)(x)


@pytest.mark.parametrize("name,dtype", cases_with_bugs(UNARY_CASES, UNARY_BUGS))
def test_unary_ufunc_matches_numpy_on_any_shape_view_and_special_value(name, dtype):
    domain = unary_domain(name, dtype)
    rtol = LOOSE if name in TRANSCENDENTAL else None
    fn = unary_call(name)

    def usable(x):
        # 1/0 in integers is undefined behaviour in NumPy's C loop (it gives INT_MIN on x86)
        return not (name == "reciprocal" and x.dtype.kind in "iu" and (x == 0).any())

    grid = special_grid(dtype, domain)
    grid = grid[grid != 0] if not usable(grid) else grid
    parity(fn, [grid], [cp.asarray(grid)], {"compared": 0, "raised": 0}, rtol=rtol)

    main = any(fam.get(name) == dtype for fam in UNARY_FAMILIES.values())

    def body(data, tally):
        shape = data.draw(SHAPES if main else SMALL_SHAPES, label="shape")
        n, e = data.draw(operands(dtype, shape, domain), label="x")
        if usable(n):
            parity(fn, [n], [e], tally, rtol=rtol)

    run_sweep(body, f"unary-{name}-{dtype}", examples=EXAMPLES if main else EXTRA_EXAMPLES)


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
}
SECOND_DOMAIN = {"power": "exponent", "left_shift": "shift", "right_shift": "shift", "floor_divide": "small",
                 "remainder": "small", "fmod": "small", "mod": "small"}
BINARY_CASES = [c for fam in BINARY_FAMILIES.values() for c in rotation(fam, ufunc_supports(2))]
BINARY_CASES += [("divide", "float32"), ("mod", "int32")]  # the aliases
BINARY_BUGS: dict = {}


def binary_domains(name, dtype) -> tuple[str, str]:
    d = dt(dtype)
    if d.kind == "c" and name in TRANSCENDENTAL | {"true_divide", "divide", "floor_divide", "remainder"}:
        return "moderate", "moderate"  # complex specials: test_complex_special_values_match_numpy
    if d.kind in "iu":
        return "any", SECOND_DOMAIN.get(name, "any")
    return "any", "small" if name == "power" else "any"


def binary_call(name):
    return lambda xp, x, y: getattr(xp, name)(x, y)


def check_binary_sweep(name, dtype1, dtype2, domains, case_id, examples=None, max_dims=5):
    rtol = LOOSE if name in TRANSCENDENTAL else None
    fn = binary_call(name)
    a, b = grid_pairs(special_grid(dtype1, domains[0]), special_grid(dtype2, domains[1]))
    parity(fn, [a, b], [cp.asarray(a), cp.asarray(b)], {"compared": 0, "raised": 0}, rtol=rtol)

    def body(data, tally):
        shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=max_dims, max_side=4),
                           label="shapes")
        s1, s2 = shapes.input_shapes
        n1, e1 = data.draw(operands(dtype1, s1, domains[0]), label="x")
        n2, e2 = data.draw(operands(dtype2, s2, domains[1]), label="y")
        parity(fn, [n1, n2], [e1, e2], tally, rtol=rtol)

    run_sweep(body, case_id, examples or EXAMPLES)


@pytest.mark.parametrize("name,dtype", cases_with_bugs(BINARY_CASES, BINARY_BUGS))
def test_binary_ufunc_matches_numpy_with_broadcasting_views_and_special_values(name, dtype):
    main = any(fam.get(name) == dtype for fam in BINARY_FAMILIES.values())
    check_binary_sweep(name, dtype, dtype, binary_domains(name, dtype), f"binary-{name}-{dtype}",
                       examples=EXAMPLES if main else EXTRA_EXAMPLES, max_dims=5 if main else 3)


@pytest.mark.parametrize("name,dtype", [(n, d) for n in ("remainder", "fmod") for d in ("int32", "int64")])
def test_remainder_of_int_min_by_minus_one_is_zero_like_numpy(name, dtype):
    a, b = np.array([np.iinfo(dtype).min, 7], dtype), np.array([-1, -1], dtype)
    parity(binary_call(name), [a, b], [cp.asarray(a), cp.asarray(b)], {"compared": 0, "raised": 0})


# Mixed dtypes: NumPy 2's promotion (and its exact int64/uint64 comparisons).
MIXED_CASES = [
    ("add", "int8", "uint8"), ("add", "int64", "uint64"), ("multiply", "int16", "float16"),
    ("add", "bool", "int8"), ("maximum", "uint64", "int64"), ("less", "int8", "uint64"),
    ("equal", "uint64", "int64"), ("greater_equal", "int32", "uint64"), ("add", "float16", "complex64"),
    ("power", "float16", "int32"), ("floor_divide", "uint8", "int8"), ("true_divide", "uint64", "bool"),
    ("subtract", "float64", "complex64"),
]
MIXED_BUGS: dict = {}


@pytest.mark.parametrize("name,dtype1,dtype2", cases_with_bugs(MIXED_CASES, MIXED_BUGS))
def test_mixed_dtype_operands_promote_like_numpy(name, dtype1, dtype2):
    first, second = binary_domains(name, dtype1)[0], binary_domains(name, dtype2)[1]
    check_binary_sweep(name, dtype1, dtype2, (first, second), f"mixed-{name}-{dtype1}-{dtype2}", examples=4,
                       max_dims=3)


# Complex zeros, infinities and NaN: NumPy follows C99 Annex G (npymath); each function on a
# grid of such values (both parts compared where the result is not finite).
COMPLEX_PARTS = [0.0, -0.0, 1.0, -1.5, 2.5, math.nan, math.inf, -math.inf]
COMPLEX_GRID = np.array([complex(a, b) for a in COMPLEX_PARTS for b in COMPLEX_PARTS], dtype=np.complex128)
COMPLEX_UNARY = ["negative", "positive", "absolute", "sign", "square", "reciprocal", "sqrt", "exp", "exp2", "expm1",
                 "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh",
                 "tanh", "isnan", "isinf", "isfinite", "logical_not", "rint"]
COMPLEX_BINARY = ["add", "subtract", "multiply", "true_divide", "power", "maximum", "minimum", "fmax", "fmin", "equal",
                  "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
                  "logical_xor"]
COMPLEX_SPECIAL_BUGS: dict = {}


@pytest.mark.parametrize("name", cases_with_bugs([(n,) for n in COMPLEX_UNARY + COMPLEX_BINARY],
                                                 COMPLEX_SPECIAL_BUGS))
def test_complex_special_values_match_numpy(name):
    tally = {"compared": 0, "raised": 0}
    rtol = LOOSE if name in TRANSCENDENTAL else None
    if name in COMPLEX_UNARY:
        x = COMPLEX_GRID
        parity(unary_call(name), [x], [cp.asarray(x)], tally, rtol=rtol)
    else:
        a, b = grid_pairs(COMPLEX_GRID, COMPLEX_GRID)
        parity(binary_call(name), [a, b], [cp.asarray(a), cp.asarray(b)], tally, rtol=rtol)
    assert tally["compared"] == 1


# IEEE 754 / C99 Annex F fix these results exactly (and NumPy gives them exactly): only those
# points, not values like log10(100) that a faithful libm may round either way.
EXACT_POINTS = {
    "exp": [0.0, -0.0, -math.inf, math.inf], "exp2": [0.0, -0.0, -math.inf, math.inf],
    "expm1": [0.0, -0.0, -math.inf, math.inf], "log": [1.0, 0.0, -0.0, math.inf, -1.0, math.nan],
    "log2": [1.0, 0.0, -0.0, math.inf, -1.0], "log10": [1.0, 0.0, -0.0, math.inf, -1.0],
    "log1p": [0.0, -0.0, -1.0, math.inf, -2.0], "sqrt": [0.0, -0.0, math.inf, 4.0, 0.25, -1.0, 2.0],
    "sin": [0.0, -0.0, math.inf, -math.inf], "cos": [0.0, -0.0, math.inf], "tan": [0.0, -0.0, math.inf],
    "arcsin": [0.0, -0.0, 2.0, -2.0], "arccos": [1.0, 2.0, -2.0], "arctan": [0.0, -0.0, math.nan],
    "sinh": [0.0, -0.0, math.inf, -math.inf], "cosh": [0.0, -0.0, math.inf, -math.inf],
    "tanh": [0.0, -0.0, math.inf, -math.inf],
}
_POW_X = [math.nan, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, math.inf, -math.inf]
_POW_Y = [0.0, -0.0, math.nan, math.inf, -math.inf, -3.0, 3.0, -2.0, 2.0, 0.5, -0.5]


def _pow_is_fixed(x: float, y: float) -> bool:
    """Whether C99 F.9.4.4 fixes pow(x, y)."""
    if y == 0 or x == 1:
        return True
    if math.isnan(x) or math.isnan(y):
        return False
    if x == 0 or math.isinf(x) or math.isinf(y):
        return True
    return x < 0 and not float(y).is_integer()


EXACT_BINARY_POINTS = {
    "power": tuple(map(list, zip(*[(x, y) for x in _POW_X for y in _POW_Y if _pow_is_fixed(x, y)], strict=True))),
    "arctan2": tuple(map(list, zip(*[(y, x) for y in [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf]
                                    for x in [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf]
                                    if y == 0 or math.isinf(x) or math.isinf(y)], strict=True))),
}
EXACT_BUGS: dict = {}
EXACT_CASES = [(n, d) for n in list(EXACT_POINTS) + list(EXACT_BINARY_POINTS) for d in ("float32", "float64")]


@pytest.mark.parametrize("name,dtype", cases_with_bugs(EXACT_CASES, EXACT_BUGS))
def test_ieee_special_points_are_exact_like_numpy(name, dtype):
    tally = {"compared": 0, "raised": 0}
    if name in EXACT_POINTS:
        x = np.array(EXACT_POINTS[name], dtype=dtype)
        parity(unary_call(name), [x], [cp.asarray(x)], tally, rtol=0)
    else:
        a, b = (np.array(v, dtype=dtype) for v in EXACT_BINARY_POINTS[name])
        parity(binary_call(name), [a, b], [cp.asarray(a), cp.asarray(b)], tally, rtol=0)
    assert tally["compared"] == 1


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log1p_of_subnormals_is_exact_like_numpy(dtype):
    """``log1p(x) == x`` for |x| far below epsilon (NumPy's libm gets it exactly)."""
    f = np.finfo(dtype)
    x = np.array([f.smallest_subnormal, -3 * f.smallest_subnormal, f.tiny / 8, f.tiny], dtype=dtype)
    assert_same(cp.log1p(cp.asarray(x)), np.log1p(x), rtol=0)


# Python scalars are weak (NEP 50): they take the array's dtype, raise OverflowError when they
# do not fit it, and compare exactly even when they do not.
SCALAR_CASES = [("add", "int8"), ("multiply", "float16"), ("true_divide", "int16"), ("floor_divide", "int32"),
                ("power", "float32"), ("less", "uint64"), ("true_divide", "complex64"), ("arctan2", "uint8")]
SCALAR_POOL = [0, 1, -1, 3, 127, 128, 255, 256, -129, 2**31, 2**63 - 1, 2**63, 2**64 - 1, -(2**63), 1.5, -0.0,
               math.nan, math.inf, -math.inf, 1e300, 1e5, 1e-8, 2 + 3j, 1e200j, True, False]
COMPARISONS = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}
SCALAR_BUGS: dict = {}


def scalar_pool(name, dtype) -> list:
    """``(scalar, reflected)`` pairs for ``name`` on ``dtype`` arrays: every scalar of the pool,
    on both sides."""
    return [(v, reflected) for v in SCALAR_POOL for reflected in (False, True)]


def check_scalar_pool(name, x, pool):
    """``name(x, scalar)`` (or reflected) for each ``(scalar, reflected)`` of ``pool``."""
    failures = []
    for s, reflected in pool:
        f = (lambda xp, a, b: getattr(xp, name)(b, a)) if reflected else binary_call(name)
        label = f"{name}({s!r}, x)" if reflected else f"{name}(x, {s!r})"
        try:
            parity(f, [x, s], [cp.asarray(x), s], {"compared": 0, "raised": 0})
        except AssertionError as e:
            failures.append(f"{label}: {str(e).strip()[:300]}")
        except Exception as e:  # noqa: BLE001 - ember raised where NumPy did not, or another class
            failures.append(f"{label}: ember raised {type(e).__name__}: {e}")
    assert not failures, "\n".join(failures)


def both_sides(values_) -> list:
    return [(v, r) for v in values_ for r in (False, True)]


@pytest.mark.parametrize("name,dtype", cases_with_bugs(SCALAR_CASES, SCALAR_BUGS))
def test_python_scalar_operands_are_weak_like_numpy(name, dtype):
    domain = "moderate" if dt(dtype).kind == "c" else "any"
    pool = scalar_pool(name, dtype)
    check_scalar_pool(name, special_grid(dtype, domain), pool)

    def body(data, tally):
        n, e = data.draw(operands(dtype, data.draw(SMALL_SHAPES, label="shape"), domain), label="x")
        s, reflected = data.draw(st.sampled_from(pool), label="scalar")
        f = (lambda xp, a, b: getattr(xp, name)(b, a)) if reflected else binary_call(name)
        if n.size == 0 and numpy_result(f, n, s)[1] is not None:
            return  # test_out_of_range_python_int_with_an_empty_array_raises_like_numpy
        parity(f, [n, s], [e, s], tally)

    run_sweep(body, f"scalar-{name}-{dtype}", examples=4)


OUT_OF_RANGE_CASES = [("less", "int8"), ("equal", "uint64"), ("greater_equal", "int64"), ("not_equal", "uint8")]


@pytest.mark.parametrize("name,dtype", OUT_OF_RANGE_CASES)
def test_comparison_with_out_of_range_python_int_is_exact_like_numpy(name, dtype):
    info = np.iinfo(dtype)
    check_scalar_pool(name, special_grid(dtype), both_sides([info.min - 1, info.max + 1, -1, 2**64, -(2**70)]))


HUGE_INT_CASES = [("true_divide", "int16"), ("add", "float32"), ("multiply", "complex64"), ("less", "float64")]


@pytest.mark.parametrize("name,dtype", HUGE_INT_CASES)
def test_python_int_beyond_64_bits_with_a_float_loop_like_numpy(name, dtype):
    check_scalar_pool(name, special_grid(dtype, "moderate"), both_sides([2**64, -(2**63) - 1, 2**200, -(2**1000)]))


@pytest.mark.parametrize("name", ["multiply", "true_divide", "add", "arctan2"])
def test_python_scalar_is_rounded_to_float16_first_like_numpy(name):
    x = np.array([0.0, 1e-4, 1.0, 3.0, -2.5, 6e-8], dtype=np.float16)
    check_scalar_pool(name, x, both_sides([1e5, 2**31, 65519.0, 1e-9, 1 / 3, 70000]))


@pytest.mark.parametrize("dtype", ["int8", "uint32"])
def test_out_of_range_python_int_with_an_empty_array_raises_like_numpy(dtype):
    with pytest.raises(OverflowError):
        np.add(np.zeros((0, 3), dtype), 2**40)
    with pytest.raises(OverflowError):
        cp.add(cp.zeros((0, 3), dtype), 2**40)


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
UNARY_OPERATORS = {"-x": operator.neg, "+x": operator.pos, "~x": operator.invert, "abs(x)": abs}
_MAIN = {name: d for fam in BINARY_FAMILIES.values() for name, d in fam.items()}
OPERATOR_CASES = [(op, _MAIN[name]) for op, (name, _, _) in OPERATORS.items()]
OPERATOR_BUGS: dict = {}


@pytest.mark.parametrize("op,dtype", cases_with_bugs(OPERATOR_CASES, OPERATOR_BUGS))
def test_binary_operators_and_reflected_forms_match_numpy(op, dtype):
    name, fn, _ = OPERATORS[op]
    domains = binary_domains(name, dtype)

    def body(data, tally):
        shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4))
        # whole arrays: the operators reach the ufuncs, whose layouts the binary sweep covers
        n1, e1 = data.draw(operands(dtype, shapes.input_shapes[0], domains[0], views=False), label="x")
        n2, e2 = data.draw(operands(dtype, shapes.input_shapes[1], domains[1], views=False), label="y")
        form = data.draw(st.sampled_from(["arrays", "scalar-right", "scalar-left"]), label="form")
        if form == "arrays":
            parity(lambda xp, x, y: fn(x, y), [n1, n2], [e1, e2], tally)
        else:
            s = data.draw(st.sampled_from([2, 3, 0, 1.5] if dt(dtype).kind in "iub" and name not in (
                "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift") else [2, 3, 0, 1]))
            f = (lambda xp, x: fn(x, s)) if form == "scalar-right" else (lambda xp, x: fn(s, x))
            parity(f, [n1], [e1], tally)

    run_sweep(body, f"operator-{op}-{dtype}", examples=5)


@pytest.mark.parametrize("op,dtype", [("-x", "int8"), ("-x", "float32"), ("+x", "uint16"), ("~x", "int32"),
                                      ("~x", "bool"), ("abs(x)", "int64"), ("abs(x)", "complex64"),
                                      ("-x", "bool")])
def test_unary_operators_match_numpy(op, dtype):
    fn = UNARY_OPERATORS[op]

    def body(data, tally):
        n, e = data.draw(operands(dtype, data.draw(SMALL_SHAPES), views=False), label="x")
        parity(lambda xp, x: fn(x), [n], [e], tally)

    if op == "-x" and dtype == "bool":  # NumPy refuses: a case that only checks the error
        with pytest.raises(TypeError):
            -cp.asarray(np.array([True]))
        return
    run_sweep(body, f"unary-operator-{op}-{dtype}", examples=4)


INPLACE_CASES = [("+", "float32", "float32"), ("-", "int16", "int8"), ("*", "uint32", "uint32"),
                 ("/", "float64", "int32"), ("//", "int32", "int32"), ("%", "float32", "float16"),
                 ("**", "float64", "float64"), ("&", "int32", "bool"), ("<<", "int32", "int32"),
                 ("+", "complex64", "float32"), ("-", "float16", "uint8")]


@pytest.mark.parametrize("op,dtype,other", [("/", "int32", "int32"), ("+", "int8", "float32"),
                                            ("*", "uint8", "complex64"), ("-", "bool", "bool")])
def test_in_place_operator_that_would_change_the_dtype_raises_like_numpy(op, dtype, other):
    name, _, ifn = OPERATORS[op]
    x, y = special_grid(dtype, "small"), special_grid(other, "small")[:1]
    want, err = numpy_result(lambda xp, a, b: ifn(a, b), x.copy(), y)
    assert err is not None and want is None
    with pytest.raises(public_class(err)):
        ifn(cp.asarray(x), cp.asarray(y))


@pytest.mark.parametrize("op,dtype,other", INPLACE_CASES)
def test_in_place_operators_write_through_views_like_numpy(op, dtype, other):
    """``view op= y`` on a stepped/reversed/transposed view of a larger array: the view takes
    NumPy's values (cast back with same_kind, or NumPy's error) and nothing else changes."""
    name, _, ifn = OPERATORS[op]
    domains = binary_domains(name, dtype)

    def body(data, tally):
        shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4), label="shape")
        base_shape, index, axes = data.draw(placements(shape), label="target")
        base = data.draw(values(dtype, base_shape, domains[0]), label="base")
        y_shape = shape[data.draw(st.integers(0, len(shape)), label="y dims"):]
        n2, e2 = data.draw(operands(other, y_shape, domains[1]), label="y")

        def fn(xp, b, y):
            b = b.copy()
            view = b[index].transpose(axes)
            result = ifn(view, y)
            assert result is view or xp is np
            return b

        parity(fn, [base, n2], [cp.asarray(base), e2], tally)

    run_sweep(body, f"inplace-{op}-{dtype}-{other}", examples=5)


OUT_CASES = [("add", "float32", "float64"), ("multiply", "int16", "int64"), ("sqrt", "float32", "float32"),
             ("less", "float64", "bool"), ("true_divide", "int32", "float32"), ("negative", "int8", "int16"),
             ("subtract", "float64", "float32"), ("maximum", "uint8", "complex64"), ("add", "int32", "float32"),
             ("exp", "complex64", "complex128")]


OUT_BUGS: dict = {}


@pytest.mark.parametrize("name,dtype,out_dtype", cases_with_bugs(OUT_CASES, OUT_BUGS))
def test_out_argument_takes_the_result_like_numpy(name, dtype, out_dtype):
    """``ufunc(..., out=view)`` into a strided view of another dtype: NumPy's values cast into
    it (same_kind), or NumPy's error (TypeError when the cast is not same_kind, ValueError when
    the shape does not broadcast); the returned array is ``out``."""
    nin = getattr(np, name).nin

    def body(data, tally):
        shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4), label="shape")
        ins = [data.draw(operands(dtype, shape[data.draw(st.integers(0, len(shape))):]), label="x")
               for _ in range(nin)]
        castable = np.can_cast(np.result_type(*[n for n, _ in ins]), out_dtype, "same_kind")
        # one error at a time: NumPy checks the cast before the shape
        out_shape = shape if not castable or data.draw(st.booleans(), label="out fits") else shape + (2,)
        base_shape, index, axes = data.draw(placements(out_shape), label="out")
        base = data.draw(values(out_dtype, base_shape), label="out base")

        def fn(xp, b, *xs):
            b = b.copy()
            out = b[index].transpose(axes)
            result = getattr(xp, name)(*xs, out=out)
            assert result is out or xp is np
            return b

        # The values have the precision of the inputs' loop (complex64 exp into complex128 is
        # still a complex64 result), whatever out's dtype.
        parity(fn, [base] + [n for n, _ in ins], [cp.asarray(base)] + [e for _, e in ins], tally,
               rtol=max(rtol_for(dtype, loose=True), rtol_for(out_dtype)))

    run_sweep(body, f"out-{name}-{dtype}-{out_dtype}", examples=5)


@pytest.mark.parametrize("name,dtype,out_dtype", [("add", "float32", "int32"), ("true_divide", "int8", "int8"),
                                                  ("multiply", "complex64", "float64"), ("less", "int8", "bool")])
def test_out_the_result_cannot_be_cast_to_raises_like_numpy(name, dtype, out_dtype):
    x = special_grid(dtype, "moderate")
    f = lambda xp, a, o: getattr(xp, name)(a, a, out=o)  # noqa: E731
    o = np.zeros(x.shape, out_dtype)
    if numpy_result(f, x, o)[1] is None:
        parity(f, [x, o], [cp.asarray(x), cp.asarray(o)], {"compared": 0, "raised": 0})  # bool out of less: fine
        return
    with pytest.raises(public_class(numpy_result(f, x, o)[1])):
        f(cp, cp.asarray(x), cp.asarray(o))


def test_out_of_another_kind_and_shape_raises_numpys_type_error_first():
    x = np.zeros(3, np.float32)
    f = lambda xp, a, o: xp.add(a, a, out=o)  # noqa: E731
    parity(f, [x, np.zeros(4, np.int32)], [cp.asarray(x), cp.zeros(4, np.int32)], {"compared": 0, "raised": 0})


def test_divmod_matches_numpy():
    tally = {"compared": 0, "raised": 0}
    for dtype in ("int16", "float32"):
        a, b = grid_pairs(special_grid(dtype, "any"), special_grid(dtype, "small"))
        parity(lambda xp, x, y: divmod(x, y), [a, b], [cp.asarray(a), cp.asarray(b)], tally)
    assert tally["compared"] == 2


# =================================================================================================
# clip and where
# =================================================================================================
CLIP_DTYPES = ["float32", "int8", "uint16", "float16", "uint64", "bool"]


@pytest.mark.parametrize("dtype", CLIP_DTYPES)
def test_clip_matches_numpy(dtype):
    def body(data, tally):
        shape = data.draw(SHAPES, label="shape")
        n, e = data.draw(operands(dtype, shape), label="x")
        kinds = ["scalar", "array", "none"]
        lo_kind = data.draw(st.sampled_from(kinds))
        hi_kind = data.draw(st.sampled_from(kinds if lo_kind != "none" else kinds[:2]))
        bounds_n, bounds_e = [], []
        for kind in (lo_kind, hi_kind):
            if kind == "none":
                bounds_n.append(None)
                bounds_e.append(None)
            elif kind == "scalar":
                v = data.draw(st.sampled_from(special_grid(dtype).tolist()))
                bounds_n.append(v)
                bounds_e.append(v)
            else:
                bn, be = data.draw(operands(dtype, shape[data.draw(st.integers(0, len(shape))):]))
                bounds_n.append(bn)
                bounds_e.append(be)
        method = data.draw(st.booleans(), label="method")
        fn = (lambda xp, x, lo, hi: x.clip(lo, hi)) if method else (lambda xp, x, lo, hi: xp.clip(x, lo, hi))
        parity(fn, [n, *bounds_n], [e, *bounds_e], tally)

    run_sweep(body, f"clip-{dtype}", examples=4)


def test_clip_with_neither_bound_copies_like_numpy():
    x = special_grid("float32")
    assert_same(cp.clip(cp.asarray(x), None, None), np.clip(x, None, None))


@pytest.mark.parametrize("fn", [lambda xp, c: xp.nonzero(c), lambda xp, c: xp.where(c)], ids=["nonzero", "where"])
def test_nonzero_of_a_0d_array_raises_like_numpy(fn):
    parity(fn, [np.array(True)], [cp.asarray(np.array(True))], {"compared": 0, "raised": 0})


WHERE_CASES = [("float32", "float32"), ("int8", "uint8"), ("float16", "int32"), ("complex64", "float64"),
               ("uint64", "int64"), ("int16", "complex128")]


@pytest.mark.parametrize("dtype1,dtype2", WHERE_CASES)
def test_where_matches_numpy(dtype1, dtype2):
    def body(data, tally):
        shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=4, max_side=4))
        sc, s1, s2 = shapes.input_shapes
        cond_dtype = data.draw(st.sampled_from(["bool", dtype1]), label="condition dtype")
        nc, ec = data.draw(operands(cond_dtype, sc), label="condition")
        n1, e1 = data.draw(operands(dtype1, s1), label="x")
        n2, e2 = data.draw(operands(dtype2, s2), label="y")
        forms = ["arrays", "scalar-y", "scalar-x"] + (["one-argument"] if len(sc) else [])  # 0-d: a test of its own
        form = data.draw(st.sampled_from(forms), label="form")
        if form == "arrays":
            parity(lambda xp, c, x, y: xp.where(c, x, y), [nc, n1, n2], [ec, e1, e2], tally)
        elif form == "one-argument":
            parity(lambda xp, c: xp.where(c), [nc], [ec], tally)
        else:
            s = data.draw(st.sampled_from([0, 1, -1, 2.5, True, 1j]), label="scalar")
            f = (lambda xp, c, x: xp.where(c, x, s)) if form == "scalar-y" else (lambda xp, c, x: xp.where(c, s, x))
            parity(f, [nc, n1], [ec, e1], tally)

    run_sweep(body, f"where-{dtype1}-{dtype2}", examples=3)


# =================================================================================================
# Reductions
# =================================================================================================
REDUCTION_FAMILIES = {
    "sums and moments": {"sum": "float32", "prod": "int16", "mean": "float64", "cumsum": "int8", "std": "float32",
                         "var": "complex64"},
    "extrema and truth": {"max": "float16", "min": "int64", "argmax": "float32", "argmin": "uint8", "any": "float32",
                          "all": "complex128"},
}
ORDER_DEPENDENT = {"sum", "mean", "cumsum", "std", "var", "prod"}  # rounding depends on the order


def reduction_cases() -> list:
    supports = lambda name, d: numpy_supports(lambda x: getattr(np, name)(x), d)  # noqa: E731
    return [c for fam in REDUCTION_FAMILIES.values() for c in rotation(fam, supports)]


REDUCTION_CASES = reduction_cases()
REDUCTION_BUGS: dict = {}


@st.composite
def axis_args(draw, ndim: int, single: bool):
    """``axis=``: None, an int or a tuple (for single-axis functions: None or an int); now and
    then out of range or repeated, for NumPy's errors."""
    kinds = ["none", "int"] + ([] if single else ["tuple"])
    kind = draw(st.sampled_from(kinds if ndim else ["none", "int"]), label="axis kind")
    if kind == "none":
        return None
    if kind == "int":
        return draw(st.integers(-ndim - 1, ndim), label="axis")
    axes = draw(st.lists(st.integers(-ndim, ndim - 1), max_size=ndim, unique=True), label="axes")
    if axes and draw(st.integers(0, 9)) == 0:
        axes.append(axes[0] - ndim if axes[0] >= 0 else axes[0] + ndim)  # the same axis twice
    return tuple(axes)


def reduction_domain(name, dtype) -> str:
    if name == "prod":
        return "bounded"
    if name in ("std", "var"):
        return "small"
    return "any"


def order_tolerant(name, x: np.ndarray, kwargs: dict, factor: float, src_dtypes=()):
    """Compares a reduction whose rounding depends on the summation order: within ``factor``
    times the tolerance of the result's (or a coarser source's) dtype, relative to the same
    reduction of ``|x|`` (the scale of its rounding errors); NaN and infinities exactly."""
    def compare(got, want):
        want = np.asarray(want)
        rtol = factor * max(rtol_for(d) for d in (want.dtype, *src_dtypes))
        assert isinstance(got, cp.ndarray)
        assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
        host = got.get()
        if want.dtype.kind in "biu":
            np.testing.assert_array_equal(host, want, strict=True)
            return
        finite = np.isfinite(want)
        np.testing.assert_array_equal(host[~finite], want[~finite], err_msg="non-finite results")
        wide = np.abs(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64))
        if name in ("sum", "mean", "cumsum"):
            scale = quiet(getattr(np, name), wide, **{k: v for k, v in kwargs.items() if k != "dtype"})
        elif name == "prod":
            scale = np.abs(want) * max(x.size, 1)
        else:  # var and std: relative to the result, with the mean's rounding
            scale = np.abs(want) * 8 + quiet(np.mean, wide, **{k: v for k, v in kwargs.items()
                                                                if k in ("axis", "keepdims")}) * (
                1e-6 if name == "var" else 1e-3)
        scale = np.broadcast_to(np.asarray(scale), want.shape)
        err = quiet(np.abs, host.astype(np.complex128 if want.dtype.kind == "c" else np.float64) - want)
        assert np.all(err[finite] <= rtol * scale[finite] + 1e-300), (
            f"{name}: error {err[finite].max() if finite.any() else 0} beyond {rtol} x scale")
    return compare


@pytest.mark.parametrize("name,dtype", cases_with_bugs(REDUCTION_CASES, REDUCTION_BUGS))
def test_reduction_matches_numpy_over_axes_keepdims_and_views(name, dtype):
    single = name in ("argmax", "argmin", "cumsum")
    domain = reduction_domain(name, dtype)
    factor = 10 if dtype == "float16" and name in ("var", "std") else 4

    def body(data, tally):
        shape = data.draw(SHAPES, label="shape")
        n, e = data.draw(operands(dtype, shape, domain, specials=True), label="x")
        if name in ORDER_DEPENDENT and n.dtype.kind in "fc":
            # Overflow of a partial sum depends on the order (implementation-defined): no finfo.max.
            big = np.abs(n) >= np.finfo(n.dtype).max / 4
            n = n.copy()
            n[big] = 1
            e = cp.asarray(n)
        kwargs = {"axis": data.draw(axis_args(len(shape), single))}
        if name != "cumsum":
            kwargs["keepdims"] = data.draw(st.booleans(), label="keepdims")
        if name in ("std", "var"):
            kwargs["ddof"] = data.draw(st.sampled_from([0, 1]), label="ddof")
        method = data.draw(st.booleans(), label="method")
        fn = (lambda xp, x: getattr(x, name)(**kwargs)) if method else (lambda xp, x: getattr(xp, name)(x, **kwargs))
        compare = order_tolerant(name, n, kwargs, factor, [dtype]) if name in ORDER_DEPENDENT else None
        parity(fn, [n], [e], tally, compare=compare)

    run_sweep(body, f"reduction-{name}-{dtype}", examples=8)


@pytest.mark.parametrize("name", ["mean", "var", "std"])
def test_mean_var_std_of_a_0d_array_with_an_axis_raise_like_numpy(name):
    x = np.array(2.5, dtype=np.float32)
    parity(lambda xp, a: getattr(xp, name)(a, axis=0), [x], [cp.asarray(x)], {"compared": 0, "raised": 0})


REDUCTION_DTYPE_CASES = [("sum", "int8", "int8"), ("sum", "uint8", "float16"), ("prod", "uint16", "uint8"),
                         ("mean", "int16", "float32"), ("mean", "float16", "float64"), ("cumsum", "bool", "int8"),
                         ("cumsum", "float32", "float64"), ("var", "int32", "float32"),
                         ("sum", "complex64", "complex128"), ("sum", "float64", "int32")]


@pytest.mark.parametrize("name,dtype,acc", REDUCTION_DTYPE_CASES)
def test_reduction_dtype_and_out_arguments_match_numpy(name, dtype, acc):
    """``dtype=`` (the accumulator and result) and ``out=`` (a strided view, maybe of another
    dtype) as NumPy takes them."""
    def body(data, tally):
        shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=4), label="shape")
        # float -> int casts of NaN, inf or out-of-range values are undefined: small finite values
        specials = not (dt(dtype).kind == "f" and dt(acc).kind in "iu")
        n, e = data.draw(operands(dtype, shape, "bounded" if name == "prod" else "small", specials), label="x")
        axis = data.draw(st.one_of(st.none(), st.integers(0, len(shape) - 1)), label="axis")
        use_out = data.draw(st.booleans(), label="out")
        kwargs = {"axis": axis, "dtype": acc}
        if not use_out:
            fn = lambda xp, x: getattr(xp, name)(x, **kwargs)  # noqa: E731
            compare = order_tolerant(name, n, kwargs, 4, [dtype, acc])
            parity(fn, [n], [e], tally, compare=compare if dt(acc).kind in "fc" else None)
            return
        result_shape = quiet(getattr(np, name), n, **kwargs).shape
        out_dtype = data.draw(st.sampled_from([acc, "float64", "complex128"]), label="out dtype")
        base_shape, index, axes = data.draw(placements(result_shape), label="out layout")
        base = np.zeros(base_shape, out_dtype)
        outside = np.ones(base_shape, bool)
        outside[index] = False

        def fn(xp, x, b):
            out = b[index].transpose(axes)
            assert getattr(xp, name)(x, out=out, **kwargs) is out or xp is np
            return out

        want, err = numpy_result(fn, n, base)
        ember_base = cp.asarray(base)
        if err is not None:
            with pytest.raises(public_class(err)):
                fn(cp, e, ember_base)
            tally["raised"] += 1
            return
        got = fn(cp, e, ember_base)
        order_tolerant(name, n, kwargs, 4, [dtype, acc, out_dtype])(got, want)
        np.testing.assert_array_equal(ember_base.get()[outside], base[outside], err_msg="written outside out")
        tally["compared"] += 1

    run_sweep(body, f"reduction-dtype-{name}-{dtype}-{acc}", examples=5)


# =================================================================================================
# Shape functions
# =================================================================================================
SHAPE_FUNCTIONS = ["reshape", "ravel", "transpose", "moveaxis", "swapaxes", "squeeze", "expand_dims", "broadcast_to",
                   "concatenate", "stack", "vstack", "hstack", "split"]
SHAPE_CASES = [(f, DTYPE_NAMES[(i * 2 + j) % len(DTYPE_NAMES)]) for i, f in enumerate(SHAPE_FUNCTIONS)
               for j in range(3)]
SHAPE_BUGS: dict = {}


@st.composite
def new_shapes(draw, size: int):
    """A shape of ``size`` elements (its factors spread over 0..5 axes, maybe a -1), or now and
    then one of the wrong size, for NumPy's error."""
    if draw(st.integers(0, 9)) == 0:
        return (size + 1,)
    factors, p, rest = [], 2, size
    while rest > 1 and p * p <= rest:
        while rest % p == 0:
            factors.append(p)
            rest //= p
        p += 1
    if rest > 1:
        factors.append(rest)
    ndim = draw(st.integers(1 if factors or size == 0 else 0, 5))
    shape = [1] * ndim
    for f in factors:
        shape[draw(st.integers(0, ndim - 1))] *= f
    if size == 0:
        shape[draw(st.integers(0, ndim - 1))] = 0
    if ndim and size and draw(st.booleans()):
        shape[draw(st.integers(0, ndim - 1))] = -1
    return tuple(shape)


def shape_call(name, data, shape, dtype):
    """The call of shape function ``name`` on operands like ``x`` (arguments drawn), and the
    extra operands it takes, as ``(fn, numpy_extras, ember_extras)``."""
    ndim = len(shape)
    axis_in = st.integers(-ndim - 1, ndim) if ndim else st.just(0)
    if name == "reshape":
        new = data.draw(new_shapes(math.prod(shape)), label="new shape")
        order = data.draw(st.sampled_from("CFA"), label="order")
        method = data.draw(st.booleans(), label="method")
        return ((lambda xp, x: x.reshape(new, order=order)) if method
                else (lambda xp, x: xp.reshape(x, new, order=order))), [], []
    if name == "ravel":
        order = data.draw(st.sampled_from("CFAK"), label="order")
        return (lambda xp, x: xp.ravel(x, order)), [], []
    if name == "transpose":
        axes = data.draw(st.one_of(st.none(), st.permutations(range(ndim)).map(tuple)), label="axes")
        return (lambda xp, x: xp.transpose(x, axes)), [], []
    if name == "moveaxis":
        src = data.draw(st.lists(st.integers(-ndim, ndim - 1), max_size=ndim, unique=True), label="source") \
            if ndim else []
        dst = data.draw(st.lists(st.integers(-ndim, ndim - 1), min_size=len(src), max_size=len(src), unique=True)) \
            if ndim else []
        return (lambda xp, x: xp.moveaxis(x, src, dst)), [], []
    if name == "swapaxes":
        a1, a2 = data.draw(axis_in, label="axis1"), data.draw(axis_in, label="axis2")
        return (lambda xp, x: xp.swapaxes(x, a1, a2)), [], []
    if name == "squeeze":
        ones = [i for i, d in enumerate(shape) if d == 1]
        # (0-d with axis=0: test_squeeze_of_a_0d_array_with_axis_0_like_numpy)
        axis = data.draw(st.one_of(st.none(), st.sampled_from(ones or [0]) if ndim else st.none(),
                                   st.lists(st.integers(0, ndim - 1), max_size=2, unique=True).map(tuple)
                                   if ndim else st.just(())), label="axis")
        return (lambda xp, x: xp.squeeze(x, axis)), [], []
    if name == "expand_dims":
        axis = data.draw(st.one_of(st.integers(-ndim - 2, ndim + 1),
                                   st.lists(st.integers(-ndim - 2, ndim + 1), min_size=1, max_size=2, unique=True)
                                   .map(tuple)), label="axis")
        return (lambda xp, x: xp.expand_dims(x, axis)), [], []
    if name == "broadcast_to":
        target = tuple(data.draw(st.lists(st.integers(0, 3), max_size=2))) + tuple(
            d if d != 1 or data.draw(st.booleans()) else data.draw(st.integers(0, 3)) for d in shape)
        return (lambda xp, x: xp.broadcast_to(x, target).copy()), [], []
    # functions of several arrays: the others share x's shape (but along the axis) and maybe not its dtype
    other = data.draw(st.sampled_from([dtype, dtype, "int16", "float32", "complex64", "bool", "uint64"]),
                      label="dtype2")
    count = data.draw(st.integers(0, 2), label="more arrays")
    if name in ("concatenate", "hstack", "vstack") and ndim:
        axis = data.draw(st.integers(-ndim, ndim - 1), label="axis") if name == "concatenate" else (
            (1 if ndim > 1 else 0) if name == "hstack" else 0)
        shapes = [tuple(data.draw(st.integers(0, 3)) if i == axis % ndim else d for i, d in enumerate(shape))
                  for _ in range(count)]
    else:
        axis = data.draw(st.integers(-ndim - 1, ndim), label="axis")
        shapes = [shape] * count
    extras = [data.draw(operands(other, s), label="other") for s in shapes]
    ne, ee = [n for n, _ in extras], [e for _, e in extras]
    if name == "concatenate":
        return (lambda xp, x, *more: xp.concatenate([x, *more], axis=axis)), ne, ee
    if name == "stack":
        return (lambda xp, x, *more: xp.stack([x, *more], axis=axis)), ne, ee
    if name == "vstack":
        return (lambda xp, x, *more: xp.vstack([x, *more])), ne, ee
    if name == "hstack":
        return (lambda xp, x, *more: xp.hstack([x, *more])), ne, ee
    assert name == "split"
    n_axis = shape[axis % ndim] if ndim and -ndim <= axis < ndim else 0
    sections = data.draw(st.one_of(st.integers(1, 4), st.lists(st.integers(-1, n_axis + 1), max_size=3)),
                         label="sections")
    return (lambda xp, x: list(xp.split(x, sections, axis=axis))), [], []


@pytest.mark.parametrize("axis", [0, -1])
def test_squeeze_of_a_0d_array_with_axis_0_like_numpy(axis):
    x = np.array(1.5, dtype=np.float32)
    parity(lambda xp, a: xp.squeeze(a, axis), [x], [cp.asarray(x)], {"compared": 0, "raised": 0})


@pytest.mark.parametrize("name,dtype", cases_with_bugs(SHAPE_CASES, SHAPE_BUGS))
def test_shape_function_matches_numpy_on_views_of_every_dtype(name, dtype):
    def body(data, tally):
        shape = data.draw(SHAPES, label="shape")
        n, e = data.draw(operands(dtype, shape), label="x")
        fn, n_more, e_more = shape_call(name, data, shape, dtype)
        parity(fn, [n, *n_more], [e, *e_more], tally, rtol=0)

    run_sweep(body, f"shape-{name}-{dtype}", examples=8)


# =================================================================================================
# Indexing
# =================================================================================================
INDEX_GET_BUGS: dict = {}
INDEX_SET_BUGS: dict = {}


@st.composite
def advanced_indices(draw, shape):
    """An index mixing integer arrays (NumPy or ember, maybe negative, maybe out of bounds),
    lists, boolean masks, ints, slices with steps, ``...`` and ``None``; as ``(numpy_index,
    ember_index)``."""
    ndim = len(shape)
    n_index, e_index = [], []
    axis = 0
    used_ellipsis = False
    while axis < ndim and draw(st.integers(0, 3)) and len(n_index) < 5:
        kind = draw(st.sampled_from(["int-array", "int-array", "mask", "list", "int", "slice", "none", "ellipsis"]))
        size = shape[axis]
        if kind == "int-array":
            idx_shape = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
            idx_dtype = draw(st.sampled_from([np.int64, np.int32, np.uint8, np.int16]))
            hi = size if draw(st.integers(0, 15)) else size + 2  # now and then out of bounds
            lo = 0 if idx_dtype == np.uint8 or not draw(st.booleans()) else -size
            if hi > lo:
                arr = draw(hnp.arrays(idx_dtype, idx_shape, elements=st.integers(lo, hi - 1)))
            else:
                arr = np.zeros((0,), idx_dtype)
            n_index.append(arr)
            e_index.append(cp.asarray(arr))
            axis += 1
        elif kind == "mask":
            k = draw(st.integers(1, min(2, ndim - axis)))
            mask = draw(hnp.arrays(np.bool_, shape[axis:axis + k]))
            n_index.append(mask)
            e_index.append(cp.asarray(mask) if draw(st.booleans()) else mask.tolist() if k == 1 and mask.size else
                           cp.asarray(mask))
            axis += k
        elif kind == "list":
            lst = draw(st.lists(st.integers(-max(size, 1), max(size - 1, 0)), min_size=1, max_size=3)) if size \
                else []
            n_index.append(np.array(lst, dtype=np.int64) if not lst else lst)
            e_index.append(lst if lst else cp.asarray(np.array([], np.int64)))
            axis += 1
        elif kind == "int" and size:
            i = draw(st.integers(-size, size - 1))
            n_index.append(i)
            e_index.append(i)
            axis += 1
        elif kind == "slice":
            sl = slice(draw(st.one_of(st.none(), st.integers(-5, 5))), draw(st.one_of(st.none(), st.integers(-5, 5))),
                       draw(st.sampled_from([None, 1, 2, -1, -2, 3])))
            n_index.append(sl)
            e_index.append(sl)
            axis += 1
        elif kind == "none":
            n_index.append(None)
            e_index.append(None)
        elif kind == "ellipsis" and not used_ellipsis:
            used_ellipsis = True
            n_index.append(Ellipsis)
            e_index.append(Ellipsis)
            axis = ndim - (draw(st.integers(0, ndim - axis)))
    if not any(isinstance(i, (np.ndarray, list)) for i in n_index):  # at least one advanced index
        arr = np.array(draw(st.lists(st.integers(-shape[0], shape[0] - 1), max_size=3)) if ndim and shape[0]
                       else [], dtype=np.int64)
        n_index.insert(0, arr)
        e_index.insert(0, cp.asarray(arr))
    index = tuple(n_index)
    # A known ember bug has a test of its own: an Ellipsis of no axes between advanced indices
    # (test_an_empty_ellipsis_separates_advanced_indices_like_numpy).
    kinds = ["adv" if isinstance(i, (np.ndarray, list)) else "ell" if i is Ellipsis else "x" for i in index]
    if "ell" in kinds and sum(1 for i in index if i is not None and i is not Ellipsis) >= ndim:
        k = kinds.index("ell")
        assume(not ("adv" in kinds[:k] and "adv" in kinds[k + 1:]))
    return index, tuple(e_index)


def np_view(x: np.ndarray, index):
    """``x[index]``, a 0-d array where NumPy gives a scalar (ember gives 0-d arrays, as CuPy)."""
    out = x[index]
    return np.asarray(out) if isinstance(out, np.generic) else out


ADVANCED_INDEX_BUGS: dict = {}


@pytest.mark.parametrize("dtype", cases_with_bugs([(d,) for d in DTYPE_NAMES],
                                                  {(d,): r for d, r in ADVANCED_INDEX_BUGS.items()}))
def test_advanced_getitem_matches_numpy_on_views_of_every_dtype(dtype):
    def body(data, tally):
        shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=4), label="shape")
        n, e = data.draw(operands(dtype, shape), label="x")
        n_index, e_index = data.draw(advanced_indices(shape), label="index")
        parity(lambda xp, x, *_: np_view(x, n_index) if xp is np else x[e_index], [n], [e], tally, rtol=0)

    run_sweep(body, f"advanced-get-{dtype}", examples=5)


@pytest.mark.parametrize("dtype", cases_with_bugs([(d,) for d in DTYPE_NAMES],
                                                  {(d,): r for d, r in ADVANCED_INDEX_BUGS.items()}))
def test_advanced_setitem_matches_numpy_on_views_of_every_dtype(dtype):
    """``x[index] = value`` with integer arrays and masks (scalars, arrays that broadcast, the
    ``m[m < 0] = 0`` form), into a view of a larger array: the whole base compared."""
    def body(data, tally):
        shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=4), label="shape")
        base_shape, index, axes = data.draw(placements(shape), label="layout")
        base = data.draw(values(dtype, base_shape), label="base")
        form = data.draw(st.sampled_from(["index", "mask-of-itself"]), label="form")
        if form == "index":
            n_index, e_index = data.draw(advanced_indices(shape), label="index")
            target_shape = np_view(base[index].transpose(axes), n_index).shape \
                if numpy_result(lambda xp, b: np_view(b[index].transpose(axes), n_index), base)[1] is None else ()
            # An element targeted twice gets one of its values, unspecified on a GPU (as in CuPy):
            # only indices that reach each element once are compared.
            ids = np.arange(base.size).reshape(base.shape)
            picked = numpy_result(lambda xp, b: np_view(b[index].transpose(axes), n_index), ids)
            assume(picked[1] is not None or np.unique(picked[0]).size == np.size(picked[0]))
        value_kind = data.draw(st.sampled_from(["scalar", "array", "other-dtype"]), label="value")
        if value_kind == "scalar":
            v = data.draw(st.sampled_from(special_grid(dtype).tolist()), label="scalar")
            vn = ve = v
        else:
            # (a 0-d array of another dtype into a mask: test_mask_assignment_of_another_dtype_casts_like_numpy)
            vshape = target_shape[data.draw(st.integers(0, len(target_shape))):] if form == "index" else (
                () if value_kind == "array" else (1,))
            vdtype = dtype if value_kind == "array" else data.draw(
                st.sampled_from([d for d in DTYPE_NAMES if np.can_cast(d, dtype, "same_kind")]))
            vn, ve = data.draw(operands(vdtype, vshape), label="value array")

        def fn(xp, b, v):
            b = b.copy()
            view = b[index].transpose(axes)
            if form == "index":
                view[n_index if xp is np else e_index] = v
            else:
                view[view != view.ravel()[0]] = v if view.size else v
            return b

        parity(fn, [base, vn], [cp.asarray(base), ve], tally, rtol=0)

    run_sweep(body, f"advanced-set-{dtype}", examples=4)


@pytest.mark.parametrize("index", [lambda xp: ([0, 1], [0, 1, 2]),
                                   lambda xp: (xp.asarray(np.array([], np.int64)), [0, 1])],
                         ids=["lists", "empty-array"])
def test_index_arrays_that_do_not_broadcast_raise_index_error_like_numpy(index):
    x = np.arange(24.0).reshape(2, 3, 4)
    parity(lambda xp, a: a[index(xp)], [x], [cp.asarray(x)], {"compared": 0, "raised": 0})


@pytest.mark.parametrize("dtype", ["float32"])
def test_an_empty_ellipsis_separates_advanced_indices_like_numpy(dtype):
    x = np.arange(60, dtype=dtype).reshape(5, 3, 4)
    parity(lambda xp, a: a[:, [0], ..., [1, 2, 3]], [x], [cp.asarray(x)], {"compared": 0, "raised": 0}, rtol=0)


@pytest.mark.parametrize("value", ["ember-int16-0d", "ember-float64-0d", "ember-int16-1d", "numpy-int64-1d",
                                   "numpy-int64-0d"])
def test_mask_assignment_of_another_dtype_casts_like_numpy(value):
    x = np.arange(6.0, dtype=np.float32)
    kind, dtype, nd = value.split("-")
    v = np.array([10, 20, 30] if nd == "1d" else 10, dtype=dtype)

    def fn(xp, a):
        a = a.copy()
        a[a > 2] = v if kind == "numpy" or xp is np else cp.asarray(v)
        return a

    parity(fn, [x], [cp.asarray(x)], {"compared": 0, "raised": 0}, rtol=0)


BASIC_DTYPES = ["float32", "int64", "bool", "complex128", "uint16", "float16", "int8"]


@pytest.mark.parametrize("dtype", BASIC_DTYPES)
def test_basic_getitem_and_setitem_match_numpy_on_views(dtype):
    """Ints, slices with steps, ``...`` and ``None`` on both sides of ``=`` (test_views has
    the views' strides; here the values of every dtype)."""
    def body(data, tally):
        shape = data.draw(SHAPES, label="shape")
        n, e = data.draw(operands(dtype, shape), label="x")
        index = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True), label="index")
        parity(lambda xp, x: np_view(x, index) if xp is np else x[index], [n], [e], tally, rtol=0)
        target = np_view(n, index).shape
        vshape = target[data.draw(st.integers(0, len(target))):]
        vn, ve = data.draw(operands(dtype, vshape), label="value")

        def fn(xp, x, v):
            x = x.copy()
            x[index] = v
            return x

        parity(fn, [n, vn], [e, ve], tally, rtol=0)

    run_sweep(body, f"basic-index-{dtype}", examples=12)


def test_take_of_float16_matches_numpy():
    x = special_grid("float16")
    assert_same(cp.take(cp.asarray(x), cp.asarray(np.array([3, 0, -1]))), np.take(x, [3, 0, -1]))


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


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_filled_creation_functions_match_numpy(dtype):
    """zeros, ones, empty, full and the *_like functions: shape (int, tuple, empty, 0-d), dtype
    (given, or inferred by full from its value) and values."""
    def body(data, tally):
        shape = data.draw(SHAPES, label="shape")
        arg = data.draw(st.sampled_from([shape, list(shape)] + ([shape[0]] if len(shape) == 1 else [])), label="arg")
        fn_name = data.draw(st.sampled_from(["zeros", "ones", "empty", "full", "full-inferred"]), label="function")
        v = data.draw(st.sampled_from(fill_values(dtype)), label="value")
        like_dtype = data.draw(st.sampled_from(DTYPE_NAMES), label="like dtype")
        like_n, like_e = data.draw(operands(like_dtype, shape), label="like")
        if fn_name == "empty":
            for got, want in ((cp.empty(arg, dtype), np.empty(arg, dtype)),
                              (cp.empty_like(like_e, dtype=dtype), np.empty_like(like_n, dtype=dtype)),
                              (cp.empty_like(like_e), np.empty_like(like_n))):
                assert isinstance(got, cp.ndarray) and (got.shape, got.dtype) == (want.shape, want.dtype)
                assert got.get().shape == want.shape
            tally["compared"] += 1
            return
        if fn_name == "full-inferred":
            parity(lambda xp: xp.full(arg, v), [], [], tally)
            parity(lambda xp, a: xp.full_like(a, v), [like_n], [like_e], tally)
            return
        if fn_name == "full":
            parity(lambda xp: xp.full(arg, v, dtype), [], [], tally)
            parity(lambda xp, a: xp.full_like(a, v, dtype=dtype), [like_n], [like_e], tally)
            return
        parity(lambda xp: getattr(xp, fn_name)(arg, dtype), [], [], tally)
        parity(lambda xp, a: getattr(xp, fn_name + "_like")(a, dtype=dtype), [like_n], [like_e], tally)
        parity(lambda xp, a: getattr(xp, fn_name + "_like")(a), [like_n], [like_e], tally)

    run_sweep(body, f"filled-{dtype}", examples=12)


@pytest.mark.parametrize("dtype,value", [("int8", 300), ("uint8", -1), ("uint16", -300), ("int64", 2**64 - 1),
                                         ("bool", 2**64 - 1)])
def test_full_with_an_out_of_range_python_int_raises_like_numpy(dtype, value):
    parity(lambda xp: xp.full(3, value, dtype), [], [], {"compared": 0, "raised": 0})


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_array_and_asarray_of_numpy_arrays_lists_and_scalars_match_numpy(dtype):
    """array/asarray of NumPy arrays (views, 0-d, empty), nested lists and scalars, with and
    without dtype= (casts NumPy defines) and ndmin=; asnumpy and from_dlpack back."""
    def body(data, tally):
        shape = data.draw(SHAPES, label="shape")
        base_shape, index, axes = data.draw(placements(shape), label="layout")
        base = data.draw(values(dtype, base_shape, "small" if dt(dtype).kind != "c" else "moderate"), label="base")
        n = base[index].transpose(axes)
        target = data.draw(st.sampled_from([None] + DTYPE_NAMES), label="dtype=")
        if target is not None and dt(target).kind in "iub" and dt(dtype).kind in "fc":
            n = (np.abs(np.nan_to_num(np.real(n))) % 100).astype(dtype)  # casts NumPy defines
        source = data.draw(st.sampled_from(["numpy", "list", "scalar"]), label="source")
        obj = n if source == "numpy" else (n.tolist() if source == "list" else (n.ravel()[0].item() if n.size else 0))
        ndmin = data.draw(st.integers(0, 3), label="ndmin")
        for fn in (lambda xp: xp.array(obj, dtype=target, ndmin=ndmin), lambda xp: xp.asarray(obj, dtype=target)):
            if source != "numpy" and numpy_result(fn)[1] is not None:
                continue  # test_array_of_python_values_that_do_not_fit_the_dtype_raises_like_numpy
            want = parity(fn, [], [], tally, rtol=0)
            if want is not None and source == "numpy":
                e = quiet(fn, cp)
                assert_values(cp.asnumpy(e), np.asarray(want), 0)
                assert_values(np.asarray(cp.from_dlpack(e).get()), np.asarray(want), 0)

    run_sweep(body, f"array-{dtype}", examples=10)


@pytest.mark.parametrize("obj,dtype", [([-6, 2], "uint8"), ([300], "int8"), (2**64 - 2, "int8"), ([1 + 1j], "float32"),
                                       (1 + 1j, "int16")], ids=str)
def test_array_of_python_values_that_do_not_fit_the_dtype_raises_like_numpy(obj, dtype):
    parity(lambda xp: xp.array(obj, dtype=dtype), [], [], {"compared": 0, "raised": 0})


ARANGE_KINDS = {
    "ints": (st.integers(-50, 50), st.integers(-50, 50), st.sampled_from([1, 2, 3, -1, -2, 7])),
    "floats": (st.floats(-50, 50), st.floats(-50, 50), st.sampled_from([0.5, 0.1, -0.25, 1.5, -3.0, 0.3])),
    "mixed": (st.integers(-20, 20), st.floats(-20, 20), st.sampled_from([1, 0.5, -1, 2])),
}


# (float bounds with an integer dtype: test_arange_with_float_step_and_integer_dtype_like_numpy)
@pytest.mark.parametrize("kind,dtype", [(k, d) for k in ARANGE_KINDS for d in [
    None, "int8", "uint16", "int64", "float16", "float32", "float64", "complex64"] if k == "ints" or d is None
    or dt(d).kind not in "iu"])
def test_arange_matches_numpy(kind, dtype):
    """arange(start, stop, step, dtype): length and dtype exact; values within the rounding of
    ``start + i * step`` (NumPy computes them from the first two values)."""
    starts, stops, steps = ARANGE_KINDS[kind]

    def body(data, tally):
        start, stop, step = data.draw(starts), data.draw(stops), data.draw(steps)
        if dtype is not None and dt(dtype).kind == "u":
            start, stop = abs(start), abs(stop)  # negative values in an unsigned arange wrap (undefined)
        form = data.draw(st.sampled_from(["start-stop-step", "stop", "start-stop"]), label="form")
        args = {"start-stop-step": (start, stop, step), "stop": (stop,), "start-stop": (start, stop)}[form]

        def compare(got, want):
            assert isinstance(got, cp.ndarray)
            assert (got.shape, got.dtype) == (want.shape, want.dtype)
            if want.dtype.kind in "iu":
                np.testing.assert_array_equal(got.get(), want)
            else:
                # NumPy fills start + i * delta, delta = (start + step) - start rounded: its values
                # are off the exact ones by up to i ulps of start (and of step)
                n = len(want)
                scale = n * (abs(args[0]) + abs(args[-1] if len(args) == 3 else 1)) * np.finfo(want.dtype).eps
                np.testing.assert_allclose(got.get(), want, rtol=0, atol=2 * scale)

        parity(lambda xp: xp.arange(*args, dtype=dtype), [], [], tally, compare=compare)

    run_sweep(body, f"arange-{kind}-{dtype}", examples=15)


@pytest.mark.parametrize("args", [(-42.12, 0, 0.3), (1e6, 1e6 + 1, 0.1)], ids=str)
def test_arange_fills_with_numpys_rounded_step_bit_for_bit(args):
    parity(lambda xp: xp.arange(*args), [], [], {"compared": 0, "raised": 0}, rtol=0)


def test_arange_with_float_step_and_integer_dtype_like_numpy():
    parity(lambda xp: xp.arange(0.5, 5, 0.75, dtype=np.int8), [], [], {"compared": 0, "raised": 0})


def test_arange_of_bools_longer_than_two_raises_like_numpy():
    parity(lambda xp: xp.arange(3, dtype=bool), [], [], {"compared": 0, "raised": 0})


@pytest.mark.parametrize("dtype", [None, "float32", "float16", "complex64", "int16", "uint8", "int64"])
def test_linspace_matches_numpy(dtype):
    """linspace: dtype, length and endpoint exact; values within the rounding of ``start +
    i * step``. Integer dtypes get bounds whose steps are integers (else NumPy's floor of a
    rounded value is implementation-defined)."""
    def body(data, tally):
        num = data.draw(st.integers(0, 30), label="num")
        endpoint = data.draw(st.booleans(), label="endpoint")
        if dtype is not None and dt(dtype).kind in "iu":
            start = data.draw(st.integers(0 if dt(dtype).kind == "u" else -40, 40))
            step = data.draw(st.integers(0, 3))
            stop = start + step * ((num - 1) if endpoint else num)
        elif dtype is not None and dt(dtype).kind == "c" and data.draw(st.booleans()):
            start, stop = complex(data.draw(st.floats(-9, 9)), 1.5), complex(-2.0, data.draw(st.floats(-9, 9)))
        else:
            start, stop = data.draw(st.floats(-1e3, 1e3)), data.draw(st.floats(-1e3, 1e3))
        retstep = data.draw(st.booleans(), label="retstep")

        def compare(got, want):
            if retstep:
                (got, got_step), (want, want_step) = got, want
                np.testing.assert_allclose(got_step, want_step, rtol=1e-12, equal_nan=True)
            assert isinstance(got, cp.ndarray) and (got.shape, got.dtype) == (want.shape, want.dtype)
            if want.dtype.kind in "iu":
                np.testing.assert_array_equal(got.get(), want)
                return
            eps = np.finfo(want.dtype).eps
            np.testing.assert_allclose(got.get(), want, rtol=0, atol=4 * eps * (abs(start) + abs(stop)) + 0)
            if endpoint and num > 1 and want.dtype.kind == "f":
                assert got.get()[-1] == want[-1], "the endpoint is exact"

        parity(lambda xp: xp.linspace(start, stop, num, endpoint=endpoint, retstep=retstep, dtype=dtype), [], [],
               tally, compare=compare)

    run_sweep(body, f"linspace-{dtype}", examples=15)


@pytest.mark.parametrize("name,dtype", [(["eye", "identity", "tri"][i % 3], d) for i, d in enumerate(DTYPE_NAMES)])
def test_eye_identity_and_tri_match_numpy(name, dtype):
    def body(data, tally):
        n, m = data.draw(st.integers(0, 6), label="N"), data.draw(st.one_of(st.none(), st.integers(0, 6)), label="M")
        k = data.draw(st.integers(-7, 7), label="k")
        args = (n,) if name == "identity" else (n, m, k)
        parity(lambda xp: getattr(xp, name)(*args, dtype=dtype), [], [], tally)

    run_sweep(body, f"{name}-{dtype}", examples=5)


@pytest.mark.parametrize("name,dtype", [(["triu", "tril"][i % 2], d) for i, d in enumerate(DTYPE_NAMES)])
def test_triu_and_tril_of_views_and_stacks_match_numpy(name, dtype):
    def body(data, tally):
        # (1-d: test_triu_and_tril_of_a_1d_array_like_numpy)
        shape = data.draw(hnp.array_shapes(min_dims=2, max_dims=4, min_side=0, max_side=5), label="shape")
        n, e = data.draw(operands(dtype, shape), label="x")
        k = data.draw(st.integers(-6, 6), label="k")
        parity(lambda xp, x: getattr(xp, name)(x, k), [n], [e], tally, rtol=0)

    run_sweep(body, f"{name}-{dtype}", examples=4)


@pytest.mark.parametrize("fn", ["triu", "tril"])
def test_triu_and_tril_of_a_1d_array_like_numpy(fn):
    x = np.arange(1.0, 5.0)
    parity(lambda xp, a: getattr(xp, fn)(a, 1), [x], [cp.asarray(x)], {"compared": 0, "raised": 0})


# =================================================================================================
# ndarray attributes and methods
# =================================================================================================
ASTYPE_TARGETS = {d: [DTYPE_NAMES[(i + j) % len(DTYPE_NAMES)] for j in (1, 5, 9)] for i, d in enumerate(DTYPE_NAMES)}


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_ndarray_attributes_and_methods_match_numpy_on_views(dtype):
    """shape dtype ndim size nbytes strides itemsize flags T, and astype (to rotating targets,
    with values whose cast NumPy defines) copy ravel flatten reshape transpose swapaxes squeeze
    fill view get set."""
    def body(data, tally):
        shape = data.draw(SHAPES, label="shape")
        n, e = data.draw(operands(dtype, shape), label="x")
        for attr in ("shape", "dtype", "ndim", "size", "nbytes", "itemsize"):
            assert getattr(e, attr) == getattr(n, attr), attr
        if n.size:  # the strides of empty arrays and of length-1 axes are arbitrary (NumPy's vary too)
            assert [s for s, d in zip(e.strides, shape, strict=True) if d > 1] == [
                s for s, d in zip(n.strides, shape, strict=True) if d > 1]
        assert (e.flags.c_contiguous, e.flags.f_contiguous) == (n.flags.c_contiguous, n.flags.f_contiguous)
        parity(lambda xp, x: x.T, [n], [e], tally, rtol=0)
        target = data.draw(st.sampled_from(ASTYPE_TARGETS[dtype]), label="astype")
        src = n
        if dt(target).kind in "iub" and dt(dtype).kind in "fc":  # float -> int of NaN/inf/out of range: undefined
            src = np.abs(np.nan_to_num(np.real(n), posinf=0, neginf=0) % 100).astype(dtype)
        if dt(target).kind == "u" and dt(dtype).kind == "f":
            src = np.abs(src)
        ed = cp.asarray(src) if src is not n else e
        parity(lambda xp, x: x.astype(target), [src], [ed], tally, rtol=0)
        method = data.draw(st.sampled_from(["copy", "ravel", "flatten", "transpose", "swapaxes", "squeeze", "fill",
                                            "view", "set", "reshape"]), label="method")
        if method in ("copy", "ravel", "flatten"):
            order = data.draw(st.sampled_from("CFAK" if method != "copy" else "CFA"), label="order")
            parity(lambda xp, x: getattr(x, method)(order), [n], [e], tally, rtol=0)
        elif method == "transpose":
            parity(lambda xp, x: x.transpose(), [n], [e], tally, rtol=0)
        elif method == "swapaxes" and n.ndim:
            a1, a2 = data.draw(st.integers(0, n.ndim - 1)), data.draw(st.integers(0, n.ndim - 1))
            parity(lambda xp, x: x.swapaxes(a1, a2), [n], [e], tally, rtol=0)
        elif method == "squeeze":
            parity(lambda xp, x: x.squeeze(), [n], [e], tally, rtol=0)
        elif method == "reshape":
            new = data.draw(new_shapes(n.size), label="new shape")
            parity(lambda xp, x: x.reshape(new), [n], [e], tally, rtol=0)
        elif method == "fill":
            v = data.draw(st.sampled_from(fill_values(dtype)), label="value")

            def fill(xp, x):
                x = x.copy()
                x.fill(v)
                return x

            parity(fill, [n], [e], tally, rtol=0)
        elif method == "view":
            same_size = [d for d in DTYPE_NAMES if dt(d).itemsize == dt(dtype).itemsize]
            to = data.draw(st.sampled_from(same_size), label="view dtype")
            if dt(to).kind in "fc" or dt(dtype).kind in "fc":
                # reinterpreted bits: compare the bytes (NaN payloads would not compare equal)
                parity(lambda xp, x: x.view(to).view(f"u{dt(dtype).itemsize}") if dt(dtype).kind != "c"
                       else x.view(to), [n], [e], tally, rtol=0)
            else:
                parity(lambda xp, x: x.view(to), [n], [e], tally, rtol=0)
        elif method == "set":
            new_values = data.draw(values(dtype, shape), label="new values")
            e2 = cp.asarray(n.copy())
            e2.set(new_values)
            assert_same(e2, new_values, rtol=0)
            tally["compared"] += 1
        assert_same(e, n, rtol=0)  # nothing above changed the operand

    run_sweep(body, f"ndarray-{dtype}", examples=5)


# =================================================================================================
# Linear algebra
# =================================================================================================
LINALG_FAMILIES = {"products": {"matmul": "float32", "dot": "float64", "inner": "int32", "outer": "complex64",
                                "vdot": "complex128", "@": "int64"}}
LINALG_CASES = [c for fam in LINALG_FAMILIES.values() for c in rotation(fam, lambda name, d: True)]
# norm takes integers and bools as float64: the float and complex dtypes, and a few others
NORM_DTYPES = ["float32", "float64", "float16", "complex64", "complex128", "int16", "uint64", "bool"]
LINALG_BUGS: dict = {}


@st.composite
def product_shapes(draw, name):
    """Operand shapes for ``name``: mostly compatible (batch broadcasting, 1-d promotion, empty
    axes), now and then not, for NumPy's errors."""
    if name in ("matmul", "@"):
        shapes = draw(hnp.mutually_broadcastable_shapes(signature=np.matmul.signature, max_dims=4, max_side=4))
        s1, s2 = shapes.input_shapes
    else:
        k = draw(st.integers(0, 5))
        lead1 = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
        lead2 = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
        if name == "dot":
            s1 = lead1 + (k,)
            s2 = (k,) if draw(st.booleans()) else lead2 + (k, draw(st.integers(0, 4)))
        elif name == "inner":
            s1, s2 = lead1 + (k,), lead2 + (k,)
        elif name == "outer":
            s1, s2 = lead1 + (k,), lead2
        else:  # vdot: the same number of elements
            s1 = lead1 + (k,)
            s2 = (math.prod(s1),) if draw(st.booleans()) else s1[::-1]
        if draw(st.integers(0, 9)) == 0 and s2:
            s2 = s2[:-1] + (s2[-1] + 1,)  # mismatched
        if name in ("dot", "inner") and draw(st.integers(0, 9)) == 0:
            s1 = ()  # a 0-d operand: a product
    return s1, s2


def product_compare(a: np.ndarray, b: np.ndarray, name):
    """Integer and bool products exactly (wrapping sums are exact modulo 2**n, whatever the
    order); floating ones within k ulps of the sum of |terms| (the error bound of any order of
    summation, k the length of the sums)."""
    def compare(got, want):
        want = np.asarray(want)
        assert isinstance(got, cp.ndarray)
        assert (got.shape, got.dtype) == (want.shape, want.dtype), (got.shape, got.dtype, want.shape, want.dtype)
        host = got.get()
        if want.dtype.kind in "biu":
            np.testing.assert_array_equal(host, want, strict=True)
            return
        mag = {"@": np.matmul}.get(name) or (np.vdot if name == "vdot" else getattr(np, name))
        wide = complex if want.dtype.kind == "c" else float
        scale = np.abs(mag(np.abs(a.astype(np.complex128 if wide is complex else np.float64)),
                           np.abs(b.astype(np.complex128 if wide is complex else np.float64))))
        k = max(a.shape[-1] if a.ndim else 1, 1)
        tol = (k + 2) * np.finfo(want.dtype).eps * scale + np.finfo(want.dtype).smallest_subnormal
        err = quiet(np.abs, host.astype(np.complex128) - want)
        finite = np.isfinite(want)
        np.testing.assert_array_equal(host[~finite], want[~finite])
        assert np.all(err[finite] <= np.broadcast_to(tol, want.shape)[finite]), (err.max(), tol.max())
    return compare


@pytest.mark.parametrize("name,dtype", cases_with_bugs(LINALG_CASES, LINALG_BUGS))
def test_matrix_products_match_numpy_on_views_and_dtypes(name, dtype):
    """dot matmul @ inner outer vdot. Float inputs are finite: BLAS may skip zero terms, so 0*inf
    is implementation-defined in NumPy itself."""
    fn = (lambda xp, x, y: x @ y) if name == "@" else (lambda xp, x, y: getattr(xp, name)(x, y))

    def body(data, tally):
        s1, s2 = data.draw(product_shapes(name), label="shapes")
        other = data.draw(st.sampled_from([dtype] * 4 + ["float32", "int8", "complex128", "bool"]), label="dtype2")
        n1, e1 = data.draw(operands(dtype, s1, "small", specials=False), label="x")
        n2, e2 = data.draw(operands(other, s2, "small", specials=False), label="y")
        if s1 and s2 and s1[-1] == 0 and ((name == "inner" and len(s2) >= 2) or (
                name == "dot" and len(s1) >= 2 and len(s2) > 2)):
            return  # test_dot_and_inner_with_an_empty_sum_axis_give_zeros_like_numpy
        if dt(dtype).kind in "iu":  # integer extremes: the products wrap, exactly as NumPy's
            n1 = n1.copy()
            if n1.size:
                n1.flat[0] = np.iinfo(dtype).max
            e1 = cp.asarray(n1)
        parity(fn, [n1, n2], [e1, e2], tally, compare=product_compare(n1, n2, name))

    run_sweep(body, f"linalg-{name}-{dtype}", examples=EXAMPLES)


@pytest.mark.parametrize("name,s1,s2", [("inner", (2, 0), (3, 0)), ("inner", (1, 0), (0, 3, 0)),
                                        ("dot", (2, 0), (3, 0, 4))], ids=str)
def test_dot_and_inner_with_an_empty_sum_axis_give_zeros_like_numpy(name, s1, s2):
    a, b = np.ones(s1, np.float32), np.ones(s2, np.float32)
    parity(lambda xp, x, y: getattr(xp, name)(x, y), [a, b], [cp.asarray(a), cp.asarray(b)],
           {"compared": 0, "raised": 0})


@pytest.mark.parametrize("dtype", NORM_DTYPES)
def test_linalg_norm_matches_numpy(dtype):
    def body(data, tally):
        shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5), label="shape")
        n, e = data.draw(operands(dtype, shape, "small"), label="x")
        ndim = len(shape)
        axis = data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1),
                                   st.permutations(range(ndim)).map(lambda p: tuple(p[:2]))), label="axis")
        vector = isinstance(axis, int) or (axis is None and ndim == 1)
        matrix = (isinstance(axis, tuple) and len(axis) == 2) or (axis is None and ndim == 2)
        orders = [None] + ([2, 1, np.inf, -np.inf, 0, 3, 0.5, -1] if vector else []) + (
            ["fro", 1, -1, np.inf, -np.inf, 2, -2, "nuc"] if matrix else [])
        ord_ = data.draw(st.sampled_from(orders), label="ord")
        if n.size == 0 and (ord_ == np.inf or (ord_ == 1 and matrix)):
            return  # test_linalg_norm_of_an_empty_array_is_zero_like_numpy
        keepdims = data.draw(st.booleans(), label="keepdims")
        parity(lambda xp, x: xp.linalg.norm(x, ord=ord_, axis=axis, keepdims=keepdims), [n], [e], tally,
               rtol=LOOSE if dt(dtype).kind != "e" else 1e-2)

    run_sweep(body, f"norm-{dtype}", examples=EXAMPLES)


@pytest.mark.parametrize("shape,ord_", [((0,), np.inf), ((3, 0), 1), ((0, 3), np.inf)], ids=str)
def test_linalg_norm_of_an_empty_array_is_zero_like_numpy(shape, ord_):
    x = np.zeros(shape, np.float32)
    parity(lambda xp, a: xp.linalg.norm(a, ord=ord_), [x], [cp.asarray(x)], {"compared": 0, "raised": 0})


# =================================================================================================
# Random (CuPy's cupy.random: numbers differ from NumPy's; shapes, dtypes, ranges and errors do not)
# =================================================================================================
RANDOM_FUNCTIONS = ["rand", "randn", "random", "uniform", "normal", "randint"]


@pytest.mark.parametrize("name", RANDOM_FUNCTIONS)
def test_random_functions_give_numpys_shapes_dtypes_and_ranges(name):
    def body(data, tally):
        shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5), label="shape")
        if name in ("rand", "randn"):
            args, kwargs = shape, {}
        elif name == "random":
            args, kwargs = (shape if data.draw(st.booleans()) else None,), {}
        elif name == "uniform":
            lo, hi = data.draw(st.floats(-1e3, 1e3)), data.draw(st.floats(-1e3, 1e3))
            args, kwargs = (lo, hi, shape), {}
        elif name == "normal":
            args, kwargs = (data.draw(st.floats(-1e3, 1e3)), data.draw(st.floats(-2, 10)), shape), {}
        else:
            dtype = data.draw(st.sampled_from(INTS + ["bool", None]), label="dtype")
            info = np.iinfo(dtype) if dtype not in (None, "bool") else np.iinfo(np.int64)
            lo = data.draw(st.integers(max(info.min, -(2**62)) - 2, 100), label="low")
            hi = data.draw(st.one_of(st.none(), st.integers(lo - 1, lo + 1000)), label="high")
            args = (lo, hi, shape)
            kwargs = {"dtype": dtype} if dtype is not None else {}
            if not math.prod(shape) and numpy_result(lambda xp: xp.random.randint(lo, hi, 1, **kwargs))[1]:
                return  # test_randint_of_an_empty_size_and_an_empty_range_like_numpy
        want, err = numpy_result(lambda xp: getattr(xp.random, name)(*args, **kwargs))
        if err is not None:
            with pytest.raises(public_class(err)):
                getattr(cp.random, name)(*args, **kwargs)
            tally["raised"] += 1
            return
        want = np.asarray(want)
        got = getattr(cp.random, name)(*args, **kwargs)
        assert isinstance(got, cp.ndarray)  # 0-d where NumPy gives a scalar, as CuPy
        assert (got.shape, got.dtype) == (want.shape, want.dtype), (got.shape, got.dtype, want.shape, want.dtype)
        host = got.get()
        if name in ("rand", "random"):
            assert np.all((host >= 0) & (host < 1))
        elif name == "uniform":
            lo, hi = sorted(args[:2])
            assert np.all((host >= lo) & (host <= hi))
        elif name == "randint":
            lo, hi = (0, args[0]) if args[1] is None else args[:2]
            assert np.all((host >= lo) & (host < hi))
        else:
            assert np.all(np.isfinite(host))
        tally["compared"] += 1

    run_sweep(body, f"random-{name}", examples=15)


def test_randint_of_an_empty_size_and_an_empty_range_like_numpy():
    assert np.random.randint(5, 5, size=0).shape == (0,)
    assert cp.random.randint(5, 5, size=0).shape == (0,)


def test_random_seed_reproduces_every_function():
    draws = []
    for _ in range(2):
        cp.random.seed(1234)
        draws.append([f().get() for f in (lambda: cp.random.rand(3, 2), lambda: cp.random.randn(4),
                                          lambda: cp.random.random((2, 2)), lambda: cp.random.uniform(-1, 1, 5),
                                          lambda: cp.random.normal(3, 2, (2,)), lambda: cp.random.randint(0, 9, 6))])
    for a, b in zip(*draws, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(draws[0][0].ravel()[:2], draws[0][2].ravel()[:2])


# =================================================================================================
# The sweep itself
# =================================================================================================
def test_the_sweep_covers_every_dtype_of_every_family():
    """Every dtype NumPy supports for some member of a family runs in that family somewhere."""
    def covered(families, cases, nin):
        for family, members in families.items():
            wanted = {d for name in members for d in DTYPE_NAMES
                      if numpy_supports(lambda x, name=name: getattr(np, name)(*[x] * nin), d)}
            have = {d for name, d in cases if name in members}
            assert wanted <= have, f"{family}: no case for {sorted(wanted - have)}"

    covered(UNARY_FAMILIES, UNARY_CASES, 1)
    covered(BINARY_FAMILIES, BINARY_CASES, 2)
    # Every ufunc of the registry is swept (a new row comes with its family entry).
    swept = {n for fam in (*UNARY_FAMILIES.values(), *BINARY_FAMILIES.values()) for n in fam}
    swept |= {n for n, _ in UNARY_CASES + BINARY_CASES} | set(COMPLEX_UNARY) | set(COMPLEX_BINARY)
    registry = {u.__name__ for u in cp._ufuncs.UFUNCS.values()}
    assert registry - swept == set(), "ufuncs no sweep covers"
    for family, members in REDUCTION_FAMILIES.items():
        assert {d for n, d in REDUCTION_CASES if n in members} == set(DTYPE_NAMES), family
    assert {d for _, d in LINALG_CASES} == set(DTYPE_NAMES)
    assert {d for _, d in SHAPE_CASES} == set(DTYPE_NAMES)
    assert {d for _, d in OPERATOR_CASES} | {d for _, d, _ in INPLACE_CASES} >= {"float32", "int32", "uint8"}
