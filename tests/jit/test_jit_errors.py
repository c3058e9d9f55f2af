"""Bad ``@cuda.jit`` programs: each fails with the exception Numba (or Python) raises, and a
compile-time ``JitError`` names this file, the line, and underlines the offending code.
Nothing here may crash, hang or panic the process."""

import inspect
import math  # noqa: F401  (kernels below resolve it)
import os
import subprocess
import sys

import ember
import numpy as np
import pytest
from ember import cuda

THIS_FILE = os.path.abspath(__file__)
LAUNCH_HELP = (
    "Kernel launch configuration was not specified. Use the syntax:\n\n"
    "kernel_function[blockspergrid, threadsperblock](arg0, arg1, ..., argn)"
)


def plain_python(x):
    return x + 1


@cuda.jit(device=True)
def double(x):
    return x * 2


@cuda.jit
def a_kernel(a):
    a[0] = 1


@cuda.jit(device=True)
def countdown(n):
    if n <= 0:
        return 0
    return countdown(n - 1) + 1


@cuda.jit(device=True)
def ping(n):
    if n <= 0:
        return 0
    return pong(n - 1)


@cuda.jit(device=True)
def pong(n):
    return ping(n - 1)


@cuda.jit(device=True)
def positive_or_nothing(x):
    if x > 0:
        return 1


# ---- kernels with one mistake each ----


@cuda.jit
def uses_with(a):
    with open("f"):
        a[0] = 1


@cuda.jit
def uses_try(a):
    try:
        a[0] = 1
    except Exception:
        pass


@cuda.jit
def uses_raise(a):
    raise


@cuda.jit
def uses_nested_def(a):
    def inner():
        return 1
    a[0] = 1


@cuda.jit
def uses_global(a):
    global SOMETHING
    SOMETHING = 1
    a[0] = 1


@cuda.jit
def uses_del(a):
    x = 1
    del x


@cuda.jit
def uses_import(a):
    import os  # noqa: F401
    a[0] = 1


@cuda.jit
def uses_assert(a):
    assert a[0] == 0, a[1]


@cuda.jit
def list_display(a):
    x = [1, 2]  # noqa: F841


@cuda.jit
def dict_display(a):
    x = {1: 2}  # noqa: F841


@cuda.jit
def set_display(a):
    x = {1, 2}  # noqa: F841


@cuda.jit
def list_comprehension(a):
    x = [i for i in range(3)]  # noqa: F841


@cuda.jit
def generator_expression(a):
    x = (i for i in range(3))  # noqa: F841


@cuda.jit
def uses_lambda(a):
    f = lambda y: y  # noqa: E731, F841


@cuda.jit
def lambda_capturing_a_local(a):
    x = 1
    f = lambda: x  # noqa: E731, F841
    a[0] = x


@cuda.jit
def f_string(a):
    s = f"{a[0]}"  # noqa: F841


@cuda.jit
def string_constant(a):
    s = "text"  # noqa: F841


@cuda.jit
def matmul_operator(a):
    a[0] = a[0] @ a[1]


@cuda.jit
def starred_target(a):
    x, *rest = (1, 2, 3)  # noqa: F841


@cuda.jit
def walrus(a):
    a[0] = (y := 3)  # noqa: F841


@cuda.jit
def none_value(a):
    x = None  # noqa: F841


@cuda.jit
def changes_type(a):
    x = 0
    x = a  # noqa: F841


@cuda.jit
def unknown_name(a):
    a[0] = no_such_name  # noqa: F821


@cuda.jit
def unknown_module_attribute(a):
    a[0] = math.no_such_function(1.0)


@cuda.jit
def calls_plain_python(a):
    a[0] = plain_python(a[0])


@cuda.jit
def calls_print(a):
    print(a)


@cuda.jit
def calls_np_sum(a):
    a[0] = np.sum(a)


@cuda.jit
def recursive(a):
    a[0] = countdown(3)


@cuda.jit
def mutually_recursive(a):
    a[0] = ping(3)


@cuda.jit
def indexes_a_scalar(a, s):
    a[0] = s[0]


