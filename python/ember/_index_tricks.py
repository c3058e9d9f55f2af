"""NumPy's indexing helpers: index arrays made for you (``indices``, ``meshgrid``, ``ix_``,
``unravel_index``, ``ravel_multi_index``, ``diag_indices*``, ``tril_indices*``,
``triu_indices*``), gathers and scatters along an axis (``take_along_axis``,
``put_along_axis``, ``put``), and selections (``compress``, ``extract``, ``choose``,
``select``, ``place``, ``putmask``, ``copyto``, ``fill_diagonal``).

They are composed of ember's indexing (gathers and scatters run on the device); index arrays
that only depend on shapes are made on the host and copied once, as CuPy does.
"""

from __future__ import annotations

import math
import operator
import warnings

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from . import _ember
from ._creation import arange, asarray, empty, full
from ._indexing import nonzero, take, where
from ._ranges import linspace
from ._shape import broadcast_arrays, broadcast_to, concatenate, ravel, stack

__all__ = [
    "c_", "choose", "compress", "copyto", "diag_indices", "diag_indices_from", "extract", "fill_diagonal",
    "fromfunction", "index_exp", "indices", "ix_", "mask_indices", "meshgrid", "mgrid", "ndindex", "ogrid", "place",
    "put", "put_along_axis", "putmask", "r_", "ravel_multi_index", "s_", "select", "take_along_axis", "tril_indices",
    "tril_indices_from", "triu_indices", "triu_indices_from", "unravel_index",
]


def _array(a):
    return a if isinstance(a, _ember.ndarray) else asarray(a)


def _bounded(index, n: int, mode: str, error: str):
    """``index`` into ``n`` places as NumPy's ``mode`` says: 'raise' (``ValueError(error)`` for
    any outside), 'wrap' (modulo ``n``) or 'clip' (to the ends)."""
    if mode == "raise":
        if index.size and bool(((index < 0) | (index >= n)).any()):
            raise ValueError(error)
        return index
    if mode == "wrap":
        return index % n
    if mode == "clip":
        return index.clip(0, n - 1)
    raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got '{mode}')")


# --- index arrays -------------------------------------------------------------------------------
def indices(dimensions, dtype=int, sparse=False):
    """The index of every position of a grid of ``dimensions``, per axis."""
    dimensions = tuple(operator.index(d) for d in dimensions)
    grids = []
    for k, n in enumerate(dimensions):
        shape = [1] * len(dimensions)
        shape[k] = n
        g = arange(n, dtype=dtype).reshape(shape)
        grids.append(g if sparse else broadcast_to(g, dimensions).copy())
    if sparse:
        return tuple(grids)
    if not grids:
        return empty((0,), dtype=dtype)
    return stack(grids)


def mask_indices(n, mask_func, k=0):
    """The indices of an ``n`` x ``n`` array where ``mask_func(ones, k)`` (``triu``, ``tril``,
    ...) is not zero: a pair of index arrays."""
    mask = mask_func(full((n, n), 1, dtype=np.int64), k)
    return nonzero(mask != 0)


def fromfunction(function, shape, *, dtype=float, like=None, **kwargs):
    """``function`` called once with the coordinate arrays of a grid of ``shape`` (of
    ``dtype``), as NumPy does: it computes on the device."""
    return function(*indices(shape, dtype=dtype), **kwargs)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from coordinate vectors (``indexing='xy'``: the first two axes swapped,
    as in MATLAB; ``'ij'``: matrix indexing)."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    out = []
    for k, x in enumerate(xi):
        shape = [1] * ndim
        shape[k] = -1
        out.append(ravel(_array(x)).reshape(shape))
    if indexing == "xy" and ndim > 1:
        out[0] = out[0].reshape((1, -1) + (1,) * (ndim - 2))
        out[1] = out[1].reshape((-1, 1) + (1,) * (ndim - 2))
    if not sparse:
        out = list(broadcast_arrays(*out))
    if copy:
        out = [o.copy() for o in out]
    return tuple(out)


