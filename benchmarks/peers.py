"""The peer libraries a benchmark compares with, loaded only when they work here."""

from __future__ import annotations


def load_cupy():
    """CuPy when it is importable and sees a CUDA device, else None."""
    try:
        import cupy as cp

        if cp.cuda.runtime.getDeviceCount() < 1:
            return None
    except (ImportError, RuntimeError):  # cupy's CUDARuntimeError is a RuntimeError
        return None
    return cp
