"""Whole small programs as in NVIDIA's CUDA samples and the CuPy/PyCUDA/Numba tutorials: linear
algebra (matrix-vector, matmul, CSR SpMV, Jacobi), stencils and image filters (convolutions,
Sobel, box blur, Game of Life), fractals with contraction-free arithmetic, n-body, Black-Scholes,
per-thread random numbers, Monte-Carlo, histograms, scans, reductions, and dynamic parallelism
(a parent kernel launching child grids, which OpenCL devices run as loops)."""

from __future__ import annotations

import math

import numpy as np

from .case import Case, blocks, f32, f64, ints

N = 1000

# Device-side launches (`child<<<grid, block>>>`) need relocatable device code under NVRTC.
OPTIONS = ("-rdc=true",)

PRELUDE = r"""
#define TID (blockIdx.x * blockDim.x + threadIdx.x)
typedef unsigned int u32;
typedef unsigned char uchar;

__device__ __forceinline__ u32 wang_hash(u32 s) {
    s = (s ^ 61u) ^ (s >> 16);
    s *= 9u;
    s = s ^ (s >> 4);
    s *= 0x27d4eb2du;
    s = s ^ (s >> 15);
    return s;
}

__device__ inline int clamp_index(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
"""

CASES = [
    Case("matvec_row", r"""
extern "C" __global__ void matvec_row(const float* A, const float* x, float* y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j) sum += A[r * cols + j] * x[j];
    y[r] = sum;
}""", lambda r: [f32(r, 300, 64), f32(r, 64), np.zeros(300, np.float32), np.int32(300), np.int32(64)],
         lambda A, x, y, rows, cols: {2: A.astype(np.float64) @ x.astype(np.float64)},
         grid=(blocks(300, 128),), rtol=1e-5, atol=1e-5),

    Case("matmul_naive", r"""
extern "C" __global__ void matmul_naive(const float* A, const float* B, float* C, int M, int K, int N) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}""", lambda r: [f32(r, 40, 48), f32(r, 48, 56), np.zeros((40, 56), np.float32), np.int32(40), np.int32(48),
                 np.int32(56)],
         lambda A, B, C, M, K, N_: {2: A.astype(np.float64) @ B.astype(np.float64)},
         grid=(blocks(56, 16), blocks(40, 16)), block=(16, 16), rtol=1e-5, atol=1e-5),

    Case("conv1d", r"""
extern "C" __global__ void conv1d(const float* in, const float* filt, float* out, int n, int radius) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = -radius; k <= radius; ++k) {
        int j = i + k;
        if (j >= 0 && j < n) acc += in[j] * filt[k + radius];
    }
    out[i] = acc;
}""", lambda r: [f32(r, N), f32(r, 9), np.zeros(N, np.float32), np.int32(N), np.int32(4)],
         lambda x, f, out, n, rad: {2: np.correlate(np.pad(x.astype(np.float64), 4), f.astype(np.float64), "valid")},
         grid=(blocks(N, 128),), rtol=1e-5, atol=1e-6),

    Case("conv_rows_separable", r"""
#define ROWS_RADIUS 2
#define ROWS_TILE_W 32
#define ROWS_TILE_H 4
__constant__ float c_row_filter[2 * ROWS_RADIUS + 1] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};

extern "C" __global__ void conv_rows_separable(const float* src, float* dst, int w, int h) {
    __shared__ float tile[ROWS_TILE_H][ROWS_TILE_W + 2 * ROWS_RADIUS];
    int x = blockIdx.x * ROWS_TILE_W + threadIdx.x;
    int y = blockIdx.y * ROWS_TILE_H + threadIdx.y;
    int yc = min(y, h - 1);
    float* row = tile[threadIdx.y];
    row[threadIdx.x + ROWS_RADIUS] = x < w ? src[yc * w + x] : 0.0f;
    if (threadIdx.x < ROWS_RADIUS) {
        int xl = x - ROWS_RADIUS;
        int xr = blockIdx.x * ROWS_TILE_W + ROWS_TILE_W + threadIdx.x;
        row[threadIdx.x] = xl >= 0 ? src[yc * w + xl] : 0.0f;
        row[threadIdx.x + ROWS_TILE_W + ROWS_RADIUS] = xr < w ? src[yc * w + xr] : 0.0f;
    }
    __syncthreads();
    if (x >= w || y >= h) return;
    float sum = 0.0f;
#pragma unroll
    for (int k = -ROWS_RADIUS; k <= ROWS_RADIUS; ++k)
        sum += c_row_filter[ROWS_RADIUS + k] * row[threadIdx.x + ROWS_RADIUS + k];
    dst[y * w + x] = sum;
}""", lambda r: [f32(r, 30, 100), np.zeros((30, 100), np.float32), np.int32(100), np.int32(30)],
         lambda src, dst, w, h: {1: _rows_filter(src)}, grid=(blocks(100, 32), blocks(30, 4)), block=(32, 4),
         rtol=1e-6, atol=1e-6),

    Case("sobel_u8", r"""
extern "C" __global__ void sobel_u8(const unsigned char* img, unsigned char* edges, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        edges[y * w + x] = 0;
        return;
    }
#define PIX(dx, dy) ((int)img[(y + (dy)) * w + x + (dx)])
    int gx = PIX(1, -1) + 2 * PIX(1, 0) + PIX(1, 1) - PIX(-1, -1) - 2 * PIX(-1, 0) - PIX(-1, 1);
    int gy = PIX(-1, 1) + 2 * PIX(0, 1) + PIX(1, 1) - PIX(-1, -1) - 2 * PIX(0, -1) - PIX(1, -1);
#undef PIX
    int mag = abs(gx) + abs(gy);
    edges[y * w + x] = (unsigned char)min(mag, 255);
}""", lambda r: [r.integers(0, 256, (30, 40), dtype=np.uint8), np.full((30, 40), 7, np.uint8), np.int32(40),
                 np.int32(30)],
         lambda img, e, w, h: {1: _sobel_u8(img)}, grid=(blocks(40, 16), blocks(30, 16)), block=(16, 16)),

    Case("sobel_f32", r"""
extern "C" __global__ void sobel_f32(const float* img, float* mag, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int xm = clamp_index(x - 1, 0, w - 1), xp = clamp_index(x + 1, 0, w - 1);
    int ym = clamp_index(y - 1, 0, h - 1), yp = clamp_index(y + 1, 0, h - 1);
    float gx = (img[ym * w + xp] + 2.0f * img[y * w + xp] + img[yp * w + xp])
             - (img[ym * w + xm] + 2.0f * img[y * w + xm] + img[yp * w + xm]);
    float gy = (img[yp * w + xm] + 2.0f * img[yp * w + x] + img[yp * w + xp])
             - (img[ym * w + xm] + 2.0f * img[ym * w + x] + img[ym * w + xp]);
    mag[y * w + x] = sqrtf(gx * gx + gy * gy);
}""", lambda r: [f32(r, 30, 40, low=0.0, high=1.0), np.zeros((30, 40), np.float32), np.int32(40), np.int32(30)],
         lambda img, m, w, h: {1: _sobel_f(img)}, grid=(blocks(40, 16), blocks(30, 16)), block=(16, 16),
         rtol=1e-5, atol=1e-6),

    Case("box_blur_u8", r"""
extern "C" __global__ void box_blur_u8(const uchar* in, uchar* out, int w, int h, int radius) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int sum = 0;
    for (int dy = -radius; dy <= radius; ++dy)
        for (int dx = -radius; dx <= radius; ++dx)
            sum += in[clamp_index(y + dy, 0, h - 1) * w + clamp_index(x + dx, 0, w - 1)];
    int side = 2 * radius + 1;
    out[y * w + x] = (uchar)(sum / (side * side));
}""", lambda r: [r.integers(0, 256, (33, 45), dtype=np.uint8), np.zeros((33, 45), np.uint8), np.int32(45),
                 np.int32(33), np.int32(2)],
         lambda a, o, w, h, rad: {1: _box_blur(a, 2)}, grid=(blocks(45, 16), blocks(33, 8)), block=(16, 8)),

    Case("mandelbrot_f32", r"""
extern "C" __global__ void mandelbrot_f32(int* counts, int w, int h, float x0, float y0, float dx, float dy,
                                          int max_iter) {
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    // explicit round-to-nearest operations: no multiply-add is contracted, so the counts are exact
    float cr = __fadd_rn(x0, __fmul_rn((float)px, dx));
    float ci = __fadd_rn(y0, __fmul_rn((float)py, dy));
    float zr = 0.0f, zi = 0.0f;
    int n = 0;
    while (n < max_iter) {
        float zr2 = __fmul_rn(zr, zr);
        float zi2 = __fmul_rn(zi, zi);
        if (__fadd_rn(zr2, zi2) > 4.0f) break;
        zi = __fadd_rn(__fmul_rn(__fmul_rn(2.0f, zr), zi), ci);
        zr = __fadd_rn(__fsub_rn(zr2, zi2), cr);
        ++n;
    }
    counts[py * w + px] = n;
}""", lambda r: [np.full((48, 64), -1, np.int32), np.int32(64), np.int32(48), np.float32(-2.1), np.float32(-1.2),
                 np.float32(0.046875), np.float32(0.05), np.int32(100)],
         lambda c, w, h, x0, y0, dx, dy, it: {0: _escape_counts(np.float32, w, h, x0, y0, dx, dy, 0.0, 0.0, it, True)},
         grid=(blocks(64, 32), blocks(48, 8)), block=(32, 8)),

    Case("julia_f64", r"""
extern "C" __global__ void julia_f64(int* counts, int w, int h, double x0, double y0, double dx, double dy,
                                     double cr, double ci, int max_iter) {
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    double zr = __dadd_rn(x0, __dmul_rn((double)px, dx));
    double zi = __dadd_rn(y0, __dmul_rn((double)py, dy));
    int n = 0;
    for (; n < max_iter; ++n) {
        double zr2 = __dmul_rn(zr, zr), zi2 = __dmul_rn(zi, zi);
        if (__dadd_rn(zr2, zi2) > 4.0) break;
        double t = __dmul_rn(__dmul_rn(2.0, zr), zi);
        zr = __dadd_rn(__dsub_rn(zr2, zi2), cr);
        zi = __dadd_rn(t, ci);
    }
    counts[py * w + px] = n;
}""", lambda r: [np.full((40, 60), -1, np.int32), np.int32(60), np.int32(40), np.float64(-1.6), np.float64(-1.0),
                 np.float64(3.2 / 60), np.float64(0.05), np.float64(-0.8), np.float64(0.156), np.int32(120)],
         lambda c, w, h, x0, y0, dx, dy, cr, ci, it: {
             0: _escape_counts(np.float64, w, h, x0, y0, dx, dy, cr, ci, it, False)},
         grid=(blocks(60, 32), blocks(40, 8)), block=(32, 8)),

    Case("life_step", r"""
extern "C" __global__ void life_step(const uchar* cur, uchar* next, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int alive = 0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            if (dx != 0 || dy != 0) alive += cur[((y + dy + h) % h) * w + (x + dx + w) % w];
    uchar c = cur[y * w + x];
    next[y * w + x] = (alive == 3 || (alive == 2 && c)) ? 1 : 0;
}""", lambda r: [(r.random((40, 50)) < 0.35).astype(np.uint8), np.full((40, 50), 9, np.uint8), np.int32(50),
                 np.int32(40)],
         lambda cur, nxt, w, h: {1: _life(cur)}, grid=(blocks(50, 16), blocks(40, 16)), block=(16, 16)),

    Case("nbody_accel", r"""
#define NBODY_SOFTENING2 0.01f
__device__ float3 body_body_interaction(float4 bi, float4 bj, float3 ai) {
    float3 r;
    r.x = bj.x - bi.x;
    r.y = bj.y - bi.y;
    r.z = bj.z - bi.z;
    float dist2 = r.x * r.x + r.y * r.y + r.z * r.z + NBODY_SOFTENING2;
    float inv = rsqrtf(dist2);
    float s = bj.w * (inv * inv * inv);
    ai.x += r.x * s;
    ai.y += r.y * s;
    ai.z += r.z * s;
    return ai;
}

extern "C" __global__ void nbody_accel(const float4* pos, float3* acc, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 me = pos[i];
    float3 a = make_float3(0.0f, 0.0f, 0.0f);
    for (int j = 0; j < n; ++j) a = body_body_interaction(me, pos[j], a);
    acc[i] = a;
}""", lambda r: [_bodies(r, 256), np.zeros((256, 3), np.float32), np.int32(256)],
         lambda p, a, n: {1: _nbody(p, 0.01)}, grid=(2,), rtol=2e-5, atol=5e-4),

    Case("black_scholes", r"""
__device__ inline float normal_cdf(float d) { return 0.5f * (1.0f + erff(d * 0.70710678118654752f)); }

extern "C" __global__ void black_scholes(float* call, float* put, const float* S, const float* X, const float* T,
                                         float R, float V, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float sqrtT = sqrtf(T[i]);
        float d1 = (logf(S[i] / X[i]) + (R + 0.5f * V * V) * T[i]) / (V * sqrtT);
        float d2 = d1 - V * sqrtT;
        float disc = X[i] * expf(-R * T[i]);
        float n1 = normal_cdf(d1), n2 = normal_cdf(d2);
        call[i] = S[i] * n1 - disc * n2;
        put[i] = disc * (1.0f - n2) - S[i] * (1.0f - n1);
    }
}""", lambda r: [np.zeros(N, np.float32), np.zeros(N, np.float32), f32(r, N, low=5.0, high=30.0),
                 f32(r, N, low=1.0, high=100.0), f32(r, N, low=0.25, high=10.0), np.float32(0.02), np.float32(0.30),
                 np.int32(N)],
         lambda c, p, S, X, T, R, V, n: dict(enumerate(_black_scholes(S, X, T, R, V))), grid=(2,),
         rtol=2e-5, atol=1e-4),

    Case("xorshift32_streams", r"""
extern "C" __global__ void xorshift32_streams(u32* state, u32* out, int n, int steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    u32 x = state[i];
    for (int s = 0; s < steps; ++s) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        out[i * steps + s] = x;
    }
    state[i] = x;
}""", lambda r: [r.integers(1, 2**32, 300, dtype=np.uint32), np.zeros((300, 16), np.uint32), np.int32(300),
                 np.int32(16)],
         lambda st, out, n, steps: dict(enumerate(_xorshift(st, 16))), grid=(3,)),

    Case("lcg_uniform", r"""
extern "C" __global__ void lcg_uniform(const u32* seeds, float* out, int per_thread, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    u32 x = seeds[i];
    for (int k = 0; k < per_thread; ++k) {
        x = 1664525u * x + 1013904223u;
        out[k * n + i] = (float)(x >> 8) * (1.0f / 16777216.0f);
    }
}""", lambda r: [r.integers(0, 2**32, 200, dtype=np.uint32), np.zeros((8, 200), np.float32), np.int32(8),
                 np.int32(200)],
         lambda s, out, k, n: {1: _lcg(s, 8)}, grid=(2,)),

    Case("monte_carlo_pi", r"""
extern "C" __global__ void monte_carlo_pi(unsigned long long* hits, int* per_thread, int samples, u32 seed) {
    u32 tid = blockIdx.x * blockDim.x + threadIdx.x;
    int inside = 0;
    for (int s = 0; s < samples; ++s) {
        u32 k = tid * samples + s;
        u32 x = wang_hash((2u * k) ^ seed) & 0x7fffu;
        u32 y = wang_hash((2u * k + 1u) ^ seed) & 0x7fffu;
        if (x * x + y * y < (1u << 30)) ++inside;
    }
    per_thread[tid] = inside;
    atomicAdd(hits, (unsigned long long)inside);
}""", lambda r: [np.zeros(1, np.uint64), np.zeros(512, np.int32), np.int32(32), np.uint32(0x9E3779B9)],
         lambda hits, pt, samples, seed: _monte_carlo(512, samples, seed), grid=(4,)),

    Case("rgb_to_gray_uchar3", r"""
extern "C" __global__ void rgb_to_gray_uchar3(const uchar3* rgb, unsigned char* gray, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uchar3 p = rgb[i];
    gray[i] = (unsigned char)((77 * p.x + 150 * p.y + 29 * p.z) >> 8);
}""", lambda r: [r.integers(0, 256, (N, 3), dtype=np.uint8), np.zeros(N, np.uint8), np.int32(N)],
         lambda rgb, g, n: {1: ((rgb.astype(np.int32) @ np.array([77, 150, 29])) >> 8).astype(np.uint8)},
         grid=(blocks(N, 128),)),

    Case("rgba_luma_invert", r"""
extern "C" __global__ void rgba_luma_invert(const uchar4* rgba, float* luma, uchar4* inverted, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uchar4 p = rgba[i];
    luma[i] = 0.299f * p.x + 0.587f * p.y + 0.114f * p.z;
    inverted[i] = make_uchar4(255 - p.x, 255 - p.y, 255 - p.z, p.w);
}""", lambda r: [r.integers(0, 256, (N, 4), dtype=np.uint8), np.zeros(N, np.float32), np.zeros((N, 4), np.uint8),
                 np.int32(N)],
         lambda p, luma, inv, n: {1: p[:, :3].astype(np.float64) @ np.float32([0.299, 0.587, 0.114]).astype(np.float64),
                                  2: np.concatenate([255 - p[:, :3], p[:, 3:]], axis=1)},
         grid=(blocks(N, 128),), rtol=1e-6, atol=1e-4),

    Case("byte_histogram", r"""
extern "C" __global__ void byte_histogram(const unsigned char* data, unsigned int* hist, int n) {
    __shared__ unsigned int bins[256];
    bins[threadIdx.x] = 0;
    __syncthreads();
    for (int i = TID; i < n; i += blockDim.x * gridDim.x) atomicAdd(&bins[data[i]], 1u);
    __syncthreads();
    if (bins[threadIdx.x]) atomicAdd(&hist[threadIdx.x], bins[threadIdx.x]);
}""", lambda r: [(r.integers(0, 256, 4000) * r.integers(0, 2, 4000)).astype(np.uint8), np.full(256, 5, np.uint32),
                 np.int32(4000)],
         lambda d, h, n: {1: h + np.bincount(d, minlength=256).astype(np.uint32)}, grid=(3,), block=(256,)),

    Case("jacobi_laplace_step", r"""
extern "C" __global__ void jacobi_laplace_step(const float* u, float* u_new, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    int c = j * nx + i;
    if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) {
        u_new[c] = u[c];
        return;
    }
    u_new[c] = 0.25f * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx]);
}""", lambda r: [f32(r, 36, 50), np.zeros((36, 50), np.float32), np.int32(50), np.int32(36)],
         lambda u, un, nx, ny: {1: _jacobi_laplace(u)}, grid=(blocks(50, 32), blocks(36, 8)), block=(32, 8)),

    Case("jacobi_dense_sweep", r"""
extern "C" __global__ void jacobi_dense_sweep(const double* A, const double* b, const double* x, double* x_new,
                                              int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double sigma = 0.0;
    for (int j = 0; j < n; ++j)
        if (j != i) sigma += A[i * n + j] * x[j];
    x_new[i] = (b[i] - sigma) / A[i * n + i];
}""", lambda r: [_diag_dominant(r, 100), f64(r, 100), f64(r, 100), np.zeros(100), np.int32(100)],
         lambda A, b, x, xn, n: {3: (b - (A @ x - np.diag(A) * x)) / np.diag(A)}, rtol=1e-12, atol=1e-13),

    Case("hillis_steele_scan", r"""
extern "C" __global__ void hillis_steele_scan(const int* in, int* out, int n) {
    __shared__ int buf[2][256];
    int t = threadIdx.x;
    int pout = 0, pin = 1;
    buf[pout][t] = t < n ? in[t] : 0;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        int v = buf[pin][t];
        if (t >= offset) v += buf[pin][t - offset];
        buf[pout][t] = v;
        __syncthreads();
    }
    if (t < n) out[t] = buf[pout][t];
}""", lambda r: [ints(r, 200), np.zeros(200, np.int32), np.int32(200)],
         lambda a, out, n: {1: np.cumsum(a, dtype=np.int32)}, block=(256,)),

    Case("blelloch_scan", r"""
extern "C" __global__ void blelloch_scan(const unsigned int* in, unsigned int* out, int n) {
    extern __shared__ unsigned int temp[];
    int t = threadIdx.x;
    int m = 2 * blockDim.x;
    temp[2 * t] = 2 * t < n ? in[2 * t] : 0u;
    temp[2 * t + 1] = 2 * t + 1 < n ? in[2 * t + 1] : 0u;
    int offset = 1;
    for (int d = m >> 1; d > 0; d >>= 1) {  // up-sweep
        __syncthreads();
        if (t < d) temp[offset * (2 * t + 2) - 1] += temp[offset * (2 * t + 1) - 1];
        offset *= 2;
    }
    if (t == 0) temp[m - 1] = 0;
    for (int d = 1; d < m; d *= 2) {  // down-sweep
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
            unsigned int v = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += v;
        }
    }
    __syncthreads();
    if (2 * t < n) out[2 * t] = temp[2 * t];
    if (2 * t + 1 < n) out[2 * t + 1] = temp[2 * t + 1];
}""", lambda r: [r.integers(0, 2**31, 250, dtype=np.uint32), np.zeros(250, np.uint32), np.int32(250)],
         lambda a, out, n: {1: np.concatenate([[0], np.cumsum(a, dtype=np.uint32)[:-1]]).astype(np.uint32)},
         block=(128,), shared=256 * 4),

    Case("radix_digit_count", r"""
extern "C" __global__ void radix_digit_count(const unsigned int* keys, unsigned int* counts, int n, int shift) {
    __shared__ unsigned int local[16];
    if (threadIdx.x < 16) local[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&local[(keys[i] >> shift) & 0xFu], 1u);
    __syncthreads();
    if (threadIdx.x < 16) counts[blockIdx.x * 16 + threadIdx.x] = local[threadIdx.x];
}""", lambda r: [r.integers(0, 2**32, 2000, dtype=np.uint32), np.zeros((8, 16), np.uint32), np.int32(2000),
                 np.int32(8)],
         lambda k, c, n, s: {1: np.stack([np.bincount((k[b * 256:(b + 1) * 256] >> 8) & 15, minlength=16)
                                          for b in range(8)]).astype(np.uint32)}, grid=(8,), block=(256,)),

    Case("spmv_csr_scalar", r"""
extern "C" __global__ void spmv_csr_scalar(const int* row_ptr, const int* col_idx, const float* vals,
                                           const float* x, float* y, int rows) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float dot = 0.0f;
        for (int jj = row_ptr[row]; jj < row_ptr[row + 1]; ++jj) dot += vals[jj] * x[col_idx[jj]];
        y[row] = dot;
    }
}""", lambda r: [*_csr(r, 300, 280), f32(r, 280), np.zeros(300, np.float32), np.int32(300)],
         lambda rp, ci, v, x, y, rows: {4: _csr_dense(rp, ci, v, 280) @ x.astype(np.float64)},
         grid=(blocks(300, 128),), rtol=1e-5, atol=1e-6),

    Case("bounding_box", r"""
extern "C" __global__ void bounding_box(const float2* pts, float4* boxes, int n) {
    __shared__ float lo_x[128], lo_y[128], hi_x[128], hi_y[128];
    int t = threadIdx.x;
    float mnx = 1e30f, mny = 1e30f, mxx = -1e30f, mxy = -1e30f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {
        float2 p = pts[i];
        mnx = fminf(mnx, p.x);
        mny = fminf(mny, p.y);
        mxx = fmaxf(mxx, p.x);
        mxy = fmaxf(mxy, p.y);
    }
    lo_x[t] = mnx; lo_y[t] = mny; hi_x[t] = mxx; hi_y[t] = mxy;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            lo_x[t] = fminf(lo_x[t], lo_x[t + s]);
            lo_y[t] = fminf(lo_y[t], lo_y[t + s]);
            hi_x[t] = fmaxf(hi_x[t], hi_x[t + s]);
            hi_y[t] = fmaxf(hi_y[t], hi_y[t + s]);
        }
        __syncthreads();
    }
    if (t == 0) boxes[blockIdx.x] = make_float4(lo_x[0], lo_y[0], hi_x[0], hi_y[0]);
}""", lambda r: [f32(r, N, 2, low=-50.0, high=50.0), np.zeros((4, 4), np.float32), np.int32(N)],
         lambda p, b, n: {1: _boxes(p, 4, 128)}, grid=(4,)),

    Case("int_range_atomic", r"""
extern "C" __global__ void int_range_atomic(const int* v, int* range, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicMin(&range[0], v[i]);
        atomicMax(&range[1], v[i]);
    }
}""", lambda r: [ints(r, N, low=-10**6, high=10**6), np.array([2**31 - 1, -2**31], np.int32), np.int32(N)],
         lambda v, rg, n: {1: np.array([v.min(), v.max()], np.int32)}, grid=(blocks(N, 128),)),

    Case("horner_poly", r"""
extern "C" __global__ void horner_poly(const float* coef, int degree, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float xi = x[i];
    float acc = coef[degree];
    for (int k = degree - 1; k >= 0; --k) acc = acc * xi + coef[k];
    y[i] = acc;
}""", lambda r: [f32(r, 10), np.int32(9), f32(r, N), np.zeros(N, np.float32), np.int32(N)],
         lambda c, d, x, y, n: {3: np.polynomial.polynomial.polyval(x.astype(np.float64), c.astype(np.float64))},
         grid=(blocks(N, 128),), rtol=1e-5, atol=1e-6),

    Case("cross_float3", r"""
extern "C" __global__ void cross_float3(const float3* a, const float3* b, float3* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 u = a[i], v = b[i];
    c[i] = make_float3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x);
}""", lambda r: [f32(r, N, 3), f32(r, N, 3), np.zeros((N, 3), np.float32), np.int32(N)],
         lambda a, b, c, n: {2: np.cross(a.astype(np.float64), b.astype(np.float64))}, grid=(blocks(N, 128),),
         rtol=1e-6, atol=2e-7),

    Case("distance_matrix", r"""
extern "C" __global__ void distance_matrix(const float* pts, float* dist, int n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    float dx = pts[3 * i] - pts[3 * j];
    float dy = pts[3 * i + 1] - pts[3 * j + 1];
    float dz = pts[3 * i + 2] - pts[3 * j + 2];
    dist[i * n + j] = sqrtf(dx * dx + dy * dy + dz * dz);
}""", lambda r: [f32(r, 70, 3), np.full((70, 70), -1, np.float32), np.int32(70)],
         lambda p, d, n: {1: _distances(p)}, grid=(blocks(70, 32), blocks(70, 8)), block=(32, 8),
         rtol=1e-5, atol=1e-6),

    # Dynamic parallelism: on OpenCL each launching thread runs the child grid as loops.
    Case("dp_scale_rows", r"""
extern "C" __global__ void dp_scale_row_child(float* row, int cols, float s) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < cols) row[j] = row[j] * s;
}

extern "C" __global__ void dp_scale_rows(float* m, const float* scale, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) dp_scale_row_child<<<(cols + 31) / 32, 32>>>(m + (size_t)r * cols, cols, scale[r]);
}""", lambda r: [f32(r, 20, 70), f32(r, 20), np.int32(20), np.int32(70)],
         lambda m, s, rows, cols: {0: m * s[:, None]}, block=(32,)),

    Case("dp_outer_dim3", r"""
extern "C" __global__ void dp_outer_child(const int* a, const int* b, int* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = a[y] * b[x] + (int)(gridDim.x * 100 + blockDim.y);
}

extern "C" __global__ void dp_outer_dim3(const int* a, const int* b, int* out, int w, int h) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        dim3 block(8, 4);
        dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
        dp_outer_child<<<grid, block>>>(a, b, out, w, h);
    }
}""", lambda r: [ints(r, 13), ints(r, 30), np.zeros((13, 30), np.int32), np.int32(30), np.int32(13)],
         lambda a, b, out, w, h: {2: np.outer(a, b) + (4 * 100 + 4)}, grid=(2,), block=(64,)),

    Case("dp_segments", r"""
extern "C" __global__ void dp_segment_child(int* out, int start, int len, int seg) {
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < len; j += blockDim.x * gridDim.x)
        out[start + j] = seg * 1000 + j;
}

extern "C" __global__ void dp_segments(const int* offsets, int* out, int segments) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= segments) return;
    int start = offsets[s], len = offsets[s + 1] - offsets[s];
    if (len > 0) dp_segment_child<<<2, 32>>>(out, start, len, s);
}""", lambda r: _segments_args(_offsets(r, 40)),
         lambda off, out, segs: {1: _segment_fill(off)}, block=(64,)),
]


