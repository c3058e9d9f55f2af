"""The array semantics planned in Rust (``ember_array::shape``, ``ember_array::index``,
``ember_array::result_type``) against NumPy, on random shapes, layouts and arguments from a fixed
seed: the same values, a view exactly where NumPy gives one (same offset and strides), the same
dtype, and for arguments NumPy refuses the same exception class with the same message.

Few dtypes where a kernel runs (each new copy kernel compiles for about a second on PoCL);
dtype promotion itself is checked on empty arrays, which launch nothing.
"""

from __future__ import annotations

import math
import threading

import ember
import numpy as np
import pytest

SEED = 20261126
DTYPES = [np.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                "float16", "float32", "float64", "complex64", "complex128")]


def distinct(shape, dtype=np.float32, seed=0) -> np.ndarray:
    """Distinct values, negative and positive (so a misplaced element shows)."""
    size = math.prod(shape)
    return (np.random.default_rng(seed).permutation(size) - size // 2).reshape(shape).astype(dtype)


def outcome(fn, xp):
    """``fn(xp)``, or the exception it raised."""
    try:
        return fn(xp)
    except Exception as e:  # noqa: BLE001 - the comparison is the point
        return e


def assert_like_numpy(fn, e_base=None, n_base=None):
    """``fn(ember)`` gives what ``fn(numpy)`` gives: the same exception (class and message), or
    the same array; with bases, a view of ``e_base`` exactly where NumPy's is a view of
    ``n_base``, at the same byte offset and with the same strides."""
    want, got = outcome(fn, np), outcome(fn, ember)
    if isinstance(want, Exception):
        assert type(got) is type(want) and str(got) == str(want), (got, want)
        return None
    assert not isinstance(got, Exception), got
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _same(g, w, e_base, n_base)
    else:
        _same(got, want, e_base, n_base)
    return got


def _same(e, n, e_base, n_base):
    n = np.asarray(n)
    assert isinstance(e, ember.ndarray), type(e)
    assert (e.shape, e.dtype) == (n.shape, n.dtype)
    np.testing.assert_array_equal(e.get(), n)
    if n_base is None or n.size == 0:
        return
    if np.shares_memory(n, n_base):
        assert e.data.mem.ptr == e_base.data.mem.ptr, "NumPy gives a view, ember a copy"
        assert e.data.ptr - e_base.data.ptr == n.ctypes.data - n_base.ctypes.data
        assert [s for s, d in zip(e.strides, e.shape, strict=True) if d > 1] == [
            s for s, d in zip(n.strides, n.shape, strict=True) if d > 1]
    else:
        assert e.data.mem.ptr != e_base.data.mem.ptr, "NumPy gives a copy, ember a view"


def random_layout(rng, max_dims=4):
    """A NumPy array and its ember twin in the same random layout: a C array, maybe
    transposed, maybe sliced with steps (negative too)."""
    shape = tuple(int(d) for d in rng.integers(0, 5, rng.integers(0, max_dims + 1)))
    big = tuple(d * 2 + 1 for d in shape)
    n_root = distinct(big, seed=int(rng.integers(1000)))
    e_root = ember.asarray(n_root)
    index = tuple(slice(None, None, int(rng.choice([1, 2, -1, -2]))) for _ in big)
    index = tuple(slice(0 if s.step > 0 else None, None, s.step) for s in index)
    n, e = n_root[index + (Ellipsis,)], e_root[index]
    trim = tuple(slice(0, d) for d in shape)
    n, e = n[trim + (Ellipsis,)], e[trim]
    if n.ndim > 1 and rng.random() < 0.5:
        axes = tuple(int(a) for a in rng.permutation(n.ndim))
        n, e = n.transpose(axes), e.transpose(axes)
    return n, e, n_root, e_root


def random_target(rng, size):
    """A shape of ``size`` elements (maybe with one -1), or now and then one that is wrong."""
    factors, p, rest = [], 2, size
    while rest > 1:
        while rest % p == 0:
            factors.append(p)
            rest //= p
        p += 1
    ndim = int(rng.integers(1 if factors or size == 0 else 0, 5))
    shape = [1] * ndim
    for f in factors:
        shape[int(rng.integers(ndim))] *= f
    if size == 0 and ndim:
        shape[int(rng.integers(ndim))] = 0
    if ndim and rng.random() < 0.4:
        shape[int(rng.integers(ndim))] = -1
    if rng.random() < 0.1:
        shape.append(int(rng.integers(2, 4)))  # a size NumPy refuses
    if rng.random() < 0.05 and ndim > 1:
        shape[0] = shape[1] = -1  # two unknowns
    return tuple(shape)


@pytest.mark.parametrize("case", range(60))
def test_reshape_views_copies_and_errors_match_numpy(case):
    rng = np.random.default_rng(SEED + case)
    n, e, n_root, e_root = random_layout(rng)
    target = random_target(rng, n.size)
    order = str(rng.choice(["C", "F", "A"]))
    copy = [None, True, False][int(rng.integers(3))]
    assert_like_numpy(lambda xp: xp.reshape(n if xp is np else e, target, order=order, copy=copy), e_root, n_root)
    assert_like_numpy(lambda xp: (n if xp is np else e).reshape(*target, order=order), e_root, n_root)
    ravel_order = str(rng.choice(["C", "F", "A", "K"]))
    assert_like_numpy(lambda xp: xp.ravel(n if xp is np else e, ravel_order), e_root, n_root)
    assert_like_numpy(lambda xp: (n if xp is np else e).flatten(ravel_order), e_root, n_root)
    assert_like_numpy(lambda xp: xp.copy(n if xp is np else e, order=ravel_order), e_root, n_root)


@pytest.mark.parametrize("case", range(40))
def test_axis_plans_match_numpy(case):
    rng = np.random.default_rng(SEED + 100 + case)
    n, e, n_root, e_root = random_layout(rng)
    pick = lambda xp: n if xp is np else e  # noqa: E731
    nd = n.ndim
    axis = lambda: int(rng.integers(-nd - 1, nd + 2))  # noqa: E731 - now and then out of range
    axes = [axis() for _ in range(nd)] if rng.random() < 0.3 else [int(a) - nd * int(rng.integers(2))
                                                                      for a in rng.permutation(nd)]
    assert_like_numpy(lambda xp: xp.transpose(pick(xp), axes), e_root, n_root)
    assert_like_numpy(lambda xp: pick(xp).transpose(), e_root, n_root)
    a1, a2 = axis(), axis()
    assert_like_numpy(lambda xp: xp.swapaxes(pick(xp), a1, a2), e_root, n_root)
    k = int(rng.integers(0, nd + 1))
    src, dst = [axis() for _ in range(k)], [axis() for _ in range(k if rng.random() < 0.9 else k + 1)]
    assert_like_numpy(lambda xp: xp.moveaxis(pick(xp), src, dst), e_root, n_root)
    squeeze = [None, axis(), tuple(axis() for _ in range(int(rng.integers(0, 3))))][int(rng.integers(3))]
    assert_like_numpy(lambda xp: xp.squeeze(pick(xp), squeeze), e_root, n_root)
    expand = [axis(), tuple(int(rng.integers(-nd - 2, nd + 3)) for _ in range(int(rng.integers(1, 3))))][
        int(rng.integers(2))]
    assert_like_numpy(lambda xp: xp.expand_dims(pick(xp), expand), e_root, n_root)


@pytest.mark.parametrize("case", range(40))
def test_broadcasting_matches_numpy(case):
    rng = np.random.default_rng(SEED + 200 + case)
    n, e, n_root, e_root = random_layout(rng, max_dims=3)
    lead = tuple(int(d) for d in rng.integers(0, 4, rng.integers(0, 3)))
    target = lead + tuple(int(rng.integers(1, 4)) if d == 1 else d for d in n.shape)
    if rng.random() < 0.25 and target:
        target = target[:-1] + (target[-1] + 1,)  # does not broadcast (unless it was 1)
    if rng.random() < 0.05:
        target = (-1, *target)
    assert_like_numpy(lambda xp: xp.broadcast_to(n if xp is np else e, target), e_root, n_root)
    shapes = [tuple(int(d) for d in rng.choice([1, 2, 3], int(rng.integers(0, 4)))) for _ in range(3)]
    want, got = outcome(lambda xp: xp.broadcast_shapes(*shapes), np), outcome(lambda xp: xp.broadcast_shapes(
        *shapes), ember)
    assert (type(got), str(got)) == (type(want), str(want))


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")  # NumPy warns on complex to real
def test_join_dtypes_are_numpy_promotions():
    """concatenate's dtype for every pair of dtypes (empty arrays: no kernel runs), and the casts
    that ``dtype=`` and ``casting=`` refuse."""
    for a in DTYPES:
        for b in DTYPES:
            x, y = np.zeros((0, 2), a), np.zeros((0, 3), b)
            got = ember.concatenate([ember.asarray(x), ember.asarray(y)], axis=1)
            assert got.dtype == np.concatenate([x, y], axis=1).dtype, (a, b)
            for casting in ("no", "equiv", "safe", "same_kind", "unsafe"):
                assert_like_numpy(lambda xp, a=a, b=b, c=casting: xp.concatenate(  # noqa: B023
                    [xp.zeros((0,), a), xp.zeros((0,), a)], dtype=b, casting=c))


@pytest.mark.parametrize("case", range(25))
def test_concatenate_stack_and_split_match_numpy(case):
    rng = np.random.default_rng(SEED + 300 + case)
    pair = [(np.int8, np.uint8), (np.float32, np.int64), (np.float32, np.float32), (np.int64, np.int64)][case % 4]
    shape = [int(d) for d in rng.integers(1, 4, rng.integers(1, 4))]
    axis = int(rng.integers(-len(shape) - 1, len(shape) + 1))
    parts = []
    for k in range(int(rng.integers(1, 4))):
        s = list(shape)
        if rng.random() < 0.8 and -len(s) <= axis < len(s):
            s[axis] = int(rng.integers(0, 4))
        if rng.random() < 0.1:
            s = s[1:]  # a wrong number of dimensions
        parts.append(distinct(tuple(s), pair[k % 2], seed=k))
    dev = [ember.asarray(p) for p in parts]
    pick = lambda xp: parts if xp is np else dev  # noqa: E731
    assert_like_numpy(lambda xp: xp.concatenate(pick(xp), axis=axis))
    assert_like_numpy(lambda xp: xp.concatenate(pick(xp), axis=None))
    same = [parts[0]] * len(parts)
    assert_like_numpy(lambda xp: xp.stack(same if xp is np else [dev[0]] * len(parts), axis=axis))
    n0, e0 = parts[0], dev[0]
    cuts = [int(rng.integers(0, 5)), list(rng.integers(-4, 6, int(rng.integers(0, 4))))][int(rng.integers(2))]
    split_axis = int(rng.integers(-n0.ndim - 1, n0.ndim + 1))
    assert_like_numpy(lambda xp: xp.array_split(n0 if xp is np else e0, cuts, axis=split_axis), e0, n0)
    assert_like_numpy(lambda xp: xp.split(n0 if xp is np else e0, cuts, axis=split_axis), e0, n0)


def test_concatenate_out_and_its_errors_match_numpy():
    x = distinct((2, 3), np.float32)
    for out_shape, axis in [((4, 3), 0), ((2, 6), 1), ((3, 3), 0), ((12,), None), ((2, 6), None), ((4, 3, 1), 0)]:
        n_out, e_out = np.zeros(out_shape, np.float64), ember.zeros(out_shape, np.float64)
        got = outcome(lambda xp, o=e_out, a=axis: xp.concatenate([ember.asarray(x)] * 2, axis=a, out=o), ember)
        want = outcome(lambda xp, o=n_out, a=axis: xp.concatenate([x] * 2, axis=a, out=o), np)
        if isinstance(want, Exception):
            assert (type(got), str(got)) == (type(want), str(want))
        else:
            assert got is e_out
            np.testing.assert_array_equal(e_out.get(), n_out)
    assert_like_numpy(lambda xp: xp.concatenate([xp.zeros(2)], out=xp.zeros(2), dtype=np.float32))


def test_where_dtype_is_numpys_result_type_weak_scalars_included():
    """Every pair of dtypes and every dtype with a Python int, float and complex (empty arrays:
    the dtype is decided before anything runs)."""
    cond_n, cond_e = np.zeros(0, bool), ember.zeros(0, bool)
    for a in DTYPES:
        xn, xe = np.zeros(0, a), ember.zeros(0, a)
        for b in DTYPES:
            yn, ye = np.zeros(0, b), ember.zeros(0, b)
            assert ember.where(cond_e, xe, ye).dtype == np.where(cond_n, xn, yn).dtype, (a, b)
            assert ember.where(cond_e, xe, b.type(1)).dtype == np.where(cond_n, xn, b.type(1)).dtype, (a, b)
        for weak in (True, 7, -7.5, 2j):
            assert ember.where(cond_e, xe, weak).dtype == np.where(cond_n, xn, weak).dtype, (a, weak)
            assert ember.where(cond_e, weak, xe).dtype == np.where(cond_n, weak, xn).dtype, (a, weak)
    for x in (1, 2.5, 3j, True):
        for y in (1, 2.5, 3j, True):
            assert ember.where(cond_e, x, y).dtype == np.where(cond_n, x, y).dtype


@pytest.mark.parametrize("x, y", [
    (np.int8, 300), (np.uint8, -1), (np.float16, 1j), (np.int16, 2.5), (np.float32, np.float64(0.1)),
    (np.int64, np.uint64), (np.bool_, np.int8),
], ids=str)
def test_where_values_match_numpy(rng, x, y):
    c = rng.random((3, 1, 4)) > 0.5
    xn = distinct((5, 1), x) if x is not np.bool_ else rng.random((5, 1)) > 0.5
    yn = distinct((4,), y) if isinstance(y, type) else y
    ye = ember.asarray(yn) if isinstance(yn, np.ndarray) else yn
    want = outcome(lambda xp: np.where(c, xn, yn), np)
    if isinstance(want, OverflowError) or (isinstance(yn, int) and not np.can_cast(np.min_scalar_type(yn), x)):
        # A Python int out of range: NumPy 2.5 raises as its ufuncs do (2.4 wrapped it); ember
        # raises NumPy 2.5's error whichever NumPy is installed.
        with pytest.raises(OverflowError, match=f"^Python integer {yn} out of bounds for {np.dtype(x).name}$"):
            ember.where(ember.asarray(c), ember.asarray(xn), ye)
        return
    got = ember.where(ember.asarray(c), ember.asarray(xn), ye)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)
    assert_like_numpy(lambda xp: xp.where(xp.asarray(c), xp.zeros(2), xp.zeros(3)))


