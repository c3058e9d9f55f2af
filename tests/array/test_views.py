"""Views, shape functions and basic indexing give what NumPy gives: the same values, and a view
exactly where NumPy gives a view (same byte offset and strides into the same buffer).

Each test runs one body with NumPy and with ember and compares (CuPy's ``numpy_cupy_*`` style).
Dtypes are limited to float32 and int64: on PoCL each new copy kernel (per dtype pair, layout and
number of axes) compiles for about a second.
"""

from __future__ import annotations

import math

import ember
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

DTYPES = [np.dtype(np.float32), np.dtype(np.int64)]
SHAPES = hnp.array_shapes(min_dims=0, max_dims=5, min_side=0, max_side=4)
FEW = settings(max_examples=40, deadline=None)


def values(shape, dtype, seed=0) -> np.ndarray:
    """Distinct values (so a misplaced element shows), negative and positive, never all alike."""
    size = math.prod(shape)
    return (np.random.default_rng(seed).permutation(size) - size // 2).reshape(shape).astype(dtype)


def both(host: np.ndarray):
    """The NumPy array and an ember copy of it."""
    return host, ember.asarray(host)


def assert_same(e, n, e_base=None, n_base=None):
    """``e`` holds what NumPy's ``n`` holds. With bases: ``e`` views ``e_base`` exactly when ``n``
    views ``n_base``, at the same byte offset and with the same strides."""
    n = np.asarray(n)
    assert isinstance(e, ember.ndarray), type(e)
    assert (e.shape, e.dtype) == (n.shape, n.dtype)
    np.testing.assert_array_equal(e.get(), n)
    if n_base is None or n.size == 0:
        return
    if np.shares_memory(n, n_base):
        assert e.data.mem.ptr == e_base.data.mem.ptr, "NumPy gives a view, ember a copy"
        assert e.data.ptr - e_base.data.ptr == n.ctypes.data - n_base.ctypes.data
        # Strides of length-1 axes never matter (and NumPy's own functions disagree on them).
        assert [s for s, d in zip(e.strides, e.shape, strict=True) if d > 1] == [
            s for s, d in zip(n.strides, n.shape, strict=True) if d > 1
        ]
    else:
        assert e.data.mem.ptr != e_base.data.mem.ptr, "NumPy gives a copy, ember a view"


def np_view(host, index):
    """``host[index]`` as NumPy's 0-d view where NumPy would give a scalar (ember gives 0-d arrays)."""
    out = host[index]
    if isinstance(out, np.generic):
        out = host[(index if isinstance(index, tuple) else (index,)) + (Ellipsis,)]
    return out


def assert_raises_like_numpy(fn):
    """``fn(xp)`` raises the same exception class with the same message for NumPy and ember."""
    with pytest.raises(Exception) as want:
        fn(np)
    with pytest.raises(want.type) as got:
        fn(ember)
    assert str(got.value) == str(want.value)


# --- basic indexing -------------------------------------------------------------------------------
@FEW
@given(data=st.data(), shape=SHAPES, dtype=st.sampled_from(DTYPES))
def test_basic_index_of_an_index_is_numpys_view(data, shape, dtype):
    n, e = both(values(shape, dtype))
    first = data.draw(hnp.basic_indices(shape, allow_newaxis=True), label="first")
    n1, e1 = np_view(n, first), e[first]
    assert_same(e1, n1, e, n)
    second = data.draw(hnp.basic_indices(n1.shape, allow_newaxis=True), label="second")
    assert_same(e1[second], np_view(n1, second), e, n)


@FEW
@given(data=st.data(), shape=SHAPES, dtype=st.sampled_from(DTYPES))
def test_assigning_a_scalar_through_a_basic_index(data, shape, dtype):
    n, e = both(values(shape, dtype))
    index = data.draw(hnp.basic_indices(shape, allow_newaxis=True), label="index")
    value = data.draw(st.sampled_from([-7, 3.75, np.float32(2.5), True]), label="value")
    n[index] = value
    e[index] = value
    assert_same(e, n)


@st.composite
def broadcastable_to(draw, shape):
    """A shape that broadcasts to ``shape``: some trailing axes of it, any of them 1, possibly
    with extra leading 1s (NumPy drops those in assignment)."""
    kept = draw(st.integers(0, len(shape)))
    tail = [1 if draw(st.booleans()) else d for d in shape[len(shape) - kept:]]
    return tuple([1] * draw(st.integers(0, 1)) + tail)


@FEW
@given(data=st.data(), shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4),
       dtype=st.sampled_from(DTYPES), source=st.sampled_from(["ember", "ember-cast", "numpy", "list"]))
