"""The ufunc registry (crates/ember-codegen/src/ufuncs/registry.rs): one row per ufunc drives
the namespace, the aliases, arrays and @jit kernels. logaddexp and logaddexp2 were added as one
row each."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from ember import cuda
from ember.errors import JitError

SPECIALS = [0.0, -0.0, 1.0, -1.0, 1e-30, 80.0, -80.0, 1000.0, -1000.0, np.inf, -np.inf, np.nan]


def test_aliases_are_the_same_ufunc_as_in_numpy():
    for alias, name in [("abs", "absolute"), ("mod", "remainder"), ("conj", "conjugate"),
                        ("bitwise_not", "invert"), ("true_divide", "divide")]:
        assert getattr(ember, alias) is getattr(ember, name)
        assert getattr(ember, alias).__name__ == getattr(np, alias).__name__ == name


def test_every_row_is_a_ufunc_of_the_namespace_with_numpys_arity():
    for name, aliases, summary, _jit in ember._ember.ufunc_rows():
        u = getattr(ember, name)
        assert (u.nin, u.nout) == (getattr(np, name).nin, getattr(np, name).nout), name
        assert summary.endswith("."), (name, summary)  # NumPy's one-line summary, for docs and stubs
        for a in aliases:
            assert getattr(ember, a) is u


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_logaddexp_matches_numpy_on_random_and_special_values(name, dtype, rng):
    x = np.concatenate([(rng.standard_normal(300) * 30), np.repeat(SPECIALS, len(SPECIALS))]).astype(dtype)
    y = np.concatenate([(rng.standard_normal(300) * 30), np.tile(SPECIALS, len(SPECIALS))]).astype(dtype)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x, y)
    got = getattr(ember, name)(ember.asarray(x), ember.asarray(y)).get()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    # A few ulps of the larger input: the sum cancels where the result is near zero.
    scale = np.maximum(np.abs(x), np.abs(y)).astype(np.float64)[finite]
    error = np.abs(got[finite].astype(np.float64) - want[finite])
    assert (error <= 4 * np.finfo(dtype).eps * np.maximum(scale, np.abs(want[finite]))).all(), error.max()


def test_logaddexp_of_integers_and_python_scalars_promotes_as_numpy():
    a = np.arange(-5, 5, dtype=np.int32)
    for args in [(a, a[::-1]), (a, 2), (2.5, a.astype(np.float32))]:
        want = np.logaddexp(*args)
        got = ember.logaddexp(*[ember.asarray(v) if isinstance(v, np.ndarray) else v for v in args]).get()
        assert got.dtype == want.dtype, args
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_complex_logaddexp_is_refused_as_numpy_refuses_it():
    z = ember.asarray(np.array([1 + 1j]))
    with pytest.raises(TypeError, match="logaddexp"):
        ember.logaddexp(z, z)
    with pytest.raises(TypeError):
        np.logaddexp(z.get(), z.get())


@cuda.jit
def logaddexp2_kernel(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = np.logaddexp2(a[i], b[i])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_jit_kernels_call_registry_ufuncs_typed_by_numpys_loops(dtype, rng):
    x = (rng.standard_normal(200) * 20).astype(dtype)
    y = (rng.standard_normal(200) * 20).astype(dtype)
    want = np.logaddexp2(x, y)  # int32 inputs: the float64 loop
    out = ember.empty(200, want.dtype)
    logaddexp2_kernel[4, 64](ember.asarray(x), ember.asarray(y), out)
    np.testing.assert_allclose(out.get(), want, rtol=4 * np.finfo(want.dtype).eps)


def test_jit_refuses_a_ufunc_the_registry_does_not_let_kernels_call():
    @cuda.jit
    def k(a):
        a[0] = np.gcd(a[0], a[1])

    with pytest.raises(JitError, match="np.gcd is not supported in kernels"):
        k[1, 1](ember.zeros(2, np.int64))
