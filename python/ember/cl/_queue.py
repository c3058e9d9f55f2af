"""Command queues and events.

A ``CommandQueue`` sends its commands to an ember stream (an in-order OpenCL command queue) on
its device: by default the stream ember's own array operations use there, so kernels, copies
and ember array work on the same memory run in the order they were issued. Every enqueue
returns an ``Event``. On a queue without ``PROFILING_ENABLE`` the event's native marker is
placed lazily, when the event is first waited on or queried: a launch then costs no extra
OpenCL call, and since the queue is in order, waiting on a later marker never returns before
the command is done (it may wait for commands queued after it too).
"""

from __future__ import annotations

import threading
import time
import warnings

from .. import _ember
from .._runtime import Event as _Marker
from .._runtime import Stream, get_current_stream, get_elapsed_time
from . import _handles
from ._constants import (
    command_execution_status,
    command_queue_info,
    command_queue_properties,
    event_info,
    profiling_info,
    status_code,
)
from ._errors import LogicError, RuntimeError, invalid
from ._platform import Context, Device


class CommandQueueUsedAfterExit(UserWarning):
    """A queue used after the ``with`` block that finished it ended."""


class CommandQueue:
    """``CommandQueue(context, device=None, properties=None)``: an in-order queue on ``device``
    (the context's first device by default).

    Its commands go to this thread's current ember stream on the device (the default stream
    unless inside ``with stream:``), where ember array operations go too. Queues made this
    way share that stream, so they run one after the other; for a queue of its own, pass
    ``stream=ember.cuda.Stream(device=device.ordinal)`` (an ember extension).
    ``with queue:`` sends ember array operations of this thread to the queue's stream and
    finishes the queue on exit, as PyOpenCL finishes it. Out-of-order execution is accepted
    and runs in order.
    """

    def __init__(self, context: Context, device: Device | None = None, properties=None, stream: Stream | None = None):
        if not isinstance(context, Context):
            raise TypeError(f"context must be an ember.cl.Context, got {type(context).__name__}")
        if device is None:
            device = context.devices[0]
        elif device not in context.devices:
            raise invalid("CommandQueue", status_code.INVALID_DEVICE,
                          f"{device!r} is not one of the context's devices", cls=LogicError)
        self.context = context
        self.device = device
        self.properties = int(properties or 0)
        self._profiling = bool(self.properties & command_queue_properties.PROFILING_ENABLE)
        if stream is None:
            stream = get_current_stream(device.ordinal)
        elif not isinstance(stream, Stream) or stream.device_id != device.ordinal:
            raise invalid("CommandQueue", status_code.INVALID_VALUE,
                          f"stream must be an ember.cuda.Stream on ember device {device.ordinal}, got {stream!r}")
        self._stream = stream
        self._handle = self._stream.ptr

    @property
    def stream(self) -> Stream:
        """The ember stream behind the queue (``with queue.stream:`` runs ember work on it)."""
        return self._stream

    @property
    def int_ptr(self) -> int:
        """The ``cl_command_queue`` handle."""
        return _handles.seen(self, self._handle)

    from_int_ptr = classmethod(_handles.from_int_ptr)

    def get_info(self, param):
        values = {command_queue_info.CONTEXT: self.context, command_queue_info.DEVICE: self.device,
                  command_queue_info.PROPERTIES: self.properties, command_queue_info.REFERENCE_COUNT: 1}
        if param not in values:
            raise invalid("clGetCommandQueueInfo", status_code.INVALID_VALUE,
                          f"info parameter {param!r} is not available")
        return values[param]

    def _get_cl_version(self) -> tuple[int, int]:
        """The OpenCL version of the queue's platform."""
        return self.context._get_cl_version()

    def finish(self) -> None:
        """Waits until every command on the queue is done."""
        self._check_live()
        self._stream.synchronize()

    def flush(self) -> None:
        """Submits queued commands (ember's queues submit as they go: nothing to do)."""
        self._check_live()

    def _check_live(self) -> None:
        if getattr(self, "_exited", False):
            warnings.warn("the command queue is used after its 'with' block ended (which finished it)",
                          CommandQueueUsedAfterExit, stacklevel=3)

    def _wait_for(self, events) -> None:
        """Makes later commands on this queue wait for ``events`` (from any queue)."""
        for event in events:
            if isinstance(event, UserEvent):
                event._user.wait_on(self._handle)
                continue
            if event.command_queue is not self:
                marker = event._marker()
                if marker is not None:
                    self._stream.wait_event(marker)

    def _start(self):
        """A profiling start marker when the queue profiles, else None."""
        self._check_live()
        if not self._profiling:
            return None
        marker = _Marker(device=self.device.ordinal)
        marker.record(self._stream)
        return (marker, time.perf_counter_ns())

    def _event(self, start, done=False) -> Event:
        """The event of the command just queued (``start`` from ``_start``)."""
        if start is None:
            return Event(self, _DONE if done else None)
        end = _Marker(device=self.device.ordinal)
        end.record(self._stream)
        return Event(self, end, start)

    def __enter__(self):
        self._exited = False
        self._stream.__enter__()
        return self

    def __exit__(self, *exc):
        self._stream.__exit__(*exc)
        self.finish()
        self._exited = True

    def __repr__(self):
        return f"<ember.cl.CommandQueue on {self.device.name!r}>"


_DONE = object()  # the marker of an event whose command completed when it was queued


