"""The module's sampling functions (CuPy's ``cupy.random._sample``): each draws from the current
device's global ``RandomState``, as CuPy's do (``rand`` through ``random_sample``, ``randn``
through ``normal``, ``random_integers`` through ``randint``)."""

from __future__ import annotations

from . import _distributions
from ._generator import get_random_state, module_function

__all__ = ["bytes", "choice", "multinomial", "rand", "randint", "randn", "random_integers", "random_sample",
           "tomaxint"]

bytes = module_function("bytes")  # noqa: A001  (NumPy's name)
multinomial = module_function("multinomial")
tomaxint = module_function("tomaxint")


def rand(*size, **kwarg):
    """Uniform values in ``[0, 1)`` of shape ``size`` (``dtype=`` float32 or float64)."""
    dtype = kwarg.pop("dtype", float)
    if kwarg:
        raise TypeError(f"rand() got unexpected keyword arguments {', '.join(kwarg)}")
    return random_sample(size=size, dtype=dtype)


def randn(*size, **kwarg):
    """Standard normal values of shape ``size`` (``dtype=`` float32 or float64)."""
    dtype = kwarg.pop("dtype", float)
    if kwarg:
        raise TypeError(f"randn() got unexpected keyword arguments {', '.join(kwarg)}")
    return _distributions.normal(size=size, dtype=dtype)


def randint(low, high=None, size=None, dtype=int):
    """Integers in ``[low, high)`` (``[0, low)`` when ``high`` is None)."""
    return get_random_state().randint(low, high, size, dtype)


def random_integers(low, high=None, size=None):
    """Integers in ``[low, high]`` (``[1, low]`` when ``high`` is None)."""
    if high is None:
        low, high = 1, low
    return randint(low, high + 1, size)


def random_sample(size=None, dtype=float):
    """Uniform values in ``[0, 1)``; ``size=None`` gives a 0-d array."""
    return get_random_state().random_sample(size=size, dtype=dtype)


def choice(a, size=None, replace=True, p=None):
    """Values of ``a`` (or of ``arange(a)``) at random, with or without replacement."""
    return get_random_state().choice(a, size, replace, p)
