"""NumPy's array conversions beyond ``asarray``: ``asanyarray`` (ember has no subclasses),
``asarray_chkfinite``, ``require`` and ``isfortran``."""

from __future__ import annotations

import numpy as np

from . import _ember, _reductions
from ._creation import asarray, ascontiguousarray
from ._shape import asfortranarray
from ._ufuncs import UFUNCS

__all__ = ["asanyarray", "asarray_chkfinite", "isfortran", "require"]


def asanyarray(a, dtype=None, order=None, *, blocking=False):
    """``asarray`` (ember arrays have no subclasses to keep)."""
    return asarray(a, dtype=dtype, order=order)


def asarray_chkfinite(a, dtype=None, order=None):
    """``asarray``, refusing NaN and infinities with NumPy's ``ValueError``."""
    a = asarray(a, dtype=dtype, order=order)
    if a.dtype.kind in "fc" and not bool(_reductions.all(UFUNCS["isfinite"](a))):
        raise ValueError("array must not contain infs or NaNs")
    return a


_REQUIREMENTS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F", "F_CONTIGUOUS": "F",
                 "FORTRAN": "F", "A": "A", "ALIGNED": "A", "W": "W", "WRITEABLE": "W", "O": "O", "OWNDATA": "O",
                 "E": "E", "ENSUREARRAY": "E"}


def require(a, dtype=None, requirements=None):
    """``a`` as an ember array of ``dtype`` meeting ``requirements`` ('C', 'F', 'A', 'W', 'O',
    'E'), copied only where it must be."""
    if requirements is None:
        return asarray(a, dtype=dtype)
    if isinstance(requirements, str):
        requirements = [requirements]
    wanted = set()
    for r in requirements:
        key = _REQUIREMENTS.get(str(r).upper())
        if key is None:
            raise KeyError(f"{r!r} is not a valid requirement")
        wanted.add(key)
    if {"C", "F"} <= wanted:
        raise ValueError('Cannot specify both "C" and "F" order')
    arr = asarray(a, dtype=dtype)
    if "C" in wanted and not arr.flags.c_contiguous:
        arr = ascontiguousarray(arr)
    elif "F" in wanted and not arr.flags.f_contiguous:
        arr = asfortranarray(arr)
    if "O" in wanted and not arr.flags.owndata:
        arr = arr.copy()
    return arr


def isfortran(a) -> bool:
    """Whether ``a`` is Fortran-contiguous and not C-contiguous."""
    if not isinstance(a, _ember.ndarray):
        return bool(np.isfortran(np.asarray(a)))
    return bool(a.flags.f_contiguous and not a.flags.c_contiguous)
