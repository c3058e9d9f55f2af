"""CUDA's types and C's language features: vector types (`float4`, `float3`'s 12-byte elements,
`int2`, `uchar4`, `longlong2`, ...) as arrays and by value, vectorized loads, structs by pointer
and by value (NumPy structured dtypes of the same layout), nested structs, unions, enums,
typedefs, references, pointer arithmetic, `sizeof`, casts, control flow, `cuComplex.h`, and
device functions that are overloaded, inlined, or take default arguments."""

from __future__ import annotations

import numpy as np

from .case import Case, blocks, f32, f64, ints

N = 1000

PRELUDE = r"""
#include <cuComplex.h>
#define TIDX ((int)(blockIdx.x * blockDim.x + threadIdx.x))
"""

PARTICLE = np.dtype([("pos", "<f4", (3,)), ("vel", "<f4", (3,)), ("mass", "<f4"), ("id", "<i4")])  # 32 bytes
SAMPLE = np.dtype([("tag", "i1"), ("value", "<f8"), ("count", "<i4"), ("flags", "<i2")], align=True)  # 24
CELL = np.dtype({"names": ["lo", "hi", "ids", "count"], "formats": [("<f4", (2,)), ("<f4", (2,)), ("<i4", (4,)), "<i4"],
                 "offsets": [0, 8, 16, 32], "itemsize": 40})  # float2 members align the struct to 8
QUAT = np.dtype({"names": ["q", "id"], "formats": [("<f4", (4,)), "<i4"], "offsets": [0, 16], "itemsize": 32})
AFFINE = np.dtype([("scale", "<f4"), ("offset", "<f4"), ("n", "<i4")])
FLOAT4 = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("w", "<f4")])
INT2 = np.dtype([("x", "<i4"), ("y", "<i4")])
ACC = np.dtype([("sum", "<f4"), ("n", "<i4")])
ROW_STATS = np.dtype([("lo", "<f4"), ("hi", "<f4"), ("argmin", "<i4"), ("argmax", "<i4")])


def _cdiv(a, b):
    """C's integer division, truncating toward zero."""
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    q = np.abs(a) // np.abs(b) * np.sign(a) * np.sign(b)
    return q, a - q * b


