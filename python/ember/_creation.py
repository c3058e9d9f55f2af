"""Array creation, as NumPy and CuPy spell it, and the reading of shapes, memory orders and
host data that creation shares with ``ndarray(...)``.

This module sits below the ``ndarray`` class (whose constructor uses it): it makes arrays
through the native module (``_ember.wrap``) and recognises them as ``_ember.ndarray`` (the class,
registered there when it is defined)."""

from __future__ import annotations

import math
import operator

import numpy as np

from . import _dtypes, _ember
from ._interop import _foreign_view
from ._runtime import Device, current_device_id


def _shape_tuple(shape) -> tuple[int, ...]:
    if type(shape) is int:
        if shape < 0:
            raise ValueError(f"negative dimensions are not allowed (shape ({shape},))")
        return (shape,)
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    if shape is None:
        raise TypeError("Use () not None as shape arguments")
    try:
        shape = tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a sequence of ints, got {shape!r}") from None
    if any(d < 0 for d in shape):
        raise ValueError(f"negative dimensions are not allowed (shape {shape})")
    return shape


def _memory_order(order, like=None) -> str:
    """'C' or 'F' for a new array: 'K' and 'A' follow ``like`` (Fortran-ordered only when it is
    F- and not C-contiguous), else C."""
    if order is None or order == "C" or order == "c":
        return "C"
    if order in ("F", "f"):
        return "F"
    if order in ("K", "A", "k", "a"):
        if like is not None and like.flags.f_contiguous and not like.flags.c_contiguous:
            return "F"
        return "C"
    raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")


def _in_order(make, shape, order: str):
    """The native array ``make(shape)`` allocates, laid out in ``order`` ('C' or 'F')."""
    if order == "C" or len(shape) < 2:
        return make(shape)
    native = make(shape[::-1])
    return native.view(list(shape), list(native.strides)[::-1], 0, native.dtype)


def _c_strides(shape, itemsize: int) -> list[int]:
    """C-order byte strides of ``shape`` (an axis of length 0 counts as 1)."""
    strides, step = [], itemsize
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return strides[::-1]


def _c_order(host: np.ndarray, dtype=None) -> np.ndarray:
    """``host`` as a C-contiguous array of ``dtype`` in the machine's byte order (a
    byte-swapped NumPy array is swapped on the host, as CuPy does), keeping 0-d arrays 0-d."""
    if dtype is None and not host.dtype.isnative:
        dtype = host.dtype.newbyteorder("=")
    return np.asarray(host, dtype=dtype, order="C").reshape(host.shape)


def _host_pointer(host: np.ndarray) -> int:
    return host.__array_interface__["data"][0]


def _scalar(value):
    """A Python scalar for the native layer (NumPy scalars and 0-d arrays too)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value.item()
    if isinstance(value, _ember.ndarray):
        return value.item()
    if isinstance(value, (bool, int, float, complex)):
        return value
    raise TypeError(f"expected a number, got {type(value).__name__}")


def _elsewhere(device, make, *args, **kwargs):
    """``make(*args, **kwargs)`` run with ``device`` current: the Array API's ``device=`` (an
    ``ember.cuda.Device``, its id, or an array's ``.device``)."""
    with Device(device):
        return make(*args, **kwargs)


def _from_host(host: np.ndarray, device: int | None = None):
    """A device copy of ``host`` on ``device`` (the current device by default)."""
    host = _c_order(host)
    ordinal = current_device_id() if device is None else device
    out = _ember.wrap(_ember.empty(ordinal, list(host.shape), _dtypes.name_of(host.dtype)))
    out._a.set_from_host(_host_pointer(host), host.nbytes)
    return out


def empty(shape, dtype=float, order="C", *, device=None):
    """An uninitialised array (C- or Fortran-ordered)."""
    if device is not None:
        return _elsewhere(device, empty, shape, dtype, order)
    if order != "C":
        name, device = _dtypes.name_of(dtype), current_device_id()
        native = _in_order(lambda s: _ember.empty(device, s, name), _shape_tuple(shape), _memory_order(order))
        return _ember.wrap(native)
    # The hot path of every allocation: no argument handling beyond what is needed.
    return _ember.wrap(_ember.empty(current_device_id(), _shape_tuple(shape), _dtypes.name_of(dtype)))


