"""``@cuda.jit``: kernels and device functions written in Python.

A kernel is specialised for the types of the arguments of its first launch (or compiled
now for explicit signatures); ``kernel[griddim, blockdim](*args)`` is read, dispatched and
launched in native code (``ember._ember.JitKernel``).
"""

from __future__ import annotations

import builtins
import enum
import os
import warnings

import numpy as np

from .. import _ember
from .._operands import is_device_array
from ..errors import DeviceFunctionLaunchError, PerformanceWarning
from ..types import Signature, is_type, signature_text
from . import introspect, pickling
from .externs import CUSource, link_sources
from .front import program_json

_LAUNCH_HELP = (
    "Kernel launch configuration was not specified. Use the syntax:\n\n"
    "kernel_function[blockspergrid, threadsperblock](arg0, arg1, ..., argn)"
)
_warned_host_arrays = False


class Dispatcher(_ember.JitKernel):
    """What ``@cuda.jit`` returns: launch it as ``kernel[griddim, blockdim](*args)``."""

    _ember_jit_dispatcher = True

    def __init__(self, py_func, signatures=(), device=False, fastmath=False, boundscheck=None, link=(), opt=True):
        self.py_func = py_func
        self.__name__ = py_func.__name__
        self.__qualname__ = getattr(py_func, "__qualname__", py_func.__name__)
        self.__doc__ = py_func.__doc__
        self.__module__ = py_func.__module__
        self._device = device
        boundscheck = None if boundscheck is None else bool(boundscheck)
        self._exceptions: list = []  # what the kernel's `raise` statements raise, numbered
        self._link = link_sources(link)
        self._captured: list = []  # global device arrays the kernel reads by address
        opt = opt is None or bool(opt)
        self._setup(py_func.__name__, bool(fastmath), boundscheck,
                    lambda: program_json(py_func, self._exceptions, self._link, self._captured, bool(fastmath)), opt)
        if not device:
            for sig in signatures:
                self._add_signature(sig)
        self._signatures = list(signatures)
        self._options = {"fastmath": bool(fastmath), "boundscheck": boundscheck, "opt": opt}

    def __reduce__(self):
        # The function and the options (see pickling.py): the other side compiles again.
        spec = pickling.function_spec(self.py_func)
        return (pickling.rebuild, (type(self), spec, tuple(self._signatures), self._device,
                                   self._options["fastmath"], self._options["boundscheck"],
                                   tuple(CUSource(s) for s in self._link), self._options["opt"]))

    def _kernel_exception(self, index, builtin, where, tid, ctaid):
        """The exception a checked launch found raised (the first thread's), as Numba words
        it: the place and the thread before the exception's own message. ``index`` numbers a
        ``raise`` statement's exception; else ``builtin`` is Python's own (class name, message)."""
        function, file, line = where
        cls, args = self._exceptions[index] if index is not None else (getattr(builtins, builtin[0]), (builtin[1],))
        place = f"In function {function!r}, file {os.path.abspath(file)}, line {line}"
        prefix = f"{place}, tid={list(tid)} ctaid={list(ctaid)}"
        args = (f"{prefix}: {args[0]}", *args[1:]) if args else (prefix,)
        return cls(*args)

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

    # Numba's introspection, specialisation and forall (the helpers are in introspect.py).
    @property
    def overloads(self) -> dict:
        """The specialisations compiled for the current device, by argument types (a tuple of
        types; Numba's type objects, NumPy dtypes and type names find the same entry)."""
        return introspect.overloads(self)

    @property
    def signatures(self) -> list:
        """The argument types of each compiled specialisation (the keys of ``overloads``)."""
        return list(self.overloads)

    @property
    def specialized(self) -> bool:
        """Whether the kernel is bound to its signatures (explicit ones, or ``specialize``)."""
        return bool(getattr(self, "_signatures", None))

    @property
    def specializations(self) -> dict:
        """The kernels ``specialize`` made, by (compute capability, argument types)."""
        found = self.__dict__.get("_specializations")
        if found is None:
            found = self.__dict__["_specializations"] = {}
        return found

    def specialize(self, *args) -> Dispatcher:
        """A kernel compiled now for the types of ``args`` (values, or types such as
        ``float32[::1]``), that launches only with arguments of those types."""
        return introspect.specialize(self, args)

    def forall(self, ntasks: int, tpb: int = 0, stream=0, sharedmem: int = 0):
        """A launcher of ``ntasks`` threads in one dimension (``kernel.forall(n)(*args)``),
        for kernels that map ``cuda.grid(1)`` to tasks and skip threads past ``ntasks``;
        ``tpb`` threads per block (0: the most the compiled kernel takes, up to 1024)."""
        return introspect.ForAll(self, ntasks, tpb, stream, sharedmem)

    def inspect_asm(self, signature=None):
        """The PTX of each specialisation, as Numba's: a dict by argument types, or the text of
        ``signature`` (argument types, or a signature object). On a CUDA device it is the PTX
        of the generated CUDA C that ran; on other devices, of the CUDA C ember generates for
        the same specialisation (compiled for Numba's default compute capability). PTX needs
        NVRTC (pip's ``nvidia-cuda-nvrtc``); where it cannot be loaded this gives the generated
        C the device's compiler compiled instead (CUDA C, or OpenCL C)."""
        return introspect.by_signature(self, signature, lambda o: o.inspect_asm(), single=False)

    def inspect_lto_ptx(self, signature=None):
        """As :meth:`inspect_asm`, always PTX (NVRTC is required: ember links nothing, so the
        PTX after link-time optimisation is the kernel's own PTX)."""
        return introspect.by_signature(self, signature, lambda o: o.inspect_ptx(), single=False)

    def inspect_llvm(self, signature=None):
        """The generated C of each specialisation (CUDA C or OpenCL C, as the device compiled
        it): ember's lowest level of its own, in place of Numba's LLVM IR."""
        return introspect.by_signature(self, signature, lambda o: o.inspect_llvm(), single=False)

    def inspect_types(self, file=None):
        """Prints each specialisation's name and argument types above the function's Python
        source (Numba adds each line's typed IR; ember's typed IR stays in its compiler)."""
        introspect.inspect_types(self, file)

    def get_regs_per_thread(self, signature=None):
        """Registers per thread of the compiled kernel (0 where the device's API does not tell,
        as on OpenCL). An int for ``signature`` or a specialised kernel; else a dict by types."""
        return introspect.by_signature(self, signature, lambda o: o.regs_per_thread)

    def get_shared_mem_per_block(self, signature=None):
        """Bytes of statically allocated shared memory per block."""
        return introspect.by_signature(self, signature, lambda o: o.shared_mem_per_block)

    def get_max_threads_per_block(self, signature=None):
        """The most threads a block of the compiled kernel may have."""
        return introspect.by_signature(self, signature, lambda o: o.max_threads_per_block)

    def get_local_mem_per_thread(self, signature=None):
        """Bytes of local (OpenCL: private) memory per thread."""
        return introspect.by_signature(self, signature, lambda o: o.local_mem_per_thread)

    def get_const_mem_size(self, signature=None):
        """Bytes of constant memory (0 where the device's API does not tell, as on OpenCL)."""
        return introspect.by_signature(self, signature, lambda o: o.const_mem_size)

    def _convert_arg(self, value):
        """An argument the native launch path does not take as it is, as ``(device array,
        write-back or None, read-only[, record])``: a NumPy structured scalar (``np.void``,
        ``np.record``) is copied to the device as a 0-d array passed by reference, and its
        fields written back after the launch, as Numba does; NumPy arrays are copied to the device and back after
        the launch (as Numba does, with a one-time warning); a read-only one is not copied back,
        and a kernel that may write it is refused before it runs; ``__cuda_array_interface__``
        and DLPack objects are viewed without a copy."""
        from .._creation import asarray

        if isinstance(value, np.void) and value.dtype.fields is not None:
            # A record (an element of a structured array), as Numba passes one: copied to the
            # device, passed by reference, and copied back after the launch.
            device = asarray(np.array(value, dtype=value.dtype))

            def write_back():
                got = device.get()
                for name in value.dtype.names:
                    value[name] = got[name]

            return device, write_back, False, True
        if isinstance(value, enum.Enum):
            # An Enum member is passed as its value (a number, or a tuple of numbers).
            return value.value, None, False
        view = getattr(value, "__ember_device_view__", None)
        if view is not None:
            # Host memory the device addresses (cuda.mapped_array): passed in place.
            return view(), None, False
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

    def inspect_asm(self, signature=None):
        """The PTX of the function compiled alone (``cuda.compile_ptx(..., device=True)``) for
        ``signature``, or a dict of it by argument types for each signature the decorator
        declared. Needs NVRTC."""
        from . import ptx

        def one(sig):
            options = self._options
            return ptx.compile_ptx(self.py_func, sig, device=True, fastmath=options["fastmath"], opt=options["opt"])[0]

        if signature is not None:
            return one(signature)
        out = {}
        for sig in self._signatures:
            args, _ = ptx.split_signature(sig)
            out[tuple(introspect.numba_type(introspect.type_name(a)) for a in args)] = one(sig)
        return out

    inspect_lto_ptx = inspect_asm

    def __getitem__(self, config):
        raise DeviceFunctionLaunchError(
            f"Cannot compile a device function as a kernel: {self.__name__} is a device function: call it "
            "from a kernel; only kernels are launched with kernel[griddim, blockdim](...)"
        )


