"""Shape functions, as NumPy 2 spells them (``reshape ravel transpose moveaxis swapaxes squeeze
expand_dims broadcast_to broadcast_arrays broadcast_shapes concatenate stack vstack hstack dstack
split array_split copy asfortranarray atleast_1d/2d/3d``).

The semantics are Rust's (``ember_array::shape``): NumPy's reshape rule, broadcasting, joins
and splits, with NumPy's errors. Views share the buffer (``base`` is the owner of the memory);
copies are made on the device, never through the host.
"""

from __future__ import annotations

import operator

import numpy as np

from . import _dtypes, _ember
from ._creation import asarray


def _as_array(a):
    return a if isinstance(a, _ember.ndarray) else asarray(a)


def _dtype_name(dtype):
    return None if dtype is None else _dtypes.name_of(dtype)


# --- copies -------------------------------------------------------------------------------------
def copy(a, order="K"):
    """A copy on the device laid out in ``order`` ('C', 'F', 'A' or 'K': like ``a``)."""
    return _ember.copy_in_order(_as_array(a), order)


def asfortranarray(a, dtype=None):
    """``a`` in Fortran order (itself when it already is), at least 1-d as in NumPy."""
    a = asarray(a, dtype=dtype)
    if a.ndim == 0:
        a = a.reshape(1)
    return a if a._a.f_contiguous else _ember.copy_in_order(a, "F")


# --- reshape ------------------------------------------------------------------------------------
def reshape(a, shape, order="C", *, copy=None):
    """``a`` with a new shape: a view whenever NumPy gives one, else a copy on the device.
    ``copy=True`` always copies, ``copy=False`` raises instead of copying."""
    return _ember.reshape(_as_array(a), (shape,), order, copy)


def ravel(a, order="C"):
    """``a`` as 1-d: a view when ``a`` is contiguous in ``order``, else a copy on the device.
    'K' reads the elements in memory order."""
    return _ember.ravel(_as_array(a), order)


# --- axes ---------------------------------------------------------------------------------------
def transpose(a, axes=None):
    """A view with the axes permuted (reversed by default)."""
    return _ember.transpose(_as_array(a), () if axes is None else (axes,))


def moveaxis(a, source, destination):
    """A view with the axes ``source`` moved to positions ``destination``."""
    return _ember.moveaxis(_as_array(a), source, destination)


def swapaxes(a, axis1, axis2):
    """A view with two axes exchanged."""
    return _ember.swapaxes(_as_array(a), axis1, axis2)


def squeeze(a, axis=None):
    """A view without the length-1 axes (all, or those in ``axis``)."""
    return _ember.squeeze(_as_array(a), axis)


def expand_dims(a, axis):
    """A view with length-1 axes inserted at the positions ``axis`` of the result."""
    return _ember.expand_dims(_as_array(a), axis)


# --- broadcasting -------------------------------------------------------------------------------
def broadcast_shapes(*shapes) -> tuple[int, ...]:
    """The shape that arrays of ``shapes`` broadcast to (NumPy's rules and messages)."""
    return tuple(_ember.broadcast_shapes(*shapes))


def broadcast_to(array, shape):
    """A view of ``array`` with ``shape``: repeated axes have stride 0. Like NumPy's result it
    must not be written to (one memory location stands for many elements)."""
    return _ember.broadcast_to(_as_array(array), shape)


def broadcast_arrays(*args) -> tuple:
    """Views of ``args`` broadcast to one shape."""
    arrays = [_as_array(a) for a in args]
    shape = broadcast_shapes(*(a.shape for a in arrays))
    return tuple(a if a.shape == shape else broadcast_to(a, shape) for a in arrays)


