"""Vector add with a CUDA C kernel through PyCUDA's SourceModule and drv.In/drv.Out, checked against NumPy.
Written for PyCUDA; on ember only the imports change."""

import ember.cuda.driver as drv  # was: import pycuda.driver as drv
import numpy as np
from ember.cuda.compiler import SourceModule  # was: from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void add(float *c, const float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
""")
add = mod.get_function("add")

n = 1_000_000
rng = np.random.default_rng(3)
a = rng.standard_normal(n).astype(np.float32)
b = rng.standard_normal(n).astype(np.float32)
c = np.zeros_like(a)

threads = 256
add(drv.Out(c), drv.In(a), drv.In(b), np.int32(n), block=(threads, 1, 1), grid=((n + threads - 1) // threads, 1))

np.testing.assert_allclose(c, a + b, rtol=0, atol=0)
print(f"c[:4] = {c[:4]}")
print(f"vector add of {n:,} float32 with CUDA C: matches NumPy (max abs error {np.abs(c - (a + b)).max()})")
