"""The FFT rows on a CUDA device: ember beside CuPy and PyTorch (all three on cuFFT there), then
the same transforms by ember's own Stockham passes beside ember's cuFFT figure: on the CUDA
device (``ember.fft.config.use_ember_passes()``) and through the GPU's OpenCL driver
(``opencl.py``: what an OpenCL GPU runs; "n/a" where no OpenCL GPU is registered). The goal of
the passes is 0.7x cuFFT. Rates are Gflop/s by the usual count (``5 n log2 n`` a complex
transform of ``n``, half that for a real one), so rows of different sizes read alike. Plans are
cached: the warm-up calls make them, the timed calls reuse them."""

from __future__ import annotations

import contextlib
import math

import numpy as np

from .common import record
from .opencl import opencl_ms
from .report import Row


def _workloads(quick: bool) -> dict:
    """name -> (description, shape, dtype, transform, flops of one call)."""
    n1 = 1 << (18 if quick else 24)
    rows, cols = (64, 1024) if quick else (1024, 4096)
    side = 512 if quick else 4096
    nr = 1 << (20 if quick else 26)
    p1, pr = int(math.log2(n1)), int(math.log2(nr))
    return {
        "1d": (f"fft, complex64, 2^{p1}", (n1,), "complex64", "fft", 5 * n1 * p1),
        "batched": (f"fft(axis=-1), complex64, {rows:,}x{cols:,}", (rows, cols), "complex64", "fft",
                    5 * rows * cols * math.log2(cols)),
        "2d": (f"fft2, complex64, {side:,}^2", (side, side), "complex64", "fft2",
               5 * side * side * math.log2(side * side)),
        "rfft": (f"rfft, float32, 2^{pr}", (nr,), "float32", "rfft", 2.5 * nr * pr),
    }


def _host(shape, dtype: str) -> np.ndarray:
    rng = np.random.default_rng(23)
    x = rng.standard_normal(shape, dtype=np.float32)
    if dtype == "complex64":
        x = (x + 1j * rng.standard_normal(shape, dtype=np.float32)).astype(np.complex64)
    return x


def rows(libs: dict, quick: bool, progress) -> list[Row]:
    repeat = 3 if quick else 10
    work = _workloads(quick)
    cufft = {k: Row("fft", w[0], "Gflop/s", True, ">= 0.97x best peer") for k, w in work.items()}
    passes = {k: Row("fft", f"{w[0]}: ember's passes on CUDA vs cuFFT", "Gflop/s", True, ">= 0.7x best peer")
              for k, w in work.items()}
    opencl = {k: Row("fft", f"{w[0]}: ember's passes on OpenCL vs cuFFT", "Gflop/s", True, ">= 0.7x best peer")
              for k, w in work.items()}
    for lib in libs.values():
        if lib.name not in ("ember", "CuPy", "PyTorch"):
            continue
        progress(f"fft: {lib.name}")
        for key, (_, shape, dtype, name, flops) in work.items():
            record(cufft[key], lib.name, _rate(lib, shape, dtype, name, flops, repeat))
            if lib.name == "ember":
                progress(f"fft: ember's passes, {name}")
                record(passes[key], "ember", _rate(lib, shape, dtype, name, flops, repeat, passes=True))
                progress(f"fft: ember's passes through OpenCL, {name}")
                setup = (f"rng = np.random.default_rng(23)\nx = rng.standard_normal({shape}, dtype=np.float32)\n"
                         + ("x = (x + 1j * rng.standard_normal(x.shape, dtype=np.float32)).astype(np.complex64)\n"
                            if dtype == "complex64" else "")
                         + f"x = ember.asarray(x)\nrun = lambda: ember.fft.{name}(x)\n")
                record(opencl[key], "ember", lambda setup=setup, flops=flops: flops / opencl_ms(setup, repeat) / 1e6)
                mine = cufft[key].value("ember")
                if mine is not None and lib.xp.fft.config.engine() == "cufft":
                    passes[key].figures["cuFFT"] = opencl[key].figures["cuFFT"] = mine
    return list(cufft.values()) + list(passes.values()) + list(opencl.values())


def _rate(lib, shape, dtype: str, name: str, flops: float, repeat: int, passes: bool = False):
    """A thunk: the device copy of the data made, ``name`` timed on it, Gflop/s returned."""

    def figure():
        x = lib.asarray(_host(shape, dtype))
        fn = getattr(lib.xp.fft, name)  # the same spelling in ember, CuPy and torch.fft
        mode = lib.xp.fft.config.use_ember_passes() if passes else contextlib.nullcontext()
        with mode:
            ms = lib.time_ms(lambda: fn(x), repeat)
            if lib.name == "ember":
                lib.xp.fft.config.get_plan_cache().clear()  # each row's plans and work areas go
        return flops / (ms * 1e-3) / 1e9

    return figure
