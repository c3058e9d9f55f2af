"""Half precision (`cuda_fp16.h`): `__half` and `__half2` arrays, arithmetic and conversions,
as mixed-precision kernels in CuPy's and PyTorch's extensions use them. NumPy's float16 rounds
each operation to nearest-even, as CUDA's half instructions do, so most cases compare bit for
bit. (OpenCL devices without `cl_khr_fp16` compute each half in a float, rounded to half after
every operation: the same numbers.)"""

from __future__ import annotations

import numpy as np

from .case import Case, block_tree_sums, blocks, f32

N = 1024
H = np.float16

PRELUDE = r"""
#include <cuda_fp16.h>
#define IDX (blockIdx.x * blockDim.x + threadIdx.x)
"""


def h16(rng, *shape, low=-4.0, high=4.0):
    return rng.uniform(low, high, shape).astype(H)


CASES = [
    Case("half_arith", r"""
extern "C" __global__ void half_arith(const __half* a, const __half* b, __half* out, int n) {
    int i = IDX;
    if (i >= n) return;
    __half* o = out + 6 * i;
    o[0] = __hadd(a[i], b[i]);
    o[1] = __hsub(a[i], b[i]);
    o[2] = __hmul(a[i], b[i]);
    o[3] = __hdiv(a[i], b[i]);
    o[4] = a[i] * b[i] + a[i];   // contracted into one fma, as NVRTC does
    o[5] = __hneg(a[i]);
}""", lambda r: [h16(r, N), h16(r, N, low=0.5, high=3), np.zeros(6 * N, H), np.int32(N)],
         lambda a, b, out, n: {2: np.stack([a + b, a - b, a * b, a / b, _fma(a, b, a), -a], axis=1).ravel()},
         grid=(blocks(N, 128),)),

    Case("half_conversions", r"""
extern "C" __global__ void half_conversions(const float* x, __half* h, float* back, int* ints, int n) {
    int i = IDX;
    if (i >= n) return;
    __half v = __float2half(x[i]);
    h[i] = v;
    back[i] = __half2float(v) * 2.0f;
    ints[2 * i] = __half2int_rz(v);
    ints[2 * i + 1] = __half2int_rn(v);
}""", lambda r: [f32(r, N, low=-60000, high=60000), np.zeros(N, H), np.zeros(N, np.float32),
                 np.zeros(2 * N, np.int32), np.int32(N)],
         lambda x, h, back, ints, n: {1: x.astype(H), 2: x.astype(H).astype(np.float32) * 2,
                                      3: _half_ints(x.astype(H))}, grid=(blocks(N, 128),)),

    Case("half2_ops", r"""
extern "C" __global__ void half2_ops(const __half2* a, const __half2* b, __half2* sum, __half2* prod,
                                     float2* wide, int n) {
    int i = IDX;
    if (i >= n) return;
    sum[i] = __hadd2(a[i], b[i]);
    prod[i] = __hmul2(a[i], __lowhigh2highlow(b[i]));
    wide[i] = __half22float2(__hsub2(a[i], b[i]));
}""", lambda r: [h16(r, N, 2), h16(r, N, 2), np.zeros((N, 2), H), np.zeros((N, 2), H),
                 np.zeros((N, 2), np.float32), np.int32(N)],
         lambda a, b, s, p, w, n: {2: a + b, 3: a * b[:, ::-1], 4: (a - b).astype(np.float32)},
         grid=(blocks(N, 128),)),

    Case("half_scale_by_value", r"""
extern "C" __global__ void half_scale_by_value(const __half* x, __half* y, __half scale, __half2 shift, int n) {
    int i = IDX;
    if (i < n) y[i] = x[i] * scale + __low2half(shift) - __high2half(shift);
}""", lambda r: [h16(r, N), np.zeros(N, H), H(1.375), np.array([0.5, 0.25], H).view(np.uint32)[0],
                 np.int32(N)],
         lambda x, y, s, sh, n: {1: _fma(x, H(1.375), H(0.5)) - H(0.25)}, grid=(blocks(N, 128),)),

    Case("half_block_sum", r"""
extern "C" __global__ void half_block_sum(const __half* x, __half* sums) {
    __shared__ __half s[128];
    int t = threadIdx.x;
    s[t] = x[blockIdx.x * 128 + t];
    __syncthreads();
    for (int h = 64; h > 0; h >>= 1) {
        if (t < h) s[t] = __hadd(s[t], s[t + h]);
        __syncthreads();
    }
    if (t == 0) sums[blockIdx.x] = s[0];
}""", lambda r: [h16(r, 8 * 128, low=-1, high=1), np.zeros(8, H)],
         lambda x, sums: {1: block_tree_sums(x)}, grid=(8,)),

    Case("half_bits", r"""
extern "C" __global__ void half_bits(const __half* x, unsigned short* bits, __half* from_bits, short* sbits,
                                     int n) {
    int i = IDX;
    if (i >= n) return;
    bits[i] = __half_as_ushort(x[i]);
    from_bits[i] = __ushort_as_half((unsigned short)(bits[i] ^ 0x8000));  // the sign flipped
    sbits[i] = __half_as_short(x[i]);
}""", lambda r: [h16(r, N), np.zeros(N, np.uint16), np.zeros(N, H), np.zeros(N, np.int16), np.int32(N)],
         lambda x, b, f, s, n: {1: x.view(np.uint16), 2: -x, 3: x.view(np.int16)}, grid=(blocks(N, 128),)),

    Case("half_compare_and_select", r"""
extern "C" __global__ void half_compare_and_select(const __half* a, const __half* b, __half* hi, int* flags,
                                                   int n) {
    int i = IDX;
    if (i >= n) return;
    hi[i] = __hmax(a[i], b[i]);
    flags[i] = __hlt(a[i], b[i]) + 2 * __heq(a[i], b[i]) + 4 * __hisnan(a[i]) + 8 * (__hgt(a[i], b[i]) ? 1 : 0);
}""", lambda r: [np.round(h16(r, N), 0), np.round(h16(r, N), 0), np.zeros(N, H), np.zeros(N, np.int32),
                 np.int32(N)],
         lambda a, b, hi, f, n: {2: np.maximum(a, b),
                                 3: ((a < b) + 2 * (a == b) + 8 * (a > b)).astype(np.int32)},
         grid=(blocks(N, 128),)),

    Case("half_saturate_and_compound", r"""
extern "C" __global__ void half_saturate_and_compound(const __half* a, const __half* b, __half* sat, __half* acc,
                                                      int n) {
    int i = IDX;
    if (i >= n) return;
    sat[i] = __hadd_sat(a[i], b[i]);
    acc[i] += a[i];          // in the user's memory: load, add, round, store
    __half t = acc[i];
    t *= b[i];               // in a register
    acc[i] = t;
}""", lambda r: [h16(r, N, low=-1, high=1), h16(r, N, low=-1, high=1), np.zeros(N, H), h16(r, N), np.int32(N)],
         lambda a, b, sat, acc, n: {2: np.clip(a + b, H(0), H(1)), 3: (acc + a) * b}, grid=(blocks(N, 128),)),

    Case("half_math", r"""
extern "C" __global__ void half_math(const __half* x, __half* out, int n) {
    int i = IDX;
    if (i >= n) return;
    __half* o = out + 4 * i;
    o[0] = hsqrt(x[i]);
    o[1] = hexp(__hneg(x[i]));
    o[2] = hlog(x[i]);
    o[3] = __hfma(x[i], x[i], __float2half(-1.0f));
}""", lambda r: [h16(r, N, low=0.25, high=4), np.zeros(4 * N, H), np.int32(N)],
         lambda x, out, n: {1: _half_math(x)}, grid=(blocks(N, 128),), rtol=1e-3, atol=1e-3),

    Case("axpy_half<__half>", r"""
template <typename T>
__global__ void axpy_half(T a, const T* x, T* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}""", lambda r: [H(0.75), h16(r, N), h16(r, N), np.int32(N)],
         lambda a, x, y, n: {2: _fma(a, x, y)}, grid=(blocks(N, 128),)),
]


