"""Elementwise multiply with a CUDA C kernel through PyCUDA, as the fourth tutorial writes it: the kernel
takes `size_t n` and the call passes numpy.int32(n) (widened, as PyCUDA does), and a block larger than
the device allows is caught with `except drv.Error`. Written for PyCUDA; on ember only the imports change."""

import ember.cuda.driver as drv  # was: import pycuda.driver as drv
import numpy as np
from ember.cuda.compiler import SourceModule  # was: from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void multiply_them(float *dest, const float *a, const float *b, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dest[i] = a[i] * b[i];
}
""")
multiply_them = mod.get_function("multiply_them")

n = 400_000
rng = np.random.default_rng(4)
a = rng.standard_normal(n).astype(np.float32)
b = rng.standard_normal(n).astype(np.float32)
dest = np.zeros_like(a)

threads = 256
multiply_them(drv.Out(dest), drv.In(a), drv.In(b), np.int32(n), block=(threads, 1, 1),
              grid=((n + threads - 1) // threads, 1))
np.testing.assert_array_equal(dest, a * b)

too_many = 2 * drv.Context.get_device().get_attribute(drv.device_attribute.MAX_THREADS_PER_BLOCK)
try:
    multiply_them(drv.Out(dest), drv.In(a), drv.In(b), np.int32(n), block=(too_many, 1, 1), grid=(1, 1))
    raise SystemExit(f"a block of {too_many} threads launched: the device should have refused it")
except drv.Error as e:
    refused = f"{type(e).__name__}: {str(e)[:70]}..."

print(f"dest[:4] = {dest[:4]}")
print(f"refused as PyCUDA refuses it: {refused}")
print(f"multiply of {n:,} float32 (size_t n from numpy.int32): matches NumPy exactly")
