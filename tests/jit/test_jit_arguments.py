"""What Numba lets a kernel or device function take besides arrays and numbers: compile-time
arguments of device functions (a dtype, an intrinsic or device function, a shape constant:
the callee is specialised per value, see ``ember/_jit/bindings.py``), tuples and namedtuples
of scalars as kernel arguments (passed by value, item by item; ``UniTuple``/``Tuple`` in
signatures), and Enum/IntEnum members (globals and arguments). Results are checked against the
same functions run by Python on the host (or NumPy) on seeded inputs; the CUDA C of the kernels
compiles through NVRTC, the OpenCL C runs on this machine's device."""

from __future__ import annotations

import enum
from collections import namedtuple

import ember
import numpy as np
import pytest
from ember import cuda, float32, float64, int32, types, uint32
from ember._jit import kernel_source
from ember.errors import JitError

# ---- compile-time arguments of device functions ----


@cuda.jit(device=True)
def cast_none(x):
    return x


@cuda.jit(device=True)
def cast_int(x):
    return int(x)


@cuda.jit(device=True)
def histogram_shared(ary, idx, op2, ary_dtype, nelem, binop, cast, init):
    # numba-cuda's test_atomics helper: a dtype, a shape, an intrinsic and a device function
    # arrive as arguments.
    tid = cuda.threadIdx.x
    sm = cuda.shared.array(nelem, ary_dtype)
    sm[tid] = init
    cuda.syncthreads()
    b = cast(idx[tid] % nelem)
    binop(sm, b, op2)
    cuda.syncthreads()
    ary[tid] = sm[tid]


@cuda.jit
def histogram_u32(ary, idx):
    histogram_shared(ary, idx, 1, uint32, 32, cuda.atomic.add, cast_none, 0)


@cuda.jit
def histogram_f64_sub(ary, idx):
    histogram_shared(ary, idx, 1.5, np.float64, 32, cuda.atomic.sub, cast_int, 100)


@cuda.jit
def histogram_two_ways(a, b, idx):
    # Two specialisations of one device function in one kernel.
    histogram_shared(a, idx, 2, np.int32, 32, cuda.atomic.add, cast_none, 0)
    histogram_shared(b, idx, 3, float32, 32, cuda.atomic.max, cast_int, 0)


def test_dtype_intrinsic_and_function_arguments_specialise_the_callee(rng):
    idx = rng.integers(0, 1000, 32).astype(np.uint32)
    out = ember.zeros(32, np.uint32)
    histogram_u32[1, 32](out, ember.asarray(idx))
    np.testing.assert_array_equal(out.get(), np.bincount(idx % 32, minlength=32).astype(np.uint32))

    out = ember.zeros(32, np.float64)
    histogram_f64_sub[1, 32](out, ember.asarray(idx))
    np.testing.assert_array_equal(out.get(), 100 - 1.5 * np.bincount(idx % 32, minlength=32))

    a, b = ember.zeros(32, np.int32), ember.zeros(32, np.float32)
    histogram_two_ways[1, 32](a, b, ember.asarray(idx))
    counts = np.bincount(idx % 32, minlength=32)
    np.testing.assert_array_equal(a.get(), 2 * counts)
    np.testing.assert_array_equal(b.get(), np.where(counts > 0, 3, 0).astype(np.float32))


@cuda.jit(device=True)
def convert(x, dt):
    return dt(x)


@cuda.jit(device=True)
def apply(f, x):
    return f(x)


@cuda.jit(device=True)
def twice(x):
    return 2 * x


@cuda.jit(device=True)
def square(x):
    return x * x


@cuda.jit
def conversions(x, f32, np32, i8, u8, mapped):
    i = cuda.grid(1)
    if i < x.size:
        f32[i] = convert(x[i], float32)
        np32[i] = convert(x[i], np.float32)
        i8[i] = convert(x[i], np.int8)
        u8[i] = convert(x[i], np.uint8)
        mapped[i] = apply(twice, x[i]) + apply(square, x[i]) + apply(abs, x[i])


def test_types_cast_and_functions_are_called_where_they_are_passed(rng):
    x = rng.integers(-300, 300, 100).astype(np.int64)
    outs = [ember.zeros(100, d) for d in (np.float32, np.float32, np.int8, np.uint8, np.int64)]
    conversions[4, 32](ember.asarray(x), *outs)
    np.testing.assert_array_equal(outs[0].get(), x.astype(np.float32))
    np.testing.assert_array_equal(outs[1].get(), x.astype(np.float32))
    np.testing.assert_array_equal(outs[2].get(), x.astype(np.int8))  # wraps, as C and NumPy do
    np.testing.assert_array_equal(outs[3].get(), x.astype(np.uint8))
    np.testing.assert_array_equal(outs[4].get(), 2 * x + x * x + np.abs(x))


