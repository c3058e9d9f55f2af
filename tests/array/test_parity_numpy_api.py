"""NumPy parity of the everyday NumPy functions composed in Python (manipulation, logic,
differences, diagonals) and of NumPy's dispatch protocols, on views of several dtypes.

One entry of ``FUNCTIONS`` per function, its call in ``api_call`` (arguments drawn, the call as
``fn(xp, x)``); the sweep runs it with NumPy and with ember on the same view (negative strides,
offsets, transposes, 0-size) and compares shape, dtype and values, or the exception class.
(How the sweep works: ``parity_cases``.)"""

from __future__ import annotations

import zlib

import ember as cp
import numpy as np
import pytest
from ember.testing import DTYPE_NAMES, assert_same, parity
from ember.testing.strategies import SHAPES, operands, run_sweep
from hypothesis import strategies as st


def _axis(data, ndim, none=True):
    choices = st.integers(-ndim, ndim - 1) if ndim else st.just(0)
    return data.draw(st.one_of(st.none(), choices) if none else choices, label="axis")


def _same(got, want):
    """Results NumPy gives as Python scalars (ember's are 0-d arrays, or the same scalars)."""
    got = got.get() if isinstance(got, cp.ndarray) else got
    assert np.array_equal(np.asarray(got), np.asarray(want)), (got, want)


def api_call(name, data, shape):
    """The call of function ``name`` on operands like ``x`` (its other arguments drawn), as
    ``fn(xp, x)``."""
    ndim = len(shape)
    draw = data.draw
    if name == "flip":
        axis = _axis(data, ndim)
        return lambda xp, x: xp.flip(x, axis)
    if name in ("fliplr", "flipud", "column_stack", "matrix_transpose", "allclose", "argwhere", "flatnonzero",
                "isreal", "iscomplex"):
        if name == "column_stack":
            return lambda xp, x: xp.column_stack([x, x])
        if name == "allclose":
            return lambda xp, x: xp.allclose(x, x)
        return lambda xp, x: getattr(xp, name)(x)
    if name == "rot90":
        k = draw(st.integers(-3, 5), label="k")
        return lambda xp, x: xp.rot90(x, k)
    if name == "roll":
        shift, axis = draw(st.integers(-7, 7), label="shift"), _axis(data, ndim)
        return lambda xp, x: xp.roll(x, shift, axis)
    if name == "tile":
        reps = draw(st.one_of(st.integers(0, 3), st.lists(st.integers(0, 2), max_size=3).map(tuple)), label="reps")
        return lambda xp, x: xp.tile(x, reps)
    if name == "repeat":
        count, axis = draw(st.integers(0, 3), label="repeats"), _axis(data, ndim)
        return lambda xp, x: xp.repeat(x, count, axis)
    if name == "append":
        return lambda xp, x: xp.append(x, x[..., :1] if x.ndim else x, axis=-1 if x.ndim else None)
    if name == "delete":
        obj = draw(st.lists(st.integers(-3, 3), max_size=3), label="obj")
        return lambda xp, x: xp.delete(x, obj)
    if name == "resize":
        new = draw(st.lists(st.integers(0, 4), max_size=3).map(tuple), label="shape")
        return lambda xp, x: xp.resize(x, new)
    if name == "trim_zeros":
        return lambda xp, x: xp.trim_zeros(x.ravel() * (xp.arange(x.size) % 3 == 1))
    if name == "hsplit":
        k = draw(st.integers(1, 3), label="sections")
        return lambda xp, x: list(xp.hsplit(x, k))
    if name == "vsplit":
        return lambda xp, x: list(xp.vsplit(x, [1]))
    if name == "permute_dims":
        axes = tuple(draw(st.permutations(range(ndim)), label="axes"))
        return lambda xp, x: xp.permute_dims(x, axes)
    if name == "unstack":
        axis = _axis(data, ndim, none=False)
        return lambda xp, x: list(xp.unstack(x, axis=axis))
    if name == "diff":
        n, axis = draw(st.integers(0, 2), label="n"), _axis(data, ndim, none=False)
        return lambda xp, x: xp.diff(x, n, axis)
    if name == "ediff1d":
        return lambda xp, x: xp.ediff1d(x, to_begin=x.ravel()[:1])
    if name in ("diagonal", "diag", "trace"):
        k = draw(st.integers(-3, 3), label="offset")
        if name == "diagonal":
            return lambda xp, x: xp.diagonal(x, k, -1, 0)
        if name == "diag":
            return lambda xp, x: xp.diag(x.ravel()[:4] if x.ndim != 2 else x, k)
        return lambda xp, x: xp.trace(x, k)
    if name in ("isclose", "array_equal"):
        equal_nan = draw(st.booleans(), label="equal_nan")
        if name == "isclose":
            return lambda xp, x: xp.isclose(x, x[::-1] if x.ndim else x, equal_nan=equal_nan)
        return lambda xp, x: xp.array_equal(x, x.copy(), equal_nan=equal_nan)
    if name == "array_equiv":
        return lambda xp, x: xp.array_equiv(x, x[..., :1] if x.ndim else x)
    if name == "count_nonzero":
        axis = _axis(data, ndim)
        return lambda xp, x: xp.count_nonzero(x, axis=axis)
    if name in ("cumprod", "nancumsum", "nancumprod"):
        axis = _axis(data, ndim)
        return lambda xp, x: getattr(xp, name)(x, axis=axis)
    if name.startswith("nan"):
        axis, keepdims = _axis(data, ndim), draw(st.booleans(), label="keepdims")
        if name in ("nanargmax", "nanargmin"):
            return lambda xp, x: getattr(xp, name)(x, axis=axis, keepdims=keepdims)
        return lambda xp, x: getattr(xp, name)(x, axis=axis, keepdims=keepdims)
    assert name == "isposinf"
    return lambda xp, x: (xp.isposinf(x), xp.isneginf(x))


