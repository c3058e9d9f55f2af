"""``prange``: Numba's parallel range. Run by Python it is ``range``; in a function compiled
with ``parallel=True`` its iterations are shared among threads."""

from __future__ import annotations


def prange(*args):
    """``range(*args)``, whose iterations a ``parallel=True`` function may run at once."""
    return range(*args)