@cuda.jit(device=True)
def local_sum(n, v):
    buf = cuda.local.array(n, np.int64)
    for k in range(buf.shape[0]):
        buf[k] = v + k
    s = 0
    for k in range(buf.shape[0]):
        s += buf[k]
    return s


@cuda.jit(device=True)
def local_2d(shape, v):
    buf = cuda.local.array(shape, np.float64)
    for r in range(shape[0]):
        for c in range(shape[1]):
            buf[r, c] = v * r + c
    return buf[shape[0] - 1, shape[1] - 1]


@cuda.jit
def shapes(out, v):
    out[0] = local_sum(4, v)
    out[1] = local_sum(7, v)
    out[2] = local_2d((2, 3), v)


def test_shape_constants_are_bound_where_a_local_array_needs_them():
    out = ember.zeros(3, np.float64)
    shapes[1, 1](out, 5)
    np.testing.assert_array_equal(out.get(), [sum(5 + k for k in range(4)), sum(5 + k for k in range(7)), 5 + 2])
    # One device function per distinct shape.
    src = kernel_source(shapes, ["float64[::1]", "int64"], "opencl")
    assert src.count("local_sum") >= 2


@cuda.jit(device=True)
def wrapped_index(ary, wrap, cast):
    # numba-cuda's test_atomics 2-d helper: with wrap=False the caller's constant leaves the
    # branch untyped, where (int64, uint64) -> (int64, int64) would unify to float64 indices.
    b = (cuda.threadIdx.x, cast(cuda.threadIdx.y))
    if wrap:
        b = (b[0] % ary.shape[0], b[1] % ary.shape[1])
    cuda.atomic.add(ary, b, 1)


@cuda.jit(device=True)
def to_u64(x):
    return np.uint64(x)


@cuda.jit(device=True)
def flag_assigned(x, flag):
    if x > 2:
        flag = not flag
    return 10 * x + flag


@cuda.jit
def constant_flags(ary, out):
    wrapped_index(ary, False, to_u64)
    if not True:
        out[0] = ary  # never typed, as in Numba: a constant condition prunes its branch
    for i in range(out.size):
        out[i] = flag_assigned(i, True)  # assigned in the callee: an ordinary bool argument


def test_constant_conditions_leave_the_other_branch_untyped():
    ary = ember.zeros((4, 8), np.uint32)
    out = ember.zeros(4, np.int64)
    constant_flags[1, (4, 8)](ary, out)
    np.testing.assert_array_equal(ary.get(), np.ones((4, 8), np.uint32))
    np.testing.assert_array_equal(out.get(), [10 * i + (i <= 2) for i in range(4)])


@cuda.jit(device=True)
def assigns_its_type(x, dt):
    dt = 1
    return x + dt


@cuda.jit
def calls_assigns_its_type(out):
    out[0] = assigns_its_type(1, np.float32)


@cuda.jit(device=True)
def runtime_shape(n):
    buf = cuda.local.array(n, np.int32)
    return buf[0]


@cuda.jit
def calls_runtime_shape(out, n):
    out[0] = runtime_shape(n)


def test_compile_time_argument_errors():
    with pytest.raises(JitError, match="parameter 'dt' is bound to a compile-time value"):
        calls_assigns_its_type[1, 1](ember.zeros(1, np.float32))
    # A shape must still be known when compiling: a kernel argument is not.
    with pytest.raises(JitError, match="the shape must be a constant integer"):
        calls_runtime_shape[1, 1](ember.zeros(1, np.int32), 4)


# ---- tuples and namedtuples as kernel arguments ----

Point = namedtuple("Point", "x y z")


@cuda.jit
def tuple_reader(t, out):
    out[0] = t[0]
    out[1] = t[1]
    out[2] = len(t)
    a, b = t
    out[3] = a * b
    out[4] = t[-1]


@cuda.jit
def tuple_sum(t, out):
    s = 0
    for v in t:
        s += v
    out[0] = s
    out[1] = len(t)


@cuda.jit
def empty_tuple(t, out):
    out[0] = len(t)


def host(kernel, *args):
    """The kernel's Python function run on the host (one thread: no geometry is read)."""
    kernel.py_func(*args)


