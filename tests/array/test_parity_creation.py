"""NumPy parity of ember's creation functions: zeros/ones/empty/full and their ``_like``
forms, array and asarray, arange, linspace, eye, identity, tri, triu and tril.
(How the sweep works, and the case tables several files share: ``parity_cases``.)"""

from __future__ import annotations

import ember as cp
import numpy as np
import pytest
from ember.testing import DTYPE_NAMES, assert_values, numpy_result, parity, quiet
from ember.testing.strategies import SHAPES, operands, placements, run_sweep, values
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from parity_cases import dt, fill_values


# =================================================================================================
# Creation
# =================================================================================================
@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_filled_creation_functions_match_numpy(dtype):
    """zeros, ones, empty, full and the *_like functions: shape (int, tuple, empty, 0-d), dtype
    (given, or inferred by full from its value) and values."""
    def body(data, tally):
        shape = data.draw(SHAPES, label="shape")
        arg = data.draw(st.sampled_from([shape, list(shape)] + ([shape[0]] if len(shape) == 1 else [])), label="arg")
        fn_name = data.draw(st.sampled_from(["zeros", "ones", "empty", "full", "full-inferred"]), label="function")
        v = data.draw(st.sampled_from(fill_values(dtype)), label="value")
        like_dtype = data.draw(st.sampled_from(DTYPE_NAMES), label="like dtype")
        like_n, like_e = data.draw(operands(like_dtype, shape), label="like")
        if fn_name == "empty":
            for got, want in ((cp.empty(arg, dtype), np.empty(arg, dtype)),
                              (cp.empty_like(like_e, dtype=dtype), np.empty_like(like_n, dtype=dtype)),
                              (cp.empty_like(like_e), np.empty_like(like_n))):
                assert isinstance(got, cp.ndarray) and (got.shape, got.dtype) == (want.shape, want.dtype)
                assert got.get().shape == want.shape
            tally["compared"] += 1
            return
        if fn_name == "full-inferred":
            parity(lambda xp: xp.full(arg, v), [], [], tally)
            parity(lambda xp, a: xp.full_like(a, v), [like_n], [like_e], tally)
            return
        if fn_name == "full":
            parity(lambda xp: xp.full(arg, v, dtype), [], [], tally)
            parity(lambda xp, a: xp.full_like(a, v, dtype=dtype), [like_n], [like_e], tally)
            return
        parity(lambda xp: getattr(xp, fn_name)(arg, dtype), [], [], tally)
        parity(lambda xp, a: getattr(xp, fn_name + "_like")(a, dtype=dtype), [like_n], [like_e], tally)
        parity(lambda xp, a: getattr(xp, fn_name + "_like")(a), [like_n], [like_e], tally)

    run_sweep(body, f"filled-{dtype}", examples=12)


@pytest.mark.parametrize("dtype,value", [("int8", 300), ("uint8", -1), ("uint16", -300), ("int64", 2**64 - 1),
                                         ("bool", 2**64 - 1)])
def test_full_with_an_out_of_range_python_int_raises_like_numpy(dtype, value):
    parity(lambda xp: xp.full(3, value, dtype), [], [], {"compared": 0, "raised": 0})


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_array_and_asarray_of_numpy_arrays_lists_and_scalars_match_numpy(dtype):
    """array/asarray of NumPy arrays (views, 0-d, empty), nested lists and scalars, with and
    without dtype= (casts NumPy defines) and ndmin=; asnumpy and from_dlpack back."""
    def body(data, tally):
        shape = data.draw(SHAPES, label="shape")
        base_shape, index, axes = data.draw(placements(shape), label="layout")
        base = data.draw(values(dtype, base_shape, "small" if dt(dtype).kind != "c" else "moderate"), label="base")
        n = base[index].transpose(axes)
        target = data.draw(st.sampled_from([None] + DTYPE_NAMES), label="dtype=")
        if target is not None and dt(target).kind in "iub" and dt(dtype).kind in "fc":
            n = (np.abs(np.nan_to_num(np.real(n))) % 100).astype(dtype)  # casts NumPy defines
        source = data.draw(st.sampled_from(["numpy", "list", "scalar"]), label="source")
        obj = n if source == "numpy" else (n.tolist() if source == "list" else (n.ravel()[0].item() if n.size else 0))
        ndmin = data.draw(st.integers(0, 3), label="ndmin")
        for fn in (lambda xp: xp.array(obj, dtype=target, ndmin=ndmin), lambda xp: xp.asarray(obj, dtype=target)):
            if source != "numpy" and numpy_result(fn)[1] is not None:
                continue  # test_array_of_python_values_that_do_not_fit_the_dtype_raises_like_numpy
            want = parity(fn, [], [], tally, rtol=0)
            if want is not None and source == "numpy":
                e = quiet(fn, cp)
                assert_values(cp.asnumpy(e), np.asarray(want), 0)
                assert_values(np.asarray(cp.from_dlpack(e).get()), np.asarray(want), 0)

    run_sweep(body, f"array-{dtype}", examples=10)


