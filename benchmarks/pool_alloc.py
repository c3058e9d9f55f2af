"""Host time to allocate and free a 1 KiB array from the memory pool, ember beside CuPy.

    python benchmarks/pool_alloc.py            # 200,000 alloc+free per repeat
    python benchmarks/pool_alloc.py --n 20000  # a quick run

Each row loops ``x = empty(256, float32); del x`` n times, timed with time.perf_counter_ns;
the figure is the median over the repeats, in ns per alloc+free. CuPy's row appears when
CuPy is importable and sees a CUDA device.
"""

from __future__ import annotations

import argparse
import statistics
import time

import ember
import numpy as np
from ember._bench.peers import cupy_or_none

TARGET = "target: <= 1 us (BENCHMARKS.md)"


def ns_per_call(alloc, n: int, repeats: int) -> float:
    """Median over ``repeats`` of the loop's ns per ``x = alloc(); del x``."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            x = alloc()
            del x
        times.append((time.perf_counter_ns() - t0) / n)
    return statistics.median(times)


def native_empty():
    """The native allocation ember.empty wraps (a private call: None if its form has changed)."""
    device = ember.Device().id

    def alloc():
        return ember._ember.empty(device, [256], "float32")

    try:
        alloc()
    except (AttributeError, TypeError):
        return None
    return alloc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=200_000, help="alloc+free per repeat (default 200000)")
    parser.add_argument("--repeats", type=int, default=7, help="timed loops (default 7)")
    args = parser.parse_args()

    rows = [("ember.empty(256, float32); del x", lambda: ember.empty(256, ember.float32))]
    native = native_empty()
    if native is not None:
        rows.append(("  native _ember.empty, no Python wrapper", native))
    cp = cupy_or_none()
    if cp is not None:
        rows.append(("cupy.empty(256, float32); del x", lambda: cp.empty(256, cp.float32)))
    rows.append(("numpy.empty(256, float32) (host, reference)", lambda: np.empty(256, np.float32)))

    print(f"ember {ember.__version__} backend={ember.backend()} device: {ember.Device().name}")
    print(f"numpy {np.__version__}, " + ("cupy not available" if cp is None else f"cupy {cp.__version__}"))
    print(f"1 KiB arrays, {args.n} alloc+free per loop, median of {args.repeats} loops")
    print()
    print(f"{'operation':<46} {'ns per alloc+free':>18}")
    for name, alloc in rows:
        ns_per_call(alloc, min(args.n, 10_000), 1)  # warm-up: fills the pool's cache
        print(f"{name:<46} {ns_per_call(alloc, args.n, args.repeats):18.0f}")
    if cp is None:
        print(f"{'cupy.empty(256, float32); del x':<46} {'-':>18}")
    print(TARGET)


if __name__ == "__main__":
    main()

