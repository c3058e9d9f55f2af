"""``prange``: Numba's parallel range. Run by Python it is ``range``; in a function compiled
with ``parallel=True`` its iterations are shared among threads: ember's pool, ``EMBER_NUM_THREADS``
(or Numba's ``NUMBA_NUM_THREADS``) threads, the cores by default; ``set_num_threads`` lowers the
count for the loops a Python thread starts, as Numba's does."""

from __future__ import annotations

import numbers

import numpy as np

from .. import _ember


def get_num_threads() -> int:
    """The threads ``prange`` loops started in this Python thread use."""
    return _ember.get_num_threads()


def set_num_threads(n) -> None:
    """Uses ``n`` threads (1 up to the pool's size) for the ``prange`` loops this Python thread
    starts; Numba's ``set_num_threads``."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"The number of threads specified must be an integer, not {type(n).__name__}")
    _ember.set_num_threads(int(n))


def prange(*args):
    """``range(*args)``, whose iterations a ``parallel=True`` function may run at once."""
    return range(*args)


def pndindex(*shape):
    """``np.ndindex(*shape)``, Numba's parallel form of it. In a compiled function ember runs
    its positions in order, in the calling thread (as ``np.ndindex``)."""
    return np.ndindex(*shape)
