"""The NumPy-API rows of BENCHMARKS.md (issue 20) on a CUDA device: contractions, scans,
differences, padding, tiling, gathers and NaN-aware reductions, ember beside CuPy and PyTorch
(each in its own spelling; a library without the function gets "n/a")."""

from __future__ import annotations

import numpy as np

from .common import random_f32, record
from .measure import gbps, tflops
from .report import Row


def rows(libs: dict, quick: bool, progress) -> list[Row]:
    n = 1 << (22 if quick else 28)
    nt = 1 << (20 if quick else 26)
    side = 1024 if quick else 8192
    batch, k = (8, 256) if quick else (64, 1024)
    repeat = 5 if quick else 15
    p, pt = f"2^{int(np.log2(n))}", f"2^{int(np.log2(nt))}"
    table = {
        "einsum": Row("numpy", f"einsum('bij,bjk->bik'), {batch}x{k}x{k} float32", "TFLOP/s", True, ">= best peer"),
        "tensordot": Row("numpy", f"tensordot(A, B, axes=1), {k * 4}x{k * 4} float32", "TFLOP/s", True,
                         ">= best peer"),
        "cumsum": Row("numpy", f"cumsum, float32, {p}", "GB/s", True, ">= best peer"),
        "cumprod": Row("numpy", f"cumprod, float32, {p}", "GB/s", True, ">= best peer"),
        "diff": Row("numpy", f"diff, float32, {p}", "GB/s", True, ">= best peer"),
        "pad": Row("numpy", f"pad(m, 64, 'reflect'), {side}x{side} float32", "GB/s", True, ">= best peer"),
        "tile": Row("numpy", f"tile(a, 4), float32, {pt}", "GB/s", True, ">= best peer"),
        "repeat": Row("numpy", f"repeat(a, 4), float32, {pt}", "GB/s", True, ">= best peer"),
        "take_along": Row("numpy", f"take_along_axis(m, idx, 1), {side}x{side} float32", "GB/s", True,
                          ">= best peer"),
        "isclose": Row("numpy", f"isclose(a, b), float32, {p}", "GB/s", True, ">= best peer"),
        "count_nonzero": Row("numpy", f"count_nonzero, float32, {p}", "GB/s", True, ">= best peer"),
        "nanmean": Row("numpy", f"nanmean, float32, {p}", "GB/s", True, ">= best peer"),
    }
    rng = np.random.default_rng(20)
    a = random_f32(n, 0)
    a[rng.integers(0, n, n // 100)] = np.nan
    host = {"a": a, "b": random_f32(n, 1), "t": random_f32(nt, 2), "m": random_f32((side, side), 3),
            "idx": rng.integers(0, side, (side, side)).astype(np.int64), "x": random_f32((batch, k, k), 4),
            "y": random_f32((batch, k, k), 5), "A": random_f32((4 * k, 4 * k), 6), "B": random_f32((4 * k, 4 * k), 7)}
    for lib in libs.values():
        if lib.name in ("ember", "CuPy", "PyTorch"):
            progress(f"numpy: {lib.name}")
            _library_rows(lib, table, host, repeat)
    return list(table.values())


def _library_rows(lib, table, host, repeat) -> None:
    xp, torch = lib.xp, lib.name == "PyTorch"
    d = {k: lib.asarray(v) for k, v in host.items()}
    a, b, t, m, idx, x, y, A, B = (d[k] for k in ("a", "b", "t", "m", "idx", "x", "y", "A", "B"))
    n, nt, side = a.shape[0], t.shape[0], m.shape[0]
    batch, k = x.shape[0], x.shape[1]

    def timed(key, fn, nbytes=None, flops=None):
        def figure():
            ms = lib.time_ms(fn, repeat)
            return gbps(nbytes, ms) if nbytes else tflops(flops, ms)

        record(table[key], lib.name, figure)

    timed("einsum", lambda: xp.einsum("bij,bjk->bik", x, y), flops=2 * batch * k**3)
    timed("tensordot", lambda: xp.tensordot(A, B, dims=1) if torch else xp.tensordot(A, B, axes=1),
          flops=2 * A.shape[0] ** 3)
    timed("cumsum", lambda: xp.cumsum(b, 0) if torch else xp.cumsum(b), 8 * n)
    timed("cumprod", lambda: xp.cumprod(b, 0) if torch else xp.cumprod(b), 8 * n)
    timed("diff", lambda: xp.diff(b), 8 * n)
    if torch:
        import torch.nn.functional as F

        timed("pad", lambda: F.pad(m[None], (64, 64, 64, 64), mode="reflect"), 4 * (side * side + (side + 128) ** 2))
        timed("tile", lambda: t.tile(4), 20 * nt)
        timed("repeat", lambda: t.repeat_interleave(4), 20 * nt)
        timed("take_along", lambda: xp.take_along_dim(m, idx, 1), 20 * side * side)
    else:
        timed("pad", lambda: xp.pad(m, 64, "reflect"), 4 * (side * side + (side + 128) ** 2))
        timed("tile", lambda: xp.tile(t, 4), 20 * nt)
        timed("repeat", lambda: xp.repeat(t, 4), 20 * nt)
        timed("take_along", lambda: xp.take_along_axis(m, idx, 1), 20 * side * side)
    timed("isclose", lambda: xp.isclose(a, b), 9 * n)
    timed("count_nonzero", lambda: xp.count_nonzero(b), 4 * n)
    timed("nanmean", lambda: xp.nanmean(a), 4 * n)
