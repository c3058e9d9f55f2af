"""Shape functions, as NumPy 2 spells them: views where NumPy gives views, copies on the device
where it copies (``reshape ravel flatten transpose moveaxis swapaxes squeeze expand_dims
broadcast_to broadcast_arrays concatenate stack vstack hstack dstack split array_split copy
asfortranarray atleast_1d/2d/3d``).

A view is a new native array over the same buffer (``_a.view``); a copy is ``device_copy``,
the strided casting copy kernel, never a trip through the host.
"""

from __future__ import annotations

import itertools
import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from . import _dtypes, _ember
from ._copy import device_copy
from ._creation import asarray
from ._indexing import shape_str
from ._ndarray import _wrap, _wrap_view, ndarray
from ._runtime import current_device_id

_ORDERS = ("C", "F", "A", "K")


def _empty_native(shape, dtype_name: str):
    return _ember.empty(current_device_id(), list(shape), dtype_name)


def _c_strides(shape, itemsize: int) -> list[int]:
    """NumPy's C strides (a zero-length axis counts as length 1)."""
    strides, step = [], itemsize
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return strides[::-1]


def _as_array(a) -> ndarray:
    return a if isinstance(a, ndarray) else asarray(a)


def _view(a: ndarray, shape, strides) -> ndarray:
    return _wrap_view(a._a.view(list(shape), list(strides), a._a.offset, a._a.dtype), a)


def _check_order(order) -> str:
    order = "C" if order is None else order
    if order not in _ORDERS:
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    return order


def _resolve_order(a: ndarray, order) -> str:
    """'A' as NumPy reads it: Fortran order for arrays that are F- and not C-contiguous."""
    order = _check_order(order)
    if order == "A":
        return "F" if a._a.f_contiguous and not a._a.c_contiguous else "C"
    return order


# --- copies -------------------------------------------------------------------------------------
def copy(a, order="K") -> ndarray:
    """A copy on the device laid out in ``order`` ('C', 'F', 'A' or 'K': like ``a``)."""
    a = _as_array(a)
    return _copy(a, _resolve_order(a, order))


def _copy(a: ndarray, order: str) -> ndarray:
    """A copy of ``a`` in ``order`` ('C', 'F' or 'K'; 'A' already resolved)."""
    itemsize, shape = a.itemsize, a.shape
    if order == "K":
        if a._a.c_contiguous:
            order = "C"
        elif a._a.f_contiguous:
            order = "F"
    if order == "C":
        out = _wrap(_empty_native(shape, a._a.dtype))
    elif order == "F":
        native = _empty_native(shape[::-1], a._a.dtype)
        out = _wrap(native.view(list(shape), list(native.strides)[::-1], 0, a._a.dtype))
    else:
        # NumPy's 'K': the axes keep their order of decreasing |stride|; negative strides flip.
        perm = sorted(range(a.ndim), key=lambda i: -abs(a._a.strides[i]))
        permuted = _c_strides([shape[i] for i in perm], itemsize)
        strides = [0] * a.ndim
        for j, i in enumerate(perm):
            strides[i] = permuted[j]
        native = _empty_native([shape[i] for i in perm], a._a.dtype)
        out = _wrap(native.view(list(shape), strides, 0, a._a.dtype))
    device_copy(a._a, out._a)
    return out


def _ndarray_copy(self, order="C") -> ndarray:
    """A copy on the device in ``order`` ('C' by default, as ``numpy.ndarray.copy``)."""
    return copy(self, order)


def asfortranarray(a, dtype=None) -> ndarray:
    """``a`` in Fortran order (itself when it already is), at least 1-d as in NumPy."""
    a = asarray(a, dtype=dtype)
    if a.ndim == 0:
        a = a.reshape(1)
    return a if a._a.f_contiguous else _copy(a, "F")


# --- reshape ------------------------------------------------------------------------------------
def _new_shape(args) -> list[int]:
    """A shape from ``reshape``'s arguments: an int, a sequence, or several ints."""
    if isinstance(args, (int, np.integer)):
        return [operator.index(args)]
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
        args = args[0]  # reshape((2, 3)) rather than reshape(2, 3)
    return _new_shape(args) if isinstance(args, (int, np.integer)) else [operator.index(d) for d in args]


