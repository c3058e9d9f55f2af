"""CuPy's memory pool: bytes in use and held, a freed block reused by the next array, blocks given back.
Written for CuPy; on ember only the imports change."""

import ember as cp  # was: import cupy as cp
import numpy as np

mempool = cp.get_default_memory_pool()
MiB = 1 << 20

n = 1 << 20
rng = np.random.default_rng(7)
x_host = rng.standard_normal(n, dtype=np.float32)
x = cp.asarray(x_host)
print(f"after x ({x.nbytes / MiB:.0f} MiB): used {mempool.used_bytes() / MiB:.2f} MiB, "
      f"held {mempool.total_bytes() / MiB:.2f} MiB")
used_x = mempool.used_bytes()
assert used_x >= x.nbytes

y = x * x
np.testing.assert_allclose(y.get(), x_host * x_host, rtol=1e-6)
assert mempool.used_bytes() >= used_x + y.nbytes
y_ptr = y.data.ptr
del y  # the block goes back to the pool, not to the device
assert mempool.used_bytes() == used_x and mempool.total_bytes() >= used_x + x.nbytes

z = x + 1  # same size: the pool hands out the block y had
np.testing.assert_allclose(z.get(), x_host + 1, rtol=1e-6)
assert z.data.ptr == y_ptr
print(f"z reuses y's block at {z.data.ptr:#x}: used {mempool.used_bytes() / MiB:.2f} MiB, "
      f"held {mempool.total_bytes() / MiB:.2f} MiB")

del x, z
held = mempool.total_bytes()
mempool.free_all_blocks()
assert mempool.used_bytes() == 0 and mempool.total_bytes() == 0
print(f"freed all: held {held / MiB:.2f} MiB -> {mempool.total_bytes() / MiB:.2f} MiB")
print(f"memory pool: a freed {n * 4 // MiB} MiB block reused, all blocks given back; x*x and x+1 match NumPy")