def test_assigning_an_array_through_a_basic_index(data, shape, dtype, source):
    n, e = both(values(shape, dtype))
    index = data.draw(hnp.basic_indices(shape, allow_newaxis=True), label="index")
    # An index of one element takes only scalars in NumPy (test_index_errors_match_numpy).
    one_element = isinstance(n[index], np.generic)
    value_shape = () if one_element else data.draw(broadcastable_to(n[index].shape), label="value shape")
    value_dtype = [d for d in DTYPES if d != dtype][0] if source == "ember-cast" else dtype
    value = values(value_shape, value_dtype, seed=1)
    value = value[..., ::-1] if value.ndim else value  # a reversed view as the source
    # NumPy takes no extra axes from lists, and an empty list has one axis.
    if source == "list" and value.ndim <= n[index].ndim and value.size:
        value = value.tolist()
    n[index] = value
    e[index] = ember.asarray(value) if source.startswith("ember") else value
    assert_same(e, n)


@pytest.mark.parametrize("assignment", [
    lambda a: a.__setitem__(slice(1, None), a[:-1]),
    lambda a: a.__setitem__(slice(None, None, -1), a),
    lambda a: a.__setitem__((slice(None), slice(None, None, -1)), a.T),
    lambda a: a.__setitem__(Ellipsis, a),
], ids=["shift", "reverse", "transpose-mirror", "self"])
def test_assignment_from_an_overlapping_view_reads_before_writing(assignment):
    n, e = both(values((6, 6), np.float32))
    assignment(n)
    assignment(e)
    assert_same(e, n)


def test_integer_index_gives_a_0d_view_like_cupy():
    n, e = both(values((3, 4), np.int64))
    item = e[1, -1]
    assert isinstance(item, ember.ndarray) and item.shape == ()
    assert_same(item, n[1, -1, ...], e, n)
    assert int(item) == n[1, -1]
    item[...] = 99  # writes through
    assert e.get()[1, 3] == 99


def test_iteration_walks_the_first_axis():
    n, e = both(values((3, 2), np.float32))
    rows = list(e)
    assert len(rows) == 3
    for row, want in zip(rows, n, strict=True):
        assert_same(row, want, e, n)
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        iter(ember.zeros(())).__next__()


@pytest.mark.parametrize("fn", [
    lambda xp: xp.zeros(3)[5],
    lambda xp: xp.zeros((2, 3))[:, -4],
    lambda xp: xp.zeros(3)[0, 0],
    lambda xp: xp.zeros(())[0],
    lambda xp: xp.zeros(3)[..., ...],
    lambda xp: xp.zeros(3)[1.0],
    lambda xp: xp.zeros(3)["a"],
    lambda xp: xp.zeros(3)[::0],
    lambda xp: xp.zeros(3).__setitem__(slice(None), xp.ones(4)),
    lambda xp: xp.zeros((2, 3)).__setitem__(slice(None), xp.ones((2, 2))),
    lambda xp: xp.zeros(3, np.int8).__setitem__(0, 300),
    lambda xp: xp.zeros(3).__setitem__(0, "x"),
    lambda xp: xp.zeros((2, 3)).__setitem__((0, 1), xp.ones(1)),
    lambda xp: xp.zeros((2, 3)).__setitem__((0, Ellipsis), [[1.0, 2.0, 3.0]]),
], ids=["out-of-bounds", "negative-out-of-bounds", "too-many", "0d", "two-ellipses", "float", "str",
        "zero-step", "set-broadcast", "set-broadcast-2d", "set-overflow", "set-string", "set-one-element",
        "set-nested-list"])
