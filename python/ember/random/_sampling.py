"""Integers, choices and permutations, which ``Generator`` and ``RandomState`` share.

A permutation is a stable argsort of random 64-bit keys (ember's radix sort); a choice with
replacement searches the cumulative ``p``; a weighted choice without replacement keeps the
``size`` smallest of exponential keys divided by ``p`` (Efraimidis and Spirakis: the same law
as drawing one by one in proportion to what remains)."""

from __future__ import annotations

import numbers

import numpy as np

from .. import _dtypes
from .._ndarray import ndarray
from ._params import any_true, draw, host_or_device, is_scalar, out_shape


def _integer_dtype(dtype) -> str:
    d = _dtypes.normalize(dtype)
    if d.kind not in "iub":
        raise TypeError(f"Unsupported dtype {d} for randint: use an integer dtype or bool")
    return _dtypes.name_of(d)


class Sampling:
    """Integers, ``choice``, ``permutation``, ``shuffle``, ``permuted``, ``bytes``."""

    def _integers(self, low, high, size, dtype, endpoint: bool) -> ndarray:
        from .._creation import empty

        if high is None:
            low, high = 0, low
        name = _integer_dtype(dtype)
        if is_scalar(low) and is_scalar(high):
            lo, hi = int(low), int(high) + (1 if endpoint else 0)
            shape = out_shape(size, ())
            if 0 in shape:  # NumPy returns an empty draw before it looks at the range
                return empty(shape, dtype=name)
            return self._bits.integers(shape, name, lo, hi)
        # Array bounds: checked as NumPy checks them, drawn as 64-bit integers, then cast.
        info = np.iinfo(np.dtype(name)) if name != "bool" else None
        lo_v, hi_v = (host_or_device(v, "u" if name == "uint64" else "i") for v in (low, high))
        if endpoint:
            hi_v = hi_v + 1
        bottom, top = (0, 2) if info is None else (int(info.min), int(info.max) + 1)
        if any_true(lo_v < bottom):
            raise ValueError(f"low is out of bounds for {name}")
        if any_true(hi_v > top):
            raise ValueError(f"high is out of bounds for {name}")
        if any_true(lo_v >= hi_v):
            raise ValueError("low >= high")
        wide = "uint64" if name == "uint64" else "int64"
        values = draw(self._bits, "integers", size, [lo_v, hi_v], wide)
        return values if wide == name else values.astype(name)

    def _random_keys(self, shape) -> ndarray:
        return self._bits.integers(shape, "uint64", 0, 1 << 64)

    def permutation(self, x, axis=0) -> ndarray:
        """A shuffled ``arange(x)`` for an int ``x``; else a copy of ``x`` shuffled along
        ``axis``."""
        from .._creation import arange, asarray
        from .._sorting import argsort

        if isinstance(x, (numbers.Integral, np.integer)):
            return argsort(self._random_keys((int(x),)), kind="stable") if int(x) > 0 else arange(0)
        arr = x if isinstance(x, ndarray) else asarray(x)
        if arr.ndim == 0:
            raise IndexError("x must be an integer or at least 1-dimensional")
        axis = _axis(axis, arr.ndim)
        order = argsort(self._random_keys((arr.shape[axis],)), kind="stable")
        return arr.take(order, axis=axis)

    def shuffle(self, x, axis=0) -> None:
        """Shuffles ``x`` in place along ``axis`` (an ember array)."""
        if not isinstance(x, ndarray):
            raise TypeError(f"shuffle takes an ember.ndarray, got {type(x).__name__}")
        if x.ndim == 0:
            raise TypeError("An array of at least one dimension is required")
        shuffled = self.permutation(x, axis=axis)
        x[...] = shuffled

    def permuted(self, x, axis=None, out=None) -> ndarray:
        """``x`` with each slice along ``axis`` shuffled on its own (the flattened array when
        ``axis`` is None)."""
        from .._creation import asarray
        from .._index_tricks import take_along_axis
        from .._sorting import argsort

        arr = x if isinstance(x, ndarray) else asarray(x)
        if axis is None:
            flat = arr.reshape(-1)
            result = flat.take(argsort(self._random_keys(flat.shape), kind="stable")).reshape(arr.shape)
        else:
            axis = _axis(axis, arr.ndim)
            order = argsort(self._random_keys(arr.shape), axis=axis, kind="stable")
            result = take_along_axis(arr, order, axis)
        if out is None:
            return result
        if not isinstance(out, ndarray) or out.shape != arr.shape:
            raise ValueError("out must have the same shape as x")
        out[...] = result
        return out

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True) -> ndarray:
        """Values of ``a`` (or of ``arange(a)``) at random: with or without replacement, in
        proportion to ``p`` when given."""
        from .._creation import arange, asarray
        from .._reductions import cumsum
        from .._sorting import argsort, searchsorted
        from .._ufuncs import UFUNCS

        if isinstance(a, (numbers.Integral, np.integer)) or (isinstance(a, np.ndarray) and a.ndim == 0):
            pop, values = int(a), None
            if pop < 0:
                raise ValueError("a must be a positive integer unless no samples are taken")
        else:
            values = a if isinstance(a, ndarray) else asarray(a)
            if values.ndim == 0:
                raise ValueError("a must be a sequence or an integer, not a 0-d array")
            axis = _axis(axis, values.ndim)
            pop = values.shape[axis]
        shape = out_shape(size, ())
        count = int(np.prod(shape)) if shape else 1
        if pop == 0 and count > 0:
            raise ValueError("a cannot be empty unless no samples are taken" if values is not None
                             else "a must be a positive integer unless no samples are taken")
        weights = None
        if p is not None:
            weights = np.asarray(p.get() if isinstance(p, ndarray) else p, dtype=np.float64)
            if weights.ndim != 1:
                raise ValueError("p must be 1-dimensional")
            if weights.size != pop:
                raise ValueError("a and p must have same size")
            if np.any(np.isnan(weights)) or np.any(weights < 0):
                raise ValueError("Probabilities are not non-negative")
            if abs(weights.sum() - 1.0) > np.sqrt(np.finfo(np.float64).eps):
                raise ValueError("Probabilities do not sum to 1. See Notes section of docstring for more information.")
        if not replace and count > pop:
            raise ValueError("Cannot take a larger sample than population when replace is False")
        if count == 0:
            index = arange(0).reshape(shape)
        elif replace and weights is None:
            index = self._integers(0, pop, shape, np.int64, False)
        elif replace:
            cdf = cumsum(asarray(weights))
            cdf = cdf / cdf[-1]
            u = self._bits.uniform(shape, "float64")
            index = searchsorted(cdf, u, side="right")
            index = UFUNCS["minimum"](index, pop - 1)
        elif weights is None and pop > 4 * count:
            index = self._distinct(pop, count).reshape(shape)
        elif weights is None:
            index = argsort(self._random_keys((pop,)), kind="stable")[:count].reshape(shape)
        else:
            if np.count_nonzero(weights) < count:
                raise ValueError("Fewer non-zero entries in p than size")
            keys = self._law("standard_exponential", (pop,), None) / asarray(weights)
            index = argsort(keys, kind="stable")[:count].reshape(shape)
        if values is None:
            return index
        taken = values.take(index.reshape(-1), axis=axis)
        return taken.reshape(values.shape[:axis] + shape + values.shape[axis + 1:])

    def _distinct(self, pop: int, count: int) -> ndarray:
        """``count`` distinct integers of ``[0, pop)`` in random order, for ``pop`` well above
        ``count``, in memory of the order of ``count``: the first ``count`` distinct values of a
        sequence of uniform draws (whether a sequence has that many depends on where its
        repeats fall, not on its values, so keeping only such sequences biases nothing)."""
        from .._sorting import argsort, sort
        from .._ufuncs import UFUNCS

        length = 2 * count + 64
        while True:
            draws = self._integers(0, pop, (length,), np.int64, False)
            order = argsort(draws, kind="stable")  # by value, repeats in order of position
            ordered = draws.take(order)
            starts = UFUNCS["not_equal"](ordered[1:], ordered[:-1])
            firsts = order[1:][starts]  # the position of each value's first draw but the smallest's
            if firsts.size + 1 >= count:
                from .._shape import concatenate

                positions = sort(concatenate([order[:1], firsts]))[:count]
                return draws.take(positions)
            length *= 2

    def bytes(self, length: int) -> bytes:
        """``length`` random bytes (on the host, as NumPy returns them)."""
        return self._bits.integers((int(length),), "uint8", 0, 256).get().tobytes()


def _axis(axis, ndim: int) -> int:
    from numpy.lib.array_utils import normalize_axis_index

    return normalize_axis_index(axis, ndim)
