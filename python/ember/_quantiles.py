"""Quantiles on the device sort: ``quantile``, ``percentile`` (every NumPy ``method``, and
``weights`` with ``inverted_cdf``), their NaN-ignoring forms and ``nanmedian``.

As NumPy's, step for step: the slices are sorted (NaN last), each quantile's *virtual index*
in a slice comes from the slice's length by the method's rule (Hyndman and Fan's), the two
neighbouring values are taken and interpolated by NumPy's ``_lerp`` (``a + (b - a) * t``, or
``b - (b - a) * (1 - t)`` from ``t = 0.5`` on). The same formulas run on the host (NumPy, one
length for every slice) or on the device (the NaN-ignoring forms: a length per slice, its
count of values that are not NaN), each operation exactly rounded, so the answers are NumPy's
bit for bit.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from . import _ember, _reductions
from ._creation import asarray
from ._index_tricks import take_along_axis
from ._indexing import take, where
from ._order_statistics import median
from ._shape import broadcast_to, concatenate, moveaxis
from ._sorting import argsort, sort
from ._ufuncs import UFUNCS

__all__ = ["nanmedian", "nanpercentile", "nanquantile", "percentile", "quantile"]

_isnan = UFUNCS["isnan"]


# --- the methods: (virtual index from lengths n and quantiles q, gamma's fix-up or None) --------
# Each runs on NumPy arrays or ember arrays alike (`xp` is the namespace); n is an int or an
# array of float64 lengths broadcasting against q.
def _closest_observation(xp, n, q):
    # The nearest even order statistic at gamma 0 (1-based), so the nearest odd index.
    index = n * q - 1 - 0.5
    return _to_boundaries(xp, index, lambda gamma, i: (gamma == 0) & (xp.floor(i) % 2 == 1))


def _inverted_cdf(xp, n, q):
    return _to_boundaries(xp, n * q - 1, lambda gamma, _: gamma == 0)


def _to_boundaries(xp, index, at_previous):
    previous = xp.floor(index)
    gamma = index - previous
    chosen = xp.where(at_previous(gamma, index), previous, previous + 1).astype(np.intp)
    return xp.where(chosen < 0, 0, chosen)


def _hyndman_fan(alpha: float, beta: float):
    return lambda xp, n, q: n * q + (alpha + q * (1 - alpha - beta)) - 1


def _gamma_where(default: float, conditioned: float, where_fn):
    return lambda xp, gamma, index: xp.where(where_fn(xp, gamma, index), conditioned, default)


_METHODS = {
    "inverted_cdf": (_inverted_cdf, None),
    "averaged_inverted_cdf": (
        lambda xp, n, q: n * q - 1,
        _gamma_where(1.0, 0.5, lambda xp, gamma, _: gamma == 0),
    ),
    "closest_observation": (_closest_observation, None),
    "interpolated_inverted_cdf": (_hyndman_fan(0, 1), lambda xp, gamma, _: gamma),
    "hazen": (_hyndman_fan(0.5, 0.5), lambda xp, gamma, _: gamma),
    "weibull": (_hyndman_fan(0, 0), lambda xp, gamma, _: gamma),
    # (n - 1) * q rather than the equal Hyndman-Fan form: NumPy's choice, for its rounding.
    "linear": (lambda xp, n, q: (n - 1) * q, lambda xp, gamma, _: gamma),
    "median_unbiased": (_hyndman_fan(1 / 3.0, 1 / 3.0), lambda xp, gamma, _: gamma),
    "normal_unbiased": (_hyndman_fan(3 / 8.0, 3 / 8.0), lambda xp, gamma, _: gamma),
    "lower": (lambda xp, n, q: xp.floor((n - 1) * q).astype(np.intp), None),
    "higher": (lambda xp, n, q: xp.ceil((n - 1) * q).astype(np.intp), None),
    "midpoint": (
        lambda xp, n, q: 0.5 * (xp.floor((n - 1) * q) + xp.ceil((n - 1) * q)),
        _gamma_where(0.5, 0.0, lambda xp, gamma, index: index % 1 == 0),
    ),
    "nearest": (lambda xp, n, q: xp.around((n - 1) * q).astype(np.intp), None),
}


def _method(method):
    try:
        return _METHODS[method]
    except KeyError:
        raise ValueError(f"{method!r} is not a valid method. Use one of: {_METHODS.keys()}") from None


def _neighbours(xp, virtual, count):
    """The indexes either side of each virtual index; past either end, the end (-1: the last)."""
    previous = xp.floor(virtual)
    following = previous + 1
    above, below = virtual >= count - 1, virtual < 0
    previous = xp.where(above, -1, xp.where(below, 0, previous))
    following = xp.where(above, -1, xp.where(below, 0, following))
    nan = xp.isnan(virtual)
    previous, following = xp.where(nan, -1, previous), xp.where(nan, -1, following)
    return previous.astype(np.intp), following.astype(np.intp)


def _lerp(a, b, t, weak=None):
    """NumPy's ``_lerp``: from ``a`` by ``t`` of the way to ``b``, from ``b``'s side at
    ``t >= 0.5``. ``t`` is a Python float (weak in the result's dtype), or an array; with
    ``weak`` (a dtype), an array standing for Python floats: ``t`` and ``1 - t`` are formed
    at its precision, then rounded to ``weak``, as NumPy's weak scalars are."""
    diff = b - a
    if isinstance(t, float):
        return b - diff * (1 - t) if t >= 0.5 else a + diff * t
    up, down = t, 1 - t
    if weak is not None:
        up, down = up.astype(weak), down.astype(weak)
    return where(t >= 0.5, b - diff * down, a + diff * up)


# --- the arguments -----------------------------------------------------------------------------
def _arguments(a, q, axis, method, weights, percent: bool):
    """The checked arguments of the four functions: ``a`` (real), ``q`` on the host (a device
    array is fetched: it is small; percentages over 100), whether ``q`` is a Python number
    (weak in the result's dtype, NEP 50), and the weights broadcast to ``a``."""
    a = _real(a)
    weak = type(q) in (int, float)
    q = q.get() if isinstance(q, _ember.ndarray) else q
    q = np.true_divide(q, 100, out=...) if percent else np.asanyarray(q)
    if q.ndim > 2:
        raise ValueError("q must be a scalar or 1d")
    if q.size and not (q.min() >= 0 and q.max() <= 1):
        raise ValueError("Percentiles must be in the range [0, 100]" if percent else
                         "Quantiles must be in the range [0, 1]")
    w = None if weights is None else _weights(weights, a, axis, method)
    return a, q, weak, w


def _rows(a, axis):
    """``a`` with the reduced axes last and merged: (rows, their shape with the reduced axes
    kept as 1, the reduced length)."""
    axes = tuple(range(a.ndim)) if axis is None else normalize_axis_tuple(axis, a.ndim)
    kept = [k for k in range(a.ndim) if k not in axes]
    moved = moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim))) if axes else a
    lead = tuple(a.shape[k] for k in kept)
    n = 1
    for k in axes:
        n *= a.shape[k]
    kept_shape = tuple(1 if k in axes else a.shape[k] for k in range(a.ndim))
    return moved.reshape(lead + (n,)), kept_shape, n


