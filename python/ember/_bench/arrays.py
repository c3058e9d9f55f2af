"""Array rows of BENCHMARKS.md on a CUDA device: ember beside CuPy, PyTorch (and numba-cuda's
``@vectorize`` for the hand-fused expression; ``fuse`` beside ``cupy.fuse``)."""

from __future__ import annotations

import numpy as np

from .common import launch_floor_us, random_f32, record
from .measure import gbps, sustained_us, tflops
from .report import Row

EXPR = "(a*10+2)*((b+2)*10-5)*5"


def rows(libs: dict, quick: bool, progress) -> list[Row]:
    n = 1 << (22 if quick else 28)
    nf = (4 if quick else 90) * 2**20
    side, mside, mm = (1024, 1024, 1024) if quick else (8192, 4096, 4096)
    repeat = 10 if quick else 25
    p = f"2^{int(np.log2(n))}"
    table = {
        "add": Row("arrays", f"a + b, float32, {p}", "GB/s", True, ">= best peer"),
        "expr": Row("arrays", f"{EXPR}, float32, {nf >> 20} Mi, eager", "ms", False, "<= 0.42 ms (automatic fusion)"),
        "fuse": Row("arrays", f"{EXPR}, {nf >> 20} Mi, fused by hand with fuse (ember / CuPy)", "ms", False,
                    "<= best peer"),
        "vectorize": Row("arrays", f"{EXPR}, {nf >> 20} Mi, fused by hand with @vectorize (ember / Numba)", "ms",
                         False, "<= best peer"),
        "sum": Row("arrays", f"a.sum(), float32, {p}", "GB/s", True, ">= best peer"),
        "mean0": Row("arrays", f"m.mean(axis=0), {side}x{side} float32", "GB/s", True, ">= best peer"),
        "mean1": Row("arrays", f"m.mean(axis=1), {side}x{side} float32", "GB/s", True, ">= best peer"),
        "mask": Row("arrays", f"m[m > 0.5], {mside}x{mside} float32", "ms", False, "<= best peer"),
        "matmul": Row("arrays", f"A @ B, float32, {mm}", "TFLOP/s", True, ">= 0.97x best peer"),
        "rand": Row("arrays", f"random.rand, float32, {p}", "GB/s", True, ">= best peer"),
        "floor": Row("arrays", "raw cuLaunchKernel floor (ember native loop)", "µs", False, compare=False, key="floor"),
        "small": Row("arrays", "a + b, 1024 float32, sustained per call", "µs", False, "<= floor + 1 µs"),
    }
    host = {"a": random_f32(n, 0), "b": random_f32(n, 1), "fa": random_f32(nf, 2), "fb": random_f32(nf, 3),
            "m": random_f32((side, side), 4), "mm": random_f32((mside, mside), 5), "A": random_f32((mm, mm), 6),
            "B": random_f32((mm, mm), 7), "s": random_f32(1024, 8)}
    count, reps = (2000, 5) if quick else (20000, 7)
    progress("arrays: raw launch floor")
    record(table["floor"], "ember", lambda: launch_floor_us(count, reps))
    for lib in libs.values():
        if lib.name in ("ember", "CuPy", "PyTorch"):
            progress(f"arrays: {lib.name}")
            _library_rows(lib, table, host, repeat, count, reps)
    if "numba-cuda" in libs:
        progress("arrays: numba-cuda @vectorize")
        _numba_vectorize(libs["numba-cuda"], table["vectorize"], host, repeat)
    return list(table.values())


def _library_rows(lib, table, host, repeat, count, reps) -> None:
    xp = lib.xp
    a, b, fa, fb, m, mm, A, B, s = (lib.asarray(host[k]) for k in ("a", "b", "fa", "fb", "m", "mm", "A", "B", "s"))
    n, side, mm_n = a.shape[0], m.shape[0], A.shape[0]

    def timed(key, fn, nbytes=None, flops=None):
        def figure():
            ms = lib.time_ms(fn, repeat)
            return gbps(nbytes, ms) if nbytes else tflops(flops, ms) if flops else ms

        record(table[key], lib.name, figure)

    timed("add", lambda: a + b, 12 * n)
    timed("expr", lambda: (fa * 10 + 2) * ((fb + 2) * 10 - 5) * 5)
    if lib.name in ("ember", "CuPy"):
        fused = xp.fuse()(_expression)
        timed("fuse", lambda: fused(fa, fb))
    if lib.name == "ember":
        f = xp.vectorize(["float32(float32, float32)"], target="cuda")(_expression)
        timed("vectorize", lambda: f(fa, fb))
    timed("sum", lambda: a.sum(), 4 * n)
    timed("mean0", lambda: m.mean(axis=0), 4 * side * side)
    timed("mean1", lambda: m.mean(axis=1), 4 * side * side)
    timed("mask", lambda: mm[mm > 0.5])
    timed("matmul", lambda: A @ B, flops=2 * mm_n**3)
    if lib.name == "PyTorch":
        timed("rand", lambda: xp.rand(n, device="cuda"), 4 * n)
    else:
        timed("rand", lambda: xp.random.rand(n, dtype=np.float32), 4 * n)
    record(table["small"], lib.name, lambda: sustained_us("r = s + s", lib.sync, count // 4, reps, {"s": s}))


def _expression(a, b):
    return (a * 10 + 2) * ((b + 2) * 10 - 5) * 5


def _numba_vectorize(lib, row, host, repeat) -> None:
    def figure():
        from numba import vectorize

        f = vectorize(["float32(float32, float32)"], target="cuda")(_expression)
        fa, fb = lib.asarray(host["fa"]), lib.asarray(host["fb"])
        return lib.time_ms(lambda: f(fa, fb), repeat)

    record(row, lib.name, figure)