CASES = [
    Case("float4_axpy", r"""
extern "C" __global__ void float4_axpy(const float4* __restrict__ x, float4* __restrict__ y, float a, int n) {
    int i = TIDX;
    if (i < n) {
        float4 v = x[i], w = y[i];
        y[i] = make_float4(a * v.x + w.x, a * v.y + w.y, a * v.z + w.z, a * v.w + w.w);
    }
}""", lambda r: [f32(r, N, 4), f32(r, N, 4), np.float32(1.5), np.int32(N)],
         lambda x, y, a, n: {1: (np.float64(a) * x + y).astype(np.float32)}, grid=(blocks(N, 128),),
         rtol=1e-6, atol=2e-7),

    Case("float4_vectorized_load", r"""
extern "C" __global__ void float4_vectorized_load(const float* in, float* sums, float* reversed, int n4) {
    int i = TIDX;
    if (i >= n4) return;
    float4 v = reinterpret_cast<const float4*>(in)[i];
    sums[i] = (v.x + v.y) + (v.z + v.w);
    reinterpret_cast<float4*>(reversed)[i] = make_float4(v.w, v.z, v.y, v.x);
}""", lambda r: [f32(r, 4 * 300), np.zeros(300, np.float32), np.zeros(4 * 300, np.float32), np.int32(300)],
         lambda x, s, rev, n: {1: (x[0::4] + x[1::4]) + (x[2::4] + x[3::4]),
                               2: x.reshape(-1, 4)[:, ::-1].ravel()}, grid=(3,)),

    Case("float3_cross", r"""
extern "C" __global__ void float3_cross(const float3* a, const float3* b, float3* c, float* len2, int n) {
    int i = TIDX;
    if (i >= n) return;
    float3 u = a[i], v = b[i];
    float3 w;
    w.x = u.y * v.z - u.z * v.y;
    w.y = u.z * v.x - u.x * v.z;
    w.z = u.x * v.y - u.y * v.x;
    c[i] = w;
    len2[i] = w.x * w.x + w.y * w.y + w.z * w.z;
}""", lambda r: [f32(r, N, 3), f32(r, N, 3), np.zeros((N, 3), np.float32), np.zeros(N, np.float32), np.int32(N)],
         lambda a, b, c, len2, n: {2: np.cross(a.astype(np.float64), b.astype(np.float64)),
                                   3: (np.cross(a.astype(np.float64), b.astype(np.float64)) ** 2).sum(1)},
         grid=(blocks(N, 128),), rtol=1e-5, atol=1e-6),

    Case("int_vectors", r"""
extern "C" __global__ void int_vectors(const int2* p, const int4* q, const uint4* h, int2* swapped, int4* mixed,
                                       uint4* hashed, int n) {
    int i = TIDX;
    if (i >= n) return;
    int2 a = p[i];
    swapped[i] = make_int2(a.y, a.x);
    int4 b = q[i];
    mixed[i] = make_int4(b.x + b.y, b.y - b.z, b.z * b.w, b.w / (b.x == 0 ? 1 : b.x));
    uint4 c = h[i];
    hashed[i] = make_uint4(c.x ^ c.y, c.y * 2654435761u, c.z >> 3, c.w + c.x);
}""", lambda r: [ints(r, N, 2), ints(r, N, 4, low=-50, high=50), r.integers(0, 2**32, (N, 4), dtype=np.uint32),
                 np.zeros((N, 2), np.int32), np.zeros((N, 4), np.int32), np.zeros((N, 4), np.uint32), np.int32(N)],
         lambda p, q, h, s, m, hs, n: {3: p[:, ::-1], 4: _int_vectors_mixed(q), 5: _int_vectors_hashed(h)},
         grid=(blocks(N, 128),)),

    Case("double2_complex_mul", r"""
extern "C" __global__ void double2_complex_mul(const double2* a, const double2* b, double2* c, int n) {
    int i = TIDX;
    if (i >= n) return;
    double2 x = a[i], y = b[i];
    c[i] = make_double2(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}""", lambda r: [f64(r, N, 2), f64(r, N, 2), np.zeros((N, 2)), np.int32(N)],
         lambda a, b, c, n: {2: (a.view(np.complex128) * b.view(np.complex128)).view(np.float64)},
         grid=(blocks(N, 128),), rtol=1e-13, atol=1e-15),

    Case("uchar4_to_gray", r"""
extern "C" __global__ void uchar4_to_gray(const uchar4* rgba, unsigned char* gray, char4* centered, int n) {
    int i = TIDX;
    if (i >= n) return;
    uchar4 p = rgba[i];
    gray[i] = (unsigned char)((77 * p.x + 150 * p.y + 29 * p.z) >> 8);
    centered[i] = make_char4(p.x - 128, p.y - 128, p.z - 128, p.w >> 1);
}""", lambda r: [r.integers(0, 256, (N, 4), dtype=np.uint8), np.zeros(N, np.uint8), np.zeros((N, 4), np.int8),
                 np.int32(N)],
         lambda p, g, c, n: {1: _gray(p), 2: _centered(p)}, grid=(blocks(N, 128),)),

    Case("short2_longlong2", r"""
extern "C" __global__ void short2_longlong2(const short2* s, const longlong2* l, longlong2* out, short2* narrow,
                                            int n) {
    int i = TIDX;
    if (i >= n) return;
    short2 a = s[i];
    longlong2 b = l[i];
    out[i] = make_longlong2(b.x * a.x + b.y, b.y - (long long)a.y * 1000000007LL);
    int sum = a.x + a.y;
    narrow[i] = make_short2((short)max(-32768, min(32767, sum)), (short)(a.x - a.y));
}""", lambda r: [ints(r, N, 2, low=-32768, high=32768, dtype=np.int16), ints(r, N, 2, low=-2**40, high=2**40,
                                                                           dtype=np.int64),
                 np.zeros((N, 2), np.int64), np.zeros((N, 2), np.int16), np.int32(N)],
         lambda s, b, out, nar, n: {2: _short2_longlong2_out(s, b), 3: _short2_narrow(s)}, grid=(blocks(N, 128),)),

    Case("int4_vectorized_copy", r"""
extern "C" __global__ void int4_vectorized_copy(const int* __restrict__ src, int* __restrict__ dst, int n) {
    int stride = blockDim.x * gridDim.x;
    int n4 = n / 4;
    const int4* s4 = reinterpret_cast<const int4*>(src);
    int4* d4 = reinterpret_cast<int4*>(dst);
    for (int k = TIDX; k < n4; k += stride) {
        int4 v = s4[k];
        v.x += 1; v.y += 2; v.z += 3; v.w += 4;
        d4[k] = v;
    }
    for (int k = 4 * n4 + TIDX; k < n; k += stride) dst[k] = src[k] + 1 + (k & 3);
}""", lambda r: [ints(r, 1003), np.zeros(1003, np.int32), np.int32(1003)],
         lambda s, d, n: {1: s + 1 + (np.arange(1003, dtype=np.int32) & 3)}, grid=(2,), block=(64,)),

    Case("particle_float3_struct", r"""
struct Particle { float3 pos; float3 vel; float mass; int id; };  // 32 bytes: float3 is 12 bytes, 4-aligned

extern "C" __global__ void particle_float3_struct(Particle* p, float* momentum, int n) {
    int i = TIDX;
    if (i >= n) return;
    Particle q = p[i];
    q.pos.x += q.vel.x; q.pos.y += q.vel.y; q.pos.z += q.vel.z;
    q.vel = make_float3(q.vel.x * 0.5f, q.vel.y * 0.5f, q.vel.z * 0.5f);
    q.id += 1000;
    p[i] = q;
    float3* m = reinterpret_cast<float3*>(momentum) + i;
    *m = make_float3(q.mass * q.vel.x, q.mass * q.vel.y, q.mass * q.vel.z);
}""", lambda r: [_particles(r, 300), np.zeros((300, 3), np.float32), np.int32(300)],
         lambda p, m, n: _particle_step(p), grid=(3,)),

    Case("struct_alignment_records", r"""
struct Sample { char tag; double value; int count; short flags; };  // offsets 0, 8, 16, 20; 24 bytes

extern "C" __global__ void struct_alignment_records(const Sample* in, Sample* out, double* weighted, int n) {
    int i = TIDX;
    if (i >= n) return;
    const Sample* s = in + i;
    Sample* o = &out[i];
    o->tag = s->tag + 1;
    o->value = s->value * 0.25;
    o->count = -s->count;
    o->flags = s->flags | 0x100;
    weighted[i] = s->value * s->count;
}""", lambda r: [_samples(r, 500), np.zeros(500, SAMPLE), np.zeros(500), np.int32(500)],
         lambda s, o, w, n: {1: _samples_out(s), 2: s["value"] * s["count"]}, grid=(4,)),

    Case("nested_struct_arrays", r"""
struct Range2 { float2 lo; float2 hi; };
struct Cell { Range2 box; int ids[4]; int count; };  // 40 bytes, 8-aligned

extern "C" __global__ void nested_struct_arrays(const Cell* cells, const float2* pts, int* inside, int* id_sum,
                                                float* area, int n) {
    int i = TIDX;
    if (i >= n) return;
    Cell c = cells[i];
    float2 p = pts[i];
    inside[i] = p.x >= c.box.lo.x && p.x < c.box.hi.x && p.y >= c.box.lo.y && p.y < c.box.hi.y;
    int s = 0;
    for (int k = 0; k < c.count; ++k) s += c.ids[k];
    id_sum[i] = s;
    area[i] = (c.box.hi.x - c.box.lo.x) * (c.box.hi.y - c.box.lo.y);
}""", lambda r: [_cells(r, 400), f32(r, 400, 2), np.zeros(400, np.int32), np.zeros(400, np.int32),
                 np.zeros(400, np.float32), np.int32(400)],
         lambda c, p, ins, ids, area, n: _cells_expect(c, p), grid=(4,)),

    Case("float4_struct_member", r"""
struct Quat { float4 q; int id; };  // float4 aligns the struct to 16: 32 bytes

extern "C" __global__ void float4_struct_member(Quat* qs, int* ids, int n) {
    int i = TIDX;
    if (i >= n) return;
    Quat a = qs[i];
    a.q = make_float4(-a.q.x, -a.q.y, -a.q.z, a.q.w);
    a.id *= 2;
    qs[i] = a;
    ids[i] = a.id + (int)sizeof(Quat);
}""", lambda r: [_quats(r, 200), np.zeros(200, np.int32), np.int32(200)],
         lambda q, ids, n: _quats_expect(q), grid=(2,)),

    Case("struct_by_value", r"""
struct Affine { float scale; float offset; int n; };

extern "C" __global__ void struct_by_value(Affine t, const float* x, float* y) {
    int i = TIDX;
    if (i < t.n) y[i] = (x[i] - t.offset) * t.scale;
}""", lambda r: [np.array([(2.5, 0.25, N)], AFFINE)[0], f32(r, N), np.zeros(N, np.float32)],
         lambda t, x, y: {2: (x - np.float32(0.25)) * np.float32(2.5)}, grid=(blocks(N, 128),)),

    Case("vectors_by_value", r"""
extern "C" __global__ void vectors_by_value(float4 w, int2 lim, const float4* x, float4* y, int* clamped, int n) {
    int i = TIDX;
    if (i >= n) return;
    float4 v = x[i];
    y[i] = make_float4(v.x * w.x, v.y * w.y, v.z * w.z, v.w * w.w);
    clamped[i] = min(max(i - 500, lim.x), lim.y);
}""", lambda r: [np.array([(0.5, -2.0, 3.0, 0.125)], FLOAT4)[0], np.array([(-100, 200)], INT2)[0], f32(r, N, 4),
                 np.zeros((N, 4), np.float32), np.zeros(N, np.int32), np.int32(N)],
         lambda w, lim, x, y, c, n: {3: x * np.array([0.5, -2.0, 3.0, 0.125], np.float32),
                                     4: np.clip(np.arange(N, dtype=np.int32) - 500, -100, 200)},
         grid=(blocks(N, 128),)),

    Case("union_punning", r"""
union FloatBits { float f; unsigned int u; };
union DoubleWords { double d; unsigned int w[2]; };

extern "C" __global__ void union_punning(const float* x, const double* y, unsigned int* bits, int* expo, float* absx,
                                         unsigned int* folded, int n) {
    int i = TIDX;
    if (i >= n) return;
    FloatBits b;
    b.f = x[i];
    bits[i] = b.u;
    expo[i] = (int)((b.u >> 23) & 0xffu) - 127;
    b.u &= 0x7fffffffu;
    absx[i] = b.f;
    DoubleWords d;
    d.d = y[i];
    folded[i] = d.w[1] ^ d.w[0];
}""", lambda r: [f32(r, N, low=-1e6, high=1e6), f64(r, N, low=-1e3, high=1e3), np.zeros(N, np.uint32),
                 np.zeros(N, np.int32), np.zeros(N, np.float32), np.zeros(N, np.uint32), np.int32(N)],
         lambda x, y, bits, e, a, f, n: {2: x.view(np.uint32),
                                         3: ((x.view(np.uint32) >> 23) & 0xFF).astype(np.int32) - 127,
                                         4: np.abs(x),
                                         5: np.bitwise_xor.reduce(y.view(np.uint32).reshape(-1, 2), axis=1)},
         grid=(blocks(N, 128),)),

    Case("enum_switch_fallthrough", r"""
enum Op { OP_ADD, OP_SUB, OP_MUL, OP_MAX, OP_NEG_ADD = 10 };

extern "C" __global__ void enum_switch_fallthrough(const int* op, const int* a, const int* b, int* out, int n) {
    int i = TIDX;
    if (i >= n) return;
    int x = a[i], y = b[i], r = 0;
    switch ((Op)op[i]) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_NEG_ADD: r = -x;  // falls through
    case OP_MUL: r += x * y; break;
    case OP_MAX: r = max(x, y); break;
    default: r = -1;
    }
    out[i] = r;
}""", lambda r: [r.choice(np.array([0, 1, 2, 3, 10, 5, 7], np.int32), N), ints(r, N), ints(r, N),
                 np.zeros(N, np.int32), np.int32(N)],
         lambda op, a, b, out, n: {3: _enum_switch(op, a, b)}, grid=(blocks(N, 128),)),

    Case("enum_class_edges", r"""
enum class Edge : int { Clamp = 1, Wrap = 2, Zero = 3 };

__device__ int fetch_edge(const int* a, int j, int n, Edge e) {
    if (j >= 0 && j < n) return a[j];
    switch (e) {
    case Edge::Clamp: return a[j < 0 ? 0 : n - 1];
    case Edge::Wrap: return a[(j % n + n) % n];
    default: return 0;
    }
}

extern "C" __global__ void enum_class_edges(const int* a, int* out, int n) {
    int i = TIDX;
    if (i >= n) return;
    for (int m = 1; m <= 3; ++m) {
        Edge e = static_cast<Edge>(m);
        out[3 * i + m - 1] = fetch_edge(a, i - 3, n, e) + 10 * fetch_edge(a, i + 3, n, e);
    }
}""", lambda r: [ints(r, 200), np.zeros(600, np.int32), np.int32(200)],
         lambda a, out, n: {1: _edges(a)}, grid=(2,)),

    Case("typedef_and_using", r"""
typedef float real_t;
using index_t = int;
typedef struct { real_t re, im; } pair_t;
using vec2_t = float2;
typedef unsigned char byte_t;

extern "C" __global__ void typedef_and_using(const pair_t* in, vec2_t* out, byte_t* flags, index_t n) {
    index_t i = TIDX;
    if (i >= n) return;
    pair_t p = in[i];
    vec2_t v;
    v.x = p.re - p.im;
    v.y = p.re * p.im;
    out[i] = v;
    flags[i] = (byte_t)(p.re > p.im) | (byte_t)((p.im > 0) << 1);
}""", lambda r: [f32(r, N, 2), np.zeros((N, 2), np.float32), np.zeros(N, np.uint8), np.int32(N)],
         lambda p, o, fl, n: {1: np.stack([p[:, 0] - p[:, 1], p[:, 0] * p[:, 1]], 1),
                              2: ((p[:, 0] > p[:, 1]) | ((p[:, 1] > 0) << 1)).astype(np.uint8)},
         grid=(blocks(N, 128),)),

    Case("pointer_arithmetic", r"""
__device__ void skip_ahead(const float** p, int k) { *p += k; }
__device__ void swap_pointers(float** a, float** b) { float* t = *a; *a = *b; *b = t; }

extern "C" __global__ void pointer_arithmetic(const float* m, float* prefix, float* picks, int* lengths, int rows,
                                              int cols) {
    int r = TIDX;
    if (r >= rows) return;
    const float* row = m + r * cols;
    const float* end = row + cols;
    float* dst = prefix + r * cols;
    float run = 0.0f;
    for (const float* p = row; p != end; ++p) {
        run += *p;
        *dst++ = run;
    }
    lengths[r] = (int)(end - row) + 1000 * (int)(dst - prefix);
    const float* q = row;
    skip_ahead(&q, 2);
    skip_ahead(&q, cols - 3);
    float* a = picks + 2 * r;
    float* b = picks + 2 * r + 1;
    swap_pointers(&a, &b);
    *a = *q;
    *b = row[1];
}""", lambda r: [f32(r, 100, 24), np.zeros((100, 24), np.float32), np.zeros((100, 2), np.float32),
                 np.zeros(100, np.int32), np.int32(100), np.int32(24)],
         lambda m, pre, picks, lens, rows, cols: {1: np.cumsum(m, axis=1, dtype=np.float32),
                                                  2: np.stack([m[:, 1], m[:, 23]], 1),
                                                  3: 24 + 1000 * 24 * (np.arange(100) + 1)}),

    Case("references_sort3", r"""
__device__ void order_pair(float& a, float& b) {
    if (a > b) { float t = a; a = b; b = t; }
}
__device__ void scale_by(float& v, const float& s) { v *= s; }

extern "C" __global__ void references_sort3(const float* in, float* out, int n) {
    int i = TIDX;
    if (i >= n) return;
    float a = in[3 * i], b = in[3 * i + 1], c = in[3 * i + 2];
    order_pair(a, b); order_pair(b, c); order_pair(a, b);
    out[3 * i] = a; out[3 * i + 1] = b; out[3 * i + 2] = c;
    float two = 2.0f;
    scale_by(out[3 * i + 2], two);  // a reference to global memory
    float& mid = out[3 * i + 1];
    mid = -mid;
}""", lambda r: [f32(r, 3 * 500), np.zeros(3 * 500, np.float32), np.int32(500)],
         lambda x, out, n: {1: _sort3(x)}, grid=(4,)),

    Case("struct_references", r"""
struct Acc { float sum; int n; };

__device__ void accumulate(Acc& acc, float v) { acc.sum += v; acc.n += 1; }
__device__ float mean_of(const Acc& acc) { return acc.n ? acc.sum / acc.n : 0.0f; }

extern "C" __global__ void struct_references(const float* x, Acc* accs, float* means, int n, int per) {
    int i = TIDX;
    if (i >= n) return;
    Acc local = {0.0f, 0};
    for (int k = 0; k < per; ++k)
        if (x[i * per + k] > 0.0f) accumulate(local, x[i * per + k]);
    Acc& g = accs[i];  // a reference into global memory
    accumulate(g, local.sum);
    g.n += local.n;
    means[i] = mean_of(local);
}""", lambda r: [f32(r, 200 * 9), np.zeros(200, ACC), np.zeros(200, np.float32), np.int32(200), np.int32(9)],
         lambda x, accs, means, n, per: _struct_references(x.reshape(-1, 9)), grid=(2,)),

    Case("sizeof_alignof", r"""
struct SzA { char c; double d; };
struct SzB { float3 p; float w; };
struct SzC { char c; float4 v; };
struct SzD { short s[3]; };

extern "C" __global__ void sizeof_alignof(int* out) {
    if (threadIdx.x != 0) return;
    float five[5];
    int k = 0;
    out[k++] = sizeof(char); out[k++] = sizeof(short); out[k++] = sizeof(int); out[k++] = sizeof(long long);
    out[k++] = sizeof(float); out[k++] = sizeof(double); out[k++] = sizeof(bool);
    out[k++] = sizeof(float2); out[k++] = sizeof(float3); out[k++] = sizeof(float4);
    out[k++] = sizeof(double2); out[k++] = sizeof(double3); out[k++] = sizeof(int2); out[k++] = sizeof(int3);
    out[k++] = sizeof(int4); out[k++] = sizeof(uint4); out[k++] = sizeof(char4); out[k++] = sizeof(uchar3);
    out[k++] = sizeof(uchar4); out[k++] = sizeof(short2); out[k++] = sizeof(short3); out[k++] = sizeof(longlong2);
    out[k++] = sizeof(SzA); out[k++] = sizeof(SzB); out[k++] = sizeof(SzC); out[k++] = sizeof(SzD);
    out[k++] = sizeof(five) / sizeof(five[0]); out[k++] = sizeof(out[0]); out[k++] = sizeof(float*);
    out[k++] = sizeof(size_t);
    out[k++] = alignof(float4); out[k++] = alignof(float3); out[k++] = alignof(double2); out[k++] = alignof(short2);
    out[k++] = alignof(SzA); out[k++] = alignof(SzC);
}""", lambda r: [np.full(40, -1, np.int32)], lambda out: {0: _sizes()}, block=(32,)),

    Case("cast_kinds", r"""
extern "C" __global__ void cast_kinds(const float* x, const double* d, int* trunc, unsigned int* bits, long long* wide,
                                      float* narrowed, unsigned char* low, int n) {
    int i = TIDX;
    if (i >= n) return;
    trunc[i] = static_cast<int>(x[i]) + int(x[i] * 0.5f);
    bits[i] = *reinterpret_cast<const unsigned int*>(x + i);
    wide[i] = (long long)d[i] * 3;
    narrowed[i] = static_cast<float>(d[i]);
    low[i] = (unsigned char)static_cast<int>(x[i]);
}""", lambda r: [f32(r, N, low=-1000, high=1000), f64(r, N, low=-1e12, high=1e12), np.zeros(N, np.int32),
                 np.zeros(N, np.uint32), np.zeros(N, np.int64), np.zeros(N, np.float32), np.zeros(N, np.uint8),
                 np.int32(N)],
         lambda x, d, t, b, w, nr, lo, n: {2: np.trunc(x).astype(np.int32)
                                              + np.trunc(x * np.float32(0.5)).astype(np.int32),
                                           3: x.view(np.uint32), 4: np.trunc(d).astype(np.int64) * 3,
                                           5: d.astype(np.float32), 6: np.trunc(x).astype(np.int32).astype(np.uint8)},
         grid=(blocks(N, 128),)),

    Case("control_flow", r"""
extern "C" __global__ void control_flow(const int* a, int* out, int n) {
    int i = TIDX;
    if (i >= n) return;
    int v = a[i];
    int x = v, steps = 0;
    do {
        x = (x & 1) ? 3 * x + 1 : x / 2;
        ++steps;
    } while (x != 1 && steps < 200);
    out[4 * i] = steps;
    int s = 0, k;
    for (k = 0; k < 64; ++k) {
        if (k % 3 == 0) continue;
        s += k;
        if (s > v) break;
    }
    out[4 * i + 1] = s * 100 + k;
    int c = v < 10 ? 0 : v < 100 ? 1 : v < 1000 ? 2 : 3;
    int t = (c += 1, c * 7);
    out[4 * i + 2] = t;
    int g = v;
    if (g > 500) goto big;
    g = -g;
    goto done;
big:
    g = g - 500;
done:
    out[4 * i + 3] = g;
}""", lambda r: [ints(r, 500, low=1, high=2000), np.zeros(2000, np.int32), np.int32(500)],
         lambda a, out, n: {1: _control_flow(a)}, grid=(4,)),

    Case("short_circuit_side_effects", r"""
extern "C" __global__ void short_circuit_side_effects(const int* a, int* evals, int* flags, int* quot, int n) {
    int i = TIDX;
    if (i >= n) return;
    int v = a[i], e = 0, q = 0;
    bool r1 = v > 0 && (++e, v % 2 == 0);
    bool r2 = v < -100 || (++e, v > 100);
    bool r3 = v != 0 && 1000 / v > 10 && (q = 1000 / v) != 0;
    bool r4 = (v & 1) ? (++e > 0) : (e += 10, false);
    evals[i] = e;
    flags[i] = r1 | (r2 << 1) | (r3 << 2) | (r4 << 3);
    quot[i] = q;
}""", lambda r: [_with_zeros(ints(r, N, low=-300, high=300)), np.zeros(N, np.int32), np.zeros(N, np.int32),
                 np.zeros(N, np.int32), np.int32(N)],
         lambda a, e, f, q, n: _short_circuit(a), grid=(blocks(N, 128),)),

    Case("local_array_dynamic_index", r"""
extern "C" __global__ void local_array_dynamic_index(const int* in, int* sorted, int* hist, int n) {
    int i = TIDX;
    if (i >= n) return;
    int v[8];
    for (int k = 0; k < 8; ++k) v[k] = in[8 * i + k];
    for (int k = 1; k < 8; ++k) {
        int x = v[k], j = k - 1;
        while (j >= 0 && v[j] > x) { v[j + 1] = v[j]; --j; }
        v[j + 1] = x;
    }
    for (int k = 0; k < 8; ++k) sorted[8 * i + k] = v[k];
    int h[4] = {0, 0, 0, 0};
    for (int k = 0; k < 8; ++k) h[in[8 * i + k] & 3]++;
    for (int k = 0; k < 4; ++k) hist[4 * i + k] = h[k];
}""", lambda r: [ints(r, 8 * 300), np.zeros(8 * 300, np.int32), np.zeros(4 * 300, np.int32), np.int32(300)],
         lambda a, s, h, n: {1: np.sort(a.reshape(-1, 8), axis=1).ravel(),
                             2: np.stack([((a.reshape(-1, 8) & 3) == k).sum(1, dtype=np.int32) for k in range(4)],
                                         1).ravel()},
         grid=(3,)),

    Case("cucomplex_float", r"""
extern "C" __global__ void cucomplex_float(const cuFloatComplex* a, const cuFloatComplex* b, cuFloatComplex* out,
                                           float* mag, int n) {
    int i = TIDX;
    if (i >= n) return;
    cuFloatComplex x = a[i], y = b[i];
    out[4 * i] = cuCaddf(x, y);
    out[4 * i + 1] = cuCmulf(x, cuConjf(y));
    out[4 * i + 2] = cuCdivf(x, y);
    out[4 * i + 3] = cuCsubf(make_cuFloatComplex(cuCrealf(x), 0.0f), make_cuFloatComplex(0.0f, cuCimagf(y)));
    mag[i] = cuCabsf(x);
}""", lambda r: [_complex(r, 500, np.complex64), _complex(r, 500, np.complex64), np.zeros(4 * 500, np.complex64),
                 np.zeros(500, np.float32), np.int32(500)],
         lambda a, b, out, mag, n: _cucomplex_expect(a, b, np.complex64), grid=(4,), rtol=1e-5, atol=2e-6),

    Case("cucomplex_double", r"""
extern "C" __global__ void cucomplex_double(const cuDoubleComplex* a, const cuDoubleComplex* b, cuDoubleComplex* out,
                                            double* mag, int n) {
    int i = TIDX;
    if (i >= n) return;
    cuDoubleComplex x = a[i], y = b[i];
    out[4 * i] = cuCadd(x, y);
    out[4 * i + 1] = cuCmul(x, cuConj(y));
    out[4 * i + 2] = cuCdiv(x, y);
    out[4 * i + 3] = cuCsub(make_cuDoubleComplex(cuCreal(x), 0.0), make_cuDoubleComplex(0.0, cuCimag(y)));
    mag[i] = cuCabs(x);
}""", lambda r: [_complex(r, 500, np.complex128), _complex(r, 500, np.complex128), np.zeros(4 * 500, np.complex128),
                 np.zeros(500), np.int32(500)],
         lambda a, b, out, mag, n: _cucomplex_expect(a, b, np.complex128), grid=(4,), rtol=1e-13, atol=1e-15),

    Case("cucomplex_fma_convert", r"""
extern "C" __global__ void cucomplex_fma_convert(const cuFloatComplex* a, const cuFloatComplex* b,
                                                 cuDoubleComplex* acc, int n) {
    int i = TIDX;
    if (i >= n) return;
    cuDoubleComplex x = cuComplexFloatToDouble(a[i]);
    cuDoubleComplex y = cuComplexFloatToDouble(b[i]);
    acc[i] = cuCfma(x, y, acc[i]);
}""", lambda r: [_complex(r, 500, np.complex64), _complex(r, 500, np.complex64), _complex(r, 500, np.complex128),
                 np.int32(500)],
         lambda a, b, acc, n: {2: a.astype(np.complex128) * b.astype(np.complex128) + acc}, grid=(4,),
         rtol=1e-13, atol=1e-15),

    Case("helper_qualifiers", r"""
__host__ __device__ inline int clamp_hd(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
__device__ __forceinline__ unsigned int mix_fi(unsigned int a, unsigned int b) { return (a * 31u) ^ (b >> 3); }
__device__ __noinline__ int digit_sum_ni(int v) {
    int s = 0;
    v = v < 0 ? -v : v;
    while (v) { s += v % 10; v /= 10; }
    return s;
}
static __device__ inline int twice_static(int v) { return v + v; }

extern "C" __global__ void helper_qualifiers(const int* a, int* out, unsigned int* mixed, int n) {
    int i = TIDX;
    if (i >= n) return;
    int v = a[i];
    out[2 * i] = clamp_hd(v, -100, 100);
    out[2 * i + 1] = twice_static(digit_sum_ni(v));
    mixed[i] = mix_fi((unsigned int)v, (unsigned int)i);
}""", lambda r: [ints(r, N, low=-100000, high=100000), np.zeros(2 * N, np.int32), np.zeros(N, np.uint32),
                 np.int32(N)],
         lambda a, out, mixed, n: _helpers(a), grid=(blocks(N, 128),)),

    Case("device_returns_struct", r"""
struct RowStats { float lo, hi; int argmin, argmax; };

__device__ RowStats row_stats(const float* row, int n) {
    RowStats s = {row[0], row[0], 0, 0};
    for (int k = 1; k < n; ++k) {
        if (row[k] < s.lo) { s.lo = row[k]; s.argmin = k; }
        if (row[k] > s.hi) { s.hi = row[k]; s.argmax = k; }
    }
    return s;
}
__device__ int2 divmod2(int a, int b) { return make_int2(a / b, a % b); }

extern "C" __global__ void device_returns_struct(const float* m, RowStats* stats, int2* dm, int rows, int cols) {
    int r = TIDX;
    if (r >= rows) return;
    stats[r] = row_stats(m + r * cols, cols);
    int d = r % 7 - 3;
    dm[r] = divmod2(r * 37 - 1000, d == 0 ? 5 : d);
}""", lambda r: [f32(r, 100, 17), np.zeros(100, ROW_STATS), np.zeros((100, 2), np.int32), np.int32(100),
                 np.int32(17)],
         lambda m, st, dm, rows, cols: _row_stats(m)),

    Case("default_arguments", r"""
__device__ int pack_bits(int a, int b = 7, int shift = 4) { return (a << shift) | b; }
__device__ float damp(float v, float f = 0.5f) { return v * f; }

extern "C" __global__ void default_arguments(const int* a, const float* x, int* packed, float* damped, int n) {
    int i = TIDX;
    if (i >= n) return;
    packed[3 * i] = pack_bits(a[i]);
    packed[3 * i + 1] = pack_bits(a[i], 3);
    packed[3 * i + 2] = pack_bits(a[i], 1, 8);
    damped[2 * i] = damp(x[i]);
    damped[2 * i + 1] = damp(x[i], -4.0f);
}""", lambda r: [ints(r, N, low=0, high=1000), f32(r, N), np.zeros(3 * N, np.int32), np.zeros(2 * N, np.float32),
                 np.int32(N)],
         lambda a, x, p, d, n: {2: np.stack([(a << 4) | 7, (a << 4) | 3, (a << 8) | 1], 1).ravel(),
                                3: np.stack([x * np.float32(0.5), x * np.float32(-4)], 1).ravel()},
         grid=(blocks(N, 128),)),

    Case("overloaded_device_functions", r"""
__device__ int square_of(int v) { return v * v; }
__device__ float square_of(float v) { return v * v; }
__device__ double square_of(double v) { return v * v; }
__device__ long long square_of(long long v) { return v * v; }
__device__ int combine(int a, int b) { return a - b; }
__device__ float combine(float a, float b) { return a * b; }
__device__ int combine(int a) { return -a; }

extern "C" __global__ void overloaded_device_functions(const int* ai, const float* af, const double* ad, int* oi,
                                                       float* of, double* od, long long* ol, int n) {
    int i = TIDX;
    if (i >= n) return;
    oi[i] = square_of(ai[i]) + combine(ai[i], 3) + combine(ai[i]);
    of[i] = combine(square_of(af[i]), 0.5f);
    od[i] = square_of(ad[i]);
    ol[i] = square_of((long long)ai[i] * 100000);
}""", lambda r: [ints(r, N), f32(r, N), f64(r, N), np.zeros(N, np.int32), np.zeros(N, np.float32), np.zeros(N),
                 np.zeros(N, np.int64), np.int32(N)],
         lambda ai, af, ad, oi, of, od, ol, n: {3: ai * ai + (ai - 3) - ai, 4: (af * af) * np.float32(0.5),
                                                5: ad * ad, 6: (ai.astype(np.int64) * 100000) ** 2},
         grid=(blocks(N, 128),)),

    Case("bool_logic", r"""
extern "C" __global__ void bool_logic(const bool* p, const bool* q, const int* v, bool* out, int* count, int n) {
    int i = TIDX;
    if (i >= n) return;
    bool a = p[i], b = q[i];
    bool x = a != b;
    bool implies = !a || b;
    bool c = v[i];
    out[4 * i] = x;
    out[4 * i + 1] = implies;
    out[4 * i + 2] = c;
    out[4 * i + 3] = (a && b) == !(!a || !b);
    count[i] = a + b + c + (int)x;
}""", lambda r: [r.integers(0, 2, N).astype(np.bool_), r.integers(0, 2, N).astype(np.bool_),
                 ints(r, N, low=-2, high=3), np.zeros(4 * N, np.bool_), np.zeros(N, np.int32), np.int32(N)],
         lambda p, q, v, out, cnt, n: {3: np.stack([p != q, ~p | q, v != 0, np.ones(N, np.bool_)], 1).ravel(),
                                       4: (p.astype(np.int32) + q + (v != 0) + (p != q)).astype(np.int32)},
         grid=(blocks(N, 128),)),
]