@pytest.mark.parametrize("obj,dtype", [([-6, 2], "uint8"), ([300], "int8"), (2**64 - 2, "int8"), ([1 + 1j], "float32"),
                                       (1 + 1j, "int16")], ids=str)
def test_array_of_python_values_that_do_not_fit_the_dtype_raises_like_numpy(obj, dtype):
    parity(lambda xp: xp.array(obj, dtype=dtype), [], [], {"compared": 0, "raised": 0})


ARANGE_KINDS = {
    "ints": (st.integers(-50, 50), st.integers(-50, 50), st.sampled_from([1, 2, 3, -1, -2, 7])),
    "floats": (st.floats(-50, 50), st.floats(-50, 50), st.sampled_from([0.5, 0.1, -0.25, 1.5, -3.0, 0.3])),
    "mixed": (st.integers(-20, 20), st.floats(-20, 20), st.sampled_from([1, 0.5, -1, 2])),
}


# (float bounds with an integer dtype: test_arange_with_float_step_and_integer_dtype_like_numpy)
@pytest.mark.parametrize("kind,dtype", [(k, d) for k in ARANGE_KINDS for d in [
    None, "int8", "uint16", "int64", "float16", "float32", "float64", "complex64"] if k == "ints" or d is None
    or dt(d).kind not in "iu"])
def test_arange_matches_numpy(kind, dtype):
    """arange(start, stop, step, dtype): length and dtype exact; values within the rounding of
    ``start + i * step`` (NumPy computes them from the first two values)."""
    starts, stops, steps = ARANGE_KINDS[kind]

    def body(data, tally):
        start, stop, step = data.draw(starts), data.draw(stops), data.draw(steps)
        if dtype is not None and dt(dtype).kind == "u":
            start, stop = abs(start), abs(stop)  # negative values in an unsigned arange wrap (undefined)
        form = data.draw(st.sampled_from(["start-stop-step", "stop", "start-stop"]), label="form")
        args = {"start-stop-step": (start, stop, step), "stop": (stop,), "start-stop": (start, stop)}[form]

        def compare(got, want):
            assert isinstance(got, cp.ndarray)
            assert (got.shape, got.dtype) == (want.shape, want.dtype)
            if want.dtype.kind in "iu":
                np.testing.assert_array_equal(got.get(), want)
            else:
                # NumPy fills start + i * delta, delta = (start + step) - start rounded: its values
                # are off the exact ones by up to i ulps of start (and of step)
                n = len(want)
                scale = n * (abs(args[0]) + abs(args[-1] if len(args) == 3 else 1)) * np.finfo(want.dtype).eps
                np.testing.assert_allclose(got.get(), want, rtol=0, atol=2 * scale)

        parity(lambda xp: xp.arange(*args, dtype=dtype), [], [], tally, compare=compare)

    run_sweep(body, f"arange-{kind}-{dtype}", examples=15)


@pytest.mark.parametrize("args", [(-42.12, 0, 0.3), (1e6, 1e6 + 1, 0.1)], ids=str)
def test_arange_fills_with_numpys_rounded_step_bit_for_bit(args):
    parity(lambda xp: xp.arange(*args), [], [], {"compared": 0, "raised": 0}, rtol=0)


def test_arange_with_float_step_and_integer_dtype_like_numpy():
    parity(lambda xp: xp.arange(0.5, 5, 0.75, dtype=np.int8), [], [], {"compared": 0, "raised": 0})