def random_index(rng, shape):
    """A random index mixing integer arrays, masks, booleans, integers, slices, None and
    ``...`` (now and then one NumPy refuses)."""
    items, axis, used_ellipsis = [], 0, False
    while axis < len(shape) and rng.random() < 0.85:
        kind = rng.choice(["array", "array", "int", "slice", "none", "mask", "ellipsis", "bool"])
        d = shape[axis]
        if kind == "array":
            bshape = tuple(int(k) for k in rng.integers(1, 3, rng.integers(0, 3)))
            hi = d if rng.random() > 0.05 else d + 2  # now and then out of range
            items.append(rng.integers(-d, max(hi, 1), bshape) if d or hi > d else np.zeros(bshape, int))
            axis += 1
        elif kind == "int":
            items.append(int(rng.integers(-d, d)) if d else 0)
            axis += 1
        elif kind == "slice":
            items.append(slice(int(rng.integers(-d - 1, d + 1)), None, int(rng.choice([1, 2, -1]))))
            axis += 1
        elif kind == "none":
            items.append(None)
        elif kind == "mask":
            k = int(rng.integers(1, len(shape) - axis + 1))
            mshape = list(shape[axis:axis + k])
            if rng.random() < 0.05:
                mshape[0] += 1  # does not fit its axes
            items.append(rng.random(mshape) > 0.5)
            axis += k
        elif kind == "ellipsis" and not used_ellipsis:
            items.append(Ellipsis)
            used_ellipsis = True
            axis = len(shape) - int(rng.integers(0, len(shape) - axis + 1))
        elif kind == "bool":
            items.append(bool(rng.random() < 0.7))
    return tuple(items)


