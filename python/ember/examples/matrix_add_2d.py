"""2-D matrix add with a Numba @cuda.jit kernel on a 2-D grid of 2-D blocks, checked against NumPy.
Written for Numba; on ember only the imports change."""

import math

import numpy as np
from ember import cuda  # was: from numba import cuda


@cuda.jit
def matrix_add(A, B, C):
    x, y = cuda.grid(2)
    if x < C.shape[0] and y < C.shape[1]:
        C[x, y] = A[x, y] + B[x, y]


rows, cols = 1000, 1500
rng = np.random.default_rng(11)
A = rng.standard_normal((rows, cols))
B = rng.standard_normal((rows, cols))

d_A = cuda.to_device(A)
d_B = cuda.to_device(B)
d_C = cuda.device_array((rows, cols), dtype=np.float64)

threads_per_block = (16, 16)
blocks_per_grid = (math.ceil(rows / threads_per_block[0]), math.ceil(cols / threads_per_block[1]))
matrix_add[blocks_per_grid, threads_per_block](d_A, d_B, d_C)
C = d_C.copy_to_host()

np.testing.assert_allclose(C, A + B, rtol=0, atol=0)
print(f"grid {blocks_per_grid} of blocks {threads_per_block}; C[0, :3] = {C[0, :3]}")
print(f"2-D matrix add of {rows}x{cols} float64: matches NumPy (max abs error {np.abs(C - (A + B)).max()})")
