"""ember.testing itself: each assertion fails on a real mismatch and passes on a match, the
NumPy-vs-ember decorators catch a wrong dtype, a wrong value and a different exception class,
the dtype decorators give CuPy's sets, and the package imports without Hypothesis or pytest."""

from __future__ import annotations

import inspect

import ember
import numpy as np
import pytest
from conftest import run_python
from ember import testing

# --- assertions ------------------------------------------------------------------------------------
ASSERTS = [
    (testing.assert_allclose, {"rtol": 1e-6}),
    (testing.assert_array_equal, {}),
    (testing.assert_array_almost_equal, {"decimal": 6}),
]


@pytest.mark.parametrize("check,kwargs", ASSERTS, ids=lambda a: getattr(a, "__name__", ""))
@pytest.mark.parametrize("sides", ["ember-numpy", "numpy-ember", "ember-ember", "ember-scalar"])
def test_each_assertion_passes_on_a_match_and_fails_on_a_mismatch(check, kwargs, sides):
    host = np.array([1.5, -2.25, 3.0, 1e-3], np.float32)
    wrong = host.copy()
    wrong[2] = 3.5
    first, second = sides.split("-")

    def side(kind, values):
        if kind == "scalar":
            return float(values[0])
        return ember.asarray(values) if kind == "ember" else values

    if second == "scalar":
        host, wrong = host[:1], wrong[:1] + 1
    check(side(first, host), side(second, host), **kwargs)
    with pytest.raises(AssertionError):
        check(side(first, host), side(second, wrong), **kwargs)


@pytest.mark.parametrize("name", ["assert_allclose", "assert_array_equal", "assert_array_almost_equal",
                                  "assert_array_less"])
def test_assertions_give_numpys_messages(name):
    x, y = np.array([1.0, 5.0, -2.0]), np.array([2.0, 4.5, -2.0])
    with pytest.raises(AssertionError) as want:
        getattr(np.testing, name)(x, y)
    with pytest.raises(AssertionError) as got:
        getattr(testing, name)(ember.asarray(x), ember.asarray(y))
    assert str(got.value) == str(want.value)


def test_strict_array_equal_tells_a_scalar_from_an_array_and_dtypes_apart():
    testing.assert_array_equal(ember.asarray([2, 2]), 2)
    with pytest.raises(AssertionError):
        testing.assert_array_equal(ember.asarray([2, 2]), 2, strict=True)
    with pytest.raises(AssertionError):
        testing.assert_array_equal(ember.asarray([2, 2], np.int32), np.array([2, 2], np.int64), strict=True)


# --- numpy_ember_* decorators --------------------------------------------------------------------
def test_the_decorators_pass_when_ember_gives_numpys_result():
    @testing.numpy_ember_allclose(rtol=1e-6)
    def close(xp):
        return xp.arange(6, dtype=xp.float32).reshape(2, 3).sum(axis=0) / 3

    @testing.numpy_ember_array_equal()
    def several(xp):
        a = xp.arange(5)
        return a[1:], a.max(), 7

    close()
    several()


@pytest.mark.parametrize("decorator", [testing.numpy_ember_allclose(), testing.numpy_ember_array_equal(),
                                       testing.numpy_ember_array_almost_equal()],
                         ids=["allclose", "array_equal", "array_almost_equal"])
def test_the_decorators_catch_a_wrong_value_dtype_shape_or_type(decorator):
    wrong_value = decorator(lambda xp: xp.asarray([1.0, 2.0]) + (0.5 if xp is ember else 0))
    wrong_dtype = decorator(lambda xp: xp.zeros(3, np.float32 if xp is ember else np.float64))
    wrong_shape = decorator(lambda xp: xp.zeros((3, 1) if xp is ember else 3))
    host_array = decorator(lambda xp: np.zeros(3))
    for test, message in [(wrong_value, None), (wrong_dtype, "different dtypes"), (wrong_shape, "different shapes"),
                          (host_array, "different types")]:
        with pytest.raises(AssertionError, match=message):
            test()


def test_type_check_off_lets_the_dtypes_differ():
    @testing.numpy_ember_allclose(type_check=False)
    def widened(xp):
        return xp.ones(2, np.float32 if xp is ember else np.float64)

    widened()


def test_the_decorators_compare_exception_classes():
    def raises(ember_error, numpy_error, **kwargs):
        @testing.numpy_ember_array_equal(**kwargs)
        def test(xp):
            error = ember_error if xp is ember else numpy_error
            if error is not None:
                raise error("boom")
            return xp.zeros(1)
        return test

    raises(ValueError, ValueError, accept_error=True)()
    raises(ValueError, ValueError, accept_error=ValueError)()
    raises(np.exceptions.AxisError, ValueError, accept_error=ValueError)()  # a subclass of NumPy's class
    for test, message in [
        (raises(TypeError, ValueError, accept_error=True), "ember raised TypeError, NumPy ValueError"),
        (raises(ValueError, ValueError), "both raised ValueError"),
        (raises(ValueError, ValueError, accept_error=TypeError), "both raised ValueError"),
        (raises(None, ValueError, accept_error=True), "only NumPy raised"),
        (raises(ValueError, None, accept_error=True), "only ember raised"),
    ]:
        with pytest.raises(AssertionError, match=message):
            test()


def test_a_wrong_argument_to_the_test_is_not_taken_for_a_result():
    @testing.numpy_ember_allclose(accept_error=True)
    def test(xp, n):
        return xp.zeros(n)

    with pytest.raises(TypeError):
        test(3, 4)