def _rows_filter(src):
    f = np.float32([0.0625, 0.25, 0.375, 0.25, 0.0625]).astype(np.float64)
    p = np.pad(src.astype(np.float64), ((0, 0), (2, 2)))
    w = src.shape[1]
    return sum(f[k] * p[:, k:k + w] for k in range(5))


def _sobel_u8(img):
    p = img.astype(np.int32)
    h, w = p.shape

    def s(dx, dy):
        return p[1 + dy:h - 1 + dy, 1 + dx:w - 1 + dx]

    gx = s(1, -1) + 2 * s(1, 0) + s(1, 1) - s(-1, -1) - 2 * s(-1, 0) - s(-1, 1)
    gy = s(-1, 1) + 2 * s(0, 1) + s(1, 1) - s(-1, -1) - 2 * s(0, -1) - s(1, -1)
    out = np.zeros_like(img)
    out[1:-1, 1:-1] = np.minimum(np.abs(gx) + np.abs(gy), 255)
    return out


def _sobel_f(img):
    p = np.pad(img.astype(np.float64), 1, mode="edge")
    h, w = img.shape

    def s(dx, dy):
        return p[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]

    gx = (s(1, -1) + 2 * s(1, 0) + s(1, 1)) - (s(-1, -1) + 2 * s(-1, 0) + s(-1, 1))
    gy = (s(-1, 1) + 2 * s(0, 1) + s(1, 1)) - (s(-1, -1) + 2 * s(0, -1) + s(1, -1))
    return np.sqrt(gx * gx + gy * gy)


