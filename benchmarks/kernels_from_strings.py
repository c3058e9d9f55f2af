"""Kernels from strings, ember beside CuPy in one run (BENCHMARKS.md rows):

1. sustained time per launch of a 4-argument RawKernel, beside the raw ``cuLaunchKernel``
   floor measured in this process (ember's native loop);
2. the first new ElementwiseKernel in a fresh process with a cold cache, each further new
   kernel, and the first call with a warm disk cache (each in fresh processes);
3. bandwidth of a leaky-ReLU ElementwiseKernel on 2^28 float32 beside a device-to-device copy.

    python benchmarks/kernels_from_strings.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import ember
import numpy as np
from peers import load_cupy

TINY = r"""
extern "C" __global__ void tiny(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""


def per_launch_us(launch, sync, count: int, repeat: int) -> float:
    """Median over ``repeat`` runs of ``count`` back-to-back launches then one sync."""
    launch()
    sync()
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(count):
            launch()
        sync()
        runs.append((time.perf_counter() - t0) / count * 1e6)
    return statistics.median(runs)


def launch_rows(count: int, repeat: int) -> list[tuple[str, float]]:
    a, b, c = (ember.ones(32, dtype=np.float32) for _ in range(3))
    k = ember.RawKernel(TINY, "tiny")
    args = (a, b, c, np.int32(32))
    native = k.kernel
    rows = [
        ("cuLaunchKernel floor (ember native loop)",
         per_launch_us(lambda: native.launch_repeated((1,), (32,), args, count), ember.synchronize, 1, repeat)
         / count),
        ("ember RawKernel k(grid, block, args)", per_launch_us(lambda: k((1,), (32,), args), ember.synchronize,
                                                               count, repeat)),
    ]
    cupy = load_cupy()
    if cupy is not None:
        ca, cb, cc = (cupy.ones(32, dtype=np.float32) for _ in range(3))
        ck = cupy.RawKernel(TINY, "tiny")
        cargs = (ca, cb, cc, np.int32(32))
        sync = cupy.cuda.Device().synchronize
        rows.append(("CuPy RawKernel k(grid, block, args)", per_launch_us(lambda: ck((1,), (32,), cargs), sync,
                                                                          count, repeat)))
    return rows


# Run in a fresh interpreter: device start-up outside the timed span (no kernel is compiled
# before the first one timed, so NVRTC's own start-up is inside it), then the first kernel.
COMPILE_PROBE = r"""
import json, sys, time
import numpy as np
lib = sys.argv[1]
xp = __import__(lib)
x = xp.asarray(np.ones(1 << 20, dtype=np.float32))
sync = (lambda: xp.cuda.Device().synchronize()) if lib == "cupy" else xp.synchronize
sync()
times = []
for k, op in enumerate(["y = x > 0 ? x : x * a", "y = x * a + 1", "y = x - a * x"]):
    t0 = time.perf_counter()
    kern = xp.ElementwiseKernel("float32 x, float32 a", "float32 y", op, f"probe{k}")
    kern(x, np.float32(0.1))
    sync()
    times.append((time.perf_counter() - t0) * 1e3)
print(json.dumps(times))
"""


def compile_rows() -> list[tuple[str, float, float, float]]:
    """(library, first kernel ms, further kernel ms, warm-cache first kernel ms)."""
    libs = ["ember"] + (["cupy"] if load_cupy() is not None else [])
    rows = []
    for lib in libs:
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, EMBER_CACHE_DIR=cache, CUPY_CACHE_DIR=cache)
            runs = []
            for _ in range(2):  # cold, then warm disk cache
                out = subprocess.run([sys.executable, "-c", COMPILE_PROBE, lib], env=env, capture_output=True,
                                     text=True, check=True)
                runs.append(json.loads(out.stdout))
        cold, warm = runs
        rows.append((lib, cold[0], statistics.median(cold[1:]), warm[0]))
    return rows


def bandwidth_rows(n: int, repeat: int) -> list[tuple[str, float]]:
    rng = np.random.default_rng(0)
    host = rng.standard_normal(n, dtype=np.float32)
    rows = []

    def gbps(fn, start, end, sync) -> float:
        fn()
        sync()
        times = []
        for _ in range(repeat):
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(elapsed(start, end))
        return 2 * n * 4 / (statistics.median(times) * 1e-3) / 1e9

    x = ember.asarray(host)
    y = ember.empty_like(x)
    leaky = ember.ElementwiseKernel("float32 x, float32 a", "float32 y", "y = x > 0 ? x : x * a", "leaky_relu")
    elapsed = ember.cuda.get_elapsed_time
    s, e = ember.cuda.Event(), ember.cuda.Event()
    # cuMemcpyDtoDAsync, through the native array's copy.
    rows.append(("ember device-to-device copy", gbps(lambda: x._a.copy_into(y._a), s, e, ember.synchronize)))
    rows.append(("ember ElementwiseKernel leaky ReLU", gbps(lambda: leaky(x, np.float32(0.1), y), s, e,
                                                            ember.synchronize)))
    got = y.get()
    assert np.array_equal(got, np.where(host > 0, host, host * np.float32(0.1))), "leaky ReLU result is wrong"
    cupy = load_cupy()
    if cupy is not None:
        cx = cupy.asarray(host)
        cy = cupy.empty_like(cx)
        cleaky = cupy.ElementwiseKernel("float32 x, float32 a", "float32 y", "y = x > 0 ? x : x * a", "leaky_relu")
        elapsed = cupy.cuda.get_elapsed_time
        cs, ce = cupy.cuda.Event(), cupy.cuda.Event()
        csync = cupy.cuda.Device().synchronize
        rows.append(("CuPy device-to-device copy", gbps(lambda: cy.__setitem__(Ellipsis, cx), cs, ce, csync)))
        rows.append(("CuPy ElementwiseKernel leaky ReLU", gbps(lambda: cleaky(cx, np.float32(0.1), cy), cs, ce,
                                                               csync)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    opts = parser.parse_args()
    if ember.backend() != "cuda":
        sys.exit("this benchmark measures CUDA launches; run it on a CUDA machine")
    count, repeat = (2000, 5) if opts.quick else (20000, 9)
    n = 1 << (20 if opts.quick else 28)
    print(f"ember {ember.__version__} on {ember.Device(0).name}")
    print("\n| launch of a 4-argument kernel, sustained | µs per launch |\n| --- | ---: |")
    for name, us in launch_rows(count, repeat):
        print(f"| {name} | {us:.2f} |")
    print("target: ember RawKernel <= floor + 0.5 µs")
    print("\n| first ElementwiseKernel, fresh process | cold cache (ms) | each further new (ms) "
          "| warm disk cache (ms) |")
    print("| --- | ---: | ---: | ---: |")
    for lib, first, further, warm in compile_rows():
        print(f"| {lib} | {first:.0f} | {further:.0f} | {warm:.1f} |")
    print("target: ember cold <= 250 ms, further <= 40 ms, warm <= 5 ms")
    print(f"\n| 2^{int(np.log2(n))} float32, read + write | GB/s |\n| --- | ---: |")
    for name, g in bandwidth_rows(n, repeat * 3):
        print(f"| {name} | {g:.0f} |")
    print("target: ember leaky ReLU >= 96% of the device-to-device copy")


if __name__ == "__main__":
    main()
