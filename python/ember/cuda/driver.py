"""PyCUDA's ``pycuda.driver`` on ember: ``import ember.cuda.driver as drv``.

Memory, copies, devices, contexts, streams, events and kernel launches under PyCUDA's names, built
on ember's arrays, memory pool and kernel cache. Memory and copies work on every backend (on a CPU
OpenCL device "device memory" is host memory); kernels from CUDA C need the CUDA backend.

Errors: ``drv.Error`` *is* :class:`ember.errors.EmberError`, so ``except drv.Error`` catches
everything ember raises, wherever it is raised. ``except`` ignores ``__subclasscheck__``, so the
hierarchy has to be real: ``LogicError``, ``LaunchError`` and ``RuntimeError`` derive from
:class:`ember.errors.DriverError`, and a CUDA failure surfacing through this module is re-raised as
the class PyCUDA's table gives its code (an illegal address is a ``LogicError``, as in PyCUDA).
``drv.MemoryError`` is ember's ``OutOfMemoryError`` and ``drv.CompileError`` ember's ``CompileError``.
"""

from __future__ import annotations

import enum
import re
import threading

import numpy as np

from .. import _creation, _ember, _runtime
from .._creation import _shape_tuple
from .._memory import DeviceAllocation, MemoryPointer
from .._ndarray import ndarray
from .._runtime import current_device_id
from ..errors import (
    BackendUnavailableError,
    CompileError,
    DriverError,
    EmberError,
    LaunchError,
    LogicError,
    OutOfMemoryError,
)

# --- errors ---------------------------------------------------------------------------------------
Error = EmberError
MemoryError = OutOfMemoryError  # PyCUDA's name; it shadows the builtin here, as in PyCUDA


class RuntimeError(DriverError):  # PyCUDA's name; it shadows the builtin here
    """The driver could not do what was asked (no device, no binary for the GPU, ...)."""


_LAUNCH_CODES = {
    "CUDA_ERROR_LAUNCH_FAILED", "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "CUDA_ERROR_LAUNCH_TIMEOUT",
    "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING",
}
_RUNTIME_CODES = {
    "CUDA_ERROR_NO_DEVICE", "CUDA_ERROR_NO_BINARY_FOR_GPU", "CUDA_ERROR_FILE_NOT_FOUND", "CUDA_ERROR_NOT_READY",
    "CUDA_ERROR_ECC_UNCORRECTABLE",
}
# PyCUDA raises the base Error (or MemoryError) for these: the plain DriverError already is one.
_KEPT_CODES = {"CUDA_ERROR_UNKNOWN", "CUDA_ERROR_OUT_OF_MEMORY"}


def _translated(err: DriverError) -> DriverError:
    """``err`` as the class PyCUDA raises for its CUDA error code (other backends: unchanged)."""
    name = err.name or ""
    if type(err) is not DriverError or not name.startswith("CUDA_ERROR_") or name in _KEPT_CODES:
        return err
    cls = LaunchError if name in _LAUNCH_CODES else RuntimeError if name in _RUNTIME_CODES else LogicError
    return cls(err.args[0] if err.args else "", backend=err.backend, call=err.call, code=err.code, name=name,
               last_kernel=err.last_kernel)


class _PyCudaErrors:
    """``with _CHECKED:`` re-raises CUDA driver errors under PyCUDA's classes."""

    def __enter__(self):
        return self

    def __exit__(self, tp, exc, tb):
        if tp is DriverError:
            raise _translated(exc) from None
        return False


_CHECKED = _PyCudaErrors()


def init(flags: int = 0) -> None:
    """Starts the backend (PyCUDA's ``cuInit``); raises BackendUnavailableError where there is none."""
    _runtime.backend()


# --- devices and contexts -------------------------------------------------------------------------
class device_attribute(enum.IntEnum):
    """The device attributes ember can answer (values are CUDA's ``CUdevice_attribute``)."""

    MAX_THREADS_PER_BLOCK = 1
    MAX_BLOCK_DIM_X = 2
    MAX_BLOCK_DIM_Y = 3
    MAX_BLOCK_DIM_Z = 4
    WARP_SIZE = 10
    MULTIPROCESSOR_COUNT = 16
    COMPUTE_CAPABILITY_MAJOR = 75
    COMPUTE_CAPABILITY_MINOR = 76