FUNCTIONS = ["flip", "fliplr", "flipud", "rot90", "roll", "tile", "repeat", "append", "delete", "resize",
             "trim_zeros", "column_stack", "hsplit", "vsplit", "permute_dims", "matrix_transpose", "unstack", "diff",
             "ediff1d", "diagonal", "diag", "trace", "isclose", "allclose", "array_equal", "array_equiv",
             "count_nonzero", "argwhere", "flatnonzero", "isreal", "iscomplex", "isposinf", "cumprod", "nansum",
             "nanprod", "nancumsum", "nancumprod", "nanmax", "nanmin", "nanargmax", "nanargmin", "nanmean", "nanvar",
             "nanstd"]
# Sums and products in another order than NumPy's round differently: the dtype's tolerance.
ROUNDED = {"cumprod", "nansum", "nanprod", "nancumsum", "nancumprod", "nanmean", "nanvar", "nanstd"}
SCALAR_RESULTS = {"allclose", "array_equal", "array_equiv"}
# Each function on two dtypes, dealt round the dtypes so that every dtype runs somewhere.
API_CASES = [(f, DTYPE_NAMES[(3 * i + j * 7) % len(DTYPE_NAMES)]) for i, f in enumerate(FUNCTIONS) for j in range(2)]


@pytest.mark.parametrize("name,dtype", API_CASES)
def test_numpy_function_matches_numpy_on_views(name, dtype):
    def body(data, tally):
        shape = data.draw(SHAPES, label="shape")
        n, e = data.draw(operands(dtype, shape), label="x")
        fn = api_call(name, data, shape)
        rtol = None if name in ROUNDED else 0
        parity(fn, [n], [e], tally, rtol=rtol, compare=_same if name in SCALAR_RESULTS else None)

    run_sweep(body, f"api-{name}-{dtype}", examples=6)


def test_every_case_dtype_is_swept():
    assert {d for _, d in API_CASES} == set(DTYPE_NAMES)


@pytest.mark.parametrize("call,exc,message", [
    (lambda xp: xp.fliplr(xp.zeros(3)), ValueError, "Input must be >= 2-d."),
    (lambda xp: xp.rot90(xp.zeros((2, 2)), axes=(0, 0)), ValueError, "Axes must be different."),
    (lambda xp: xp.repeat(xp.zeros(3), -1), ValueError, "negative dimensions are not allowed"),
    (lambda xp: xp.repeat(xp.zeros(2), [1, -1]), ValueError, "repeats may not contain negative values."),
    (lambda xp: xp.repeat(xp.zeros(2), xp.ones((2, 2), int)), ValueError, "object too deep for desired array"),
    (lambda xp: xp.clip(xp.zeros(2), 3), TypeError, "missing 1 required positional argument: 'a_max'"),
    (lambda xp: xp.einsum_path(xp.ones(3)), TypeError, "lists must contain either int or Ellipsis"),
    (lambda xp: xp.nan_to_num(xp.zeros(4), nan=xp.zeros((2, 4))), ValueError,
     r"could not broadcast input array from shape \(2,4\) into shape \(4,\)"),
    (lambda xp: xp.correlate(xp.zeros(()), xp.zeros(3)), ValueError, "object of too small depth for desired array"),
    (lambda xp: xp.vsplit(xp.zeros(3), 1), ValueError, "vsplit only works on arrays of 2 or more dimensions"),
    (lambda xp: xp.diff(xp.zeros(3), -1), ValueError, "order must be non-negative but got -1"),
    (lambda xp: xp.diagonal(xp.zeros(3)), ValueError, "diag requires an array of at least two dimensions"),
    (lambda xp: xp.delete(xp.zeros(3), [5]), IndexError, "index 5 is out of bounds for axis 0 with size 3"),
    (lambda xp: xp.isposinf(xp.zeros(2, dtype=complex)), TypeError, "not supported for complex128 values"),
    (lambda xp: xp.resize(xp.zeros(2), (-1,)), ValueError, "all elements of `new_shape` must be non-negative"),
])
def test_errors_have_numpys_class_and_message(call, exc, message):
    with pytest.raises(exc, match=message):
        call(np)
    with pytest.raises(exc, match=message):
        call(cp)


def test_numpys_functions_dispatch_to_ember_arrays():
    rng = np.random.default_rng(7)
    host = rng.standard_normal((3, 4))
    x = cp.asarray(host)
    for f in (np.sin, np.mean, np.tile, np.diff, np.flip, np.transpose):
        args = (x, 2) if f is np.tile else (x,)
        got = f(*args)
        assert isinstance(got, cp.ndarray), f
        np.testing.assert_allclose(got.get(), f(host, 2) if f is np.tile else f(host), rtol=1e-12)
    got = np.concatenate([x, x], axis=1)
    assert isinstance(got, cp.ndarray) and got.shape == (3, 8)
    np.testing.assert_allclose(np.linalg.norm(x).get(), np.linalg.norm(host), rtol=1e-12)
    out = cp.empty((3, 4))
    assert np.add(x, x, out=out) is out
    np.testing.assert_array_equal(out.get(), host + host)
    # Mixing a host array in is refused, as in CuPy: no implicit transfer.
    with pytest.raises(TypeError, match="lives in host memory"):
        np.add(host, x)
    # What ember lacks is NumPy's TypeError, naming the function.
    with pytest.raises(TypeError, match="no implementation found for 'numpy.busday_count'"):
        np.busday_count(x, x)


