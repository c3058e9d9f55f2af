"""Random device functions, compiled by ``@cuda.jit`` and run by a small kernel, give what the
same Python function gives on NumPy scalars; random *invalid* programs raise ``JitError`` at
the line of the mistake, and nothing crashes the process.

Programs are Python source text: expression trees over int64 and float64 values (``+ - * / //
%``, comparisons, ``and``/``or``/``not``, conditional expressions, ``abs min max float``) in
random ``if``/``elif``/``else``,
``for`` over small ranges, and ``while`` loops with a counter bound. So that Python computes
with NumPy's semantics (wrapping int64, no ``ZeroDivisionError``) every binary operation has
a NumPy-scalar operand: a literal or loop counter on both sides is wrapped as ``I(...)`` or
``F(...)`` (``np.int64``, ``np.float64``). C compilers may fuse ``x * y + z`` into one fma
(CUDA and OpenCL both allow it by default), which NumPy never does: the generator never puts
a float product directly under a float ``+``/``-``, so every float result is exactly IEEE's
and can be compared with a tolerance of a few ulps.
"""

import hashlib
import importlib.util
import math
from typing import NamedTuple

import ember
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

INT, FLOAT = "int64", "float64"
I64 = np.iinfo(np.int64)
INT_LITERALS = [0, 1, 2, 3, 5, 7, 9, 2**31, 2**40 + 3, 2**62, I64.max]
FLOAT_LITERALS = [0.0, 0.5, 1.0, 2.0, 3.5, 0.1, 1e-3, 2.5e-7, 1e10, 1e300]
INTS = st.one_of(
    st.integers(-6, 6), st.sampled_from([I64.min, I64.max, I64.min + 1, -1, 2**31, -(2**31) - 1]),
    st.integers(I64.min, I64.max),
)
FLOATS = st.one_of(
    st.sampled_from([0.0, -0.0, 0.5, -1.5, 3.0, 1e300, -1e-300, math.inf, -math.inf, math.nan]),
    st.floats(-100, 100), st.floats(allow_nan=False, allow_infinity=False),
)
ROWS = 6  # input triples per compiled program
# The larger runs are skipped unless selected: `pytest -m slow tests/test_jit_property.py`.
selected_only = pytest.mark.skipif("'slow' not in config.getoption('markexpr')", reason="select it with -m slow")

HEADER = '''import math

import numpy as np

from ember import cuda

I = np.int64
F = np.float64


def helper(x):
    return x


@cuda.jit
def other_kernel(a):
    a[0] = 0


@cuda.jit(device=True)
def f(a, b, c):
'''

KERNEL = '''

@cuda.jit
def kernel(out, x, y, z):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = f(x[i], y[i], z[i])
'''


class Node(NamedTuple):
    """An expression: its text, type, whether Python evaluates it to a NumPy scalar, and
    whether it is a float product at the top (which C may fuse with an enclosing + or -)."""

    text: str
    ty: str
    numpy: bool
    fmul: bool = False