class Device:
    """Device ``ordinal`` of the selected backend: ``drv.Device(0)``."""

    def __init__(self, ordinal: int):
        if isinstance(ordinal, str):
            raise TypeError("drv.Device takes a device ordinal; PCI bus ids are not supported by ember")
        count = _ember.device_count()
        if not 0 <= int(ordinal) < count:
            raise LogicError(
                f"cuDeviceGet failed: invalid device ordinal {ordinal}: the {_runtime.backend()} backend has "
                f"{count} device(s), numbered from 0"
            )
        self.ordinal = int(ordinal)

    @staticmethod
    def count() -> int:
        """Number of devices of the selected backend."""
        return _ember.device_count()

    def _info(self) -> dict:
        return _ember.device_info(self.ordinal)

    def name(self) -> str:
        return self._info()["name"]

    def compute_capability(self) -> tuple[int, int]:
        """``(major, minor)``, e.g. ``(9, 0)`` for an H100 (CUDA devices only)."""
        info = self._info()
        arch = re.fullmatch(r"sm_(\d+)[a-z]?", info["arch"])  # sm_90, sm_90a, sm_100
        if info["backend"] != "cuda" or arch is None:
            raise BackendUnavailableError(
                f"compute_capability() needs a CUDA device; device {self.ordinal} is {info['name']!r} on the "
                f"{info['backend']} backend",
                backend="cuda",
            )
        digits = arch.group(1)
        return int(digits[:-1]), int(digits[-1])

    def total_memory(self) -> int:
        """Bytes of device memory."""
        return self._info()["total_memory"]

    def get_attribute(self, attr: device_attribute) -> int:
        attr = device_attribute(attr)
        if attr in (device_attribute.COMPUTE_CAPABILITY_MAJOR, device_attribute.COMPUTE_CAPABILITY_MINOR):
            return self.compute_capability()[attr == device_attribute.COMPUTE_CAPABILITY_MINOR]
        info = self._info()
        if attr == device_attribute.MAX_THREADS_PER_BLOCK:
            return info["max_threads_per_block"]
        if attr == device_attribute.WARP_SIZE:
            return info["warp_size"]
        if attr == device_attribute.MULTIPROCESSOR_COUNT:
            return info["multiprocessors"]
        return info["max_block_dims"][attr - device_attribute.MAX_BLOCK_DIM_X]

    def get_attributes(self) -> dict:
        """Every attribute of :class:`device_attribute` this device has, by enum member."""
        out = {}
        for attr in device_attribute:
            try:
                out[attr] = self.get_attribute(attr)
            except BackendUnavailableError:
                pass  # compute capability: CUDA devices only
        return out

    def __getattr__(self, name):
        # PyCUDA's dev.max_threads_per_block spelling.
        try:
            attr = device_attribute[name.upper()]
        except KeyError:
            raise AttributeError(f"'Device' object has no attribute {name!r}") from None
        return self.get_attribute(attr)

    def make_context(self, flags: int = 0) -> Context:
        """A context on this device, made current on this thread (``flags`` are scheduling hints
        that ember's shared primary context does not take)."""
        ctx = Context(self)
        ctx.push()
        return ctx

    def retain_primary_context(self) -> Context:
        """The device's primary context (the one ember always uses), not yet pushed."""
        return Context(self)

    def __eq__(self, other):
        return isinstance(other, Device) and other.ordinal == self.ordinal

    def __hash__(self):
        return hash(("drv.Device", self.ordinal))

    def __repr__(self):
        return f"<ember.cuda.driver.Device {self.ordinal}>"


class _ContextStack(threading.local):
    def __init__(self):
        self.entries: list[tuple[Context, int]] = []  # (context, device current before its push)


_contexts = _ContextStack()


class Context:
    """PyCUDA's context: which device this thread works on. ember runs everything in each device's
    primary context (shared with CuPy and PyTorch), so push and pop switch the current device."""

    def __init__(self, device: Device):
        self._device = device

    def push(self) -> None:
        """Makes this context's device current on this thread."""
        _contexts.entries.append((self, current_device_id()))
        _runtime.Device(self._device.ordinal).use()

    @staticmethod
    def pop() -> None:
        """Undoes the last ``push`` on this thread."""
        if not _contexts.entries:
            raise LogicError("cuCtxPopCurrent failed: no context was pushed on this thread")
        _, previous = _contexts.entries.pop()
        _runtime.Device(previous).use()

    def detach(self) -> None:
        """Pops this context if it is the current one."""
        if Context.get_current() is self:
            Context.pop()

    @staticmethod
    def get_current() -> Context | None:
        """The context last pushed on this thread, or None."""
        return _contexts.entries[-1][0] if _contexts.entries else None

    @staticmethod
    def get_device() -> Device:
        """The current device."""
        return Device(current_device_id())

    @staticmethod
    def synchronize() -> None:
        """Waits for all work on the current device."""
        with _CHECKED:
            _runtime.synchronize()

    def __repr__(self):
        return f"<ember.cuda.driver.Context on device {self._device.ordinal}>"


