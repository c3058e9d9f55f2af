"""One-dimensional complex transforms along an axis: ember's Stockham passes for lengths whose
primes are 2, 3, 5 and 7 (``crates/ember-codegen/src/fft.rs``), Bluestein's algorithm on top
of them for every other length, and NumPy's normalizations."""

from __future__ import annotations

import math

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .. import _ember
from .._creation import asarray, ascontiguousarray, zeros
from .._ndarray import _wrap, ndarray
from .._shape import concatenate, moveaxis
from . import config

_NORMS = (None, "backward", "ortho", "forward")


def check_norm(norm) -> None:
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')


def complex_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype a transform computes in: complex64 for float16/float32/complex64 (as CuPy and
    NumPy 2 keep single precision), complex128 otherwise."""
    return np.dtype(np.complex64) if dtype.char in "efF" else np.dtype(np.complex128)


def scale(norm, n: int, inverse: bool) -> float | None:
    """The factor a transform of length ``n`` is multiplied by, None for 1."""
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    if (norm in (None, "backward")) == inverse:
        return 1.0 / n
    return None


def resized(x: ndarray, n: int, axis: int) -> ndarray:
    """``x`` cropped or zero-padded to ``n`` along ``axis``."""
    have = x.shape[axis]
    if n == have:
        return x
    if n < have:
        index = [slice(None)] * x.ndim
        index[axis] = slice(0, n)
        return x[tuple(index)]
    shape = list(x.shape)
    shape[axis] = n - have
    return concatenate([x, zeros(tuple(shape), dtype=x.dtype)], axis=axis)


def _rows(x: ndarray, inverse: bool) -> ndarray:
    """The unnormalized DFT of each row (last axis) of a C-contiguous complex ``x``: cuFFT
    (any length) or ember's passes (lengths of primes 2, 3, 5, 7; Bluestein otherwise)."""
    passes = config.engine() == "passes"
    if not passes or _ember.fft_radices(x.shape[-1]) is not None:
        return _wrap(_ember.fft_c2c(x._a, inverse, passes))
    return _bluestein(x, inverse)


def _chirp(n: int, dtype: np.dtype, inverse: bool, device: int):
    """Bluestein's chirp ``exp(-+i pi k^2 / n)`` and the FFT of its padded conjugate, cached."""
    key = (n, dtype.char, inverse, device)
    if key not in config.CHIRPS:
        m = 1 << (2 * n - 2).bit_length()
        k = np.arange(n, dtype=np.int64)
        angle = np.pi * ((k * k) % (2 * n)).astype(np.float64) / n  # k^2 reduced: exact angles
        w = np.exp((1j if inverse else -1j) * angle)
        b = np.zeros(m, dtype=np.complex128)
        b[:n] = np.conj(w)
        b[m - n + 1:] = np.conj(w[1:])[::-1]
        spectrum = _rows(asarray(b.astype(dtype)).reshape(1, m), False)
        if len(config.CHIRPS) >= 32:
            config.CHIRPS.pop(next(iter(config.CHIRPS)))
        config.CHIRPS[key] = (asarray(w.astype(dtype)), spectrum.reshape(m), m)
    return config.CHIRPS[key]


def _bluestein(x: ndarray, inverse: bool) -> ndarray:
    """A DFT of any length as a convolution of power-of-two length (Bluestein): ``X_k = w_k
    sum_j (x_j w_j) conj(w_(k-j))``, ``w_k = exp(-+i pi k^2 / n)``."""
    from .._runtime import current_device_id

    n = x.shape[-1]
    w, spectrum, m = _chirp(n, x.dtype, inverse, current_device_id())
    padded = resized(x * w, m, -1)
    y = _rows(ascontiguousarray(_rows(ascontiguousarray(padded), False) * spectrum), True)
    return y[..., :n] * (w * (1.0 / m))


def c2c(a, n, axis: int, norm, inverse: bool, out=None) -> ndarray:
    """NumPy's ``fft``/``ifft`` of ``a`` along ``axis`` (length ``n``)."""
    check_norm(norm)
    x = a if isinstance(a, ndarray) else asarray(a)
    if x.ndim == 0:
        raise np.exceptions.AxisError(axis, 0)
    axis = normalize_axis_index(axis, x.ndim)
    n = x.shape[axis] if n is None else int(n)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    dtype = complex_dtype(x.dtype)
    x = resized(x.astype(dtype, copy=False), n, axis)
    rows = ascontiguousarray(moveaxis(x, axis, -1))
    y = moveaxis(_rows(rows, inverse), -1, axis)
    factor = scale(norm, n, inverse)
    if factor is not None:
        y = y * factor  # a Python float: the complex dtype stays
    if out is not None:
        out[...] = y
        return out
    return y
