"""``ember.random``: CuPy's ``cupy.random`` on a counter-based generator.

Every value comes from Philox4x32-10 evaluated inside the kernel that writes it, keyed by the
64-bit seed, with a counter made of the element's block index and the generator's draw
number. So the same seed gives the same numbers on CUDA and on OpenCL, whatever the device
(uniforms and integers bit for bit; normals up to the last bits of each backend's ``log``,
``sin`` and ``cos``). Each call moves the generator to a fresh stream, so successive calls
differ, as in CuPy. The numbers are not NumPy's or CuPy's (those use other generators).

How the words become values (``crates/ember-codegen/src/philox.rs`` has the details):
float32 uniforms are ``k / 2**24`` from the top 24 bits of a word, float64 uniforms
``k / 2**53`` from 53 bits of two words (both exactly in ``[0, 1)``); normals use Box-Muller on
pairs of uniforms; integers scale a 64-bit word by the range with a 64-bit multiply-shift
(Lemire's method without rejection: relative bias below ``range / 2**64``).

As in CuPy, ``size=None`` gives a 0-d array rather than a Python scalar, and ``rand``,
``randn``, ``random_sample``, ``uniform`` and ``normal`` take ``dtype=`` (float32 or float64,
float64 by default).
"""

from __future__ import annotations

import hashlib
import numbers
import os

import numpy as np

from . import _dtypes, _ember
from ._creation import _shape_tuple
from ._ndarray import _wrap, ndarray
from ._runtime import current_device_id

__all__ = [
    "Generator", "Philox", "RandomState", "default_rng", "get_random_state", "normal", "rand", "randint",
    "randn", "random", "random_integers", "random_sample", "seed", "set_random_state", "standard_normal",
    "uniform",
]

_UINT64_LIMIT = 1 << 64


def _seed_value(seed) -> int:
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


def _size(size) -> tuple[int, ...]:
    return () if size is None else _shape_tuple(size)


def _float_dtype(dtype) -> str:
    d = _dtypes.normalize(dtype)
    if d.char not in "fd":
        raise TypeError(f"ember.random supports float32 and float64 only, got {d}")
    return _dtypes.name_of(d)


def _is_array(value) -> bool:
    return isinstance(value, (ndarray, np.ndarray, list, tuple))


def _param_shape(value) -> tuple[int, ...]:
    return tuple(value.shape) if isinstance(value, (ndarray, np.ndarray)) else np.shape(value)


def _on_device(value, dtype: str) -> ndarray:
    if isinstance(value, ndarray):
        return value if value.dtype == _dtypes.from_name(dtype) else value.astype(dtype)
    from ._creation import asarray

    return asarray(np.asarray(value, dtype=dtype))


_kernels: dict = {}


def _apply(name: str, operation: str, x: ndarray, a, b) -> ndarray:
    """``x`` combined with array parameters ``a`` and ``b`` (broadcast against it). The
    affine step is an explicit ``fma``, as the scalar-parameter kernels compute it."""
    kernel = _kernels.get(name)
    if kernel is None:
        from ._user_kernels import ElementwiseKernel

        kernel = _kernels[name] = ElementwiseKernel("T x, T a, T b", "T y", operation, name)
    dtype = x.dtype.name
    return kernel(x, _on_device(a, dtype), _on_device(b, dtype))


def _affine_size(size, a, b) -> tuple[int, ...]:
    """The output shape for parameters `a`, `b`: `size`, which they must broadcast to, or
    their broadcast shape."""
    shapes = (_param_shape(a), _param_shape(b))
    if size is None:
        return np.broadcast_shapes(*shapes)
    size = _shape_tuple(size)
    if np.broadcast_shapes(size, *shapes) != size:
        raise ValueError(
            f"shape mismatch: parameters of shapes {shapes[0]} and {shapes[1]} do not broadcast to size {size}"
        )
    return size


def _integer_dtype(dtype) -> str:
    d = _dtypes.normalize(dtype)
    if d.kind not in "iub":
        raise TypeError(f"Unsupported dtype {d} for randint: use an integer dtype or bool")
    return _dtypes.name_of(d)


def _bounds(low, high, endpoint: bool) -> tuple[int, int]:
    if _is_array(low) or _is_array(high):
        raise NotImplementedError(
            "ember.random draws integers between scalar bounds only (array low/high are not supported yet)"
        )
    lo, hi = (0, int(low)) if high is None else (int(low), int(high))
    return lo, hi + 1 if endpoint else hi