def _finish(result, q, kept_shape, keepdims, out):
    """Quantile axes first (NumPy's layout), the reduced axes kept as 1 if asked, into
    ``out`` if given."""
    qdims = q.ndim
    if qdims:
        moved = moveaxis(result, tuple(range(result.ndim - qdims, result.ndim)), tuple(range(qdims)))
        result = moved if moved.flags.c_contiguous else moved.copy()
    if keepdims:
        result = result.reshape(q.shape + kept_shape)
    if out is not None:
        out[...] = result
        return out
    return result


def _real(a):
    a = a if isinstance(a, _ember.ndarray) else asarray(a)
    if a.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    return a


def _weights(weights, a, axis, method):
    if method != "inverted_cdf":
        raise ValueError(f"Only method 'inverted_cdf' supports weights. Got: {method}.")
    w = weights if isinstance(weights, _ember.ndarray) else asarray(weights)
    if w.shape != a.shape:
        axes = None if axis is None else normalize_axis_tuple(axis, a.ndim)
        if axes is None or len(axes) != 1 or w.ndim != 1:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        if w.shape[0] != a.shape[axes[0]]:
            raise ValueError("Shape of weights must be consistent with shape of a along specified axis.")
        shape = [1] * a.ndim
        shape[axes[0]] = w.shape[0]
        w = w.reshape(tuple(shape))
    if bool(_reductions.any(w < 0)):
        raise ValueError("Weights must be non-negative.")
    return broadcast_to(w, a.shape)


