"""ember.fft against numpy.fft: every length class (radix passes of 2, 3, 4, 5, 7, 8 and
Bluestein's algorithm for other primes), both precisions, norms, n/s cropping and padding,
axes, real and Hermitian transforms, the helpers, and NumPy's errors.

Errors are measured relative to the largest value of the reference (the FFT's own error
grows with the size, not elementwise)."""

import contextlib

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

RNG_SEED = 20261126
LENGTHS = [1, 2, 3, 5, 7, 8, 16, 60, 343, 1000, 4096, 11, 97, 2 * 3 * 5 * 7 * 11]


def close(got, want, dtype=np.complex128):
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    got = got.get() if isinstance(got, ember.ndarray) else got
    tol = 1e-12 if np.dtype(dtype) in (np.complex128, np.float64) else 2e-5
    top = max(np.max(np.abs(want)), 1e-300) if want.size else 1.0
    assert got.shape == want.shape
    assert np.max(np.abs(got - want), initial=0.0) <= tol * top


def signal(shape, dtype=np.complex128, seed=RNG_SEED):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if np.dtype(dtype).kind == "c" else 0)
    return x.astype(dtype)


@pytest.mark.parametrize("n", LENGTHS)
def test_complex_transforms_of_every_length_class(n):
    x = signal((3, n))
    close(ember.fft.fft(ember.asarray(x)), np.fft.fft(x))
    close(ember.fft.ifft(ember.asarray(x)), np.fft.ifft(x))


@pytest.mark.parametrize("n", [8, 60, 97, 4096])
def test_single_precision_stays_single(n):
    x = signal((2, n), np.complex64)
    got = ember.fft.fft(ember.asarray(x))
    assert got.dtype == np.complex64
    close(got, np.fft.fft(x).astype(np.complex64), np.complex64)
    r = signal((2, n), np.float32)
    close(ember.fft.rfft(ember.asarray(r)), np.fft.rfft(r).astype(np.complex64), np.complex64)
    ints = np.arange(12, dtype=np.int32)
    close(ember.fft.fft(ember.asarray(ints)), np.fft.fft(ints))


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_norms_lengths_and_axes(norm):
    x = signal((4, 6, 10))
    d = ember.asarray(x)
    for n, axis in [(None, -1), (7, 0), (16, 1), (3, -1)]:
        close(ember.fft.fft(d, n=n, axis=axis, norm=norm), np.fft.fft(x, n=n, axis=axis, norm=norm))
        close(ember.fft.ifft(d, n=n, axis=axis, norm=norm), np.fft.ifft(x, n=n, axis=axis, norm=norm))
    close(ember.fft.fftn(d, norm=norm), np.fft.fftn(x, norm=norm))
    close(ember.fft.ifftn(d, s=(5, 8), axes=(0, 2), norm=norm), np.fft.ifftn(x, s=(5, 8), axes=(0, 2), norm=norm))
    close(ember.fft.fft2(d, norm=norm), np.fft.fft2(x, norm=norm))
    close(ember.fft.ifft2(d, s=(3, 12), norm=norm), np.fft.ifft2(x, s=(3, 12), norm=norm))
    # A view (transposed, strided) transforms as its values do.
    close(ember.fft.fft(d[:, ::2, :].transpose(2, 0, 1), axis=1, norm=norm),
          np.fft.fft(x[:, ::2, :].transpose(2, 0, 1), axis=1, norm=norm))


@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
@pytest.mark.parametrize("n", [1, 2, 9, 16, 97])
def test_real_and_hermitian_transforms(norm, n):
    r = signal((3, n), np.float64)
    d = ember.asarray(r)
    close(ember.fft.rfft(d, norm=norm), np.fft.rfft(r, norm=norm))
    spectrum = np.fft.rfft(r)
    for m in (None, n, n + 3):
        if m is None and spectrum.shape[-1] == 1:
            continue  # irfft of one value asks for 0 points: NumPy's error, checked below
        close(ember.fft.irfft(ember.asarray(spectrum), n=m, norm=norm), np.fft.irfft(spectrum, n=m, norm=norm))
        close(ember.fft.hfft(ember.asarray(spectrum), n=m, norm=norm), np.fft.hfft(spectrum, n=m, norm=norm))
    close(ember.fft.ihfft(d, norm=norm), np.fft.ihfft(r, norm=norm))