def device_index(index):
    return tuple(ember.asarray(x) if isinstance(x, np.ndarray) else x for x in index)


@pytest.mark.parametrize("case", range(80))
def test_advanced_indices_select_and_place_as_numpy(case):
    rng = np.random.default_rng(SEED + 400 + case)
    shape = tuple(int(d) for d in rng.integers(1, 5, rng.integers(1, 5)))
    n = distinct(shape, np.int64, seed=case)
    e = ember.asarray(n)
    index = random_index(rng, shape)
    assert_like_numpy(lambda xp: (n if xp is np else e)[index if xp is np else device_index(index)])


@pytest.mark.parametrize("case", range(40))
def test_assigning_through_advanced_indices_as_numpy(case):
    rng = np.random.default_rng(SEED + 500 + case)
    shape = tuple(int(d) for d in rng.integers(1, 5, rng.integers(1, 4)))
    n = distinct(shape, np.int64, seed=case)
    e = ember.asarray(n)
    # Distinct positions per axis, so no element is written twice (NumPy writes the last).
    index = tuple(rng.permutation(d)[: int(rng.integers(1, d + 1))] if rng.random() < 0.6 else slice(None)
                  for d in shape)
    try:
        target = n[index]
    except IndexError as err:
        with pytest.raises(IndexError, match=str(err).replace("(", r"\(").replace(")", r"\)")):
            e[device_index(index)] = 0
        return
    value = distinct(target.shape[int(rng.integers(0, target.ndim + 1)):], np.int64, seed=case + 1) * 7
    n[index] = value
    e[device_index(index)] = ember.asarray(value)
    np.testing.assert_array_equal(e.get(), n)
    bad = np.zeros(target.shape + (2,), np.int64) if target.ndim else np.zeros((3,), np.int64)
    assert_like_numpy(lambda xp: (n if xp is np else e).__setitem__(
        index if xp is np else device_index(index), bad if xp is np else ember.asarray(bad)))


