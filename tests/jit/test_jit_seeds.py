"""The seed programs' Numba kernels, run unchanged but for their imports, compared with NumPy;
``@vectorize``/``@guvectorize``; the disk cache seeing edits of device functions."""

import math
import subprocess
import sys
import textwrap

import ember
import numpy as np
import pytest
from ember import cuda, float32, guvectorize, vectorize
from ember.cuda.random import create_xoroshiro128p_states, xoroshiro128p_normal_float32

TPB = 16


@cuda.jit
def vector_add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit
def matrix_add(A, B, C):
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        C[i, j] = A[i, j] + B[i, j]


@cuda.jit
def fast_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = float32(0.)
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


@cuda.jit(device=True)
def clamp(x, lo, hi):
    if x < lo:
        return lo
    elif x > hi:
        return hi
    return x


@cuda.jit
def heat_step(u, out, alpha):
    i, j = cuda.grid(2)
    n, m = u.shape
    if 0 < i < n - 1 and 0 < j < m - 1:
        lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4 * u[i, j]
        out[i, j] = clamp(u[i, j] + alpha * lap, 0.0, 1.0)
    elif i < n and j < m:
        out[i, j] = u[i, j]


@cuda.jit
def monte_carlo(states, out, S0, r, sigma, T, K):
    i = cuda.grid(1)
    if i >= out.shape[0]:
        return
    z = xoroshiro128p_normal_float32(states, i)
    ST = S0 * math.exp((r - 0.5 * sigma * sigma) * T + sigma * math.sqrt(T) * z)
    out[i] = max(ST - K, 0.0) * math.exp(-r * T)


