"""Numba's result types (numba-cuda 0.30) in ``@cuda.jit`` code: the type the compiler gives
a function's result for given argument types (no device needed). The values that only come
out right in those types are the other ``test_jit_*.py`` files' (see ``jit_kernels``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ember import cuda
from jit_harness import HALF, result_type
from numpy import float32


def add(a, b):
    return a + b


def true_div(a, b):
    return a / b


def floor_div(a, b):
    return a // b


def power(a, b):
    return a ** b


def bit_and(a, b):
    return a & b


def shift_left(a, b):
    return a << b


def shift_right(a, b):
    return a >> b


def invert(a):
    return ~a


def negate(a):
    return -a


def less(a, b):
    return a < b


def times_two(a):
    return a * 2


def squared(a):
    return a ** 2


def int_then_float(x, flag):
    v = x
    if flag:
        v = x * 0.5
    return v


def one_then(x, flag):
    v = 1
    if flag:
        v = x
    return v


def first_index(n):
    for i in range(n):
        return i
    return n


def math_sqrt(x):
    return math.sqrt(x)


def math_floor(x):
    return math.floor(x)


def math_atan2(y, x):
    return math.atan2(y, x)


def math_isnan(x):
    return math.isnan(x)


def builtin_abs(x):
    return abs(x)


def builtin_round(x):
    return round(x)


def builtin_round_to(x, n):
    return round(x, n)


def builtin_int(x):
    return int(x)


def builtin_float(x):
    return float(x)


def cast_float32(x):
    return float32(x)


def cast_int32(x):
    return np.int32(x)


def thread_x():
    return cuda.threadIdx.x


def grid_1():
    return cuda.grid(1)


def grid_2():
    return cuda.grid(2)


def warp_size():
    return cuda.warpsize


def global_half():
    return HALF


TYPING = [
    (add, ["int32", "int32"], "int64"),
    (add, ["int8", "uint8"], "int64"),
    (add, ["uint32", "uint32"], "uint64"),
    (add, ["uint64", "int64"], "int64"),
    (add, ["bool", "bool"], "int64"),
    (add, ["float32", "int8"], "float32"),
    (add, ["float32", "int16"], "float32"),
    (add, ["float32", "uint8"], "float32"),
    (add, ["float32", "bool"], "float32"),
    (add, ["float32", "int32"], "float64"),
    (add, ["float32", "int64"], "float64"),
    (add, ["float32", "uint16"], "float64"),
    (add, ["float32", "uint32"], "float64"),
    (add, ["float32", "uint64"], "float64"),
    (add, ["float32", "float64"], "float64"),
    (add, ["complex64", "float32"], "complex64"),
    (add, ["complex64", "int64"], "complex128"),
    (times_two, ["float32"], "float64"),
    (times_two, ["int8"], "int64"),
    (squared, ["float32"], "float32"),
    (power, ["float32", "int32"], "float32"),
    (power, ["int32", "int32"], "int64"),
    (power, ["float32", "float64"], "float64"),
    (true_div, ["int32", "int32"], "float64"),
    (true_div, ["uint8", "uint8"], "float64"),
    (true_div, ["float32", "float32"], "float32"),
    (floor_div, ["int16", "int16"], "int64"),
    (floor_div, ["float32", "float32"], "float32"),
    (bit_and, ["bool", "bool"], "bool"),
    (bit_and, ["bool", "int32"], "int64"),
    (bit_and, ["uint8", "uint16"], "uint64"),
    (shift_left, ["int8", "int64"], "int64"),
    (shift_right, ["uint32", "int64"], "uint64"),
    (invert, ["bool"], "bool"),
    (invert, ["int16"], "int64"),
    (invert, ["uint8"], "uint64"),
    (negate, ["bool"], "int64"),
    (negate, ["int8"], "int64"),
    (negate, ["float32"], "float32"),
    (less, ["int32", "float32"], "bool"),
    (int_then_float, ["int64", "bool"], "float64"),
    (int_then_float, ["int32", "bool"], "float64"),
    (one_then, ["uint64", "bool"], "float64"),
    (one_then, ["int32", "bool"], "int64"),
    (first_index, ["int16"], "int32"),
    (first_index, ["int32"], "int32"),
    (first_index, ["int64"], "int64"),
    (first_index, ["uint32"], "uint64"),
    (math_sqrt, ["float32"], "float32"),
    (math_sqrt, ["float64"], "float64"),
    (math_sqrt, ["int32"], "float64"),
    (math_sqrt, ["int64"], "float64"),
    (math_floor, ["float32"], "float32"),
    (math_floor, ["int64"], "float64"),
    (math_atan2, ["float32", "float32"], "float32"),
    (math_atan2, ["float32", "float64"], "float64"),
    (math_isnan, ["float32"], "bool"),
    (math_isnan, ["int64"], "bool"),
    (builtin_abs, ["int8"], "int8"),
    (builtin_abs, ["uint16"], "uint16"),
    (builtin_abs, ["float32"], "float32"),
    (builtin_abs, ["complex64"], "float32"),
    (builtin_round, ["float32"], "int64"),
    (builtin_round, ["float64"], "int64"),
    (builtin_round_to, ["float32", "int64"], "float32"),
    (builtin_round_to, ["float64", "int64"], "float64"),
    (builtin_int, ["float32"], "int64"),
    (builtin_float, ["int32"], "float64"),
    (cast_float32, ["int64"], "float32"),
    (cast_int32, ["float64"], "int32"),
    (thread_x, [], "int32"),
    (grid_1, [], "int64"),
    (grid_2, [], "(int64, int64)"),
    (warp_size, [], "int32"),
    (global_half, [], "float32"),
]


@pytest.mark.parametrize("fn, types, want", TYPING, ids=[f"{f.__name__}({','.join(t)})" for f, t, _ in TYPING])
def test_results_have_numbas_types(fn, types, want):
    assert result_type(fn, *types) == want
