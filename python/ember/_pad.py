"""NumPy's ``pad``, every mode (and a function as mode).

The result is allocated once with the array copied into its middle; then each axis in turn
fills its two pad areas (spanning the axes before it whole, and the axes after it over the
original extent only, as NumPy does, so corners come out as NumPy's). Reflections and wraps
wider than the array repeat in chunks of the array's length, which is what NumPy's results
are; every fill is a slice assignment on the device.
"""

from __future__ import annotations

import numpy as np

from . import _ember, _reductions
from ._creation import arange, asarray, empty
from ._order_statistics import median
from ._shape import moveaxis
from ._ufuncs import UFUNCS

__all__ = ["pad"]

_STATS = {"maximum": _reductions.max, "minimum": _reductions.min, "mean": _reductions.mean, "median": median}


def _pairs(x, ndim: int, as_index: bool = False):
    """``x`` as one (before, after) pair per axis."""
    if x is None:
        return ((None, None),) * ndim
    x = np.asarray(x)
    if as_index:
        x = np.round(x).astype(np.intp)
    if x.ndim < 3:
        if x.size == 1:
            x = x.ravel()
            if as_index and x[0] < 0:
                raise ValueError("index can't contain negative values")
            return ((x[0], x[0]),) * ndim
        if x.size == 2 and x.shape != (2, 1):
            x = x.ravel()
            if as_index and (x[0] < 0 or x[1] < 0):
                raise ValueError("index can't contain negative values")
            return ((x[0], x[1]),) * ndim
    if as_index and x.min() < 0:
        raise ValueError("index can't contain negative values")
    return np.broadcast_to(x, (ndim, 2)).tolist()


def _widths(pad_width, ndim: int):
    """``pad_width`` as integer (before, after) pairs, one per axis (NumPy's checks)."""
    if np.asarray(pad_width).dtype.kind not in "iu":
        raise TypeError("`pad_width` must be of integral type.")
    return _pairs(pad_width, ndim, as_index=True)


def _pad_with(function, a, pad_width, kwargs):
    """NumPy's ``pad`` with a function as mode: the array padded with zeros, then
    ``function(vector, (before, after), axis, kwargs)`` called on every 1-d vector along each
    axis in turn, writing the padding in place (a Python loop over the vectors, as NumPy's)."""
    widths = [(int(b), int(e)) for b, e in _widths(pad_width, a.ndim)]
    padded = pad(a, widths, mode="constant")
    for axis in range(padded.ndim):
        view = moveaxis(padded, axis, -1)
        for index in np.ndindex(view.shape[:-1]):
            function(view[index + (Ellipsis,)], widths[axis], axis, kwargs)
    return padded


def _at(axis: int, s: slice) -> tuple:
    """``s`` along ``axis``, everything along the axes before it."""
    return (slice(None),) * axis + (s,)


def _fill(padded, axis, widths, values):
    """The two pad areas of ``axis`` set to ``values`` (arrays or scalars)."""
    before, after = widths
    n = padded.shape[axis]
    if before:
        padded[_at(axis, slice(None, before))] = values[0]
    if after:
        padded[_at(axis, slice(n - after, None))] = values[1]


def _edges(padded, axis, widths):
    """The first and last element along ``axis`` of the area within ``widths`` (kept dims)."""
    first, last = widths[0], padded.shape[axis] - widths[1]
    return padded[_at(axis, slice(first, first + 1))], padded[_at(axis, slice(last - 1, last))]


def _round_to(x, dtype):
    """``x`` rounded half to even when ``dtype`` holds integers (NumPy rounds statistics and
    ramps before casting them into an integer array)."""
    return UFUNCS["rint"](x) if np.dtype(dtype).kind in "iub" else x


def _ramps(padded, axis, widths, ends):
    """Linear ramps from ``ends`` to the edges, as ``linspace(end, edge, width, endpoint=False)``."""
    out = []
    for k, (edge, end, width) in enumerate(zip(_edges(padded, axis, widths), ends, widths, strict=True)):
        if not width:
            out.append(None)
            continue
        kind = np.result_type(padded.dtype, end, 1.0)
        shape = [1] * padded.ndim
        shape[axis] = width
        steps = arange(width, dtype=kind).reshape(shape)
        start = asarray(end, dtype=kind)
        ramp = start + steps * ((edge.astype(kind) - start) / width)
        if np.dtype(padded.dtype).kind in "iu":
            ramp = UFUNCS["floor"](ramp)
        out.append(ramp if k == 0 else ramp[_at(axis, slice(None, None, -1))])
    return out


def _stats(padded, axis, widths, lengths, stat):
    first, last = widths[0], padded.shape[axis] - widths[1]
    most = last - first
    left = most if lengths[0] is None or most < lengths[0] else lengths[0]
    right = most if lengths[1] is None or most < lengths[1] else lengths[1]
    if (left == 0 or right == 0) and stat not in (_reductions.mean, median):
        raise ValueError("stat_length of 0 yields no value for padding")
    value = lambda s: _round_to(stat(padded[_at(axis, s)], axis=axis, keepdims=True), padded.dtype)  # noqa: E731
    left_stat = value(slice(first, first + left))
    if left == right == most:
        return left_stat, left_stat
    return left_stat, value(slice(last - right, last))