def test_multidimensional_real_transforms():
    r = signal((6, 5, 8), np.float64)
    d = ember.asarray(r)
    close(ember.fft.rfftn(d), np.fft.rfftn(r))
    close(ember.fft.rfft2(d, s=(4, 10)), np.fft.rfft2(r, s=(4, 10)))
    spectrum = np.fft.rfftn(r, axes=(0, 2))
    close(ember.fft.irfftn(ember.asarray(spectrum), s=(6, 8), axes=(0, 2)),
          np.fft.irfftn(spectrum, s=(6, 8), axes=(0, 2)))
    close(ember.fft.irfft2(ember.asarray(np.fft.rfft2(r))), np.fft.irfft2(np.fft.rfft2(r)))


def test_frequencies_and_shifts():
    for n, d in [(1, 1.0), (8, 0.1), (9, 2.0)]:
        np.testing.assert_array_equal(ember.fft.fftfreq(n, d).get(), np.fft.fftfreq(n, d))
        np.testing.assert_array_equal(ember.fft.rfftfreq(n, d).get(), np.fft.rfftfreq(n, d))
    x = np.arange(35.0).reshape(5, 7)
    for axes in (None, 0, (1,), (0, 1)):
        np.testing.assert_array_equal(ember.fft.fftshift(ember.asarray(x), axes).get(), np.fft.fftshift(x, axes))
        np.testing.assert_array_equal(ember.fft.ifftshift(ember.asarray(x), axes).get(), np.fft.ifftshift(x, axes))


def test_out_and_round_trips():
    x = signal((4, 97))
    d = ember.asarray(x)
    out = ember.empty((4, 97), dtype=np.complex128)
    assert ember.fft.fft(d, out=out) is out
    close(out, np.fft.fft(x))
    close(ember.fft.ifft(ember.fft.fft(d)), x)
    close(ember.fft.irfft(ember.fft.rfft(d.real), n=97), x.real)


@pytest.mark.parametrize("call, kind", [
    (lambda xp: xp.fft.fft(xp.ones(4), norm="x"), ValueError),
    (lambda xp: xp.fft.fft(xp.ones(4), n=0), ValueError),
    (lambda xp: xp.fft.irfft(xp.ones(1)), ValueError),
    (lambda xp: xp.fft.fft(xp.ones(4), axis=2), IndexError),
    (lambda xp: xp.fft.fft2(xp.ones((2, 2)), s=(2,), axes=(0, 1)), ValueError),
    (lambda xp: xp.fft.rfft(xp.ones(4, dtype=complex)), TypeError),
])
def test_bad_arguments_raise_numpys_errors(call, kind):
    with pytest.raises(kind) as want:
        call(np)
    with pytest.raises(kind) as got:
        call(ember)
    if kind is ValueError:
        assert str(got.value) == str(want.value)
    assert ember.fft.fft(ember.ones(4)).shape == (4,)  # and the process goes on


@settings(max_examples=25, deadline=None, derandomize=True)
@given(shape=st.lists(st.integers(1, 24), min_size=1, max_size=3), data=st.data())
def test_nd_transforms_of_random_shapes_and_axes(shape, data):
    x = signal(tuple(shape), seed=sum(shape))
    axes = data.draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape), unique=True))
    close(ember.fft.fftn(ember.asarray(x), axes=axes), np.fft.fftn(x, axes=axes))
    close(ember.fft.ifftn(ember.asarray(x), axes=axes, norm="ortho"), np.fft.ifftn(x, axes=axes, norm="ortho"))


