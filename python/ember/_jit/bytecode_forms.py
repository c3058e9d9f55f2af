"""The ``ast`` forms the bytecode rebuild (``bytecode.py``) produces and tidies: positions and
evaluation order of nodes, ``and``/``or``/chained comparisons, and the ``if``/``while`` shapes people
write."""

from __future__ import annotations

import ast
import itertools

# Every node made gets the next number: the order Python evaluated what the nodes stand for.
ORDER = itertools.count()


def spanning(node, *parts):
    """Gives ``node`` the position from the first to the last of ``parts``."""
    node._seq = next(ORDER)
    located = [p for p in parts if isinstance(p, ast.AST) and hasattr(p, "lineno")]
    if located:
        first = min(located, key=lambda p: (p.lineno, p.col_offset))
        last = max(located, key=lambda p: (p.end_lineno, p.end_col_offset))
        node.lineno, node.col_offset = first.lineno, first.col_offset
        node.end_lineno, node.end_col_offset = last.end_lineno, last.end_col_offset
    return node


def negation(e):
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        return e.operand  # only ever a test: the same truth
    return spanning(ast.UnaryOp(op=ast.Not(), operand=e), e)


def bool_op(kind, a, b):
    values = []
    for x in (a, b):
        values += x.values if isinstance(x, ast.BoolOp) and isinstance(x.op, kind) else [x]
    # a < b and b < c, with the same b, is the chain a < b < c (b evaluated once).
    if kind is ast.And and len(values) >= 2:
        x, y = values[-2], values[-1]
        if isinstance(x, ast.Compare) and isinstance(y, ast.Compare) and x.comparators[-1] is y.left:
            chain = ast.Compare(left=x.left, ops=x.ops + y.ops, comparators=x.comparators + y.comparators)
            values[-2:] = [spanning(chain, x, y)]
    if len(values) == 1:
        return values[0]
    return spanning(ast.BoolOp(op=kind(), values=values), *values)


def choice(test, when_true, when_false):
    """``when_true if test else when_false``, as ``and``/``or`` where that is what it is."""
    if when_false is test:
        return bool_op(ast.And, test, when_true)
    if when_true is test:
        return bool_op(ast.Or, test, when_false)
    return spanning(ast.IfExp(test=test, body=when_true, orelse=when_false), test, when_false)


def ends_with(stmts, kind) -> bool:
    return bool(stmts) and isinstance(stmts[-1], kind)


def breaks_or_continues(stmts) -> bool:
    return any(isinstance(n, (ast.Break, ast.Continue)) for s in stmts for n in ast.walk(s))


def ends_flow(stmts) -> bool:
    return bool(stmts) and isinstance(stmts[-1], (ast.Break, ast.Continue, ast.Return))


def tidy(stmts: list) -> list:
    """Flattens the ``if`` forms the rebuild makes into the ones people write."""
    out: list = []
    for s in stmts:
        if isinstance(s, ast.If):
            s.body, s.orelse = tidy(s.body), tidy(s.orelse)
            if not s.body and s.orelse:
                s.test, s.body, s.orelse = negation(s.test), s.orelse, []
            if ends_flow(s.orelse) and s.body and not ends_flow(s.body):
                # if t: A else: break  is  if not t: break; A
                s.test, s.body, s.orelse = negation(s.test), s.orelse, s.body
            if ends_flow(s.body) and s.orelse and not (len(s.orelse) == 1 and isinstance(s.orelse[0], ast.If)):
                rest, s.orelse = s.orelse, []
                out.append(s)
                out += rest
                continue
        elif isinstance(s, (ast.For, ast.While)):
            s.orelse = tidy(s.orelse)
        out.append(s)
    return out


def strip_trailing_continue(stmts: list) -> list:
    """Drops the ``continue`` that ends a loop's body, and its copies at the end of a last ``if``
    (Python 3.12 jumps back to the loop's head from the end of each branch)."""
    if stmts and isinstance(stmts[-1], ast.Continue):
        return strip_trailing_continue(stmts[:-1])
    if stmts and isinstance(stmts[-1], ast.If):
        last = stmts[-1]
        last.body = strip_trailing_continue(last.body)
        last.orelse = strip_trailing_continue(last.orelse)
        if not last.body:
            last.body = [ast.Pass()] if last.orelse else []
            if not last.orelse:
                return stmts[:-1] + ([ast.Expr(value=last.test)] if has_call(last.test) else [])
    return stmts


def strip_trailing_return(stmts: list) -> list:
    """Drops the ``return`` (of None) that ends a function's bytecode, and its copies at the end of
    a last ``if``: the source had none."""
    if stmts and isinstance(stmts[-1], ast.Return) and stmts[-1].value is None:
        return strip_trailing_return(stmts[:-1])
    if stmts and isinstance(stmts[-1], ast.If):
        last = stmts[-1]
        last.body = strip_trailing_return(last.body) or [ast.Pass()]
        last.orelse = strip_trailing_return(last.orelse)
    return stmts


def has_call(e) -> bool:
    return any(isinstance(n, ast.Call) for n in ast.walk(e))


def tidy_body(body: list) -> list:
    body = tidy(strip_trailing_continue(tidy(body)))
    return body or [ast.Pass()]