class Philox:
    """The bit generator: Philox4x32-10 keyed by a 64-bit seed (NumPy's ``numpy.random.Philox``
    names the same algorithm; the streams differ)."""

    def __init__(self, seed=None):
        self._native = _ember.Philox(_seed_value(seed))

    @property
    def seed(self) -> int:
        return self._native.seed

    @property
    def offset(self) -> int:
        """The draw number of the next call (each call uses its own counter stream)."""
        return self._native.offset

    def _uniform(self, size, dtype, low=0.0, high=1.0) -> ndarray:
        return _wrap(self._native.uniform(current_device_id(), list(size), dtype, float(low), float(high)))

    def _normal(self, size, dtype, loc=0.0, scale=1.0) -> ndarray:
        return _wrap(self._native.normal(current_device_id(), list(size), dtype, float(loc), float(scale)))

    def _integers(self, size, dtype, low, high) -> ndarray:
        return _wrap(self._native.integers(current_device_id(), list(size), dtype, low, high))

    def _uniform_between(self, low, high, size, dtype) -> ndarray:
        dtype = _float_dtype(dtype)
        if _is_array(low) or _is_array(high):
            x = self._uniform(_affine_size(size, low, high), dtype)
            return _apply("ember_random_between", "y = fma(b - a, x, a)", x, low, high)
        return self._uniform(_size(size), dtype, low, high)

    def _normal_with(self, loc, scale, size, dtype) -> ndarray:
        dtype = _float_dtype(dtype)
        if _is_array(loc) or _is_array(scale):
            x = self._normal(_affine_size(size, loc, scale), dtype)
            return _apply("ember_random_scaled", "y = fma(b, x, a)", x, loc, scale)
        return self._normal(_size(size), dtype, loc, scale)

    def __repr__(self):
        return f"Philox(seed={self.seed}, offset={self.offset})"


class RandomState:
    """A generator with NumPy's legacy ``RandomState`` methods, as ``cupy.random.RandomState``."""

    def __init__(self, seed=None):
        self._bits = Philox(seed)

    def seed(self, seed=None) -> None:
        """Restarts the generator at the beginning of ``seed``'s sequence (``None``: a fresh seed
        from ``os.urandom``)."""
        self._bits._native.set_state(_seed_value(seed), 0)

    def random_sample(self, size=None, dtype=float) -> ndarray:
        """Uniform values in ``[0, 1)``."""
        return self._bits._uniform(_size(size), _float_dtype(dtype))

    random = random_sample

    def rand(self, *size, dtype=float) -> ndarray:
        """Uniform values in ``[0, 1)`` of shape ``size``."""
        return self.random_sample(size, dtype)

    def randn(self, *size, dtype=float) -> ndarray:
        """Standard normal values of shape ``size``."""
        return self._bits._normal(_size(size), _float_dtype(dtype))

    def standard_normal(self, size=None, dtype=float) -> ndarray:
        return self._bits._normal(_size(size), _float_dtype(dtype))

    def uniform(self, low=0.0, high=1.0, size=None, dtype=float) -> ndarray:
        """Uniform values in ``[low, high)`` (rounding may reach ``high``, as NumPy warns)."""
        return self._bits._uniform_between(low, high, size, dtype)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=float) -> ndarray:
        """Normal values of mean ``loc`` and standard deviation ``scale``."""
        return self._bits._normal_with(loc, scale, size, dtype)

    def randint(self, low, high=None, size=None, dtype=int) -> ndarray:
        """Integers in ``[low, high)`` (``[0, low)`` when ``high`` is None)."""
        lo, hi = _bounds(low, high, endpoint=False)
        shape = _size(size)
        if 0 in shape:  # NumPy returns an empty draw before it looks at the range
            from ._creation import empty

            return empty(shape, dtype=_integer_dtype(dtype))
        return self._bits._integers(shape, _integer_dtype(dtype), lo, hi)

    def random_integers(self, low, high=None, size=None) -> ndarray:
        """Integers in ``[low, high]`` (``[1, low]`` when ``high`` is None)."""
        if high is None:
            low, high = 1, low
        return self.randint(low, int(high) + 1, size)

    def __repr__(self):
        return f"RandomState({self._bits!r})"