@pytest.mark.parametrize("n, dtype", [(8, np.complex128), (60, np.complex128), (343, np.complex128),
                                      (4096, np.complex64), (2048, np.complex128)])
def test_the_shared_memory_row_kernel(n, dtype):
    # GPUs take it for lengths that fit 32 KiB; CPU devices the passes: asked for here.
    x = signal((5, n), dtype)
    for inverse, reference in ((False, np.fft.fft), (True, np.fft.ifft)):
        got = ember._ember.fft_c2c(ember.asarray(x)._a, inverse, True, True)
        want = reference(x) * (n if inverse else 1)
        close(ember._ndarray._wrap(got), want.astype(dtype), dtype)


def test_the_plan_cache_gives_its_memory_back():
    pool = ember.get_default_memory_pool()
    ember.fft.config.get_plan_cache().clear()
    before = pool.used_bytes()
    with ember.fft.config.use_ember_passes():
        ember.fft.fft(ember.asarray(signal((2, 97)))).get()  # tables and chirps kept
    assert pool.used_bytes() > before
    ember.fft.config.get_plan_cache().clear()
    assert pool.used_bytes() == before


def test_the_engine_is_named_and_the_passes_can_be_asked_for():
    assert ember.fft.config.engine() in ("cufft", "passes")
    with ember.fft.config.use_ember_passes():
        assert ember.fft.config.engine() == "passes"
        x = signal((2, 97))
        close(ember.fft.fft(ember.asarray(x)), np.fft.fft(x))
    assert ember.fft.config.engine() == ("cufft" if ember.backend() == "cuda" else "passes")


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 8, 60, 97, 4096, 3**7, 2 * 3 * 5 * 7 * 11])
def test_cufft_and_the_passes_agree_with_numpy_on_cuda(n):
    x = signal((3, n))
    assert ember.fft.config.engine() == "cufft"
    close(ember.fft.fft(ember.asarray(x)), np.fft.fft(x))
    with ember.fft.config.use_ember_passes():
        close(ember.fft.fft(ember.asarray(x)), np.fft.fft(x))
        close(ember.fft.ifft(ember.asarray(x)), np.fft.ifft(x))
    y = signal((3, n), np.complex64)
    close(ember.fft.ifft(ember.asarray(y)), np.fft.ifft(y).astype(np.complex64), np.complex64)


# ---- plans, the plan cache and CuPy's faces (ember.fft.Plan1d/PlanNd, ember.cuda.cufft) ----------
@pytest.fixture
def fresh_cache():
    cache = ember.fft.config.get_plan_cache()
    size, memsize = cache.get_size(), cache.get_memsize()
    cache.clear()
    yield cache
    cache.clear()
    cache.set_size(size)
    cache.set_memsize(memsize)


@pytest.mark.parametrize("n", [2, 16, 18, 97, 194, 1000])
def test_real_transforms_of_even_lengths_run_at_half_length(n):
    # Even lengths: one complex transform of n / 2 (194: of Bluestein's 97), both precisions.
    for dtype, ctype in ((np.float64, np.complex128), (np.float32, np.complex64)):
        r = signal((3, n), dtype)
        close(ember.fft.rfft(ember.asarray(r)), np.fft.rfft(r).astype(ctype), ctype)
        spectrum = np.fft.rfft(r).astype(ctype)
        spectrum[:, 0] += 0.5j  # imaginary parts of the first and last values are ignored
        spectrum[:, -1] -= 0.25j
        close(ember.fft.irfft(ember.asarray(spectrum), n=n), np.fft.irfft(spectrum, n=n).astype(dtype), dtype)