class _Grid:
    """``mgrid[...]`` (dense) and ``ogrid[...]`` (open): coordinates from slices, a complex step
    ``5j`` meaning 5 points with the stop included, as in NumPy."""

    def __init__(self, sparse: bool):
        self.sparse = sparse

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            return self._one(key)
        sizes, numbers = [], [0]
        for s in key:
            start, step = _or(s.start, 0), _or(s.step, 1)
            if isinstance(step, complex):
                step = abs(step)
                sizes.append(int(step))
            else:
                sizes.append(math.ceil((s.stop - start) / step))
            numbers += [start, s.stop, step]
        kind = np.result_type(*[x.dtype if isinstance(x, _ember.ndarray) else x for x in numbers])
        if self.sparse:
            # Each coordinate along its own axis, length 1 along the others.
            grids = [arange(n, dtype=kind) * _spacing(s) + _or(s.start, 0) for n, s in zip(sizes, key, strict=True)]
            axes = len(sizes)
            return tuple(g[(None,) * k + (slice(None),) + (None,) * (axes - k - 1)] for k, g in enumerate(grids))
        grid = indices(sizes, kind)
        for k, s in enumerate(key):
            grid[k] = grid[k] * _spacing(s) + _or(s.start, 0)  # in place: NumPy's shapes and dtype
        return grid

    @staticmethod
    def _one(s):
        """One slice: ``arange``, or for a complex step that many points (bounds may be arrays,
        broadcast against the points as NumPy does)."""
        start = _or(s.start, 0)
        if not isinstance(s.step, complex):
            return arange(start, s.stop, _or(s.step, 1))
        length = int(abs(s.step))
        kind = np.result_type(*[x.dtype if isinstance(x, _ember.ndarray) else x for x in (start, s.stop, abs(s.step))])
        return arange(0, length, 1, dtype=kind) * _spacing(s) + start


def _or(value, default):
    return default if value is None else value


def _spacing(s):
    """The distance between a slice's points (NumPy's ``nd_grid``: a complex step of n points
    spans start to stop inclusive)."""
    step = _or(s.step, 1)
    if not isinstance(step, complex):
        return step
    count = int(abs(step))
    return (s.stop - _or(s.start, 0)) / float(count - 1) if count != 1 else 1


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)


class _Concatenator:
    """``r_[...]`` and ``c_[...]``: arrays, scalars and slices (``a:b:c`` as ``arange``, a
    complex step ``n*1j`` as ``linspace`` with ``n`` points) joined along an axis; a leading
    string ``'axis,ndmin,trans1d'`` sets how (NumPy's ``AxisConcatenator``)."""

    def __init__(self, axis=0, ndmin=1, trans1d=-1):
        self.axis, self.ndmin, self.trans1d = axis, ndmin, trans1d

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        objs, scalars, dtypes = [], [], []
        for k, item in enumerate(key):
            if isinstance(item, str):
                if k != 0:
                    raise ValueError("special directives must be the first entry.")
                if item in ("r", "c"):
                    raise ValueError(f"the {item!r} directive makes a numpy.matrix, which ember does not have")
                try:
                    settings = [int(v) for v in item.split(",")]
                except ValueError:
                    raise ValueError(f"unknown special directive {item!r}") from None
                axis, ndmin, trans1d = (settings + [ndmin, trans1d][len(settings) - 1:])[:3]
                continue
            if isinstance(item, slice):
                start = 0 if item.start is None else item.start
                if isinstance(item.step, complex):
                    new = linspace(start, item.stop, num=int(abs(item.step)))
                else:
                    new = arange(start, item.stop, 1 if item.step is None else item.step)
                new = _at_least(new, ndmin, trans1d)
            elif np.isscalar(item) or isinstance(item, np.generic):
                new = asarray(np.array(item, ndmin=ndmin))
                scalars.append(len(objs))
            else:
                new = _at_least(_array(item), ndmin, trans1d)
                dtypes.append(new.dtype)
            objs.append(new)
        if not objs:
            return empty((0,))
        if dtypes and scalars:
            # Scalars take the arrays' dtype, as NumPy's concatenator casts them.
            common = np.result_type(*dtypes)
            for k in scalars:
                objs[k] = objs[k].astype(common)
        return concatenate(objs, axis=axis)

    def __len__(self):
        return 0


