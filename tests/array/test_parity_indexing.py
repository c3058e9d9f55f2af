"""NumPy parity of ember's indexing: advanced getitem and setitem (integer arrays, lists,
masks, mixed with basic indices) and basic indexing, on views of every dtype.
(How the sweep works, and the case tables several files share: ``parity_cases``.)"""

from __future__ import annotations

import ember as cp
import numpy as np
import pytest
from ember.testing import DTYPE_NAMES, assert_same, cases_with_bugs, numpy_result, parity, special_grid
from ember.testing.strategies import SHAPES, operands, placements, run_sweep, values
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

# =================================================================================================
# Indexing
# =================================================================================================
INDEX_GET_BUGS: dict = {}
INDEX_SET_BUGS: dict = {}


@st.composite
def advanced_indices(draw, shape):
    """An index mixing integer arrays (NumPy or ember, maybe negative, maybe out of bounds),
    lists, boolean masks, ints, slices with steps, ``...`` and ``None``; as ``(numpy_index,
    ember_index)``."""
    ndim = len(shape)
    n_index, e_index = [], []
    axis = 0
    used_ellipsis = False
    while axis < ndim and draw(st.integers(0, 3)) and len(n_index) < 5:
        kind = draw(st.sampled_from(["int-array", "int-array", "mask", "list", "int", "slice", "none", "ellipsis"]))
        size = shape[axis]
        if kind == "int-array":
            idx_shape = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
            idx_dtype = draw(st.sampled_from([np.int64, np.int32, np.uint8, np.int16]))
            hi = size if draw(st.integers(0, 15)) else size + 2  # now and then out of bounds
            lo = 0 if idx_dtype == np.uint8 or not draw(st.booleans()) else -size
            if hi > lo:
                arr = draw(hnp.arrays(idx_dtype, idx_shape, elements=st.integers(lo, hi - 1)))
            else:
                arr = np.zeros((0,), idx_dtype)
            n_index.append(arr)
            e_index.append(cp.asarray(arr))
            axis += 1
        elif kind == "mask":
            k = draw(st.integers(1, min(2, ndim - axis)))
            mask = draw(hnp.arrays(np.bool_, shape[axis:axis + k]))
            n_index.append(mask)
            e_index.append(cp.asarray(mask) if draw(st.booleans()) else mask.tolist() if k == 1 and mask.size else
                           cp.asarray(mask))
            axis += k
        elif kind == "list":
            lst = draw(st.lists(st.integers(-max(size, 1), max(size - 1, 0)), min_size=1, max_size=3)) if size \
                else []
            n_index.append(np.array(lst, dtype=np.int64) if not lst else lst)
            e_index.append(lst if lst else cp.asarray(np.array([], np.int64)))
            axis += 1
        elif kind == "int" and size:
            i = draw(st.integers(-size, size - 1))
            n_index.append(i)
            e_index.append(i)
            axis += 1
        elif kind == "slice":
            sl = slice(draw(st.one_of(st.none(), st.integers(-5, 5))), draw(st.one_of(st.none(), st.integers(-5, 5))),
                       draw(st.sampled_from([None, 1, 2, -1, -2, 3])))
            n_index.append(sl)
            e_index.append(sl)
            axis += 1
        elif kind == "none":
            n_index.append(None)
            e_index.append(None)
        elif kind == "ellipsis" and not used_ellipsis:
            used_ellipsis = True
            n_index.append(Ellipsis)
            e_index.append(Ellipsis)
            axis = ndim - (draw(st.integers(0, ndim - axis)))
    if not any(isinstance(i, (np.ndarray, list)) for i in n_index):  # at least one advanced index
        arr = np.array(draw(st.lists(st.integers(-shape[0], shape[0] - 1), max_size=3)) if ndim and shape[0]
                       else [], dtype=np.int64)
        n_index.insert(0, arr)
        e_index.insert(0, cp.asarray(arr))
    index = tuple(n_index)
    # A known ember bug has a test of its own: an Ellipsis of no axes between advanced indices
    # (test_an_empty_ellipsis_separates_advanced_indices_like_numpy).
    kinds = ["adv" if isinstance(i, (np.ndarray, list)) else "ell" if i is Ellipsis else "x" for i in index]
    if "ell" in kinds and sum(1 for i in index if i is not None and i is not Ellipsis) >= ndim:
        k = kinds.index("ell")
        assume(not ("adv" in kinds[:k] and "adv" in kinds[k + 1:]))
    return index, tuple(e_index)


def np_view(x: np.ndarray, index):
    """``x[index]``, a 0-d array where NumPy gives a scalar (ember gives 0-d arrays, as CuPy)."""
    out = x[index]
    return np.asarray(out) if isinstance(out, np.generic) else out


ADVANCED_INDEX_BUGS: dict = {}


@pytest.mark.parametrize("dtype", cases_with_bugs([(d,) for d in DTYPE_NAMES],
                                                  {(d,): r for d, r in ADVANCED_INDEX_BUGS.items()}))
def test_advanced_getitem_matches_numpy_on_views_of_every_dtype(dtype):
    def body(data, tally):
        shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=4), label="shape")
        n, e = data.draw(operands(dtype, shape), label="x")
        n_index, e_index = data.draw(advanced_indices(shape), label="index")
        parity(lambda xp, x, *_: np_view(x, n_index) if xp is np else x[e_index], [n], [e], tally, rtol=0)

    run_sweep(body, f"advanced-get-{dtype}", examples=5)


