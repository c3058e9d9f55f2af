"""Vector add with a Numba @cuda.jit kernel: c[i] = a[i] + b[i] on the device, checked against NumPy.
Written for Numba; on ember only the imports change."""

import numpy as np
from ember import cuda  # was: from numba import cuda


@cuda.jit
def add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


n = 1_000_000
rng = np.random.default_rng(42)
a = rng.standard_normal(n, dtype=np.float32)
b = rng.standard_normal(n, dtype=np.float32)

d_a = cuda.to_device(a)
d_b = cuda.to_device(b)
d_c = cuda.device_array_like(d_a)

threads = 256
blocks = (n + threads - 1) // threads
add[blocks, threads](d_a, d_b, d_c)
c = d_c.copy_to_host()

expected = a + b
np.testing.assert_allclose(c, expected, rtol=0, atol=0)
print(f"c[:4] = {c[:4]}")
print(f"vector add of {n:,} float32: matches NumPy (max abs error {np.abs(c - expected).max()})")