def _at_least(a, ndmin, trans1d):
    """``a`` with ones prepended to ``ndmin`` dimensions, its own axes moved to ``trans1d``."""
    if a.ndim >= ndmin:
        return a
    before = a.ndim
    a = a.reshape((1,) * (ndmin - before) + a.shape)
    if trans1d != -1:
        k2, k1 = ndmin - before, trans1d + (ndmin - before + 1 if trans1d < 0 else 0)
        axes = list(range(ndmin))
        a = a.transpose(axes[:k1] + axes[k2:] + axes[k1:k2])
    return a


r_ = _Concatenator(0)
c_ = _Concatenator(-1, ndmin=2, trans1d=0)
# Index-expression helpers and the index iterator are NumPy's own (they hold no data).
s_ = np.s_
index_exp = np.index_exp
ndindex = np.ndindex


def ix_(*args):
    """An open mesh from sequences: each index array shaped to select along its own axis."""
    out = []
    for k, a in enumerate(args):
        a = _array(a)
        if a.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if a.dtype == np.bool_:
            a = nonzero(a)[0]
        elif a.size == 0:
            a = a.astype(np.intp)
        out.append(a.reshape((1,) * k + (a.size,) + (1,) * (len(args) - k - 1)))
    return tuple(out)


def unravel_index(indices, shape, order="C"):
    """Flat indices as a tuple of coordinate arrays for ``shape``."""
    idx = _array(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"only int indices permitted, got {idx.dtype}")
    shape = tuple(operator.index(s) for s in ((shape,) if np.ndim(shape) == 0 else shape))
    size = int(np.prod(shape, dtype=np.int64))
    bad = (idx < 0) | (idx >= size)
    if idx.size and bool(bad.any()):
        first = int(ravel(idx)[ravel(bad)][0].get())
        raise ValueError(f"index {first} is out of bounds for array with size {size}")
    coords = []
    rest = idx.astype(np.intp)
    dims = shape[::-1] if order == "C" else shape
    for n in dims:
        coords.append(rest % n if n else rest)
        rest = rest // n if n else rest
    return tuple(coords[::-1] if order == "C" else coords)


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Coordinate arrays as flat indices into an array of shape ``dims``."""
    dims = tuple(operator.index(d) for d in dims)
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    coords = [_array(c).astype(np.intp) for c in multi_index]
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    fixed = [_bounded(c, n, m, "invalid entry in coordinates array")
             for c, n, m in zip(coords, dims, modes, strict=True)]
    order_dims = range(len(dims)) if order == "C" else range(len(dims) - 1, -1, -1)
    flat = None
    for k in order_dims:
        flat = fixed[k] if flat is None else flat * dims[k] + fixed[k]
    return flat


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an ``n``-wide ``ndim``-dimensional array."""
    idx = arange(n)
    return (idx,) * ndim


def diag_indices_from(arr):
    arr = _array(arr)
    if arr.ndim < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], arr.ndim)


def tril_indices(n, k=0, m=None):
    """The indices of the lower triangle (on and below diagonal ``k``) of an ``n`` x ``m`` array."""
    rows, cols = np.tril_indices(n, k, m)
    return asarray(rows), asarray(cols)


def triu_indices(n, k=0, m=None):
    """The indices of the upper triangle (on and above diagonal ``k``) of an ``n`` x ``m`` array."""
    rows, cols = np.triu_indices(n, k, m)
    return asarray(rows), asarray(cols)


def tril_indices_from(arr, k=0):
    arr = _array(arr)
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return tril_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def triu_indices_from(arr, k=0):
    arr = _array(arr)
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return triu_indices(arr.shape[-2], k=k, m=arr.shape[-1])


# --- along an axis --------------------------------------------------------------------------------
def _along(arr, indices, axis):
    """The full index (one array per axis) that ``indices`` makes along ``axis``."""
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        return ravel(arr), (indices,)
    axis = normalize_axis_index(axis, arr.ndim)
    if indices.ndim != arr.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    full = []
    for k in range(arr.ndim):
        if k == axis:
            full.append(indices)
        else:
            shape = [1] * arr.ndim
            shape[k] = arr.shape[k]
            full.append(arange(arr.shape[k]).reshape(shape))
    return arr, tuple(full)


