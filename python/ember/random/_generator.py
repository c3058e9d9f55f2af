"""NumPy's legacy ``RandomState`` (as ``cupy.random.RandomState``) and the global one a device
that the module's functions draw from (CuPy's module layout: ``_generator`` holds these)."""

from __future__ import annotations

import functools
import inspect
import os

import numpy as np

from .._ndarray import ndarray
from .._runtime import current_device_id
from ._bit_generator import Philox, seed_value
from ._laws import Distributions
from ._sampling import Sampling


class RandomState(Distributions, Sampling):
    """NumPy's legacy ``RandomState`` methods, as ``cupy.random.RandomState``: every
    distribution (with CuPy's ``dtype`` arguments), ``rand``/``randn``/``randint``,
    ``choice``, ``permutation``, ``shuffle``."""

    _legacy = True

    def __init__(self, seed=None):
        self._bits = Philox(seed)

    def seed(self, seed=None) -> None:
        """Restarts the generator at the beginning of ``seed``'s sequence (``None``: a fresh seed
        from ``os.urandom``)."""
        self._bits._native.set_state(seed_value(seed), 0)

    def get_state(self) -> dict:
        return self._bits.state

    def set_state(self, state: dict) -> None:
        self._bits.state = state

    def random_sample(self, size=None, dtype=float) -> ndarray:
        """Uniform values in ``[0, 1)``."""
        return self._fill("uniform", size, dtype, 0.0, 1.0)

    random = random_sample
    ranf = random_sample
    sample = random_sample

    def rand(self, *size, dtype=float) -> ndarray:
        """Uniform values in ``[0, 1)`` of shape ``size``."""
        return self.random_sample(size, dtype)

    def randn(self, *size, dtype=float) -> ndarray:
        """Standard normal values of shape ``size``."""
        return self._fill("normal", size, dtype, 0.0, 1.0)

    def randint(self, low, high=None, size=None, dtype=int) -> ndarray:
        """Integers in ``[low, high)`` (``[0, low)`` when ``high`` is None)."""
        return self._integers(low, high, size, dtype, False)

    def random_integers(self, low, high=None, size=None) -> ndarray:
        """Integers in ``[low, high]`` (``[1, low]`` when ``high`` is None)."""
        if high is None:
            low, high = 1, low
        return self._integers(low, high, size, int, True)

    def tomaxint(self, size=None) -> ndarray:
        """Integers in ``[0, np.iinfo(np.int_).max]``."""
        return self._integers(0, np.iinfo(np.int_).max, size, np.int_, True)

    def interval(self, mx, size) -> ndarray:
        """Integers in ``[0, mx]`` (CuPy's ``RandomState.interval``)."""
        return self._integers(0, int(mx), size, np.int32 if int(mx) < 2**31 else np.int64, True)

    _interval = interval

    def choice(self, a, size=None, replace=True, p=None) -> ndarray:
        if not isinstance(a, (int, np.integer)) and np.ndim(a) > 1:
            raise ValueError("a must be 1-dimensional")
        return Sampling.choice(self, a, size, replace, p)

    def permutation(self, x, axis=0) -> ndarray:
        return Sampling.permutation(self, x, axis)

    def shuffle(self, x, axis=0) -> None:
        Sampling.shuffle(self, x, axis)

    def __repr__(self):
        return f"RandomState({self._bits!r})"


# One global RandomState per device, as in CuPy.
_random_states: dict[int, RandomState] = {}


def get_random_state() -> RandomState:
    """The global generator of the current device (seeded from ``CUPY_SEED`` when set, else
    from ``os.urandom``, on first use)."""
    device = current_device_id()
    state = _random_states.get(device)
    if state is None:
        seed = os.environ.get("CUPY_SEED")
        state = _random_states.setdefault(device, RandomState(None if seed is None else int(seed)))
    return state


def set_random_state(rs: RandomState) -> None:
    """Makes ``rs`` the global generator of the current device."""
    if not isinstance(rs, RandomState):
        raise TypeError(f"Random state must be an instance of RandomState, got {type(rs).__name__}")
    _random_states[current_device_id()] = rs


def reset_states() -> None:
    """Forgets every device's global generator (the next use seeds a fresh one)."""
    global _random_states
    _random_states = {}


def module_function(name: str):
    """The module's function ``name``: the global RandomState's method of that name."""
    method = getattr(RandomState, name)

    @functools.wraps(method)
    def call(*args, **kwargs):
        return getattr(get_random_state(), name)(*args, **kwargs)

    signature = inspect.signature(method)
    call.__signature__ = signature.replace(parameters=list(signature.parameters.values())[1:])
    return call


def _check_and_get_dtype(dtype) -> np.dtype:
    """``dtype`` as a NumPy dtype if ember.random draws floats of it (CuPy's check)."""
    d = np.dtype(dtype)
    if d.char not in "fd":
        raise TypeError("cupy.random only supports float32 and float64")
    return d

