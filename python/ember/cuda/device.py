"""``ember.cuda.device``: CuPy's ``cupy.cuda.device`` names (the :class:`Device` class and
the current device's id and compute capability)."""

from __future__ import annotations

from .._runtime import Device, current_device_id

__all__ = ["Device", "get_compute_capability", "get_device_id"]


def get_device_id() -> int:
    """The current device of this thread."""
    return current_device_id()


def get_compute_capability() -> str:
    """The current device's compute capability as CuPy writes it (``"90"`` for sm_90); on
    OpenCL devices, which have none, ``"0"``."""
    from .runtime import getDeviceProperties

    props = getDeviceProperties(current_device_id())
    return str(props["major"] * 10 + props["minor"])