def take_along_axis(arr, indices, axis=-1):
    """Values picked from ``arr`` at ``indices`` along ``axis`` (as ``argsort`` gives them)."""
    arr, idx = _along(_array(arr), _array(indices), axis)
    return arr[idx]


def put_along_axis(arr, indices, values, axis):
    """``arr`` written at ``indices`` along ``axis`` with ``values`` (in place)."""
    arr = _array(arr)
    target, idx = _along(arr, _array(indices), axis)
    target[idx] = values
    if axis is None:
        arr[...] = target.reshape(arr.shape)


def put(a, ind, v, mode="raise"):
    """``a.flat[ind] = v`` (``v`` repeated as needed); ``mode`` clips or wraps bad indices."""
    a = _array(a)
    ind = ravel(_array(ind)).astype(np.intp)
    if mode != "raise":  # 'raise' is the scatter's own IndexError, as NumPy's put raises
        ind = _bounded(ind, a.size, mode, "")
    v = ravel(_array(v)).astype(a.dtype)
    if ind.size == 0 or v.size == 0:
        return  # NumPy 2 writes nothing
    if v.size != ind.size:
        v = take(v, arange(ind.size) % v.size)
    if a.flags.c_contiguous:
        ravel(a)[ind] = v  # a view of a
        return
    flat = a.reshape(-1)  # a copy: written back
    flat[ind] = v
    a[...] = flat.reshape(a.shape)


# --- selections ---------------------------------------------------------------------------------
def compress(condition, a, axis=None, out=None):
    """The slices of ``a`` along ``axis`` where ``condition`` is true."""
    a = _array(a)
    cond = ravel(_array(condition))
    if axis is None:
        a, axis = ravel(a), 0
    axis = normalize_axis_index(axis, a.ndim)
    positions = nonzero(cond)[0]
    if cond.size > a.shape[axis]:
        # A longer condition is fine while its extra entries are false (NumPy's rule).
        beyond = positions.get()
        beyond = beyond[beyond >= a.shape[axis]]
        if beyond.size:
            raise IndexError(f"index {beyond[0]} is out of bounds for axis {axis} with size {a.shape[axis]}")
    picked = take(a, positions, axis=axis)
    if out is not None:
        out[...] = picked
        return out
    return picked


def extract(condition, arr):
    """The elements of ``arr`` where ``condition`` is true, flattened."""
    return take(ravel(_array(arr)), nonzero(ravel(_array(condition)))[0])


def choose(a, choices, out=None, mode="raise"):
    """For each element of ``a``, the element of ``choices[a]`` there (all broadcast together)."""
    a = _array(a)
    choices = [_array(c) for c in choices]
    n = len(choices)
    if a.dtype.kind not in "iu":
        raise TypeError(
            f"Cannot cast array data from dtype('{a.dtype}') to dtype('int64') according to the rule 'safe'"
        )
    a = _bounded(a, n, mode, "invalid entry in choice array")
    stacked = stack(broadcast_arrays(*choices, a)[:-1])
    picked = take_along_axis(stacked, broadcast_to(a, stacked.shape[1:])[None].astype(np.intp), axis=0)[0]
    if out is not None:
        out[...] = picked
        return out
    return picked


