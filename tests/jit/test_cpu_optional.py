"""None in functions compiled for the CPU, as Numba has it: an argument passed None (its
`is None` tests known while compiling, the branch not taken left untyped), and optional
values (a variable or result that is None on some paths), checked where their value is used.
Each compiled function is compared with the same function run by Python."""

import ember
import numpy as np
import pytest
from ember import njit

RNG = np.random.default_rng(20261128)


def scale_into(x, out=None):
    if out is None:
        out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = 2.5 * x[i]
    return out


def test_an_out_argument_left_out_or_none_makes_a_new_array_and_one_given_is_written():
    f = njit(scale_into)
    x = RNG.standard_normal(9)
    np.testing.assert_array_equal(f(x), scale_into(x))
    np.testing.assert_array_equal(f(x, None), scale_into(x))
    out = np.zeros(9)
    got = f(x, out)
    assert got is not None and np.shares_memory(got, out)
    np.testing.assert_array_equal(out, scale_into(x))


def scaled(a, factor):
    if factor is None:
        return a
    return a * factor  # never typed when factor is None


def combine(a, b=None):
    total = a
    if b is not None:
        total = total + b
    return total


def calls_with_none(a):
    return scaled(a, None) + scaled(a, 3.0) + combine(a) + combine(a, 0.5)


def test_a_branch_decided_by_a_none_argument_is_not_typed_and_code_after_its_return_neither():
    f = njit(scaled)
    assert f(1.25, None) == 1.25
    assert f(1.25, 4) == 5.0
    assert njit(combine)(2.0) == 2.0 and njit(combine)(2.0, 1.5) == 3.5
    # Compiled callees get None from compiled code too.
    scaled_j, combine_j = njit(scaled), njit(combine)

    def caller(a):
        return scaled_j(a, None) + scaled_j(a, 3.0) + combine_j(a, None) + combine_j(a, 0.5)

    assert njit(caller)(1.5) == calls_with_none(1.5)


def positive_or_none(x):
    if x > 0:
        return x * 2
    return None


def falls_off_the_end(x):
    if x > 0:
        return x


def held_until_set(x):
    y = None
    if x > 0:
        y = x + 1
    return y


def picked(x):
    return x if x > 1 else None


@pytest.mark.parametrize("fn", [positive_or_none, falls_off_the_end, held_until_set, picked])
@pytest.mark.parametrize("x", [3, -2, 2.5, 0.0])
def test_results_that_are_none_on_some_paths_come_back_as_python_gives_them(fn, x):
    got, want = njit(fn)(x), fn(x)
    assert got == want and type(got) is type(want), (got, want)


def maybe_ones(n):
    a = None
    if n > 0:
        a = np.ones(n)
    return a


def test_an_optional_array_is_an_array_or_none():
    f = njit(maybe_ones)
    np.testing.assert_array_equal(f(4), np.ones(4))
    assert f(0) is None


def used_after(x):
    y = None
    if x > 0:
        y = x * 2.0
    return y + 1.0


def test_using_a_value_that_holds_none_raises_numbas_type_error_and_the_function_still_works():
    f = njit(used_after)
    assert f(2.0) == used_after(2.0)
    with pytest.raises(TypeError, match=r"^expected float64, got None$"):
        f(-1.0)
    assert f(3.0) == used_after(3.0)

    def array_used(n):
        return maybe_ones_j(n).sum()

    maybe_ones_j = njit(maybe_ones)
    g = njit(array_used)
    assert g(3) == 3.0
    with pytest.raises(TypeError, match=r"expected array\(float64, 1d\), got None"):
        g(0)


def counted(values, limit=None):
    n = 0
    best = None
    for v in values:
        if limit is not None and v > limit:
            continue
        n += 1
        if best is None or v > best:
            best = v
    return n, best


def test_a_running_optional_in_a_loop_and_a_pruned_test_inside_and():
    f = njit(counted)
    a = RNG.standard_normal(50)
    assert f(a) == counted(a)
    assert f(a, 0.5) == counted(a, 0.5)
    assert f(a, -10.0) == counted(a, -10.0)


def test_declared_optional_parameters_take_none_or_a_value():
    f = njit("float64(optional(float64))")(lambda x: 1.0 if x is None else x + 1.0)
    assert f(None) == 1.0 and f(2.0) == 3.0 and f(2) == 3.0
    with pytest.raises(TypeError):
        f((1.0,))


def test_is_compares_with_none_only_and_kernels_hold_no_none():
    def same(a, b):
        return a is b

    with pytest.raises(ember.JitError, match="'is' compares with None only"):
        njit(same)(1, 2)

    @ember.cuda.jit
    def kernel(a, n):
        x = None
        if n > 0:
            x = 1.0
        a[0] = x

    with pytest.raises(ember.JitError, match="None is not supported in kernels"):
        kernel[1, 1](ember.cuda.to_device(np.zeros(1)), 3)


def with_defaults(x, k=2, scale=None, flip=False):
    y = x * k
    if scale is not None:
        y = y * scale
    if flip:
        y = -y
    return y


def test_calls_from_compiled_code_fill_in_the_callees_defaults():
    g = njit(with_defaults)

    def caller(x):
        return g(x), g(x, 3), g(x, scale=0.5), g(x, 1, 2.0, True), g(x, flip=True)

    def by_python(x):
        w = with_defaults
        return w(x), w(x, 3), w(x, scale=0.5), w(x, 1, 2.0, True), w(x, flip=True)

    assert njit(caller)(1.5) == by_python(1.5)


def by_kind(x):
    if isinstance(x, np.ndarray):
        return x.sum()  # never typed for a number
    if isinstance(x, (int, float)):
        return x * 2.0
    return -1.0


def kinds(x):
    return isinstance(x, int), isinstance(x, float), isinstance(x, tuple), isinstance(x, bool), isinstance(x, complex)


@pytest.mark.parametrize("x", [3, 2.5, True, 1j, (1, 2.0)])
def test_isinstance_is_decided_while_compiling_as_python_decides_it(x):
    assert njit(kinds)(x) == kinds(x)
    assert njit(by_kind)(x) == by_kind(x)


def test_isinstance_of_arrays_and_numpy_number_types():
    assert njit(by_kind)(np.arange(4.0)) == 6.0
    assert njit(lambda x: (isinstance(x, np.float32), isinstance(x, np.int64)))(np.float32(1)) == (True, False)
    with pytest.raises(ember.JitError, match="isinstance\\(\\) in compiled code takes int, float"):
        njit(lambda x: isinstance(x, str))(1)
