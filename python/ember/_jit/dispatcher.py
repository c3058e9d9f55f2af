"""``@cuda.jit``: kernels and device functions written in Python.

A kernel is specialised for the types of the arguments of its first launch (or compiled
now for explicit signatures); ``kernel[griddim, blockdim](*args)`` is read, dispatched and
launched in native code (``ember._ember.JitKernel``).
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import _ember
from .._operands import is_device_array
from ..errors import PerformanceWarning
from ..types import Signature, is_type, signature_text
from .front import program_json

_LAUNCH_HELP = (
    "Kernel launch configuration was not specified. Use the syntax:\n\n"
    "kernel_function[blockspergrid, threadsperblock](arg0, arg1, ..., argn)"
)
_warned_host_arrays = False


class Dispatcher(_ember.JitKernel):
    """What ``@cuda.jit`` returns: launch it as ``kernel[griddim, blockdim](*args)``."""

    _ember_jit_dispatcher = True

    def __init__(self, py_func, signatures=(), device=False, fastmath=False, boundscheck=None):
        self.py_func = py_func
        self.__name__ = py_func.__name__
        self.__qualname__ = getattr(py_func, "__qualname__", py_func.__name__)
        self.__doc__ = py_func.__doc__
        self.__module__ = py_func.__module__
        self._device = device
        boundscheck = None if boundscheck is None else bool(boundscheck)
        self._setup(py_func.__name__, bool(fastmath), boundscheck, lambda: program_json(py_func))
        if not device:
            for sig in signatures:
                self._add_signature(sig)
        self._signatures = list(signatures)

    def __call__(self, *args, **kwargs):
        if self._device:
            raise TypeError(
                f"{self.__name__} is a device function: call it from a kernel, not from host code"
            )
        raise ValueError(_LAUNCH_HELP)

    def __repr__(self):
        kind = "device function" if self._device else "kernel"
        return f"<ember.cuda.jit {kind} {self.__qualname__}>"

    def inspect_c(self) -> dict:
        """The generated C of each compiled specialisation, by argument types."""
        return dict(self._sources())

    def _convert_arg(self, value):
        """An argument the native launch path does not take as it is, as ``(device array,
        write-back or None, read-only)``: NumPy arrays are copied to the device and back after
        the launch (as Numba does, with a one-time warning); a read-only one is not copied back,
        and a kernel that may write it is refused before it runs; ``__cuda_array_interface__``
        and DLPack objects are viewed without a copy."""
        from .._creation import asarray

        if isinstance(value, np.ndarray):
            global _warned_host_arrays
            if not _warned_host_arrays:
                _warned_host_arrays = True
                warnings.warn(
                    "a NumPy array passed to a kernel is copied to the device and back on every launch; "
                    "use ember.cuda.to_device() once and pass the device array",
                    PerformanceWarning,
                    stacklevel=3,
                )
            device = asarray(value)
            if value.flags.writeable:
                return device, lambda: np.copyto(value, device.get()), False
            return device, None, True
        if is_device_array(value):
            return asarray(value), None, False
        raise TypeError(
            f"cannot pass a {type(value).__name__} to kernel {self.__name__}: kernels take ember arrays, NumPy "
            "arrays, objects with __cuda_array_interface__ or __dlpack__, and numbers"
        )


class _DeviceFunction(Dispatcher):
    """What ``@cuda.jit(device=True)`` returns: kernels call it; it is never launched."""

    def __getitem__(self, config):
        raise TypeError(
            f"{self.__name__} is a device function: call it from a kernel; only kernels are launched "
            "with kernel[griddim, blockdim](...)"
        )


def jit(func_or_sig=None, device=False, inline=False, link=(), debug=None, opt=True, lineinfo=False, cache=False,
        fastmath=False, **kws):
    """Numba's ``@cuda.jit``: compile a Python function as a kernel (or, with
    ``device=True``, as a function kernels call).

    Forms: ``@jit``, ``@jit()``, ``@jit("void(float32[:], int32)")``, ``@jit(void(float32[:],
    int32))`` (ember.types' objects, Numba's), ``@jit((float32[:], int32))``, ``@jit([sig, ...])``,
    ``@jit(device=True)``, ``@jit(fastmath=True)``, ``@jit(boundscheck=True)`` (every array index
    checked; the first out of bounds raises ``ember.errors.OutOfBoundsError``, an ``IndexError``;
    ``None`` follows ``EMBER_CHECKED``). ``link``, ``cache``, ``debug``, ``lineinfo``, ``opt`` and
    ``inline`` are accepted; ember always caches on disk.
    """
    if link:
        raise ValueError("link= (linking CUDA C or PTX files into Python kernels) is not supported by ember")
    unknown = set(kws) - {"boundscheck", "max_registers", "extensions"}
    if unknown:
        raise TypeError(f"jit() got unexpected keyword arguments: {', '.join(sorted(unknown))}")

    def make(fn, sigs):
        if isinstance(fn, Dispatcher):
            fn = fn.py_func
        if not callable(fn):
            raise TypeError(f"@cuda.jit decorates a function, got {type(fn).__name__}")
        cls = _DeviceFunction if device else Dispatcher
        return cls(fn, sigs, device=device, fastmath=fastmath, boundscheck=kws.get("boundscheck"))

    if func_or_sig is None:
        return lambda fn: make(fn, ())
    if isinstance(func_or_sig, (str, Signature)) or (isinstance(func_or_sig, tuple) and all(
            is_type(a) for a in func_or_sig)):
        # One signature: text, a signature object, or a kernel's argument types.
        return lambda fn: make(fn, (signature_text(func_or_sig),))
    if isinstance(func_or_sig, (list, tuple)):
        sigs = tuple(signature_text(s) for s in func_or_sig)
        return lambda fn: make(fn, sigs)
    return make(func_or_sig, ())