def _int_vectors_mixed(q):
    q = q.astype(np.int64)
    div, _ = _cdiv(q[:, 3], np.where(q[:, 0] == 0, 1, q[:, 0]))
    return np.stack([q[:, 0] + q[:, 1], q[:, 1] - q[:, 2], q[:, 2] * q[:, 3], div], 1).astype(np.int32)


def _int_vectors_hashed(h):
    return np.stack([h[:, 0] ^ h[:, 1], h[:, 1] * np.uint32(2654435761), h[:, 2] >> np.uint32(3),
                     h[:, 3] + h[:, 0]], 1).astype(np.uint32)


def _gray(p):
    p = p.astype(np.int32)
    return ((77 * p[:, 0] + 150 * p[:, 1] + 29 * p[:, 2]) >> 8).astype(np.uint8)


def _centered(p):
    p = p.astype(np.int32)
    return np.stack([p[:, 0] - 128, p[:, 1] - 128, p[:, 2] - 128, p[:, 3] >> 1], 1).astype(np.int8)


def _short2_longlong2_out(s, b):
    s = s.astype(np.int64)
    return np.stack([b[:, 0] * s[:, 0] + b[:, 1], b[:, 1] - s[:, 1] * 1000000007], 1)


def _short2_narrow(s):
    s = s.astype(np.int32)
    return np.stack([np.clip(s[:, 0] + s[:, 1], -32768, 32767), s[:, 0] - s[:, 1]], 1).astype(np.int16)