def select(condlist, choicelist, default=0):
    """Element-wise, the choice of the first condition that holds, else ``default``."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    conds = [_array(c) for c in condlist]
    for k, c in enumerate(conds):
        if c.dtype != np.bool_:
            raise TypeError(f"invalid entry {k} in condlist: should be boolean ndarray")
    choices = [_array(c) for c in choicelist]
    dtype = np.result_type(*[c.dtype for c in choices], default)
    result = broadcast_to(asarray(default, dtype=dtype), np.broadcast_shapes(
        *[c.shape for c in conds], *[c.shape for c in choices])).copy()
    for c, v in zip(conds[::-1], choices[::-1], strict=True):
        result = where(c, v.astype(dtype), result)
    return result


def place(arr, mask, vals):
    """``arr[mask] = vals``, ``vals`` repeated as needed (in place)."""
    arr = _array(arr)
    mask = _array(mask)
    if mask.size != arr.size:
        raise ValueError("place: mask and data must be the same size")
    vals = ravel(_array(vals))
    count = int(_array(mask).astype(bool).sum().get())
    if count == 0:
        return
    if vals.size == 0:
        raise ValueError("Cannot insert from an empty array!")
    if vals.size != count:
        vals = take(vals, arange(count) % vals.size)
    flat = ravel(arr) if arr.flags.c_contiguous else arr.reshape(-1)
    flat[ravel(mask).astype(bool)] = vals.astype(arr.dtype)
    if not arr.flags.c_contiguous:
        arr[...] = flat.reshape(arr.shape)


def putmask(a, mask, values):
    """Where ``mask`` is true, ``a`` takes ``values`` at the same flat position (``values``
    repeated as needed; in place)."""
    a = _array(a)
    mask = broadcast_to(_array(mask).astype(bool), a.shape)
    if not isinstance(values, (bool, int, float, complex)):
        values = _array(values)
        if not np.can_cast(values.dtype, a.dtype, "safe"):
            raise TypeError(
                f"Cannot cast array data from {values.dtype!r} to {a.dtype!r} according to the rule 'safe'"
            )
    values = ravel(_array(values))
    if values.size == 0:
        if bool(mask.any()):
            raise ValueError("putmask: values must not be empty where the mask is set")
        return
    if values.size != a.size:
        values = take(values, arange(a.size) % values.size)
    a[...] = where(mask, values.reshape(a.shape).astype(a.dtype), a)


def copyto(dst, src, casting="same_kind", where=True):
    """``dst[...] = src`` (broadcast), only where ``where`` is true, under ``casting``."""
    from ._indexing import where as _where

    if type(src) in (bool, int, float, complex):  # not NumPy's float64/complex128 subclasses
        # A Python scalar casts by its kind (NEP 50): into booleans only a bool, into
        # integers a bool or an int, into floats no complex, unless casting is 'unsafe' (then
        # converted as NumPy converts, the real part of a complex); an int out of range raises
        # OverflowError when written.
        kinds = {bool: "biufc", int: "iufc", float: "fc", complex: "c"}[type(src)]
        if dst.dtype.kind not in kinds:
            if casting != "unsafe":
                kind = np.dtype(type(src))
                raise TypeError(f"Cannot cast scalar from {kind!r} to {dst.dtype!r} according to the rule {casting!r}")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
                src = np.array(src).astype(dst.dtype)[()]
    else:
        src = _array(src)
        if not np.can_cast(src.dtype, dst.dtype, casting):
            raise TypeError(
                f"Cannot cast array data from {src.dtype!r} to {dst.dtype!r} according to the rule {casting!r}"
            )
    if isinstance(where, (bool, int, float, complex)):
        where = bool(where)  # a Python scalar condition: all or nothing, as NumPy reads it
        if not where:
            return
    if where is True:
        dst[...] = src
        return
    where = _array(where)
    if not np.can_cast(where.dtype, np.bool_, "safe"):
        raise TypeError(f"Cannot cast array data from {where.dtype!r} to dtype('bool') according to the rule 'safe'")
    value = src.astype(dst.dtype) if isinstance(src, _ember.ndarray) else full((), src, dtype=dst.dtype)
    dst[...] = _where(where, value, dst)


def fill_diagonal(a, val, wrap=False):
    """The main diagonal of ``a`` set to ``val`` (repeated as needed; in place)."""
    a = _array(a)
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim == 2:
        step = a.shape[1] + 1
        end = None if wrap else a.shape[1] * a.shape[1]
    else:
        if len(set(a.shape)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        step = 1 + int(np.cumprod(a.shape[:-1]).sum())
        end = None
    flat_index = np.arange(a.size)[:end:step]
    put(a, asarray(flat_index), val)