@pytest.mark.parametrize("ufunc,dtype", [(np.add, "float64"), (np.subtract, "int32"), (np.bitwise_xor, "uint16"),
                                         (np.maximum, "float32"), (np.multiply, "int64"), (np.logical_or, "bool")])
def test_ufunc_methods_match_numpy(ufunc, dtype):
    rng = np.random.default_rng(11)
    host = (rng.standard_normal((4, 5)) * 10).astype(dtype)
    x = cp.asarray(host)
    for axis in (0, 1, -1):  # float sums may round in another order: a few ulp
        np.testing.assert_allclose(ufunc.reduce(x, axis=axis).get(), ufunc.reduce(host, axis=axis), rtol=1e-13)
        np.testing.assert_allclose(ufunc.accumulate(x, axis=axis).get(), ufunc.accumulate(host, axis=axis),
                                   rtol=1e-13)
        assert ufunc.reduce(x, axis=axis).dtype == ufunc.reduce(host, axis=axis).dtype
    np.testing.assert_array_equal(ufunc.reduce(x, axis=1, keepdims=True).get(),
                                  ufunc.reduce(host, axis=1, keepdims=True))
    np.testing.assert_array_equal(ufunc.outer(x[0], x[1]).get(), ufunc.outer(host[0], host[1]))
    if ufunc.identity is not None:
        np.testing.assert_array_equal(ufunc.reduce(x[:0], axis=0).get(), ufunc.reduce(host[:0], axis=0))
    else:
        # ember's own method: NumPy 2.4 leaks the operand when an overridden reduce raises.
        with pytest.raises(ValueError, match="zero-size array to reduction operation"):
            getattr(cp, ufunc.__name__).reduce(x[:0], axis=0)


def test_reduce_over_several_axes_only_where_numpy_allows():
    x = cp.arange(24).reshape(2, 3, 4)
    host = np.arange(24).reshape(2, 3, 4)
    want = np.bitwise_or.reduce(host, axis=(0, 2))
    np.testing.assert_array_equal(np.bitwise_or.reduce(x, axis=(0, 2)).get(), want)
    with pytest.raises(ValueError, match="'subtract' is not reorderable"):
        cp.subtract.reduce(x, axis=(0, 1))  # (not np's: see test_ufunc_methods_match_numpy)
    want = np.add.reduce(host, axis=None, initial=5)
    np.testing.assert_array_equal(cp.add.reduce(x, axis=None, initial=5).get(), want)


def test_numpy_type_helpers_take_ember_arrays():
    x = cp.zeros(3, dtype=cp.float32)
    assert cp.result_type(x, 1.0) == np.float32 and cp.result_type(x, np.float64) == np.float64
    assert cp.can_cast(x, np.float64) and not cp.can_cast(x, np.int8)
    assert cp.ndim(x) == 1 and cp.shape(x) == (3,) and cp.size(x) == 3
    assert not cp.isscalar(x) and cp.iterable(x) and not cp.iterable(cp.zeros(()))
    assert cp.finfo(cp.float32).eps == np.finfo(np.float32).eps and cp.pi == np.pi and cp.newaxis is None


# Index helpers: each call run with NumPy and with ember on the same data (fixed seeds).
INDEX_CALLS = {
    "indices": lambda xp, x: xp.indices((2, 3)),
    "indices_sparse": lambda xp, x: xp.indices((2, 3), sparse=True),
    "meshgrid_xy": lambda xp, x: xp.meshgrid(x[0], x[1, :3]),
    "meshgrid_ij_sparse": lambda xp, x: xp.meshgrid(x[0], x[1, :3], x[2, :2], indexing="ij", sparse=True),
    "ix_": lambda xp, x: xp.ix_(xp.asarray([2, 0]), xp.asarray([True, False, True, True, False])),
    "unravel_index": lambda xp, x: xp.unravel_index(xp.asarray([0, 7, 19, 11]), (4, 5)),
    "unravel_index_F": lambda xp, x: xp.unravel_index(xp.asarray([3, 7]), (2, 5), order="F"),
    "ravel_multi_index": lambda xp, x: xp.ravel_multi_index((xp.asarray([3, 1, 0]), xp.asarray([4, 0, 2])), (4, 5)),
    "ravel_multi_index_wrap": lambda xp, x: xp.ravel_multi_index((xp.asarray([5, -1]), xp.asarray([4, 7])), (4, 5),
                                                                  mode="wrap"),
    "diag_indices_from": lambda xp, x: xp.diag_indices_from(x[:4, :4]),
    "tril_indices": lambda xp, x: xp.tril_indices(4, -1, 5),
    "triu_indices_from": lambda xp, x: xp.triu_indices_from(x, 1),
    "take_along_axis": lambda xp, x: xp.take_along_axis(x, xp.asarray([[4], [0], [2], [1]]) % x.shape[1], axis=1),
    "take_along_axis_none": lambda xp, x: xp.take_along_axis(x, xp.asarray([3, 0, 19]), axis=None),
    "compress": lambda xp, x: xp.compress(xp.asarray([True, False, True]), x, axis=1),
    "compress_flat": lambda xp, x: xp.compress(xp.asarray([False, True, True]), x),
    "extract": lambda xp, x: xp.extract(x > 0, x),
    "choose": lambda xp, x: xp.choose(xp.asarray([[0, 1, 2, 1, 0]]), [x, -x, 2 * x]),
    "choose_clip": lambda xp, x: xp.choose(xp.asarray([0, 5, -1, 1, 2]), [x, -x, 2 * x], mode="clip"),
    "select": lambda xp, x: xp.select([x < -0.5, x > 0.5], [x, 2 * x], default=7.0),
}


