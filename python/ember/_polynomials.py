"""NumPy's power-series polynomials (the ``numpy.polynomial`` module's predecessor): ``polyval``,
``polyfit``, ``polyadd``, ``polysub``, ``polymul``, ``polydiv``, ``polyder``, ``polyint``, ``poly``,
``roots`` and the class ``poly1d`` (as ``cupy.poly1d``: its coefficients live on the device).

Coefficients run highest power first. Arithmetic, Horner evaluation, derivatives and integrals
are NumPy's formulas over ember's ufuncs, slices and joins, on the device, with NumPy 2's dtypes.

What is computed on the host, on small arrays only:

- ``roots``: the eigenvalues of the companion matrix (``numpy.linalg.eigvals`` of the
  coefficients: ember has no eigenvalue solver); the result is an ember array.
- ``poly`` of a square matrix: its eigenvalues, likewise; of roots, the check whether they come
  in conjugate pairs (a sort of the roots).
- ``polyfit``: the Vandermonde matrix, its scaling and weights, a Householder QR of it and the
  residuals run on the device; the small ``(deg + 1)``-column triangular least-squares problem
  that is left (and, for ``cov``, the inverse of the ``(deg + 1)``-square normal matrix) is
  solved by NumPy, so rank, singular values and ``rcond`` mean what NumPy's ``lstsq`` says.
- ``poly1d``'s ``str`` and ``repr``, and ``polydiv``'s test for leading zeros of the remainder
  (one bool per removed zero), read the few coefficients.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from . import _ember, _reductions
from ._creation import arange, asarray, ones, zeros, zeros_like
from ._indexing import where
from ._linalg import matmul
from ._manipulation import trim_zeros
from ._shape import atleast_1d, concatenate
from ._special_math import convolve, vander
from ._ufuncs import UFUNCS

__all__ = ["poly", "poly1d", "polyadd", "polyder", "polydiv", "polyfit", "polyint", "polymul", "polysub", "polyval",
           "roots"]

_abs, _sqrt, _conj = UFUNCS["absolute"], UFUNCS["sqrt"], UFUNCS["conjugate"]


def _array(a):
    return a if isinstance(a, _ember.ndarray) else asarray(a)


def _coeffs(p):
    """The coefficients of a ``poly1d`` or an array-like, as an ember array."""
    return p.coeffs if isinstance(p, poly1d) else _array(p)


# --- from roots and to roots -------------------------------------------------------------------
def poly(seq_of_zeros):
    """The coefficients, leading one first, of the monic polynomial with the given roots, or of
    the characteristic polynomial of a non-empty square matrix (its eigenvalues found on the
    host). Real when complex roots come in conjugate pairs; ``1.0`` for no roots."""
    seq = atleast_1d(_coeffs(seq_of_zeros))
    sh = seq.shape
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        seq = asarray(np.linalg.eigvals(seq.get()))
    elif len(sh) == 1:
        seq = seq.astype(np.mintypecode(seq.dtype.char), copy=False)
    else:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if len(seq) == 0:
        return 1.0
    kind = seq.dtype
    a = ones((1,), dtype=kind)
    zero = zeros((1,), dtype=kind)
    for k in range(len(seq)):
        # a * (x - r): the product with the linear factor, as NumPy's convolve gives it.
        a = concatenate([a, zero]) - concatenate([zero, a]) * seq[k]
    if kind.kind == "c":
        host = seq.get().astype(complex)
        if np.all(np.sort(host) == np.sort(host.conjugate())):
            a = a.real.copy()
    return a


def roots(p):
    """The roots of the polynomial with coefficients ``p`` (1-d): the eigenvalues of its
    companion matrix, computed on the host by NumPy (ember has no eigenvalue solver), returned
    as an ember array."""
    p = atleast_1d(_coeffs(p))
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    return asarray(np.roots(p.get()))


# --- evaluation and fitting ----------------------------------------------------------------------
def polyval(p, x):
    """The polynomial ``p`` at ``x``, by Horner's scheme (``y = y * x + p[i]``) in ``x``'s
    shape and NumPy's result dtype; ``x`` may be a ``poly1d`` (then the composition)."""
    p = _coeffs(p)
    if isinstance(x, poly1d):
        y = 0
    else:
        x = _array(x)
        y = zeros_like(x)
    for pv in p:
        y = y * x + pv
    return y