class Generator:
    """NumPy's ``Generator`` interface (as ``cupy.random.Generator``) over a :class:`Philox`."""

    def __init__(self, bit_generator: Philox):
        if not isinstance(bit_generator, Philox):
            raise TypeError(f"Generator needs an ember.random.Philox bit generator, got {type(bit_generator).__name__}")
        self.bit_generator = bit_generator

    def random(self, size=None, dtype=np.float64, out=None) -> ndarray:
        """Uniform values in ``[0, 1)``."""
        return self._into(out, self.bit_generator._uniform(self._size(size, out), _float_dtype(dtype)))

    def standard_normal(self, size=None, dtype=np.float64, out=None) -> ndarray:
        """Standard normal values."""
        return self._into(out, self.bit_generator._normal(self._size(size, out), _float_dtype(dtype)))

    def uniform(self, low=0.0, high=1.0, size=None, dtype=np.float64) -> ndarray:
        """Uniform values in ``[low, high)``."""
        return self.bit_generator._uniform_between(low, high, size, dtype)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=np.float64) -> ndarray:
        """Normal values of mean ``loc`` and standard deviation ``scale``."""
        return self.bit_generator._normal_with(loc, scale, size, dtype)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False) -> ndarray:
        """Integers in ``[low, high)`` (``[low, high]`` with ``endpoint=True``; ``low`` is the
        upper bound and 0 the lower when ``high`` is None)."""
        lo, hi = _bounds(low, high, endpoint)
        return self.bit_generator._integers(_size(size), _integer_dtype(dtype), lo, hi)

    @staticmethod
    def _size(size, out) -> tuple[int, ...]:
        if out is None:
            return _size(size)
        if size is not None and _shape_tuple(size) != out.shape:
            raise ValueError("size must match out.shape when used together")
        return out.shape

    @staticmethod
    def _into(out, values: ndarray) -> ndarray:
        if out is None:
            return values
        if not isinstance(out, ndarray):
            raise TypeError(f"out must be an ember.ndarray, got {type(out).__name__}")
        if out.dtype != values.dtype:
            raise TypeError(
                f"Supplied output array has the wrong type. Expected {values.dtype.name}, got {out.dtype.name}"
            )
        values._a.copy_into(out._a)
        return out

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


# One global RandomState per device, as in CuPy.
_states: dict[int, RandomState] = {}


def get_random_state() -> RandomState:
    """The global generator of the current device (seeded from ``os.urandom`` on first use)."""
    device = current_device_id()
    state = _states.get(device)
    if state is None:
        state = _states.setdefault(device, RandomState())
    return state


def set_random_state(rs: RandomState) -> None:
    """Makes ``rs`` the global generator of the current device."""
    if not isinstance(rs, RandomState):
        raise TypeError(f"Random state must be an instance of RandomState, got {type(rs).__name__}")
    _states[current_device_id()] = rs


def seed(seed=None) -> None:
    """Reseeds the global generator of the current device."""
    get_random_state().seed(seed)


def rand(*size, dtype=float) -> ndarray:
    """Uniform values in ``[0, 1)`` of shape ``size`` (float64 unless ``dtype=float32``)."""
    return get_random_state().random_sample(size, dtype)


def randn(*size, dtype=float) -> ndarray:
    """Standard normal values of shape ``size``."""
    return get_random_state().randn(*size, dtype=dtype)


def random_sample(size=None, dtype=float) -> ndarray:
    """Uniform values in ``[0, 1)``; ``size=None`` gives a 0-d array."""
    return get_random_state().random_sample(size, dtype)


random = random_sample


def standard_normal(size=None, dtype=float) -> ndarray:
    return get_random_state().standard_normal(size, dtype)


def uniform(low=0.0, high=1.0, size=None, dtype=float) -> ndarray:
    """Uniform values in ``[low, high)``."""
    return get_random_state().uniform(low, high, size, dtype)


def normal(loc=0.0, scale=1.0, size=None, dtype=float) -> ndarray:
    """Normal values of mean ``loc`` and standard deviation ``scale``."""
    return get_random_state().normal(loc, scale, size, dtype)


def randint(low, high=None, size=None, dtype=int) -> ndarray:
    """Integers in ``[low, high)``; ``size=None`` gives a 0-d array."""
    return get_random_state().randint(low, high, size, dtype)


def random_integers(low, high=None, size=None) -> ndarray:
    """Integers in ``[low, high]``."""
    return get_random_state().random_integers(low, high, size)
