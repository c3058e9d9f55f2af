"""NumPy parity of ember's elementwise functions: unary and binary ufuncs on any shape, view
and special value, mixed dtypes, complex and IEEE special values, Python scalar operands
(NEP 50), clip and where.
(How the sweep works, and the case tables several files share: ``parity_cases``.)"""

from __future__ import annotations

import math

import ember as cp
import numpy as np
import pytest
from ember.testing import LOOSE, assert_same, cases_with_bugs, grid_pairs, numpy_result, parity, special_grid
from ember.testing.strategies import SHAPES, SMALL_SHAPES, operands, run_sweep
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from parity_cases import (
    BINARY_CASES,
    BINARY_FAMILIES,
    COMPLEX_BINARY,
    COMPLEX_UNARY,
    EXAMPLES,
    EXTRA_EXAMPLES,
    MIXED_CASES,
    TRANSCENDENTAL,
    UNARY_CASES,
    UNARY_FAMILIES,
    binary_domains,
    dt,
)

# =================================================================================================
# Elementwise: unary ufuncs
# =================================================================================================
UNARY_DOMAIN = {"arcsin": "unit", "arccos": "unit", "log": "positive", "log2": "positive", "log10": "positive",
                "sqrt": "positive", "log1p": "positive", "floor": "ties", "ceil": "ties", "trunc": "ties",
                "rint": "ties"}
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
BINARY_BUGS: dict = {}


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


# Mixed dtypes (MIXED_CASES): NumPy 2's promotion (and its exact int64/uint64 comparisons).
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
