"""Placeholders for functions that only kernels compiled from Python can call."""

from __future__ import annotations


class DeviceOnly:
    """A function that exists only inside a kernel compiled with ``@cuda.jit``.

    Host code that calls it gets a ``TypeError``. The kernel compiler recognises the object by
    ``intrinsic``, its dotted name (``"cuda.random.xoroshiro128p_uniform_float32"``), and emits
    the device function that implements it.
    """

    __slots__ = ("intrinsic",)

    def __init__(self, intrinsic: str):
        self.intrinsic = intrinsic

    def __call__(self, *args, **kwargs):
        name = self.intrinsic.rpartition(".")[2]
        raise TypeError(f"{name} can only be called inside a kernel compiled with @cuda.jit")

    def __repr__(self):
        return f"<device-only function {self.intrinsic}>"