@cuda.jit
def stores_with_too_many_indices(a):
    a[0, 1] = 1


@cuda.jit
def loads_with_too_many_indices(a):
    a[0] = a[0, 1, 2]


@cuda.jit
def transposes_a_shared_array(a):
    s = cuda.shared.array((4, 4), np.float32)
    a[0] = s.T[0, 1]


@cuda.jit
def assigns_a_tuple_item(a):
    t = (1, 2)
    t[0] = 5


@cuda.jit
def returns_a_value(a):
    return a[0]


@cuda.jit
def shared_array_of_runtime_shape(a, n):
    s = cuda.shared.array(n, np.float32)
    s[0] = 1


@cuda.jit
def local_array_of_float_shape(a):
    s = cuda.local.array(2.5, np.float32)
    s[0] = 1


@cuda.jit
def atomic_add(a):
    cuda.atomic.add(a, 0, 1)


@cuda.jit
def device_function_falls_off_its_end(a):
    a[0] = positive_or_nothing(a[0])


@cuda.jit
def device_function_given_too_few_arguments(a):
    a[0] = double()


@cuda.jit
def truth_of_an_array(a):
    if a:
        a[0] = 1


@cuda.jit
def range_of_a_float(a):
    for i in range(2.5):
        a[0] = i


@cuda.jit
def non_ascii_names(a):
    café = 1.0
    a[0] = café + "s"


def f32():
    return ember.asarray(np.zeros(4, np.float32))


