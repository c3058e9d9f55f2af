"""Timing and profiling helpers, as ``cupyx.profiler`` names them: ``benchmark`` times a function
on the host and on each device (events on the device's current stream, on CUDA and OpenCL alike);
``time_range`` marks a span of the program for Nsight Systems through NVTX, loaded at run time
(without it a range does nothing, said once)."""

from __future__ import annotations

import functools
import math
import time
import warnings

import numpy as np

from . import _ember, _runtime
from ._launch_profile import Profile, profile  # noqa: F401  (every kernel inside a with block, timed)

__all__ = ["benchmark", "profile", "time_range"]

# NVTX's palette as CuPy's ``color_id`` picks from it (green, blue, yellow, magenta, cyan, red,
# white); ranges without a colour get the first.
_PALETTE = (0xFF00FF00, 0xFF0000FF, 0xFFFFFF00, 0xFFFF00FF, 0xFF00FFFF, 0xFFFF0000, 0xFFFFFFFF)
_warned = False


class _PerfCaseResult:
    """The times ``benchmark`` recorded: ``cpu_times`` (seconds, one per repeat) and
    ``gpu_times`` (seconds, one row per device). ``str()`` gives CuPy's summary line."""

    def __init__(self, name: str, ts: np.ndarray, devices: tuple[int, ...]):
        self.name = name
        self._ts = ts
        self._devices = devices

    @property
    def cpu_times(self) -> np.ndarray:
        """Seconds the host spent in each call (the function returning, not its device work)."""
        return self._ts[0]

    @property
    def gpu_times(self) -> np.ndarray:
        """Seconds between events recorded before and after each call, per device:
        shape ``(len(devices), n_repeat)``."""
        return self._ts[1:]

    @staticmethod
    def _to_str_per_item(device_name: str, t: np.ndarray) -> str:
        t_us = t * 1e6
        s = f"    {device_name}:{t_us.mean():>9.03f} us"
        if t.size > 1:
            s += f"   +/- {t_us.std():>6.03f} (min: {t_us.min():>9.03f} / max: {t_us.max():>9.03f}) us"
        return s

    def to_str(self, show_gpu: bool = True) -> str:
        results = [self._to_str_per_item("CPU", self._ts[0])]
        if show_gpu:
            results += [self._to_str_per_item(f"GPU-{d}", self._ts[1 + i]) for i, d in enumerate(self._devices)]
        return f"{self.name:<20s}:{' '.join(results)}"

    def __str__(self) -> str:
        return self.to_str(show_gpu=True)


def benchmark(func, args=(), kwargs=None, n_repeat=10000, *, name=None, n_warmup=10, max_duration=math.inf,
              devices=None) -> _PerfCaseResult:
    """Times ``func(*args, **kwargs)`` (``cupyx.profiler.benchmark``): ``n_warmup`` untimed calls,
    then up to ``n_repeat`` timed ones, stopping early once ``max_duration`` seconds have passed.
    Each call is timed on the host and, between events recorded on each of ``devices`` (default:
    the current device), on the device; the call's device work is waited for before the next."""
    if not callable(func):
        raise ValueError("`func` should be a callable object.")
    if not isinstance(args, tuple):
        raise ValueError("`args` should be of tuple type.")
    kwargs = {} if kwargs is None else kwargs
    if not isinstance(kwargs, dict):
        raise ValueError("`kwargs` should be of dict type.")
    for label, value in (("n_repeat", n_repeat), ("n_warmup", n_warmup)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"`{label}` should be an integer.")
    if n_repeat < 1:
        raise ValueError("`n_repeat` should be at least 1.")
    if not isinstance(max_duration, (int, float)):
        raise ValueError("`max_duration` should be given in seconds")
    devices = (_runtime.current_device_id(),) if devices is None else tuple(int(d) for d in devices)
    name = func.__name__ if name is None else name
    for _ in range(n_warmup):
        func(*args, **kwargs)
    for d in devices:
        _runtime.Device(d).synchronize()
    starts = [_runtime.Event(device=d) for d in devices]
    ends = [_runtime.Event(device=d) for d in devices]
    ts = np.empty((1 + len(devices), n_repeat), dtype=np.float64)
    began = time.perf_counter()
    done = 0
    while done < n_repeat:
        for d, e in zip(devices, starts, strict=True):
            with _runtime.Device(d):
                e.record()
        t0 = time.perf_counter()
        func(*args, **kwargs)
        t1 = time.perf_counter()
        for d, e in zip(devices, ends, strict=True):
            with _runtime.Device(d):
                e.record()
        ts[0, done] = t1 - t0
        for k, (s, e) in enumerate(zip(starts, ends, strict=True)):
            e.synchronize()
            ts[1 + k, done] = _runtime.get_elapsed_time(s, e) * 1e-3
        done += 1
        if time.perf_counter() - began > max_duration:
            break
    return _PerfCaseResult(name, ts[:, :done], devices)


class time_range:  # noqa: N801  (CuPy's name: a class used as a function and a decorator)
    """An NVTX range around a block (``with time_range("step"):``) or every call of a function
    (``@time_range()``, named after it), as ``cupyx.profiler.time_range``. ``color_id`` picks from
    NVTX's palette, ``argb_color`` gives the colour itself (it wins over ``color_id``); ``sync``
    waits for the device's work at both ends, so the range spans it."""

    def __init__(self, message=None, color_id=None, argb_color=None, sync=False):
        if message is not None and not isinstance(message, str):
            raise TypeError(f"message must be a str, got {type(message).__name__}")
        if argb_color is not None:
            self.argb = int(argb_color) & 0xFFFFFFFF
        elif color_id is not None:
            self.argb = _PALETTE[int(color_id) % len(_PALETTE)]
        else:
            self.argb = _PALETTE[0]
        self.message = message
        self.sync = bool(sync)

    def __enter__(self):
        if self.message is None:
            raise ValueError("when used as a context manager, the message argument cannot be None")
        self._push(self.message)
        return self

    def __exit__(self, *exc):
        if self.sync:
            _runtime.synchronize()
        _ember.nvtx_pop()

    def __call__(self, func):
        message = func.__name__ if self.message is None else self.message

        @functools.wraps(func)
        def ranged(*args, **kwargs):
            self._push(message)
            try:
                return func(*args, **kwargs)
            finally:
                if self.sync:
                    _runtime.synchronize()
                _ember.nvtx_pop()

        return ranged

    def _push(self, message: str) -> None:
        global _warned
        if self.sync:
            _runtime.synchronize()
        if not _ember.nvtx_push(message, self.argb) and not _warned:
            _warned = True
            warnings.warn("NVTX (libnvtx3interop or libnvToolsExt) was not found, so time ranges do nothing: "
                          "install the CUDA toolkit, or NVIDIA's pip wheels (nvidia-nvtx)",
                          RuntimeWarning, stacklevel=3)