@pytest.mark.parametrize("dtype", cases_with_bugs([(d,) for d in DTYPE_NAMES],
                                                  {(d,): r for d, r in ADVANCED_INDEX_BUGS.items()}))
def test_advanced_setitem_matches_numpy_on_views_of_every_dtype(dtype):
    """``x[index] = value`` with integer arrays and masks (scalars, arrays that broadcast, the
    ``m[m < 0] = 0`` form), into a view of a larger array: the whole base compared."""
    def body(data, tally):
        shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=4), label="shape")
        base_shape, index, axes = data.draw(placements(shape), label="layout")
        base = data.draw(values(dtype, base_shape), label="base")
        form = data.draw(st.sampled_from(["index", "mask-of-itself"]), label="form")
        if form == "index":
            n_index, e_index = data.draw(advanced_indices(shape), label="index")
            target_shape = np_view(base[index].transpose(axes), n_index).shape \
                if numpy_result(lambda xp, b: np_view(b[index].transpose(axes), n_index), base)[1] is None else ()
            # An element targeted twice gets one of its values, unspecified on a GPU (as in CuPy):
            # only indices that reach each element once are compared.
            ids = np.arange(base.size).reshape(base.shape)
            picked = numpy_result(lambda xp, b: np_view(b[index].transpose(axes), n_index), ids)
            assume(picked[1] is not None or np.unique(picked[0]).size == np.size(picked[0]))
        value_kind = data.draw(st.sampled_from(["scalar", "array", "other-dtype"]), label="value")
        if value_kind == "scalar":
            v = data.draw(st.sampled_from(special_grid(dtype).tolist()), label="scalar")
            vn = ve = v
        else:
            # (a 0-d array of another dtype into a mask: test_mask_assignment_of_another_dtype_casts_like_numpy)
            vshape = target_shape[data.draw(st.integers(0, len(target_shape))):] if form == "index" else (
                () if value_kind == "array" else (1,))
            vdtype = dtype if value_kind == "array" else data.draw(
                st.sampled_from([d for d in DTYPE_NAMES if np.can_cast(d, dtype, "same_kind")]))
            vn, ve = data.draw(operands(vdtype, vshape), label="value array")

        def fn(xp, b, v):
            b = b.copy()
            view = b[index].transpose(axes)
            if form == "index":
                view[n_index if xp is np else e_index] = v
            else:
                view[view != view.ravel()[0]] = v if view.size else v
            return b

        parity(fn, [base, vn], [cp.asarray(base), ve], tally, rtol=0)

    run_sweep(body, f"advanced-set-{dtype}", examples=4)


@pytest.mark.parametrize("index", [lambda xp: ([0, 1], [0, 1, 2]),
                                   lambda xp: (xp.asarray(np.array([], np.int64)), [0, 1])],
                         ids=["lists", "empty-array"])
def test_index_arrays_that_do_not_broadcast_raise_index_error_like_numpy(index):
    x = np.arange(24.0).reshape(2, 3, 4)
    parity(lambda xp, a: a[index(xp)], [x], [cp.asarray(x)], {"compared": 0, "raised": 0})


@pytest.mark.parametrize("dtype", ["float32"])
def test_an_empty_ellipsis_separates_advanced_indices_like_numpy(dtype):
    x = np.arange(60, dtype=dtype).reshape(5, 3, 4)
    parity(lambda xp, a: a[:, [0], ..., [1, 2, 3]], [x], [cp.asarray(x)], {"compared": 0, "raised": 0}, rtol=0)


@pytest.mark.parametrize("value", ["ember-int16-0d", "ember-float64-0d", "ember-int16-1d", "numpy-int64-1d",
                                   "numpy-int64-0d"])
def test_mask_assignment_of_another_dtype_casts_like_numpy(value):
    x = np.arange(6.0, dtype=np.float32)
    kind, dtype, nd = value.split("-")
    v = np.array([10, 20, 30] if nd == "1d" else 10, dtype=dtype)

    def fn(xp, a):
        a = a.copy()
        a[a > 2] = v if kind == "numpy" or xp is np else cp.asarray(v)
        return a

    parity(fn, [x], [cp.asarray(x)], {"compared": 0, "raised": 0}, rtol=0)


BASIC_DTYPES = ["float32", "int64", "bool", "complex128", "uint16", "float16", "int8"]


@pytest.mark.parametrize("dtype", BASIC_DTYPES)
def test_basic_getitem_and_setitem_match_numpy_on_views(dtype):
    """Ints, slices with steps, ``...`` and ``None`` on both sides of ``=`` (test_views has
    the views' strides; here the values of every dtype)."""
    def body(data, tally):
        shape = data.draw(SHAPES, label="shape")
        n, e = data.draw(operands(dtype, shape), label="x")
        index = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True), label="index")
        parity(lambda xp, x: np_view(x, index) if xp is np else x[index], [n], [e], tally, rtol=0)
        target = np_view(n, index).shape
        vshape = target[data.draw(st.integers(0, len(target))):]
        vn, ve = data.draw(operands(dtype, vshape), label="value")

        def fn(xp, x, v):
            x = x.copy()
            x[index] = v
            return x

        parity(fn, [n, vn], [e, ve], tally, rtol=0)

    run_sweep(body, f"basic-index-{dtype}", examples=12)


def test_take_of_float16_matches_numpy():
    x = special_grid("float16")
    assert_same(cp.take(cp.asarray(x), cp.asarray(np.array([3, 0, -1]))), np.take(x, [3, 0, -1]))
