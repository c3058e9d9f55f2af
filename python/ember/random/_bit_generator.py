"""The bit generator of ``ember.random``: Philox4x32-10 keyed by a 64-bit seed, evaluated inside
the kernels that write the values (``crates/ember-codegen/src/philox.rs`` for uniform, normal and
integer fills; ``crates/ember-codegen/src/sampler`` for every other distribution)."""

from __future__ import annotations

import hashlib
import numbers
import os

import numpy as np

from .. import _ember
from .._ndarray import _wrap, ndarray
from .._runtime import current_device_id

_UINT64_LIMIT = 1 << 64


def seed_value(seed) -> int:
    """A 64-bit key from what NumPy and CuPy accept as a seed."""
    if seed is None:
        return int.from_bytes(os.urandom(8), "little")
    if isinstance(seed, (ndarray, np.ndarray, list, tuple)):
        host = seed.get() if isinstance(seed, ndarray) else np.asarray(seed)
        if host.ndim > 0:
            # CuPy's rule for array seeds: the first 64 bits of the MD5 of the data.
            return int(hashlib.md5(np.ascontiguousarray(host).tobytes()).hexdigest()[:16], 16)
        seed = host.item()
    if isinstance(seed, (numbers.Integral, np.integer, np.bool_)):
        value = int(seed)
        if not 0 <= value < _UINT64_LIMIT:
            raise ValueError(f"Seed must be between 0 and 2**64 - 1, got {value}")
        return value
    raise TypeError(f"Cannot seed with {type(seed).__name__} {seed!r}: use an int in [0, 2**64) or None")


class Philox:
    """The bit generator: Philox4x32-10 keyed by a 64-bit seed (NumPy's ``numpy.random.Philox``
    names the same algorithm; the streams differ)."""

    def __init__(self, seed=None):
        self._native = _ember.Philox(seed_value(seed))

    @property
    def seed(self) -> int:
        return self._native.seed

    @property
    def offset(self) -> int:
        """The draw number of the next call (each call uses its own counter stream)."""
        return self._native.offset

    @property
    def state(self) -> dict:
        """The seed and the offset of the next draw (assignable, as NumPy's bit generators)."""
        return {"bit_generator": "Philox", "seed": self.seed, "offset": self.offset}

    @state.setter
    def state(self, value: dict) -> None:
        if not isinstance(value, dict) or value.get("bit_generator") != "Philox":
            raise ValueError("state must be a dict from a Philox bit generator's state")
        self._native.set_state(int(value["seed"]), int(value["offset"]))

    def uniform(self, size, dtype, low=0.0, high=1.0) -> ndarray:
        return _wrap(self._native.uniform(current_device_id(), list(size), dtype, float(low), float(high)))

    def normal(self, size, dtype, loc=0.0, scale=1.0) -> ndarray:
        return _wrap(self._native.normal(current_device_id(), list(size), dtype, float(loc), float(scale)))

    def exponential(self, size, dtype, scale=1.0) -> ndarray:
        return _wrap(self._native.exponential(current_device_id(), list(size), dtype, float(scale)))

    def integers(self, size, dtype, low, high) -> ndarray:
        return _wrap(self._native.integers(current_device_id(), list(size), dtype, low, high))

    def random_raw(self, size=None, output=True):
        """Raw 64-bit words of the stream, as NumPy's ``BitGenerator.random_raw``: uint64 of
        shape ``size`` (one Python int when ``size`` is None); None when not ``output`` (the
        draw still advances the stream)."""
        shape = () if size is None else ((size,) if isinstance(size, numbers.Integral) else tuple(size))
        words = self.integers(shape, "uint64", 0, _UINT64_LIMIT)
        if not output:
            return None
        return int(words.get()) if size is None else words

    def sample(self, law: str, size, dtype: str, params, vector=None, per_row=False) -> ndarray:
        """A draw from one of the sampler kernels' laws; array parameters hold a value an
        item (C-contiguous float64/int64), the rest are numbers."""
        native = [p._a if isinstance(p, ndarray) else p for p in params]
        vec = vector._a if vector is not None else None
        return _wrap(self._native.sample(current_device_id(), law, list(size), dtype, native, vec, per_row))

    def __repr__(self):
        return f"Philox(seed={self.seed}, offset={self.offset})"


Philox4x3210 = Philox  # CuPy's name for its Philox bit generator