def test_index_errors_are_numpys():
    n = distinct((2, 3, 4), np.int64)
    e = ember.asarray(n)
    for index in [(5,), (0, -4), (0, 0, 0, 0), (Ellipsis, Ellipsis), (1.5,), ("x",), ([1.0],), (np.array([1.5]),),
                  (np.zeros((2, 3), int), np.zeros(4, int)), (np.zeros((2, 3), int), 7, np.zeros(4, int)),
                  (np.array([True, False, True]),), (slice(None), np.array([True, False])),
                  (np.zeros((2, 3, 4, 1), bool),), (False, [0, 1]), ([0, 7],), ([[0, 5]], [0])]:
        assert_like_numpy(lambda xp, i=index: (n if xp is np else e)[i if xp is np else device_index(i)])


def test_current_device_and_stream_are_rusts():
    native = ember._ember
    with ember.Device(0):
        assert native.current_device() == ember.Device().id == 0
    s1, s2 = ember.cuda.Stream(), ember.cuda.Stream()
    assert native.current_stream(0) is None and ember.cuda.get_current_stream() == ember.cuda.Stream.null
    with s1:
        assert native.current_stream(0) is s1 and ember.cuda.get_current_stream() is s1
        with s2:
            assert ember.cuda.get_current_stream() is s2
            seen = []
            worker = threading.Thread(target=lambda: seen.append(native.current_stream(0)))
            worker.start()
            worker.join()
            assert seen == [None]  # another thread has its own (empty) stack
        assert ember.cuda.get_current_stream() is s1
    assert native.current_stream(0) is None
    assert s2.use() is s2 and native.current_stream(0) is s2
    ember.cuda.Stream.null.use()
    assert ember.cuda.get_current_stream() == ember.cuda.Stream.null
    ember.cuda.Stream.null.__exit__()
    assert native.current_stream(0) is None


def test_a_stream_made_current_stays_alive_without_references(rng):
    ember.cuda.Stream().use()  # no reference kept: the runtime's stack keeps it
    x = ember.asarray(rng.standard_normal(8))
    np.testing.assert_allclose((x * 2).get(), x.get() * 2)
    ember.cuda.get_current_stream().synchronize()
    ember.cuda.Stream.null.use()
    ember.cuda.Stream.null.__exit__()
    assert ember._ember.current_stream(0) is None
