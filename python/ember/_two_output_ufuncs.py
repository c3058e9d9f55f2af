"""NumPy's ufuncs with two outputs: ``divmod`` (``floor_divide`` and ``remainder``),
``modf`` (fractional and integral parts) and ``frexp`` (mantissa and exponent).

Each is composed of registry ufuncs, so results are exactly NumPy's: ``divmod``'s parts are
NumPy's own two loops; ``modf`` is ``trunc`` and the exact difference; ``frexp`` estimates the
exponent with ``log2`` and corrects it by one step either way, ``ldexp`` being exact.
"""

from __future__ import annotations

import numpy as np

from . import _ember
from ._creation import asarray
from ._indexing import where
from ._operands import needs_conversion
from ._ufuncs import UFUNCS, ufunc

__all__ = ["divmod", "frexp", "modf"]

_U = UFUNCS


class _TwoOutputUfunc(ufunc):
    """A ufunc of ``nin`` inputs and two outputs; ``out=`` takes a pair of arrays (or None)."""

    __slots__ = ("_compute",)

    def __init__(self, name, nin, compute):
        self.__name__, self.nin, self.nout, self._id = name, nin, 2, None
        self._compute = compute

    def __call__(self, *args, out=None, dtype=None, casting="same_kind", **kwargs):
        if kwargs:
            raise TypeError(f"{self.__name__}() got unexpected keyword arguments {sorted(kwargs)}")
        if self.nin < len(args) <= self.nin + self.nout and out is None:  # outputs given by position
            args, out = args[: self.nin], args[self.nin:] + (None,) * (self.nin + self.nout - len(args))
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} positional input(s), got {len(args)}")
        args = tuple(asarray(a) if needs_conversion(a) or isinstance(a, list) else a for a in args)
        if dtype is not None:
            args = tuple(a.astype(dtype) if isinstance(a, _ember.ndarray) else a for a in args)
        first, second = self._compute(*args)
        if out is None:
            return first, second
        if not isinstance(out, tuple) or len(out) != 2:
            raise ValueError(f"{self.__name__}: out must be a tuple of 2 arrays (or None)")
        results = []
        for target, value in zip(out, (first, second), strict=True):
            if target is None:
                results.append(value)
                continue
            _U["positive"](value, out=target, casting=casting)
            results.append(target)
        return tuple(results)

    def reduce(self, *args, **kwargs):
        raise ValueError("reduce only supported for functions returning a single value")

    accumulate = outer = at = reduce

    @property
    def identity(self):
        return None


def _floating(x, name):
    """``x`` as an ember array of the input dtype of NumPy's loop of ufunc ``name`` for it (ints
    to the float that holds them); NumPy's TypeError where it has no loop (complex)."""
    x = x if isinstance(x, _ember.ndarray) else asarray(x)
    loop_input = getattr(np, name).resolve_dtypes((x.dtype, None, None))[0]
    return x if loop_input == x.dtype else x.astype(loop_input)


def _divmod(x1, x2):
    return _U["floor_divide"](x1, x2), _U["remainder"](x1, x2)


def _modf(x):
    x = _floating(x, "modf")
    whole = _U["trunc"](x)
    # The difference is exact; its sign is x's (also for -0.0 and integral values), and an
    # infinity has fractional part 0.
    frac = _U["copysign"](_U["subtract"](x, whole), x)
    frac = where(_U["isinf"](x), _U["copysign"](np.zeros((), x.dtype)[()], x), frac)
    return frac, whole


def _frexp(x):
    x = _floating(x, "frexp")
    regular = _U["logical_and"](_U["isfinite"](x), _U["not_equal"](x, 0))
    magnitude = where(regular, _U["absolute"](x), np.ones((), x.dtype)[()])
    # log2 of a float, rounded down, is within one of the exponent: ldexp is exact, so one
    # correction either way gives the mantissa in [0.5, 1).
    exponent = _U["add"](_U["floor"](_U["log2"](magnitude.astype(np.float64))), 1).astype(np.int32)
    exponent = where(regular, exponent, np.int32(0))  # zeros, infinities and NaN: exponent 0
    mantissa = _U["ldexp"](x, _U["negative"](exponent))
    high = _U["logical_and"](_U["greater_equal"](_U["absolute"](mantissa), 1), regular)
    low = _U["logical_and"](_U["less"](_U["absolute"](mantissa), 0.5), regular)
    mantissa = where(high, _U["multiply"](mantissa, 0.5), mantissa)
    mantissa = where(low, _U["multiply"](mantissa, 2), mantissa)
    exponent = _U["subtract"](_U["add"](exponent, high.astype(np.int32)), low.astype(np.int32))
    return mantissa, exponent


divmod = _TwoOutputUfunc("divmod", 2, _divmod)  # noqa: A001  (NumPy's name)
modf = _TwoOutputUfunc("modf", 1, _modf)
frexp = _TwoOutputUfunc("frexp", 1, _frexp)

TWO_OUTPUT_UFUNCS = {u.__name__: u for u in (divmod, modf, frexp)}