def _particles(rng, n):
    p = np.zeros(n, PARTICLE)
    p["pos"] = f32(rng, n, 3, low=-10, high=10)
    p["vel"] = f32(rng, n, 3)
    p["mass"] = f32(rng, n, low=0.5, high=2.0)
    p["id"] = np.arange(n)
    return p


def _particle_step(p):
    q = p.copy()
    q["pos"] = p["pos"] + p["vel"]
    q["vel"] = p["vel"] * np.float32(0.5)
    q["id"] = p["id"] + 1000
    return {0: q, 1: q["mass"][:, None] * q["vel"]}


def _samples(rng, n):
    s = np.zeros(n, SAMPLE)
    s["tag"] = rng.integers(0, 100, n)
    s["value"] = f64(rng, n, low=-100, high=100)
    s["count"] = ints(rng, n)
    s["flags"] = rng.integers(0, 256, n)
    return s


def _samples_out(s):
    o = np.zeros_like(s)
    o["tag"] = s["tag"] + 1
    o["value"] = s["value"] * 0.25
    o["count"] = -s["count"]
    o["flags"] = s["flags"] | 0x100
    return o


def _cells(rng, n):
    c = np.zeros(n, CELL)
    c["lo"] = f32(rng, n, 2, low=-1, high=0)
    c["hi"] = f32(rng, n, 2, low=0, high=1)
    c["ids"] = ints(rng, n, 4)
    c["count"] = rng.integers(0, 5, n)
    return c