class Maker:
    """Draws one random function body."""

    def __init__(self, draw, params):
        self.draw = draw
        self.vars = dict(params)  # locals and parameters: always NumPy scalars
        self.counters: list[str] = []  # loop counters in scope: Python ints
        self.names = 0

    def pick(self, options):
        return self.draw(st.sampled_from(options))

    def fresh(self, prefix):
        self.names += 1
        return f"{prefix}{self.names}"

    # ---- expressions ----

    def leaf(self, ty):
        roll = self.draw(st.integers(0, 9))
        if ty == INT and self.counters and roll < 2:
            return Node(self.pick(self.counters), INT, False)
        names = [n for n, t in self.vars.items() if t == ty]
        if names and roll < 7:
            return Node(self.pick(names), ty, True)
        value = self.pick(INT_LITERALS if ty == INT else FLOAT_LITERALS)
        text = repr(value)
        if self.draw(st.booleans()):
            text = f"(-{text})"
        return Node(text, ty, False)

    def numpy(self, node):
        if node.numpy:
            return node
        return Node(f"{'I' if node.ty == INT else 'F'}({node.text})", node.ty, True)

    def expr(self, ty, depth):
        if depth <= 0 or self.draw(st.integers(0, 3)) == 0:
            return self.leaf(ty)
        kind = self.pick(["binop", "binop", "binop", "neg", "ifexp", "andor", "call"])
        if kind == "binop":
            return self.binop(ty, depth)
        if kind == "neg":
            x = self.expr(ty, depth - 1)
            return Node(f"(-{x.text})", ty, x.numpy, x.fmul)
        if kind == "call":
            if ty == FLOAT and self.draw(st.booleans()):
                return Node(f"float({self.numpy(self.expr(INT, depth - 1)).text})", ty, False)
            if self.draw(st.booleans()):
                x = self.expr(ty, depth - 1)
                return Node(f"abs({x.text})", ty, x.numpy)
            x, y = self.expr(ty, depth - 1), self.expr(ty, depth - 1)
            return Node(f"{self.pick(['min', 'max'])}({x.text}, {y.text})", ty, x.numpy and y.numpy)
        x, y = self.expr(ty, depth - 1), self.expr(ty, depth - 1)
        if kind == "ifexp":
            return Node(f"({x.text} if {self.cond(depth - 1)} else {y.text})", ty, x.numpy and y.numpy)
        return Node(f"({x.text} {self.pick(['and', 'or'])} {y.text})", ty, x.numpy and y.numpy)

    def binop(self, ty, depth):
        if ty == INT:
            op = self.pick(["+", "-", "*", "//", "%"])
            tys = (INT, INT)
        else:
            op = self.pick(["+", "-", "*", "/", "//", "%"])
            tys = self.pick([(FLOAT, FLOAT), (FLOAT, INT), (INT, FLOAT)] + [(INT, INT)] * (op == "/"))
        left, right = self.expr(tys[0], depth - 1), self.expr(tys[1], depth - 1)
        if ty == FLOAT and op in "+-":
            # No fma: a product under a float sum becomes a plain value.
            left = self.leaf(tys[0]) if left.fmul else left
            right = self.leaf(tys[1]) if right.fmul else right
        if not (left.numpy or right.numpy):
            left = self.numpy(left)
        return Node(f"({left.text} {op} {right.text})", ty, True, ty == FLOAT and op == "*")

    def cond(self, depth):
        kind = self.pick(["cmp", "cmp", "cmp", "not", "andor", "truth"]) if depth > 0 else "cmp"
        if kind == "truth":
            return self.expr(self.pick([INT, FLOAT]), depth - 1).text
        if kind == "not":
            return f"(not {self.cond(depth - 1)})"
        if kind == "andor":
            return f"({self.cond(depth - 1)} {self.pick(['and', 'or'])} {self.cond(depth - 1)})"
        items = [self.expr(self.pick([INT, FLOAT]), depth - 1) for _ in range(self.pick([2, 2, 3]))]
        if not any(x.numpy for x in items[:2]):
            items[0] = self.numpy(items[0])  # Python compares int and float exactly; NumPy as floats
        if len(items) == 3 and not (items[1].numpy or items[2].numpy):
            items[2] = self.numpy(items[2])
        ops = [self.pick(["<", "<=", ">", ">=", "==", "!="]) for _ in items[1:]]
        text = items[0].text + "".join(f" {op} {x.text}" for op, x in zip(ops, items[1:], strict=True))
        return f"({text})"

    # ---- statements: a line, or (header, body, orelse) ----

    def assignment(self, depth):
        name = self.pick(sorted(self.vars))
        ty = self.vars[name]
        if self.draw(st.booleans()):
            return f"{name} = {self.numpy(self.expr(ty, depth)).text}"
        ops = ["+", "-", "*", "//", "%"] + ["/"] * (ty == FLOAT)
        op = self.pick(ops)
        value = self.expr(ty if ty == INT else self.pick([INT, FLOAT]), depth)
        if ty == FLOAT and op in "+-" and value.fmul:
            value = self.leaf(value.ty)
        return f"{name} {op}= {value.text}"

    def block(self, depth, ret, in_loop):
        stmts = []
        for _ in range(self.draw(st.integers(1, 3))):
            kind = self.pick(["assign", "assign", "if", "for", "while", "return", "jump"])
            if kind in ("if", "for", "while") and depth <= 0:
                kind = "assign"
            if kind == "assign":
                stmts.append(self.assignment(2))
            elif kind == "return":
                stmts.append((f"if {self.cond(1)}", [f"return {self.numpy(self.expr(ret, 2)).text}"], []))
            elif kind == "jump":
                if in_loop:
                    stmts.append((f"if {self.cond(1)}", [self.pick(["break", "continue"])], []))
            elif kind == "if":
                roll = self.draw(st.integers(0, 3))
                if roll < 2:
                    orelse = []
                elif roll == 2:
                    orelse = self.block(depth - 1, ret, in_loop)
                else:  # elif
                    orelse = [(f"if {self.cond(2)}", self.block(depth - 1, ret, in_loop), [])]
                stmts.append((f"if {self.cond(2)}", self.block(depth - 1, ret, in_loop), orelse))
            elif kind == "for":
                i = self.fresh("i")
                bounds = self.pick(["{n}", "{lo}, {n}", "{n}, {lo}, -1", "{lo}, {n}, 2"])
                bounds = bounds.format(n=self.draw(st.integers(0, 4)), lo=self.draw(st.integers(-2, 1)))
                self.counters.append(i)
                body = self.block(depth - 1, ret, True)
                self.counters.pop()
                stmts.append((f"for {i} in range({bounds})", body, []))
            else:
                w = self.fresh("w")
                stmts.append(f"{w} = 0")
                self.counters.append(w)
                body = [f"{w} += 1", *self.block(depth - 1, ret, True)]
                self.counters.pop()
                stmts.append((f"while {w} < {self.draw(st.integers(0, 4))} and {self.cond(1)}", body, []))
        return stmts or ["pass"]