@pytest.mark.parametrize("t", [(3, 4), (3, 4.5), (np.int32(-7), np.float32(1.25)), (True, 2),
                               (np.uint8(200), np.int16(-3))], ids=str)
def test_tuples_are_passed_by_value(t):
    got, want = ember.zeros(5, np.float64), np.zeros(5, np.float64)
    tuple_reader[1, 1](t, got)
    host(tuple_reader, t, want)
    np.testing.assert_array_equal(got.get(), want)


def test_tuple_iteration_namedtuples_and_the_empty_tuple(rng):
    t = tuple(int(v) for v in rng.integers(-50, 50, 6))
    got, want = ember.zeros(2, np.int64), np.zeros(2, np.int64)
    tuple_sum[1, 1](t, got)
    host(tuple_sum, t, want)
    np.testing.assert_array_equal(got.get(), want)

    p = Point(1, 2, 3)
    tuple_sum[1, 1](p, got)
    np.testing.assert_array_equal(got.get(), [6, 3])
    out = ember.full(1, -1, np.int64)
    empty_tuple[1, 1]((), out)
    assert out.get()[0] == 0


@cuda.jit
def nested(t, out):
    out[0] = len(t)
    out[1] = t[0][1]
    out[2] = t[1]
    out[3] = len(t[2])
    (a, b), c, _ = t
    out[4] = a * b + c


@pytest.mark.parametrize("t", [((1, 2.5), 3, ()), ((np.int8(-2), np.float32(0.5)), True, ((), ())),
                               ((7, 8), 9, (1, (2, 3)))], ids=str)
def test_nested_tuples_are_passed_scalar_by_scalar(t):
    got, want = ember.zeros(5, np.float64), np.zeros(5, np.float64)
    nested[1, 1](t, got)
    host(nested, t, want)
    np.testing.assert_array_equal(got.get(), want)


@cuda.jit
def fields(p, out):
    out[0] = p.x
    out[1] = p.y
    out[2] = p.z + p[0]


Reversed = namedtuple("Reversed", "z y x")


def test_namedtuple_fields_are_read_by_name():
    for p in (Point(1, 2, 3.5), Point(np.int32(4), 5.5, np.float32(6)), Reversed(1, 2, 3), Reversed(7, 8.5, 9)):
        got, want = ember.zeros(3, np.float64), np.zeros(3, np.float64)
        fields[1, 1](p, got)
        host(fields, p, want)
        np.testing.assert_array_equal(got.get(), want)
    # Same types, other names: another specialisation (the names are part of the key).
    got = ember.zeros(3, np.float64)
    fields[1, 1](Point(1, 2, 3), got)
    np.testing.assert_array_equal(got.get(), [1, 2, 4])
    fields[1, 1](Reversed(1, 2, 3), got)
    np.testing.assert_array_equal(got.get(), [3, 2, 2])
    with pytest.raises(JitError, match="has no attribute 'x'"):
        fields[1, 1]((1, 2, 3), got)


def test_each_tuple_type_is_a_specialisation():
    got = ember.zeros(5, np.float64)
    tuple_reader[1, 1]((1, 2), got)
    tuple_reader[1, 1]((1, 2.5), got)
    tuple_reader[1, 1]((1, 2), got)
    found = tuple_reader.overloads
    assert (types.UniTuple(types.int64, 2), types.float64[::1]) in found
    assert (types.Tuple((types.int64, types.float64)), types.float64[::1]) in found


def test_tuple_types_in_explicit_signatures():
    @cuda.jit("void(UniTuple(int32 x 2), float64[::1])")
    def product(t, out):
        out[0] = t[0] * t[1]

    @cuda.jit((types.Tuple((int32, float64)), float64[::1]))
    def mixed(t, out):
        out[0] = t[0] + t[1]

    out = ember.zeros(1, np.float64)
    product[1, 1]((6, 7), out)
    assert out.get()[0] == 42
    mixed[1, 1]((2, 0.5), out)
    assert out.get()[0] == 2.5
    with pytest.raises(TypeError, match="no signature"):
        product[1, 1]((1, 2, 3), out)


def test_tuples_of_other_things_are_refused_clearly():
    out = ember.zeros(5, np.float64)
    with pytest.raises(TypeError, match="cannot pass a tuple holding a str to a kernel"):
        tuple_reader[1, 1]((1, ("a", 2)), out)
    with pytest.raises(TypeError, match="cannot pass a tuple holding a dict to a kernel"):
        tuple_reader[1, 1]((1, {}), out)