# (kernel, launch arguments, the source line's text, the underlined code, words of the message)
COMPILE_ERRORS = {
    "with": (uses_with, lambda: (f32(),), 'with open("f"):', 'with open("f"):', "with statement"),
    "try": (uses_try, lambda: (f32(),), "try:", "try:", "try statement"),
    "raise": (uses_raise, lambda: (f32(),), "raise", "raise", "bare 'raise'"),
    "nested def": (uses_nested_def, lambda: (f32(),), "def inner():", "def inner():", "nested function"),
    "global": (uses_global, lambda: (f32(),), "global SOMETHING", "global SOMETHING", "global statement"),
    "del": (uses_del, lambda: (f32(),), "del x", "del x", "del"),
    "import": (uses_import, lambda: (f32(),), "import os", "import os", "import"),
    "assert": (uses_assert, lambda: (f32(),), "assert a[0]", "a[1]", "constant arguments"),
    "list": (list_display, lambda: (f32(),), "x = [1, 2]", "[1, 2]", "list display"),
    "dict": (dict_display, lambda: (f32(),), "x = {1: 2}", "{1: 2}", "dict display"),
    "set": (set_display, lambda: (f32(),), "x = {1, 2}", "{1, 2}", "set display"),
    "list comprehension": (list_comprehension, lambda: (f32(),), "x = [i for", "[i for i in range(3)]",
                           "list comprehension"),
    "generator expression": (generator_expression, lambda: (f32(),), "x = (i for", "(i for i in range(3))",
                             "generator expression"),
    "lambda": (uses_lambda, lambda: (f32(),), "f = lambda y", "lambda y: y", "lambda"),
    "lambda capturing a local": (lambda_capturing_a_local, lambda: (f32(),), "f = lambda: x", "lambda: x",
                                 "lambda"),
    "f-string": (f_string, lambda: (f32(),), 's = f"', 'f"{a[0]}"', "f-string"),
    "string": (string_constant, lambda: (f32(),), 's = "text"', '"text"', "string"),
    "@ operator": (matmul_operator, lambda: (f32(),), "a[0] @ a[1]", "a[0] @ a[1]", "@ operator"),
    "starred": (starred_target, lambda: (f32(),), "x, *rest", "*rest", "starred"),
    ":=": (walrus, lambda: (f32(),), "(y := 3)", "y := 3", ":="),
    "None": (none_value, lambda: (f32(),), "x = None", "None", "None"),
    "type that cannot unify": (changes_type, lambda: (f32(),), "x = a", "x", "cannot unify int64 and array"),
    "unknown name": (unknown_name, lambda: (f32(),), "no_such_name", "no_such_name",
                     "name 'no_such_name' is not defined"),
    "unknown module attribute": (unknown_module_attribute, lambda: (f32(),), "math.no_such_function",
                                 "math.no_such_function", "'math' has no attribute 'no_such_function'"),
    "plain Python function": (calls_plain_python, lambda: (f32(),), "plain_python(a[0])", "plain_python(a[0])",
                              "plain Python function 'plain_python'"),
    "print": (calls_print, lambda: (f32(),), "print(a)", "a", "print() of array"),
    "np.sum": (calls_np_sum, lambda: (f32(),), "np.sum(a)", "np.sum(a)", "np.sum() is not supported"),
    "indexing a scalar": (indexes_a_scalar, lambda: (f32(), 1.5), "s[0]", "s[0]", "float64 cannot be indexed"),
    "store with too many indices": (stores_with_too_many_indices, lambda: (f32(),), "a[0, 1] = 1", "a[0, 1]",
                                    "1-d array needs 1"),
    "transposed shared array": (transposes_a_shared_array, lambda: (f32(),), "a[0] = s.T[0, 1]", "s.T",
                                "transposing shared, local or constant arrays is not supported"),
    "load with too many indices": (loads_with_too_many_indices, lambda: (f32(),), "a[0, 1, 2]", "a[0, 1, 2]",
                                   "1-d array needs 1 indices, got 3"),
    "tuple item assignment": (assigns_a_tuple_item, lambda: (f32(),), "t[0] = 5", "t[0]", "tuples cannot be changed"),
    "kernel returning a value": (returns_a_value, lambda: (f32(),), "def returns_a_value", "def returns_a_value(a):",
                                 "a kernel cannot return a value"),
    "shared array of runtime shape": (shared_array_of_runtime_shape, lambda: (f32(), 4), "cuda.shared.array(n",
                                      "n", "shape must be a constant"),
    "local array of float shape": (local_array_of_float_shape, lambda: (f32(),), "cuda.local.array(2.5", "2.5",
                                   "shape must be a constant"),
    "device function falls off its end": (device_function_falls_off_its_end, lambda: (f32(),),
                                          "def positive_or_nothing", "def positive_or_nothing(x):",
                                          "can reach its end without a return"),
    "device function given too few arguments": (device_function_given_too_few_arguments, lambda: (f32(),),
                                                "double()", "double()", "missing argument 'x'"),
    "truth of an array": (truth_of_an_array, lambda: (f32(),), "if a:", "a", "truth value"),
    "range of a float": (range_of_a_float, lambda: (f32(),), "range(2.5)", "2.5", "range() takes integers"),
    "non-ASCII names": (non_ascii_names, lambda: (f32(),), 'café + "s"', '"s"', "string"),
}


def source_line(fn, text: str) -> int:
    """The line number in this file of the first line of ``fn`` containing ``text``."""
    fn = getattr(fn, "py_func", fn)
    lines, first = inspect.getsourcelines(fn)
    body = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def ")) + 1
    start = 0 if text.startswith("def ") else body
    return first + next(i for i, line in enumerate(lines) if i >= start and text in line)


def underlined(message: str) -> str:
    """The code the carets of a located error message stand under."""
    *_, code, marks = message.splitlines()
    start = marks.index("^")
    return code[start:marks.rindex("^") + 1]


def assert_located(message: str, fn, line_text: str, code: str):
    line = source_line(fn, line_text)
    assert f"{THIS_FILE}:{line}: in " in message, message
    assert underlined(message) == code, message


@pytest.mark.parametrize("case", COMPILE_ERRORS, ids=list(COMPILE_ERRORS))
def test_bad_program_raises_jit_error_naming_file_line_and_code(case):
    kernel, args, line_text, code, words = COMPILE_ERRORS[case]
    with pytest.raises(ember.JitError) as info:
        kernel[1, 1](*args())
    message = str(info.value)
    assert words in message, message
    where = positive_or_nothing if kernel is device_function_falls_off_its_end else kernel
    assert_located(message, where, line_text, code)


