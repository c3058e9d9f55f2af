"""The front of the kernel compiler: a Python function's source, parsed with ``ast``, with
every free name resolved, written as the plain JSON tree ``ember-jit`` reads.

Locals are what Python itself deems local (parameters and assigned names). Every other name
is looked up now, in the closure, then the globals, then the builtins, and replaced by what
it denotes: a constant (inlined), a device function (numbered; its own tree is added), a
NumPy array (a constant array), or an intrinsic (``cuda.grid``, ``math.sqrt``, a dtype).
"""

from __future__ import annotations

import ast
import builtins
import cmath
import enum
import inspect
import json
import math
import operator
import textwrap
import types
import warnings

import numpy as np

from .. import _dtypes
from .. import types as ember_types
from .._intrinsic import DeviceOnly
from ..errors import JitError, JitWarning
from . import bindings, bytecode
from .assigned import check_assigned_before_use
from .externs import ExternFunction
from .intrinsics import Namespace
from .prange import pndindex, prange

# Tests set this to False to compile every kernel from its bytecode, as if it had no source.
SOURCE_FIRST = True

# Python builtins a kernel may call.
_BUILTINS = {getattr(builtins, n): "builtin." + n for n in (
    "range", "len", "abs", "min", "max", "round", "int", "float", "bool", "complex", "pow", "divmod",
    "enumerate", "zip", "print", "isinstance", "tuple",
)}

# The operator module's functions kernels may call (operator.truediv(a, b) is a / b).
_OPERATORS = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift", "and_", "or_", "xor",
              "abs")

# The most items a kernel's print() formats (CUDA's vprintf limit; ember-jit's print.rs has the
# same): past it the format string is printed, with a warning, as Numba does.
_PRINT_MOST_ITEMS = 32

# NumPy's array makers: functions compiled for the CPU make arrays with them (kernels cannot).
_NUMPY_MAKERS = ("empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like", "arange",
                 "linspace", "array", "asarray", "eye", "identity")

# NumPy's functions of whole arrays that are neither ufuncs nor reductions, for functions
# compiled for the CPU (`np.where(a > 0, a, 0)`).
_NUMPY_ARRAY_FUNCS = ("where", "nonzero", "flatnonzero", "argwhere", "count_nonzero", "clip")

# NumPy's reductions of a whole array, for functions compiled for the CPU (`np.sum(a)`).
_NUMPY_REDUCTIONS = ("sum", "prod", "min", "max", "amin", "amax", "mean", "var", "std", "argmin", "argmax", "any",
                     "all", "nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanvar", "nanstd", "nanargmin",
                     "nanargmax")

# NumPy functions that work on scalars in kernels (same typing as their math twins).
_NUMPY_FUNCS = (
    "sqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos",
    "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "floor", "ceil", "trunc", "fabs", "cbrt",
    "rint", "arctan2", "hypot", "copysign", "fmod", "power", "isnan", "isinf", "isfinite", "abs", "absolute",
    "minimum", "maximum", "fmin", "fmax", "remainder", "nextafter",
)


