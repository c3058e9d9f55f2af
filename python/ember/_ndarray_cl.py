"""PyOpenCL's ``Array`` on ember's one array type: the attributes and methods PyOpenCL code
uses (``queue``, ``events``, ``allocator``, ``base_data``, ``offset``, ``with_queue``,
``finish``, ``map_to_host`` ...), mixed into ``ember.ndarray``.

An array made without a queue uses the default ``CommandQueue`` of its device, which sends its
commands to the stream ember's operations use there, so ``a.queue`` is where the array's work
runs either way. ``ember.cl.array`` registers how buffers and default queues are made
(:data:`face`): ember.cl builds on the array, not the other way round.
"""

from __future__ import annotations


class _Face:
    """What ``ember.cl.array`` registers (functions set on the one instance ``face``):
    ``buffer_of(array)`` (the ``cl.Buffer`` of the array's whole allocation and the array's
    byte offset in it), ``default_queue(ordinal)``, ``done_event(queue)`` (an event of a
    command already complete), ``last_event(queue)`` (an event of the command just queued) and
    ``map_to_host(array, queue, flags, wait_for)`` (a contiguous array mapped for the host)."""

    buffer_of = None
    default_queue = None
    done_event = None
    last_event = None
    map_to_host = None

    def ready(self) -> None:
        if self.buffer_of is None:
            raise AttributeError("this is PyOpenCL's Array attribute: import ember.cl.array (or pyopencl.array) first")


face = _Face()


class ClState:
    """An array's own PyOpenCL settings (most arrays have none)."""

    __slots__ = ("queue", "events", "allocator")

    def __init__(self, queue=None, events=None, allocator=None):
        self.queue = queue
        self.events = list(events or ())
        self.allocator = allocator


def carry(result, state: ClState) -> None:
    """Gives an operator's result its operand's queue and allocator, as PyOpenCL's results
    keep their first operand's (called by the native operators, only for arrays that have
    PyOpenCL settings)."""
    events = () if state.queue is None or face.last_event is None else (face.last_event(state.queue),)
    result._cl = ClState(state.queue, events, state.allocator)


class PyOpenCLArray:
    """The PyOpenCL part of ``ember.ndarray`` (a mixin: it keeps no state of its own)."""

    __slots__ = ()

    def _cl_state(self, create=False) -> ClState | None:
        state = getattr(self, "_cl", None)
        if state is None and create:
            state = self._cl = ClState()
        return state

    @property
    def queue(self):
        """The ``CommandQueue`` the array was made with, or its first operand's for the result
        of an operator (None for an array without one: its work runs on its device's default
        queue)."""
        state = self._cl_state()
        return None if state is None else state.queue

    @property
    def events(self) -> list:
        """Events of commands that write the array (PyOpenCL waits for them before reading)."""
        return self._cl_state(create=True).events

    @property
    def allocator(self):
        """The allocator the array was made with (None: ember's pool directly)."""
        state = self._cl_state()
        return None if state is None else state.allocator

    def add_event(self, evt) -> None:
        """Records a command that writes the array; PyOpenCL keeps a few at most."""
        events = self.events
        events.append(evt)
        if len(events) > 20:  # done ones first: PyOpenCL bounds the list the same way
            del events[:10]

    def finish(self) -> None:
        """Waits for the array's recorded events (and the queue's work on it)."""
        state = self._cl_state()
        if state is not None and state.events:
            for evt in state.events:
                evt.wait()
            state.events.clear()

    def with_queue(self, queue):
        """A view of the same memory whose operations use ``queue``."""
        view = self.view()
        view._cl = ClState(queue, (), self.allocator)
        return view

    @property
    def base_data(self):
        """The ``cl.Buffer`` of the array's whole allocation (``offset`` bytes from the array)."""
        face.ready()
        return face.buffer_of(self)[0]

    @property
    def offset(self) -> int:
        """The byte offset of the array's first element in ``base_data``."""
        face.ready()
        return face.buffer_of(self)[1]

    def map_to_host(self, queue=None, flags=None, is_blocking=True, wait_for=None):
        """The contents as a NumPy array whose ``base`` is a ``MemoryMap``: its ``release()``
        (or leaving ``with a_host.base:``) writes changes back, as OpenCL's unmap does (ember
        maps by copying). A non-contiguous array gives a plain copy (write back with ``set``)."""
        face.ready()
        if not (self.flags.c_contiguous or self.flags.f_contiguous):
            return self.get(queue)
        queue = queue or self.queue or face.default_queue(self._a.device)
        return face.map_to_host(self, queue, flags, wait_for)

    def get_async(self, queue=None, ary=None):
        """``(host copy, event)``: ember's copies to the host complete before they return, so
        the event is complete."""
        face.ready()
        host = self.get(queue, ary)
        return host, face.done_event(queue or self.queue or face.default_queue(self._a.device))

    def mul_add(self, selffac, other, otherfac, queue=None):
        """``selffac * self + otherfac * other``."""
        return selffac * self + otherfac * other

    def setitem(self, subscript, value, queue=None, wait_for=None):
        """``self[subscript] = value``."""
        self[subscript] = value

    def reverse(self, queue=None):
        """The 1-d array's elements in reverse order (a copy)."""
        if self.ndim != 1:
            raise ValueError("reverse() is for one-dimensional arrays")
        return self[::-1].copy()
