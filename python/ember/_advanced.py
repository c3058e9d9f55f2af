"""NumPy's advanced indexing on the device: integer arrays (broadcast together, mixed with
slices), boolean masks, and the same forms on the left of ``=``; ``nonzero`` and ``take``.

Every index becomes element offsets into the array's buffer, computed by ufuncs on the device;
one kernel then gathers (or scatters) through them. Out-of-range indices are found on the device
and raise ``IndexError``. Host reads: a mask's count of True elements (it is the result's
shape) and the extremes of integer indices (for the bounds check) — scalars, never the data.
"""

from __future__ import annotations

import numpy as np

from . import _ember
from ._creation import arange, asarray, empty
from ._ndarray import _wrap, ndarray
from ._user_kernels import ElementwiseKernel

_kernels: dict[str, ElementwiseKernel] = {}


def _kernel(name: str) -> ElementwiseKernel:
    """The few kernels advanced indexing needs, made once."""
    k = _kernels.get(name)
    if k is None:
        k = _kernels[name] = {
            "gather": lambda: ElementwiseKernel(
                "raw T src, int64 off, int64 r1, int64 r2", "T y", "y = src[off + r1 + r2]", "ember_gather"),
            "scatter": lambda: ElementwiseKernel(
                "int64 off, int64 r1, int64 r2, T v", "raw T dst", "dst[off + r1 + r2] = v", "ember_scatter"),
            "masked_fill": lambda: ElementwiseKernel("bool m, T v", "T a", "if (m) a = v", "ember_masked_fill"),
        }[name]()
    return k


def _buffer_view(a: ndarray):
    """The whole buffer under ``a`` as a 1-d array of its dtype, and ``a``'s first element's
    position in it; None when ``a``'s strides are not whole elements."""
    native, item = a._a, a.itemsize
    if native.offset % item or any(s % item for s in native.strides) or native.buffer_nbytes % item:
        return None
    count = native.buffer_nbytes // item
    return _wrap(native.view([count], [item], 0, native.dtype)), native.offset // item


def _index_array(item, size: int, axis: int) -> ndarray:
    """An integer index as an int64 device array with negative values wrapped; out-of-range
    values raise IndexError (found on the device)."""
    arr = item if isinstance(item, ndarray) else asarray(np.asarray(item))
    if arr.dtype.kind not in "iu":
        raise IndexError(
            "arrays used as indices must be of integer (or boolean) type, got " + str(arr.dtype)
        )
    arr = arr.astype(np.int64, copy=False)
    if arr.size:
        lo, hi = int(arr.min()), int(arr.max())
        bad = hi if hi >= size else (lo if lo < -size else None)
        if bad is not None:
            raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {size}")
        if lo < 0:
            from ._ufuncs import where

            arr = where(arr < 0, arr + size, arr)
    return arr


def nonzero(a) -> tuple:
    """The indices of the non-zero elements, one int64 array per axis (stream compaction on
    the device; only the count of true elements is read on the host)."""
    a = a if isinstance(a, ndarray) else asarray(a)
    if a.ndim == 0:
        raise ValueError(
            "Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead. "
            "If the context of this error is of the form `arr[nonzero(cond)]`, just use `arr[cond]`."
        )
    mask = a if a.dtype == np.bool_ else a != 0
    positions = _wrap(_ember.mask_compact(mask._a, None))
    if a.ndim <= 1:
        return (positions,)
    out, rest = [], positions
    for dim in reversed(a.shape):
        out.append(rest % dim)
        rest = rest // dim
    return tuple(reversed(out))


