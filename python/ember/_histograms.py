"""Counting into bins on the device: ``bincount``, ``digitize``, ``histogram`` (bins as a count,
edges or NumPy's named rules; weights, density), ``histogram_bin_edges``, ``histogram2d`` and
``histogramdd``.

Every count is one kernel (``_count``): each block counts its share of the elements into its
own histogram in shared memory with shared atomics, then adds it to the result with one global
atomic a bin; more bins than shared memory holds are counted with global atomics. Weighted
counts add the weights with global atomics (``add.at``). A histogram's bin of each value is
NumPy's: for equal bins, its arithmetic ``(x - first) / (last - first) * bins`` corrected
against the edges, as NumPy corrects it; for other edges, a search of the edges.
"""

from __future__ import annotations

import builtins
import operator
import warnings

import numpy as np

from . import _ember, _reductions
from ._creation import asarray, zeros
from ._indexing import where
from ._jit import jit
from ._jit.intrinsics import atomic, blockDim, grid, gridsize, shared, syncthreads, threadIdx
from ._sorting import searchsorted
from ._ufuncs import UFUNCS

_logical_and = UFUNCS["logical_and"]

__all__ = ["bincount", "digitize", "histogram", "histogram2d", "histogram_bin_edges", "histogramdd"]

# Bins a block counts in shared memory (32-bit counts: 16 KiB).
_SHARED_BINS = 4096
_THREADS = 256


@jit(device=True)
def _clear(hist, nbins):
    """A block's shared histogram set to zero (then a barrier)."""
    b = threadIdx.x
    while b < nbins:
        hist[b] = 0
        b += blockDim.x
    syncthreads()


@jit(device=True)
def _flush(hist, counts, nbins):
    """A block's shared histogram added to ``counts`` (after a barrier): one global atomic a
    bin that counted anything."""
    syncthreads()
    b = threadIdx.x
    while b < nbins:
        if hist[b] != 0:
            atomic.add(counts, b, hist[b])
        b += blockDim.x


@jit
def _count_shared(x, counts, nbins):
    """``counts[x[i]] += 1`` (``nbins`` bins, at most ``_SHARED_BINS``), a block's counts
    gathered in shared memory first."""
    hist = shared.array(_SHARED_BINS, np.uint32)
    _clear(hist, nbins)
    i = grid(1)
    while i < x.size:
        atomic.add(hist, x[i], 1)
        i += gridsize(1)
    _flush(hist, counts, nbins)


@jit
def _count_global(x, counts):
    """``counts[x[i]] += 1`` with global atomics (bins beyond shared memory)."""
    i = grid(1)
    while i < x.size:
        atomic.add(counts, x[i], 1)
        i += gridsize(1)


@jit
def _count_uniform(x, edges, counts, first, last, norm, scale, nbins):
    """A histogram of equal bins in one pass: each value of ``x`` (in the edges' dtype, as
    ``first``, ``last``, ``norm`` and ``scale``, the bin count) in [first, last] goes to bin
    ``int((v - first) / norm * scale)``, corrected against the edges as NumPy corrects it; a
    block's counts gathered in shared memory first."""
    hist = shared.array(_SHARED_BINS, np.uint32)
    _clear(hist, nbins)
    i = grid(1)
    while i < x.size:
        v = x[i]
        if v >= first and v <= last:
            k = int(((v - first) / norm) * scale)
            if k >= nbins:
                k = nbins - 1
            if v < edges[k]:
                k -= 1
            if k != nbins - 1 and v >= edges[k + 1]:
                k += 1
            atomic.add(hist, k, 1)
        i += gridsize(1)
    _flush(hist, counts, nbins)


def _array(a):
    return a if isinstance(a, _ember.ndarray) else asarray(a)


def _scalar(x):
    """A device reduction's answer as NumPy's scalar (the host arithmetic below is NumPy's)."""
    return x.get()[()]


