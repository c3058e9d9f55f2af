"""The simulator's speed (EMBER_SIMULATE=1), beside Numba's CUDA simulator on the same kernels
and ember's compiled kernels on the current device.

    python benchmarks/simulator_speed.py                 # ember's simulator and compiled kernels
    NUMBA_PATH=/tmp/numba python benchmarks/simulator_speed.py   # and Numba's simulator

Two kernels, each in a fresh process per library (the simulator is chosen at import):

- vector add: ``c[i] = a[i] + b[i]``, threads that never wait for one another;
- tiled matmul: Numba's documented ``fast_matmul`` (16 x 16 shared tiles, two ``syncthreads``
  per tile), threads that take turns at barriers.

Both are the kernels of the ``python`` rows of ``ember bench`` (``ember._bench.kernels``).

Each figure is the wall time of one launch after a warm-up launch, inputs from a fixed seed,
results checked against NumPy; threads/s is the launch's threads over that time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

# The kernels of the `python` bench rows (vector add, Numba's documented fast_matmul), then
# the driver.
DRIVER = r"""
import json, sys, time
import numpy as np

def timed(launch, check):
    launch()
    cuda.synchronize()
    t = time.perf_counter()
    launch()
    cuda.synchronize()
    seconds = time.perf_counter() - t
    check()
    return seconds

n, m = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(0)
a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
da, db, dc = cuda.to_device(a), cuda.to_device(b), cuda.device_array(n, np.float32)
add = timed(lambda: vector_add[(n + 255) // 256, 256](da, db, dc),
            lambda: np.testing.assert_array_equal(dc.copy_to_host(), a + b))
A, B = rng.random((m, m), dtype=np.float32), rng.random((m, m), dtype=np.float32)
dA, dB, dC = cuda.to_device(A), cuda.to_device(B), cuda.device_array((m, m), np.float32)
blocks = ((m + TPB - 1) // TPB, (m + TPB - 1) // TPB)
mm = timed(lambda: fast_matmul[blocks, (TPB, TPB)](dA, dB, dC),
           lambda: np.testing.assert_allclose(dC.copy_to_host(), A @ B, rtol=1e-4))
print(json.dumps([add, (n + 255) // 256 * 256, mm, blocks[0] * blocks[1] * TPB * TPB]))
"""


def measure(label: str, lib: str, env: dict, n: int, m: int) -> None:
    from ember._bench.kernels import JIT_KERNELS

    full = dict(os.environ, **env)
    program = JIT_KERNELS.format(lib=lib) + DRIVER
    done = subprocess.run([sys.executable, "-c", program, str(n), str(m)],
                          capture_output=True, text=True, env=full, timeout=3600)
    if done.returncode != 0:
        print(f"{label:<28} failed: {done.stderr.strip().splitlines()[-1]}")
        return
    add, add_threads, mm, mm_threads = json.loads(done.stdout.splitlines()[-1])
    print(f"{label:<28} vector add {n:>7,}: {add * 1e3:10.1f} ms ({add_threads / add:12,.0f} threads/s)   "
          f"matmul {m}x{m}: {mm * 1e3:10.1f} ms ({mm_threads / mm:10,.0f} threads/s)")


def main() -> None:
    n, m = 100_000, 64
    measure("ember, simulated", "ember", {"EMBER_SIMULATE": "1"}, n, m)
    measure("ember, compiled", "ember", {"EMBER_SIMULATE": "0", "NUMBA_ENABLE_CUDASIM": "0"}, n, m)
    numba = os.environ.get("NUMBA_PATH")
    if numba:
        path = numba + os.pathsep + os.environ.get("PYTHONPATH", "")
        measure("Numba's simulator", "numba", {"NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": path}, n, m)


if __name__ == "__main__":
    main()
