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

    @property
    def dtype(self) -> np.dtype:
        """The value's dtype, resolved as the eager call would (NumPy 2's rules)."""
        trace = self._trace
        if self._ref >= 0:  # a parameter: its own dtype (a Python scalar's default one)
            return np.dtype(trace.params[self._ref][0])
        _, _, dtypes = _ember.fused_kernel_body(trace.params, trace.steps, [self._ref], backend())
        return np.dtype(dtypes[0])

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


# The arithmetic operators and their ufuncs (forward, reflected and, below, in-place forms).
_BINARY = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "and": "bitwise_and",
    "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "left_shift", "rshift": "right_shift",
}
for _dunder, _ufunc in _BINARY.items():
    setattr(_Var, f"__{_dunder}__", _operator(_ufunc))
    setattr(_Var, f"__r{_dunder}__", _operator(_ufunc, reflected=True))
def _inplace(name: str):
    """``x op= y`` in a fused function: on one of its array arguments, the new value is written
    back to that array when the kernel runs (cast back as NumPy's in-place operators cast, under
    'same_kind'); on any other value it is a new value, as Python rebinds the name."""

    def method(self, other):
        trace = self._trace
        result = trace.ufunc(name, (self, other))
        target = trace.array_argument(self)
        if target is None:
            return result
        dtype = np.dtype(trace.params[target][0])
        if result.dtype != dtype:
            if not np.can_cast(result.dtype, dtype, "same_kind"):
                raise TypeError(
                    f"Cannot cast ufunc '{name}' output from {result.dtype!r} to {dtype!r} with casting rule "
                    "'same_kind'"
                )
            result = result.astype(dtype)
        trace.assign(target, result)
        return result

    return method


for _dunder, _ufunc in _BINARY.items():
    setattr(_Var, f"__i{_dunder}__", _inplace(_ufunc))
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
        self.arrays: set[int] = set()  # parameters that are array arguments
        self.assigned: dict[int, int] = {}  # array argument -> the value written back to it
        self.alias: dict[int, int] = {}  # value -> the array argument it now stands for

    def array_argument(self, var: _Var) -> int | None:
        """The array argument ``var`` is (or was assigned to), else None."""
        if var._ref in self.arrays:
            return var._ref
        return self.alias.get(var._ref)

    def assign(self, argument: int, value: _Var) -> None:
        self.assigned[argument] = value._ref
        self.alias[value._ref] = argument

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
        kernel, constants, shape, written = compiled
        outputs = kernel(*args, *constants)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        # Values of in-place operators go back into their arrays (CuPy's fused `x += y`).
        for argument, value in zip(written, outputs[len(outputs) - len(written):], strict=True):
            args[argument][...] = value
        returned = outputs[:len(outputs) - len(written)]
        if shape is None:
            return None
        return returned if shape == "tuple" else returned[0]

    def _compile(self, args):
        trace = _Trace(self.name)
        stand_ins = []
        for a in args:
            if isinstance(a, _ember.ndarray):
                stand_ins.append(trace.parameter(a.dtype.name, weak=False))
                trace.arrays.add(stand_ins[-1]._ref)
            else:
                stand_ins.append(trace.parameter(*_scalar_param(a)))
        result = self.func(*stand_ins)
        shape = None if result is None else "tuple" if isinstance(result, tuple) else "one"
        results = () if result is None else result if shape == "tuple" else (result,)
        if (shape == "tuple" and not results) or not all(isinstance(r, _Var) for r in results) or (
                result is None and not trace.assigned):
            raise TypeError(
                f"{self.name} must return an array expression of its arguments (or a tuple of them), or change "
                f"its array arguments in place (x += ...), not return {type(result).__name__}"
            )
        written = tuple(sorted(trace.assigned))
        refs = [r._ref for r in results] + [trace.assigned[k] for k in written]
        operation, preamble, out_dtypes = _ember.fused_kernel_body(trace.params, trace.steps, refs, backend())
        in_params = ", ".join(f"{d} in{k}" for k, (d, _) in enumerate(trace.params))
        out_params = ", ".join(f"{d} out{k}" for k, d in enumerate(out_dtypes))
        name = re.sub(r"\W", "_", f"fused_{self.name}")
        kernel = _FusedKernel(in_params, out_params, operation, name, preamble=preamble,
                              return_tuple=len(refs) > 1)
        return kernel, tuple(trace.constants), shape, written

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
