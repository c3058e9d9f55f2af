"""A function's ``ast`` tree rebuilt from its bytecode, for kernels that have no source file.

``python -c``, ``exec`` of generated code and the plain REPL leave no source to read; Numba compiles
from bytecode, so kernels written there work with Numba and must work here. This module turns a code
object back into the ``ast.FunctionDef`` its source would parse to (up to equivalent forms), with
each node's line and columns taken from the instruction that made it, so the front reads it like
parsed source and error messages still name a line.

How: the instructions are cut into basic blocks; each block is run on a stack of ``ast`` nodes
(values are expressions, stores are statements); control flow is rebuilt from the graph — loops
from back edges (``for`` from ``FOR_ITER``, ``while`` from a guard repeated at the latch),
``if``/``else`` joined at the nearest common post-dominator, ``and``/``or`` conditions merged from
chains of conditional blocks, values joined at a merge (``x if c else y``, ``a and b``, ``a < b <
c``). The kernel language is covered on Python 3.10 to 3.13; anything else (``try``, ``with``,
comprehensions, ``raise``, ...) is reported as unsupported at its line.
"""

from __future__ import annotations

import ast
import dis
import sys

_PY = sys.version_info[:2]


class Unsupported(Exception):
    """A construct the kernel language lacks, or bytecode this module cannot rebuild."""

    def __init__(self, what: str, line: int | None):
        super().__init__(what)
        self.what = what
        self.line = line


# ---- stack markers: stack entries that are not expressions --------------------------------------

class _Null:
    """The NULL that calls push beside a callable."""


_NULL = _Null()


class _Iter:
    """An iterator made by GET_ITER (the ``for`` loop's)."""

    def __init__(self, expr):
        self.expr = expr


class _ForValue:
    """The value FOR_ITER pushes: its first store is the loop's target."""

    def __init__(self):
        self.target = None


class _Unpacked:
    """The values UNPACK_SEQUENCE pushes: stores fill the targets of one tuple assignment."""

    def __init__(self, value, count: int):
        self.value = value
        self.targets = [None] * count
        self.stored = 0


class _Slot:
    def __init__(self, group: _Unpacked, index: int):
        self.group = group
        self.index = index


class _Inplace:
    """``left op= right`` before its store: the store makes it an augmented assignment."""

    def __init__(self, op, left, right, where):
        self.op, self.left, self.right, self.where = op, left, right, where


# ---- operator tables --------------------------------------------------------------------------

_BINARY = {
    "+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "//": ast.FloorDiv, "%": ast.Mod,
    "**": ast.Pow, "<<": ast.LShift, ">>": ast.RShift, "|": ast.BitOr, "^": ast.BitXor, "&": ast.BitAnd,
    "@": ast.MatMult,
}
# Python 3.10's opcodes for the same operators.
_BINARY_310 = {
    "ADD": "+", "SUBTRACT": "-", "MULTIPLY": "*", "TRUE_DIVIDE": "/", "FLOOR_DIVIDE": "//", "MODULO": "%",
    "POWER": "**", "LSHIFT": "<<", "RSHIFT": ">>", "OR": "|", "XOR": "^", "AND": "&", "MATRIX_MULTIPLY": "@",
}
_COMPARE = {"<": ast.Lt, "<=": ast.LtE, "==": ast.Eq, "!=": ast.NotEq, ">": ast.Gt, ">=": ast.GtE}
_UNARY = {
    "UNARY_NEGATIVE": ast.USub, "UNARY_POSITIVE": ast.UAdd, "UNARY_NOT": ast.Not, "UNARY_INVERT": ast.Invert,
}

# What an opcode means when the kernel language lacks it (named as the front names the node).
_UNSUPPORTED = {
    "BUILD_MAP": "a dict display {...}", "MAP_ADD": "a dict comprehension",
    "BUILD_CONST_KEY_MAP": "a dict display {...}",
    "BUILD_SET": "a set display", "SET_ADD": "a set comprehension", "LOAD_FAST_AND_CLEAR": "a comprehension",
    "MAKE_FUNCTION": "a lambda or nested function", "LOAD_CLOSURE": "a lambda or nested function",
    "FORMAT_VALUE": "an f-string", "FORMAT_SIMPLE": "an f-string", "BUILD_STRING": "an f-string",
    "RAISE_VARARGS": "raise", "LOAD_ASSERTION_ERROR": "assert",
    "BEFORE_WITH": "a with statement", "SETUP_WITH": "a with statement", "SETUP_FINALLY": "a try statement",
    "YIELD_VALUE": "yield", "GET_AWAITABLE": "await", "IMPORT_NAME": "import",
    "STORE_GLOBAL": "a global statement", "DELETE_FAST": "del", "DELETE_SUBSCR": "del", "DELETE_NAME": "del",
    "DELETE_GLOBAL": "del", "DELETE_ATTR": "del", "DELETE_DEREF": "del", "STORE_ATTR": "an assignment to an attribute",
    "CALL_FUNCTION_EX": "*args or **kwargs in a call", "DICT_MERGE": "*args or **kwargs in a call",
    "LOAD_BUILD_CLASS": "a class definition", "SETUP_ANNOTATIONS": "an annotation", "MATCH_CLASS": "a match statement",
    "MATCH_SEQUENCE": "a match statement", "MATCH_MAPPING": "a match statement",
}

# Code objects a function makes at run time (Python 3.11 compiles comprehensions as functions).
_NESTED_CODE = {
    "<listcomp>": "a list comprehension", "<setcomp>": "a set comprehension", "<dictcomp>": "a dict comprehension",
    "<genexpr>": "a generator expression", "<lambda>": "a lambda",
}
_UNCONDITIONAL = {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP_ABSOLUTE", "JUMP",
                  "JUMP_NO_INTERRUPT"}
_POP_JUMPS = {  # opname -> (what the test is, whether the jump is taken when it holds)
    "POP_JUMP_IF_FALSE": ("bool", False), "POP_JUMP_IF_TRUE": ("bool", True),
    "POP_JUMP_FORWARD_IF_FALSE": ("bool", False), "POP_JUMP_FORWARD_IF_TRUE": ("bool", True),
    "POP_JUMP_BACKWARD_IF_FALSE": ("bool", False), "POP_JUMP_BACKWARD_IF_TRUE": ("bool", True),
    "POP_JUMP_IF_NONE": ("none", True), "POP_JUMP_IF_NOT_NONE": ("none", False),
    "POP_JUMP_FORWARD_IF_NONE": ("none", True), "POP_JUMP_FORWARD_IF_NOT_NONE": ("none", False),
    "POP_JUMP_BACKWARD_IF_NONE": ("none", True), "POP_JUMP_BACKWARD_IF_NOT_NONE": ("none", False),
}
_KEEP_JUMPS = {"JUMP_IF_FALSE_OR_POP": False, "JUMP_IF_TRUE_OR_POP": True}  # Python 3.10 and 3.11
_RETURNS = {"RETURN_VALUE", "RETURN_CONST"}
_IGNORED = {"NOP", "RESUME", "PRECALL", "CACHE", "EXTENDED_ARG", "COPY_FREE_VARS", "MAKE_CELL", "TO_BOOL",
            "END_FOR", "NOT_TAKEN", "GEN_START"}
