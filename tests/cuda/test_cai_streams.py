"""The ``stream`` of ``__cuda_array_interface__`` (version 3) on CUDA, as Numba produces and
consumes it: arrays made on a stream name it, arrays on the legacy default stream name none, and
importing an interface that names a stream waits for that stream (unless told not to)."""

from unittest import mock

import ember
import ember.cuda as cuda
import numpy as np
import pytest

pytestmark = pytest.mark.gpu


class _Foreign:
    """Another library's device array: only its ``__cuda_array_interface__``."""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


def test_arrays_name_the_stream_they_were_made_on():
    assert cuda.device_array(10).__cuda_array_interface__["stream"] is None
    assert cuda.mapped_array(10).__cuda_array_interface__["stream"] is None
    s = cuda.stream()
    for made in (cuda.device_array(10, stream=s), cuda.to_device(np.arange(4), stream=s),
                 cuda.device_array_like(np.zeros(3), stream=s), cuda.mapped_array(10, stream=s),
                 cuda.managed_array(10, stream=s)):
        assert made.__cuda_array_interface__["stream"] == s.handle != 0
    with s:  # CuPy's rule for arrays made without one: the current stream
        assert ember.zeros(3).__cuda_array_interface__["stream"] == s.handle


def test_importing_waits_for_the_named_stream_once_and_only_when_asked():
    s = cuda.stream()
    named, unnamed = _Foreign(cuda.device_array(10, stream=s)), _Foreign(cuda.device_array(10))
    with mock.patch.object(cuda.cudadrv.driver.Stream, "synchronize", return_value=None) as sync:
        got = cuda.as_cuda_array(named)
        assert sync.call_count == 1 and got.stream.external and got.stream.handle == s.handle
        assert cuda.as_cuda_array(unnamed).stream == 0 and sync.call_count == 1
        cuda.as_cuda_array(named, sync=False)
        assert sync.call_count == 1
        cuda.config.CUDA_ARRAY_INTERFACE_SYNC = False
        try:
            cuda.as_cuda_array(named)
        finally:
            cuda.config.CUDA_ARRAY_INTERFACE_SYNC = True
        assert sync.call_count == 1

        @cuda.jit
        def touch(x, y):
            pass

        touch[1, 1](named, _Foreign(cuda.device_array(10, stream=cuda.stream())))
        assert sync.call_count == 3  # one wait a named stream


def test_an_imported_array_is_the_same_memory_and_is_written_through():
    h = np.random.default_rng(3).standard_normal(10)
    d = cuda.to_device(h)
    view = cuda.as_cuda_array(_Foreign(d))
    assert view.device_ctypes_pointer.value == d.device_ctypes_pointer.value
    view[:5] = np.pi
    np.testing.assert_array_equal(d.copy_to_host(), np.concatenate([np.full(5, np.pi), h[5:]]))
    assert view[::2].alloc_size == cuda.as_cuda_array(_Foreign(d[::2])).alloc_size == 9 * 8


def test_ufuncs_write_into_and_return_another_librarys_output_array():
    @cuda.vectorize(["f8(f8, f8)"])
    def add(a, b):
        return a + b

    @cuda.guvectorize(["(f8, f8, f8[:])"], "(),()->()")
    def gadd(a, b, out):
        out[0] = a + b

    h = np.random.default_rng(4).standard_normal(10)
    for ufunc in (add, gadd):
        target = cuda.device_array(10)
        got = ufunc(h, 2.5, out=_Foreign(target))
        np.testing.assert_array_equal(target.copy_to_host(), h + 2.5)
        assert got.device_ctypes_pointer.value == target.device_ctypes_pointer.value
