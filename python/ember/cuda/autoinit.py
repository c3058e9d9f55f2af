"""PyCUDA's ``pycuda.autoinit`` on ember: ``import ember.cuda.autoinit``.

Starts the backend and makes the default device (the current one, device 0 unless changed)
current on this thread, naming it ``device`` and its context ``context``. ember works in each
device's primary context, so this context is the one CuPy and PyTorch use too (what PyCUDA's
``autoprimaryctx`` gives).
"""

from __future__ import annotations

from .._runtime import current_device_id
from . import driver as _driver

_driver.init()
device = _driver.Device(current_device_id())
context = device.make_context()

__all__ = ["context", "device"]