# --- quantile ------------------------------------------------------------------------------------
def _quantile(a, q, weak, axis, out, method, keepdims, weights, overwrite=False):
    virtual_fn, fix_gamma = _method(method)
    rows, kept_shape, n = _rows(a, axis)
    lead = rows.shape[:-1]
    if n == 0:
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    if weights is not None:
        w_rows = _rows(weights, axis)[0]
        order = argsort(rows, axis=-1)
        ordered = take_along_axis(rows, order, axis=-1)
        result = _weighted(ordered, take_along_axis(w_rows, order, axis=-1), q, n)
    else:
        ordered = sort(rows, axis=-1)
        if overwrite:
            _write_back(a, axis, ordered)
        virtual = np.asanyarray(virtual_fn(np, n, q))
        if fix_gamma is None or (method == "linear" and virtual.dtype.kind in "iu"):
            # No interpolation: the indexed values themselves (in the input's dtype).
            result = take(ordered, asarray(virtual.ravel() % n), axis=-1).reshape(lead + q.shape)
        else:
            previous, following = _neighbours(np, virtual, n)
            gamma = np.asanyarray(fix_gamma(np, np.asanyarray(virtual - previous), virtual), dtype=virtual.dtype)
            low = take(ordered, asarray((previous % n).ravel()), axis=-1).reshape(lead + q.shape)
            high = take(ordered, asarray((following % n).ravel()), axis=-1).reshape(lead + q.shape)
            t = float(gamma) if weak else asarray(gamma)
            result = _lerp(low, high, t)
    if ordered.dtype.kind == "f":
        # NaN sorts last: a slice holding NaN has NaN as every quantile (a single answer
        # is then that NaN itself, in the input's dtype, as NumPy's).
        last = ordered[..., -1:] if q.ndim else ordered[..., -1]
        if result.ndim == 0 and out is None and bool(_isnan(last)):
            result = last
        else:
            result = where(_isnan(last), last.astype(result.dtype), result)
    return _finish(result, q, kept_shape, keepdims, out)


def _weighted(ordered, w, q, n):
    """``inverted_cdf`` with weights: the first value whose cumulative weight reaches each
    quantile (NumPy's search of the normalised cumulative weights)."""
    cdf = _reductions.cumsum(w, axis=-1, dtype=np.float64)
    cdf = cdf / cdf[..., -1:]
    if bool(_reductions.any(_isnan(cdf[..., -1]))):
        raise ValueError("Weights included NaN, inf or were all zero.")
    if q.dtype.kind == "f":
        cdf = cdf.astype(q.dtype)
    if bool(_reductions.any(cdf[..., 0] == 0)):
        # Leading zero weights: the first value with weight is the answer at quantile 0.
        cdf = where(cdf == 0, -1, cdf)
    # searchsorted(cdf, q, 'left') per row: how many cumulative weights are below q.
    qs = asarray(q.ravel().astype(cdf.dtype))
    below = _reductions.sum(cdf[..., :, None] < qs, axis=-2)
    index = UFUNCS["minimum"](below, n - 1)
    return take_along_axis(ordered, index, axis=-1).reshape(ordered.shape[:-1] + q.shape)


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """The ``q``-th quantiles of ``a`` along ``axis`` (NumPy's, every ``method``)."""
    a, q, weak, w = _arguments(a, q, axis, method, weights, percent=False)
    return _quantile(a, q, weak, axis, out, method, keepdims, w, overwrite_input)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """The ``q``-th percentiles of ``a`` along ``axis`` (NumPy's, every ``method``)."""
    a, q, weak, w = _arguments(a, q, axis, method, weights, percent=True)
    return _quantile(a, q, weak, axis, out, method, keepdims, w, overwrite_input)


def _write_back(a, axis, ordered):
    """``overwrite_input``: ``a`` left sorted along the reduced axis, as NumPy leaves it
    partitioned (one axis, or the whole of a contiguous array)."""
    if axis is None and a.flags.c_contiguous:
        a.reshape(-1)[...] = ordered.reshape(-1)
    elif axis is not None and np.ndim(axis) == 0:
        a[...] = moveaxis(ordered, -1, normalize_axis_tuple(axis, a.ndim)[0])


# --- the NaN-ignoring forms ---------------------------------------------------------------------
def _nanquantile(a, q, weak, axis, out, method, keepdims, weights):
    if a.dtype.kind != "f":  # nothing to ignore
        return _quantile(a, q, weak, axis, out, method, keepdims, weights)
    if weights is not None:
        return _nan_weighted(a, q, axis, out, keepdims, weights)
    virtual_fn, fix_gamma = _method(method)
    rows, kept_shape, n = _rows(a, axis)
    lead = rows.shape[:-1]
    ordered = sort(rows, axis=-1)  # NaN last: each slice's valid values first
    # Each slice's length (its count of values that are not NaN) beside the quantile axes.
    # NumPy's length is a Python int, weak beside q: here it takes q's dtype (exact below 2^24
    # for float32, where NumPy rounds it the same).
    kind = q.dtype if q.dtype.kind == "f" else np.dtype(np.intp)
    valid = _reductions.sum(~_isnan(rows), axis=-1).astype(kind).reshape(lead + (1,) * q.ndim)
    virtual = virtual_fn(_ns, valid, float(q) if weak else asarray(q))
    count = valid.astype(np.intp)
    last = UFUNCS["maximum"](count - 1, 0)

    def pick(index):
        # Index -1 is a slice's last valid value; an all-NaN slice reads its first element.
        index = where(index < 0, count + index, index)
        index = UFUNCS["minimum"](UFUNCS["maximum"](index, 0), last)
        flat = index.reshape(lead + (-1,)) if q.ndim else index.reshape(lead + (1,))
        got = take_along_axis(ordered, flat, axis=-1)
        return got.reshape(lead + q.shape)

    if virtual.dtype.kind in "iu" or fix_gamma is None:
        result = pick(virtual)
    else:
        previous, following = _neighbours(_ns, virtual, valid)
        gamma = fix_gamma(_ns, virtual - previous, virtual).astype(virtual.dtype)
        t = gamma.reshape(lead + q.shape)
        # A Python q keeps the input's dtype (NEP 50's weak scalar).
        result = _lerp(pick(previous), pick(following), t, a.dtype if weak else None)
    empty = (count == 0).reshape(lead + (1,) * q.ndim)
    if bool(_reductions.any(empty)):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=3)
        result = where(empty, np.nan, result)
        # NumPy answers an all-NaN slice in the input's dtype, and its apply_along_axis gives
        # every slice the dtype of the first slice's answer.
        if bool(empty.reshape(-1)[0]):
            result = result.astype(a.dtype)
    return _finish(result, q, kept_shape, keepdims, out)


