"""``a + b`` on the CPU (no GPU): ember on PoCL's CPU device beside NumPy and, when it is
installed, PyOpenCL on the same PoCL device (BENCHMARKS.md's CPU rows).

    python benchmarks/arrays_cpu.py [--log2 24]

Host wall time of the operation plus a synchronise, median of 20 runs after warm-up, on
random float32 inputs. GB/s counts the bytes read and written (12 per element).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import ember
import numpy as np


def median_seconds(fn, sync, repeat=20) -> float:
    fn()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def pyopencl_row(a_h, b_h):
    """PyOpenCL's own elementwise `a + b` on PoCL's CPU device, or None when unavailable."""
    try:
        import pyopencl as cl
        import pyopencl.array as cla
    except ImportError:
        return None
    devices = [d for p in cl.get_platforms() for d in p.get_devices() if d.type & cl.device_type.CPU]
    if not devices:
        return None
    ctx = cl.Context([devices[0]])
    queue = cl.CommandQueue(ctx)
    a, b = cla.to_device(queue, a_h), cla.to_device(queue, b_h)
    seconds = median_seconds(lambda: a + b, queue.finish)
    out = (a + b).get()
    assert np.array_equal(out, a_h + b_h)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log2", type=int, default=24, help="log2 of the element count (default 24)")
    opts = parser.parse_args()
    info = ember.Device(0).attributes
    if not info["is_cpu"]:
        sys.exit("this benchmark measures the CPU device; run it with EMBER_BACKEND=opencl on a machine whose "
                 "OpenCL device is a CPU (PoCL)")
    n = 1 << opts.log2
    rng = np.random.default_rng(0)
    a_h, b_h = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    a, b = ember.asarray(a_h), ember.asarray(b_h)
    np.testing.assert_array_equal((a + b).get(), a_h + b_h)
    rows = [
        ("ember (PoCL)", median_seconds(lambda: a + b, ember.synchronize)),
        ("NumPy", median_seconds(lambda: a_h + b_h, lambda: None)),
    ]
    pcl = pyopencl_row(a_h, b_h)
    rows.append(("PyOpenCL (PoCL)", pcl) if pcl is not None else ("PyOpenCL (PoCL)", None))
    print(f"ember {ember.__version__} on {info['name']}, a + b, float32, 2^{opts.log2} elements")
    print("\n| library | ms | GB/s |\n| --- | ---: | ---: |")
    for name, seconds in rows:
        if seconds is None:
            print(f"| {name} | n/a (not installed) | |")
        else:
            print(f"| {name} | {seconds * 1e3:.2f} | {12 * n / seconds / 1e9:.1f} |")


if __name__ == "__main__":
    main()
