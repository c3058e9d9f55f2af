"""The linear-algebra rows of BENCHMARKS.md (issue 22) on a CUDA device: ember beside CuPy and
PyTorch (each through its own spelling; all three call cuSOLVER for the large matrices), and
ember's own kernels through the GPU's OpenCL driver beside cuSOLVER (``opencl.py``). Times
are milliseconds per call, lower is better."""

from __future__ import annotations

import numpy as np

from .common import fail, record
from .opencl import opencl_ms
from .report import Row


def _sizes(quick: bool) -> dict:
    if quick:
        return {"solve": 1024, "cholesky": 2048, "eigh": 512, "svd": 512, "batch": 1000}
    return {"solve": 4096, "cholesky": 8192, "eigh": 4096, "svd": 2048, "batch": 10000}


def _inputs(size: dict) -> dict:
    rng = np.random.default_rng(22)

    def symmetric(n, shift):
        r = rng.standard_normal((n, n))
        return r + r.T + shift * np.eye(n)

    n = size["solve"]
    return {
        # Diagonally dominant: well conditioned, and positive definite for cholesky.
        "solve": rng.standard_normal((n, n)) + n * np.eye(n),
        "rhs": rng.standard_normal(n),
        "cholesky": symmetric(size["cholesky"], 4 * size["cholesky"]),
        "eigh": symmetric(size["eigh"], 0),
        "svd": rng.standard_normal((size["svd"], size["svd"])),
        "small": rng.standard_normal((size["batch"], 8, 8)) + 8 * np.eye(8),
    }


def rows(libs: dict, quick: bool, progress) -> list[Row]:
    size = _sizes(quick)
    repeat = 3 if quick else 5
    s, c, e, v, b = size["solve"], size["cholesky"], size["eigh"], size["svd"], size["batch"]
    table = {
        "solve32": Row("linalg", f"solve, {s}x{s} float32, one right-hand side", "ms", False, ">= 0.97x best peer"),
        "solve64": Row("linalg", f"solve, {s}x{s} float64, one right-hand side", "ms", False, ">= 0.97x best peer"),
        "cholesky": Row("linalg", f"cholesky, {c}x{c} float64", "ms", False, ">= 0.97x best peer"),
        "eigh": Row("linalg", f"eigh, {e}x{e} float64, values and vectors", "ms", False, ">= 0.97x best peer"),
        "svd": Row("linalg", f"svd, {v}x{v} float64, U S Vh", "ms", False, ">= 0.97x best peer"),
        "inv": Row("linalg", f"inv, {b:,} batched 8x8 float64", "ms", False, ">= best peer"),
    }
    host = _inputs(size)
    for lib in libs.values():
        if lib.name in ("ember", "CuPy", "PyTorch"):
            progress(f"linalg: {lib.name}")
            _library_rows(lib, table, host, repeat)
    progress("linalg: ember's kernels on OpenCL")
    return list(table.values()) + _opencl_rows(table, size, repeat)


def _library_rows(lib, table, host, repeat) -> None:
    xp = lib.xp
    torch = lib.name == "PyTorch"
    la = xp.linalg

    def put(key, make, call):
        try:
            args = make()
        except Exception as error:  # out of memory, a missing function: the row says why
            fail(table[key], lib.name, error)
            return
        record(table[key], lib.name, lambda: lib.time_ms(lambda: call(*args), repeat))

    def dev(x, dtype=np.float64):
        x = x.astype(dtype)
        return xp.from_numpy(x).cuda() if torch else lib.asarray(x)

    put("solve32", lambda: (dev(host["solve"], np.float32), dev(host["rhs"], np.float32)), la.solve)
    put("solve64", lambda: (dev(host["solve"]), dev(host["rhs"])), la.solve)
    put("cholesky", lambda: (dev(host["cholesky"]),), la.cholesky)
    put("eigh", lambda: (dev(host["eigh"]),), la.eigh)
    put("svd", lambda: (dev(host["svd"]),), la.svd)
    put("inv", lambda: (dev(host["small"]),), la.inv)


_OPENCL = {
    "solve32": ("np.float32", "lambda: ember.linalg.solve(a, b)"),
    "solve64": ("np.float64", "lambda: ember.linalg.solve(a, b)"),
    "cholesky": ("np.float64", "lambda: ember.linalg.cholesky(a)"),
}


def _opencl_rows(table: dict, size: dict, repeat: int) -> list[Row]:
    """solve and cholesky by ember's kernels on the GPU's OpenCL driver, beside ember's own
    cuSOLVER figure (goal: at least half its speed)."""
    out = []
    for key, (dtype, call) in _OPENCL.items():
        vendor = table[key]
        row = Row("linalg", f"{vendor.workload}: ember's kernels on OpenCL vs cuSOLVER", "ms", False,
                  ">= 0.5x best peer")
        if vendor.value("ember") is not None:
            row.figures["cuSOLVER"] = vendor.value("ember")
        n = size["cholesky"] if key == "cholesky" else size["solve"]
        setup = (
            f"rng = np.random.default_rng(22)\nr = rng.standard_normal(({n}, {n}))\n"
            f"a = ember.asarray((r + r.T + 4 * {n} * np.eye({n})).astype({dtype}))\n"
            f"b = ember.asarray(rng.standard_normal({n}).astype({dtype}))\nrun = {call}\n"
        )
        record(row, "ember", lambda setup=setup: opencl_ms(setup, repeat))
        out.append(row)
    return out
