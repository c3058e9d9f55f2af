"""ElementwiseKernel and ReductionKernel, compared with NumPy on the current backend (PoCL in CI).

Kernels are created once per module and reused: every new (kernel, dtypes, layout) costs a
compile (about a second on PoCL).
"""

from __future__ import annotations

import ember as cp
import numpy as np
import pytest
from ember._ndarray import _wrap

LEAKY = cp.ElementwiseKernel("T x, T alpha", "T y", "y = x > 0 ? x : x * alpha", "leaky_relu")
MULADD = cp.ElementwiseKernel("T x, T y", "T z", "z = x * y + i", "muladd")
ACCUMULATE = cp.ElementwiseKernel("T x", "T y", "y += x", "accumulate")
REVERSE = cp.ElementwiseKernel("raw T x", "T y", "y = x[_ind.size() - i - 1]", "reverse")
SUM = cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "mysum")


def test_leaky_relu_matches_numpy(rng):
    x = rng.standard_normal((1000, 3)).astype(np.float32)
    y = LEAKY(cp.asarray(x), np.float32(0.1))
    assert isinstance(y, cp.ndarray) and y.dtype == np.float32 and y.shape == x.shape
    np.testing.assert_allclose(y.get(), np.where(x > 0, x, x * np.float32(0.1)), rtol=1e-6)


def test_python_scalar_takes_the_arrays_type(rng):
    x = rng.standard_normal(257)
    np.testing.assert_allclose(LEAKY(cp.asarray(x), 0.25).get(), np.where(x > 0, x, x * 0.25))


def test_broadcasting_and_the_loop_index(rng):
    a, b = rng.standard_normal((4, 5)), rng.standard_normal(5)
    z = MULADD(cp.asarray(a), cp.asarray(b))
    np.testing.assert_allclose(z.get(), a * b + np.arange(20).reshape(4, 5))


def test_non_contiguous_and_negative_stride_inputs(rng):
    a, c = rng.standard_normal((4, 5)), rng.standard_normal((5, 1))
    z = MULADD(cp.asarray(a).T, cp.asarray(c))
    np.testing.assert_allclose(z.get(), a.T * c + np.arange(20).reshape(5, 4))
    # Rows in reverse order: a view with a negative stride (what a[::-1] gives).
    d = cp.asarray(a)
    flipped = _wrap(d._a.view([4, 5], [-40, 8], 3 * 40, "float64"))
    z2 = MULADD(flipped, cp.asarray(c.T))
    np.testing.assert_allclose(z2.get(), a[::-1] * c.T + np.arange(20).reshape(4, 5))


def test_given_output_is_read_and_written_in_place(rng):
    x, y0 = rng.standard_normal(100), rng.standard_normal(100)
    y = cp.asarray(y0)
    out = ACCUMULATE(cp.asarray(x), y)
    assert out is not None and out.data.ptr == y.data.ptr
    np.testing.assert_allclose(y.get(), y0 + x)


def test_raw_input_is_indexed_by_the_snippet(rng):
    x = rng.standard_normal(64)
    y = cp.empty(64, dtype=np.float64)
    REVERSE(cp.asarray(x), y)
    np.testing.assert_array_equal(y.get(), x[::-1])
    # size= sets the loop when every array is raw.
    k = cp.ElementwiseKernel("raw T x", "raw T y", "y[i] = x[i] * 2", "double_raw")
    yy = cp.empty(64, dtype=np.float64)
    k(cp.asarray(x), yy, size=64)
    np.testing.assert_array_equal(yy.get(), x * 2)


def test_integer_types_and_placeholders_bound_by_outputs(rng):
    k = cp.ElementwiseKernel("int32 x, int32 y", "int32 q, int32 r", "q = x / y; r = x % y", "divmod_c")
    x = rng.integers(-1000, 1000, 50).astype(np.int32)
    y = rng.integers(1, 30, 50).astype(np.int32)
    q, r = k(cp.asarray(x), cp.asarray(y))
    # C division truncates toward zero (as in CuPy).
    np.testing.assert_array_equal(q.get(), np.trunc(x / y).astype(np.int32))
    np.testing.assert_array_equal(r.get(), x - np.trunc(x / y).astype(np.int32) * y)


