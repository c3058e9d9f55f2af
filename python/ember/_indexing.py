"""``ndarray[index]`` and ``ndarray[index] = value`` for NumPy's basic indices: integers,
slices (any step), ``...`` and ``None``. A basic index selects a view sharing the buffer;
even an all-integer index gives a 0-d ember array (as in CuPy), not a host scalar.

Indices holding arrays or lists (advanced indexing) go to :func:`advanced_getitem` and
:func:`advanced_setitem`.
"""

from __future__ import annotations

import operator

import numpy as np

from . import _dtypes
from ._copy import device_copy, device_fill
from ._creation import _from_host, asarray
from ._ndarray import _wrap_view, ndarray

_INVALID_INDEX = (
    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays "
    "are valid indices"
)


def shape_str(shape) -> str:
    """A shape as NumPy's messages print it: no spaces, unknown dimensions as 'newaxis'."""
    shape = list(shape)
    # NumPy leaves out leading unknown dimensions, and adds a comma only to a 1-d shape.
    first = next((i for i, d in enumerate(shape) if d >= 0), len(shape))
    parts = ["newaxis" if d < 0 else str(d) for d in shape[first:]]
    return "(" + ",".join(parts) + ("," if len(shape) == 1 and parts else "") + ")"


# What makes an unknown index object array-like, hence advanced (NumPy converts it to an array).
_ARRAY_LIKE = ("__len__", "__array__", "__array_interface__", "__cuda_array_interface__", "__dlpack__")


# --- advanced indexing ---------------------------------------------------------------------------
def advanced_getitem(a: ndarray, index):
    """``a[index]`` for an index with integer or boolean arrays or lists (NumPy's advanced
    indexing), gathered on the device."""
    from ._advanced import getitem

    return getitem(a, index)


def advanced_setitem(a: ndarray, index, value) -> None:
    """``a[index] = value`` for an advanced index, scattered on the device."""
    from ._advanced import setitem

    setitem(a, index, value)


# --- basic indexing -----------------------------------------------------------------------------
def basic_items(index) -> list | None:
    """``index`` as a list of ints, slices, ``None`` and ``Ellipsis``; None when it is an
    advanced index (it holds an array, a list or a boolean)."""
    items = list(index) if type(index) is tuple else [index]
    for k, item in enumerate(items):
        kind = type(item)
        if kind is int or kind is slice or item is None or item is Ellipsis:
            continue
        # Booleans are advanced indices (a[True] adds an axis), though bool is an int.
        if kind is bool or isinstance(item, (ndarray, list, tuple, np.bool_)):
            return None
        if isinstance(item, np.ndarray):
            if item.ndim == 0 and item.dtype.kind in "iu":
                items[k] = int(item)  # NumPy reads a 0-d integer array as an integer
                continue
            return None
        if isinstance(item, (float, complex, str, bytes)):
            raise IndexError(_INVALID_INDEX)
        try:
            items[k] = operator.index(item)
        except TypeError:
            if any(hasattr(item, name) for name in _ARRAY_LIKE):
                return None  # a sequence, or another library's array
            raise IndexError(_INVALID_INDEX) from None
    return items


def basic_view(native, items):
    """The native view of ``native`` that the basic index ``items`` selects."""
    shape, strides, offset = native.shape, native.strides, native.offset
    ndim = len(shape)
    indexed = ellipses = 0
    for item in items:
        if item is Ellipsis:
            ellipses += 1
        elif item is not None:
            indexed += 1
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if indexed > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but {indexed} were indexed")
    new_shape, new_strides = [], []
    axis = 0
    for item in items:
        if type(item) is int:
            n = shape[axis]
            i = item + n if item < 0 else item
            if not 0 <= i < n:
                raise IndexError(f"index {item} is out of bounds for axis {axis} with size {n}")
            offset += i * strides[axis]
            axis += 1
        elif type(item) is slice:
            start, stop, step = item.indices(shape[axis])
            length = len(range(start, stop, step))
            # An empty slice keeps the offset: its start may lie outside the axis (NumPy's rule).
            if length:
                offset += start * strides[axis]
            new_shape.append(length)
            new_strides.append(strides[axis] * step if length else strides[axis])
            axis += 1
        elif item is None:
            new_shape.append(1)
            new_strides.append(0)
        else:  # the ellipsis stands for every axis no other item indexes
            rest = ndim - indexed
            new_shape.extend(shape[axis:axis + rest])
            new_strides.extend(strides[axis:axis + rest])
            axis += rest
    new_shape.extend(shape[axis:])
    new_strides.extend(strides[axis:])
    return native.view(new_shape, new_strides, offset, native.dtype)