def _lists_as_tuples(node):
    """``node`` with its list displays (nested in lists and tuples) written as tuples."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return ast.copy_location(ast.Tuple(elts=[_lists_as_tuples(x) for x in node.elts], ctx=ast.Load()), node)
    return node


def _intrinsic_table() -> dict[int, str]:
    table = {id(obj): name for obj, name in _BUILTINS.items()}
    table[id(prange)] = "builtin.prange"
    for module in (math, cmath):
        for n in dir(module):
            obj = getattr(module, n)
            if callable(obj):
                table[id(obj)] = f"{module.__name__}.{n}"
    for n in _NUMPY_FUNCS + _NUMPY_MAKERS + _NUMPY_REDUCTIONS + _NUMPY_ARRAY_FUNCS:
        table[id(getattr(np, n))] = "np." + n
    # Loops over every position of a shape (`for i, j in np.ndindex(3, 4)`).
    for n in ("ndindex", "ndenumerate"):
        table[id(getattr(np, n))] = "np." + n
    table[id(pndindex)] = "np.ndindex"
    table[id(np.ndarray)] = "np.ndarray"  # a class isinstance() tests
    for n in _OPERATORS:
        table[id(getattr(operator, n))] = "operator." + n
    # Every other ufunc too: the compiler knows which the registry lets kernels call.
    for n, obj in vars(np).items():
        if isinstance(obj, np.ufunc) and id(obj) not in table:
            table[id(obj)] = "np." + n
    # NumPy's scalar types and ember's (the same types with Numba's behaviour: ember.types).
    for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
              np.float16, np.float32, np.float64, np.complex64, np.complex128, *ember_types.SCALARS):
        table[id(t)] = "dtype." + np.dtype(t).name
    return table


_TABLE: dict[int, str] | None = None

_BINOPS = {
    ast.Add: "Add", ast.Sub: "Sub", ast.Mult: "Mult", ast.Div: "Div", ast.FloorDiv: "FloorDiv", ast.Mod: "Mod",
    ast.Pow: "Pow", ast.LShift: "LShift", ast.RShift: "RShift", ast.BitOr: "BitOr", ast.BitXor: "BitXor",
    ast.BitAnd: "BitAnd", ast.MatMult: "MatMult",
}
_UNARY = {ast.Invert: "Invert", ast.Not: "Not", ast.UAdd: "UAdd", ast.USub: "USub"}
_CMP = {
    ast.Eq: "Eq", ast.NotEq: "NotEq", ast.Lt: "Lt", ast.LtE: "LtE", ast.Gt: "Gt", ast.GtE: "GtE", ast.Is: "Is",
    ast.IsNot: "IsNot", ast.In: "In", ast.NotIn: "NotIn",
}

# What each unsupported node is called in error messages.
_NAMES = {
    ast.List: "a list display [...]", ast.Dict: "a dict display {...}", ast.Set: "a set display",
    ast.ListComp: "a list comprehension", ast.DictComp: "a dict comprehension", ast.SetComp: "a set comprehension",
    ast.GeneratorExp: "a generator expression", ast.Lambda: "a lambda", ast.JoinedStr: "an f-string",
    ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield from", ast.Starred: "a starred expression",
    ast.NamedExpr: "the := operator", ast.With: "a with statement", ast.Try: "a try statement",
    ast.FunctionDef: "a nested function definition",
    ast.ClassDef: "a class definition", ast.Import: "import", ast.ImportFrom: "import",
    ast.Global: "a global statement",
    ast.Nonlocal: "a nonlocal statement", ast.Delete: "del", ast.AsyncFunctionDef: "an async function",
    ast.AsyncFor: "async for", ast.AsyncWith: "async with", ast.Match: "a match statement",
}
if hasattr(ast, "TryStar"):  # Python 3.11+: try/except*
    _NAMES[ast.TryStar] = "a try statement"


def _describe(node) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
        return "a string constant"
    if isinstance(node, ast.Constant) and node.value is None:
        return "None"
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return "the Ellipsis constant (...)"
    return _NAMES.get(type(node), type(node).__name__)


def _span(node) -> dict:
    line = getattr(node, "lineno", 0)
    return {
        "line": line, "col": getattr(node, "col_offset", 0), "end_line": getattr(node, "end_lineno", None) or line,
        "end_col": getattr(node, "end_col_offset", None) or 0,
    }


class _Program:
    """The functions and constant arrays of one kernel, collected transitively."""

    def __init__(self):
        self.functions: list[dict] = []
        self.ids: dict[int, int] = {}
        self.arrays: list[dict] = []
        self.array_ids: dict[int, int] = {}
        # Function id -> the Python function (a device function passed as an argument).
        self.objects: dict[int, object] = {}
        self.callee_params: dict[int, tuple[set[str], set[str]]] = {}  # shape and assigned parameters
        # The exceptions `raise` statements name: (class, constant arguments), numbered.
        self.exceptions: list[tuple[type, tuple]] = []
        # CUDA C functions the kernel calls (declare_device), and the kernel's own link= sources.
        self.externs: list[dict] = []
        self.extern_objects: list = []
        self.link: tuple[str, ...] = ()
        # Compiled for the CPU (@njit) rather than as a kernel: how messages name the code.
        self.host = False
        # Global device arrays the kernel captured: kept alive with it.
        self.captured: list = []

    def extern_id(self, fn) -> int:
        for i, f in enumerate(self.extern_objects):
            if f is fn:
                return i
        self.extern_objects.append(fn)
        self.externs.append(fn.tree(self.link))
        return len(self.externs) - 1

    def exception_id(self, cls, args: tuple) -> int:
        for i, (c, a) in enumerate(self.exceptions):
            if c is cls and a == args:
                return i
        self.exceptions.append((cls, args))
        return len(self.exceptions) - 1

    def function_id(self, fn, bound: dict | None = None) -> int:
        # One tree per function and set of compile-time arguments (bindings.py).
        key = (id(fn), bindings.key(bound)) if bound else id(fn)
        if key not in self.ids:
            self.ids[key] = len(self.functions)
            self.objects[self.ids[key]] = fn
            self.functions.append({})  # reserved: filled below, callees may add more
            # Function 0 is what is being compiled (a kernel); the rest are device functions.
            kind = "device function" if self.ids[key] > 0 or getattr(fn, "_device", False) else "kernel"
            if self.host:
                kind = "function"
            tree = _Function(self, fn, kind, bound).tree()
            signatures = getattr(fn, "_signatures", None) if getattr(fn, "_device", False) else None
            if signatures and len(signatures) == 1 and not bound:  # declared (recursion needs one)
                tree["signature"] = signatures[0]
            self.functions[self.ids[key]] = tree
        return self.ids[key]

    def array_id(self, a: np.ndarray) -> int:
        key = id(a)
        if key not in self.array_ids:
            self.array_ids[key] = len(self.arrays)
            self.arrays.append(_const_array(a))
        return self.array_ids[key]


_NAT = np.iinfo(np.int64).min


def _const_array(a: np.ndarray) -> dict:
    a = np.ascontiguousarray(a)
    if a.dtype.fields is not None:
        # A structured array: each element's bytes, as the initializer of its C struct.
        rows = a.view(np.uint8).reshape(a.size, a.dtype.itemsize) if a.size else ()
        values = ["{{" + ",".join(str(int(b)) for b in row) + "}}" for row in rows]
        return {"dtype": _dtypes.name_of(a.dtype), "shape": list(a.shape), "values": values}
    if a.dtype == np.float16:
        values = [str(int(v)) for v in a.view(np.uint16).ravel()]
    elif a.dtype.kind == "c":
        values = [f"{v.real!r},{v.imag!r}" for v in a.ravel().tolist()]
    elif a.dtype.kind == "b":
        values = ["1" if v else "0" for v in a.ravel().tolist()]
    elif a.dtype.kind in "iu":
        values = [str(int(v)) for v in a.ravel().tolist()]
    elif a.dtype.kind == "f":
        values = [repr(float(v)) for v in a.ravel().tolist()]
    elif a.dtype.kind in "mM":
        # datetime64/timedelta64: int64 counts of the unit; NaT, the least int64, written as C can.
        values = [str(v) if v != _NAT else "(-9223372036854775807 - 1)" for v in a.view(np.int64).ravel().tolist()]
    else:
        raise JitError(f"a constant array of dtype {a.dtype} cannot be used in a kernel")
    return {"dtype": a.dtype.name, "shape": list(a.shape), "values": values}


class _Function:
    def __init__(self, program: _Program, fn, kind: str = "kernel", bound: dict | None = None):
        self.program = program
        self.kind = kind
        # Where a construct is missing, in messages.
        self.realm = "functions compiled for the CPU" if program.host else "kernels"
        self.bound = bound or {}
        self.fn = getattr(fn, "py_func", fn)
        code = getattr(self.fn, "__code__", None)
        if code is None:
            raise JitError(f"{self.fn!r} is not a Python function; kernels are Python functions")
        # Locals captured by a nested lambda or def are cell variables, still locals.
        self.locals = set(code.co_varnames) | set(code.co_cellvars)
        found = self._own_source(code) if SOURCE_FIRST else None
        if found is not None:
            self.first, self.source, self.node = found
            self.file = inspect.getsourcefile(self.fn) or "<unknown>"
        else:
            self.first, self.source, self.file = 1, "", code.co_filename
            self.node = self._from_bytecode()
            # Temporaries the rebuild introduced (p, q = q, p) are locals too.
            self.locals |= {n.id for n in ast.walk(self.node) if isinstance(n, ast.Name)
                            and isinstance(n.ctx, ast.Store)}
        self.globals = self.fn.__globals__
        self.closure = {}
        for name, cell in zip(code.co_freevars, self.fn.__closure__ or (), strict=False):
            try:
                self.closure[name] = cell.cell_contents
            except ValueError:
                pass

    def _own_source(self, code):
        """The function's first line, its source and its ``def``; None where there is no source
        to read (``python -c``, ``exec``, the plain REPL, a lambda: the bytecode is read, as Numba
        does) or the text found is not this function's (code run by ``exec`` under the name of a
        file that does not exist finds the running script's text under that name)."""
        if code.co_name == "<lambda>":
            return None
        try:
            lines, first = inspect.getsourcelines(self.fn)
            source = textwrap.dedent("".join(lines))
            tree = ast.parse(source)
        except (OSError, TypeError, SyntaxError):
            return None
        defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        if not defs or defs[0].name != code.co_name:
            return None
        return first, source, defs[0]

    def _from_bytecode(self):
        try:
            return bytecode.function_def(self.fn)
        except bytecode.Unsupported as e:
            where = f"{self.file}:{e.line}" if e.line else self.file
            text = f"{where}: in {self.kind} '{self.fn.__name__}': {e.what} is not supported in {self.realm}"
            if "cannot rebuild" in e.what:
                text = (f"{where}: in {self.kind} '{self.fn.__name__}': {e.what}; the function has no source "
                        "file, so it was read from its bytecode: define it in a .py file to compile it from source")
            raise JitError(text) from None
        except Exception as e:  # a shape of bytecode the rebuild does not know: never a bare crash
            raise JitError(
                f"{self.file}: in {self.kind} '{self.fn.__name__}': the function has no source file and ember "
                f"could not rebuild it from its bytecode ({type(e).__name__}: {e}); define it in a .py file"
            ) from None

    def error(self, node, message):
        """A ``JitError`` at ``node``, written as ``ember-jit`` writes its own (``error.rs``):
        ``file:line: in kernel 'f': message``, then the line with ``node`` underlined."""
        s = _span(node) if hasattr(node, "lineno") else {"line": 1, "col": 0, "end_line": 1, "end_col": 0}
        text = f"{self.file}:{s['line'] + self.first - 1}: in {self.kind} '{self.fn.__name__}': {message}"
        lines = self.source.splitlines()
        if 1 <= s["line"] <= len(lines):
            raw = lines[s["line"] - 1]
            code = raw.strip()
            indent = len(raw) - len(raw.lstrip())
            # ast columns count UTF-8 bytes: measure the prefix and the node in characters.
            encoded = raw.encode()
            end = s["end_col"] if s["end_line"] == s["line"] else len(raw.rstrip().encode())
            start = len(encoded[:s["col"]].decode(errors="ignore")) - indent
            width = len(encoded[s["col"]:end].decode(errors="ignore"))
            text += f"\n    {code}"
            if width > 0 and start >= 0:
                text += "\n    " + " " * start + "^" * width
        return JitError(text)

    def span(self, node) -> dict:
        s = _span(node)
        offset = self.first - 1
        s["line"] += offset
        s["end_line"] += offset
        return s

    def tree(self) -> dict:
        args = self.node.args
        # A function compiled for the CPU may give parameters defaults: a call from Python is
        # bound to the signature first (CPUDispatcher._bind); calls from compiled code pass all.
        defaults = args.defaults and not self.program.host
        if args.vararg or args.kwarg or args.kwonlyargs or defaults or args.kw_defaults:
            culprit = args.vararg or args.kwarg or (args.kwonlyargs or args.defaults)[0]
            raise self.error(culprit, f"{self.realm} take plain positional parameters (no defaults, *args or **kwargs)")
        for node in ast.walk(self.node):
            # Found before the body is read: otherwise the names they declare are looked up
            # as globals first, and the error would point at a later line.
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                raise self.error(node, f"{_describe(node)} is not supported in {self.realm}")
        params = [a.arg for a in (*args.posonlyargs, *args.args)]
        check_assigned_before_use(self.node, params, self.locals, self.error)
        self.constants = bindings.constant_locals(self.node)
        if self.bound:
            bindings.check_not_assigned(self.node, self.bound, self.error)
            params = [p for p in params if p not in self.bound]
        return {
            "name": self.fn.__name__, "file": self.file, "source": self.source, "first_line": self.first,
            "params": params, "body": [self.stmt(s) for s in self.node.body], "span": self.span(self.node),
        }

    # ---- statements ----

    def stmt(self, s) -> dict:
        out = {"span": self.span(s)}
        k = type(s)
        if k is ast.Assign:
            out.update(k="Assign", targets=[self.expr(t) for t in s.targets], value=self.expr(s.value))
        elif k is ast.AnnAssign:
            if s.value is None:
                out.update(k="Pass")
            else:
                out.update(k="Assign", targets=[self.expr(s.target)], value=self.expr(s.value))
        elif k is ast.AugAssign:
            out.update(k="AugAssign", target=self.expr(s.target), op=_BINOPS[type(s.op)], value=self.expr(s.value))
        elif k is ast.Expr:
            if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
                out.update(k="Pass")  # a docstring
            else:
                out.update(k="Expr", value=self.expr(s.value))
        elif k is ast.If:
            out.update(k="If", test=self.expr(s.test), body=self.body(s.body), orelse=self.body(s.orelse))
        elif k is ast.For:
            out.update(k="For", target=self.expr(s.target), iter=self.expr(s.iter), body=self.body(s.body),
                       orelse=self.body(s.orelse))
        elif k is ast.While:
            out.update(k="While", test=self.expr(s.test), body=self.body(s.body), orelse=self.body(s.orelse))
        elif k is ast.Break:
            out.update(k="Break")
        elif k is ast.Continue:
            out.update(k="Continue")
        elif k is ast.Pass:
            out.update(k="Pass")
        elif k is ast.Return:
            # `return None` is `return`, as in Python.
            bare = s.value is None or (isinstance(s.value, ast.Constant) and s.value.value is None)
            out.update(k="Return", value=None if bare else self.expr(s.value))
        elif k is ast.Raise:
            out.update(k="Raise", exception=self.raised(s))
        elif k is ast.Assert:
            # `assert test, msg`: `if not test: raise AssertionError(msg)`.
            msg = () if s.msg is None else (self.constant_value(s.msg),)
            raise_ = {"span": out["span"], "k": "Raise", "exception": self.program.exception_id(AssertionError, msg)}
            test = {"span": out["span"], "k": "UnaryOp", "op": "Not", "operand": self.expr(s.test)}
            out.update(k="If", test=test, body=[raise_], orelse=[])
        else:
            out.update(k="Unsupported", what=_describe(s))
        return out

    def raised(self, s) -> int:
        """The exception a ``raise`` statement raises (a class or instance with constant
        arguments, as Numba allows), numbered in the program's table."""
        if s.exc is None:
            raise self.error(s, f"a bare 'raise' (re-raising) is not supported in {self.realm}; "
                                "raise an exception class")
        if s.cause is not None:
            raise self.error(s.cause, f"'raise ... from ...' is not supported in {self.realm}")
        node, args = s.exc, ()
        if isinstance(node, ast.Call):
            if node.keywords:
                raise self.error(node, f"exceptions raised in {self.realm} take positional constant arguments only")
            args = tuple(self.constant_value(a) for a in node.args)
            node = node.func
        value = self.global_value(node)
        if isinstance(value, BaseException) and not args:
            value, args = type(value), value.args
        if not (isinstance(value, type) and issubclass(value, BaseException)):
            raise self.error(s.exc, f"{self.realm} raise exception classes or instances (such as ValueError or "
                                    "ValueError('message')) named by a global")
        return self.program.exception_id(value, args)

    def global_value(self, node):
        """The object a global name or dotted name denotes."""
        if isinstance(node, ast.Name) and node.id not in self.locals:
            return self.lookup(node.id, node)
        base = self.static_base(node) if isinstance(node, ast.Attribute) else None
        if base is None:
            raise self.error(node, f"{self.realm} raise exceptions named by globals, not by local variables")
        return base[0]

    def constant_value(self, node):
        """A constant argument of an exception: a literal or a global's value."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name) and node.id in self.locals:
            raise self.error(node, f"exceptions raised in {self.realm} take constant arguments (literals or global "
                                   f"constants), not the variable '{node.id}'")
        if isinstance(node, (ast.Name, ast.Attribute)):
            value = self.global_value(node)
            if isinstance(value, (str, bytes, int, float, complex, bool, type(None))):
                return value
        raise self.error(node, f"exceptions raised in {self.realm} take constant arguments "
                               "(literals or global constants)")

    def body(self, stmts) -> list:
        return [self.stmt(s) for s in stmts]

    # ---- expressions ----

    def expr(self, e) -> dict:
        out = {"span": self.span(e)}
        out.update(self._expr(e))
        return out

    def _expr(self, e) -> dict:
        k = type(e)
        if k is ast.Constant:
            return self.constant(e.value, e)
        if k is ast.Name:
            if e.id in self.bound:
                return bindings.respan(self.bound[e.id], self.span(e))
            if e.id in self.locals:
                return {"k": "Name", "id": e.id}
            return self.resolved(self.lookup(e.id, e), e.id, e)
        if k is ast.Attribute:
            base = self.static_base(e)
            if base is not None:
                value, dotted = base
                return self.resolved(value, dotted, e)
            return {"k": "Attribute", "value": self.expr(e.value), "attr": e.attr}
        if k is ast.Subscript:
            base = self.static_base(e.value) if isinstance(e.value, (ast.Name, ast.Attribute)) else None
            if (base is not None and isinstance(base[0], enum.EnumMeta) and isinstance(e.slice, ast.Constant)
                    and isinstance(e.slice.value, str)):
                # Color["red"]: the member, looked up now.
                try:
                    return self.resolved(base[0][e.slice.value], base[1], e)
                except KeyError:
                    raise self.error(e, f"{base[1]} has no member {e.slice.value!r}") from None
            return {"k": "Subscript", "value": self.expr(e.value), "index": self.expr(e.slice)}
        if k is ast.Starred and isinstance(getattr(e, "ctx", None), ast.Load):
            # Among a call's arguments (the compiler refuses it elsewhere); never a target.
            return {"k": "Starred", "value": self.expr(e.value)}
        if k is ast.Slice:
            opt = lambda x: None if x is None else self.expr(x)  # noqa: E731
            return {"k": "Slice", "lower": opt(e.lower), "upper": opt(e.upper), "step": opt(e.step)}
        if k is ast.BinOp:
            return {"k": "BinOp", "op": _BINOPS[type(e.op)], "left": self.expr(e.left), "right": self.expr(e.right)}
        if k is ast.UnaryOp:
            if (isinstance(e.op, ast.USub) and isinstance(e.operand, ast.Constant)
                    and type(e.operand.value) is int):
                # A negative literal is one constant, as in bytecode: -9223372036854775808 is
                # an int64, not the negation of a number past int64.
                return self.constant(-e.operand.value, e)
            return {"k": "UnaryOp", "op": _UNARY[type(e.op)], "operand": self.expr(e.operand)}
        if k is ast.BoolOp:
            return {"k": "BoolOp", "op": "And" if isinstance(e.op, ast.And) else "Or",
                    "values": [self.expr(v) for v in e.values]}
        if k is ast.Compare:
            return {"k": "Compare", "left": self.expr(e.left), "ops": [_CMP[type(o)] for o in e.ops],
                    "comparators": [self.expr(c) for c in e.comparators]}
        if k is ast.Call:
            if any(kw.arg is None for kw in e.keywords):
                return {"k": "Unsupported", "what": "**kwargs in a call"}
            starred = any(isinstance(a, ast.Starred) for a in e.args)
            callee = self.device_callee(e.func)
            if callee is not None and starred:
                # Its compile-time arguments are bound by position, before types are known.
                return {"k": "Unsupported", "what": "*args in a call of a device function (pass the items)"}
            if callee is not None:
                return self.device_call(e, callee)
            if len(e.args) > _PRINT_MOST_ITEMS and not self.program.host and self.names_print(e.func):
                warnings.warn_explicit(
                    f"CUDA print() cannot print more than {_PRINT_MOST_ITEMS} items. The raw format string will be "
                    "emitted by the kernel instead.", JitWarning, self.file, self.span(e)["line"])
            func = self.expr(e.func)
            args = [self.expr(a) for a in e.args]
            keywords = [{"name": kw.arg, "value": self.expr(kw.value)} for kw in e.keywords]
            if func.get("name") in ("np.array", "np.asarray") and e.args:
                # A list display there holds the array's items: NumPy reads it as a tuple.
                args[0] = self.expr(_lists_as_tuples(e.args[0]))
            if func.get("name") in ("cuda.shared.array", "cuda.local.array"):
                # A shape named by a constant local is that constant (Numba propagates it).
                shapes = [(args, 0, e.args[0])] if e.args else []
                shapes += [(keywords[k], "value", kw.value) for k, kw in enumerate(e.keywords) if kw.arg == "shape"]
                constants = getattr(self, "constants", {})
                for holder, key, node in shapes:
                    if isinstance(node, ast.Name) and node.id in constants:
                        value, span = constants[node.id], self.span(node)
                        items = value if isinstance(value, tuple) else None
                        holder[key] = {"span": span, **(self.constant(value, node) if items is None else {
                            "k": "Tuple", "elts": [{"span": span, **self.constant(v, node)} for v in items]})}
            return {"k": "Call", "func": func, "args": args, "keywords": keywords}
        if k is ast.IfExp:
            return {"k": "IfExp", "test": self.expr(e.test), "body": self.expr(e.body), "orelse": self.expr(e.orelse)}
        if k is ast.Tuple:
            return {"k": "Tuple", "elts": [self.expr(x) for x in e.elts]}
        return {"k": "Unsupported", "what": _describe(e)}

    def names_print(self, func) -> bool:
        """Whether ``func`` is the builtin ``print``."""
        return isinstance(func, ast.Name) and func.id not in self.locals and func.id not in self.bound and \
            self.lookup(func.id, func) is print

    def device_callee(self, func):
        """The device function ``func`` names (a global, or a parameter bound to one), if any."""
        if isinstance(func, ast.Name) and func.id in self.bound:
            node = self.bound[func.id]
            return self.program.objects[node["id"]] if node.get("k") == "Func" else None
        if isinstance(func, ast.Name) and func.id not in self.locals:
            value = self.lookup(func.id, func)
        elif isinstance(func, ast.Attribute):
            base = self.static_base(func)
            value = None if base is None else base[0]
        else:
            return None
        return value if getattr(value, "_ember_jit_dispatcher", False) and value._device else None

    def device_call(self, e, callee) -> dict:
        """A call of a device function: its compile-time arguments bound (bindings.py)."""
        fid = id(callee)
        if fid not in self.program.callee_params:
            node = _Function(self.program, callee).node
            self.program.callee_params[fid] = (bindings.shape_params(node), bindings.assigned_params(node))
        args = [self.expr(a) for a in e.args]
        keywords = [{"name": kw.arg, "value": self.expr(kw.value)} for kw in e.keywords]
        if self.program.host:
            keywords += self.defaults_left_out(callee, e, len(args), keywords)
        bound, args, keywords = bindings.bind(callee, *self.program.callee_params[fid], args, keywords)
        func = {"span": self.span(e.func), "k": "Func", "id": self.program.function_id(callee, bound)}
        return {"k": "Call", "func": func, "args": args, "keywords": keywords}

    def defaults_left_out(self, callee, call, given: int, keywords: list) -> list:
        """The callee's defaults for the parameters a call leaves out, as keywords (Python
        evaluated them when the callee was defined)."""
        params = bindings.params_of(callee)
        defaults = getattr(callee, "py_func", callee).__defaults__ or ()
        named = {kw["name"] for kw in keywords}
        first = len(params) - len(defaults)
        return [{"name": p, "value": {"span": self.span(call), **self.constant(v, call)}}
                for k, (p, v) in enumerate(zip(params[first:], defaults, strict=True))
                if first + k >= given and p not in named]

    def constant(self, v, node) -> dict:
        if isinstance(v, bool):
            return {"k": "Bool", "v": v}
        if isinstance(v, int):
            return {"k": "Int", "v": str(int(v))}  # int(): an IntEnum member is its value
        if isinstance(v, float):
            return {"k": "Float", "v": repr(v)}
        if isinstance(v, complex):
            return {"k": "Complex", "re": repr(v.real), "im": repr(v.imag)}
        if isinstance(v, str):
            return {"k": "Str", "v": v}  # a record's field name (r['x']) or print()'s text; refused elsewhere
        if v is None:
            return {"k": "Unsupported", "what": "None"}  # taken where None means "not given" (alignment=)
        return {"k": "Unsupported", "what": _describe(node)}

    def lookup(self, name, node):
        if name in self.closure:
            return self.closure[name]
        if name in self.globals:
            return self.globals[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        if name == self.fn.__name__ and self.program.host:
            # A function compiled while its decorator runs (a signature given) calls itself
            # before its name is bound: the name is the function being compiled.
            return self.fn
        raise self.error(node, f"name '{name}' is not defined")

    def static_base(self, e):
        """``a.b.c`` whose base name is not local: the object it denotes, looked up now."""
        chain = []
        node = e
        while isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id in self.locals:
            return None
        value = self.lookup(node.id, node)
        dotted = node.id
        for attr in reversed(chain):
            if isinstance(value, np.ndarray):
                return None  # `.shape` of a global array: typed in the kernel
            try:
                value = getattr(value, attr)
            except AttributeError:
                raise self.error(e, f"'{dotted}' has no attribute '{attr}'") from None
            dotted += "." + attr
        return value, dotted

    def captured(self, value, dotted, node) -> dict:
        """A global device array, captured by its address as Numba captures it (CUDA kernels
        read and write it in place; the kernel keeps it alive)."""
        try:
            cai = value.__cuda_array_interface__
        except AttributeError:
            # OpenCL memory has no address kernels can hold: the compiler says so.
            return {"k": "DeviceArray", "ptr": "0", "dtype": np.dtype(value.dtype).name,
                    "shape": [int(n) for n in value.shape]}
        dtype, shape = np.dtype(cai["typestr"]), tuple(int(n) for n in cai["shape"])
        strides = cai.get("strides")
        if strides is not None:
            want, step = [], dtype.itemsize
            for n in reversed(shape):
                want.insert(0, step)
                step *= n
            if any(s != w for s, w, n in zip(strides, want, shape, strict=True) if n > 1):
                raise self.error(node, f"the global device array '{dotted}' is not C-contiguous; kernels capture "
                                       "contiguous arrays (pass this one as an argument)")
        self.program.captured.append(value)
        return {"k": "DeviceArray", "ptr": str(int(cai["data"][0])), "dtype": dtype.name, "shape": list(shape)}

    def resolved(self, value, dotted, node) -> dict:
        """A global object as the tree node it stands for."""
        global _TABLE
        if isinstance(value, DeviceOnly):
            return {"k": "Intrinsic", "name": value.intrinsic}
        if isinstance(value, Namespace):
            # cuda.threadIdx as a whole (what print() takes); the compiler refuses it elsewhere.
            return {"k": "Intrinsic", "name": value._name}
        if isinstance(value, ExternFunction):
            return {"k": "Extern", "id": self.program.extern_id(value)}
        if isinstance(value, enum.Enum) and not isinstance(value, (bool, int, float, complex)):
            # Enum members are their values in kernels (IntEnum members are ints already).
            return self.resolved(value.value, dotted, node)
        if isinstance(value, (bool, int, float, complex)):
            return self.constant(value, node)
        if value is None:
            # Taken where None means "not given" (alignment=); refused elsewhere, with its name.
            return {"k": "Unsupported", "what": f"None (the global '{dotted}')"}
        if isinstance(value, np.generic):
            if value.dtype.kind == "c":
                text = f"{value.real!r},{value.imag!r}"
            elif value.dtype.kind == "b":
                text = "True" if value else "False"
            elif value.dtype.kind == "f":
                text = repr(float(value))
            elif value.dtype.kind in "mM":
                text = str(int(value.astype(np.int64)))  # the count of its unit (NaT the least int64)
            else:
                text = str(int(value))
            return {"k": "Typed", "dtype": value.dtype.name, "v": text}
        if isinstance(value, tuple):
            return {"k": "Tuple", "elts": [{"span": self.span(node), **self.resolved(v, dotted, node)} for v in value]}
        if isinstance(value, np.ndarray):
            return {"k": "Array", "id": self.program.array_id(value)}
        if _is_device_array(value):
            return self.captured(value, dotted, node)
        if getattr(value, "_ember_jit_dispatcher", False) or getattr(value, "_ember_jitable", False):
            # A kernel called from a kernel is compiled as a device function, as numba-cuda does
            # (and a function given to ember.extending.register_jitable, as Numba does).
            return {"k": "Func", "id": self.program.function_id(value)}
        if self.program.host and value is self.fn and self.program.ids.get(id(value)) == 0:
            # The function being compiled calling itself by its own name (see lookup()).
            return {"k": "Func", "id": 0}
        if _TABLE is None:
            _TABLE = _intrinsic_table()
        name = _TABLE.get(id(value))
        if name is None and isinstance(value, np.dtype) and value.fields is not None:
            name = "dtype." + _dtypes.name_of(value)  # a structured dtype: registered by NumPy's name
        elif name is None and isinstance(value, np.dtype):
            name = "dtype." + value.name
        elif name is None and isinstance(value, ember_types.NPDatetime | ember_types.NPTimedelta):
            name = "dtype." + value.name
        if name is None and isinstance(value, ember_types.Record):
            name = "dtype." + value.name
        if name is None:
            numba_name = _numba_type_name(value)
            if numba_name:
                name = "dtype." + numba_name
        if name is not None:
            return {"k": "Intrinsic", "name": name}
        if isinstance(value, types.ModuleType):
            return {"k": "Unsupported", "what": f"the module '{dotted}' used as a value"}
        if isinstance(value, types.FunctionType):
            how = ("@njit (or ember.extending.register_jitable) to call it from functions compiled for the CPU"
                   if self.program.host else "@cuda.jit(device=True) to call it from kernels")
            what = f"a call to the plain Python function '{dotted}' (decorate it with {how})"
            return {"k": "Unsupported", "what": what}
        kind = {"CUDAUFunc": "a ufunc (@vectorize)", "GUFunc": "a gufunc (@guvectorize)"}.get(type(value).__name__)
        if kind is not None and type(value).__module__ == "ember._jit.vectorize":
            # Numba's words; ufuncs run from host code over whole arrays.
            return {"k": "Unsupported", "what": f"Untyped global name '{dotted}': {kind}"}
        if callable(value) and not isinstance(value, type):
            return {"k": "Unsupported", "what": f"{dotted}()"}
        return {"k": "Unsupported", "what": f"the global '{dotted}' (a {type(value).__name__})"}


def _is_device_array(value) -> bool:
    """An ember array (its class has the CUDA array interface, which OpenCL memory lacks), or
    another library's array through that interface."""
    return hasattr(type(value), "__cuda_array_interface__") or \
        isinstance(getattr(value, "__dict__", {}).get("__cuda_array_interface__"), dict)


