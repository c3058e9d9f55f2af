"""CUDA C runs on every device: NVRTC compiles it on CUDA, ember translates it to OpenCL C on
OpenCL devices (PoCL in CI). One module holds the kernels (each new kernel costs PoCL about a
second to build); every result is checked against NumPy."""

from __future__ import annotations

import ember as cp
import numpy as np
import pytest
from conftest import on_cuda, run_python

SOURCE = r"""
#include <cuComplex.h>
#define TILE 8

struct Pair { float lo; float hi; };

__device__ float squared(const float& v) { return v * v; }
__device__ void accumulate(float* into, float what) { atomicAdd(into, what); }
template <typename T> __device__ T clamp_to(T x, T lo, T hi) { return min(max(x, lo), hi); }

extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
        int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < n && ac < n) ? A[row * n + ac] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (col < n && br < n) ? B[br * n + col] : 0.0f;
        __syncthreads();
        #pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n) C[row * n + col] = acc;
}

extern "C" __global__ void atomics(const int* keys, const float* values, int n, int* counts, float* sums,
                                   unsigned int* ring, int* first, unsigned long long* total) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicAdd(&counts[keys[i]], 1);
    accumulate(&sums[keys[i]], squared(values[i]));
    atomicInc(ring, 5u);
    atomicMin(first, i);
    atomicAdd(total, (unsigned long long)keys[i]);
}

extern "C" __global__ void complex_and_math(const float2* z, const float2* w, float2* prod, float* out,
                                            Pair* pairs, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cuFloatComplex p = cuCmulf(z[i], w[i]);
    prod[i] = p;
    float x = z[i].x;
    out[i] = clamp_to<float>(sqrtf(fabsf(x)) + expf(-x * x) + (float)__popc(i) + SCALE, -3.0f, 3.0f);
    Pair q; q.lo = fminf(z[i].x, z[i].y); q.hi = fmaxf(z[i].x, z[i].y);
    pairs[i] = q;
}

__device__ float block_total(float v) {
    __shared__ float scratch[64];  // in a device function: the kernel allocates it
    scratch[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) scratch[threadIdx.x] += scratch[threadIdx.x + s];
        __syncthreads();
    }
    float total = scratch[0];
    __syncthreads();
    return total;
}

extern "C" __global__ void share_of_block(const float* x, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = x[i] / block_total(x[i]);
}

extern "C" __global__ void dynamic_scan(const float* x, float* out, int n) {
    extern __shared__ float buf[];
    int t = threadIdx.x;
    buf[t] = t < n ? x[blockIdx.x * blockDim.x + t] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        float v = t >= offset ? buf[t - offset] : 0.0f;
        __syncthreads();
        buf[t] += v;
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + t] = buf[t];
}
"""


@pytest.fixture(scope="module")
def module():
    return cp.RawModule(code=SOURCE, options=("-DSCALE=0.25f", "-std=c++17"))


def test_tiled_matmul_with_shared_memory(rng, module):
    n = 40  # not a multiple of the tile: the edges take the bounds checks
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    c = cp.zeros((n, n), dtype=np.float32)
    module.get_function("matmul_tiled")((5, 5), (8, 8), (cp.asarray(a), cp.asarray(b), c, np.int32(n)))
    np.testing.assert_allclose(c.get(), a @ b, rtol=1e-4, atol=1e-4)


