"""CuPy names that code uses without thinking: rounding, ``cuda.runtime``, the default streams,
``Device`` and the memory pools, as CuPy's user guide uses them.

Rounding is compared with NumPy bit for bit; few dtypes, so few kernels to build on PoCL.
"""

from __future__ import annotations

import pickle
import threading
import warnings

import ember
import ember as cp  # the user guide's spelling
import numpy as np
import pytest
from ember import testing
from ember.cuda import runtime

# Values NumPy rounds to even, and ones whose decimal form is not exact in binary.
HALVES = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.125, 0.375, -0.0, 1.005, 2.675, 12345.5, np.nan, np.inf, -np.inf])


# --- round / around / ndarray.round -------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("decimals", [-2, 0, 1, 3])
def test_round_floats_match_numpy_bit_for_bit(rng, dtype, decimals):
    x = (rng.standard_normal(500) * 1000).astype(dtype)
    got = cp.round(cp.asarray(x), decimals).get()
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, np.round(x, decimals))


@pytest.mark.parametrize("decimals", [0, 1, 2, -1, 23, 400, -400])
def test_round_halves_to_even_keeps_signs_and_specials(decimals):
    with np.errstate(all="ignore"):
        want = np.round(HALVES, decimals)
    got = cp.asarray(HALVES).round(decimals).get()
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_fix_rounds_toward_zero_as_numpy(rng, dtype):
    x = np.concatenate([(rng.standard_normal(200) * 100), HALVES]).astype(dtype) if dtype == np.float32 else \
        rng.integers(-1000, 1000, 200).astype(dtype)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # NumPy 2.5 deprecates fix for trunc
        want = np.fix(x)
    got = cp.fix(cp.asarray(x)).get()
    assert got.dtype == want.dtype
    assert np.array_equal(got, want, equal_nan=True) and np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("decimals", [-3, -1, 0, 2])
def test_round_integers_as_numpy(rng, decimals):
    x = rng.integers(-10**6, 10**6, 300).astype(np.int32)
    got = cp.around(cp.asarray(x), decimals).get()
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, np.around(x, decimals))


@testing.numpy_ember_array_equal()
def test_round_int64_loses_the_low_bits_numpy_loses(xp):
    # NumPy rounds integers through float64: beyond 2**53 the last bits go, and ember's must too.
    return xp.asarray(np.array([2**62 + 1, 2**53 + 3, -15, 25, 35, -25], np.int64)).round(-1)


def test_round_complex_rounds_both_parts(rng):
    z = ((rng.standard_normal(50) + 1j * rng.standard_normal(50)) * 100).astype(np.complex64)
    testing.assert_array_equal(cp.asarray(z).round(1), z.round(1), strict=True)


def test_round_out_and_layouts(rng):
    f = np.asfortranarray(rng.standard_normal((6, 5)))
    out = cp.empty((6, 5), cp.float32)
    assert cp.round(cp.asarray(f), 2, out=out) is out
    np.testing.assert_array_equal(out.get(), np.round(f, 2, out=np.empty((6, 5), np.float32)))
    kept = cp.asarray(f).round(2)
    assert kept.flags.f_contiguous
    view = cp.asarray(f)[:, ::2]
    np.testing.assert_array_equal(view.round(2).get(), f[:, ::2].round(2))


def test_round_of_host_values_gives_a_device_array():
    result = cp.around([1.5, 2.5, -0.5])
    assert isinstance(result, cp.ndarray)
    np.testing.assert_array_equal(result.get(), np.around([1.5, 2.5, -0.5]))


def test_round_bad_arguments_raise_as_numpy():
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        cp.round(cp.arange(3.0), 1.5)
    with pytest.raises(ValueError, match="invalid output shape"):
        cp.round(cp.arange(3.0), 1, out=cp.empty(4))
    with pytest.raises(TypeError, match="Cannot cast ufunc 'divide' output from dtype\\('float64'\\) to "
                                        "dtype\\('int32'\\)"):
        cp.round(cp.arange(3, dtype=cp.int32), -1, out=cp.empty(3, cp.int32))


def test_round_underscore_is_deprecated_as_in_cupy():
    with pytest.warns(DeprecationWarning, match="Please use `round` instead"):
        got = cp.round_(cp.asarray(HALVES[:5]))
    np.testing.assert_array_equal(got.get(), np.round(HALVES[:5]))


