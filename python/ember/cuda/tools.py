"""PyCUDA's ``pycuda.tools`` on ember: the helpers PyCUDA programs and tests import from it.

``dtype_to_ctype`` names a NumPy dtype's C type (as kernels generated from strings declare
it), ``mark_cuda_test`` runs a test function with a current context (PyCUDA's own is now a
plain pass-through), ``make_default_context`` and ``get_default_device`` give device 0 (or
``CUDA_DEVICE``), ``clear_context_caches`` exists for programs that call it (ember keeps no
per-context caches of its own to clear).
"""

from __future__ import annotations

import functools
import os

import numpy as np

from . import driver as _driver

_CTYPES = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.int8): "signed char",
    np.dtype(np.uint8): "unsigned char",
    np.dtype(np.int16): "short",
    np.dtype(np.uint16): "unsigned short",
    np.dtype(np.int32): "int",
    np.dtype(np.uint32): "unsigned int",
    np.dtype(np.int64): "long long",
    np.dtype(np.uint64): "unsigned long long",
    np.dtype(np.float16): "__half",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(np.complex64): "pycuda::complex<float>",
    np.dtype(np.complex128): "pycuda::complex<double>",
}


def dtype_to_ctype(dtype, with_fp_tex_hack: bool = False) -> str:
    """The C type of ``dtype`` (``float32`` -> ``"float"``); ``ValueError`` for one C lacks."""
    if dtype is None:
        raise ValueError("dtype may not be None")
    dtype = np.dtype(dtype)
    if with_fp_tex_hack and dtype.kind == "f":
        raise ValueError("texture references were removed in CUDA 12; ember has no texture fetches")
    try:
        return _CTYPES[dtype]
    except KeyError:
        raise ValueError(f"unable to map dtype '{dtype}' to a C type") from None


def get_default_device(default: int = 0) -> _driver.Device:
    """The device ``CUDA_DEVICE`` names, else ``default``."""
    return _driver.Device(int(os.environ.get("CUDA_DEVICE", default)))


def make_default_context(ctx_maker=None) -> _driver.Context:
    """A context on the default device, made current (``ctx_maker(device)`` if given)."""
    device = get_default_device()
    return ctx_maker(device) if ctx_maker is not None else device.make_context()


def clear_context_caches() -> None:
    """PyCUDA drops its per-context memoized values here; ember keeps none."""


def mark_cuda_test(inner):
    """Runs ``inner`` with a current context, as PyCUDA's decorator did (now a pass-through)."""

    @functools.wraps(inner)
    def run(*args, **kwargs):
        make_default_context()
        return inner(*args, **kwargs)

    return run


__all__ = ["clear_context_caches", "dtype_to_ctype", "get_default_device", "make_default_context",
           "mark_cuda_test"]