def _fill_unknown(shape: list[int], size: int) -> list[int]:
    """Replaces the one negative dimension with what makes ``size`` elements (NumPy treats
    every negative length as unknown)."""
    unknown, known = -1, 1
    for i, d in enumerate(shape):
        if d < 0:
            if unknown >= 0:
                raise ValueError("can only specify one unknown dimension")
            unknown = i
        else:
            known *= d
    if unknown >= 0:
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape array of size {size} into shape {shape_str(shape)}")
        shape = shape[:unknown] + [size // known] + shape[unknown + 1:]
    elif known != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {shape_str(shape)}")
    return shape


def _nocopy_strides(old_shape, old_strides, new_shape, itemsize):
    """Strides that show the same elements in C order with ``new_shape``, or None when no view
    can: NumPy's ``_attempt_nocopy_reshape``. Groups of old axes whose sizes multiply to a
    group of new axes must be contiguous among themselves. Only for arrays with elements."""
    olddims = [d for d in old_shape if d != 1]
    oldstrides = [s for d, s in zip(old_shape, old_strides, strict=True) if d != 1]
    newstrides = [0] * len(new_shape)
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < len(new_shape) and oi < len(olddims):
        np_, op = new_shape[ni], olddims[oi]
        while np_ != op:
            if np_ < op:
                np_ *= new_shape[nj]
                nj += 1
            else:
                op *= olddims[oj]
                oj += 1
        for ok in range(oi, oj - 1):
            if oldstrides[ok] != olddims[ok + 1] * oldstrides[ok + 1]:
                return None
        newstrides[nj - 1] = oldstrides[oj - 1]
        for nk in range(nj - 1, ni, -1):
            newstrides[nk - 1] = newstrides[nk] * new_shape[nk]
        ni, nj, oi, oj = nj, nj + 1, oj, oj + 1
    last = newstrides[ni - 1] if ni >= 1 else itemsize
    for nk in range(ni, len(new_shape)):
        newstrides[nk] = last  # trailing unit axes
    return newstrides


def reshape(a, shape, order="C", *, copy=None) -> ndarray:
    """``a`` with a new shape: a view whenever NumPy gives one, else a copy on the device.
    ``copy=True`` always copies, ``copy=False`` raises instead of copying."""
    a = _as_array(a)
    if order == "K":
        raise ValueError("order 'K' is not permitted for reshaping")
    order = _resolve_order(a, order)
    shape = _fill_unknown(_new_shape(shape), a.size)
    if order == "F":
        # Fortran order is C order with every axis list reversed.
        return reshape(a.T, shape[::-1], "C", copy=copy).T
    if copy:
        a = _copy(a, "C")
    itemsize = a.itemsize
    if a._a.c_contiguous:
        strides = _c_strides(shape, itemsize)
    else:
        strides = _nocopy_strides(a._a.shape, a._a.strides, shape, itemsize)
        if strides is None:
            if copy is False:
                raise ValueError("Unable to avoid creating a copy while reshaping.")
            a = _copy(a, "C")
            strides = _c_strides(shape, itemsize)
    return _view(a, shape, strides)


def _ndarray_reshape(self, *shape, order="C", copy=None) -> ndarray:
    """``a.reshape(2, 3)`` or ``a.reshape((2, 3))``: see :func:`reshape`."""
    if not shape:
        raise TypeError("reshape() takes exactly 1 argument (0 given)")
    return reshape(self, shape, order, copy=copy)


def _k_contiguous(a: ndarray) -> bool:
    """Whether the elements fill a block of memory with no gaps, in some order of the axes
    (NumPy's test for a 'K'-order ravel that can be a view)."""
    expected = a.itemsize
    for d, s in sorted(zip(a._a.shape, a._a.strides, strict=True), key=lambda ds: abs(ds[1])):
        if d == 1:
            continue
        if s != expected:
            return False
        expected *= d
    return True


def ravel(a, order="C") -> ndarray:
    """``a`` as 1-d: a view when ``a`` is contiguous in ``order``, else a copy on the device.
    'K' reads the elements in memory order."""
    a = _as_array(a)
    order = _resolve_order(a, order)
    if order == "K":
        if a.size and _k_contiguous(a):
            return _view(a, [a.size], [a.itemsize])
        if not a._a.c_contiguous:
            return ravel(_copy(a, "K"), "K")
        order = "C"
    if (order == "C" and a._a.c_contiguous) or (order == "F" and a._a.f_contiguous):
        return reshape(a, -1, order)
    return reshape(_copy(a, order), -1, order)


def _ndarray_ravel(self, order="C") -> ndarray:
    """See :func:`ravel`."""
    return ravel(self, order)


def _ndarray_flatten(self, order="C") -> ndarray:
    """A 1-d copy of the array (always a copy, as ``numpy.ndarray.flatten``)."""
    order = _resolve_order(self, order)
    return ravel(_copy(self, order), order)


# --- axes ---------------------------------------------------------------------------------------
def transpose(a, axes=None) -> ndarray:
    """A view with the axes permuted (reversed by default)."""
    a = _as_array(a)
    n = a.ndim
    if axes is None:
        axes = range(n - 1, -1, -1)
    elif len(axes) != n:
        raise ValueError("axes don't match array")
    axes = normalize_axis_tuple(tuple(operator.index(x) for x in axes), n, allow_duplicate=True)
    if len(set(axes)) != n:
        raise ValueError("repeated axis in transpose")
    shape, strides = a._a.shape, a._a.strides
    return _view(a, [shape[i] for i in axes], [strides[i] for i in axes])


def _ndarray_transpose(self, *axes) -> ndarray:
    """``a.transpose()``, ``a.transpose(1, 0, 2)`` or ``a.transpose((1, 0, 2))``."""
    if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], (int, np.integer))):
        axes = axes[0]
    return transpose(self, axes if axes else None)


