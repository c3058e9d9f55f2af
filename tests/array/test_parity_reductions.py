"""NumPy parity of ember's reductions over axes, keepdims and views, with ``dtype=`` and
``out=``.
(How the sweep works, and the case tables several files share: ``parity_cases``.)"""

from __future__ import annotations

import ember as cp
import numpy as np
import pytest
from ember.testing import cases_with_bugs, numpy_result, parity, public_class, quiet, rtol_for
from ember.testing.strategies import SHAPES, operands, placements, run_sweep
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from parity_cases import REDUCTION_CASES, dt

# =================================================================================================
# Reductions
# =================================================================================================
ORDER_DEPENDENT = {"sum", "mean", "cumsum", "std", "var", "prod"}  # rounding depends on the order
REDUCTION_BUGS: dict = {}


@st.composite
def axis_args(draw, ndim: int, single: bool):
    """``axis=``: None, an int or a tuple (for single-axis functions: None or an int); now and
    then out of range or repeated, for NumPy's errors."""
    kinds = ["none", "int"] + ([] if single else ["tuple"])
    kind = draw(st.sampled_from(kinds if ndim else ["none", "int"]), label="axis kind")
    if kind == "none":
        return None
    if kind == "int":
        return draw(st.integers(-ndim - 1, ndim), label="axis")
    axes = draw(st.lists(st.integers(-ndim, ndim - 1), max_size=ndim, unique=True), label="axes")
    if axes and draw(st.integers(0, 9)) == 0:
        axes.append(axes[0] - ndim if axes[0] >= 0 else axes[0] + ndim)  # the same axis twice
    return tuple(axes)


def reduction_domain(name, dtype) -> str:
    if name == "prod":
        return "bounded"
    if name in ("std", "var"):
        return "small"
    return "any"


def order_tolerant(name, x: np.ndarray, kwargs: dict, factor: float, src_dtypes=()):
    """Compares a reduction whose rounding depends on the summation order: within ``factor``
    times the tolerance of the result's (or a coarser source's) dtype, relative to the same
    reduction of ``|x|`` (the scale of its rounding errors); NaN and infinities exactly."""
    def compare(got, want):
        want = np.asarray(want)
        rtol = factor * max(rtol_for(d) for d in (want.dtype, *src_dtypes))
        assert isinstance(got, cp.ndarray)
        assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
        host = got.get()
        if want.dtype.kind in "biu":
            np.testing.assert_array_equal(host, want, strict=True)
            return
        finite = np.isfinite(want)
        np.testing.assert_array_equal(host[~finite], want[~finite], err_msg="non-finite results")
        wide = np.abs(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64))
        if name in ("sum", "mean", "cumsum"):
            scale = quiet(getattr(np, name), wide, **{k: v for k, v in kwargs.items() if k != "dtype"})
        elif name == "prod":
            scale = np.abs(want) * max(x.size, 1)
        else:  # var and std: relative to the result, with the mean's rounding
            scale = np.abs(want) * 8 + quiet(np.mean, wide, **{k: v for k, v in kwargs.items()
                                                                if k in ("axis", "keepdims")}) * (
                1e-6 if name == "var" else 1e-3)
        scale = np.broadcast_to(np.asarray(scale), want.shape)
        err = quiet(np.abs, host.astype(np.complex128 if want.dtype.kind == "c" else np.float64) - want)
        assert np.all(err[finite] <= rtol * scale[finite] + 1e-300), (
            f"{name}: error {err[finite].max() if finite.any() else 0} beyond {rtol} x scale")
    return compare


