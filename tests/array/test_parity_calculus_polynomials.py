"""NumPy parity of the calculus functions (``gradient``, ``trapezoid``, ``cross``) and of the
power-series polynomials (``polyval polyfit polyadd polysub polymul polydiv polyder polyint poly
roots`` and ``poly1d``): results with NumPy's shape, dtype and values, or NumPy's exception
class (and message), on views (negative strides, offsets, transposes, 0-size) of several dtypes.

The functions are taken from ``ember._calculus`` and ``ember._polynomials``; ``NS[xp]`` gives
the same names for NumPy and for ember, so one body runs on both."""

from __future__ import annotations

import types
import warnings

import ember as cp
import numpy as np
import pytest
from ember import _calculus, _polynomials
from ember.testing import assert_same, parity
from ember.testing.strategies import SMALL_SHAPES, operands, run_sweep
from hypothesis import strategies as st

_NAMES = ["cross", "gradient", "trapezoid", "poly", "poly1d", "polyadd", "polyder", "polydiv", "polyfit", "polyint",
          "polymul", "polysub", "polyval", "roots"]
NS = {
    np: types.SimpleNamespace(asarray=np.asarray, **{n: getattr(np, n) for n in _NAMES}),
    cp: types.SimpleNamespace(asarray=cp.asarray, **{n: getattr(_calculus, n, None) or getattr(_polynomials, n)
                                                    for n in _NAMES}),
}
# The dtypes of every test here, few so that few kernels compile (NumPy's bool and integer
# inputs take the float64 paths, or raise).
DTYPES = ["float64", "float32", "int64", "complex64", "bool"]


def _np_or_ember(xp):
    return NS[np if xp is np else cp]


