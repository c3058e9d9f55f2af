"""The language of ``@cuda.jit`` kernels: shared, local and dynamic shared memory, barriers,
warp synchronisation and fences, and atomics (under contention, with NaNs, on shared memory,
and the ones Numba does not define refused)."""

from __future__ import annotations

import re

import ember
import numpy as np
import pytest
from ember import cuda
from ember._jit import kernel_source
from ember.errors import CompileError, JitError, LaunchConfigurationError
from jit_harness import TPB, N, blocks, ints
from jit_kernels import (
    block_sums,
    float_atomics,
    int_atomics,
    reverse_blocks,
    shared_atomics,
    warp_exchange,
    window_sort,
)

# ---- shared, local and dynamic shared memory; barriers ----


def test_static_shared_arrays_and_syncthreads_reduce_a_block(rng):
    x = rng.integers(-1000, 1000, N).astype(np.float32)  # integers: every order of summing is exact
    nb = blocks(N)
    sums, transposed = ember.zeros(nb, dtype=np.float32), ember.zeros((nb, TPB), dtype=np.int32)
    t = np.arange(TPB)
    want = np.stack([((t % 8) * 8 + t // 8) * (b + 1) for b in range(nb)])
    for sharedmem in (0, 256):  # dynamic shared memory the kernel does not use is allowed
        block_sums[nb, TPB, 0, sharedmem](ember.asarray(x), sums, transposed)
        np.testing.assert_array_equal(sums.get(), np.add.reduceat(x, np.arange(0, N, TPB)))
        np.testing.assert_array_equal(transposed.get(), want)


def test_dynamic_shared_memory_has_the_launch_size(rng):
    x = rng.standard_normal(4 * TPB)
    out, size = ember.zeros(4 * TPB), ember.zeros(2, dtype=np.int64)
    stream = cuda.stream()
    reverse_blocks[4, TPB, stream, TPB * 8 * 2](ember.asarray(x), out, size)
    stream.synchronize()
    np.testing.assert_array_equal(out.get(), x.reshape(4, TPB)[:, ::-1].ravel())
    np.testing.assert_array_equal(size.get(), [2 * TPB, 2 * TPB])


@cuda.jit
def huge_shared(x):
    buf = cuda.shared.array(1 << 22, np.float32)  # 16 MiB: more than any device's block has
    t = cuda.threadIdx.x
    buf[t] = x[t]
    cuda.syncthreads()
    x[t] = buf[t] * 2


def test_shared_memory_beyond_the_device_is_refused_before_launching(rng):
    # PoCL aborted the process, NVIDIA's OpenCL left its queue unusable: refused up front,
    # naming the kernel and both sizes; the next launches work.
    x = ember.asarray(rng.standard_normal(TPB).astype(np.float32))
    needs = (r"cannot launch \w*huge_shared\w*: it needs 16777216 bytes of shared memory per block "
             r"\(16777216 declared in the kernel, 0 dynamic\), more than the \d+ a block may have")
    with pytest.raises((LaunchConfigurationError, CompileError)) as refused:
        huge_shared[1, TPB](x)
    if isinstance(refused.value, CompileError):  # CUDA: ptxas refuses it, naming the kernel
        assert "huge_shared" in str(refused.value) and "too much shared data" in refused.value.log
    else:
        assert re.search(needs, str(refused.value)), str(refused.value)
    out, size = ember.zeros(4 * TPB), ember.zeros(2, dtype=np.int64)
    with pytest.raises(LaunchConfigurationError, match=r"\(\d+ declared in the kernel, 16777216 dynamic\)"):
        reverse_blocks[4, TPB, 0, 1 << 24](ember.asarray(rng.standard_normal(4 * TPB)), out, size)
    y = rng.standard_normal(4 * TPB)
    reverse_blocks[4, TPB, 0, TPB * 8](ember.asarray(y), out, size)
    np.testing.assert_array_equal(out.get(), y.reshape(4, TPB)[:, ::-1].ravel())


def test_local_arrays_are_per_thread_scratch(rng):
    x = rng.integers(-100, 100, N).astype(np.int64)
    out = ember.zeros((N, 8))
    window_sort[blocks(N), TPB](ember.asarray(x), out)
    windows = np.sort(np.stack([np.roll(x, -i)[:8] for i in range(N)]), axis=1) * 0.5
    np.testing.assert_array_equal(out.get(), windows.reshape(N, 2, 4).transpose(0, 2, 1).reshape(N, 8))


def test_syncwarp_and_threadfences_order_a_warps_memory(rng):
    # A block of one warp: on OpenCL, syncwarp is a barrier of the whole work-group.
    x = rng.integers(-10**12, 10**12, 4 * 32)
    out = ember.zeros(4 * 32, dtype=np.int64)
    warp_exchange[4, 32](ember.asarray(x), out)
    want = (x.reshape(4, 32)[:, ::-1] * 2)[:, (np.arange(32) + 1) % 32].ravel()
    np.testing.assert_array_equal(out.get(), want)


# ---- atomics ----


def check_chain(olds, values, start, step):
    """The old values an atomic add (step 1) or sub (step -1) returned are a chain from ``start``."""
    order = np.argsort(olds)[::step]
    steps = np.concatenate([[0], np.cumsum(values[order].astype(np.float64))[:-1]])  # exact: small integers
    np.testing.assert_array_equal(olds[order].astype(np.float64), float(start) + step * steps)


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64"])
def test_integer_atomics_under_contention(rng, dtype):
    n = 1000
    v = rng.integers(1, 1000, n).astype(dtype)
    w = ints(rng, dtype, n)
    info = np.iinfo(dtype)
    start = np.array([5, n * 1000, 17, 0, info.min, info.max, info.min, info.max, info.max if info.min == 0 else -1,
                      0, 0x5A5A, 3], dtype=dtype)
    acc = ember.asarray(start)
    olds, flag = ember.zeros((n, 5), dtype=dtype), ember.zeros(1, dtype=dtype)
    hist = ember.zeros((2, 3), dtype=dtype)
    int_atomics[blocks(n, 128), 128](ember.asarray(v), ember.asarray(w), acc, olds, flag, hist)
    acc, olds, f = acc.get(), olds.get(), int(flag.get()[0])
    assert acc[0] == start[0] + v.sum(dtype=dtype) and acc[1] == start[1] - v.sum(dtype=dtype)
    check_chain(olds[:, 0], v, start[0], 1)
    check_chain(olds[:, 1], v, start[1], -1)
    assert sorted([*olds[:, 2], acc[2]]) == sorted([start[2], *v])  # exch: every value seen once
    np.testing.assert_array_equal(np.sort(olds[:, 3]), np.arange(n))
    assert acc[3] == n
    assert 1 <= f <= n and olds[f - 1, 4] == 0 and (np.delete(olds[:, 4], f - 1) == f).all()
    assert acc[4] == w.max() and acc[5] == w.min() and acc[6] == w.max() and acc[7] == w.min()
    assert acc[8] == np.bitwise_and.reduce(w) & start[8]
    assert acc[9] == np.bitwise_or.reduce(w)
    assert acc[10] == np.bitwise_xor.reduce(w) ^ start[10]
    assert acc[11] == start[11] + v.sum(dtype=dtype)
    want_hist = np.zeros((2, 3), dtype)
    np.add.at(want_hist, (v % 2, v % 3), 1)
    np.testing.assert_array_equal(hist.get(), want_hist)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_atomics_under_contention_and_with_nans(rng, dtype):
    n = 1000
    v = rng.integers(1, 1000, n).astype(dtype)  # integers: every order of summing is exact
    w = (rng.standard_normal(n) * 100).astype(dtype)
    w[::97] = np.nan  # ignored by max, min, nanmax and nanmin alike
    init = np.array([0.5, 1e6, -np.inf, np.inf, -np.inf, np.inf], dtype=dtype)
    acc = ember.asarray(init)
    olds = ember.zeros((n, 4), dtype=dtype)
    nans = ember.asarray(np.array([np.nan, 1] * 4 + [0, 0], dtype=dtype))
    float_atomics[blocks(n, 128), 128](ember.asarray(v), ember.asarray(w), acc, olds, nans)
    acc, olds = acc.get(), olds.get()
    assert acc[0] == init[0] + v.sum() and acc[1] == init[1] - v.sum()
    check_chain(olds[:, 0], v, init[0], 1)
    check_chain(olds[:, 1], v, init[1], -1)
    assert acc[2] == np.nanmax(w) and acc[3] == np.nanmin(w) and acc[4] == np.nanmax(w) and acc[5] == np.nanmin(w)
    assert np.isin(olds[:, 2], [init[2], *w]).all() and (olds[:, 2] <= acc[2]).all()
    assert np.isin(olds[:, 3], [init[3], *w]).all() and (olds[:, 3] >= acc[3]).all()
    # max/min leave memory alone when either side is NaN; nanmax/nanmin replace a NaN in memory.
    np.testing.assert_array_equal(nans.get(), np.array([np.nan, 1, np.nan, 1, 5, 1, 5, 1, np.nan, np.nan], dtype))


def test_atomics_on_shared_memory(rng):
    x = rng.integers(0, 10**6, N).astype(np.int64)
    nb = blocks(N)
    hist, stats = ember.zeros(16, dtype=np.int32), ember.zeros(2)
    biggest, winners = ember.zeros(1, dtype=np.uint64), ember.zeros(nb, dtype=np.int64)
    shared_atomics[nb, TPB](ember.asarray(x), hist, stats, biggest, winners)
    np.testing.assert_array_equal(hist.get(), np.bincount(x % 16, minlength=16))
    np.testing.assert_array_equal(stats.get(), [x.sum() * 0.5, x.max() * 0.25])
    assert biggest.get()[0] == x.max()
    won = winners.get()
    assert ((won >= np.arange(nb) * TPB) & (won < np.minimum(np.arange(1, nb + 1) * TPB, N))).all()


def test_atomics_numba_does_not_define_are_refused():
    @cuda.jit
    def bad_and(a):
        cuda.atomic.and_(a, 0, 1)

    @cuda.jit
    def bad_exch(a):
        cuda.atomic.exch(a, 0, 1.5)

    with pytest.raises(JitError, match=r"and_\(\) does not support arrays of float32"):
        kernel_source(bad_and, ["float32[::1]"], "opencl")
    with pytest.raises(JitError, match=r"exch\(\) does not support arrays of float64"):
        kernel_source(bad_exch, ["float64[::1]"], "opencl")
    with pytest.raises(JitError, match=r"add\(\) does not support arrays of int8"):
        kernel_source(float_atomics, ["int8[::1]", "int8[::1]", "int8[::1]", "int8[:, ::1]", "int8[::1]"], "cuda")


@cuda.jit
def shared_sized_by_a_local(out):
    n = 48
    shape = (4, 5)
    sm = cuda.shared.array(n, np.int32)
    grid = cuda.local.array(shape=shape, dtype=np.float64)
    i = cuda.threadIdx.x
    sm[i] = i * i
    cuda.syncthreads()
    for a in range(4):
        for b in range(5):
            grid[a, b] = a * 5 + b
    out[i] = sm[n - 1 - i] + grid[3, 4]


def test_a_shape_named_by_a_constant_local_is_that_constant():
    # Numba propagates `n = 48` into cuda.shared.array(n, ...): assigned once, at the top.
    out = ember.zeros(48, np.float64)
    shared_sized_by_a_local[1, 48](out)
    np.testing.assert_array_equal(out.get(), [(47 - i) ** 2 + 19 for i in range(48)])


# ---- alignment= and .ctypes.data (Numba's) ----

RECORD = np.dtype([("a", np.uint8), ("b", np.int32), ("c", np.float64)], align=True)


def aligned_addresses(alignment, dtype):
    """A kernel writing, per thread, the addresses of an aligned local and shared array."""

    @cuda.jit
    def kernel(local_at, shared_at):
        i = cuda.grid(1)
        mine = cuda.local.array(5, dtype=dtype, alignment=alignment)
        block = cuda.shared.array((2, 3), dtype=dtype, alignment=alignment)
        local_at[i] = mine.ctypes.data
        shared_at[i] = block.ctypes.data

    local_at, shared_at = ember.zeros(64, np.uint64), ember.zeros(64, np.uint64)
    kernel[2, 32](local_at, shared_at)
    return local_at.get(), shared_at.get()


@pytest.mark.parametrize("alignment, dtype", [(64, np.uint8), (256, RECORD)], ids=["64 uint8", "256 record"])
def test_aligned_arrays_start_at_multiples_of_their_alignment(alignment, dtype):
    local_at, shared_at = aligned_addresses(alignment, dtype)
    assert (local_at % alignment == 0).all() and (shared_at % alignment == 0).all()
    # One shared array a block (every thread of a block sees the same address).
    assert len(set(shared_at[:32])) == 1 and len(set(shared_at[32:])) == 1
    assert (local_at != 0).all() and (shared_at != 0).all()


def test_the_cuda_c_declares_the_alignment_asked_for():
    from conftest import nvrtc_or_skip

    nvrtc_or_skip()

    def f(out):
        block = cuda.shared.array(8, dtype=np.float32, alignment=256)
        out[0] = block.ctypes.data

    ptx, _ = cuda.compile_ptx(f, "void(uint64[::1])", cc=(9, 0))
    assert re.search(r"\.shared \.align 256 .b8", ptx), ptx


@pytest.mark.parametrize("alignment, message", [
    (0, "Alignment must be positive, got 0"), (-8, "Alignment must be positive"),
    (24, "Alignment must be a power of 2, got 24"), (4, "Alignment must be a multiple of 8, got 4"),
    (1.5, "RequireLiteralValue: alignment must be a constant integer"),
    ("16", "RequireLiteralValue: alignment must be a constant integer"),
], ids=["zero", "negative", "not a power of 2", "below a pointer", "float", "str"])
def test_bad_alignments_say_what_numba_says(alignment, message):
    def f(out):
        mine = cuda.local.array(4, dtype=np.uint8, alignment=alignment)
        out[0] = mine.ctypes.data

    for dialect in ("cuda", "opencl"):
        with pytest.raises(JitError, match=re.escape(message)):
            kernel_source(f, ["uint64[::1]"], dialect)


@cuda.jit(device=True)
def reversed_in_block(x, i):
    # An aligned shared array in a device function (OpenCL: the kernel declares it).
    tile = cuda.shared.array(32, dtype=np.float32, alignment=128)
    t = cuda.threadIdx.x
    tile[t] = x[i]
    cuda.syncthreads()
    return tile[31 - t], tile.ctypes.data


def test_aligned_arrays_hold_values_in_device_functions_too(rng):
    @cuda.jit
    def kernel(x, out, where):
        i = cuda.grid(1)
        scratch = cuda.local.array(3, dtype=np.float64, alignment=64)
        value, address = reversed_in_block(x, i)
        for k in range(3):
            scratch[k] = value * (k + 1)
        out[i] = scratch[0] + scratch[1] + scratch[2]
        where[i] = address

    x = rng.standard_normal(64).astype(np.float32)
    out, where = ember.zeros(64), ember.zeros(64, np.uint64)
    kernel[2, 32](ember.asarray(x), out, where)
    want = x.reshape(2, 32)[:, ::-1].reshape(64).astype(np.float64)
    np.testing.assert_array_equal(out.get(), want + 2 * want + 3 * want)
    assert (where.get() % 128 == 0).all()