def test_index_errors_match_numpy(fn):
    assert_raises_like_numpy(fn)


@pytest.mark.parametrize("index", [[0, 1], (slice(None), [1]), True, np.array([True, False, True])],
                         ids=["list", "list-in-tuple", "bool", "mask"])
def test_advanced_indices_gather_copies_and_scatter_as_numpy(index):
    n, e = both(values((3, 3), np.float32))
    assert_same(e[index], n[index], e, n)  # a copy, as NumPy's
    n[index] = 5
    e[index] = 5
    assert_same(e, n)


def test_a_0d_device_integer_is_an_integer_index():
    n, e = both(values((3, 2), np.int64))
    assert_same(e[ember.asarray(np.int64(2))], n[2], e, n)  # a view, as NumPy's n[2]
    assert_same(e[ember.asarray(np.int64(-1)), 1], np_view(n, (-1, 1)), e, n)


# --- reshape, ravel, copies -------------------------------------------------------------------------
@st.composite
def reshapes(draw, size):
    """A shape of ``size`` elements: its prime factors spread over 0..5 axes, maybe one -1."""
    if size == 0:
        shape = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
        return tuple(shape[:-1] + [0]) if 0 not in shape else tuple(shape)
    factors, p, rest = [], 2, size
    while rest > 1:
        while rest % p == 0:
            factors.append(p)
            rest //= p
        p += 1
    ndim = draw(st.integers(1 if factors else 0, 5))
    shape = [1] * ndim
    for f in factors:
        shape[draw(st.integers(0, ndim - 1))] *= f
    if ndim and draw(st.booleans()):
        shape[draw(st.integers(0, ndim - 1))] = -1
    return tuple(shape)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), shape=SHAPES, dtype=st.sampled_from(DTYPES), order=st.sampled_from("CFA"))
def test_reshape_is_a_view_exactly_when_numpys_is(data, shape, dtype, order):
    n, e = both(values(shape, dtype))
    index = data.draw(hnp.basic_indices(shape, allow_newaxis=True), label="index")
    n1, e1 = np_view(n, index), e[index]
    new_shape = data.draw(reshapes(n1.size), label="new shape")
    assert_same(e1.reshape(new_shape, order=order), n1.reshape(new_shape, order=order), e, n)
    assert_same(ember.reshape(e1, new_shape, order), np.reshape(n1, new_shape, order), e, n)


@FEW
@given(data=st.data(), shape=SHAPES, dtype=st.sampled_from(DTYPES), order=st.sampled_from("CFAK"))
def test_ravel_flatten_and_copy_lay_out_like_numpy(data, shape, dtype, order):
    n, e = both(values(shape, dtype))
    index = data.draw(hnp.basic_indices(shape, allow_newaxis=True), label="index")
    n1, e1 = np_view(n, index), e[index]
    assert_same(e1.ravel(order), n1.ravel(order), e, n)
    assert_same(e1.flatten(order), n1.flatten(order), e, n)
    got, want = e1.copy(order), n1.copy(order)
    assert_same(got, want, e, n)
    assert (got.flags.c_contiguous, got.flags.f_contiguous) == (want.flags.c_contiguous, want.flags.f_contiguous)
    if want.size and 1 not in want.shape:
        assert got.strides == want.strides


def test_reshape_argument_forms():
    n, e = both(values((2, 3, 4), np.int64))
    for args in [(-1,), (6, -1), ((4, 6),), ([2, -1, 3],), (np.int64(24),)]:
        assert_same(e.reshape(*args), n.reshape(*args), e, n)
    assert_same(ember.reshape(e, 24), np.reshape(n, 24), e, n)
    assert_same(e.T.reshape(24, copy=True), n.T.reshape(24, copy=True), e, n)
    assert_same(e.reshape((2, 12), copy=True), n.reshape((2, 12), copy=True), e, n)


