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

    def multivariate_hypergeometric(self, colors, nsample, size=None, method="marginals") -> ndarray:
        """Counts of each color in ``nsample`` draws without replacement from an urn holding
        ``colors[i]`` items of color ``i``: shape ``size + (len(colors),)``, int64. Both of
        NumPy's methods draw from the same law; ember computes it by ``"marginals"`` (a
        hypergeometric draw a color) whichever is named."""
        from .._creation import asarray
        from ._params import out_shape

        if method not in ("count", "marginals"):
            raise ValueError('method must be "count" or "marginals".')
        host = colors.get() if isinstance(colors, ndarray) else np.asarray(colors)
        limit = np.iinfo(np.int64).max
        if host.ndim != 1 or (host.size and (host.dtype.kind not in "iu" or host.min() < 0 or host.max() > limit)):
            raise ValueError("colors must be a one-dimensional sequence of nonnegative integers not exceeding "
                             f"{limit}.")
        if host.size and host.max() > 2**53:
            raise ValueError("ember.random draws colors of up to 2**53 items each")
        if int(nsample) != nsample:
            raise ValueError("nsample must be an integer")
        nsample = int(nsample)
        if nsample < 0:
            raise ValueError("nsample must be nonnegative.")
        if nsample > int(host.sum(dtype=np.uint64)):
            raise ValueError("nsample > sum(colors)")
        shape = out_shape(size, ()) + (host.size,)
        return self._bits.sample("multivariate_hypergeometric", shape, "int64", [nsample],
                                 asarray(host.astype(np.float64)), False)

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
