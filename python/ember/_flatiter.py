"""``ndarray.flat``: the array seen as 1-d in C order, for reading, writing and iterating.

As NumPy's ``flatiter``: integers, slices, ``...`` and integer or boolean arrays index it;
reading gives copies; writing repeats the values cyclically over the positions written (NumPy's
rule for ``a.flat[...] = v``). Writes reach the array itself whatever its layout.
"""

from __future__ import annotations

import operator

import numpy as np

from . import _ember
from ._creation import asarray
from ._logic import count_nonzero
from ._manipulation import resize
from ._shape import ravel

__all__ = ["flatiter"]

_INVALID = (
    "only integers, slices (`:`), ellipsis (`...`) and integer or boolean arrays are valid indices "
    "of a flat iterator"
)


class flatiter:
    """The flat iterator of an array (``a.flat``)."""

    __slots__ = ("_base", "_index")

    def __init__(self, base):
        self._base = base
        self._index = 0

    @property
    def base(self):
        """The array iterated over."""
        return self._base

    @property
    def index(self) -> int:
        """The flat position of the next element."""
        return self._index

    @property
    def coords(self) -> tuple[int, ...]:
        """The N-d position of the next element."""
        return tuple(int(c) for c in np.unravel_index(self._index, self._base.shape))

    def __len__(self) -> int:
        return self._base.size

    def __iter__(self):
        return self

    def __next__(self):
        if self._index >= self._base.size:
            raise StopIteration
        item = self[self._index]
        self._index += 1
        return item

    def copy(self):
        """The elements as a new 1-d array (all of them, wherever iteration stands)."""
        return self._base.flatten()

    def _key(self, ind):
        """``ind`` as an int, a slice or an ember index array; IndexError for anything else."""
        if ind is Ellipsis:
            return slice(None)
        if isinstance(ind, (bool, np.bool_)) or ind is None or isinstance(ind, tuple):
            raise IndexError(_INVALID)
        if isinstance(ind, slice):
            return ind
        if isinstance(ind, (int, np.integer)):
            i, size = operator.index(ind), self._base.size
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for size {size}")
            return i % size
        if isinstance(ind, _ember.ndarray) or isinstance(ind, (list, np.ndarray)):
            key = ind if isinstance(ind, _ember.ndarray) else asarray(np.asarray(ind))
            if key.dtype.kind not in "iub":
                raise IndexError(_INVALID)
            return key
        raise IndexError(_INVALID)

    def __getitem__(self, ind):
        key = self._key(ind)
        base = self._base
        if isinstance(key, int):
            return base[np.unravel_index(key, base.shape)].copy()
        flat = ravel(base)
        out = flat[key]
        # A slice of a contiguous array is a view: the flat iterator gives copies.
        return out.copy() if isinstance(key, slice) else out

    def __setitem__(self, ind, value):
        key = self._key(ind)
        base = self._base
        if isinstance(key, int):
            v = asarray(value, dtype=base.dtype).ravel()
            base[np.unravel_index(key, base.shape)] = v[0] if v.size else v
            return
        if isinstance(key, slice):
            count = len(range(*key.indices(base.size)))
        elif key.dtype.kind == "b":
            count = int(count_nonzero(key)) if key.shape == (base.size,) else 0
        else:
            count = key.size
        v = asarray(value, dtype=base.dtype).ravel()
        if v.size == 0:
            return  # NumPy writes nothing
        if v.size != count:
            v = resize(v, count)  # NumPy repeats the values over the positions
        # Written through a flat view, or a flat copy put back for other layouts.
        target = ravel(base) if base.flags.c_contiguous else base.flatten()
        target[key] = v
        if not base.flags.c_contiguous:
            base[...] = target.reshape(base.shape)
