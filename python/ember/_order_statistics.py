"""Statistics of order, on the device sort: ``median`` (and ``pad``'s ``median`` mode).

As NumPy's: the middle element of each sorted slice, or the mean of the middle two, in the
dtype ``mean`` gives; a slice holding NaN has median NaN (NaN sorts last); an empty slice gives
NaN with NumPy's ``RuntimeWarning``.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from . import _ember, _reductions
from ._creation import asarray
from ._indexing import where
from ._shape import moveaxis
from ._sorting import sort
from ._ufuncs import UFUNCS

__all__ = ["median"]


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median along ``axis`` (of the flattened array when None; several axes together when
    a tuple)."""
    a = a if isinstance(a, _ember.ndarray) else asarray(a)
    axes = tuple(range(a.ndim)) if axis is None else normalize_axis_tuple(axis, a.ndim)
    kept = [k for k in range(a.ndim) if k not in axes]
    # The reduced axes last, merged into one.
    moved = moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim))) if axes else a
    lead = tuple(a.shape[k] for k in kept)
    n = int(np.prod([a.shape[k] for k in axes], dtype=np.int64))
    rows = moved.reshape(lead + (n,))
    if n == 0:
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
        kind = np.mean(np.zeros(1, a.dtype)).dtype  # NumPy's dtype of a mean of a.dtype
        result = asarray(np.full(lead, np.nan, dtype=kind))
    else:
        ordered = sort(rows, axis=-1)
        middle = ordered[..., (n - 1) // 2:n // 2 + 1]  # one element, or the middle two
        result = _reductions.mean(middle, axis=-1)
        if ordered.dtype.kind in "fc":
            # NaN sorts last: a slice holding NaN has as median its last (NaN) element, as
            # NumPy's does.
            last = ordered[..., -1]
            result = where(UFUNCS["isnan"](last), last.astype(result.dtype), result)
    if keepdims:
        shape = tuple(1 if k in axes else a.shape[k] for k in range(a.ndim))
        result = result.reshape(shape)
    if out is not None:
        out[...] = result
        return out
    return result
