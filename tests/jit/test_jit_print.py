"""``print`` in ``@cuda.jit`` kernels, as Numba lowers it: one device ``printf`` per call, items
separated by spaces, integers in full, floats as C's ``%f``, bools as ``True``/``False``, string
constants, tuples as Python writes them, ``cuda.threadIdx`` as ``(x, y, z)``. Each program runs in
a child process (kernel output goes through the C library's stdout), and its output is compared
with the text Python's own ``print`` gives for the same values."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import ember
import numpy as np
import pytest
from ember import cuda

RNG = np.random.default_rng(20261127)


def run(program: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(program)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done


def c_format(value) -> str:
    """How the kernel prints ``value`` (Numba's formats: ``%f`` for floats)."""
    if isinstance(value, tuple):
        items = [c_format(v) for v in value]
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    if isinstance(value, (float, np.floating)):
        return f"{value:f}"
    return str(value)


def test_print_items_of_every_kind_one_line_per_thread():
    ints = RNG.integers(-(2**62), 2**62, size=4)
    floats = RNG.standard_normal(4) * 1000
    u = int(RNG.integers(2**63, 2**64, dtype=np.uint64))
    done = run(f"""
        import numpy as np
        from ember import cuda

        @cuda.jit
        def show(ints, floats, u, t):
            i = cuda.grid(1)
            print(i, ints[i], floats[i], np.float32(floats[i]), "a 100% string", ints[i] > 0, np.uint64(u), t)
            print()

        ints = cuda.to_device(np.array({ints.tolist()}, dtype=np.int64))
        floats = cuda.to_device(np.array({floats.tolist()!r}))
        show[2, 2](ints, floats, np.uint64({u}), (7, ((2, -4), 3.5), (4,), True))
        cuda.synchronize()
        print("after the kernel")
    """)
    expected = []
    for i in range(4):
        items = [i, int(ints[i]), floats[i], float(np.float32(floats[i])), "a 100% string", bool(ints[i] > 0), u,
                 (7, ((2, -4), 3.5), (4,), True)]
        expected.append(" ".join(c_format(v) for v in items))
    lines = done.stdout.splitlines()
    # Threads print in any order, each call's line whole; the synchronisation writes them out
    # before the host's next line.
    assert lines[-1] == "after the kernel"
    assert sorted(x for x in lines[:-1] if x) == sorted(expected) and lines[:-1].count("") == 4


def test_print_of_thread_geometry_and_an_empty_print():
    done = run("""
        from ember import cuda

        @cuda.jit
        def where():
            print(cuda.threadIdx, cuda.blockIdx)

        where[2, (2, 1, 2)]()
        cuda.synchronize()
    """)
    expected = [f"{(x, 0, z)} {(b, 0, 0)}" for b in range(2) for x in range(2) for z in range(2)]
    assert sorted(done.stdout.splitlines()) == sorted(expected)


def test_print_of_more_than_32_items_prints_its_format_and_warns():
    done = run("""
        import numpy as np
        from ember import cuda

        @cuda.jit
        def many(r):
            print(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14],
                  r[15], r[16], r[17], r[18], r[19], r[20], r[21], r[22], r[23], r[24], r[25], r[26], r[27], r[28],
                  r[29], r[30], r[31], r[32], 1.5)

        many[1, 1](cuda.to_device(np.arange(33)))
        cuda.synchronize()
    """)
    assert done.stdout.strip() == " ".join(["%lld"] * 33 + ["%f"])
    assert "CUDA print() cannot print more than 32 items" in done.stderr


def test_print_output_is_flushed_at_synchronize(capfd):
    @cuda.jit
    def hello(x):
        print("hello", x)

    hello[1, 1](41)
    cuda.synchronize()
    assert capfd.readouterr().out == "hello 41\n"


@pytest.mark.parametrize("body, message", [
    ("print(a)", "print() of array"),
    ("print(1j * a[0])", "print() of complex128 is not supported"),
    ("print(1, end='')", "print takes no keyword arguments"),
    ("x = 'text'", 'the string "text" is not supported in kernels except as an argument of print()'),
    ("print(cuda.threadIdx + 1)", "cuda.threadIdx is used here as a whole"),
])
def test_what_print_refuses(body, message):
    namespace = {"cuda": cuda}
    exec(f"def bad(a):\n    {body}\n", namespace)
    kernel = cuda.jit(namespace["bad"])
    with pytest.raises(ember.JitError, match=message.replace("(", r"\(").replace(")", r"\)")):
        kernel[1, 1](cuda.to_device(np.zeros(2)))


def test_print_kernels_compile_as_cuda_c():
    from conftest import nvrtc_or_skip

    nvrtc_or_skip()

    def show(a, t):
        i = cuda.grid(1)
        print(i, a[i], a[i] > 0, "50%", t, cuda.blockDim)

    ptx, _ = cuda.compile_ptx(show, "void(float32[::1], UniTuple(int64 x 2))")
    assert "vprintf" in ptx
