"""NumPy's mathematical functions that are not ufuncs: ``sinc``, ``i0``, ``nan_to_num``,
``real_if_close``, ``unwrap``, the window functions (``bartlett blackman hamming hanning
kaiser``), ``vander`` and 1-d ``convolve``/``correlate``.

``i0`` and the direct (not FFT) correlation run kernels of their own, compiled once per dtype;
the rest are NumPy's formulas over ember's ufuncs.
"""

from __future__ import annotations

import operator

import numpy as np

from . import _ember, _reductions
from ._creation import arange, asarray, empty, ones, zeros
from ._differences import diff
from ._indexing import where
from ._ufuncs import UFUNCS, imag, real
from ._user_kernels import ElementwiseKernel

__all__ = [
    "angle", "bartlett", "blackman", "convolve", "correlate", "hamming", "hanning", "i0", "kaiser", "nan_to_num",
    "real_if_close", "sinc", "unwrap", "vander",
]

_sin, _cos, _sqrt, _abs = UFUNCS["sin"], UFUNCS["cos"], UFUNCS["sqrt"], UFUNCS["absolute"]


def _array(a):
    return a if isinstance(a, _ember.ndarray) else asarray(a)


def angle(z, deg=False):
    """The argument of each complex value (``arctan2(imag, real)``; 0 or pi for real values),
    in degrees if ``deg``."""
    z = _array(z)
    if z.dtype.kind == "c":
        a = UFUNCS["arctan2"](imag(z), real(z))
    else:
        a = UFUNCS["arctan2"](0, z)
    return a * (180 / np.pi) if deg else a


def sinc(x):
    """``sin(pi x) / (pi x)``, 1 at 0 (NumPy's way: 0 replaced by the dtype's epsilon, which
    float16 can hold, where 1e-20 would round to 0)."""
    y = np.pi * _array(x)
    eps = np.finfo(y.dtype).eps if y.dtype.kind == "f" else 1e-20
    y = where(y == 0, asarray(eps, dtype=y.dtype), y)
    return _sin(y) / y


# I0 in float64: the power series sum((x/2)^(2k) / (k!)^2) below 30 (at most ~90 terms, each
# positive, so no cancellation), the asymptotic series e^x / sqrt(2 pi x) * sum(...) above.
_I0 = ElementwiseKernel(
    "float64 x", "float64 y",
    """
    double ax = fabs(x);
    if (ax <= 30.0) {
        double q = 0.25 * ax * ax, term = 1.0, total = 1.0;
        for (int k = 1; k < 200 && term > 1e-17 * total; ++k) {
            term *= q / ((double)k * (double)k);
            total += term;
        }
        y = total;
    } else {
        double r = 1.0 / (8.0 * ax), term = 1.0, total = 1.0;
        for (int k = 1; k < 12; ++k) {
            double odd = 2.0 * k - 1.0;
            term *= odd * odd * r / k;
            total += term;
        }
        y = exp(ax) / sqrt(6.283185307179586 * ax) * total;
    }
    """,
    "ember_i0",
)