def _box_blur(img, radius):
    side = 2 * radius + 1
    p = np.pad(img.astype(np.int32), radius, mode="edge")
    h, w = img.shape
    total = sum(p[dy:dy + h, dx:dx + w] for dy in range(side) for dx in range(side))
    return (total // (side * side)).astype(np.uint8)


def _escape_counts(dtype, w, h, x0, y0, dx, dy, cr, ci, max_iter, mandelbrot):
    """Escape counts with every operation rounded in `dtype` in the kernels' order (NumPy fuses nothing)."""
    px = np.arange(w).astype(dtype)[None, :]
    py = np.arange(h).astype(dtype)[:, None]
    ar, ai = np.broadcast_arrays(dtype(x0) + px * dtype(dx), dtype(y0) + py * dtype(dy))
    if mandelbrot:
        cr, ci = ar.copy(), ai.copy()
        zr, zi = np.zeros_like(cr), np.zeros_like(ci)
    else:
        cr, ci = dtype(cr), dtype(ci)
        zr, zi = ar.copy(), ai.copy()
    n = np.zeros((h, w), np.int32)
    active = np.ones((h, w), bool)
    for _ in range(max_iter):
        zr2, zi2 = zr * zr, zi * zi
        active &= ~((zr2 + zi2) > 4)
        t = (dtype(2) * zr) * zi
        zr = np.where(active, (zr2 - zi2) + cr, zr)
        zi = np.where(active, t + ci, zi)
        n += active
    return n


def _life(g):
    alive = sum(np.roll(g.astype(np.int32), (dy, dx), axis=(0, 1))
                for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0))
    return ((alive == 3) | ((alive == 2) & (g == 1))).astype(np.uint8)


