"""Every EMBER_* variable is checked when read: a bad value is a clear ValueError naming the
variable and its values, at every use, and everything else keeps working."""

import pytest
from conftest import run_python

# Tries the device twice (the error must repeat, not turn into another) and then NumPy.
PROBE = """
import ember, numpy
for _ in range(2):
    try:
        ember.arange(3).get()
        print("ran")
    except ValueError as e:
        print(type(e).__name__, e)
print(int(numpy.arange(3).sum()))
"""


@pytest.mark.parametrize(
    "name, value, expect",
    [
        ("EMBER_FUSION_MIN_SIZE", "lots", "a whole number of at least 1 (default 65536)"),
        ("EMBER_FUSION_AFTER", "0", "a whole number of at least 1 (default 2)"),
        ("EMBER_FUSION", "sometimes", "not a yes/no setting; use 1, true, on, yes or 0, false, off, no"),
        ("EMBER_DISK_CACHE", "2", "not a yes/no setting"),
        ("EMBER_CACHE_SAVE_SOURCE", "please", "not a yes/no setting"),
        ("EMBER_BACKEND", "bogus", "is not a backend; use cuda, opencl or auto"),
    ],
)
def test_a_bad_setting_is_a_value_error_naming_it(name, value, expect):
    r = run_python(PROBE, {name: value})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[-1] == "3"
    for line in lines[:2]:
        assert line.startswith(f'ValueError {name}="{value}"'), r.stdout
        assert expect in line, line


def test_good_spellings_are_accepted():
    r = run_python(
        PROBE + "print(sorted(ember._ember.settings().items()))\n",
        {
            "EMBER_FUSION": "Off",
            "EMBER_FUSION_MIN_SIZE": " 1024 ",
            "EMBER_FUSION_AFTER": "3",
            "EMBER_DISK_CACHE": "yes",
        },
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[:3] == ["ran", "ran", "3"]
    settings = dict(eval(lines[3], {"PosixPath": str}))
    assert (settings["fusion"], settings["fusion_min_size"], settings["fusion_after"]) == (False, 1024, 3)
    assert settings["disk_cache"] is True


def test_a_bad_coarsening_mode_fails_the_launch_naming_it():
    code = """
import ember, numpy as np
from ember import cuda

@cuda.jit
def twice(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] *= 2

x = ember.arange(8, dtype=ember.float32)
for _ in range(2):
    try:
        twice[1, 8](x)
        print("ran")
    except ValueError as e:
        print(e)
ember._ember.jit_coarsening("auto")
twice[1, 8](x)
print(x.get().tolist())
"""
    r = run_python(code, {"EMBER_JIT_COARSEN": "sideways"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    for line in lines[:2]:
        assert line.startswith('EMBER_JIT_COARSEN="sideways" is not valid: use off'), r.stdout
        assert "a plan such as y2 or x4" in line
    assert lines[2] == str([float(2 * k) for k in range(8)])


def test_a_bad_test_flag_is_refused():
    code = "import ember; print(ember._ember.env_flag('EMBER_PARITY_SHRINK', False))"
    r = run_python(code, {"EMBER_PARITY_SHRINK": "x"})
    assert r.returncode != 0 and 'EMBER_PARITY_SHRINK="x" is not a yes/no setting' in r.stderr
