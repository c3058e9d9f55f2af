"""``pyopencl.clrandom``: random arrays from ember's counter-based generator (Philox4x32-10),
the one ember's ``random`` module uses, so a seed gives the same numbers on every device and
backend.

``PhiloxGenerator`` and ``ThreefryGenerator`` are PyOpenCL's two Random123 generators; both
draw from ember's Philox here (a ``ThreefryGenerator`` seeded like a ``PhiloxGenerator`` gives the
same numbers, not Threefry's). ``RanluxGenerator`` is the name older PyOpenCL code uses. Integer
dtypes draw uniformly from ``[a, b)``, floats from ``[a, b)``; vector dtypes (``cltypes.float4``)
draw each component.
"""

from __future__ import annotations

import numpy as np

from .._runtime import Device as _EmberDevice
from ..random._bit_generator import Philox
from . import array as cl_array
from ._platform import context_of
from .cltypes import vec_type_to_scalar_and_count


class Random123GeneratorBase:
    """``Generator(context, key=None, counter=None, seed=None)``: ``seed`` (or ``key``, an
    integer or a sequence of 32-bit words) seeds the stream; without either, a fresh seed."""

    def __init__(self, context, key=None, counter=None, seed=None):
        if key is not None and seed is not None:
            raise TypeError("give a key or a seed, not both")
        if key is not None and not isinstance(key, (int, np.integer)):
            key = int.from_bytes(np.asarray(key, np.uint32).tobytes(), "little") % (1 << 64)
        self.context = context
        self._bits = Philox(seed if key is None else int(key))
        if counter is not None:  # a start further along the stream
            words = np.atleast_1d(np.asarray(counter, np.uint64))
            self._bits.state = {**self._bits.state, "offset": int(words[0])}

    def _draw(self, law: str, shape, dtype, p, q):
        dtype = np.dtype(dtype)
        base, count = vec_type_to_scalar_and_count.get(dtype, (dtype, 1))
        padded = 4 if count == 3 else count
        full = tuple(shape) + ((padded,) if count > 1 else ())
        if base.kind in "iu":
            if law != "uniform":
                raise TypeError(f"normal random numbers of integer dtype {dtype} are not defined; use a float dtype")
            values = self._bits.integers(full, base.name, int(p), int(q))
        elif base.kind == "f":
            values = (self._bits.uniform(full, base.name, p, q) if law == "uniform"
                      else self._bits.normal(full, base.name, p, q))
        else:
            raise TypeError(f"clrandom draws integers, floats and their vectors, not {dtype}")
        return values if count == 1 else values.view(dtype).reshape(tuple(shape))

    def _fill(self, law: str, ary, p, q, queue=None):
        with _EmberDevice(ary._a.device):  # drawn where the array lives
            ary[...] = self._draw(law, ary.shape, ary.dtype, p, q)
        queue = queue or ary.queue
        if queue is not None:
            ary.add_event(queue._event(None))  # the fill's event, as PyOpenCL records it

    def fill_uniform(self, ary, a=0, b=1, queue=None):
        """Fills ``ary`` with values uniform in ``[a, b)``."""
        self._fill("uniform", ary, a, b, queue)

    def uniform(self, queue, shape, dtype, *, order="C", allocator=None, a=0, b=1):
        """A new array of values uniform in ``[a, b)``."""
        result = cl_array.empty(queue, (shape,) if np.ndim(shape) == 0 else shape, dtype, order, allocator)
        self.fill_uniform(result, a, b)
        return result

    def fill_normal(self, ary, mu=0, sigma=1, queue=None):
        """Fills ``ary`` with normal values of mean ``mu`` and standard deviation ``sigma``."""
        self._fill("normal", ary, mu, sigma, queue)

    def normal(self, queue, shape, dtype, *, order="C", allocator=None, mu=0, sigma=1):
        """A new array of normal values of mean ``mu`` and standard deviation ``sigma``."""
        result = cl_array.empty(queue, (shape,) if np.ndim(shape) == 0 else shape, dtype, order, allocator)
        self.fill_normal(result, mu, sigma)
        return result


class PhiloxGenerator(Random123GeneratorBase):
    """PyOpenCL's Philox4x32 generator, on ember's."""


class ThreefryGenerator(Random123GeneratorBase):
    """PyOpenCL's Threefry4x32 name, on ember's Philox (see the module's doc)."""


RanluxGenerator = PhiloxGenerator  # the name of PyOpenCL's older default generator

_generators: dict = {}


def _generator(context) -> Random123GeneratorBase:
    gen = _generators.get(id(context))
    if gen is None or gen.context is not context:
        gen = _generators[id(context)] = PhiloxGenerator(context)
    return gen


def fill_rand(result, queue=None, a=0, b=1) -> None:
    """Fills ``result`` with values uniform in ``[a, b)``."""
    queue = queue or result.queue
    context = queue.context if queue is not None else context_of(result._a.device)
    _generator(context).fill_uniform(result, a, b)


def rand(queue, shape, dtype, luxury=None, a=0, b=1):
    """A new array of values uniform in ``[a, b)`` (``luxury`` is accepted and ignored, as
    PyOpenCL does)."""
    result = cl_array.empty(queue, (shape,) if np.ndim(shape) == 0 else shape, dtype)
    fill_rand(result, queue, a, b)
    return result
