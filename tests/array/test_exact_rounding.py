"""ember's own kernels give NumPy's numbers to the bit wherever NumPy's are exactly rounded:
each operation rounds on its own (no multiply-add contraction), in the dtype NumPy computes in.

Runs on whatever backend is selected: PoCL's CPU device in CI, CUDA on a GPU machine. The
CUDA side is also checked without a GPU by `cargo test` (crates/ember-array/tests/
rounding_nvrtc.rs: the PTX of ember's kernels has no contracted multiply-add).
"""

import ember
import numpy as np
import pytest
from ember import _ember


def assert_bits_equal(got, want):
    got = got.get() if isinstance(got, ember.ndarray) else got
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    assert got.tobytes() == want.tobytes(), f"{np.sum(got != want)} of {want.size} differ\n{got}\n{want}"


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((-5, 5, 101), {}),  # the case: 52 of 101 differed with a multiply-add
        ((3, -7.5, 1000), {}),
        ((-3.5, 7.25, 11), {"endpoint": False}),
        ((2, 2, 1), {}),
        ((790.5, 1.0, 1), {"endpoint": False}),
        ((0, 1, 7), {"dtype": "float32"}),  # computed in float64, then cast
        ((0.3, 1e6, 1001), {"dtype": "float32"}),
        ((np.float32(0.1), np.float32(1.3), 50), {}),  # computed in float32
        ((0.1, np.float32(1), 333), {}),
        ((0, 1, 7), {"dtype": "float16"}),
        ((np.float16(0.1), 3.0, 50), {}),  # computed in float16, rounded after each step
        ((1 + 1j, -1 - 2j, 6), {}),
        ((-5, 5, 9), {"dtype": "int8"}),  # floored
        ((0, 1e-320, 5), {}),  # the step underflows: NumPy divides, then multiplies
    ],
)
def test_linspace_is_numpys_to_the_bit(args, kwargs):
    got, step = ember.linspace(*args, retstep=True, **kwargs)
    want, want_step = np.linspace(*args, retstep=True, **kwargs)
    assert_bits_equal(got, want)
    np.testing.assert_equal(step, want_step)


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((0.1, 100, 0.37), {}),
        ((-5, 5, 0.1), {}),
        ((-0.0, 3), {}),  # the first value keeps its sign
        ((0, 1, 0.1), {"dtype": "float32"}),  # NumPy fills in float32
        ((1e8, 1e8 + 100, 0.3), {"dtype": "float32"}),
        ((0, 20000, 1.1), {"dtype": "float16"}),  # NumPy fills float16 in float
        ((10,), {}),
        ((-3, 3), {"dtype": "int8"}),
        ((0.5, 3), {"dtype": "uint16"}),
        ((4,), {"dtype": "complex64"}),
        ((3, 5), {"dtype": bool}),
    ],
)
def test_arange_is_numpys_to_the_bit(args, kwargs):
    assert_bits_equal(ember.arange(*args, **kwargs), np.arange(*args, **kwargs))


@pytest.mark.parametrize(
    "args, kwargs",
    [((0, 3, 4), {}), ((-2, 5, 8), {"base": 2.0}), ((0, 3, 4), {"dtype": "float32"}),
     ((3, 0, 3), {"endpoint": False})],
)
def test_logspace_of_whole_exponents_is_numpys_to_the_bit(args, kwargs):
    assert_bits_equal(ember.logspace(*args, **kwargs), np.logspace(*args, **kwargs))


@pytest.mark.parametrize(
    "args, kwargs",
    [((0, 1, 5), {}), ((1, 2, 7), {"base": 2.0}), ((0, 3, 4), {"base": [2.0, 10.0]}),
     ((-1, 2, 10), {"endpoint": False, "dtype": "float32"}), ((0, 1j, 5), {})],
)
def test_logspace_matches_numpy(args, kwargs):
    """Fractional exponents go through pow, which no libm rounds exactly: close, not equal."""
    got, want = ember.logspace(*args, **kwargs), np.logspace(*args, **kwargs)
    assert (got.dtype, got.shape) == (want.dtype, want.shape)
    np.testing.assert_allclose(got.get(), want, rtol=4 * np.finfo(want.dtype).eps)


@pytest.mark.parametrize(
    "args, kwargs",
    [((1, 1000, 4), {}), ((1, 256, 9), {}), ((-1, -1000, 5), {}), ((1j, 1000j, 4), {}),
     ((2, 3, 7), {"endpoint": False}), ((1, 1000, 5), {"dtype": "float32"})],
)
def test_geomspace_matches_numpy_with_exact_ends(args, kwargs):
    got, want = ember.geomspace(*args, **kwargs).get(), np.geomspace(*args, **kwargs)
    assert (got.dtype, got.shape) == (want.dtype, want.shape)
    np.testing.assert_allclose(got, want, rtol=4 * np.finfo(want.dtype).eps)
    assert got[0] == want[0] and (not kwargs.get("endpoint", True) or got[-1] == want[-1])


