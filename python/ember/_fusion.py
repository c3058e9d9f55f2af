"""``ember.fuse``: CuPy's ``cupy.fuse`` — an elementwise function of arrays as one kernel.

The first call with a new signature (the dtypes of the array arguments, the types of the scalar
ones) runs the function once on stand-ins that record each operation — operators, ember's
ufuncs, ``astype``, ``where``. Rust resolves each step's types exactly as the eager call would
(NumPy 2 rules, Python scalars weak) and writes one elementwise kernel from the ufuncs' own C
expressions, so ``(a*10+2)*((b+2)*10-5)*5`` reads ``a`` and ``b`` once and writes once instead
of making five temporaries. Later calls with the signature launch that kernel directly.
"""

from __future__ import annotations

import functools
import re

import numpy as np

from . import _ember
from ._operands import on_device
from ._runtime import backend
from ._user_kernels import ElementwiseKernel

_SCALAR_PARAM = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}


class _Var:
    """A value inside a fused function being traced: a parameter or a step's result."""

    __slots__ = ("_trace", "_ref")

    def __init__(self, trace: _Trace, ref: int):
        self._trace, self._ref = trace, ref

    def astype(self, dtype, copy=True):
        return self._trace.step("astype", (self,), np.dtype(dtype).name)

    def __bool__(self):
        raise TypeError(
            "a fused function cannot branch on array values (if/while/and/or on an array); "
            "use ember.where(condition, x, y) instead"
        )

    def __array__(self, *args, **kwargs):
        raise TypeError("a fused function cannot convert its values to NumPy arrays; use ember's ufuncs")

    def __repr__(self):
        return f"<value {self._ref} of a fused function being traced>"


def _operator(name: str, reflected: bool = False):
    def method(self, other):
        args = (other, self) if reflected else (self, other)
        return self._trace.ufunc(name, args)

    return method


for _dunder, _ufunc in {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "and": "bitwise_and",
    "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "left_shift", "rshift": "right_shift",
}.items():
    setattr(_Var, f"__{_dunder}__", _operator(_ufunc))
    setattr(_Var, f"__r{_dunder}__", _operator(_ufunc, reflected=True))
for _dunder, _ufunc in {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                        "gt": "greater", "ge": "greater_equal"}.items():
    setattr(_Var, f"__{_dunder}__", _operator(_ufunc))
for _dunder, _ufunc in {"neg": "negative", "pos": "positive", "abs": "absolute", "invert": "invert"}.items():
    setattr(_Var, f"__{_dunder}__", (lambda u: lambda self: self._trace.ufunc(u, (self,)))(_ufunc))
_Var.__hash__ = None


class _Trace:
    """The parameters and steps recorded while a fused function runs on stand-ins."""

    def __init__(self, function_name: str):
        self.function_name = function_name
        self.params: list[tuple[str, bool]] = []  # (dtype name, weak) per kernel parameter
        self.constants: list = []  # values of the parameters that are constants of the function
        self.steps: list[tuple[str, list[int], str | None]] = []

    def parameter(self, dtype_name: str, weak: bool) -> _Var:
        self.params.append((dtype_name, weak))
        return _Var(self, len(self.params) - 1)

    def operand(self, x) -> int:
        """The reference of ``x``: a value of this trace, or a constant made a parameter."""
        if isinstance(x, _Var):
            if x._trace is not self:
                raise TypeError(f"a value of another fused function was used in {self.function_name}")
            return x._ref
        scalar = _scalar_param(x)
        if scalar is not None:
            ref = self.parameter(*scalar)._ref
        elif isinstance(x, np.ndarray) or on_device(x):
            raise TypeError(
                f"{self.function_name} uses an array that is not one of its arguments; "
                "a fused function can read only the arrays passed to it: add it as a parameter"
            )
        else:
            raise TypeError(f"a fused function cannot use a {type(x).__name__} as an operand")
        self.constants.append(x)
        return ref

    def step(self, op: str, args, dtype=None) -> _Var:
        refs = [self.operand(a) for a in args]
        self.steps.append((op, refs, dtype))
        return _Var(self, -len(self.steps))

    def ufunc(self, name: str, args) -> _Var:
        return self.step(name, args)