def _bodies(r, n):
    return np.concatenate([f32(r, n, 3), f32(r, n, 1, low=0.5, high=1.0)], axis=1)


def _nbody(p, soft2):
    p = p.astype(np.float64)
    r = p[None, :, :3] - p[:, None, :3]  # r[i, j] = pos[j] - pos[i]
    inv = ((r * r).sum(axis=2) + np.float64(np.float32(soft2))) ** -1.5
    return (r * (p[None, :, 3] * inv)[:, :, None]).sum(axis=1)


def _black_scholes(S, X, T, R, V):
    S, X, T = (a.astype(np.float64) for a in (S, X, T))
    R, V = float(R), float(V)
    sqrt_t = np.sqrt(T)
    d1 = (np.log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrt_t)
    d2 = d1 - V * sqrt_t
    cdf = np.vectorize(lambda d: 0.5 * (1.0 + math.erf(d / math.sqrt(2.0))))
    disc = X * np.exp(-R * T)
    n1, n2 = cdf(d1), cdf(d2)
    return S * n1 - disc * n2, disc * (1.0 - n2) - S * (1.0 - n1)


def _xorshift(state, steps):
    x = state.copy()
    out = np.zeros((x.size, steps), np.uint32)
    for s in range(steps):
        x ^= x << np.uint32(13)
        x ^= x >> np.uint32(17)
        x ^= x << np.uint32(5)
        out[:, s] = x
    return x, out


