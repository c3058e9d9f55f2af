"""ember.fuse (cupy.fuse): an elementwise function of arrays as one kernel, compared with the
same function run by NumPy on the same data."""

import ember
import numpy as np
import pytest

rng = np.random.default_rng(42)


def host(shape, dtype, low=-3.0, high=3.0):
    return rng.uniform(low, high, size=shape).astype(dtype)


def test_the_benchmark_expression_matches_numpy_in_float32():
    @ember.fuse
    def expression(a, b):
        return (a * 10 + 2) * ((b + 2) * 10 - 5) * 5

    a, b = host(10_007, np.float32), host(10_007, np.float32)
    got = expression(ember.asarray(a), ember.asarray(b))
    want = expression.func(a, b)  # NumPy 2: Python ints are weak, float32 throughout
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_allclose(got.get(), want, rtol=1e-6, atol=1e-3)
    assert len(expression._kernels) == 1
    expression(ember.asarray(b), ember.asarray(a))  # same signature: the same kernel
    assert len(expression._kernels) == 1


def test_ufuncs_where_and_mixed_dtypes_promote_as_numpy_does():
    @ember.fuse(kernel_name="mixed")
    def mixed(x, n, xp=ember):
        leaky = xp.where(x > 0, x, 0.1 * x)
        return xp.sqrt(xp.abs(leaky)) + xp.exp(-x) * n // 3

    x, n = host((64, 33), np.float32), rng.integers(-50, 50, size=(64, 33), dtype=np.int32)
    got = mixed(ember.asarray(x), ember.asarray(n))
    want = mixed.func(x, n, np)
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_allclose(got.get(), want, rtol=1e-6)


def test_broadcasting_views_and_several_outputs():
    @ember.fuse
    def both(x, y):
        return x + y, x * y - 1

    x, y = host((3, 1, 40), np.float64), host((7, 80), np.float64)
    dx, dy = ember.asarray(x), ember.asarray(y)[:, ::-2]  # a negative-stride view
    s, p = both(dx, dy)
    np.testing.assert_allclose(s.get(), x + y[:, ::-2])
    np.testing.assert_allclose(p.get(), x * y[:, ::-2] - 1)
    assert s.shape == (3, 7, 40)


def test_integer_division_signs_and_weak_scalar_arguments():
    @ember.fuse
    def divmod_shift(a, b, k):
        return a // b + a % b * k

    a = rng.integers(-100, 100, size=999, dtype=np.int16)
    b = rng.integers(1, 9, size=999, dtype=np.int16) * rng.choice([-1, 1], size=999).astype(np.int16)
    got = divmod_shift(ember.asarray(a), ember.asarray(b), 3)
    want = divmod_shift.func(a, b, 3)
    assert got.dtype == want.dtype == np.int16  # the Python int 3 is weak
    np.testing.assert_array_equal(got.get(), want)
    # A float scalar is another signature, and makes the result float64 (NumPy 2).
    got = divmod_shift(ember.asarray(a), ember.asarray(b), 0.5)
    want = divmod_shift.func(a, b, 0.5)
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_allclose(got.get(), want)
    assert len(divmod_shift._kernels) == 2


def test_astype_comparisons_and_complex():
    @ember.fuse
    def f(x, y):
        mask = (x > 0) & (y < 0.5)
        return mask, x.astype(np.float64) * 1j + y

    x, y = host(500, np.float32), host(500, np.float32)
    m, z = f(ember.asarray(x), ember.asarray(y))
    wm, wz = f.func(x, y)
    assert m.dtype == np.bool_ and z.dtype == wz.dtype == np.complex128
    np.testing.assert_array_equal(m.get(), wm)
    np.testing.assert_allclose(z.get(), wz, rtol=1e-6)


def test_numpy_arguments_run_the_plain_function():
    @ember.fuse
    def f(x):
        return x * 2 + 1

    x = host(10, np.float32)
    got = f(x)
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, x * 2 + 1)
    assert f._kernels == {}


def test_bad_fused_functions_raise_clear_errors():
    d = ember.asarray(host(8, np.float32))
    captured = ember.asarray(host(8, np.float32))

    @ember.fuse
    def branches(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(TypeError, match="cannot branch on array values.*ember.where"):
        branches(d)

    @ember.fuse
    def closure(x):
        return x + captured

    with pytest.raises(TypeError, match="uses an array that is not one of its arguments"):
        closure(d)

    @ember.fuse
    def scalar(x):
        return 3

    with pytest.raises(TypeError, match="must return an array expression"):
        scalar(d)

    @ember.fuse
    def plain(x, y):
        return x + y

    with pytest.raises(TypeError, match="argument 1 of a fused function is a ndarray.*ember.asarray"):
        plain(d, np.ones(8, np.float32))
    with pytest.raises(TypeError, match="neither out= nor dtype="):
        ember.fuse(lambda x: ember.sqrt(x, dtype=np.float64))(d)


def test_a_one_element_tuple_result_stays_a_tuple():
    @ember.fuse
    def one(x):
        return (x + 1,)

    x = host(16, np.float32)
    got = one(ember.asarray(x))
    assert isinstance(got, tuple) and len(got) == 1
    np.testing.assert_array_equal(got[0].get(), x + 1)


def test_fused_values_know_their_dtype_and_arguments_change_in_place_as_in_cupy():
    @ember.fuse
    def widen(x, y):
        z = x * 2 + y
        return z.astype(np.float32) if z.dtype.kind in "iu" else z

    assert widen(ember.arange(3, dtype=np.int8), ember.ones(3, dtype=np.int16)).dtype == np.float32
    assert widen(ember.arange(3.0), 1.5).dtype == np.float64

    @ember.fuse
    def update(x, y):
        x += y
        x *= 2

    a, h = ember.arange(4.0), np.arange(4.0)
    assert update(a, ember.ones(4)) is None
    np.testing.assert_array_equal(a.get(), (h + 1) * 2)

    @ember.fuse
    def both(x, y):
        y -= 1
        return x + y, x * y

    b = ember.full(4, 3.0)
    s, p = both(ember.arange(4.0), b)
    np.testing.assert_array_equal(b.get(), np.full(4, 2.0))
    np.testing.assert_array_equal(s.get(), np.arange(4.0) + 2)
    np.testing.assert_array_equal(p.get(), np.arange(4.0) * 2)

    @ember.fuse
    def narrowing(x):
        x += 1.5

    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output from dtype\\('float64'\\)"):
        narrowing(ember.arange(3))
    with pytest.raises(TypeError):
        x = np.arange(3)
        x += 1.5  # NumPy's own rule, the same class

    @ember.fuse
    def nothing(x):
        return None

    with pytest.raises(TypeError, match="or change its array arguments in place"):
        nothing(ember.arange(3))
