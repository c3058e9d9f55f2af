"""What CPython's instructions mean to the bytecode rebuild (``bytecode.py``), Python 3.10 to 3.13:
the operator tables, the instructions the kernel language lacks, the jumps, and the stack entries
that are not expressions."""

from __future__ import annotations

import ast
import sys

PY = sys.version_info[:2]


class Unsupported(Exception):
    """A construct the kernel language lacks, or bytecode this module cannot rebuild."""

    def __init__(self, what: str, line: int | None):
        super().__init__(what)
        self.what = what
        self.line = line


# ---- stack markers: stack entries that are not expressions --------------------------------------

class Null:
    """The NULL that calls push beside a callable."""


NULL = Null()


class Iterator:
    """An iterator made by GET_ITER (the ``for`` loop's)."""

    def __init__(self, expr):
        self.expr = expr


class ForValue:
    """The value FOR_ITER pushes: its first store is the loop's target."""

    def __init__(self):
        self.target = None


class Unpacked:
    """The values UNPACK_SEQUENCE pushes: stores fill the targets of one tuple assignment."""

    def __init__(self, value, count: int):
        self.value = value
        self.targets = [None] * count
        self.stored = 0


class Slot:
    def __init__(self, group: Unpacked, index: int):
        self.group = group
        self.index = index


class Inplace:
    """``left op= right`` before its store: the store makes it an augmented assignment."""

    def __init__(self, op, left, right, where):
        self.op, self.left, self.right, self.where = op, left, right, where


# ---- operator tables --------------------------------------------------------------------------

BINARY = {
    "+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "//": ast.FloorDiv, "%": ast.Mod,
    "**": ast.Pow, "<<": ast.LShift, ">>": ast.RShift, "|": ast.BitOr, "^": ast.BitXor, "&": ast.BitAnd,
    "@": ast.MatMult,
}
# Python 3.10's opcodes for the same operators.
BINARY_310 = {
    "ADD": "+", "SUBTRACT": "-", "MULTIPLY": "*", "TRUE_DIVIDE": "/", "FLOOR_DIVIDE": "//", "MODULO": "%",
    "POWER": "**", "LSHIFT": "<<", "RSHIFT": ">>", "OR": "|", "XOR": "^", "AND": "&", "MATRIX_MULTIPLY": "@",
}
COMPARE = {"<": ast.Lt, "<=": ast.LtE, "==": ast.Eq, "!=": ast.NotEq, ">": ast.Gt, ">=": ast.GtE}
UNARY = {
    "UNARY_NEGATIVE": ast.USub, "UNARY_POSITIVE": ast.UAdd, "UNARY_NOT": ast.Not, "UNARY_INVERT": ast.Invert,
}

# What an opcode means when the kernel language lacks it (named as the front names the node).
UNSUPPORTED = {
    "BUILD_MAP": "a dict display {...}", "MAP_ADD": "a dict comprehension",
    "BUILD_CONST_KEY_MAP": "a dict display {...}",
    "BUILD_SET": "a set display", "SET_ADD": "a set comprehension", "LOAD_FAST_AND_CLEAR": "a comprehension",
    "MAKE_FUNCTION": "a lambda or nested function", "LOAD_CLOSURE": "a lambda or nested function",
    "FORMAT_VALUE": "an f-string", "FORMAT_SIMPLE": "an f-string", "BUILD_STRING": "an f-string",
    "BEFORE_WITH": "a with statement", "SETUP_WITH": "a with statement", "SETUP_FINALLY": "a try statement",
    "YIELD_VALUE": "yield", "GET_AWAITABLE": "await", "IMPORT_NAME": "import",
    "STORE_GLOBAL": "a global statement", "DELETE_FAST": "del", "DELETE_SUBSCR": "del", "DELETE_NAME": "del",
    "DELETE_GLOBAL": "del", "DELETE_ATTR": "del", "DELETE_DEREF": "del",
    "DICT_MERGE": "*args or **kwargs in a call",
    "LOAD_BUILD_CLASS": "a class definition", "SETUP_ANNOTATIONS": "an annotation", "MATCH_CLASS": "a match statement",
    "MATCH_SEQUENCE": "a match statement", "MATCH_MAPPING": "a match statement",
}

# Code objects a function makes at run time (Python 3.11 compiles comprehensions as functions).
NESTED_CODE = {
    "<listcomp>": "a list comprehension", "<setcomp>": "a set comprehension", "<dictcomp>": "a dict comprehension",
    "<genexpr>": "a generator expression", "<lambda>": "a lambda",
}
UNCONDITIONAL = {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP_ABSOLUTE", "JUMP",
                  "JUMP_NO_INTERRUPT"}
POP_JUMPS = {  # opname -> (what the test is, whether the jump is taken when it holds)
    "POP_JUMP_IF_FALSE": ("bool", False), "POP_JUMP_IF_TRUE": ("bool", True),
    "POP_JUMP_FORWARD_IF_FALSE": ("bool", False), "POP_JUMP_FORWARD_IF_TRUE": ("bool", True),
    "POP_JUMP_BACKWARD_IF_FALSE": ("bool", False), "POP_JUMP_BACKWARD_IF_TRUE": ("bool", True),
    "POP_JUMP_IF_NONE": ("none", True), "POP_JUMP_IF_NOT_NONE": ("none", False),
    "POP_JUMP_FORWARD_IF_NONE": ("none", True), "POP_JUMP_FORWARD_IF_NOT_NONE": ("none", False),
    "POP_JUMP_BACKWARD_IF_NONE": ("none", True), "POP_JUMP_BACKWARD_IF_NOT_NONE": ("none", False),
}
KEEP_JUMPS = {"JUMP_IF_FALSE_OR_POP": False, "JUMP_IF_TRUE_OR_POP": True}  # Python 3.10 and 3.11
RETURNS = {"RETURN_VALUE", "RETURN_CONST"}
IGNORED = {"NOP", "RESUME", "PRECALL", "CACHE", "EXTENDED_ARG", "COPY_FREE_VARS", "MAKE_CELL", "TO_BOOL",
            "END_FOR", "NOT_TAKEN", "GEN_START"}
EXIT = -1  # the virtual block after every return
# What running a block on a guessed stack may raise when the guess is wrong.
NOT_PURE = (Unsupported, IndexError, KeyError, AttributeError)


def ends_block(ins) -> bool:
    name = ins.opname
    return (name in UNCONDITIONAL or name in POP_JUMPS or name in KEEP_JUMPS or name in RETURNS
            or name == "FOR_ITER" or name in ("RAISE_VARARGS", "RERAISE"))


class Block:
    def __init__(self, index: int, start: int, end: int, offset: int):
        self.index, self.start, self.end, self.offset = index, start, end, offset
        self.succs: list[int] = []
        self.preds: list[int] = []
        # Set where a copied loop test was cut off the end: the block then jumps here.
        self.goto: int | None = None


def line_table(instructions, first_line: int) -> list[int]:
    """The source line of each instruction (3.10 marks only where a line starts)."""
    lines, line = [], first_line
    for ins in instructions:
        pos = getattr(ins, "positions", None)
        if pos is not None and pos.lineno is not None:
            line = pos.lineno
        else:
            start = getattr(ins, "line_number", None) if PY >= (3, 13) else ins.starts_line
            if isinstance(start, int) and not isinstance(start, bool):
                line = start
        lines.append(line)
    return lines
