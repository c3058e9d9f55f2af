"""The CPU device's everyday array rows (issue "the embedded default at NumPy speed"): ember on
PoCL beside NumPy and PyOpenCL's own arrays on the same device, at 2^16 ... 2^26 float32
elements. Milliseconds, wall time of the call and a synchronise, median after warm-up.

Each library is timed in a process of its own: on a CPU device every library's threads share
the cores, and PoCL's worker threads (PyOpenCL's context, ember's) slowed NumPy's rows measured
after them in the same process."""

from __future__ import annotations

import numpy as np

from .common import fail, random_f32
from .measure import fresh_process, wall_ms
from .report import Row

GROUP = "CPU arrays (no GPU)"
SIZES = (16, 20, 24, 26)
QUICK_SIZES = (16, 20)


def rows(libs: dict, quick: bool, progress) -> list[Row]:
    table = _table(quick)
    repeat = 5 if quick else 11
    for name in ("ember", "PyOpenCL", "NumPy"):
        if name not in libs:
            continue
        progress(f"CPU arrays: {name} (a process of its own)")
        try:
            figures = fresh_process(_CHILD, name, str(int(quick)), str(repeat), timeout=3600)
        except Exception as e:  # the library's process failed: every row says why
            for r in table.values():
                fail(r, name, e)
            continue
        for (key, log2), r in table.items():
            got = figures.get(f"{key}:{log2}")
            if not _runs(name, key):
                fail(r, name, NotImplementedError(_why_not(key)))
            elif isinstance(got, (int, float)):
                r.figures[name] = float(got)
            else:
                fail(r, name, RuntimeError(got or "not measured"))
    return list(table.values())


_CHILD = """
import json, sys
from ember._bench import cpu_arrays
print(json.dumps(cpu_arrays.measure_here(sys.argv[1], sys.argv[2] == "1", int(sys.argv[3]))))
"""


def measure_here(name: str, quick: bool, repeat: int) -> dict:
    """Every row ``name`` runs, timed in this process: ``{"key:log2": ms or the error}``."""
    from .peers import LOADERS, load_ember

    lib = load_ember() if name == "ember" else LOADERS[name]()
    out = {}
    for key, log2 in _table(quick):
        if _runs(name, key):
            try:
                out[f"{key}:{log2}"] = _time(lib, key, log2, repeat)
            except Exception as e:  # reported on the row, as record() does
                out[f"{key}:{log2}"] = f"{type(e).__name__}: {e}"
    return out


def _table(quick: bool) -> dict[tuple, Row]:
    table: dict[tuple, Row] = {}
    for log2 in QUICK_SIZES if quick else SIZES:
        table.update(_size_rows(log2))
    table[("matmul", 10)] = Row(GROUP, "A @ B, 1,024 x 1,024 float32", "ms", False, ">= best peer")
    return table


def _size_rows(log2: int) -> dict[tuple, Row]:
    """The rows at 2^log2 elements; targets from 2^20 on (smaller ones are reported)."""
    target = ">= best peer" if log2 >= 20 else ""
    side = 1 << (log2 // 2)
    named = {
        "add": "a + b",
        "fused": "(a*10+2)*((b+2)*10-5)*5 (ember fuses it)",
        "sum": "a.sum()",
        "cumsum": "cumsum",
        "rand": "random.rand",
        "mask": "a[a > 0.5]",
    }
    out = {(k, log2): Row(GROUP, f"{w}, float32, 2^{log2}", "ms", False, target) for k, w in named.items()}
    if log2 >= 20:
        out[("fused", log2)].target = ">= 2x NumPy"
    for axis in (0, 1):
        out[(f"mean{axis}", log2)] = Row(GROUP, f"mean(axis={axis}), {side}x{side} float32", "ms", False, target)
    return out


def _runs(lib: str, key: str) -> bool:
    return not (lib == "PyOpenCL" and key in ("mean0", "mean1", "matmul"))


def _why_not(key: str) -> str:
    return "pyopencl.array has no axis reductions" if key.startswith("mean") else "pyopencl.array has no matmul"


def _time(lib, key: str, log2: int, repeat: int) -> float:
    n = 1 << log2
    side = 1 << (log2 // 2)
    if key == "matmul":
        a, b = lib.asarray(random_f32((1024, 1024), 0)), lib.asarray(random_f32((1024, 1024), 1))
        return wall_ms(lambda: a @ b, lib.sync, repeat)
    if key in ("mean0", "mean1"):
        m = lib.asarray(random_f32((side, side), 2))
        axis = int(key[-1])
        return wall_ms(lambda: m.mean(axis=axis), lib.sync, repeat)
    a, b = lib.asarray(random_f32(n, 0)), lib.asarray(random_f32(n, 1))
    op = _ops(lib)[key]
    return wall_ms(lambda: op(a, b, n), lib.sync, repeat)


def _ops(lib) -> dict:
    """Each row's operation as the library's users write it."""
    common = {
        "add": lambda a, b, n: a + b,
        "fused": lambda a, b, n: (a * 10 + 2) * ((b + 2) * 10 - 5) * 5,
    }
    if lib.name == "PyOpenCL":
        return {**common, **_pyopencl_ops(lib)}
    xp = lib.xp
    rand = (lambda a, b, n: xp.random.rand(n).astype(np.float32)) if lib.name == "NumPy" else \
        (lambda a, b, n: xp.random.rand(n, dtype=np.float32))
    return {**common,
            "sum": lambda a, b, n: a.sum(),
            "cumsum": lambda a, b, n: xp.cumsum(a),
            "rand": rand,
            "mask": lambda a, b, n: a[a > 0.5]}


def _pyopencl_ops(lib) -> dict:
    import pyopencl.array as cla
    import pyopencl.clrandom as clrandom
    from pyopencl.algorithm import copy_if

    queue = lib.extra["queue"]
    generator = clrandom.PhiloxGenerator(lib.extra["ctx"], seed=0)
    return {
        "sum": lambda a, b, n: cla.sum(a),
        "cumsum": lambda a, b, n: cla.cumsum(a),
        "rand": lambda a, b, n: generator.uniform(queue, (n,), np.float32),
        "mask": lambda a, b, n: copy_if(a, "ary[i] > 0.5f")[0],
    }
