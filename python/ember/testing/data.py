"""Test data: seeded random arrays, numbered arrays, and the special values that find bugs
(signed zeros, NaN, infinities, ties, subnormals, the extremes of each type)."""

from __future__ import annotations

import math

import numpy as np

import ember

from .parity import quiet


def random_array(rng, shape, dtype) -> np.ndarray:
    """Non-trivial values of ``dtype`` from the generator ``rng``: signs, fractions and extremes
    where the type has them (never all zeros or ones)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    if dtype.kind == "f":
        return (rng.standard_normal(shape) * 100).astype(dtype)
    re = rng.standard_normal(shape) * 10
    im = rng.standard_normal(shape) * 10
    return (re + 1j * im).astype(dtype)


def shaped_random(shape, xp=ember, dtype=np.float32, scale=10, seed=0):
    """An array of ``shape`` on ``xp`` (ember or NumPy) with values in ``[0, scale)`` from a
    generator seeded by ``seed`` (as ``cupy.testing.shaped_random``): bools are random, integers
    the floor of the floats, complex numbers random in both parts."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        host = rng.integers(0, 2, shape).astype(bool)
    elif dtype.kind == "c":
        host = (rng.random(shape) * scale + 1j * rng.random(shape) * scale).astype(dtype)
    else:
        host = (rng.random(shape) * scale).astype(dtype)
    return xp.asarray(host)


def shaped_arange(shape, xp=ember, dtype=np.float32, order="C"):
    """An array of ``shape`` on ``xp`` holding ``1, 2, 3, ...`` in C order (as
    ``cupy.testing.shaped_arange``): bools alternate, complex numbers are ``k + kj``."""
    dtype = np.dtype(dtype)
    host = np.arange(1, math.prod(shape) + 1)
    if dtype == np.bool_:
        host = host % 2 == 0
    elif dtype.kind == "c":
        host = host + host * 1j
    return xp.array(host.astype(dtype).reshape(shape), order=order)


def special_values(dtype, finite_only: bool = False) -> list:
    """Values that find bugs: signed zeros, NaN, infinities, ties for rounding, subnormals and
    the extremes of the type."""
    d = np.dtype(dtype)
    if d.kind == "b":
        return [True, False]
    if d.kind in "iu":
        info = np.iinfo(d)
        small = [0, 1, 2, 3, 7] + ([-1, -2] if d.kind == "i" else [])
        return sorted({info.min, info.min + 1, info.max, info.max - 1, *small})
    f = np.finfo(d)
    finite = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0]
    extreme = [float(f.max), -float(f.max), float(f.tiny), -float(f.tiny), float(f.smallest_subnormal),
               -float(f.smallest_subnormal), float(2 ** (f.nmant + 1) + 2)]
    nonfinite = [math.nan, math.inf, -math.inf]
    if d.kind == "f":
        return finite if finite_only else finite + extreme + nonfinite
    if finite_only:
        # no zero: complex zeros are among test_complex_special_values_match_numpy's cases
        return [complex(a, b) for a, b in [(1, 0), (0, 1), (-1, 0), (0, -1), (0.5, -2.5), (-0.0, 1.5)]]
    reals = finite[:4] + nonfinite + [float(f.max)]
    return [complex(a, b) for a in reals for b in reals[::3]] + [complex(0, math.inf), complex(math.nan, 0)]


def bulk_values(rng, dtype, shape, domain: str, scale: float) -> np.ndarray:
    """Random values of ``dtype``. Domains shape them (specials are added on top): where a
    function is defined ("unit", "positive"), where it is interesting ("ties" for rounding,
    "small", "moderate" for complex, "bounded" for long products), or what an argument means
    ("exponent", "shift")."""
    d = np.dtype(dtype)
    if d.kind == "b":
        return rng.random(shape) < 0.5
    if d.kind in "iu":
        info = np.iinfo(d)
        bits = 8 * d.itemsize
        if domain == "exponent":
            return rng.integers(0, 2 * bits, shape).astype(d)
        if domain == "shift":
            return rng.integers(-3 if d.kind == "i" else 0, bits + 3, shape).astype(d)
        if domain in ("small", "ties", "unit", "moderate", "bounded") or scale < 1:
            lo = max(info.min, -9)
            return rng.integers(lo, 10, shape).astype(d)
        return rng.integers(info.min, info.max, shape, dtype=d, endpoint=True)
    real = d.kind == "f"

    def part():
        if domain == "unit":
            return rng.uniform(-1.1, 1.1, shape)
        if domain == "ties":
            return rng.integers(-40, 40, shape) / 2 * scale
        if domain == "positive":
            return np.abs(rng.standard_normal(shape)) * scale
        if domain in ("small", "moderate"):
            return rng.standard_normal(shape) * 3
        if domain == "bounded":  # products that stay in range (for prod of up to ~1000 elements)
            return rng.uniform(0.8, 1.25, shape) * rng.choice([-1, 1], shape)
        return rng.standard_normal(shape) * scale

    with np.errstate(all="ignore"):
        if real:
            return part().astype(d)
        return (part() + 1j * part()).astype(d)


def special_grid(dtype, domain: str = "any") -> np.ndarray:
    """The special values of ``dtype`` that suit ``domain``, as a 1-d array (for exhaustive
    pairs of edge cases on top of the random examples)."""
    d = np.dtype(dtype)
    values_ = special_values(d)
    if d.kind in "iu":
        bits = 8 * d.itemsize
        if domain == "exponent":
            values_ = [v for v in values_ if v >= 0] + [bits - 1, bits, bits + 1]
        elif domain == "shift":
            values_ = sorted(set(values_) | set(range(-2 if d.kind == "i" else 0, bits + 2)))
    elif d.kind == "c" and domain == "moderate":
        values_ = [v for v in special_values(d, finite_only=True) if v != 0]
    return quiet(np.array, values_, dtype=d)


def grid_pairs(g1: np.ndarray, g2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of an element of ``g1`` and one of ``g2``, as two 1-d arrays."""
    a, b = np.meshgrid(g1, g2, indexing="ij")
    return a.ravel(), b.ravel()