def _nan_weighted(a, q, axis, out, keepdims, weights):
    """Weighted ``inverted_cdf`` of each slice's values that are not NaN: NaN values weigh
    nothing (they sort last, after every weight has been counted)."""
    rows, kept_shape, n = _rows(a, axis)
    if n == 0:
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    order = argsort(rows, axis=-1)
    ordered = take_along_axis(rows, order, axis=-1)
    w = take_along_axis(_rows(weights, axis)[0], order, axis=-1)
    nan = _isnan(ordered)
    empty = _reductions.all(nan, axis=-1)
    # An all-NaN slice weighs its first value (any answer: it becomes NaN below).
    w = where(nan, 0, w)
    first = UFUNCS["logical_and"](empty[..., None], asarray(np.arange(n) == 0))
    w = where(first, 1, w)
    result = _weighted(ordered, w, q, n)
    if bool(_reductions.any(empty)):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=4)
        result = where(empty.reshape(empty.shape + (1,) * q.ndim), np.nan, result)
    return _finish(result, q, kept_shape, keepdims, out)


class _Namespace:
    """The few functions the method rules call, on ember arrays."""

    floor = staticmethod(UFUNCS["floor"])
    ceil = staticmethod(UFUNCS["ceil"])
    isnan = staticmethod(_isnan)
    where = staticmethod(where)

    @staticmethod
    def around(x):
        return UFUNCS["rint"](x)


_ns = _Namespace()


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                weights=None):
    """``quantile`` ignoring NaN values (NaN, with NumPy's warning, for an all-NaN slice)."""
    a, q, weak, w = _arguments(a, q, axis, method, weights, percent=False)
    return _nanquantile(a, q, weak, axis, out, method, keepdims, w)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                  weights=None):
    """``percentile`` ignoring NaN values (NaN, with NumPy's warning, for an all-NaN slice)."""
    a, q, weak, w = _arguments(a, q, axis, method, weights, percent=True)
    return _nanquantile(a, q, weak, axis, out, method, keepdims, w)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median ignoring NaN values: the middle value of each slice's valid values, or the
    mean of the middle two (NaN, with NumPy's warning, for an all-NaN slice)."""
    a = a if isinstance(a, _ember.ndarray) else asarray(a)
    if a.dtype.kind not in "fc":  # nothing to ignore
        return median(a, axis=axis, out=out, keepdims=keepdims)
    rows, kept_shape, n = _rows(a, axis)
    lead = rows.shape[:-1]
    if n == 0:
        return median(a, axis=axis, out=out, keepdims=keepdims)
    ordered = sort(rows, axis=-1)
    count = _reductions.sum(~_isnan(rows), axis=-1)[..., None]
    low = UFUNCS["maximum"]((count - 1) // 2, 0)
    high = UFUNCS["maximum"](count // 2, 0)
    pair = take_along_axis(ordered, UFUNCS["minimum"](low, n - 1), axis=-1), take_along_axis(
        ordered, UFUNCS["minimum"](high, n - 1), axis=-1)
    # The mean of the middle two as NumPy's median takes it: their sum, halved.
    middle = _reductions.mean(concatenate(pair, axis=-1), axis=-1)
    result = middle.reshape(lead)
    empty = count.reshape(lead) == 0
    if bool(_reductions.any(empty)):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=2)
        result = where(empty, np.nan, result)
    if keepdims:
        result = result.reshape(kept_shape)
    if out is not None:
        out[...] = result
        return out
    return result


