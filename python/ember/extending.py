"""``ember.extending``: Numba's ``numba.extending.register_jitable``, the part of Numba's extension
API a library needs to share plain Python helpers with its compiled code.

A function so registered stays the Python function it was (Python calls it as before); a
function compiled by ``@njit`` or a kernel compiled by ``@cuda.jit`` that calls it compiles it as
a callee, for the argument types of that call, as if it were decorated with ``@njit`` (or
``@cuda.jit(device=True)``).
"""

from __future__ import annotations

import types

__all__ = ["register_jitable"]


def register_jitable(*args, **kwargs):
    """``@register_jitable`` or ``@register_jitable(**options)``: ``fn`` callable from compiled
    code. The options Numba takes (``inline=``, ``cache=``, ...) change nothing here: a callee
    is compiled with the function that calls it."""
    def mark(fn):
        if not isinstance(fn, types.FunctionType):
            raise TypeError(f"register_jitable takes a Python function, not {type(fn).__name__}")
        fn._ember_jitable = True
        return fn

    if len(args) == 1 and not kwargs and callable(args[0]):
        return mark(args[0])
    if args:
        raise TypeError("register_jitable takes a function, or keyword options then a function")
    return mark