def _lcg(seeds, k):
    x = seeds.copy()
    out = np.zeros((k, x.size), np.float32)
    for i in range(k):
        x = x * np.uint32(1664525) + np.uint32(1013904223)
        out[i] = (x >> np.uint32(8)).astype(np.float32) * np.float32(2.0**-24)
    return out


def _wang_hash(s):
    s = (s ^ np.uint32(61)) ^ (s >> np.uint32(16))
    s = s * np.uint32(9)
    s = s ^ (s >> np.uint32(4))
    s = s * np.uint32(0x27D4EB2D)
    return s ^ (s >> np.uint32(15))


def _monte_carlo(threads, samples, seed):
    k = (np.arange(threads, dtype=np.uint32)[:, None] * np.uint32(samples)
         + np.arange(samples, dtype=np.uint32)[None, :])
    x = _wang_hash((np.uint32(2) * k) ^ np.uint32(seed)) & np.uint32(0x7FFF)
    y = _wang_hash((np.uint32(2) * k + np.uint32(1)) ^ np.uint32(seed)) & np.uint32(0x7FFF)
    inside = (x * x + y * y < np.uint32(1 << 30)).sum(axis=1).astype(np.int32)
    return {0: np.array([inside.sum()], np.uint64), 1: inside}


def _jacobi_laplace(u):
    out = u.copy()
    out[1:-1, 1:-1] = np.float32(0.25) * (((u[1:-1, :-2] + u[1:-1, 2:]) + u[:-2, 1:-1]) + u[2:, 1:-1])
    return out


