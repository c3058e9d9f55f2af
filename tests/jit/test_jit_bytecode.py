"""Kernels without a source file (``python -c``, ``exec``, the plain REPL) are compiled from their
bytecode, as Numba compiles them."""

from __future__ import annotations

import ast
import itertools
import subprocess
import sys
import textwrap

import bytecode_cases
import ember
import numpy as np
import pytest
from ember import cuda
from ember._jit import bytecode


@pytest.mark.parametrize("fn", bytecode_cases.CASES, ids=lambda f: f.__name__)
def test_rebuilt_function_behaves_as_the_original(fn):
    # The rebuilt tree, compiled by Python itself, must compute what the original computes.
    tree = bytecode.function_def(fn)
    namespace = dict(vars(bytecode_cases))
    exec(compile(ast.Module(body=[tree], type_ignores=[]), "<rebuilt>", "exec"), namespace)
    rebuilt = namespace[fn.__name__]
    for x, y in itertools.product(range(-3, 9), range(-2, 6)):
        a = [5, -2, 7, 1, 0, 3, 9, -4]
        b = list(a)
        bytecode_cases.TRACE.clear()
        want = fn(a, x, y)
        calls = list(bytecode_cases.TRACE)
        bytecode_cases.TRACE.clear()
        assert rebuilt(b, x, y) == want, (x, y, ast.unparse(tree))
        assert a == b, (x, y, ast.unparse(tree))
        assert bytecode_cases.TRACE == calls, ("calls differ", x, y, ast.unparse(tree))


def test_rebuilt_tree_keeps_source_lines():
    tree = bytecode.function_def(bytecode_cases.branches)
    first = bytecode_cases.branches.__code__.co_firstlineno
    lines = {n.lineno for n in ast.walk(tree) if isinstance(n, ast.stmt) and n is not tree}
    assert min(lines) == first + 1
    assert max(lines) <= first + 20


_EXEC_SOURCE = """
@cuda.jit(device=True)
def clamp(x, lo, hi):
    return lo if x < lo else hi if x > hi else x

@cuda.jit
def scaled(a, out, lo, hi):
    i = cuda.grid(1)
    n = out.size
    if i >= n:
        return
    acc = 0.0
    for k in range(3):
        if k == 1:
            continue
        acc += a[(i + k) % n] * (k + 1)
    out[i] = clamp(acc, lo, hi)
"""


def test_a_loop_rebuilt_from_bytecode_has_no_continue_its_source_lacks():
    # Python 3.12 ends each branch of a loop's last `if` with a jump back to the loop's head: read
    # as a `continue`, it would keep the loop from being unrolled and the `if` from becoming a
    # select. A `continue` that skips statements stays.
    def count_below(xs, t):
        inside = 0
        for x in xs:
            if x < t:
                inside += 1
        return inside

    def sum_skipping(xs, t):
        s = 0
        for x in xs:
            if x < t:
                continue
            s += x
        return s

    tree = bytecode.function_def(count_below)
    assert not any(isinstance(n, ast.Continue) for n in ast.walk(tree)), ast.unparse(tree)
    for fn in (count_below, sum_skipping):
        namespace = {}
        exec(compile(ast.Module(body=[bytecode.function_def(fn)], type_ignores=[]), "<rebuilt>", "exec"), namespace)
        xs = [3, -1, 4, -1, 5, -9, 2, 6]
        for t in (-5, 0, 4, 10):
            assert namespace[fn.__name__](xs, t) == fn(xs, t)


def test_kernel_defined_by_exec_runs(rng):
    namespace = {"cuda": cuda}
    exec(_EXEC_SOURCE, namespace)
    a = rng.standard_normal(1000).astype(np.float32)
    out = cuda.device_array(1000, dtype=np.float32)
    namespace["scaled"][4, 256](cuda.to_device(a), out, np.float32(-1.5), np.float32(2.0))
    acc = a.astype(np.float32) + 3 * np.roll(a, -2)
    assert np.allclose(out.copy_to_host(), np.clip(acc, -1.5, 2.0), rtol=1e-6, atol=1e-6)


def test_vectorize_defined_by_exec_runs(rng):
    namespace = {"ember": ember}
    exec(textwrap.dedent("""
        @ember.vectorize(["float32(float32, float32)"], target="cuda")
        def hinge(x, y):
            d = x - y
            return d if d > 0 else 0.0
    """), namespace)
    x = rng.standard_normal(500).astype(np.float32)
    y = rng.standard_normal(500).astype(np.float32)
    got = namespace["hinge"](ember.asarray(x), ember.asarray(y)).get()
    assert np.array_equal(got, np.maximum(x - y, np.float32(0)))