class Profile:
    """Timestamps in ns of a command on a profiling queue. ``end - start`` is the device time
    of the command; ``start`` is the host clock (``time.perf_counter_ns``) when it was queued,
    not the device clock PyOpenCL reports, so compare timestamps only with each other."""

    def __init__(self, start_marker, end_marker, queued_ns: int):
        self._start, self._end = start_marker, end_marker
        self.queued = self.submit = self.start = queued_ns

    @property
    def end(self) -> int:
        self._end.synchronize()
        return self.start + round(get_elapsed_time(self._start, self._end) * 1e6)

    @property
    def complete(self) -> int:
        return self.end


class Event:
    """The completion of a queued command: ``wait()``, ``command_execution_status`` and, on a
    queue with ``PROFILING_ENABLE``, ``profile.start``/``profile.end`` (ns)."""

    __slots__ = ("command_queue", "_native", "_profile", "__weakref__")

    def __init__(self, queue: CommandQueue, native=None, start=None):
        self.command_queue = queue
        self._native = native
        self._profile = None if start is None else Profile(start[0], native, start[1])

    def _marker(self):
        """The native marker (placed now if it was not), or None when the command was done
        before the event existed."""
        if self._native is None:
            marker = _Marker(device=self.command_queue.device.ordinal)
            marker.record(self.command_queue._stream)
            self._native = marker
        return None if self._native is _DONE else self._native

    @property
    def int_ptr(self) -> int:
        """The ``cl_event`` handle (for a command done before its event existed: a marker
        placed when this is first read)."""
        marker = self._marker()
        if marker is None:
            self._native = marker = _Marker(device=self.command_queue.device.ordinal)
            marker.record(self.command_queue._stream)
        return _handles.seen(self, marker._native.handle)

    from_int_ptr = classmethod(_handles.from_int_ptr)

    def wait(self) -> None:
        """Waits until the command is done."""
        marker = self._marker()
        if marker is not None:
            marker.synchronize()

    @property
    def command_execution_status(self) -> int:
        marker = self._marker()
        done = marker is None or marker.done
        return command_execution_status.COMPLETE if done else command_execution_status.SUBMITTED

    @property
    def profile(self) -> Profile:
        if self._profile is None:
            raise RuntimeError(
                "clGetEventProfilingInfo failed: PROFILING_INFO_NOT_AVAILABLE - create the queue with "
                "properties=command_queue_properties.PROFILING_ENABLE to time its commands",
                routine="clGetEventProfilingInfo", code=status_code.PROFILING_INFO_NOT_AVAILABLE)
        return self._profile

    def get_info(self, param):
        values = {event_info.COMMAND_QUEUE: lambda: self.command_queue,
                  event_info.CONTEXT: lambda: self.command_queue.context,
                  event_info.COMMAND_EXECUTION_STATUS: lambda: self.command_execution_status,
                  event_info.REFERENCE_COUNT: lambda: 1}
        if param not in values:
            raise invalid("clGetEventInfo", status_code.INVALID_VALUE, f"info parameter {param!r} is not available")
        return values[param]()

    def get_profiling_info(self, param) -> int:
        """A timestamp of ``profile`` (``profiling_info.START`` ...), in ns."""
        names = {profiling_info.QUEUED: "queued", profiling_info.SUBMIT: "submit", profiling_info.START: "start",
                 profiling_info.END: "end", profiling_info.COMPLETE: "complete"}
        if param not in names:
            raise invalid("clGetEventProfilingInfo", status_code.INVALID_VALUE, f"parameter {param!r} is not one")
        return getattr(self.profile, names[param])

    def set_callback(self, type, cb) -> None:  # noqa: A002  (PyOpenCL's name)
        """Calls ``cb(status)`` from another thread once the command reaches ``type`` (ember
        reports completion, ``command_execution_status.COMPLETE``)."""
        def watch():
            self.wait()
            cb(command_execution_status.COMPLETE)

        threading.Thread(target=watch, daemon=True).start()

    def __repr__(self):
        return f"<ember.cl.Event on {self.command_queue!r}>"


class UserEvent(Event):
    """``UserEvent(context)``: an event the host completes with ``set_status(COMPLETE)`` (or
    fails with a negative status); commands given it in ``wait_for`` run after that. OpenCL
    devices only."""

    __slots__ = ("context", "_user")

    def __init__(self, context: Context):
        super().__init__(None, None)
        self.context = context
        try:
            self._user = _ember.UserEvent(context.devices[0].ordinal)
        except ValueError as e:
            raise invalid("clCreateUserEvent", status_code.INVALID_CONTEXT, str(e), cls=LogicError) from None

    def set_status(self, status) -> None:
        self._user.set_status(int(status))

    @property
    def int_ptr(self) -> int:
        """The ``cl_event`` handle."""
        return _handles.seen(self, self._user.handle)

    def _marker(self):
        return None

    def wait(self) -> None:
        self._user.wait()

    @property
    def command_execution_status(self) -> int:
        return command_execution_status.COMPLETE if self._user.done() else command_execution_status.SUBMITTED

    def __repr__(self):
        return f"<ember.cl.UserEvent on {self.context!r}>"


def wait_for_events(events) -> None:
    """Waits for every event in ``events``."""
    for event in events:
        event.wait()


def enqueue_marker(queue: CommandQueue, wait_for=None) -> Event:
    """An event that completes when every command queued before it (and ``wait_for``) has."""
    queue._wait_for(wait_for or ())
    event = Event(queue)
    event._marker()
    return event


def enqueue_barrier(queue: CommandQueue, wait_for=None) -> Event:
    """Later commands on ``queue`` wait for ``wait_for`` (an in-order queue waits for the
    earlier commands anyway)."""
    return enqueue_marker(queue, wait_for)