def full(shape, fill_value, dtype=None, order="C", *, device=None):
    """An array filled with ``fill_value`` (dtype inferred from it as NumPy does)."""
    if device is not None:
        return _elsewhere(device, full, shape, fill_value, dtype, order)
    if isinstance(fill_value, _ember.ndarray) or (isinstance(fill_value, np.ndarray) and fill_value.ndim > 0):
        # An array value is broadcast into place on the device, as CuPy does (no read-back).
        out = empty(shape, fill_value.dtype if dtype is None else dtype, order=order)
        out[...] = fill_value
        return out
    d = _dtypes.normalize(dtype) if dtype is not None else _dtypes.of_host(fill_value)
    if _dtypes.is_opaque(d):
        # No kernel writes an opaque dtype: NumPy makes one element, copied into place.
        out = empty(shape, d, order=order)
        out[...] = asarray(np.full((), fill_value, dtype=d))
        return out
    value = _scalar(fill_value)
    if type(value) is int and d.kind in "iub":
        np.full((), value, dtype=d)  # raises NumPy's OverflowError for a value out of range
    name, device = _dtypes.name_of(d), current_device_id()
    return _ember.wrap(_in_order(lambda s: _ember.full(device, list(s), name, value), _shape_tuple(shape),
                           _memory_order(order)))


def zeros(shape, dtype=float, order="C", *, device=None):
    return full(shape, 0, dtype=_dtypes.normalize(dtype), order=order, device=device)


def ones(shape, dtype=float, order="C", *, device=None):
    return full(shape, 1, dtype=_dtypes.normalize(dtype), order=order, device=device)


def _like(a, dtype, shape, order):
    """The shape, dtype and layout of an array like ``a``: 'C', 'F', or for 'K' of an array in
    neither order, its axes slowest first (NumPy's stable sort by decreasing |stride|)."""
    like = a if isinstance(a, _ember.ndarray) else None
    if like is None:  # a list, a NumPy array, a scalar: its shape and dtype as NumPy reads them
        a = np.asarray(a)
    shape = a.shape if shape is None else _shape_tuple(shape)
    dtype = a.dtype if dtype is None else dtype
    # 'K' follows the prototype's layout only for a shape of its dimensions (NumPy: else C).
    other_ndim = order in ("K", "k") and like is not None and len(shape) != like.ndim
    layout = "C" if other_ndim else _memory_order(order, like)
    keep = order in ("K", "k") and like is not None and len(shape) == like.ndim > 1
    if keep and not (like.flags.c_contiguous or like.flags.f_contiguous):
        layout = tuple(sorted(range(like.ndim), key=lambda k: -abs(like.strides[k])))
    return shape, dtype, layout


def _new_like(shape, dtype, layout, fill=None):
    """A new array of ``shape`` laid out as ``layout`` (see ``_like``), filled if asked."""
    if isinstance(layout, str):
        if fill is None:
            return empty(shape, dtype, order=layout)
        return full(shape, fill, dtype, order=layout)
    permuted = tuple(shape[k] for k in layout)
    base = empty(permuted, dtype) if fill is None else full(permuted, fill, dtype)
    strides = [0] * len(shape)
    for j, k in enumerate(layout):
        strides[k] = base.strides[j]
    return _ember.wrap(base._a.view(list(shape), strides, 0, base._a.dtype))


def empty_like(a, dtype=None, order="K", subok=None, shape=None, *, device=None):
    _no_subclass(subok)
    return _on_device_of(a, device, lambda: _new_like(*_like(a, dtype, shape, order)))


def zeros_like(a, dtype=None, order="K", subok=None, shape=None, *, device=None):
    _no_subclass(subok)
    return _on_device_of(a, device, lambda: _new_like(*_like(a, dtype, shape, order), fill=0))


def ones_like(a, dtype=None, order="K", subok=None, shape=None, *, device=None):
    _no_subclass(subok)
    return _on_device_of(a, device, lambda: _new_like(*_like(a, dtype, shape, order), fill=1))


def full_like(a, fill_value, dtype=None, order="K", subok=None, shape=None, *, device=None):
    _no_subclass(subok)
    return _on_device_of(a, device, lambda: _new_like(*_like(a, dtype, shape, order), fill=fill_value))


