"""NumPy parity of ember's linear algebra (matrix products, linalg.norm) and of its random
functions (shapes, dtypes, ranges and errors: the numbers differ from NumPy's, as CuPy's).
(How the sweep works, and the case tables several files share: ``parity_cases``.)"""

from __future__ import annotations

import math

import ember as cp
import numpy as np
import pytest
from ember.testing import LOOSE, cases_with_bugs, numpy_result, parity, public_class, quiet
from ember.testing.strategies import operands, run_sweep
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from parity_cases import EXAMPLES, INTS, LINALG_CASES, dt

# =================================================================================================
# Linear algebra
# =================================================================================================
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