def _householder(lhs, rhs):
    """``(R, Q^H rhs)`` of the QR factorisation ``lhs = Q R`` by Householder reflections on the
    device (``rhs`` 2-d): ``R`` is ``min(M, n) x n``, upper triangular; both are returned on the
    host. A zero column is left as it is (its reflection is the identity)."""
    a, b = lhs.copy(), rhs.copy()
    m, n = a.shape
    k = min(m, n)
    for j in range(k):
        x = a[j:, j]
        x0 = x[0]
        mag = _abs(x0)
        phase = where(mag > 0, x0 / where(mag > 0, mag, 1), 1).astype(a.dtype, copy=False)
        v = x.copy()
        v[0] = x0 + phase * _sqrt((_abs(x) * _abs(x)).sum())  # x0's phase: no cancellation
        vv = (_abs(v) * _abs(v)).sum()
        tv = (where(vv > 0, 2 / where(vv > 0, vv, 1), 0) * v)[:, None]
        vh = _conj(v) if v.dtype.kind == "c" else v
        a[j:, j:] = a[j:, j:] - tv * matmul(vh, a[j:, j:])[None, :]
        b[j:] = b[j:] - tv * matmul(vh, b[j:])[None, :]
    return np.triu(a[:k].get()), b[:k].get()


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """The least-squares polynomial of degree ``deg`` through the points ``(x, y)`` (``y`` 1-d
    or one data set per column), highest power first; ``w`` weights the unsquared residuals.
    ``full`` also returns ``(residuals, rank, singular_values, rcond)``; ``cov`` the covariance
    matrix of the coefficients (scaled by chi2/dof unless ``'unscaled'``). The Vandermonde
    matrix is reduced to a triangle on the device; the small triangular problem is solved by
    NumPy on the host (see the module's docstring)."""
    order = int(deg) + 1
    x = _array(x) + 0.0
    y = _array(y) + 0.0
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = len(x) * np.finfo(x.dtype).eps
    lhs = vander(x, order)
    rhs = y
    if w is not None:
        w = _array(w) + 0.0
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs *= w[:, None]
        if rhs.ndim == 2:
            rhs *= w[:, None]
        else:
            rhs *= w
    scale = _sqrt((lhs * lhs).sum(axis=0))
    lhs /= scale
    kind = np.result_type(lhs.dtype, rhs.dtype)
    if kind == np.float16:
        raise TypeError("array type float16 is unsupported in linalg")
    real = np.finfo(kind).dtype
    # Reduced in double precision, as NumPy's lstsq computes single precision; results in `kind`.
    work = np.result_type(kind, np.float64)
    lhs_w = lhs.astype(work, copy=False)
    rhs_w = rhs.astype(work, copy=False)
    r, qtb = _householder(lhs_w, rhs_w if rhs.ndim == 2 else rhs_w[:, None])
    c_host, _, rank, s = np.linalg.lstsq(r, qtb if rhs.ndim == 2 else qtb[:, 0], rcond)
    c_scaled = asarray(c_host)
    c = (c_scaled.astype(kind, copy=False).T / scale).T
    if rank != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", np.exceptions.RankWarning, stacklevel=2)
    if rank == order and lhs.shape[0] > order:
        resid = _abs(matmul(lhs_w, c_scaled) - rhs_w)
        resids = (resid * resid).sum(axis=0).astype(real, copy=False)
        resids = resids.reshape(1) if resids.ndim == 0 else resids
    else:
        resids = zeros((0,), dtype=real)
    if full:
        return c, resids, int(rank), asarray(s.astype(real)), rcond
    if cov:
        vbase = asarray(np.linalg.inv(matmul(lhs.T, lhs).get()))
        vbase /= scale[:, None] * scale[None, :]
        if cov == "unscaled":
            fac = 1
        else:
            if len(x) <= order:
                raise ValueError("the number of data points must exceed order to scale the covariance matrix")
            fac = resids / (len(x) - order)
        if y.ndim == 1:
            return c, vbase * fac
        return c, vbase[:, :, None] * fac
    return c


