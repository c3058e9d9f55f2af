"""``@vectorize(target="cpu"|"parallel")`` compiled for this processor: the ufunc gives what NumPy
gives applying the Python function to every element (broadcasting, ``out=``, dtypes), with
NumPy's ``reduce``/``accumulate``/``outer``, and raises the function's exceptions."""

import math

import ember
import numpy as np
import pytest
from ember import vectorize

RNG = np.random.default_rng(20261128)


def rel_diff(x, y):
    return abs(x - y) / (abs(x) + abs(y) + 1.0)


def reference(f, *args):
    """``f`` applied element by element by the interpreter, broadcast as NumPy broadcasts."""
    arrays = np.broadcast_arrays(*[np.asarray(a) for a in args])
    return np.array([f(*items) for items in zip(*[a.ravel().tolist() for a in arrays], strict=True)]).reshape(
        arrays[0].shape)


@pytest.mark.parametrize("target", ["cpu", "parallel"])
def test_a_lazy_ufunc_broadcasts_as_numpy_and_types_by_its_inputs(target):
    uf = vectorize(target=target)(rel_diff)
    a, b = RNG.standard_normal((4, 5)), RNG.standard_normal(5)
    got = uf(a, b)
    assert got.dtype == np.float64 and got.shape == (4, 5)
    np.testing.assert_allclose(got, reference(rel_diff, a, b), rtol=1e-15)
    ints = uf(np.arange(6).reshape(2, 3), 2)
    np.testing.assert_allclose(ints, reference(rel_diff, np.arange(6).reshape(2, 3), 2), rtol=1e-15)
    assert uf(3.0, 1.0) == pytest.approx(rel_diff(3.0, 1.0)) and np.ndim(uf(3.0, 1.0)) == 0


def test_declared_signatures_pick_numpys_loop_and_convert():
    @vectorize(["float32(float32, float32)", "float64(float64, float64)"])
    def mul_add(x, y):
        return x * y + 1
    assert mul_add.types == ["ff->f", "dd->d"] and mul_add.ntypes == 2 and mul_add.nin == 2
    f32 = RNG.standard_normal(7).astype(np.float32)
    assert mul_add(f32, f32).dtype == np.float32
    assert mul_add(np.arange(4), 2.0).dtype == np.float64
    np.testing.assert_allclose(mul_add(np.arange(4), 2.0), np.arange(4) * 2.0 + 1)
    with pytest.raises(TypeError, match="not supported for the input types"):
        mul_add(np.ones(2, np.complex128), 1.0)


def test_out_is_written_and_returned():
    uf = vectorize(["float64(float64, float64)"])(lambda x, y: x - y)
    a = RNG.standard_normal((3, 4))
    out = np.empty((3, 4))
    assert uf(a, 1.0, out=out) is out
    np.testing.assert_array_equal(out, a - 1.0)
    wide = np.zeros((2, 3, 4))
    uf(a, a, out=wide)
    assert not wide.any()
    with pytest.raises(ValueError, match="non-broadcastable output operand"):
        uf(a, a, out=np.empty(4))


def test_strided_inputs_are_read_through_their_strides():
    uf = vectorize(lambda x, y: x * 10 + y)
    a = RNG.standard_normal((6, 8))
    np.testing.assert_array_equal(uf(a[::2, 1::3], a.T[:3, 2:5]), a[::2, 1::3] * 10 + a.T[:3, 2:5])


@pytest.mark.parametrize("target", ["cpu", "parallel"])
def test_reduce_accumulate_and_outer_follow_numpy(target):
    add = vectorize(["int64(int64, int64)", "float64(float64, float64)"], identity=0, target=target)(
        lambda x, y: x + y)
    a = RNG.integers(-50, 50, (4, 5, 6))
    for axis in (0, 1, 2, -1, None, (0, 2)):
        np.testing.assert_array_equal(add.reduce(a, axis=axis), np.add.reduce(a, axis=axis))
    np.testing.assert_array_equal(add.reduce(a, axis=1, keepdims=True), np.add.reduce(a, axis=1, keepdims=True))
    assert add.reduce(np.ones(0)) == 0.0
    assert add.reduce(np.arange(5.0), initial=10.0) == 20.0
    np.testing.assert_array_equal(add.accumulate(a, axis=1), np.add.accumulate(a, axis=1))
    np.testing.assert_array_equal(add.outer(np.arange(3), np.arange(4)), np.add.outer(np.arange(3), np.arange(4)))


def test_a_reduction_of_nothing_without_an_identity_is_numpys_error():
    largest = vectorize(lambda x, y: max(x, y))
    assert largest.reduce(np.array([3.0, 9.0, 1.0])) == 9.0
    with pytest.raises(ValueError, match="zero-size array to reduction operation <lambda> which has no identity"):
        largest.reduce(np.ones(0))
    with pytest.raises(ValueError, match="reduce only supported for binary functions"):
        vectorize(lambda x: x).reduce(np.ones(3))