_EXIT = -1  # the virtual block after every return
# What running a block on a guessed stack may raise when the guess is wrong.
_NOT_PURE = (Unsupported, IndexError, KeyError, AttributeError)


def _ends_block(ins) -> bool:
    name = ins.opname
    return (name in _UNCONDITIONAL or name in _POP_JUMPS or name in _KEEP_JUMPS or name in _RETURNS
            or name == "FOR_ITER" or name in ("RAISE_VARARGS", "RERAISE"))


class _Block:
    def __init__(self, index: int, start: int, end: int, offset: int):
        self.index, self.start, self.end, self.offset = index, start, end, offset
        self.succs: list[int] = []
        self.preds: list[int] = []
        # Set where a copied loop test was cut off the end: the block then jumps here.
        self.goto: int | None = None


def _line_table(instructions, first_line: int) -> list[int]:
    """The source line of each instruction (3.10 marks only where a line starts)."""
    lines, line = [], first_line
    for ins in instructions:
        pos = getattr(ins, "positions", None)
        if pos is not None and pos.lineno is not None:
            line = pos.lineno
        else:
            start = getattr(ins, "line_number", None) if _PY >= (3, 13) else ins.starts_line
            if isinstance(start, int) and not isinstance(start, bool):
                line = start
        lines.append(line)
    return lines