# --- arithmetic ----------------------------------------------------------------------------------
def _aligned(a1, a2):
    """The coefficients of ``a1`` and ``a2`` (at least 1-d), the shorter padded with leading
    zeros of its dtype."""
    a1, a2 = atleast_1d(_coeffs(a1)), atleast_1d(_coeffs(a2))
    gap = len(a2) - len(a1)
    if gap > 0:
        a1 = concatenate([zeros(gap, a1.dtype), a1])
    elif gap < 0:
        a2 = concatenate([zeros(-gap, a2.dtype), a2])
    return a1, a2


def _wrap(val, *inputs):
    return poly1d(val) if any(isinstance(p, poly1d) for p in inputs) else val


def polyadd(a1, a2):
    """The sum of two polynomials (a ``poly1d`` if either is one)."""
    b1, b2 = _aligned(a1, a2)
    return _wrap(b1 + b2, a1, a2)


def polysub(a1, a2):
    """The difference ``a1 - a2`` of two polynomials (a ``poly1d`` if either is one)."""
    b1, b2 = _aligned(a1, a2)
    return _wrap(b1 - b2, a1, a2)


def polymul(a1, a2):
    """The product of two polynomials, leading zeros dropped first (a ``poly1d`` if either is
    one)."""
    val = convolve(poly1d(a1).coeffs, poly1d(a2).coeffs)
    return _wrap(val, a1, a2)


def polydiv(u, v):
    """Quotient and remainder of the division of polynomial ``u`` by ``v`` (floating point;
    the remainder's leading near-zeros dropped, as NumPy's ``allclose`` finds them)."""
    truepoly = isinstance(u, poly1d) or isinstance(v, poly1d)
    u = atleast_1d(_coeffs(u)) + 0.0
    v = atleast_1d(_coeffs(v)) + 0.0
    w = u[0] + v[0]
    m, n = len(u) - 1, len(v) - 1
    scale = 1.0 / v[0]
    q = zeros((max(m - n + 1, 1),), dtype=w.dtype)
    r = u.astype(w.dtype)
    for k in range(m - n + 1):
        d = scale * r[k]
        q[k] = d
        r[k:k + n + 1] = r[k:k + n + 1] - d * v
    while r.shape[-1] > 1 and bool(_abs(r[0]) <= 1e-8):  # NumPy's allclose(r[0], 0, rtol=1e-14)
        r = r[1:]
    if truepoly:
        return poly1d(q), poly1d(r)
    return q, r


# --- calculus ------------------------------------------------------------------------------------
def polyder(p, m=1):
    """The ``m``-th derivative of polynomial ``p`` (a ``poly1d`` if ``p`` is one)."""
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    val = _coeffs(p)
    len(val)  # NumPy's TypeError for a 0-d polynomial, whatever m
    for _ in range(m):
        n = len(val) - 1
        val = val[:-1] * arange(n, 0, -1)
    return poly1d(val) if isinstance(p, poly1d) else val


