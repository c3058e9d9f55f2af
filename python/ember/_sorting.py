"""Sorting and what is built on it: ``sort``, ``argsort``, ``searchsorted``, ``isin``,
``unique`` (and the Array API's ``unique_*``), and the set functions ``intersect1d``,
``union1d``, ``setdiff1d``, ``setxor1d``.

Every sort is the device's stable radix sort of rows (``_ember.sort_rows``, in NumPy's order:
NaN last, -0.0 equal to 0.0, complex values by real then imaginary part with NumPy's places
for NaN parts), so ``kind`` only changes nothing: every kind is stable. ``searchsorted`` is
one stable sort of the sorted array and the values together; ``isin`` sorts the test values
and searches them; ``unique`` marks where a sorted array changes.
"""

from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from . import _ember, _row_sort
from ._creation import arange, asarray, empty, zeros
from ._index_tricks import take_along_axis
from ._indexing import nonzero, take
from ._jit import jit
from ._jit.intrinsics import blockDim, grid, gridsize, shared, syncthreads, threadIdx
from ._reductions import any as _any
from ._reductions import cumsum
from ._shape import concatenate, moveaxis, ravel
from ._ufuncs import UFUNCS

__all__ = [
    "argpartition", "argsort", "in1d", "intersect1d", "isin", "lexsort", "partition", "searchsorted", "setdiff1d",
    "setxor1d", "sort", "sort_complex", "topk", "union1d", "unique", "unique_all", "unique_counts", "unique_inverse",
    "unique_values",
]

_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")
_not_equal, _isnan, _logical_and, _logical_or = (
    UFUNCS["not_equal"], UFUNCS["isnan"], UFUNCS["logical_and"], UFUNCS["logical_or"],
)


def _array(a):
    return a if isinstance(a, _ember.ndarray) else asarray(a)


def _check(kind, order):
    if kind not in _KINDS:
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")


def _rows_permutation(a, axis):
    """``a`` with ``axis`` last, as C-contiguous rows, and the flat permutation sorting each
    row (stable)."""
    moved = moveaxis(a, axis, -1)
    rows = moved.copy() if not moved.flags.c_contiguous else moved
    n = rows.shape[-1] if rows.ndim else 1
    count = rows.size // n if n else 0
    return rows, _ember.sort_rows(ravel(rows), count), n