class _Decompiler:
    def __init__(self, code):
        self.code = code
        self.temporaries: list[str] = []
        self.used: dict[int, ast.AST] = {}  # expressions that are part of another
        self.ins = list(dis.get_instructions(code))
        self.lines = _line_table(self.ins, code.co_firstlineno)
        self.at_offset = {ins.offset: k for k, ins in enumerate(self.ins)}
        self._check_supported()
        self._cut_blocks()
        self._reroute_repeated_tests()
        self._find_loops()
        self._post_dominators()

    # ---- errors and positions ----

    def unsupported(self, what: str, k: int):
        return Unsupported(what, self.lines[k] if 0 <= k < len(self.lines) else None)

    def place(self, node, k: int):
        """Gives ``node`` the source position of instruction ``k``."""
        ins = self.ins[k]
        pos = getattr(ins, "positions", None)
        line = self.lines[k]
        if pos is not None and pos.lineno is not None:
            node.lineno, node.end_lineno = pos.lineno, pos.end_lineno or pos.lineno
            node.col_offset, node.end_col_offset = pos.col_offset or 0, pos.end_col_offset or 0
        else:
            node.lineno = node.end_lineno = line
            node.col_offset = node.end_col_offset = 0
        return node

    @staticmethod
    def spanning(node, *parts):
        """Gives ``node`` the position from the first to the last of ``parts``."""
        located = [p for p in parts if isinstance(p, ast.AST) and hasattr(p, "lineno")]
        if located:
            first = min(located, key=lambda p: (p.lineno, p.col_offset))
            last = max(located, key=lambda p: (p.end_lineno, p.end_col_offset))
            node.lineno, node.col_offset = first.lineno, first.col_offset
            node.end_lineno, node.end_col_offset = last.end_lineno, last.end_col_offset
        return node

    # ---- the graph ----

    def _check_supported(self):
        """Refuses what the kernel language lacks, at the first line that uses it."""
        found = []  # (line, what)
        for k, ins in enumerate(self.ins):
            what = _UNSUPPORTED.get(ins.opname)
            if ins.opname == "CALL_INTRINSIC_1" and ins.argrepr not in ("INTRINSIC_UNARY_POSITIVE",
                                                                        "INTRINSIC_LIST_TO_TUPLE"):
                what = f"the construct compiled to {ins.argrepr}"
            if ins.opname == "LOAD_CONST" and hasattr(ins.argval, "co_name"):
                what = _NESTED_CODE.get(ins.argval.co_name, "a nested function definition")
            if what is not None:
                found.append((self.lines[k], what))
        if self.code.co_flags & 0x20:  # a generator: its first yield
            found += [(self.lines[k], "yield") for k, ins in enumerate(self.ins) if ins.opname == "YIELD_VALUE"][:1]
        table = getattr(self.code, "co_exceptiontable", b"")
        if table and not any(w in ("a with statement", "a comprehension", "yield") for _, w in found):
            found.append(self._try_statement())
        if found:
            line, what = min(found, key=lambda f: f[0])
            raise Unsupported(what, line)

    def _try_statement(self):
        """Where the first ``try`` is: the NOP its line leaves before the first guarded instruction."""
        parse = getattr(dis, "_parse_exception_table", None)
        entries = parse(self.code) if parse is not None else []
        if not entries:
            return self.lines[0], "a try statement"
        k = self.at_offset.get(min(e.start for e in entries), 0)
        if k > 0 and self.ins[k - 1].opname == "NOP":
            k -= 1
        return self.lines[k], "a try statement"

    def jump_target(self, k: int) -> int:
        """The instruction index a jump at ``k`` goes to (FOR_ITER: where an exhausted loop goes on)."""
        ins = self.ins[k]
        target = self.at_offset[ins.argval]
        if ins.opname == "FOR_ITER":
            # 3.12 and 3.13 jump past END_FOR (3.13: and the POP_TOP of the iterator after it).
            if self.ins[target].opname == "END_FOR":
                target += 1
                if _PY >= (3, 13) and target < len(self.ins) and self.ins[target].opname == "POP_TOP":
                    target += 1
        return target

    def _cut_blocks(self):
        n = len(self.ins)
        leaders = {0}
        for k, ins in enumerate(self.ins):
            if _ends_block(ins):
                if k + 1 < n:
                    leaders.add(k + 1)
                if ins.opname not in _RETURNS and ins.opname not in ("RAISE_VARARGS", "RERAISE"):
                    leaders.add(self.jump_target(k))
        starts = sorted(s for s in leaders if s < n)
        self.blocks: list[_Block] = []
        self.block_at: dict[int, int] = {}
        for b, start in enumerate(starts):
            end = starts[b + 1] if b + 1 < len(starts) else n
            self.blocks.append(_Block(b, start, end, self.ins[start].offset))
            self.block_at[start] = b
        for block in self.blocks:
            last = block.end - 1
            ins = self.ins[last]
            succs = []
            if ins.opname in _RETURNS or ins.opname in ("RAISE_VARARGS", "RERAISE"):
                pass
            elif ins.opname in _UNCONDITIONAL:
                succs = [self.block_at[self.jump_target(last)]]
            elif _ends_block(ins):  # conditional: fall through, then the jump
                succs = [self.block_at[block.end], self.block_at[self.jump_target(last)]]
            elif block.end < n:
                succs = [self.block_at[block.end]]
            block.succs = succs
        self._link()

    def _link(self):
        self.reachable = self._reach()
        for block in self.blocks:
            block.preds = []
        for b in sorted(self.reachable):
            for s in self.blocks[b].succs:
                self.blocks[s].preds.append(b)

    # Instructions a copied loop test may hold: loads and operators, no call, no store.
    _TEST_OPS = frozenset({
        "LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_LOAD_FAST", "LOAD_FAST_BORROW", "LOAD_FAST_BORROW_LOAD_FAST_BORROW",
        "LOAD_CONST", "LOAD_SMALL_INT", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_ATTR", "BINARY_OP", "BINARY_SUBSCR",
        "BINARY_SLICE", "BUILD_SLICE", "BUILD_TUPLE", "COMPARE_OP", "IS_OP", "CONTAINS_OP", "UNARY_NEGATIVE",
        "UNARY_NOT", "UNARY_INVERT", "UNARY_POSITIVE", "COPY", "SWAP",
    })

    def _key(self, k: int):
        """What makes instruction ``k`` the same as another: operation, operand, source position."""
        ins = self.ins[k]
        if ins.opname in _POP_JUMPS:
            return ("jump", _POP_JUMPS[ins.opname][0])
        return (ins.opname, ins.argrepr, getattr(ins, "positions", None), self.lines[k])

    def _test_keys(self, b: int):
        """The instruction keys of block ``b`` if it is nothing but a test and a conditional jump."""
        block = self.blocks[b]
        ks = [k for k in range(block.start, block.end) if self.ins[k].opname not in _IGNORED]
        if block.goto is not None or not ks or self.ins[ks[-1]].opname not in _POP_JUMPS:
            return None
        if any(self.ins[k].opname not in self._TEST_OPS or "=" in self.ins[k].argrepr for k in ks[:-1]):
            return None
        return ks

    def _branches(self, b: int):
        """(where the test holding goes, where it failing goes) for block ``b``, followed through
        blocks that only jump."""
        last = self.blocks[b].end - 1
        _, jump_if = _POP_JUMPS[self.ins[last].opname]
        taken, fall = self.block_at[self.jump_target(last)], self.block_at[last + 1]
        t, f = (taken, fall) if jump_if else (fall, taken)
        return self._plain_forward(t), self._plain_forward(f)

    def _plain_forward(self, b: int) -> int:
        for _ in range(len(self.blocks)):
            nxt = self.pure_jump(b)
            if nxt is None or nxt == b:
                return b
            b = nxt
        return b

    def _reroute_repeated_tests(self):
        """Python 3.11+ compiles ``while test: body`` as ``if test: do body while test``: the test
        is copied to the end of the body. Where a block ends with an exact copy (same instructions
        and source positions, same destinations) of a block that is nothing but that test, the copy
        is replaced by a jump to the original: the loop then has one header, where ``continue``
        and the end of the body meet, as in the source."""
        changed = True
        while changed:
            changed = False
            for g in sorted(self.reachable):
                keys = self._test_keys(g)
                if keys is None:
                    continue
                sig = [self._key(k) for k in keys]
                for b in sorted(self.reachable):
                    block = self.blocks[b]
                    if b == g or block.goto is not None:
                        continue
                    ks = [k for k in range(block.start, block.end) if self.ins[k].opname not in _IGNORED]
                    if len(ks) < len(sig) or [self._key(k) for k in ks[-len(sig):]] != sig:
                        continue
                    if self._branches(b) != self._branches(g):
                        continue
                    block.end, block.goto, block.succs = ks[-len(sig)], g, [g]
                    changed = True
            if changed:
                self._link()

    def _reach(self) -> set[int]:
        seen, todo = set(), [0]
        while todo:
            b = todo.pop()
            if b not in seen:
                seen.add(b)
                todo.extend(self.blocks[b].succs)
        return seen

    def _find_loops(self):
        order = sorted(self.reachable)
        dom = {b: set(self.reachable) for b in order}
        dom[0] = {0}
        changed = True
        while changed:
            changed = False
            for b in order:
                if b == 0:
                    continue
                preds = [p for p in self.blocks[b].preds]
                new = set.intersection(*(dom[p] for p in preds)) | {b} if preds else {b}
                if new != dom[b]:
                    dom[b], changed = new, True
        self.back_edges = {(u, h) for u in order for h in self.blocks[u].succs if h in dom[u]}
        self.loops: dict[int, set[int]] = {}  # header -> the blocks of its natural loop
        for u, h in self.back_edges:
            body = self.loops.setdefault(h, {h})
            todo = [u]
            while todo:
                b = todo.pop()
                if b not in body:
                    body.add(b)
                    todo.extend(self.blocks[b].preds)

    def _post_dominators(self):
        """Post-dominator sets on the graph where a back edge goes where its loop goes on after
        it ends (so code after a loop post-dominates it), and returns go to _EXIT."""
        self.follows: dict[int, int | None] = {}
        succs = {b: [s for s in self.blocks[b].succs if (b, s) not in self.back_edges] for b in self.reachable}
        for u, h in self.back_edges:
            after = self.loop_follow(h)
            while after is not None and after in self.loops and h in self.loops[after]:
                after = self.loop_follow(after)  # a jump back to an enclosing loop's start
            if after is not None and after not in succs[u]:
                succs[u].append(after)
        order, seen = [], set()

        def visit(b):  # iterative post-order
            stack = [(b, iter(succs[b]))]
            seen.add(b)
            while stack:
                node, it = stack[-1]
                nxt = next((s for s in it if s not in seen), None)
                if nxt is None:
                    order.append(node)
                    stack.pop()
                else:
                    seen.add(nxt)
                    stack.append((nxt, iter(succs[nxt])))

        visit(0)
        self.pdom: dict[int, frozenset] = {_EXIT: frozenset([_EXIT])}
        for b in order:  # successors first
            after = [self.pdom[s] for s in succs[b]] or [self.pdom[_EXIT]]
            self.pdom[b] = frozenset.intersection(*after) | {b}

    def loop_follow(self, h: int):
        """Where the loop headed by ``h`` goes on after it ends (``None``: it never ends)."""
        if h not in self.follows:
            last = self.blocks[h].end - 1
            exhausted = None
            if self.blocks[h].goto is None and self.ins[last].opname == "FOR_ITER":
                exhausted = self.block_at[self.jump_target(last)]
            self.follows[h] = self.follow_of(h, exhausted)
        return self.follows[h]

    def merge_point(self, a: int, b: int) -> int:
        """The nearest block every path from ``a`` and from ``b`` reaches (``_EXIT`` if none)."""
        common = self.pdom[a] & self.pdom[b]
        return max(common, key=lambda c: len(self.pdom[c]))

    # ---- running a block on a stack of expressions ----

    def evaluate(self, b: int, stack: list):
        """Runs block ``b``: its statements, the stack after it, and how it ends:
        ``("jump", block, stack)``, ``("cond", test, true block, stack, false block, stack)``,
        ``("for", iterator, body block, exhausted block, stack)`` or ``("return", value)``."""
        block = self.blocks[b]
        stack = list(stack)
        stmts: list = []
        kw_names: tuple = ()
        for k in range(block.start, block.end):
            ins = self.ins[k]
            name = ins.opname
            if name in _IGNORED:
                continue
            if name in ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_BORROW", "LOAD_DEREF", "LOAD_NAME",
                        "LOAD_CLASSDEREF"):
                stack.append(self.place(ast.Name(id=ins.argval, ctx=ast.Load()), k))
            elif name in ("LOAD_FAST_LOAD_FAST", "LOAD_FAST_BORROW_LOAD_FAST_BORROW"):
                for n in ins.argval:
                    stack.append(self.place(ast.Name(id=n, ctx=ast.Load()), k))
            elif name == "LOAD_GLOBAL":
                with_null = _PY >= (3, 11) and ins.arg & 1
                if with_null and _PY < (3, 13):
                    stack.append(_NULL)
                stack.append(self.place(ast.Name(id=ins.argval, ctx=ast.Load()), k))
                if with_null and _PY >= (3, 13):
                    stack.append(_NULL)
            elif name == "LOAD_CONST" or name == "LOAD_SMALL_INT":
                stack.append(self.constant(ins.argval, k))
            elif name in ("LOAD_ATTR", "LOAD_METHOD"):
                base = self.value(stack.pop(), k)
                node = self.place(ast.Attribute(value=base, attr=ins.argval, ctx=ast.Load()), k)
                stack.append(node)
                if name == "LOAD_METHOD" or (_PY >= (3, 12) and ins.arg & 1):
                    stack.append(_NULL)
            elif name == "PUSH_NULL":
                stack.append(_NULL)
            elif name in ("STORE_FAST", "STORE_DEREF", "STORE_NAME"):
                self.store(stmts, self.place(ast.Name(id=ins.argval, ctx=ast.Store()), k), stack.pop(), k, stack)
            elif name == "STORE_FAST_STORE_FAST":
                for n in ins.argval:
                    self.store(stmts, self.place(ast.Name(id=n, ctx=ast.Store()), k), stack.pop(), k, stack)
            elif name == "STORE_FAST_LOAD_FAST":
                first, second = ins.argval
                self.store(stmts, self.place(ast.Name(id=first, ctx=ast.Store()), k), stack.pop(), k, stack)
                stack.append(self.place(ast.Name(id=second, ctx=ast.Load()), k))
            elif name == "STORE_SUBSCR":
                index, container, value = stack.pop(), stack.pop(), stack.pop()
                target = ast.Subscript(value=self.value(container, k), slice=self.value(index, k), ctx=ast.Store())
                self.store(stmts, self.spanning(target, container, index), value, k, stack)
            elif name == "STORE_SLICE":
                end, start, container, value = stack.pop(), stack.pop(), stack.pop(), stack.pop()
                target = ast.Subscript(value=self.value(container, k), slice=self.slice_of(k, start, end),
                                       ctx=ast.Store())
                self.store(stmts, self.spanning(target, container, end), value, k, stack)
            elif name == "BINARY_SUBSCR" or (name == "BINARY_OP" and ins.argrepr == "[]"):
                index, container = stack.pop(), stack.pop()
                stack.append(self.place(ast.Subscript(value=self.value(container, k), slice=self.value(index, k),
                                                      ctx=ast.Load()), k))
            elif name == "BINARY_SLICE":
                end, start, container = stack.pop(), stack.pop(), stack.pop()
                stack.append(self.place(ast.Subscript(value=self.value(container, k),
                                                      slice=self.slice_of(k, start, end), ctx=ast.Load()), k))
            elif name == "BUILD_SLICE":
                parts = [stack.pop() for _ in range(ins.arg)][::-1]
                stack.append(self.slice_of(k, *parts))
            elif name == "BUILD_TUPLE":
                elts = [self.value(stack.pop(), k) for _ in range(ins.arg)][::-1]
                stack.append(self.spanning(self.place(ast.Tuple(elts=elts, ctx=ast.Load()), k), *elts))
            elif name == "BUILD_LIST":  # also how a long tuple display starts
                elts = [self.value(stack.pop(), k) for _ in range(ins.arg)][::-1]
                stack.append(self.place(ast.List(elts=elts, ctx=ast.Load()), k))
            elif name in ("LIST_APPEND", "LIST_EXTEND"):
                item = stack.pop()
                target = stack[-ins.arg]
                if not isinstance(target, ast.List):
                    raise self.unsupported("a list comprehension", k)
                if name == "LIST_APPEND":
                    target.elts.append(self.value(item, k))
                elif isinstance(item, ast.Tuple):
                    target.elts.extend(item.elts)
                else:
                    raise self.unsupported("a starred expression", k)
            elif name == "LIST_TO_TUPLE" or (name == "CALL_INTRINSIC_1" and ins.argrepr == "INTRINSIC_LIST_TO_TUPLE"):
                items = stack.pop()
                stack.append(self.spanning(self.place(ast.Tuple(elts=items.elts, ctx=ast.Load()), k), items))
            elif name == "UNPACK_SEQUENCE":
                group = _Unpacked(stack.pop(), ins.arg)
                stack.extend(_Slot(group, i) for i in reversed(range(ins.arg)))
            elif name == "BINARY_OP" or name.startswith(("BINARY_", "INPLACE_")):
                self.binary(stack, k)
            elif name in _UNARY:
                operand = self.value(stack.pop(), k)
                stack.append(self.place(ast.UnaryOp(op=_UNARY[name](), operand=operand), k))
            elif name == "CALL_INTRINSIC_1":  # INTRINSIC_UNARY_POSITIVE (3.12+)
                stack.append(self.place(ast.UnaryOp(op=ast.UAdd(), operand=self.value(stack.pop(), k)), k))
            elif name == "COMPARE_OP":
                right, left = self.value(stack.pop(), k), self.value(stack.pop(), k)
                op = ins.argrepr.removeprefix("bool(").removesuffix(")")
                stack.append(self.place(ast.Compare(left=left, ops=[_COMPARE[op]()], comparators=[right]), k))
            elif name in ("IS_OP", "CONTAINS_OP"):
                right, left = self.value(stack.pop(), k), self.value(stack.pop(), k)
                ops = (ast.Is, ast.IsNot) if name == "IS_OP" else (ast.In, ast.NotIn)
                stack.append(self.place(ast.Compare(left=left, ops=[ops[ins.arg]()], comparators=[right]), k))
            elif name == "COPY":
                stack.append(stack[-ins.arg])
            elif name == "SWAP":
                stack[-1], stack[-ins.arg] = stack[-ins.arg], stack[-1]
            elif name in ("DUP_TOP", "DUP_TOP_TWO", "ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N"):
                self.stack_op_310(stack, name, ins.arg)
            elif name == "POP_TOP":
                v = stack.pop()
                # A call whose value is dropped is a statement; a dropped copy of a value
                # used elsewhere (a < b < c), or a value without effects, is nothing.
                if isinstance(v, ast.AST) and id(v) not in self.used and _has_call(v):
                    stmts.append(self.spanning(ast.Expr(value=v), v))
            elif name == "KW_NAMES":
                kw_names = self.code.co_consts[ins.arg]  # 3.11's dis leaves argval unresolved
            elif name in ("CALL", "CALL_KW", "CALL_FUNCTION", "CALL_FUNCTION_KW", "CALL_METHOD"):
                if name in ("CALL_KW", "CALL_FUNCTION_KW"):
                    names = stack.pop()
                    kw_names = tuple(e.value for e in names.elts)
                self.call(stack, k, kw_names)
                kw_names = ()
            elif name == "GET_ITER":
                stack.append(_Iter(self.value(stack.pop(), k)))
            elif name == "FOR_ITER":
                return stmts, stack, ("for", stack[-1], self.block_at[k + 1], self.block_at[self.jump_target(k)],
                                      stack)
            elif name in _RETURNS:
                value = self.constant(ins.argval, k) if name == "RETURN_CONST" else self.value(stack.pop(), k)
                if isinstance(value, ast.Constant) and value.value is None:
                    value = None
                stmts.append(self.place(ast.Return(value=value), k))
                return stmts, stack, ("return",)
            elif name in _UNCONDITIONAL:
                return stmts, stack, ("jump", self.block_at[self.jump_target(k)], stack)
            elif name in _POP_JUMPS:
                kind, jump_if = _POP_JUMPS[name]
                test = self.value(stack.pop(), k)
                if kind == "none":
                    test = self.spanning(ast.Compare(left=test, ops=[ast.Is()], comparators=[
                        self.place(ast.Constant(value=None), k)]), test)
                taken, fall = self.block_at[self.jump_target(k)], self.block_at[k + 1]
                t, f = (taken, fall) if jump_if else (fall, taken)
                return stmts, stack, ("cond", test, t, stack, f, stack)
            elif name in _KEEP_JUMPS:
                jump_if = _KEEP_JUMPS[name]
                test = self.value(stack[-1], k)
                taken, fall = self.block_at[self.jump_target(k)], self.block_at[k + 1]
                if jump_if:
                    return stmts, stack, ("cond", test, taken, stack, fall, stack[:-1])
                return stmts, stack, ("cond", test, fall, stack[:-1], taken, stack)
            else:
                raise self.unsupported(f"the bytecode {name}", k)
        if block.goto is not None:
            return stmts, stack, ("jump", block.goto, stack)
        return stmts, stack, ("jump", self.block_at[block.end], stack)

    def constant(self, v, k: int):
        if isinstance(v, tuple):
            elts = [self.constant(x, k) for x in v]
            return self.place(ast.Tuple(elts=elts, ctx=ast.Load()), k)
        if isinstance(v, slice):
            return self.slice_of(k, *(self.constant(x, k) for x in (v.start, v.stop, v.step)))
        if isinstance(v, (type(None), bool, int, float, complex, str, bytes, type(Ellipsis))):
            return self.place(ast.Constant(value=v), k)
        raise self.unsupported(f"the constant {v!r}", k)

    def slice_of(self, k: int, lower, upper, step=None):
        def part(x):
            if x is None or (isinstance(x, ast.Constant) and x.value is None):
                return None
            return self.value(x, k)
        return self.place(ast.Slice(lower=part(lower), upper=part(upper), step=part(step)), k)

    def value(self, v, k: int):
        """``v`` where an expression is needed."""
        if isinstance(v, _Inplace):
            return self.spanning(ast.BinOp(left=v.left, op=v.op, right=v.right), v.left, v.right)
        if isinstance(v, ast.AST):
            self.used[id(v)] = v  # kept alive, so the id is not reused
            return v
        raise self.unsupported("a construct this kernel compiler cannot rebuild from bytecode", k)

    def binary(self, stack, k: int):
        ins = self.ins[k]
        right, left = self.value(stack.pop(), k), self.value(stack.pop(), k)
        if ins.opname == "BINARY_OP":
            text = ins.argrepr
        else:  # Python 3.10: BINARY_ADD, INPLACE_ADD, ...
            kind, _, base = ins.opname.partition("_")
            if base not in _BINARY_310:
                raise self.unsupported(f"the bytecode {ins.opname}", k)
            text = _BINARY_310[base] + ("=" if kind == "INPLACE" else "")
        inplace = text.endswith("=")
        op = _BINARY.get(text.rstrip("=") if inplace else text)
        if op is None:
            raise self.unsupported(f"the operator {text}", k)
        if inplace:
            stack.append(_Inplace(op(), left, right, k))
        else:
            stack.append(self.spanning(self.place(ast.BinOp(left=left, op=op(), right=right), k), left, right))

    def call(self, stack, k: int, kw_names: tuple):
        argc = self.ins[k].arg
        args = [stack.pop() for _ in range(argc)][::-1]
        if self.ins[k].opname == "CALL_FUNCTION" or self.ins[k].opname == "CALL_FUNCTION_KW":
            func = stack.pop()
        else:
            pair = [stack.pop(), stack.pop()]
            callables = [p for p in pair if p is not _NULL]
            if len(callables) != 1:
                raise self.unsupported("a call this kernel compiler cannot rebuild from bytecode", k)
            func = callables[0]
        func = self.value(func, k)
        args = [self.value(a, k) for a in args]
        positional = args[:len(args) - len(kw_names)]
        keywords = [ast.keyword(arg=n, value=v) for n, v in zip(kw_names, args[len(positional):], strict=True)]
        node = ast.Call(func=func, args=positional, keywords=keywords)
        stack.append(self.spanning(self.place(node, k), func, *args))

    @staticmethod
    def stack_op_310(stack, name: str, arg):
        if name == "DUP_TOP":
            stack.append(stack[-1])
        elif name == "DUP_TOP_TWO":
            stack.extend(stack[-2:])
        else:
            depth = {"ROT_TWO": 2, "ROT_THREE": 3, "ROT_FOUR": 4}.get(name, arg)
            stack.insert(len(stack) - depth, stack.pop())

    def keep_pending(self, stmts: list, stack: list, target, k: int):
        """Values still on the stack were computed before this store: those the store would
        change (a read of the stored name; any memory read, for an element store) are kept in
        temporaries first (``p, q = q, p``; ``a[0], a[1] = a[1], a[0]``)."""
        def changed_by_store(e) -> bool:
            for n in ast.walk(e):
                if isinstance(target, ast.Name) and isinstance(n, ast.Name) and n.id == target.id:
                    return True
                if not isinstance(target, ast.Name) and isinstance(n, (ast.Subscript, ast.Call)):
                    return True
            return False

        kept: dict[int, ast.Name] = {}
        for i, entry in enumerate(stack):
            if isinstance(entry, ast.AST) and not isinstance(entry, ast.Constant) and changed_by_store(entry):
                if id(entry) not in kept:
                    name = f"_ember_tmp{len(self.temporaries)}"
                    self.temporaries.append(name)
                    stmts.append(self.spanning(ast.Assign(
                        targets=[self.spanning(ast.Name(id=name, ctx=ast.Store()), entry)], value=entry), entry))
                    kept[id(entry)] = self.spanning(ast.Name(id=name, ctx=ast.Load()), entry)
                stack[i] = kept[id(entry)]

    def store(self, stmts: list, target, value, k: int, stack: list | None = None):
        if stack:
            self.keep_pending(stmts, stack, target, k)
        if isinstance(value, _Slot):
            group = value.group
            group.targets[value.index] = target
            group.stored += 1
            if group.stored < len(group.targets):
                return
            target = self.spanning(ast.Tuple(elts=group.targets, ctx=ast.Store()), *group.targets)
            value = group.value
        if isinstance(value, _ForValue):
            value.target = target
            return
        if isinstance(value, _Inplace) and self.same_place(target, value.left):
            stmts.append(self.spanning(ast.AugAssign(target=target, op=value.op, value=value.right), target,
                                       value.right))
            return
        value = self.value(value, k)
        stmts.append(self.spanning(ast.Assign(targets=[target], value=value), target, value))

    @staticmethod
    def same_place(target, left) -> bool:
        if isinstance(target, ast.Name) and isinstance(left, ast.Name):
            return target.id == left.id
        if isinstance(target, ast.Subscript) and isinstance(left, ast.Subscript):
            return target.value is left.value and target.slice is left.slice
        return False

    # ---- structure ----

    def is_header(self, b: int) -> bool:
        return b in self.loops

    def pure_jump(self, b: int, pops: bool = False):
        """Where block ``b`` goes, if it only jumps (no statement, no stack effect; with ``pops``,
        also if it drops values, as a ``break`` drops the loop's iterator)."""
        block = self.blocks[b]
        for k in range(block.start, block.end):
            name = self.ins[k].opname
            if name in _UNCONDITIONAL:
                return self.block_at[self.jump_target(k)]
            if name not in _IGNORED and not (pops and name == "POP_TOP"):
                return None
        return block.goto if block.goto is not None else self.block_at.get(block.end)

    def forwarded(self, b: int, stack: list):
        """Block ``b`` reached with ``stack``, followed through blocks that only jump or pop."""
        for _ in range(len(self.blocks)):
            if b == _EXIT or self.is_header(b):
                break
            try:
                stmts, after, end = self.evaluate(b, stack)
            except _NOT_PURE:
                break
            if stmts or end[0] != "jump" or len(after) > len(stack) or any(
                    x is not y for x, y in zip(after, stack, strict=False)):
                break
            b, stack = end[1], end[2]
        return b, stack

    def same_destination(self, a, sa, b, sb) -> bool:
        a, sa = self.forwarded(a, sa)
        b, sb = self.forwarded(b, sb)
        return a == b and len(sa) == len(sb) and all(x is y for x, y in zip(sa, sb, strict=False))

    def pure_condition(self, b: int, stack: list):
        """The (merged) test of block ``b`` if it computes nothing else and only ``a`` reaches it."""
        if b == _EXIT or self.is_header(b) or len(self.blocks[b].preds) != 1:
            return None
        try:
            stmts, _, end = self.evaluate(b, stack)
        except _NOT_PURE:
            return None
        if stmts or end[0] != "cond":
            return None
        return self.merged(*end[1:])

    def merged(self, test, t, st, f, sf):
        """Chains of conditional blocks as one test (``a and b``, ``a or not b``, ...)."""
        while True:
            inner = self.pure_condition(t, st)
            if inner is not None:
                c2, t2, st2, f2, sf2 = inner
                if self.same_destination(f, sf, f2, sf2):
                    test, t, st = _bool_op(ast.And, test, c2), t2, st2
                    continue
                if self.same_destination(f, sf, t2, st2):
                    test, t, st = _bool_op(ast.And, test, _not(c2)), f2, sf2
                    continue
            inner = self.pure_condition(f, sf)
            if inner is not None:
                c2, t2, st2, f2, sf2 = inner
                if self.same_destination(t, st, t2, st2):
                    test, f, sf = _bool_op(ast.Or, test, c2), f2, sf2
                    continue
                if self.same_destination(t, st, f2, sf2):
                    test, f, sf = _bool_op(ast.Or, test, _not(c2)), t2, st2
                    continue
            return test, t, st, f, sf

    def walk(self, b: int, stack: list, stop, loop: _Loop | None, first: bool = False):
        """The statements from block ``b`` until block ``stop``: ``(statements, stack at stop)``,
        or ``(statements, None)`` where every path returns, breaks or continues first."""
        out: list = []
        for _ in range(4 * len(self.blocks) + 8):
            if not first:
                if b == stop:
                    return out, stack
                if loop is not None and b in loop.continues:
                    out.append(ast.Continue())
                    return out, None
                if loop is not None and b == loop.follow:
                    out.append(ast.Break())
                    return out, None
                if loop is not None:
                    self.check_not_outer(b, loop)
                if self.is_header(b):
                    stmts, stack, b = self.loop_at(b, stack, loop)
                    out += stmts
                    if b is None:
                        return out, None
                    continue
            first = False
            stmts, stack, end = self.evaluate(b, stack)
            out += stmts
            if end[0] == "return":
                return out, None
            if end[0] == "jump":
                b, stack = end[1], end[2]
                continue
            if end[0] == "for":  # a loop that never goes round (its body always returns)
                stmts, stack, b = self.loop_at(b, stack, loop)
                out += stmts
                if b is None:
                    return out, None
                continue
            test, t, st, f, sf = self.merged(*end[1:])
            m = self.merge_point(t, f)
            body, ts = self.walk(t, st, m, loop)
            orelse, fs = self.walk(f, sf, m, loop)
            stack = self.joined(test, body, ts, orelse, fs, self.blocks[b].end - 1)
            if body or orelse:
                out.append(self.spanning(ast.If(test=test, body=body, orelse=orelse), test))
            if stack is None or m == _EXIT:
                return out, None
            b = m
        raise self.unsupported("control flow this kernel compiler cannot rebuild", self.blocks[b].start)

    def check_not_outer(self, b: int, loop: _Loop):
        """Refuses a jump from an inner loop straight to where an outer one goes on or starts
        again (a break or continue of two loops, which Python cannot write)."""
        outer = loop.outer
        while outer is not None:
            if b in outer.continues or (b == outer.follow and not self.returns_straight(b)):
                raise self.unsupported(
                    "a loop this kernel compiler cannot rebuild from bytecode (a jump out of two loops)",
                    self.blocks[b].start)
            outer = outer.outer
    def joined(self, test, body, ts, orelse, fs, k: int):
        """The stack after an ``if``: values that differ between the branches become ``x if c else y``."""
        if ts is None or fs is None:
            return fs if ts is None else ts
        if len(ts) != len(fs) or ((body or orelse) and any(x is not y for x, y in zip(ts, fs, strict=True))):
            raise self.unsupported("a conditional expression this kernel compiler cannot rebuild", k)
        return [x if x is y else _choice(test, self.value(x, k), self.value(y, k))
                for x, y in zip(ts, fs, strict=True)]

    def follow_of(self, header: int, exhausted=None):
        """Where a loop goes on after it ends: the last of its exits that is not a return."""
        body = self.loops.get(header, {header})
        exits = {s for b in body for s in self.blocks[b].succs if s not in body}
        if exhausted is not None:
            exits.add(exhausted)
        exits = {self.static_forward(x) for x in exits}
        going_on = {x for x in exits if not self.returns_straight(x)}
        if not going_on:
            going_on = {self.static_forward(exhausted)} if exhausted is not None else exits
        # The exit every other exit runs on to (a for or while loop's else clause runs on to
        # where its break goes); else the last one.
        meeting = [x for x in going_on if all(self.reaches(y, x, header) for y in going_on)]
        choices = meeting or going_on
        return max(choices, key=lambda x: self.blocks[x].offset) if choices else None

    def reaches(self, a: int, b: int, avoiding: int) -> bool:
        """Whether block ``a`` leads to block ``b`` without passing through block ``avoiding``."""
        seen, todo = set(), [a]
        while todo:
            x = todo.pop()
            if x == b:
                return True
            if x in seen or x == avoiding:
                continue
            seen.add(x)
            todo.extend(self.blocks[x].succs)
        return False

    def static_forward(self, b: int) -> int:
        for _ in range(len(self.blocks)):
            if self.is_header(b):
                return b
            nxt = self.pure_jump(b, pops=True)
            if nxt is None:
                return b
            b = nxt
        return b

    def returns_straight(self, b: int) -> bool:
        """Whether block ``b`` runs straight to a return (no branch, no loop)."""
        for _ in range(len(self.blocks)):
            if self.is_header(b):
                return False
            last = self.ins[self.blocks[b].end - 1]
            if self.blocks[b].goto is None and last.opname in _RETURNS:
                return True
            succs = self.blocks[b].succs
            if len(succs) != 1:
                return False
            b = succs[0]
        return False

    def loop_at(self, h: int, stack: list, outer: _Loop | None):
        """The loop headed by block ``h``: its statements, the stack after it and the block after it."""
        last = self.blocks[h].end - 1
        if self.blocks[h].goto is None and self.ins[last].opname == "FOR_ITER":
            iterator = stack[-1]
            if not isinstance(iterator, _Iter):
                raise self.unsupported("a for loop this kernel compiler cannot rebuild", last)
            exhausted = self.block_at[self.jump_target(last)]
            follow = self.loop_follow(h)
            loop = _Loop(h, {h}, follow, outer)
            value = _ForValue()
            body, _ = self.walk(self.block_at[last + 1], stack + [value], None, loop)
            after = stack[:-1]
            if value.target is None:
                raise self.unsupported("a for loop whose target this kernel compiler cannot rebuild", last)
            orelse: list = []
            if self.static_forward(exhausted) != follow:
                orelse, _ = self.walk(exhausted, after, follow, outer)
            node = ast.For(target=value.target, iter=iterator.expr, body=_tidy_body(body), orelse=orelse,
                           type_comment=None)
            return [self.spanning(node, value.target, iterator.expr)], after, follow
        follow = self.loop_follow(h)
        loop = _Loop(h, {h}, follow, outer)
        body, _ = self.walk(h, stack, None, loop, first=True)
        line = self.place(ast.Constant(value=True), self.blocks[h].start)
        body = _tidy_body(body)
        first = body[0]
        if (isinstance(first, ast.If) and _ends_with(first.body, ast.Break) and not first.orelse
                and not _breaks_or_continues(first.body[:-1])):
            # while True: if t: E; break ...  is  while not t: ... else: E
            node = ast.While(test=_not(first.test), body=body[1:] or [ast.Pass()], orelse=first.body[:-1])
            return [self.spanning(node, first.test)], stack, follow
        if (len(body) == 2 and isinstance(body[0], ast.If) and isinstance(body[1], ast.Break)
                and _ends_with(body[0].body, ast.Continue) and not _breaks_or_continues(body[0].orelse)):
            # while True: if t: A; continue (else: E); break  is  while t: A (else: E)
            first = body[0]
            node = ast.While(test=first.test, body=_tidy_body(first.body), orelse=first.orelse)
            return [self.spanning(node, first.test)], stack, follow
        node = ast.While(test=line, body=body, orelse=[])
        return [self.spanning(node, line)], stack, follow

    def function(self, name: str) -> ast.FunctionDef:
        body, _ = self.walk(0, [], None, None)
        body = _strip_trailing_return(_tidy(body)) or [ast.Pass()]
        code = self.code
        names = code.co_varnames
        count = code.co_argcount + code.co_kwonlyargcount
        posonly = code.co_posonlyargcount
        args = ast.arguments(
            posonlyargs=[ast.arg(arg=n) for n in names[:posonly]],
            args=[ast.arg(arg=n) for n in names[posonly:code.co_argcount]],
            vararg=ast.arg(arg=names[count]) if code.co_flags & 0x04 else None,
            kwonlyargs=[ast.arg(arg=n) for n in names[code.co_argcount:count]], kw_defaults=[],
            kwarg=ast.arg(arg=names[count + bool(code.co_flags & 0x04)]) if code.co_flags & 0x08 else None,
            defaults=[])
        fn = ast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None, type_comment=None)
        if _PY >= (3, 12):
            fn.type_params = []
        fn.lineno = fn.end_lineno = code.co_firstlineno
        fn.col_offset = fn.end_col_offset = 0
        for a in ast.walk(args):
            if isinstance(a, ast.arg):
                a.lineno = a.end_lineno = code.co_firstlineno
                a.col_offset = a.end_col_offset = 0
        return ast.fix_missing_locations(fn)


