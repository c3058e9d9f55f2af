"""``pyopencl.array`` on ember's one array type: ``Array`` *is* ``ember.ndarray`` (every ember
array is one, ``isinstance`` says so), made with PyOpenCL's constructor
``Array(queue, shape, dtype, order="C", allocator=None, data=None, offset=0, strides=None,
events=None)``. Arithmetic, comparisons, indexing, slicing and methods are ember's; the
module functions are PyOpenCL's (``to_device``, ``arange``, ``maximum``, ``if_positive``,
``sum``, ``dot``, ``take``, ``concatenate`` ...), each a thin call of ember's operation.

Where it differs from PyOpenCL: results of operations use their device's default queue
(``a.queue``) rather than the first operand's; comparisons give booleans (PyOpenCL gives int8);
``map_to_host`` copies; copies to and from the host complete before they return.
"""

from __future__ import annotations

import builtins

import numpy as np

from .. import _creation as _ec
from .. import _differences, _indexing, _linalg, _ndarray_cl, _reductions, _shape, _ufuncs
from .._ndarray import _wrap, ndarray
from .._runtime import Device as _EmberDevice
from .._runtime import current_device_id
from ._constants import map_flags, mem_flags
from ._memory import Buffer, buffer_of_pointer, enqueue_map_buffer
from ._platform import Context, context_of
from ._queue import CommandQueue


class ArrayHasOffsetError(ValueError):
    """``a.data`` of an array that does not start at the beginning of its buffer."""

    def __init__(self, val="The operation you are attempting does not yet support arrays that start at an offset "
                           "from the beginning of their buffer."):
        super().__init__(val)


class InconsistentOpenCLQueueWarning(UserWarning):
    """Arrays of one operation name different queues."""


# ---- what the array needs from ember.cl (registered in _ndarray_cl) -------------------------

_default_queues: dict[int, CommandQueue] = {}


def _default_queue(ordinal: int) -> CommandQueue:
    queue = _default_queues.get(ordinal)
    if queue is None:
        queue = _default_queues[ordinal] = CommandQueue(context_of(ordinal))
    return queue


def _buffer_of(arr: ndarray) -> tuple[Buffer, int]:
    native = arr._a
    whole = native.view([native.buffer_nbytes], [1], 0, "uint8")
    return Buffer._view(context_of(native.device), mem_flags.READ_WRITE, whole), native.offset


def _done_event(queue: CommandQueue):
    return queue._event(None, done=True)


_ndarray_cl.face.buffer_of = _buffer_of
_ndarray_cl.face.default_queue = _default_queue
_ndarray_cl.face.done_event = _done_event
_ndarray_cl.face.last_event = lambda queue: queue._event(None)


def _map_to_host(arr, queue, flags, wait_for):
    buf, offset = _buffer_of(arr)
    flags = map_flags.READ | map_flags.WRITE if flags is None else flags
    order = "C" if arr.flags.c_contiguous else "F"
    host, _ = enqueue_map_buffer(queue, buf, flags, offset, arr.shape, arr.dtype, order=order, wait_for=wait_for)
    return host


_ndarray_cl.face.map_to_host = _map_to_host


# ---- the Array type ----------------------------------------------------------------------------


class _AnyEmberArray(type):
    # Every ember array is a PyOpenCL Array: isinstance(a + b, Array) holds.
    def __instancecheck__(cls, obj):
        return isinstance(obj, ndarray)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, ndarray)


def _device_of(cq) -> int:
    if isinstance(cq, CommandQueue):
        return cq.device.ordinal
    if isinstance(cq, Context):
        return cq.devices[0].ordinal
    if cq is None:
        return current_device_id()
    raise TypeError(f"the first argument must be a CommandQueue, a Context or None, got {type(cq).__name__}")