def _diag_dominant(r, n):
    a = f64(r, n, n)
    a[np.arange(n), np.arange(n)] = n + f64(r, n, low=1.0, high=5.0)
    return a


def _csr(r, rows, cols):
    dense = np.where(r.random((rows, cols)) < 0.05, f32(r, rows, cols), np.float32(0))
    row_ptr = np.concatenate([[0], np.cumsum((dense != 0).sum(axis=1))]).astype(np.int32)
    ri, ci = np.nonzero(dense)
    return [row_ptr, ci.astype(np.int32), dense[ri, ci].astype(np.float32)]


def _csr_dense(row_ptr, col_idx, vals, cols):
    dense = np.zeros((row_ptr.size - 1, cols))
    for row in range(row_ptr.size - 1):
        sl = slice(row_ptr[row], row_ptr[row + 1])
        dense[row, col_idx[sl]] = vals[sl]
    return dense


def _boxes(p, grid, block):
    owner = (np.arange(len(p)) % (grid * block)) // block
    return np.array([np.concatenate([p[owner == b].min(axis=0), p[owner == b].max(axis=0)]) for b in range(grid)],
                    np.float32)


def _distances(p):
    d = p[:, None, :].astype(np.float64) - p[None, :, :].astype(np.float64)
    return np.sqrt((d * d).sum(axis=2))


def _offsets(r, segments):
    lengths = r.integers(0, 90, segments)
    lengths[::7] = 0  # some empty segments launch nothing
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)


def _segments_args(offsets):
    return [offsets, np.full(offsets[-1], -1, np.int32), np.int32(offsets.size - 1)]


def _segment_fill(offsets):
    out = np.zeros(offsets[-1], np.int32)
    for s in range(offsets.size - 1):
        out[offsets[s]:offsets[s + 1]] = s * 1000 + np.arange(offsets[s + 1] - offsets[s])
    return out