def _put_along_axis(xp, x):
    y = x.copy()
    xp.put_along_axis(y, xp.asarray([[1], [0], [3], [2]]), 9.5, axis=1)
    return y


def _put(xp, x, mode):
    y = x.copy()
    xp.put(y[:, ::2], xp.asarray([0, 4, 13]), xp.asarray([-1.0, -2.0]), mode=mode)
    return y


def _place_putmask_copyto_fill(xp, x):
    y, z, w, d = x.copy(), x.copy(), x.copy(), x[:4, :4].copy()
    xp.place(y, y > 0.5, xp.asarray([10.0, 20.0, 30.0]))
    xp.putmask(z, z < 0, xp.asarray([1.0, 2.0]))
    xp.copyto(w, xp.asarray(5.0), where=x > 0)
    xp.fill_diagonal(d, 3.0)
    return y, z, w, d


INDEX_CALLS.update({
    "put_along_axis": _put_along_axis,
    "put_wrap": lambda xp, x: _put(xp, x, "wrap"),
    "put_clip": lambda xp, x: _put(xp, x, "clip"),
    "place_putmask_copyto_fill_diagonal": _place_putmask_copyto_fill,
})


@pytest.mark.parametrize("name", sorted(INDEX_CALLS))
def test_index_helpers_match_numpy(name):
    host = np.random.default_rng(zlib.crc32(name.encode())).standard_normal((4, 5))
    want = INDEX_CALLS[name](np, host)
    got = INDEX_CALLS[name](cp, cp.asarray(host))
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert_same(g, w, rtol=0)
    else:
        assert_same(got, want, rtol=0)


@pytest.mark.parametrize("call,exc,message", [
    (lambda xp: xp.unravel_index(xp.asarray([3, 70]), (3, 4)), ValueError, "index 70 is out of bounds"),
    (lambda xp: xp.ravel_multi_index((xp.asarray([3]), xp.asarray([0])), (3, 4)), ValueError,
     "invalid entry in coordinates array"),
    (lambda xp: xp.choose(xp.asarray([0, 3]), [xp.zeros(2), xp.ones(2)]), ValueError, "invalid entry in choice array"),
    (lambda xp: xp.take_along_axis(xp.zeros((2, 2)), xp.asarray([0]), axis=1), ValueError,
     "`indices` and `arr` must have the same number of dimensions"),
    (lambda xp: xp.meshgrid(xp.zeros(2), indexing="xyz"), ValueError, "Valid values for `indexing` are 'xy' and 'ij'"),
    (lambda xp: xp.select([xp.zeros(2)], [xp.zeros(2)]), TypeError, "invalid entry 0 in condlist"),
])
def test_index_helper_errors_have_numpys_class_and_message(call, exc, message):
    with pytest.raises(exc, match=message):
        call(np)
    with pytest.raises(exc, match=message):
        call(cp)


# Statistics without sorting: NumPy's results to float64's tolerance (sums in another order).
STAT_CALLS = {
    "average": lambda xp, x, w: xp.average(x, axis=1, weights=w),
    "average_returned": lambda xp, x, w: xp.average(x, axis=0, returned=True),
    "ptp": lambda xp, x, w: xp.ptp(x, axis=1, keepdims=True),
    "cov": lambda xp, x, w: xp.cov(x),
    "cov_cols_biased": lambda xp, x, w: xp.cov(x, rowvar=False, bias=True),
    "cov_weighted": lambda xp, x, w: xp.cov(x, aweights=w, ddof=2),
    "cov_xy": lambda xp, x, w: xp.cov(x[0], x[1]),
    "corrcoef": lambda xp, x, w: xp.corrcoef(x),
    "corrcoef_complex": lambda xp, x, w: xp.corrcoef(x + 1j * x[::-1]),
}


@pytest.mark.parametrize("name", sorted(STAT_CALLS))
def test_statistics_match_numpy(name):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    host, weights = rng.standard_normal((3, 6)), rng.random(6)
    want = STAT_CALLS[name](np, host, weights)
    got = STAT_CALLS[name](cp, cp.asarray(host), cp.asarray(weights))
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,),
                    strict=True):
        assert_same(g, w, rtol=1e-12)


def test_statistics_errors_have_numpys_class_and_message():
    for xp in (np, cp):
        with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
            xp.average(xp.ones(3), weights=xp.zeros(3))
        with pytest.raises(TypeError, match="Axis must be specified when shapes of a and weights differ"):
            xp.average(xp.ones((2, 3)), weights=xp.ones(3))
        with pytest.raises(ValueError, match="m has more than 2 dimensions"):
            xp.cov(xp.ones((2, 2, 2)))


# Contractions: NumPy's einsum (its contraction order is NumPy's einsum_path), tensordot, kron.
EINSUM_CASES = [
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("ij,jk", [(3, 4), (4, 2)]), ("ii->i", [(4, 4)]), ("ii", [(3, 3)]),
    ("ij->ji", [(3, 4)]), ("i,i", [(5,), (5,)]), ("i,j->ij", [(3,), (4,)]),
    ("bij,bjk,kl->bil", [(2, 3, 4), (2, 4, 5), (5, 3)]), ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("ij,j->i", [(3, 4), (4,)]), ("ijk->", [(2, 3, 4)]), ("bij->j", [(2, 3, 4)]), ("i,i,i->i", [(4,), (4,), (4,)]),
    ("iij->ji", [(3, 3, 2)]), ("ab,cd,bc->ad", [(2, 3), (4, 5), (3, 4)]),
]