def i0(x):
    """The modified Bessel function of the first kind, order 0: computed in float64, returned in
    the input's float dtype (float64 for integers), as NumPy returns it."""
    x = _array(x)
    if x.dtype.kind == "c":
        raise TypeError("i0 not supported for complex values")
    out = _I0(x.astype(np.float64, copy=False))
    return out.astype(x.dtype, copy=False) if x.dtype.kind == "f" else out


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf`` (the dtype's largest
    finite values by default), part by part for complex arrays."""
    x = _array(x)
    for value in (nan, posinf, neginf):  # replacements broadcast into x, never x into them
        shape = np.shape(value)
        if shape and np.broadcast_shapes(shape, x.shape) != x.shape:
            text = [str(s).replace(" ", "") for s in (shape, x.shape)]  # NumPy writes (2,4)
            raise ValueError(f"could not broadcast input array from shape {text[0]} into shape {text[1]}")
    if x.dtype.kind not in "fc":
        return x.copy() if copy else x
    part = np.finfo(x.dtype)
    hi = part.max if posinf is None else posinf
    lo = part.min if neginf is None else neginf

    def fix(v):
        kind = v.dtype
        v = where(UFUNCS["isnan"](v), asarray(nan, dtype=kind), v)
        v = where(v == np.inf, asarray(hi, dtype=kind), v)
        return where(v == -np.inf, asarray(lo, dtype=kind), v)

    if x.dtype.kind == "c":
        result = x.copy()
        result.real[...] = fix(real(x))
        result.imag[...] = fix(imag(x))
    else:
        result = fix(x)
    if copy:
        return result
    x[...] = result
    return x


def real_if_close(a, tol=100):
    """The real part when every imaginary part is within ``tol`` machine epsilons of 0."""
    a = _array(a)
    if a.dtype.kind != "c":
        return a
    if tol > 1:
        tol = np.finfo(a.dtype).eps * tol
    if bool(_reductions.all(_abs(imag(a)) < tol)):
        return real(a).copy()
    return a


def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """Phases ``p`` without jumps larger than ``max(discont, period / 2)``: each such jump
    along ``axis`` shifted by a multiple of ``period``."""
    p = _array(p)
    nd = p.ndim
    dd = diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    first = [slice(None)] * nd
    first[axis] = slice(1, None)
    first = tuple(first)
    kind = np.result_type(dd.dtype, period)
    if np.issubdtype(kind, np.integer):
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    ddmod = UFUNCS["remainder"](dd - low, period) + low
    if ambiguous:
        ddmod = where((ddmod == low) & (dd > 0), asarray(high, dtype=ddmod.dtype), ddmod)
    correct = ddmod - dd
    correct = where(_abs(dd) < discont, asarray(0, dtype=correct.dtype), correct)
    up = p.astype(kind, copy=True)
    up[first] = p[first] + _reductions.cumsum(correct, axis=axis)
    return up


# --- windows (float64, as NumPy's) ------------------------------------------------------------
def _symmetric(M):
    M = operator.index(M)
    if M < 1:
        return None, asarray(np.array([], dtype=np.float64))
    if M == 1:
        return None, ones(1, dtype=np.float64)
    return M, arange(1 - M, M, 2, dtype=np.float64)


def bartlett(M):
    """The triangular window of ``M`` points."""
    M, n = _symmetric(M)
    if M is None:
        return n
    return where(n <= 0, 1 + n / (M - 1), 1 - n / (M - 1))


def blackman(M):
    M, n = _symmetric(M)
    if M is None:
        return n
    return 0.42 + 0.5 * _cos(np.pi * n / (M - 1)) + 0.08 * _cos(2.0 * np.pi * n / (M - 1))


def hamming(M):
    M, n = _symmetric(M)
    if M is None:
        return n
    return 0.54 + 0.46 * _cos(np.pi * n / (M - 1))


def hanning(M):
    M, n = _symmetric(M)
    if M is None:
        return n
    return 0.5 + 0.5 * _cos(np.pi * n / (M - 1))


def kaiser(M, beta):
    """The Kaiser window of ``M`` points and shape ``beta``."""
    M = operator.index(M)
    if M < 1:
        return asarray(np.array([], dtype=np.float64))
    if M == 1:
        return ones(1, dtype=np.float64)
    n = arange(0, M, dtype=np.float64)
    alpha = (M - 1) / 2.0
    return i0(beta * _sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / float(i0(asarray(float(beta))))


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of 1-d ``x``: columns of its powers, decreasing unless
    ``increasing``."""
    x = _array(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    N = x.shape[0] if N is None else operator.index(N)
    v = empty((x.shape[0], N), dtype=np.promote_types(x.dtype, np.int_))
    powers = v if increasing else v[:, ::-1]
    if N > 0:
        powers[:, 0] = 1
    if N > 1:
        powers[:, 1:] = x[:, None]
        powers[:, 1:] = UFUNCS["multiply"].accumulate(powers[:, 1:], axis=1)
    return v


# --- 1-d correlation, direct -------------------------------------------------------------------
_CORRELATE = ElementwiseKernel(
    "raw T a, raw T v, int64 na, int64 nv, int64 shift", "T out",
    """
    T acc = 0;
    for (int k = 0; k < (int)nv; ++k) {
        const int j = (int)i + k - (int)shift;
        if (j >= 0 && j < (int)na) acc += a[j] * v[k];
    }
    out = acc;
    """,
    "ember_correlate",
)


def _correlate_real(a, v, mode: str):
    na, nv = a.shape[0], v.shape[0]
    if mode == "valid":
        n, shift = na - nv + 1, 0
    elif mode == "same":
        n, shift = na, nv // 2
    else:
        n, shift = na + nv - 1, nv - 1
    out = zeros(max(n, 0), dtype=a.dtype)
    if n > 0:
        _CORRELATE(a, v, na, nv, shift, out)
    return out


def _correlate(a, v, mode: str):
    a, v = _array(a), _array(v)
    if a.ndim == 0 or v.ndim == 0:
        raise ValueError("object of too small depth for desired array")
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError("object too deep for desired array")
    if a.size == 0:
        raise ValueError("a cannot be empty")
    if v.size == 0:
        raise ValueError("v cannot be empty")
    if mode not in ("valid", "same", "full"):
        raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    if a.shape[0] < v.shape[0]:
        # NumPy slides the shorter one: the correlation the other way round, reversed and
        # conjugated, is the same sequence.
        swapped = _correlate(v, a, mode)[::-1]
        return UFUNCS["conjugate"](swapped) if swapped.dtype.kind == "c" else swapped.copy()
    kind = np.result_type(a.dtype, v.dtype)
    if kind == np.bool_:
        kind = np.dtype(np.int64)
        done = lambda r: r != 0  # noqa: E731  (NumPy: or of ands)
    elif kind == np.float16:
        # Summed in float32, as NumPy's half-precision dot does; the result rounded to float16.
        kind = np.dtype(np.float32)
        done = lambda r: r.astype(np.float16)  # noqa: E731
    else:
        done = lambda r: r  # noqa: E731
    a, v = a.astype(kind, copy=False), v.astype(kind, copy=False)
    if kind.kind != "c":
        return done(_correlate_real(a, v, mode))
    # (ar + i ai)(vr - i vi): the real correlations of the parts (v conjugated, as NumPy's).
    ar, ai, vr, vi = (x.copy() for x in (real(a), imag(a), real(v), imag(v)))
    re = _correlate_real(ar, vr, mode) + _correlate_real(ai, vi, mode)
    im = _correlate_real(ai, vr, mode) - _correlate_real(ar, vi, mode)
    out = empty(re.shape, dtype=kind)
    out.real[...] = re
    out.imag[...] = im
    return out


def correlate(a, v, mode="valid"):
    """The cross-correlation ``sum_n a[n + k] * conj(v[n])`` of 1-d sequences."""
    return _correlate(a, v, mode)


def convolve(a, v, mode="full"):
    """The discrete convolution of 1-d sequences (the longer one slides)."""
    # NumPy's convolve reads a scalar as one element (its correlate refuses one).
    a, v = (x.reshape(1) if x.ndim == 0 else x for x in (_array(a), _array(v)))
    if a.ndim == 1 and v.ndim == 1 and v.shape[0] > a.shape[0]:
        a, v = v, a
    if v.ndim == 1 and v.size:
        # Not conjugated: correlate conjugates, convolve's reversed sequence must come through.
        v = UFUNCS["conjugate"](v[::-1]) if v.dtype.kind == "c" else v[::-1]
    return _correlate(a, v, mode)
