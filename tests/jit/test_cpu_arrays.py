"""Whole-array expressions in ``@ember.njit`` functions: operators and ufuncs on arrays, reductions,
``np.arange``/``np.linspace``, in-place updates, ``astype``/``copy``. Each compiled function gives
what the same function gives run by Python on NumPy arrays (values and dtypes), and raises NumPy's
errors where NumPy raises them."""

import warnings

import ember
import numpy as np
import pytest
from ember import njit

RNG = np.random.default_rng(20261128)


def same(got, want):
    """The compiled result is the interpreter's: dtype, shape and values (NaNs in the same places)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            same(g, w)
        return
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), type(got)
        assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12)


def run_both(f, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = f(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        got = njit(f)(*args)
    same(got, want)


def data(dtype, shape=(7,)):
    if np.dtype(dtype).kind == "f":
        return RNG.standard_normal(shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return RNG.integers(0, 2, shape).astype(bool)
    info = np.iinfo(dtype)
    return RNG.integers(max(info.min, -100), min(info.max, 100), shape, endpoint=True).astype(dtype)


# ---- the seed program ----

def times_two(arr):
    return arr * 2


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.int8, np.uint8])
def test_arr_times_two_keeps_numpys_dtype(dtype):
    run_both(times_two, data(dtype))


# ---- operators ----

def arith(a, b):
    return a + b, a - b, a * b, a / b, a // b, a % b, -a, a * 2.5 + 1, abs(a - b)


def compare(a, b):
    return a < b, a <= b, a == b, a != b, a > b, a >= b, ~(a > b)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
def test_operators_match_numpy_element_for_element(dtype):
    a, b = data(dtype), data(dtype)
    run_both(arith, a, b)
    run_both(compare, a, b)


def test_mixed_dtypes_promote_as_numpy_does():
    run_both(arith, data(np.int8), data(np.float32))
    run_both(arith, data(np.int32), data(np.int64))
    run_both(arith, data(np.uint8), data(np.int16))


def test_zero_divisors_give_numpys_values_not_exceptions():
    a = np.array([1.0, -2.0, 0.0, 3.0])
    b = np.array([0.0, 0.0, 0.0, 2.0])
    run_both(arith, a, b)
    run_both(arith, a.astype(np.int64), b.astype(np.int64))


def bits(a, b):
    return a & b, a | b, a ^ b, a << 2, a >> 1, ~a


def test_bitwise_operators_on_integer_arrays():
    run_both(bits, data(np.int32), data(np.int32))
    run_both(bits, data(np.uint8), data(np.uint8))


def test_integers_to_negative_powers_raise_numpys_value_error():
    def power(a, b):
        return a ** b
    run_both(power, data(np.int64), np.abs(data(np.int64)) % 5)
    run_both(power, data(np.float64), data(np.float64))
    with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed"):
        njit(power)(np.arange(3), np.array([1, -1, 2]))


# ---- broadcasting ----

def add(a, b):
    return a + b


@pytest.mark.parametrize("shapes", [((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 3, 4), (3, 1)), ((1,), (5,)),
                                    ((0, 3), (3,)), ((4, 1), (0,))])
def test_shapes_broadcast_as_numpys(shapes):
    run_both(add, RNG.standard_normal(shapes[0]), RNG.standard_normal(shapes[1]))


def where_of(c, x, y):
    return np.where(c, x, y)


@pytest.mark.parametrize("case", ["same", "broadcast", "float_cond", "int8_and_python_ints", "mixed", "scalar_x"])
def test_np_where_picks_elements_as_numpy_does(case):
    a, b = RNG.standard_normal((4, 5)), RNG.standard_normal(5)
    a[1, 2] = np.nan
    small = RNG.integers(-100, 100, (4, 5)).astype(np.int8)
    args = {
        "same": (a > 0, a, -a),
        "broadcast": (b > 0, a, 2.5),                     # (5,) with (4, 5) and a number
        "float_cond": (a, small, b),                      # non-zero (NaN included) is true
        "int8_and_python_ints": (a > 0, small, 300),      # 300 does not fit int8
        "mixed": (a < 0, small, b.astype(np.float32)),    # int8 with float32: float32
        "scalar_x": (small > 0, 7, small),
    }[case]
    if case == "int8_and_python_ints" and np.lib.NumpyVersion(np.__version__) < "2.5.0":
        # NumPy 2.5 raises for a Python int outside the type (older NumPy wrapped it): ember
        # follows 2.5, as its arithmetic does.
        with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
            njit(where_of)(*args)
        return
    try:
        want = where_of(*args)
    except OverflowError as e:
        with pytest.raises(OverflowError, match=str(e)):
            njit(where_of)(*args)
        return
    got = njit(where_of)(*args)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def masked_set(a, m, v):
    a[m] = v
    return a


def test_np_where_of_numbers_says_what_is_missing():
    with pytest.raises(ember.JitError, match=r"np.where\(\) of three numbers .* write `x if cond else y`"):
        njit(where_of)(True, 1.0, 2.0)


def masks(a, b):
    m = a > 0
    return (a[m], a[b < -0.25], a[m].sum(), np.nonzero(m), np.where(b > 0.5), np.flatnonzero(a), np.argwhere(m),
            np.count_nonzero(b > 0), a.nonzero())


@pytest.mark.parametrize("shape", [(11,), (3, 4), (2, 3, 2)])
def test_masks_and_nonzero_positions_match_numpy(shape):
    a = data(np.float64, shape)
    a[a < 0.3] = 0.0  # zeros among the values: flatnonzero and nonzero skip them
    b = data(np.float32, shape)
    got, want = njit(masks)(a, b), masks(a, b)
    for g, w in zip(got, want, strict=True):
        for x, y in zip(g if isinstance(g, tuple) else (g,), w if isinstance(w, tuple) else (w,), strict=True):
            same(np.asarray(x), np.asarray(y))


def masked_writes(a, b):
    a[a > 0.5] = 0
    a[b < 0] = -b[b < 0]
    return a


def test_writes_through_a_mask_match_numpy_and_wrong_shapes_raise_numpys_errors():
    a, b = data(np.float64, (4, 5)), data(np.float64, (4, 5))
    want = masked_writes(a.copy(), b)
    got_a = a.copy()
    same(njit(masked_writes)(got_a, b), want)
    same(got_a, want)  # in place
    with pytest.raises(IndexError, match="boolean index did not match indexed array along an axis; size of axis "
                                         "is 3 but size of corresponding boolean axis is 2"):
        njit(lambda a, m: a[m])(np.ones(3), np.ones(2, dtype=bool))
    with pytest.raises(ValueError, match="cannot assign 1 input values to the 2 output values where the mask is "
                                         "true"):
        njit(masked_set)(np.ones(3), np.array([True, False, True]), np.ones(1))
    with pytest.raises(ember.JitError, match="fancy indexing"):
        njit(lambda a, i: a[i])(np.ones(3), np.array([0, 2]))


def test_strided_and_transposed_operands():
    a = RNG.standard_normal((6, 8))
    run_both(add, a[::2, 1::3], a.T[1:4, :3])


def test_shapes_that_do_not_broadcast_raise_numpys_value_error_and_the_function_still_works():
    f = njit(add)
    with pytest.raises(ValueError, match="could not be broadcast together: an axis of length 3 meets one of length 4"):
        f(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="could not be broadcast"):
        f(np.ones((2, 3)), np.ones((3, 3)))
    same(f(np.ones(3), np.ones(3)), np.full(3, 2.0))


# ---- ufuncs ----

def ufuncs(a):
    return (np.sqrt(np.abs(a)), np.exp(a), np.log1p(np.abs(a)), np.sin(a), np.arctan2(a, 1.5),
            np.maximum(a, 0.0), np.minimum(a, a[::-1]), np.floor(a), np.isnan(a), np.hypot(a, a))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_numpy_ufuncs_on_arrays(dtype):
    a = data(dtype, (3, 5))
    a[1, 2] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = ufuncs(a)
    got = njit(ufuncs)(a)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=2e-6 if dtype == np.float32 else 1e-14)


def test_ufuncs_of_integers_compute_in_float64():
    def f(a):
        return np.sqrt(a), np.exp(a)
    run_both(f, np.arange(10, dtype=np.int32))


# ---- reductions ----

def reductions(a):
    return (a.sum(), a.prod(), a.min(), a.max(), a.mean(), a.argmin(), a.argmax(), a.any(), a.all(),
            np.sum(a), np.max(a), np.argmax(a), np.mean(a))


def spread(a):
    return a.var(), a.std(), np.var(a), np.std(a)


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.int32, np.uint8, np.bool_])
@pytest.mark.parametrize("shape", [(9,), (3, 4)])
def test_reductions_match_numpy(dtype, shape):
    a = data(dtype, shape)
    got, want = njit(reductions)(a), reductions(a)
    for g, w in zip(got, want, strict=True):
        assert g == pytest.approx(w, rel=1e-12) and type(g) is type(w.item())
    for g, w in zip(njit(spread)(a), spread(a), strict=True):
        assert g == pytest.approx(w, rel=1e-12)


def test_reductions_over_a_strided_view():
    a = RNG.standard_normal((8, 6))
    run_both(lambda a: (a[::3, 1::2].sum(), a.T[2:, :3].argmin(), a[:, ::-1].max()), a)


def test_nans_propagate_through_max_and_argmax_finds_the_first():
    a = np.array([1.0, np.nan, 5.0, np.nan])
    f = njit(lambda a: (a.max(), a.min(), a.argmax(), a.argmin(), a.sum()))
    got = f(a)
    assert np.isnan(got[0]) and np.isnan(got[1]) and got[2:4] == (1, 1) and np.isnan(got[4])


def test_reductions_of_an_empty_array_raise_numpys_errors():
    f = njit(lambda a: a.max())
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum which has no identity"):
        f(np.ones(0))
    with pytest.raises(ValueError, match="attempt to get argmin of an empty sequence"):
        njit(lambda a: a.argmin())(np.ones((3, 0)))
    assert njit(lambda a: a.sum())(np.ones(0)) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(njit(lambda a: a.mean())(np.ones(0)))
    assert f(np.arange(4.0)) == 3.0


# ---- makers, in-place updates, astype ----

def ranges(n, x):
    return (np.arange(n), np.arange(2, n, 3), np.arange(n, 0, -2), np.arange(0.5, x, 0.25),
            np.arange(n, dtype=np.float32), np.linspace(0, x, n), np.linspace(-1, 1, n, endpoint=False),
            np.linspace(2, 3, 1))


@pytest.mark.parametrize("n, x", [(7, 3.3), (0, 0.0), (1, -2.0), (12, 1e-3)])
def test_arange_and_linspace_give_numpys_arrays(n, x):
    run_both(ranges, n, x)


def test_arange_with_a_zero_step_raises_zero_division_error():
    with pytest.raises(ZeroDivisionError):
        njit(lambda n: np.arange(0, n, 0))(5)


def makers_by_dtype_name(n):
    return (np.zeros(n, dtype="float32"), np.ones((n, 2), "i4"), np.full(n, 3, dtype="<u2"),
            np.empty_like(np.zeros(n), dtype="int8") * 0, np.arange(n, dtype="int16"),
            np.zeros(n, dtype=float), np.ones(n, dtype=int), np.ones(n, dtype=complex),
            np.ones(n).astype("f4"), np.ones(n, dtype="float") * 0.5)


def test_dtype_names_and_python_types_name_the_dtype_as_numpy_reads_them():
    run_both(makers_by_dtype_name, 5)


def makers_like_their_arguments(a, x):
    return (np.zeros(3, dtype=a.dtype), np.empty_like(a, dtype=x.dtype) * 0, np.full(2, 4.5, "?"), np.ones(2, "H"),
            np.zeros_like(x), np.full_like(3.5, 2), np.arange(3, dtype=a.dtype), a.astype(x.dtype))


def test_an_arrays_dtype_one_letter_codes_and_numbers_as_0d_arrays_make_arrays_as_numpy():
    run_both(makers_like_their_arguments, np.arange(4, dtype=np.int16), np.float32(2.5))


def test_a_dtype_name_numpy_does_not_know_is_a_jit_error_at_its_line():
    def f(n):
        return np.zeros(n, dtype="float33")
    with pytest.raises(ember.JitError, match="(?s)the dtype must be a NumPy type.*float33"):
        njit(f)(3)


def in_place(a, b):
    a += b
    a[1:] *= 2
    a -= 1
    return a


def test_in_place_updates_write_the_argument_with_broadcasting():
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal(4)
    want = in_place(a.copy(), b)
    got = njit(in_place)(a, b)
    same(got, want)
    same(a, want)  # the caller's array itself


def test_in_place_updates_that_would_need_a_bigger_array_raise():
    f = njit(in_place)
    with pytest.raises(ValueError, match="non-broadcastable output operand"):
        f(np.ones((3, 1)), np.ones((3, 4)))
    with pytest.raises(ember.JitError, match="Cannot cast ufunc 'add' output from dtype\\('float64'\\)"):
        f(np.ones(3, dtype=np.int64), np.ones(3))


def test_astype_and_copy_make_new_arrays():
    def f(a):
        b = a.copy()
        b[0] = 100
        return a.astype(np.int32), b, a.astype(np.float32) * 2
    a = RNG.standard_normal(5) * 10
    run_both(f, a)
    assert a[0] != 100


def test_array_expressions_in_loops_and_parallel_functions():
    def relax(u, steps):
        for _ in range(steps):
            u[1:-1] = 0.5 * (u[:-2] + u[2:])
        return u.sum()
    u = RNG.standard_normal(50)
    want = relax(u.copy(), 20)
    assert njit(relax)(u.copy(), 20) == pytest.approx(want, rel=1e-12)
    assert njit(parallel=True)(relax)(u.copy(), 20) == pytest.approx(want, rel=1e-12)


def test_kernels_still_refuse_whole_array_arithmetic():
    @ember.cuda.jit
    def kernel(out, a):
        out[0] = (a * 2)[0]
    with pytest.raises(ember.JitError, match="whole-array arithmetic is not available inside kernels"):
        kernel[1, 1](ember.zeros(1), ember.ones(3))


def test_scalar_exponents_take_numpys_fast_paths():
    def powers(a):
        return a ** 0.5, a ** 2, a ** -1.0, a ** 1, a ** 3.0, np.power(a, 0.5)
    a = np.array([-0.0, 0.0, -np.inf, np.inf, 2.25, -3.0, np.nan])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = powers(a)
        got = njit(powers)(a)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(np.signbit(g), np.signbit(w))


def test_writes_over_memory_that_is_also_read_see_the_values_before_the_write():
    def reversed_sum(a):
        a += a[::-1]
        return a

    def shift(a):
        a[1:] = a[:-1]
        return a

    def running(a):
        a[:, 1:] *= a[:, :-1]
        return a

    def apart(a, b):
        a -= b
        return a
    for f, args in [(reversed_sum, (np.arange(7.0),)), (shift, (RNG.standard_normal(9),)),
                    (running, (RNG.standard_normal((3, 5)),)), (apart, (np.arange(4.0), np.ones(4)))]:
        run_both(f, *args)
    base = np.arange(10.0)
    run_both(apart, base[2:6], base[4:8])


def test_a_whole_expression_is_one_loop_with_each_operations_dtype():
    # int8 + int8 wraps at int8 before the float multiply, as the operator-by-operator result.
    def mixed(a, b, x):
        return (a + b) * x - np.sqrt(np.abs(x)) / (a - 1.5) > 0.25, (a + b) * 0.5

    a = np.array([100, -100, 7, 127], dtype=np.int8)
    run_both(mixed, a, a, RNG.standard_normal(4))
    run_both(mixed, a, a, np.float32(2.5))


def along_axes(a):
    return (a.sum(axis=0), a.sum(1), np.sum(a, axis=-1), a.prod(axis=1), a.min(axis=0), np.max(a, 1),
            a.mean(axis=0), np.mean(a, axis=1), a.any(axis=0), np.all(a > 0, axis=1), a.sum(axis=None))


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8, np.bool_])
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 5)])
def test_reductions_along_an_axis_match_numpy(dtype, shape):
    a = data(dtype, shape)
    if dtype != np.bool_:
        run_both(along_axes, a)
    run_both(lambda a: (a.sum(axis=0), a.max(axis=-1), np.any(a, axis=1), a.argmax(axis=0), np.argmin(a, axis=-1)), a)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 5)])
def test_var_and_std_along_an_axis_match_numpy(dtype, shape):
    a = data(dtype, shape) * 3 + 1
    f = njit(lambda a: (a.var(axis=0), np.var(a, axis=-1), a.std(axis=1), np.std(a, 0), a.var(axis=None)))
    got, want = f(a), (a.var(axis=0), np.var(a, axis=-1), a.std(axis=1), np.std(a, 0), a.var(axis=None))
    for g, w in zip(got[:-1], want[:-1], strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
    for g, w in zip(got, want, strict=True):
        # float32 input: ember accumulates in float64 then rounds (NumPy in float32).
        np.testing.assert_allclose(g, w, rtol=1e-6 if dtype == np.float32 else 1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        same(njit(lambda a: a.var(axis=1))(np.ones((2, 0))), np.ones((2, 0)).var(axis=1))  # NaN, as NumPy


def test_reductions_along_an_axis_check_the_axis_and_empty_axes():
    with pytest.raises(ember.JitError, match="axis 2 is out of bounds for array of dimension 2"):
        njit(lambda a: a.sum(axis=2))(np.ones((2, 3)))
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        njit(lambda a: a.max(axis=1))(np.ones((3, 0)))
    assert njit(lambda a: a.max(axis=0))(np.ones((3, 0))).shape == (0,)
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        njit(lambda a: a.argmax(axis=1))(np.ones((2, 0)))
    nan_rows = np.array([[1.0, np.nan, 3.0, np.nan], [2.0, 5.0, 5.0, 0.0]])
    run_both(lambda a: (a.argmax(axis=1), a.argmin(axis=1), a.argmax(axis=0)), nan_rows)
    same(njit(lambda a: a.sum(axis=1))(np.ones((3, 0))), np.zeros(3))


def test_python_ints_with_narrow_integer_arrays_follow_nep_50():
    a = np.arange(5, dtype=np.uint8)
    run_both(lambda a: (a > -1, a < 300, a == -5, a != 256), a)
    add = njit(lambda a, n: a + n)
    same(add(a, 3), a + 3)
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for uint8"):
        add(a, 300)
    with pytest.raises(OverflowError, match="Python integer -1 out of bounds for uint8"):
        add(a, -1)
    same(add(a, 255), a + 255)  # in range: wraps as NumPy's uint8 does
    with pytest.raises(ember.JitError, match="Python integer 300 out of bounds for uint8"):
        njit(lambda a: a * 300)(a)


def nan_reductions(a):
    return (np.nansum(a), np.nanprod(a), np.nanmin(a), np.nanmax(a), np.nanmean(a), np.nanvar(a),
            np.nanstd(a), np.nanargmin(a), np.nanargmax(a))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
@pytest.mark.parametrize("shape", [(9,), (3, 5)])
def test_reductions_that_skip_nans_match_numpy(dtype, shape):
    a = data(dtype, shape)
    if a.dtype.kind == "f":
        a.flat[[0, 4]] = np.nan  # the first element too: the arg-extrema start past it
    got, want = njit(nan_reductions)(a), nan_reductions(a)
    for name, g, w in zip(["sum", "prod", "min", "max", "mean", "var", "std", "argmin", "argmax"], got, want,
                          strict=True):
        # float32: NumPy adds pairwise in float32; ember adds sums in order, means and squares
        # in float64.
        rtol = 1e-5 if dtype == np.float32 else 1e-13
        np.testing.assert_allclose(g, w, rtol=rtol, err_msg=name)


def test_reductions_that_skip_nans_of_nans_only_or_nothing_give_numpys_values_and_errors():
    f = njit(lambda a: (np.nansum(a), np.nanmax(a), np.nanmean(a)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        total, most, mean = f(np.full(3, np.nan))
        assert total == np.nansum([np.nan] * 3) == 0.0
        assert np.isnan(most) and np.isnan(np.nanmax([np.nan] * 3))
        assert np.isnan(mean) and np.isnan(np.nanmean([np.nan] * 3))
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        njit(lambda a: np.nanargmax(a))(np.full(4, np.nan))
    with pytest.raises(ValueError, match="zero-size array to reduction operation fmin which"):
        njit(lambda a: np.nanmin(a))(np.ones(0))
    with pytest.raises(ember.JitError, match=r"nansum\(axis=...\) is not supported"):
        njit(lambda a: np.nansum(a, axis=0))(np.ones((2, 2)))


def from_items(x, n):
    return (np.array([1, 2, 3]), np.array([[1.5, 2], [3, 4]]), np.array((x, n)), np.array([True, False]),
            np.array([1, 2], dtype=np.float32), np.array([x, 2 * x], np.int8), np.asarray([n, n + 1]),
            np.array(x), np.array([]), np.array([[[7]], [[n * n]]], dtype="u2"))


def test_np_array_of_numbers_in_lists_and_tuples_gives_numpys_array():
    run_both(from_items, 2.5, 3)
    run_both(from_items, -7.25, -1)


def test_np_array_copies_an_array_and_asarray_keeps_it():
    a = RNG.standard_normal(5)
    copied, kept, converted = njit(lambda a: (np.array(a), np.asarray(a), np.asarray(a, dtype=np.int32)))(a)
    assert not np.shares_memory(copied, a) and np.shares_memory(kept, a)
    same(copied, a)
    same(converted, a.astype(np.int32))
    with pytest.raises(ember.JitError, match="inhomogeneous shape after 1 dimensions"):
        njit(lambda: np.array([[1, 2], [3]]))()


def walk_positions(a):
    s, kept = 0.0, 0
    for idx, x in np.ndenumerate(a):
        if x < 0:
            continue  # the position still moves on
        s += x * (idx[0] + 1)
        kept += 1
    for i, j in np.ndindex(a.shape):
        s += i * 10 + j
    for t in np.ndindex(2, 3, 2):
        s += t[0] * 100 + t[2]
    for _ in np.ndindex():
        s += 1000  # no axes: one position
    for i, j in ember.pndindex(3, 2):
        if i == 2:
            break
        s -= j
    return s, kept


def test_ndenumerate_ndindex_and_pndindex_walk_positions_in_c_order():
    a = RNG.standard_normal((3, 4))
    assert njit(walk_positions)(a) == walk_positions(a)
    assert njit(walk_positions)(a[::2, ::-1]) == walk_positions(a[::2, ::-1])


def clipped(a, b, x):
    return (np.clip(a, 1.5, 3), np.clip(b, 1, 3), np.clip(a, None, 2), a.clip(0.5, None), np.clip(x, 0, 1),
            np.clip(a, b, 3), np.clip(a, a_min=1, a_max=2))


def test_clip_gives_numpys_values_dtypes_and_nans():
    a = RNG.standard_normal(9) * 3
    a[4] = np.nan
    run_both(clipped, a, np.arange(9, dtype=np.int8), 2.5)


def eyes(n, m, k):
    return (np.eye(n), np.eye(n, m), np.eye(n, m, k), np.eye(n, k=-k), np.identity(n), np.eye(n, dtype=np.int32),
            np.eye(0), np.eye(n, m, 10), np.eye(n, None, k))


@pytest.mark.parametrize("n, m, k", [(3, 4, 1), (4, 2, 2), (1, 1, 0)])
def test_eye_and_identity_match_numpy(n, m, k):
    run_both(eyes, n, m, k)


def test_eye_of_a_negative_size_raises_numpys_error():
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        njit(lambda n: np.eye(n))(-1)


def along_a_given_axis(a, ax):
    return a.sum(axis=ax), np.max(a, ax), a.mean(axis=ax), np.argmin(a, axis=ax)


@pytest.mark.parametrize("ax", [0, 1, -1, -2])
def test_an_axis_known_only_when_the_function_runs_reduces_as_numpy(ax):
    a = RNG.standard_normal((3, 4))
    f = njit(along_a_given_axis)
    for g, w in zip(f(a, ax), along_a_given_axis(a, ax), strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-14)
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds for array of dimension 2"):
        f(a, 2)
    assert njit(lambda b, k: b.sum(axis=k))(np.arange(5.0), -1) == 10.0


def test_argwhere_is_fortran_ordered_and_an_argument_returned_is_that_object():
    m = RNG.standard_normal((5, 4)) > 0.3
    got, want = njit(lambda m: np.argwhere(m))(m), np.argwhere(m)
    same(got, want)
    assert got.strides == want.strides  # NumPy's argwhere: nonzero's arrays, transposed
    x = RNG.standard_normal(6)
    assert njit(lambda a: a)(x) is x  # as Numba returns it
    assert njit(lambda a: np.asarray(a))(x) is x
    assert njit(lambda a: a[1:])(x) is not x