def test_geomspace_refuses_zero_as_numpy_does():
    with pytest.raises(ValueError, match="cannot include zero"):
        ember.geomspace(0, 10, 3)


EXPRESSIONS = {
    "chain": lambda a, b, c, d: (a * 10 + 2) * ((b + 2) * 10 - 5) * 5,
    "axpy": lambda a, b, c, d: a * b + c,
    "two products": lambda a, b, c, d: a * b - c * d,
    "squares": lambda a, b, c, d: a * a + b * b,
}


def operands(dtype):
    rng = np.random.default_rng(20261121)
    return [rng.standard_normal(1000).astype(dtype) for _ in range(4)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", EXPRESSIONS)
def test_ufunc_chains_are_numpys_to_the_bit_eager_and_fused(name, dtype, no_fusion):
    f, host = EXPRESSIONS[name], operands(dtype)
    want = f(*host)
    arrays = [ember.asarray(h) for h in host]
    assert_bits_equal(f(*arrays), want)
    _ember.set_fusion(True, 1, 1)
    fused_before = _ember.fusion_stats()[1]
    for _ in range(2):  # the second sighting runs as one fused kernel
        assert_bits_equal(f(*arrays), want)
    assert _ember.fusion_stats()[1] > fused_before, "the expression was not fused"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["chain", "squares"])
def test_fuse_is_numpys_to_the_bit(name, dtype):
    f, host = EXPRESSIONS[name], operands(dtype)
    assert_bits_equal(ember.fuse(f)(*[ember.asarray(h) for h in host]), f(*host))


def test_float32_division_and_sqrt_are_correctly_rounded():
    a, b, _, _ = operands("float32")
    x, y = ember.asarray(a), ember.asarray(b)
    assert_bits_equal(x / y, a / b)
    assert_bits_equal(ember.sqrt(ember.absolute(x)), np.sqrt(np.abs(a)))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_products_and_quotients_are_numpys_to_the_bit(dtype):
    a, b, c, d = operands("float64")
    x, y = (a + 1j * b).astype(dtype), (c + 1j * d).astype(dtype)
    ex, ey = ember.asarray(x), ember.asarray(y)
    assert_bits_equal(ex / ey, x / y)  # Smith's algorithm, each operation rounded
    separate = x.real * y.real - x.imag * y.imag
    if np.array_equal((x * y).real, separate):
        pytest.skip("this NumPy rounds each product of a complex multiply (a CPU without FMA)")
    # NumPy's SIMD loops: real fma(ar, br, -(ai * bi)), imaginary fma(ar, bi, ai * br).
    assert_bits_equal(ex * ey, x * y)
    assert_bits_equal(ember.square(ex), np.square(x))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mean_divides_an_exact_sum_once(dtype):
    """Multiples of 1/8 sum exactly in any order, so NumPy's mean is one rounded division."""
    host = (np.random.default_rng(7).integers(-1000, 1000, 37) / 8).astype(dtype)
    assert_bits_equal(ember.mean(ember.asarray(host)), np.asarray(np.mean(host)))
    np.testing.assert_allclose(ember.var(ember.asarray(host)).get(), np.var(host), rtol=1e-6)


def test_fused_kernels_round_where_snippets_contract_as_cupys():
    """An ElementwiseKernel snippet compiles as CuPy compiles it, where the compiler contracts
    x * y + z into one multiply-add; ember.fuse's kernel of the same expression does not."""
    x, y, z, _ = operands("float64")
    want = x * y + z
    args = [ember.asarray(v) for v in (x, y, z)]
    fused = ember.fuse(lambda a, b, c: a * b + c)(*args)
    assert_bits_equal(fused, want)
    if ember.backend() != "cuda":
        pytest.skip("whether the OpenCL compiler contracts depends on the device (PoCL: its CPU)")
    snippet = ember.ElementwiseKernel("T x, T y, T z", "T o", "o = x * y + z", "ember_test_axpy")(*args)
    assert not np.array_equal(snippet.get(), want), "NVRTC contracts snippets by default (-fmad=true)"


@pytest.mark.gpu
def test_cuda_generated_kernels_turn_contraction_off():
    """On the GPU: the issue's linspace and a chain NVRTC would contract are NumPy's."""
    assert_bits_equal(ember.linspace(-5, 5, 101), np.linspace(-5, 5, 101))
    x, y, _, _ = operands("float32")
    assert_bits_equal(ember.fuse(lambda a, b: a * a + b * b)(ember.asarray(x), ember.asarray(y)), x * x + y * y)
