"""Array operations, ember beside CuPy and PyTorch in one run (BENCHMARKS.md rows).

    python benchmarks/arrays.py [--quick]

Device work is timed with events after warm-up (median of >= 20 runs), on random inputs; the
small-operation row is sustained host time per call beside the raw launch floor measured in
this process. A row a library cannot run prints "n/a" with the reason.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import ember
import numpy as np
from peers import load_cupy

REPEAT = 25


def load_torch():
    try:
        import torch

        return torch if torch.cuda.is_available() else None
    except ImportError:
        return None


class Lib:
    """One library's spelling of what the rows need."""

    def __init__(self, name, xp, asarray, sync, events, elapsed_ms):
        self.name, self.xp, self.asarray, self.sync = name, xp, asarray, sync
        self.events, self.elapsed_ms = events, elapsed_ms

    def device_ms(self, fn) -> float:
        fn()
        self.sync()
        start, end = self.events()
        times = []
        for _ in range(REPEAT):
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(self.elapsed_ms(start, end))
        return statistics.median(times)

    def host_us(self, fn, count=5000) -> float:
        fn()
        self.sync()
        runs = []
        for _ in range(7):
            t0 = time.perf_counter()
            for _ in range(count):
                fn()
            self.sync()
            runs.append((time.perf_counter() - t0) / count * 1e6)
        return statistics.median(runs)


def libraries() -> list[Lib]:
    libs = [Lib("ember", ember, ember.asarray, ember.synchronize,
                lambda: (ember.cuda.Event(), ember.cuda.Event()), ember.cuda.get_elapsed_time)]
    cp = load_cupy()
    if cp is not None:
        libs.append(Lib("CuPy", cp, cp.asarray, cp.cuda.Device().synchronize,
                        lambda: (cp.cuda.Event(), cp.cuda.Event()), cp.cuda.get_elapsed_time))
    torch = load_torch()
    if torch is not None:
        def events():
            return torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

        libs.append(Lib("PyTorch", torch, lambda h: torch.from_numpy(h).cuda(), torch.cuda.synchronize, events,
                        lambda s, e: s.elapsed_time(e)))
    return libs


def rows(quick: bool):
    n = 1 << (22 if quick else 28)
    side = 1024 if quick else 8192
    rng = np.random.default_rng(0)
    a_h, b_h = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    m_h = rng.random((side, side), dtype=np.float32)
    small_h = rng.random(1024, dtype=np.float32)
    table = []
    for lib in libraries():
        table.extend(lib_rows(lib, n, side, a_h, b_h, m_h, small_h))
    return table


def lib_rows(lib, n, side, a_h, b_h, m_h, small_h):
    """The rows of one library (a function, so each closure sees this library's arrays)."""
    xp = lib.xp
    a, b, m, s = (lib.asarray(h) for h in (a_h, b_h, m_h, small_h))
    table = []

    def gb(bytes_, ms):
        return bytes_ / (ms * 1e-3) / 1e9

    def measure(label, fn, bytes_=None):
        try:
            ms = lib.device_ms(fn)
            table.append((label, lib.name, f"{gb(bytes_, ms):.0f} GB/s" if bytes_ else f"{ms:.3f} ms"))
        except Exception as e:  # an operation the library (or ember, so far) lacks
            table.append((label, lib.name, f"n/a ({type(e).__name__}: {str(e)[:60]})"))

    measure(f"a + b, float32, {n}", lambda: a + b, 3 * 4 * n)
    measure(f"a.sum(), float32, {n}", lambda: a.sum(), 4 * n)
    measure(f"m.mean(axis=0), {side}x{side}", lambda: m.mean(axis=0), 4 * side * side)
    measure(f"m.mean(axis=1), {side}x{side}", lambda: m.mean(axis=1), 4 * side * side)
    measure(f"(a*10+2)*((b+2)*10-5)*5, float32, {n}", lambda: (a * 10 + 2) * ((b + 2) * 10 - 5) * 5)
    measure(f"m[m > 0.5], {side}x{side}", lambda: m[m > 0.5])
    if lib.name == "PyTorch":
        measure(f"random.rand, float32, {n}", lambda: xp.rand(n, device="cuda"), 4 * n)
    else:
        measure(f"random.rand, float32, {n}", lambda: xp.random.rand(n, dtype=np.float32), 4 * n)
    label = "a + b, 1024 float32, sustained per call"
    try:
        table.append((label, lib.name, f"{lib.host_us(lambda: s + s):.2f} µs"))
    except Exception as e:
        table.append((label, lib.name, f"n/a ({type(e).__name__})"))
    return table


def floor_us() -> float:
    src = 'extern "C" __global__ void k(float* a, float* b, float* c, int n) {}'
    k = ember.RawKernel(src, "k")
    x = ember.ones(32, dtype=np.float32)
    native = k.kernel
    native.launch_repeated((1,), (32,), (x, x, x, np.int32(32)), 10)
    ember.synchronize()
    runs = []
    for _ in range(7):
        t0 = time.perf_counter()
        native.launch_repeated((1,), (32,), (x, x, x, np.int32(32)), 20000)
        ember.synchronize()
        runs.append((time.perf_counter() - t0) / 20000 * 1e6)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes")
    opts = parser.parse_args()
    if ember.backend() != "cuda":
        sys.exit("this benchmark compares CUDA libraries; run it on a CUDA machine")
    print(f"ember {ember.__version__} on {ember.Device(0).name}")
    print(f"raw launch floor (ember native loop): {floor_us():.2f} µs")
    print("\n| workload | library | figure |\n| --- | --- | ---: |")
    for label, lib, figure in rows(opts.quick):
        print(f"| {label} | {lib} | {figure} |")


if __name__ == "__main__":
    main()
