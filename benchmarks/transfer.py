"""NumPy (pageable) -> device -> NumPy bandwidth, ember beside CuPy, in one run.

    python benchmarks/transfer.py            # 256 MiB of float32 (the BENCHMARKS.md row)
    python benchmarks/transfer.py --mib 16   # a quick run

Every row is a blocking copy, timed with the host clock around the call plus a device
synchronize, after warm-up runs; the figure is the median. CuPy's rows appear when CuPy is
importable and sees a CUDA device.
"""

from __future__ import annotations

import argparse
import statistics
import time

import ember
import numpy as np
from ember._bench.peers import cupy_or_none

TARGET = "target: >= 15 GB/s each way (BENCHMARKS.md)"


def median_seconds(fn, sync, warmup: int, repeat: int) -> float:
    """Median wall time of ``fn(); sync()``; fn's result is released outside the timed span."""
    times = []
    for i in range(warmup + repeat):
        t0 = time.perf_counter()
        result = fn()
        sync()
        t1 = time.perf_counter()
        del result
        if i >= warmup:
            times.append(t1 - t0)
    return statistics.median(times)


# The four copies, spelled alike for ember and CuPy: (row name, fn(xp, host, host_buf, dev)).
OPERATIONS = [
    ("H->D  asarray(host)      new array", lambda xp, host, buf, dev: xp.asarray(host)),
    ("H->D  d.set(host)        existing array", lambda xp, host, buf, dev: dev.set(host)),
    ("D->H  asnumpy(d)         new host array", lambda xp, host, buf, dev: xp.asnumpy(dev)),
    ("D->H  d.get(out=buf)     existing host array", lambda xp, host, buf, dev: dev.get(out=buf)),
]


def round_trip_ok(xp, host) -> bool:
    """Bit-identical round trips through both pairs of calls (asarray/asnumpy, set/get(out))."""
    bits = host.view(np.uint32)
    d = xp.asarray(host)
    first = xp.asnumpy(d)
    e = xp.empty(host.shape, host.dtype)
    e.set(host)
    second = np.empty_like(host)
    e.get(out=second)
    return all(np.array_equal(r.view(np.uint32), bits) for r in (first, second))


def measure(xp, sync, host, warmup: int, repeat: int) -> list[float]:
    """GB/s of each operation (1 GB = 1e9 bytes)."""
    dev = xp.empty(host.shape, host.dtype)
    dev.set(host)
    host_buf = np.empty_like(host)
    return [
        host.nbytes / median_seconds(lambda op=op: op(xp, host, host_buf, dev), sync, warmup, repeat) / 1e9
        for _, op in OPERATIONS
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mib", type=int, default=256, help="array size in MiB of float32 (default 256)")
    parser.add_argument("--repeat", type=int, default=20, help="timed runs per row (default 20)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs first (default 3)")
    args = parser.parse_args()

    n = args.mib * 2**20 // 4
    host = np.random.default_rng(0).standard_normal(n, dtype=np.float32)
    cp = cupy_or_none()

    print(f"ember {ember.__version__} backend={ember.backend()} device: {ember.Device().name}")
    if cp is None:
        print(f"numpy {np.__version__}, cupy not available")
    else:
        name = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"]
        name = name.decode() if isinstance(name, bytes) else name
        print(f"numpy {np.__version__}, cupy {cp.__version__} device: {name}")
    print(f"{args.mib} MiB float32 ({n} elements), pageable host memory, "
          f"median of {args.repeat} after {args.warmup} warm-up runs")

    results = {"ember": measure(ember, ember.synchronize, host, args.warmup, args.repeat)}
    checks = {"ember": round_trip_ok(ember, host)}
    if cp is not None:
        results["CuPy"] = measure(cp, cp.cuda.Device().synchronize, host, args.warmup, args.repeat)
        checks["CuPy"] = round_trip_ok(cp, host)
    for lib, ok in checks.items():
        print(f"round trip {lib}: {'bit-identical' if ok else 'FAIL (data differs)'}")

    print()
    print(f"{'operation':<45} {'ember GB/s':>10} {'CuPy GB/s':>10} {'ember/CuPy':>11}")
    for i, (name, _) in enumerate(OPERATIONS):
        mine = results["ember"][i]
        theirs = results["CuPy"][i] if "CuPy" in results else None
        peer = "-" if theirs is None else f"{theirs:10.2f}"
        ratio = "-" if theirs is None else f"{mine / theirs:10.2f}x"
        print(f"{name:<45} {mine:10.2f} {peer:>10} {ratio:>11}")
    print(TARGET)


if __name__ == "__main__":
    main()