def _cells_expect(c, p):
    lo, hi = c["lo"], c["hi"]
    inside = (p[:, 0] >= lo[:, 0]) & (p[:, 0] < hi[:, 0]) & (p[:, 1] >= lo[:, 1]) & (p[:, 1] < hi[:, 1])
    ids = np.where(np.arange(4)[None, :] < c["count"][:, None], c["ids"], 0).sum(1)
    area = (hi[:, 0] - lo[:, 0]) * (hi[:, 1] - lo[:, 1])
    return {2: inside.astype(np.int32), 3: ids.astype(np.int32), 4: area}


def _quats(rng, n):
    q = np.zeros(n, QUAT)
    q["q"] = f32(rng, n, 4)
    q["id"] = np.arange(n) - 50
    return q


def _quats_expect(q):
    o = q.copy()
    o["q"] = q["q"] * np.array([-1, -1, -1, 1], np.float32)
    o["id"] = q["id"] * 2
    return {0: o, 1: o["id"] + 32}


def _enum_switch(op, a, b):
    return np.select([op == 0, op == 1, op == 10, op == 2, op == 3],
                     [a + b, a - b, -a + a * b, a * b, np.maximum(a, b)], -1).astype(np.int32)


def _edges(a):
    n = len(a)
    out = np.zeros((n, 3), np.int32)
    for i in range(n):
        for m, rule in enumerate((lambda j: a[min(max(j, 0), n - 1)], lambda j: a[j % n], lambda j: 0)):
            f = [a[j] if 0 <= j < n else rule(j) for j in (i - 3, i + 3)]
            out[i, m] = f[0] + 10 * f[1]
    return out.ravel()