def jit(func_or_sig=None, device=False, inline=False, link=(), debug=None, opt=True, lineinfo=False, cache=False,
        fastmath=False, **kws):
    """Numba's ``@cuda.jit``: compile a Python function as a kernel (or, with
    ``device=True``, as a function kernels call).

    Forms: ``@jit``, ``@jit()``, ``@jit("void(float32[:], int32)")``, ``@jit(void(float32[:],
    int32))`` (ember.types' objects, Numba's), ``@jit((float32[:], int32))``, ``@jit([sig, ...])``,
    ``@jit(device=True)``, ``@jit(fastmath=True)``, ``@jit(boundscheck=True)`` (every array index
    checked; the first out of bounds raises ``ember.errors.OutOfBoundsError``, an ``IndexError``;
    ``None`` follows ``EMBER_CHECKED``), ``@jit(link=[...])`` (CUDA C, ``cuda.CUSource`` or ``.cu``
    files, compiled with the kernel for the CUDA C functions ``cuda.declare_device`` declares),
    ``@jit(debug=True)`` (checked mode too, as Numba's debug
    mode: a ``raise``/failed ``assert`` in the kernel raises its exception after the launch, the
    first thread's, with the place and the thread; without it a ``raise`` ends the thread
    silently), ``@jit(opt=False)`` (the device compiler's optimisation off: NVRTC's debug mode,
    OpenCL's ``-cl-opt-disable``). ``cache``, ``lineinfo``,
    ``inline`` and the code-generation hints ``forceinline``, ``lto``, ``launch_bounds`` and
    ``shared_memory_carveout`` are accepted; ember always caches on disk and leaves those
    choices to its compiler.
    """
    link_sources(link)  # refused now, not at the first launch, when it is not CUDA C
    hints = {"forceinline", "lto", "launch_bounds", "shared_memory_carveout"}
    unknown = set(kws) - {"boundscheck", "max_registers", "extensions"} - hints
    if unknown:
        raise TypeError(f"jit() got unexpected keyword arguments: {', '.join(sorted(unknown))}")

    def make(fn, sigs):
        if isinstance(fn, Dispatcher):
            fn = fn.py_func
        if not callable(fn):
            raise TypeError(f"@cuda.jit decorates a function, got {type(fn).__name__}")
        cls = _DeviceFunction if device else Dispatcher
        boundscheck = kws.get("boundscheck")
        if debug and boundscheck is None:
            boundscheck = True
        return cls(fn, sigs, device=device, fastmath=fastmath, boundscheck=boundscheck, link=link, opt=opt)

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