def _short_rows(a, axis: int, values: bool):
    """``a`` sorted along ``axis`` (``values``), or its sorting indices, a block a row (CUDA's
    radix sort of rows, else ``_row_sort``'s); None where neither fits."""
    n = a.shape[axis]
    rows = a.size // n if n else 0
    moved = moveaxis(a, axis, -1)
    # CUDA and CPU devices: radix sorts of each row (a strided array is copied there, where
    # they are planned).
    result = _ember.sort_short_rows(moved, rows, values) if n else None
    if result is None:
        if not _row_sort.fits(a.dtype, n, rows):
            return None
        contiguous = moved if moved.flags.c_contiguous else moved.copy()
        result = _row_sort.sort_rows(contiguous.reshape(rows, n), values)
    return moveaxis(result.reshape(moved.shape), -1, axis)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """The indices that sort ``a`` along ``axis`` (of the flattened array when None): stable,
    whatever ``kind``; ``descending`` (the Array API's) keeps equal values in their order."""
    _check(kind, order)
    a = _array(a)
    if descending:
        return _descending_argsort(a, axis)
    if axis is None:
        a, axis = ravel(a), 0
    if a.ndim == 0:
        # NumPy sorts a 0-d array as the 1-d array of its one element.
        normalize_axis_index(axis, 1)
        return zeros((1,), dtype=np.intp)
    axis = normalize_axis_index(axis, a.ndim)
    short = _short_rows(a, axis, values=False)
    if short is not None:
        return short
    rows, perm, n = _rows_permutation(a, axis)
    if rows.size == 0:
        return empty(a.shape, dtype=np.intp)
    if rows.size == n:
        # One row: the flat permutation is the answer.
        within = perm.reshape(rows.shape)
    else:
        row_start = (arange(rows.size, dtype=np.int64) // n) * n
        within = UFUNCS["subtract"](perm, row_start).reshape(rows.shape)
    return moveaxis(within, -1, axis)


def _descending_argsort(a, axis):
    """Largest first, equal values in their order: the ascending order of the reversed array,
    reversed and mapped back."""
    if axis is None:
        a, axis = ravel(a), 0
    axis = normalize_axis_index(axis, max(a.ndim, 1))
    if a.ndim == 0:
        return zeros((), dtype=np.intp)
    flip = (slice(None),) * axis + (slice(None, None, -1),)
    ascending = argsort(a[flip], axis=axis)
    return UFUNCS["subtract"](a.shape[axis] - 1, ascending[flip])


def sort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """A sorted copy of ``a`` along ``axis`` (of the flattened array when None), in NumPy's
    order (NaN last; first when ``descending``, the Array API's)."""
    _check(kind, order)
    a = _array(a)
    if descending:
        if axis is None:
            a, axis = ravel(a), 0
        if a.ndim == 0:
            return a.copy()
        from_largest = _descending_argsort(a, axis)
        return take_along_axis(a, from_largest, axis)
    if axis is None:
        a, axis = ravel(a), 0
    axis = normalize_axis_index(axis, a.ndim)  # a 0-d array has no axis to sort (NumPy's AxisError)
    short = _short_rows(a, axis, values=True)
    if short is not None:
        return short if axis == a.ndim - 1 else short.copy()
    if a.size == a.shape[axis] and a.size:
        # One row: its values carried through the radix passes (no permutation to apply).
        row = ravel(a) if a.flags.c_contiguous else ravel(a.copy())
        values = _ember.sort_values(row)
        if values is not None:
            return values.reshape(a.shape)
    rows, perm, _ = _rows_permutation(a, axis)
    if rows.size == 0:
        return a.copy()
    result = moveaxis(take(ravel(rows), perm).reshape(rows.shape), -1, axis)
    return result if axis == a.ndim - 1 else result.copy()


def _kth(kth, n: int) -> None:
    """NumPy's checks of ``partition``'s ``kth`` (integers within the axis, negative from the
    end)."""
    for k in np.atleast_1d(kth.get() if isinstance(kth, _ember.ndarray) else np.asarray(kth)).ravel():
        if not isinstance(k, (int, np.integer)) and not (isinstance(k, np.generic) and k.dtype.kind in "iu"):
            raise TypeError("Partition index must be integer")
        k = int(k)
        at = k + n if k < 0 else k
        if not 0 <= at < n:
            raise ValueError(f"kth(={at if k < 0 else k}) out of bounds ({n})")


def _partition_args(a, kth, axis, kind, order):
    if kind != "introselect":
        raise ValueError(f"Unknown selection kind: {kind!r}" if isinstance(kind, str) else "kind must be a string")
    _check(None, order)
    a = _array(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = normalize_axis_index(axis, a.ndim)
    _kth(kth, a.shape[axis])
    return a, axis


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """A copy of ``a`` with each ``kth`` element where sorting puts it, smaller elements
    before it and larger after: ember sorts the whole axis, which is one such arrangement."""
    a, axis = _partition_args(a, kth, axis, kind, order)
    return sort(a, axis=axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """The indices that partition ``a`` along ``axis`` (``partition``'s arrangement)."""
    a, axis = _partition_args(a, kth, axis, kind, order)
    return argsort(a, axis=axis)


def lexsort(keys, axis=-1):
    """The indices sorting by several keys, the last key first (stable sorts from the first
    key to the last, each of the order so far)."""
    if isinstance(keys, (_ember.ndarray, np.ndarray)):
        # An array is the sequence of its first axis: a 1-d one, of 0-d keys.
        keys = [_array(keys[k]) for k in range(keys.shape[0])] if keys.ndim else [_array(keys)]
    else:
        keys = [_array(k) for k in keys]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if any(k.shape != keys[0].shape for k in keys):
        raise ValueError("all keys need to be the same shape")
    if keys[0].ndim == 0:
        return zeros((), dtype=np.intp)
    axis = normalize_axis_index(axis, keys[0].ndim)
    order = None
    for key in keys:
        if order is None:
            order = argsort(key, axis=axis)
        else:
            order = take_along_axis(order, argsort(take_along_axis(key, order, axis), axis=axis), axis)
    return order


def sort_complex(a):
    """``a`` sorted (last axis) as complex numbers: real part first, then imaginary."""
    b = sort(_array(a))
    if b.dtype.kind == "c":
        return b
    return b.astype(np.complex64 if b.dtype.char in "bhBH" else np.complex128)


def topk(x, k, axis=-1, largest=True, sorted=True):  # noqa: A002  (PyTorch's name)
    """The ``k`` largest (or smallest) values along ``axis`` and their indices, as PyTorch's
    ``topk``: largest first (smallest first when not ``largest``), NaN counted as the largest
    value, equal values in their order."""
    x = _array(x)
    axis = normalize_axis_index(axis, max(x.ndim, 1))
    n = x.shape[axis] if x.ndim else 1
    k = operator.index(k)
    if not 0 <= k <= n:
        raise ValueError(f"k ({k}) is out of range: {n} values along axis {axis}")
    if x.ndim == 0:
        return x.copy(), zeros((), dtype=np.intp)
    order = _descending_argsort(x, axis) if largest else argsort(x, axis=axis)
    index = order[(slice(None),) * axis + (slice(0, k),)]
    return take_along_axis(x, index, axis), index


@jit(device=True)
def _before(p, q):
    """Whether ``p`` sorts before ``q`` in NumPy's order (NaN last)."""
    return p < q or (q != q and p == p)


# Evenly spaced elements of the sorted array a block holds in shared memory (16 KiB of them):
# a search's first halvings read them, so only the last ones read global memory. More than
# 16 KiB a block measured slower on the H100 (fewer blocks resident, more samples to load).
_SAMPLE_BYTES = 16384
_SEARCH_KERNELS: dict = {}


def _samples(dtype: np.dtype) -> int:
    return min(4096, _SAMPLE_BYTES // dtype.itemsize)


def _search_kernel(dtype: np.dtype):
    """The binary search for sorted arrays of ``dtype`` (each value's place in ``a``: before
    equal elements, or after them when ``right``)."""
    if dtype not in _SEARCH_KERNELS:
        kind, room = dtype.type, _samples(dtype)

        @jit
        def search(a, v, out, right, step):
            s = shared.array(room, kind)
            n = a.size
            samples = (n + step - 1) // step
            k = threadIdx.x
            while k < samples:
                s[k] = a[k * step]
                k += blockDim.x
            syncthreads()
            i = grid(1)
            while i < v.size:
                x = v[i]
                # The samples on the left of x's place (a monotone test: true, then false)...
                lo = 0
                hi = samples
                while lo < hi:
                    mid = (lo + hi) >> 1
                    if (not _before(x, s[mid])) if right else _before(s[mid], x):
                        lo = mid + 1
                    else:
                        hi = mid
                # ... put it after the last of them and at or before the next one.
                first = (lo - 1) * step + 1 if lo > 0 else 0
                last = lo * step if lo * step < n else n
                while first < last:
                    mid = (first + last) >> 1
                    if (not _before(x, a[mid])) if right else _before(a[mid], x):
                        first = mid + 1
                    else:
                        last = mid
                out[i] = first
                i += gridsize(1)

        _SEARCH_KERNELS[dtype] = search
    return _SEARCH_KERNELS[dtype]


def _sorter(sorter, n: int):
    s = _array(sorter)
    if s.dtype.kind not in "iu":
        raise TypeError("sorter must only contain integers")
    if s.size != n:
        raise ValueError("sorter.size must equal a.size")
    return s


def searchsorted(a, v, side="left", sorter=None):
    """Where ``v``'s values would go in the sorted 1-d ``a`` to keep it sorted: before equal
    values (``side='left'``) or after them (``'right'``)."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    a = _array(a)
    if a.ndim != 1:
        depth = "too deep" if a.ndim > 1 else "of too small depth"
        raise ValueError(f"object {depth} for desired array")
    if sorter is not None:
        a = take(a, _sorter(sorter, a.size))
    scalar = np.ndim(v) == 0 and not isinstance(v, _ember.ndarray)
    v = _array(v)
    common = np.result_type(a.dtype, v.dtype)
    a, values = a.astype(common, copy=False), ravel(v).astype(common, copy=False)
    nv, na = values.size, a.size
    if nv == 0:
        return empty(v.shape, dtype=np.intp)
    if common.kind in "biuf":
        # A binary search a value (NaN last, as NumPy orders).
        out = empty(nv, dtype=np.intp)
        threads = 256
        step = max(1, -(-na // _samples(common)))
        contiguous = a if a.flags.c_contiguous else a.copy()
        _search_kernel(common)[max(1, min(-(-nv // threads), 1024)), threads](contiguous, values, out,
                                                                             side == "right", step)
        return out.reshape(()) if scalar else out.reshape(v.shape)
    # Complex values: one stable sort of both: values first for 'left' (they go before equal
    # elements of a), after for 'right'; a value's place counts the elements of a before it.
    first = side == "left"
    joined = concatenate([values, a] if first else [a, values])
    perm = _ember.sort_rows(joined, 1)
    is_value = UFUNCS["less"](perm, nv) if first else UFUNCS["greater_equal"](perm, na)
    values_before = cumsum(is_value.astype(np.int64))
    place = empty(nv + na, dtype=np.int64)
    place[perm] = arange(nv + na, dtype=np.int64)
    value_places = place[:nv] if first else place[na:]
    result = value_places - (take(values_before, value_places) - 1)
    return result.reshape(()) if scalar else result.reshape(v.shape)


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Whether each element of ``element`` is in ``test_elements`` (by ``==``: NaN is in
    nothing), the shape of ``element``."""
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    element, test = _array(element), ravel(_array(test_elements))
    common = np.result_type(element.dtype, test.dtype)
    flat = ravel(element).astype(common, copy=False)
    if test.size == 0 or flat.size == 0:
        found = zeros(element.shape, dtype=bool)
        return UFUNCS["logical_not"](found) if invert else found
    ordered = sort(test.astype(common, copy=False))
    place = searchsorted(ordered, flat)
    clipped = UFUNCS["minimum"](place, ordered.size - 1)
    found = _logical_and(UFUNCS["less"](place, ordered.size), UFUNCS["equal"](take(ordered, clipped), flat))
    found = found.reshape(element.shape)
    return UFUNCS["logical_not"](found) if invert else found


def in1d(ar1, ar2, assume_unique=False, invert=False, *, kind=None):
    """``isin`` of the flattened ``ar1`` (NumPy 1's name)."""
    return isin(ravel(_array(ar1)), ar2, assume_unique, invert, kind=kind)


def _changes(ordered, equal_nan):
    """Where a sorted 1-d array starts a new value (the first element always), NaN equal to
    NaN when ``equal_nan``."""
    flags = empty(ordered.shape, dtype=bool)
    flags[:1] = True
    _not_equal(ordered[1:], ordered[:-1], out=flags[1:])
    if equal_nan and ordered.dtype.kind in "fc":
        nan = _isnan(ordered)
        repeat = concatenate([asarray([False]), _logical_and(nan[1:], nan[:-1])])
        flags = _logical_and(flags, UFUNCS["logical_not"](repeat))
    return flags


def _unique_flat(ar, return_index, return_inverse, return_counts, equal_nan):
    flat = ravel(ar)
    n = flat.size
    if n == 0:
        empty_index = empty((0,), dtype=np.intp)
        return flat.copy(), empty_index, empty(ar.shape, dtype=np.intp), empty_index
    contiguous = flat if flat.flags.c_contiguous else flat.copy()
    # Without index or inverse, the sorted values alone (carried through the sort, when the
    # dtype allows) are enough.
    ordered = None if return_index or return_inverse else _ember.sort_values(contiguous)
    if ordered is None:
        perm = _ember.sort_rows(contiguous, 1)
        ordered = take(flat, perm)
    flags = _changes(ordered, equal_nan)
    if not (return_index or return_inverse or return_counts):
        # The values alone: one compaction of the sorted array.
        return ordered[flags], None, None, None
    starts = nonzero(flags)[0]
    values = take(ordered, starts)
    index = take(perm, starts) if return_index else None
    inverse = None
    if return_inverse:
        group = cumsum(flags.astype(np.int64)) - 1
        inverse = empty(n, dtype=np.intp)
        inverse[perm] = group
        inverse = inverse.reshape(ar.shape)
    counts = None
    if return_counts:
        ends = concatenate([starts[1:], asarray([n], dtype=np.int64)])
        counts = ends - starts
    return values, index, inverse, counts


def _unique_axis(ar, axis, return_index, return_inverse, return_counts, equal_nan):
    """Unique subarrays along ``axis``: rows compared lexicographically, NumPy's order."""
    moved = moveaxis(ar, axis, 0)
    length = moved.shape[0]
    rows = moved.reshape(length, int(np.prod(moved.shape[1:], dtype=np.int64))).copy()
    # Lexicographic order by stable sorts from the last column to the first.
    perm = arange(length, dtype=np.int64)
    for column in range(rows.shape[1] - 1, -1, -1):
        keys = take(rows[:, column], perm)
        perm = take(perm, _ember.sort_rows(keys.copy(), 1))
    ordered = take(rows, perm, axis=0)
    if length:
        # Along an axis NumPy compares subarrays with != whatever equal_nan: NaN rows stay apart.
        change = _not_equal(ordered[1:], ordered[:-1])
        flags = concatenate([asarray([True]), _any(change, axis=1)])
    else:
        flags = empty((0,), dtype=bool)
    starts = nonzero(flags)[0]
    values = take(ordered, starts, axis=0).reshape((starts.size,) + moved.shape[1:])
    values = moveaxis(values, 0, axis)
    index = take(perm, starts) if return_index else None
    inverse = None
    if return_inverse:
        group = cumsum(flags.astype(np.int64)) - 1
        inverse = empty(length, dtype=np.intp)
        if length:
            inverse[perm] = group
    counts = None
    if return_counts:
        ends = concatenate([starts[1:], asarray([length], dtype=np.int64)])
        counts = ends - starts
    return values, index, inverse, counts


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           sorted=True):  # noqa: A002  (NumPy's name)
    """The sorted unique values of ``ar`` (or unique subarrays along ``axis``), with the first
    indices, the inverse and the counts when asked."""
    ar = _array(ar)
    if axis is None:
        values, index, inverse, counts = _unique_flat(ar, return_index, return_inverse, return_counts, equal_nan)
    else:
        axis = normalize_axis_index(operator.index(axis), ar.ndim)
        values, index, inverse, counts = _unique_axis(ar, axis, return_index, return_inverse, return_counts,
                                                      equal_nan)
    extras = [x for x, asked in ((index, return_index), (inverse, return_inverse), (counts, return_counts)) if asked]
    return (values, *extras) if extras else values


def unique_values(x):
    """The Array API's unique values (NaN equal to NaN)."""
    return unique(x)


def unique_counts(x):
    """The Array API's ``(values, counts)``."""
    return np.lib._arraysetops_impl.UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False))


def unique_inverse(x):
    """The Array API's ``(values, inverse_indices)`` (inverse of ``x``'s shape)."""
    return np.lib._arraysetops_impl.UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False))


