"""The sorting, searching and counting rows of BENCHMARKS.md (issue 21) on a CUDA device,
ember beside CuPy and PyTorch (each in its own spelling; a library without the function gets
"n/a"). Rates are input elements (keys, queries, values) a second."""

from __future__ import annotations

import numpy as np

from .common import record
from .report import Row


def rows(libs: dict, quick: bool, progress) -> list[Row]:
    n = 1 << (22 if quick else 28)
    na = 1 << (20 if quick else 26)
    nk = 1 << (18 if quick else 24)
    rows_, cols = (4096, 1024) if quick else (65536, 1024)
    side = 1024 if quick else 8192
    repeat = 3 if quick else 7
    p, pa, pk = (f"2^{int(np.log2(v))}" for v in (n, na, nk))
    table = {
        "sort": Row("sorting", f"sort, float32, {p} keys", "Mkeys/s", True, ">= best peer"),
        "argsort": Row("sorting", f"argsort (keys and indices), float32, {pa}", "Mkeys/s", True, ">= best peer"),
        "rows": Row("sorting", f"sort(axis=-1), {rows_}x{cols} float32", "Mkeys/s", True, ">= best peer"),
        "unique": Row("sorting", f"unique, int32, {pa} (1,000 distinct)", "Mkeys/s", True, ">= best peer"),
        "searchsorted": Row("sorting", f"searchsorted, {pa} queries into {pk} keys", "Mqueries/s", True,
                            ">= best peer"),
        "median": Row("sorting", f"median(axis=0), {side}x{side} float32", "Mvalues/s", True, ">= best peer"),
        "bincount": Row("sorting", f"bincount, int32, {p} into 1,000 bins", "GB/s", True, ">= best peer"),
        "histogram": Row("sorting", f"histogram, float32, {p}, 100 bins", "GB/s", True, ">= best peer"),
    }
    rng = np.random.default_rng(21)
    host = {
        "keys": rng.random(n, dtype=np.float32),
        "pairs": rng.random(na, dtype=np.float32),
        "rows": rng.random((rows_, cols), dtype=np.float32),
        "repeats": rng.integers(0, 1000, na).astype(np.int32),
        "sorted": np.sort(rng.random(nk, dtype=np.float32)),
        "queries": rng.random(na, dtype=np.float32),
        "square": rng.random((side, side), dtype=np.float32),
        "bins": rng.integers(0, 1000, n).astype(np.int32),
    }
    for lib in libs.values():
        if lib.name in ("ember", "CuPy", "PyTorch"):
            progress(f"sorting: {lib.name}")
            _library_rows(lib, table, host, repeat)
    return list(table.values())


def _library_rows(lib, table, host, repeat) -> None:
    xp, torch = lib.xp, lib.name == "PyTorch"

    def timed(key, data, make, count, nbytes=None):
        """Row ``key``: ``make(device data)`` timed; a rate of ``count`` elements, or GB/s of
        ``nbytes``. The data goes to the device inside, one row at a time (a 2^28 sort needs
        room for its buffers)."""
        def figure():
            fn = make(lib.asarray(data))
            ms = lib.time_ms(fn, repeat)
            return (nbytes if nbytes else count) / (ms * 1e-3) / (1e9 if nbytes else 1e6)

        record(table[key], lib.name, figure)

    n, na = host["keys"].size, host["pairs"].size
    s = lib.asarray(host["sorted"])
    if torch:
        timed("sort", host["keys"], lambda a: lambda: xp.sort(a), n)
        timed("argsort", host["pairs"], lambda a: lambda: xp.argsort(a), na)
        timed("rows", host["rows"], lambda a: lambda: xp.sort(a, dim=-1), host["rows"].size)
        timed("unique", host["repeats"], lambda a: lambda: xp.unique(a), na)
        timed("searchsorted", host["queries"], lambda q: lambda: xp.searchsorted(s, q), na)
        timed("median", host["square"], lambda m: lambda: xp.quantile(m, 0.5, dim=0), host["square"].size)
        timed("bincount", host["bins"], lambda b: lambda: xp.bincount(b), n, 4 * n)
        timed("histogram", host["keys"], lambda a: lambda: xp.histc(a, bins=100, min=0, max=1), n, 4 * n)
    else:
        timed("sort", host["keys"], lambda a: lambda: xp.sort(a), n)
        timed("argsort", host["pairs"], lambda a: lambda: xp.argsort(a), na)
        timed("rows", host["rows"], lambda a: lambda: xp.sort(a, axis=-1), host["rows"].size)
        timed("unique", host["repeats"], lambda a: lambda: xp.unique(a), na)
        timed("searchsorted", host["queries"], lambda q: lambda: xp.searchsorted(s, q), na)
        timed("median", host["square"], lambda m: lambda: xp.median(m, axis=0), host["square"].size)
        timed("bincount", host["bins"], lambda b: lambda: xp.bincount(b), n, 4 * n)
        timed("histogram", host["keys"], lambda a: lambda: xp.histogram(a, bins=100, range=(0, 1)), n, 4 * n)


