"""Structured and void arrays: NumPy's field access, field-by-field casts and assignments, and
``==``/``!=``, composed of views and numeric kernels. The array core holds these dtypes as
opaque bytes (ember-core's ``Opaque``); a field of a numeric dtype is an ordinary strided view
of the same memory, so everything here is views plus the kernels numeric dtypes already have.

Functions return native arrays for views (``_ndarray`` wraps them, keeping ``base``) and
ember arrays for results."""

from __future__ import annotations

import numpy as np

from . import _dtypes, _ember
from ._creation import _c_strides, asarray, empty


def involved(a, b) -> bool:
    """Whether ``a`` or ``b`` is a structured or void array or scalar (``==`` compares them here)."""
    return any(getattr(getattr(x, "dtype", None), "type", None) is np.void for x in (a, b))


def is_field_index(index) -> bool:
    """``a['x']`` or ``a[['x', 'y']]``: NumPy's field indices."""
    if isinstance(index, str):
        return True
    return isinstance(index, list) and bool(index) and all(isinstance(n, str) for n in index)


def field_view(a, index):
    """The native view of field ``index`` (a name) or fields (a list of names) of ``a``."""
    if a.dtype.names is None:
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays "
            "are valid indices"
        )
    if isinstance(index, str):
        return _one_field(a, index)
    return _some_fields(a, index)


def _one_field(a, name: str):
    fields = a.dtype.fields
    if name not in fields:
        raise ValueError(f"no field of name {name}")
    dtype, offset = fields[name][:2]
    shape, strides = list(a.shape), list(a.strides)
    if dtype.subdtype is not None:  # a sub-array field: its axes follow the array's
        dtype, sub = dtype.subdtype
        shape += list(sub)
        strides += _c_strides(sub, dtype.itemsize)
    _check_alignment(a, dtype, offset, strides)
    return a._a.view(shape, strides, a._a.offset + offset, _dtypes.name_of(dtype))


def _some_fields(a, names: list[str]):
    fields = a.dtype.fields
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate field of name {next(n for n in names if names.count(n) > 1)!r}")
    for n in names:
        if n not in fields:
            raise KeyError(n)
    # NumPy 2: the same memory, with only the named fields at their offsets.
    dtype = np.dtype({
        "names": names,
        "formats": [fields[n][0] for n in names],
        "offsets": [fields[n][1] for n in names],
        "itemsize": a.dtype.itemsize,
    })
    return a._a.view(list(a.shape), list(a.strides), a._a.offset, _dtypes.name_of(dtype))


def _check_alignment(a, dtype: np.dtype, offset: int, strides: list[int]) -> None:
    """GPUs load a number only from an address that is a multiple of its size: a field that
    NumPy packs off that boundary (``'?,f8'``) is refused, as CuPy refuses it."""
    if _dtypes.is_opaque(dtype) or a.size == 0:
        return
    align = dtype.itemsize
    if (a._a.address + offset) % align or any(s % align for s in strides):
        raise ValueError(
            f"the result array with dtype {dtype} (field at byte {offset} of {a.dtype}) is not sufficiently "
            f"aligned for GPU kernels (a multiple of {align} bytes); lay the fields out aligned, e.g. "
            f"np.dtype({a.dtype.descr!r}, align=True)"
        )


def _field_arrays(a, wrap):
    """The values of each field of ``a``: views, or for a field packed off its alignment an
    aligned copy of its bytes."""
    return [_field_values(a, n, wrap) for n in a.dtype.names]


def _field_values(a, name: str, wrap):
    try:
        return wrap(_one_field(a, name), a)
    except ValueError:
        dtype, offset = a.dtype.fields[name][:2]
        base, sub = dtype.subdtype or (dtype, ())
        out = empty(a.shape + sub, base)
        _ember.setitem(wrap(_as_bytes(out, 0, base), out), Ellipsis, wrap(_as_bytes(a, offset, dtype), a))
        return out


def _store_field(dst, name: str, value, wrap) -> None:
    """``dst[name][...] = value``, through an aligned copy when the field is packed off its
    alignment (its bytes then move as opaque words)."""
    dtype, offset = dst.dtype.fields[name][:2]
    sub = dtype.subdtype[1] if dtype.subdtype else ()
    if sub and getattr(value, "ndim", 0) <= dst.ndim:  # one value for each whole sub-array
        value = value.reshape(value.shape + (1,) * len(sub))
    try:
        target = wrap(_one_field(dst, name), dst)
    except ValueError:
        base = dtype.subdtype[0] if sub else dtype
        staged = empty(dst.shape + sub, base)
        staged[...] = value
        _ember.setitem(wrap(_as_bytes(dst, offset, dtype), dst), Ellipsis, wrap(_as_bytes(staged, 0, base), staged))
        return
    if target.dtype.names is not None:
        assign(target, value, wrap)
    else:
        target[...] = value