def test_error_in_a_device_function_names_the_device_function():
    with pytest.raises(ember.JitError, match="in device function 'positive_or_nothing'"):
        device_function_falls_off_its_end[1, 1](f32())


@pytest.mark.parametrize(("kernel", "chain"), [(recursive, "countdown -> countdown"),
                                               (mutually_recursive, "ping -> pong -> ping")])
def test_recursion_is_rejected_on_opencl_with_the_call_chain(kernel, chain):
    """OpenCL C forbids recursion; CUDA runs it (tests/jit/test_jit_language.py)."""
    from ember._jit import kernel_source

    with pytest.raises(ember.JitError) as info:
        kernel_source(kernel, ["float32[::1]"], "opencl")
    message = str(info.value)
    assert f"recursion (call chain: {chain}) needs the CUDA backend" in message
    assert "ember_fn" in kernel_source(kernel, ["float32[::1]"], "cuda")
    first = chain.split(" -> ")[0]
    assert_located(message, globals()[first], f"def {first}(", f"def {first}(n):")


@pytest.mark.parametrize("args", [(), (1, 2, 3)], ids=["too few", "too many"])
def test_wrong_argument_count_at_launch_is_a_type_error(args):
    with pytest.raises(TypeError) as info:
        indexes_a_scalar[1, 1](*args)
    message = str(info.value)
    assert f"takes 2 argument(s) (a, s), but {len(args)} were given" in message
    assert f"{THIS_FILE}:{source_line(indexes_a_scalar, 'def indexes_a_scalar')}:" in message


@pytest.mark.parametrize("value", ["text", [1, 2], None, {"a": 1}, object()],
                         ids=["str", "list", "None", "dict", "object"])
def test_argument_of_an_unsupported_type_is_a_type_error(value):
    with pytest.raises(TypeError, match=f"cannot pass a {type(value).__name__} to kernel indexes_a_scalar"):
        indexes_a_scalar[1, 1](f32(), value)


def test_explicit_signature_with_the_wrong_argument_count_fails_at_decoration():
    with pytest.raises(TypeError, match=r"takes 2 argument\(s\) \(a, s\), but 1 were given"):
        cuda.jit("void(float32[:])")(indexes_a_scalar.py_func)


def test_explicit_signature_with_an_unknown_type_fails_at_decoration():
    with pytest.raises(TypeError, match="'flaot32' is not a type"):
        cuda.jit("void(flaot32[:])")(a_kernel.py_func)


def test_explicit_kernel_signature_with_a_return_type_is_a_type_error():
    with pytest.raises(TypeError, match=r"a kernel returns nothing, but signature 'float32\(float32\[:\]\)' "
                                        r"returns float32: write 'void\(\.\.\.\)'"):
        cuda.jit("float32(float32[:])")(a_kernel.py_func)


def test_explicit_signature_whose_body_does_not_type_fails_at_decoration():
    def store_array(a, b):
        a[0] = b

    with pytest.raises(ember.JitError) as info:
        cuda.jit("void(float32[:], float32[:])")(store_array)
    assert "cannot store a value of type array(float32, 1d, A)" in str(info.value)
    assert_located(str(info.value), store_array, "a[0] = b", "a[0]")


def store_scalar(a, s):
    a[0] = s


def test_arguments_matching_no_explicit_signature_are_a_type_error():
    kernel = cuda.jit("void(float32[:], int32)")(store_scalar)
    with pytest.raises(TypeError, match=r"no signature of kernel store_scalar matches the arguments "
                                        r"\(array\(float64, 1d, C\), int64\)"):
        kernel[1, 1](ember.zeros(4), 1)


def subtract_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] -= 1