def test_exec_under_the_name_of_no_file_reads_the_bytecode_not_another_files_text(tmp_path):
    # A script's loader answers for any name that is no file with the script's own text: that
    # text is not the function's, so its bytecode is read.
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent("""
        import ember

        def unrelated(f, *args):
            return f(*args)

        source = "def cube(x):\\n    return x * x * x - 1\\n"
        exec(compile(source, "no_such_file.py", "exec"), globals())
        print(unrelated(ember.njit(cube), 7))
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["342"]


def test_kernel_typed_at_python_dash_c():
    program = textwrap.dedent("""
        import numpy as np
        from ember import cuda
        @cuda.jit
        def square(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] = a[i] * a[i]
        a = cuda.to_device(np.arange(10, dtype=np.int32))
        square[1, 32](a)
        print(a.copy_to_host().tolist())
    """)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str([i * i for i in range(10)])


def test_error_in_kernel_without_source_names_its_line():
    namespace = {"cuda": cuda}
    exec(compile("@cuda.jit\ndef bad(a):\n    i = cuda.grid(1)\n    a[i] = [1, 2][0]\n", "<generated>", "exec"),
         namespace)
    with pytest.raises(ember.JitError, match=r"<generated>:4: in kernel 'bad': a list display \[\.\.\.\] is not"):
        namespace["bad"][1, 1](cuda.device_array(4, dtype=np.int32))


def test_unsupported_statement_without_source_is_reported():
    namespace = {"cuda": cuda}
    exec(compile("@cuda.jit\ndef bad(a):\n    i = cuda.grid(1)\n    if i > 3:\n        del i\n",
                 "<generated>", "exec"), namespace)
    with pytest.raises(ember.JitError, match=r"<generated>:5: in kernel 'bad': del is not supported in kernels"):
        namespace["bad"][1, 1](cuda.device_array(4, dtype=np.int32))


def test_raise_and_assert_without_source():
    namespace = {"ember": ember}
    exec(compile("@ember.njit\ndef f(n):\n    if n < 0:\n        raise ValueError('negative')\n"
                 "    assert n != 3, 'three'\n    assert n != 4\n    return n * 2\n", "<generated>", "exec"),
         namespace)
    f = namespace["f"]
    assert f(5) == 10
    with pytest.raises(ValueError, match="^negative$"):
        f(-1)
    with pytest.raises(AssertionError, match="^three$"):
        f(3)
    with pytest.raises(AssertionError, match="^$"):
        f(4)
    exec(compile("@ember.njit\ndef g(n):\n    if n < 0:\n        raise ValueError(n)\n    return n\n",
                 "<generated>", "exec"), namespace)
    with pytest.raises(ember.JitError, match=r"<generated>:4: in function 'g': exceptions raised in functions "
                                             r"compiled for the CPU take constant arguments .*not the variable 'n'"):
        namespace["g"](1)


@pytest.mark.parametrize(("body", "line", "what"), [
    ("    try:\n        a[0] = 1\n    except Exception:\n        a[0] = 2\n", 3, "a try statement"),
    ("    with x:\n        a[0] = 1\n", 3, "a with statement"),
    ("    a[0] = len([k for k in range(3)])\n", 3, "comprehension"),
    ("    a[0] = (lambda q: q)(1)\n", 3, "a lambda"),
    ("    del x\n", 3, "del"),
    ("    yield a\n", 3, "yield"),
])
def test_unsupported_constructs_without_source_name_their_line(body, line, what):
    from ember._jit import front

    namespace = {"cuda": cuda}
    exec(compile(f"def bad(a, x):\n    i = 0\n{body}", "<generated>", "exec"), namespace)
    with pytest.raises(ember.JitError, match=rf"^<generated>:{line}: in kernel 'bad': .*{what}.* is not supported"):
        front.program_json(namespace["bad"])


def test_an_attribute_assignment_without_source_is_typed_as_with_it():
    # Read from bytecode like any store (records' fields are assigned so); an array has none.
    namespace = {"cuda": cuda}
    exec(compile("def bad(a):\n    a.foo = 1\n", "<generated>", "exec"), namespace)
    with pytest.raises(ember.JitError, match=r"<generated>:2: in kernel 'bad': cannot assign to attribute 'foo'"):
        cuda.jit(namespace["bad"])[1, 1](cuda.device_array(4, dtype=np.int32))


def test_defaults_are_refused_without_source_as_with_it():
    from ember._jit import front

    namespace = {}
    exec(compile("def clamp(x, lo=0.0, hi=1.0):\n    return min(max(x, lo), hi)\n", "<generated>", "exec"), namespace)
    with pytest.raises(ember.JitError, match="plain positional parameters"):
        front.program_json(namespace["clamp"])
