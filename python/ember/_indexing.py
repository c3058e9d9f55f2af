"""NumPy's indexing routines (``take nonzero where``) and the host side of ``a[index]`` and
``a[index] = value``.

What an index selects is Rust's (``ember_array::index``): basic indices (integers, slices,
``...``, ``None``) give views, integer and boolean arrays gather and scatter on the device,
with NumPy's errors. Here, host data met in an index or an assigned value (lists, NumPy
arrays, other libraries' device arrays) is converted as NumPy converts it.
"""

from __future__ import annotations

import operator

import numpy as np

from . import _dtypes, _ember, _fusion
from ._creation import _from_host, array, asarray
from ._interop import _foreign_view
from ._operands import needs_conversion

_INVALID_INDEX = (
    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays "
    "are valid indices"
)
_NOT_INTEGER = "arrays used as indices must be of integer (or boolean) type"

# What makes an unknown index object array-like, hence advanced (NumPy converts it to an array).
_ARRAY_LIKE = ("__len__", "__array__", "__array_interface__", "__cuda_array_interface__", "__dlpack__",
               "__cupy_get_ndarray__")


def index_array(item):
    """An index item the native reader does not take as it is (a list, a NumPy array, another
    library's array, an object with ``__index__``) as an int, a bool or an ember array."""
    sequence = isinstance(item, (list, tuple))
    if not sequence and not isinstance(item, np.ndarray):
        try:
            return operator.index(item)
        except TypeError:
            if not any(hasattr(item, name) for name in _ARRAY_LIKE):
                raise IndexError(_INVALID_INDEX) from None
        view = _foreign_view(item)
        if view is not None:
            return view
    try:
        host = np.asarray(item)
    except TypeError:  # ember refuses implicit transfers: the sequence holds device arrays
        host = None
    if sequence and (host is None or host.dtype == object):
        # A list holding device arrays (or wrappers of them) is assembled on the device, as
        # `array` assembles it.
        try:
            dev = array(item)
        except (TypeError, ValueError):
            raise IndexError(_INVALID_INDEX) from None
        if dev.dtype.kind not in "iub":
            raise IndexError(_NOT_INTEGER)
        return dev
    if host is None:
        raise IndexError(_INVALID_INDEX)
    if sequence and host.size == 0:
        host = host.astype(np.intp)  # NumPy reads an empty sequence as an integer index
    if host.dtype.kind not in "iub":
        raise IndexError(_INVALID_INDEX if sequence or host.dtype == object else _NOT_INTEGER)
    if host.ndim == 0:
        return host.item()  # NumPy reads a 0-d integer (boolean) array as an integer (boolean)
    return _from_host(host)


_ember.register_index_converter(index_array)


def _host_scalar(value, dtype: np.dtype):
    """``value`` converted as NumPy converts it in ``a[i] = value`` (so the same values overflow,
    truncate or raise), as a Python scalar for the fill kernel."""
    cell = np.empty((), dtype)
    cell[()] = value
    return cell.item()


def setitem(a, index, value) -> None:
    """``a[index] = value``: ``value`` a scalar, an ember array, or host data (a NumPy array, a
    list) or another library's device array, broadcast to the selection and cast to ``a``'s
    dtype on the device."""
    if isinstance(value, _ember.ndarray):
        _ember.setitem(a, index, value)
        return
    dtype = a.dtype
    if _dtypes.is_opaque(dtype):
        # No kernel writes these: a device value is copied, a host one converted by NumPy.
        view = None if isinstance(value, np.ndarray) else _foreign_view(value)
        _ember.setitem(a, index, view if view is not None else _from_host(np.asarray(value, dtype=dtype), a._a.device))
        return
    if isinstance(value, (bool, int, float, complex, np.generic)):
        _ember.setitem(a, index, _host_scalar(value, dtype))
        return
    if not isinstance(value, np.ndarray):
        view = _foreign_view(value)
        if view is not None:  # another library's device array: read in place, not via the host
            _ember.setitem(a, index, view)
            return
    host = np.asarray(value)
    if host.ndim == 0:
        _ember.setitem(a, index, _host_scalar(value, dtype))
        return
    # Cast on the host, where the data is: the upload is then a plain copy.
    _ember.setitem(a, index, _from_host(host.astype(dtype, copy=False), a._a.device), not isinstance(value, np.ndarray))


def nonzero(a) -> tuple:
    """The indices of the non-zero elements, one int64 array per axis (stream compaction on
    the device; only the count of true elements is read on the host)."""
    return _ember.nonzero(a if isinstance(a, _ember.ndarray) else asarray(a))


def take(a, indices, axis=None, out=None):
    """Elements of ``a`` (flattened when ``axis`` is None) at ``indices``."""
    result = _ember.take(a if isinstance(a, _ember.ndarray) else asarray(a), indices, None if axis is None else
                         operator.index(axis))
    if out is not None:
        out[...] = result
        return out
    return result


def _converted(value):
    """An operand NumPy would convert (a list, a tuple, another library's device array) as an
    ember array; arrays and scalars as they are."""
    return asarray(value) if needs_conversion(value) else value


def where(condition, x=None, y=None):
    """``where(condition, x, y)``: elements of ``x`` where ``condition`` holds, else of ``y``,
    broadcast together; the dtype is NumPy 2's result type of ``x`` and ``y`` (Python scalars
    weak), from the generated promotion tables. ``where(condition)`` is ``nonzero``."""
    if _fusion.tracing(condition, x, y):
        return _fusion.trace_where(condition, x, y)
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    cond = condition if isinstance(condition, _ember.ndarray) else asarray(condition)
    return _ember.where_(cond, _converted(x), _converted(y))