def test_a_kernel_of_one_signature_reads_integers_of_the_same_width_as_its_own():
    # Numba binds such a kernel to its signature and passes the memory as it is.
    kernel = cuda.jit("void(int32[:])")(subtract_one)
    data = np.random.default_rng(5).integers(0, 2**32, 64, dtype=np.uint32)
    data[:3] = [0, 1, 2**31]
    got = ember.asarray(data)
    kernel[1, 64](got)
    np.testing.assert_array_equal(got.get(), (data.view(np.int32) - np.int32(1)).view(np.uint32))
    with pytest.raises(TypeError, match=r"no signature of kernel subtract_one matches the arguments "
                                        r"\(array\(float32, 1d, C\)\)"):
        kernel[1, 4](ember.zeros(4, dtype=np.float32))
    with pytest.raises(TypeError, match=r"\(array\(int64, 1d, C\)\)"):
        kernel[1, 4](ember.zeros(4, dtype=np.int64))
    two = cuda.jit(["void(int32[:])", "void(float64[:])"])(subtract_one)
    with pytest.raises(TypeError, match=r"\(array\(uint32, 1d, C\)\)"):
        two[1, 4](ember.zeros(4, dtype=np.uint32))


def test_missing_launch_configuration_is_numbas_value_error():
    with pytest.raises(ValueError) as info:
        a_kernel(f32())
    assert str(info.value) == LAUNCH_HELP


@pytest.mark.parametrize("config", [(1,), (1, 2, 3, 4, 5), (-1, 32), ((1, 2, 3, 4), 32)],
                         ids=["one item", "five items", "negative", "four dims"])
def test_bad_launch_configuration_is_a_value_error(config):
    with pytest.raises(ValueError, match="griddim|blockdim|launch configuration"):
        a_kernel[config]


@pytest.mark.parametrize("config", [(1.5, 32), (1, "32"), ((2, 2.0), 32)], ids=["float", "str", "float in tuple"])
def test_launch_configuration_of_the_wrong_type_is_a_type_error(config):
    with pytest.raises(TypeError, match="griddim|blockdim"):
        a_kernel[config]


def test_launch_configuration_messages_are_numbas():
    with pytest.raises(ValueError, match=r"griddim must be a sequence of 1, 2 or 3 integers, got \[1, 2, 3, 4\]"):
        a_kernel[(1, 2, 3, 4), 32]
    with pytest.raises(ValueError, match=r"blockdim must be a sequence of 1, 2 or 3 integers, got \[3, 4, 5, 6\]"):
        a_kernel[(1, 2), (3, 4, 5, 6)]
    with pytest.raises(TypeError, match=r"griddim must be a sequence of integers, got \[2.0\]"):
        a_kernel[2.0, 3]
    with pytest.raises(TypeError, match=r"blockdim must be a sequence of integers, got \[2, 3.0\]"):
        a_kernel[2, (2, 3.0)]


def test_launch_with_a_zero_grid_is_a_value_error_before_anything_compiles():
    @cuda.jit
    def never_compiled(a):
        a[0] = 2

    with pytest.raises(ValueError, match=r"at least 1 in every dimension, got griddim=0 and blockdim=32"):
        never_compiled[0, 32]
    with pytest.raises(ValueError, match=r"got griddim=\(4, 0\) and blockdim=32"):
        never_compiled[(4, 0), 32]
    assert never_compiled.inspect_c() == {}  # nothing was specialised


@cuda.jit
def reads_before_assigning(a):
    if a[0] > 0:
        a[1] = later + 1  # noqa: F821  (the error under test)
    later = 3
    a[2] = later


@cuda.jit
def reads_what_an_earlier_iteration_assigned(a):
    for i in range(4):
        if i > 0:
            a[i] = carried  # noqa: F821  (assigned by the previous iteration)
        carried = i * 10  # noqa: F841  (read by the next iteration)


def test_reading_a_local_before_any_assignment_is_a_jit_error():
    with pytest.raises(ember.JitError, match="local variable 'later' is used before it is assigned") as info:
        reads_before_assigning[1, 1](f32())
    assert_located(str(info.value), reads_before_assigning, "a[1] = later + 1", "later")


def test_reading_what_an_earlier_loop_iteration_assigned_is_accepted():
    a = f32()
    reads_what_an_earlier_iteration_assigned[1, 1](a)
    assert a.get().tolist() == [0, 0, 10, 20]