# --- joining ------------------------------------------------------------------------------------
def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """The arrays joined along an existing ``axis`` (flattened first when ``axis`` is None),
    copied on the device into one array of their promoted dtype."""
    arrays = [_as_array(a) for a in arrays]
    _warn_complex_to_real(arrays, dtype if dtype is not None else getattr(out, "dtype", None), casting)
    return _ember.concatenate(arrays, None if axis is None else operator.index(axis), out, _dtype_name(dtype),
                              casting)


def _warn_complex_to_real(arrays, dtype, casting) -> None:
    """NumPy's ComplexWarning when complex inputs are written into a real dtype, which only
    ``casting='unsafe'`` allows (under the other rules the join raises NumPy's TypeError)."""
    if dtype is None or casting != "unsafe":
        return
    complex_input = next((a.dtype for a in arrays if a.dtype.kind == "c"), None)
    if complex_input is not None:
        _dtypes.warn_complex_to_real(complex_input, np.dtype(dtype), stacklevel=4)


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Arrays of one shape joined along a new ``axis``."""
    arrays = [_as_array(a) for a in arrays]
    _warn_complex_to_real(arrays, dtype if dtype is not None else getattr(out, "dtype", None), casting)
    return _ember.stack(arrays, operator.index(axis), out, _dtype_name(dtype), casting)


def vstack(tup, *, dtype=None, casting="same_kind"):
    """Arrays joined row-wise (1-d arrays become rows)."""
    return concatenate([_atleast(a, 2) for a in tup], 0, dtype=dtype, casting=casting)


def hstack(tup, *, dtype=None, casting="same_kind"):
    """Arrays joined column-wise (along axis 0 for 1-d arrays)."""
    arrays = [_atleast(a, 1) for a in tup]
    axis = 0 if arrays and arrays[0].ndim == 1 else 1
    return concatenate(arrays, axis, dtype=dtype, casting=casting)


def dstack(tup):
    """Arrays joined along the third axis."""
    return concatenate([_atleast(a, 3) for a in tup], 2)


# --- splitting ----------------------------------------------------------------------------------
def array_split(ary, indices_or_sections, axis=0) -> list:
    """Views of ``ary`` cut along ``axis`` at the given indices, or into that many nearly equal
    sections (the first ones one longer)."""
    return _ember.split(_as_array(ary), indices_or_sections, operator.index(axis), False)


def split(ary, indices_or_sections, axis=0) -> list:
    """Like :func:`array_split`, but ``sections`` must divide the axis evenly."""
    ary = _as_array(ary)
    if not hasattr(indices_or_sections, "__len__") and int(indices_or_sections) == 0:
        ary.shape[axis]  # NumPy reads the axis, then takes the length modulo the sections
        raise ZeroDivisionError("integer modulo by zero")
    return _ember.split(ary, indices_or_sections, operator.index(axis), True)


# --- at least n axes ----------------------------------------------------------------------------
def _atleast(a, ndim: int):
    """A view of ``a`` with at least ``ndim`` axes, placed as NumPy's ``atleast_nd`` does:
    (N,) becomes (1, N) and (1, N, 1), (M, N) becomes (M, N, 1)."""
    a = _as_array(a)
    if a.ndim >= ndim:
        return a
    if a.ndim == 0:
        return a.reshape((1,) * ndim)
    if a.ndim == 1:
        return a[None] if ndim == 2 else a[None, :, None]
    return a[:, :, None]


def _one_or_tuple(arrays):
    return arrays[0] if len(arrays) == 1 else tuple(arrays)


def atleast_1d(*arys):
    """Each array with at least one axis (a view; a tuple of them for several arrays)."""
    return _one_or_tuple([_atleast(a, 1) for a in arys])


def atleast_2d(*arys):
    """Each array with at least two axes: 1-d arrays become one row."""
    return _one_or_tuple([_atleast(a, 2) for a in arys])


def atleast_3d(*arys):
    """Each array with at least three axes: (N,) becomes (1, N, 1), (M, N) becomes (M, N, 1)."""
    return _one_or_tuple([_atleast(a, 3) for a in arys])
