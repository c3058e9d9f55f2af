"""Complex arithmetic is the prelude's: one definition for every frontend. Division is Smith's, as
NumPy divides, so ufuncs, fusion, ElementwiseKernel and ``@cuda.jit`` kernels give the same quotient,
and NumPy's, where the naive formula overflows or underflows (``|b|**2`` out of range)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from ember import cuda


def extreme_pairs(dtype) -> tuple[np.ndarray, np.ndarray]:
    """Numerators and divisors whose squared magnitudes leave `dtype`'s range, both ways,
    and random ones of every scale (fixed seed)."""
    real = np.finfo(dtype)  # of the real parts
    big, tiny = real.max / 4, real.tiny * 4
    rng = np.random.default_rng(20261125)
    fixed = [
        (complex(big, big), complex(big, big)),          # 1 (naive: inf/inf = nan)
        (complex(tiny, tiny), complex(tiny, tiny)),      # 1 (naive: 0/0 = nan)
        (complex(big, -tiny), complex(tiny, big)),       # -i * big/big ...
        (complex(1, 1), complex(big, big)),              # tiny but not zero
        (complex(big, 1), complex(tiny, 0)),             # overflows to inf, as NumPy
        (complex(1, 2), complex(0, 0)),                  # a zero divisor: each part / 0
        (complex(3, -4), complex(-2, 5)),
    ]
    exponents = rng.uniform(np.log10(real.tiny) + 2, np.log10(real.max) - 2, (2, 4, 200))
    signs = rng.choice([-1.0, 1.0], (2, 4, 200))
    parts = signs * 10.0 ** exponents
    a = np.array([p for p, _ in fixed] + list(parts[0, 0] + 1j * parts[0, 1]), dtype=dtype)
    b = np.array([q for _, q in fixed] + list(parts[1, 0] + 1j * parts[1, 1]), dtype=dtype)
    return a, b


@cuda.jit
def divide_kernel(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] / b[i]


def jit_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = ember.empty(a.shape, a.dtype)
    divide_kernel[(a.size + 63) // 64, 64](ember.asarray(a), ember.asarray(b), out)
    return out.get()


def same_values(got: np.ndarray, want: np.ndarray, rtol: float) -> None:
    """Equal to `rtol` in each part, with infinities, NaNs and zeros where `want` has them."""
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        np.testing.assert_array_equal(np.isinf(g), np.isinf(w))
        finite = np.isfinite(w)
        np.testing.assert_allclose(g[finite], w[finite], rtol=rtol, atol=0)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_array_division_matches_numpy_at_extreme_magnitudes(dtype):
    a, b = extreme_pairs(dtype)
    with np.errstate(all="ignore"):
        want = a / b
    got = (ember.asarray(a) / ember.asarray(b)).get()
    same_values(got, want, rtol=4 * np.finfo(want.real.dtype).eps)
    np.testing.assert_allclose(got[:2], 1, rtol=1e-6)  # naive division: nan


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_jit_kernel_divides_as_arrays_do_at_extreme_magnitudes(dtype):
    a, b = extreme_pairs(dtype)
    arrays = (ember.asarray(a) / ember.asarray(b)).get()
    kernel = jit_divide(a, b)
    # The kernel may contract a product and a sum into one multiply-add, as Numba's do;
    # arrays round each operation: a few ulps apart at most, never nan for a number.
    same_values(kernel, arrays, rtol=4 * np.finfo(arrays.real.dtype).eps)
    np.testing.assert_allclose(kernel[:2], 1, rtol=1e-6)  # naive division: nan


@pytest.mark.gpu
def test_elementwise_kernel_snippet_divides_as_arrays_do():
    """CUDA C snippets divide complex values with the prelude's operator (OpenCL C has no
    operators on them: a snippet there calls ember_cdiv128)."""
    a, b = extreme_pairs(np.complex128)
    divide = ember.ElementwiseKernel("T x, T y", "T z", "z = x / y", "ember_test_cdiv")
    got = divide(ember.asarray(a), ember.asarray(b)).get()
    arrays = (ember.asarray(a) / ember.asarray(b)).get()
    same_values(got, arrays, rtol=4 * np.finfo(np.float64).eps)
    np.testing.assert_allclose(got[:2], 1, rtol=1e-6)  # naive division: nan


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_magnitude_sign_and_log_of_the_largest_values_do_not_overflow(dtype):
    """|z| of the largest finite values is finite, as NumPy's hypot gives it (CUDA's hypot
    overflows for (DBL_MAX, 1))."""
    big = np.finfo(dtype).max
    z = np.array([complex(big, -1), complex(-1, big), complex(big, big / 4), complex(big, 0), 3 + 4j], dtype)
    e = ember.asarray(z)
    np.testing.assert_allclose(ember.absolute(e).get(), np.abs(z), rtol=2 * np.finfo(dtype).eps)
    np.testing.assert_allclose(ember.log(e).get(), np.log(z), rtol=2 * np.finfo(dtype).eps)
    with np.errstate(over="ignore"):  # NumPy's own sign warns, and gets it right
        want = np.sign(z)
    np.testing.assert_allclose(ember.sign(e).get(), want, rtol=2 * np.finfo(dtype).eps,
                               atol=2 * float(np.finfo(dtype).smallest_subnormal))
