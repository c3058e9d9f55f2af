"""Matrix multiply with shared-memory tiles (fast_matmul from Numba's documentation), checked against NumPy's A @ B.
Written for Numba; on ember only the imports change."""

import math

import numpy as np
from ember import cuda, float32  # was: from numba import cuda, float32

# Controls threads per block and shared memory usage.
# The computation will be done on blocks of TPBxTPB elements.
TPB = 16


@cuda.jit
def fast_matmul(A, B, C):
    # Define an array in the shared memory
    # The size and type of the arrays must be known at compile time
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)

    x, y = cuda.grid(2)

    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x  # blocks per grid

    # Each thread computes one element in the result matrix.
    # The dot product is chunked into dot products of TPB-long vectors.
    tmp = float32(0.)
    for i in range(bpg):
        # Preload data into shared memory
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]

        # Wait until all threads finish preloading
        cuda.syncthreads()

        # Computes partial product on the shared memory
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]

        # Wait until all threads finish computing
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


n = 500  # not a multiple of TPB: the edge tiles are padded with zeros
rng = np.random.default_rng(5)
A = rng.random((n, n), dtype=np.float32)
B = rng.random((n, n), dtype=np.float32)

A_d = cuda.to_device(A)
B_d = cuda.to_device(B)
C_d = cuda.device_array((n, n), dtype=np.float32)

threadsperblock = (TPB, TPB)
blockspergrid = (math.ceil(n / threadsperblock[0]), math.ceil(n / threadsperblock[1]))
fast_matmul[blockspergrid, threadsperblock](A_d, B_d, C_d)
C = C_d.copy_to_host()

expected = A @ B
np.testing.assert_allclose(C, expected, rtol=1e-4)
print(f"C[0, :3] = {C[0, :3]}, NumPy: {expected[0, :3]}")
print(f"shared-memory tiled matmul of {n}x{n} float32 (TPB={TPB}): matches NumPy "
      f"(max rel error {np.abs(C / expected - 1).max():.2g})")