# --- errors -------------------------------------------------------------------------------------
def test_missing_device_raises_cupys_error_which_is_a_driver_and_value_error():
    with pytest.raises(runtime.CUDARuntimeError, match=r"^cudaErrorInvalidDevice: invalid device ordinal "
                                                       r"\(device 99 does not exist") as info:
        cp.cuda.Device(99)
    assert info.value.status == 101
    # CuPy's class is a RuntimeError; ember raised ValueError before, and still does.
    assert all(isinstance(info.value, c) for c in (ember.DriverError, RuntimeError, ValueError))
    with pytest.raises(runtime.CUDARuntimeError, match="cudaErrorInvalidDevice"):
        runtime.setDevice(99)


def test_runtime_error_pickles_with_its_status():
    err = pickle.loads(pickle.dumps(runtime.CUDARuntimeError(2, "while testing")))
    assert (err.status, str(err)) == (2, "cudaErrorMemoryAllocation: out of memory (while testing)")
    assert issubclass(runtime.CUDARuntimeError, ember.errors.DriverError)


# --- cuda.runtime -------------------------------------------------------------------------------
def test_runtime_devices_and_synchronize():
    count = runtime.getDeviceCount()
    assert count >= 1
    assert runtime.getDevice() == 0
    runtime.setDevice(0)
    runtime.deviceSynchronize()
    runtime.streamSynchronize(cp.cuda.get_current_stream().ptr)
    runtime.streamSynchronize(runtime.streamLegacy)
    assert runtime.is_hip is False


def test_runtime_mem_info_and_properties():
    free, total = runtime.memGetInfo()
    info = ember._ember.device_info(0)
    assert total == info["total_memory"] and 0 <= free <= total
    assert cp.cuda.Device(0).mem_info[1] == total
    props = runtime.getDeviceProperties(0)
    assert props["name"] == info["name"].encode()
    assert props["totalGlobalMem"] == total
    assert props["multiProcessorCount"] == info["multiprocessors"]
    assert props["maxThreadsPerBlock"] == info["max_threads_per_block"]
    assert props["warpSize"] == info["warp_size"]
    assert props["maxThreadsDim"] == tuple(info["max_block_dims"])
    if cp.backend() == "cuda":
        assert f"{props['major']}{props['minor']}" == cp.cuda.Device(0).compute_capability
    else:
        assert (props["major"], props["minor"]) == (0, 0)


def test_runtime_versions_are_cuda_numbers():
    for version in (runtime.runtimeGetVersion(), runtime.driverGetVersion(), cp.cuda.get_local_runtime_version()):
        assert isinstance(version, int) and version % 10 == 0
    if cp.backend() != "cuda":
        assert runtime.driverGetVersion() == 0


def test_runtime_malloc_memcpy_memset_free():
    host = np.arange(64, dtype=np.uint8)
    a, b = runtime.malloc(64), runtime.malloc(64)
    runtime.memcpy(a, host.ctypes.data, 64, runtime.memcpyHostToDevice)
    runtime.memset(b, 7, 64)
    runtime.memcpy(b + 8, a + 16, 8, runtime.memcpyDeviceToDevice)
    back = np.zeros(64, np.uint8)
    runtime.memcpy(back.ctypes.data, b, 64, runtime.memcpyDeviceToHost)
    want = np.full(64, 7, np.uint8)
    want[8:16] = host[16:24]
    np.testing.assert_array_equal(back, want)
    runtime.free(a)
    runtime.free(b)
    with pytest.raises(runtime.CUDARuntimeError, match="cudaErrorInvalidValue: .* was not returned by malloc"):
        runtime.free(a)


def test_runtime_memcpy_needs_a_direction():
    ptr = runtime.malloc(8)
    try:
        with pytest.raises(runtime.CUDARuntimeError, match="cudaErrorInvalidMemcpyDirection"):
            runtime.memcpy(ptr, ptr, 8, runtime.memcpyDefault)
    finally:
        runtime.free(ptr)


# --- streams and devices, as the user guide uses them -------------------------------------------
def test_null_stream_is_the_current_stream_by_default():
    assert cp.cuda.Stream.null == cp.cuda.get_current_stream()
    assert cp.cuda.Stream(null=True) == cp.cuda.Stream.null
    s = cp.cuda.Stream()
    assert s.use() is s
    assert s == cp.cuda.get_current_stream() and s != cp.cuda.Stream.null
    cp.cuda.Stream.null.use()  # fall back to the default (null) stream
    assert cp.cuda.Stream.null == cp.cuda.get_current_stream()


