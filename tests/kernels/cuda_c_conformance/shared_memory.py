"""Shared memory and block synchronisation, as in the CUDA samples (reduction, transpose, scan,
matrixMul, histogram, sortingNetworks) and CuPy's and PyCUDA's docs: static and dynamic
`__shared__` arrays, tree reductions, scans, tiles with halos and padding, block-wide sorts and
the counting barriers `__syncthreads_count`/`_and`/`_or`. Reductions are checked bit for bit by
redoing their tree in NumPy in the same order."""

from __future__ import annotations

import numpy as np

from .case import Case, f32, f64, ints

PRELUDE = r"""
#define TID threadIdx.x
#define GID (blockIdx.x * blockDim.x + threadIdx.x)
#define RED_BLOCK 256
#define TILE_DIM 32
#define BLOCK_ROWS 8
#define MM_TILE 16
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(k) ((k) >> LOG_NUM_BANKS)
typedef unsigned int uint;
"""

CASES = [
    Case("reduce_sum_static", r"""
extern "C" __global__ void reduce_sum_static(const float* in, float* partial, int n) {
    __shared__ float sdata[RED_BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    float v = 0.0f;
    if (i < n) v = in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}""", lambda r: [f32(r, 1800), np.zeros(4, np.float32), np.int32(1800)],
         lambda x, p, n: {1: _reduce_sum_static(x, 4, 256)}, grid=(4,), block=(256,)),

    Case("reduce_int_dynamic", r"""
extern "C" __global__ void reduce_int_dynamic(const int* in, int* partial, int n) {
    extern __shared__ int ired[];
    int sum = 0;
    for (int i = GID; i < n; i += blockDim.x * gridDim.x) sum += in[i];
    ired[TID] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (TID < s) ired[TID] += ired[TID + s];
        __syncthreads();
    }
    if (TID == 0) partial[blockIdx.x] = ired[0];
}""", lambda r: [ints(r, 3000), np.zeros(5, np.int32), np.int32(3000)],
         lambda x, p, n: {1: _grid_stride_block_sums(x, 5, 128)}, grid=(5,), block=(128,), shared=128 * 4),

    Case("reduce_max_double", r"""
extern "C" __global__ void reduce_max_double(const double* x, double* block_max, int n) {
    __shared__ double smax[128];
    int i = GID;
    smax[TID] = i < n ? x[i] : -1.0e308;
    __syncthreads();
    for (int s = 64; s > 0; s >>= 1) {
        if (TID < s) smax[TID] = fmax(smax[TID], smax[TID + s]);
        __syncthreads();
    }
    if (TID == 0) block_max[blockIdx.x] = smax[0];
}""", lambda r: [f64(r, 1000, low=-50, high=10), np.zeros(8), np.int32(1000)],
         lambda x, m, n: {1: np.pad(x, (0, 24), constant_values=-1e308).reshape(8, 128).max(axis=1)},
         grid=(8,), block=(128,)),

    Case("block_argmax", r"""
struct ValIdx {
    float val;
    int idx;
};

extern "C" __global__ void block_argmax(const float* x, int n, float* best_val, int* best_idx) {
    __shared__ ValIdx pairs[128];
    int i = GID;
    ValIdx p;
    p.val = i < n ? x[i] : -3.0e38f;
    p.idx = i < n ? i : 0x7fffffff;
    pairs[TID] = p;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (TID < s) {
            ValIdx a = pairs[TID], b = pairs[TID + s];
            if (b.val > a.val || (b.val == a.val && b.idx < a.idx)) pairs[TID] = b;
        }
        __syncthreads();
    }
    if (TID == 0) {
        best_val[blockIdx.x] = pairs[0].val;
        best_idx[blockIdx.x] = pairs[0].idx;
    }
}""", lambda r: [r.integers(0, 60, 1000).astype(np.float32), np.int32(1000), np.zeros(8, np.float32),
                 np.zeros(8, np.int32)],
         lambda x, n, v, idx: _block_argmax(x, 128, 8), grid=(8,), block=(128,)),

    Case("sum_last_block", r"""
extern "C" __global__ void sum_last_block(const int* in, int* partial, unsigned int* retired, int* total, int n) {
    __shared__ int sdata[128];
    __shared__ bool am_last;
    int sum = 0;
    for (int i = GID; i < n; i += blockDim.x * gridDim.x) sum += in[i];
    sdata[TID] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (TID < s) sdata[TID] += sdata[TID + s];
        __syncthreads();
    }
    if (TID == 0) {
        partial[blockIdx.x] = sdata[0];
        __threadfence();
        unsigned int ticket = atomicInc(retired, gridDim.x);
        am_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    // every block runs the second level; only the last one to finish sees all the partials
    int mine = 0;
    if (am_last)
        for (int b = TID; b < gridDim.x; b += blockDim.x) mine += ((volatile int*)partial)[b];
    sdata[TID] = mine;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (TID < s) sdata[TID] += sdata[TID + s];
        __syncthreads();
    }
    if (am_last && TID == 0) {
        total[0] = sdata[0];
        *retired = 0;
    }
}""", lambda r: [ints(r, 2500), np.zeros(6, np.int32), np.zeros(1, np.uint32), np.zeros(1, np.int32),
                 np.int32(2500)],
         lambda x, p, ret, tot, n: {1: _grid_stride_block_sums(x, 6, 128), 2: np.zeros(1, np.uint32),
                                    3: np.array([x.sum()], np.int32)}, grid=(6,), block=(128,)),

    Case("scan_hillis_steele", r"""
extern "C" __global__ void scan_hillis_steele(const float* in, float* out, int n) {
    extern __shared__ float hs_buf[];
    int base = blockIdx.x * blockDim.x;
    int pout = 0, pin = 1;
    hs_buf[TID] = base + TID < n ? in[base + TID] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (TID >= offset)
            hs_buf[pout * blockDim.x + TID] = hs_buf[pin * blockDim.x + TID] + hs_buf[pin * blockDim.x + TID - offset];
        else
            hs_buf[pout * blockDim.x + TID] = hs_buf[pin * blockDim.x + TID];
        __syncthreads();
    }
    if (base + TID < n) out[base + TID] = hs_buf[pout * blockDim.x + TID];
}""", lambda r: [f32(r, 900), np.zeros(900, np.float32), np.int32(900)],
         lambda x, o, n: {1: _hillis_steele(x, 128, 8)}, grid=(8,), block=(128,), shared=2 * 128 * 4),

    Case("scan_blelloch", r"""
extern "C" __global__ void scan_blelloch(const int* in, int* out, int* sums, int n) {
    extern __shared__ int bl_temp[];
    int m = 2 * blockDim.x;
    int base = blockIdx.x * m;
    int ai = TID, bi = TID + blockDim.x;
    int bank_a = CONFLICT_FREE_OFFSET(ai), bank_b = CONFLICT_FREE_OFFSET(bi);
    bl_temp[ai + bank_a] = base + ai < n ? in[base + ai] : 0;
    bl_temp[bi + bank_b] = base + bi < n ? in[base + bi] : 0;
    int offset = 1;
    for (int d = m >> 1; d > 0; d >>= 1) {  // up-sweep
        __syncthreads();
        if ((int)TID < d) {
            int a = offset * (2 * TID + 1) - 1;
            int b = offset * (2 * TID + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            bl_temp[b] += bl_temp[a];
        }
        offset *= 2;
    }
    if (TID == 0) {
        int last = m - 1 + CONFLICT_FREE_OFFSET(m - 1);
        sums[blockIdx.x] = bl_temp[last];
        bl_temp[last] = 0;
    }
    for (int d = 1; d < m; d *= 2) {  // down-sweep
        offset >>= 1;
        __syncthreads();
        if ((int)TID < d) {
            int a = offset * (2 * TID + 1) - 1;
            int b = offset * (2 * TID + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            int t = bl_temp[a];
            bl_temp[a] = bl_temp[b];
            bl_temp[b] += t;
        }
    }
    __syncthreads();
    if (base + ai < n) out[base + ai] = bl_temp[ai + bank_a];
    if (base + bi < n) out[base + bi] = bl_temp[bi + bank_b];
}""", lambda r: [ints(r, 1000, low=0, high=100), np.zeros(1000, np.int32), np.zeros(4, np.int32), np.int32(1000)],
         lambda x, o, s, n: _blelloch(x, 256, 4), grid=(4,), block=(128,), shared=(256 + 8) * 4),

    Case("transpose_padded", r"""
extern "C" __global__ void transpose_padded(float* odata, const float* idata, int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}""", lambda r: [np.zeros((70, 45), np.float32), f32(r, 45, 70), np.int32(70), np.int32(45)],
         lambda o, a, w, h: {0: a.T}, grid=(3, 2), block=(32, 8)),

    Case("matmul_tiled", r"""
extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int K, int N) {
    __shared__ float As[MM_TILE][MM_TILE];
    __shared__ float Bs[MM_TILE][MM_TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * MM_TILE + ty;
    int col = blockIdx.x * MM_TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < (K + MM_TILE - 1) / MM_TILE; ++t) {
        int ka = t * MM_TILE + tx, kb = t * MM_TILE + ty;
        As[ty][tx] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
        Bs[ty][tx] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < MM_TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}""", lambda r: [f32(r, 37, 45), f32(r, 45, 29), np.zeros((37, 29), np.float32), np.int32(37), np.int32(45),
                 np.int32(29)],
         lambda a, b, c, m, k, n: {2: a.astype(np.float64) @ b.astype(np.float64)}, grid=(2, 3), block=(16, 16),
         rtol=1e-5, atol=1e-5),

    Case("matmul_dynamic_double", r"""
extern "C" __global__ void matmul_dynamic_double(const double* A, const double* B, double* C, int M, int K, int N) {
    extern __shared__ double mm_smem[];
    double* As = mm_smem;                      // MM_TILE x MM_TILE
    double* Bs = mm_smem + MM_TILE * MM_TILE;  // MM_TILE x MM_TILE
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * MM_TILE + ty;
    int col = blockIdx.x * MM_TILE + tx;
    double acc = 0.0;
    for (int k0 = 0; k0 < K; k0 += MM_TILE) {
        As[ty * MM_TILE + tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0;
        Bs[ty * MM_TILE + tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0;
        __syncthreads();
        for (int k = 0; k < MM_TILE; ++k) acc += As[ty * MM_TILE + k] * Bs[k * MM_TILE + tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}""", lambda r: [f64(r, 20, 50), f64(r, 50, 33), np.zeros((20, 33)), np.int32(20), np.int32(50), np.int32(33)],
         lambda a, b, c, m, k, n: {2: a @ b}, grid=(3, 2), block=(16, 16), shared=2 * 16 * 16 * 8,
         rtol=1e-12, atol=1e-13),

    Case("carved_sum_count", r"""
extern "C" __global__ void carved_sum_count(const float* x, float threshold, double* sums, int* counts, int n) {
    extern __shared__ double carve_buf[];
    double* psum = carve_buf;                    // blockDim.x doubles
    int* pcount = (int*)&psum[blockDim.x];       // then blockDim.x ints
    int i = GID;
    bool keep = i < n && x[i] > threshold;
    psum[TID] = keep ? (double)x[i] : 0.0;
    pcount[TID] = keep ? 1 : 0;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (TID < s) {
            psum[TID] += psum[TID + s];
            pcount[TID] += pcount[TID + s];
        }
        __syncthreads();
    }
    if (TID == 0) {
        sums[blockIdx.x] = psum[0];
        counts[blockIdx.x] = pcount[0];
    }
}""", lambda r: [f32(r, 700), np.float32(0.25), np.zeros(6), np.zeros(6, np.int32), np.int32(700)],
         lambda x, t, s, c, n: _carved_sum_count(x, t, 128, 6), grid=(6,), block=(128,), shared=128 * (8 + 4)),

    Case("carved_keys_weights", r"""
extern "C" __global__ void carved_keys_weights(const int* keys, const float* weights, float* out, int n) {
    extern __shared__ int kw_raw[];
    int* skey = kw_raw;                          // blockDim.x ints
    float* sweight = (float*)&skey[blockDim.x];  // then blockDim.x floats
    int base = blockIdx.x * blockDim.x;
    skey[TID] = base + TID < n ? keys[base + TID] : -1;
    sweight[TID] = base + TID < n ? weights[base + TID] : 0.0f;
    __syncthreads();
    // the weight of the first element in the block with the same key as mine, else my own
    float w = sweight[TID];
    for (int j = 0; j < (int)TID; ++j) {
        if (skey[j] == skey[TID]) {
            w = sweight[j];
            break;
        }
    }
    if (base + TID < n) out[base + TID] = w;
}""", lambda r: [ints(r, 300, low=0, high=40), f32(r, 300), np.zeros(300, np.float32), np.int32(300)],
         lambda k, w, o, n: {2: _first_weight_by_key(k, w, 64)}, grid=(5,), block=(64,), shared=64 * 8),

    Case("histogram256_shared", r"""
extern "C" __global__ void histogram256_shared(const unsigned char* data, int n, unsigned int* hist) {
    __shared__ unsigned int local_hist[256];
    local_hist[TID] = 0;
    __syncthreads();
    for (int i = GID; i < n; i += blockDim.x * gridDim.x) atomicAdd(&local_hist[data[i]], 1u);
    __syncthreads();
    if (local_hist[TID] > 0) atomicAdd(&hist[TID], local_hist[TID]);
}""", lambda r: [r.integers(0, 256, 4000, dtype=np.uint8), np.int32(4000), np.zeros(256, np.uint32)],
         lambda d, n, h: {2: np.bincount(d, minlength=256).astype(np.uint32)}, grid=(4,), block=(256,)),

    Case("histogram_warp_private", r"""
#define HW_WARPS 4
#define HW_BINS 64
extern "C" __global__ void histogram_warp_private(const int* values, int n, int* hist) {
    __shared__ int sub_hist[HW_WARPS][HW_BINS];
    int warp = TID / 32;
    for (int j = TID; j < HW_WARPS * HW_BINS; j += blockDim.x) sub_hist[j / HW_BINS][j % HW_BINS] = 0;
    __syncthreads();
    for (int i = GID; i < n; i += blockDim.x * gridDim.x) atomicAdd(&sub_hist[warp][values[i] >> 4], 1);
    __syncthreads();
    if (TID < HW_BINS) {
        int total = 0;
#pragma unroll
        for (int w = 0; w < HW_WARPS; ++w) total += sub_hist[w][TID];
        atomicAdd(&hist[TID], total);
    }
}""", lambda r: [ints(r, 3000, low=0, high=1024), np.int32(3000), np.zeros(64, np.int32)],
         lambda v, n, h: {2: np.bincount(v >> 4, minlength=64).astype(np.int32)}, grid=(3,), block=(128,)),

    Case("stencil_1d", r"""
#define ST_RADIUS 3
#define ST_BLOCK 128
extern "C" __global__ void stencil_1d(const int* in, int* out, int n) {
    __shared__ int temp[ST_BLOCK + 2 * ST_RADIUS];
    int gindex = GID;
    int lindex = TID + ST_RADIUS;
    temp[lindex] = gindex < n ? in[gindex] : 0;
    if (TID < ST_RADIUS) {
        temp[lindex - ST_RADIUS] = gindex >= ST_RADIUS ? in[gindex - ST_RADIUS] : 0;
        temp[lindex + ST_BLOCK] = gindex + ST_BLOCK < n ? in[gindex + ST_BLOCK] : 0;
    }
    __syncthreads();
    int result = 0;
#pragma unroll
    for (int off = -ST_RADIUS; off <= ST_RADIUS; off++) result += (off + ST_RADIUS + 1) * temp[lindex + off];
    if (gindex < n) out[gindex] = result;
}""", lambda r: [ints(r, 1000), np.zeros(1000, np.int32), np.int32(1000)],
         lambda x, o, n: {1: _stencil_1d(x, 3)}, grid=(8,), block=(128,)),

    Case("laplacian_2d_halo", r"""
#define LP_BX 16
#define LP_BY 16
__device__ float lp_load(const float* u, int x, int y, int w, int h) {
    return (x >= 0 && x < w && y >= 0 && y < h) ? u[y * w + x] : 0.0f;
}

extern "C" __global__ void laplacian_2d_halo(const float* u, float* out, int w, int h) {
    __shared__ float tile[LP_BY + 2][LP_BX + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int gx = blockIdx.x * LP_BX + tx, gy = blockIdx.y * LP_BY + ty;
    tile[ty + 1][tx + 1] = lp_load(u, gx, gy, w, h);
    if (tx == 0) tile[ty + 1][0] = lp_load(u, gx - 1, gy, w, h);
    if (tx == LP_BX - 1) tile[ty + 1][LP_BX + 1] = lp_load(u, gx + 1, gy, w, h);
    if (ty == 0) tile[0][tx + 1] = lp_load(u, gx, gy - 1, w, h);
    if (ty == LP_BY - 1) tile[LP_BY + 1][tx + 1] = lp_load(u, gx, gy + 1, w, h);
    __syncthreads();
    if (gx < w && gy < h) {
        float vertical = tile[ty][tx + 1] + tile[ty + 2][tx + 1];
        float horizontal = tile[ty + 1][tx] + tile[ty + 1][tx + 2];
        out[gy * w + gx] = (vertical + horizontal) - 4.0f * tile[ty + 1][tx + 1];
    }
}""", lambda r: [f32(r, 30, 40), np.zeros((30, 40), np.float32), np.int32(40), np.int32(30)],
         lambda u, o, w, h: {1: _laplacian(u)}, grid=(3, 2), block=(16, 16)),

    Case("bitonic_sort_block", r"""
__device__ void bt_swap_if(float* keys, int* vals, int a, int b, bool up) {
    if ((keys[a] > keys[b]) == up) {
        float k = keys[a]; keys[a] = keys[b]; keys[b] = k;
        int v = vals[a]; vals[a] = vals[b]; vals[b] = v;
    }
}

extern "C" __global__ void bitonic_sort_block(float* keys, int* vals) {
    __shared__ float skeys[256];
    __shared__ int svals[256];
    unsigned int t = threadIdx.x;
    unsigned int g = blockIdx.x * 256 + t;
    skeys[t] = keys[g];
    svals[t] = vals[g];
    __syncthreads();
    for (unsigned int k = 2; k <= 256; k <<= 1) {
        for (unsigned int j = k >> 1; j > 0; j >>= 1) {
            unsigned int partner = t ^ j;
            if (partner > t) bt_swap_if(skeys, svals, t, partner, (t & k) == 0);
            __syncthreads();
        }
    }
    keys[g] = skeys[t];
    vals[g] = svals[t];
}""", lambda r: [(r.permutation(512) - 200).astype(np.float32) * np.float32(0.5), np.arange(512, dtype=np.int32)],
         lambda k, v: _sort_pairs(k, v, 256), grid=(2,), block=(256,)),

    Case("odd_even_sort", r"""
#define OE_N 256
extern "C" __global__ void odd_even_sort(int* data) {
    __shared__ int s[OE_N];
    int base = blockIdx.x * OE_N;
    for (int j = TID; j < OE_N; j += blockDim.x) s[j] = data[base + j];
    __syncthreads();
    for (int phase = 0; phase < OE_N; ++phase) {
        int a = 2 * TID + (phase & 1);
        if (a + 1 < OE_N && s[a] > s[a + 1]) {
            int t = s[a];
            s[a] = s[a + 1];
            s[a + 1] = t;
        }
        __syncthreads();
    }
    for (int j = TID; j < OE_N; j += blockDim.x) data[base + j] = s[j];
}""", lambda r: [ints(r, 768, low=-100, high=100)], lambda d: {0: np.sort(d.reshape(3, 256), axis=1).ravel()},
         grid=(3,), block=(128,)),

    Case("block_votes", r"""
extern "C" __global__ void block_votes(const int* x, int n, int* counts, int* all_above, int* any_big) {
    int i = GID;
    int v = i < n ? x[i] : 0;
    int c = __syncthreads_count(v > 0);
    int a = __syncthreads_and(i >= n || v > -900);
    int o = __syncthreads_or(v > 990);
    if (TID == 0) {
        counts[blockIdx.x] = c;
        all_above[blockIdx.x] = a != 0;
        any_big[blockIdx.x] = o != 0;
    }
}""", lambda r: [_vote_input(r), np.int32(1000), np.zeros(8, np.int32), np.zeros(8, np.int32), np.zeros(8, np.int32)],
         lambda x, n, c, a, o: _block_votes(x, 128, 8), grid=(8,), block=(128,)),

    Case("segment_labels", r"""
extern "C" __global__ void segment_labels(const unsigned char* link, int* label) {
    __shared__ int lab[256];
    int t = threadIdx.x;
    int i = GID;
    lab[t] = i;
    __syncthreads();
    int changed;
    do {  // link[i] != 0 joins element i to i + 1; each run takes the smallest index in it
        int best = lab[t];
        if (t > 0 && link[i - 1]) best = min(best, lab[t - 1]);
        if (t + 1 < (int)blockDim.x && link[i]) best = min(best, lab[t + 1]);
        __syncthreads();
        changed = best < lab[t];
        lab[t] = best;
    } while (__syncthreads_or(changed));
    label[i] = lab[t];
}""", lambda r: [(r.random(512) < 0.85).astype(np.uint8), np.zeros(512, np.int32)],
         lambda link, lab: {1: _segment_labels(link, 256)}, grid=(2,), block=(256,)),

    Case("rotate_threadfence_block", r"""
extern "C" __global__ void rotate_threadfence_block(const float* x, const int* y, float* xo, int* yo) {
    __shared__ float fs[128];
    __shared__ int is[128];
    fs[TID] = x[GID];
    __threadfence_block();
    is[TID] = y[GID];
    __syncthreads();
    xo[GID] = fs[(TID + 1) % blockDim.x];
    yo[GID] = is[(TID + blockDim.x - 5) % blockDim.x];
}""", lambda r: [f32(r, 384), ints(r, 384), np.zeros(384, np.float32), np.zeros(384, np.int32)],
         lambda x, y, xo, yo: {2: np.roll(x.reshape(3, 128), -1, axis=1).ravel(),
                               3: np.roll(y.reshape(3, 128), 5, axis=1).ravel()}, grid=(3,), block=(128,)),

    Case("center_by_block_mean", r"""
__device__ float block_sum_128(float v) {
    __shared__ float scratch[128];
    scratch[threadIdx.x] = v;
    __syncthreads();
    for (int s = 64; s > 0; s >>= 1) {
        if (threadIdx.x < s) scratch[threadIdx.x] += scratch[threadIdx.x + s];
        __syncthreads();
    }
    float total = scratch[0];
    __syncthreads();  // scratch may be reused by the next call
    return total;
}

extern "C" __global__ void center_by_block_mean(const float* x, float* y, float* sums, int n) {
    int i = GID;
    float v = i < n ? x[i] : 0.0f;
    float s = block_sum_128(v);
    float s2 = block_sum_128(fabsf(v));
    if (i < n) y[i] = v - s * 0.0078125f;
    if (TID == 0) {
        sums[2 * blockIdx.x] = s;
        sums[2 * blockIdx.x + 1] = s2;
    }
}""", lambda r: [f32(r, 500), np.zeros(500, np.float32), np.zeros(8, np.float32), np.int32(500)],
         lambda x, y, s, n: _center_by_block_mean(x, 128, 4), grid=(4,), block=(128,)),

    Case("static_reverse_constexpr", r"""
constexpr int kRevN = 64;
extern "C" __global__ void static_reverse_constexpr(int* d) {
    __shared__ int s[kRevN];
    int t = threadIdx.x;
    int tr = kRevN - t - 1;
    s[t] = d[blockIdx.x * kRevN + t];
    __syncthreads();
    d[blockIdx.x * kRevN + t] = s[tr];
}""", lambda r: [ints(r, 256)], lambda d: {0: d.reshape(4, 64)[:, ::-1].ravel()}, grid=(4,), block=(64,)),

    Case("dynamic_reverse", r"""
extern "C" __global__ void dynamic_reverse(double* d, int n) {
    extern __shared__ double rev_buf[];
    int t = threadIdx.x;
    int tr = n - t - 1;
    rev_buf[t] = d[t];
    __syncthreads();
    d[t] = rev_buf[tr];
}""", lambda r: [f64(r, 96), np.int32(96)], lambda d, n: {0: d[::-1]}, block=(96,), shared=96 * 8),

    Case("minmax_const_int", r"""
const int kMMBlock = 256;
extern "C" __global__ void minmax_const_int(const int* x, int n, int* mins, int* maxs) {
    __shared__ int smin[kMMBlock];
    __shared__ int smax[kMMBlock];
    int i = GID;
    smin[TID] = i < n ? x[i] : 0x7fffffff;
    smax[TID] = i < n ? x[i] : (int)0x80000000;
    __syncthreads();
#pragma unroll
    for (int s = kMMBlock / 2; s > 0; s >>= 1) {
        if (TID < s) {
            smin[TID] = min(smin[TID], smin[TID + s]);
            smax[TID] = max(smax[TID], smax[TID + s]);
        }
        __syncthreads();
    }
    if (TID == 0) {
        mins[blockIdx.x] = smin[0];
        maxs[blockIdx.x] = smax[0];
    }
}""", lambda r: [ints(r, 1000, low=-2**31, high=2**31 - 1), np.int32(1000), np.zeros(4, np.int32),
                 np.zeros(4, np.int32)],
         lambda x, n, mn, mx: {2: _pad_blocks(x, 256, 4, 2**31 - 1).min(axis=1),
                               3: _pad_blocks(x, 256, 4, -2**31).max(axis=1)}, grid=(4,), block=(256,)),

    Case("neighbours_3d_block", r"""
extern "C" __global__ void neighbours_3d_block(const float* v, float* out) {
    __shared__ float cube[4][4][8];
    int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
    int g = blockIdx.x * 128 + (z * 4 + y) * 8 + x;
    cube[z][y][x] = v[g];
    __syncthreads();
    out[g] = cube[z][y][(x + 1) & 7] + cube[(z + 1) & 3][(y + 3) & 3][x];
}""", lambda r: [f32(r, 2, 4, 4, 8), np.zeros((2, 4, 4, 8), np.float32)],
         lambda v, o: {1: np.roll(v, -1, axis=3) + np.roll(np.roll(v, -1, axis=1), 1, axis=2)},
         grid=(2,), block=(8, 4, 4)),

    Case("tile_row_col_sums", r"""
extern "C" __global__ void tile_row_col_sums(const double* a, int cols, double* row_sums, double* col_sums) {
    __shared__ double tile[8][32];
    __shared__ double rows[8][32];
    int tx = threadIdx.x, ty = threadIdx.y;
    int gx = blockIdx.x * 32 + tx, gy = blockIdx.y * 8 + ty;
    tile[ty][tx] = a[gy * cols + gx];
    rows[ty][tx] = tile[ty][tx];
    __syncthreads();
    for (int s = 16; s > 0; s >>= 1) {
        if (tx < s) rows[ty][tx] += rows[ty][tx + s];
        __syncthreads();
    }
    if (tx == 0) row_sums[gy * gridDim.x + blockIdx.x] = rows[ty][0];
    if (ty == 0) {
        double c = 0.0;
        for (int r = 0; r < 8; ++r) c += tile[r][tx];
        col_sums[blockIdx.y * cols + gx] = c;
    }
}""", lambda r: [f64(r, 24, 64), np.int32(64), np.zeros((24, 2)), np.zeros((3, 64))],
         lambda a, cols, rs, cs: _tile_row_col_sums(a), grid=(2, 3), block=(32, 8)),
]


