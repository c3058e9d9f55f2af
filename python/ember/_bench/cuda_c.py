"""CUDA C on OpenCL devices (issue 24): each kernel written twice, in CUDA C (which ember
translates to OpenCL C off CUDA) and by hand in OpenCL C, and timed on one device.

On a CPU device (PoCL) a row sets the translated kernel beside the hand-written one (target:
within 10%). On an NVIDIA GPU it sets the translated kernel run through NVIDIA's OpenCL beside
NVRTC's cubin of the same CUDA C (target: within 20%), and the hand-written OpenCL C beside both;
the OpenCL figures come from fresh interpreters with ``EMBER_BACKEND=opencl``."""

from __future__ import annotations

import re

from .common import record
from .opencl import opencl_ms
from .report import Row

HAND = "OpenCL C by hand"
NVRTC = "NVRTC cubin"

# Each workload: the CUDA C, the same kernel in OpenCL C, and a setup that makes the arguments
# (`args`), the launch shape (`grid`, `block`) and `check()`; `n` is its size and `work(n)` the
# bytes, flops or options of one launch. Both kernels share a name and an argument list.
WORKLOADS = {
    "vector add, float32": dict(unit="GB/s", work=lambda n: 12 * n, cuda=r"""
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}""", opencl=r"""
__kernel void vadd(__global const float* a, __global const float* b, __global float* c, int n) {
    int i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i];
}""", setup=r"""
a, b = (ember.asarray(rng.random(n, dtype=np.float32)) for _ in range(2))
c = ember.empty_like(a)
args, grid, block = (a, b, c, np.int32(n)), ((n + 255) // 256,), (256,)
check = lambda: np.array_equal(c.get(), a.get() + b.get())
"""),
    "tiled matmul, shared memory, float32": dict(unit="GFLOP/s", work=lambda n: 2 * n**3, cuda=r"""
#define T 16
extern "C" __global__ void matmul(const float* A, const float* B, float* C, int n) {
    __shared__ float As[T][T], Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < n / T; ++t) {
        As[ty][tx] = A[row * n + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}""", opencl=r"""
#define T 16
__kernel void matmul(__global const float* A, __global const float* B, __global float* C, int n) {
    __local float As[T][T], Bs[T][T];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_group_id(1) * T + ty, col = get_group_id(0) * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < n / T; ++t) {
        As[ty][tx] = A[row * n + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc;
}""", setup=r"""
A, B = (ember.asarray(rng.random((n, n), dtype=np.float32)) for _ in range(2))
C = ember.empty_like(A)
args, grid, block = (A, B, C, np.int32(n)), (n // 16, n // 16), (16, 16)
check = lambda: np.allclose(C.get(), A.get() @ B.get(), rtol=1e-3, atol=1e-3)
"""),
    "block sums, shared memory + atomicAdd, float32": dict(unit="GB/s", work=lambda n: 4 * n, cuda=r"""
extern "C" __global__ void block_sum(const float* x, float* total, int n) {
    __shared__ float s[256];
    int t = threadIdx.x;
    float v = 0.0f;
    for (int i = blockIdx.x * 256 + t; i < n; i += 256 * gridDim.x) v += x[i];
    s[t] = v;
    __syncthreads();
    for (int h = 128; h > 0; h >>= 1) {
        if (t < h) s[t] += s[t + h];
        __syncthreads();
    }
    if (t == 0) atomicAdd(total, s[0]);
}""", opencl=r"""
inline void add_float(volatile __global float* p, float v) {
    union { unsigned int u; float f; } old, next;
    do { old.f = *p; next.f = old.f + v; }
    while (atomic_cmpxchg((volatile __global unsigned int*)p, old.u, next.u) != old.u);
}
__kernel void block_sum(__global const float* x, __global float* total, int n) {
    __local float s[256];
    int t = get_local_id(0);
    float v = 0.0f;
    for (int i = get_group_id(0) * 256 + t; i < n; i += 256 * get_num_groups(0)) v += x[i];
    s[t] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = 128; h > 0; h >>= 1) {
        if (t < h) s[t] += s[t + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0) add_float(total, s[0]);
}""", setup=r"""
x = ember.asarray(rng.random(n, dtype=np.float32))
total = ember.zeros(1, dtype=np.float32)
args, grid, block = (x, total, np.int32(n)), (256,), (256,)
check = lambda: (total.fill(0), launch(), np.isclose(total.get()[0], x.get().astype(np.float64).sum(), rtol=1e-4))[-1]
"""),
    "5-point stencil, float32": dict(unit="GB/s", work=lambda n: 8 * n, cuda=r"""
extern "C" __global__ void stencil(const float* u, float* v, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= n - 1 || y >= n - 1) return;
    int i = y * n + x;
    v[i] = 0.25f * (u[i - 1] + u[i + 1] + u[i - n] + u[i + n]) - u[i];
}""", opencl=r"""
__kernel void stencil(__global const float* u, __global float* v, int n) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x < 1 || y < 1 || x >= n - 1 || y >= n - 1) return;
    int i = y * n + x;
    v[i] = 0.25f * (u[i - 1] + u[i + 1] + u[i - n] + u[i + n]) - u[i];
}""", setup=r"""
m = int(round(n ** 0.5))
u = ember.asarray(rng.random((m, m), dtype=np.float32))
v = ember.zeros_like(u)
args, grid, block = (u, v, np.int32(m)), (m // 32, m // 8), (32, 8)
def check():
    w = u.get()
    want = np.float32(0.25) * (w[1:-1, :-2] + w[1:-1, 2:] + w[:-2, 1:-1] + w[2:, 1:-1]) - w[1:-1, 1:-1]
    return np.allclose(v.get()[1:-1, 1:-1], want, rtol=1e-5, atol=1e-6)
"""),
    "Black-Scholes call prices, float32": dict(unit="Goptions/s", work=lambda n: n, cuda=r"""
extern "C" __global__ void black_scholes(const float* s, const float* k, const float* t, float* call,
                                         float r, float vol, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float sq = sqrtf(t[i]);
    float d1 = (logf(s[i] / k[i]) + (r + 0.5f * vol * vol) * t[i]) / (vol * sq);
    float d2 = d1 - vol * sq;
    float n1 = 0.5f * erfcf(-d1 * 0.70710678f), n2 = 0.5f * erfcf(-d2 * 0.70710678f);
    call[i] = s[i] * n1 - k[i] * expf(-r * t[i]) * n2;
}""", opencl=r"""
__kernel void black_scholes(__global const float* s, __global const float* k, __global const float* t,
                            __global float* call, float r, float vol, int n) {
    int i = get_global_id(0);
    if (i >= n) return;
    float sq = sqrt(t[i]);
    float d1 = (log(s[i] / k[i]) + (r + 0.5f * vol * vol) * t[i]) / (vol * sq);
    float d2 = d1 - vol * sq;
    float n1 = 0.5f * erfc(-d1 * 0.70710678f), n2 = 0.5f * erfc(-d2 * 0.70710678f);
    call[i] = s[i] * n1 - k[i] * exp(-r * t[i]) * n2;
}""", setup=r"""
S = rng.uniform(5, 30, n).astype(np.float32)
K = rng.uniform(1, 100, n).astype(np.float32)
Tm = rng.uniform(0.25, 10, n).astype(np.float32)
s, k, t = ember.asarray(S), ember.asarray(K), ember.asarray(Tm)
call = ember.empty_like(s)
args, grid, block = (s, k, t, call, np.float32(0.02), np.float32(0.3), np.int32(n)), ((n + 255) // 256,), (256,)
def check():  # the first 2,000 prices against float64 and math.erfc
    from math import erfc
    S64, K64, T64 = (v[:2000].astype(np.float64) for v in (S, K, Tm))
    d1 = (np.log(S64 / K64) + (0.02 + 0.045) * T64) / (0.3 * np.sqrt(T64))
    d2 = d1 - 0.3 * np.sqrt(T64)
    phi = np.vectorize(lambda d: 0.5 * erfc(-d / 2 ** 0.5))
    want = S64 * phi(d1) - K64 * np.exp(-0.02 * T64) * phi(d2)
    return np.allclose(call.get()[:2000], want, rtol=1e-3, atol=1e-3)
"""),
}

