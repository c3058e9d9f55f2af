"""Leaky ReLU of a random float32 array with a CuPy ElementwiseKernel, checked against NumPy.
Written for CuPy; on ember only the imports change."""

import ember as cp  # was: import cupy as cp
import numpy as np

leaky_relu = cp.ElementwiseKernel(
    "T x, T alpha",
    "T y",
    "y = x > 0 ? x : x * alpha",
    "leaky_relu",
)

n = 1_000_000
rng = np.random.default_rng(0)
x_host = rng.standard_normal(n, dtype=np.float32)
alpha = np.float32(0.1)

x = cp.asarray(x_host)
y = leaky_relu(x, alpha)
cp.cuda.Device().synchronize()

expected = np.where(x_host > 0, x_host, x_host * alpha)
np.testing.assert_allclose(y.get(), expected, rtol=1e-6)
print("x[:4]        =", x_host[:4])
print("leaky(x)[:4] =", y[:4].get())
print(f"leaky ReLU of {n:,} float32: matches NumPy")
