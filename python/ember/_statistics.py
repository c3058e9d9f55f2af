"""NumPy's statistics that need no sorting: ``average`` (with weights), ``ptp``, ``cov`` and
``corrcoef`` (order statistics, histograms: ``ember`` sorting's module)."""

from __future__ import annotations

import operator
import warnings

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from . import _ember, _reductions
from ._creation import asarray
from ._linalg import dot
from ._shape import broadcast_to, concatenate, moveaxis
from ._ufuncs import UFUNCS

__all__ = ["average", "corrcoef", "cov", "ptp"]


def _array(a):
    return a if isinstance(a, _ember.ndarray) else asarray(a)


def ptp(a, axis=None, out=None, keepdims=False):
    """The range, maximum minus minimum, along ``axis``."""
    a = _array(a)
    result = _reductions.max(a, axis=axis, keepdims=keepdims) - _reductions.min(a, axis=axis, keepdims=keepdims)
    if out is not None:
        out[...] = result
        return out
    return result


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """The mean, or with ``weights`` the weighted mean, along ``axis``; with ``returned``
    also the sum of the weights."""
    a = _array(a)
    if weights is None:
        avg = _reductions.mean(a, axis=axis, keepdims=keepdims)
        if returned:
            count = a.size if axis is None else int(np.prod([a.shape[k] for k in np.atleast_1d(axis)]))
            return avg, broadcast_to(asarray(count, dtype=avg.dtype), avg.shape).copy()
        return avg
    w = _array(weights)
    kind = np.result_type(a.dtype, w.dtype, np.float64 if a.dtype.kind in "biu" else a.dtype)
    if a.shape != w.shape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        if w.ndim != 1:
            raise TypeError("1D weights expected when shapes of a and weights differ.")
        axis = normalize_axis_index(operator.index(axis), a.ndim)
        if w.shape[0] != a.shape[axis]:
            raise ValueError("Length of weights not compatible with specified axis.")
        w = moveaxis(broadcast_to(w, a.shape[:axis] + a.shape[axis + 1:] + w.shape), -1, axis)
    w = w.astype(kind, copy=False)
    scale = _reductions.sum(w, axis=axis, keepdims=keepdims)
    if bool(_reductions.any(scale == 0)):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    avg = _reductions.sum(a.astype(kind, copy=False) * w, axis=axis, keepdims=keepdims) / scale
    if returned:
        return avg, broadcast_to(scale, avg.shape).copy() if scale.shape != avg.shape else scale
    return avg


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """The covariance matrix of the variables (rows of ``m``, or columns when not ``rowvar``),
    with NumPy's frequency and analytic weights."""
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    m = _array(m)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if dtype is None:
        dtype = np.result_type(m.dtype, np.float64) if y is None else np.result_type(m.dtype, _array(y).dtype,
                                                                                      np.float64)
    X = m.reshape(1, -1) if m.ndim < 2 else m
    X = X.astype(dtype)
    if not rowvar and m.ndim != 1:
        X = X.T
    if X.shape[0] == 0:  # NumPy's answer, whatever the dtype
        return asarray(np.empty((0, 0)))
    if y is not None:
        y = _array(y)
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
        Y = (y.reshape(1, -1) if y.ndim < 2 else y).astype(dtype)
        if not rowvar and Y.shape[0] != 1:
            Y = Y.T
        X = concatenate([X, Y], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    w = None
    if fweights is not None:
        f = _array(fweights).astype(np.float64)
        if not bool(_reductions.all(f == UFUNCS["rint"](f))):
            raise TypeError("fweights must be integer")
        if f.ndim > 1:
            raise RuntimeError("cannot handle multidimensional fweights")
        if f.shape[0] != X.shape[1]:
            raise RuntimeError("incompatible numbers of samples and fweights")
        if bool(_reductions.any(f < 0)):
            raise ValueError("fweights cannot be negative")
        w = f.astype(np.float64)
    if aweights is not None:
        aw = _array(aweights)
        if aw.ndim > 1:
            raise RuntimeError("cannot handle multidimensional aweights")
        if aw.shape[0] != X.shape[1]:
            raise RuntimeError("incompatible numbers of samples and aweights")
        if bool(_reductions.any(aw < 0)):
            raise ValueError("aweights cannot be negative")
        w = aw.astype(np.float64) if w is None else w * aw
    avg, w_sum = average(X, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if w is None:
        fact = X.shape[1] - ddof
    elif ddof == 0:
        fact = w_sum
    elif aweights is None:
        fact = w_sum - ddof
    else:
        fact = w_sum - ddof * _reductions.sum(w * _array(aweights)) / w_sum
    fact = float(fact)
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    X -= avg[:, None]  # in place (X is a copy), as NumPy: an integer dtype cannot hold them
    X_T = X.T if w is None else (X * w).T
    c = dot(X, UFUNCS["conjugate"](X_T))
    c = c * (1.0 / fact if fact else np.inf)
    return c.squeeze()


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """Pearson's correlation coefficients: ``cov`` normalised by the standard deviations,
    clipped to [-1, 1] (real and imaginary parts for complex values)."""
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    d = c.diagonal().copy()
    stddev = UFUNCS["sqrt"](d.real)
    c = c / stddev[:, None]
    c = c / stddev[None, :]
    # Rounding may leave |c| a little above 1: clipped, each part of a complex value.
    if c.dtype.kind == "c":
        c.real[...] = c.real.clip(-1, 1)
        c.imag[...] = c.imag.clip(-1, 1)
        return c
    return c.clip(-1, 1)
