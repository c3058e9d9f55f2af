"""Devices, streams, events and the memory pool, as CuPy spells them.

Nothing here starts a driver until a device is used: ``import ember`` stays cheap and works on
machines with no GPU library at all.
"""

from __future__ import annotations

import atexit
import os
import re
import threading

from . import _ember
from ._memory import ArrayMemory, MemoryPointer
from .errors import InvalidDeviceError

# Bursts of small launches are issued from a native thread (the CUDA backend's launch queue);
# the last of them must reach the driver before it shuts down.
atexit.register(_ember.drain_launches)
# A child process gets no launch thread: nothing may be left in the queue when it forks.
os.register_at_fork(before=_ember.drain_launches)


class _ThreadState(threading.local):
    """Per-thread default streams (``Stream.ptds``), made on first use. The current device
    and the current streams are not kept here: Rust keeps them (``ember_runtime::stream``),
    the one copy every launch reads."""

    ptds = None


_local = _ThreadState()

# The device this thread works on (``with ember.Device(i):`` changes it).
current_device_id = _ember.current_device
_set_device = _ember.set_current_device


def backend() -> str:
    """The backend in use: ``"cuda"`` or ``"opencl"`` (starts it)."""
    return _ember.backend_name()


def synchronize() -> None:
    """Waits for all work on the current device."""
    _ember.synchronize(current_device_id())


def _opencl_extra_ids() -> list[int]:
    """Ordinals of OpenCL devices opened for ``ember.cl`` beside another selected backend."""
    if backend() == "opencl":
        return []
    try:
        return _ember.opencl_device_ids()
    except Exception:  # no OpenCL here: there are no extra devices
        return []


class Device:
    """A device of the selected backend; ``with Device(i):`` makes it current on this thread."""

    def __init__(self, device=None):
        if device is None:
            device = current_device_id()
        elif isinstance(device, Device):
            device = device.id
        self.id = check_device(int(device))
        self._saved: list[int] = []

    def __enter__(self):
        self._saved.append(current_device_id())
        _set_device(self.id)
        return self

    def __exit__(self, *exc):
        _set_device(self._saved.pop())

    def use(self):
        """Makes this device current on this thread; returns the device (as CuPy's)."""
        _set_device(self.id)
        return self

    def synchronize(self):
        """Waits for all work on this device."""
        _ember.synchronize(self.id)

    @property
    def _info(self) -> dict:
        return _ember.device_info(self.id)

    @property
    def name(self) -> str:
        return self._info["name"]

    @property
    def compute_capability(self) -> str:
        """``"90"`` for sm_90 (CUDA); the device name on OpenCL."""
        arch = self._info["arch"]
        return arch[3:] if arch.startswith("sm_") else arch

    @property
    def mem_info(self) -> tuple[int, int]:
        """(free, total) bytes; see :func:`memory_info` for OpenCL's free bytes."""
        return memory_info(self.id)

    @property
    def attributes(self) -> dict:
        return dict(self._info)

    def __int__(self):
        return self.id

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(("ember.Device", self.id))

    def __repr__(self):
        return f"<{backend().upper() if backend() == 'cuda' else 'OpenCL'} Device {self.id}>"


def check_device(device: int) -> int:
    """``device`` when it exists; else CuPy's error (cudaErrorInvalidDevice), a ``ValueError`` too."""
    count = _ember.device_count()
    if not 0 <= device < count and device not in _opencl_extra_ids():
        raise InvalidDeviceError(
            101, f"device {device} does not exist: the {backend()} backend has {count} device(s), numbered from 0"
        )
    return device


def memory_info(device_id: int) -> tuple[int, int]:
    """(free, total) bytes of a device. CUDA reports both. OpenCL has no query for free memory:
    there, total is the device's global memory and free an estimate, total less what ember's
    pool holds on the device (other programs' use is not seen)."""
    free, total = _ember.memory_info(device_id)
    if _ember.device_info(device_id)["backend"] == "opencl":
        free = max(0, total - _ember.pool_total_bytes(device_id))
    return free, total


class _DefaultStream:
    """A class attribute read afresh on each access (``Stream.null``, ``Stream.ptds``): the
    stream belongs to the current device (and thread), and no driver starts at import."""

    def __init__(self, make):
        self._make = make

    def __get__(self, instance, owner):
        return self._make(current_device_id())


