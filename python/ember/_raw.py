"""CuPy's ``RawKernel`` and ``RawModule``: CUDA C written by the user, compiled through the
one kernel cache, launched as ``k(grid, block, args, shared_mem=0, stream=None)``.

On CUDA devices NVRTC compiles the source; on OpenCL devices (PoCL on the CPU, other
vendors' GPUs) ember translates it to OpenCL C first (see ``docs/cuda-c-on-opencl.md``).
"""

from __future__ import annotations

from . import _ember
from ._runtime import current_device_id


def constant_buffers(native, cache: dict, device: int) -> dict:
    """The buffers a translated module keeps for its variables (host-filled ``__constant__``,
    ``__device__``; ``get_global``): byte arrays holding their initial values, one set per device
    (CUDA has them in the module itself: none here)."""
    buffers = cache.get(device)
    if buffers is None:
        import numpy as np

        from ._creation import asarray

        buffers = cache[device] = {name: asarray(np.frombuffer(init, dtype=np.uint8).copy())
                                   for name, init in native.constants()}
    return buffers


def kernel_extras(native, name: str, buffers: dict) -> tuple:
    """The constant buffers kernel ``name`` takes after its own arguments."""
    return tuple(buffers[c] for c in native.kernel_constants(name))


def build(source: str, label: str, options, name_expressions=(), device=None):
    """Builds CUDA C through the cache for the current (or given) device: NVRTC on CUDA,
    translated to OpenCL C on OpenCL devices."""
    dev = current_device_id() if device is None else device
    return _ember.build_cuda_module(dev, source, label, [str(o) for o in options],
                                    [str(e) for e in name_expressions])


_ATTRIBUTES = (
    "max_threads_per_block", "shared_size_bytes", "const_size_bytes", "local_size_bytes", "num_regs",
    "ptx_version", "binary_version", "cache_mode_ca", "max_dynamic_shared_size_bytes",
    "preferred_shared_memory_carveout",
)


class _Attributes:
    """CuPy's kernel attributes, read from the compiled kernel (compiling it on first use)."""

    __slots__ = ()

    @property
    def kernel(self):
        """The compiled kernel on the current device (compiles on first use)."""
        return self._native()

    @property
    def attributes(self) -> dict:
        k = self._native()
        return {name: k.attribute(name) for name in _ATTRIBUTES}

    @property
    def max_threads_per_block(self) -> int:
        return self._native().attribute("max_threads_per_block")

    @property
    def shared_size_bytes(self) -> int:
        return self._native().attribute("shared_size_bytes")

    @property
    def const_size_bytes(self) -> int:
        return self._native().attribute("const_size_bytes")

    @property
    def local_size_bytes(self) -> int:
        return self._native().attribute("local_size_bytes")

    @property
    def num_regs(self) -> int:
        return self._native().attribute("num_regs")

    @property
    def ptx_version(self) -> int:
        return self._native().attribute("ptx_version")

    @property
    def binary_version(self) -> int:
        return self._native().attribute("binary_version")

    @property
    def cache_mode_ca(self) -> int:
        return self._native().attribute("cache_mode_ca")

    @property
    def max_dynamic_shared_size_bytes(self) -> int:
        return self._native().attribute("max_dynamic_shared_size_bytes")

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, value: int) -> None:
        self._native().set_attribute("max_dynamic_shared_size_bytes", int(value))

    @property
    def preferred_shared_memory_carveout(self) -> int:
        return self._native().attribute("preferred_shared_memory_carveout")

    @preferred_shared_memory_carveout.setter
    def preferred_shared_memory_carveout(self, value: int) -> None:
        self._native().set_attribute("preferred_shared_memory_carveout", int(value))