def _sort3(x):
    s = np.sort(x.reshape(-1, 3), axis=1)
    s[:, 2] *= 2
    s[:, 1] = -s[:, 1]
    return s.ravel()


def _struct_references(x):
    accs, means = np.zeros(len(x), ACC), np.zeros(len(x), np.float32)
    for i, row in enumerate(x):
        total, count = np.float32(0), 0
        for v in row:
            if v > 0:
                total = np.float32(total + v)
                count += 1
        accs[i] = (total, 1 + count)
        means[i] = total / np.float32(count) if count else np.float32(0)
    return {1: accs, 2: means}


def _sizes():
    sizes = [1, 2, 4, 8, 4, 8, 1, 8, 12, 16, 16, 24, 8, 12, 16, 16, 4, 3, 4, 4, 6, 16, 16, 16, 32, 6, 5, 4, 8, 8,
             16, 4, 16, 4, 8, 16]
    return np.array(sizes + [-1] * (40 - len(sizes)), np.int32)


def _control_flow(a):
    out = []
    for v in a.tolist():
        x, steps = v, 0
        while True:
            x = 3 * x + 1 if x & 1 else x // 2
            steps += 1
            if not (x != 1 and steps < 200):
                break
        s = 0
        for k in range(64):
            if k % 3 == 0:
                continue
            s += k
            if s > v:
                break
        else:
            k = 64
        c = 0 if v < 10 else 1 if v < 100 else 2 if v < 1000 else 3
        g = v - 500 if v > 500 else -v
        out += [steps, s * 100 + k, (c + 1) * 7, g]
    return np.array(out, np.int32)


