"""Short rows sorted one block a row, in shared memory: a bitonic network over (value, index)
pairs in NumPy's order (numbers, then NaN; -0.0 equal to 0.0), the index breaking every tie,
so the order is total and the sort stable. A row of up to 4,096 elements (2,048 of an 8-byte
dtype) is read once and written once; the radix sort of whole arrays (``_ember.sort_rows``)
takes the rest (longer rows measured faster there: medians of 8,192-long columns on an H100
went 6,201 -> 3,938 Mvalues/s sorted this way). Many rows make it worth a kernel:
``sort(axis=-1)`` of a batch, medians of columns, ``partition`` along an axis. It serves
OpenCL GPUs: ``_ember.sort_short_rows`` sorts such rows first where it can, by radix passes a
block a row on CUDA and a work-item a row on a CPU device (there 2.6x faster than this
network even as whole-array passes: PoCL medians of 4,096 x 4,096 float32 columns).
"""

from __future__ import annotations

import numpy as np

from ._creation import empty
from ._jit import jit
from ._jit.intrinsics import blockDim, blockIdx, shared, syncthreads, threadIdx

# Rows shorter than this go to the radix sort (a block a row would idle), and so do batches of
# fewer rows than MIN_ROWS (one kernel more to compile is not worth it).
MIN_LENGTH = 16
MIN_ROWS = 64


def fits(dtype: np.dtype, n: int, rows: int) -> bool:
    """Whether rows of ``n`` elements of ``dtype`` go to this sort."""
    limit = 4096 if dtype.itemsize <= 4 else 2048
    return dtype.kind in "biuf" and MIN_LENGTH <= n <= limit and rows >= MIN_ROWS


@jit(device=True)
def _before(a, ia, b, ib, n):
    """Whether (a, ia) sorts before (b, ib): padding (index n and above) last, NaN after
    numbers, ties by index."""
    if ib >= n:
        return ia < n or ia < ib
    if ia >= n:
        return False
    if a < b:
        return True
    if b < a:
        return False
    a_nan = a != a
    b_nan = b != b
    if a_nan != b_nan:
        return b_nan
    return ia < ib


_KERNELS: dict = {}


@jit(device=True)
def _emit_value(out, at, v, ix, i):
    out[at] = v[i]


@jit(device=True)
def _emit_index(out, at, v, ix, i):
    out[at] = ix[i]


def _kernel(size: int, dtype: np.dtype, values: bool):
    """The kernel for rows padded to ``size`` (a power of two) of ``dtype``, writing the
    sorted ``values`` or the indices."""
    key = (size, dtype, values)
    if key not in _KERNELS:
        kind = dtype.type
        emit = _emit_value if values else _emit_index

        @jit
        def sort_rows(x, n, out):
            v = shared.array(size, kind)
            ix = shared.array(size, np.int32)
            t = threadIdx.x
            base = blockIdx.x * n
            i = t
            while i < size:
                if i < n:
                    v[i] = x[base + i]
                ix[i] = i
                i += blockDim.x
            syncthreads()
            k = 2
            while k <= size:
                j = k // 2
                while j > 0:
                    i = t
                    while i < size:
                        partner = i ^ j
                        if partner > i:
                            a = v[i]
                            ia = ix[i]
                            b = v[partner]
                            ib = ix[partner]
                            # Out of order for this half's direction: swap.
                            if _before(b, ib, a, ia, n) == ((i & k) == 0):
                                v[i] = b
                                ix[i] = ib
                                v[partner] = a
                                ix[partner] = ia
                        i += blockDim.x
                    syncthreads()
                    j //= 2
                k *= 2
            i = t
            while i < n:
                emit(out, base + i, v, ix, i)
                i += blockDim.x

        _KERNELS[key] = sort_rows
    return _KERNELS[key]


def sort_rows(rows, values: bool):
    """The rows of the C-contiguous 2-d ``rows`` sorted (``values``), or each row's sorting
    permutation as int64 indices within the row."""
    m, n = rows.shape
    size = 1 << (n - 1).bit_length()
    # 256 threads: some devices allow no more for this kernel (NVIDIA's OpenCL, 8-byte dtypes).
    threads = 256
    out = empty((m, n), dtype=rows.dtype if values else np.int64)
    flat = rows.reshape(-1)
    _kernel(size, rows.dtype, values)[m, threads](flat, n, out.reshape(-1))
    return out