class _Loop:
    """The loop being rebuilt: jumps to ``continues`` are ``continue``, to ``follow`` ``break``."""

    def __init__(self, header: int, continues: set, follow, outer: _Loop | None):
        self.header, self.continues, self.follow, self.outer = header, continues, follow, outer


# ---- expression and statement tidying ---------------------------------------------------------

def _not(e):
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        return e.operand  # only ever a test: the same truth
    return _Decompiler.spanning(ast.UnaryOp(op=ast.Not(), operand=e), e)


def _bool_op(kind, a, b):
    values = []
    for x in (a, b):
        values += x.values if isinstance(x, ast.BoolOp) and isinstance(x.op, kind) else [x]
    # a < b and b < c, with the same b, is the chain a < b < c (b evaluated once).
    if kind is ast.And and len(values) >= 2:
        x, y = values[-2], values[-1]
        if isinstance(x, ast.Compare) and isinstance(y, ast.Compare) and x.comparators[-1] is y.left:
            chain = ast.Compare(left=x.left, ops=x.ops + y.ops, comparators=x.comparators + y.comparators)
            values[-2:] = [_Decompiler.spanning(chain, x, y)]
    if len(values) == 1:
        return values[0]
    return _Decompiler.spanning(ast.BoolOp(op=kind(), values=values), *values)