def test_arange_of_bools_longer_than_two_raises_like_numpy():
    parity(lambda xp: xp.arange(3, dtype=bool), [], [], {"compared": 0, "raised": 0})


@pytest.mark.parametrize("dtype", [None, "float32", "float16", "complex64", "int16", "uint8", "int64"])
def test_linspace_matches_numpy(dtype):
    """linspace: dtype, length and endpoint exact; values within the rounding of ``start +
    i * step``. Integer dtypes get bounds whose steps are integers (else NumPy's floor of a
    rounded value is implementation-defined)."""
    def body(data, tally):
        num = data.draw(st.integers(0, 30), label="num")
        endpoint = data.draw(st.booleans(), label="endpoint")
        if dtype is not None and dt(dtype).kind in "iu":
            start = data.draw(st.integers(0 if dt(dtype).kind == "u" else -40, 40))
            step = data.draw(st.integers(0, 3))
            stop = start + step * ((num - 1) if endpoint else num)
        elif dtype is not None and dt(dtype).kind == "c" and data.draw(st.booleans()):
            start, stop = complex(data.draw(st.floats(-9, 9)), 1.5), complex(-2.0, data.draw(st.floats(-9, 9)))
        else:
            start, stop = data.draw(st.floats(-1e3, 1e3)), data.draw(st.floats(-1e3, 1e3))
        retstep = data.draw(st.booleans(), label="retstep")

        def compare(got, want):
            if retstep:
                (got, got_step), (want, want_step) = got, want
                np.testing.assert_allclose(got_step, want_step, rtol=1e-12, equal_nan=True)
            assert isinstance(got, cp.ndarray) and (got.shape, got.dtype) == (want.shape, want.dtype)
            if want.dtype.kind in "iu":
                np.testing.assert_array_equal(got.get(), want)
                return
            eps = np.finfo(want.dtype).eps
            np.testing.assert_allclose(got.get(), want, rtol=0, atol=4 * eps * (abs(start) + abs(stop)) + 0)
            if endpoint and num > 1 and want.dtype.kind == "f":
                assert got.get()[-1] == want[-1], "the endpoint is exact"

        parity(lambda xp: xp.linspace(start, stop, num, endpoint=endpoint, retstep=retstep, dtype=dtype), [], [],
               tally, compare=compare)

    run_sweep(body, f"linspace-{dtype}", examples=15)


@pytest.mark.parametrize("name,dtype", [(["eye", "identity", "tri"][i % 3], d) for i, d in enumerate(DTYPE_NAMES)])
def test_eye_identity_and_tri_match_numpy(name, dtype):
    def body(data, tally):
        n, m = data.draw(st.integers(0, 6), label="N"), data.draw(st.one_of(st.none(), st.integers(0, 6)), label="M")
        k = data.draw(st.integers(-7, 7), label="k")
        args = (n,) if name == "identity" else (n, m, k)
        parity(lambda xp: getattr(xp, name)(*args, dtype=dtype), [], [], tally)

    run_sweep(body, f"{name}-{dtype}", examples=5)


@pytest.mark.parametrize("name,dtype", [(["triu", "tril"][i % 2], d) for i, d in enumerate(DTYPE_NAMES)])
def test_triu_and_tril_of_views_and_stacks_match_numpy(name, dtype):
    def body(data, tally):
        # (1-d: test_triu_and_tril_of_a_1d_array_like_numpy)
        shape = data.draw(hnp.array_shapes(min_dims=2, max_dims=4, min_side=0, max_side=5), label="shape")
        n, e = data.draw(operands(dtype, shape), label="x")
        k = data.draw(st.integers(-6, 6), label="k")
        parity(lambda xp, x: getattr(xp, name)(x, k), [n], [e], tally, rtol=0)

    run_sweep(body, f"{name}-{dtype}", examples=4)


@pytest.mark.parametrize("fn", ["triu", "tril"])
def test_triu_and_tril_of_a_1d_array_like_numpy(fn):
    x = np.arange(1.0, 5.0)
    parity(lambda xp, a: getattr(xp, fn)(a, 1), [x], [cp.asarray(x)], {"compared": 0, "raised": 0})
