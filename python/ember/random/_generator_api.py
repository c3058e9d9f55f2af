"""NumPy's ``Generator`` (as ``cupy.random.Generator``) over a :class:`Philox`."""

from __future__ import annotations

import numpy as np

from .._ndarray import ndarray
from ._bit_generator import Philox
from ._laws import Distributions
from ._sampling import Sampling


class Generator(Distributions, Sampling):
    """NumPy's ``Generator`` methods: every distribution, ``integers`` (with ``endpoint``),
    ``random``, ``choice``, ``permutation``, ``shuffle``, ``permuted``, ``bytes``."""

    def __init__(self, bit_generator: Philox):
        if not isinstance(bit_generator, Philox):
            raise TypeError(f"Generator needs an ember.random.Philox bit generator, got {type(bit_generator).__name__}")
        self.bit_generator = bit_generator

    @property
    def _bits(self) -> Philox:
        return self.bit_generator

    def random(self, size=None, dtype=np.float64, out=None) -> ndarray:
        """Uniform values in ``[0, 1)``."""
        return self._into(out, self._fill("uniform", self._size_of(size, out), dtype, 0.0, 1.0))

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False) -> ndarray:
        """Integers in ``[low, high)`` (``[low, high]`` with ``endpoint=True``; ``low`` is the
        upper bound and 0 the lower when ``high`` is None)."""
        return self._integers(low, high, size, dtype, endpoint)

    def spawn(self, n_children: int) -> list:
        """``n_children`` generators on fresh seeds drawn from this one."""
        seeds = self._bits.integers((int(n_children),), "uint64", 0, 1 << 64).get()
        return [Generator(Philox(int(s))) for s in seeds]

    def __repr__(self):
        return f"Generator({self.bit_generator!r})"


def default_rng(seed=None) -> Generator:
    """A :class:`Generator` on a :class:`Philox` seeded with ``seed`` (a Generator is returned as
    it is, a Philox wrapped)."""
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, Philox):
        return Generator(seed)
    return Generator(Philox(seed))