# --- streams and events ---------------------------------------------------------------------------



class Stream(_runtime.Stream):
    """A CUDA stream (an ember Stream, so ``with stream:`` and ember's ``stream=`` take it too).
    ``flags`` are accepted for PyCUDA's signature; ember's streams are ordinary streams."""

    def __init__(self, flags: int = 0):
        super().__init__()

    @property
    def handle(self) -> int:
        """The ``CUstream`` (0 is the default stream)."""
        return self.ptr

    def synchronize(self) -> None:
        with _CHECKED:
            super().synchronize()

    def is_done(self) -> bool:
        """True when all work queued so far has finished."""
        with _CHECKED:
            return self.done

    def wait_for_event(self, event: Event) -> None:
        """Makes later work on this stream wait for ``event``."""
        self.wait_event(event)


class event_flags(enum.IntFlag):
    """PyCUDA's event flags (CUDA's values). ember accepts them; its events always time."""

    DEFAULT = 0
    BLOCKING_SYNC = 1
    DISABLE_TIMING = 2
    INTERPROCESS = 4


class Event(_runtime.Event):
    """A CUDA event; ``record`` and ``synchronize`` return the event, times are in milliseconds."""

    def __init__(self, flags: int = 0):
        super().__init__(block=bool(flags & event_flags.BLOCKING_SYNC))

    def record(self, stream=None) -> Event:
        with _CHECKED:
            super().record(stream)
        return self

    def synchronize(self) -> Event:
        with _CHECKED:
            super().synchronize()
        return self

    def query(self) -> bool:
        """True once the recorded work has finished."""
        with _CHECKED:
            return self.done

    def time_since(self, start: Event) -> float:
        """Milliseconds from ``start`` to this event."""
        with _CHECKED:
            return _runtime.get_elapsed_time(start, self)

    def time_till(self, end: Event) -> float:
        """Milliseconds from this event to ``end``."""
        with _CHECKED:
            return _runtime.get_elapsed_time(self, end)


def _stream_handle(stream) -> int:
    if not isinstance(stream, _runtime.Stream):
        raise TypeError(f"stream must be a drv.Stream (or an ember Stream), got {type(stream).__name__}")
    return stream.ptr