@pytest.mark.parametrize("subscripts,shapes", EINSUM_CASES)
@pytest.mark.parametrize("dtype", ["float64", "int32", "complex64"])
def test_einsum_matches_numpy(subscripts, shapes, dtype):
    rng = np.random.default_rng(zlib.crc32((subscripts + dtype).encode()))
    hosts = [(rng.standard_normal(s) * 4).astype(dtype) for s in shapes]
    if dtype == "complex64":
        hosts = [h + 1j * h[..., ::-1] for h in hosts]
    want = np.einsum(subscripts, *hosts)
    got = cp.einsum(subscripts, *[cp.asarray(h) for h in hosts])
    assert_same(got, want, rtol=None if dtype != "int32" else 0)


def test_tensordot_and_kron_match_numpy():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 3, 5))
    for axes in (1, ([1, 2], [1, 0]), 0, ([2], [0])):
        assert_same(cp.tensordot(cp.asarray(a), cp.asarray(b), axes), np.tensordot(a, b, axes), rtol=1e-12)
    m, n = rng.integers(-5, 5, (2, 3)), rng.integers(-5, 5, (3, 2, 2))
    assert_same(cp.kron(cp.asarray(m), cp.asarray(n)), np.kron(m, n), rtol=0)
    for xp in (np, cp):
        with pytest.raises(ValueError, match="shape-mismatch for sum"):
            xp.tensordot(xp.ones((2, 3)), xp.ones((2, 3)), axes=([1], [0]))
        with pytest.raises(ValueError, match="invalid subscript '1' in einstein sum subscripts string"):
            xp.einsum("i1", xp.ones((2, 3)))
        with pytest.raises(ValueError, match="output subscript 'k' which never appeared in an input"):
            xp.einsum("ij->k", xp.ones((2, 3)))


PAD_MODES = [("constant", {}), ("constant", {"constant_values": (1, 2)}), ("edge", {}), ("reflect", {}),
             ("symmetric", {}), ("reflect", {"reflect_type": "odd"}), ("symmetric", {"reflect_type": "odd"}),
             ("wrap", {}), ("maximum", {}), ("minimum", {"stat_length": 2}), ("mean", {}),
             ("mean", {"stat_length": (1, 3)}), ("linear_ramp", {"end_values": (5, -3)}), ("median", {}),
             ("median", {"stat_length": (2, 3)})]


@pytest.mark.parametrize("mode,kwargs", PAD_MODES)
def test_pad_matches_numpy_in_every_mode(mode, kwargs):
    # Widths past the array's length make reflections and wraps repeat; corners follow NumPy's
    # axis order.
    rng = np.random.default_rng(zlib.crc32((mode + str(kwargs)).encode()))
    for shape in [(5,), (3, 4), (2, 3, 2), (1, 4)]:
        host = rng.standard_normal(shape) * 10
        for dtype in ("float64", "int32"):
            h = host.astype(dtype)
            for width in [1, (2, 7), 9, ((3, 0),) + ((1, 12),) * (len(shape) - 1)]:
                assert_same(cp.pad(cp.asarray(h), width, mode, **kwargs), np.pad(h, width, mode, **kwargs),
                            rtol=1e-12, err_msg=f"{shape} {dtype} {width}")


def test_pad_errors_have_numpys_class_and_message():
    for xp in (np, cp):
        with pytest.raises(ValueError, match="index can't contain negative values"):
            xp.pad(xp.ones(3), -1)
        with pytest.raises(ValueError, match="can't extend empty axis 0 using modes other than 'constant' or 'empty'"):
            xp.pad(xp.ones(0), 2, "edge")
        with pytest.raises(ValueError, match="mode 'bogus' is not supported"):
            xp.pad(xp.ones(3), 1, "bogus")
        with pytest.raises(ValueError, match="unsupported keyword arguments for mode 'edge'"):
            xp.pad(xp.ones(3), 1, "edge", constant_values=3)


def test_ravel_in_keep_order_reads_broadcast_views_as_numpy():
    # NumPy's iterator leaves broadcast (stride-0) axes in C order when reading in 'K' order
    # (CuPy's test_ravel_broadcasted2/3 found ember sorting them).
    rng = np.random.default_rng(12)
    for _ in range(40):
        shape = tuple(int(s) for s in rng.integers(1, 4, rng.integers(1, 4)))
        host = np.arange(int(np.prod(shape))).reshape(shape)
        if rng.random() < 0.5:
            host = np.asfortranarray(host)
        target = tuple(int(rng.integers(2, 4)) if s == 1 else s for s in shape)
        perm = tuple(int(k) for k in rng.permutation(len(shape)))
        want = np.ravel(np.broadcast_to(host, target).transpose(perm), order="K")
        got = cp.ravel(cp.broadcast_to(cp.asarray(host), target).transpose(perm), order="K")
        assert_same(got, want, rtol=0, err_msg=f"{shape} -> {target}, axes {perm}")


def test_sign_of_zero_is_positive_zero_as_in_numpy():
    got = cp.sign(cp.asarray([-0.0, 0.0, np.nan, -3.0], dtype=np.float32)).get()
    want = np.sign(np.array([-0.0, 0.0, np.nan, -3.0], dtype=np.float32))
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    np.testing.assert_array_equal(got, want)


