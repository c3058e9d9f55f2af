"""On the CUDA backend: allocation, copies (incl. pinned staging), kernels through the cache,
and zero-copy exchange with CuPy and PyTorch through __cuda_array_interface__ and DLPack."""

import ember
import numpy as np
import pytest
from ember.testing import ALL_DTYPES, random_array

pytestmark = pytest.mark.gpu


def test_device_is_a_cuda_gpu():
    info = ember.Device(0).attributes
    assert info["backend"] == "cuda" and info["arch"].startswith("sm_") and info["total_memory"] > 1 << 30
    assert info["compiler"].startswith("nvrtc ")


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_round_trip_and_kernels_every_dtype(rng, dtype):
    host = random_array(rng, (33, 17), dtype)
    a = ember.asarray(host)
    np.testing.assert_array_equal(a.get(), host)
    np.testing.assert_array_equal(a.T.copy().get(), host.T)
    np.testing.assert_array_equal(ember.full((3, 2), 1, dtype).get(), np.ones((3, 2), dtype))


def test_large_copies_through_pinned_staging(rng):
    host = rng.standard_normal(40 << 20 >> 2).astype(np.float32)  # 40 MiB: several chunks
    a = ember.asarray(host)
    back = a.get()
    assert back.tobytes() == host.tobytes()
    out = np.empty_like(host)
    a.get(out=out)
    assert out.tobytes() == host.tobytes()


def test_casts_on_gpu(rng):
    host = random_array(rng, (1000,), np.float64)
    np.testing.assert_array_equal(ember.asarray(host).astype(np.float16).get(), host.astype(np.float16))
    np.testing.assert_array_equal(ember.asarray(host).astype(np.complex64).get(), host.astype(np.complex64))


def test_cupy_reads_ember_through_cai(rng):
    cp = pytest.importorskip("cupy")
    host = random_array(rng, (8, 9), np.float32)
    a = ember.asarray(host)
    c = cp.asarray(a)
    assert c.data.ptr == a.data.ptr
    np.testing.assert_array_equal(cp.asnumpy(c), host)
    c[0, 0] = 42
    cp.cuda.runtime.deviceSynchronize()
    assert a.get()[0, 0] == 42


def test_ember_reads_cupy_through_cai(rng):
    cp = pytest.importorskip("cupy")
    host = random_array(rng, (6, 7), np.int32)
    c = cp.asarray(host)[:, ::2]
    a = ember.asarray(c)
    assert a.data.ptr == c.data.ptr and a.strides == c.strides
    np.testing.assert_array_equal(a.get(), host[:, ::2])


def test_dlpack_with_cupy_both_ways(rng):
    cp = pytest.importorskip("cupy")
    host = random_array(rng, (16,), np.float64)
    a = ember.asarray(host)
    c = cp.from_dlpack(a)
    assert c.data.ptr == a.data.ptr
    b = ember.from_dlpack(c)
    assert b.data.ptr == c.data.ptr
    np.testing.assert_array_equal(b.get(), host)


def test_dlpack_with_torch_both_ways(rng):
    torch = pytest.importorskip("torch")
    host = random_array(rng, (5, 3), np.float32)
    a = ember.asarray(host)
    t = torch.from_dlpack(a)
    assert t.is_cuda and t.data_ptr() == a.data.ptr
    t.mul_(2)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(a.get(), host * 2)
    t2 = torch.arange(12, dtype=torch.int64, device="cuda").reshape(3, 4).t()
    e = ember.from_dlpack(t2)
    assert e.data.ptr == t2.data_ptr() and e.shape == (4, 3)
    np.testing.assert_array_equal(e.get(), t2.cpu().numpy())
    e2 = ember.asarray(t2)  # CAI path
    np.testing.assert_array_equal(e2.get(), t2.cpu().numpy())


def test_kernel_cache_on_gpu():
    src = 'extern "C" __global__ void bump(int* x) { x[threadIdx.x] += 1; }'
    before = ember._ember.cache_stats(0)
    ember._ember.compile_module(0, src, "bump")
    ember._ember.compile_module(0, src, "bump")
    after = ember._ember.cache_stats(0)
    assert after[0] - before[0] >= 1, "second compile must be an in-process hit"


def test_cuda_c_errors_are_compile_errors():
    with pytest.raises(ember.CompileError, match="CUDA compilation of bad failed"):
        ember._ember.compile_module(0, 'extern "C" __global__ void bad(int* x) { x[0] = nope; }', "bad")


class _Interface:
    """A device array described only by ``__cuda_array_interface__`` (as another library's)."""

    def __init__(self, source, **changes):
        self.__cuda_array_interface__ = {**source.__cuda_array_interface__, **changes}


def test_cai_refuses_masks_and_other_byte_orders_and_takes_empty_arrays():
    a = ember.arange(8, dtype=np.int32)
    for error in (ValueError, NotImplementedError):  # CuPy's class and Numba's
        with pytest.raises(error, match="Masked arrays are not supported"):
            ember.asarray(_Interface(a, mask=_Interface(a).__cuda_array_interface__))
    with pytest.raises(ValueError, match="non-native byte order"):
        ember.asarray(_Interface(a, typestr=">i4"))
    empty = ember.zeros((0, 3))
    assert empty.data.ptr == 0 and empty.__cuda_array_interface__["data"][0] == 0
    view = ember.asarray(_Interface(empty))
    assert view.shape == (0, 3) and view.data.ptr == 0
    b = ember.asarray(_Interface(a[::2]))
    np.testing.assert_array_equal(b.get(), np.arange(0, 8, 2, dtype=np.int32))
