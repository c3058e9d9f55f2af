"""Reductions (sum prod mean var std max min argmax argmin any all cumsum) against NumPy.

Each new (operation, dtype, layout) is a kernel to compile (about a second on PoCL), so the
dtypes are chosen per operation to cover NumPy's rules (accumulator and result types, NaN,
integer extremes) rather than crossed with everything; layouts are covered on float32.
"""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest
from ember.testing import random_array
from hypothesis import given, settings
from hypothesis import strategies as st


def on_device(base: np.ndarray, view: np.ndarray | None = None) -> ember.ndarray:
    """``view`` (a NumPy view of ``base``) as the same view of ``base`` copied to the device."""
    d = ember.asarray(base)
    if view is None:
        return d
    offset = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return ember.ndarray(view.shape, view.dtype, memptr=d.data + offset, strides=view.strides)


def tolerance(dtype) -> float:
    return {"e": 2e-3, "f": 1e-5, "d": 1e-12, "F": 1e-5, "D": 1e-12}.get(np.dtype(dtype).char, 0)


def assert_matches(got, expected, rtol=None):
    """Same shape, dtype and values (NaN where NumPy has NaN)."""
    expected = np.asarray(expected)
    assert isinstance(got, ember.ndarray), type(got)
    host = got.get()
    assert host.shape == expected.shape and host.dtype == expected.dtype, (host.shape, host.dtype, expected.dtype)
    rtol = tolerance(expected.dtype) if rtol is None else rtol
    if rtol:
        np.testing.assert_allclose(host, expected, rtol=rtol, atol=rtol, equal_nan=True)
    else:
        np.testing.assert_array_equal(host, expected)


def with_specials(x: np.ndarray) -> np.ndarray:
    """NaN, inf and -inf in a float array (one row each)."""
    if x.dtype.kind == "f":
        x[0, 1], x[1, 2], x[1, 5], x[2, 3] = np.nan, np.inf, -np.inf, -np.inf
    return x


AXES_2D = [None, -1, 1]


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "float16", "complex64"])
def test_sum_accumulates_like_numpy(rng, dtype):
    x = random_array(rng, (5, 37), dtype)
    d = on_device(x)
    for axis in AXES_2D:
        for keepdims in (False, True):
            assert_matches(ember.sum(d, axis=axis, keepdims=keepdims), np.sum(x, axis=axis, keepdims=keepdims))
    assert d.sum().shape == ()


@pytest.mark.parametrize("dtype", ["int16", "float64"])
def test_prod_matches_numpy(rng, dtype):
    x = random_array(rng, (4, 29), dtype)
    if x.dtype.kind == "f":
        x = x / 80
    d = on_device(x)
    for axis in AXES_2D:
        assert_matches(d.prod(axis=axis), np.prod(x, axis=axis), rtol=1e-12 if x.dtype.kind == "f" else 0)


@pytest.mark.parametrize("dtype", ["float32", "int16", "float16", "complex64"])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_mean_and_var_have_numpys_result_types(rng, dtype):
    x = random_array(rng, (6, 45), dtype)
    if dtype == "float16":
        x /= 64  # NumPy squares float16 deviations in float16: keep them from overflowing
    if x.dtype.kind == "f":
        x = with_specials(x)
    d = on_device(x)
    tol = 1e-2 if dtype == "float16" else 1e-5
    for axis in AXES_2D:
        assert_matches(d.mean(axis=axis), np.mean(x, axis=axis), rtol=tol)
        assert_matches(ember.var(d, axis=axis), np.var(x, axis=axis), rtol=tol)


def test_std_with_ddof(rng):
    x = random_array(rng, (6, 45), "float32")
    d = on_device(x)
    for ddof in (0, 1, 2.5):
        assert_matches(ember.std(d, axis=-1, ddof=ddof), np.std(x, axis=-1, ddof=ddof))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert_matches(d.std(axis=1, ddof=45), np.std(x, axis=1, ddof=45))


