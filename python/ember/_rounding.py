"""Rounding to a number of decimals: ``around``/``round``, ``ndarray.round`` (and CuPy's
deprecated ``round_``).

Composed from the ``multiply``/``true_divide``/``rint`` ufuncs exactly as NumPy's
``PyArray_Round`` composes them (``numpy/_core/src/multiarray/calculation.c``): the same
operations, in the same dtypes, in the same order, so results match NumPy bit for bit (CuPy's
own kernel differs for large integers). No kernel of its own: rounding reuses ufunc kernels.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from ._creation import asarray, empty_like
from ._ufuncs import UFUNCS

_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1  # NumPy reads decimals as a C int


def _power_of_ten(n: int) -> float:
    """NumPy's ``power_of_ten``: exact to 1e22, then the same repeated products as NumPy
    (``10.0 ** n`` rounds differently for some larger n)."""
    if n < 9:
        return 10.0**n
    value = 1e9
    for _ in range(n - 9):
        value *= 10.0
        if value == float("inf"):  # stays inf: no need to loop up to INT_MAX
            break
    return value


def _decimals(decimals) -> int:
    d = operator.index(decimals)  # TypeError for 1.5, as NumPy
    if not _INT_MIN <= d <= _INT_MAX:
        raise OverflowError(f"decimals={d} does not fit in a C int, as NumPy requires")
    return d


def _check_out(a, out) -> None:
    if out is not None and out.size != a.size:
        raise ValueError(f"invalid output shape: out has {out.size} elements, the array {a.size}")


def _round_complex(a, decimals: int, out):
    # NumPy rounds the two parts as real arrays and assigns them (with the assignment's
    # casting), so a complex64 input into a complex128 out rounds in float32 first.
    result = empty_like(a) if out is None else out
    result.real = _round(a.real, decimals, None)
    result.imag = _round(a.imag, decimals, None)
    return result


def _round(a, decimals: int, out):
    _check_out(a, out)
    if a.dtype.kind == "c":
        return _round_complex(a, decimals, out)
    integer = a.dtype.kind in "iu"
    if decimals >= 0:
        if integer:
            if out is None:
                return a.copy()
            out[...] = a
            return out
        if decimals == 0:
            return UFUNCS["rint"](a, out=out)
        scale, unscale = UFUNCS["multiply"], UFUNCS["true_divide"]
    else:
        scale, unscale = UFUNCS["true_divide"], UFUNCS["multiply"]
        decimals = _INT_MAX if decimals == _INT_MIN else -decimals
    target = out
    if target is None:
        # Integers round through float64 and are cast back, as in NumPy (so int64 beyond 2**53
        # loses the same low bits NumPy's result loses).
        target = empty_like(a, dtype=np.float64 if integer else a.dtype)
    f = _power_of_ten(decimals)  # a Python float: a weak scalar, so float32 stays float32
    scale(a, f, out=target)
    UFUNCS["rint"](target, out=target)
    unscale(target, f, out=target)
    if integer and out is None:
        return target.astype(a.dtype)
    return target


def around(a, decimals=0, out=None):
    """``a`` rounded to ``decimals`` places (negative: to tens, hundreds...), halves to even.

    NumPy's algorithm and dtypes: floats as ``rint(a * 10**d) / 10**d`` (``rint(a / 10**-d) *
    10**-d`` for negative ``d``) in their own dtype; integers unchanged for ``d >= 0`` and through
    float64 otherwise; complex part by part. The result has ``a``'s dtype (``out``'s when given).
    """
    return _round(asarray(a), _decimals(decimals), out)


def round(a, decimals=0, out=None):
    """Same as :func:`around`."""
    return around(a, decimals, out)


def round_(a, decimals=0, out=None):
    """CuPy's deprecated spelling of :func:`round` (NumPy 2 removed it)."""
    warnings.warn("Please use `round` instead.", DeprecationWarning, stacklevel=2)
    return around(a, decimals, out)


def fix(x, out=None):
    """Rounds toward zero, keeping the dtype (NumPy's ``fix``): ``trunc`` gives the same values,
    ``-0.0`` and non-finite ones included, in one kernel instead of NumPy's ceil-then-floor."""
    return UFUNCS["trunc"](asarray(x), out=out)
