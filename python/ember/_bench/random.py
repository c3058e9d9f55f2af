"""The random-number rows of BENCHMARKS.md (issue 22) on a CUDA device: ember beside CuPy and
PyTorch, each in its own spelling. Rates are values written a second."""

from __future__ import annotations

import numpy as np

from .common import record
from .report import Row


def rows(libs: dict, quick: bool, progress) -> list[Row]:
    n_normal, n_exp, n_poisson = (1 << 22,) * 3 if quick else (1 << 28, 1 << 27, 1 << 26)
    repeat = 3 if quick else 10
    p = {k: f"2^{int(np.log2(v))}" for k, v in (("normal", n_normal), ("exp", n_exp), ("poisson", n_poisson))}
    table = {
        "normal": Row("random", f"standard_normal, float32, {p['normal']}", "Mvalues/s", True, ">= best peer"),
        "exponential": Row("random", f"exponential, float64, {p['exp']}", "Mvalues/s", True, ">= best peer"),
        "poisson": Row("random", f"poisson(5.0), {p['poisson']}", "Mvalues/s", True, ">= best peer"),
        "gamma": Row("random", f"standard_gamma(2.5), float64, {p['poisson']}", "Mvalues/s", True, ">= best peer"),
    }
    for lib in libs.values():
        if lib.name in ("ember", "CuPy", "PyTorch"):
            progress(f"random: {lib.name}")
            _library_rows(lib, table, (n_normal, n_exp, n_poisson), repeat)
    return list(table.values())


def _library_rows(lib, table, sizes, repeat) -> None:
    xp, (n_normal, n_exp, n_poisson) = lib.xp, sizes

    def rate(fn, count):
        return lambda: count / (lib.time_ms(fn, repeat) * 1e-3) / 1e6

    if lib.name == "PyTorch":
        rates = xp.full((n_poisson,), 5.0, device="cuda")
        shapes = xp.full((n_poisson,), 2.5, device="cuda", dtype=xp.float64)
        out = xp.empty(n_exp, device="cuda", dtype=xp.float64)
        record(table["normal"], lib.name, rate(lambda: xp.randn(n_normal, device="cuda"), n_normal))
        record(table["exponential"], lib.name, rate(lambda: out.exponential_(), n_exp))
        record(table["poisson"], lib.name, rate(lambda: xp.poisson(rates), n_poisson))
        record(table["gamma"], lib.name, rate(lambda: xp._standard_gamma(shapes), n_poisson))
        return
    r = xp.random
    record(table["normal"], lib.name, rate(lambda: r.standard_normal(n_normal, dtype=np.float32), n_normal))
    record(table["exponential"], lib.name, rate(lambda: r.exponential(1.0, size=n_exp), n_exp))
    record(table["poisson"], lib.name, rate(lambda: r.poisson(5.0, size=n_poisson), n_poisson))
    record(table["gamma"], lib.name, rate(lambda: r.standard_gamma(2.5, size=n_poisson), n_poisson))