def test_max_and_min_propagate_nan(rng):
    x = with_specials(random_array(rng, (5, 33), "float32"))
    d = on_device(x)
    for axis in AXES_2D:
        assert_matches(d.max(axis=axis), np.max(x, axis=axis))
        assert_matches(ember.amin(d, axis=axis), np.min(x, axis=axis))
    assert np.isnan(d.max().get()) and np.isnan(ember.min(d).get())


def test_min_of_integer_extremes(rng):
    x = random_array(rng, (5, 33), "int8")
    x[3, :] = 127
    x[4, 7] = -128
    d = on_device(x)
    for axis in AXES_2D:
        assert_matches(d.min(axis=axis), np.min(x, axis=axis))


def test_argmax_and_argmin_find_the_first_occurrence(rng):
    x = np.round(random_array(rng, (6, 40), "float32") / 100).astype(np.float32)  # many ties
    x[2, [3, 9]] = np.nan
    x[:, 17] = np.nan
    x[0] = 0
    d = on_device(x)
    for axis in (None, 0, 1, -1):
        for op in ("argmax", "argmin"):
            assert_matches(getattr(ember, op)(d, axis=axis), getattr(np, op)(x, axis=axis))
    assert_matches(d.argmax(axis=0, keepdims=True), np.argmax(x, axis=0, keepdims=True))
    assert_matches(d.argmin(keepdims=True), np.argmin(x, keepdims=True))


def test_any_and_all_treat_nan_as_true(rng):
    x = random_array(rng, (4, 25), "float32")
    x[0] = 0
    x[1, 3] = 0
    x[2] = np.nan
    b = x != 0
    d, db = on_device(x), on_device(b)
    for axis in AXES_2D:
        assert_matches(ember.all(d, axis=axis), np.all(x, axis=axis))
        assert_matches(db.any(axis=axis, keepdims=True), np.any(b, axis=axis, keepdims=True))


@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_cumsum_along_each_axis(rng, dtype):
    x = random_array(rng, (7, 30), dtype)
    d = on_device(x)
    for axis in (None, 1, -1) if dtype == "float32" else (None, 0, 1):
        assert_matches(ember.cumsum(d, axis=axis), np.cumsum(x, axis=axis), rtol=1e-4 if dtype == "float32" else 0)
    assert_matches(d.cumsum(), np.cumsum(x))


@st.composite
def strided_views(draw):
    """A float32 array of 0 to 3 axes, a view of it (steps, negative steps, transposes) and
    an axis argument for it."""
    ndim = draw(st.integers(0, 3))
    shape = tuple(draw(st.lists(st.integers(1, 9), min_size=ndim, max_size=ndim)))
    base = np.asarray(random_array(np.random.default_rng(draw(st.integers(0, 2**16))), shape, "float32"))
    index = tuple(
        slice(None, None, draw(st.sampled_from([1, 2, -1]))) if n > 1 else slice(None) for n in shape
    )
    view = base[index] if ndim else base[...]  # base[()] would be a NumPy scalar, not a view
    if ndim > 1 and draw(st.booleans()):
        view = view.transpose(draw(st.permutations(range(ndim))))
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none" or ndim == 0:
        axis = None
    elif kind == "int":
        axis = draw(st.integers(-ndim, ndim - 1))
    else:
        axis = tuple(draw(st.sets(st.integers(0, ndim - 1), max_size=ndim)))
    return base, view, axis, draw(st.booleans())


@settings(max_examples=20, deadline=None)
@given(strided_views())
def test_sum_and_max_of_any_view_match_numpy(case):
    base, view, axis, keepdims = case
    d = on_device(base, view)
    got = ember.sum(d, axis=axis, keepdims=keepdims)
    want = np.sum(view, axis=axis, keepdims=keepdims)
    assert got.shape == want.shape and got.dtype == want.dtype
    # Sums of either order agree to float32 rounding of the sum of magnitudes.
    scale = np.sum(np.abs(view), axis=axis, keepdims=keepdims, dtype=np.float64)
    assert np.all(np.abs(got.get() - want) <= 1e-5 * scale)
    assert_matches(d.max(axis=axis, keepdims=keepdims), np.max(view, axis=axis, keepdims=keepdims))