def test_a_plan_in_a_with_block_runs_the_transforms_and_mismatches_raise_cupys_errors():
    x = signal((4, 10))
    plan = ember.fft.get_fft_plan(ember.asarray(x), axes=(-1,))
    assert isinstance(plan, ember.cuda.cufft.Plan1d) and (plan.nx, plan.batch) == (10, 4)
    with plan:
        assert ember.cuda.cufft.get_current_plan() is plan
        close(ember.fft.fft(ember.asarray(x)), np.fft.fft(x))
    assert ember.cuda.cufft.get_current_plan() is None
    with pytest.raises(ValueError, match="Target array size does not match the plan."), plan:
        ember.fft.fft(ember.asarray(x), n=12)
    with pytest.raises(ValueError, match="Batch size does not match the plan."), plan:
        ember.fft.fft(ember.asarray(x[:2]))
    nd = ember.fft.get_fft_plan(ember.asarray(signal((2, 3, 4))))
    assert isinstance(nd, ember.cuda.cufft.PlanNd) and nd.shape == (2, 3, 4)
    with nd:
        close(ember.fft.fftn(ember.asarray(signal((2, 3, 4)))), np.fft.fftn(signal((2, 3, 4))))
    with pytest.raises(ValueError, match="The cuFFT plan and a.shape do not match"), nd:
        ember.fft.fftn(ember.asarray(signal((4, 6, 8))))


@pytest.mark.parametrize("shape, axes", [((6, 8), None), ((3, 5, 8), (1, 2)), ((4, 5, 6), (0, 1)),
                                         ((2, 3, 4, 5), (0, 1, 2))])
@pytest.mark.parametrize("order", ["C", "F"])
def test_nd_plans_over_leading_or_trailing_axes(shape, axes, order):
    x = signal(shape)
    d = ember.asarray(np.asfortranarray(x) if order == "F" else x)
    assert ember.fft._fft._default_fft_func(d, axes=axes) is ember.fft._fft._fftn
    got = ember.fft.fftn(d, axes=axes)
    close(got, np.fft.fftn(x, axes=axes))
    assert got.flags.c_contiguous == (order == "C")  # N-d plans keep the input's order
    close(ember.fft.ifftn(d, axes=axes, norm="ortho"), np.fft.ifftn(x, axes=axes, norm="ortho"))
    if order == "C":
        r = signal(shape, np.float32)
        close(ember.fft.rfftn(ember.asarray(r), axes=axes), np.fft.rfftn(r, axes=axes).astype(np.complex64),
              np.complex64)
        spectrum = np.fft.rfftn(x.real, axes=axes)
        close(ember.fft.irfftn(ember.asarray(spectrum), axes=axes), np.fft.irfftn(spectrum, axes=axes))


def test_nd_planning_can_be_switched_off_with_cupys_deprecation_warning():
    d = ember.ones((4, 4, 4))
    with pytest.warns(DeprecationWarning, match="enable_nd_planning"):
        assert ember.fft.config.enable_nd_planning is True
    try:
        with pytest.warns(DeprecationWarning, match="enable_nd_planning"):
            ember.fft.config.enable_nd_planning = False
        assert ember.fft._fft._default_fft_func(d, axes=(1, 2)) is ember.fft._fft._fft
    finally:
        with pytest.warns(DeprecationWarning, match="enable_nd_planning"):
            ember.fft.config.enable_nd_planning = True
    assert ember.fft._fft._default_fft_func(d, axes=(1, 2)) is ember.fft._fft._fftn
    assert ember.fft._fft._default_fft_func(d, axes=(0, 2)) is ember.fft._fft._fft  # not adjacent


