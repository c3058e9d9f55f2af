"""DLPack: zero-copy exchange (NumPy on a CPU device; CuPy and PyTorch on the GPU, see test_gpu)."""

import ember
import numpy as np
import pytest
from ember.testing import ALL_DTYPES, random_array

cpu_device = pytest.mark.skipif(
    ember.backend() != "opencl" or not ember.Device(0).attributes["host_unified"],
    reason="NumPy shares memory only with a CPU device",
)


@cpu_device
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_numpy_views_ember_memory(rng, dtype):
    host = random_array(rng, (5, 4), dtype)
    a = ember.asarray(host)
    view = np.from_dlpack(a)
    assert view.dtype == dtype and view.shape == (5, 4)
    np.testing.assert_array_equal(view, host)
    a.fill(1)
    ember.synchronize()
    np.testing.assert_array_equal(view, np.ones((5, 4), dtype), err_msg="not zero-copy")


@cpu_device
def test_numpy_view_waits_for_the_work_that_writes_the_array():
    # Long enough on PoCL that a view taken while the kernel runs would see old memory.
    n = 1 << 22
    a = ember.arange(n, dtype=np.float32)
    b = ember.sin(ember.sqrt(a)) * ember.cos(a) + ember.exp(-a)
    view = np.from_dlpack(b)
    seen = view[-4096:].copy()
    ember.synchronize()
    np.testing.assert_array_equal(seen, view[-4096:])
    host = np.arange(n, dtype=np.float32)
    expected = np.sin(np.sqrt(host)) * np.cos(host) + np.exp(-host)
    np.testing.assert_allclose(seen, expected[-4096:], rtol=1e-5, atol=1e-6)


@cpu_device
def test_ember_views_numpy_memory(rng):
    host = random_array(rng, (6, 8), np.float32)
    a = ember.from_dlpack(host)
    assert a.data.ptr == host.ctypes.data
    np.testing.assert_array_equal(a.get(), host)
    host[2, 3] = 1234.5
    assert a.get()[2, 3] == 1234.5
    a.fill(-2)
    ember.synchronize()
    np.testing.assert_array_equal(host, np.full((6, 8), -2, np.float32))


@cpu_device
def test_strided_numpy_view_round_trip(rng):
    host = random_array(rng, (10, 12), np.int64)
    view = host[1::3, ::-2]
    a = ember.from_dlpack(view)
    assert a.shape == view.shape and a.strides == view.strides
    np.testing.assert_array_equal(a.get(), view)
    back = np.from_dlpack(a)
    np.testing.assert_array_equal(back, view)
    assert np.shares_memory(back, host)


@cpu_device
def test_exported_array_outlives_ember_handle(rng):
    host = random_array(rng, (1000,), np.float64)
    a = ember.asarray(host)
    view = np.from_dlpack(a)
    del a
    import gc

    gc.collect()
    np.testing.assert_array_equal(view, host)  # the export keeps the buffer alive


def test_capsule_is_consumed_once():
    a = ember.arange(5, dtype=np.float32)
    if ember.backend() == "opencl" and not ember.Device(0).attributes["host_unified"]:
        pytest.skip("no DLPack device for an OpenCL GPU")
    capsule = a.__dlpack__()
    b = ember.from_dlpack(capsule)
    np.testing.assert_array_equal(b.get(), np.arange(5, dtype=np.float32))
    with pytest.raises(TypeError, match="each capsule can be consumed once"):
        ember.from_dlpack(capsule)


def test_dlpack_device():
    # kDLCUDA on CUDA, kDLCPU on a CPU OpenCL device, kDLOpenCL on an OpenCL GPU.
    kind, index = ember.arange(3).__dlpack_device__()
    if ember.backend() == "cuda":
        assert (kind, index) == (2, 0)
    elif ember.Device(0).attributes["is_cpu"]:
        assert (kind, index) == (1, 0)
    else:
        assert (kind, index) == (4, 0)
        with pytest.raises(BufferError, match="OpenCL buffer, which NumPy, CuPy and PyTorch cannot read"):
            ember.arange(3).__dlpack__()


def test_from_dlpack_of_an_ember_array_is_a_view_on_every_device():
    a = ember.arange(6.0)
    v = ember.from_dlpack(a)
    v[1] = 10
    assert a.get().tolist() == [0, 10, 2, 3, 4, 5]
    c = ember.from_dlpack(a, copy=True)
    c[2] = -1
    assert a.get()[2] == 2


def test_arrays_alive_at_interpreter_exit_end_cleanly():
    """A NumPy view of an ember view of NumPy memory still alive when Python shuts down: the
    process exits 0 (it once aborted in the imported tensor's destructor)."""
    import subprocess
    import sys

    # NumPy's memory is viewable only by a CPU device; on a GPU the tensor comes from ember itself.
    code = ("import numpy as np, ember as em\n"
            "cpu = em.Device(0).attributes['is_cpu']\n"
            "h = np.arange(4.0) if cpu else em.arange(4.0)\n"
            "a = em.from_dlpack(h)\n"
            "v = np.from_dlpack(a) if cpu else em.from_dlpack(a)\n"
            "print(float(v.sum()))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "6.0"


def _capsule_name(capsule) -> str:
    return repr(capsule).split('"')[1]


@cpu_device
def test_dlpack_1_0_versioned_capsules_both_ways(rng):
    host = random_array(rng, (4, 6), np.float64)
    a = ember.asarray(host)[:, ::2]
    # The consumer's max_version picks the form: DLPack 1.0's versioned capsule, else the legacy.
    assert _capsule_name(a.__dlpack__(max_version=(1, 0))) == "dltensor_versioned"
    assert _capsule_name(a.__dlpack__(max_version=(0, 8))) == "dltensor"
    assert _capsule_name(a.__dlpack__()) == "dltensor"
    # Either capsule is read back; NumPy 2 asks for the versioned one.
    np.testing.assert_array_equal(ember.from_dlpack(a.__dlpack__(max_version=(1, 0))).get(), host[:, ::2])
    np.testing.assert_array_equal(ember.from_dlpack(a.__dlpack__()).get(), host[:, ::2])
    np.testing.assert_array_equal(np.from_dlpack(a), host[:, ::2])
    # A copy for the export is a copy: writes to the array do not reach it.
    copied = np.from_dlpack(a, copy=True)
    a.fill(0)
    ember.synchronize()
    np.testing.assert_array_equal(copied, host[:, ::2])
    # Capsules never consumed free their tensors; a consumed one cannot be read twice.
    for _ in range(100):
        a.__dlpack__(max_version=(1, 0))
    capsule = a.__dlpack__(max_version=(1, 0))
    ember.from_dlpack(capsule)
    with pytest.raises(TypeError, match="expected a DLPack capsule named 'dltensor' or 'dltensor_versioned'"):
        ember.from_dlpack(capsule)
