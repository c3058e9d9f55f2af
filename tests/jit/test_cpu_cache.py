"""``cache=True`` for functions compiled for the CPU: a second process loads the machine code
from ember's disk cache instead of compiling, the loaded code gives the same numbers and raises
the same exceptions, and a damaged entry or a changed function is compiled again."""

import glob
import json
import os

import numpy as np
import pytest
from conftest import run_python

# Functions whose code calls C's math library, ember's routines (new arrays, parallel loops),
# other compiled functions, and raises: every kind of name the loaded code must find again.
PROGRAM = '''
import json, math, sys
import numpy as np
import ember

@ember.njit(cache=True)
def scaled(x, k):
    if k == 0.0:  # more than one expression: a call, not inlined
        return 0.0
    return math.sin(x) * k

@ember.njit(cache=True)
def smooth(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = scaled(a[i], 2.0) + a[i] ** 3
    return out, out.sum()

@ember.njit(cache=True, parallel=True)
def norm_inf(a):
    top = 0.0
    for i in ember.prange(a.shape[0]):
        top = max(top, abs(a[i]))
    return top

@ember.njit(cache=True)
def checked(n):
    if n < 0:
        raise ValueError("n must not be negative")
    total = 0
    for i in range(n):
        total += i * i
    return total

a = np.random.default_rng(7).standard_normal(1000)
out, total = smooth(a)
try:
    checked(-1)
    raised = None
except ValueError as e:
    raised = str(e)
result = {
    "out": out.tolist(), "total": total, "norm": norm_inf(a), "sum_squares": checked(10),
    "raised": raised, "a": a.tolist(),
    "hits": sum(sum(f.stats.cache_hits.values()) for f in (smooth, norm_inf, checked)),
    "misses": sum(sum(f.stats.cache_misses.values()) for f in (smooth, norm_inf, checked)),
    "path": smooth.stats.cache_path,
}
print(json.dumps(result))
'''


def run(env):
    proc = run_python(PROGRAM, env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def check_numbers(r):
    a = np.array(r["a"])
    want = np.sin(a) * 2.0 + a ** 3
    np.testing.assert_allclose(r["out"], want, rtol=1e-15, atol=1e-15)
    assert r["total"] == pytest.approx(np.array(r["out"]).sum(), rel=1e-13)
    assert r["norm"] == np.abs(a).max()
    assert r["sum_squares"] == sum(i * i for i in range(10))
    assert r["raised"] == "n must not be negative"


def entries(tmp_path):
    return sorted(glob.glob(os.path.join(tmp_path, "kernels", "*.bin")))


def test_a_second_process_loads_the_code_and_gets_the_same_results(tmp_path):
    env = {"EMBER_CACHE_DIR": str(tmp_path)}
    first = run(env)
    check_numbers(first)
    assert (first["hits"], first["misses"]) == (0, 3)
    assert first["path"] == os.path.join(str(tmp_path), "kernels")
    # One entry per specialisation of the three functions called from Python.
    assert len(entries(tmp_path)) == 3

    second = run(env)
    assert (second["hits"], second["misses"]) == (3, 0), "a second process must load, not compile"
    assert second["out"] == first["out"] and second["total"] == first["total"]
    check_numbers(second)

    # A damaged entry is compiled again, never run.
    for path in entries(tmp_path):
        with open(path, "r+b") as f:
            f.seek(100)
            f.write(b"\xde\xad\xbe\xef")
    third = run(env)
    assert (third["hits"], third["misses"]) == (0, 3)
    check_numbers(third)
    assert run(env)["hits"] == 3


def test_a_changed_function_or_new_argument_types_are_compiled_again(tmp_path):
    env = {"EMBER_CACHE_DIR": str(tmp_path)}
    template = (
        "import ember, numpy as np\n"
        "@ember.njit(cache=True)\n"
        "def f(a):\n"
        "    return a.sum() * {k}\n"
        "print(f(np.arange(5, dtype={dtype})), sum(f.stats.cache_hits.values()))\n"
    )

    def call(k, dtype):
        proc = run_python(template.format(k=k, dtype=dtype), env)
        assert proc.returncode == 0, proc.stderr
        value, hits = proc.stdout.split()
        return float(value), int(hits)

    assert call(2, "np.int64") == (20.0, 0)
    assert call(2, "np.int64") == (20.0, 1)
    assert call(3, "np.int64") == (30.0, 0)  # another constant: another function
    assert call(2, "np.float32") == (20.0, 0)  # other argument types
    assert len(entries(tmp_path)) == 3


def test_without_the_disk_cache_nothing_is_written(tmp_path):
    code = (
        "import ember\n"
        "f = ember.njit(cache=True)(lambda x: x + 1)\n"
        "print(f(1), f.stats.cache_path)\n"
    )
    proc = run_python(code, {"EMBER_CACHE_DIR": str(tmp_path), "EMBER_DISK_CACHE": "0"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["2", "None"]
    assert entries(tmp_path) == []