def test_copy_module_function_keeps_the_layout_by_default():
    n, e = both(values((4, 5, 6), np.float32))
    view_n, view_e = n.transpose(2, 0, 1)[::2], e.transpose(2, 0, 1)[::2]
    got, want = ember.copy(view_e), np.copy(view_n)
    assert_same(got, want, e, n)
    assert got.strides == want.strides


def test_contiguous_conversions():
    n, e = both(values((3, 4), np.int64))
    assert ember.ascontiguousarray(e) is e
    assert_same(ember.ascontiguousarray(e.T), np.ascontiguousarray(n.T), e, n)
    assert_same(ember.asfortranarray(e), np.asfortranarray(n), e, n)
    assert ember.asfortranarray(e.T).data.ptr == e.data.ptr
    assert ember.asfortranarray(ember.asarray(np.float32(2))).shape == (1,)


@pytest.mark.parametrize("fn", [
    lambda xp: xp.zeros(6).reshape(4, -1),
    lambda xp: xp.zeros(6).reshape(-1, -1),
    lambda xp: xp.zeros(6).reshape(7),
    lambda xp: xp.zeros((0, 3)).reshape(-1, 0),
    lambda xp: xp.zeros(6).reshape(2, 3, order="X"),
    lambda xp: xp.zeros((2, 3)).T.reshape(6, copy=False),
    lambda xp: xp.zeros((2, 3)).copy(order="X"),
    lambda xp: xp.zeros((2, 3)).reshape(2.0, 3),
    lambda xp: xp.zeros((2, 3)).reshape(6, order="K"),
    lambda xp: xp.zeros((2, 3)).ravel(order="X"),
], ids=["size", "two-unknown", "size-7", "unknown-of-empty", "order", "no-copy", "copy-order", "float", "order-K",
        "ravel-order"])
def test_reshape_errors_match_numpy(fn):
    assert_raises_like_numpy(fn)


# --- axes -----------------------------------------------------------------------------------------
@FEW
@given(data=st.data(), shape=hnp.array_shapes(min_dims=1, max_dims=5, min_side=0, max_side=3),
       dtype=st.sampled_from(DTYPES))
def test_axis_permutations_are_views(data, shape, dtype):
    base_n, base_e = both(values(shape, dtype))
    n, e = base_n[..., ::-1], base_e[..., ::-1]
    ndim = len(shape)
    perm = data.draw(st.permutations(range(ndim)), label="perm")
    assert_same(e.transpose(perm), n.transpose(perm), base_e, base_n)
    assert_same(e.transpose(*perm), n.transpose(*perm), base_e, base_n)
    assert_same(ember.transpose(e), np.transpose(n), base_e, base_n)
    assert_same(e.T, n.T, base_e, base_n)
    axis = st.integers(-ndim, ndim - 1)
    a1, a2 = data.draw(axis, label="axis1"), data.draw(axis, label="axis2")
    assert_same(e.swapaxes(a1, a2), n.swapaxes(a1, a2), base_e, base_n)
    k = data.draw(st.integers(0, ndim), label="moved")
    source, dest = perm[:k], data.draw(st.permutations(range(ndim)), label="dest")[:k]
    assert_same(ember.moveaxis(e, source, dest), np.moveaxis(n, source, dest), base_e, base_n)


@FEW
@given(data=st.data(), shape=hnp.array_shapes(min_dims=0, max_dims=5, min_side=1, max_side=2),
       dtype=st.sampled_from(DTYPES))