def test_argmax_of_strided_views_indexes_them_in_c_order(rng):
    base = random_array(rng, (6, 5, 8), "float32")
    base[1, 2, 3] = 1e6
    base[4, 0, 6] = 1e6
    for view in (base.transpose(2, 0, 1), base[::-1, ::2], base[:, 1:4, ::-3]):
        d = on_device(base, view)
        for axis in (None, 1):
            assert_matches(d.argmax(axis=axis), np.argmax(view, axis=axis))


def test_float32_sum_is_accurate_to_float32_rounding(rng):
    x = rng.random(10**6, dtype=np.float32)
    exact = np.float32(x.astype(np.float64).sum())
    ulp = float(np.spacing(exact))
    got = float(ember.asarray(x).sum().get())
    assert abs(got - float(exact)) <= 4 * ulp
    assert abs(got - float(np.sum(x))) <= 4 * ulp
    # A serial float32 loop is far off: the comparison above is a real test.
    assert abs(float(np.cumsum(x)[-1]) - float(exact)) > 32 * ulp


def test_long_reductions_split_across_the_device(rng):
    x = (rng.standard_normal((3, 70000)) * 10).astype(np.float32)
    x[1, 54321] = np.nan
    x[2, [70, 69000]] = 1e4
    d = on_device(x)
    assert_matches(d.sum(axis=1), np.sum(x, axis=1), rtol=1e-4)
    assert_matches(d.argmax(axis=1), np.argmax(x, axis=1))
    assert_matches(d.argmax(), np.argmax(x))
    t = np.ascontiguousarray(x.T)
    assert_matches(on_device(t).mean(axis=0), np.mean(t, axis=0), rtol=1e-4)


def test_reductions_over_axis_0_split_the_rows(rng):
    # 2^21 elements and more: a CPU device splits the rows, and a second pass combines the
    # splits' partial values and indices (the last block of outputs is partly filled).
    x = (rng.standard_normal((4100, 610)) * 10).astype(np.float32)
    x[3000, 7] = np.nan
    x[[5, 4000], 9] = 1e4  # a tie: the first index wins
    d = on_device(x)
    exact = x.astype(np.float64)
    # float32 sums of 4,100 terms: within a few float32 roundings of the sum of magnitudes.
    bound = 64 * np.finfo(np.float32).eps * np.abs(exact).sum(axis=0)
    np.testing.assert_array_less(np.abs(d.sum(axis=0).get() - exact.sum(axis=0)), bound, err_msg="sum")
    np.testing.assert_array_less(np.abs(d.mean(axis=0).get() - exact.mean(axis=0)), bound / 4100, err_msg="mean")
    assert_matches(d.var(axis=0), np.var(exact, axis=0).astype(np.float32), rtol=1e-4)
    assert_matches(d.max(axis=0), np.max(x, axis=0))
    assert_matches(d.argmax(axis=0), np.argmax(x, axis=0))
    assert_matches(d.argmin(axis=0), np.argmin(x, axis=0))


def test_long_cumsums_continue_across_splits(rng):
    x = rng.random(100003, dtype=np.float32)
    assert_matches(ember.cumsum(ember.asarray(x)), np.cumsum(x, dtype=np.float64).astype(np.float32), rtol=1e-4)
    y = random_array(rng, (20000, 5), "int8")
    assert_matches(ember.cumsum(ember.asarray(y), axis=0), np.cumsum(y, axis=0))