@pytest.mark.parametrize("name,dtype", cases_with_bugs(REDUCTION_CASES, REDUCTION_BUGS))
def test_reduction_matches_numpy_over_axes_keepdims_and_views(name, dtype):
    single = name in ("argmax", "argmin", "cumsum")
    domain = reduction_domain(name, dtype)
    factor = 10 if dtype == "float16" and name in ("var", "std") else 4

    def body(data, tally):
        shape = data.draw(SHAPES, label="shape")
        n, e = data.draw(operands(dtype, shape, domain, specials=True), label="x")
        if name in ORDER_DEPENDENT and n.dtype.kind in "fc":
            # Overflow of a partial sum depends on the order (implementation-defined): no finfo.max.
            big = np.abs(n) >= np.finfo(n.dtype).max / 4
            n = n.copy()
            n[big] = 1
            e = cp.asarray(n)
        kwargs = {"axis": data.draw(axis_args(len(shape), single))}
        if name != "cumsum":
            kwargs["keepdims"] = data.draw(st.booleans(), label="keepdims")
        if name in ("std", "var"):
            kwargs["ddof"] = data.draw(st.sampled_from([0, 1]), label="ddof")
        method = data.draw(st.booleans(), label="method")
        fn = (lambda xp, x: getattr(x, name)(**kwargs)) if method else (lambda xp, x: getattr(xp, name)(x, **kwargs))
        compare = order_tolerant(name, n, kwargs, factor, [dtype]) if name in ORDER_DEPENDENT else None
        parity(fn, [n], [e], tally, compare=compare)

    run_sweep(body, f"reduction-{name}-{dtype}", examples=8)


@pytest.mark.parametrize("name", ["mean", "var", "std"])
def test_mean_var_std_of_a_0d_array_with_an_axis_raise_like_numpy(name):
    x = np.array(2.5, dtype=np.float32)
    parity(lambda xp, a: getattr(xp, name)(a, axis=0), [x], [cp.asarray(x)], {"compared": 0, "raised": 0})


REDUCTION_DTYPE_CASES = [("sum", "int8", "int8"), ("sum", "uint8", "float16"), ("prod", "uint16", "uint8"),
                         ("mean", "int16", "float32"), ("mean", "float16", "float64"), ("cumsum", "bool", "int8"),
                         ("cumsum", "float32", "float64"), ("var", "int32", "float32"),
                         ("sum", "complex64", "complex128"), ("sum", "float64", "int32")]


@pytest.mark.parametrize("name,dtype,acc", REDUCTION_DTYPE_CASES)
def test_reduction_dtype_and_out_arguments_match_numpy(name, dtype, acc):
    """``dtype=`` (the accumulator and result) and ``out=`` (a strided view, maybe of another
    dtype) as NumPy takes them."""
    def body(data, tally):
        shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=4), label="shape")
        # float -> int casts of NaN, inf or out-of-range values are undefined: small finite values
        specials = not (dt(dtype).kind == "f" and dt(acc).kind in "iu")
        n, e = data.draw(operands(dtype, shape, "bounded" if name == "prod" else "small", specials), label="x")
        axis = data.draw(st.one_of(st.none(), st.integers(0, len(shape) - 1)), label="axis")
        use_out = data.draw(st.booleans(), label="out")
        kwargs = {"axis": axis, "dtype": acc}
        if not use_out:
            fn = lambda xp, x: getattr(xp, name)(x, **kwargs)  # noqa: E731
            compare = order_tolerant(name, n, kwargs, 4, [dtype, acc])
            parity(fn, [n], [e], tally, compare=compare if dt(acc).kind in "fc" else None)
            return
        result_shape = quiet(getattr(np, name), n, **kwargs).shape
        out_dtype = data.draw(st.sampled_from([acc, "float64", "complex128"]), label="out dtype")
        base_shape, index, axes = data.draw(placements(result_shape), label="out layout")
        base = np.zeros(base_shape, out_dtype)
        outside = np.ones(base_shape, bool)
        outside[index] = False

        def fn(xp, x, b):
            out = b[index].transpose(axes)
            assert getattr(xp, name)(x, out=out, **kwargs) is out or xp is np
            return out

        want, err = numpy_result(fn, n, base)
        ember_base = cp.asarray(base)
        if err is not None:
            with pytest.raises(public_class(err)):
                fn(cp, e, ember_base)
            tally["raised"] += 1
            return
        got = fn(cp, e, ember_base)
        order_tolerant(name, n, kwargs, 4, [dtype, acc, out_dtype])(got, want)
        np.testing.assert_array_equal(ember_base.get()[outside], base[outside], err_msg="written outside out")
        tally["compared"] += 1

    run_sweep(body, f"reduction-dtype-{name}-{dtype}-{acc}", examples=5)
