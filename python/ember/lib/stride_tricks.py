"""Views with chosen strides (``numpy.lib.stride_tricks``): ``as_strided`` and
``sliding_window_view``. Unlike NumPy's, a view that would reach outside the array's memory
is refused (``ValueError``) rather than read garbage."""

from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from .. import _ember
from .._creation import asarray

__all__ = ["as_strided", "sliding_window_view"]


def as_strided(x, shape=None, strides=None, subok=False, writeable=True):
    """A view of ``x``'s memory with ``shape`` and ``strides`` (in bytes), from ``x``'s first
    element; either defaults to ``x``'s own."""
    x = x if isinstance(x, _ember.ndarray) else asarray(x)
    shape = x.shape if shape is None else tuple(operator.index(s) for s in shape)
    strides = x.strides if strides is None else tuple(operator.index(s) for s in strides)
    if len(shape) != len(strides):
        raise ValueError(f"mismatch in length of strides and shape: {len(strides)} and {len(shape)}")
    view = x._a.view(list(shape), list(strides), x._a.offset, x._a.dtype)
    return _ember.wrap(view, x)


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """Every window of ``window_shape`` over ``x`` (along ``axis``), as a view with the window
    axes last (NumPy's ``sliding_window_view``)."""
    x = x if isinstance(x, _ember.ndarray) else asarray(x)
    window_shape = tuple(window_shape) if np.iterable(window_shape) else (window_shape,)
    window_shape = tuple(operator.index(w) for w in window_shape)
    if any(w < 0 for w in window_shape):
        raise ValueError("`window_shape` cannot contain negative values")
    if axis is None:
        axis = tuple(range(x.ndim))
        if len(window_shape) != len(axis):
            raise ValueError(
                f"Since axis is `None`, must provide window_shape for all dimensions of `x`; got "
                f"{len(window_shape)} window_shape elements and `x.ndim` is {x.ndim}."
            )
    else:
        axis = normalize_axis_tuple(axis, x.ndim, allow_duplicate=True)
        if len(window_shape) != len(axis):
            raise ValueError(
                f"Must provide matching length window_shape and axis; got {len(window_shape)} window_shape "
                f"elements and {len(axis)} axes elements."
            )
    out_strides = x.strides + tuple(x.strides[ax] for ax in axis)
    shape = list(x.shape)
    for ax, dim in zip(axis, window_shape, strict=True):
        if shape[ax] < dim:
            raise ValueError("window shape cannot be larger than input array shape")
        shape[ax] -= dim - 1
    return as_strided(x, tuple(shape) + window_shape, out_strides)
