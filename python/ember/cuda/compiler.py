"""PyCUDA's ``pycuda.compiler`` on ember: ``from ember.cuda.compiler import SourceModule``;
and the PTX functions of Numba's ``numba.cuda.compiler`` (``compile_ptx`` and the
``_for_current_device`` forms; Numba's ``compile`` is ``ember.cuda.compile``, as PyCUDA's
``compile`` would take this module's name).

Sources compile through NVRTC and ember's kernel cache (memory and disk), for the current device's
own architecture. CUDA C needs the CUDA backend: elsewhere ``SourceModule`` raises
:class:`~ember.errors.BackendUnavailableError` naming what to use instead.
"""

from __future__ import annotations

from .. import _ember
from .._jit.ptx import compile_for_current_device, compile_ptx, compile_ptx_for_current_device
from .._raw import constant_buffers, kernel_extras
from .._runtime import current_device_id
from ..errors import CompileError
from .driver import _CHECKED, Function, LogicError

# nvcc options that only steer host compilation or nvcc's own files: NVRTC compiles device code
# alone and refuses them, and leaving them out changes no kernel.
_HOST_ONLY = {"-O0", "-O1", "-O2", "-O3", "--keep", "-keep", "--cubin", "-cubin"}
# The same with a separate value; the architecture ones because ember always compiles for the
# device it runs on.
_HOST_ONLY_WITH_VALUE = {"-Xcompiler", "--compiler-options", "-ccbin", "--compiler-bindir", "-code", "--gpu-code"}
_HOST_ONLY_PREFIXES = ("-Xcompiler=", "--compiler-options=", "-ccbin=", "--compiler-bindir=", "-code=", "--gpu-code=")


def wrap_source(source: str, no_extern_c: bool = False) -> str:
    """The source as PyCUDA compiles it: all of it inside ``extern "C" { }`` (so kernels keep
    their plain names) unless ``no_extern_c``."""
    return source if no_extern_c else f'extern "C" {{\n{source}\n}}\n'


def nvrtc_options(options=None, include_dirs=None) -> list[str]:
    """nvcc-style ``options`` and ``include_dirs`` as NVRTC options (host-only flags dropped)."""
    if isinstance(options, str):
        raise TypeError(f"options must be a list of strings such as ['--use_fast_math'], got the str {options!r}")
    out, skip_value = [], False
    for opt in options or ():
        opt = str(opt)
        if skip_value:
            skip_value = False
        elif opt in _HOST_ONLY_WITH_VALUE:
            skip_value = True
        elif opt not in _HOST_ONLY and not opt.startswith(_HOST_ONLY_PREFIXES):
            out.append(opt)
    out += [f"-I{d}" for d in include_dirs or ()]
    return out


class SourceModule:
    """CUDA C source compiled for the current device; ``get_function(name)`` gives a kernel.

    As in PyCUDA the whole source is wrapped in ``extern "C"`` unless ``no_extern_c=True``
    (C++ templates and headers such as ``<cuda_fp16.h>`` need ``no_extern_c=True`` plus their own
    ``extern "C"`` on the kernels). ``include_dirs`` become ``-I`` options.

    Differences from PyCUDA: ember compiles with NVRTC for the device's own architecture, so
    ``arch`` and ``code`` are ignored, as are ``nvcc``, ``keep`` and ``cache_dir`` (ember's kernel
    cache is used; ``EMBER_CACHE_DIR`` moves it); nvcc's host-only options such as ``-O3`` are
    dropped. ``get_texref`` and ``get_surfref`` are not available (CUDA 12 removed texture
    references).
    """

    def __init__(self, source, nvcc="nvcc", options=None, keep=False, no_extern_c=False, arch=None, code=None,
                 cache_dir=None, include_dirs=None):
        if not isinstance(source, str):
            raise TypeError(f"source must be a str of CUDA C, got {type(source).__name__}")
        self.source = wrap_source(source, no_extern_c)
        self.options = nvrtc_options(options, include_dirs)
        self.device = current_device_id()
        self._constants = {}
        with _CHECKED:
            self.module = _ember.build_cuda_module(self.device, self.source, "kernel", self.options, [])

    def get_function(self, name: str) -> Function:
        """The kernel called ``name`` (its plain name: the source is ``extern "C"``)."""
        try:
            with _CHECKED:
                extra = kernel_extras(self.module, name, constant_buffers(self.module, self._constants, self.device))
                return Function(self.module.function(name, "pycuda", extra or None))
        except ValueError as e:  # PyCUDA's error for a missing kernel is a LogicError
            raise LogicError(f"cuModuleGetFunction failed: named symbol not found: {e}", backend="CUDA",
                             call="cuModuleGetFunction", name="CUDA_ERROR_NOT_FOUND") from None

    def get_global(self, name: str):
        """``(pointer, size)`` of the module's global variable ``name`` (a ``__constant__`` or
        ``__device__`` variable) for ``memcpy_htod``; on OpenCL devices, the buffer ember passes
        to the kernels that read the variable."""
        from .._memory import DeviceAllocation

        buffers = constant_buffers(self.module, self._constants, self.device)
        if name in buffers:
            return DeviceAllocation._over(buffers[name]), int(buffers[name].nbytes)
        try:
            with _CHECKED:
                address, size = self.module.global_address(name)
        except ValueError as e:
            raise LogicError(f"cuModuleGetGlobal failed: named symbol not found: {e}", backend="CUDA",
                             call="cuModuleGetGlobal", name="CUDA_ERROR_NOT_FOUND") from None
        return DeviceAllocation(address), size

    def __repr__(self):
        return f"<ember.cuda.compiler.SourceModule with {len(self.source.splitlines())} lines>"


__all__ = ["CompileError", "SourceModule", "compile_for_current_device", "compile_ptx",
           "compile_ptx_for_current_device", "nvrtc_options", "wrap_source"]