def _getitem(self, index):
    """``a[index]``: a view for basic indices (see the module docstring)."""
    items = basic_items(index)
    if items is None:
        return advanced_getitem(self, index)
    return _wrap_view(basic_view(self._a, items), self)


# --- assignment ---------------------------------------------------------------------------------
def _host_scalar(value, dtype: np.dtype):
    """``value`` converted as NumPy converts it in ``a[i] = value`` (so the same values overflow,
    truncate or raise), as a Python scalar for the fill kernel."""
    cell = np.empty((), dtype)
    cell[()] = value
    return cell.item()


def _broadcast_value(src, shape):
    """Native ``src`` as a view of ``shape`` for assignment. NumPy drops a value's leading
    length-1 axes before broadcasting, so ``a[0] = b[None]`` works."""
    s_shape, s_strides = list(src.shape), list(src.strides)
    while len(s_shape) > len(shape) and s_shape[0] == 1:
        del s_shape[0], s_strides[0]
    lead = len(shape) - len(s_shape)
    if lead < 0 or any(d != 1 and d != shape[lead + i] for i, d in enumerate(s_shape)):
        raise ValueError(
            f"could not broadcast input array from shape {shape_str(src.shape)} into shape {shape_str(shape)}"
        )
    if src.shape == list(shape):
        return src
    strides = [0] * lead
    strides += [s if d == shape[lead + i] else 0 for i, (d, s) in enumerate(zip(s_shape, s_strides, strict=True))]
    return src.view(list(shape), strides, src.offset, src.dtype)


def assign(target, value) -> None:
    """Writes ``value`` (a scalar, an ember array, or host data such as a NumPy array or a
    list) into native ``target``, broadcast to its shape and cast to its dtype on the device."""
    dtype = _dtypes.from_name(target.dtype)
    if isinstance(value, ndarray):
        src = value._a
    elif isinstance(value, (bool, int, float, complex, np.generic)):
        device_fill(target, _host_scalar(value, dtype))
        return
    elif not isinstance(value, np.ndarray) and (
        hasattr(value, "__cuda_array_interface__") or hasattr(value, "__dlpack__")
    ):
        src = asarray(value)._a  # another library's device array: read in place, not via the host
    else:
        host = np.asarray(value)
        if host.ndim > len(target.shape) and not isinstance(value, np.ndarray):
            # NumPy converts a nested sequence with at most the target's number of axes.
            raise ValueError(
                "setting an array element with a sequence. The requested array would exceed the maximum "
                f"number of dimension of {len(target.shape)}."
            )
        if host.ndim == 0:
            device_fill(target, _host_scalar(value, dtype))
            return
        # Cast on the host, where the data is: the upload is then a plain copy.
        src = _from_host(host.astype(dtype, copy=False))._a
    device_copy(_broadcast_value(src, target.shape), target)


def _setitem(self, index, value) -> None:
    """``a[index] = value``: writes into the view that a basic index selects."""
    items = basic_items(index)
    if items is None:
        advanced_setitem(self, index, value)
        return
    target = basic_view(self._a, items)
    if not target.shape and len(items) == len(self._a.shape) and _has_axes(value):
        # NumPy stores into one element (all axes given integers) as a scalar, and refuses arrays.
        raise ValueError("setting an array element with a sequence.")
    assign(target, value)


def _has_axes(value) -> bool:
    if isinstance(value, (ndarray, np.ndarray)):
        return value.ndim > 0
    return isinstance(value, (list, tuple))


def _iter(self):
    """Iterates over the first axis, giving views (as NumPy does)."""
    if not self._a.shape:
        raise TypeError("iteration over a 0-d array")
    for i in range(self._a.shape[0]):
        yield _wrap_view(basic_view(self._a, [i]), self)


ndarray.__getitem__ = _getitem
ndarray.__setitem__ = _setitem
ndarray.__iter__ = _iter
