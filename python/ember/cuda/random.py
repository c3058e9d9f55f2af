"""``ember.cuda.random``: Numba's ``numba.cuda.random``, bit for bit.

The generator is xoroshiro128+ with one state per thread. The host makes the states exactly
as Numba's ``init_xoroshiro128p_states`` does (SplitMix64 of the seed, then state ``i`` is
``subsequence_start + i`` jumps of 2**64 steps along one sequence), so a kernel that draws
from them gets Numba's numbers: uniforms bit for bit on every backend, normals up to the last
bits of the backend's ``log``/``sqrt``/``cos``.

One difference in form: Numba keeps a state in a record of two uint64 fields ``(s0, s1)``;
here the states are a uint64 array of shape ``(n, 2)``, the same bytes.

The drawing functions (``xoroshiro128p_uniform_float32(states, i)`` and the others) exist only
inside kernels compiled with ``@cuda.jit``; called from the host they raise ``TypeError``.
"""

from __future__ import annotations

import numbers

import numpy as np

from .. import _ember
from .._creation import asarray
from .._intrinsic import DeviceOnly
from .._ndarray import ndarray

__all__ = [
    "create_xoroshiro128p_states", "init_xoroshiro128p_states", "xoroshiro128p_next", "xoroshiro128p_normal_float32",
    "xoroshiro128p_normal_float64", "xoroshiro128p_uniform_float32", "xoroshiro128p_uniform_float64",
]

_UINT64_LIMIT = 1 << 64
_INT64_MIN = -(1 << 63)

xoroshiro128p_next = DeviceOnly("cuda.random.xoroshiro128p_next")
xoroshiro128p_uniform_float32 = DeviceOnly("cuda.random.xoroshiro128p_uniform_float32")
xoroshiro128p_uniform_float64 = DeviceOnly("cuda.random.xoroshiro128p_uniform_float64")
xoroshiro128p_normal_float32 = DeviceOnly("cuda.random.xoroshiro128p_normal_float32")
xoroshiro128p_normal_float64 = DeviceOnly("cuda.random.xoroshiro128p_normal_float64")


def _integer(value, what: str) -> int:
    if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    raise TypeError(f"{what} must be an integer, got {type(value).__name__} {value!r}")


def _count(n) -> int:
    n = _integer(n, "n")
    if n < 0:
        raise ValueError(f"n must be a non-negative number of states, got {n}")
    return n


def _seed(seed) -> int:
    # Numba converts the seed with uint64(seed): negative int64 seeds wrap around.
    seed = _integer(seed, "seed")
    if not _INT64_MIN <= seed < _UINT64_LIMIT:
        raise ValueError(f"seed must be in [-2**63, 2**64), got {seed}")
    return seed % _UINT64_LIMIT


def _subsequence_start(start) -> int:
    start = _integer(start, "subsequence_start")
    if not 0 <= start < _UINT64_LIMIT:
        raise ValueError(f"subsequence_start must be in [0, 2**64), got {start}")
    return start


def _stream(stream):
    """None for Numba's default stream (0 or None), else an ember Stream."""
    if stream is None or (isinstance(stream, numbers.Integral) and stream == 0):
        return None
    if not hasattr(stream, "__enter__"):
        raise TypeError(f"stream must be an ember.cuda.Stream or 0 (the default stream), got {stream!r}")
    return stream


def _host_states(n, seed, subsequence_start) -> np.ndarray:
    return _ember.xoroshiro128p_states(_count(n), _seed(seed), _subsequence_start(subsequence_start))


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0) -> ndarray:
    """A new ``(n, 2)`` uint64 array of ``n`` generator states on the current device.

    State ``i`` starts ``(subsequence_start + i) * 2**64`` steps into the sequence of ``seed``,
    so threads that draw fewer than 2**64 numbers each never overlap. The states are made on
    the host and copied on ``stream``.
    """
    host = _host_states(n, seed, subsequence_start)
    stream = _stream(stream)
    if stream is None:
        return asarray(host)
    with stream:
        return asarray(host)


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0) -> None:
    """Fills ``states``, an ``(n, 2)`` uint64 ember array, as :func:`create_xoroshiro128p_states`
    would make them."""
    if not isinstance(states, ndarray):
        raise TypeError(f"states must be an ember.ndarray, got {type(states).__name__}")
    if states.dtype != np.uint64 or states.ndim != 2 or states.shape[1] != 2:
        raise ValueError(
            f"states must be a uint64 array of shape (n, 2), got {states.dtype} of shape {states.shape}; "
            "make one with create_xoroshiro128p_states"
        )
    states.set(_host_states(states.shape[0], seed, subsequence_start), stream=_stream(stream))
