"""What a kernel's names mean in the simulator: its globals and closures seen through a
``cuda`` that answers for the running thread (every row of the intrinsic registry, from
``device_api``), ``math`` as the device computes it, ``round`` as kernels round, and device
functions compiled earlier swapped for simulated ones. Also which of those names make threads
wait for one another (``reach``), which decides how a launch runs its threads.
"""

from __future__ import annotations

import math
import types as pytypes

import numpy as np

from ... import _ember
from ..._intrinsic import DeviceOnly
from .. import intrinsics
from . import device_api as api
from .math_api import BY_FUNCTION as MATH_FUNCTIONS
from .math_api import SIMULATED_MATH

# Device API calls that make threads wait for one another: a kernel that reaches one runs its
# block's threads together, switching at the barriers.
MEETS = {
    "syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or", "syncwarp",
    "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "all_sync", "any_sync", "eq_sync",
    "ballot_sync", "match_any_sync", "match_all_sync", "this_grid",
}
_PURE_MODULES = {"math", "cmath", "numpy", "operator", "numba", "ember", "ember.types"}


class _SimulatedCuda:
    """The ``cuda`` module as a simulated kernel sees it: the device API of ``device_api``
    (one attribute per row of the intrinsic registry); everything else from ``ember.cuda``."""

    warpsize = api.WARP
    threadIdx = property(lambda self: api.current().index)
    blockIdx = property(lambda self: api.current().block.index)
    blockDim = property(lambda self: api.current().block.dim)
    gridDim = property(lambda self: api.current().block.grid)
    laneid = property(lambda self: api.current().lane)

    def __getattr__(self, name):
        # Numba's type objects (cuda.float32(x)): the rest of ember.cuda is host API.
        from ... import types

        try:
            return getattr(types, name)
        except AttributeError:
            raise AttributeError(f"the simulator's cuda has no {name!r}: kernels use the device API") from None

    def __repr__(self):
        return "<ember.cuda as the simulator's kernels see it>"


_THREAD_STATE = {"threadIdx", "blockIdx", "blockDim", "gridDim", "laneid", "warpsize"}


def _build() -> _SimulatedCuda:
    cuda = _SimulatedCuda()
    for name in _ember.jit_intrinsics():
        first = name.split(".")[1]
        if first not in _THREAD_STATE:
            cuda.__dict__[first] = getattr(api, first)
    return cuda


SIMULATED_CUDA = _build()


def simulated_intrinsic(dotted: str):
    """The simulator's implementation of registry row ``dotted`` ("cuda.atomic.add")."""
    value = SIMULATED_CUDA
    for part in dotted.split(".")[1:]:
        value = getattr(value, part)
    return value


def _is_cuda_module(value) -> bool:
    """``ember.cuda``, or a module presenting it (``numba.cuda`` of a shim): its ``jit`` is ours."""
    return isinstance(value, pytypes.ModuleType) and getattr(getattr(value, "jit", None), "ember_user_jit", False)


def _simulated(value):
    """What a kernel's global or closure value ``value`` is inside the simulator."""
    if _is_cuda_module(value):
        return SIMULATED_CUDA
    if value is math:
        return SIMULATED_MATH
    if callable(value) and id(value) in MATH_FUNCTIONS and getattr(math, value.__name__, None) is value:
        return MATH_FUNCTIONS[id(value)]
    if isinstance(value, pytypes.ModuleType) and value.__name__ == "ember.cuda.random":
        return api.random
    if isinstance(value, DeviceOnly):
        return simulated_intrinsic(value.intrinsic)
    if isinstance(value, intrinsics.Namespace):
        return simulated_intrinsic(value._name)
    if getattr(value, "simulated", False) is True:  # a SimulatedKernel (or its class)
        return value
    if getattr(value, "_ember_jit_dispatcher", False) and value._device:  # compiled before the switch
        return _EarlierDeviceFunction(value.py_func)
    return value


class _EarlierDeviceFunction:
    """A device function decorated (compiled) before the simulator was switched on, called by
    a simulated kernel: its Python function, run as the launch sees it."""

    def __init__(self, py_func):
        self.py_func = py_func

    def __call__(self, *args, **kwargs):
        return function(self.py_func)(*args, **kwargs)


def _round(x, ndigits=None):
    """``round`` as the compiled kernels round: to ``ndigits`` decimals correctly rounded (Python's
    rule, in the operand's float type), the operand itself where the result would overflow."""
    if ndigits is None or not isinstance(x, (float, np.floating)):
        return round(x) if ndigits is None else round(x, ndigits)
    kind = type(x) if isinstance(x, np.floating) else float
    if not math.isfinite(float(x)):
        return x
    try:
        y = round(float(x), int(ndigits))
    except OverflowError:
        return x
    with np.errstate(over="ignore"):
        out = kind(y)
    return out if math.isfinite(float(out)) else x


class Functions:
    """The kernel's function and its device functions, with their globals seen through
    ``_simulated``: made once per launch (globals may change between launches)."""

    def __init__(self):
        self._made: dict = {}

    def get(self, fn):
        made = self._made.get(fn.__code__)
        if made is None:
            scope = {k: _simulated(v) for k, v in fn.__globals__.items()}
            scope.setdefault("round", _round)  # the builtin, as kernels round
            closure = None
            if fn.__closure__:
                closure = tuple(pytypes.CellType(_simulated(_cell(c))) for c in fn.__closure__)
            made = pytypes.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, closure)
            made.__kwdefaults__ = fn.__kwdefaults__
            self._made[fn.__code__] = made
        return made


def _cell(cell):
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell (a name bound later)
        return None


_current = Functions()


def fresh() -> Functions:
    """A new set for a launch: globals are read afresh each time."""
    global _current
    _current = Functions()
    return _current


def function(fn):
    """``fn`` as the running launch sees it."""
    return _current.get(fn)


def reach(fn) -> tuple[set, bool]:
    """The names the code of ``fn`` and of the functions it calls uses, and whether it calls
    into a module ember cannot see through."""
    names: set = set()
    opaque = False
    seen: set = set()
    todo = [fn]
    while todo:
        item = todo.pop()
        f = getattr(item, "py_func", item)
        code = getattr(f, "__code__", None)
        if code is None or code in seen:
            continue
        seen.add(code)
        own: set = set()
        stack = [code]
        while stack:
            c = stack.pop()
            own.update(c.co_names)
            stack.extend(k for k in c.co_consts if isinstance(k, pytypes.CodeType))
        names |= own
        scope = {k: v for k, v in f.__globals__.items() if k in own}
        if f.__closure__:
            scope.update(zip(code.co_freevars, (_cell(c) for c in f.__closure__), strict=True))
        for value in scope.values():
            if isinstance(value, pytypes.ModuleType):
                pure = _is_cuda_module(value) or value.__name__ in _PURE_MODULES or value.__name__.startswith("ember.")
                opaque = opaque or not pure
            elif callable(value):
                todo.append(value)
    return names, opaque