class Array(ndarray, metaclass=_AnyEmberArray):
    """``Array(queue, shape, dtype, order="C", allocator=None, data=None, offset=0,
    strides=None, events=None)``: a new array on the queue's device (an uninitialised one, or a
    view of ``data``, a ``Buffer``, from byte ``offset``). ``queue`` may be a ``Context``
    (then the array has no queue of its own) or None."""

    __slots__ = ()

    def __new__(cls, cq, shape, dtype, order="C", allocator=None, data=None, offset=0, strides=None,
                events=None):
        # The result is a plain ember.ndarray: one array type, which ember's operations take.
        shape = _dimensions(shape)
        dtype = np.dtype(dtype)
        ordinal = _device_of(cq)
        if data is None and allocator is not None:
            nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
            data = allocator(nbytes) if nbytes else None
        if data is not None:
            buffer = data if isinstance(data, Buffer) else \
                data._ember_buffer() if hasattr(data, "_ember_buffer") else buffer_of_pointer(data)
            native = _view_of_buffer(buffer, shape, dtype, int(offset), strides, order)
        else:
            with _EmberDevice(ordinal):
                native = _ec.empty(shape, dtype, order=order)._a if strides is None else \
                    ndarray(shape, dtype, strides=strides)._a
        arr = _wrap(native)
        arr._cl = _ndarray_cl.ClState(cq if isinstance(cq, CommandQueue) else None, events, allocator)
        return arr


def _dimensions(shape) -> tuple[int, ...]:
    """A shape of non-negative integers (NumPy's integer types too), as PyOpenCL checks it."""
    dims = (shape,) if np.ndim(shape) == 0 else tuple(shape)
    for d in dims:
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
            raise ValueError(f"array dimensions must be integers, got {d!r} in shape {shape!r}")
        if d < 0:
            raise ValueError(f"negative dimensions are not allowed, got shape {shape!r}")
    return tuple(int(d) for d in dims)


def _view_of_buffer(buffer: Buffer, shape, dtype, offset: int, strides, order):
    if strides is None:
        strides = _strides(shape, dtype.itemsize, order)
    empty_array = not builtins.all(shape)
    span = 0 if empty_array else builtins.sum((n - 1) * s for n, s in zip(shape, strides, strict=True)) + dtype.itemsize
    if offset < 0 or offset + builtins.max(span, 0) > buffer.size:
        raise ValueError(f"an array of shape {shape} and dtype {dtype} at offset {offset} does not fit in {buffer!r}")
    base = buffer._native
    return base.view(list(shape), list(strides), base.offset + offset, dtype.name)


def _strides(shape, itemsize: int, order: str) -> list[int]:
    """Dense byte strides of ``shape`` in C or Fortran (``order`` "F") order."""
    if order in ("F", "f"):
        return _ec._c_strides(tuple(shape)[::-1], itemsize)[::-1]
    return _ec._c_strides(shape, itemsize)


def _with(queue, arr: ndarray, allocator=None) -> ndarray:
    """``arr`` set to use ``queue`` (and ``allocator``) as PyOpenCL's result would."""
    if isinstance(queue, CommandQueue) or allocator is not None:
        arr._cl = _ndarray_cl.ClState(queue if isinstance(queue, CommandQueue) else None, (), allocator)
    return arr


# ---- making arrays -------------------------------------------------------------------------


def to_device(queue, ary, allocator=None, async_=False, array_queue=None) -> Array:
    """A device copy of the host array ``ary`` (any layout; kept as NumPy lays it out)."""
    ary = np.asarray(ary)
    if ary.dtype.hasobject:
        raise RuntimeError("to_device does not work on object arrays.")
    order = "F" if ary.flags.f_contiguous and not ary.flags.c_contiguous else "C"
    result = Array(queue if array_queue is None else array_queue, ary.shape, ary.dtype, order=order,
                   allocator=allocator)
    result.set(np.asarray(ary, order=order), queue if isinstance(queue, CommandQueue) else None)
    return result


def empty(queue, shape, dtype, order="C", allocator=None, data=None) -> Array:
    """An uninitialised array."""
    return Array(queue, shape, dtype, order=order, allocator=allocator, data=data)


def zeros(queue, shape, dtype, order="C", allocator=None) -> Array:
    """An array of zeros."""
    return empty(queue, shape, dtype, order, allocator).fill(0)


def empty_like(ary, queue=None, allocator=None) -> Array:
    """An uninitialised array of ``ary``'s shape, dtype and layout."""
    order = "F" if ary.flags.f_contiguous and not ary.flags.c_contiguous else "C"
    return empty(queue if queue is not None else ary.queue, ary.shape, ary.dtype, order,
                 allocator if allocator is not None else ary.allocator)


def zeros_like(ary, queue=None, allocator=None) -> Array:
    """An array of zeros of ``ary``'s shape, dtype and layout."""
    return empty_like(ary, queue, allocator).fill(0)