def _no_subclass(subok):
    if subok:
        raise TypeError("subok=True is not supported: ember.ndarray has no subclasses")


def _on_device_of(a, device, make):
    """A new array ``like`` ``a``: on ``device`` if given, else on ``a``'s device (the Array
    API's rule), else the current one."""
    if device is None and isinstance(a, _ember.ndarray) and a._a.device != current_device_id():
        device = a._a.device
    return make() if device is None else _elsewhere(device, make)


def arange(start, stop=None, step=1, dtype=None, *, device=None):
    """Evenly spaced values in ``[start, stop)``, as ``numpy.arange``."""
    if device is not None:
        return _elsewhere(device, arange, start, stop, step, dtype)
    if stop is None:
        start, stop = 0, start
    if step is None:  # numpy.arange(0, 10, None) steps by 1
        step = 1
    start, stop, step = _scalar(start), _scalar(stop), _scalar(step)
    if step == 0:
        raise ZeroDivisionError("division by zero: arange's step must not be 0")
    values = (start, stop, step)
    if any(isinstance(v, complex) for v in values):
        raise TypeError("arange does not take complex bounds; use linspace")
    inferred = np.result_type(*(np.asarray(v) for v in values))
    d = _dtypes.normalize(dtype) if dtype is not None else _dtypes.normalize(inferred)
    n = max(0, math.ceil((stop - start) / step))
    if d == np.bool_ and n > 2:
        raise TypeError("arange() is only supported for booleans when the result has at most length 2.")
    # NumPy's fill: the first two values in the dtype, then first + i * (second - first)
    # computed there (so arange(0.5, 5, 0.75, dtype=int8) counts 0, 1, 2, ...).
    if d.kind in "iub" and isinstance(start, int) and isinstance(step, int):
        first, second = start, start + step
    else:
        with np.errstate(all="ignore"):
            first, second = (v.item() for v in np.array([start, start + step]).astype(d))
    return _ember.wrap(_ember.arange(current_device_id(), first, second, n, _dtypes.name_of(d)))


def _bound(value):
    """A scalar bound as NumPy sees it: NumPy scalars and 0-d arrays keep their dtype."""
    if isinstance(value, _ember.ndarray):
        value = value.get()
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    if isinstance(value, (bool, int, float, complex, np.generic)):
        return value
    raise TypeError(f"ember takes scalar bounds here, not {type(value).__name__}")


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop``, as ``numpy.linspace``: the
    same values to the bit (``arange(num) * step + start`` in NumPy's dtype, each operation
    rounded on its own). Scalar bounds (``_ranges`` takes array bounds)."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    if axis not in (0, -1):
        raise np.exceptions.AxisError(axis, 1)
    start, stop = _bound(start), _bound(stop)
    div = (num - 1) if endpoint else num
    # NumPy's scalars, computed by NumPy: the dtype it computes in, delta, step.
    dt = np.result_type(start, stop, 1.0)
    d = _dtypes.normalize(dtype) if dtype is not None else dt
    if d.kind in "iu" and dt.kind == "c":
        raise TypeError("linspace cannot floor complex values into an integer dtype (NumPy's floor takes no complex)")
    _dtypes.warn_complex_to_real(dt, d)
    delta = np.subtract(stop, start, dtype=dt)
    divisor, step = None, float("nan")
    if div > 0:
        step = delta / div
        scale = step
        if step == 0:  # underflow (denormal steps): NumPy divides by div, then multiplies by delta
            with np.errstate(over="ignore"):
                divisor, scale = np.asarray(div).astype(dt).item(), delta
    else:
        scale = delta
    host = [np.asarray(v).astype(dt).item() for v in (start, stop, scale)]
    out = _ember.wrap(_ember.linspace(current_device_id(), num, bool(endpoint), *host, divisor, dt.name,
                                _dtypes.name_of(d)))
    return (out, step) if retstep else out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop, num, endpoint)``, as ``numpy.logspace`` computes it; an
    array ``base`` gives one column per base."""
    if axis not in (0, -1):
        raise np.exceptions.AxisError(axis, 1)
    y = linspace(start, stop, num=num, endpoint=endpoint)
    if not isinstance(base, (float, int)) and np.ndim(base):
        base = asarray(base)
        y = y.reshape((-1,) + (1,) * base.ndim)
        base = base.reshape((1,) + base.shape)
    out = base ** y
    return out if dtype is None else out.astype(dtype, copy=False)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``num`` values from ``start`` to ``stop`` in geometric progression, as
    ``numpy.geomspace`` computes them (the ends exact; negative and complex bounds too)."""
    if axis != 0:
        raise ValueError("geomspace with scalar bounds only has axis 0")
    start, stop = np.asanyarray(_bound(start)), np.asanyarray(_bound(stop))
    if start == 0 or stop == 0:
        raise ValueError("Geometric sequence cannot include zero")
    dt = np.result_type(start, stop, float(num), np.zeros((), dtype))
    dtype = dt if dtype is None else np.dtype(dtype)
    # NumPy's host steps: rotate start onto the positive reals, take logarithms.
    start, stop = start.astype(dt, copy=True), stop.astype(dt, copy=True)
    out_sign = np.sign(start)
    start /= out_sign
    stop = stop / out_sign
    result = logspace(np.log10(start), np.log10(stop), num=num, endpoint=endpoint, base=10.0, dtype=dt)
    if num > 0:
        result[0] = start.item()
        if num > 1 and endpoint:
            result[-1] = stop.item()
    result *= out_sign
    return result.astype(dtype, copy=False)