def _as_bytes(a, offset: int, dtype: np.dtype):
    """The native view of the ``dtype`` field at ``offset`` of ``a`` as opaque bytes (any
    alignment: bytes move as the widest word that fits)."""
    shape, strides = list(a.shape), list(a.strides)
    if dtype.subdtype is not None:
        base, sub = dtype.subdtype
        shape += list(sub)
        strides += _c_strides(sub, base.itemsize)
        dtype = base
    return a._a.view(shape, strides, a._a.offset + offset, _dtypes.name_of(np.dtype(f"V{dtype.itemsize}")))




def cast(src, dtype: np.dtype, wrap):
    """``src`` (an ember array) as a new array of structured ``dtype``: fields by position,
    each cast as NumPy casts it (``astype`` between structured dtypes)."""
    out = empty(src.shape, dtype)
    assign(out, src, wrap)
    return out


def assign(dst, src, wrap) -> None:
    """``dst[...] = src`` for structured ``dst``: the same dtype byte for byte, another
    structured dtype field by field (by position, as NumPy), a host value through NumPy."""
    if not isinstance(src, _ember.ndarray):
        src = asarray(np.asarray(src, dtype=dst.dtype))
    if src.dtype == dst.dtype:
        _ember.setitem(dst, Ellipsis, src)
        return
    if src.dtype.names is None or dst.dtype.names is None:
        raise TypeError(f"Cannot cast array data from {src.dtype!r} to {dst.dtype!r}: only structured dtypes "
                        "with as many fields convert into each other")
    if len(src.dtype.names) != len(dst.dtype.names):
        raise ValueError(f"structures must have the same number of fields to be cast ({src.dtype} into {dst.dtype})")
    for name, s in zip(dst.dtype.names, _field_arrays(src, wrap), strict=True):
        _store_field(dst, name, s, wrap)


def compare(a, b, name: str, wrap):
    """``a == b`` (``name`` 'equal') or ``a != b`` ('not_equal') with a structured or void
    operand: NumPy's rule, all fields equal (by position, names alike), or all bytes equal."""
    a, b = (x if isinstance(x, _ember.ndarray) else asarray(np.asarray(x)) for x in (a, b))
    equal = _equal(a, b, wrap)
    return equal if name == "equal" else ~equal


def _equal(a, b, wrap):
    da, db = a.dtype, b.dtype
    if da.names is None and db.names is None:  # unstructured void: the bytes
        if da != db:
            raise TypeError(f"void arrays compare only with the same dtype, not {da} and {db}")
        return (_bytes(a) == _bytes(b)).all(axis=-1)
    if da.names is None or db.names is None or da.names != db.names:
        # NumPy's promotion refuses these (its DTypePromotionError is a TypeError).
        np.result_type(da, db)
        raise TypeError(f"structured arrays of dtypes {da} and {db} have no common dtype to compare in")
    ndim = len(np.broadcast_shapes(a.shape, b.shape))
    result = None
    for fa, fb in zip(_field_arrays(a, wrap), _field_arrays(b, wrap), strict=True):
        same = _equal(fa, fb, wrap) if fa.dtype.names is not None or fa.dtype.kind == "V" else fa == fb
        if same.ndim > ndim:  # a sub-array field: every element equal
            same = same.all(axis=tuple(range(ndim, same.ndim)))
        result = same if result is None else result & same
    return result


def _bytes(a):
    """``a``'s elements as rows of bytes (uint8, one more axis)."""
    flat = a.copy().reshape(-1)
    return flat.view("u1").reshape(a.shape + (a.itemsize,))


def make_aligned_dtype(dtype) -> np.dtype:
    """CuPy's ``make_aligned_dtype``: structured ``dtype`` with every field at a multiple of
    what a GPU loads it at (a number at its size, complex included; a sub-array at its
    element's; a nested structure at its widest field's; void bytes anywhere), and the
    itemsize a multiple of the widest, so arrays of it can be computed on field by field."""
    d = np.dtype(dtype)
    if d.names is None:
        raise ValueError(f"make_aligned_dtype only supports structured dtypes, got {d}")
    return _aligned(d)[0]


def _aligned(d: np.dtype) -> tuple[np.dtype, int]:
    if d.subdtype is not None:
        base, shape = d.subdtype
        inner, align = _aligned(base)
        return np.dtype((inner, shape)), align
    if d.names is None:
        return d, 1 if d.kind == "V" else d.itemsize
    formats, offsets, end, widest = [], [], 0, 1
    for name in d.names:
        field, align = _aligned(d.fields[name][0])
        start = -(-end // align) * align
        formats.append(field)
        offsets.append(start)
        end, widest = start + field.itemsize, max(widest, align)
    layout = {"names": list(d.names), "formats": formats, "offsets": offsets, "itemsize": -(-end // widest) * widest}
    return np.dtype(layout), widest
