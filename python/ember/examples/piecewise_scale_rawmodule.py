"""Piecewise scaling (x<0: a*x, 0<=x<1: b*x, else c*x) with a CUDA C kernel from a CuPy RawModule.
Written for CuPy; on ember only the imports change."""

import ember as cp  # was: import cupy as cp
import numpy as np

code = r"""
extern "C" __global__ void piecewise_scale(const float* x, float* y, int n, float a, float b, float c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v < 0.0f ? v * a : (v < 1.0f ? v * b : v * c);
    }
}
"""
mod = cp.RawModule(code=code)
piecewise_scale = mod.get_function("piecewise_scale")

n = 1 << 20
rng = np.random.default_rng(1)
x_host = (rng.standard_normal(n) * 2).astype(np.float32)
a, b, c = np.float32(0.1), np.float32(2.0), np.float32(0.5)

x = cp.asarray(x_host)
y = cp.empty_like(x)
block = 256
grid = (n + block - 1) // block
piecewise_scale((grid,), (block,), (x, y, np.int32(n), a, b, c))
cp.cuda.Device().synchronize()

expected = np.where(x_host < 0, x_host * a, np.where(x_host < 1, x_host * b, x_host * c))
np.testing.assert_allclose(y.get(), expected, rtol=1e-6)
print("x[:4] =", x_host[:4])
print("y[:4] =", y[:4].get())
print(f"piecewise scale of {n:,} float32 on {grid} blocks of {block}: matches NumPy")