def _on_device(x) -> bool:
    """An ember array, or another library's device array ember can view."""
    return isinstance(x, _ember.ndarray) or hasattr(x, "__cuda_array_interface__") or hasattr(
        x, "__cupy_get_ndarray__")


def _holds_device_array(seq) -> bool:
    return any(_on_device(x) or (isinstance(x, list | tuple) and _holds_device_array(x)) for x in seq)


def _join_nested(seq, dtype):
    """Nested lists holding ember arrays (and scalars) as one new array, assembled on the
    device; the dtype is NumPy's for the same nesting of NumPy arrays."""
    leaves = []

    def shape_of(x, index, lengths=()):
        # A sublist of host data only is one leaf: one upload, not one per number.
        if isinstance(x, list | tuple) and _holds_device_array(x):
            shapes = [shape_of(item, index + (i,), lengths + (len(x),)) for i, item in enumerate(x)]
            if len(set(shapes)) > 1:
                raise ValueError(
                    "setting an array element with a sequence. The requested array has an inhomogeneous shape "
                    f"after {len(index) + 1} dimensions. The detected shape was {lengths + (len(x),)} "
                    "+ inhomogeneous part."
                )
            return (len(x),) + (shapes[0] if shapes else ())
        view = _foreign_view(x) if not isinstance(x, _ember.ndarray) and _on_device(x) else None
        x = x if view is None else view
        leaves.append((index, x))
        return tuple(x.shape) if isinstance(x, _ember.ndarray) else np.shape(x)

    shape = shape_of(seq, ())
    if dtype is None:
        dtype = np.result_type(*(x.dtype if isinstance(x, _ember.ndarray) else np.asarray(x).dtype for _, x in leaves))
    dtype = _dtypes.normalize(dtype)
    out = _ember.wrap(_ember.empty(current_device_id(), list(shape), _dtypes.name_of(dtype)))
    for index, x in leaves:
        value = x if isinstance(x, _ember.ndarray) else _from_host(np.asarray(x, dtype=dtype))
        _ember.setitem(out, index, value)
    return out


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, *, blocking=False):
    """An array holding a copy of ``obj`` (an ember array, a NumPy array, nested lists, a
    scalar, or an object with ``__cuda_array_interface__`` or ``__dlpack__``); ``copy=False``
    gives ``obj`` itself or raises ``ValueError`` (NumPy 2's rule). ``blocking`` is CuPy's:
    ember's copies from the host have finished when this returns either way."""
    if copy is False:
        out = _without_copy(obj, dtype, order if order in ("C", "c", "F", "f") else None)
        return out if ndmin <= out.ndim else array(out, copy=None, ndmin=ndmin)
    if isinstance(obj, _ember.ndarray):
        out = obj.astype(dtype if dtype is not None else obj.dtype, copy=copy)
    elif isinstance(obj, list | tuple) and _holds_device_array(obj):
        out = _join_nested(obj, dtype)
    else:
        view = _foreign_view(obj)
        if view is not None:
            out = view.astype(dtype if dtype is not None else view.dtype, copy=copy)
        else:
            if dtype is not None and not isinstance(obj, np.ndarray):
                # Python values convert straight to the dtype, as NumPy converts them (an int
                # out of range or a complex into a real dtype raises).
                host = np.asarray(obj, dtype=_dtypes.normalize(dtype))
            else:
                host = np.asarray(obj)
                if not host.dtype.isnative:  # byte-swapped host data: swapped on the host, as CuPy
                    host = host.astype(host.dtype.newbyteorder("="))
            d = _dtypes.normalize(dtype) if dtype is not None else _dtypes.normalize(host.dtype)
            out = _from_host(np.asarray(host, dtype=d))
    like = obj if isinstance(obj, _ember.ndarray) or isinstance(obj, np.ndarray) else None
    if out.ndim > 1 and _memory_order(order, like) == "F":
        if not out.flags.f_contiguous:
            out = out.copy(order="F")
        elif out is not obj:
            # Also C-contiguous (one axis longer than 1): NumPy gives the new array Fortran's
            # strides, which differ on the axes of length 1.
            f_strides = _c_strides(out.shape[::-1], out.itemsize)[::-1]
            out = _ember.wrap(out._a.view(list(out.shape), f_strides, out._a.offset, out._a.dtype))
    if ndmin > out.ndim:
        out = out[(None,) * (ndmin - out.ndim)]  # a view, whose base is ``out``'s
    return out