def _scalar_param(x) -> tuple[str, bool] | None:
    """The kernel parameter a scalar becomes: (dtype name, weak). Python numbers are weak
    (NEP 50; a bool is a bool), NumPy scalars keep their dtype; None for anything else."""
    if type(x) in _SCALAR_PARAM:
        return _SCALAR_PARAM[type(x)], type(x) is not bool
    if isinstance(x, np.generic):
        return x.dtype.name, False
    return None


def trace_ufunc(name: str, args, out, dtype):
    """An ember ufunc called on values of a fused function being traced."""
    trace = next(a._trace for a in args if isinstance(a, _Var))
    if out is not None or dtype is not None:
        raise TypeError(f"{name}() in a fused function takes neither out= nor dtype=; use astype")
    return trace.ufunc(name, args)


def trace_where(condition, x, y):
    trace = next(a._trace for a in (condition, x, y) if isinstance(a, _Var))
    return trace.step("where", (condition, x, y))


def tracing(*args) -> bool:
    return any(isinstance(a, _Var) for a in args)


def _signature(args) -> tuple:
    key = []
    for k, a in enumerate(args):
        if isinstance(a, _ember.ndarray):
            key.append(a.dtype.name)
        elif _scalar_param(a) is not None:
            key.append(_scalar_param(a))
        else:
            raise TypeError(
                f"argument {k} of a fused function is a {type(a).__name__}; pass ember arrays and scalars "
                "(a NumPy array lives in host memory: ember.asarray(x) copies it to the device)"
            )
    return tuple(key)


class _FusedKernel(ElementwiseKernel):
    """The kernel of a fused function: its steps are NumPy's ufuncs, so each rounds on its own
    (no multiply-add contraction), giving eager code's numbers to the bit."""

    _separate_rounding = True


class Fusion:
    """A function compiled by :func:`fuse` into one elementwise kernel per signature."""

    def __init__(self, func, kernel_name=None):
        self.func = func
        self.name = kernel_name or getattr(func, "__name__", "fused")
        self._kernels: dict = {}
        functools.update_wrapper(self, func)

    def __call__(self, *args):
        if not any(isinstance(a, _ember.ndarray) for a in args):
            # As cupy.fuse does: with no device array the function runs as plain Python/NumPy.
            return self.func(*args)
        key = _signature(args)
        compiled = self._kernels.get(key)
        if compiled is None:
            compiled = self._kernels[key] = self._compile(args)
        kernel, constants = compiled
        return kernel(*args, *constants)

    def _compile(self, args):
        trace = _Trace(self.name)
        stand_ins = [trace.parameter(a.dtype.name, weak=False) if isinstance(a, _ember.ndarray) else
                     trace.parameter(*_scalar_param(a)) for a in args]
        result = self.func(*stand_ins)
        tuple_result = isinstance(result, tuple)
        results = result if tuple_result else (result,)
        if not results or not all(isinstance(r, _Var) for r in results):
            raise TypeError(
                f"{self.name} must return an array expression of its arguments (or a tuple of them), "
                f"not {type(result).__name__}"
            )
        operation, preamble, out_dtypes = _ember.fused_kernel_body(
            trace.params, trace.steps, [r._ref for r in results], backend()
        )
        in_params = ", ".join(f"{d} in{k}" for k, (d, _) in enumerate(trace.params))
        out_params = ", ".join(f"{d} out{k}" for k, d in enumerate(out_dtypes))
        name = re.sub(r"\W", "_", f"fused_{self.name}")
        kernel = _FusedKernel(in_params, out_params, operation, name, preamble=preamble,
                              return_tuple=tuple_result)
        return kernel, tuple(trace.constants)

    def __repr__(self):
        return f"<ember.fuse of {self.name}>"


def fuse(*args, kernel_name=None):
    """``@ember.fuse`` or ``@ember.fuse(kernel_name=...)``: one kernel for an elementwise
    function of arrays (CuPy's ``cupy.fuse``). Inside, use operators, ember's ufuncs,
    ``astype`` and ``ember.where``; Python scalars are weak (NEP 50) as in eager code."""
    if len(args) == 1 and callable(args[0]) and kernel_name is None:
        return Fusion(args[0])
    if args:
        raise TypeError("fuse() takes the function, or keyword arguments only (kernel_name=)")
    return lambda func: Fusion(func, kernel_name)