def test_atomics_and_device_functions(rng, module):
    n = 3000
    keys = rng.integers(0, 7, n).astype(np.int32)
    values = rng.standard_normal(n).astype(np.float32)
    counts, sums = cp.zeros(7, dtype=np.int32), cp.zeros(7, dtype=np.float32)
    ring, first = cp.zeros(1, dtype=np.uint32), cp.asarray(np.array([n], dtype=np.int32))
    total = cp.zeros(1, dtype=np.uint64)
    args = (cp.asarray(keys), cp.asarray(values), np.int32(n), counts, sums, ring, first, total)
    module.get_function("atomics")(((n + 127) // 128,), (128,), args)
    np.testing.assert_array_equal(counts.get(), np.bincount(keys, minlength=7))
    want = np.bincount(keys, weights=values.astype(np.float64) ** 2, minlength=7)
    np.testing.assert_allclose(sums.get(), want, rtol=1e-4)
    assert ring.get()[0] == n % 6  # atomicInc wraps to 0 past 5, as CUDA's does
    assert first.get()[0] == 0 and total.get()[0] == keys.astype(np.uint64).sum()


def test_complex_math_structs_and_defines(rng, module):
    n = 1000
    z = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    w = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    prod, out = cp.empty(n, dtype=np.complex64), cp.empty(n, dtype=np.float32)
    pairs = cp.empty(2 * n, dtype=np.float32)  # a struct of two floats per element
    args = (cp.asarray(z), cp.asarray(w), prod, out, pairs, np.int32(n))
    module.get_function("complex_and_math")((8,), (128,), args)
    np.testing.assert_allclose(prod.get(), z * w, rtol=1e-5, atol=1e-6)
    x = z.real
    popc = np.array([bin(i).count("1") for i in range(n)], dtype=np.float32)
    want = np.clip(np.sqrt(np.abs(x)) + np.exp(-x * x) + popc + 0.25, -3, 3)
    np.testing.assert_allclose(out.get(), want, rtol=1e-5)
    p = pairs.get().reshape(n, 2)
    np.testing.assert_array_equal(p[:, 0], np.minimum(z.real, z.imag))
    np.testing.assert_array_equal(p[:, 1], np.maximum(z.real, z.imag))


def test_shared_arrays_of_device_functions(rng, module):
    x = rng.uniform(0.5, 1.5, 4 * 64).astype(np.float32)
    out = cp.empty(4 * 64, dtype=np.float32)
    module.get_function("share_of_block")((4,), (64,), (cp.asarray(x), out))
    blocks = x.reshape(4, 64)
    np.testing.assert_allclose(out.get(), (blocks / blocks.sum(axis=1, keepdims=True)).ravel(), rtol=1e-5)


def test_extern_shared_memory_sized_by_the_launch(rng, module):
    x = rng.standard_normal(4 * 64).astype(np.float32)
    out = cp.empty(4 * 64, dtype=np.float32)
    module.get_function("dynamic_scan")((4,), (64,), (cp.asarray(x), out, np.int32(64)), shared_mem=64 * 4)
    np.testing.assert_allclose(out.get(), np.cumsum(x.reshape(4, 64), axis=1).ravel(), rtol=1e-4, atol=1e-5)


@pytest.mark.skipif(on_cuda(), reason="NVRTC's messages are its own")
@pytest.mark.parametrize("src, line, message", [
    ("__global__ void k(float* x) {\n  x[0] = undefined_name;\n}", 2, "unknown name undefined_name"),
    ("__global__ void k(float* x) {\n  int n = 3;\n  float t[n];\n}", 3,
     "not a constant (OpenCL C has no variable-length arrays)"),
    ("template <typename T> __device__ void f(T* x) {\n  __shared__ T s[4];\n  x[0] = s[0];\n}\n"
     "__global__ void k(float* x) { f(x); }", 2, "__shared__ s of template function f has a template's type"),
    ("__global__ void k(float* x, float* y) {\n  __shared__ float s[4];\n  float* p = x;\n  p = s;\n}", 4,
     "pointer p points into global memory and is assigned a pointer into shared memory"),
    ("#include <curand_kernel.h>\n__global__ void k() {}", 1, "curand_kernel.h"),
])
def test_translation_errors_name_the_construct_and_line(src, line, message):
    with pytest.raises(cp.CompileError) as info:
        cp.RawModule(code=src).get_function("k")
    assert f"kernel.cu({line}): error:" in info.value.log and message in info.value.log
    cp.zeros(1).get()  # the process carries on


REDUCE = r"""
template <typename T, unsigned int blockSize>
__global__ void block_sums(const T* x, T* out, unsigned int n) {
    __shared__ T partial[blockSize];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockSize + tid;
    partial[tid] = i < n ? x[i] : T(0);
    __syncthreads();
    for (unsigned int s = blockSize / 2; s > 0; s >>= 1) {
        if (tid < s) partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}
"""


@pytest.mark.parametrize("dtype, block", [(np.float64, 128), (np.int32, 64)])
def test_templates_with_value_parameters(rng, dtype, block):
    """NVIDIA's reduction sample shape: `template <typename T, unsigned int blockSize>`, named
    by `name_expressions` as CuPy takes them."""
    names = ("block_sums<double, 128>", "block_sums<int, 64>")
    module = cp.RawModule(code=REDUCE, options=("-std=c++17",), name_expressions=names)
    n = 1000
    x = (rng.standard_normal(n) * 100).astype(dtype)
    blocks = (n + block - 1) // block
    out = cp.empty(blocks, dtype=dtype)
    ctype = "double" if dtype == np.float64 else "int"
    module.get_function(f"block_sums<{ctype}, {block}>")((blocks,), (block,), (cp.asarray(x), out, np.uint32(n)))
    want = np.add.reduceat(x, np.arange(0, n, block))
    np.testing.assert_allclose(out.get(), want, rtol=1e-12)


def test_printf_from_a_kernel():
    code = (
        "import ember as cp, numpy as np\n"
        "k = cp.RawKernel(r'''\n"
        "#include <cstdio>\n"
        "extern \"C\" __global__ void hello(const float* x, long long n) {\n"
        "    if (threadIdx.x == 0 && blockIdx.x == 0) printf(\"n=%lld x0=%.2f\\n\", n, x[0]);\n"
        "}''', 'hello')\n"
        "k((1,), (4,), (cp.asarray(np.array([1.5], np.float32)), np.int64(7)))\n"
        "cp.synchronize()\n"
    )
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert "n=7 x0=1.50" in r.stdout


CONSTANTS = r"""
__constant__ float coeffs[4];
__constant__ int offset;
__device__ float poly(float x) { return coeffs[0] + x * (coeffs[1] + x * (coeffs[2] + x * coeffs[3])); }
extern "C" __global__ void evaluate(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = poly(x[i]) + offset;
}
"""


def test_constant_memory_filled_through_get_global(rng):
    """CuPy's RawModule.get_global and PyCUDA's SourceModule.get_global: CUDA's module globals,
    and on OpenCL the buffers ember passes to the kernels reading them."""
    import ember.cuda.driver as drv
    from ember.cuda.compiler import SourceModule

    c = rng.standard_normal(4).astype(np.float32)
    x = rng.uniform(-2, 2, 1000).astype(np.float32)
    poly = c[0] + x * (c[1] + x * (c[2] + x * c[3]))
    mod = cp.RawModule(code=CONSTANTS)
    cp.ndarray((4,), np.float32, memptr=mod.get_global("coeffs"))[...] = cp.asarray(c)
    cp.ndarray((1,), np.int32, memptr=mod.get_global("offset"))[...] = 7
    y = cp.empty(1000, dtype=np.float32)
    mod.get_function("evaluate")((4,), (256,), (cp.asarray(x), y, np.int32(1000)))
    np.testing.assert_allclose(y.get(), poly + 7, rtol=1e-5, atol=1e-5)

    sm = SourceModule(CONSTANTS, no_extern_c=True)
    pointer, size = sm.get_global("coeffs")
    assert size == 16
    drv.memcpy_htod(pointer, c * 2)
    drv.memcpy_htod(sm.get_global("offset")[0], np.array([3], np.int32))
    out = np.zeros(1000, np.float32)
    sm.get_function("evaluate")(drv.In(x), drv.Out(out), np.int32(1000), block=(256, 1, 1), grid=(4, 1))
    np.testing.assert_allclose(out, 2 * poly + 3, rtol=1e-5, atol=1e-5)
    with pytest.raises((ValueError, drv.LogicError), match="no_such"):
        mod.get_global("no_such")


DEVICE_VARIABLES = r"""
__device__ float bias[4] = {0.5f, -1.0f, 2.0f, 0.25f};
__device__ unsigned int launches;
__device__ void count_launch() { if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(&launches, 1u); }
extern "C" __global__ void biased(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    count_launch();
    if (i < n) y[i] = x[i] + bias[i & 3];
}
"""


def test_device_variables_keep_their_values_across_launches(rng):
    """`__device__` variables are the module's: initialised as declared, written by kernels and
    kept between launches, read and written by the host through get_global (on OpenCL: buffers
    ember passes to the kernels using them, as OpenCL C 1.2 has no writable program variables)."""
    x = rng.standard_normal(1000).astype(np.float32)
    mod = cp.RawModule(code=DEVICE_VARIABLES)
    y = cp.empty(1000, dtype=np.float32)
    k = mod.get_function("biased")
    for _ in range(3):
        k((4,), (256,), (cp.asarray(x), y, np.int32(1000)))
    np.testing.assert_array_equal(y.get(), x + np.tile(np.float32([0.5, -1.0, 2.0, 0.25]), 250))
    launches = cp.ndarray((1,), np.uint32, memptr=mod.get_global("launches"))
    assert launches.get()[0] == 3
    cp.ndarray((4,), np.float32, memptr=mod.get_global("bias"))[...] = cp.zeros(4, dtype=np.float32)
    k((4,), (256,), (cp.asarray(x), y, np.int32(1000)))
    np.testing.assert_array_equal(y.get(), x)
    assert launches.get()[0] == 4
