"""The libraries ``ember bench`` compares: ember and every peer that is installed and works here.

Each is a :class:`Lib`: how it makes a device array from NumPy, synchronises and times device
work. A peer that cannot be imported or sees no device is left out, with the reason kept for
the report header.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .measure import device_ms, wall_ms


@dataclass
class Lib:
    name: str
    version: str
    xp: object
    asarray: object
    sync: object
    events: object = None  # () -> (start, end) events; None: time with the host clock
    elapsed_ms: object = None
    extra: dict = field(default_factory=dict)

    def time_ms(self, fn, repeat: int) -> float:
        if self.events is None:
            return wall_ms(fn, self.sync, repeat)
        return device_ms(fn, self.events, self.sync, self.elapsed_ms, repeat)


def load_ember() -> Lib:
    import ember

    is_cpu = bool(ember.Device(0).attributes.get("is_cpu"))
    events = None if is_cpu else (lambda: (ember.cuda.Event(), ember.cuda.Event()))
    return Lib("ember", ember.__version__, ember, ember.asarray, ember.synchronize, events,
               ember.cuda.get_elapsed_time)


def load_cupy() -> Lib:
    import cupy as cp

    if cp.cuda.runtime.getDeviceCount() < 1:
        raise RuntimeError("no CUDA device")
    return Lib("CuPy", cp.__version__, cp, cp.asarray, cp.cuda.Device().synchronize,
               lambda: (cp.cuda.Event(), cp.cuda.Event()), cp.cuda.get_elapsed_time)


def cupy_or_none():
    """CuPy's module when it is installed and sees a CUDA device, else None."""
    try:
        return load_cupy().xp
    except Exception:  # not installed, no device, or its CUDA libraries missing
        return None


def load_torch() -> Lib:
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError("PyTorch sees no CUDA device")

    def events():
        return torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    return Lib("PyTorch", torch.__version__.split("+")[0], torch, lambda h: torch.from_numpy(h).cuda(),
               torch.cuda.synchronize, events, lambda s, e: s.elapsed_time(e))


def load_numba() -> Lib:
    import numba
    from numba import cuda

    if not cuda.is_available():
        raise RuntimeError("numba-cuda sees no CUDA device")
    try:
        from importlib.metadata import version

        ver = version("numba-cuda")
    except Exception:  # the numba-cuda distribution name is missing in older installs
        ver = numba.__version__
    return Lib("numba-cuda", ver, cuda, cuda.to_device, cuda.synchronize, lambda: (cuda.event(), cuda.event()),
               lambda s, e: s.elapsed_time(e))


def load_pyopencl() -> Lib:
    import pyopencl as cl
    import pyopencl.array as cla

    devices = [d for p in cl.get_platforms() for d in p.get_devices()]
    if not devices:
        raise RuntimeError("PyOpenCL finds no device")
    # The same kind of device ember runs on: CPU devices (PoCL) first when ember is on a CPU.
    import ember

    want_cpu = bool(ember.Device(0).attributes.get("is_cpu"))
    devices.sort(key=lambda d: bool(d.type & cl.device_type.CPU) != want_cpu)
    ctx = cl.Context([devices[0]])
    queue = cl.CommandQueue(ctx)
    return Lib("PyOpenCL", cl.VERSION_TEXT, cl, lambda h: cla.to_device(queue, h), queue.finish,
               extra={"ctx": ctx, "queue": queue})


def load_numpy() -> Lib:
    import numpy as np

    return Lib("NumPy", np.__version__, np, lambda h: h, lambda: None)


LOADERS = {"CuPy": load_cupy, "PyTorch": load_torch, "numba-cuda": load_numba, "PyOpenCL": load_pyopencl,
           "NumPy": load_numpy}


def find_peers(names=None) -> tuple[dict[str, Lib], dict[str, str]]:
    """(the peers that work here by name, the reasons the others do not)."""
    found, missing = {}, {}
    for name, load in LOADERS.items():
        if names is not None and name not in names:
            continue
        try:
            found[name] = load()
        except Exception as e:  # peers fail to import in many ways (absent, CUDA libs, NumPy versions)
            missing[name] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:120]
    return found, missing
