"""``int_ptr`` and ``from_int_ptr``: ember.cl objects by their raw OpenCL handles.

``obj.int_ptr`` is the driver's handle (a ``cl_mem``, ``cl_command_queue`` ...), for handing
to other OpenCL libraries. ``Type.from_int_ptr(h)`` gives back the ember.cl object whose
``int_ptr`` was read as ``h``: ember keeps its own state beside each handle (the stream behind
a queue, the array behind a buffer), so it rebuilds only objects it made, and a handle from
another library raises ``LogicError``. Objects are remembered when their ``int_ptr`` is read,
weakly (remembering keeps nothing alive).
"""

from __future__ import annotations

import weakref

from ._constants import status_code
from ._errors import invalid

_SEEN: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def seen(obj, handle: int) -> int:
    """Remembers ``obj`` under ``handle`` (its ``int_ptr``) and returns the handle."""
    _SEEN[(type(obj).__name__, int(handle))] = obj
    return int(handle)


def from_int_ptr(cls, int_ptr_value: int, retain: bool = True):
    """The ember.cl object of type ``cls`` whose ``int_ptr`` is ``int_ptr_value`` (PyOpenCL's
    ``from_int_ptr``; ``retain`` is accepted: ember's object holds its own reference)."""
    obj = _SEEN.get((cls.__name__, int(int_ptr_value)))
    if obj is None:
        raise unknown(cls, int_ptr_value)
    return obj


def unknown(cls, handle: int):
    """The error for a handle no ember.cl object has."""
    return invalid(f"{cls.__name__}.from_int_ptr", status_code.INVALID_VALUE,
                   f"no ember.cl.{cls.__name__} has handle {int(handle):#x}; ember rebuilds only objects it made "
                   f"(read their int_ptr first), not handles from other OpenCL libraries")