def _normalize(a: ndarray, index) -> tuple[list, list[int], bool]:
    """Index items with Ellipsis expanded, booleans turned into integer arrays (per axis they
    cover), and every other advanced item as an int64 array; the positions of advanced items;
    whether an Ellipsis of no axes separates them."""
    items = list(index) if type(index) is tuple else [index]
    converted = []
    for item in items:
        if item is None or item is Ellipsis or type(item) is slice:
            converted.append(item)
            continue
        if not isinstance(item, ndarray):
            host = np.asarray(item)
            if host.dtype == object:
                raise IndexError(
                    "only integers, slices, ellipsis, None and integer or boolean arrays are valid indices"
                )
            item = asarray(host) if host.ndim else int(host) if host.dtype.kind in "iu" else asarray(host)
        converted.append(item)
    # Expand the ellipsis (booleans cover as many axes as they have dimensions).
    used = sum(
        (x.ndim if isinstance(x, ndarray) and x.dtype == np.bool_ else 1)
        for x in converted if x is not None and x is not Ellipsis
    )
    if used > a.ndim:
        raise IndexError(f"too many indices for array: array is {a.ndim}-dimensional, but {used} were indexed")
    ellipsis = [k for k, x in enumerate(converted) if x is Ellipsis]
    if len(ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    separated = False
    if ellipsis:
        k = ellipsis[0]
        # Even spanning no axes, an Ellipsis between advanced indices separates them (NumPy then
        # puts the broadcast index axes first).
        is_advanced = lambda x: isinstance(x, ndarray) or type(x) is int  # noqa: E731
        separated = a.ndim == used and any(map(is_advanced, converted[:k])) and any(
            map(is_advanced, converted[k + 1:]))
        converted[k:k + 1] = [slice(None)] * (a.ndim - used)
    else:
        converted += [slice(None)] * (a.ndim - used)
    # Boolean arrays become their nonzero() integer arrays; ints join the advanced items.
    final, axis = [], 0
    for item in converted:
        if isinstance(item, ndarray) and item.dtype == np.bool_:
            expected = a.shape[axis:axis + item.ndim]
            if item.shape != expected:
                raise IndexError(
                    f"boolean index did not match indexed array along axis {axis}; size of axis is "
                    f"{expected[0] if expected else 0} but size of corresponding boolean axis is {item.shape[0]}"
                )
            final.extend(nonzero(item))
            axis += item.ndim
        else:
            final.append(item)
            if item is not None:
                axis += 1
    advanced = [k for k, x in enumerate(final) if isinstance(x, ndarray) or type(x) is int]
    return final, advanced, separated


def _plan(a: ndarray, index):
    """What an advanced index selects: (buffer view, element offsets of shape B, the two groups
    of remaining offsets, the result shape)."""
    from ._shape import broadcast_arrays

    items, adv, separated = _normalize(a, index)
    source = _buffer_view(a)
    if source is None:
        a = a.copy()
        source = _buffer_view(a)
    buffer, base = source
    item = a.itemsize
    # Basic items shape the "rest" axes; advanced ones give offsets.
    rest1, rest2, arrays = [], [], []
    axis = 0
    first_adv, last_adv = adv[0], adv[-1]
    contiguous = adv == list(range(first_adv, last_adv + 1)) and not separated
    for k, x in enumerate(items):
        if x is None:
            (rest1 if k < first_adv or not contiguous else rest2).append((1, 0))
            continue
        n, stride = a.shape[axis], a.strides[axis] // item
        if k in adv:
            idx = _index_array(x, n, axis)
            arrays.append(idx * stride if stride != 1 else idx)
        elif type(x) is slice:
            start, stop, step = x.indices(n)
            length = len(range(start, stop, step))
            base += start * stride if length else 0
            group = rest1 if (k < first_adv or not contiguous) else rest2
            group.append((length, stride * step))
        axis += 1
    try:
        offs = broadcast_arrays(*arrays) if len(arrays) > 1 else arrays
    except ValueError:
        shapes = " ".join(str(tuple(x.shape)).replace(" ", "") for x in arrays)
        raise IndexError(
            f"shape mismatch: indexing arrays could not be broadcast together with shapes {shapes}"
        ) from None
    off = offs[0]
    for extra in offs[1:]:
        off = off + extra
    bshape = off.shape
    if contiguous:
        shape = tuple(n for n, _ in rest1) + bshape + tuple(n for n, _ in rest2)
        lead, trail = len(rest1), len(rest2)
        off_b = off.reshape((1,) * lead + bshape + (1,) * trail) + base
        r1 = _axis_offsets(rest1, len(shape), 0)
        r2 = _axis_offsets(rest2, len(shape), lead + len(bshape))
    else:
        shape = bshape + tuple(n for n, _ in rest1)
        off_b = off.reshape(bshape + (1,) * len(rest1)) + base
        r1 = _axis_offsets(rest1, len(shape), len(bshape))
        r2 = _axis_offsets([], len(shape), len(shape))
    return buffer, off_b, r1, r2, shape


def _axis_offsets(group, ndim: int, start: int) -> ndarray:
    """Element offsets of the axes in ``group`` ((length, stride) pairs) placed from axis
    ``start`` of an ``ndim``-d result, as one array broadcasting over the other axes."""
    shape = [1] * ndim
    total = None
    for j, (length, stride) in enumerate(group):
        part_shape = [1] * ndim
        part_shape[start + j] = length
        part = (arange(length, dtype=np.int64) * stride).reshape(tuple(part_shape))
        total = part if total is None else total + part
        shape[start + j] = length
    if total is None:
        return asarray(np.zeros((1,) * ndim, dtype=np.int64)) if ndim else asarray(np.int64(0))
    return total


def _is_scalar_bool(x) -> bool:
    return isinstance(x, (bool, np.bool_)) or (
        isinstance(x, (ndarray, np.ndarray)) and x.ndim == 0 and x.dtype == np.bool_
    )


def _scalar_bools(a: ndarray, index):
    """NumPy's ``a[True]``/``a[False]`` (a 0-d boolean index): a new axis of length 1 at the
    boolean's place, indexed by the integer array ``[0]`` (True) or ``[]`` (False), so that it
    broadcasts with other advanced indices as NumPy's does. Returns ``a`` with the new axes and
    the index rewritten for it (unchanged when there is no scalar boolean)."""
    items = list(index) if type(index) is tuple else [index]
    if not any(_is_scalar_bool(x) for x in items):
        return a, index
    expand, rest = [], []
    for x in items:
        if _is_scalar_bool(x):
            expand.append(None)
            rest.append(asarray(np.arange(1 if bool(x) else 0, dtype=np.int64)))
        elif x is None or x is Ellipsis:
            expand.append(x)
            rest.append(slice(None) if x is None else x)
        else:
            boolean = isinstance(x, (ndarray, np.ndarray)) and x.dtype == np.bool_
            expand += [slice(None)] * (x.ndim if boolean else 1)
            rest.append(x)
    return a[tuple(expand)], tuple(rest)


def getitem(a: ndarray, index) -> ndarray:
    """``a[index]`` for an advanced index."""
    a, index = _scalar_bools(a, index)
    fast = _mask_fast_path(a, index)
    if fast is not None:
        return fast
    buffer, off, r1, r2, shape = _plan(a, index)
    out = empty(shape, dtype=a.dtype)
    if out.size:
        _kernel("gather")(_bits(buffer), off, r1, r2, _bits(out))
    return out


def _bits(a: ndarray) -> ndarray:
    """float16 as uint16 (gathers and scatters move bits; snippets cannot index float16)."""
    return a.view(np.uint16) if a.dtype == np.float16 else a


def _mask_fast_path(a: ndarray, index):
    """``a[mask]`` with a mask of ``a``'s whole shape: one compaction of ``a``'s elements."""
    if not (isinstance(index, ndarray) and index.dtype == np.bool_ and index.shape == a.shape and a.ndim):
        return None
    return _wrap(_ember.mask_compact(index._a, a._a))


def setitem(a: ndarray, index, value) -> None:
    """``a[index] = value`` for an advanced index (with repeated indices, one of the values
    lands, as in NumPy and CuPy)."""
    a, index = _scalar_bools(a, index)
    if isinstance(index, ndarray) and index.dtype == np.bool_ and index.shape == a.shape[: index.ndim] and (
        np.ndim(value) == 0
    ):
        # One value for every selected element: cast as NumPy casts it in assignment.
        mask = index.reshape(index.shape + (1,) * (a.ndim - index.ndim))
        if isinstance(value, ndarray):
            v = value if value.dtype == a.dtype else value.astype(a.dtype)
        else:
            v = np.asarray(value).astype(a.dtype)[()]
        _kernel("masked_fill")(mask, v, a)
        return
    source = _buffer_view(a)
    if source is None:
        raise IndexError("assignment through an advanced index needs strides in whole elements")
    buffer, off, r1, r2, shape = _plan(a, index)
    v = value if isinstance(value, ndarray) else asarray(np.asarray(value))
    if v.dtype != a.dtype:
        v = v.astype(a.dtype)
    from ._shape import broadcast_to

    v = broadcast_to(v, shape)
    if v.size:
        _kernel("scatter")(off, r1, r2, _bits(v), _bits(buffer))


def take(a, indices, axis=None, out=None):
    """``take(a, indices, axis=None)``: elements of ``a`` (flattened when ``axis`` is None) at
    ``indices``."""
    a = a if isinstance(a, ndarray) else asarray(a)
    if axis is None:
        result = getitem(a.ravel(), (indices,))
    else:
        axis = axis + a.ndim if axis < 0 else axis
        if not 0 <= axis < a.ndim:
            raise np.exceptions.AxisError(axis, a.ndim)
        result = getitem(a, (slice(None),) * axis + (indices,))
    if out is not None:
        out[...] = result
        return out
    return result
