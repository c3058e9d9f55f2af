"""An elementwise expression compiled with Numba's @vectorize for the GPU, timed beside NumPy on the CPU.
Written for Numba; on ember only the imports change."""

import time

import ember
import numpy as np
from ember import cuda, vectorize  # was: from numba import cuda, vectorize


@vectorize(["float32(float32, float32)"], target="cuda")
def expr(a, b):
    return (a * 10 + 2) * ((b + 2) * 10 - 5) * 5


def best_ms(fn, *args, **kwargs):
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        fn(*args, **kwargs)
        cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return min(times) * 1e3


def numpy_expr(a, b):
    return (a * 10 + 2) * ((b + 2) * 10 - 5) * 5


Mi = 1 << 20
# A GPU gets large arrays; ember on a CPU device (PoCL) smaller ones, so the example stays short.
sizes = [1 * Mi, 10 * Mi] if ember.Device(0).attributes["is_cpu"] else [10 * Mi, 30 * Mi, 90 * Mi]
rng = np.random.default_rng(2024)
for n in sizes:
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    d_a, d_b = cuda.to_device(a), cuda.to_device(b)
    d_out = expr(d_a, d_b)  # the first call compiles the kernel
    cuda.synchronize()
    out = expr(a, b)  # NumPy in, NumPy out (copies included)

    expected = numpy_expr(a, b)
    np.testing.assert_allclose(out, expected, rtol=1e-5)
    np.testing.assert_allclose(d_out.copy_to_host(), expected, rtol=1e-5)

    t_dev = best_ms(expr, d_a, d_b, out=d_out)
    t_host = best_ms(expr, a, b)
    t_np = best_ms(numpy_expr, a, b)
    print(f"{n // Mi:3d} Mi float32: ember {t_dev:7.2f} ms on device arrays, {t_host:7.2f} ms from NumPy arrays"
          f" (copies included); NumPy on the CPU {t_np:7.2f} ms")
err = np.abs(out - expected).max()
print(f"vectorize of (a*10+2)*((b+2)*10-5)*5 on {len(sizes)} sizes up to {sizes[-1] // Mi} Mi float32: "
      f"matches NumPy (max abs error {err:.3g})")
