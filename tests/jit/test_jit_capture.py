"""Global device arrays in kernels, as Numba captures them: an ember array (or another
library's, through ``__cuda_array_interface__``) named by a global is read and written in
place at its address on CUDA; OpenCL kernels reach memory only through arguments and say so."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import on_cuda
from ember import cuda
from ember._jit import kernel_source
from ember.errors import JitError

TABLE = COUNTS = None  # device arrays, made by the fixture (none outlives the tests)


@pytest.fixture(autouse=True)
def device_globals():
    global TABLE, COUNTS
    TABLE = ember.asarray(np.arange(12, dtype=np.float32).reshape(3, 4) * 0.5)
    COUNTS = ember.zeros(4, np.int64)
    yield
    TABLE = COUNTS = None


class Foreign:
    """Device memory of "another library": seen only through its CUDA array interface."""

    def __init__(self, shape, dtype, address):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": np.dtype(dtype).str,
                                         "data": (address, False), "strides": None, "version": 3}


def foreign_like(arr):
    return Foreign(arr.shape, arr.dtype, arr.__cuda_array_interface__["data"][0])


FOREIGN = Foreign((6,), np.int32, 0xDEAD000)  # compiled only, never run


@cuda.jit(device=True)
def table_at(i, j):
    return TABLE[i, j]


def gather(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = table_at(i % 3, i % 4)
        cuda.atomic.add(COUNTS, i % 4, 1)


def from_foreign(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = FOREIGN[i] * 3


def test_the_cuda_c_reads_captured_arrays_at_their_address():
    from conftest import nvrtc_or_skip

    nvrtc_or_skip()
    for kernel, types in ((gather, ["float32[::1]"]), (from_foreign, ["int32[::1]"])):
        src = kernel_source(kernel, types, "cuda")
        name = src.rsplit('extern "C" __global__ void ', 1)[1].split("(", 1)[0]
        assert ember._ember.nvrtc_compile(src, name, "sm_90", [])[:4] == b"\x7fELF"
    assert f"{0xDEAD000}ULL" in kernel_source(from_foreign, ["int32[::1]"], "cuda")  # the address itself


def test_captured_arrays_are_read_and_written_in_place():
    if not on_cuda():
        with pytest.raises(JitError, match="a global device array is captured by its address, which only CUDA "
                                           "kernels can use; pass it as an argument"):
            cuda.jit(gather)[1, 32](ember.zeros(8, np.float32))
        return
    out = ember.zeros(8, np.float32)
    COUNTS[...] = 0
    cuda.jit(gather)[1, 32](out)
    want = [np.arange(12, dtype=np.float32).reshape(3, 4)[i % 3, i % 4] * 0.5 for i in range(8)]
    np.testing.assert_array_equal(out.get(), want)
    np.testing.assert_array_equal(COUNTS.get(), [2, 2, 2, 2])
    # Another library's array, through its CUDA array interface.
    global FOREIGN
    backing = ember.asarray(np.arange(6, dtype=np.int32))
    FOREIGN = foreign_like(backing)
    got = ember.zeros(6, np.int32)
    cuda.jit(from_foreign)[1, 8](got)
    np.testing.assert_array_equal(got.get(), 3 * np.arange(6))
    FOREIGN = Foreign((6,), np.int32, 0xDEAD000)


def test_strided_globals_are_refused_clearly_and_0d_ones_captured():
    strided = ember.zeros((4, 4))[:, ::2]
    zero_d = ember.asarray(np.float32(21.5))

    def reads_strided(out):
        out[0] = strided[0, 0]

    def reads_0d(out):
        out[()] = zero_d[()] * 2

    if not on_cuda():
        pytest.skip("OpenCL refuses every captured array (see above)")
    with pytest.raises(JitError, match="not C-contiguous"):
        cuda.jit(reads_strided)[1, 1](ember.zeros(1))
    out = ember.zeros((), np.float32)
    cuda.jit(reads_0d)[1, 1](out)
    assert out.get()[()] == 43.0
