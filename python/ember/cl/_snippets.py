"""Kernels made from OpenCL C snippets (``ElementwiseKernel``, ``ReductionKernel``, the scan
kernels): their argument lists (``"float a, __global float *x"`` or ``VectorArg``/``ScalarArg``
objects), the kernel parameters that pass an array (its whole buffer and the byte offset of its
first element, so views work), and the call's arguments in that order. The programs build
through ``ember.cl.Program``, so ember's kernel cache holds them."""

from __future__ import annotations

import numpy as np

from .. import _creation
from .._ndarray import ndarray
from .._runtime import Device as _EmberDevice
from ._constants import device_type
from ._memory import Buffer, buffer_of_pointer
from ._program import Program
from .tools import Argument, ScalarArg, VectorArg, dtype_to_ctype, parse_arg_list  # noqa: F401


def parameters(args: list[Argument]) -> str:
    """The kernel's parameter list for ``args`` (an array: its buffer and a byte offset)."""
    out = []
    for a in args:
        ctype = dtype_to_ctype(a.dtype)
        if isinstance(a, VectorArg):
            out.append(f"__global {ctype} *{a.name}__base, long {a.name}__offset")
        else:
            out.append(f"{ctype} {a.name}")
    return ", ".join(out)


def prologue(args: list[Argument]) -> str:
    """Statements at the top of the kernel that name each array at its first element."""
    return "".join(
        f"    __global {dtype_to_ctype(a.dtype)} *{a.name} = (__global {dtype_to_ctype(a.dtype)} *)"
        f"((__global char *){a.name}__base + {a.name}__offset);\n"
        for a in args if isinstance(a, VectorArg))


def group_count(queue, items: int, local: int, cpu_cap: int | None, per_compute_unit: int) -> int:
    """Work-groups for ``items`` indices at ``local`` per group: on a CPU device at most
    ``cpu_cap`` (None: one index per work-item); on a GPU enough to fill every compute unit
    ``per_compute_unit`` times over (a GPU hides memory latency with many resident groups)."""
    device = queue.device
    groups = -(-items // local)
    if device.type & device_type.CPU:
        cap = groups if cpu_cap is None else cpu_cap
    else:
        cap = device._compute_units * per_compute_unit
    return max(1, min(cap, groups))


def build(context, source: str, options=None):
    return Program(context, source).build(options=list(options or ()))


def launch(kernel, queue, global_size, local_size, *args, wait_for=None):
    """Launches ``kernel`` and lets go of its arguments: a kernel keeps the arguments it was
    last called with (as OpenCL's do), and these kernels are cached, so they must not keep
    the arrays alive."""
    try:
        return kernel(queue, global_size, local_size, *args, wait_for=wait_for)
    finally:
        kernel._args = None


def call_arguments(args: list[Argument], values) -> list:
    """The launch arguments for the declared ``args`` from the caller's ``values``."""
    if len(values) != len(args):
        raise TypeError(f"the kernel takes {len(args)} arguments ({', '.join(a.name for a in args)}), "
                        f"got {len(values)}")
    out = []
    for a, v in zip(args, values, strict=True):
        if isinstance(a, VectorArg):
            out.extend(_array_parameter(a, v))
        else:
            out.append(v if isinstance(v, np.generic) and v.dtype == a.dtype else np.asarray(v, a.dtype)[()])
    return out


def _array_parameter(a: Argument, value) -> tuple:
    """(the whole buffer as a native byte array, the byte offset of the first element): the
    native array goes to the launch as it is (this runs on every call of every snippet kernel,
    so it makes no Python objects it need not)."""
    if isinstance(value, ndarray):
        native = value._a
        if not (native.c_contiguous or native.f_contiguous) and value.size:
            raise ValueError(f"argument {a.name!r} must be a contiguous array; pass a copy (a.copy())")
        return whole_buffer(native), np.int64(native.offset)
    if isinstance(value, Buffer):
        return whole_buffer(value._native), np.int64(value._native.offset)
    if value is not None and hasattr(value, "mem"):  # a.data
        buf = buffer_of_pointer(value)
        return whole_buffer(buf._native), np.int64(buf._native.offset)
    raise TypeError(f"argument {a.name!r} must be an array or a buffer, got {type(value).__name__}")


def whole_buffer(native):
    """The whole allocation under the native array ``native``, as bytes from its start."""
    return native.view([native.buffer_nbytes], [1], 0, "uint8")


def scratch(queue, count: int, dtype):
    """A native array of ``count`` items for a kernel's own use between its launches, made on
    the queue's device (no ember.ndarray or PyOpenCL state around it)."""
    with _EmberDevice(queue.device.ordinal):
        return _creation.empty((int(count),), dtype)._a


def queue_of(args: list[Argument], values, queue):
    """The queue to run on: the one given, else the first array argument's, else its
    device's default queue."""
    if queue is not None:
        return queue
    from .array import _default_queue

    for a, v in zip(args, values, strict=False):
        if isinstance(a, VectorArg) and isinstance(v, ndarray):
            return v.queue or _default_queue(v._a.device)
    return None


def index_range(args: list[Argument], values, range_, slice_, what: str) -> tuple[int, int, int, int]:
    """(start, stop, step, count) of the indices a call runs over: ``range_`` as given, else
    ``slice_`` (or all) of the first array argument's size."""
    if range_ is not None and slice_ is not None:
        raise TypeError("give range or slice, not both")
    if range_ is None:
        n = size_of(args, values)
        if n is None:
            raise ValueError(f"the {what} has no array argument to size it: pass range=")
        start, stop, step = (slice(0, n) if slice_ is None else slice_).indices(n)
    else:
        start, stop, step = range_.start or 0, range_.stop, range_.step or 1
    return start, stop, step, max(0, -(-(stop - start) // step))


def size_of(args: list[Argument], values) -> int | None:
    """The size of the first array argument (None when there is none)."""
    for a, v in zip(args, values, strict=False):
        if isinstance(a, VectorArg) and isinstance(v, ndarray):
            return v.size
    return None