def test_squeeze_and_expand_dims_are_views(data, shape, dtype):
    n, e = both(values(shape, dtype))
    assert_same(e.squeeze(), n.squeeze(), e, n)
    units = tuple(i for i, d in enumerate(shape) if d == 1)
    axes = data.draw(st.lists(st.sampled_from(units), unique=True).map(tuple), label="axes") if units else ()
    assert_same(ember.squeeze(e, axes), np.squeeze(n, axes), e, n)
    new = data.draw(st.lists(st.integers(0, len(shape)), min_size=1, max_size=2, unique=True), label="new")
    assert_same(ember.expand_dims(e, tuple(new)), np.expand_dims(n, tuple(new)), e, n)
    assert_same(ember.expand_dims(e, -1), np.expand_dims(n, -1), e, n)


@FEW
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=4, max_side=3), dtype=st.sampled_from(DTYPES))
def test_broadcasting_gives_stride_0_views(shapes, dtype):
    hosts = [values(s, dtype, seed=i) for i, s in enumerate(shapes.input_shapes)]
    devices = [ember.asarray(h) for h in hosts]
    for e, n, got, want in zip(devices, hosts, ember.broadcast_arrays(*devices), np.broadcast_arrays(*hosts),
                               strict=True):
        assert_same(got, want, e, n)
    assert_same(ember.broadcast_to(devices[0], shapes.result_shape), np.broadcast_to(hosts[0], shapes.result_shape),
                devices[0], hosts[0])
    assert ember.broadcast_shapes(*shapes.input_shapes) == shapes.result_shape


def test_atleast_nd_match_numpy():
    for shape in [(), (3,), (2, 3), (2, 3, 4)]:
        n, e = both(values(shape, np.int64))
        for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
            assert_same(getattr(ember, name)(e), getattr(np, name)(n), e, n)
    pair = ember.atleast_2d(ember.zeros(()), ember.zeros(3))
    assert isinstance(pair, tuple) and [p.shape for p in pair] == [(1, 1), (1, 3)]


@pytest.mark.parametrize("fn", [
    lambda xp: xp.zeros((2, 3)).squeeze(0),
    lambda xp: xp.zeros((2, 3)).swapaxes(0, 2),
    lambda xp: xp.moveaxis(xp.zeros((2, 3)), [0, 0], [1, 0]),
    lambda xp: xp.moveaxis(xp.zeros((2, 3)), [0, 1], [1]),
    lambda xp: xp.expand_dims(xp.zeros((2, 3)), 3),
    lambda xp: xp.expand_dims(xp.zeros((2, 3)), (0, 0)),
    lambda xp: xp.zeros((2, 3)).transpose(0, 0),
    lambda xp: xp.zeros((2, 3)).transpose(0, 2),
    lambda xp: xp.zeros((2, 3)).transpose(0),
    lambda xp: xp.broadcast_to(xp.zeros((2, 3)), (3, 3)),
    lambda xp: xp.broadcast_to(xp.zeros((2, 3)), (3,)),
    lambda xp: xp.broadcast_arrays(xp.zeros((2, 3)), xp.zeros(4)),
], ids=["squeeze", "swapaxes", "moveaxis-repeat", "moveaxis-count", "expand-axis", "expand-repeat",
        "transpose-repeat", "transpose-axis", "transpose-count", "broadcast-to", "broadcast-to-ndim",
        "broadcast-arrays"])
def test_axis_errors_match_numpy(fn):
    assert_raises_like_numpy(fn)


# --- joining and splitting ------------------------------------------------------------------------
@pytest.mark.parametrize("shapes, dtypes, axis", [
    ([(2, 3), (4, 3)], ["float32", "float32"], 0),
    ([(2, 3, 2), (2, 1, 2), (2, 0, 2)], ["int64", "int64", "int64"], -2),
    ([(2, 3), (2, 2)], ["float32", "int64"], 1),
    ([(3,), (2, 2), ()], ["int64", "float32", "int64"], None),
])
def test_concatenate_matches_numpy(shapes, dtypes, axis):
    hosts = [values(s, d, seed=i) for i, (s, d) in enumerate(zip(shapes, dtypes, strict=True))]
    devices = [ember.asarray(h) for h in hosts]
    # Reversed views as inputs: the copies into the result are strided.
    hosts, devices = [h[..., ::-1] if h.ndim else h for h in hosts], [d[..., ::-1] if d.ndim else d for d in devices]
    assert_same(ember.concatenate(devices, axis=axis), np.concatenate(hosts, axis=axis))