def render(stmts, indent=1):
    lines = []
    for s in stmts:
        if isinstance(s, str):
            lines.append("    " * indent + s)
            continue
        header, body, orelse = s
        lines.append("    " * indent + header + ":")
        lines += render(body, indent + 1)
        if orelse:
            lines.append("    " * indent + "else:")
            lines += render(orelse, indent + 1)
    return lines


class Program(NamedTuple):
    body: list  # statements of f, as Maker builds them
    params: tuple  # the types of a, b, c
    ret: str


@st.composite
def programs(draw):
    params = tuple(draw(st.sampled_from([INT, FLOAT])) for _ in "abc")
    ret = draw(st.sampled_from([INT, FLOAT]))
    maker = Maker(draw, zip("abc", params, strict=True))
    body = []
    for _ in range(draw(st.integers(1, 3))):  # locals, assigned before any statement reads them
        name, ty = maker.fresh("v"), draw(st.sampled_from([INT, FLOAT]))
        body.append(f"{name} = {maker.numpy(maker.expr(ty, 2)).text}")
        maker.vars[name] = ty
    body += maker.block(2, ret, False)
    body.append(f"return {maker.numpy(maker.expr(ret, 3)).text}")
    return Program(body, params, ret)


def load(directory, source):
    """Imports ``source`` from a file (the compiler reads kernels' source through ``inspect``)."""
    name = "jitprop_" + hashlib.sha1(source.encode()).hexdigest()[:16]
    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, str(path)


def check_matches_python(program, inputs, directory):
    source = HEADER + "\n".join(render(program.body)) + "\n" + KERNEL
    module, _ = load(directory, source)
    columns = [np.array([row[k] for row in inputs], dtype=t) for k, t in enumerate(program.params)]
    with np.errstate(all="ignore"):
        expected = np.array([module.f.py_func(*(col[r] for col in columns)) for r in range(len(inputs))])
    assert expected.dtype == np.dtype(program.ret), source  # the generator keeps types fixed
    out = ember.zeros(len(inputs), dtype=program.ret)
    module.kernel[1, 32](out, *(ember.asarray(c) for c in columns))
    got = out.get()
    if program.ret == INT:
        np.testing.assert_array_equal(got, expected, err_msg=source)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0, equal_nan=True, err_msg=source)


@st.composite
def cases(draw):
    program = draw(programs())
    strategies = [INTS if t == INT else FLOATS for t in program.params]
    inputs = [tuple(draw(s) for s in strategies) for _ in range(ROWS)]
    return program, inputs


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(case=cases())
def test_random_device_functions_match_python_on_numpy_scalars(case, tmp_path_factory):
    check_matches_python(*case, tmp_path_factory.mktemp("jitprop"))


# Programs found wrong while writing these tests: int64 overflow wrapping (C's signed overflow is
# undefined, and compilers assumed `a + a != 0` and `abs(a) >= 0`), and `MIN // -1`, `MIN % -1`.
FOUND = {
    "a + a wraps": Program(["v1 = (a + a)", "a //= (a + a)", "return a"], (INT, INT, INT), INT),
    "floor division": Program(["return (a // b)"], (INT, INT, INT), INT),
    "modulo": Program(["return (a % b)"], (INT, INT, INT), INT),
    "abs wraps": Program([("if (abs(a) < I(0))", ["return I(1)"], []), "return I(0)"], (INT, INT, INT), INT),
    "power wraps": Program(["return (a ** I(3))"], (INT, INT, INT), INT),
}
EDGES = [(I64.min, -1, 0), (I64.max, -1, 1), (I64.min, 0, 2), (-7, 2, 3), (7, -2, 4), (2**62, 3, 5)]


