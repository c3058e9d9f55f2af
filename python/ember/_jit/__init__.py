"""Kernels from Python: ember's ``@cuda.jit`` (Numba's language, compiled by ``ember-jit``)."""

from .dispatcher import Dispatcher, jit

__all__ = ["Dispatcher", "jit", "kernel_source"]


def kernel_source(kernel, types, dialect="cuda", coarsen=None, checked=False) -> str:
    """The C that ``kernel`` (a ``@cuda.jit`` function) becomes for argument ``types``
    (Numba's spelling: ``["float32[::1]", "int64"]``) in ``dialect`` ("cuda" or "opencl"),
    without a device: for inspection, and for checking CUDA C through NVRTC anywhere.
    ``coarsen`` ("y2", "x4a", ...) asks for the thread-coarsened variant launches may use;
    ``checked`` for the variant checked mode runs (every array index checked)."""
    from .. import _ember
    from .front import program_json

    program = program_json(getattr(kernel, "py_func", kernel), link=getattr(kernel, "_link", ()))
    return _ember.jit_kernel_source(program, list(types), dialect, coarsen, checked)[0]