def test_float16_elements_are_computed_as_float(rng):
    x = rng.standard_normal(300).astype(np.float16)
    y = LEAKY(cp.asarray(x), np.float16(0.5))
    assert y.dtype == np.float16
    np.testing.assert_allclose(y.get(), np.where(x > 0, x, x * np.float16(0.5)), rtol=1e-3)


def test_zero_size_returns_without_launching():
    y = LEAKY(cp.empty((0, 3), dtype=np.float32), 0.1)
    assert y.shape == (0, 3)


def test_preamble_functions_are_available(rng):
    k = cp.ElementwiseKernel("T x", "T y", "y = square(x) + 1", "sq1",
                             preamble="__device__ float square(float v) { return v * v; }")
    x = rng.standard_normal(40).astype(np.float32)
    np.testing.assert_allclose(k(cp.asarray(x)).get(), x * x + 1, rtol=1e-6)


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1])
def test_reduction_axes_match_numpy(rng, axis):
    m = rng.standard_normal((33, 70))
    np.testing.assert_allclose(SUM(cp.asarray(m), axis=axis).get(), m.sum(axis=axis), rtol=1e-10)


def test_reduction_keepdims_and_non_contiguous_input(rng):
    m = rng.standard_normal((20, 9))
    got = SUM(cp.asarray(m).T, axis=1, keepdims=True)
    np.testing.assert_allclose(got.get(), m.T.sum(axis=1, keepdims=True), rtol=1e-10)
    assert got.shape == (9, 1)


def test_reduction_over_broadcast_inputs_with_reduce_type(rng):
    dot = cp.ReductionKernel("T x, T y", "T z", "x * y", "a + b", "z = a", "0", "rowdot", reduce_type="double")
    x, y = rng.standard_normal((6, 40)).astype(np.float32), rng.standard_normal(40).astype(np.float32)
    np.testing.assert_allclose(dot(cp.asarray(x), cp.asarray(y), axis=1).get(), x @ y, rtol=1e-5)


def test_reduction_max_and_out_argument(rng):
    vmax = cp.ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", "-1e30", "vmax")
    m = rng.standard_normal((5, 300)).astype(np.float32)
    out = cp.empty(5, dtype=np.float32)
    got = vmax(cp.asarray(m), axis=1, out=out)
    assert got.data.ptr == out.data.ptr
    np.testing.assert_array_equal(out.get(), m.max(axis=1))


def test_reduction_indices_follow_cupy(rng):
    # _J counts inside a group; _j = _J * out_size + _i, as CuPy defines them.
    k = cp.ReductionKernel("T x", "int64 y", "_j", "a + b", "y = a", "0", "sum_j")
    got = k(cp.asarray(rng.standard_normal((2, 3))), axis=0)
    np.testing.assert_array_equal(got.get(), [3, 5, 7])


def test_empty_reduction_gives_identity_or_an_error():
    z = cp.empty((0, 3), dtype=np.float64)
    np.testing.assert_array_equal(SUM(z, axis=0).get(), [0.0, 0.0, 0.0])
    nid = cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", None, "noid")
    with pytest.raises(ValueError, match="zero-size array to reduction operation noid which has no identity"):
        nid(z, axis=0)


# --- errors ---------------------------------------------------------------------------------

def test_wrong_argument_count():
    with pytest.raises(TypeError, match=r"Wrong number of arguments for 'leaky_relu'. It must be either 2 or 3"):
        LEAKY(cp.ones(3))


def test_array_types_are_checked_not_cast():
    k = cp.ElementwiseKernel("float32 x", "float32 y", "y = x", "copy_f32")
    with pytest.raises(TypeError, match="Type is mismatched. x float64 float32"):
        k(cp.ones(3))
    with pytest.raises(TypeError, match="Type is mismatched. y int64 float64 T"):
        MULADD(cp.ones(3), cp.ones(3, dtype=np.int64))