# The program each timing runs (in this process, or a fresh one on NVIDIA's OpenCL): builds the
# kernel of `variant` ("cuda" through RawKernel, "opencl" through ember.cl) and defines `run`.
PROGRAM = r"""
import numpy as np
rng = np.random.default_rng(7)
n = {n}
{setup}
if {variant!r} == "cuda":
    kernel = ember.RawKernel({source!r}, {name!r})
    launch = lambda: kernel(grid, block, args)
else:
    from ember import cl
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    knl = getattr(cl.Program(ctx, {source!r}).build(), {name!r})
    size = tuple(g * b for g, b in zip(grid, block))
    launch = lambda: knl(queue, size, block, *args)
launch()
ember.synchronize()
if not check():
    raise SystemExit("wrong result from the {variant} kernel")
run = launch
"""


def _program(workload: dict, variant: str, n: int) -> str:
    source = workload[variant]
    name = re.search(r"__global__ void (\w+)", workload["cuda"]).group(1)
    return PROGRAM.format(n=n, setup=workload["setup"], variant=variant, source=source, name=name)


def _size(name: str, quick: bool, on_gpu: bool) -> int:
    if "matmul" in name:
        return (256 if quick else 2048) if on_gpu else (128 if quick else 512)
    if "stencil" in name:
        return (1024 if quick else 8192) ** 2 if on_gpu else (1024 if quick else 2048) ** 2
    return 1 << ((22 if quick else 26) if on_gpu else (20 if quick else 22))


def rows(libs: dict, quick: bool, progress) -> list[Row]:
    ember = libs["ember"]
    on_gpu = ember.events is not None
    group = "CUDA C on OpenCL"
    repeat = 5 if quick else 20
    out = []
    for title, w in WORKLOADS.items():
        n = _size(title, quick, on_gpu)
        target = f">= 0.8x {NVRTC}" if on_gpu else f">= 0.9x {HAND}"
        row = Row(group, f"{title}, translated CUDA C" + (" on NVIDIA's OpenCL" if on_gpu else ""), w["unit"],
                  True, target)
        progress(f"CUDA C on OpenCL: {title}")
        work = w["work"](n) / 1e6  # per ms: G per s
        # On a GPU this process holds CUDA: the OpenCL figures come from fresh interpreters.
        time_opencl = (lambda p: opencl_ms(p, repeat)) if on_gpu else (lambda p: _in_process_ms(ember, p, repeat))
        if on_gpu:
            record(row, NVRTC, lambda: work / _in_process_ms(ember, _program(w, "cuda", n), repeat))  # noqa: B023
        for lib, variant in (("ember", "cuda"), (HAND, "opencl")):
            record(row, lib, lambda: work / time_opencl(_program(w, variant, n)))  # noqa: B023
        out.append(row)
    return out


def _in_process_ms(lib, program: str, repeat: int) -> float:
    ns = {"ember": lib.xp}
    exec(program, ns)
    return lib.time_ms(ns["run"], repeat)