def test_concatenate_into_out_and_dtype():
    hosts = [values((2, 3), np.int64, seed=i) for i in range(2)]
    devices = [ember.asarray(h) for h in hosts]
    out = ember.zeros((2, 6), np.float32)
    assert ember.concatenate(devices, axis=1, out=out) is out
    assert_same(out, np.concatenate(hosts, axis=1, dtype=np.float32))
    assert_same(ember.concatenate(devices, dtype=np.float32), np.concatenate(hosts, dtype=np.float32))


@pytest.mark.parametrize("name", ["stack", "vstack", "hstack", "dstack"])
@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 3, 2)], ids=str)
def test_stacking_matches_numpy(name, shape):
    hosts = [values(shape, np.float32, seed=i) for i in range(3)]
    devices = [ember.asarray(h) for h in hosts]
    assert_same(getattr(ember, name)(devices), getattr(np, name)(hosts))
    if name == "stack":
        assert_same(ember.stack(devices, axis=-1), np.stack(hosts, axis=-1))


@pytest.mark.parametrize("fn_name, cuts, axis", [
    ("split", 3, 0), ("split", [1, 4], 1), ("split", [-2, 10], 0), ("array_split", 4, 1),
    ("array_split", 7, 0), ("array_split", [2, 1], -1),
])
def test_splits_are_views_like_numpy(fn_name, cuts, axis):
    n, e = both(values((6, 5), np.int64))
    got, want = getattr(ember, fn_name)(e[::-1], cuts, axis), getattr(np, fn_name)(n[::-1], cuts, axis)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert_same(g, w, e, n)


@pytest.mark.parametrize("fn", [
    lambda xp: xp.concatenate([xp.zeros((2, 3)), xp.zeros(4)]),
    lambda xp: xp.concatenate([xp.zeros((2, 3)), xp.zeros((2, 4))]),
    lambda xp: xp.concatenate([]),
    lambda xp: xp.concatenate([xp.zeros(3)], axis=1),
    lambda xp: xp.concatenate([xp.zeros(()), xp.zeros(())]),
    lambda xp: xp.concatenate([xp.zeros(3)], dtype=np.int64),
    lambda xp: xp.stack([xp.zeros(3), xp.zeros(4)]),
    lambda xp: xp.stack([]),
    lambda xp: xp.split(xp.zeros(5), 2),
    lambda xp: xp.array_split(xp.zeros(5), 0),
], ids=["ndim", "dims", "empty", "axis", "0d", "cast", "stack-shape", "stack-empty", "split-uneven",
        "split-zero"])
def test_join_and_split_errors_match_numpy(fn):
    assert_raises_like_numpy(fn)


def test_base_is_the_array_that_owns_the_memory_like_numpy():
    owner = ember.zeros((3, 4), dtype=ember.float32)
    assert owner.base is None and owner.flags.owndata
    views = [owner[1:], owner[1:][::2], owner.T, owner[0], owner.reshape(12), owner.view(ember.int32),
             ember.swapaxes(owner, 0, 1), ember.expand_dims(owner, 0), ember.broadcast_to(owner[0], (2, 4)),
             owner[None, ..., 1]]
    for v in views:
        assert v.base is owner
        assert not v.flags.owndata
    z = ember.zeros(3, dtype=ember.complex64)
    assert z.real.base is z and z.imag.base is z
    for copy in (owner.copy(), owner.copy(order="F"), owner[1:] + 1, owner[ember.asarray(np.array([0, 2]))]):
        assert copy.base is None and copy.flags.owndata
    # A view keeps its owner alive, as in NumPy.
    v = ember.arange(5)[2:]
    np.testing.assert_array_equal(v.base.get(), np.arange(5))
