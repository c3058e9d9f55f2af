"""How a ufunc built from a Python function is typed: its declared signatures parsed by the
compiler, and the one NumPy would choose for given inputs (``@vectorize`` on every target)."""

from __future__ import annotations

import numpy as np

from .. import _ember
from ..types import signature_text


def declared_signature(sig) -> tuple[np.dtype | None, list[np.dtype]]:
    """A Numba signature (text, a signature object such as ``float32(float32, float32)``, or a
    tuple of argument types) as (return dtype or None, argument dtypes), parsed by the
    compiler's own parser."""
    ret, args = _ember.jit_signature(signature_text(sig))
    return (None if ret is None else np.dtype(ret)), [np.dtype(a) for a in args]


class UFuncShape:
    """What a ufunc built from a Python function says of itself, as NumPy's ufuncs do. The
    class lists its declared loops as ``_typed_loops``: (result dtype, input dtypes)."""

    py_func = None
    _typed_loops: list = []

    @property
    def nin(self) -> int:
        return self.py_func.__code__.co_argcount

    @property
    def nout(self) -> int:
        return 1

    @property
    def nargs(self) -> int:
        return self.nin + 1

    @property
    def types(self) -> list[str]:
        return ["".join(np.dtype(d).char for d in args) + "->" + np.dtype(ret).char for ret, args in self._typed_loops]

    @property
    def ntypes(self) -> int:
        return len(self._typed_loops)


def pick_loop(signatures: list, dtypes: list, weak: list, exact_first: bool = False):
    """The first signature, in the declared order, the inputs cast to safely (Python scalars
    only need the same kind): NumPy's linear search of a user ufunc's loops, which takes an
    earlier loop the inputs cast to over a later exact match. ``exact_first``: an exact match
    wins wherever it is (device ufuncs: numba-cuda matches exact types first)."""
    if exact_first:
        for sig in signatures:
            if list(sig[1]) == dtypes:
                return sig
    for sig in signatures:
        ins = sig[1]
        if len(ins) == len(dtypes) and all(
            np.can_cast(d, t, "same_kind" if w else "safe") for d, t, w in zip(dtypes, ins, weak, strict=True)
        ):
            return sig
    return None