def arange(queue, *args, dtype=None, allocator=None, **kwargs) -> Array:
    """``numpy.arange``'s values on the device: ``arange(queue, [start,] stop[, step], dtype=)``."""
    start, stop, step = kwargs.pop("start", None), kwargs.pop("stop", None), kwargs.pop("step", None)
    if kwargs:
        raise TypeError(f"arange() got unexpected keyword arguments {sorted(kwargs)}")
    values = list(args)
    if len(values) > 3:
        raise ValueError("too many arguments")
    if start is not None or stop is not None or step is not None:
        values = [v for v in (start, stop, step) if v is not None] if not values else values
    with _EmberDevice(_device_of(queue)):
        result = _ec.arange(*values, dtype=dtype)
    return _with(queue, result, allocator)


def _queue_of(arrays, queue):
    if queue is not None:
        return queue
    return next((a.queue for a in arrays if isinstance(a, ndarray)), None)


def take(a, indices, out=None, queue=None, wait_for=None) -> Array:
    """``a[indices]`` of the flattened array (``out`` receives it when given)."""
    result = a.ravel()[indices]
    if out is None:
        return _with(_queue_of([a], queue), result)
    out[...] = result
    return out


def multi_take(arrays, indices, out=None, queue=None) -> list:
    """``[take(a, indices) for a in arrays]``."""
    outs = out if out is not None else [None] * len(arrays)
    return [take(a, indices, o, queue) for a, o in zip(arrays, outs, strict=True)]


def multi_put(arrays, dest_indices, dest_shape=None, out=None, queue=None, wait_for=None) -> list:
    """``out[i][dest_indices] = arrays[i]`` (``out`` made when not given)."""
    if out is None:
        out = [empty(_queue_of(arrays, queue), dest_shape, a.dtype) for a in arrays]
    for a, o in zip(arrays, out, strict=True):
        o[dest_indices] = a
    return out


def multi_take_put(arrays, dest_indices, src_indices, dest_shape=None, out=None, queue=None, src_offsets=None):
    """``out[i][dest_indices] = arrays[i][src_indices (+ src_offsets[i])]``."""
    if out is None:
        out = [empty(_queue_of(arrays, queue), dest_shape, a.dtype) for a in arrays]
    offsets = src_offsets if src_offsets is not None else [0] * len(arrays)
    for a, o, off in zip(arrays, out, offsets, strict=True):
        o[dest_indices] = a.ravel()[src_indices + off]
    return out


def concatenate(arrays, axis=0, queue=None, allocator=None) -> Array:
    """The arrays joined along ``axis``."""
    return _with(_queue_of(arrays, queue), _shape.concatenate(list(arrays), axis=axis), allocator)


def stack(arrays, axis=0, queue=None) -> Array:
    """The arrays stacked along a new ``axis``."""
    return _with(_queue_of(arrays, queue), _shape.stack(list(arrays), axis=axis))


def hstack(arrays, queue=None) -> Array:
    """The arrays joined along their last axis (the first for 1-d)."""
    return _with(_queue_of(arrays, queue), _shape.hstack(list(arrays)))


def transpose(a, axes=None) -> Array:
    """A view with the axes permuted (reversed by default)."""
    return _shape.transpose(a, axes)


def reshape(a, shape) -> Array:
    """``a.reshape(shape)``."""
    return a.reshape(shape)


def as_strided(ary, shape=None, strides=None) -> Array:
    """A view of ``ary``'s memory with ``shape`` and byte ``strides`` (NumPy's rules: a view
    that reaches outside the memory is the caller's error)."""
    shape = ary.shape if shape is None else tuple(shape)
    strides = ary.strides if strides is None else tuple(strides)
    return _wrap(ary._a.view(list(shape), list(strides), ary._a.offset, ary.dtype.name))


def diff(array, queue=None, allocator=None) -> Array:
    """``array[1:] - array[:-1]`` of a 1-d array."""
    return _with(_queue_of([array], queue), _differences.diff(array), allocator)


def cumsum(a, output_dtype=None, queue=None, wait_for=None, return_event=False):
    """The running sum of the flattened array (in ``output_dtype``, by default ``a``'s)."""
    result = _with(_queue_of([a], queue), _reductions.cumsum(a, dtype=output_dtype or a.dtype))
    return (result, None) if return_event else result


# ---- element-wise ------------------------------------------------------------------------


def _binary(ufunc, a, b, out, queue):
    if not isinstance(a, ndarray) and not isinstance(b, ndarray) and out is None:
        return getattr(np, ufunc.__name__)(a, b)  # two host scalars: a host scalar, as PyOpenCL
    result = ufunc(a, b) if out is None else ufunc(a, b, out=out)
    return result if out is not None else _with(_queue_of([a, b], queue), result)