def _choice(test, when_true, when_false):
    """``when_true if test else when_false``, as ``and``/``or`` where that is what it is."""
    if when_false is test:
        return _bool_op(ast.And, test, when_true)
    if when_true is test:
        return _bool_op(ast.Or, test, when_false)
    return _Decompiler.spanning(ast.IfExp(test=test, body=when_true, orelse=when_false), test, when_false)


def _ends_with(stmts, kind) -> bool:
    return bool(stmts) and isinstance(stmts[-1], kind)


def _breaks_or_continues(stmts) -> bool:
    return any(isinstance(n, (ast.Break, ast.Continue)) for s in stmts for n in ast.walk(s))


def _ends_flow(stmts) -> bool:
    return bool(stmts) and isinstance(stmts[-1], (ast.Break, ast.Continue, ast.Return))


def _tidy(stmts: list) -> list:
    """Flattens the ``if`` forms the rebuild makes into the ones people write."""
    out: list = []
    for s in stmts:
        if isinstance(s, ast.If):
            s.body, s.orelse = _tidy(s.body), _tidy(s.orelse)
            if not s.body and s.orelse:
                s.test, s.body, s.orelse = _not(s.test), s.orelse, []
            if _ends_flow(s.orelse) and s.body and not _ends_flow(s.body):
                # if t: A else: break  is  if not t: break; A
                s.test, s.body, s.orelse = _not(s.test), s.orelse, s.body
            if _ends_flow(s.body) and s.orelse and not (len(s.orelse) == 1 and isinstance(s.orelse[0], ast.If)):
                rest, s.orelse = s.orelse, []
                out.append(s)
                out += rest
                continue
        elif isinstance(s, (ast.For, ast.While)):
            s.orelse = _tidy(s.orelse)
        out.append(s)
    return out


