"""The FFT rows on a CUDA device: ember beside CuPy and PyTorch (all three on cuFFT there), then
the same transforms on ember's own Stockham passes (``ember.fft.config.use_ember_passes()``,
what OpenCL devices run) against the best cuFFT figure. Rates are Gflop/s by the usual count
(``5 n log2 n`` a complex transform of ``n``, half that for a real one), so rows of different
sizes read alike. Plans are cached: the warm-up calls make them, the timed calls reuse them."""

from __future__ import annotations

import contextlib
import math

import numpy as np

from .common import record
from .report import Row


def _workloads(quick: bool) -> dict:
    """name -> (description, host data, transform name, flops of one call)."""
    n1 = 1 << (18 if quick else 24)
    rows, cols = (64, 1024) if quick else (1024, 4096)
    side = 512 if quick else 4096
    nr = 1 << (20 if quick else 26)
    rng = np.random.default_rng(23)

    def cplx(shape):
        return (rng.standard_normal(shape, dtype=np.float32)
                + 1j * rng.standard_normal(shape, dtype=np.float32)).astype(np.complex64)

    p1, pr = int(math.log2(n1)), int(math.log2(nr))
    return {
        "1d": (f"fft, complex64, 2^{p1}", cplx(n1), "fft", 5 * n1 * p1),
        "batched": (f"fft(axis=-1), complex64, {rows:,}x{cols:,}", cplx((rows, cols)), "fft",
                    5 * rows * cols * math.log2(cols)),
        "2d": (f"fft2, complex64, {side:,}^2", cplx((side, side)), "fft2", 5 * side * side * math.log2(side * side)),
        "rfft": (f"rfft, float32, 2^{pr}", rng.standard_normal(nr, dtype=np.float32), "rfft", 2.5 * nr * pr),
    }


def rows(libs: dict, quick: bool, progress) -> list[Row]:
    repeat = 3 if quick else 10
    work = _workloads(quick)
    cufft = {k: Row("fft", w[0], "Gflop/s", True, ">= 0.97x best peer") for k, w in work.items()}
    passes = {k: Row("fft", f"{w[0]}, ember's passes vs cuFFT", "Gflop/s", True, ">= 0.7x best peer")
              for k, w in work.items()}
    for lib in libs.values():
        if lib.name not in ("ember", "CuPy", "PyTorch"):
            continue
        progress(f"fft: {lib.name}")
        for key, (_, data, name, flops) in work.items():
            record(cufft[key], lib.name, _rate(lib, data, name, flops, repeat))
            if lib.name == "ember":
                progress("fft: ember's passes")
                record(passes[key], "ember", _rate(lib, data, name, flops, repeat, passes=True))
            else:
                passes[key].figures[lib.name] = cufft[key].figures[lib.name]
    return list(cufft.values()) + list(passes.values())


def _rate(lib, data, name: str, flops: float, repeat: int, passes: bool = False):
    """A thunk: the device copy of ``data`` made, ``name`` timed on it, Gflop/s returned."""

    def figure():
        xp = lib.xp
        x = lib.asarray(data)
        fn = getattr(xp.fft, name)  # the same spelling in ember, CuPy and torch.fft
        mode = xp.fft.config.use_ember_passes() if passes else contextlib.nullcontext()
        with mode:
            ms = lib.time_ms(lambda: fn(x), repeat)
            if lib.name == "ember":
                xp.fft.config.get_plan_cache().clear()  # each row's plans and work areas go
        return flops / (ms * 1e-3) / 1e9

    return figure
