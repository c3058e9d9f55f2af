"""ember.random: Philox4x32-10 inside the kernels, checked bit for bit against a NumPy
reference written here, plus distributions, determinism, integer ranges, dtypes and shapes.

Kernels are few on purpose (each new one costs about a second to build on PoCL): float32 and
float64 uniforms and normals, int64 and int32 integers.
"""

import math
import os

import ember
import numpy as np
import pytest
from conftest import opencl_arrays

native = ember._ember
rnd = ember.random

# --- an independent Philox4x32-10 in NumPy (uint64 arithmetic on 32-bit values) -----------

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)
_MASK = np.uint64(0xFFFFFFFF)
_32 = np.uint64(32)


def philox(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10 of counters (c0, c1, c2, c3) under key (k0, k1), element by element."""
    c0, c1, c2, c3 = (np.asarray(c, dtype=np.uint64) & _MASK for c in (c0, c1, c2, c3))
    k0, k1 = np.uint64(k0), np.uint64(k1)
    for r in range(10):
        if r:
            k0, k1 = (k0 + _W0) & _MASK, (k1 + _W1) & _MASK
        p0, p1 = _M0 * c0, _M1 * c2
        c0, c1, c2, c3 = (p1 >> _32) ^ c1 ^ k0, p1 & _MASK, (p0 >> _32) ^ c3 ^ k1, p0 & _MASK
    return np.stack([c0, c1, c2, c3], axis=-1)


def words(seed, offset, blocks):
    """The (blocks, 4) words ember's draw number `offset` uses: counter (block, offset), key seed."""
    b = np.arange(blocks, dtype=np.uint64)
    return philox(b, b >> _32, offset & 0xFFFFFFFF, offset >> 32, seed & 0xFFFFFFFF, seed >> 32)


def ref_uniform32(seed, offset, n):
    w = words(seed, offset, -(-n // 4)).ravel()[:n]
    return ((w >> np.uint64(8)).astype(np.float64) * 2.0**-24).astype(np.float32)


def _pairs64(seed, offset, n):
    w = words(seed, offset, -(-n // 2)).reshape(-1, 2)[:n]
    return (w[:, 0] << _32) | w[:, 1]


def ref_uniform64(seed, offset, n):
    return (_pairs64(seed, offset, n) >> np.uint64(11)).astype(np.float64) * 2.0**-53


def ref_integers(seed, offset, n, low, high):
    r = high - low
    return np.array([low + (int(x) * r >> 64) for x in _pairs64(seed, offset, n)], dtype=object)


def ref_normal64(seed, offset, n):
    w = words(seed, offset, -(-n // 2))
    x = (w[:, 0::2] << _32) | w[:, 1::2]
    u = (x >> np.uint64(11)).astype(np.float64) * 2.0**-53
    rad = np.sqrt(-2.0 * np.log(u[:, 0] + 2.0**-53))
    return np.stack([rad * np.cos(2 * np.pi * u[:, 1]), rad * np.sin(2 * np.pi * u[:, 1])], axis=-1).ravel()[:n]


def test_reference_matches_random123_known_answers():
    got = philox([0x243F6A88], [0x85A308D3], [0x13198A2E], [0x03707344], 0xA4093822, 0x299F31D0)
    assert [int(v) for v in got[0]] == [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]
    got = philox([0xFFFFFFFF], [0xFFFFFFFF], [0xFFFFFFFF], [0xFFFFFFFF], 0xFFFFFFFF, 0xFFFFFFFF)
    assert [int(v) for v in got[0]] == [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]


# --- bit-exact against the reference ---------------------------------------------------------

SEEDS = [0, 20261121, 0xFEDCBA9876543210]


@pytest.mark.parametrize("seed", SEEDS)
def test_float32_uniforms_are_philox_bit_for_bit(seed):
    rs = rnd.RandomState(seed)
    for offset, n in enumerate([1, 7, 4096 + 3, 1000]):
        got = rs.random_sample(n, dtype=np.float32).get()
        np.testing.assert_array_equal(got, ref_uniform32(seed, offset, n))


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_float64_uniforms_are_philox_bit_for_bit(seed):
    rs = rnd.RandomState(seed)
    first = rs.rand(5).get()
    np.testing.assert_array_equal(first, ref_uniform64(seed, 0, 5))
    # After a first call: the next draw number, and sizes that are no multiple of a block.
    got = rs.rand(3, 11).get()
    np.testing.assert_array_equal(got.ravel(), ref_uniform64(seed, 1, 33))


def test_uniforms_do_not_depend_on_the_size_drawn():
    # An element's value is a function of (seed, draw, index) only.
    a = rnd.RandomState(9).rand(10_001, dtype=np.float32).get()
    b = rnd.RandomState(9).rand(6, dtype=np.float32).get()
    np.testing.assert_array_equal(a[:6], b)


def test_integers_are_philox_bit_for_bit_over_the_whole_int64_range():
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    rs = rnd.RandomState(77)
    got = rs.randint(lo, hi, size=9).get()
    assert got.dtype == np.int64
    assert got.tolist() == ref_integers(77, 0, 9, int(lo), int(hi)).tolist()
    got = rs.randint(-1000, 3, size=7).get()
    assert got.tolist() == ref_integers(77, 1, 7, -1000, 3).tolist()


def test_normals_are_box_muller_on_philox_uniforms():
    got = rnd.RandomState(5).randn(1001).get()
    np.testing.assert_allclose(got, ref_normal64(5, 0, 1001), rtol=1e-12, atol=1e-12)


# --- distributions ---------------------------------------------------------------------------

N = 1_000_000


def chi_square(counts, expected):
    return float(((counts - expected) ** 2 / expected).sum())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uniform_distribution(dtype):
    x = rnd.RandomState(11).random_sample(N, dtype=dtype).get()
    assert x.dtype == dtype and x.min() >= 0 and x.max() < 1
    assert abs(x.mean() - 0.5) < 2e-3 and abs(x.var() - 1 / 12) < 1e-3
    counts, _ = np.histogram(x, bins=100, range=(0, 1))
    # 99 degrees of freedom: mean 99, sd 14; 160 is beyond the 0.9999 quantile.
    assert chi_square(counts, N / 100) < 160


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_distribution_against_its_cdf(dtype):
    x = rnd.RandomState(12).standard_normal(N, dtype=dtype).get().astype(np.float64)
    assert abs(x.mean()) < 5e-3 and abs(x.var() - 1) < 1e-2
    edges = np.concatenate([[-np.inf], np.linspace(-4, 4, 41), [np.inf]])
    cdf = np.array([0.5 * (1 + math.erf(e / math.sqrt(2))) for e in edges])
    counts, _ = np.histogram(x, bins=edges)
    expected = np.diff(cdf) * N
    keep = expected > 20
    assert chi_square(counts[keep], expected[keep]) < 2 * keep.sum()
    # Kolmogorov-Smirnov on the bucket edges.
    assert np.max(np.abs(np.cumsum(counts)[:-1] / N - cdf[1:-1])) < 2 / math.sqrt(N)


def test_normal_and_uniform_parameters():
    rs = rnd.RandomState(13)
    x = rs.normal(3.0, 0.5, size=N, dtype=np.float32).get()
    assert x.dtype == np.float32 and abs(x.mean() - 3) < 5e-3 and abs(x.std() - 0.5) < 5e-3
    u = rs.uniform(-2.0, 6.0, size=N).get()
    assert u.min() >= -2 and u.max() < 6 and abs(u.mean() - 2) < 0.02
    # loc=0, scale=1 and low=0, high=1 are the raw values exactly.
    np.testing.assert_array_equal(rnd.RandomState(3).normal(0.0, 1.0, 9).get(), rnd.RandomState(3).randn(9).get())
    np.testing.assert_array_equal(rnd.RandomState(3).uniform(size=9).get(), ref_uniform64(3, 0, 9))


def test_array_parameters_broadcast():
    rs = rnd.RandomState(14)
    low = np.array([0.0, 10.0, 100.0])
    got = rs.uniform(low, low + 1, size=(4, 3)).get()
    assert got.shape == (4, 3) and np.all((got >= low) & (got < low + 1))
    with pytest.raises(ValueError, match="broadcast"):
        rs.uniform(low, 1.0, size=(2,))


def test_randint_counts_are_uniform():
    x = rnd.RandomState(15).randint(-3, 4, size=N).get()
    assert x.min() == -3 and x.max() == 3
    counts = np.bincount(x + 3)
    assert chi_square(counts, N / 7) < 30  # 6 degrees of freedom


# --- determinism -----------------------------------------------------------------------------


def test_same_seed_same_numbers_and_successive_calls_differ():
    a, b = rnd.RandomState(123), rnd.RandomState(123)
    first = a.rand(64).get()
    np.testing.assert_array_equal(first, b.rand(64).get())
    assert not np.array_equal(first, a.rand(64).get())
    assert not np.array_equal(first, rnd.RandomState(124).rand(64).get())
    a.seed(123)
    np.testing.assert_array_equal(first, a.rand(64).get())


def test_global_seed_resets_the_module_functions():
    rnd.seed(2026)
    first = [rnd.rand(4).get(), rnd.randn(3).get(), rnd.randint(10, size=5).get()]
    rnd.seed(2026)
    again = [rnd.rand(4).get(), rnd.randn(3).get(), rnd.randint(10, size=5).get()]
    for x, y in zip(first, again, strict=True):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(first[0], ref_uniform64(2026, 0, 4))
    assert rnd.get_random_state() is rnd.get_random_state()


def test_unseeded_generators_differ():
    assert not np.array_equal(rnd.RandomState().rand(8).get(), rnd.RandomState().rand(8).get())


def test_seeds_numpy_and_cupy_accept():
    ref = rnd.RandomState(7).rand(3).get()
    np.testing.assert_array_equal(rnd.RandomState(np.uint64(7)).rand(3).get(), ref)
    np.testing.assert_array_equal(rnd.RandomState(np.array(7)).rand(3).get(), ref)
    array_seeded = rnd.RandomState(np.array([1, 2, 3])).rand(3).get()
    np.testing.assert_array_equal(rnd.RandomState(np.array([1, 2, 3])).rand(3).get(), array_seeded)
    with pytest.raises(ValueError, match="between 0 and 2\\*\\*64"):
        rnd.RandomState(-1)
    with pytest.raises(ValueError):
        rnd.seed(2**64)
    with pytest.raises(TypeError):
        rnd.RandomState(1.5)


# --- integers --------------------------------------------------------------------------------


def test_randint_bounds_like_numpy():
    rs = rnd.RandomState(21)
    x = rs.randint(5, size=2000).get()
    assert x.dtype == np.int64 and set(np.unique(x).tolist()) == {0, 1, 2, 3, 4}
    x = rs.randint(-7, -5, size=500).get()
    assert set(np.unique(x).tolist()) == {-7, -6}
    assert rs.randint(4, 5, size=3).get().tolist() == [4, 4, 4]
    big = rs.randint(-(2**62), 2**62, size=10_000).get()
    assert big.min() < -(2**61) and big.max() > 2**61
    full = rs.randint(np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=1000).get()
    assert (full < 0).any() and (full > 2**62).any()


def test_randint_dtypes_and_their_bounds():
    rs = rnd.RandomState(22)
    x = rs.randint(-(2**31), 2**31, size=4000, dtype=np.int32).get()
    assert x.dtype == np.int32 and x.min() < -(2**30) and x.max() > 2**30
    with pytest.raises(ValueError, match="high is out of bounds for int32 \\(high must be at most 2147483648, got"):
        rs.randint(0, 2**31 + 1, size=3, dtype=np.int32)
    with pytest.raises(ValueError, match="low is out of bounds for int32 \\(low must be at least -2147483648"):
        rs.randint(-(2**31) - 1, 0, dtype="int32")
    with pytest.raises(TypeError, match="randint"):
        rs.randint(0, 3, dtype=np.float32)


@pytest.mark.parametrize("low, high", [(5, 5), (5, 2), (0, None), (-3, None)])
def test_randint_empty_range_is_a_value_error_like_numpy(low, high):
    with pytest.raises(ValueError, match="low >= high"):
        rnd.randint(low, high, size=3)
    with pytest.raises(ValueError):
        np.random.randint(low, high, size=3)


def test_random_integers_includes_high():
    x = rnd.RandomState(23).random_integers(1, 3, size=600).get()
    assert set(np.unique(x).tolist()) == {1, 2, 3}


# --- dtypes and shapes -----------------------------------------------------------------------


def test_float_dtypes_like_cupy():
    assert rnd.rand(3).dtype == np.float64 and rnd.randn(3).dtype == np.float64
    assert rnd.rand(3, dtype=np.float32).dtype == np.float32
    assert rnd.randn(3, dtype="float32").dtype == np.float32
    assert rnd.uniform(size=2, dtype=np.float32).dtype == np.float32
    assert rnd.normal(size=2, dtype=np.float32).dtype == np.float32
    assert rnd.random_sample(2, dtype=np.float32).dtype == np.float32
    for bad in (np.int32, np.float16, np.complex64):
        with pytest.raises(TypeError, match="float32 and float64"):
            rnd.rand(2, dtype=bad)
    with pytest.raises(ValueError, match="scale"):
        rnd.normal(0.0, -1.0, size=2)


@pytest.mark.parametrize(
    "call, shape",
    [
        (lambda: rnd.rand(), ()),
        (lambda: rnd.rand(2, 3), (2, 3)),
        (lambda: rnd.random_sample(), ()),
        (lambda: rnd.random(5), (5,)),
        (lambda: rnd.random_sample((2, 0)), (2, 0)),
        (lambda: rnd.randn(4, 1, 2), (4, 1, 2)),
        (lambda: rnd.uniform(), ()),
        (lambda: rnd.normal(size=(3,)), (3,)),
        (lambda: rnd.randint(3), ()),
        (lambda: rnd.randint(3, size=4), (4,)),
        (lambda: rnd.randint(0, 3, size=(2, 2)), (2, 2)),
        (lambda: rnd.default_rng(1).random(), ()),
        (lambda: rnd.default_rng(1).integers(3, size=(5, 1)), (5, 1)),
    ],
)
def test_shapes_like_cupy(call, shape):
    # CuPy returns a 0-d array, not a Python scalar, when no size is given.
    got = call()
    assert isinstance(got, ember.ndarray) and got.shape == shape


def test_size_zero_draws_nothing_but_still_advances():
    rs = rnd.RandomState(31)
    assert rs.rand(0).get().shape == (0,)
    np.testing.assert_array_equal(rs.rand(2).get(), ref_uniform64(31, 1, 2))


# --- default_rng -----------------------------------------------------------------------------


def test_default_rng_generator():
    g = rnd.default_rng(41)
    assert rnd.default_rng(g) is g
    np.testing.assert_array_equal(g.random(6, dtype=np.float32).get(), ref_uniform32(41, 0, 6))
    z = g.standard_normal(10)
    assert z.dtype == np.float64 and z.shape == (10,)
    x = g.integers(0, 1, size=400, endpoint=True).get()
    assert x.dtype == np.int64 and set(np.unique(x).tolist()) == {0, 1}
    assert g.integers(5, size=3, dtype=np.int32).dtype == np.int32
    assert g.normal(1.0, 2.0, size=3).shape == (3,)
    assert g.uniform(1.0, 2.0, size=3, dtype=np.float32).dtype == np.float32
    out = ember.empty(5)
    assert g.random(out=out) is out
    np.testing.assert_array_equal(out.get(), ref_uniform64(41, 6, 5))
    with pytest.raises(TypeError, match="wrong type"):
        g.random(out=ember.empty(5, dtype=np.float32))
    same = rnd.default_rng(rnd.Philox(41))
    np.testing.assert_array_equal(same.random(6, dtype=np.float32).get(), ref_uniform32(41, 0, 6))


# --- generated source ------------------------------------------------------------------------


def test_cuda_sources_compile_to_sm90_cubin():
    try:
        native.nvrtc_version()
    except ember.BackendUnavailableError as e:
        if os.environ.get("EMBER_REQUIRE_NVRTC") == "1":
            raise
        pytest.skip(f"NVRTC not installed: {e}")
    for dist, dtypes in [("uniform", ["float32", "float64"]), ("normal", ["float32", "float64"]),
                         ("exponential", ["float32", "float64"]),
                         ("integers", ["int64", "int8", "uint64", "bool"])]:
        for dtype in dtypes:
            for vector in (True, False):
                src = native.random_source(dist, dtype, vector, "cuda")
                name = src.split("__global__ void ", 1)[1].split("(", 1)[0]
                # NVRTC's minimal mode is what the runtime tries first: no second compile.
                assert native.nvrtc_compile(src, name, "sm_90", ["-minimal"])[:4] == b"\x7fELF", name


# --- on the GPU ------------------------------------------------------------------------------


@pytest.mark.gpu
def test_cuda_gives_the_reference_float32_uniforms_and_opencl_the_same_numbers(tmp_path):
    seed, n = 0x5EED, (1 << 20) + 3
    rs = rnd.RandomState(seed)
    cuda = rs.rand(n, dtype=np.float32).get()
    np.testing.assert_array_equal(cuda, ref_uniform32(seed, 0, n))
    normals = rs.randn(1000, dtype=np.float32).get()
    other = opencl_arrays(
        tmp_path,
        "rs = ember.random.RandomState(0x5EED)",
        {"u": f"rs.rand({n}, dtype=np.float32)", "z": "rs.randn(1000, dtype=np.float32)"},
    )
    np.testing.assert_array_equal(other["u"], cuda)
    np.testing.assert_allclose(other["z"], normals, rtol=1e-5, atol=1e-5)


def test_random_raw_is_the_streams_64_bit_words():
    bg = rnd.Philox(2024)
    offset = bg.offset
    raw = bg.random_raw(37)
    assert raw.dtype == np.uint64 and raw.shape == (37,)
    np.testing.assert_array_equal(raw.get(), _pairs64(2024, offset, 37))
    assert bg.offset == offset + 1  # the draw advanced the stream
    assert isinstance(bg.random_raw(), int) and bg.random_raw((2, 3)).shape == (2, 3)
    assert bg.random_raw(5, output=False) is None
    # Same seed, same words; a fresh entropy seed, others (CuPy's check_seed).
    assert (rnd.Philox(9).random_raw(8) == rnd.Philox(9).random_raw(8)).all()
    assert not (rnd.Philox(9).random_raw(8) == rnd.Philox().random_raw(8)).all()