def test_the_plan_cache_is_lru_bounded_by_count_and_bytes(fresh_cache):
    cache = fresh_cache
    cache.set_size(2)
    ember.fft.fft(ember.ones(10, dtype=np.complex64))
    first = next(iter(cache))[1].plan
    ember.fft.fft(ember.ones(10, dtype=np.complex64))
    assert cache.get_curr_size() == 1 and next(iter(cache))[1].plan is first  # reused
    ember.fft.fft(ember.ones(20, dtype=np.complex64))
    ember.fft.fftn(ember.ones((8, 8), dtype=np.complex64))
    assert cache.get_curr_size() == 2 and all(node.plan is not first for _, node in cache)
    assert isinstance(next(iter(cache))[1].plan, ember.cuda.cufft.PlanNd)  # most recent first
    assert cache.get_curr_memsize() == sum(node.plan.work_area.mem.size for _, node in cache)
    key, node = next(iter(cache))
    del cache[key]
    assert cache.get_curr_size() == 1 and str(node) not in repr(cache)
    cache.set_size(16)
    cache.clear()
    cache.set_memsize(1)  # no plan with a work area fits
    if ember.fft.config.engine() == "passes":
        # Longer than a GPU's shared-memory row kernel takes: the passes need a work area.
        with pytest.raises(RuntimeError, match="memsize is too large"):
            ember.fft.fft(ember.ones(1 << 13, dtype=np.complex64))
        assert cache.get_curr_size() == 0


def test_clearing_the_cache_gives_every_plans_memory_back(fresh_cache):
    pool = ember.get_default_memory_pool()
    x, r, y = ember.asarray(signal((4, 96))), ember.asarray(signal((4, 96), np.float64)), ember.asarray(signal((2, 97)))
    before = pool.used_bytes()
    ember.fft.fftn(x).get()
    ember.fft.rfft(r).get()
    ember.fft.fft(y).get()  # Bluestein's chirps live in the plan
    assert fresh_cache.get_curr_size() == 3  # an N-d plan, a real one, a Bluestein one
    fresh_cache.clear()
    assert pool.used_bytes() == before


def test_cupys_config_and_cufft_names():
    cfg = ember.fft.config
    assert cfg.get_plan_cache() is cfg.get_plan_cache()
    assert cfg.get_plan_cache_size() == cfg.get_plan_cache().get_size()
    assert cfg.use_multi_gpus is False and cfg.devices is None
    with pytest.raises(ValueError, match="at least 2 GPUs"):
        cfg.set_cufft_gpus([0])
    assert isinstance(ember.cuda.cufft.getVersion(), int)
    assert ember.cuda.cufft.CUFFT_FORWARD == -1 and ember.cuda.cufft.CUFFT_Z2Z == 0x69
    plan = ember.cuda.cufft.Plan1d(16, ember.cuda.cufft.CUFFT_D2Z, 3)
    r = signal((3, 16), np.float64)
    a = ember.asarray(r)
    out = plan.get_output_array(a)
    assert out.shape == (3, 9) and out.dtype == np.complex128
    plan.fft(a, out, ember.cuda.cufft.CUFFT_FORWARD)
    close(out, np.fft.rfft(r))
    with pytest.raises(ValueError, match="out must have shape"):
        plan.check_output_array(a, ember.empty((3, 16), dtype=np.complex128))