def cpu_rows(libs: dict, quick: bool, progress) -> list[Row]:
    """The same rows on the CPU device beside NumPy, at 2^24 (2^18 quick)."""
    from .measure import wall_ms

    log2 = 18 if quick else 24
    n = 1 << log2
    side = 1 << (log2 // 2)
    repeat = 2 if quick else 3
    label = "sorting on the CPU"
    table = {
        "sort": Row(label, f"sort, float32, 2^{log2} keys", "Mkeys/s", True, ">= NumPy"),
        "argsort": Row(label, f"argsort, float32, 2^{log2}", "Mkeys/s", True, ">= NumPy"),
        "unique": Row(label, f"unique, int32, 2^{log2} (1,000 distinct)", "Mkeys/s", True, ">= NumPy"),
        "searchsorted": Row(label, f"searchsorted, 2^{log2} queries into 2^{log2 - 2} keys", "Mqueries/s", True,
                            ">= NumPy"),
        "median": Row(label, f"median(axis=0), {side}x{side} float32", "Mvalues/s", True, ">= NumPy"),
        "bincount": Row(label, f"bincount, int32, 2^{log2} into 1,000 bins", "GB/s", True, ">= NumPy"),
        "histogram": Row(label, f"histogram, float32, 2^{log2}, 100 bins", "GB/s", True, ">= NumPy"),
    }
    rng = np.random.default_rng(21)
    keys = rng.random(n, dtype=np.float32)
    ints = rng.integers(0, 1000, n).astype(np.int32)
    ordered = np.sort(rng.random(n // 4, dtype=np.float32))
    square = rng.random((side, side), dtype=np.float32)
    for name in ("ember", "NumPy"):
        if name not in libs:
            continue
        lib = libs[name]
        xp = lib.xp
        progress(f"sorting on the CPU: {name}")

        def timed(key, data, make, count, nbytes=None, lib=lib):
            def figure():
                fn = make(lib.asarray(data))
                ms = wall_ms(fn, lib.sync, repeat)
                return (nbytes if nbytes else count) / (ms * 1e-3) / (1e9 if nbytes else 1e6)

            record(table[key], lib.name, figure)

        s = lib.asarray(ordered)
        timed("sort", keys, lambda a, xp=xp: lambda: xp.sort(a), n)
        timed("argsort", keys, lambda a, xp=xp: lambda: xp.argsort(a), n)
        timed("unique", ints, lambda a, xp=xp: lambda: xp.unique(a), n)
        timed("searchsorted", keys, lambda q, xp=xp, s=s: lambda: xp.searchsorted(s, q), n)
        timed("median", square, lambda m, xp=xp: lambda: xp.median(m, axis=0), square.size)
        timed("bincount", ints, lambda b, xp=xp: lambda: xp.bincount(b), n, 4 * n)
        timed("histogram", keys, lambda a, xp=xp: lambda: xp.histogram(a, bins=100, range=(0, 1)), n, 4 * n)
    return list(table.values())