def test_placeholder_bound_by_nothing():
    k = cp.ElementwiseKernel("T x, U s", "T y", "y = x * s", "scale_u")
    with pytest.raises(TypeError, match="cannot determine the type U of parameter 's'"):
        k(cp.ones(3), 2.0)


def test_host_arrays_are_refused_with_advice():
    with pytest.raises(TypeError, match="Unsupported type <class 'numpy.ndarray'>.*ember.asarray"):
        LEAKY(np.ones(3), 0.5)


def test_loop_size_rules():
    with pytest.raises(ValueError, match="Loop size is undecided"):
        LEAKY(1.0, 2.0)
    with pytest.raises(ValueError, match="size' can be used only if all of the ndarray are 'raw'"):
        LEAKY(cp.ones(3), 2.0, size=3)
    with pytest.raises(ValueError, match="Out shape is mismatched"):
        LEAKY(cp.ones((2, 3)), 2.0, cp.empty(3))
    with pytest.raises(ValueError, match=r"operands could not be broadcast together with shapes \(2, 3\) \(4,\)"):
        MULADD(cp.ones((2, 3)), cp.ones(4))


def test_parameter_list_errors():
    with pytest.raises(ValueError, match="Syntax error"):
        cp.ElementwiseKernel("x", "T y", "y = 1", "bad1")
    with pytest.raises(ValueError, match='Unknown keyword "foo"'):
        cp.ElementwiseKernel("foo T x", "T y", "y = x", "bad2")
    with pytest.raises(TypeError, match="data type 'float33' not understood"):
        cp.ElementwiseKernel("float33 x", "T y", "y = x", "bad3")
    with pytest.raises(ValueError, match="Can not use 'i' as a parameter name"):
        cp.ElementwiseKernel("T i", "T y", "y = i", "bad4")
    with pytest.raises(ValueError, match="used twice"):
        cp.ElementwiseKernel("T x", "T x", "x = 1", "bad5")
    with pytest.raises(ValueError, match='Invalid kernel name: "no good"'):
        cp.ElementwiseKernel("T x", "T y", "y = x", "no good")


def test_scalar_out_of_range_for_an_integer_parameter():
    k = cp.ElementwiseKernel("int8 x, int8 s", "int8 y", "y = x + s", "add_i8")
    # NumPy's class and words (numpy.int8(300) raises them); the parameter is named.
    with pytest.raises(OverflowError, match=r"Python integer 300 out of bounds for int8 \(parameter 's'\)"):
        k(cp.ones(3, dtype=np.int8), 300)
    # A NumPy scalar converts as astype does (wrapping), as CuPy passes it.
    np.testing.assert_array_equal(k(cp.ones(3, dtype=np.int8), np.int64(300)).get(), [45] * 3)


def test_snippet_that_does_not_compile_shows_numbered_source():
    k = cp.ElementwiseKernel("T x", "T y", "y = x +* ;", "broken_op")
    with pytest.raises(cp.CompileError) as info:
        k(cp.ones(3, dtype=np.float32))
    err = info.value
    assert err.backend and err.log and "broken_op" in err.source
    assert "y = x +* ;" in str(err) and " | " in str(err)


def test_cuda_long_long_in_a_body_is_64_bits_on_every_backend():
    # OpenCL C reserves `long long` (PoCL reads it as 128-bit); ember spells it `long` there.
    k = cp.ElementwiseKernel("I k, int64 n", "int64 y",
                                "long long j = (long long)k; if (j < 0) j += n; unsigned long long u = j; y = u",
                                "ember_test_long_long")
    got = k(cp.asarray(np.array([2**64 - 1, 1, 2**63 + 2], np.uint64)), 5)
    np.testing.assert_array_equal(got.get(), np.array([4, 1, -2**63 + 2 + 5]))