def _fma(a, b, c):
    """A half fma: rounded once (the product of two halves and the sum are exact in float64)."""
    return (np.float64(1) * a * b + c).astype(H)


def _samples(values, tags):
    s = np.zeros(len(values), dtype=[("value", H), ("tag", np.uint16)])
    s["value"], s["tag"] = values, tags
    return s


def _half_ints(h: np.ndarray) -> np.ndarray:
    f = h.astype(np.float64)  # finite: the inputs stay inside float16's range
    return np.stack([np.trunc(f), np.rint(f)], axis=1).astype(np.int32).ravel()


def _half_math(x: np.ndarray) -> np.ndarray:
    f = x.astype(np.float64)
    return np.stack([np.sqrt(f), np.exp(-f), np.log(f), f * f - 1], axis=1).astype(H).ravel()


# What the translation leaves out for halves (a half computes in a float there, so memory that
# ember would lay out differently from CUDA is refused): CompileErrors on OpenCL, cases on CUDA.
GAPS = [
    (Case("half_struct_field", r"""
struct Sample { __half value; unsigned short tag; };
extern "C" __global__ void half_struct_field(const Sample* s, float* out, int n) {
    int i = IDX;
    if (i < n) out[i] = __half2float(s[i].value) + s[i].tag;
}""", lambda r: [_samples(h16(r, N), r.integers(0, 9, N)), np.zeros(N, np.float32), np.int32(N)],
         lambda s, out, n: {1: s["value"].astype(np.float32) + s["tag"]}, grid=(blocks(N, 128),)),
     "a __half field (value) is not translated"),
    (Case("half_dynamic_shared", r"""
extern "C" __global__ void half_dynamic_shared(const __half* x, __half* y) {
    extern __shared__ __half tile[];
    tile[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    y[blockIdx.x * blockDim.x + threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}""", lambda r: [h16(r, N), np.zeros(N, H)],
         lambda x, y: {1: x.reshape(-1, 128)[:, ::-1].ravel()}, grid=(N // 128,), shared=256),
     "extern __shared__ tile of halves"),
]