def _extremes(x):
    """The smallest and largest element as NumPy scalars: both reductions queued, then one
    wait."""
    low, high = _reductions.min(x), _reductions.max(x)
    return _scalar(low), _scalar(high)


def _blocks(n: int) -> int:
    """Blocks of a counting kernel: 16 elements a thread, at most 1,024 blocks (they loop)."""
    return max(1, min(-(-n // (_THREADS * 16)), 1024))


def _count(index, nbins: int, weights=None):
    """The number of each of ``0 .. nbins - 1`` in the integer ``index`` (every value in
    range), or the sum of the ``weights`` (float64) at each."""
    if weights is not None:
        out = zeros(nbins, np.float64)
        UFUNCS["add"].at(out, index, weights)
        return out
    counts = zeros(nbins, np.uint64)
    if index.size:
        blocks = _blocks(index.size)
        if nbins <= _SHARED_BINS:
            _count_shared[blocks, _THREADS](index, counts, nbins)
        else:
            _count_global[blocks, _THREADS](index, counts)
    return counts.astype(np.intp)


# --- bincount ------------------------------------------------------------------------------------
def bincount(x, /, weights=None, minlength=0):
    """The number of occurrences of each value in ``x`` (non-negative integers), or the sum of
    ``weights`` at each; at least ``minlength`` bins."""
    x = _array(x)
    if x.ndim == 0:
        raise ValueError("object of too small depth for desired array")
    if x.ndim > 1:
        raise ValueError("object too deep for desired array")
    if not np.can_cast(x.dtype, np.intp, "safe"):
        raise TypeError(f"Cannot cast array data from {x.dtype!r} to dtype('int64') according to the rule 'safe'")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if weights is not None:
        weights = _array(weights)
        if weights.shape != x.shape:
            raise ValueError("The weights and list don't have the same length.")
        weights = weights.astype(np.float64)
    if x.dtype == np.bool_:
        x = x.astype(np.uint8)
    if x.size == 0:  # NumPy's answer before it looks at weights
        return zeros(minlength, np.intp)
    low, high = (int(v) for v in _extremes(x))
    if low < 0:
        raise ValueError("'list' argument must have no negative elements")
    return _count(x, max(high + 1, minlength), weights)


# --- digitize ------------------------------------------------------------------------------------
def _monotonic(bins) -> int:
    """1 if ``bins`` (a host array) increases, -1 if it decreases, else 0: NumPy's check, pair
    by pair after the leading run of equal values, so that NaN edges (never equal, never less
    or greater) decide as they do in NumPy."""
    if len(bins) == 0:
        return 1
    first = bins[0]
    i = 1
    while i < len(bins) and bins[i] == first:
        i += 1
    if i == len(bins):
        return 1
    pairs = zip(bins[i - 1:-1], bins[i:], strict=True)
    if first < bins[i]:
        return 0 if any(p > q for p, q in pairs) else 1
    return 0 if any(p < q for p, q in pairs) else -1


def digitize(x, bins, right=False):
    """The index of the bin of ``bins`` (monotonic edges) each value of ``x`` falls in."""
    x = _array(x)
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    edges = bins.get() if isinstance(bins, _ember.ndarray) else np.asarray(bins)
    if edges.ndim != 1:
        raise ValueError("object too deep for desired array" if edges.ndim > 1 else
                         "object of too small depth for desired array")
    direction = _monotonic(edges)
    if direction == 0:
        raise ValueError("bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    if direction == -1:  # the reversed edges' places, counted from the other end
        return len(edges) - searchsorted(asarray(edges[::-1].copy()), x, side=side)
    return searchsorted(asarray(edges), x, side=side)


# --- histogram -----------------------------------------------------------------------------------
_UNSIGNED = {np.dtype(np.int8): np.uint8, np.dtype(np.int16): np.uint16, np.dtype(np.int32): np.uint32,
             np.dtype(np.int64): np.uint64}


def _unsigned_subtract(a, b):
    """``a - b`` (``a >= b``) of host numbers, unsigned for signed integers: the difference of
    an int16 range may not fit int16 (NumPy's ``_unsigned_subtract``)."""
    dt = np.result_type(a, b)
    if dt in _UNSIGNED:
        return np.subtract(np.asarray(a, dtype=dt), np.asarray(b, dtype=dt), casting="unsafe", dtype=_UNSIGNED[dt])
    return np.subtract(a, b, dtype=dt)


def _outer_edges(a, range_):
    """The first and last edge: ``range`` or the data's extremes (NumPy scalars), widened by
    0.5 each way when equal (NumPy's ``_get_outer_edges``)."""
    if range_ is not None:
        first, last = range_
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    elif a.size == 0:
        first, last = 0, 1
    else:
        first, last = _extremes(a)
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"autodetected range of [{first}, {last}] is not finite")
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


def _ptp(x):
    low, high = _extremes(x)
    return _unsigned_subtract(high, low)


def _width_sqrt(x, range_):
    return _ptp(x) / np.sqrt(x.size)


def _width_sturges(x, range_):
    return _ptp(x) / (np.log2(x.size) + 1.0)


def _width_rice(x, range_):
    return _ptp(x) / (2.0 * x.size ** (1.0 / 3))


def _width_scott(x, range_):
    return (24.0 * np.pi**0.5 / x.size) ** (1.0 / 3.0) * _scalar(_reductions.std(x))


def _width_stone(x, range_):
    n, ptp = x.size, _ptp(x)
    if n <= 1 or ptp == 0:
        return 0

    def jhat(nbins):
        p_k = histogram(x, bins=nbins, range=range_)[0].get() / n
        return (2 - (n + 1) * p_k.dot(p_k)) / (ptp / nbins)

    upper = max(100, int(np.sqrt(n)))
    nbins = min(builtins.range(1, upper + 1), key=jhat)
    if nbins == upper:
        warnings.warn("The number of bins estimated may be suboptimal.", RuntimeWarning, stacklevel=4)
    return ptp / nbins


def _width_doane(x, range_):
    if x.size > 2:
        sg1 = np.sqrt(6.0 * (x.size - 2) / ((x.size + 1.0) * (x.size + 3)))
        sigma = _scalar(_reductions.std(x))
        if sigma > 0.0:
            g1 = _scalar(_reductions.mean(((x - _reductions.mean(x)) / sigma) ** 3))
            return _ptp(x) / (1.0 + np.log2(x.size) + np.log2(1.0 + np.absolute(g1) / sg1))
    return 0.0


def _width_fd(x, range_):
    from ._quantiles import percentile
    iqr = np.subtract(*percentile(x, [75, 25]).get())
    return 2.0 * iqr * x.size ** (-1.0 / 3.0)


def _width_auto(x, range_):
    fd = _width_fd(x, range_)
    return min(max(fd, _width_sqrt(x, range_) / 2), _width_sturges(x, range_))


_WIDTHS = {"stone": _width_stone, "auto": _width_auto, "doane": _width_doane, "fd": _width_fd,
           "rice": _width_rice, "scott": _width_scott, "sqrt": _width_sqrt, "sturges": _width_sturges}


def _bin_edges(a, bins, range_, weights):
    """NumPy's ``_get_bin_edges``: the edges (a host array) and, for equal bins, their outer
    edges and count."""
    n_equal = None
    if isinstance(bins, str):
        if bins not in _WIDTHS:
            raise ValueError(f"{bins!r} is not a valid estimator for `bins`")
        if weights is not None:
            raise TypeError("Automated estimation of the number of bins is not supported for weighted data")
        first, last = _outer_edges(a, range_)
        if range_ is not None:
            a = a[_logical_and(a >= first, a <= last)]
        if a.size == 0:
            n_equal = 1
        else:
            width = _WIDTHS[bins](a, (first, last))
            if width:
                if a.dtype.kind in "iu" and width < 1:
                    width = 1
                n_equal = int(np.ceil(_unsigned_subtract(last, first) / width))
            else:
                n_equal = 1
    elif np.ndim(bins) == 0:
        try:
            n_equal = operator.index(bins)
        except TypeError as e:
            raise TypeError("`bins` must be an integer, a string, or an array") from e
        if n_equal < 1:
            raise ValueError("`bins` must be positive, when an integer")
        first, last = _outer_edges(a, range_)
    elif np.ndim(bins) == 1:
        edges = bins.get() if isinstance(bins, _ember.ndarray) else np.asarray(bins)
        if np.any(edges[:-1] > edges[1:]):
            raise ValueError("`bins` must increase monotonically, when an array")
        return edges, None
    else:
        raise ValueError("`bins` must be 1d, when an array")
    bin_type = np.result_type(first, last, np.empty(0, a.dtype))
    if np.issubdtype(bin_type, np.integer):
        bin_type = np.result_type(bin_type, float)
    edges = np.linspace(first, last, n_equal + 1, endpoint=True, dtype=bin_type)
    if np.any(edges[:-1] >= edges[1:]):
        raise ValueError(f"Too many bins for data range. Cannot create {n_equal} finite-sized bins.")
    return edges, (first, last, n_equal)


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002  (NumPy's name)
    """The edges ``histogram`` would use."""
    a = _array(a).ravel()
    if weights is not None:
        weights = _array(weights).ravel()
    return asarray(_bin_edges(a, bins, range, weights)[0])


def histogram(a, bins=10, range=None, density=None, weights=None):  # noqa: A002  (NumPy's name)
    """The counts (or summed ``weights``; a density if asked) of ``a`` in each bin, and the
    bin edges."""
    a = _array(a).ravel()
    if weights is not None:
        weights = _array(weights)
        if weights.shape != a.shape and weights.size != a.size:
            raise ValueError("weights should have the same shape as a.")
        weights = weights.ravel()
    edges, uniform = _bin_edges(a, bins, range, weights)
    nbins = len(edges) - 1
    ntype = np.dtype(np.intp) if weights is None else weights.dtype
    if uniform is not None and weights is None and nbins <= _SHARED_BINS and edges.dtype.kind == "f":
        counts = _uniform_counts(a, edges, uniform)
        if density:
            widths = asarray(np.array(np.diff(edges), float))
            return counts / widths / _reductions.sum(counts), asarray(edges)
        return counts, asarray(edges)
    if uniform is not None:
        index, keep = _uniform_bins(a, edges, uniform)
    else:
        index, keep = _searched_bins(a, edges)
    w = None if weights is None else weights[keep]
    index = index[keep]
    if w is None:
        counts = _count(index, nbins)
    elif ntype.kind == "c":
        counts = _count(index, nbins, w.real.astype(np.float64)) + 1j * _count(index, nbins, w.imag.astype(np.float64))
        counts = counts.astype(ntype)
    else:
        counts = _count(index, nbins, w.astype(np.float64)).astype(ntype)
    if density:
        widths = asarray(np.array(np.diff(edges), float))
        return counts / widths / _reductions.sum(counts), asarray(edges)
    return counts, asarray(edges)


def _uniform_counts(a, edges, uniform):
    """The counts of equal bins in one pass over ``a`` (``_count_uniform``)."""
    first, last, n = uniform
    kind = edges.dtype.type
    x = a if a.dtype == edges.dtype else a.astype(edges.dtype)
    counts = zeros(n, np.uint64)
    if x.size:
        norm = kind(_unsigned_subtract(last, first))
        _count_uniform[_blocks(x.size), _THREADS](x, asarray(edges), counts, kind(first), kind(last), norm,
                                                  kind(n), n)
    return counts.astype(np.intp)


def _uniform_bins(a, edges, uniform):
    """Each value's bin by NumPy's arithmetic (the value cast to the edges' dtype), then
    corrected against the edges as NumPy corrects it; with which values are in range."""
    first, last, n = uniform
    keep = _logical_and(a >= first, a <= last)
    x = a.astype(edges.dtype)
    f_indices = ((x - first) / _unsigned_subtract(last, first)) * n
    index = f_indices.astype(np.intp)
    index = where(index == n, n - 1, index)
    # Values outside the range are dropped later; keep their indices in bounds meanwhile.
    index = UFUNCS["minimum"](UFUNCS["maximum"](index, 0), n - 1)
    e = asarray(edges)
    index = where(x < e[index], index - 1, index)
    index = UFUNCS["maximum"](index, 0)
    index = where(_logical_and(x >= e[index + 1], index != n - 1), index + 1, index)
    return index, keep


def _searched_bins(a, edges):
    """Each value's bin among increasing ``edges``, the last bin closed; with which values
    fall in a bin."""
    e = asarray(edges)
    n = len(edges) - 1
    index = searchsorted(e, a, side="right") - 1
    index = where(a == edges[-1], n - 1, index)
    keep = _logical_and(index >= 0, index < n)
    return UFUNCS["minimum"](UFUNCS["maximum"](index, 0), max(n - 1, 0)), keep


def histogramdd(sample, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """The multidimensional histogram of ``sample`` (N points of D coordinates)."""
    if isinstance(sample, (list, tuple)) and not isinstance(sample, _ember.ndarray):
        sample = [_array(s) for s in sample]
        from ._shape import stack
        sample = stack(sample, axis=-1)
    sample = _array(sample)
    if sample.ndim == 1:
        sample = sample[:, None]
    n, d = sample.shape
    try:
        if len(bins) != d:
            raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    except TypeError:
        bins = [bins] * d
    ranges = [None] * d if range is None else list(range)
    if len(ranges) != d:
        raise ValueError("range argument must have one entry per dimension")
    edges, flat, keep = [], None, None
    for k in builtins.range(d):
        col = sample[:, k]
        if np.ndim(bins[k]) == 0:
            nb = operator.index(bins[k])
            if nb < 1:
                raise ValueError(f"`bins[{k}]` must be positive, when an integer")
            first, last = _outer_edges(col, ranges[k])
            e = np.linspace(first, last, nb + 1)
        else:
            e = bins[k].get() if isinstance(bins[k], _ember.ndarray) else np.asarray(bins[k], dtype=float)
            if np.any(e[:-1] > e[1:]):
                raise ValueError(f"`bins[{k}]` must be monotonically increasing, when an array")
        edges.append(e)
        # NumPy's digitize of each coordinate, the rightmost edge closed.
        idx = searchsorted(asarray(e), col, side="right")
        idx = where(col == e[-1], idx - 1, idx)
        inside = _logical_and(idx >= 1, idx <= len(e) - 1)
        keep = inside if keep is None else _logical_and(keep, inside)
        flat = idx - 1 if flat is None else flat * (len(e) - 1) + (idx - 1)
    shape = tuple(len(e) - 1 for e in edges)
    size = int(np.prod(shape))
    w = None if weights is None else _array(weights).astype(np.float64)[keep]
    counts = _count(flat[keep], size, w)
    hist = counts.astype(np.float64).reshape(shape)
    if density:
        s = _reductions.sum(hist)
        for k in builtins.range(d):
            widths = np.diff(edges[k])
            shape_k = [1] * d
            shape_k[k] = len(widths)
            hist = hist / asarray(widths.reshape(shape_k))
        hist = hist / s
    return hist, [asarray(e) for e in edges]



def histogram2d(x, y, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """The 2-D histogram of the points (``x``, ``y``)."""
    x, y = _array(x), _array(y)
    if x.shape != y.shape:
        raise ValueError("x and y must have the same shape")
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n != 1 and n != 2:
        bins = [bins, bins]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]
