"""NumPy's array manipulation beyond reshaping and joining (``_shape``): flips and rotations
(views), ``roll``, ``tile`` and ``repeat`` (one gather each, through a broadcast view),
``append``, ``delete``, ``resize``, ``trim_zeros``, the ``*split`` and ``*stack`` spellings,
and NumPy 2's ``concat``, ``permute_dims``, ``matrix_transpose``, ``unstack``.

Semantics, result dtypes and error classes are NumPy 2's; as in CuPy, positions given as
arrays (``repeat``'s counts, ``delete``'s indices) are read on the host.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from . import _ember
from ._creation import array, asarray, empty, zeros
from ._indexing import nonzero, take
from ._shape import (
    broadcast_arrays,
    broadcast_shapes,
    broadcast_to,
    concatenate,
    expand_dims,
    moveaxis,
    ravel,
    split,
    swapaxes,
    transpose,
    vstack,
)

__all__ = [
    "append", "block", "broadcast", "column_stack", "concat", "delete", "dsplit", "flip", "fliplr", "flipud",
    "hsplit", "insert", "matrix_transpose", "permute_dims", "repeat", "resize", "roll", "rollaxis", "rot90",
    "row_stack", "tile", "trim_zeros", "unstack", "vsplit",
]


def _array(a):
    return a if isinstance(a, _ember.ndarray) else asarray(a)


def _host_ints(x):
    """Counts or positions given as a list, a NumPy array or an ember array, on the host."""
    if isinstance(x, _ember.ndarray):
        x = x.get()
    return np.asarray(x)


# --- flips and rotations: views ----------------------------------------------------------------
def flip(m, axis=None):
    """``m`` reversed along ``axis`` (every axis when None): a view."""
    m = _array(m)
    axes = range(m.ndim) if axis is None else normalize_axis_tuple(axis, m.ndim)
    index = [slice(None)] * m.ndim
    for k in axes:
        index[k] = slice(None, None, -1)
    return m[tuple(index)]


def flipud(m):
    m = _array(m)
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(m, 0)


def fliplr(m):
    m = _array(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(m, 1)


def rot90(m, k=1, axes=(0, 1)):
    """``m`` rotated by 90 degrees ``k`` times from the first axis of ``axes`` towards the
    second: a view."""
    m = _array(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if not (-m.ndim <= axes[0] < m.ndim and -m.ndim <= axes[1] < m.ndim):
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k = operator.index(k) % 4
    if k == 0:
        return m[...]
    if k == 2:
        return flip(flip(m, axes[0]), axes[1])
    order = list(range(m.ndim))
    order[axes[0]], order[axes[1]] = order[axes[1]], order[axes[0]]
    if k == 1:
        return transpose(flip(m, axes[1]), order)
    return flip(transpose(m, order), axes[1])


# --- copies ------------------------------------------------------------------------------------
def roll(a, shift, axis=None):
    """Elements shifted along ``axis`` (of the flattened array when None), wrapping round."""
    a = _array(a)
    if isinstance(shift, _ember.ndarray):
        shift = shift.get()  # a few counts, read on the host as CuPy does
    if axis is None:
        return roll(ravel(a), shift, 0).reshape(a.shape)
    axes = normalize_axis_tuple(axis, a.ndim, allow_duplicate=True)
    pairs = np.broadcast(shift, axes)
    if pairs.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    total = {}
    for s, k in pairs:
        total[int(k)] = total.get(int(k), 0) + int(s)
    result = a
    for k, s in total.items():
        n = a.shape[k]
        if n == 0 or s % n == 0:
            continue
        s %= n
        head = [slice(None)] * a.ndim
        tail = [slice(None)] * a.ndim
        head[k], tail[k] = slice(n - s, None), slice(None, n - s)
        result = concatenate([result[tuple(head)], result[tuple(tail)]], axis=k)
    return result if result is not a else a.copy()


def tile(A, reps):
    """``A`` repeated ``reps`` times along each axis (one copy, from a broadcast view)."""
    A = _array(A)
    reps = (operator.index(reps),) if np.ndim(reps) == 0 else tuple(operator.index(r) for r in reps)
    d = max(A.ndim, len(reps))
    reps = (1,) * (d - len(reps)) + reps
    shape = (1,) * (d - A.ndim) + A.shape
    # (1, s0, 1, s1, ...) broadcast to (r0, s0, r1, s1, ...), then merged pairwise.
    spread = A.reshape(tuple(x for s in shape for x in (1, s)))
    wide = broadcast_to(spread, tuple(x for r, s in zip(reps, shape, strict=True) for x in (r, s)))
    return wide.reshape(tuple(r * s for r, s in zip(reps, shape, strict=True)))


def repeat(a, repeats, axis=None):
    """Each element repeated ``repeats`` times (a count, or one count per element) along
    ``axis`` (of the flattened array when None)."""
    a = _array(a)
    if axis is None or a.ndim == 0:  # NumPy takes a 0-d array as 1-d here
        a, axis = ravel(a), 0 if axis is None else axis
    axis = normalize_axis_index(axis, a.ndim)
    n = a.shape[axis]
    counts = _host_ints(repeats)
    if counts.dtype.kind not in "iub":
        raise TypeError(f"Cannot cast array data from {counts.dtype} to int64 according to the rule 'safe'")
    if counts.ndim > 1:  # NumPy reads repeats as at most 1-d
        raise ValueError("object too deep for desired array")
    if counts.ndim == 0 or counts.size == 1:
        r = int(counts.reshape(-1)[0])
        if r < 0:
            raise ValueError("negative dimensions are not allowed")
        # Each element broadcast r times beside itself, then merged with its axis.
        wide = broadcast_to(expand_dims(a, axis + 1), a.shape[: axis + 1] + (r,) + a.shape[axis + 1:])
        return wide.reshape(a.shape[:axis] + (n * r,) + a.shape[axis + 1:])
    if counts.shape != (n,):
        raise ValueError(f"operands could not be broadcast together with shape ({n},) ({counts.size},)")
    if (counts < 0).any():
        raise ValueError("repeats may not contain negative values.")
    return take(a, asarray(np.repeat(np.arange(n), counts)), axis=axis)


def append(arr, values, axis=None):
    """``values`` joined after ``arr`` (both flattened when ``axis`` is None)."""
    arr = _array(arr)
    values = _array(values)
    if axis is None:
        return concatenate([ravel(arr), ravel(values)])
    return concatenate([arr, values], axis=axis)


def delete(arr, obj, axis=None):
    """``arr`` without the entries ``obj`` (an index, a slice, indices or a boolean mask) of
    ``axis`` (of the flattened array when None)."""
    arr = _array(arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = normalize_axis_index(axis, arr.ndim)
    n = arr.shape[axis]
    keep = np.ones(n, dtype=bool)
    if isinstance(obj, slice):
        keep[obj] = False
    else:
        index = _host_ints(obj)
        if index.dtype == bool:
            if index.shape != (n,):
                raise ValueError(
                    f"boolean array argument obj to delete must be one dimensional and match the axis length of {n}"
                )
            keep = ~index
        else:
            if index.dtype.kind not in "iu" and index.size:
                raise IndexError("arrays used as indices must be of integer (or boolean) type")
            index = index.astype(np.intp)
            bad = (index < -n) | (index >= n)
            if bad.any():
                raise IndexError(f"index {int(index[bad][0])} is out of bounds for axis {axis} with size {n}")
            keep[index] = False
    if keep.all():
        return arr.copy()
    return take(arr, asarray(np.flatnonzero(keep)), axis=axis)


def insert(arr, obj, values, axis=None):
    """``arr`` with ``values`` inserted before position(s) ``obj`` (an index, a slice or
    indices) of ``axis`` (of the flattened array when None). Positions are worked out on the
    host, as NumPy does; the elements move on the device."""
    arr = _array(arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = normalize_axis_index(axis, arr.ndim)
    n = arr.shape[axis]
    before = (slice(None),) * axis
    if isinstance(obj, slice):
        indices = np.arange(*obj.indices(n), dtype=np.intp)
    else:
        indices = _host_ints(obj)
        if indices.dtype == bool:
            indices = indices.astype(np.intp)
        if indices.ndim > 1:
            raise ValueError("index array argument obj to insert must be one dimensional or scalar")
        if indices.size and indices.dtype.kind not in "iu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        indices = indices.astype(np.intp)
    if indices.size == 1:
        index = int(indices.item())
        if not -n <= index <= n:
            raise IndexError(f"index {obj} is out of bounds for axis {axis} with size {n}")
        index += n if index < 0 else 0
        values = array(values, copy=None, ndmin=arr.ndim, dtype=arr.dtype)
        if indices.ndim == 0:
            # A scalar position: the values' first axis is the one inserted along.
            values = moveaxis(values, 0, axis)
        count = values.shape[axis]
        shape = arr.shape[:axis] + (n + count,) + arr.shape[axis + 1:]
        new = empty(shape, dtype=arr.dtype)
        new[before + (slice(None, index),)] = arr[before + (slice(None, index),)]
        new[before + (slice(index, index + count),)] = values
        new[before + (slice(index + count, None),)] = arr[before + (slice(index, None),)]
        return new
    if indices.size == 0 and not isinstance(obj, np.ndarray | _ember.ndarray):
        # NumPy: an empty list of positions inserts nothing (values ignored).
        return arr.copy()
    bad = (indices < -n) | (indices > n)
    if bad.any():
        raise IndexError(f"index {indices[bad][0]} is out of bounds for axis {axis} with size {n}")
    indices = np.where(indices < 0, indices + n, indices)
    count = indices.size
    order = np.argsort(indices, kind="stable")
    indices[order] += np.arange(count)
    keep = np.ones(n + count, dtype=bool)
    keep[indices] = False
    shape = arr.shape[:axis] + (n + count,) + arr.shape[axis + 1:]
    new = empty(shape, dtype=arr.dtype)
    new[before + (asarray(indices),)] = asarray(values, dtype=arr.dtype)
    new[before + (asarray(np.flatnonzero(keep)),)] = arr
    return new


def resize(a, new_shape):
    """An array of ``new_shape`` filled with ``a``'s elements in order, repeated as needed."""
    a = _array(a)
    new_shape = (operator.index(new_shape),) if np.ndim(new_shape) == 0 else tuple(new_shape)
    if any(s < 0 for s in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    total = int(np.prod(new_shape, dtype=np.int64))
    flat = ravel(a)
    if flat.size == 0 or total == 0:
        return zeros(new_shape, dtype=a.dtype)
    copies = -(-total // flat.size)
    return tile(flat, copies)[:total].reshape(new_shape)


def trim_zeros(filt, trim="fb", axis=None):
    """``filt`` without its leading (``'f'``) and trailing (``'b'``) zeros: a view."""
    filt = _array(filt)
    trim = trim.lower()
    if not set(trim) <= {"f", "b"} or not trim:
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    if filt.ndim == 0:
        return filt  # NumPy 2.2+: nothing to trim
    axes = range(filt.ndim) if axis is None else normalize_axis_tuple(axis, filt.ndim)
    index = [slice(None)] * filt.ndim
    nz = [p.get() for p in nonzero(filt)]
    for k in axes:
        if nz[0].size == 0:
            index[k] = slice(0, 0)
            continue
        lo = int(nz[k].min()) if "f" in trim else 0
        hi = int(nz[k].max()) + 1 if "b" in trim else filt.shape[k]
        index[k] = slice(lo, hi)
    return filt[tuple(index)]


# --- NumPy's other spellings -----------------------------------------------------------------
def column_stack(tup):
    """1-d arrays as columns, 2-d arrays as they are, joined along axis 1."""
    arrays = []
    for v in tup:
        v = _array(v)
        arrays.append(v.reshape(v.size, 1) if v.ndim < 2 else v)
    return concatenate(arrays, axis=1)


def row_stack(tup, *, dtype=None, casting="same_kind"):
    """``vstack`` (its old name, deprecated by NumPy 2.0 with a warning, as here)."""
    warnings.warn("`row_stack` alias is deprecated. Use `np.vstack` directly.", DeprecationWarning, stacklevel=2)
    return vstack(tup, dtype=dtype, casting=casting)


def _block_index(index) -> str:
    return "arrays" + "".join(f"[{i}]" for i in index if i is not None)


def _block_bottom(x, index, leaves) -> list:
    """The index of the first leaf of ``np.block``'s nested lists, checking as NumPy does that
    every leaf is as deep (an empty list is a leaf marked ``None``); leaves are collected."""
    if type(x) is tuple:
        raise TypeError(
            f"{_block_index(index)} is a tuple. Only lists can be used to arrange blocks, and np.block does "
            "not allow implicit conversion from tuple to ndarray."
        )
    if type(x) is not list:
        leaves.append(_array(x))
        return index
    if not x:
        return index + [None]
    first = None
    for i, item in enumerate(x):
        bottom = _block_bottom(item, index + [i], leaves)
        if first is None:
            first = bottom
            continue
        if len(bottom) != len(first):
            raise ValueError(
                f"List depths are mismatched. First element was at depth {len(first)}, but there is an element "
                f"at depth {len(bottom)} ({_block_index(bottom)})"
            )
        if bottom[-1] is None:
            first = bottom  # an empty list below is reported
    return first


def block(arrays):
    """One array assembled from nested lists of blocks: the innermost lists join along the
    last axis, the next along the one before, and so on (NumPy's ``block``)."""
    leaves: list = []
    bottom = _block_bottom(arrays, [], leaves)
    if bottom and bottom[-1] is None:
        raise ValueError(f"List at {_block_index(bottom)} cannot be empty")
    depth = len(bottom)
    ndim = max([depth] + [leaf.ndim for leaf in leaves])

    def assemble(x, level):
        if level == depth:
            a = _array(x)
            return a.reshape((1,) * (ndim - a.ndim) + a.shape)
        return concatenate([assemble(item, level + 1) for item in x], axis=level - depth)

    out = assemble(arrays, 0)
    return out.copy() if depth == 0 else out


def rollaxis(a, axis, start=0):
    """``a`` with ``axis`` moved to stand before ``start``: a view (``moveaxis`` is the
    clearer spelling)."""
    a = _array(a)
    n = a.ndim
    axis = normalize_axis_index(axis, n)
    start = operator.index(start)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise np.exceptions.AxisError(f"'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return transpose(a, axes)


class broadcast:  # noqa: N801  (NumPy's name)
    """The broadcast of arrays together (``numpy.broadcast``): its ``shape``, ``size``,
    ``ndim`` and the arrays as broadcast views (``values``). Iterating over the elements
    element by element is NumPy's host iterator; on the device use ``broadcast_arrays``."""

    def __init__(self, *arrays):
        arrays = [_array(a) for a in arrays]
        self.shape = broadcast_shapes(*(a.shape for a in arrays))
        self.values = tuple(broadcast_arrays(*arrays))
        self.numiter = len(arrays)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    nd = ndim


def concat(arrays, /, *, axis=0):
    """The Array API's ``concatenate``."""
    return concatenate(arrays, axis=axis)


def hsplit(ary, indices_or_sections):
    ary = _array(ary)
    if ary.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(ary, indices_or_sections, axis=1 if ary.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    ary = _array(ary)
    if ary.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, axis=0)


def dsplit(ary, indices_or_sections):
    ary = _array(ary)
    if ary.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, axis=2)


def permute_dims(a, /, axes):
    """The Array API's ``transpose`` (``axes`` required)."""
    return transpose(_array(a), axes)


def matrix_transpose(x, /):
    """The last two axes swapped: a view."""
    x = _array(x)
    if x.ndim < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {x.ndim}")
    return swapaxes(x, -1, -2)


def unstack(x, /, *, axis=0):
    """The arrays along ``axis``, as a tuple of views."""
    x = _array(x)
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    return tuple(moveaxis(x, axis, 0))