class Stream:
    """An ordered queue of device work (CUDA stream, OpenCL command queue).

    ``with stream:`` sends this thread's work on the stream's device to it. ``Stream.null`` is
    the current device's default stream (CUDA's legacy stream 0), the one work goes to when no
    other is current; ``Stream.ptds`` is this thread's own default stream on the current device
    (a per-thread ember stream: its ``ptr`` is not CUDA's ``cudaStreamPerThread`` handle).
    """

    # Lambdas: the makers are defined below the class.
    null = _DefaultStream(lambda dev: _null_stream(dev))
    ptds = _DefaultStream(lambda dev: _per_thread_stream(dev))

    def __init__(self, null=False, non_blocking=False, ptds=False, priority=None, *, device=None):
        dev = Device(device).id
        if ptds and not null:
            self._native = _per_thread_stream(dev)._native  # one per thread, as CUDA's
        else:
            self._native = _ember.Stream(dev, bool(null))
        self.device_id = dev

    @property
    def ptr(self) -> int:
        """The backend's handle (``CUstream``, ``cl_command_queue``); 0 is CUDA's default stream."""
        return self._native.handle

    def __cuda_stream__(self) -> tuple[int, int]:
        """The CUDA stream protocol (version 0, the ``CUstream``): other libraries take the
        stream from it, e.g. ``cupy.cuda.Stream.from_external(stream)``."""
        if backend() != "cuda":
            raise TypeError(f"the stream protocol is CUDA's; this stream is on the {backend()} backend")
        return (0, self._native.handle)

    def synchronize(self):
        self._native.synchronize()

    @property
    def done(self) -> bool:
        """True once all work queued on the stream is done."""
        return self._native.done

    def record(self, event=None):
        """Records ``event`` (a new one when omitted) at the stream's current end."""
        event = event or Event()
        event.record(self)
        return event

    def wait_event(self, event):
        """Makes later work on this stream wait for ``event``."""
        self._native.wait_event(event._native)

    def use(self):
        """Makes this stream current for its device on this thread (until another use)."""
        self._native.use_(self)
        return self

    def __enter__(self):
        self._native.push(self)
        return self

    def __exit__(self, *exc):
        self._native.pop_if(self)

    def __eq__(self, other):
        # Several objects may hold one stream (Stream.null and Stream(null=True)), as in CuPy.
        # `identity`, not `ptr`: telling streams apart must not issue deferred work.
        return isinstance(other, Stream) and (other._native.identity, other.device_id) == (
            self._native.identity, self.device_id)

    def __hash__(self):
        return hash((self._native.identity, self.device_id))

    def __repr__(self):
        return f"<ember.Stream {self.ptr:#x} on device {self.device_id}>"


class Event:
    """A point in a stream's work, to wait on or to time between."""

    def __init__(self, block=False, disable_timing=False, interprocess=False, device=None):
        self._native = _ember.Event(Device(device).id)

    def record(self, stream=None):
        stream = stream or get_current_stream()
        self._native.record(stream._native)

    def synchronize(self):
        self._native.synchronize()

    @property
    def done(self) -> bool:
        return self._native.done


def get_elapsed_time(start_event: Event, end_event: Event) -> float:
    """Milliseconds between two recorded events."""
    return end_event._native.elapsed_since(start_event._native)


_null_streams: dict[int, Stream] = {}


def _null_stream(device_id: int) -> Stream:
    stream = _null_streams.get(device_id)
    if stream is None:
        stream = _null_streams[device_id] = Stream(null=True, device=device_id)
    return stream


def _per_thread_stream(device_id: int) -> Stream:
    streams = _local.ptds
    if streams is None:
        streams = _local.ptds = {}
    stream = streams.get(device_id)
    if stream is None:
        stream = streams[device_id] = Stream(device=device_id)
    return stream


def get_current_stream(device=None) -> Stream:
    """The stream this thread sends work to on ``device`` (the current device by default)."""
    dev = Device(device).id
    current = _ember.current_stream(dev)
    return _null_stream(dev) if current is None else current


class MemoryPool:
    """The caching device memory pool of one device (CuPy's ``MemoryPool``)."""

    def __init__(self, device=None):
        self._device = device

    @property
    def _id(self) -> int:
        return current_device_id() if self._device is None else self._device

    def used_bytes(self) -> int:
        """Bytes held by live arrays."""
        return _ember.pool_used_bytes(self._id)

    def total_bytes(self) -> int:
        """Bytes held from the device: live arrays plus cached blocks."""
        return _ember.pool_total_bytes(self._id)

    def free_bytes(self) -> int:
        """Bytes cached for reuse."""
        return self.total_bytes() - self.used_bytes()

    def n_free_blocks(self) -> int:
        return _ember.pool_n_free_blocks(self._id)

    def free_all_blocks(self, stream=None):
        """Gives every cached block back to the device."""
        _ember.pool_free_all_blocks(self._id)

    def free_all_free(self):
        """CuPy's deprecated name of :meth:`free_all_blocks`."""
        import warnings

        warnings.warn("free_all_free is deprecated. Use free_all_blocks instead.", DeprecationWarning, stacklevel=2)
        self.free_all_blocks()

    def malloc(self, size: int):
        """``size`` bytes from the pool as a ``MemoryPointer`` (the block goes back to the pool
        when the pointer and every view of it are gone)."""
        return MemoryPointer(ArrayMemory(_ember.empty(self._id, [int(size)], "uint8")), 0)

    def set_limit(self, size=None, fraction=None):
        """Caps the bytes the pool holds (``size`` in bytes or ``fraction`` of device memory;
        0 or None removes the cap)."""
        if fraction is not None:
            if size is not None:
                raise ValueError("give either size or fraction, not both")
            if not 0 <= fraction <= 1:
                raise ValueError(f"fraction must be between 0 and 1, got {fraction}")
            size = int(_ember.device_info(self._id)["total_memory"] * fraction)
        if size is not None and size < 0:
            raise ValueError(f"size must be non-negative, got {size}")
        _ember.pool_set_limit(self._id, size or None)

    def get_limit(self) -> int:
        """The cap in bytes (0 when none)."""
        return _ember.pool_limit(self._id) or 0


_default_pool = MemoryPool()


def get_default_memory_pool() -> MemoryPool:
    """The pool every ember array allocates from."""
    return _default_pool


def compute_capability(info: dict) -> tuple[int, int]:
    """A device's CUDA compute capability from its ``_ember.device_info``; ``(0, 0)`` on
    OpenCL devices, which have none (as ``cuda.runtime.getDeviceProperties`` reports)."""
    arch = re.fullmatch(r"sm_(\d+)[a-z]?", info["arch"])  # sm_90, sm_90a, sm_100
    if info["backend"] != "cuda" or arch is None:
        return 0, 0
    digits = arch.group(1)
    return int(digits[:-1]), int(digits[-1])
