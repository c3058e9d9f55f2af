"""Random functions compiled by ``@ember.njit`` give what Python gives running them on NumPy
scalars, and raise ``ZeroDivisionError`` exactly where they divide by zero (Python's rule,
which the reference run follows through ``_divide``); random invalid
functions raise ``JitError`` at the line of the mistake; nothing crashes the process. The
programs are those of ``test_jit_property.py`` (its generator keeps every float result exactly
IEEE's; Cranelift never fuses operations, so float results must agree to the last bit)."""

import ast
import operator

import ember
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_jit_property import (
    FLOAT,
    FLOATS,
    INT,
    INTS,
    MISTAKES,
    Program,
    invalid_cases,
    load,
    programs,
    render,
)

HEADER = '''import math

import numpy as np

from ember import cuda, njit

I = np.int64
F = np.float64


def helper(x):
    return x


@cuda.jit
def other_kernel(a):
    a[0] = 0


@njit
def f(a, b, c):
'''

ROWS = 6
selected_only = pytest.mark.skipif("'slow' not in config.getoption('markexpr')", reason="select it with -m slow")


_DIVISIONS = {ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}


def _divide(op, x, y):
    """``x op y`` as Python raises it: ZeroDivisionError for any zero divisor (NumPy scalars
    only warn, and not at all for an infinity or a NaN over zero)."""
    if y == 0:
        raise ZeroDivisionError("a zero divisor")
    return _DIVISIONS[op](x, y)


class _CheckedDivisions(ast.NodeTransformer):
    """Every ``/``, ``//`` and ``%`` (augmented too) through ``_divide``."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if type(node.op) not in _DIVISIONS:
            return node
        name = ast.Constant(type(node.op).__name__)
        return ast.copy_location(ast.Call(ast.Name("_divide", ast.Load()), [name, node.left, node.right], []), node)

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if type(node.op) not in _DIVISIONS:
            return node
        target = ast.Name(node.target.id, ast.Load())
        value = self.visit_BinOp(ast.copy_location(ast.BinOp(target, node.op, node.value), node))
        return ast.copy_location(ast.Assign([node.target], value), node)


def python_reference(source, module):
    """``f`` of ``source`` run by Python with Python's zero-divisor rule."""
    tree = ast.parse(source)
    f = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f")
    f.decorator_list = []
    tree = ast.fix_missing_locations(_CheckedDivisions().visit(ast.Module([f], [])))
    scope = dict(vars(module), _divide=lambda op, x, y: _divide(getattr(ast, op), x, y))
    exec(compile(tree, "<reference>", "exec"), scope)  # noqa: S102
    return scope["f"]


def check_matches_python(program, inputs, directory):
    source = HEADER + "\n".join(render(program.body)) + "\n"
    module, _ = load(directory, source)
    reference = python_reference(source, module)
    scalar = {INT: np.int64, FLOAT: np.float64}
    for row in inputs:
        args = [scalar[t](v) for t, v in zip(program.params, row, strict=True)]
        try:
            with np.errstate(all="ignore"):
                want = reference(*args)
        except ZeroDivisionError:
            with pytest.raises(ZeroDivisionError):
                module.f(*args)
            continue
        got = module.f(*args)
        if program.ret == INT:
            assert got == int(want), f"{row}\n\n{source}"
        else:
            np.testing.assert_array_equal(np.float64(got), np.float64(want), err_msg=f"{row}\n\n{source}")


@st.composite
def cases(draw):
    program = draw(programs())
    strategies = [INTS if t == INT else FLOATS for t in program.params]
    return program, [tuple(draw(s) for s in strategies) for _ in range(ROWS)]


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(case=cases())
def test_random_functions_match_python_on_numpy_scalars(case, tmp_path_factory):
    check_matches_python(*case, tmp_path_factory.mktemp("cpuprop"))


def test_an_infinity_over_zero_raises_even_where_numpy_is_silent(tmp_path):
    # Found by CI: NumPy's inf / 0.0 raises no flag; Python's rule (and Numba's) raises.
    program = Program(["v2 = I(0)", "a = (-(a / 0.0))", "return v2"], (FLOAT, FLOAT, FLOAT), INT)
    check_matches_python(program, [(np.inf, 0.0, 0.0), (1.0, 0.0, 0.0)], tmp_path)


@pytest.mark.slow
@selected_only
@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(case=cases())
def test_many_random_functions_match_python_on_numpy_scalars(case, tmp_path_factory):
    check_matches_python(*case, tmp_path_factory.mktemp("cpuprop"))


def check_invalid(program, mistake, where, directory):
    """Puts ``mistake`` into ``f`` before statement ``where``."""
    lines = ["    v0 = I(1)"]
    mistake_line = len(HEADER.splitlines()) + 2
    body = render(program.body)
    before = render(program.body[:where])
    lines += body[:len(before)] + ["    " + m.format(v="v0") for m in mistake] + body[len(before):]
    mistake_line += len(before)
    source = HEADER + "\n".join(lines) + "\n"
    module, path = load(directory, source)
    args = [np.int64(1) if t == INT else np.float64(1.0) for t in program.params]
    with pytest.raises(ember.JitError) as info:
        module.f(*args)
    message = str(info.value)
    assert message.startswith(f"{path}:{mistake_line}: in "), f"{message}\n\n{source}"
    assert "^" in message.splitlines()[-1], message


# A kernel can neither print a complex number nor hold None; a function compiled for the CPU
# prints it as Python does and holds None as an optional value.
HOST_MISTAKES = [m for m in MISTAKES if m[0] not in ("print({v}, 1j)", "{v} = None")]


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(case=invalid_cases(HOST_MISTAKES))
def test_random_invalid_functions_raise_jit_error_at_the_mistake(case, tmp_path_factory):
    check_invalid(*case, tmp_path_factory.mktemp("cpubad"))


@pytest.mark.parametrize("mistake", HOST_MISTAKES, ids=[m[0] for m in HOST_MISTAKES])
def test_every_kind_of_mistake_raises_jit_error_at_its_line(mistake, tmp_path):
    program = Program(["v1 = I(2)", "v1 += 1", "return v1"], (INT, FLOAT, INT), INT)
    check_invalid(program, mistake, 1, tmp_path)