def moveaxis(a, source, destination) -> ndarray:
    """A view with the axes ``source`` moved to positions ``destination``."""
    a = _as_array(a)
    source = normalize_axis_tuple(source, a.ndim, "source")
    destination = normalize_axis_tuple(destination, a.ndim, "destination")
    if len(source) != len(destination):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [n for n in range(a.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source, strict=True)):
        order.insert(dest, src)
    return transpose(a, order)


def swapaxes(a, axis1, axis2) -> ndarray:
    """A view with two axes exchanged."""
    a = _as_array(a)
    axis1 = normalize_axis_index(operator.index(axis1), a.ndim, "axis1")
    axis2 = normalize_axis_index(operator.index(axis2), a.ndim, "axis2")
    axes = list(range(a.ndim))
    axes[axis1], axes[axis2] = axis2, axis1
    return transpose(a, axes)


def squeeze(a, axis=None) -> ndarray:
    """A view without the length-1 axes (all, or those in ``axis``)."""
    a = _as_array(a)
    shape, strides = a._a.shape, a._a.strides
    if axis is None:
        keep = [i for i, d in enumerate(shape) if d != 1]
    elif a.ndim == 0:
        # NumPy lets a 0-d array squeeze its "axis" 0 or -1, and returns it.
        for ax in axis if isinstance(axis, (tuple, list)) else (axis,):
            if ax not in (0, -1):
                raise np.exceptions.AxisError(ax, 0)
        keep = []
    else:
        drop = normalize_axis_tuple(axis, a.ndim)
        if any(shape[i] != 1 for i in drop):
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
        keep = [i for i in range(a.ndim) if i not in drop]
    return _view(a, [shape[i] for i in keep], [strides[i] for i in keep])


def expand_dims(a, axis) -> ndarray:
    """A view with length-1 axes inserted at the positions ``axis`` of the result."""
    a = _as_array(a)
    axis = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    axis = normalize_axis_tuple(axis, a.ndim + len(axis))
    dims = iter(a._a.shape)
    return reshape(a, [1 if i in axis else next(dims) for i in range(a.ndim + len(axis))])


# --- broadcasting -------------------------------------------------------------------------------
def broadcast_shapes(*shapes) -> tuple[int, ...]:
    """The shape that arrays of ``shapes`` broadcast to (NumPy's rules and messages)."""
    return np.broadcast_shapes(*shapes)


def broadcast_to(array, shape) -> ndarray:
    """A view of ``array`` with ``shape``: repeated axes have stride 0. Like NumPy's result it
    must not be written to (one memory location stands for many elements)."""
    array = _as_array(array)
    shape = tuple(_new_shape((shape,)))
    if any(d < 0 for d in shape):
        raise ValueError("all elements of broadcast shape must be non-negative")
    lead = len(shape) - array.ndim
    if lead < 0:
        raise ValueError("input operand has more dimensions than allowed by the axis remapping")
    if any(d != 1 and d != shape[lead + i] for i, d in enumerate(array._a.shape)):
        raise ValueError(
            "operands could not be broadcast together with remapped shapes [original->remapped]: "
            f"{shape_str(array._a.shape)}  and requested shape {shape_str(shape)}"
        )
    strides = [0] * lead + [
        s if d == shape[lead + i] else 0 for i, (d, s) in enumerate(zip(array._a.shape, array._a.strides, strict=True))
    ]
    return _view(array, shape, strides)


def broadcast_arrays(*args) -> tuple[ndarray, ...]:
    """Views of ``args`` broadcast to one shape."""
    arrays = [_as_array(a) for a in args]
    shape = broadcast_shapes(*(a.shape for a in arrays))
    return tuple(a if a.shape == shape else broadcast_to(a, shape) for a in arrays)


# --- joining ------------------------------------------------------------------------------------
def _join_dtype(arrays, dtype, casting):
    if dtype is None:
        return _dtypes.normalize(np.result_type(*(a.dtype for a in arrays)))
    dtype = _dtypes.normalize(dtype)
    for a in arrays:
        if not np.can_cast(a.dtype, dtype, casting=casting):
            raise TypeError(
                f"Cannot cast array data from {a.dtype!r} to {dtype!r} according to the rule {casting!r}"
            )
    return dtype