def test_device_function_called_from_host_is_a_type_error():
    with pytest.raises(TypeError, match="double is a device function: call it from a kernel"):
        double(2.0)


def test_device_function_launched_as_a_kernel_is_a_type_error():
    with pytest.raises(TypeError, match="double is a device function"):
        double[1, 1](f32())
    with pytest.raises(RuntimeError, match="Cannot compile a device function as a kernel"):  # Numba's
        double[1, 1](f32())


@pytest.mark.parametrize("call", [
    lambda: cuda.grid(1), lambda: cuda.syncthreads(), lambda: cuda.atomic.add(np.zeros(2), 0, 1),
    lambda: cuda.shared.array(4, np.float32), lambda: cuda.threadIdx.x(),
], ids=["grid", "syncthreads", "atomic.add", "shared.array", "threadIdx.x"])
def test_device_only_intrinsic_called_from_host_is_a_type_error(call):
    with pytest.raises(TypeError, match="can only be called inside a kernel compiled with @cuda.jit"):
        call()


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.float16, np.complex64])
def test_atomic_on_an_unsupported_dtype_is_rejected(dtype):
    with pytest.raises(ember.JitError) as info:
        atomic_add[1, 1](ember.asarray(np.zeros(4, dtype)))
    message = str(info.value)
    assert f"cuda.atomic.add() does not support arrays of {np.dtype(dtype).name}" in message
    assert_located(message, atomic_add, "cuda.atomic.add", "cuda.atomic.add(a, 0, 1)")


@cuda.jit
def atomic_add_max_min(a, v):
    i = cuda.grid(1)
    if i < v.size:
        cuda.atomic.add(a, 0, v[i])
        cuda.atomic.max(a, 1, v[i])
        cuda.atomic.min(a, 2, v[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_atomic_on_a_supported_dtype_compiles_and_matches_numpy(dtype, rng):
    # Float atomics are compare-and-swap loops on OpenCL: their C once did not compile.
    v = rng.integers(-1000, 1000, 300).astype(dtype)
    a = ember.asarray(np.array([0, -5000, 5000], dtype))
    atomic_add_max_min[3, 128](a, ember.asarray(v))
    np.testing.assert_array_equal(a.get(), [v.sum(), v.max(), v.min()])


def default_argument(a, b=1):
    a[0] = b


def star_args(a, *rest):
    a[0] = 1


def star_kwargs(a, **options):
    a[0] = 1


def keyword_only(a, *, b):
    a[0] = b


@pytest.mark.parametrize(("fn", "code"), [(default_argument, "1"), (star_args, "rest"), (star_kwargs, "options"),
                                          (keyword_only, "b")])
def test_kernel_with_defaults_or_star_arguments_is_rejected(fn, code):
    kernel = cuda.jit(fn)
    with pytest.raises(ember.JitError) as info:
        kernel[1, 1](f32(), 1)
    message = str(info.value)
    assert "kernels take plain positional parameters" in message
    assert_located(message, fn, f"def {fn.__name__}", code)


def test_break_outside_a_loop_is_pythons_own_syntax_error():
    with pytest.raises(SyntaxError):
        compile("def k(a):\n    break\n", "<kernel>", "exec")


def test_process_survives_every_bad_program():
    """Each bad program in a fresh process: every one ends in an ``Exception`` (no panic, which
    PyO3 raises as a ``BaseException``), and the process exits normally within the timeout."""
    script = (
        "import sys, ember\n"
        f"sys.path.insert(0, {os.path.dirname(THIS_FILE)!r})\n"
        "import test_jit_errors as t\n"
        "for name, (kernel, args, *_) in t.COMPILE_ERRORS.items():\n"
        "    try:\n"
        "        kernel[1, 1](*args())\n"
        "    except Exception as e:\n"
        "        print(name, '->', type(e).__name__)\n"
        "    else:\n"
        "        print(name, '-> no error')\n"
        "print('survived')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONFAULTHANDLER": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[-1] == "survived"
    assert all(line.endswith("-> JitError") for line in lines[:-1]), done.stdout
    assert len(lines) == len(COMPILE_ERRORS) + 1