@cuda.jit
def tuple_of_arrays(x, scale):
    i = cuda.grid(1)
    if i < len(x[0]):
        x[0][i] = x[1][i] + x[2][0][i] * scale.k + x[2][1]


Scale = namedtuple("Scale", ["k"])


def test_tuples_hold_arrays_written_in_place_and_copied_back(rng):
    # numba-cuda's test_array_args: arrays in (named)tuples are the arrays, host ones copied
    # in and back; nesting, strided views and scalars mix.
    n = 37
    host_out = np.zeros(n)
    a = rng.standard_normal(n)
    b = ember.asarray(rng.standard_normal(2 * n))[::2]  # a strided view
    tuple_of_arrays[1, 64]((host_out, a, (b, 1.5)), Scale(3.0))
    np.testing.assert_allclose(host_out, a + b.get() * 3.0 + 1.5, atol=1e-14)  # contracted: an FMA
    dev_out = ember.zeros(n)
    tuple_of_arrays[1, 64]((dev_out, ember.asarray(a), (b, -1)), Scale(2.0))
    np.testing.assert_allclose(dev_out.get(), a + b.get() * 2.0 - 1, atol=1e-14)


# ---- Enum and IntEnum ----


class Color(enum.Enum):
    red = 1
    green = 2


class Shape(enum.IntEnum):
    circle = 1
    square = 2


class Request(enum.IntEnum):
    not_found = 404
    internal_error = 500


@cuda.jit
def enums(x, out):
    out[0] = Color.red == Color.green
    out[1] = Color["red"] == Color.red
    if x > Request.internal_error:
        out[2] = x - Request.not_found
    else:
        out[2] = x + Shape.circle
    out[3] = int32(Request.not_found)


@cuda.jit
def enum_args(a, b, out):
    out[0] = a == b
    out[1] = a != b


@pytest.mark.parametrize("x", [300, 450, 550])
def test_enum_members_in_kernels(x):
    got, want = ember.zeros(4, np.int64), np.zeros(4, np.int64)
    enums[1, 1](x, got)
    host(enums, x, want)
    np.testing.assert_array_equal(got.get(), want)


@pytest.mark.parametrize("a,b", [(Color.red, Color.red), (Color.red, Color.green), (Shape.circle, Shape.square),
                                 (Shape.square, 2), (Request.not_found, Request.not_found)], ids=str)
def test_enum_arguments_are_their_values(a, b):
    got, want = ember.zeros(2, np.bool_), np.zeros(2, np.bool_)
    enum_args[1, 1](a, b, got)
    host(enum_args, a, b, want)
    np.testing.assert_array_equal(got.get(), want)


# ---- both dialects ----

CASES = [
    (histogram_u32, ["uint32[::1]", "uint32[::1]"]),
    (histogram_two_ways, ["int32[::1]", "float32[::1]", "uint32[::1]"]),
    (conversions, ["int64[::1]", "float32[::1]", "float32[::1]", "int8[::1]", "uint8[::1]", "int64[::1]"]),
    (shapes, ["float64[::1]", "int64"]),
    (tuple_reader, ["UniTuple(int64 x 2)", "float64[::1]"]),
    (tuple_reader, ["Tuple(int32, float32)", "float64[::1]"]),
    (tuple_sum, ["UniTuple(int64 x 3)", "int64[::1]"]),
    (empty_tuple, ["Tuple()", "int64[::1]"]),
    (nested, ["Tuple(UniTuple(int64 x 2), int64, Tuple(int32, UniTuple(float32 x 2)))", "float64[::1]"]),
    (enums, ["int64", "int64[::1]"]),
]


def test_the_cuda_c_compiles_through_nvrtc():
    from conftest import nvrtc_or_skip

    nvrtc_or_skip()
    for kernel, types_ in CASES:
        src = kernel_source(kernel, types_, "cuda")
        name = src.rsplit('extern "C" __global__ void ', 1)[1].split("(", 1)[0]
        assert ember._ember.nvrtc_compile(src, name, "sm_90", [])[:4] == b"\x7fELF", (kernel, types_)


def test_opencl_hoists_device_functions_shared_arrays_into_the_kernel():
    src = kernel_source(histogram_two_ways, CASES[1][1], "opencl")
    # The kernel declares both specialisations' arrays; the device functions take pointers.
    assert src.count("__local int ember_sh") + src.count("__local float ember_sh") == 2, src
    assert "__local int* ember_sh" in src and "__local float* ember_sh" in src, src