def test_exceptions_raised_by_the_function_reach_the_caller():
    def checked(x):
        if x < 0:
            raise ValueError("negative input")
        return math.sqrt(x)
    for target in ("cpu", "parallel"):
        uf = vectorize(target=target)(checked)
        np.testing.assert_allclose(uf(np.arange(4.0)), np.sqrt(np.arange(4.0)))
        with pytest.raises(ValueError, match="negative input"):
            uf(np.array([1.0, -1.0, 2.0]))
    # A zero divisor is not an exception in a ufunc (Numba's error_model='numpy'): NumPy's 0.
    np.testing.assert_array_equal(vectorize(lambda x, y: x // y)(np.arange(3), 0), [0, 0, 0])


def test_compiled_functions_call_the_ufunc_on_numbers():
    uf = vectorize(["float64(float64)"])(lambda x: x * x + 1.0)

    @ember.njit
    def use(x):
        return uf(x) * 2.0
    assert use(3.0) == 20.0


def test_device_arrays_are_refused_with_a_hint():
    uf = vectorize(lambda x: x)
    with pytest.raises(TypeError, match="target='cuda'"):
        uf(ember.ones(3))


# ---- guvectorize ----

def row_dot(a, b, out):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    out[0] = s


def scaled(m, k, out):
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            out[i, j] = m[i, j] * k


@pytest.mark.parametrize("target", ["cpu", "parallel"])
def test_guvectorize_loops_over_broadcast_outer_dimensions(target):
    dot = ember.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()", target=target)(row_dot)
    a, b = RNG.standard_normal((3, 4, 6)), RNG.standard_normal(6)
    want = np.einsum("ijk,k->ij", a, b)
    np.testing.assert_allclose(dot(a, b), want, rtol=1e-13)
    out = np.empty((3, 4))
    assert dot(a, b, out) is out
    np.testing.assert_allclose(out, want, rtol=1e-13)
    scale = ember.guvectorize(["void(float32[:,:], float32, float32[:,:])"], "(m,n),()->(m,n)",
                              target=target)(scaled)
    m = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    k = np.array([2.0, -1.0], dtype=np.float32)
    got = scale(m, k)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, m * k[:, None, None])


def test_guvectorize_checks_core_dimensions_and_arguments():
    dot = ember.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()")(row_dot)
    with pytest.raises(ValueError, match="core dimension 'n' is 3 and 4"):
        dot(np.ones(3), np.ones(4))
    with pytest.raises(TypeError, match="accepts 2 positional arguments"):
        dot(np.ones(3))
    with pytest.raises(TypeError, match="has no loop for inputs"):
        dot(np.ones(3, np.complex128), np.ones(3))


def test_a_ufunc_loop_on_vector_lanes_keeps_c_pows_special_values():
    uf = vectorize(["float64(float64, float64)"])(lambda x, y: (x * x + y) ** 0.5)
    x = np.array([0.0, -0.0, 1.5, np.inf, np.nan, 2.0, -3.0, 0.25, 7.0])
    y = np.array([-0.0, -0.0, 0.0, -np.inf, 1.0, -np.inf, 1.0, 0.0, -49.0])
    got = uf(x, y)
    want = [math.pow(a * a + b, 0.5) if a * a + b >= 0 or math.isinf(a * a + b) or math.isnan(a * a + b)
            else math.nan for a, b in zip(x.tolist(), y.tolist(), strict=True)]
    np.testing.assert_array_equal(got, want)
    numbers = ~np.isnan(got)  # (a NaN's sign means nothing)
    np.testing.assert_array_equal(np.signbit(got)[numbers], np.signbit(want)[numbers])


def test_a_ufunc_divides_by_zero_as_numpy_does():
    # Numba compiles ufuncs with error_model='numpy': inf and NaN, never ZeroDivisionError.
    a, b = np.array([5.0, 6.0, 0.0, -1.0]), np.array([1.0, 0.0, 0.0, 0.0])
    for target in ("cpu", "parallel"):
        f = ember.vectorize(["int64(int64, int64)", "float64(float64, float64)"], target=target)(
            lambda x, y: x / y if x > 100 else x // y)
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(f(a, b), a // b)
            np.testing.assert_array_equal(f(a.astype(np.int64), b.astype(np.int64)),
                                          a.astype(np.int64) // b.astype(np.int64))


def test_the_first_declared_loop_the_inputs_cast_to_is_taken_as_numpy_takes_it():
    # NumPy's linear search: 'dd->d' comes before the exact match 'df->f' (Numba's ufunc: float64).
    add = ember.vectorize(["bool_(float64, int64)", "float64(float64, float64)", "float32(float64, float32)"])(
        lambda a, b: a + b)
    assert add.types == ["dl->?", "dd->d", "df->f"]
    got = add(np.arange(3.0), np.arange(3, dtype=np.float32))
    assert got.dtype == np.float64 and got.tolist() == [0.0, 2.0, 4.0]


def test_the_output_array_may_be_passed_positionally_and_jit_functions_vectorize():
    double = ember.vectorize(["float64(float64)"])(ember.jit(lambda x: x * 2.0))
    x, out = np.arange(3.0), np.zeros(3)
    assert double(x, out) is out and out.tolist() == [0.0, 2.0, 4.0]
    with pytest.raises(TypeError, match="output array twice"):
        double(x, out, out=out)


def test_a_gufunc_keeps_its_functions_docstring_and_module():
    def copy(x, res):
        """copies x"""
        for i in range(x.shape[0]):
            res[i] = x[i]
    g = ember.guvectorize(["void(float64[:], float64[:])"], "(n)->(n)")(copy)
    assert (g.__doc__, g.__module__, g.__name__) == ("copies x", __name__, "copy")
    np.testing.assert_array_equal(g(np.arange(4.0)), np.arange(4.0))