def maximum(a, b, out=None, queue=None) -> Array:
    """The larger of ``a`` and ``b`` element by element (NaN if either is NaN)."""
    return _binary(_ufuncs.UFUNCS["maximum"], a, b, out, queue)


def minimum(a, b, out=None, queue=None) -> Array:
    """The smaller of ``a`` and ``b`` element by element (NaN if either is NaN)."""
    return _binary(_ufuncs.UFUNCS["minimum"], a, b, out, queue)


def logical_and(x1, x2, out=None, queue=None) -> Array:
    return _binary(_ufuncs.UFUNCS["logical_and"], x1, x2, out, queue)


def logical_or(x1, x2, out=None, queue=None) -> Array:
    return _binary(_ufuncs.UFUNCS["logical_or"], x1, x2, out, queue)


def logical_not(x, out=None, queue=None) -> Array:
    result = _ufuncs.UFUNCS["logical_not"](x) if out is None else _ufuncs.UFUNCS["logical_not"](x, out=out)
    return result if out is not None else _with(_queue_of([x], queue), result)


def if_positive(criterion, then_, else_, out=None, queue=None) -> Array:
    """``then_`` where ``criterion`` is positive (non-zero for booleans), else ``else_``."""
    if not builtins.any(isinstance(x, ndarray) for x in (criterion, then_, else_)) and out is None:
        return np.where(np.asarray(criterion) > 0, then_, else_)  # host scalars: a host answer
    condition = criterion if getattr(criterion, "dtype", None) == np.bool_ else criterion > 0
    result = _indexing.where(condition, then_, else_)
    if out is None:
        return _with(_queue_of([criterion, then_, else_], queue), result)
    out[...] = result
    return out


# ---- reductions (device scalars: 0-d arrays) ------------------------------------------------


def _sliced(a, slice_):
    return a if slice_ is None else a[slice_]


def sum(a, dtype=None, queue=None, slice=None, initial=np._NoValue) -> Array:  # noqa: A001
    """The sum of the elements (a 0-d array), in ``dtype`` when given."""
    total = _reductions.sum(_sliced(a, slice), dtype=dtype)
    return total if initial is np._NoValue else total + initial


def any(a, queue=None, wait_for=None) -> Array:  # noqa: A001
    return _reductions.any(a)


def all(a, queue=None, wait_for=None) -> Array:  # noqa: A001
    return _reductions.all(a)


def _extreme(a, initial, name: str) -> Array:
    """The largest (``name`` "maximum") or smallest element, with ``initial`` among them."""
    if a.size == 0 and initial is np._NoValue:
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    found = (_reductions.max if name == "maximum" else _reductions.min)(a) if a.size else None
    if initial is np._NoValue:
        return found
    return _ufuncs.UFUNCS[name](found, initial) if found is not None else _ec.asarray(np.asarray(initial, a.dtype))


def max(a, queue=None, initial=np._NoValue) -> Array:  # noqa: A001
    """The largest element (a 0-d array); NaN if any is NaN."""
    return _extreme(a, initial, "maximum")


def min(a, queue=None, initial=np._NoValue) -> Array:  # noqa: A001
    """The smallest element (a 0-d array); NaN if any is NaN."""
    return _extreme(a, initial, "minimum")


def dot(a, b, dtype=None, queue=None, slice=None) -> Array:
    """``sum(a * b)`` of two arrays of one shape (no conjugation), in ``dtype`` when given."""
    a, b = _sliced(a, slice), _sliced(b, slice)
    if dtype is not None:
        a, b = a.astype(dtype), b.astype(dtype)
    return _linalg.dot(a.ravel(), b.ravel())


def vdot(a, b, dtype=None, queue=None, slice=None) -> Array:
    """``sum(conj(a) * b)``."""
    a, b = _sliced(a, slice), _sliced(b, slice)
    if dtype is not None:
        a, b = a.astype(dtype), b.astype(dtype)
    return _linalg.vdot(a, b)


def subset_dot(subset, a, b, dtype=None, queue=None, slice=None) -> Array:
    """``dot(a[subset], b[subset])``."""
    return dot(take(a, subset), take(b, subset), dtype=dtype, slice=slice)


def subset_max(subset, a, queue=None, slice=None) -> Array:
    return max(take(_sliced(a, slice), subset))


def subset_min(subset, a, queue=None, slice=None) -> Array:
    return min(take(_sliced(a, slice), subset))