def _reflect(padded, axis, widths, odd: bool, period: int, include_edge: bool):
    """One round of reflection into both pad areas; returns what is left to fill."""
    before, after = widths
    length = padded.shape[axis] - before - after
    if include_edge:
        length = length // period * period
        offset = 1
    else:
        length = (length - 1) // (period - 1) * (period - 1)
        offset = 0
    if before:
        chunk = min(length, before)
        stop = before - offset
        part = padded[_at(axis, slice(stop + chunk, stop, -1))]
        if odd:
            part = 2 * padded[_at(axis, slice(before, before + 1))] - part
        padded[_at(axis, slice(before - chunk, before))] = part
        before -= chunk
    if after:
        n = padded.shape[axis]
        chunk = min(length, after)
        start = n - after + offset - 2
        part = padded[_at(axis, slice(start, start - chunk if start - chunk >= 0 else None, -1))]
        if odd:
            part = 2 * padded[_at(axis, slice(n - after - 1, n - after))] - part
        padded[_at(axis, slice(n - after, n - after + chunk))] = part
        after -= chunk
    return before, after


def _wrap(padded, axis, widths, period: int):
    """One round of wrapping into both pad areas; returns what is left to fill."""
    before, after = widths
    n = padded.shape[axis]
    length = (n - before - after) // period * period
    left = right = 0
    if before:
        end = before + length
        part = padded[_at(axis, slice(end - min(length, before), end))]
        if before > length:
            padded[_at(axis, slice(before - length, before))] = part
            left = before - length
        else:
            padded[_at(axis, slice(None, before))] = part
    if after:
        start = n - after - length
        part = padded[_at(axis, slice(start, start + min(length, after)))]
        if after > length:
            padded[_at(axis, slice(n - after, n - after + length))] = part
            right = after - length
        else:
            padded[_at(axis, slice(n - after, None))] = part
    return left, right


def pad(array, pad_width, mode="constant", **kwargs):
    """``array`` padded by ``pad_width`` (per axis: before, after) as ``mode`` says."""
    a = array if isinstance(array, _ember.ndarray) else asarray(array)
    if callable(mode):
        return _pad_with(mode, a, pad_width, kwargs)
    allowed = {
        "constant": {"constant_values"}, "edge": set(), "wrap": set(), "empty": set(),
        "linear_ramp": {"end_values"}, "maximum": {"stat_length"}, "mean": {"stat_length"},
        "minimum": {"stat_length"}, "median": {"stat_length"}, "reflect": {"reflect_type"},
        "symmetric": {"reflect_type"},
    }
    if mode not in allowed:
        raise ValueError(f"mode '{mode}' is not supported")
    unknown = set(kwargs) - allowed[mode]
    if unknown:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unknown}")
    widths = [(int(b), int(e)) for b, e in _widths(pad_width, a.ndim)]
    shape = tuple(b + n + e for n, (b, e) in zip(a.shape, widths, strict=True))
    padded = empty(shape, dtype=a.dtype)
    middle = tuple(slice(b, b + n) for n, (b, _) in zip(a.shape, widths, strict=True))
    padded[middle] = a

    def area(axis):  # the axes before `axis` whole, those after it over the original extent
        return padded[(slice(None),) * (axis + 1) + middle[axis + 1:]]

    if mode == "empty":
        return padded
    if mode == "constant":
        values = _pairs(kwargs.get("constant_values", 0), a.ndim)
        for axis, (w, v) in enumerate(zip(widths, values, strict=True)):
            _fill(area(axis), axis, w, v)
        return padded
    for axis, w in enumerate(widths):
        if a.shape[axis] == 0 and any(w):
            raise ValueError(f"can't extend empty axis {axis} using modes other than 'constant' or 'empty'")
    if a.size == 0:
        return padded
    if mode == "edge":
        for axis, w in enumerate(widths):
            _fill(area(axis), axis, w, _edges(area(axis), axis, w))
    elif mode == "linear_ramp":
        ends = _pairs(kwargs.get("end_values", 0), a.ndim)
        for axis, (w, e) in enumerate(zip(widths, ends, strict=True)):
            _fill(area(axis), axis, w, _ramps(area(axis), axis, w, e))
    elif mode in _STATS:
        lengths = _pairs(kwargs.get("stat_length"), a.ndim, as_index=True)
        for axis, (w, n) in enumerate(zip(widths, lengths, strict=True)):
            n = tuple(None if x is None else int(x) for x in n)
            _fill(area(axis), axis, w, _stats(area(axis), axis, w, n, _STATS[mode]))
    elif mode in ("reflect", "symmetric"):
        odd = kwargs.get("reflect_type", "even") == "odd"
        for axis, w in enumerate(widths):
            if a.shape[axis] == 1 and any(w):
                # NumPy extends a single element as an edge, even when reflecting it.
                _fill(padded, axis, w, _edges(padded, axis, w))
                continue
            while any(w):
                w = _reflect(area(axis), axis, w, odd, a.shape[axis], mode == "symmetric")
    else:
        for axis, w in enumerate(widths):
            while any(w):
                w = _wrap(area(axis), axis, w, a.shape[axis])
    return padded
