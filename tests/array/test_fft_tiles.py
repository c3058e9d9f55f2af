"""ember's tile passes (large radices in local memory) against numpy.fft: whole rows a group,
long rows in two or three passes with the four-step twiddle fused, and columns of non-last axes
read in place (fft2, fftn, rfft2) with no transposed copies. CPU devices take the radix passes
(columns read in place too) unless asked (``shared_rows``, or ``EMBER_FFT_TILES``).
On CUDA the transforms run inside ``use_ember_passes`` so that these kernels, not cuFFT, are
checked.

Errors are relative to the largest value of the reference: 1e-12 in double precision, 2e-5 in
single (the FFT's own error grows with the size, not elementwise)."""

import ember
import numpy as np
import pytest
from conftest import run_python

SEED = 20261127


def close(got, want, dtype):
    got = got.get() if isinstance(got, ember.ndarray) else got
    assert got.dtype == np.dtype(dtype) and got.shape == want.shape
    tol = 1e-12 if np.dtype(dtype) in (np.complex128, np.float64) else 2e-5
    assert np.max(np.abs(got - want), initial=0.0) <= tol * np.max(np.abs(want))


def signal(shape, dtype, seed=SEED):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


@pytest.fixture(autouse=True)
def ember_passes():
    with ember.fft.config.use_ember_passes():
        yield


def strided(x, axis, inverse, shared_rows=True):
    """One native tile plan over ``x``'s ``axis``: (before, n, after) blocks, unnormalized."""
    shape = x.shape
    n, batch, inner = shape[axis], int(np.prod(shape[:axis])), int(np.prod(shape[axis + 1:]))
    plan = ember._ember.FftPlan.passes(0, n, batch, x.dtype == np.complex128, shared_rows, inner)
    out = ember.empty(shape, dtype=x.dtype)
    plan.execute(ember.asarray(x)._a, out._a, inverse)
    return out, plan


def reference(x, axis, inverse):
    return np.fft.ifft(x, axis=axis) * x.shape[axis] if inverse else np.fft.fft(x, axis=axis)


@pytest.mark.parametrize("n, dtype", [(2, np.complex64), (64, np.complex64), (343, np.complex64),
                                      (4096, np.complex64), (60, np.complex128), (2048, np.complex128)])
def test_rows_that_fit_take_one_tile_pass(n, dtype):
    x = signal((5, n), dtype)
    for inverse in (False, True):
        got, plan = strided(x, 1, inverse)
        close(got, reference(x, 1, inverse).astype(dtype), dtype)
        assert plan.work_bytes == 0  # one launch: no work area


@pytest.mark.parametrize("n, dtype", [(1 << 16, np.complex64), (2 * 3 * 5 * 7 * 8 * 9, np.complex128),
                                      (1 << 15, np.complex128)])
def test_long_rows_take_a_few_tile_passes(n, dtype):
    # Longer than a group's local memory: two or three passes, the four-step twiddle fused.
    x = signal((2, n), dtype)
    for inverse in (False, True):
        got, plan = strided(x, 1, inverse)
        close(got, reference(x, 1, inverse).astype(dtype), dtype)
        assert plan.work_bytes == x.nbytes


@pytest.mark.parametrize("shape, axis, dtype", [((64, 48), 0, np.complex64), ((3, 100, 17), 1, np.complex128),
                                                ((9, 5), 0, np.complex64), ((4096, 3), 0, np.complex64),
                                                ((2, 1000, 8), 1, np.complex128), ((7, 2, 2), 0, np.complex64)])
@pytest.mark.parametrize("tiles", [False, True])
def test_columns_transform_in_place(shape, axis, dtype, tiles):
    # Not the last axis, no transpose: tiles take adjacent columns a group (the radix passes
    # on CPU devices, unless asked).
    x = signal(shape, dtype)
    for inverse in (False, True):
        got, _ = strided(x, axis, inverse, shared_rows=tiles)
        close(got, reference(x, axis, inverse).astype(dtype), dtype)


def test_columns_of_lengths_the_passes_cannot_take_raise():
    for tiles in (False, True):
        with pytest.raises(ValueError, match="primes are 2, 3, 5 and 7, not 11"):
            ember._ember.FftPlan.passes(0, 11, 2, False, tiles, 3)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_fft2_and_fftn_read_their_columns_in_place(dtype):
    cache = ember.fft.config.get_plan_cache()
    cache.clear()
    x = signal((48, 40), dtype)
    close(ember.fft.fft2(ember.asarray(x)), np.fft.fft2(x).astype(dtype), dtype)
    plans = [node.plan for _, node in cache]
    assert any(type(p).__name__ == "_Columns" for plan in plans for p in getattr(plan, "_axes_plans", []))
    close(ember.fft.ifft2(ember.asarray(x), norm="ortho"), np.fft.ifft2(x, norm="ortho").astype(dtype), dtype)
    y = signal((6, 10, 12), dtype)
    for axes in [None, (0, 1), (1, 2), (0, 1, 2)]:
        close(ember.fft.fftn(ember.asarray(y), axes=axes), np.fft.fftn(y, axes=axes).astype(dtype), dtype)
        close(ember.fft.ifftn(ember.asarray(y), axes=axes), np.fft.ifftn(y, axes=axes).astype(dtype), dtype)
    # Fortran order, and an odd length (Bluestein) along a column axis beside a direct one.
    close(ember.fft.fft2(ember.asarray(np.asfortranarray(x))), np.fft.fft2(x).astype(dtype), dtype)
    z = signal((11, 8, 3), dtype)
    close(ember.fft.fftn(ember.asarray(z), axes=(0, 1)), np.fft.fftn(z, axes=(0, 1)).astype(dtype), dtype)
    cache.clear()