def test_empty_and_zero_d_inputs(rng):
    e = on_device(np.zeros((0, 4), np.float32))
    assert_matches(e.sum(axis=0), np.zeros(4, np.float32))
    assert_matches(e.max(axis=1), np.zeros(0, np.float32))
    assert_matches(e.argmax(axis=1), np.zeros(0, np.int64))
    assert_matches(e.any(axis=0), np.zeros(4, bool))
    assert_matches(ember.all(e), np.bool_(True))
    assert_matches(ember.cumsum(e, axis=0), np.zeros((0, 4), np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert_matches(e.mean(axis=0), np.mean(np.zeros((0, 4), np.float32), axis=0))
    z = ember.asarray(np.float32(2.5))
    assert_matches(z.sum(), np.float32(2.5))
    assert_matches(z.sum(axis=0), np.float32(2.5))
    assert_matches(z.argmax(), np.int64(0))
    assert_matches(ember.cumsum(z), np.array([2.5], np.float32))


def test_dtype_and_out_arguments(rng):
    x = random_array(rng, (5, 40), "float32")
    d = on_device(x)
    assert_matches(d.sum(axis=1, dtype=np.float64), np.sum(x, axis=1, dtype=np.float64))
    # With out= and no dtype, NumPy accumulates in out's dtype.
    out = ember.zeros(5, np.float64)
    assert d.sum(axis=1, out=out) is out
    assert_matches(out, np.sum(x, axis=1, out=np.zeros(5, np.float64)))
    # A strided out, of another dtype: computed, then converted into it.
    big = ember.zeros((2, 40), np.float32)
    row = ember.ndarray((40,), np.float32, memptr=big.data + 160, strides=(4,))
    assert ember.max(d, axis=0, out=row) is row
    assert_matches(big, np.stack([np.zeros(40, np.float32), np.max(x, axis=0)]))
    idx = ember.zeros(40, np.int32)
    d.argmin(axis=0, out=idx)
    assert_matches(idx, np.argmin(x, axis=0).astype(np.int32))
    ints = on_device(random_array(rng, (3, 8), "int16"))
    assert_matches(ints.mean(dtype=np.float32), np.mean(ints.get(), dtype=np.float32))


def test_errors_are_numpys(rng):
    d = on_device(random_array(rng, (3, 4), "float32"))
    with pytest.raises(np.exceptions.AxisError, match="^axis 2 is out of bounds for array of dimension 2$"):
        d.sum(axis=2)
    with pytest.raises(ValueError, match="axis -3 is out of bounds for array of dimension 2"):
        ember.mean(d, axis=(0, -3))
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        d.sum(axis=(1, -1))
    with pytest.raises(TypeError, match="'tuple' object cannot be interpreted as an integer"):
        d.argmax(axis=(0, 1))
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        d.sum(axis=1.0)
    empty = on_device(np.zeros((0, 3), np.float32))
    with pytest.raises(ValueError, match="^zero-size array to reduction operation maximum which has no identity$"):
        empty.max()
    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum which has no identity"):
        empty.min(axis=0)
    with pytest.raises(ValueError, match="^attempt to get argmax of an empty sequence$"):
        empty.argmax()
    with pytest.raises(ValueError, match="wrong number of dimensions: Found 2 but expected 1"):
        d.sum(axis=0, out=ember.zeros((1, 4), np.float32))
    with pytest.raises(ValueError, match="provided out is the wrong size for the accumulation"):
        ember.cumsum(d, out=ember.zeros((3, 4), np.float32))
    with pytest.raises(TypeError, match="ember.asarray"):
        ember.sum(np.zeros(3))
    with pytest.raises(TypeError):
        ember.max(d, dtype=np.float64)


def test_mean_var_std_of_a_0d_array_refuse_an_axis_as_numpy_does():
    x = ember.asarray(np.array(3.0))
    for name in ("mean", "var", "std"):
        with pytest.raises(np.exceptions.AxisError, match="axis 0 is out of bounds for array of dimension 0"):
            getattr(ember, name)(x, axis=0)
        assert float(getattr(ember, name)(x, axis=())) == float(getattr(np, name)(np.array(3.0), axis=()))
    assert float(ember.sum(x, axis=0)) == 3.0  # NumPy's ufunc reductions accept it