_X = np.random.default_rng(21).standard_normal(7)
_Y = np.random.default_rng(22).standard_normal(3)
_Z = _X + 1j * _X[::-1]
_P = np.cumsum(np.random.default_rng(23).standard_normal((3, 10)) * 3, axis=1)

# name -> (fn(xp, a), NumPy inputs); the ember run gets the same inputs as ember arrays.
MATH_CALLS = {
    "sinc": (lambda xp, a: xp.sinc(a), [np.array([0.0, 0.5, -1.2, 3.0])]),
    "angle": (lambda xp, a: xp.angle(a), [np.array([1 + 1j, -2.0, 0j, complex(-1, -0.0), 3j])]),
    "angle_real_deg": (lambda xp, a: xp.angle(a, deg=True), [np.array([1.5, -2.0, 0.0, -0.0])]),
    "angle_int": (lambda xp, a: xp.angle(a), [np.array([3, -1, 0])]),
    "i0": (lambda xp, a: xp.i0(a), [np.array([0.0, 0.5, -1.2, 3.0, 25.0, 31.0, 100.0, 700.0])]),
    "nan_to_num": (lambda xp, a: xp.nan_to_num(a), [np.array([np.nan, np.inf, -np.inf, 1.0], dtype=np.float32)]),
    "nan_to_num_complex": (lambda xp, a: xp.nan_to_num(a, nan=5.0, posinf=7.0),
                           [np.array([complex(np.nan, np.inf), 1 + 2j, complex(-np.inf, 0)])]),
    "real_if_close": (lambda xp, a: xp.real_if_close(a), [np.array([1 + 1e-15j, 2 + 0j])]),
    "real_if_close_not": (lambda xp, a: xp.real_if_close(a), [np.array([1 + 1e-3j, 2 + 0j])]),
    "unwrap": (lambda xp, a: xp.unwrap(a), [_P]),
    "unwrap_axis0_period": (lambda xp, a: xp.unwrap(a, axis=0, period=5.0), [_P]),
    "unwrap_int": (lambda xp, a: xp.unwrap(a, period=6), [np.array([0, 3, 7, 12, 2, 9])]),
    "vander": (lambda xp, a: xp.vander(a), [np.array([1, 2, 3, 5])]),
    "vander_increasing": (lambda xp, a: xp.vander(a, 5, increasing=True), [np.array([1.5, 2, 3])]),
    "convolve_int": (lambda xp, a, b: xp.convolve(a, b), [np.array([1, 2, 3, 4]), np.array([1, -1])]),
}
for _mode in ("full", "same", "valid"):
    MATH_CALLS[f"convolve_{_mode}"] = (lambda xp, a, b, m=_mode: xp.convolve(a, b, m), [_X, _Y])
    MATH_CALLS[f"convolve_swapped_{_mode}"] = (lambda xp, a, b, m=_mode: xp.convolve(a, b, m), [_Y, _X])
    MATH_CALLS[f"convolve_scalar_{_mode}"] = (lambda xp, a, b, m=_mode: xp.convolve(a, b, m), [np.array(2.5), _Y])
    MATH_CALLS[f"correlate_{_mode}"] = (lambda xp, a, b, m=_mode: xp.correlate(a, b, m), [_X, _Y])
    MATH_CALLS[f"correlate_swapped_{_mode}"] = (lambda xp, a, b, m=_mode: xp.correlate(a, b, m), [_Y, _X])
    MATH_CALLS[f"correlate_complex_{_mode}"] = (lambda xp, a, b, m=_mode: xp.correlate(a, b, m), [_Z, _Z[:3]])
    MATH_CALLS[f"correlate_complex_swapped_{_mode}"] = (lambda xp, a, b, m=_mode: xp.correlate(a, b, m),
                                                        [_Z[:3], _Z])


@pytest.mark.parametrize("name", sorted(MATH_CALLS))
def test_math_functions_match_numpy(name):
    fn, hosts = MATH_CALLS[name]
    assert_same(fn(cp, *[cp.asarray(h) for h in hosts]), fn(np, *hosts), rtol=1e-12)


@pytest.mark.parametrize("name,dtype,rtol", [("sinc", np.float16, 1e-3), ("sinc", np.float32, 1e-6),
                                             ("i0", np.float16, 1e-3), ("i0", np.float32, 1e-6)])
def test_special_functions_keep_narrow_float_dtypes(name, dtype, rtol):
    x = np.array([0.0, 0.5, -1.2, 3.0, 7.5], dtype)
    got = getattr(cp, name)(cp.asarray(x))
    assert got.dtype == getattr(np, name)(x).dtype == dtype
    # Computed in float64 and rounded once (NumPy's own float32 i0 is a few ulps off).
    want = getattr(np, name)(x.astype(np.float64)).astype(dtype)
    np.testing.assert_allclose(got.get(), want, rtol=rtol, atol=rtol)  # sinc(3) is 0: absolute there


@pytest.mark.parametrize("window", ["bartlett", "blackman", "hamming", "hanning"])
def test_windows_match_numpy(window):
    for m in (0, 1, 2, 9, 64):
        assert_same(getattr(cp, window)(m), getattr(np, window)(m), rtol=1e-12)
    assert_same(cp.kaiser(12, 14.0), np.kaiser(12, 14.0), rtol=1e-12)


