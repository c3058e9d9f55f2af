"""``ember.random``: NumPy's and CuPy's random API on a counter-based generator.

Every value comes from Philox4x32-10 evaluated inside the kernel that writes it, keyed by the
64-bit seed, with a counter made of the element's index and the generator's draw number. So
the same seed gives the same numbers on CUDA and on OpenCL, whatever the device (uniforms and
integers bit for bit; the rest up to the last bits of each backend's ``log``, ``exp`` and
other functions). Each call moves the generator to a fresh stream, so successive calls
differ, as in CuPy. The numbers are not NumPy's or CuPy's (those use other generators); the
laws are NumPy's algorithms (``crates/ember-codegen/src/sampler``).

How the words become values: float32 uniforms are ``k / 2**24`` from the top 24 bits of a
word, float64 uniforms ``k / 2**53`` from 53 bits of two words (both exactly in ``[0, 1)``);
normals use Box-Muller on pairs of uniforms; integers scale a 64-bit word by the range with a
64-bit multiply-shift (Lemire's method without rejection: relative bias below
``range / 2**64``). Other laws draw as many words as their algorithm needs from the element's
own stream.

As in CuPy, ``size=None`` gives a 0-d array rather than a Python scalar, and the
distributions take ``dtype=`` (float32 or float64 for real laws, an integer type for the
discrete ones; float64 and int64 by default).
"""

from __future__ import annotations

from ._bit_generator import Philox, Philox4x3210  # noqa: F401  (in __all__, as below)
from ._distributions import *  # noqa: F403
from ._distributions import __all__ as _distribution_names
from ._generator import RandomState, get_random_state, module_function, reset_states, set_random_state  # noqa: F401
from ._generator_api import Generator, default_rng  # noqa: F401
from ._permutations import *  # noqa: F403
from ._permutations import __all__ as _permutation_names
from ._sample import *  # noqa: F403
from ._sample import __all__ as _sample_names

# NumPy's other names for the global RandomState's methods.
get_state, set_state, seed = (module_function(n) for n in ("get_state", "set_state", "seed"))
random = ranf = sample = random_sample  # noqa: F405  (from _sample)

__all__ = sorted(
    ["Generator", "Philox", "Philox4x3210", "RandomState", "default_rng", "get_random_state", "get_state", "random",
     "ranf", "reset_states", "sample", "seed", "set_random_state", "set_state"]
    + _distribution_names + _permutation_names + _sample_names
)