def test_user_guide_stream_example():
    a_np = np.arange(10)
    s = cp.cuda.Stream()
    with s:
        a_cp = cp.asarray(a_np)
        b_cp = cp.sum(a_cp)
        assert s == cp.cuda.get_current_stream()
    e1 = cp.cuda.Event()
    e1.record()
    a_cp = b_cp * a_cp + 8
    e2 = cp.cuda.get_current_stream().record()
    s2 = cp.cuda.Stream()
    s2.wait_event(e2)
    with s2:
        a_np = cp.asnumpy(a_cp)
    e2.synchronize()
    assert cp.cuda.get_elapsed_time(e1, e2) >= 0
    np.testing.assert_array_equal(a_np, 45 * np.arange(10) + 8)


def test_per_thread_default_stream_is_one_per_thread():
    mine = cp.cuda.Stream.ptds
    assert mine == cp.cuda.Stream.ptds == cp.cuda.Stream(ptds=True)
    assert mine != cp.cuda.Stream.null
    theirs = []
    worker = threading.Thread(target=lambda: theirs.append(cp.cuda.Stream.ptds))
    worker.start()
    worker.join()
    assert theirs[0] != mine
    with mine:
        doubled = cp.arange(5) * 2
    mine.synchronize()
    np.testing.assert_array_equal(doubled.get(), np.arange(5) * 2)


def test_device_use_id_synchronize_and_context():
    dev = cp.cuda.Device(0)
    assert dev.use() is dev and dev.id == 0 and int(dev) == 0
    dev.synchronize()
    with cp.cuda.Device(0) as inside:
        x_on_gpu0 = cp.array([1, 2, 3, 4, 5])
        assert inside == cp.cuda.Device() and cp.cuda.get_device_id() == 0
    assert x_on_gpu0.device == dev
    assert isinstance(dev.compute_capability, str)


# --- memory pools and the guide's basics --------------------------------------------------------
def test_memory_pool_malloc_and_statistics():
    pool = cp.get_default_memory_pool()
    before = pool.used_bytes()
    block = pool.malloc(1000)
    assert block.mem.size == 1000 and pool.used_bytes() >= before + 1000
    assert cp.cuda.alloc(10).mem.size == 10
    del block
    assert pool.used_bytes() == before
    assert pool.total_bytes() >= pool.used_bytes() and pool.n_free_blocks() >= 1
    with pytest.warns(DeprecationWarning, match="free_all_blocks"):
        pool.free_all_free()
    assert pool.n_free_blocks() == 0
    pool.set_limit(size=1 << 30)
    try:
        assert pool.get_limit() == 1 << 30
    finally:
        pool.set_limit(size=0)
    assert pool.get_limit() == 0


def test_pinned_memory_pool_names():
    pinned = cp.get_default_pinned_memory_pool()
    assert isinstance(pinned, cp.cuda.PinnedMemoryPool)
    pointer = cp.cuda.alloc_pinned_memory(100)
    del pointer
    assert pinned.n_free_blocks() >= 1
    pinned.free_all_blocks()
    assert pinned.n_free_blocks() == 0


def test_get_array_module_softplus_runs_on_both():
    def softplus(x):
        xp = cp.get_array_module(x)
        return xp.maximum(0, x) + xp.log1p(xp.exp(-abs(x)))

    x_cpu = np.array([1.0, -2.0, 0.5])
    assert cp.get_array_module(cp.asarray(x_cpu)) is cp and cp.get_array_module(x_cpu) is np
    np.testing.assert_allclose(softplus(cp.asarray(x_cpu)).get(), softplus(x_cpu), rtol=1e-15)


def test_asnumpy_takes_cupys_arguments():
    x_gpu = cp.array([1, 2, 3])
    np.testing.assert_array_equal(cp.asnumpy(x_gpu, blocking=True, order="C"), [1, 2, 3])
    np.testing.assert_array_equal(cp.asnumpy([4, 5, 6]), [4, 5, 6])
    with pytest.raises(TypeError, match="^Unsupported type <class 'numpy.ndarray'>"):
        x_gpu + np.array([4, 5, 6])


def test_is_available_and_show_config(capsys):
    assert cp.is_available() and cp.cuda.is_available()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cp.show_config()
    assert "selected backend" in capsys.readouterr().out