@pytest.mark.gpu
def test_cufft_real_and_nd_plans_on_cuda(fresh_cache):
    # One cuFFT plan a call: R2C/D2Z and C2R/Z2D for real transforms, rank 2 and 3 for fft2/fftn.
    assert ember.fft.config.engine() == "cufft"
    for dtype, ctype in ((np.float32, np.complex64), (np.float64, np.complex128)):
        r = signal((5, 4096), dtype)
        close(ember.fft.rfft(ember.asarray(r)), np.fft.rfft(r).astype(ctype), ctype)
        spectrum = np.fft.rfft(r).astype(ctype)
        keep = ember.asarray(spectrum)
        close(ember.fft.irfft(keep, n=4096), np.fft.irfft(spectrum, n=4096).astype(dtype), dtype)
        close(keep, spectrum, ctype)  # cuFFT's C2R works on a copy
        close(ember.fft.irfft(ember.asarray(spectrum[:, :200]), n=397),
              np.fft.irfft(spectrum[:, :200], n=397).astype(dtype), dtype)
    kinds = [node.plan.fft_type for _, node in fresh_cache]
    assert {0x2A, 0x2C, 0x6A, 0x6C} <= set(kinds)
    fresh_cache.clear()
    for shape in [(64, 128), (3, 32, 32, 32)]:
        x = signal(shape)
        close(ember.fft.fftn(ember.asarray(x), axes=tuple(range(-min(3, len(shape)), 0))),
              np.fft.fftn(x, axes=tuple(range(-min(3, len(shape)), 0))))
        plan = next(iter(fresh_cache))[1].plan
        assert isinstance(plan, ember.cuda.cufft.PlanNd) and plan.engine == "cufft"
        assert len(plan.shape) == min(3, len(shape)) and fresh_cache.get_curr_size() == 1
        fresh_cache.clear()
    r = signal((8, 64, 64), np.float32)
    close(ember.fft.rfft2(ember.asarray(r)), np.fft.rfft2(r).astype(np.complex64), np.complex64)
    want = np.fft.irfftn(np.fft.rfftn(r), s=r.shape)
    close(ember.fft.irfftn(ember.asarray(np.fft.rfftn(r)), s=r.shape), want, want.dtype)
    with ember.fft.config.use_ember_passes():
        close(ember.fft.rfft2(ember.asarray(r)), np.fft.rfft2(r).astype(np.complex64), np.complex64)
    assert {node.plan.engine for _, node in fresh_cache} == {"cufft", "passes"}


# ---- load and store callbacks (CuPy's set_cufft_callbacks): CUDA C, run around the transform ---
LOAD = r"""
#include <cufftXt.h>
__device__ cufftComplex scale_real(void* dataIn, unsigned long long offset, void* callerInfo, void* sharedPtr)
{
    cufftComplex x = ((cufftComplex*)dataIn)[offset];
    x.x *= ((float*)callerInfo)[offset];
    return x;
}
"""
STORE = r"""
__device__ void divide(void *dataOut, size_t offset, cufftDoubleReal element, void *callerInfo, void *sharedPtr)
{
    ((cufftDoubleReal*)dataOut)[offset] = element / 3.8;
}
__device__ cufftCallbackStoreD d_storeCallbackPtr = divide;
"""


def test_callback_kernels_compile_through_nvrtc():
    from conftest import nvrtc_or_skip

    nvrtc_or_skip()
    with pytest.warns(DeprecationWarning, match="legacy callback"):
        store = ember.fft.config.set_cufft_callbacks(cb_store=STORE)
    assert store.cb_store_name == "divide"  # read from d_storeCallbackPtr, as CuPy does
    load = ember.fft.config.set_cufft_callbacks(cb_load=LOAD, cb_load_name="scale_real", cb_ver="jit")
    for callbacks, which, chars in ((load, "load", "FF"), (store, "store", "Dd")):
        source = callbacks.source(which, *chars)
        assert ember._ember.nvrtc_compile(source, f"ember_fft_{which}", "sm_90")[:4] == b"\x7fELF"
    with pytest.raises(ValueError, match="cb_load_name cannot be inferred"):
        ember.fft.config.set_cufft_callbacks(cb_load=LOAD, cb_ver="jit")


@pytest.mark.parametrize("passes", [False, True])
def test_callbacks(passes, fresh_cache):
    """Load and store callbacks in CUDA C: NVRTC compiles them on CUDA, ember translates them
    to OpenCL C elsewhere."""
    x = signal((3, 10), np.complex64)
    factors = np.arange(30, dtype=np.float32).reshape(3, 10)
    d, f = ember.asarray(x), ember.asarray(factors)
    want = x.copy()
    want.real *= factors
    spectrum = np.fft.rfft(signal((4, 16), np.float64))
    with ember.fft.config.use_ember_passes() if passes else contextlib.nullcontext():
        with ember.fft.config.set_cufft_callbacks(cb_load=LOAD, cb_load_name="scale_real", cb_load_data=f.data,
                                                   cb_ver="jit"):
            close(ember.fft.fft(d), np.fft.fft(want).astype(np.complex64), np.complex64)
            close(ember.fft.fftn(d), np.fft.fftn(want).astype(np.complex64), np.complex64)
        close(ember.fft.fft(d), np.fft.fft(x).astype(np.complex64), np.complex64)  # other plans outside
        with pytest.warns(DeprecationWarning), ember.fft.config.set_cufft_callbacks(cb_store=STORE):
            close(ember.fft.irfft(ember.asarray(spectrum)), np.fft.irfft(spectrum) / 3.8)