def asarray(obj, dtype=None, order=None, *, device=None, copy=None, blocking=False):
    """``obj`` as an ember array: itself when it already is one (of that dtype), a view of
    device memory from ``__cuda_array_interface__``/``__dlpack__`` objects, else a copy.
    ``copy=True`` always copies; ``copy=False`` raises ``ValueError`` where a copy is needed
    (the Array API's and NumPy 2's rule). ``blocking`` is CuPy's: copies from the host have
    finished when this returns either way."""
    if device is not None:
        if isinstance(obj, _ember.ndarray) and obj._a.device != Device(device).id:
            return asarray(obj.to_device(device), dtype, order, copy=False if copy is False else None)
        return _elsewhere(device, asarray, obj, dtype, order, copy=copy)
    if copy is True:
        return array(obj, dtype=dtype, copy=True, order="K" if order is None else order)
    if copy is False:
        return _without_copy(obj, dtype, order)
    if isinstance(obj, _ember.ndarray):
        out = obj if dtype is None or _dtypes.normalize(dtype) == obj.dtype else obj.astype(dtype)
        if order in ("F", "f") and out.ndim > 1 and not out.flags.f_contiguous:
            out = out.copy(order="F")
        return out
    return array(obj, dtype=dtype, copy=None, order="K" if order is None else order)


def _without_copy(obj, dtype, order):
    """``asarray(..., copy=False)``: ``obj`` itself or a view of its device memory."""
    view = obj if isinstance(obj, _ember.ndarray) else _foreign_view(obj)
    fits = view is not None and (dtype is None or _dtypes.normalize(dtype) == view.dtype)
    if fits and order in ("F", "f") and view.ndim > 1:
        fits = view.flags.f_contiguous
    if fits and order in ("C", "c") and view.ndim > 1:
        fits = view.flags.c_contiguous
    if not fits:
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    return view


def ascontiguousarray(a, dtype=None):
    """``a`` in C order (itself when it already is), at least 1-d as in NumPy."""
    a = asarray(a, dtype=dtype)
    if a.ndim == 0:
        a = a.reshape(1)
    return a if a.flags.c_contiguous else a.copy()


def asnumpy(a, stream=None, order="C", out=None, *, blocking=True) -> np.ndarray:
    """A NumPy array from ``a``: a copy from the device for ember arrays and other libraries'
    device arrays (``__cuda_array_interface__``), as CuPy's."""
    if not isinstance(a, _ember.ndarray) and hasattr(a, "__cuda_array_interface__"):
        a = asarray(a)
    if isinstance(a, _ember.ndarray):
        return a.get(stream=stream, order=order, out=out, blocking=blocking)
    result = np.asarray(a, order=order)
    if out is not None:
        out[...] = result
        return out
    return result
