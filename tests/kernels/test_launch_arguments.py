"""Kernel arguments and launch shapes as PyCUDA and CuPy take them: NumPy integer scalars widen to
the parameter type the source declares when their value is kept; a launch shape the device cannot
run is PyCUDA's ``drv.LogicError`` and a ``ValueError``."""

from __future__ import annotations

import ember
import ember.cuda.driver as drv
import numpy as np
import pytest
from ember import cuda
from ember.errors import LaunchConfigurationError

# The fourth tutorial's PyCUDA program: n arrives as numpy.int32, the kernel takes size_t.
_MULTIPLY = """
__global__ void multiply_them(float *dest, const float *a, const float *b, size_t n)
{
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dest[i] = a[i] * b[i];
}
"""

_WIDE = r"""
extern "C" __global__ void wide(long long *out, unsigned long long u, long long s, double d, int k)
{
    out[0] = (long long)u; out[1] = s; out[2] = (long long)(d * 4.0); out[3] = k;
}
"""


def test_pycuda_int32_into_size_t(rng):
    from ember.cuda.compiler import SourceModule

    multiply_them = SourceModule(_MULTIPLY).get_function("multiply_them")
    a = rng.standard_normal(400).astype(np.float32)
    b = rng.standard_normal(400).astype(np.float32)
    dest = np.zeros_like(a)
    multiply_them(drv.Out(dest), drv.In(a), drv.In(b), np.int32(400), block=(128, 1, 1), grid=(4, 1))
    assert np.array_equal(dest, a * b)


def test_rawkernel_widens_what_keeps_its_value():
    kernel = ember.RawKernel(_WIDE, "wide")
    out = ember.zeros(4, dtype=np.int64)
    kernel((1,), (1,), (out, np.int32(7), np.int16(-5), np.float32(0.375), np.int8(-2)))
    assert out.get().tolist() == [7, -5, 1, -2]


def test_rawkernel_refuses_what_would_change():
    kernel = ember.RawKernel(_WIDE, "wide")
    out = ember.zeros(4, dtype=np.int64)
    with pytest.raises(OverflowError, match=r"numpy.int32\(-1\), which the kernel's parameter 1 \(an unsigned 8-byte"):
        kernel((1,), (1,), (out, np.int32(-1), np.int64(0), np.float64(0), np.int32(0)))
    with pytest.raises(TypeError, match=r"parameter 4 is a signed 4-byte integer; pass numpy.int32\(x\): ember widens"):
        kernel((1,), (1,), (out, np.uint64(1), np.int64(0), np.float64(0), np.int64(3)))
    with pytest.raises(TypeError, match=r"parameter 3 is a 8-byte float; pass numpy.float64\(x\)"):
        kernel((1,), (1,), (out, np.uint64(1), np.int64(0), np.int64(2), np.int32(0)))
    kernel((1,), (1,), (out, np.uint64(9), np.int64(-8), np.float64(0.5), np.int32(6)))  # still works
    assert out.get().tolist() == [9, -8, 2, 6]


@pytest.mark.gpu
def test_oversized_block_is_pycudas_logic_error():
    from ember.cuda.compiler import SourceModule

    multiply_them = SourceModule(_MULTIPLY).get_function("multiply_them")
    a = np.ones(8, dtype=np.float32)
    try:
        multiply_them(drv.Out(a), drv.In(a), drv.In(a), np.int32(8), block=(4096, 1, 1), grid=(1, 1))
    except drv.Error as e:  # the tutorial's own handler
        assert isinstance(e, drv.LogicError) and isinstance(e, ValueError)
        assert "4096 threads" in str(e)
    else:
        pytest.fail("an oversized block launched")


@cuda.jit
def _fill(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = i


def test_oversized_block_of_a_python_kernel_is_a_value_error_and_a_drv_error():
    a = cuda.device_array(8, dtype=np.int32)
    with pytest.raises(LaunchConfigurationError, match=r"block \[100000, 1, 1\] has 100000 threads, more than"):
        _fill[1, 100000](a)
    for cls in (drv.Error, drv.LogicError, ValueError):
        with pytest.raises(cls):
            _fill[1, (64, 64, 64)](a)
    _fill[1, 8](a)  # the process goes on
    assert a.copy_to_host().tolist() == list(range(8))



_BOUNDED = r"""
extern "C" __global__ void __launch_bounds__(128) bounded(int* out) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x;
}
"""


@pytest.mark.gpu
def test_a_block_beyond_the_kernels_own_limit_is_refused_before_launch():
    # __launch_bounds__(128) caps the kernel below the device's 1024 threads, as registers
    # can: the driver would say only "too many resources requested".
    kernel = ember.RawKernel(_BOUNDED, "bounded")
    out = ember.zeros(256, dtype=np.int32)
    want = r"block \[256, 1, 1\] has 256 threads, but this kernel may have at most 128 per block"
    with pytest.raises(LaunchConfigurationError, match=want):
        kernel((1,), (256,), (out,))
    kernel((2,), (128,), (out,))  # the process goes on
    assert out.get().tolist() == list(range(128)) * 2


def test_python_ints_past_64_bits_are_refused_with_numpys_class():
    """One reading of Python scalars (ember-py/src/scalars.rs): an int past 64 bits is an
    OverflowError wherever it has to be held exactly."""

    @cuda.jit
    def store(out, v):
        out[0] = v

    out = ember.zeros(1, "int64")
    with pytest.raises(OverflowError, match="too large to convert"):
        store[1, 1](out, 2**70)
    store[1, 1](out, 2**64 - 1)  # fits uint64, as Numba types it
    assert out.get()[0] == -1
    with pytest.raises(OverflowError, match="too large to convert"):
        ember.full(2, 2**70, dtype="int64")


def test_raw_kernels_refuse_python_ints_past_int64():
    kernel = ember.RawKernel('extern "C" __global__ void k(long long v) {}', "k")
    with pytest.raises(OverflowError, match="does not fit in int64"):
        kernel((1,), (1,), (2**70,))
