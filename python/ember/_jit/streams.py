"""Numba's streams and events (``cuda.stream()``, ``cuda.default_stream()``, ``cuda.event()``...)
over ember's runtime; ``host.py`` and ``devices.py``'s contexts hand them out."""

from __future__ import annotations

import contextlib

import numpy as np

from .. import _ember, _runtime


class Event(_runtime.Event):
    """Numba's event: ``record(stream=0)``, ``synchronize()``, ``wait(stream)``,
    ``elapsed_time(end)`` in milliseconds."""

    def __init__(self, timing=True):
        super().__init__()

    def record(self, stream=0):
        super().record(stream if stream not in (0, None) else None)

    def query(self) -> bool:
        return self.done

    def wait(self, stream=0):
        s = stream if stream not in (0, None) else _runtime.get_current_stream()
        s.wait_event(self)

    def elapsed_time(self, evtend) -> float:
        return _runtime.get_elapsed_time(self, evtend)


def event(timing=True) -> Event:
    return Event(timing)


def event_elapsed_time(evtstart, evtend) -> float:
    return _runtime.get_elapsed_time(evtstart, evtend)


class StreamBase:
    """What every stream of the Numba face is (Numba's ``cuda.cudadrv.driver.Stream``): an
    ember stream or one another library made (``external``)."""

    external = False

    def synchronize(self):
        """Waits for the work queued on the stream so far."""
        self._wait()


class Stream(StreamBase, _runtime.Stream):
    """Numba's stream: ember's stream (``with stream:``, ``synchronize()``, ``ptr``) with
    Numba's spellings, ``handle`` and ``int(stream)`` for the backend's handle and
    ``auto_synchronize()``."""

    _wait = _runtime.Stream.synchronize

    @property
    def handle(self) -> int:
        return self.ptr

    def __int__(self):
        return self.ptr

    @contextlib.contextmanager
    def auto_synchronize(self):
        """A block after which the stream is synchronized."""
        yield self
        self.synchronize()

    def __repr__(self):
        return f"<ember.cuda stream {self.ptr:#x} on device {self.device_id}>"


class ExternalStream(StreamBase):
    """A stream another library made, wrapped by :func:`external_stream`. Kernels launch on it
    (``kernel[g, b, stream]``; ember never keeps such a launch queued: the stream's owner
    orders its own work on it). Copies given it (``to_device(x, stream=s)``) run after its work
    so far and are done when they return. ember neither creates nor destroys it."""

    external = True

    def __init__(self, handle: int, device_id: int):
        self.handle = handle
        self.device_id = device_id

    @property
    def ptr(self) -> int:
        return self.handle

    def __int__(self):
        return self.handle

    def _wait(self):
        _ember.synchronize_stream(self.device_id, self.handle)

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self
        self.synchronize()

    def __cuda_stream__(self) -> tuple[int, int]:
        if _runtime.backend() != "cuda":
            raise TypeError(f"the stream protocol is CUDA's; this stream is on the {_runtime.backend()} backend")
        return (0, self.handle)

    def __enter__(self):
        # ember's own work in the block (copies) is ordered after the stream's work and before
        # whatever its owner queues next by waiting, not by queueing on a stream ember does not
        # order: the copies run on ember's stream between two synchronizations.
        self.synchronize()
        return self

    def __exit__(self, *exc):
        _runtime.get_current_stream(self.device_id).synchronize()

    def __eq__(self, other):
        return isinstance(other, ExternalStream) and (other.handle, other.device_id) == (self.handle, self.device_id)

    def __hash__(self):
        return hash(("ember.cuda.ExternalStream", self.handle, self.device_id))

    def __repr__(self):
        return f"<ember.cuda external stream {self.handle:#x} on device {self.device_id}>"


def stream() -> Stream:
    """A new stream on the current device."""
    return Stream()


def default_stream() -> Stream:
    """The stream work goes to when none is chosen: this thread's current stream (the legacy
    default stream unless a ``with stream:`` block is open)."""
    current = _runtime.get_current_stream()
    if isinstance(current, Stream) or not isinstance(current, _runtime.Stream):
        return current
    return legacy_default_stream() if current == _runtime.Stream.null else current


def legacy_default_stream() -> Stream:
    """The current device's default stream (CUDA's legacy stream 0; an OpenCL device's default
    command queue)."""
    return Stream(null=True)


def per_thread_default_stream() -> Stream:
    """This thread's own default stream on the current device: one per thread and device,
    made on first use (ember's per-thread stream, as ``ember.cuda.Stream.ptds``; on CUDA it is
    an ember stream, not the driver's ``cudaStreamPerThread`` handle, since ember launches
    through the driver API)."""
    s = Stream.__new__(Stream)
    ptds = _runtime.Stream.ptds
    s._native, s.device_id = ptds._native, ptds.device_id
    return s


def external_stream(ptr) -> ExternalStream:
    """A stream made outside ember, by its handle: a ``CUstream`` on CUDA (e.g. CuPy's or
    PyTorch's ``stream.ptr``); on OpenCL a ``cl_command_queue`` of the current device's
    context (ember's context, which ``ember.cl`` shares with PyOpenCL code). The handle is
    taken as given, as Numba does: a handle of another context fails at the first launch on
    it. 0 is the legacy default stream."""
    if isinstance(ptr, bool) or not isinstance(ptr, (int, np.integer)):
        raise TypeError(f"external_stream() takes a stream handle (an int), got {type(ptr).__name__}")
    if ptr < 0:
        raise ValueError(f"a stream handle is a pointer, not negative: {ptr}")
    if ptr == 0:
        return legacy_default_stream()
    return ExternalStream(int(ptr), _runtime.current_device_id())
