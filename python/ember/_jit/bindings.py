"""Compile-time arguments of device functions, as Numba allows them.

A device function may be passed a type (``uint32``, ``np.float32``: used as a dtype or called
to cast), an intrinsic or another device function (``cuda.atomic.add``, called inside), an
integer or tuple of integers used as the shape of a ``cuda.shared.array``/``cuda.local.array``,
and a constant ``True``/``False`` (Numba types it as a literal, so ``if flag:`` in the callee
keeps only the branch taken: the other need not type).
None of these is a runtime value: the front binds the parameter to what the call site passes
and writes a specialised copy of the callee's tree without that parameter (one copy per distinct
set of bound values, the specialisation key), so the compiler sees ``cuda.shared.array(32,
uint32)`` and ``cuda.atomic.add(sm, i, v)`` as if they had been written there.
"""

from __future__ import annotations

import ast
import json

# Intrinsics that are values read at run time (thread geometry): passed as ordinary arguments.
_VALUE_PREFIXES = ("cuda.threadIdx.", "cuda.blockIdx.", "cuda.blockDim.", "cuda.gridDim.", "ember.coarse.")
_VALUE_NAMES = {"cuda.warpsize", "cuda.laneid"}


def _strip(node):
    """``node`` without its spans (the bound value takes the span of each use)."""
    if isinstance(node, dict):
        return {k: _strip(v) for k, v in node.items() if k != "span"}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def respan(node, span):
    """A bound value written at a use whose place is ``span``."""
    if isinstance(node, dict):
        out = {k: respan(v, span) for k, v in node.items()}
        if "k" in out:
            out["span"] = span
        return out
    if isinstance(node, list):
        return [respan(v, span) for v in node]
    return node


def _is_int_shape(node) -> bool:
    if node.get("k") == "Int":
        return True
    return node.get("k") == "Tuple" and all(x.get("k") == "Int" for x in node["elts"])


def _compile_time(node, in_shape: bool) -> bool:
    k = node.get("k")
    if k in ("Func", "Bool"):
        return True
    if k == "Intrinsic":
        name = node["name"]
        return name not in _VALUE_NAMES and not name.startswith(_VALUE_PREFIXES)
    return in_shape and _is_int_shape(node)


def assigned_params(fn_node: ast.FunctionDef) -> set[str]:
    """The parameters the function assigns: they stay runtime values whatever is passed."""
    return {n.id for n in ast.walk(fn_node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def constant_locals(fn_node: ast.FunctionDef) -> dict[str, object]:
    """Locals the function body assigns once, at its top level, an int or a tuple of ints (and
    never otherwise): Numba propagates them as constants, so a shared or local array's shape may
    name one (``N = 100; cuda.shared.array(N, int32)``)."""
    stores: dict[str, int] = {}
    for n in ast.walk(fn_node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
    params = {a.arg for a in (*fn_node.args.posonlyargs, *fn_node.args.args)}
    out = {}
    for s in fn_node.body:
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)):
            continue
        name = s.targets[0].id
        try:
            value = ast.literal_eval(s.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        ints = isinstance(value, tuple) and all(type(v) is int for v in value)
        if stores.get(name) == 1 and name not in params and (type(value) is int or ints):
            out[name] = value
    return out


def shape_params(fn_node: ast.FunctionDef) -> set[str]:
    """The parameters that a ``cuda.shared.array``/``cuda.local.array`` shape mentions: an
    integer passed there must be known when the function is compiled."""
    out = set()
    for node in ast.walk(fn_node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "array":
            shapes = node.args[:1] + [kw.value for kw in node.keywords if kw.arg == "shape"]
            for shape in shapes:
                out |= {n.id for n in ast.walk(shape) if isinstance(n, ast.Name)}
    return out


def params_of(fn) -> list[str]:
    code = getattr(fn, "py_func", fn).__code__
    return list(code.co_varnames[:code.co_argcount])


def bind(fn, shape_names: set[str], assigned: set[str], args: list[dict], keywords: list[dict]):
    """Splits a call's arguments into the callee's bound parameters (name -> value without
    spans) and the arguments left for the call."""
    params = params_of(fn)

    def binds(name, node) -> bool:
        if node.get("k") == "Bool" and name in assigned:
            return False
        return _compile_time(node, name in shape_names)

    bound = {}
    rest_args = []
    for i, a in enumerate(args):
        name = params[i] if i < len(params) else None
        if name is not None and binds(name, a):
            bound[name] = _strip(a)
        else:
            rest_args.append(a)
    rest_kw = []
    for kw in keywords:
        if kw["name"] in params and binds(kw["name"], kw["value"]):
            bound[kw["name"]] = _strip(kw["value"])
        else:
            rest_kw.append(kw)
    return bound, rest_args, rest_kw


def key(bound: dict) -> str:
    """The specialisation key of a set of bound values."""
    return json.dumps(bound, sort_keys=True)


def check_not_assigned(node: ast.FunctionDef, bound: dict, error):
    """A bound parameter has no storage: assigning it is refused."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in bound:
            raise error(n, f"parameter '{n.id}' is bound to a compile-time value (a type, a function or a "
                           "shape) and cannot be assigned")
