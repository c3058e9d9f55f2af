"""How ``ember.fft`` computes (CuPy's ``cupy.fft.config`` names what it shares).

On CUDA, transforms go to cuFFT when it is found (the toolkit or ``pip install
nvidia-cufft``); elsewhere, and inside :func:`use_ember_passes`, to ember's own Stockham passes
(and Bluestein's algorithm for lengths with primes above 7)."""

from __future__ import annotations

import contextlib
import threading

from .. import _ember
from .._runtime import current_device_id

_local = threading.local()

# Bluestein's chirps and their spectra, by (length, dtype, direction, device): see _engine.
CHIRPS: dict = {}


def passes_only() -> bool:
    """Whether this thread is inside :func:`use_ember_passes`."""
    return getattr(_local, "passes", 0) > 0


@contextlib.contextmanager
def use_ember_passes():
    """Transforms in the block use ember's own passes even where cuFFT is found (how the
    OpenCL path is measured, and checked, on an NVIDIA GPU)."""
    _local.passes = getattr(_local, "passes", 0) + 1
    try:
        yield
    finally:
        _local.passes -= 1


def engine() -> str:
    """What transforms on the current device take: ``"cufft"`` or ``"passes"``."""
    return "passes" if passes_only() else _ember.fft_engine(current_device_id())


class PlanCache:
    """What ``ember.fft`` keeps between calls (CuPy's ``PlanCache`` face): the twiddle tables of
    ember's passes, cuFFT's plans and Bluestein's chirps."""

    def clear(self) -> None:
        """Drops everything kept; the device memory goes back."""
        CHIRPS.clear()
        _ember.fft_forget()

    def __repr__(self):
        return "<ember.fft PlanCache>"


_CACHE = PlanCache()


def get_plan_cache() -> PlanCache:
    """The cache of plans (one for the process)."""
    return _CACHE
