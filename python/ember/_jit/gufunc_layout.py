"""What every ``@guvectorize`` gufunc shares, whatever runs it: the layout (``"(m,n),(n)->(m)"``),
the declared signatures, the choice of one for given inputs, and the shapes of the loop and
core dimensions for given arguments (NumPy's generalized-ufunc rules)."""

from __future__ import annotations

import re

import numpy as np

from .._shape import broadcast_shapes
from ..types import Array, argument_types, signature_text
from .ufunc_types import declared_signature, pick_loop

_GROUPS = r"\s*\([\w\s,]*\)\s*(,\s*\([\w\s,]*\)\s*)*"
_LAYOUT = re.compile(f"^{_GROUPS}->{_GROUPS}$")


def _parse_layout(layout: str) -> tuple[list[list[str]], list[list[str]]]:
    """``"(m,n),(n,p)->(m,p)"`` as lists of core dimension names."""
    if not isinstance(layout, str) or not _LAYOUT.match(layout):
        raise ValueError(f"a gufunc layout looks like '(n),(n)->(n)' or '(m,n),(n,p)->(m,p)', got {layout!r}")
    ins, outs = layout.split("->")

    def groups(text):
        return [[d.strip() for d in g.split(",") if d.strip()] for g in re.findall(r"\(([^)]*)\)", text)]

    return groups(ins), groups(outs)


class LayoutFunc:
    """A gufunc's layout and signatures (subclasses run it)."""

    # Whether a loop matching the inputs exactly wins wherever it is declared (device gufuncs,
    # as numba-cuda's), or the first loop they cast to safely does (NumPy's, on the CPU).
    _exact_first = False

    def __init__(self, py_func, signatures, layout):
        self.py_func = py_func
        self.__name__ = py_func.__name__
        self._ins, self._outs = _parse_layout(layout)
        self.layout = layout
        nargs = py_func.__code__.co_argcount
        if nargs != len(self._ins) + len(self._outs):
            raise TypeError(
                f"{self.__name__} takes {nargs} arguments but the layout {layout!r} names "
                f"{len(self._ins) + len(self._outs)}"
            )
        self._signatures = []
        self._as_array: list[list[bool]] = []
        for s in signatures:
            ret, args = declared_signature(s)
            if ret is not None:
                raise TypeError(f"guvectorized functions cannot return values: signature {signature_text(s)} "
                                f"specifies {ret} return type (write results into the output arguments)")
            if len(args) != nargs:
                raise TypeError(f"signature {s!r} has {len(args)} arguments, {self.__name__} takes {nargs}")
            self._signatures.append((None, args))
            # Numba's old style: an array type for a "()" core dimension gets a 1-element array.
            declared = argument_types(s)
            self._as_array.append([isinstance(t, Array) for t in declared])
        if not self._signatures:
            raise TypeError("@guvectorize needs signatures, e.g. ['void(float32[:], float32[:])']")

    def _given_outs(self, args, out) -> list:
        """The outputs the caller gave (positionally after the inputs, or as ``out=``)."""
        nin, nout = len(self._ins), len(self._outs)
        given_outs = list(args[nin:])
        if out is not None:
            given_outs = list(out) if isinstance(out, tuple) else [out]
        if out is not None and len(args) > nin:
            raise ValueError("cannot specify argument 'out' as both positional and keyword")
        if len(args) < nin or len(given_outs) not in (0, nout):
            def positional(n):
                return f"{n} positional argument{'s' * (n != 1)}"
            raise TypeError(f"This gufunc accepts {positional(nin)} (when providing input only) or "
                            f"{positional(nin + nout)} (when providing input and output). Got {positional(len(args))}.")
        return given_outs

    def _loop_for(self, dtypes, weak) -> tuple[list, list[bool]]:
        """The declared argument types for inputs of ``dtypes``, and which "()" arguments the
        signature declares as arrays (Numba's old style: they get a 1-element array)."""
        nin = len(self._ins)
        sig = pick_loop([(None, s[1][:nin]) for s in self._signatures], dtypes, weak, self._exact_first)
        if sig is None:
            raise TypeError(f"gufunc '{self.__name__}' has no loop for inputs ({', '.join(d.name for d in dtypes)})")
        which = next(k for k, s in enumerate(self._signatures) if s[1][:nin] == sig[1])
        return self._signatures[which][1], self._as_array[which]

    def _shapes(self, arrays) -> tuple[tuple, dict, int]:
        """The shape the inputs' loop dimensions broadcast to, each core dimension's length,
        and the number of loop elements."""
        sizes: dict[str, int] = {}
        loops = []
        for a, core in zip(arrays, self._ins, strict=True):
            if a.ndim < len(core):
                raise ValueError(f"{self.__name__}: an input with core dimensions {core} has only {a.ndim} dims")
            for name, n in zip(core, a.shape[a.ndim - len(core):], strict=True):
                if sizes.setdefault(name, n) != n:
                    raise ValueError(f"{self.__name__}: core dimension '{name}' is {sizes[name]} and {n}")
            loops.append(a.shape[: a.ndim - len(core)])
        loop = broadcast_shapes(*loops) if loops else ()
        return loop, sizes, int(np.prod(loop, dtype=np.int64))

    def _core_shape(self, core, sizes, one: bool) -> tuple:
        """An argument's core shape (a "()" declared as an array: 1 element)."""
        missing = [c for c in core if c not in sizes]
        if missing:
            raise ValueError(f"{self.__name__}: output core dimension(s) {missing} appear in no input")
        shape = tuple(sizes[c] for c in core)
        return (1,) if one and not shape else shape
