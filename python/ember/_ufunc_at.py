"""``ufunc.at(a, indices, b=None)``: the ufunc applied in place at ``a[indices]``, once per
occurrence of each index (NumPy's unbuffered update: ``add.at(a, [0, 0], 1)`` adds 2).

The selected positions are found by indexing an array of positions as ``a`` would be
indexed, so every form of index NumPy takes works. ``add`` and ``subtract`` on the dtypes
atomics cover run one kernel of atomic additions; every other ufunc runs in rounds, round
``r`` updating the ``r``-th occurrence of each position (positions are unique within a
round, so a gather, the ufunc and a scatter are exact): as many launches as the most repeated
position occurs.
"""

from __future__ import annotations

import numpy as np

from . import _ember
from ._creation import arange, asarray
from ._shape import broadcast_to, ravel

_ATOMIC_ADD = {np.dtype(t) for t in ("int32", "int64", "uint32", "uint64", "float32", "float64")}
_add_kernel = None


def _atomic_add():
    """The kernel ``a[pos[i]] += v[i]`` with atomic additions (compiled on first use)."""
    global _add_kernel
    if _add_kernel is None:
        from ._jit import jit
        from ._jit.intrinsics import atomic, grid

        @jit
        def add_at(a, pos, v):
            i = grid(1)
            if i < pos.size:
                atomic.add(a, pos[i], v[i])

        _add_kernel = add_at
    return _add_kernel


def _flat_target(a):
    """A 1-d view of ``a``'s elements in C order, and whether it must be written back."""
    if a.flags.c_contiguous:
        return ravel(a), False
    return a.reshape(-1).copy(), True


def ufunc_at(u, a, indices, b=None):
    """``u.at(a, indices, b)``."""
    if not isinstance(a, _ember.ndarray):
        raise TypeError("ufunc.at needs an ember array to update in place as its first argument")
    if u.nin == 2 and b is None:
        raise ValueError("second operand needed for ufunc")
    if u.nin == 1 and b is not None:
        raise ValueError("second operand provided when ufunc is unary")
    if u.nout != 1:
        raise ValueError("ufunc.at does not support ufuncs with more than one output")
    positions = arange(a.size, dtype=np.int64).reshape(a.shape)[indices]
    pos = ravel(positions)
    if pos.size == 0:
        return
    flat, write_back = _flat_target(a)
    values = None
    if b is not None:
        values = ravel(broadcast_to(asarray(b), positions.shape))
    name = u.__name__
    if name in ("add", "subtract") and flat.dtype in _ATOMIC_ADD and values is not None:
        # Atomics add in a's dtype: exact only when the sum is computed in it anyway.
        if np.result_type(flat.dtype, values.dtype) == flat.dtype:
            v = values.astype(flat.dtype)
            if name == "subtract":
                v = -v
            threads = 256
            _atomic_add()[(pos.size + threads - 1) // threads, threads](flat, pos, v)
            if write_back:
                a[...] = flat.reshape(a.shape)
            return
    # Rounds: the rank of each occurrence among the occurrences of its position, on the host.
    host = pos.get()
    order = np.argsort(host, kind="stable")
    sorted_pos = host[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_pos)) + 1]
    rank = np.empty(host.size, dtype=np.int64)
    rank[order] = np.arange(host.size) - np.repeat(starts, np.diff(np.r_[starts, host.size]))
    for r in range(int(rank.max()) + 1):
        chosen = asarray(np.flatnonzero(rank == r))
        where_ = pos[chosen]
        current = flat[where_]
        updated = u(current) if values is None else u(current, values[chosen])
        # NumPy's at casts the result back whatever its dtype ('unsafe').
        flat[where_] = updated.astype(flat.dtype, copy=False)
    if write_back:
        a[...] = flat.reshape(a.shape)