# --- device memory --------------------------------------------------------------------------------
class PointerHolderBase:
    """PyCUDA's base for objects that hold a device pointer: a subclass defines
    ``get_pointer()``, and the object then stands for that address where an int pointer is
    taken (copies, ``int()``, kernel arguments on CUDA)."""

    def get_pointer(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must define get_pointer()")

    def __int__(self) -> int:
        return int(self.get_pointer())

    def __index__(self) -> int:
        return int(self.get_pointer())


def mem_alloc(nbytes: int) -> DeviceAllocation:
    """``nbytes`` of device memory from ember's pool."""
    with _CHECKED:
        return DeviceAllocation._over(_creation.empty((int(nbytes),), np.uint8))


def mem_alloc_like(ary) -> DeviceAllocation:
    """Device memory of ``ary.nbytes`` bytes (PyCUDA's ``mem_alloc_like``)."""
    return mem_alloc(ary.nbytes)


def mem_free(alloc: DeviceAllocation) -> None:
    """``alloc.free()``."""
    alloc.free()


def mem_get_info() -> tuple[int, int]:
    """``(free, total)`` bytes of the current device."""
    with _CHECKED:
        return _ember.memory_info(current_device_id())


def _memptr(pointer):
    """What ``ember.ndarray(..., memptr=)`` views for a PyCUDA pointer: ember's own memory as a
    MemoryPointer (a view of its buffer), anything else as the pointer object itself."""
    if isinstance(pointer, ndarray):
        return pointer.data
    array = getattr(pointer, "_array", None)
    if isinstance(array, ndarray):
        return array.data
    if isinstance(pointer, (MemoryPointer, _ember.DevicePointer)):
        return pointer
    try:
        return int(pointer)
    except (TypeError, ValueError):
        raise TypeError(
            f"expected a device pointer (a DeviceAllocation, a GPUArray's .gpudata or an int address), "
            f"got {type(pointer).__name__}"
        ) from None


def _device_bytes(pointer, nbytes: int) -> ndarray:
    """``nbytes`` of device memory at ``pointer`` as a uint8 ember array."""
    return ndarray((nbytes,), np.uint8, memptr=_memptr(pointer))


def _host_bytes(obj, writable: bool = False) -> np.ndarray:
    """The bytes of a contiguous host buffer, in memory order, as a 1-d uint8 view."""
    if isinstance(obj, np.ndarray):
        if not (obj.flags.c_contiguous or obj.flags.f_contiguous):
            raise ValueError(
                f"ndarray is not contiguous (shape {obj.shape}, strides {obj.strides}); "
                "copy it with numpy.ascontiguousarray(x) first"
            )
        flat = obj.reshape(-1, order="A")
    else:
        try:
            flat = np.frombuffer(obj, np.uint8)
        except TypeError:
            raise TypeError(
                f"could not determine array length of {type(obj).__name__!r}: unsupported array type or not an "
                "array (pass a NumPy array or another buffer)"
            ) from None
    if writable and not flat.flags.writeable:
        raise ValueError(f"the {type(obj).__name__} to copy into is read-only")
    return flat.view(np.uint8)


def memcpy_htod(dest, src) -> None:
    """Copies the host buffer ``src`` (all of it) to device memory at ``dest``."""
    host = _host_bytes(src)
    if host.size:
        with _CHECKED:
            _device_bytes(dest, host.size).set(host)


def memcpy_dtoh(dest, src) -> None:
    """Fills the host buffer ``dest`` (all of it) from device memory at ``src``."""
    host = _host_bytes(dest, writable=True)
    if host.size:
        with _CHECKED:
            _device_bytes(src, host.size).get(out=host)


def memcpy_dtod(dest, src, size: int) -> None:
    """Copies ``size`` bytes of device memory from ``src`` to ``dest``."""
    if size:
        with _CHECKED:
            _device_bytes(src, size)._a.copy_into(_device_bytes(dest, size)._a)


def memcpy_htod_async(dest, src, stream=None) -> None:
    """:func:`memcpy_htod` queued on ``stream`` (None: the current stream)."""
    host = _host_bytes(src)
    if host.size:
        with _CHECKED:
            _device_bytes(dest, host.size).set(host, stream=stream)


def memcpy_dtoh_async(dest, src, stream=None) -> None:
    """:func:`memcpy_dtoh` queued on ``stream`` (None: the current stream)."""
    host = _host_bytes(dest, writable=True)
    if host.size:
        with _CHECKED:
            _device_bytes(src, host.size).get(stream=stream, out=host)


def memcpy_dtod_async(dest, src, size: int, stream=None) -> None:
    """:func:`memcpy_dtod` queued on ``stream`` (None: the current stream)."""
    if stream is None:
        memcpy_dtod(dest, src, size)
        return
    with stream:
        memcpy_dtod(dest, src, size)


def to_device(bf_obj) -> DeviceAllocation:
    """A new allocation holding a copy of the host buffer ``bf_obj``."""
    host = _host_bytes(bf_obj)
    alloc = mem_alloc(host.size)
    memcpy_htod(alloc, host)
    return alloc


def from_device(devptr, shape, dtype, order="C") -> np.ndarray:
    """A new NumPy array of ``shape`` and ``dtype`` copied from device memory at ``devptr``."""
    out = np.empty(shape, dtype, order=order)
    memcpy_dtoh(out, devptr)
    return out


def from_device_like(devptr, other_ary: np.ndarray) -> np.ndarray:
    """:func:`from_device` with ``other_ary``'s shape, dtype and order."""
    order = "F" if other_ary.flags.f_contiguous and not other_ary.flags.c_contiguous else "C"
    return from_device(devptr, other_ary.shape, other_ary.dtype, order)


# --- page-locked host memory ----------------------------------------------------------------------
class host_alloc_flags(enum.IntFlag):
    """PyCUDA's flags for page-locked memory (CUDA's values)."""

    PORTABLE = 1
    DEVICEMAP = 2
    WRITECOMBINED = 4


class PagelockedHostAllocation:
    """Page-locked host memory (plain host memory off CUDA): the ``.base`` of the array
    :func:`pagelocked_empty` returns, freed when the last array over it goes."""

    def __init__(self, nbytes: int, shape=None, dtype=np.uint8, strides=None):
        self.nbytes = int(nbytes)
        # PinnedMemory of 0 bytes is refused by some drivers: keep one byte.
        self._memory = _ember.PinnedMemory(current_device_id(), max(self.nbytes, 1))
        self._layout = ((self.nbytes,) if shape is None else tuple(shape), np.dtype(dtype), strides)

    @property
    def __array_interface__(self) -> dict:
        # NumPy reads this once, in np.asarray(self), and keeps self as the array's base.
        shape, dtype, strides = self._layout
        return {"shape": shape, "typestr": dtype.str, "descr": dtype.descr, "strides": strides,
                "data": (self._memory.address, False), "version": 3}

    def __repr__(self):
        return f"<ember.cuda.driver.PagelockedHostAllocation {self.nbytes} bytes at {self._memory.address:#x}>"


def _strides(shape, itemsize: int, order: str) -> tuple[int, ...]:
    """Byte strides of a contiguous array of ``shape`` in ``order`` ("C" or "F")."""
    dims = shape if order == "F" else shape[::-1]
    out, step = [], itemsize
    for d in dims:
        out.append(step)
        step *= max(d, 1)
    return tuple(out) if order == "F" else tuple(out[::-1])


def pagelocked_empty(shape, dtype, order="C", mem_flags=0) -> np.ndarray:
    """An uninitialised NumPy array in page-locked memory (fast, asynchronous copies).

    ``PORTABLE`` and ``WRITECOMBINED`` are accepted as hints that do not change results;
    ``DEVICEMAP`` (host memory mapped into the device) is not supported.
    """
    if mem_flags & host_alloc_flags.DEVICEMAP:
        raise ValueError("host_alloc_flags.DEVICEMAP is not supported by ember; copy to the device instead")
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    shape, dtype = _shape_tuple(shape), np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    return np.asarray(PagelockedHostAllocation(nbytes, shape, dtype, _strides(shape, dtype.itemsize, order)))


def pagelocked_zeros(shape, dtype, order="C", mem_flags=0) -> np.ndarray:
    """:func:`pagelocked_empty`, filled with zeros."""
    out = pagelocked_empty(shape, dtype, order, mem_flags)
    out.fill(0)
    return out


def pagelocked_empty_like(array: np.ndarray, mem_flags=0) -> np.ndarray:
    order = "F" if array.flags.f_contiguous and not array.flags.c_contiguous else "C"
    return pagelocked_empty(array.shape, array.dtype, order, mem_flags)


def pagelocked_zeros_like(array: np.ndarray, mem_flags=0) -> np.ndarray:
    out = pagelocked_empty_like(array, mem_flags)
    out.fill(0)
    return out


# --- host arrays around a launch ------------------------------------------------------------------
class ArgumentHandler:
    """A host array passed to a kernel through temporary device memory."""

    copy_in = copy_out = False

    def __init__(self, array):
        self.array = array
        self._host = _host_bytes(array, writable=self.copy_out)  # checked now, not at the launch
        self.dev_alloc = None

    def get_device_alloc(self) -> DeviceAllocation:
        """The device copy (allocated on first use, then reused)."""
        if self.dev_alloc is None:
            self.dev_alloc = mem_alloc(self._host.size)
        return self.dev_alloc

    def pre_call(self, stream) -> None:
        """Before the launch: copies the host array in (In, InOut)."""
        alloc = self.get_device_alloc()
        if self.copy_in and self._host.size:
            alloc._array.set(self._host)

    def post_call(self, stream) -> None:
        """After the launch finished: copies the device copy back (Out, InOut)."""
        if self.copy_out and self._host.size:
            self.dev_alloc._array.get(out=self._host)


class In(ArgumentHandler):
    """A host array the kernel reads: copied to the device before the launch."""

    copy_in = True


class Out(ArgumentHandler):
    """A host array the kernel writes: copied back after the launch has finished."""

    copy_out = True


class InOut(ArgumentHandler):
    """A host array the kernel reads and writes: copied in before the launch and back after."""

    copy_in = copy_out = True


# --- kernels --------------------------------------------------------------------------------------
class function_attribute(enum.IntEnum):
    """Kernel attributes (CUDA's ``CUfunction_attribute`` values)."""

    MAX_THREADS_PER_BLOCK = 0
    SHARED_SIZE_BYTES = 1
    CONST_SIZE_BYTES = 2
    LOCAL_SIZE_BYTES = 3
    NUM_REGS = 4
    PTX_VERSION = 5
    BINARY_VERSION = 6
    CACHE_MODE_CA = 7
    MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
    PREFERRED_SHARED_MEMORY_CARVEOUT = 9


_FORMAT = re.compile(r"(?:\s*\d*[a-zA-Z?])*\s*")
_FORMAT_ITEM = re.compile(r"(\d*)([a-zA-Z?])")
_SCALAR_CHARS = "?bBhHiIlLqQefdFD"  # struct's codes that NumPy reads the same way
_POINTER_CHARS = "lLqQ"  # a pointer fits any 8-byte integer slot (PyCUDA packs pointers as 'L')


def _arg_format(arg_types) -> str:
    """``prepare``'s argument types as a struct-style format string."""
    if isinstance(arg_types, str):
        return arg_types
    parts = []
    for t in arg_types:
        if isinstance(t, str):
            parts.append(t)
        elif isinstance(t, np.dtype) or (isinstance(t, type) and issubclass(t, np.generic)):
            parts.append(np.dtype(t).char)
        else:
            parts.append(np.dtype(np.uintp).char)  # PyCUDA's rule: anything else is a pointer
    return "".join(parts)


def _converter(char: str):
    """A function turning one prepared-call argument into what the launch takes."""
    if char != "P" and char not in _SCALAR_CHARS:
        raise ValueError(
            f"prepare: the type code {char!r} is not supported by ember; use numpy scalar types or "
            "'P' for pointers (structs passed by value are not supported)"
        )
    if char == "P":
        def pointer(value):
            if value is None or isinstance(value, (_ember.DevicePointer, ndarray)):
                return value
            return _ember.DevicePointer(int(value))
        return pointer
    scalar = np.dtype(char).type

    def number(value):
        if char in _POINTER_CHARS and isinstance(value, (_ember.DevicePointer, ndarray)):
            return value
        return scalar(value)
    return number


class Function:
    """A kernel of a :class:`~ember.cuda.compiler.SourceModule`, launched PyCUDA's way."""

    __slots__ = ("_kernel", "_format", "_converters")

    def __init__(self, kernel):
        self._kernel = kernel
        self._format = None
        self._converters = None

    def __call__(self, *args, block=None, grid=(1, 1), stream=None, shared=0, texrefs=(), time_kernel=False,
                 **extra):
        """Launches ``grid`` blocks of ``block`` threads. Arguments are GPUArrays (ember arrays),
        DeviceAllocations, NumPy scalars (``numpy.int32(n)``) or drv.In/Out/InOut around host
        arrays. Returns the kernel's time in seconds when ``time_kernel``, else None."""
        if extra:
            raise ValueError(f"extra keyword arguments: {','.join(extra)}")
        if block is None:
            raise ValueError("must specify block size")
        if texrefs:
            raise ValueError("texture references were removed in CUDA 12; pass the array as a pointer argument")
        handle = None if stream is None else _stream_handle(stream)
        handlers = [a for a in args if isinstance(a, ArgumentHandler)]
        if not handlers and not time_kernel:
            try:
                self._kernel.launch(grid, block, args, shared, handle)
            except DriverError as e:
                raise _translated(e) from None
            return None
        return self._launch_around(args, handlers, grid, block, stream, shared, time_kernel)

    def _launch_around(self, args, handlers, grid, block, stream, shared, time_kernel):
        """The launch with host copies and/or timing: all on one stream, then a wait."""
        run_on = stream if stream is not None else _runtime.get_current_stream()
        # Temporaries are allocated and filled on the launch's stream, so the pool never hands
        # their memory to other work while the kernel may still read it.
        with run_on:
            for h in handlers:
                h.pre_call(stream)
            launch_args = tuple(a.dev_alloc._array if isinstance(a, ArgumentHandler) else a for a in args)
            start = Event().record(run_on) if time_kernel else None
            try:
                self._kernel.launch(grid, block, launch_args, shared, run_on.ptr)
            except DriverError as e:
                raise _translated(e) from None
            end = Event().record(run_on) if time_kernel else None
        if time_kernel or any(h.copy_out for h in handlers):
            with _CHECKED:
                run_on.synchronize()
        for h in handlers:
            h.post_call(stream)
        return end.time_since(start) * 1e-3 if time_kernel else None

    # --- prepared calls: argument types fixed once, Python ints and floats converted ----------------
    def prepare(self, arg_types, texrefs=()) -> Function:
        """Fixes the argument types: a struct-style string such as ``"PPi"`` or a list of NumPy
        types (``[numpy.intp, numpy.int32]``; other objects mean pointers). Returns self."""
        if texrefs:
            raise ValueError("texture references were removed in CUDA 12; pass the array as a pointer argument")
        fmt = _arg_format(arg_types).lstrip("@")  # '@' (native layout) is the only layout a launch has
        if not _FORMAT.fullmatch(fmt):
            raise ValueError(f"prepare: cannot read the argument format {fmt!r}; write it as e.g. 'PPi'")
        converters = []
        for count, char in _FORMAT_ITEM.findall(fmt):
            converters += [_converter(char)] * int(count or 1)
        self._format, self._converters = fmt, converters
        return self

    def _prepared_args(self, args) -> tuple:
        if self._converters is None:
            raise LogicError("call prepare(arg_types) before a prepared call")
        if len(args) != len(self._converters):
            raise TypeError(
                f"the prepared kernel {self._kernel.name} takes {len(self._converters)} argument(s) "
                f"(format {self._format!r}), but {len(args)} were given"
            )
        return tuple(conv(a) for conv, a in zip(self._converters, args, strict=True))

    def _prepared_launch(self, grid, block, args, shared_size, stream):
        if not isinstance(block, (tuple, list)):
            raise TypeError(f"block must be a tuple such as (256, 1, 1), got {block!r}")
        values = self._prepared_args(args)
        try:
            self._kernel.launch(grid, block, values, shared_size, stream)
        except DriverError as e:
            raise _translated(e) from None

    def prepared_call(self, grid, block, *args, shared_size=0) -> None:
        """Launches with the prepared argument types on the current stream."""
        self._prepared_launch(grid, block, args, shared_size, None)

    def prepared_async_call(self, grid, block, stream, *args, shared_size=0) -> None:
        """Launches with the prepared argument types on ``stream`` (None: the current stream)."""
        self._prepared_launch(grid, block, args, shared_size, None if stream is None else _stream_handle(stream))

    def prepared_timed_call(self, grid, block, *args, shared_size=0):
        """Launches between two events; returns a function giving the kernel's time in seconds."""
        start = Event().record()
        self._prepared_launch(grid, block, args, shared_size, None)
        end = Event().record()

        def get_call_time() -> float:
            end.synchronize()
            return end.time_since(start) * 1e-3
        return get_call_time

    # --- attributes ---------------------------------------------------------------------------------
    def get_attribute(self, attr: function_attribute) -> int:
        """A kernel attribute, e.g. ``function_attribute.NUM_REGS``."""
        with _CHECKED:
            return self._kernel.attribute(function_attribute(attr).name.lower())

    def set_attribute(self, attr: function_attribute, value: int) -> None:
        with _CHECKED:
            self._kernel.set_attribute(function_attribute(attr).name.lower(), int(value))

    def __getattr__(self, name):
        # PyCUDA's f.num_regs, f.shared_size_bytes, ... spelling.
        try:
            attr = function_attribute[name.upper()]
        except KeyError:
            raise AttributeError(f"'Function' object has no attribute {name!r}") from None
        return self.get_attribute(attr)

    def __repr__(self):
        return f"<ember.cuda.driver.Function {self._kernel.name}>"


__all__ = [
    "ArgumentHandler", "CompileError", "Context", "Device", "DeviceAllocation", "Error", "Event", "Function", "In",
    "InOut", "LaunchError", "LogicError", "MemoryError", "Out", "PagelockedHostAllocation", "PointerHolderBase",
    "RuntimeError", "Stream",
    "device_attribute", "event_flags", "from_device", "from_device_like", "function_attribute", "host_alloc_flags",
    "init", "mem_alloc", "mem_alloc_like", "mem_free", "mem_get_info", "memcpy_dtod", "memcpy_dtod_async",
    "memcpy_dtoh", "memcpy_dtoh_async", "memcpy_htod", "memcpy_htod_async", "pagelocked_empty", "pagelocked_empty_like",
    "pagelocked_zeros", "pagelocked_zeros_like", "to_device",
]
