"""How ``ember.fft`` computes (CuPy's ``cupy.fft.config``).

On CUDA, transforms go to cuFFT when it is found (the toolkit or ``pip install
nvidia-cufft``); elsewhere, and inside :func:`use_ember_passes`, to ember's own Stockham passes
(and Bluestein's algorithm for lengths with primes above 7).

- ``enable_nd_planning`` (deprecated, as in CuPy 14; True by default): multi-dimensional
  transforms over up to three adjacent axes that include the first or last one run as one N-d
  plan (:class:`ember.fft.PlanNd`) instead of one 1-D plan per axis.
- The plan cache: :func:`get_plan_cache` and the functions beside it (``ember.fft._cache``).
- Load and store callbacks: :class:`set_cufft_callbacks` (``ember.fft._callback``).
- ``use_multi_gpus`` / :func:`set_cufft_gpus`: CuPy's multi-GPU switches, kept; ember runs each
  transform on one device, so a transform asked to spread over several raises
  ``NotImplementedError``.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import threading
import types
import warnings

from .. import _ember
from .._runtime import current_device_id
from ._cache import (  # noqa: F401  (CuPy's names, on config)
    PlanCache,
    clear_plan_cache,
    get_plan_cache,
    get_plan_cache_max_memsize,
    get_plan_cache_size,
    set_plan_cache_max_memsize,
    set_plan_cache_size,
    show_plan_cache_info,
)
from ._callback import get_current_callback_manager, set_cufft_callbacks  # noqa: F401  (CuPy's names)


class _Local(threading.local):
    passes = 0  # a class default: reading it costs no exception (every transform reads it)


_local = _Local()

_enable_nd_planning = contextvars.ContextVar("ember.fft.config.enable_nd_planning", default=True)
_use_multi_gpus = contextvars.ContextVar("ember.fft.config.use_multi_gpus", default=False)
_devices = contextvars.ContextVar("ember.fft.config.devices", default=None)


def passes_only() -> bool:
    """Whether this thread is inside :func:`use_ember_passes`."""
    return _local.passes > 0


@contextlib.contextmanager
def use_ember_passes():
    """Transforms in the block use ember's own passes even where cuFFT is found (how the
    OpenCL path is measured, and checked, on an NVIDIA GPU). Plans made in the block are
    plans of the passes; the cache keeps them apart from cuFFT's."""
    _local.passes += 1
    try:
        yield
    finally:
        _local.passes -= 1


_ENGINES: dict[int, str] = {}  # device -> its engine (whether cuFFT loads does not change)


def engine() -> str:
    """What transforms on the current device take: ``"cufft"`` or ``"passes"``."""
    if _local.passes:
        return "passes"
    device = current_device_id()
    found = _ENGINES.get(device)
    if found is None:
        found = _ENGINES[device] = _ember.fft_engine(device)
    return found


def set_cufft_gpus(gpus) -> None:
    """CuPy's choice of GPUs for multi-GPU transforms (an int: the first ``gpus`` devices; or a
    list). Recorded; transforms that would use it raise ``NotImplementedError`` (see above)."""
    if isinstance(gpus, int):
        devices = list(range(gpus))
    elif isinstance(gpus, (list, tuple)):
        devices = list(gpus)
    else:
        raise ValueError("gpus must be an int or a list or tuple of int.")
    if len(devices) <= 1:
        raise ValueError("Must use at least 2 GPUs.")
    _devices.set(tuple(devices))


class _Config(types.ModuleType):
    """This module's class: its switches are properties, as on CuPy's config object."""

    @property
    def enable_nd_planning(self) -> bool:
        warnings.warn("enable_nd_planning is deprecated (as in CuPy 14) and will always be True in the future.",
                      DeprecationWarning, stacklevel=2)
        return _enable_nd_planning.get()

    @enable_nd_planning.setter
    def enable_nd_planning(self, value) -> None:
        warnings.warn("enable_nd_planning is deprecated (as in CuPy 14) and will always be True in the future.",
                      DeprecationWarning, stacklevel=2)
        _enable_nd_planning.set(bool(value))

    @property
    def use_multi_gpus(self) -> bool:
        return _use_multi_gpus.get()

    @use_multi_gpus.setter
    def use_multi_gpus(self, value) -> None:
        _use_multi_gpus.set(bool(value))

    @property
    def devices(self):
        """The devices of multi-GPU transforms when ``use_multi_gpus``, else None."""
        return _devices.get() if _use_multi_gpus.get() else None


sys.modules[__name__].__class__ = _Config
