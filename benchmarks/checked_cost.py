"""The cost of checked mode (EMBER_CHECKED=1 / @cuda.jit(boundscheck=True)): each kind of
kernel timed with checked mode off and on, in one process, on the current device.

    python benchmarks/checked_cost.py              # 2^16 and 2^24 elements
    python benchmarks/checked_cost.py --sizes 20   # 2^20 only

Rows: a ufunc (add), a cast (float32 -> float64, ember's own map kernel), an ElementwiseKernel
gathering through a raw array, and a @cuda.jit kernel (a * x + y). Each figure is the median over
the repeats of the wall time per call, every call followed by a synchronize (so "off" and "on"
are timed alike: a checked launch waits for its kernel to read the fault record). Off runs the
unchecked kernels, which checked mode does not touch; the ratio is what turning it on costs.
"""

from __future__ import annotations

import argparse
import statistics
import time

import ember
import numpy as np
from ember import cuda


@cuda.jit
def axpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


GATHER = ember.ElementwiseKernel("raw T x, int64 n", "T y", "y = x[(i * 7) % n]", "checked_cost_gather")


def us_per_call(call, repeats: int, inner: int) -> float:
    """Median over ``repeats`` of the microseconds per ``call(); synchronize()``."""
    call()
    ember.cuda.synchronize()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            call()
            ember.cuda.synchronize()
        times.append((time.perf_counter() - t0) / inner * 1e6)
    return statistics.median(times)


def rows(n: int):
    rng = np.random.default_rng(0)
    x = ember.asarray(rng.standard_normal(n).astype(np.float32))
    y = ember.asarray(rng.standard_normal(n).astype(np.float32))
    out = ember.empty(n, dtype=ember.float32)
    threads = 256
    blocks = (n + threads - 1) // threads
    return [
        ("ufunc add (float32)", lambda: ember.add(x, y, out=out)),
        ("cast float32 -> float64", lambda: x.astype(ember.float64)),
        ("ElementwiseKernel, raw gather", lambda: GATHER(x, n, out)),
        ("@cuda.jit a * x + y", lambda: axpy[blocks, threads](out, np.float32(2.0), x, y)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 24], help="log2 of the element counts")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--inner", type=int, default=20, help="calls per timed loop")
    args = parser.parse_args()
    print(f"device: {ember.Device().name}")
    print(f"{'kernel':34} {'n':>10} {'off us':>10} {'on us':>10} {'on/off':>7}")
    for p in args.sizes:
        n = 1 << p
        for label, call in rows(n):
            before = ember._ember.set_checked(False)
            try:
                off = us_per_call(call, args.repeats, args.inner)
                ember._ember.set_checked(True)
                on = us_per_call(call, args.repeats, args.inner)
            finally:
                ember._ember.set_checked(before)
            print(f"{label:34} {n:>10} {off:>10.1f} {on:>10.1f} {on / off:>7.2f}")


if __name__ == "__main__":
    main()