def test_the_decorators_hide_the_array_module_from_pytest():
    @testing.numpy_ember_allclose()
    def test(xp, dtype, rng):
        return xp.zeros(1)

    assert list(inspect.signature(test).parameters) == ["dtype", "rng"]
    with pytest.raises(TypeError, match="no argument 'xp'"):
        testing.numpy_ember_allclose()(lambda dtype: dtype)


def test_tolerances_per_dtype_and_cupys_names():
    @testing.numpy_cupy_allclose(rtol={np.float16: 1e-2, "default": 1e-7})
    def test(xp, dtype):
        x = xp.asarray(np.array([1.0, 2.0], dtype))
        return x * 1.003 if xp is ember and dtype == np.float16 else x

    test(dtype=np.float16)
    with pytest.raises(AssertionError):
        testing.numpy_cupy_allclose(rtol={"default": 1e-7})(test.__wrapped__)(dtype=np.float16)
    assert testing.numpy_cupy_allclose is testing.numpy_ember_allclose
    assert testing.numpy_cupy_array_equal is testing.numpy_ember_array_equal


@testing.for_float_dtypes(no_float16=True)
@testing.numpy_ember_allclose(rtol=1e-6)
def test_stacked_decorators_run_as_pytest_tests(xp, dtype):
    return testing.shaped_arange((2, 3), xp, dtype).mean(axis=1)


# --- dtypes --------------------------------------------------------------------------------------
def parametrized(decorator) -> list:
    mark = decorator.mark
    assert mark.name == "parametrize" and mark.args[0] == "dtype"
    assert mark.kwargs["ids"] == [np.dtype(t).name for t in mark.args[1]]
    return [np.dtype(t).name for t in mark.args[1]]


def test_for_all_dtypes_gives_every_dtype_less_those_left_out():
    every = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
             "float64", "complex64", "complex128"]
    assert parametrized(testing.for_all_dtypes()) == every == [d.name for d in testing.ALL_DTYPES]
    assert parametrized(testing.for_all_dtypes(no_float16=True, no_bool=True, no_complex=True)) == [
        d for d in every if d not in ("float16", "bool", "complex64", "complex128")]
    assert parametrized(testing.for_float_dtypes()) == ["float16", "float32", "float64"]
    assert parametrized(testing.for_int_dtypes()) == every[1:9] + ["bool"]
    assert parametrized(testing.for_int_dtypes(no_bool=True)) == every[1:9]
    assert parametrized(testing.for_signed_dtypes()) == every[1:5]
    assert parametrized(testing.for_unsigned_dtypes()) == every[5:9]
    assert parametrized(testing.for_complex_dtypes()) == ["complex64", "complex128"]
    assert parametrized(testing.for_dtypes(["f4", np.int8])) == ["float32", "int8"]
    assert testing.for_all_dtypes(name="t").mark.args[0] == "t"


@testing.for_dtypes([np.int16, np.complex64])
def test_the_test_receives_numpys_scalar_type(dtype):
    assert dtype in (np.int16, np.complex64)


# --- data ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["bool", "int16", "uint8", "float32", "complex64"])
def test_shaped_random_is_seeded_and_within_scale(dtype):
    a = testing.shaped_random((4, 5), ember, dtype, scale=7, seed=3)
    b = testing.shaped_random((4, 5), np, dtype, scale=7, seed=3)
    assert isinstance(a, ember.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype == dtype
    testing.assert_array_equal(a, b)
    assert not np.array_equal(b, testing.shaped_random((4, 5), np, dtype, scale=7, seed=4))
    assert np.all((np.real(b) >= 0) & (np.real(b) < 7)) and len(np.unique(b)) > 1


def test_shaped_arange_counts_from_one():
    want = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
    testing.assert_array_equal(testing.shaped_arange((2, 3), ember, np.int32), want, strict=True)
    testing.assert_array_equal(testing.shaped_arange((4,), np, bool), [False, True, False, True])
    testing.assert_array_equal(testing.shaped_arange((2,), np, np.complex64), [1 + 1j, 2 + 2j])


def test_parity_compares_results_and_errors():
    tally = testing.new_tally()
    x = np.array([1.0, -2.5, np.nan], np.float32)
    testing.parity(lambda xp, a: xp.abs(a), [x], [ember.asarray(x)], tally)
    testing.parity(lambda xp, a: xp.reshape(a, (2, 2)), [x], [ember.asarray(x)], tally)
    assert tally == {"compared": 1, "raised": 1}
    with pytest.raises(AssertionError, match="dtype"):
        testing.assert_same(ember.asarray(x, np.float64), x)
    with pytest.raises(AssertionError, match="ember did not raise ValueError"):
        testing.parity(lambda xp, a: a.reshape(2, 2) if xp is np else a, [x], [ember.asarray(x)])


# --- importing -----------------------------------------------------------------------------------
def test_ember_testing_imports_without_hypothesis_or_pytest():
    r = run_python(
        "import sys\n"
        "sys.modules['hypothesis'] = None\n"
        "sys.modules['pytest'] = None\n"
        "import ember.testing as t\n"
        "t.assert_allclose(t.shaped_arange((2,), dtype='f4'), [1, 2])\n"
        "try:\n"
        "    import ember.testing.strategies\n"
        "except ImportError:\n"
        "    print('strategies need hypothesis')\n"
        "print(sorted(set(t.__all__) - set(dir(t))))\n"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["strategies need hypothesis", "[]"]
