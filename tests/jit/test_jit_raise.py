"""``raise`` and ``assert`` in kernels, as Numba has them: with ``debug=True`` (ember's checked
mode) the first thread's exception is raised after the launch, its message prefixed by the
place and the thread as Numba words it; without it a ``raise`` ends the thread silently.
Exceptions are classes or instances with constant arguments, named by globals."""

from __future__ import annotations

import re

import ember
import numpy as np
import pytest
from ember import cuda
from ember._jit import kernel_source
from ember.errors import JitError


class GridError(Exception):
    pass


LIMIT_ERROR = GridError("past the limit", 7)


@cuda.jit(device=True)
def checked_value(v, limit):
    if v > limit:
        raise LIMIT_ERROR
    return v * 2


def copy_doubled(out, x, limit):
    i = cuda.grid(1)
    if i < x.size:
        if x[i] < 0:
            raise ValueError("negative input")
        assert x[i] != 13, "unlucky"
        out[i] = checked_value(x[i], limit)


debug_copy = cuda.jit(debug=True)(copy_doubled)
quiet_copy = cuda.jit(copy_doubled)


def test_debug_mode_raises_the_first_threads_exception_with_its_place():
    x = 2 * np.arange(64, dtype=np.int64)  # even: never 13
    out = ember.zeros(64, np.int64)
    debug_copy[2, 32](out, ember.asarray(x), 1000)  # nothing raised
    np.testing.assert_array_equal(out.get(), 2 * x)

    x[40] = -5
    with pytest.raises(ValueError) as info:
        debug_copy[2, 32](out, ember.asarray(x), 1000)
    text = str(info.value)
    assert text.endswith("tid=[8, 0, 0] ctaid=[1, 0, 0]: negative input"), text
    assert re.match(r"In function 'copy_doubled', file .*test_jit_raise\.py, line \d+, ", text), text

    x[40] = 13
    with pytest.raises(AssertionError, match=r"tid=\[8, 0, 0\] ctaid=\[1, 0, 0\]: unlucky$"):
        debug_copy[2, 32](out, ember.asarray(x), 1000)


def test_instances_keep_their_arguments_and_device_functions_raise_too():
    x = 2 * np.arange(64, dtype=np.int64)  # even: never 13
    out = ember.zeros(64, np.int64)
    with pytest.raises(GridError) as info:
        debug_copy[2, 32](out, ember.asarray(x), 125)  # only x[63] > 125
    assert "In function 'checked_value'" in info.value.args[0]
    assert info.value.args[0].endswith("tid=[31, 0, 0] ctaid=[1, 0, 0]: past the limit")
    assert info.value.args[1:] == (7,)
    # The process goes on: the next launch runs clean.
    debug_copy[2, 32](out, ember.asarray(x), 1000)
    np.testing.assert_array_equal(out.get(), 2 * x)


def test_without_debug_a_raise_ends_the_thread():
    x = 2 * np.arange(64, dtype=np.int64)  # even: never 13
    x[[5, 40]] = -1
    x[20] = 13
    out = ember.full(64, -7, np.int64)
    quiet_copy[2, 32](out, ember.asarray(x), 1000)
    want = 2 * x
    want[[5, 40]] = -7  # the raising threads stopped before their write
    # assert is Python's statement: checked in either mode, as Numba compiles it.
    want[20] = -7
    np.testing.assert_array_equal(out.get(), want)


def test_raise_errors_say_what_kernels_allow():
    def bare(out):
        raise

    def chained(out):
        raise ValueError("x") from None

    def runtime_argument(out):
        raise ValueError(out[0])

    def not_an_exception(out):
        raise len

    cases = [
        (bare, "a bare 'raise'"),
        (chained, "'raise ... from ...' is not supported"),
        (runtime_argument, "constant arguments"),
        (not_an_exception, "kernels raise exception classes or instances"),
    ]
    for fn, message in cases:
        with pytest.raises(JitError, match=re.escape(message)):
            cuda.jit(fn)[1, 1](ember.zeros(1))


def test_the_cuda_c_compiles_through_nvrtc():
    from conftest import nvrtc_or_skip

    nvrtc_or_skip()
    for checked in (False, True):
        src = kernel_source(copy_doubled, ["int64[::1]", "int64[::1]", "int64"], "cuda", checked=checked)
        name = src.rsplit('extern "C" __global__ void ', 1)[1].split("(", 1)[0]
        assert ember._ember.nvrtc_compile(src, name, "sm_90", [])[:4] == b"\x7fELF"


def divides(r, x, y, n):
    r[0] = y[0] / x[0]
    r[1] = y[0]
    r[2] = y[0] / x[1] if n > 0 else 0.0  # a division that may not run is not tested ahead
    r[3] = n // (n - 3)  # integers too


def test_debug_mode_raises_zero_division_before_the_statement():
    # Numba's debug mode uses Python's error model: the division raises, nothing after runs.
    r = ember.zeros(4)
    checked = cuda.jit(debug=True)(divides)
    with pytest.raises(ZeroDivisionError, match=r"line \d+, tid=\[0, 0, 0\] ctaid=\[0, 0, 0\]: division by zero$"):
        checked[1, 1](r, ember.asarray(np.array([0.0, 2.0])), ember.asarray(np.ones(1)), 5)
    np.testing.assert_array_equal(r.get(), 0)  # halted before the first write
    checked[1, 1](r, ember.asarray(np.array([4.0, 0.0])), ember.asarray(np.ones(1)), 0)
    np.testing.assert_array_equal(r.get(), [0.25, 1.0, 0.0, 0.0])
    with pytest.raises(ZeroDivisionError):
        checked[1, 1](r, ember.asarray(np.array([4.0, 1.0])), ember.asarray(np.ones(1)), 3)
    # fastmath: float division raises nothing, even in debug mode (Numba); integers still do.
    fast = cuda.jit(debug=True, fastmath=True)(divides)
    fast[1, 1](r, ember.asarray(np.array([0.0, 2.0])), ember.asarray(np.ones(1)), 5)
    assert r.get()[0] == np.inf
    with pytest.raises(ZeroDivisionError):
        fast[1, 1](r, ember.asarray(np.array([1.0, 2.0])), ember.asarray(np.ones(1)), 3)
    # Without debug: NumPy's model (inf for floats, 0 for integers), no exception.
    cuda.jit(divides)[1, 1](r, ember.asarray(np.array([0.0, 2.0])), ember.asarray(np.ones(1)), 3)
    np.testing.assert_array_equal(r.get(), [np.inf, 1.0, 0.5, 0.0])


def test_debug_mode_raises_index_error_for_a_tuple_index_out_of_range():
    @cuda.jit(debug=True)
    def pick(out, k):
        t = (10, 20, 30)
        out[0] = t[k]

    out = ember.zeros(1, np.int64)
    pick[1, 1](out, -3)  # Python's negative index
    assert out.get()[0] == 10
    with pytest.raises(IndexError, match="tuple index out of range$"):
        pick[1, 1](out, 3)
