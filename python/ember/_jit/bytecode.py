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

from .bytecode_forms import (
    ORDER,
    bool_op,
    breaks_or_continues,
    choice,
    ends_with,
    has_call,
    negation,
    spanning,
    strip_trailing_return,
    tidy,
    tidy_body,
)
from .bytecode_ops import (
    BINARY,
    BINARY_310,
    COMPARE,
    EXIT,
    IGNORED,
    KEEP_JUMPS,
    NESTED_CODE,
    NOT_PURE,
    NULL,
    POP_JUMPS,
    PY,
    RETURNS,
    UNARY,
    UNCONDITIONAL,
    UNSUPPORTED,
    Block,
    ForValue,
    Inplace,
    Iterator,
    Slot,
    Unpacked,
    Unsupported,
    ends_block,
    line_table,
)


class _Decompiler:
    def __init__(self, code):
        self.code = code
        self.temporaries: list[str] = []
        self.used: dict[int, ast.AST] = {}  # expressions that are part of another
        self.ins = list(dis.get_instructions(code))
        self.lines = line_table(self.ins, code.co_firstlineno)
        self.at_offset = {ins.offset: k for k, ins in enumerate(self.ins)}
        self._check_supported()
        self._cut_blocks()
        before = [(b.end, b.goto, list(b.succs)) for b in self.blocks]
        self._reroute_repeated_tests()
        if not self._reducible():
            # A test rerouted in part (one disjunct of `while a or b`) can leave two entries
            # into one cycle: keep the compiler's own graph, which is always reducible.
            for block, (end, goto, succs) in zip(self.blocks, before, strict=True):
                block.end, block.goto, block.succs = end, goto, succs
            self._link()
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
        node._seq = next(ORDER)
        if pos is not None and pos.lineno is not None:
            node.lineno, node.end_lineno = pos.lineno, pos.end_lineno or pos.lineno
            node.col_offset, node.end_col_offset = pos.col_offset or 0, pos.end_col_offset or 0
        else:
            node.lineno = node.end_lineno = line
            node.col_offset = node.end_col_offset = 0
        return node

    spanning = staticmethod(spanning)

    # ---- the graph ----

    def _check_supported(self):
        """Refuses what the kernel language lacks, at the first line that uses it."""
        found = []  # (line, what)
        for k, ins in enumerate(self.ins):
            what = UNSUPPORTED.get(ins.opname)
            if ins.opname == "CALL_INTRINSIC_1" and ins.argrepr not in ("INTRINSIC_UNARY_POSITIVE",
                                                                        "INTRINSIC_LIST_TO_TUPLE"):
                what = f"the construct compiled to {ins.argrepr}"
            if ins.opname == "LOAD_CONST" and hasattr(ins.argval, "co_name"):
                what = NESTED_CODE.get(ins.argval.co_name, "a nested function definition")
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
                if PY >= (3, 13) and target < len(self.ins) and self.ins[target].opname == "POP_TOP":
                    target += 1
        return target

    def _cut_blocks(self):
        n = len(self.ins)
        leaders = {0}
        for k, ins in enumerate(self.ins):
            if ends_block(ins):
                if k + 1 < n:
                    leaders.add(k + 1)
                if ins.opname not in RETURNS and ins.opname not in ("RAISE_VARARGS", "RERAISE"):
                    leaders.add(self.jump_target(k))
        starts = sorted(s for s in leaders if s < n)
        self.blocks: list[Block] = []
        self.block_at: dict[int, int] = {}
        for b, start in enumerate(starts):
            end = starts[b + 1] if b + 1 < len(starts) else n
            self.blocks.append(Block(b, start, end, self.ins[start].offset))
            self.block_at[start] = b
        for block in self.blocks:
            last = block.end - 1
            ins = self.ins[last]
            succs = []
            if ins.opname in RETURNS or ins.opname in ("RAISE_VARARGS", "RERAISE"):
                pass
            elif ins.opname in UNCONDITIONAL:
                succs = [self.block_at[self.jump_target(last)]]
            elif ends_block(ins):  # conditional: fall through, then the jump
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

    # Instructions a copied loop test may hold: no store, no jump. Calls are fine: the loop runs
    # the original test where it ran the copy, so each call still runs once per test.
    _TEST_OPS = frozenset({
        "LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_LOAD_FAST", "LOAD_FAST_BORROW", "LOAD_FAST_BORROW_LOAD_FAST_BORROW",
        "LOAD_CONST", "LOAD_SMALL_INT", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_ATTR", "BINARY_OP", "BINARY_SUBSCR",
        "BINARY_SLICE", "BUILD_SLICE", "BUILD_TUPLE", "COMPARE_OP", "IS_OP", "CONTAINS_OP", "UNARY_NEGATIVE",
        "UNARY_NOT", "UNARY_INVERT", "UNARY_POSITIVE", "COPY", "SWAP", "PUSH_NULL", "LOAD_METHOD", "PRECALL",
        "KW_NAMES", "CALL", "CALL_KW", "CALL_FUNCTION", "CALL_FUNCTION_KW", "CALL_METHOD",
    })

    def _key(self, k: int):
        """What makes instruction ``k`` the same as another: operation, operand, source position."""
        ins = self.ins[k]
        if ins.opname in POP_JUMPS:
            return ("jump", POP_JUMPS[ins.opname][0])
        return (ins.opname, ins.argrepr, getattr(ins, "positions", None), self.lines[k])

    def _test_keys(self, b: int):
        """The instruction keys of block ``b`` if it is nothing but a test and a conditional jump."""
        block = self.blocks[b]
        ks = [k for k in range(block.start, block.end) if self.ins[k].opname not in IGNORED]
        if block.goto is not None or not ks or self.ins[ks[-1]].opname not in POP_JUMPS:
            return None
        if any(self.ins[k].opname not in self._TEST_OPS or "=" in self.ins[k].argrepr for k in ks[:-1]):
            return None
        return ks

    def _branches(self, b: int):
        """(where the test holding goes, where it failing goes) for block ``b``, followed through
        blocks that only jump."""
        last = self.blocks[b].end - 1
        _, jump_if = POP_JUMPS[self.ins[last].opname]
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
                    ks = [k for k in range(block.start, block.end) if self.ins[k].opname not in IGNORED]
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

    def _dominators(self) -> dict[int, set[int]]:
        order = sorted(self.reachable)
        dom = {b: set(self.reachable) for b in order}
        dom[0] = {0}
        changed = True
        while changed:
            changed = False
            for b in order:
                if b == 0:
                    continue
                preds = self.blocks[b].preds
                new = set.intersection(*(dom[p] for p in preds)) | {b} if preds else {b}
                if new != dom[b]:
                    dom[b], changed = new, True
        return dom

    def _reducible(self) -> bool:
        """Whether every edge back to a block still being visited (depth first) goes to a block
        that dominates its source: each cycle has one entry, so it is a loop."""
        dom = self._dominators()
        on_path, done = set(), set()
        stack = [(0, iter(self.blocks[0].succs))]
        on_path.add(0)
        while stack:
            b, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                on_path.discard(b)
                done.add(b)
            elif nxt in on_path:
                if nxt not in dom[b]:
                    return False
            elif nxt not in done:
                on_path.add(nxt)
                stack.append((nxt, iter(self.blocks[nxt].succs)))
        return True

    def _find_loops(self):
        order = sorted(self.reachable)
        dom = self._dominators()
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
        it ends (so code after a loop post-dominates it), and returns go to EXIT."""
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
        self.pdom: dict[int, frozenset] = {EXIT: frozenset([EXIT])}
        for b in order:  # successors first
            after = [self.pdom[s] for s in succs[b]] or [self.pdom[EXIT]]
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
        """The nearest block every path from ``a`` and from ``b`` reaches (``EXIT`` if none)."""
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
            if name in IGNORED:
                continue
            if name in ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_BORROW", "LOAD_DEREF", "LOAD_NAME",
                        "LOAD_CLASSDEREF"):
                stack.append(self.place(ast.Name(id=ins.argval, ctx=ast.Load()), k))
            elif name in ("LOAD_FAST_LOAD_FAST", "LOAD_FAST_BORROW_LOAD_FAST_BORROW"):
                for n in ins.argval:
                    stack.append(self.place(ast.Name(id=n, ctx=ast.Load()), k))
            elif name == "LOAD_GLOBAL":
                with_null = PY >= (3, 11) and ins.arg & 1
                if with_null and PY < (3, 13):
                    stack.append(NULL)
                stack.append(self.place(ast.Name(id=ins.argval, ctx=ast.Load()), k))
                if with_null and PY >= (3, 13):
                    stack.append(NULL)
            elif name == "LOAD_CONST" or name == "LOAD_SMALL_INT":
                stack.append(self.constant(ins.argval, k))
            elif name in ("LOAD_ATTR", "LOAD_METHOD"):
                base = self.value(stack.pop(), k)
                node = self.place(ast.Attribute(value=base, attr=ins.argval, ctx=ast.Load()), k)
                stack.append(node)
                if name == "LOAD_METHOD" or (PY >= (3, 12) and ins.arg & 1):
                    stack.append(NULL)
            elif name == "PUSH_NULL":
                stack.append(NULL)
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
            elif name == "STORE_ATTR":
                # owner.attr = value: a record's field (the compiler refuses other owners).
                owner, value = stack.pop(), stack.pop()
                target = ast.Attribute(value=self.value(owner, k), attr=ins.argval, ctx=ast.Store())
                self.store(stmts, self.spanning(target, owner), value, k, stack)
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
                    # f(a, *t): the tuple's items, unpacked by the compiler (calls only).
                    target.elts.append(self.place(ast.Starred(value=self.value(item, k), ctx=ast.Load()), k))
            elif name == "LIST_TO_TUPLE" or (name == "CALL_INTRINSIC_1" and ins.argrepr == "INTRINSIC_LIST_TO_TUPLE"):
                items = stack.pop()
                stack.append(self.spanning(self.place(ast.Tuple(elts=items.elts, ctx=ast.Load()), k), items))
            elif name == "UNPACK_SEQUENCE":
                group = Unpacked(stack.pop(), ins.arg)
                stack.extend(Slot(group, i) for i in reversed(range(ins.arg)))
            elif name == "BINARY_OP" or name.startswith(("BINARY_", "INPLACE_")):
                self.binary(stack, k)
            elif name in UNARY:
                operand = self.value(stack.pop(), k)
                stack.append(self.place(ast.UnaryOp(op=UNARY[name](), operand=operand), k))
            elif name == "CALL_INTRINSIC_1":  # INTRINSIC_UNARY_POSITIVE (3.12+)
                stack.append(self.place(ast.UnaryOp(op=ast.UAdd(), operand=self.value(stack.pop(), k)), k))
            elif name == "COMPARE_OP":
                right, left = self.value(stack.pop(), k), self.value(stack.pop(), k)
                op = ins.argrepr.removeprefix("bool(").removesuffix(")")
                stack.append(self.place(ast.Compare(left=left, ops=[COMPARE[op]()], comparators=[right]), k))
            elif name in ("IS_OP", "CONTAINS_OP"):
                right, left = self.value(stack.pop(), k), self.value(stack.pop(), k)
                ops = (ast.Is, ast.IsNot) if name == "IS_OP" else (ast.In, ast.NotIn)
                stack.append(self.place(ast.Compare(left=left, ops=[ops[ins.arg]()], comparators=[right]), k))
            elif name == "COPY":
                self.share(stmts, stack, stack[-ins.arg])
                stack.append(stack[-ins.arg])
            elif name == "SWAP":
                stack[-1], stack[-ins.arg] = stack[-ins.arg], stack[-1]
            elif name in ("DUP_TOP", "DUP_TOP_TWO", "ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N"):
                for v in stack[-2:] if name == "DUP_TOP_TWO" else stack[-1:] if name == "DUP_TOP" else []:
                    self.share(stmts, stack, v)
                self.stack_op_310(stack, name, ins.arg)
            elif name == "POP_TOP":
                v = stack.pop()
                # A call whose value is dropped is a statement; a dropped copy of a value
                # used elsewhere (a < b < c), or a value without effects, is nothing.
                if isinstance(v, ast.AST) and id(v) not in self.used and has_call(v):
                    stmts.append(self.spanning(ast.Expr(value=v), v))
            elif name == "KW_NAMES":
                kw_names = self.code.co_consts[ins.arg]  # 3.11's dis leaves argval unresolved
            elif name in ("CALL", "CALL_KW", "CALL_FUNCTION", "CALL_FUNCTION_KW", "CALL_METHOD"):
                if name in ("CALL_KW", "CALL_FUNCTION_KW"):
                    names = stack.pop()
                    kw_names = tuple(e.value for e in names.elts)
                self.call(stack, k, kw_names)
                kw_names = ()
            elif name == "CALL_FUNCTION_EX":
                self.call_ex(stack, k)
            elif name == "GET_ITER":
                stack.append(Iterator(self.value(stack.pop(), k)))
            elif name == "FOR_ITER":
                return stmts, stack, ("for", stack[-1], self.block_at[k + 1], self.block_at[self.jump_target(k)],
                                      stack)
            elif name == "RAISE_VARARGS" and ins.arg == 1:
                exc = self.value(stack.pop(), k)
                stmts.append(self.place(ast.Raise(exc=exc, cause=None), k))
                return stmts, stack, ("return",)
            elif name == "RAISE_VARARGS":
                raise self.unsupported("a bare raise or raise ... from ...", k)
            elif name == "LOAD_ASSERTION_ERROR":
                stack.append(self.place(ast.Name(id="AssertionError", ctx=ast.Load()), k))
            elif name in RETURNS:
                value = self.constant(ins.argval, k) if name == "RETURN_CONST" else self.value(stack.pop(), k)
                if isinstance(value, ast.Constant) and value.value is None:
                    value = None
                stmts.append(self.place(ast.Return(value=value), k))
                return stmts, stack, ("return",)
            elif name in UNCONDITIONAL:
                return stmts, stack, ("jump", self.block_at[self.jump_target(k)], stack)
            elif name in POP_JUMPS:
                kind, jump_if = POP_JUMPS[name]
                test = self.value(stack.pop(), k)
                if kind == "none":
                    test = self.spanning(ast.Compare(left=test, ops=[ast.Is()], comparators=[
                        self.place(ast.Constant(value=None), k)]), test)
                taken, fall = self.block_at[self.jump_target(k)], self.block_at[k + 1]
                t, f = (taken, fall) if jump_if else (fall, taken)
                return stmts, stack, ("cond", test, t, stack, f, stack)
            elif name in KEEP_JUMPS:
                jump_if = KEEP_JUMPS[name]
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
        if isinstance(v, Inplace):
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
            if base not in BINARY_310:
                raise self.unsupported(f"the bytecode {ins.opname}", k)
            text = BINARY_310[base] + ("=" if kind == "INPLACE" else "")
        inplace = text.endswith("=")
        op = BINARY.get(text.rstrip("=") if inplace else text)
        if op is None:
            raise self.unsupported(f"the operator {text}", k)
        if inplace:
            stack.append(Inplace(op(), left, right, k))
        else:
            stack.append(self.spanning(self.place(ast.BinOp(left=left, op=op(), right=right), k), left, right))

    def call(self, stack, k: int, kw_names: tuple):
        argc = self.ins[k].arg
        args = [stack.pop() for _ in range(argc)][::-1]
        if self.ins[k].opname == "CALL_FUNCTION" or self.ins[k].opname == "CALL_FUNCTION_KW":
            func = stack.pop()
        else:
            upper, lower = stack.pop(), stack.pop()
            if upper is NULL and lower is NULL:
                raise self.unsupported("a call this kernel compiler cannot rebuild from bytecode", k)
            if lower is NULL or upper is NULL:
                func = lower if upper is NULL else upper
            else:
                # [callable, first argument] (an assert's message, a method's self): CALL's own rule.
                func, args = lower, [upper, *args]
        func = self.value(func, k)
        args = [self.value(a, k) for a in args]
        positional = args[:len(args) - len(kw_names)]
        keywords = [ast.keyword(arg=n, value=v) for n, v in zip(kw_names, args[len(positional):], strict=True)]
        node = ast.Call(func=func, args=positional, keywords=keywords)
        stack.append(self.spanning(self.place(node, k), func, *args))

    def call_ex(self, stack, k: int):
        """``CALL_FUNCTION_EX``: how CPython calls with more than about 30 positional arguments
        (their tuple built from a list); a real ``*args``/``**kwargs`` stays unsupported."""
        kwargs = stack.pop() if PY >= (3, 14) or self.ins[k].arg & 1 else NULL
        args = stack.pop()
        if kwargs is not NULL:
            raise self.unsupported("**kwargs in a call", k)
        if not isinstance(args, ast.Tuple):
            # f(*t): the compiler unpacks the tuple t.
            value = self.value(args, k)
            args = ast.Tuple(elts=[self.place(ast.Starred(value=value, ctx=ast.Load()), k)], ctx=ast.Load())
        if PY >= (3, 11):
            callables = [p for p in (stack.pop(), stack.pop()) if p is not NULL]
            if len(callables) != 1:
                raise self.unsupported("a call this kernel compiler cannot rebuild from bytecode", k)
            func = callables[0]
        else:
            func = stack.pop()
        func = self.value(func, k)
        node = ast.Call(func=func, args=list(args.elts), keywords=[])
        stack.append(self.spanning(self.place(node, k), func, args))

    @staticmethod
    def stack_op_310(stack, name: str, arg):
        if name == "DUP_TOP":
            stack.append(stack[-1])
        elif name == "DUP_TOP_TWO":
            stack.extend(stack[-2:])
        else:
            depth = {"ROT_TWO": 2, "ROT_THREE": 3, "ROT_FOUR": 4}.get(name, arg)
            stack.insert(len(stack) - depth, stack.pop())

    def evaluate_now(self, stmts: list, stack: list, entries) -> dict:
        """Evaluates ``entries`` (values on the stack) into temporaries now, in the order Python
        evaluated them; every stack slot holding one then reads its temporary. Returns
        ``{id(entry): temporary}``."""
        kept: dict[int, ast.Name] = {}
        for entry in sorted({id(e): e for e in entries}.values(), key=lambda e: getattr(e, "_seq", 0)):
            name = f"_ember_tmp{len(self.temporaries)}"
            self.temporaries.append(name)
            stmts.append(self.spanning(ast.Assign(
                targets=[self.spanning(ast.Name(id=name, ctx=ast.Store()), entry)], value=entry), entry))
            kept[id(entry)] = self.spanning(ast.Name(id=name, ctx=ast.Load()), entry)
        for i, slot in enumerate(stack):
            if id(slot) in kept:
                stack[i] = kept[id(slot)]
        return kept

    def share(self, stmts: list, stack: list, value):
        """Before a value with effects (a call) is copied on the stack: it is evaluated once into a
        temporary (with the calls before it, in order), so each copy reads the one result
        (``p = q = f()``, ``0 < f() < n``, ``(x := f())``)."""
        if isinstance(value, ast.AST) and has_call(value):
            seq = getattr(value, "_seq", 0)
            self.evaluate_now(stmts, stack, [e for e in stack if isinstance(e, ast.AST) and has_call(e)
                                             and getattr(e, "_seq", 0) <= seq])

    def keep_pending(self, stmts: list, stack: list, target, value):
        """Values still on the stack were computed before this store. Those with effects, and
        those the store would change (a read of the stored name; any memory read, for an element
        store), are evaluated first, in Python's order, with the stored value if Python computed
        it before them (``p, q = f(), g()``; ``a[0], a[1] = a[1], a[0]``). Returns the value."""
        def changed_by_store(e) -> bool:
            for n in ast.walk(e):
                if isinstance(n, ast.Call):
                    return True
                if isinstance(target, ast.Name) and isinstance(n, ast.Name) and n.id == target.id:
                    return True
                if not isinstance(target, ast.Name) and isinstance(n, ast.Subscript):
                    return True
            return False

        pending = [e for e in stack if isinstance(e, ast.AST) and not isinstance(e, ast.Constant)
                   and changed_by_store(e)]
        if not pending:
            return value
        if isinstance(value, ast.AST) and any(getattr(e, "_seq", 0) > getattr(value, "_seq", 0) for e in pending):
            pending.append(value)
        kept = self.evaluate_now(stmts, stack, pending)
        return kept.get(id(value), value)

    def store(self, stmts: list, target, value, k: int, stack: list | None = None):
        if stack:
            value = self.keep_pending(stmts, stack, target, value)
        while isinstance(value, Slot):  # a nested target (``j, (i, x)``) completes its group's slot
            group = value.group
            group.targets[value.index] = target
            group.stored += 1
            if group.stored < len(group.targets):
                return
            target = self.spanning(ast.Tuple(elts=group.targets, ctx=ast.Store()), *group.targets)
            value = group.value
        if isinstance(value, ForValue):
            value.target = target
            return
        if isinstance(value, Inplace) and self.same_place(target, value.left):
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
            if name in UNCONDITIONAL:
                return self.block_at[self.jump_target(k)]
            if name not in IGNORED and not (pops and name == "POP_TOP"):
                return None
        return block.goto if block.goto is not None else self.block_at.get(block.end)

    def forwarded(self, b: int, stack: list):
        """Block ``b`` reached with ``stack``, followed through blocks that only jump or pop."""
        for _ in range(len(self.blocks)):
            if b == EXIT or self.is_header(b):
                break
            try:
                stmts, after, end = self.evaluate(b, stack)
            except NOT_PURE:
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
        if b == EXIT or self.is_header(b) or len(self.blocks[b].preds) != 1:
            return None
        try:
            stmts, _, end = self.evaluate(b, stack)
        except NOT_PURE:
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
                    test, t, st = bool_op(ast.And, test, c2), t2, st2
                    continue
                if self.same_destination(f, sf, t2, st2):
                    test, t, st = bool_op(ast.And, test, negation(c2)), f2, sf2
                    continue
            inner = self.pure_condition(f, sf)
            if inner is not None:
                c2, t2, st2, f2, sf2 = inner
                if self.same_destination(t, st, t2, st2):
                    test, f, sf = bool_op(ast.Or, test, c2), f2, sf2
                    continue
                if self.same_destination(t, st, f2, sf2):
                    test, f, sf = bool_op(ast.Or, test, negation(c2)), t2, st2
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
            elif ts is None or fs is None or all(x is y for x, y in zip(ts, fs, strict=True)):
                if has_call(test):  # if f(x): pass  still calls f (a value join keeps it in its value)
                    out.append(self.spanning(ast.Expr(value=test), test))
            if stack is None or m == EXIT:
                return out, None
            b = m
        raise self.unsupported("control flow this kernel compiler cannot rebuild", self.blocks[b].start)

    def check_not_outer(self, b: int, loop: _Loop):
        """Refuses a jump from an inner loop straight to where an outer one goes on or starts
        again (a break or continue of two loops, which Python cannot write)."""
        outer = loop.outer
        while outer is not None:
            if b in outer.continues or (b == outer.follow and not self.ends_in_returns(b)):
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
        return [x if x is y else choice(test, self.value(x, k), self.value(y, k))
                for x, y in zip(ts, fs, strict=True)]

    def follow_of(self, header: int, exhausted=None):
        """Where a loop goes on after it ends: the last of its exits that is not a return."""
        body = self.loops.get(header, {header})
        exits = {s for b in body for s in self.blocks[b].succs if s not in body}
        if exhausted is not None:
            exits.add(exhausted)
        exits = {self.static_forward(x) for x in exits}
        going_on = {x for x in exits if not self.ends_in_returns(x)}
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

    def ends_in_returns(self, b: int) -> bool:
        """Whether every path from block ``b`` returns without entering or closing a loop (a
        copy of the code after a loop that the compiler put at a ``break``)."""
        seen, todo = set(), [b]
        while todo:
            x = todo.pop()
            if x in seen:
                continue
            seen.add(x)
            block = self.blocks[x]
            if self.is_header(x) or not block.succs and block.goto is None and (
                    self.ins[block.end - 1].opname not in RETURNS | {"RAISE_VARARGS"}):
                return False
            if any((x, s) in self.back_edges for s in block.succs):
                return False
            todo.extend(block.succs)
        return True

    def loop_at(self, h: int, stack: list, outer: _Loop | None):
        """The loop headed by block ``h``: its statements, the stack after it and the block after it."""
        last = self.blocks[h].end - 1
        if self.blocks[h].goto is None and self.ins[last].opname == "FOR_ITER":
            iterator = stack[-1]
            if not isinstance(iterator, Iterator):
                raise self.unsupported("a for loop this kernel compiler cannot rebuild", last)
            exhausted = self.block_at[self.jump_target(last)]
            follow = self.loop_follow(h)
            loop = _Loop(h, {h}, follow, outer)
            value = ForValue()
            body, _ = self.walk(self.block_at[last + 1], stack + [value], None, loop)
            after = stack[:-1]
            if value.target is None:
                raise self.unsupported("a for loop whose target this kernel compiler cannot rebuild", last)
            orelse: list = []
            if self.static_forward(exhausted) != follow:
                orelse, _ = self.walk(exhausted, after, follow, outer)
            node = ast.For(target=value.target, iter=iterator.expr, body=tidy_body(body), orelse=orelse,
                           type_comment=None)
            return [self.spanning(node, value.target, iterator.expr)], after, follow
        follow = self.loop_follow(h)
        loop = _Loop(h, {h}, follow, outer)
        body, _ = self.walk(h, stack, None, loop, first=True)
        line = self.place(ast.Constant(value=True), self.blocks[h].start)
        body = tidy_body(body)
        first = body[0]
        if (isinstance(first, ast.If) and ends_with(first.body, ast.Break) and not first.orelse
                and not breaks_or_continues(first.body[:-1])):
            # while True: if t: E; break ...  is  while not t: ... else: E
            node = ast.While(test=negation(first.test), body=body[1:] or [ast.Pass()], orelse=first.body[:-1])
            return [self.spanning(node, first.test)], stack, follow
        if (len(body) == 2 and isinstance(body[0], ast.If) and isinstance(body[1], ast.Break)
                and ends_with(body[0].body, ast.Continue) and not breaks_or_continues(body[0].orelse)):
            # while True: if t: A; continue (else: E); break  is  while t: A (else: E)
            first = body[0]
            node = ast.While(test=first.test, body=tidy_body(first.body), orelse=first.orelse)
            return [self.spanning(node, first.test)], stack, follow
        node = ast.While(test=line, body=body, orelse=[])
        return [self.spanning(node, line)], stack, follow

    def function(self, name: str, defaults: tuple = ()) -> ast.FunctionDef:
        body, _ = self.walk(0, [], None, None)
        body = strip_trailing_return(tidy(body)) or [ast.Pass()]
        code = self.code
        names = code.co_varnames
        count = code.co_argcount + code.co_kwonlyargcount
        posonly = code.co_posonlyargcount
        args = ast.arguments(
            posonlyargs=[ast.arg(arg=n) for n in names[:posonly]],
            args=[ast.arg(arg=n) for n in names[posonly:code.co_argcount]],
            vararg=ast.arg(arg=names[count]) if code.co_flags & 0x04 else None,
            kwonlyargs=[ast.arg(arg=n) for n in names[code.co_argcount:count]],
            kw_defaults=[None] * (count - code.co_argcount),
            kwarg=ast.arg(arg=names[count + bool(code.co_flags & 0x04)]) if code.co_flags & 0x08 else None,
            defaults=[ast.Constant(value=None) for _ in defaults])  # the front refuses defaults
        fn = ast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None, type_comment=None)
        if PY >= (3, 12):
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


def function_def(fn) -> ast.FunctionDef:
    """The ``ast.FunctionDef`` of ``fn`` rebuilt from its bytecode; raises :class:`Unsupported`."""
    code = fn.__code__
    defaults = tuple(fn.__defaults__ or ()) + tuple((fn.__kwdefaults__ or {}).values())
    return _Decompiler(code).function(fn.__name__, defaults)