def test_grids_match_numpy():
    assert_same(cp.mgrid[0:3, 1:5:2], np.mgrid[0:3, 1:5:2], rtol=0)
    assert_same(cp.mgrid[0:1:5j], np.mgrid[0:1:5j], rtol=1e-15)
    for got, want in zip(cp.ogrid[0:1:3j, 0:2], np.ogrid[0:1:3j, 0:2], strict=True):
        assert_same(got, want, rtol=1e-15)
    # NumPy's points are start + i * step (not linspace's), and array bounds broadcast.
    assert_same(cp.mgrid[-3:7:4j, 0.5:4:1.5], np.mgrid[-3:7:4j, 0.5:4:1.5], rtol=0)
    lo, hi = np.zeros(4)[:, None], np.linspace(1, 2, 4)[:, None]
    assert_same(cp.mgrid[cp.asarray(lo):cp.asarray(hi):5j], np.mgrid[lo:hi:5j], rtol=0)
    lo3, hi3 = lo[:3], hi[:3]
    assert_same(cp.mgrid[cp.asarray(lo3):cp.asarray(hi3):3j, cp.asarray(lo3):cp.asarray(hi3):3j],
                np.mgrid[lo3:hi3:3j, lo3:hi3:3j], rtol=0)
    for got, want in zip(cp.ogrid[cp.asarray(lo):cp.asarray(hi):3j, 0:2], np.ogrid[lo:hi:3j, 0:2], strict=True):
        assert_same(got, want, rtol=0)
    assert_same(cp.ascontiguousarray(cp.ones(())), np.ascontiguousarray(np.ones(())), rtol=0)


AT_CASES = {
    "add_repeated": (np.add, [0, 0, 3, 3, 3], 1.5),
    "multiply_repeated": (np.multiply, [1, 1, 2], 2.0),
    "negative_repeated": (np.negative, [1, 1, 2], None),
    "maximum_array": (np.maximum, np.array([1, 1, 2]), np.array([5.0, 0.0, 9.0])),
    "subtract_slice": (np.subtract, slice(2, 6), 1),
    "power_repeated": (np.power, [2, 2], 2.0),
}


@pytest.mark.parametrize("name", sorted(AT_CASES))
def test_ufunc_at_updates_once_per_occurrence_as_numpy(name):
    ufunc, indices, b = AT_CASES[name]
    host = np.arange(10.0)
    e = cp.asarray(host)
    e_indices = cp.asarray(indices) if isinstance(indices, np.ndarray) else indices
    e_b = cp.asarray(b) if isinstance(b, np.ndarray) else b
    args, e_args = ((indices,), (e_indices,)) if b is None else ((indices, b), (e_indices, e_b))
    ufunc.at(host, *args)
    getattr(cp, ufunc.__name__).at(e, *e_args)
    assert_same(e, host, rtol=0)


def test_ufunc_at_on_views_and_tuples_of_indices():
    host = np.zeros((3, 4), dtype=np.int64)
    e = cp.asarray(host)
    np.add.at(host, (np.array([0, 0, 2]), np.array([1, 1, 3])), np.array([1, 2, 3]))
    np.add.at(e, (cp.asarray([0, 0, 2]), cp.asarray([1, 1, 3])), cp.asarray([1, 2, 3]))  # through NumPy's dispatch
    assert_same(e, host, rtol=0)
    h = np.zeros((3, 4))
    ev = cp.asarray(h)[:, ::2]
    np.add.at(h[:, ::2], ([0, 0], [1, 1]), 3.0)
    cp.add.at(ev, ([0, 0], [1, 1]), 3.0)
    assert_same(ev, h[:, ::2], rtol=0)
    # NumPy's at computes in the result type and casts back unsafely (no error).
    host = np.array([-3, 0, 5], dtype=np.int64)
    e = cp.asarray(host)
    np.add.at(host, [0, 0, 2], 1.5)
    cp.add.at(e, [0, 0, 2], 1.5)
    assert_same(e, host, rtol=0)


LINSPACE_CALLS = {
    "array_start": lambda xp, a: xp.linspace(a[:2], 10, 5),
    "lists_int": lambda xp, a: xp.linspace([0, 0], [100, 16], num=50, dtype=np.int32),
    "axis1": lambda xp, a: xp.linspace(a[:2].reshape(2, 1), 5.0, 4, axis=1),
    "int16_to_uint8": lambda xp, a: xp.linspace(xp.asarray(np.array([-120, 120], dtype=np.int16)), 0, num=50,
                                                dtype=np.uint8),
    "no_endpoint_step": lambda xp, a: xp.linspace([1, 2], 3, 6, endpoint=False, retstep=True)[0],
    "logspace_axis1": lambda xp, a: xp.logspace(xp.asarray(np.array([0, 2])), xp.asarray(np.array([2, 0])), num=5,
                                                dtype=np.uint32, axis=1),
}


@pytest.mark.parametrize("name", sorted(LINSPACE_CALLS))
def test_linspace_with_array_bounds_matches_numpy(name):
    host = np.array([0.5, -2.0, 3.0])
    assert_same(LINSPACE_CALLS[name](cp, cp.asarray(host)), LINSPACE_CALLS[name](np, host), rtol=1e-12)


@pytest.mark.parametrize("name", ["empty_like", "zeros_like", "ones_like", "full_like"])
def test_like_arrays_keep_the_order_of_a_view_in_neither_order(name):
    # A view whose strides are neither C nor F order, nor descending: NumPy's 'K' layout.
    host = np.arange(24.0).reshape(2, 3, 4)[:, ::2, :].swapaxes(0, 1)
    view = cp.asarray(np.arange(24.0).reshape(2, 3, 4))[:, ::2, :].swapaxes(0, 1)
    args = (7.0,) if name == "full_like" else ()
    got, want = getattr(cp, name)(view, *args), getattr(np, name)(host, *args)
    assert got.strides == want.strides and got.shape == want.shape
    if name != "empty_like":
        assert_same(got, want, rtol=0)
    assert getattr(cp, name)([1, 2], *args).shape == (2,)