def test_the_common_call_takes_the_cached_plan_and_defers_to_plan_blocks():
    rng = np.random.default_rng(31)
    host = (rng.standard_normal((6, 64)) + 1j * rng.standard_normal((6, 64))).astype(np.complex64)
    x = ember.asarray(host)
    cache = ember.fft.config.get_plan_cache()
    cache.clear()
    for _ in range(3):  # the first call makes the plan, the others take it from the cache
        np.testing.assert_allclose(ember.fft.fft(x).get(), np.fft.fft(host), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(ember.fft.ifft(x).get(), np.fft.ifft(host), rtol=1e-4, atol=1e-5)
    assert len(cache) == 1 and cache.hits >= 4
    real = host.real.copy()
    for _ in range(2):
        np.testing.assert_allclose(ember.fft.rfft(ember.asarray(real)).get(), np.fft.rfft(real), rtol=1e-4, atol=1e-4)
    # A plan block wins over the cache: a plan of another size is refused as before.
    with ember.fft.get_fft_plan(ember.asarray(host[:, :32]), axes=-1):
        with pytest.raises(ValueError, match="does not match"):
            ember.fft.fft(x)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_the_common_nd_call_takes_the_cached_plan_and_defers_to_plan_blocks(dtype):
    rng = np.random.default_rng(37)
    host = (rng.standard_normal((3, 16, 8)) + 1j * rng.standard_normal((3, 16, 8))).astype(dtype)
    x = ember.asarray(host)
    cache = ember.fft.config.get_plan_cache()
    cache.clear()
    tol = {"rtol": 1e-4, "atol": 1e-4} if dtype == np.complex64 else {"rtol": 1e-12, "atol": 1e-12}
    for _ in range(3):  # the first call of each makes its plan, the others take it from the cache
        np.testing.assert_allclose(ember.fft.fft2(x).get(), np.fft.fft2(host), **tol)
        np.testing.assert_allclose(ember.fft.ifft2(x).get(), np.fft.ifft2(host), **tol)
        np.testing.assert_allclose(ember.fft.fftn(x).get(), np.fft.fftn(host), **tol)
        np.testing.assert_allclose(ember.fft.ifftn(x).get(), np.fft.ifftn(host), **tol)
    assert len(cache) == 2 and cache.hits >= 8
    # Other calls take the general path: axes given otherwise, s, a norm, a non-contiguous view.
    np.testing.assert_allclose(ember.fft.fft2(x, axes=(0, 1)).get(), np.fft.fft2(host, axes=(0, 1)), **tol)
    np.testing.assert_allclose(ember.fft.fft2(x, s=(16, 4)).get(), np.fft.fft2(host, s=(16, 4)), **tol)
    np.testing.assert_allclose(ember.fft.fftn(x, norm="ortho").get(), np.fft.fftn(host, norm="ortho"), **tol)
    np.testing.assert_allclose(ember.fft.fft2(x[:, ::2]).get(), np.fft.fft2(host[:, ::2]), **tol)
    # A plan block wins over the cache: a plan of another shape is refused.
    with ember.fft.get_fft_plan(ember.asarray(host[:, :8]), axes=(-2, -1)):
        with pytest.raises(ValueError, match="do not match"):
            ember.fft.fft2(x)