def _strip_trailing_continue(stmts: list) -> list:
    if stmts and isinstance(stmts[-1], ast.Continue):
        return stmts[:-1]
    if stmts and isinstance(stmts[-1], ast.If):
        last = stmts[-1]
        last.body = _strip_trailing_continue(last.body)
        last.orelse = _strip_trailing_continue(last.orelse)
        if not last.body:
            last.body = [ast.Pass()] if last.orelse else []
            if not last.orelse:
                return stmts[:-1] + ([ast.Expr(value=last.test)] if _has_call(last.test) else [])
    return stmts


def _strip_trailing_return(stmts: list) -> list:
    """Drops the ``return`` (of None) that ends a function's bytecode, and its copies at the end of
    a last ``if``: the source had none."""
    if stmts and isinstance(stmts[-1], ast.Return) and stmts[-1].value is None:
        return _strip_trailing_return(stmts[:-1])
    if stmts and isinstance(stmts[-1], ast.If):
        last = stmts[-1]
        last.body = _strip_trailing_return(last.body) or [ast.Pass()]
        last.orelse = _strip_trailing_return(last.orelse)
    return stmts


def _has_call(e) -> bool:
    return any(isinstance(n, ast.Call) for n in ast.walk(e))


def _tidy_body(body: list) -> list:
    body = _tidy(_strip_trailing_continue(_tidy(body)))
    return body or [ast.Pass()]


def function_def(fn) -> ast.FunctionDef:
    """The ``ast.FunctionDef`` of ``fn`` rebuilt from its bytecode; raises :class:`Unsupported`."""
    code = fn.__code__
    return _Decompiler(code).function(fn.__name__)