def test_conversions_match_numpy():
    host = np.arange(6.0).reshape(2, 3).T
    view = cp.asarray(np.arange(6.0).reshape(2, 3)).T
    assert cp.isfortran(view) == np.isfortran(host)
    for req in ("C", ["F", "W"], ["C", "O"]):
        got, want = cp.require(view, np.float32, req), np.require(host, np.float32, req)
        assert (got.flags.c_contiguous, got.flags.f_contiguous) == (want.flags.c_contiguous, want.flags.f_contiguous)
        assert_same(got, want, rtol=0)
    assert_same(cp.asanyarray([1, 2]), np.asanyarray([1, 2]), rtol=0)
    for xp in (np, cp):
        with pytest.raises(ValueError, match="array must not contain infs or NaNs"):
            xp.asarray_chkfinite([1.0, np.nan])
        with pytest.raises(ValueError, match='Cannot specify both "C" and "F" order'):
            xp.require(xp.zeros(2), requirements=["C", "F"])


def test_array_api_functions_match_numpy():
    host = np.arange(12.0).reshape(3, 4)
    z = host + 1j * host[::-1]
    x, ez = cp.asarray(host), cp.asarray(z)
    assert_same(cp.cumulative_sum(x, axis=1, include_initial=True),
                np.cumulative_sum(host, axis=1, include_initial=True), rtol=0)
    assert_same(cp.cumulative_prod(x[0], include_initial=True), np.cumulative_prod(host[0], include_initial=True),
                rtol=0)
    assert_same(cp.vecdot(ez, ez[:1]), np.vecdot(z, z[:1]), rtol=1e-12)
    assert_same(cp.vecdot(x, x, axis=0), np.vecdot(host, host, axis=0), rtol=1e-12)
    assert_same(cp.astype(x, np.int32), host.astype(np.int32), rtol=0)
    with pytest.raises(ValueError, match="axis must be specified"):
        cp.cumulative_sum(x)


def test_convolve_and_correlate_give_numpys_dtypes():
    # Booleans or of ands, float16 summed in float32, mixed kinds promoted (CuPy's
    # TestConvolveShapeCombination found booleans conjugated into int8).
    for d1 in (np.bool_, np.uint8, np.float16, np.int64, np.complex64):
        for d2 in (np.bool_, np.int8, np.float32, np.float16):
            a, b = (np.arange(6) % 3).astype(d1), (np.arange(4) % 2 + 1).astype(d2)
            for mode in ("valid", "full", "same"):
                assert_same(cp.convolve(cp.asarray(a), cp.asarray(b), mode), np.convolve(a, b, mode), rtol=1e-3)
                assert_same(cp.correlate(cp.asarray(b), cp.asarray(a), mode), np.correlate(b, a, mode), rtol=1e-3)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "int32"])
def test_nanmean_reads_once_and_matches_numpy_with_its_warnings(dtype):
    import warnings

    rng = np.random.default_rng(31)
    if dtype == "int32":
        a = rng.integers(-5, 5, (37, 101)).astype(dtype)
    else:
        a = rng.standard_normal((37, 101)).astype(dtype)
        a[rng.random(a.shape) < 0.1] = np.nan
        a[3] = np.nan  # a row of NaN: NumPy's empty-slice warning along axis 1
    # The sum is taken in float64 (NumPy's half and single sums round as they go).
    tol = {"float16": 2e-3, "float32": 2e-5, "complex64": 2e-5}.get(dtype, 1e-12)
    for axis in (None, 0, 1, (0, 1)):
        with warnings.catch_warnings(record=True) as expected:
            warnings.simplefilter("always")
            want = np.nanmean(a, axis=axis)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            got = cp.nanmean(cp.asarray(a), axis=axis)
        got = np.asarray(got.get())
        assert got.dtype == np.asarray(want).dtype, (axis, got.dtype)
        assert np.allclose(got, want, rtol=tol, atol=tol, equal_nan=True), axis
        assert [str(w.message) for w in seen] == [str(w.message) for w in expected], axis


@pytest.mark.parametrize("subscripts, shape", [("ij", (2, 3)), ("ij->ji", (2, 3)), ("ii->i", (3, 3)),
                                               ("...ij->ij...", (2, 3)), ("ij->i", (2, 3)), ("ii", (3, 3))])
def test_einsum_of_one_operand_is_a_view_that_ignores_dtype_unless_it_sums(subscripts, shape):
    # NumPy returns the operand's view (its dtype) when nothing is summed; dtype applies to sums.
    a = np.arange(int(np.prod(shape)), dtype=np.int8).reshape(shape)
    got = cp.einsum(subscripts, cp.asarray(a), dtype=np.float32)
    want = np.einsum(subscripts, a, dtype=np.float32)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)


def test_einsum_interleaved_form():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    da, db = cp.asarray(a), cp.asarray(b)
    for args, host in [((da, [0, 1], db, [1, 2], [0, 2]), (a, [0, 1], b, [1, 2], [0, 2])),
                       ((da, [0, 1], db, [1, 2]), (a, [0, 1], b, [1, 2])),
                       ((da, [Ellipsis, 1]), (a, [Ellipsis, 1]))]:
        np.testing.assert_array_equal(cp.einsum(*args).get(), np.einsum(*host))