def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind") -> ndarray:
    """The arrays joined along an existing ``axis`` (flattened first when ``axis`` is None),
    copied on the device into one array of their common dtype."""
    if out is not None and dtype is not None:
        raise TypeError("concatenate() only takes `out` or `dtype` as an argument, but both were provided.")
    arrays = [_as_array(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        arrays, axis = [ravel(a) for a in arrays], 0
    first = arrays[0]
    if first.ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = normalize_axis_index(operator.index(axis), first.ndim)
    for i, a in enumerate(arrays[1:], 1):
        if a.ndim != first.ndim:
            raise ValueError(
                "all the input arrays must have same number of dimensions, but the array at index 0 has "
                f"{first.ndim} dimension(s) and the array at index {i} has {a.ndim} dimension(s)"
            )
        for d in range(first.ndim):
            if d != axis and a.shape[d] != first.shape[d]:
                raise ValueError(
                    "all the input array dimensions except for the concatenation axis must match exactly, but "
                    f"along dimension {d}, the array at index 0 has size {first.shape[d]} and the array at "
                    f"index {i} has size {a.shape[d]}"
                )
    shape = list(first.shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    if out is None:
        out = _wrap(_empty_native(shape, _dtypes.name_of(_join_dtype(arrays, dtype, casting))))
    elif not isinstance(out, ndarray) or list(out.shape) != shape:
        raise ValueError(f"Output array is the wrong shape: expected an ember array of shape {tuple(shape)}")
    else:
        _join_dtype(arrays, out.dtype, casting)
    start, lead = 0, (slice(None),) * axis
    for a in arrays:
        stop = start + a.shape[axis]
        device_copy(a._a, out[lead + (slice(start, stop),)]._a)
        start = stop
    return out


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind") -> ndarray:
    """Arrays of one shape joined along a new ``axis``."""
    arrays = [_as_array(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to stack")
    if any(a.shape != arrays[0].shape for a in arrays):
        raise ValueError("all input arrays must have the same shape")
    axis = normalize_axis_index(operator.index(axis), arrays[0].ndim + 1)
    return concatenate([expand_dims(a, axis) for a in arrays], axis, out, dtype=dtype, casting=casting)


def vstack(tup, *, dtype=None, casting="same_kind") -> ndarray:
    """Arrays joined row-wise (1-d arrays become rows)."""
    return concatenate([_atleast(a, 2) for a in tup], 0, dtype=dtype, casting=casting)


def hstack(tup, *, dtype=None, casting="same_kind") -> ndarray:
    """Arrays joined column-wise (along axis 0 for 1-d arrays)."""
    arrays = [_atleast(a, 1) for a in tup]
    axis = 0 if arrays and arrays[0].ndim == 1 else 1
    return concatenate(arrays, axis, dtype=dtype, casting=casting)


def dstack(tup) -> ndarray:
    """Arrays joined along the third axis."""
    return concatenate([_atleast(a, 3) for a in tup], 2)


# --- splitting ----------------------------------------------------------------------------------
def array_split(ary, indices_or_sections, axis=0) -> list[ndarray]:
    """Views of ``ary`` cut along ``axis`` at the given indices, or into that many nearly equal
    sections (the first ones one longer)."""
    ary = _as_array(ary)
    axis = normalize_axis_index(operator.index(axis), ary.ndim)
    total = ary.shape[axis]
    try:
        points = [0, *(operator.index(i) for i in indices_or_sections), total]
    except TypeError:
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.") from None
        each, extras = divmod(total, sections)
        sizes = [0] + extras * [each + 1] + (sections - extras) * [each]
        points = np.cumsum(sizes).tolist()
    lead = (slice(None),) * axis
    return [ary[lead + (slice(start, stop),)] for start, stop in itertools.pairwise(points)]


def split(ary, indices_or_sections, axis=0) -> list[ndarray]:
    """Like :func:`array_split`, but ``sections`` must divide the axis evenly."""
    ary = _as_array(ary)
    try:
        len(indices_or_sections)
    except TypeError:  # a number of sections
        total = ary.shape[normalize_axis_index(operator.index(axis), ary.ndim)]
        if total % int(indices_or_sections):
            raise ValueError("array split does not result in an equal division") from None
    return array_split(ary, indices_or_sections, axis)


# --- at least n axes ----------------------------------------------------------------------------
def _atleast(a, ndim: int) -> ndarray:
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


ndarray.copy = _ndarray_copy
ndarray.reshape = _ndarray_reshape
ndarray.ravel = _ndarray_ravel
ndarray.flatten = _ndarray_flatten
ndarray.transpose = _ndarray_transpose
ndarray.swapaxes = swapaxes
ndarray.squeeze = squeeze