class RawKernel(_ember.RawKernel, _Attributes):
    """A CUDA C kernel from source: ``RawKernel(code, name, options=())``; launch as
    ``k(grid, block, args, shared_mem=0, stream=None)`` (the launch runs in native code).

    Arguments are converted as CuPy converts them: ember arrays become pointers, NumPy
    scalars keep their type, Python ``bool``/``int``/``float``/``complex`` become
    ``bool``/``int64``/``float64``/``complex128``. Where the driver tells the kernel's
    parameter sizes (CUDA 12.4+), a wrong count or size raises ``TypeError`` before launch.
    """

    def __init__(self, code, name, options=(), backend="nvrtc", translate_cucomplex=False,
                 enable_cooperative_groups=False, jitify=False):
        if not isinstance(code, str):
            raise TypeError(f"code must be a str of CUDA C, got {type(code).__name__}")
        if not isinstance(name, str) or not name:
            raise TypeError(f"name must be the kernel's name (a non-empty str), got {name!r}")
        if enable_cooperative_groups:
            raise ValueError("cooperative launches (grid-wide synchronisation) are not supported by ember; "
                             "leave enable_cooperative_groups off")
        self.code, self.name, self.options = code, name, tuple(options)
        self.backend, self.translate_cucomplex = backend, translate_cucomplex
        self.enable_cooperative_groups, self.jitify = enable_cooperative_groups, jitify
        self._set_source(code, name, [str(o) for o in self.options])

    def _native(self):
        return self._kernel()

    def compile(self, log_stream=None):
        """Compiles now rather than at the first launch."""
        self._kernel()

    def __repr__(self):
        return f"<ember.RawKernel {self.name}>"


class _ModuleFunction(_Attributes):
    """A kernel of a :class:`RawModule` (CuPy's ``Function``)."""

    __slots__ = ("module", "name", "_kernels")

    def __init__(self, module: RawModule, name: str):
        self.module, self.name, self._kernels = module, name, {}

    def _native(self):
        dev = current_device_id()
        k = self._kernels.get(dev)
        if k is None:
            native = self.module._native(dev)
            extra = kernel_extras(native, self.name, constant_buffers(native, self.module._constants, dev))
            k = self._kernels[dev] = native.function(self.name, "cupy", extra or None)
        return k

    def __call__(self, grid, block, args, *, shared_mem=0, stream=None, enable_cooperative_groups=False):
        k = self._kernels.get(current_device_id()) or self._native()
        k.launch(grid, block, args, shared_mem, None if stream is None else stream.ptr)

    def __repr__(self):
        return f"<ember.RawModule function {self.name}>"


class RawModule:
    """A CUDA C module: ``RawModule(code=..., options=(), name_expressions=None)``;
    ``get_function(name)`` gives a launchable kernel (also by a name expression such as
    ``"scale<float>"`` when it was listed in ``name_expressions``)."""

    def __init__(self, code=None, path=None, options=(), backend="nvrtc", translate_cucomplex=False,
                 name_expressions=None, jitify=False):
        if (code is None) == (path is None):
            raise TypeError("give exactly one of code= (CUDA C source) and path= (a .cu file)")
        if path is not None:
            with open(path, encoding="utf-8") as f:
                code = f.read()
        if not isinstance(code, str):
            raise TypeError(f"code must be a str of CUDA C, got {type(code).__name__}")
        self.code, self.options = code, tuple(options)
        self.name_expressions = tuple(name_expressions or ())
        self.backend = backend
        self._modules = {}
        self._functions = {}
        self._constants = {}

    def _native(self, device=None):
        dev = current_device_id() if device is None else device
        m = self._modules.get(dev)
        if m is None:
            m = self._modules[dev] = build(self.code, "RawModule", self.options, self.name_expressions, device=dev)
        return m

    def compile(self, log_stream=None):
        """Compiles now rather than at the first ``get_function``."""
        self._native()

    def get_global(self, name: str):
        """A ``MemoryPointer`` to the module's global variable ``name`` (a ``__constant__`` or
        ``__device__`` variable), to fill before launches: ``cp.ndarray(shape, dtype,
        memptr=ptr)[...] = values``. On OpenCL devices it is the buffer ember passes to the
        kernels that read the variable."""
        from ._memory import MemoryPointer, UnownedMemory

        dev = current_device_id()
        native = self._native(dev)
        buffers = constant_buffers(native, self._constants, dev)
        if name in buffers:
            return buffers[name].data
        address, size = native.global_address(name)
        return MemoryPointer(UnownedMemory(address, size, self, dev), 0)

    def get_function(self, name: str) -> _ModuleFunction:
        f = self._functions.get(name)
        if f is None:
            f = _ModuleFunction(self, name)
            f._native()  # a missing kernel fails here, as in CuPy
            self._functions[name] = f
        return f

    def __repr__(self):
        return f"<ember.RawModule with {len(self.code.splitlines())} lines>"