@pytest.mark.parametrize("name", FOUND)
def test_programs_once_compiled_wrong_match_python_at_the_int64_edges(name, tmp_path):
    check_matches_python(FOUND[name], EDGES, tmp_path)


@pytest.mark.slow
@selected_only
@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(case=cases())
def test_many_random_device_functions_match_python_on_numpy_scalars(case, tmp_path_factory):
    check_matches_python(*case, tmp_path_factory.mktemp("jitprop"))


# ---- invalid programs ----

# One mistake each, as lines ({v}: an int64 local); the error is at the first line.
MISTAKES = [
    ['with open("x"):', "    pass"], ["try:", "    pass", "except Exception:", "    pass"],
    ["raise"], ["def g():", "    return 1"], ["global G"], ["del {v}"], ["import os"],
    ["assert {v} == 0, {v}"], ["class K:", "    pass"], ["{v} = [1, 2]"], ["{v} = {{1: 2}}"], ["{v} = {{1, 2}}"],
    ["{v} = [k for k in range(3)]"], ["{v} = (lambda q: q)(1)"], ['{v} = len(f"{{{v}}}")'], ['{v} = "text"'],
    ["{v} = {v} @ {v}"], ["{v}, *rest = (1, 2, 3)"], ["{v} = ({v}2 := 3)"], ["{v} = None"], ["{v} = ..."],
    ['{v} = b"x"'], ["{v} = no_such_name"], ["{v} = helper({v})"], ["print({v}, 1j)"], ["{v} = np.sum({v})"],
    ["{v} = {v}[0]"], ["{v} = other_kernel"], ["{v} = (1, 2)"], ["{v}.foo = 1"],
    ["{v} = cuda.shared.array({v}, np.float64)"], ["{v} = math.no_such_function(1.0)"], ["yield {v}"],
    ["{v} = (1, 2)[5]"], ["{v} = {v}(1)"], ["for q in {v}:", "    pass"], ["{v} = 99999999999999999999999"],
    ["if {v} is {v}:", "    pass"], ["{v} = cuda.grid({v})"], ["{v} = range(3)"], ["{v} = math.sqrt(1.0, 2.0)"],
    ['{v} = int("3")'], ["{v} = {v} if {v} else (1, 2)"], ["{v} = dict()"], ["{v} = {v}.real.foo"],
    ["{v} = cuda.atomic.add({v}, 0, 1)"], ["{v} = 1 if {v} < (1, 2) else 2"],
]


@st.composite
def invalid_cases(draw, mistakes=MISTAKES):
    program = draw(programs())
    mistake = draw(st.sampled_from(mistakes))
    return program, mistake, draw(st.integers(0, len(program.body) - 1))


def check_invalid(program, mistake, where, directory):
    """Puts ``mistake`` into ``f`` before statement ``where`` (after the locals are assigned)."""
    v = "v0"
    lines = ["    v0 = I(1)"]  # an int64 local the mistake can use
    mistake_line = len(HEADER.splitlines()) + 2
    body = render(program.body)
    before = render(program.body[:where])
    lines += body[:len(before)] + ["    " + m.format(v=v) for m in mistake] + body[len(before):]
    mistake_line += len(before)
    source = HEADER + "\n".join(lines) + "\n" + KERNEL
    module, path = load(directory, source)
    out = ember.zeros(2)
    args = [ember.zeros(2, dtype=t) for t in program.params]
    with pytest.raises(ember.JitError) as info:
        module.kernel[1, 1](out, *args)
    message = str(info.value)
    assert message.startswith(f"{path}:{mistake_line}: in "), f"{message}\n\n{source}"
    assert "^" in message.splitlines()[-1], message


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(case=invalid_cases())
def test_random_invalid_programs_raise_jit_error_at_the_mistake(case, tmp_path_factory):
    program, mistake, where = case
    check_invalid(program, mistake, where, tmp_path_factory.mktemp("jitbad"))


@pytest.mark.parametrize("mistake", MISTAKES, ids=[m[0] for m in MISTAKES])
def test_every_kind_of_mistake_raises_jit_error_at_its_line(mistake, tmp_path):
    program = Program(["v1 = I(2)", "v1 += 1"], (INT, FLOAT, INT), INT)
    check_invalid(program._replace(body=program.body + ["return v1"]), mistake, 1, tmp_path)


@pytest.mark.slow
@selected_only
@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(case=invalid_cases())
def test_many_random_invalid_programs_raise_jit_error_at_the_mistake(case, tmp_path_factory):
    program, mistake, where = case
    check_invalid(program, mistake, where, tmp_path_factory.mktemp("jitbad"))