def _with_zeros(a):
    a[::97] = 0
    return a


def _short_circuit(a):
    evals, flags, quot = [], [], []
    for v in a.tolist():
        e = q = 0
        r1 = False
        if v > 0:
            e += 1
            r1 = v % 2 == 0
        r2 = True
        if not v < -100:
            e += 1
            r2 = v > 100
        r3 = False
        if v != 0 and int(1000 / v) > 10:
            q = int(1000 / v)
            r3 = True
        if v & 1:
            e += 1
            r4 = True
        else:
            e += 10
            r4 = False
        evals.append(e)
        flags.append(r1 | r2 << 1 | r3 << 2 | r4 << 3)
        quot.append(q)
    return {1: np.array(evals, np.int32), 2: np.array(flags, np.int32), 3: np.array(quot, np.int32)}


def _complex(rng, n, dtype):
    """Moduli in [0.5, 1.5): no division comes near zero."""
    return (rng.uniform(0.5, 1.5, n) * np.exp(1j * rng.uniform(-np.pi, np.pi, n))).astype(dtype)


def _cucomplex_expect(a, b, dtype):
    x, y = a.astype(np.complex128), b.astype(np.complex128)
    out = np.stack([x + y, x * np.conj(y), x / y, x.real - 1j * y.imag], 1).ravel()
    real = np.float32 if dtype == np.complex64 else np.float64
    return {2: out.astype(dtype), 3: np.abs(x).astype(real)}


def _helpers(a):
    digits = np.array([sum(int(c) for c in str(abs(v))) for v in a.tolist()], np.int32)
    out = np.stack([np.clip(a, -100, 100), 2 * digits], 1).ravel().astype(np.int32)
    mixed = (a.view(np.uint32) * np.uint32(31)) ^ (np.arange(len(a), dtype=np.uint32) >> np.uint32(3))
    return {1: out, 2: mixed}


def _row_stats(m):
    st = np.zeros(len(m), ROW_STATS)
    st["lo"], st["hi"] = m.min(1), m.max(1)
    st["argmin"], st["argmax"] = m.argmin(1), m.argmax(1)
    r = np.arange(len(m))
    d = r % 7 - 3
    q, rem = _cdiv(r * 37 - 1000, np.where(d == 0, 5, d))
    return {1: st, 2: np.stack([q, rem], 1).astype(np.int32)}
