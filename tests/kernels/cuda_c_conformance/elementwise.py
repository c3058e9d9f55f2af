"""Element-wise kernels and indexing: the first kernels of CuPy's RawKernel guide, PyCUDA's
tutorial and the CUDA samples' vectorAdd, in every integer and float type, grid-stride loops,
2-D and 3-D grids, strided and in-place access."""

from __future__ import annotations

import numpy as np

from .case import Case, blocks, f32, f64, ints

N = 1000

PRELUDE = r"""
#define IDX (blockIdx.x * blockDim.x + threadIdx.x)
typedef unsigned int uint;
"""

CASES = [
    Case("vector_add", r"""
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}""", lambda r: [f32(r, N), f32(r, N), np.zeros(N, np.float32), np.int32(N)],
         lambda a, b, c, n: {2: a + b}, grid=(blocks(N, 128),)),

    Case("saxpy", r"""
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    for (int i = IDX; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}""", lambda r: [np.float32(2.5), f32(r, N), f32(r, N), np.int32(N)],
         lambda a, x, y, n: {2: (np.float64(a) * x + y).astype(np.float32)}, grid=(2,), rtol=1e-6, atol=1e-7),

    Case("daxpy_grid_stride", r"""
extern "C" __global__ void daxpy_grid_stride(double a, const double* __restrict__ x, double* __restrict__ y,
                                             long long n) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}""", lambda r: [np.float64(-1.25), f64(r, 3 * N), f64(r, 3 * N), np.int64(3 * N)],
         lambda a, x, y, n: {2: a * x + y}, grid=(3,), block=(64,), rtol=1e-15, atol=1e-15),

    Case("multiply_them", r"""
__global__ void multiply_them(float* dest, float* a, float* b) {
    const int i = threadIdx.x;
    dest[i] = a[i] * b[i];
}""", lambda r: [np.zeros(256, np.float32), f32(r, 256), f32(r, 256)],
         lambda d, a, b: {0: a * b}, block=(256,)),  # PyCUDA's tutorial has 400: NVIDIA's OpenCL allows 256

    Case("double_in_place", r"""
extern "C" __global__ void double_in_place(float* a) {
    int idx = threadIdx.x + threadIdx.y * 4;
    a[idx] *= 2;
}""", lambda r: [f32(r, 4, 4)], lambda a: {0: a * 2}, block=(4, 4, 1)),

    Case("integer_ops", r"""
extern "C" __global__ void integer_ops(const int* a, const int* b, int* out, int n) {
    int i = IDX;
    if (i >= n) return;
    int x = a[i], y = b[i] == 0 ? 1 : b[i];
    out[5 * i + 0] = x / y;
    out[5 * i + 1] = x % y;
    out[5 * i + 2] = (x << 3) ^ (y >> 2);
    out[5 * i + 3] = (x & 0xff) | (~y & 0xf00);
    out[5 * i + 4] = x > y ? x - y : y - x;
}""", lambda r: [ints(r, N), ints(r, N, low=-50, high=50), np.zeros(5 * N, np.int32), np.int32(N)],
         lambda a, b, out, n: {2: _integer_ops(a, b)}, grid=(8,)),

    Case("unsigned_wraparound", r"""
extern "C" __global__ void unsigned_wraparound(const uint* a, uint* out, int n) {
    int i = IDX;
    if (i < n) out[i] = a[i] * 2654435761u + (a[i] >> 7) - 12345u;
}""", lambda r: [r.integers(0, 2**32, N, dtype=np.uint32), np.zeros(N, np.uint32), np.int32(N)],
         lambda a, out, n: {1: a * np.uint32(2654435761) + (a >> np.uint32(7)) - np.uint32(12345)}, grid=(8,)),

    Case("int64_mix", r"""
extern "C" __global__ void int64_mix(const long long* a, unsigned long long* h, int n) {
    int i = IDX;
    if (i >= n) return;
    unsigned long long x = (unsigned long long)a[i];
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
    h[i] = x;
}""", lambda r: [r.integers(-2**62, 2**62, N, dtype=np.int64), np.zeros(N, np.uint64), np.int32(N)],
         lambda a, h, n: {1: _fmix64(a.view(np.uint64))}, grid=(8,)),

    Case("char_and_short", r"""
extern "C" __global__ void char_and_short(const unsigned char* pixels, const short* offsets, short* out,
                                          signed char* sign, int n) {
    int i = IDX;
    if (i >= n) return;
    int v = pixels[i] + offsets[i];
    out[i] = (short)v;
    sign[i] = (signed char)(v > 0) - (signed char)(v < 0);
}""", lambda r: [r.integers(0, 256, N, dtype=np.uint8), ints(r, N, low=-300, high=300, dtype=np.int16),
                 np.zeros(N, np.int16), np.zeros(N, np.int8), np.int32(N)],
         lambda p, o, out, s, n: {2: (p.astype(np.int32) + o).astype(np.int16),
                                  3: np.sign(p.astype(np.int32) + o).astype(np.int8)}, grid=(8,)),

    Case("bool_mask", r"""
extern "C" __global__ void bool_mask(const float* x, bool* positive, float* kept, int n) {
    int i = IDX;
    if (i >= n) return;
    bool p = x[i] > 0.0f;
    positive[i] = p;
    kept[i] = p ? x[i] : 0.0f;
}""", lambda r: [f32(r, N), np.zeros(N, np.bool_), np.zeros(N, np.float32), np.int32(N)],
         lambda x, p, k, n: {1: x > 0, 2: np.where(x > 0, x, np.float32(0))}, grid=(8,)),

    Case("transpose_2d_grid", r"""
extern "C" __global__ void transpose_2d_grid(const float* in, float* out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}""", lambda r: [f32(r, 37, 53), np.zeros((53, 37), np.float32), np.int32(37), np.int32(53)],
         lambda a, out, rows, cols: {1: a.T}, grid=(4, 3), block=(16, 16)),

    Case("volume_3d", r"""
extern "C" __global__ void volume_3d(const float* v, float* out, int nx, int ny, int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    int i = (z * ny + y) * nx + x;
    out[i] = v[i] * (float)(x + 10 * y + 100 * z);
}""", lambda r: [f32(r, 6, 7, 9), np.zeros((6, 7, 9), np.float32), np.int32(9), np.int32(7), np.int32(6)],
         lambda v, out, nx, ny, nz: {1: v * (np.arange(9)[None, None, :] + 10 * np.arange(7)[None, :, None]
                                            + 100 * np.arange(6)[:, None, None]).astype(np.float32)},
         grid=(3, 2, 2), block=(4, 4, 4)),

    Case("strided_gather", r"""
extern "C" __global__ void strided_gather(const double* src, const int* index, double* dst, int n, int stride) {
    int i = IDX;
    if (i < n) dst[i] = src[index[i] * stride + 1];
}""", lambda r: [f64(r, 4 * N), r.integers(0, N, 300).astype(np.int32), np.zeros(300, np.float64),
                 np.int32(300), np.int32(4)],
         lambda s, idx, d, n, st: {2: s[idx * 4 + 1]}, grid=(3,)),

    Case("scatter_reverse", r"""
extern "C" __global__ void scatter_reverse(const int* src, int* dst, int n) {
    int i = IDX;
    if (i < n) dst[n - 1 - i] = src[i];
}""", lambda r: [ints(r, N), np.zeros(N, np.int32), np.int32(N)], lambda s, d, n: {1: s[::-1]}, grid=(8,)),

    Case("mixed_precision", r"""
extern "C" __global__ void mixed_precision(const float* x, const double* y, double* out, float* out32, int n) {
    int i = IDX;
    if (i >= n) return;
    double s = x[i] + y[i];             // float promoted to double
    out[i] = s * 0.5;
    out32[i] = (float)y[i] * 3.0f + 1;  // int literal converted to float
}""", lambda r: [f32(r, N), f64(r, N), np.zeros(N), np.zeros(N, np.float32), np.int32(N)],
         lambda x, y, o, o32, n: {2: (x.astype(np.float64) + y) * 0.5,
                                  3: (y.astype(np.float32) * np.float32(3) + np.float32(1))}, grid=(8,),
         rtol=1e-6, atol=1e-7),

    Case("conversions", r"""
extern "C" __global__ void conversions(const float* x, int* trunc, unsigned int* wrapped, float* back, int n) {
    int i = IDX;
    if (i >= n) return;
    trunc[i] = (int)x[i];
    wrapped[i] = (unsigned int)(int)x[i];
    back[i] = (float)(long long)(x[i] * 1000.0f);
}""", lambda r: [f32(r, N, low=-5000, high=5000), np.zeros(N, np.int32), np.zeros(N, np.uint32),
                 np.zeros(N, np.float32), np.int32(N)],
         lambda x, t, w, b, n: {1: np.trunc(x).astype(np.int32), 2: np.trunc(x).astype(np.int32).view(np.uint32),
                                3: np.trunc(x * np.float32(1000)).astype(np.float32)}, grid=(8,)),
]


def _integer_ops(a, b):
    y = np.where(b == 0, 1, b).astype(np.int32)
    q = (np.abs(a) // np.abs(y)) * np.sign(a) * np.sign(y)  # C division truncates toward zero
    out = np.stack([q, a - q * y, (a << 3) ^ (y >> 2), (a & 0xFF) | (~y & 0xF00), np.abs(a - y)], axis=1)
    return out.astype(np.int32).ravel()


def _fmix64(x):
    with np.errstate(over="ignore"):
        x = x ^ (x >> np.uint64(33))
        x = x * np.uint64(0xFF51AFD7ED558CCD)
        x = x ^ (x >> np.uint64(33))
        x = x * np.uint64(0xC4CEB9FE1A85EC53)
        return x ^ (x >> np.uint64(33))