def test_vector_add_matches_numpy():
    rng = np.random.default_rng(0)
    n = 100_003
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    c = cuda.device_array(n, dtype=np.float32)
    vector_add[(n + 255) // 256, 256](cuda.to_device(a), cuda.to_device(b), c)
    np.testing.assert_array_equal(c.copy_to_host(), a + b)


def test_matrix_add_2d_grid():
    rng = np.random.default_rng(1)
    A, B = rng.random((37, 45)), rng.random((37, 45))
    C = cuda.device_array_like(A)
    matrix_add[(3, 3), (16, 16)](cuda.to_device(A), cuda.to_device(B), C)
    np.testing.assert_array_equal(C.get(), A + B)


def test_shared_memory_tiled_matmul():
    rng = np.random.default_rng(2)
    n = 48
    A, B = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    C = cuda.device_array((n, n), dtype=np.float32)
    fast_matmul[(n // TPB, n // TPB), (TPB, TPB)](cuda.to_device(A), cuda.to_device(B), C)
    np.testing.assert_allclose(C.get(), A @ B, rtol=1e-5)


def test_heat_equation_step_with_a_device_function():
    rng = np.random.default_rng(3)
    u = rng.random((40, 50))
    out = cuda.device_array_like(u)
    heat_step[(5, 7), (8, 8)](cuda.to_device(u), out, 0.1)
    ref = u.copy()
    lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
    ref[1:-1, 1:-1] = np.clip(u[1:-1, 1:-1] + 0.1 * lap, 0, 1)
    np.testing.assert_allclose(out.get(), ref, rtol=1e-12)


def test_monte_carlo_option_price_with_cuda_random():
    n = 1 << 15
    states = create_xoroshiro128p_states(n, seed=42)
    out = cuda.device_array(n, dtype=np.float32)
    monte_carlo[n // 128, 128](states, out, 100.0, 0.05, 0.2, 1.0, 100.0)
    payoffs = out.get()
    # Black-Scholes price of this call: 10.4506; the estimate's standard error is ~0.08.
    d1 = (math.log(1.0) + (0.05 + 0.02) * 1.0) / 0.2
    d2 = d1 - 0.2
    cdf = lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2)))  # noqa: E731
    exact = 100 * cdf(d1) - 100 * math.exp(-0.05) * cdf(d2)
    assert abs(payoffs.mean() - exact) < 4 * payoffs.std() / math.sqrt(n)
    assert (payoffs >= 0).all() and (payoffs > 0).mean() > 0.4
    # The same seed gives the same paths.
    again = cuda.device_array(n, dtype=np.float32)
    monte_carlo[n // 128, 128](create_xoroshiro128p_states(n, seed=42), again, 100.0, 0.05, 0.2, 1.0, 100.0)
    np.testing.assert_array_equal(again.get(), payoffs)


@vectorize(["float32(float32, float32)", "float64(float64, float64)"], target="cuda")
def seed_expression(a, b):
    return (a * 10 + 2) * ((b + 2) * 10 - 5) * 5


def test_vectorize_on_device_and_host_arrays():
    rng = np.random.default_rng(4)
    a, b = rng.random(10_000, dtype=np.float32), rng.random(10_000, dtype=np.float32)
    got = seed_expression(ember.asarray(a), ember.asarray(b))
    assert isinstance(got, ember.ndarray) and got.dtype == np.float32
    np.testing.assert_allclose(got.get(), (a * 10 + 2) * ((b + 2) * 10 - 5) * 5, rtol=1e-6)
    host = seed_expression(a.astype(np.float64), b.astype(np.float64))
    assert isinstance(host, np.ndarray) and host.dtype == np.float64
    # Broadcasting, and int32 inputs taking the float64 loop by safe casting.
    grid = seed_expression(ember.asarray(a[:12]).reshape(3, 4), ember.asarray(b[:4]))
    assert grid.shape == (3, 4)
    ints = seed_expression(np.arange(5, dtype=np.int32), np.arange(5, dtype=np.int32))
    assert ints.dtype == np.float64
    np.testing.assert_array_equal(ints, (np.arange(5) * 10 + 2) * ((np.arange(5) + 2) * 10 - 5) * 5)
    with pytest.raises(TypeError, match="no loop"):
        seed_expression(np.ones(3, np.complex64), np.ones(3, np.complex64))


@guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()", target="cuda")
def row_dot(x, y, res):
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i] * y[i]
    res[0] = acc


@guvectorize(["void(float32[:,:], float32[:], float32[:])"], "(m,n),(n)->(m)", target="cuda")
def matvec(A, x, out):
    for i in range(A.shape[0]):
        s = float32(0)
        for j in range(A.shape[1]):
            s += A[i, j] * x[j]
        out[i] = s


def test_guvectorize_loops_over_outer_dimensions():
    rng = np.random.default_rng(5)
    X, Y = rng.random((6, 5, 8)), rng.random((5, 8))
    got = row_dot(ember.asarray(X), ember.asarray(Y))
    assert got.shape == (6, 5)
    np.testing.assert_allclose(got.get(), (X * Y).sum(-1), rtol=1e-12)
    A, v = rng.random((4, 3, 7), dtype=np.float32), rng.random(7, dtype=np.float32)
    np.testing.assert_allclose(matvec(A, v), A @ v, rtol=1e-5)
    with pytest.raises(ValueError, match="core dimension 'n'"):
        row_dot(ember.asarray(X), ember.asarray(rng.random((5, 9))))


def test_generated_cuda_c_of_the_seed_kernels_compiles_through_nvrtc():
    from conftest import nvrtc_or_skip
    from ember._jit import kernel_source

    nvrtc_or_skip()
    cases = [
        (vector_add, ["float32[::1]"] * 3),
        (matrix_add, ["float64[:, ::1]"] * 3),
        (fast_matmul, ["float32[:, ::1]"] * 3),
        (heat_step, ["float64[:, :]", "float64[:, ::1]", "float64"]),
        (monte_carlo, ["uint64[:, ::1]", "float32[::1]"] + ["float64"] * 5),
    ]
    for kernel, types in cases:
        src = kernel_source(kernel, types, "cuda")
        name = "ember_kernel_" + kernel.__name__
        assert ember._ember.nvrtc_compile(src, name, "sm_90", [])[:4] == b"\x7fELF", kernel.__name__


def test_editing_a_device_function_in_another_file_recompiles(tmp_path):
    """The cache key covers the device functions a kernel calls, wherever they live."""
    helper = tmp_path / "jit_helper_mod.py"
    main = tmp_path / "jit_main_mod.py"
    main.write_text(textwrap.dedent("""
        import numpy as np
        from ember import cuda
        from jit_helper_mod import scale

        @cuda.jit
        def k(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] = scale(a[i])

        a = cuda.to_device(np.arange(4.0))
        k[1, 32](a)
        print(a.get().tolist())
    """))
    env_code = f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import jit_main_mod"
    outputs = []
    for factor in (2, 3):
        helper.write_text(textwrap.dedent(f"""
            from ember import cuda

            @cuda.jit(device=True)
            def scale(x):
                return x * {factor}
        """))
        run = subprocess.run([sys.executable, "-c", env_code], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        outputs.append(run.stdout.strip())
    assert outputs == ["[0.0, 2.0, 4.0, 6.0]", "[0.0, 3.0, 6.0, 9.0]"]
