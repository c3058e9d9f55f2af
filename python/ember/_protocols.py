"""NumPy's dispatch protocols: NumPy's own functions, called on ember arrays, run ember's.

- ``__array_ufunc__`` (NEP 13): ``np.sin(x)``, ``np.add(x, y, out=z)``, ``np.add.reduce(x)``,
  ``np.multiply.outer(x, y)`` run ember's ufunc of the same name, and its method.
- ``__array_function__`` (NEP 18): ``np.mean(x)``, ``np.concatenate([x, y])``,
  ``np.linalg.norm(x)`` run ember's function of the same name in the same submodule.

What ember lacks gives ``NotImplemented``, and NumPy raises its ``TypeError`` naming the
function. As in CuPy, a host NumPy array mixed with ember arrays is refused (``TypeError``):
nothing moves between host and device without being asked.
"""

from __future__ import annotations

import sys

import numpy as np

from . import _ember
from ._two_output_ufuncs import TWO_OUTPUT_UFUNCS
from ._ufuncs import UFUNCS

_METHODS = ("__call__", "reduce", "accumulate", "outer", "reduceat", "at")


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """``ndarray.__array_ufunc__``."""
    mine = UFUNCS.get(ufunc.__name__) or TWO_OUTPUT_UFUNCS.get(ufunc.__name__)
    if mine is None or method not in _METHODS:
        return NotImplemented
    call = mine if method == "__call__" else getattr(mine, method, None)
    if call is None:
        return NotImplemented
    out = kwargs.get("out")
    if isinstance(out, tuple) and len(out) == 1:  # NumPy always hands out= as a tuple
        kwargs["out"] = out[0]
    # NumPy turns a scalar operand (``np.int64(3) == x``) into a 0-d array: a scalar again.
    inputs = tuple(x[()] if isinstance(x, np.ndarray) and x.ndim == 0 else x for x in inputs)
    return call(*inputs, **kwargs)


def _namespace(module: str):
    """ember's module standing for NumPy's ``module`` (``numpy.linalg`` -> ``ember.linalg``),
    or None."""
    parts = module.split(".")
    if parts[0] != "numpy":
        return None
    ns = sys.modules["ember"]
    for p in parts[1:]:
        if p.startswith("_"):  # numpy._core.* and the like: where NumPy defines, not exports
            continue
        ns = getattr(ns, p, None)
        if ns is None:
            return None
    return ns


def array_function(self, func, types, args, kwargs):
    """``ndarray.__array_function__``."""
    if not all(issubclass(t, (_ember.ndarray, np.ndarray)) for t in types):
        return NotImplemented
    ns = _namespace(getattr(func, "__module__", "") or "")
    mine = getattr(ns, func.__name__, None) if ns is not None else None
    # A NumPy function that ember re-exports unchanged would recurse here.
    if mine is None or mine is func or not callable(mine):
        return NotImplemented
    return mine(*args, **kwargs)