def test_real_nd_transforms_take_columns_too():
    r = signal((16, 24), np.float64)
    close(ember.fft.rfft2(ember.asarray(r)), np.fft.rfft2(r), np.complex128)
    spectrum = np.fft.rfft2(r)
    close(ember.fft.irfft2(ember.asarray(spectrum)), np.fft.irfft2(spectrum), np.float64)
    f = signal((30, 8, 10), np.float32)
    close(ember.fft.rfftn(ember.asarray(f)), np.fft.rfftn(f).astype(np.complex64), np.complex64)


_SMALL_TILES = """
import ember, numpy as np
rng = np.random.default_rng(5)
with ember.fft.config.use_ember_passes():
    for shape, dtype in [((3, 4096), np.complex64), ((2, 3 * 5 * 7 * 16), np.complex128), ((1, 1 << 14), np.complex64)]:
        x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
        for inverse, want in ((False, np.fft.fft(x)), (True, np.fft.ifft(x))):
            got = (ember.fft.ifft if inverse else ember.fft.fft)(ember.asarray(x)).get()
            tol = 2e-5 if dtype == np.complex64 else 1e-12
            assert np.max(np.abs(got - want)) <= tol * np.max(np.abs(want)), (shape, inverse)
    x = (rng.standard_normal((64, 128)) + 1j * rng.standard_normal((64, 128))).astype(np.complex64)
    got = ember.fft.fft2(ember.asarray(x)).get()
    assert np.max(np.abs(got - np.fft.fft2(x))) <= 2e-5 * np.max(np.abs(np.fft.fft2(x)))
    # Real transforms: a half-length complex transform, split or merged a pair k, h - k a thread.
    for shape, dtype in [((3, 8192), np.float32), ((2, 2 * 3 * 5 * 7 * 4), np.float64), ((1, 4098), np.float64)]:
        r = rng.standard_normal(shape).astype(dtype)
        want = np.fft.rfft(r)
        got = ember.fft.rfft(ember.asarray(r)).get()
        tol = 2e-5 if dtype == np.float32 else 1e-12
        assert np.max(np.abs(got - want)) <= tol * np.max(np.abs(want)), shape
        back = ember.fft.irfft(ember.asarray(want.astype(got.dtype)), n=shape[1]).get()
        assert np.max(np.abs(back - r)) <= tol * np.max(np.abs(r)), shape
    # Reals from an odd offset, seen as complex values: copied aligned first (GPUs fault).
    r = rng.standard_normal(4097).astype(np.float32)
    got = ember.fft.rfft(ember.asarray(r)[1:]).get()
    assert np.max(np.abs(got - np.fft.rfft(r[1:]))) <= 2e-5 * np.max(np.abs(np.fft.rfft(r[1:])))
print("ok")
"""


@pytest.mark.parametrize("tiles", ["2048,4,64", "2048,4,64,0", "32768,8,32,1,2048,64"])
def test_small_tiles_split_rows_into_more_passes_in_a_fresh_process(tiles):
    # 2 KiB of local memory and 4 lanes: 4096 values take two passes (64 x 64), 2^14 three,
    # groups of at most 64 threads; the direct form (default) and the staged one (0); groups
    # of 32 threads, several butterflies a thread in every local pass, a register bound (a
    # build option on NVIDIA's OpenCL only). EMBER_FFT_TILES also makes CPU devices take the
    # tiles for rows.
    done = run_python(_SMALL_TILES, {"EMBER_FFT_TILES": tiles}, timeout=600)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-2000:]


def test_a_bad_tiles_setting_is_a_value_error():
    # ember's passes even on CUDA (cuFFT never reads the setting).
    done = run_python("import ember, numpy as np\nwith ember.fft.config.use_ember_passes():\n"
                      "    ember.fft.fft2(ember.ones((4, 4), dtype=np.complex64))",
                      {"EMBER_FFT_TILES": "lots"})
    assert done.returncode != 0 and "EMBER_FFT_TILES" in done.stderr and "ValueError" in done.stderr