def _numba_type_name(value) -> str | None:
    """The dtype name of a Numba scalar type object (``numba.float32``), if it is one."""
    module = type(value).__module__ or ""
    if module.startswith("numba") and hasattr(value, "name"):
        try:
            return np.dtype(str(value.name)).name
        except TypeError:
            return None
    return None


def program_json(fn, exceptions: list | None = None, link: tuple[str, ...] = (), captured: list | None = None,
                 fastmath: bool = False, host: bool = False) -> str:
    """The JSON tree of kernel (or device function) ``fn`` and everything it calls; the
    exceptions its ``raise`` statements name go into ``exceptions`` (replacing what was there),
    in the order the tree numbers them. ``link``: the kernel's own CUDA C sources (``@jit(link=)``),
    compiled with the CUDA C functions it calls. ``captured`` receives the global device arrays
    it captures (to keep them alive). ``fastmath``: the kernel's option (debug mode then tests no
    float divisor, as Numba). ``host``: ``fn`` is compiled for the CPU (messages say "function")."""
    program = _Program()
    program.link = tuple(link)
    program.host = host
    program.function_id(fn)
    if exceptions is not None:
        exceptions[:] = program.exceptions
    if captured is not None:
        captured[:] = program.captured
    return json.dumps({"functions": program.functions, "arrays": program.arrays, "externs": program.externs,
                       "fastmath": bool(fastmath)})
