"""Atomic functions on global and shared memory: atomicAdd/Sub/Exch/Min/Max/Inc/Dec/CAS/And/Or/Xor
in every type CUDA gives them, histograms, counters with many collisions, the returned old value
used for tickets and compaction, compare-and-swap loops of the CUDA Programming Guide (double add,
float max), atomics on struct fields and through pointers made by device functions, and the
_block/_system scoped variants. Orders vary between runs, so every checked result is one that does
not depend on the order (float sums get a tolerance unless their values add exactly)."""

from __future__ import annotations

import numpy as np

from .case import Case, f32, f64, ints

N = 2000
INT_MIN, INT_MAX = np.iinfo(np.int32).min, np.iinfo(np.int32).max

PRELUDE = r"""
#define GTID (blockIdx.x * blockDim.x + threadIdx.x)
#define GSTRIDE (blockDim.x * gridDim.x)
typedef unsigned long long u64;
"""

CASES = [
    Case("histogram_global_int", r"""
extern "C" __global__ void histogram_global_int(const int* data, int* hist, int n) {
    for (int i = GTID; i < n; i += GSTRIDE) atomicAdd(&hist[data[i]], 1);
}""", lambda r: [ints(r, 3000, low=0, high=64), ints(r, 64, low=0, high=10), np.int32(3000)],
         lambda d, h, n: {1: h + np.bincount(d, minlength=64).astype(np.int32)}, grid=(4,), block=(256,)),

    Case("histogram_shared_uchar", r"""
extern "C" __global__ void histogram_shared_uchar(const unsigned char* data, unsigned int* hist, int n) {
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = GTID; i < n; i += GSTRIDE) atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b] != 0) atomicAdd(&hist[b], local[b]);
}""", lambda r: [r.binomial(255, 0.3, 4000).astype(np.uint8), np.zeros(256, np.uint32), np.int32(4000)],
         lambda d, h, n: {1: np.bincount(d, minlength=256).astype(np.uint32)}, grid=(4,), block=(128,)),

    Case("histogram_dynamic_shared", r"""
extern "C" __global__ void histogram_dynamic_shared(const float* x, unsigned int* hist, int n, int nbins) {
    extern __shared__ unsigned int bins[];
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) bins[b] = 0;
    __syncthreads();
    for (int i = GTID; i < n; i += GSTRIDE) {
        int b = (int)(x[i] * nbins);
        b = min(max(b, 0), nbins - 1);
        atomicAdd(bins + b, 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) atomicAdd(hist + b, bins[b]);
}""", lambda r: [f32(r, N, low=-0.1, high=1.1), np.zeros(100, np.uint32), np.int32(N), np.int32(100)],
         lambda x, h, n, nb: {1: np.bincount(np.clip(np.trunc(x * np.float32(100)), 0, 99).astype(np.int64),
                                             minlength=100).astype(np.uint32)},
         grid=(3,), block=(128,), shared=400),

    Case("sum_u64_wrap", r"""
extern "C" __global__ void sum_u64_wrap(const u64* v, unsigned long long int* sums, unsigned int* counts,
                                        int n, int nbins) {
    for (int i = GTID; i < n; i += GSTRIDE) {
        int b = i % nbins;
        atomicAdd(&sums[b], v[i]);
        atomicAdd(&counts[b], 1u);
    }
}""", lambda r: [r.integers(0, 2**64, N, dtype=np.uint64), r.integers(0, 2**64, 7, dtype=np.uint64),
                 np.zeros(7, np.uint32), np.int32(N), np.int32(7)],
         lambda v, s, c, n, nb: {1: _add_at(s, np.arange(N) % 7, v),
                                 2: np.bincount(np.arange(N) % 7, minlength=7).astype(np.uint32)},
         grid=(4,), block=(256,)),

    Case("sum_float_bins", r"""
extern "C" __global__ void sum_float_bins(const float* x, const int* bin, float* sums, int n) {
    int i = GTID;
    if (i < n) atomicAdd(&sums[bin[i]], x[i]);
}""", lambda r: [f32(r, N), ints(r, N, low=0, high=16), f32(r, 16), np.int32(N)],
         lambda x, b, s, n: {2: (s.astype(np.float64) + np.bincount(b, weights=x, minlength=16))},
         grid=(8,), block=(256,), rtol=1e-5, atol=2e-4),

    Case("sum_double_shared", r"""
extern "C" __global__ void sum_double_shared(const double* x, double* sums, int n) {
    __shared__ double part[8];
    if (threadIdx.x < 8) part[threadIdx.x] = 0.0;
    __syncthreads();
    for (int i = GTID; i < n; i += GSTRIDE) atomicAdd(&part[i & 7], x[i]);
    __syncthreads();
    if (threadIdx.x < 8) atomicAdd(&sums[threadIdx.x], part[threadIdx.x]);
}""", lambda r: [f64(r, N, low=-10, high=10), f64(r, 8), np.int32(N)],
         lambda x, s, n: {1: s + np.bincount(np.arange(N) & 7, weights=x, minlength=8)},
         grid=(3,), block=(256,), rtol=1e-12, atol=1e-11),

    Case("many_collisions_exact", r"""
extern "C" __global__ void many_collisions_exact(int* icount, unsigned long long* ucount, float* fsum,
                                                 double* dsum, int n) {
    int i = GTID;
    if (i >= n) return;
    atomicAdd(icount, 1);
    atomicAdd(ucount, (unsigned long long)i);
    atomicAdd(fsum, 0.25f * (i & 7));        // multiples of 1/4: every order adds exactly
    atomicAdd(dsum, 0.125 * (i % 5) - 0.125);
}""", lambda r: [np.array([7], np.int32), np.array([2**40], np.uint64), np.array([-3.5], np.float32),
                 np.array([100.0]), np.int32(N)],
         lambda ic, uc, fs, ds, n: {0: ic + N, 1: uc + np.uint64(N * (N - 1) // 2),
                                    2: fs + np.float32(0.25 * (np.arange(N) & 7).sum()),
                                    3: ds + (0.125 * (np.arange(N) % 5) - 0.125).sum()},
         grid=(8,), block=(256,)),

    Case("sub_int_unsigned", r"""
extern "C" __global__ void sub_int_unsigned(const int* a, int* balance, unsigned int* stock, int n) {
    for (int i = GTID; i < n; i += GSTRIDE) {
        atomicSub(&balance[i & 3], a[i]);
        atomicSub(&stock[i & 1], (unsigned int)(a[i] & 0xff));   // runs below zero: wraps
    }
}""", lambda r: [ints(r, N), ints(r, 4), np.array([1000, 2**31], np.uint32), np.int32(N)],
         lambda a, bal, st, n: {
             1: (bal.astype(np.int64) - np.bincount(np.arange(N) & 3, weights=a, minlength=4).astype(np.int64))
             .astype(np.int32),
             2: ((st.astype(np.int64) - np.bincount(np.arange(N) & 1, weights=a & 0xFF, minlength=2)
                  .astype(np.int64)) % 2**32).astype(np.uint32)},
         grid=(4,), block=(128,)),

    Case("exch_first_arrival", r"""
extern "C" __global__ void exch_first_arrival(float* slot, unsigned int* tag, int* owner, int* firsts,
                                              int n, int nslots) {
    int i = GTID;
    if (i >= n) return;
    int s = i % nslots;
    float old = atomicExch(&slot[s], 0.5f * s + 1.0f);
    if (old < 0.0f) atomicAdd(&firsts[3 * s], 1);          // only the first exchange sees -1
    unsigned int prev = atomicExch(tag + s, 0xA5000000u | (unsigned int)s);
    if (prev == 0u) atomicAdd(&firsts[3 * s + 1], 1);
    if (atomicExch(&owner[s], 3 * s) == -1) atomicAdd(&firsts[3 * s + 2], 1);
}""", lambda r: [np.full(50, -1, np.float32), np.zeros(50, np.uint32), np.full(50, -1, np.int32),
                 np.zeros(150, np.int32), np.int32(1000), np.int32(50)],
         lambda sl, tg, ow, fi, n, ns: {0: (0.5 * np.arange(50) + 1).astype(np.float32),
                                        1: (0xA5000000 | np.arange(50)).astype(np.uint32),
                                        2: (3 * np.arange(50)).astype(np.int32), 3: np.ones(150, np.int32)},
         grid=(4,), block=(256,)),

    Case("exch_linked_list", r"""
extern "C" __global__ void exch_linked_list(int* result, int n) {
    __shared__ int head;
    __shared__ int link[512];
    if (threadIdx.x == 0) head = -1;
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) link[i] = atomicExch(&head, i);   // push node i
    __syncthreads();
    if (threadIdx.x == 0) {
        int count = 0, node = head;
        long long sum = 0;
        while (node != -1 && count <= n) { ++count; sum += node; node = link[node]; }
        result[0] = count;
        result[1] = (int)sum;
        result[2] = node;
    }
}""", lambda r: [np.zeros(3, np.int32), np.int32(500)],
         lambda res, n: {0: np.array([500, 500 * 499 // 2, -1], np.int32)}, block=(256,)),

    Case("min_max_int_unsigned", r"""
extern "C" __global__ void min_max_int_unsigned(const int* v, int* lo, int* hi, unsigned int* ulo,
                                                unsigned int* uhi, int n, int nbins) {
    for (int i = GTID; i < n; i += GSTRIDE) {
        int b = i % nbins;
        atomicMin(&lo[b], v[i]);
        atomicMax(&hi[b], v[i]);
        unsigned int u = (unsigned int)v[i];
        atomicMin(&ulo[b], u);
        atomicMax(&uhi[b], u);
    }
}""", lambda r: [ints(r, N, low=INT_MIN, high=INT_MAX), ints(r, 16, low=-2**30, high=2**30),
                 ints(r, 16, low=-2**30, high=2**30), r.integers(0, 2**32, 16, dtype=np.uint32),
                 r.integers(0, 2**32, 16, dtype=np.uint32), np.int32(N), np.int32(16)],
         lambda v, lo, hi, ulo, uhi, n, nb: {
             1: _ufunc_at(np.minimum, lo, np.arange(N) % 16, v), 2: _ufunc_at(np.maximum, hi, np.arange(N) % 16, v),
             3: _ufunc_at(np.minimum, ulo, np.arange(N) % 16, v.view(np.uint32)),
             4: _ufunc_at(np.maximum, uhi, np.arange(N) % 16, v.view(np.uint32))},
         grid=(4,), block=(256,)),

    Case("min_max_64bit", r"""
extern "C" __global__ void min_max_64bit(const long long* v, long long* lo, long long* hi, u64* ulo, u64* uhi,
                                         int n) {
    __shared__ long long blo, bhi;
    if (threadIdx.x == 0) { blo = 0x7fffffffffffffffLL; bhi = -0x7fffffffffffffffLL - 1; }
    __syncthreads();
    for (int i = GTID; i < n; i += GSTRIDE) {
        atomicMin(&blo, v[i]);
        atomicMax(&bhi, v[i]);
        atomicMin(&ulo[i % 5], (u64)v[i]);
        atomicMax(&uhi[i % 5], (u64)v[i]);
    }
    __syncthreads();
    if (threadIdx.x == 0) { atomicMin(lo, blo); atomicMax(hi, bhi); }
}""", lambda r: [r.integers(-2**63, 2**63 - 1, N, dtype=np.int64), np.array([2**62], np.int64),
                 np.array([-2**62], np.int64), r.integers(0, 2**64, 5, dtype=np.uint64), np.zeros(5, np.uint64),
                 np.int32(N)],
         lambda v, lo, hi, ulo, uhi, n: {
             1: np.minimum(lo, v.min()), 2: np.maximum(hi, v.max()),
             3: _ufunc_at(np.minimum, ulo, np.arange(N) % 5, v.view(np.uint64)),
             4: _ufunc_at(np.maximum, uhi, np.arange(N) % 5, v.view(np.uint64))},
         grid=(3,), block=(256,)),

    Case("argmin_packed_ull", r"""
extern "C" __global__ void argmin_packed_ull(const float* px, const float* py, const float* qx, const float* qy,
                                             unsigned long long* best, int npts) {
    int q = blockIdx.y;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < npts; i += blockDim.x * gridDim.x) {
        float d = fabsf(px[i] - qx[q]) + fabsf(py[i] - qy[q]);
        unsigned long long key = ((unsigned long long)__float_as_uint(d) << 32) | (unsigned int)i;
        atomicMin(&best[q], key);    // smallest distance, then smallest index
    }
}""", lambda r: [f32(r, N), f32(r, N), f32(r, 5), f32(r, 5), np.full(5, 2**64 - 1, np.uint64), np.int32(N)],
         lambda px, py, qx, qy, best, n: {4: _argmin_packed(px, py, qx, qy)}, grid=(2, 5), block=(256,)),

    Case("inc_wraparound", r"""
extern "C" __global__ void inc_wraparound(unsigned int* counters, unsigned int* hist, int n, unsigned int limit) {
    int i = GTID;
    if (i >= n) return;
    for (int c = 0; c < 3; ++c) {
        unsigned int old = atomicInc(&counters[c], limit);   // old >= limit ? 0 : old + 1
        atomicAdd(&hist[c * (limit + 2) + (old > limit ? limit + 1 : old)], 1u);
    }
}""", lambda r: [np.array([0, 1000, 37], np.uint32), np.zeros(3 * 39, np.uint32), np.int32(1000), np.uint32(37)],
         lambda c, h, n, lim: _inc_dec(c, 1000, 37, _inc), grid=(4,), block=(256,)),

    Case("dec_wraparound", r"""
extern "C" __global__ void dec_wraparound(unsigned int* counters, unsigned int* hist, int n, unsigned int limit) {
    int i = GTID;
    if (i >= n) return;
    for (int c = 0; c < 3; ++c) {
        unsigned int old = atomicDec(&counters[c], limit);   // old == 0 || old > limit ? limit : old - 1
        atomicAdd(&hist[c * (limit + 2) + (old > limit ? limit + 1 : old)], 1u);
    }
}""", lambda r: [np.array([5, 0, 1000], np.uint32), np.zeros(3 * 22, np.uint32), np.int32(900), np.uint32(20)],
         lambda c, h, n, lim: _inc_dec(c, 900, 20, _dec), grid=(4,), block=(256,)),

    Case("ring_slots_shared_inc", r"""
extern "C" __global__ void ring_slots_shared_inc(unsigned int* hits, unsigned int* heads, int n) {
    __shared__ unsigned int head;
    __shared__ unsigned int local[32];
    if (threadIdx.x == 0) head = 0;
    if (threadIdx.x < 32) local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = GTID; i < n; i += GSTRIDE) {
        unsigned int slot = atomicInc(&head, 31u);
        atomicAdd(&local[slot], 1u);
    }
    __syncthreads();
    if (threadIdx.x < 32) atomicAdd(&hits[threadIdx.x], local[threadIdx.x]);
    if (threadIdx.x == 0) heads[blockIdx.x] = head;
}""", lambda r: [np.zeros(32, np.uint32), np.zeros(3, np.uint32), np.int32(1000)],
         lambda hits, heads, n: _ring(1000, 3, 128), grid=(3,), block=(128,)),

    Case("cas_claim_dedupe", r"""
extern "C" __global__ void cas_claim_dedupe(const int* keys, int* table, unsigned int* utable, u64* table64,
                                            int* winners, int n) {
    for (int i = GTID; i < n; i += GSTRIDE) {
        int k = keys[i];
        int old = atomicCAS(&table[k], -1, 2 * k + 1);     // the first to claim slot k wins
        if (old == -1) atomicAdd(&winners[k], 1);
        else if (old != 2 * k + 1) atomicAdd(&winners[k], 1000);
        if (atomicCAS(&utable[k], 0xffffffffu, (unsigned int)k * 3u) == 0xffffffffu) atomicAdd(&winners[k], 10);
        u64 o = atomicCAS(&table64[k], 0ull, ((u64)k << 40) | 7ull);
        if (o == 0ull) atomicAdd(&winners[k], 100);
    }
}""", lambda r: [ints(r, 1500, low=0, high=256), np.full(256, -1, np.int32), np.full(256, 2**32 - 1, np.uint32),
                 np.zeros(256, np.uint64), np.zeros(256, np.int32), np.int32(1500)],
         lambda k, t, ut, t64, w, n: _dedupe(k), grid=(3,), block=(256,)),

    Case("cas_double_add", r"""
__device__ double atomic_add_f64_cas(double* address, double val) {
    unsigned long long int* address_as_ull = (unsigned long long int*)address;
    unsigned long long int old = *address_as_ull, assumed;
    do {
        assumed = old;
        old = atomicCAS(address_as_ull, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
    } while (assumed != old);
    return __longlong_as_double(old);
}
extern "C" __global__ void cas_double_add(const double* x, double* sums, int n) {
    for (int i = GTID; i < n; i += GSTRIDE) atomic_add_f64_cas(&sums[i % 6], x[i]);
}""", lambda r: [ints(r, N, low=-4096, high=4096) / 1024.0, ints(r, 6, low=-10**6, high=10**6) / 1024.0,
                 np.int32(N)],
         lambda x, s, n: {1: s + np.bincount(np.arange(N) % 6, weights=x, minlength=6)},  # multiples of 1/1024: exact
         grid=(4,), block=(256,)),

    Case("cas_float_max_min", r"""
__device__ float atomic_max_f32_cas(float* addr, float val) {
    int* p = (int*)addr;
    int old = *p;
    while (__int_as_float(old) < val) {
        int assumed = old;
        old = atomicCAS(p, assumed, __float_as_int(val));
        if (old == assumed) break;
    }
    return __int_as_float(old);
}
__device__ float atomic_min_f32_cas(float* addr, float val) {
    unsigned int* p = (unsigned int*)addr;
    unsigned int old = *p, assumed;
    do {
        assumed = old;
        if (__uint_as_float(assumed) <= val) break;
        old = atomicCAS(p, assumed, __float_as_uint(val));
    } while (old != assumed);
    return __uint_as_float(old);
}
extern "C" __global__ void cas_float_max_min(const float* x, float* mx, float* mn, int n) {
    for (int i = GTID; i < n; i += GSTRIDE) {
        atomic_max_f32_cas(&mx[i % 10], x[i]);
        atomic_min_f32_cas(&mn[i % 10], x[i]);
    }
}""", lambda r: [f32(r, N, low=-100, high=100), np.full(10, -np.inf, np.float32), np.full(10, np.inf, np.float32),
                 np.int32(N)],
         lambda x, mx, mn, n: {1: _ufunc_at(np.maximum, mx, np.arange(N) % 10, x),
                            2: _ufunc_at(np.minimum, mn, np.arange(N) % 10, x)},
         grid=(4,), block=(256,)),

    Case("float_max_sign_trick", r"""
__device__ void atomic_max_f32_bits(float* addr, float v) {
    if (v >= 0.0f) atomicMax((int*)addr, __float_as_int(v));
    else atomicMin((unsigned int*)addr, __float_as_uint(v));
}
extern "C" __global__ void float_max_sign_trick(const float* x, float* mx, int n) {
    int i = GTID;
    if (i < n) atomic_max_f32_bits(&mx[i & 7], x[i]);
}""", lambda r: [_bin7_negative(f32(r, N, low=-50, high=50)), np.full(9, -np.inf, np.float32), np.int32(N)],
         lambda x, mx, n: {1: _ufunc_at(np.maximum, mx, np.arange(N) & 7, x)}, grid=(8,), block=(256,)),

    Case("cas_mul_saturate", r"""
__device__ unsigned int atomic_mul_u32(unsigned int* addr, unsigned int f) {
    unsigned int old = *addr, assumed;
    do {
        assumed = old;
        old = atomicCAS(addr, assumed, assumed * f);
    } while (old != assumed);
    return old;
}
__device__ int atomic_add_saturate(int* addr, int v, int cap) {
    int old = *addr, assumed;
    do {
        assumed = old;
        int s = assumed + v;
        old = atomicCAS(addr, assumed, s > cap ? cap : s);
    } while (old != assumed);
    return old;
}
extern "C" __global__ void cas_mul_saturate(const unsigned int* f, const int* v, unsigned int* prod, int* sat,
                                            int n, int cap) {
    for (int i = GTID; i < n; i += GSTRIDE) {
        atomic_mul_u32(&prod[i & 3], f[i]);
        atomic_add_saturate(&sat[i & 3], v[i], cap);
    }
}""", lambda r: [r.integers(0, 2**31, 1000, dtype=np.uint32) * np.uint32(2) + np.uint32(1),
                 ints(r, 1000, low=0, high=200), np.array([1, 3, 5, 7], np.uint32), np.array([0, 5, 10, 20], np.int32),
                 np.int32(1000), np.int32(20000)],
         lambda f, v, p, s, n, cap: {2: _mul_mod(p, f), 3: np.minimum(
             s + np.bincount(np.arange(1000) & 3, weights=v, minlength=4).astype(np.int32), 20000)},
         grid=(2,), block=(256,)),

    Case("bitwise_and_or_xor", r"""
extern "C" __global__ void bitwise_and_or_xor(const u64* v, const u64* dense, int* i32, unsigned int* u32,
                                              u64* w64, int n) {
    for (int i = GTID; i < n; i += GSTRIDE) {
        int b = 3 * (i % 16);
        u64 s = v[i], d = dense[i];
        atomicOr(&w64[b], s);
        atomicAnd(&w64[b + 1], ~s);
        atomicXor(&w64[b + 2], d);
        atomicOr(&u32[b], (unsigned int)(s >> 32));
        atomicAnd(&u32[b + 1], ~(unsigned int)s);
        atomicXor(&u32[b + 2], (unsigned int)(d >> 16));
        atomicOr(&i32[b], (int)(unsigned int)(s >> 16));
        atomicAnd(&i32[b + 1], (int)~(unsigned int)(s >> 8));
        atomicXor(&i32[b + 2], (int)(unsigned int)d);
    }
}""", lambda r: [_sparse64(r, N), r.integers(0, 2**64, N, dtype=np.uint64), r.integers(INT_MIN, INT_MAX, 48,
                 dtype=np.int32), r.integers(0, 2**32, 48, dtype=np.uint32), r.integers(0, 2**64, 48, dtype=np.uint64),
                 np.int32(N)],
         lambda v, d, i32, u32, w64, n: _bitwise(v, d, i32, u32, w64), grid=(4,), block=(256,)),

    Case("struct_field_atomics", r"""
struct BinStats { int count; int sum; int lo; int hi; };
extern "C" __global__ void struct_field_atomics(const int* v, const int* bin, BinStats* stats, int n) {
    for (int i = GTID; i < n; i += GSTRIDE) {
        BinStats* s = &stats[bin[i]];
        atomicAdd(&s->count, 1);
        atomicAdd(&s->sum, v[i]);
        atomicMin(&s->lo, v[i]);
        atomicMax(&(*s).hi, v[i]);
    }
}""", lambda r: [ints(r, N), ints(r, N, low=0, high=12),
                 np.tile(np.array([0, 0, INT_MAX, INT_MIN], np.int32), (12, 1)), np.int32(N)],
         lambda v, b, st, n: {2: np.stack([np.bincount(b, minlength=12), np.bincount(b, weights=v, minlength=12),
                                           _ufunc_at(np.minimum, st[:, 2], b, v),
                                           _ufunc_at(np.maximum, st[:, 3], b, v)], axis=1).astype(np.int32)},
         grid=(4,), block=(256,)),

    Case("struct_u64_field", r"""
typedef struct { unsigned long long total; unsigned int count; unsigned int flags; } Accum;
extern "C" __global__ void struct_u64_field(const unsigned int* v, Accum* acc, int n) {
    for (int i = GTID; i < n; i += GSTRIDE) {
        Accum* a = acc + (v[i] % 5);
        atomicAdd(&a->total, (unsigned long long)v[i] << 8);
        atomicInc(&a->count, 0xffffffffu);
        atomicOr(&a->flags, 1u << (v[i] >> 27));
    }
}""", lambda r: [r.integers(0, 2**32, N, dtype=np.uint32), np.zeros((5, 2), np.uint64), np.int32(N)],
         lambda v, acc, n: {1: _accum(v)}, grid=(4,), block=(256,)),

    Case("device_fn_pointer_hist2d", r"""
__device__ unsigned int* hist_cell(unsigned int* h, int w, int ht, float x, float y) {
    int cx = min(max((int)(x * w), 0), w - 1);
    int cy = min(max((int)(y * ht), 0), ht - 1);
    return h + cy * w + cx;
}
__device__ void bump_counter(unsigned int* counter, unsigned int by) { atomicAdd(counter, by); }
extern "C" __global__ void device_fn_pointer_hist2d(const float* x, const float* y, unsigned int* hist,
                                                    unsigned int* total, int n, int w, int ht) {
    __shared__ unsigned int block_count;
    if (threadIdx.x == 0) block_count = 0;
    __syncthreads();
    for (int i = GTID; i < n; i += GSTRIDE) {
        atomicAdd(hist_cell(hist, w, ht, x[i], y[i]), 1u);
        bump_counter(&block_count, 1u);      // shared memory
    }
    __syncthreads();
    if (threadIdx.x == 0) bump_counter(total, block_count);   // global memory
}""", lambda r: [f32(r, N, low=-0.2, high=1.2), f32(r, N), np.zeros((6, 8), np.uint32), np.array([5], np.uint32),
                 np.int32(N), np.int32(8), np.int32(6)],
         lambda x, y, h, t, n, w, ht: {2: _hist2d(x, y, 8, 6), 3: t + np.uint32(N)}, grid=(4,), block=(128,)),

    Case("scoped_atomics", r"""
extern "C" __global__ void scoped_atomics(const int* v, int* sum, unsigned int* flags, int* maxv,
                                          unsigned int* ticks, u64* total64, int n) {
    __shared__ int block_sum, block_max;
    __shared__ unsigned int block_ticks;
    if (threadIdx.x == 0) { block_sum = 0; block_max = -2147483647 - 1; block_ticks = 0; }
    __syncthreads();
    for (int i = GTID; i < n; i += GSTRIDE) {
        atomicAdd_block(&block_sum, v[i]);
        atomicMax_block(&block_max, v[i]);
        atomicInc_block(&block_ticks, 0xffffffffu);
        atomicOr_system(&flags[i & 7], 1u << (v[i] & 31));
        atomicAdd_system(total64, (u64)(unsigned int)v[i]);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd_system(sum, block_sum);
        atomicMax_system(maxv, block_max);
        atomicExch_block(&ticks[blockIdx.x], block_ticks);
        atomicCAS_system(&ticks[gridDim.x], 0u, 1u);
    }
}""", lambda r: [ints(r, N, low=-10**6, high=10**6), np.array([3], np.int32), np.zeros(8, np.uint32),
                 np.array([INT_MIN], np.int32), np.zeros(5, np.uint32), np.array([11], np.uint64), np.int32(N)],
         lambda v, s, fl, mx, tk, t64, n: {
             1: s + v.sum(dtype=np.int32), 2: _or_bits(fl, np.arange(N) & 7, v & 31),
             3: np.array([v.max()], np.int32), 4: np.array(_block_counts(N, 4, 256) + [1], np.uint32),
             5: t64 + v.view(np.uint32).astype(np.uint64).sum()},
         grid=(4,), block=(256,)),

    Case("ticket_permutation", r"""
extern "C" __global__ void ticket_permutation(unsigned int* next, unsigned int* taken, unsigned long long* checksum,
                                              int n) {
    int i = GTID;
    if (i >= n) return;
    unsigned int t = atomicAdd(next, 1u);
    if (t < (unsigned int)n) atomicAdd(&taken[t], 1u);
    atomicAdd(checksum, (unsigned long long)t * t);
}""", lambda r: [np.zeros(1, np.uint32), np.zeros(1500, np.uint32), np.zeros(1, np.uint64), np.int32(1500)],
         lambda nx, tk, cs, n: {0: np.array([1500], np.uint32), 1: np.ones(1500, np.uint32),
                                2: np.array([(np.arange(1500, dtype=np.uint64) ** 2).sum()], np.uint64)},
         grid=(6,), block=(256,)),

    Case("compact_single_block_sorted", r"""
extern "C" __global__ void compact_single_block_sorted(const int* x, int* out, int* count, int n, int threshold) {
    __shared__ int list[1024];
    __shared__ int len;
    if (threadIdx.x == 0) len = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        if (x[i] > threshold) list[atomicAdd(&len, 1)] = i;   // order of the list varies
    __syncthreads();
    int m = len;
    for (int k = threadIdx.x; k < m; k += blockDim.x) {
        int idx = list[k], rank = 0;
        for (int j = 0; j < m; ++j) rank += list[j] < idx;
        out[rank] = x[idx];                                    // back in index order
    }
    if (threadIdx.x == 0) *count = m;
}""", lambda r: [ints(r, 1000), np.zeros(1000, np.int32), np.zeros(1, np.int32), np.int32(1000), np.int32(300)],
         lambda x, out, c, n, th: {1: np.concatenate([x[x > 300], np.zeros((x <= 300).sum(), np.int32)]),
                                   2: np.array([(x > 300).sum()], np.int32)}, block=(256,)),

    Case("compaction_tickets", r"""
extern "C" __global__ void compaction_tickets(const float* x, float* out, int* count, int* hits, float threshold,
                                              int n) {
    int i = GTID;
    if (i < n && x[i] > threshold) {
        int pos = atomicAdd(count, 1);
        out[pos] = x[i];
        atomicAdd(&hits[pos], 1);
    }
}""", lambda r: [f32(r, N), np.zeros(N, np.float32), np.zeros(1, np.int32), np.zeros(N, np.int32),
                 np.float32(0.25), np.int32(N)],
         lambda x, out, c, h, th, n: {2: np.array([(x > th).sum()], np.int32),
                                      3: (np.arange(N) < (x > th).sum()).astype(np.int32)},
         grid=(8,), block=(256,)),

    Case("shared_float_block_sum", r"""
extern "C" __global__ void shared_float_block_sum(const float* x, float* block_sums, float* total, int n) {
    __shared__ float s;
    if (threadIdx.x == 0) s = 0.0f;
    __syncthreads();
    for (int i = GTID; i < n; i += GSTRIDE) atomicAdd(&s, x[i]);
    __syncthreads();
    if (threadIdx.x == 0) {
        block_sums[blockIdx.x] = s;
        atomicAdd(total, s);
    }
}""", lambda r: [f32(r, 3000), np.zeros(4, np.float32), np.zeros(1, np.float32), np.int32(3000)],
         lambda x, bs, t, n: {1: _block_sums(x, 4, 256), 2: np.array([x.astype(np.float64).sum()])},
         grid=(4,), block=(256,), rtol=1e-5, atol=1e-3),
    Case("float_ticket_return", r"""
extern "C" __global__ void float_ticket_return(float* fnext, double* dnext, unsigned int* taken, int n) {
    int i = GTID;
    if (i >= n) return;
    float f = atomicAdd(fnext, 1.0f);       // whole numbers below 2^24: exact in every order
    double d = atomicAdd(dnext, 0.5);
    atomicAdd(&taken[(int)f], 1u);
    atomicAdd(&taken[n + (int)(d * 2.0)], 1u);
}""", lambda r: [np.zeros(1, np.float32), np.zeros(1, np.float64), np.zeros(2400, np.uint32), np.int32(1200)],
         lambda f, d, t, n: {0: np.array([1200], np.float32), 1: np.array([600.0]), 2: np.ones(2400, np.uint32)},
         grid=(5,), block=(256,)),

    Case("shared_claim_bitwise", r"""
extern "C" __global__ void shared_claim_bitwise(const int* keys, int* firsts, unsigned int* masks, u64* last, int n) {
    __shared__ int owner[64];
    __shared__ unsigned int or_mask, and_mask, xor_mask, umin, umax;
    int t = threadIdx.x;
    if (t < 64) owner[t] = -1;
    if (t == 0) { or_mask = 0; and_mask = 0xffffffffu; xor_mask = 0; umin = 0xffffffffu; umax = 0; }
    __syncthreads();
    int i = GTID;
    if (i < n) {
        int k = keys[i];
        if (atomicCAS(&owner[k], -1, t) == -1) atomicAdd(&firsts[k], 1);   // one winner per block and key
        unsigned int u = (unsigned int)k * 2654435761u;
        atomicOr(&or_mask, 1u << (k & 31));
        atomicAnd(&and_mask, ~(1u << (k >> 1)));
        atomicXor(&xor_mask, u);
        atomicMin(&umin, u);
        atomicMax(&umax, u);
        atomicExch(&last[k], (u64)k * 0x100000001ull);
    }
    __syncthreads();
    if (t == 0) {
        unsigned int* m = masks + 5 * blockIdx.x;
        m[0] = or_mask; m[1] = and_mask; m[2] = xor_mask; m[3] = umin; m[4] = umax;
    }
}""", lambda r: [ints(r, 1000, low=0, high=64), np.zeros(64, np.int32), np.zeros(20, np.uint32),
                 np.zeros(64, np.uint64), np.int32(1000)],
         lambda k, f, m, last, n: _shared_claim(k, 4, 256), grid=(4,), block=(256,)),

    Case("template_atomic_helper", r"""
template <typename T>
__device__ T accumulate(T* p, T v) { return atomicAdd(p, v); }
extern "C" __global__ void template_atomic_helper(const int* v, int* isum, unsigned int* usum, float* fsum,
                                                  double* dsum, unsigned long long* lsum, int n) {
    for (int i = GTID; i < n; i += GSTRIDE) {
        int x = v[i];
        accumulate(&isum[i & 1], x);
        accumulate(&usum[i & 1], (unsigned int)x * 3u);
        accumulate(&fsum[i & 1], (float)x * 0.5f);       // halves of small integers: exact
        accumulate(&dsum[i & 1], x * 0.25);
        accumulate(&lsum[i & 1], (unsigned long long)(long long)x);   // a signed 64-bit sum in two's complement
    }
}""", lambda r: [ints(r, N), np.array([1, 2], np.int32), np.array([3, 2**32 - 4], np.uint32),
                 np.array([0.5, -1.5], np.float32), np.array([0.25, 8.0]), np.array([2**63, 5], np.uint64),
                 np.int32(N)],
         lambda v, i, u, f, d, ll, n: _template_sums(v, i, u, f, d, ll), grid=(4,), block=(256,)),

    Case("shared_struct_reference", r"""
struct Tally { int hits; unsigned int bits; int lo; };
__device__ void tally_add(Tally& t, int v) {
    atomicAdd(&t.hits, 1);
    atomicOr(&t.bits, 1u << (v & 31));
    atomicMin(&t.lo, v);
}
extern "C" __global__ void shared_struct_reference(const int* v, int* out, int n) {
    __shared__ Tally tallies[4];
    if (threadIdx.x < 4) {
        tallies[threadIdx.x].hits = 0;
        tallies[threadIdx.x].bits = 0u;
        tallies[threadIdx.x].lo = 2147483647;
    }
    __syncthreads();
    for (int i = GTID; i < n; i += GSTRIDE) tally_add(tallies[v[i] & 3], v[i]);
    __syncthreads();
    if (threadIdx.x < 4) {
        Tally t = tallies[threadIdx.x];
        atomicAdd(&out[3 * threadIdx.x], t.hits);
        atomicOr((unsigned int*)&out[3 * threadIdx.x + 1], t.bits);
        atomicMin(&out[3 * threadIdx.x + 2], t.lo);
    }
}""", lambda r: [ints(r, N, low=-10**5, high=10**5), np.tile(np.array([0, 0, INT_MAX], np.int32), 4), np.int32(N)],
         lambda v, out, n: {1: _tally(v)}, grid=(3,), block=(256,)),

    Case("shared_2d_tile_atomics", r"""
extern "C" __global__ void shared_2d_tile_atomics(const int* rows, const int* cols, int* counts, int n) {
    __shared__ int tile[8][33];
    int lt = threadIdx.y * blockDim.x + threadIdx.x, nt = blockDim.x * blockDim.y;
    for (int k = lt; k < 8 * 33; k += nt) tile[k / 33][k % 33] = 0;
    __syncthreads();
    for (int i = blockIdx.x * nt + lt; i < n; i += gridDim.x * nt) atomicAdd(&tile[rows[i]][cols[i]], 1);
    __syncthreads();
    for (int k = lt; k < 8 * 33; k += nt)
        if (tile[k / 33][k % 33] != 0) atomicAdd(&counts[k], tile[k / 33][k % 33]);
}""", lambda r: [ints(r, N, low=0, high=8), ints(r, N, low=0, high=33), np.zeros((8, 33), np.int32), np.int32(N)],
         lambda rows, cols, c, n: {2: np.bincount(rows * 33 + cols, minlength=264).astype(np.int32).reshape(8, 33)},
         grid=(3,), block=(32, 4)),

    Case("scoped_more", r"""
extern "C" __global__ void scoped_more(const int* v, int* acc, unsigned int* u, u64* w, float* f, int n) {
    __shared__ unsigned int bmask;
    __shared__ int bsub;
    if (threadIdx.x == 0) { bmask = 0xffffffffu; bsub = 0; }
    __syncthreads();
    for (int i = GTID; i < n; i += GSTRIDE) {
        int x = v[i];
        atomicSub_block(&bsub, x);
        atomicAnd_block(&bmask, ~(1u << (x & 31)));
        atomicXor_system(&u[0], (unsigned int)x);
        atomicDec_system(&u[1], 9u);
        atomicMin_system(&w[0], (u64)(unsigned int)x);
        atomicAdd_block(&f[blockIdx.x], 0.5f * (x & 15));   // a slot of this block's own: block scope suffices
        atomicExch_system(&f[gridDim.x], 2.5f);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd_system(&acc[0], bsub);
        atomicOr_system((unsigned int*)&acc[1], ~bmask);
    }
}""", lambda r: [ints(r, N, low=-10**6, high=10**6), np.array([100, 0x40000000], np.int32),
                 np.array([0x12345678, 3], np.uint32), np.array([2**40], np.uint64), np.zeros(5, np.float32),
                 np.int32(N)],
         lambda v, acc, u, w, f, n: _scoped_more(v, acc, u, w), grid=(4,), block=(256,)),

    Case("work_queue_chunks", r"""
extern "C" __global__ void work_queue_chunks(const float* in, float* out, unsigned int* next, int* done, int n) {
    __shared__ unsigned int chunk;
    while (true) {
        if (threadIdx.x == 0) chunk = atomicAdd(next, blockDim.x);   // grab the next chunk of work
        __syncthreads();
        unsigned int base = chunk;
        __syncthreads();
        if (base >= (unsigned int)n) break;
        unsigned int i = base + threadIdx.x;
        if (i < (unsigned int)n) {
            out[i] = in[i] * 2.0f + 1.0f;
            atomicAdd(&done[base / blockDim.x], 1);
        }
    }
}""", lambda r: [f32(r, N), np.zeros(N, np.float32), np.zeros(1, np.uint32), np.zeros(16, np.int32), np.int32(N)],
         lambda x, out, nx, done, n: {1: x * np.float32(2) + np.float32(1),
                                      2: np.array([(16 + 3) * 128], np.uint32),
                                      3: np.bincount(np.arange(N) // 128, minlength=16).astype(np.int32)},
         grid=(3,), block=(128,)),

    Case("last_block_sum", r"""
extern "C" __global__ void last_block_sum(const int* x, int* partial, unsigned int* retired, int* total, int n) {
    __shared__ int block_sum;
    __shared__ bool am_last;
    if (threadIdx.x == 0) block_sum = 0;
    __syncthreads();
    for (int i = GTID; i < n; i += GSTRIDE) atomicAdd(&block_sum, x[i]);
    __syncthreads();
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = block_sum;
        __threadfence();
        unsigned int ticket = atomicInc(retired, gridDim.x - 1);   // wraps back to 0 after the last block
        am_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (am_last && threadIdx.x == 0) {
        int s = 0;
        for (unsigned int b = 0; b < gridDim.x; ++b) s += ((volatile int*)partial)[b];
        *total = s;
    }
}""", lambda r: [ints(r, N), np.zeros(5, np.int32), np.zeros(1, np.uint32), np.zeros(1, np.int32), np.int32(N)],
         lambda x, p, ret, t, n: {1: _block_sums(x, 5, 128).astype(np.int32), 2: np.zeros(1, np.uint32),
                                  3: np.array([x.sum()], np.int32)},
         grid=(5,), block=(128,)),
]


def _add_at(init, index, values):
    out = init.copy()
    np.add.at(out, index, values)  # wraps like the device's unsigned arithmetic
    return out


def _ufunc_at(ufunc, init, index, values):
    out = init.copy()
    ufunc.at(out, index, values)
    return out


def _argmin_packed(px, py, qx, qy):
    best = []
    for q in range(len(qx)):
        d = np.abs(px - qx[q]) + np.abs(py - qy[q])
        keys = (d.view(np.uint32).astype(np.uint64) << np.uint64(32)) | np.arange(len(px), dtype=np.uint64)
        best.append(keys.min())
    return np.array(best, np.uint64)


def _inc(old, val):
    return 0 if old >= val else old + 1


def _dec(old, val):
    return val if old == 0 or old > val else old - 1


def _inc_dec(counters, n, limit, step):
    """The olds a counter returns are the same sequence in every order: only who gets which varies."""
    final, hist = [], np.zeros(3 * (limit + 2), np.uint32)
    for c, start in enumerate(counters.tolist()):
        value = start
        for _ in range(n):
            hist[c * (limit + 2) + min(value, limit + 1)] += 1
            value = step(value, limit)
        final.append(value)
    return {0: np.array(final, np.uint32), 1: hist}


def _grid_stride_owner(n, grid, block):
    i = np.arange(n)
    return (i % (grid * block)) // block


def _block_counts(n, grid, block):
    return np.bincount(_grid_stride_owner(n, grid, block), minlength=grid).tolist()


def _ring(n, grid, block):
    hits = np.zeros(32, np.uint32)
    counts = _block_counts(n, grid, block)
    for m in counts:
        hits += np.bincount(np.arange(m) % 32, minlength=32).astype(np.uint32)
    return {0: hits, 1: (np.array(counts) % 32).astype(np.uint32)}


def _dedupe(keys):
    present = np.zeros(256, bool)
    present[keys] = True
    k = np.arange(256)
    return {1: np.where(present, 2 * k + 1, -1).astype(np.int32),
            2: np.where(present, 3 * k, 2**32 - 1).astype(np.uint32),
            3: np.where(present, (k.astype(np.uint64) << np.uint64(40)) | np.uint64(7), 0).astype(np.uint64),
            4: (present * 111).astype(np.int32)}


def _bin7_negative(x):
    x[7::8] = -np.abs(x[7::8]) - 1  # a bin that only ever sees negative values
    return x


def _mul_mod(init, f):
    out = init.astype(np.uint64)
    for i, x in enumerate(f.tolist()):
        out[i & 3] = (int(out[i & 3]) * x) % 2**32
    return out.astype(np.uint32)


def _sparse64(rng, n):
    x = rng.integers(0, 2**64, n, dtype=np.uint64)
    for _ in range(4):
        x &= rng.integers(0, 2**64, n, dtype=np.uint64)
    return x  # each bit set with probability 1/32: ORs and ANDs of 125 values keep some of them


def _bitwise(v, d, i32, u32, w64):
    b = 3 * (np.arange(N) % 16)
    w64, u32, i32 = w64.copy(), u32.copy(), i32.copy()
    np.bitwise_or.at(w64, b, v)
    np.bitwise_and.at(w64, b + 1, ~v)
    np.bitwise_xor.at(w64, b + 2, d)
    np.bitwise_or.at(u32, b, (v >> np.uint64(32)).astype(np.uint32))
    np.bitwise_and.at(u32, b + 1, ~(v & np.uint64(0xFFFFFFFF)).astype(np.uint32))
    np.bitwise_xor.at(u32, b + 2, ((d >> np.uint64(16)) & np.uint64(0xFFFFFFFF)).astype(np.uint32))
    np.bitwise_or.at(i32, b, ((v >> np.uint64(16)) & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.int32))
    np.bitwise_and.at(i32, b + 1, (~((v >> np.uint64(8)) & np.uint64(0xFFFFFFFF)).astype(np.uint32)).view(np.int32))
    np.bitwise_xor.at(i32, b + 2, (d & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.int32))
    return {2: i32, 3: u32, 4: w64}


def _accum(v):
    out = np.zeros((5, 2), np.uint64)
    b = v % 5
    np.add.at(out[:, 0], b, v.astype(np.uint64) << np.uint64(8))
    words = out.view(np.uint32).reshape(5, 4)
    words[:, 2] = np.bincount(b, minlength=5)
    np.bitwise_or.at(words[:, 3], b, np.uint32(1) << (v >> np.uint32(27)))
    return out


def _hist2d(x, y, w, ht):
    cx = np.clip(np.trunc(x * np.float32(w)), 0, w - 1).astype(np.int64)
    cy = np.clip(np.trunc(y * np.float32(ht)), 0, ht - 1).astype(np.int64)
    return np.bincount(cy * w + cx, minlength=w * ht).astype(np.uint32).reshape(ht, w)


def _or_bits(init, index, bits):
    out = init.copy()
    np.bitwise_or.at(out, index, (np.uint32(1) << bits.astype(np.uint32)))
    return out


def _block_sums(x, grid, block):
    return np.bincount(_grid_stride_owner(len(x), grid, block), weights=x.astype(np.float64), minlength=grid)


def _shared_claim(keys, grid, block):
    firsts = np.zeros(64, np.int32)
    masks = np.zeros((grid, 5), np.uint32)
    for b in range(grid):
        k = keys[b * block:(b + 1) * block]
        present = np.unique(k)
        firsts[present] += 1
        u = (k.astype(np.uint64) * np.uint64(2654435761) % np.uint64(2**32)).astype(np.uint32)
        masks[b] = [np.bitwise_or.reduce(np.uint32(1) << (k & 31).astype(np.uint32)),
                    np.bitwise_and.reduce(~(np.uint32(1) << (k >> 1).astype(np.uint32))),
                    np.bitwise_xor.reduce(u), u.min(), u.max()]
    last = np.zeros(64, np.uint64)
    present = np.unique(keys)
    last[present] = present.astype(np.uint64) * np.uint64(0x100000001)
    return {1: firsts, 2: masks.ravel(), 3: last}


def _template_sums(v, i, u, f, d, ll):
    b = np.arange(N) & 1
    with np.errstate(over="ignore"):
        return {1: i + np.bincount(b, weights=v, minlength=2).astype(np.int32),
                2: _add_at(u, b, v.view(np.uint32) * np.uint32(3)),
                3: f + np.bincount(b, weights=v * 0.5, minlength=2).astype(np.float32),
                4: d + np.bincount(b, weights=v * 0.25, minlength=2),
                5: _add_at(ll, b, v.astype(np.int64).view(np.uint64))}


def _tally(v):
    out = np.tile(np.array([0, 0, INT_MAX], np.int32), 4).reshape(4, 3)
    g = v & 3
    out[:, 0] = np.bincount(g, minlength=4)
    bits = np.zeros(4, np.uint32)
    np.bitwise_or.at(bits, g, np.uint32(1) << (v & 31).astype(np.uint32))
    out[:, 1] = bits.view(np.int32)
    np.minimum.at(out[:, 2], g, v)
    return out.ravel()


def _scoped_more(v, acc, u, w):
    bits = np.bitwise_or.reduce(np.uint32(1) << (v & 31).astype(np.uint32))
    acc = np.array([acc[0] - v.sum(), acc[1] | bits.view(np.int32)], np.int32)
    dec = int(u[1])
    for _ in range(N):
        dec = _dec(dec, 9)
    u = np.array([u[0] ^ np.bitwise_xor.reduce(v.view(np.uint32)), dec], np.uint32)
    w = np.array([min(int(w[0]), int(v.view(np.uint32).min()))], np.uint64)
    f = np.append(np.bincount(_grid_stride_owner(N, 4, 256), weights=0.5 * (v & 15), minlength=4), 2.5)
    return {1: acc, 2: u, 3: w, 4: f.astype(np.float32)}
