"""Explicit steps of the 2-D heat equation with a Numba device function, swapping two buffers, checked against NumPy.
Written for Numba; on ember only the imports change."""

import math

import numpy as np
from ember import cuda  # was: from numba import cuda


@cuda.jit(device=True)
def laplacian(u, i, j):
    return u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]


@cuda.jit
def heat_step(u, u_new, alpha):
    i, j = cuda.grid(2)
    n, m = u.shape
    if 0 < i < n - 1 and 0 < j < m - 1:
        u_new[i, j] = u[i, j] + alpha * laplacian(u, i, j)
    elif i < n and j < m:
        u_new[i, j] = u[i, j]  # the boundary keeps its temperature


n, steps, alpha = 512, 200, 0.2  # alpha = k * dt / dx**2 <= 0.25 keeps the scheme stable
rng = np.random.default_rng(1)
u0 = rng.random((n, n)) * 100.0

u = cuda.to_device(u0)
u_new = cuda.device_array_like(u)
threads = (16, 16)
blocks = (math.ceil(n / threads[0]), math.ceil(n / threads[1]))
for _ in range(steps):
    heat_step[blocks, threads](u, u_new, alpha)
    u, u_new = u_new, u
result = u.copy_to_host()

ref = u0.copy()
for _ in range(steps):
    lap = ref[:-2, 1:-1] + ref[2:, 1:-1] + ref[1:-1, :-2] + ref[1:-1, 2:] - 4.0 * ref[1:-1, 1:-1]
    ref[1:-1, 1:-1] = ref[1:-1, 1:-1] + alpha * lap

np.testing.assert_allclose(result, ref, rtol=1e-12, atol=1e-9)
print(f"interior temperature spread: {u0[1:-1, 1:-1].std():.3f} at the start, {result[1:-1, 1:-1].std():.3f} "
      f"after {steps} steps")
print(f"{steps} heat-equation steps on a {n}x{n} float64 grid: matches NumPy "
      f"(max abs error {np.abs(result - ref).max():.2g})")
