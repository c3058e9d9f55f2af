"""Warp-level intrinsics of ``@cuda.jit`` kernels (``cuda.activemask``, ``cuda.lanemask_lt``,
the votes ``all_sync``/``any_sync``/``eq_sync``/``ballot_sync``, the shuffles ``shfl*_sync``,
``match_any_sync``/``match_all_sync``) and the block votes ``cuda.syncthreads_count/and/or``:
numba-cuda's result types and argument checks, CUDA C that compiles through NVRTC, a clear
error where the kernel compiles to OpenCL C (no warps there), and, on a CUDA device, the
values (the ``gpu`` tests, after numba-cuda's ``test_warp_ops.py``)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from ember import cuda
from ember._jit import kernel_source
from ember._jit.front import program_json
from ember.errors import JitError

FULL = 0xFFFFFFFF


def cuda_result_type(fn, *types):
    """The type CUDA C gives ``fn(*args)`` (no device needed)."""
    return ember._ember.jit_device_source(program_json(fn), list(types), "cuda")[2]


def all_sync(m, p):
    return cuda.all_sync(m, p)


def any_sync(m, p):
    return cuda.any_sync(m, p)


def eq_sync(m, p):
    return cuda.eq_sync(m, p)


def ballot_sync(m, p):
    return cuda.ballot_sync(m, p)


def shfl_sync(m, v, lane):
    return cuda.shfl_sync(m, v, lane)


def shfl_up_sync(m, v, d):
    return cuda.shfl_up_sync(m, v, d)


def shfl_down_sync(m, v, d):
    return cuda.shfl_down_sync(m, v, d)


def shfl_xor_sync(m, v, x):
    return cuda.shfl_xor_sync(m, v, x)


def match_any_sync(m, v):
    return cuda.match_any_sync(m, v)


def match_all_sync(m, v):
    return cuda.match_all_sync(m, v)


def activemask():
    return cuda.activemask()


def lanemask_lt():
    return cuda.lanemask_lt()


def syncthreads_count(p):
    return cuda.syncthreads_count(p)


def syncthreads_and(p):
    return cuda.syncthreads_and(p)


def syncthreads_or(p):
    return cuda.syncthreads_or(p)


def test_result_types_are_numbas():
    assert cuda_result_type(activemask) == "uint32"
    assert cuda_result_type(lanemask_lt) == "uint32"
    for vote in (all_sync, any_sync, eq_sync):
        for m, p in [("int32", "int32"), ("uint64", "bool"), ("int64", "uint8")]:
            assert cuda_result_type(vote, m, p) == "bool"
    assert cuda_result_type(ballot_sync, "uint32", "bool") == "int32"
    for shfl in (shfl_sync, shfl_up_sync, shfl_down_sync, shfl_xor_sync):
        for t in ("int32", "int64", "float32", "float64", "uint32", "uint64"):
            assert cuda_result_type(shfl, "int64", t, "int32") == t
    for t in ("int32", "int64", "float32", "float64", "uint8"):
        assert cuda_result_type(match_any_sync, "int64", t) == "int32"
        assert cuda_result_type(match_all_sync, "int64", t) == "(int32, bool)"
    for block_vote in (syncthreads_count, syncthreads_and, syncthreads_or):
        assert cuda_result_type(block_vote, "int64") == "int32"


@pytest.mark.parametrize(
    "fn, types, message",
    [
        (all_sync, ["float32", "int32"], r"cuda\.all_sync\(\): Mask type must be an integer"),
        (any_sync, ["bool", "int32"], r"cuda\.any_sync\(\): Mask type must be an integer"),
        (eq_sync, ["int32", "float64"], r"cuda\.eq_sync\(\): Predicate must be an integer or boolean"),
        (shfl_sync, ["int32", "int16", "int32"],
         r"cuda\.shfl_sync\(\) only supports 32- and 64-bit ints and floats \(int32, int64, uint32, uint64, "
         r"float32, float64\), got int16"),
        (shfl_xor_sync, ["int32", "complex64", "int32"], r"only supports 32- and 64-bit ints and floats"),
        (shfl_up_sync, ["int32", "int32", "float32"], r"cuda\.shfl_up_sync\(\) takes an integer lane"),
        (match_any_sync, ["int32", "complex128"], r"cuda\.match_any_sync\(\) matches int32, int64, float32"),
        (syncthreads_count, ["float32"], r"cuda\.syncthreads_count\(\) takes an integer predicate"),
    ],
)
def test_wrong_argument_types_are_refused_with_numbas_words(fn, types, message):
    """On every dialect: the argument's error comes before OpenCL's refusal of warps."""
    for dialect in ("cuda", "opencl"):
        with pytest.raises(JitError, match=message):
            ember._ember.jit_device_source(program_json(fn), types, dialect)


@cuda.jit
def warp_ops(x, y, f, out, masks):
    i = cuda.grid(1)
    m = cuda.activemask()
    a = cuda.all_sync(FULL, x[i] > 0)
    b = cuda.any_sync(m, x[i])
    c = cuda.eq_sync(m, True)
    d = cuda.ballot_sync(FULL, x[i] & 1)
    s1 = cuda.shfl_sync(FULL, x[i], 3)
    s2 = cuda.shfl_up_sync(FULL, y[i], 1)
    s3 = cuda.shfl_down_sync(FULL, f[i], 2)
    s4 = cuda.shfl_xor_sync(FULL, i, 16)
    ma = cuda.match_any_sync(FULL, x[i])
    mm, p = cuda.match_all_sync(FULL, f[i])
    n = cuda.syncthreads_count(x[i] > 2) + cuda.syncthreads_and(x[i]) + cuda.syncthreads_or(x[i])
    out[i] = a + b + c + d + s1 + s2 + s3 + s4 + ma + mm + p + n + cuda.lanemask_lt()
    masks[i] = m


WARP_TYPES = [
    ["int32[::1]", "int64[::1]", "float64[::1]", "float64[::1]", "uint32[::1]"],
    ["int64[::1]", "uint64[::1]", "float32[::1]", "float64[::1]", "uint32[::1]"],
    ["uint32[::1]", "uint32[::1]", "float32[::1]", "float64[::1]", "uint32[::1]"],
]


def test_the_cuda_c_compiles_through_nvrtc():
    from conftest import nvrtc_or_skip

    nvrtc_or_skip()
    for types in WARP_TYPES:
        src = kernel_source(warp_ops, types, "cuda")
        name = src.rsplit('extern "C" __global__ void ', 1)[1].split("(", 1)[0]
        assert ember._ember.nvrtc_compile(src, name, "sm_90", [])[:4] == b"\x7fELF", types
        for call in ("__shfl_up_sync", "__ballot_sync", "__match_any_sync", "__uni_sync", "__syncthreads_count"):
            assert call in src


@pytest.mark.parametrize(
    "fn, types",
    [
        (activemask, []),
        (lanemask_lt, []),
        (all_sync, ["int32", "int32"]),
        (any_sync, ["int32", "int32"]),
        (eq_sync, ["int32", "bool"]),
        (ballot_sync, ["int32", "bool"]),
        (shfl_sync, ["int32", "float32", "int32"]),
        (shfl_up_sync, ["int32", "int64", "int32"]),
        (shfl_down_sync, ["int32", "int32", "int32"]),
        (shfl_xor_sync, ["int32", "float64", "int32"]),
        (match_any_sync, ["int32", "int32"]),
        (match_all_sync, ["int32", "int64"]),
    ],
)
def test_opencl_refuses_warp_intrinsics_at_compile_time(fn, types):
    name = fn.__name__
    with pytest.raises(JitError, match=rf"cuda\.{name}\(\) needs CUDA's 32-lane warps, which OpenCL kernels do not "
                                       r"have: run the kernel on a CUDA device"):
        ember._ember.jit_device_source(program_json(fn), types, "opencl")


@cuda.jit
def block_votes(x, out):
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    for rep in range(2):  # the same call site again: its counter starts afresh
        v = x[i] if rep == 0 else x[i] + 1
        out[0, rep, i] = cuda.syncthreads_count(v)
        out[1, rep, i] = cuda.syncthreads_and(v)
        out[2, rep, i] = cuda.syncthreads_or(v)
    # int64 predicates truncate to int32 (Numba's signature): 1 << 32 counts as false.
    out[3, 0, i] = cuda.syncthreads_count(np.int64(1) << 32 if t % 2 == 0 else np.int64(1))


@pytest.mark.parametrize("case", ["random", "zeros", "ones"])
def test_block_votes_count_the_block(rng, case):
    """On every device: CUDA's instructions, or a counter in local memory (OpenCL)."""
    tpb, nb = 96, 3
    n = tpb * nb
    x = {"random": rng.integers(-1, 2, n), "zeros": np.zeros(n, np.int64),
         "ones": np.ones(n, np.int64)}[case]
    out = ember.zeros((4, 2, n), np.int32)
    block_votes[nb, tpb](ember.asarray(x), out)
    got = out.get()
    for rep, v in enumerate([x, x + 1]):
        blocks = v.reshape(nb, tpb)
        np.testing.assert_array_equal(got[0, rep], np.repeat(np.count_nonzero(blocks, axis=1), tpb))
        np.testing.assert_array_equal(got[1, rep], np.repeat(blocks.all(axis=1), tpb))
        np.testing.assert_array_equal(got[2, rep], np.repeat(blocks.any(axis=1), tpb))
    np.testing.assert_array_equal(got[3, 0], tpb // 2)


def test_opencl_block_votes_only_in_the_kernel():
    with pytest.raises(JitError, match=r"cuda\.syncthreads_or\(\) is available in the kernel itself on OpenCL"):
        ember._ember.jit_device_source(program_json(syncthreads_or), ["int32"], "opencl")


def test_block_vote_cuda_c_compiles_through_nvrtc():
    from conftest import nvrtc_or_skip

    nvrtc_or_skip()
    src = kernel_source(block_votes, ["int64[::1]", "int32[:, :, ::1]"], "cuda")
    name = src.rsplit('extern "C" __global__ void ', 1)[1].split("(", 1)[0]
    assert ember._ember.nvrtc_compile(src, name, "sm_90", [])[:4] == b"\x7fELF"


@cuda.jit
def shuffled(out, delta):
    i = cuda.grid(1)
    out[i] = cuda.shfl_down_sync(FULL, i, delta)


def test_a_launch_without_cuda_warps_fails_before_running():
    if ember.backend() == "cuda":
        pytest.skip("this device has warps")
    out = ember.zeros(32, np.int64)
    with pytest.raises(JitError, match="needs CUDA's 32-lane warps"):
        shuffled[1, 32](out, 4)


# ---- on a CUDA device: numba-cuda's test_warp_ops values ----------------------------------------


@cuda.jit
def shuffles(a, b, c, d, lane, delta, xor):
    i = cuda.grid(1)
    a[i] = cuda.shfl_sync(FULL, a[i], lane)
    b[i] = cuda.shfl_up_sync(FULL, b[i], delta)
    c[i] = cuda.shfl_down_sync(FULL, c[i], delta)
    d[i] = cuda.shfl_xor_sync(FULL, d[i], xor)


@pytest.mark.gpu
@pytest.mark.parametrize("dt", [np.int32, np.int64, np.float32, np.float64, np.uint32, np.uint64])
def test_shuffles_move_values_between_lanes(rng, dt):
    n = 64
    base = (rng.standard_normal(n) * 1e6).astype(dt) if np.dtype(dt).kind == "f" else \
        rng.integers(0, np.iinfo(dt).max, n, dtype=dt, endpoint=True)
    arrays = [ember.asarray(base.copy()) for _ in range(4)]
    shuffles[2, 32](*arrays, 5, 3, 17)
    lanes = np.arange(n) % 32
    warp = np.arange(n) - lanes
    np.testing.assert_array_equal(arrays[0].get(), base[warp + 5])
    np.testing.assert_array_equal(arrays[1].get(), base[np.where(lanes >= 3, np.arange(n) - 3, np.arange(n))])
    np.testing.assert_array_equal(arrays[2].get(), base[np.where(lanes < 29, np.arange(n) + 3, np.arange(n))])
    np.testing.assert_array_equal(arrays[3].get(), base[warp + (lanes ^ 17)])


@cuda.jit
def votes(x, out):
    i = cuda.grid(1)
    out[0, i] = cuda.all_sync(FULL, x[i])
    out[1, i] = cuda.any_sync(FULL, x[i])
    out[2, i] = cuda.eq_sync(FULL, x[i])
    out[3, i] = cuda.ballot_sync(FULL, x[i])
    out[4, i] = cuda.match_any_sync(FULL, x[i])
    m, p = cuda.match_all_sync(FULL, x[i])
    out[5, i] = m if p else 0
    out[6, i] = cuda.lanemask_lt()
    out[7, i] = cuda.syncthreads_count(x[i])
    out[8, i] = cuda.syncthreads_and(x[i])
    out[9, i] = cuda.syncthreads_or(x[i])


def vote_reference(x):
    n = x.size
    want = np.zeros((10, n), np.int64)
    for w in range(0, n, 32):
        v = x[w : w + 32]
        bits = sum(1 << k for k in range(32) if v[k])
        want[0, w : w + 32] = v.all()
        want[1, w : w + 32] = v.any()
        want[2, w : w + 32] = v.all() or not v.any()
        want[3, w : w + 32] = np.int64(np.uint32(bits).view(np.int32))
        for k in range(32):
            want[4, w + k] = np.uint32(sum(1 << j for j in range(32) if v[j] == v[k])).view(np.int32)
        want[5, w : w + 32] = -1 if (v == v[0]).all() else 0
        want[6, w : w + 32] = [(1 << k) - 1 for k in range(32)]
    want[7] = np.count_nonzero(x)
    want[8] = x.all()
    want[9] = x.any()
    return want


@pytest.mark.gpu
@pytest.mark.parametrize("case", ["random", "zeros", "ones"])
def test_votes_and_matches(rng, case):
    n = 64
    x = {"random": rng.integers(0, 3, n), "zeros": np.zeros(n, np.int64), "ones": np.ones(n, np.int64)}[case]
    out = ember.zeros((10, n), np.int64)
    votes[1, n](ember.asarray(x), out)
    np.testing.assert_array_equal(out.get(), vote_reference(x))


@cuda.jit
def masks(out):
    i = cuda.threadIdx.x
    if i % 2 == 0:
        out[0, i] = cuda.activemask()
    else:
        out[0, i] = cuda.activemask()
    if i % 4 == 0:
        out[1, i] = cuda.ballot_sync(0x11111111, True)
    elif i % 4 == 1:
        out[1, i] = cuda.ballot_sync(0x22222222, True)
    elif i % 4 == 2:
        out[1, i] = cuda.ballot_sync(0x44444444, True)
    else:
        out[1, i] = cuda.ballot_sync(0x88888888, True)


@pytest.mark.gpu
def test_divergent_lanes_see_their_own_masks():
    out = ember.zeros((2, 32), np.uint32)
    masks[1, 32](out)
    got = out.get()
    np.testing.assert_array_equal(got[0], np.tile([0x55555555, 0xAAAAAAAA], 16))
    np.testing.assert_array_equal(got[1], np.tile([0x11111111, 0x22222222, 0x44444444, 0x88888888], 8))


def test_forced_coarsening_leaves_block_votes_alone_and_copies_bit_operations(rng):
    """Block votes are `Never` in the registry (a coarsened copy would vote for its neighbour);
    bit operations are `Anywhere` (pure) and run once per logical thread."""
    from test_intrinsics_bits import bit_ops, random_ints, reference

    before = ember._ember.jit_coarsening("x2")
    try:
        tpb, nb = 64, 2
        x = np.ones(tpb * nb, np.int64)
        x[::3] = 0
        out = ember.zeros((4, 2, tpb * nb), np.int32)
        block_votes[nb, tpb](ember.asarray(x), out)
        np.testing.assert_array_equal(out.get()[0, 0], np.repeat(np.count_nonzero(x.reshape(nb, tpb), axis=1), tpb))
        assert all("coarsened" not in key for key in block_votes.inspect_c())

        v = random_ints(rng, np.int32, 256)
        outs = [ember.zeros(256, np.int32), ember.zeros(256, np.int32), ember.zeros(256, np.uint32),
                ember.zeros(256, np.uint32), ember.zeros(256, np.int32)]
        bit_ops[4, 64](ember.asarray(v), *outs)
        popc, clz, ffs, brev = reference(v, 32)
        for got, want in zip(outs, [popc, clz, ffs, brev, popc], strict=True):
            np.testing.assert_array_equal(got.get(), np.array(want).astype(got.dtype))
        assert any("coarsened x2" in key for key in bit_ops.inspect_c())
    finally:
        ember._ember.jit_coarsening(before)
