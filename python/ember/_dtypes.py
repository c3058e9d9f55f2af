"""ember's dtypes are NumPy's (bfloat16 is ml_dtypes', the one NumPy code uses, as JAX does):
this maps any dtype-like to a supported ``numpy.dtype``."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np

from . import _ember

#: The dtypes ember arrays can hold, by name: ember-core's dtype table.
SUPPORTED = tuple(_ember.dtype_names())
_SUPPORTED = frozenset(SUPPORTED)


def _numpy_dtype(name: str) -> np.dtype:
    """NumPy's dtype of that name, or ml_dtypes' for the ones NumPy lacks (bfloat16)."""
    try:
        return np.dtype(name)
    except TypeError:
        return np.dtype(getattr(ml_dtypes, name))


#: ``ember.bfloat16``: the scalar type, as ``ember.float16`` is NumPy's.
bfloat16 = ml_dtypes.bfloat16


# dtype-like -> numpy.dtype: np.dtype() costs microseconds, a dict lookup nanoseconds.
_known: dict = {}


def normalize(dtype, default="float64") -> np.dtype:
    """A supported ``numpy.dtype`` for ``dtype`` (``None`` gives ``default``)."""
    if dtype is None:
        dtype = default
    try:
        return _known[dtype]
    except (KeyError, TypeError):
        pass
    d = _check(dtype)
    try:
        _known[dtype] = d
    except TypeError:  # an unhashable dtype-like: not cached
        pass
    return d


def name_of(dtype, default="float64") -> str:
    """The name of the supported dtype for ``dtype``, as the native module takes it. Cached:
    ``numpy.dtype.name`` is computed in Python and costs microseconds."""
    try:
        return _names[dtype]
    except (KeyError, TypeError):
        pass
    name = _name_by_dtype[normalize(dtype, default)]
    try:
        _names[dtype] = name
    except TypeError:
        pass
    return name


_names: dict = {}


def from_name(name: str) -> np.dtype:
    """The ``numpy.dtype`` of a supported dtype name (as the native module reports it)."""
    return _by_name[name]


def _check(dtype) -> np.dtype:
    if isinstance(dtype, str) and dtype in _by_name:  # names NumPy lacks ("bfloat16")
        return _by_name[dtype]
    try:
        d = np.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"{dtype!r} is not a dtype ember understands: {e}") from None
    if d.byteorder == ">":
        raise ValueError(
            f"Unsupported dtype {d}: ember arrays hold data in the machine's byte-order (little-endian); "
            f"use {d.newbyteorder('=')} (arrays from NumPy are swapped on the way)"
        )
    if d.name in _SUPPORTED:
        return d
    if d.kind == "V" and d.type is np.record:
        # A recarray's dtype holds what a structured one does: arrays keep the plain one.
        d = np.dtype((np.void, d))
    if is_opaque(d):
        return _opaque(d)
    # CuPy's class for a dtype an array cannot hold.
    raise ValueError(
        f"Unsupported dtype {d}: ember arrays cannot hold it; they hold {', '.join(SUPPORTED)}, "
        "and datetime64, timedelta64, structured and void dtypes as opaque containers"
    )


def is_opaque(d: np.dtype) -> bool:
    """True for the dtypes ember arrays hold but nothing computes on (ember-core's ``Opaque``):
    NumPy's datetime64, timedelta64, structured and void dtypes, as CuPy holds them."""
    return d.kind in "mM" or (d.kind == "V" and d.type is np.void)


def _opaque(d: np.dtype) -> np.dtype:
    """Registers opaque dtype ``d`` with the native module (once) under NumPy's name for it."""
    if d.hasobject:
        raise ValueError(f"Unsupported dtype {d}: it holds Python objects, which device memory cannot")
    if d.subdtype is not None:
        raise ValueError(
            f"Unsupported dtype {d}: a sub-array dtype makes an array of shape {d.shape} per element; "
            f"add those axes to the shape instead (dtype {d.subdtype[0]})"
        )
    name = str(d)
    if d.fields is not None and d.itemsize > 0:
        _ember.register_record(name, d.str, d.itemsize, d.alignment, _fields(d))
    else:
        _ember.register_opaque(name, d.str, d.itemsize)
    _by_name[name] = d
    _name_by_dtype[d] = name
    return d


def _fields(d: np.dtype) -> list:
    """The fields of structured dtype ``d`` as the native module registers them: (name,
    offset, dtype name, sub-array shape), nested structured dtypes registered first."""
    out = []
    for name in d.names:
        sub, offset = d.fields[name][:2]
        base, shape = (sub.base, sub.shape) if sub.subdtype is not None else (sub, ())
        if base.fields is not None:
            base = _opaque(np.dtype((np.void, base)) if base.type is np.record else base)
            out.append((name, offset, _name_by_dtype[base], list(shape)))
        elif base.name in _SUPPORTED and base.byteorder != ">":
            out.append((name, offset, base.name, list(shape)))
        else:
            # A field kernels cannot compute on (datetime, bytes, big-endian): left out, so
            # kernels name it unknown; arrays still hold its bytes.
            continue
    return out


def warn_complex_to_real(source: np.dtype, target: np.dtype, stacklevel: int = 3) -> None:
    """NumPy's ComplexWarning for converting complex values into a real dtype (bool takes them
    without one)."""
    if source.kind == "c" and target.kind not in "cb":
        warnings.warn(np.exceptions.ComplexWarning("Casting complex values to real discards the imaginary part"),
                      stacklevel=stacklevel)


def of_host(obj) -> np.dtype:
    """The dtype NumPy gives ``obj`` when converting it, checked to be supported."""
    return normalize(np.asarray(obj).dtype)


_by_name = {name: _numpy_dtype(name) for name in SUPPORTED}
_name_by_dtype = {d: name for name, d in _by_name.items()}
