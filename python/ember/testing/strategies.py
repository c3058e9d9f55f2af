"""Hypothesis strategies for parity sweeps: values with specials placed in them, views of them
(stepped, reversed, offset, transposed) made the same way on the NumPy and the ember side, and
the settings the sweeps run under.

This module imports Hypothesis (``pip install hypothesis``); ``ember.testing`` itself does not.
Sweeps run a few derandomised examples per case, without shrinking (set
``EMBER_PARITY_SHRINK=1`` to shrink a failure to a minimal example).
"""

from __future__ import annotations

import zlib

import numpy as np
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ember

from .data import bulk_values, special_values
from .parity import new_tally, quiet

_SHRINK = ember._ember.env_flag("EMBER_PARITY_SHRINK", False)
PHASES = (Phase.explicit, Phase.generate) + ((Phase.shrink,) if _SHRINK else ())

# Shapes: 0-d, empty, 1..5-d (SMALL_SHAPES: up to 3-d, for the cases off a function's main dtype).
SHAPES = hnp.array_shapes(min_dims=0, max_dims=5, min_side=0, max_side=4)
SMALL_SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)

# The most elements of the base array a view is cut from.
MAX_BASE = 3000


def sweep_settings(examples: int):
    """Hypothesis settings for a sweep of ``examples`` examples: no deadline (kernels compile on
    first use), no example database, no shrinking unless asked."""
    return settings(
        max_examples=examples, deadline=None, database=None, phases=PHASES, derandomize=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                               HealthCheck.function_scoped_fixture],
    )


def run_sweep(body, case_id: str, examples: int = 15) -> dict:
    """Runs ``body(data, tally)`` on ``examples`` Hypothesis examples, seeded by ``case_id`` (so
    every run is the same, and every case explores differently). Fails unless at least one
    example compared values (not only errors): no case can pass vacuously."""
    tally = new_tally()

    @seed(zlib.crc32(case_id.encode()))
    @sweep_settings(examples)
    @given(data=st.data())
    def prop(data):
        body(data, tally)

    prop()
    assert tally["compared"] > 0, f"{case_id}: NumPy raised on every example, nothing was compared"
    return tally


@st.composite
def values(draw, dtype, shape, domain: str = "any", specials: bool = True):
    """A NumPy array of ``shape``: random values of ``domain`` (see ``bulk_values``), with a few
    specials placed at drawn positions."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1), label="seed"))
    scale = draw(st.sampled_from([1.0, 1e-2, 30.0, 1e4]), label="scale")
    x = np.array(bulk_values(rng, dtype, shape, domain, scale), dtype=dtype)
    if x.size and specials and domain not in ("exponent", "shift", "bounded"):
        d = np.dtype(dtype)
        finite_only = domain == "moderate" or (domain == "positive" and d.kind == "c")
        pool = special_values(dtype, finite_only)
        if domain == "positive" and d.kind in "fiu":
            pool = [v for v in pool if not (v < 0)]
        for _ in range(draw(st.integers(0, min(x.size, 6)), label="specials")):
            x.flat[draw(st.integers(0, x.size - 1))] = quiet(np.asarray, draw(st.sampled_from(pool)), dtype=d)
    return x


def _axis_slice(n: int, step: int, off: int) -> tuple[slice, int]:
    """A slice taking ``n`` elements with ``step`` from an axis of the returned length."""
    if n == 0:
        return slice(0, 0), off
    length = n * abs(step) + off
    if step > 0:
        return slice(off, off + n * step, step), length
    start = length - 1 - off
    stop = start + n * step
    return slice(start, None if stop < 0 else stop, step), length


@st.composite
def placements(draw, shape):
    """Where a view of ``shape`` sits in a larger C-ordered base array: ``(base_shape, index,
    axes)`` with ``base[index].transpose(axes)`` the view. Kinds: the whole base (contiguous),
    stepped / reversed / offset slices, transposes, a 0-d element of a 1-d base."""
    ndim = len(shape)
    kinds = ["contiguous", "strided", "transposed"] if ndim > 1 else ["contiguous", "strided"]
    kind = draw(st.sampled_from(kinds), label="layout")
    if kind == "contiguous":
        return tuple(shape), (Ellipsis,), tuple(range(ndim))
    if ndim == 0:
        k = draw(st.integers(0, 3))
        return (k + 1 + draw(st.integers(0, 2)),), (k, Ellipsis), ()
    axes = tuple(draw(st.permutations(range(ndim)))) if kind == "transposed" else tuple(range(ndim))
    pre = [0] * ndim
    for i, a in enumerate(axes):
        pre[a] = shape[i]
    index, base_shape, size = [], [], 1
    for n in pre:
        step = draw(st.sampled_from([1, -1, 2, -2, 3, -3] if kind == "strided" else [1, -1, 2, -2]))
        off = draw(st.integers(0, 1))
        if size * (n * abs(step) + off) > MAX_BASE:
            step, off = (1, 0)
        sl, length = _axis_slice(n, step, off)
        index.append(sl)
        base_shape.append(length)
        size *= max(length, 1)
    return tuple(base_shape), tuple(index) + (Ellipsis,), axes


@st.composite
def operands(draw, dtype, shape, domain: str = "any", specials: bool = True, views: bool = True):
    """``(numpy_view, ember_view)``: the same view of the same values, one on each side (a
    whole contiguous array when not ``views``). The ember view is cut from an ember copy of the
    NumPy base the same way the NumPy view is."""
    shape = tuple(shape)
    base_shape, index, axes = draw(placements(shape)) if views else (shape, (Ellipsis,), tuple(range(len(shape))))
    base = draw(values(dtype, base_shape, domain, specials))
    n = base[index].transpose(axes)
    e = ember.asarray(base)[index]
    if axes != tuple(range(len(axes))):
        e = e.transpose(axes)
    assert n.shape == tuple(shape), (n.shape, shape)
    return n, e
