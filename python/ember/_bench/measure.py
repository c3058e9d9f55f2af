"""How ``ember bench`` times things (BENCHMARKS.md): device work with events after warm-up,
median of the repeats; host costs sustained (many calls, one synchronise, divided); first-use
costs in fresh interpreters."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
import timeit

# Each result is held until the work is timed: ember computes a large elementwise result only
# when something can see it (automatic fusion), so a result dropped at once would never run.
# Two warm-up calls: compiling, and ember fusing a repeated expression from its second pass.


def device_ms(fn, events, sync, elapsed_ms, repeat: int) -> float:
    """Median milliseconds of ``fn`` on the device, between two events, after warm-up calls."""
    for _ in range(2):
        result = fn()
        sync()
        del result
    start, end = events()
    times = []
    for _ in range(repeat):
        start.record()
        result = fn()
        end.record()
        end.synchronize()
        del result
        times.append(elapsed_ms(start, end))
    return statistics.median(times)


def wall_ms(fn, sync, repeat: int) -> float:
    """Median wall milliseconds of ``fn(); sync()`` after warm-up calls (CPU devices, NumPy)."""
    for _ in range(2):
        result = fn()
        sync()
        del result
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        sync()
        del result
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def sustained_us(call, sync, count: int, repeat: int, names: dict | None = None) -> float:
    """Microseconds per call of ``count`` back-to-back calls then one synchronise; median of runs.

    ``call`` is a function, or a statement run in a loop compiled around it (``timeit``'s loop,
    over ``names``): the figure is then that of the statement as user code writes it, without a
    Python call per iteration wrapped around it."""
    if isinstance(call, str):
        loop = timeit.Timer(call, globals=names or {})
        run = loop.timeit
    else:
        def run(n):
            for _ in range(n):
                result = call()
            del result
    run(1)
    sync()
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run(count)
        sync()
        runs.append((time.perf_counter() - t0) / count * 1e6)
    return statistics.median(runs)


def fresh_process(code: str, *args: str, env: dict | None = None, timeout: float = 300,
                  python: str = sys.executable) -> list[float]:
    """Runs ``code`` in a new interpreter; it prints a JSON list of numbers as its last line."""
    out = subprocess.run([python, "-c", code, *args], capture_output=True, text=True, timeout=timeout,
                         env=dict(os.environ, **(env or {})))
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(last)
    return json.loads(out.stdout.strip().splitlines()[-1])


def gbps(nbytes: int, ms: float) -> float:
    return nbytes / (ms * 1e-3) / 1e9


def tflops(flops: float, ms: float) -> float:
    return flops / (ms * 1e-3) / 1e12
