"""Python's ``math`` as a simulated kernel sees it: the compiled kernels' rules, not Python's.

On the device ``math.sqrt(-1.0)`` is NaN and ``math.exp(1000.0)`` is inf, where Python raises;
``math.sqrt`` of a float32 is a float32 (Numba's typing), where Python gives a float; and
``math.floor`` of a float is an int64. Each function here answers as the device does: NumPy's
ufuncs where one exists (they keep float32 and give NaN/inf), Python's ``math`` otherwise with
its domain and range errors turned into NaN and inf.
"""

from __future__ import annotations

import math

import numpy as np


def _operand(x):
    """Floats keep their width (float16 computes in float32, as on the device); integers and
    Python floats are float64."""
    if isinstance(x, np.float16):
        return np.float32(x)
    if isinstance(x, np.floating):
        return x
    return np.float64(x)


def _ufunc(fn):
    def call(*xs):
        with np.errstate(all="ignore"):
            return fn(*(_operand(x) for x in xs))

    call.__name__ = getattr(fn, "__name__", "ufunc")
    return call


def _python(fn):
    """A ``math`` function without a ufunc: NaN where Python raises a domain error, inf where
    it overflows, and the operand's float width."""

    def call(*xs):
        ops = [_operand(x) for x in xs]
        kind = type(ops[0])
        try:
            return kind(fn(*(float(x) for x in ops)))
        except ValueError:
            return kind(np.nan)
        except OverflowError:
            return kind(np.inf)

    call.__name__ = fn.__name__
    return call


def _to_int(fn):
    """``floor``/``ceil``/``trunc``: int64 of a float (Numba's type); the device's conversion of
    NaN and inf (the smallest int64)."""

    def call(x):
        if isinstance(x, (int, np.integer)):
            return x
        value = fn(_operand(x))
        return np.int64(value) if np.isfinite(value) else np.int64(np.iinfo(np.int64).min)

    return call


def _log(x, base=None):
    with np.errstate(all="ignore"):
        return np.log(_operand(x)) if base is None else np.log(_operand(x)) / np.log(_operand(base))


def _ldexp(x, exponent):
    with np.errstate(all="ignore"):
        return np.ldexp(_operand(x), int(exponent))


def _test(fn):
    return lambda x: bool(fn(_operand(x)))


_FUNCTIONS = {
    **{name: _ufunc(getattr(np, npname)) for name, npname in [
        ("sqrt", "sqrt"), ("exp", "exp"), ("exp2", "exp2"), ("expm1", "expm1"), ("log1p", "log1p"),
        ("log2", "log2"), ("log10", "log10"), ("sin", "sin"), ("cos", "cos"), ("tan", "tan"),
        ("asin", "arcsin"), ("acos", "arccos"), ("atan", "arctan"), ("atan2", "arctan2"), ("sinh", "sinh"),
        ("cosh", "cosh"), ("tanh", "tanh"), ("asinh", "arcsinh"), ("acosh", "arccosh"), ("atanh", "arctanh"),
        ("fabs", "fabs"), ("hypot", "hypot"), ("copysign", "copysign"), ("pow", "power"), ("fmod", "fmod"),
        ("degrees", "degrees"), ("radians", "radians"), ("cbrt", "cbrt"),
    ]},
    **{name: _python(getattr(math, name)) for name in ("erf", "erfc", "gamma", "lgamma", "remainder")},
    "log": _log,
    "ldexp": _ldexp,
    "floor": _to_int(np.floor),
    "ceil": _to_int(np.ceil),
    "trunc": _to_int(np.trunc),
    "isnan": _test(np.isnan),
    "isinf": _test(np.isinf),
    "isfinite": _test(np.isfinite),
}


class _Math:
    """The functions above; everything else (``pi``, ``inf``, ``gcd``...) is ``math``'s own."""

    def __init__(self):
        self.__dict__.update(_FUNCTIONS)

    def __getattr__(self, name):
        return getattr(math, name)

    def __repr__(self):
        return "<math as the simulator's kernels see it>"


SIMULATED_MATH = _Math()
# ``from math import sqrt`` in a kernel's module: the function object, mapped to its stand-in.
BY_FUNCTION = {id(getattr(math, name)): fn for name, fn in _FUNCTIONS.items() if hasattr(math, name)}