def unique_all(x):
    """The Array API's ``(values, indices, inverse_indices, counts)``."""
    return np.lib._arraysetops_impl.UniqueAllResult(
        *unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False)
    )


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted values in both arrays (with their first indices in each when asked), in
    the arrays' common dtype: NumPy's algorithm, equal neighbours of the sorted uniques."""
    ar1, ar2 = ravel(_array(ar1)), ravel(_array(ar2))
    if not assume_unique:
        if return_indices:
            ar1, ind1 = unique(ar1, return_index=True)
            ar2, ind2 = unique(ar2, return_index=True)
        else:
            ar1, ar2 = unique(ar1), unique(ar2)
    joined = concatenate([ar1, ar2])
    if return_indices:
        order = argsort(joined)
        ordered = take(joined, order)
    else:
        ordered = sort(joined)
    same = UFUNCS["equal"](ordered[1:], ordered[:-1])
    common = ordered[:-1][same]
    if not return_indices:
        return common
    first, second = order[:-1][same], order[1:][same] - ar1.size
    if not assume_unique:
        first, second = take(ind1, first), take(ind2, second)
    return common, first, second


def union1d(ar1, ar2):
    """The sorted unique values in either array."""
    return unique(concatenate([ravel(_array(ar1)), ravel(_array(ar2))]))


def setdiff1d(ar1, ar2, assume_unique=False):
    """The values of ``ar1`` not in ``ar2`` (sorted and unique unless ``assume_unique``)."""
    ar1 = ravel(_array(ar1)) if assume_unique else unique(ar1)
    return ar1[isin(ar1, ar2, invert=True)]


def setxor1d(ar1, ar2, assume_unique=False):
    """The sorted values found exactly once in the two arrays together (after making each
    unique, unless ``assume_unique``): NumPy's algorithm."""
    ar1 = ravel(_array(ar1)) if assume_unique else unique(ar1)
    ar2 = ravel(_array(ar2)) if assume_unique else unique(ar2)
    ordered = sort(concatenate([ar1, ar2]))
    if ordered.size == 0:
        return ordered
    edges = concatenate([asarray([True]), _not_equal(ordered[1:], ordered[:-1]), asarray([True])])
    return ordered[_logical_and(edges[1:], edges[:-1])]