def _tree(x, op=np.add):
    """A shared-memory tree over axis 1, as `for (s = width / 2; s > 0; s >>= 1) x[t] = op(x[t], x[t + s])`."""
    x = x.copy()
    while x.shape[1] > 1:
        h = x.shape[1] // 2
        x = op(x[:, :h], x[:, h:])
    return x[:, 0]


def _pad_blocks(x, block, nblocks, fill):
    return np.concatenate([x, np.full(block * nblocks - x.size, fill, x.dtype)]).reshape(nblocks, block)


def _reduce_sum_static(x, nblocks, block):
    p = _pad_blocks(x, 2 * block, nblocks, 0).reshape(nblocks, 2, block)
    return _tree(p[:, 0] + p[:, 1])


def _grid_stride_block_sums(x, nblocks, block):
    chunk = (np.arange(x.size) // block) % nblocks
    return np.array([x[chunk == b].sum() for b in range(nblocks)], np.int32)


def _block_argmax(x, block, nblocks):
    p = _pad_blocks(x, block, nblocks, np.float32(-3e38))
    idx = p.argmax(axis=1)  # the first of equal maxima, as the kernel's tie rule
    return {2: p[np.arange(nblocks), idx], 3: (idx + block * np.arange(nblocks)).astype(np.int32)}


def _hillis_steele(x, block, nblocks):
    p = _pad_blocks(x, block, nblocks, 0)
    offset = 1
    while offset < block:
        q = p.copy()
        q[:, offset:] = p[:, offset:] + p[:, :-offset]
        p, offset = q, offset * 2
    return p.ravel()[: x.size]


def _blelloch(x, chunk, nblocks):
    p = _pad_blocks(x, chunk, nblocks, 0)
    inclusive = np.cumsum(p, axis=1)
    return {1: (inclusive - p).ravel()[: x.size].astype(np.int32), 2: inclusive[:, -1].astype(np.int32)}


def _carved_sum_count(x, threshold, block, nblocks):
    p = _pad_blocks(x, block, nblocks, 0)
    keep = p > threshold
    return {2: _tree(np.where(keep, p.astype(np.float64), 0.0)), 3: _tree(keep.astype(np.int32))}


def _first_weight_by_key(k, w, block):
    out = w.copy()
    for i in range(k.size):
        base = i - i % block
        first = base + int(np.flatnonzero(k[base : i + 1] == k[i])[0])
        out[i] = w[first]
    return out


def _stencil_1d(x, radius):
    p = np.pad(x, radius)
    return sum((off + radius + 1) * p[radius + off : radius + off + x.size] for off in range(-radius, radius + 1))


def _laplacian(u):
    p = np.pad(u, 1)
    vertical = p[:-2, 1:-1] + p[2:, 1:-1]
    horizontal = p[1:-1, :-2] + p[1:-1, 2:]
    return (vertical + horizontal) - np.float32(4) * u


def _sort_pairs(keys, vals, block):
    k = keys.reshape(-1, block)
    order = np.argsort(k, axis=1)
    return {0: np.take_along_axis(k, order, axis=1).ravel(),
            1: np.take_along_axis(vals.reshape(-1, block), order, axis=1).ravel()}


def _vote_input(r):
    x = ints(r, 1000)
    x[: 2 * 128] = np.maximum(x[: 2 * 128], -899)  # blocks 0 and 1 are all above -900
    x[5 * 128 : 6 * 128] = np.minimum(x[5 * 128 : 6 * 128], 0)  # block 5: none positive, none big
    x[7 * 128 + 3] = 995
    return x


def _block_votes(x, block, nblocks):
    valid = _pad_blocks(np.ones(x.size, bool), block, nblocks, False)
    v = _pad_blocks(x, block, nblocks, 0)
    return {2: (v > 0).sum(axis=1).astype(np.int32), 3: (~valid | (v > -900)).all(axis=1).astype(np.int32),
            4: (v > 990).any(axis=1).astype(np.int32)}


def _segment_labels(link, block):
    label = np.arange(link.size, dtype=np.int32)
    for i in range(link.size):
        if i % block and link[i - 1]:
            label[i] = label[i - 1]
    return label


def _center_by_block_mean(x, block, nblocks):
    p = _pad_blocks(x, block, nblocks, 0)
    s, s2 = _tree(p), _tree(np.abs(p))
    y = (p - s[:, None] * np.float32(0.0078125)).ravel()[: x.size]
    return {1: y, 2: np.stack([s, s2], axis=1).ravel()}


def _tile_row_col_sums(a):
    rows = _tree(a.reshape(24, 2, 32).reshape(48, 32)).reshape(24, 2)
    cols = np.zeros((3, 64))
    for r in range(8):
        cols += a.reshape(3, 8, 64)[:, r, :]
    return {2: rows, 3: cols}
