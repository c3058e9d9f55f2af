"""Finds a local variable read where no path of the function can have assigned it yet.

C would read an uninitialised (here: zeroed) variable and compute something; Python raises
``UnboundLocalError``. A read is accepted when some path may have assigned the name before it —
including an earlier iteration of an enclosing loop — as Numba accepts it; only reads that no
assignment can reach are errors.
"""

from __future__ import annotations

import ast


def _bound(target) -> set[str]:
    """Names an assignment target binds (``x``, ``x, y``; not ``a[i]`` or ``a.b``)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_bound(t) for t in target.elts)) if target.elts else set()
    if isinstance(target, ast.Starred):
        return _bound(target.value)
    return set()


def _assigned_anywhere(stmts) -> set[str]:
    names: set[str] = set()
    for s in stmts:
        for node in ast.walk(s):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return names


# Comprehensions and lambdas bind names of their own (inlined into the function's locals by
# Python 3.12, PEP 709).
_OWN_SCOPES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)


class _Checker:
    def __init__(self, locals_: set[str], error):
        self.locals, self.error = locals_, error

    def reads(self, node, assigned: set[str]) -> None:
        if node is None or isinstance(node, _OWN_SCOPES):
            return  # refused later with their own message; their names are their own
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in self.locals \
                and node.id not in assigned:
            raise self.error(node, f"local variable '{node.id}' is used before it is assigned")
        for child in ast.iter_child_nodes(node):
            self.reads(child, assigned)

    def block(self, stmts, assigned: set[str]) -> set[str]:
        for s in stmts:
            assigned = self.stmt(s, assigned)
        return assigned

    def stmt(self, s, assigned: set[str]) -> set[str]:
        if isinstance(s, (ast.Assign, ast.AnnAssign)):
            self.reads(s.value, assigned)
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            for t in targets:
                if not isinstance(t, ast.Name):
                    self.reads(t, assigned)  # a[i] = v reads a and i
            if isinstance(s, ast.AnnAssign) and s.value is None:
                return assigned
            return assigned | set().union(*(_bound(t) for t in targets))
        if isinstance(s, ast.AugAssign):
            self.reads(s.value, assigned)
            target = s.target
            if isinstance(target, ast.Name):
                if target.id in self.locals and target.id not in assigned:
                    raise self.error(target, f"local variable '{target.id}' is used before it is assigned")
                return assigned
            self.reads(target, assigned)
            return assigned
        if isinstance(s, ast.If):
            self.reads(s.test, assigned)
            return self.block(s.body, assigned) | self.block(s.orelse, assigned)
        if isinstance(s, ast.For):
            self.reads(s.iter, assigned)
            # Later iterations see what the body assigns: a read of it is possible.
            inside = assigned | _bound(s.target) | _assigned_anywhere(s.body)
            after = self.block(s.body, inside)
            return self.block(s.orelse, assigned | after)
        if isinstance(s, ast.While):
            inside = assigned | _assigned_anywhere(s.body)
            self.reads(s.test, inside)
            after = self.block(s.body, inside)
            return self.block(s.orelse, assigned | after)
        if isinstance(s, (ast.Expr, ast.Return)):
            self.reads(s.value, assigned)
        return assigned


def check_assigned_before_use(fn: ast.FunctionDef, params: list[str], locals_: set[str], error) -> None:
    """Raises ``error(node, message)`` at the first read of a local that nothing assigned."""
    _Checker(set(locals_) - set(params), error).block(fn.body, set(params))