def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative of polynomial ``p``, with integration constants ``k`` (one
    per integration, highest-order term's first; a scalar for all; zeros by default)."""
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = atleast_1d(zeros(m, float) if k is None else _array(k))
    if len(k) == 1 and m > 1:
        k = k[0] * ones(m, float)
    if len(k) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    val = _coeffs(p)
    for i in range(m):
        val = concatenate([val / arange(len(val), 0, -1), k[i:i + 1]])
    return poly1d(val) if isinstance(p, poly1d) else val


# --- the class -----------------------------------------------------------------------------------
class poly1d:
    """A one-dimensional polynomial (NumPy's and CuPy's ``poly1d``): ``poly1d([1, 2, 3])`` is
    ``x**2 + 2x + 3``, ``poly1d([1, 2], True)`` the polynomial with roots 1 and 2. Coefficients
    (leading zeros removed) live on the device; it evaluates (``p(x)``), adds, subtracts,
    multiplies, divides (quotient and remainder), raises to integer powers, differentiates
    (``deriv``) and integrates (``integ``), and prints as NumPy's does."""

    __hash__ = None

    def __init__(self, c_or_r, r=False, variable=None):
        if isinstance(c_or_r, poly1d):
            self._variable = c_or_r._variable if variable is None else variable
            self._coeffs = c_or_r._coeffs
            return
        if r:
            c_or_r = poly(c_or_r)
        c = atleast_1d(_array(c_or_r))
        if c.ndim > 1:
            raise ValueError("Polynomial must be 1d only.")
        c = trim_zeros(c, trim="f")
        if len(c) == 0:
            c = zeros((1,), dtype=c.dtype)
        self._coeffs = c
        self._variable = "x" if variable is None else variable

    # --- attributes --------------------------------------------------------------------------
    @property
    def coeffs(self):
        """The coefficients, highest power first (an ember array)."""
        return self._coeffs

    @coeffs.setter
    def coeffs(self, value):
        # `p.coeffs *= 2` assigns the same array back; anything else is refused, as in NumPy.
        if value is not self._coeffs:
            raise AttributeError("Cannot set attribute")

    @property
    def variable(self):
        """The name of the variable in the printed form."""
        return self._variable

    @property
    def order(self):
        """The degree (leading zeros removed)."""
        return len(self._coeffs) - 1

    @property
    def roots(self):
        """The roots (see :func:`roots`)."""
        return roots(self._coeffs)

    r = roots
    c = coef = coefficients = coeffs
    o = order

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed. Use .coeffs.get() to copy the coefficients"
        )

    def _host(self) -> np.poly1d:
        return np.poly1d(self._coeffs.get(), variable=self._variable)

    def __repr__(self):
        return repr(self._host())

    def __str__(self):
        return str(self._host())

    def __len__(self):
        return self.order

    def __iter__(self):
        return iter(self._coeffs)

    # --- evaluation and arithmetic -----------------------------------------------------------
    def __call__(self, val):
        return polyval(self._coeffs, val)

    def __neg__(self):
        return poly1d(-self._coeffs)

    def __pos__(self):
        return self

    def __mul__(self, other):
        if np.isscalar(other):
            return poly1d(self._coeffs * other)
        return poly1d(polymul(self._coeffs, poly1d(other).coeffs))

    def __rmul__(self, other):
        if np.isscalar(other):
            return poly1d(other * self._coeffs)
        return poly1d(polymul(self._coeffs, poly1d(other).coeffs))

    def __add__(self, other):
        return poly1d(polyadd(self._coeffs, poly1d(other).coeffs))

    __radd__ = __add__

    def __sub__(self, other):
        return poly1d(polysub(self._coeffs, poly1d(other).coeffs))

    def __rsub__(self, other):
        return poly1d(polysub(poly1d(other).coeffs, self._coeffs))

    def __pow__(self, val):
        if not np.isscalar(val) or int(val) != val or val < 0:
            raise ValueError("Power to non-negative integers only.")
        res = asarray([1])
        for _ in range(operator.index(val)):
            res = polymul(self._coeffs, res)
        return poly1d(res)

    def __truediv__(self, other):
        if np.isscalar(other):
            return poly1d(self._coeffs / other)
        return polydiv(self, poly1d(other))

    def __rtruediv__(self, other):
        if np.isscalar(other):
            return poly1d(other / self._coeffs)
        return polydiv(poly1d(other), self)

    def __eq__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        if self._coeffs.shape != other._coeffs.shape:
            return False
        return bool(_reductions.all(self._coeffs == other._coeffs))

    def __ne__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        return not self.__eq__(other)

    # --- coefficients by power -----------------------------------------------------------------
    def __getitem__(self, val):
        if val > self.order or val < 0:
            return self._coeffs.dtype.type(0)
        return self._coeffs[self.order - val]

    def __setitem__(self, key, val):
        if key < 0:
            raise ValueError("Does not support negative powers.")
        ind = self.order - key
        if key > self.order:
            self._coeffs = concatenate([zeros(key - self.order, self._coeffs.dtype), self._coeffs])
            ind = 0
        self._coeffs[ind] = val

    # --- calculus ------------------------------------------------------------------------------
    def integ(self, m=1, k=0):
        """The ``m``-th antiderivative (see :func:`polyint`)."""
        return poly1d(polyint(self._coeffs, m=m, k=k))

    def deriv(self, m=1):
        """The ``m``-th derivative (see :func:`polyder`)."""
        return poly1d(polyder(self._coeffs, m=m))