# --- the calculus sweep ------------------------------------------------------------------------
def _coords(data, n):
    """Increasing, unevenly spaced coordinates (or, one time in four, evenly spaced)."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="coords seed"))
    if data.draw(st.integers(0, 3), label="even") == 0:
        return np.arange(n) * 0.5
    return np.cumsum(rng.uniform(0.2, 1.5, n))


def gradient_call(data, shape):
    ndim = len(shape)
    axis = data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1)) if ndim else st.none(), label="axis")
    edge = data.draw(st.sampled_from([1, 2]), label="edge_order")
    spacing = data.draw(st.sampled_from(["none", "scalar", "coords"]), label="spacing")
    if spacing == "coords" and axis is not None:
        coords = _coords(data, shape[axis])
        return lambda xp, x: _np_or_ember(xp).gradient(x, xp.asarray(coords), axis=axis, edge_order=edge)
    if spacing == "scalar":
        h = data.draw(st.sampled_from([0.5, 3, np.float32(2.0)]), label="h")
        return lambda xp, x: _np_or_ember(xp).gradient(x, h, axis=axis, edge_order=edge)
    return lambda xp, x: _np_or_ember(xp).gradient(x, axis=axis, edge_order=edge)


def trapezoid_call(data, shape):
    ndim = len(shape)
    axis = data.draw(st.integers(-ndim, ndim - 1) if ndim else st.just(-1), label="axis")
    form = data.draw(st.sampled_from(["dx", "x1d", "xnd"]), label="form")
    if form == "x1d" and ndim:
        coords = _coords(data, shape[axis])
        return lambda xp, y: _np_or_ember(xp).trapezoid(y, xp.asarray(coords), axis=axis)
    if form == "xnd":
        return lambda xp, y: _np_or_ember(xp).trapezoid(y, y[::-1] if y.ndim else y, axis=axis)
    dx = data.draw(st.sampled_from([1.0, 0.25, 2]), label="dx")
    return lambda xp, y: _np_or_ember(xp).trapezoid(y, dx=dx, axis=axis)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["gradient", "trapezoid"])
def test_calculus_matches_numpy_on_views(name, dtype):
    make = gradient_call if name == "gradient" else trapezoid_call

    def body(data, tally):
        shape = data.draw(SMALL_SHAPES, label="shape")
        n, e = data.draw(operands(dtype, shape), label="y")
        parity(make(data, shape), [n], [e], tally)

    run_sweep(body, f"calculus-{name}-{dtype}", examples=15)


@pytest.mark.parametrize("dtype", DTYPES[:-1])  # (NumPy's cross of booleans raises: see the errors)
def test_cross_matches_numpy_on_views(dtype):
    def body(data, tally):
        batch = data.draw(st.lists(st.integers(0, 3), max_size=2).map(tuple), label="batch")
        na, nb = data.draw(st.sampled_from([3, 2]), label="na"), data.draw(st.sampled_from([3, 3, 2]), label="nb")
        a_n, a_e = data.draw(operands(dtype, batch + (na,)), label="a")
        b_n, b_e = data.draw(operands(dtype, (nb,) + batch[1:]), label="b")
        axisc = data.draw(st.integers(-1, 0), label="axisc")

        def fn(xp, a, b):
            return _np_or_ember(xp).cross(a, b, axisb=0, axisc=axisc)

        parity(fn, [a_n, b_n], [a_e, b_e], tally)

    run_sweep(body, f"calculus-cross-{dtype}", examples=15)


# --- calculus: fixed cases -----------------------------------------------------------------------
@pytest.fixture
def f2d():
    return np.random.default_rng(20261121).standard_normal((5, 7))


def test_gradient_of_every_axis_with_per_axis_spacing(f2d):
    y = np.cumsum(np.random.default_rng(3).uniform(0.5, 1.0, 7))
    want = np.gradient(f2d, 0.5, y, edge_order=2)
    got = _calculus.gradient(cp.asarray(f2d), 0.5, cp.asarray(y), edge_order=2)
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, want, strict=True):
        assert_same(g, w)


def test_gradient_with_integer_coordinates_and_axis_tuple(f2d):
    x = np.array([0, 1, 3, 4, 8])
    want = np.gradient(f2d, x, 2, axis=(0, -1))
    got = _calculus.gradient(cp.asarray(f2d), cp.asarray(x), 2, axis=(0, -1))
    for g, w in zip(got, want, strict=True):
        assert_same(g, w)


def test_gradient_of_a_0d_array_is_an_empty_tuple():
    assert _calculus.gradient(cp.asarray(2.0)) == np.gradient(np.asarray(2.0)) == ()


def test_trapezoid_along_a_reversed_view(f2d):
    x = np.linspace(0, 1, 5)
    assert_same(_calculus.trapezoid(cp.asarray(f2d)[::-1, ::2], cp.asarray(x), axis=0),
                np.trapezoid(f2d[::-1, ::2], x, axis=0))
    assert_same(_calculus.trapezoid(cp.asarray(f2d[:, :0])), np.trapezoid(f2d[:, :0]))


def test_cross_with_axis_and_broadcasting(f2d):
    a, b = f2d[:3, :4], f2d[2:5, 3:4]
    assert_same(_calculus.cross(cp.asarray(a), cp.asarray(b), axis=0), np.cross(a, b, axis=0))
    i = np.arange(6, dtype=np.int64).reshape(2, 3)
    assert_same(_calculus.cross(cp.asarray(i), cp.asarray(i[::-1])), np.cross(i, i[::-1]))


def test_cross_of_2_vectors_is_deprecated_or_refused_as_in_numpy():
    a, b = np.array([1.0, 2.0]), np.array([3.0, 5.0])
    if not _calculus._numpy_takes_2_vectors():  # NumPy after 2.4: refused
        for xp, ns in ((np, np), (cp, _calculus)):
            with pytest.raises(ValueError, match="Both input arrays must be \\(arrays of\\) 3-dimensional vectors"):
                ns.cross(xp.asarray(a), xp.asarray(b))
        return
    with pytest.warns(DeprecationWarning, match="2-dimensional vectors are deprecated"):
        want = np.cross(a, b)
    with pytest.warns(DeprecationWarning, match="2-dimensional vectors are deprecated"):
        got = _calculus.cross(cp.asarray(a), cp.asarray(b))
    assert_same(got, want)


# --- polynomials: fixed-seed cases on every dtype ------------------------------------------------
def _coefficients(dtype, n, seed):
    rng = np.random.default_rng(seed)
    host = rng.standard_normal(n) * 4 + 1j * rng.standard_normal(n) if dtype == "complex64" else \
        rng.standard_normal(n) * 4
    host = host.astype(dtype) if dtype != "bool" else rng.integers(0, 2, n).astype(bool)
    host[0] = host[0] or 1  # a non-zero leading coefficient
    return host


def _rtol(dtype):
    return 1e-4 if dtype in ("float32", "complex64") else None


def _close_to_scale(got, want):
    """Each array within a few ulp of the largest coefficient (a remainder's cancellation leaves
    noise of that size), dtypes and shapes exact."""
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        eps = np.finfo(w.dtype).eps
        np.testing.assert_allclose(g.get(), w, rtol=100 * eps, atol=100 * eps * max(1.0, np.abs(w).max(initial=0)))


def _check(fn, *hosts, dtype="float64", rtol=None, compare=None):
    """``fn(ns, *arrays)`` with NumPy and with ember on reversed views of the same values."""
    devs = [cp.asarray(h[::-1].copy())[::-1] if h.ndim == 1 and h.size else cp.asarray(h) for h in hosts]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parity(lambda xp, *a: fn(_np_or_ember(xp), *a), list(hosts), devs, rtol=rtol or _rtol(dtype),
               compare=compare)


@pytest.mark.parametrize("dtype", DTYPES)
def test_polynomial_arithmetic_matches_numpy(dtype):
    p, q = _coefficients(dtype, 5, 1), _coefficients(dtype, 3, 2)
    for fn in (lambda ns, a, b: ns.polyadd(a, b), lambda ns, a, b: ns.polysub(b, a),
               lambda ns, a, b: ns.polymul(a, b)):
        _check(fn, p, q, dtype=dtype)
    _check(lambda ns, a, b: ns.polydiv(a, b), p, q, compare=_close_to_scale)
    _check(lambda ns, a, b: ns.polyadd(a, b), p, q[:0], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_polyval_derivatives_and_integrals_match_numpy(dtype):
    p = _coefficients(dtype, 6, 3)
    x = np.random.default_rng(4).uniform(-2, 2, (2, 3)).astype(dtype if dtype != "bool" else "float64")
    _check(lambda ns, a, b: ns.polyval(a, b), p, x, dtype=dtype)
    _check(lambda ns, a, b: ns.polyval(a, b), p, x[:, :0], dtype=dtype)
    for m in (0, 1, 3, 7):
        _check(lambda ns, a, m=m: ns.polyder(a, m), p, dtype=dtype)
        _check(lambda ns, a, m=m: ns.polyint(a, m), p, dtype=dtype)
    _check(lambda ns, a: ns.polyint(a, 2, k=[3, -1]), p, dtype=dtype)
    _check(lambda ns, a: ns.polyint(a, 3, k=2.5), p, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_poly_and_roots_match_numpy(dtype):
    p = _coefficients(dtype, 5, 5)
    _check(lambda ns, a: ns.roots(a), np.concatenate([[0, 0], p, [0]]).astype(dtype), dtype=dtype, rtol=1e-3)
    _check(lambda ns, a: ns.poly(a), p, dtype=dtype)
    _check(lambda ns, a: ns.poly(a), np.array([1 + 2j, 3, 1 - 2j], dtype="complex128"))
    _check(lambda ns, a: ns.poly(a), np.random.default_rng(6).standard_normal((3, 3)), rtol=1e-10)


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex64"])
def test_polyfit_matches_numpy_in_all_its_forms(dtype):
    rng = np.random.default_rng(8)
    x = np.linspace(-1.5, 2.5, 25).astype(dtype)
    y = rng.standard_normal((25, 3)).astype(dtype)
    w = rng.uniform(0.5, 2.0, 25)
    rtol = 1e-9 if dtype == "float64" else 1e-3
    _check(lambda ns, a, b: ns.polyfit(a, b, 3), x, y[:, 0], rtol=rtol)
    _check(lambda ns, a, b: ns.polyfit(a, b, 4), x, y, rtol=rtol)
    _check(lambda ns, a, b, c: ns.polyfit(a, b, 2, w=c), x, y, w, rtol=rtol)
    _check(lambda ns, a, b: ns.polyfit(a, b, 2, cov=True), x, y, rtol=rtol)
    _check(lambda ns, a, b: ns.polyfit(a, b, 2, cov="unscaled"), x, y[:, 1], rtol=rtol)
    got = _polynomials.polyfit(cp.asarray(x), cp.asarray(y), 3, full=True)
    want = np.polyfit(x, y, 3, full=True)
    assert_same(got[0], want[0], rtol=rtol)
    assert_same(got[1], want[1], rtol=rtol)
    assert got[2] == want[2]
    assert_same(got[3], want[3], rtol=rtol)
    assert got[4] == want[4]


def test_polyfit_warns_when_rank_deficient():
    x = np.array([0.0, 1.0, 2.0])
    with pytest.warns(np.exceptions.RankWarning, match="Polyfit may be poorly conditioned"):
        want = np.polyfit(x, x * 2, 5)
    with pytest.warns(np.exceptions.RankWarning, match="Polyfit may be poorly conditioned"):
        got = _polynomials.polyfit(cp.asarray(x), cp.asarray(x * 2), 5)
    np.testing.assert_allclose(got.get(), want, rtol=1e-8, atol=1e-12)


# --- poly1d ----------------------------------------------------------------------------------------
def test_poly1d_prints_and_computes_as_numpys():
    P, N = _polynomials.poly1d, np.poly1d
    for args in (([1, 2, 3],), ([0, 0, 2.5, -1],), ([1j, 2, 0],), ([1, 2], True), ([0, 0],)):
        p, n = P(*args), N(*args)
        assert repr(p) == repr(n) and str(p) == str(n)
        assert_same(p.coeffs, n.coeffs)
        assert p.order == n.order == len(p) and p.variable == n.variable
    p, n = P([1, -2, 3], variable="z"), N([1, -2, 3], variable="z")
    q, m = P([2.0, 1.0]), N([2.0, 1.0])
    for got, want in ((p + q, n + m), (p - q, n - m), (3 - p, 3 - n), (p * q, n * m), (2 * p, 2 * n), (p ** 3, n ** 3),
                      (-p, -n), (p / 2, n / 2), (p.deriv(), n.deriv()), (p.integ(2, k=1), n.integ(2, k=1))):
        assert str(got) == str(want)
        assert_same(got.coeffs, want.coeffs)
    for got, want in zip(p / q, n / m, strict=True):
        assert_same(got.coeffs, want.coeffs)
    x = np.linspace(-1, 1, 4)
    assert_same(p(cp.asarray(x)), n(x))
    assert str(p(q)) == str(n(m))
    assert_same(p.roots, n.roots)
    assert p == P([0, 1, -2, 3]) and p != q and (p == [1]) is False
    assert_same(p[1], np.asarray(n[1]))
    assert p[7] == n[7] == 0
    p[4], n[4] = 5, 5
    assert str(p) == str(n)
    assert_same(_polynomials.polyadd(p, [1, 1]).coeffs, np.polyadd(n, [1, 1]).coeffs)
    assert isinstance(_polynomials.polyder(p), P)


# --- errors -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call,exc,message", [
    (lambda ns, xp: ns.gradient(xp.asarray([1.0, 2.0]), edge_order=2), ValueError, "at least \\(edge_order \\+ 1\\)"),
    (lambda ns, xp: ns.gradient(xp.asarray([1.0, 2.0, 3.0]), edge_order=3), ValueError, "greater than 2 not supported"),
    (lambda ns, xp: ns.gradient(xp.zeros((3, 3)), 1.0, 2.0, 3.0), TypeError, "invalid number of arguments"),
    (lambda ns, xp: ns.gradient(xp.zeros(3), xp.zeros((3, 1))), ValueError, "distances must be either scalars or 1d"),
    (lambda ns, xp: ns.gradient(xp.zeros(3), xp.arange(4.0)), ValueError, "must match the length"),
    (lambda ns, xp: ns.gradient(xp.zeros((3, 3)), axis=2), np.exceptions.AxisError, "axis 2 is out of bounds"),
    (lambda ns, xp: ns.gradient(xp.asarray([True, False, True])), TypeError, "boolean subtract"),
    (lambda ns, xp: ns.cross(xp.zeros(3), xp.asarray(1.0)), ValueError, "At least one array has zero dimension"),
    (lambda ns, xp: ns.cross(xp.zeros(4), xp.zeros(3)), ValueError,
     "incompatible dimensions for cross product|Both input arrays must be"),  # NumPy <= 2.4 | later
    (lambda ns, xp: ns.cross(xp.zeros(3), xp.zeros(3), axisa=1), np.exceptions.AxisError, "axisa: axis 1 is out of"),
    (lambda ns, xp: ns.cross(xp.zeros(3), xp.zeros(3), axisc=2), np.exceptions.AxisError, "axisc: axis 2 is out of"),
    (lambda ns, xp: ns.cross(xp.zeros((2, 3)), xp.zeros((3, 3))), ValueError, "broadcast"),
    (lambda ns, xp: ns.cross(xp.ones(3, bool), xp.ones(3, bool)), TypeError, "boolean subtract"),
    (lambda ns, xp: ns.polyder(xp.zeros(3), -1), ValueError, "Order of derivative must be positive"),
    (lambda ns, xp: ns.polyint(xp.zeros(3), -1), ValueError, "Order of integral must be positive"),
    (lambda ns, xp: ns.polyint(xp.zeros(3), 3, k=[1, 2]), ValueError, "k must be a scalar or a rank-1 array"),
    (lambda ns, xp: ns.polyval(xp.asarray(2.0), 1.0), TypeError, "iteration over a 0-d array"),
    (lambda ns, xp: ns.polyfit(xp.zeros(3), xp.zeros(3), -1), ValueError, "expected deg >= 0"),
    (lambda ns, xp: ns.polyfit(xp.zeros((3, 1)), xp.zeros(3), 1), TypeError, "expected 1D vector for x"),
    (lambda ns, xp: ns.polyfit(xp.zeros(0), xp.zeros(0), 1), TypeError, "expected non-empty vector for x"),
    (lambda ns, xp: ns.polyfit(xp.zeros(3), xp.zeros((3, 1, 1)), 1), TypeError, "expected 1D or 2D array for y"),
    (lambda ns, xp: ns.polyfit(xp.zeros(3), xp.zeros(4), 1), TypeError, "expected x and y to have same length"),
    (lambda ns, xp: ns.polyfit(xp.arange(3.0), xp.zeros(3), 1, w=xp.ones(2)), TypeError, "w and y to have the same"),
    (lambda ns, xp: ns.polyfit(xp.arange(3.0), xp.zeros(3), 2, cov=True), ValueError, "must exceed order"),
    (lambda ns, xp: ns.roots(xp.zeros((2, 2))), ValueError, "Input must be a rank-1 array."),
    (lambda ns, xp: ns.poly(xp.zeros((2, 3))), ValueError, "input must be 1d or non-empty square 2d array."),
    (lambda ns, xp: ns.poly1d(xp.zeros((2, 2))), ValueError, "Polynomial must be 1d only."),
    (lambda ns, xp: ns.poly1d(xp.ones(2)) ** -1, ValueError, "Power to non-negative integers only."),
])
def test_errors_have_numpys_class_and_message(call, exc, message):
    for xp in (np, cp):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(exc, match=message):
                call(_np_or_ember(xp), xp)
