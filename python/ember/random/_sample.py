"""The module's sampling functions (CuPy's ``cupy.random._sample``): each draws from the current
device's global ``RandomState``."""

from __future__ import annotations

from ._generator import module_function

__all__ = [
    "bytes", "choice", "multinomial", "rand", "randint", "randn", "random_integers", "random_sample", "tomaxint",
]

bytes = module_function('bytes')
choice = module_function('choice')
multinomial = module_function('multinomial')
rand = module_function('rand')
randint = module_function('randint')
randn = module_function('randn')
random_integers = module_function('random_integers')
random_sample = module_function('random_sample')
tomaxint = module_function('tomaxint')
