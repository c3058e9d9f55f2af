"""NumPy parity of the second batch of NumPy's functions: bits (``packbits``/``unpackbits``),
``insert``/``block``/``rollaxis``, ``ndarray.flat`` and ``.mT``, the two-output ufuncs
(``divmod``, ``modf``, ``frexp``), ``r_``/``c_``, ``fromfunction`` and the host readers,
``apply_along_axis``/``apply_over_axes``/``piecewise``, ``matvec``/``vecmat``,
``shares_memory``, and ``array()`` of lists holding ember arrays.

Views (negative strides, offsets, transposes, 0-size) come from the parity sweep
(``parity_cases``); fixed-seed cases cover the rest; errors are checked for NumPy's class and
message."""

from __future__ import annotations

import io
import warnings

import ember as cp
import numpy as np
import pytest
from ember.testing import parity
from ember.testing.strategies import SHAPES, operands, run_sweep
from hypothesis import strategies as st

RNG_SEED = 20261126


def _axis(data, ndim, none=True):
    choices = st.integers(-ndim, ndim - 1) if ndim else st.just(0)
    return data.draw(st.one_of(st.none(), choices) if none else choices, label="axis")


def sweep_call(name, data, shape):
    """``fn(xp, x)`` for function ``name``, its other arguments drawn."""
    ndim = len(shape)
    draw = data.draw
    if name == "packbits":
        axis, order = _axis(data, ndim), draw(st.sampled_from(["big", "little"]), label="bitorder")
        return lambda xp, x: xp.packbits(x, axis=axis, bitorder=order)
    if name == "unpackbits":
        axis, order = _axis(data, ndim), draw(st.sampled_from(["big", "little"]), label="bitorder")
        count = draw(st.one_of(st.none(), st.integers(0, 20)), label="count")
        return lambda xp, x: xp.unpackbits(x, axis=axis, count=count, bitorder=order)
    if name == "insert":
        axis = _axis(data, ndim) if ndim else None
        n = int(np.prod(shape)) if axis is None else shape[axis]
        obj = draw(st.one_of(st.integers(-n, n), st.lists(st.integers(-n, n), min_size=2, max_size=3),
                             st.just(slice(None, None, 2))), label="obj")
        return lambda xp, x: xp.insert(x, obj, 7, axis=axis)
    if name == "rollaxis":
        axis = _axis(data, ndim, none=False)
        start = draw(st.integers(-ndim, ndim), label="start")
        return lambda xp, x: xp.rollaxis(x, axis, start)
    if name == "flat":
        step = draw(st.integers(1, 3), label="step")
        return lambda xp, x: x.flat[::step]
    if name == "flat_set":
        step = draw(st.integers(1, 3), label="step")

        def assign(xp, x):
            y = x.copy()
            y.T.flat[::step] = x.ravel()[:2]  # through a transposed view, values repeated
            return y
        return assign
    if name == "mT":
        return lambda xp, x: x.mT
    assert name == "block"
    return lambda xp, x: xp.block([[x, x], [x, x]])


SWEEP_CASES = [("packbits", "bool"), ("packbits", "int16"), ("unpackbits", "uint8"), ("insert", "float32"),
               ("insert", "int64"), ("rollaxis", "complex64"), ("flat", "float64"), ("flat", "uint16"),
               ("flat_set", "int32"), ("mT", "float16"), ("block", "int8")]
NEEDS_2D = {"mT"}


@pytest.mark.parametrize("name,dtype", SWEEP_CASES)
def test_function_matches_numpy_on_views(name, dtype):
    def body(data, tally):
        shape = data.draw(SHAPES, label="shape")
        if name in NEEDS_2D and len(shape) < 2:
            shape = shape + (2,) * (2 - len(shape))
        n, e = data.draw(operands(dtype, shape), label="x")
        parity(sweep_call(name, data, shape), [n], [e], tally, rtol=0)

    run_sweep(body, f"more-{name}-{dtype}", examples=6)


def _compare(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _compare(g, w)
        return
    got = got.get() if isinstance(got, cp.ndarray) else np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want)) if want.dtype.kind == "f" else True


FLOAT_SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -2.5, 3.0, 1e300, 0.75, -1e-310, 65504.0, 6e-8,
                  1.5e-5, -7.25]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int16", "uint32", "bool"])
def test_modf_and_frexp_match_numpy_on_special_values(dtype):
    rng = np.random.default_rng(RNG_SEED)
    if np.dtype(dtype).kind == "f":
        with np.errstate(all="ignore"):
            x = np.concatenate([np.array(FLOAT_SPECIALS), rng.standard_normal(20) * 1e3]).astype(dtype)
    else:
        x = rng.integers(0, 100, 20).astype(dtype)
    for name in ("modf", "frexp"):
        with np.errstate(all="ignore"):
            want = getattr(np, name)(x)
        _compare(getattr(cp, name)(cp.asarray(x)), want)
        # And through NumPy's own ufunc (NEP 13).
        _compare(getattr(np, name)(cp.asarray(x)), want)


@pytest.mark.parametrize("name", ["modf", "frexp"])
def test_modf_and_frexp_refuse_complex_as_numpy(name):
    for xp in (np, cp):
        with pytest.raises(TypeError, match=f"ufunc '{name}' not supported for the input types"):
            getattr(xp, name)(xp.ones(2, dtype=complex))


@pytest.mark.parametrize("dtype", ["int32", "uint8", "float64"])
def test_divmod_matches_numpy_and_fills_out(dtype):
    rng = np.random.default_rng(RNG_SEED)
    a = rng.integers(-50 if dtype[0] != "u" else 0, 50, 30).astype(dtype)
    b = rng.integers(1, 9, 30).astype(dtype)
    _compare(cp.divmod(cp.asarray(a), cp.asarray(b)), np.divmod(a, b))
    q = cp.empty(30, dtype=dtype)
    got = cp.divmod(cp.asarray(a), cp.asarray(b), out=(q, None))
    assert got[0] is q
    _compare(got, np.divmod(a, b))
    q2 = cp.empty(30, dtype=dtype)
    got = cp.divmod(cp.asarray(a), cp.asarray(b), q2)  # the first output by position, as NumPy takes it
    assert got[0] is q2
    _compare(got, np.divmod(a, b))
    with pytest.raises(ValueError, match="returning a single value"):
        cp.divmod.reduce(cp.asarray(a))


def test_concatenators_match_numpy():
    for key in [(slice(1, 4), 0, "A"), ("-1,2,0", [1, 2, 3], [4, 5, 6]), (slice(0, 1, 3j),),
                (np.int8(3), "A8"), (3, "A8"), ("0,2", [1, 2], [3, 4])]:
        def build(xp, key=key):
            args = tuple(xp.array([7, 8]) if k == "A" else xp.array([1], np.int8) if k == "A8" else k for k in key)
            return xp.r_[args]
        _compare(build(cp), build(np))
    _compare(cp.c_[cp.array([1, 2, 3]), cp.array([4, 5, 6])], np.c_[np.array([1, 2, 3]), np.array([4, 5, 6])])
    _compare(cp.c_[cp.ones((2, 2)), cp.zeros((2, 1))], np.c_[np.ones((2, 2)), np.zeros((2, 1))])
    assert cp.s_[1:2, ::3] == np.s_[1:2, ::3] and cp.index_exp[2] == np.index_exp[2]
    with pytest.raises(ValueError, match="special directives must be the first entry"):
        cp.r_[1, "0,2"]


def test_fromfunction_and_host_readers_match_numpy():
    _compare(cp.fromfunction(lambda i, j: i * 3 + j, (3, 4), dtype=np.int32),
             np.fromfunction(lambda i, j: i * 3 + j, (3, 4), dtype=np.int32))
    raw = np.arange(12, dtype=np.float32).tobytes()
    _compare(cp.frombuffer(raw, dtype=np.float32, count=5, offset=8),
             np.frombuffer(raw, dtype=np.float32, count=5, offset=8))
    _compare(cp.fromstring("1 2 3.5", sep=" "), np.fromstring("1 2 3.5", sep=" "))
    _compare(cp.fromiter((k * k for k in range(6)), dtype=np.int16),
             np.fromiter((k * k for k in range(6)), dtype=np.int16))
    text = "1,2,3\n4,5,6\n"
    _compare(cp.loadtxt(io.StringIO(text), delimiter=","), np.loadtxt(io.StringIO(text), delimiter=","))
    _compare(cp.genfromtxt(io.StringIO("1,,3\n4,5,6"), delimiter=","),
             np.genfromtxt(io.StringIO("1,,3\n4,5,6"), delimiter=","))


def test_apply_functions_and_piecewise_match_numpy():
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((3, 4, 5))
    for axis in (0, 1, -1):
        _compare(cp.apply_along_axis(lambda v: v[::-1] * 2, axis, cp.asarray(x)),
                 np.apply_along_axis(lambda v: v[::-1] * 2, axis, x))
        _compare(cp.apply_along_axis(lambda v: v.max(), axis, cp.asarray(x)),
                 np.apply_along_axis(lambda v: v.max(), axis, x))
    _compare(cp.apply_along_axis(lambda v: cp.stack([v, v]), 1, cp.asarray(x)),
             np.apply_along_axis(lambda v: np.stack([v, v]), 1, x))
    _compare(cp.apply_over_axes(cp.max, cp.asarray(x), [0, 2]), np.apply_over_axes(np.max, x, [0, 2]))
    v = np.linspace(-2, 2, 9)
    e = cp.asarray(v)
    _compare(cp.piecewise(e, [e < 0, e >= 0], [lambda t: -t, lambda t: t * 3]),
             np.piecewise(v, [v < 0, v >= 0], [lambda t: -t, lambda t: t * 3]))
    _compare(cp.piecewise(e, [e < -1], [5.0, lambda t: t + 1]), np.piecewise(v, [v < -1], [5.0, lambda t: t + 1]))
    with pytest.raises(ValueError, match="with 1 condition"):
        cp.piecewise(e, [e < 0], [1, 2, 3])
    with pytest.raises(ValueError, match="Cannot apply_along_axis when any iteration dimensions are 0"):
        cp.apply_along_axis(lambda t: t, 0, cp.zeros((3, 0)))


def test_matvec_and_vecmat_match_numpy():
    rng = np.random.default_rng(RNG_SEED)
    m = rng.standard_normal((2, 3, 4)) + 1j * rng.standard_normal((2, 3, 4))
    v = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    w = rng.standard_normal(3) - 2j
    np.testing.assert_allclose(cp.matvec(cp.asarray(m), cp.asarray(v)).get(), np.matvec(m, v), rtol=1e-12)
    np.testing.assert_allclose(cp.vecmat(cp.asarray(w), cp.asarray(m)).get(), np.vecmat(w, m), rtol=1e-12)
    for call in (lambda xp: xp.matvec(xp.ones((2, 3)), xp.ones(4)), lambda xp: xp.matvec(xp.ones(3), xp.ones(3)),
                 lambda xp: xp.vecmat(xp.ones(3), xp.ones((4, 2)))):
        with pytest.raises(ValueError) as want:
            call(np)
        with pytest.raises(ValueError, match=str(want.value).replace("(", r"\(").replace(")", r"\)")):
            call(cp)


def test_shares_memory_compares_addresses_like_numpy():
    a, h = cp.arange(10.0), np.arange(10.0)
    for f in (lambda x: (x, x[::2]), lambda x: (x[::2], x[1::2]), lambda x: (x[:5], x[5:]),
              lambda x: (x[2:7], x[::-1]), lambda x: (x.reshape(2, 5)[:, 1], x[3:4])):
        for name in ("shares_memory", "may_share_memory"):
            assert getattr(cp, name)(*f(a)) == getattr(np, name)(*f(h)), (name, f(h))
    assert not cp.shares_memory(a, cp.arange(10.0))
    assert not cp.may_share_memory(a, a.get())


def test_array_of_lists_holding_ember_arrays_is_assembled_on_the_device():
    a, h = cp.arange(3, dtype=np.int8), np.arange(3, dtype=np.int8)
    _compare(cp.array([a, a + 1]), np.array([h, h + 1]))
    _compare(cp.array([[a[0], 1.5]]), np.array([[h[0], 1.5]]))
    _compare(cp.array((a, [1, 2, 3]), dtype=np.float32), np.array((h, [1, 2, 3]), dtype=np.float32))
    _compare(cp.asarray([a[::-1], a]), np.asarray([h[::-1], h]))
    for xp, x in ((np, h), (cp, a)):
        with pytest.raises(ValueError, match="inhomogeneous shape after 1 dimensions. The detected shape was"):
            xp.array([x, x[:2]])


def test_flat_iterates_copies_and_indexes_like_numpy():
    h = np.arange(24.0).reshape(2, 3, 4).transpose(2, 0, 1)
    a = cp.asarray(h)
    assert a.flat.base is a and iter(a.flat) is not None and len(a.flat) == 24
    assert [float(v) for v in a.flat] == list(h.flat)
    it = a.flat
    next(it)
    next(it)
    assert it.index == 2 and it.coords == np.unravel_index(2, h.shape)
    for index in (5, -1, slice(3, None, -2), Ellipsis, [0, 5, 23], np.arange(24) % 2 == 0):
        _compare(a.flat[index], h.flat[index])
    for index, value in ((4, 9), (slice(None, None, 5), [1, 2]), ([1, 3, 3], 7), (np.arange(24) < 3, [5, 6])):
        g, w = a.copy(), h.copy()
        g.flat[index] = value
        w.flat[index] = value
        _compare(g, w)
    for bad in (None, True, (0,), 2.5):
        with pytest.raises(IndexError):
            a.flat[bad]
    with pytest.raises(IndexError, match="index 24 is out of bounds for size 24"):
        a.flat[24]


def test_bits_insert_block_rollaxis_errors_have_numpys_class_and_message():
    cases = [
        (lambda xp: xp.packbits(xp.ones(3)), TypeError, "Expected an input array of integer or boolean data type"),
        (lambda xp: xp.unpackbits(xp.ones(3, dtype=np.int8)), TypeError,
         "Expected an input array of unsigned byte data type"),
        (lambda xp: xp.packbits(xp.ones(3, dtype=bool), bitorder="x"), ValueError,
         "'order' must be either 'little' or 'big'"),
        (lambda xp: xp.unpackbits(xp.ones(1, dtype=np.uint8), count=-9), ValueError,
         "-count larger than number of elements"),
        (lambda xp: xp.insert(xp.zeros((2, 3)), 5, 0, axis=1), IndexError,
         "index 5 is out of bounds for axis 1 with size 3"),
        (lambda xp: xp.insert(xp.zeros((2, 3)), [[1]], 0, axis=1), ValueError,
         "index array argument obj to insert must be one dimensional or scalar"),
        (lambda xp: xp.block([[1, 2], [[3]]]), ValueError, r"List depths are mismatched. First element was at "
         r"depth 2, but there is an element at depth 3 \(arrays\[1\]\[0\]\[0\]\)"),
        (lambda xp: xp.block([[1], []]), ValueError, r"List at arrays\[1\] cannot be empty"),
        (lambda xp: xp.block(([1],)), TypeError, "arrays is a tuple. Only lists can be used to arrange blocks"),
        (lambda xp: xp.rollaxis(xp.zeros((2, 3)), 0, 5), np.exceptions.AxisError,
         "'start' arg requires -2 <= start < 3, but 5 was passed in"),
        (lambda xp: xp.zeros(3).mT, ValueError, "matrix transpose with ndim < 2 is undefined"),
    ]
    for call, exc, message in cases:
        with pytest.raises(exc, match=message):
            call(np)
        with pytest.raises(exc, match=message):
            call(cp)


def test_to_device_and_tobytes():
    a = cp.arange(6, dtype=np.int16).reshape(2, 3).T
    assert a.to_device(a.device) is a
    host = a.to_device("cpu")
    assert isinstance(host, np.ndarray) and np.array_equal(host, np.arange(6, dtype=np.int16).reshape(2, 3).T)
    assert a.tobytes() == host.tobytes() and a.tobytes("F") == host.tobytes("F")


# --- fixes CuPy's suite found ----------------------------------------------------------------------
@pytest.mark.parametrize("casting", ["same_kind", "safe", "unsafe"])
def test_copyto_casts_python_scalars_by_kind_as_numpy(casting):
    # NumPy's float64 and complex128 scalars subclass Python's float and complex: strong, not weak.
    for src in (3.5, -1, 1 + 1j, 300, True, 0, 2.0, np.float32(2), np.int64(-3), np.float64(2.5), np.complex128(1j)):
        for dtype in ("int8", "uint8", "float32", "bool", "complex64", "float16"):
            for where in (True, "mask"):
                outcomes = []
                for xp in (np, cp):
                    dst = xp.ones((2, 2), dtype)
                    mask = xp.asarray([[True, False], [False, True]]) if where == "mask" else True
                    try:
                        with np.errstate(all="ignore"), warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            xp.copyto(dst, src, casting=casting, where=mask)
                        outcomes.append(dst.tolist())
                    except (TypeError, OverflowError) as e:
                        outcomes.append(type(e).__name__)
                assert outcomes[0] == outcomes[1], (src, dtype, where, outcomes)
    for xp in (np, cp):
        with pytest.raises(TypeError, match="to dtype\\('bool'\\) according to the rule 'safe'"):
            xp.copyto(xp.zeros(3, "i"), xp.ones(3, "i"), where=xp.ones(3, "f"))


def test_index_helpers_follow_numpy_at_their_edges():
    x, h = cp.arange(10.0).reshape(2, 5), np.arange(10.0).reshape(2, 5)
    _compare(cp.roll(x, cp.asarray([1, 2]), axis=(0, 1)), np.roll(h, [1, 2], axis=(0, 1)))
    _compare(cp.roll(x, cp.asarray(3)), np.roll(h, 3))
    cond = [True, False, True, False, False, False, False]
    _compare(cp.compress(cp.asarray(cond), cp.arange(3)), np.compress(cond, np.arange(3)))
    for xp in (np, cp):
        with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
            xp.compress(xp.asarray([True, False, True, True]), xp.arange(3))
        with pytest.raises(TypeError, match="Cannot cast array data from dtype\\('float32'\\) to dtype\\('int32'\\)"):
            xp.putmask(xp.zeros(3, "int32"), xp.ones(3, bool), xp.ones(3, "float32"))
    a, b = cp.arange(7.0), np.arange(7.0)
    cp.put(a, cp.asarray([1, 2]), cp.zeros(0))
    np.put(b, [1, 2], np.zeros(0))
    _compare(a, b)
    _compare(cp.trim_zeros(cp.asarray(0)), np.trim_zeros(np.asarray(0)))


def test_pad_with_a_function_and_integral_widths_as_numpy():
    def tens(vector, pad_width, iaxis, kwargs):
        vector[:pad_width[0]] = kwargs.get("value", 10)
        vector[-pad_width[1]:] = 10

    h = np.arange(6, dtype=np.int16).reshape(2, 3)
    _compare(cp.pad(cp.asarray(h), 2, tens), np.pad(h, 2, tens))
    _compare(cp.pad(cp.asarray(h), ((1, 2), (2, 1)), tens, value=7), np.pad(h, ((1, 2), (2, 1)), tens, value=7))
    for xp in (np, cp):
        for width in ([], 1.5):
            with pytest.raises(TypeError, match="`pad_width` must be of integral type."):
                xp.pad(xp.arange(4), width)


def test_broadcast_object_and_stride_tricks_match_numpy():
    for shapes in [((), ()), ((0,), (1,)), ((2, 1, 3, 4), (3, 1, 4)), ((0, 1, 1, 3), (2, 1, 0, 0, 3))]:
        b, n = cp.broadcast(*(cp.zeros(s) for s in shapes)), np.broadcast(*(np.zeros(s) for s in shapes))
        assert (b.shape, b.size, b.nd, b.ndim, b.numiter) == (n.shape, n.size, n.nd, n.ndim, n.numiter)
        assert all(v.shape == n.shape for v in b.values)
    with pytest.raises(ValueError, match="shape mismatch: objects cannot be broadcast to a single shape"):
        cp.broadcast(cp.zeros(2), cp.zeros(3))
    h = np.arange(24.0).reshape(4, 6)
    a = cp.asarray(h)
    for window, axis in ((3, 1), ((2, 2), None), ((2, 3), (1, 0)), (4, 0)):
        _compare(cp.lib.stride_tricks.sliding_window_view(a, window, axis),
                 np.lib.stride_tricks.sliding_window_view(h, window, axis))
    view = cp.lib.stride_tricks.as_strided(a, shape=(3, 2), strides=(16, 8))
    _compare(view, np.lib.stride_tricks.as_strided(h, shape=(3, 2), strides=(16, 8)))
    assert view.base is a
    huge = cp.lib.stride_tricks.as_strided(cp.arange(2, dtype=np.int32), shape=(2, 2**32), strides=(4, 0))
    _compare(huge[cp.asarray([1]), cp.asarray([1])], np.array([1], dtype=np.int32))
    with pytest.raises(ValueError, match="reaches outside"):
        cp.lib.stride_tricks.as_strided(a, shape=(30,), strides=(8,))
    with pytest.raises(ValueError, match="window shape cannot be larger than input array shape"):
        cp.lib.stride_tricks.sliding_window_view(a, 7, axis=1)


class _Wrapper:
    """Another library's array-like holding an ember array (CuPy's ``__cupy_get_ndarray__``)."""

    def __init__(self, held):
        self.held = held

    def __cupy_get_ndarray__(self):
        return self.held


def test_creation_edges_match_numpy():
    swapped = np.arange(12, dtype=">f8").reshape(3, 4)
    native = swapped.astype("<f8")
    for make in (cp.array, cp.asarray):
        got = make(swapped)
        assert got.dtype == np.dtype("<f8")
        _compare(got + got, native + native)
    got = cp.array([cp.arange(3), _Wrapper(cp.arange(3) + 1)])
    _compare(got, np.array([np.arange(3), np.arange(3) + 1]))
    assert cp.asarray(_Wrapper(got)) is got
    for xp in (np, cp):
        with pytest.raises(TypeError, match=r"Use \(\) not None as shape arguments"):
            xp.empty(None)
    with pytest.raises(TypeError, match="subok=True is not supported"):
        cp.zeros_like(cp.zeros(2), subok=True)
    assert cp.zeros((2, 0)).data.ptr == 0
    _compare(cp.array(swapped, blocking=True), native)
    strided = cp.ndarray((2, 3, 4), strides=(8, 16, 48), dtype=np.float64)
    assert strided.strides == (8, 16, 48) and strided.data.mem.size == 192
    strided[...] = cp.arange(24.0).reshape(2, 3, 4)
    _compare(strided, np.arange(24.0).reshape(2, 3, 4))
    for strides in ((8, 128, 1024), (-8, 8, 8)):
        with pytest.raises(ValueError, match=r"ndarray\(\) with strides"):
            cp.ndarray((2, 3, 4), strides=strides)
    f = cp.asfortranarray(cp.arange(24.0).reshape(2, 3, 4))
    for order in "CFAK":
        for source, host in ((f, np.asfortranarray(np.arange(24.0).reshape(2, 3, 4))),):
            try:
                want = np.array(host, copy=False, order=order) is host
            except ValueError:
                want = "raises"
            try:
                got = cp.array(source, copy=False, order=order) is source
            except ValueError:
                got = "raises"
            assert got == want, order


@pytest.mark.parametrize("dtype", ["int16", "uint32", "float32", "float64", "complex64", "complex128", "int8",
                                   "float16", "int64"])
def test_byteswap_reverses_each_elements_bytes_as_numpy(dtype):
    host = (np.random.default_rng(RNG_SEED).standard_normal((3, 5)) * 1000).astype(dtype)[:, ::-2]
    a = cp.asarray(host)
    got = a.byteswap()
    assert got.dtype == host.dtype and got.shape == host.shape
    assert got.tobytes() == host.byteswap().tobytes()
    a.byteswap(inplace=True)
    assert a.tobytes() == host.byteswap().tobytes()


def test_host_io_formatting_and_pickling_round_trip(tmp_path):
    h = np.arange(12.0).reshape(3, 4).T
    a = cp.asarray(h)
    buffer = io.BytesIO()
    cp.save(buffer, a)
    buffer.seek(0)
    loaded = cp.load(buffer)
    assert isinstance(loaded, cp.ndarray)
    _compare(loaded, h)
    buffer = io.BytesIO()
    cp.savez_compressed(buffer, x=a, y=a[:1])
    buffer.seek(0)
    with cp.load(buffer) as archive:
        assert archive.files == ["x", "y"] and isinstance(archive["y"], cp.ndarray)
        _compare(archive["y"], h[:1])
    text = io.StringIO()
    cp.savetxt(text, a, fmt="%.1f")
    assert text.getvalue() == (lambda s: (np.savetxt(s, h, fmt="%.1f"), s.getvalue())[1])(io.StringIO())
    assert cp.array_repr(a) == np.array_repr(h) and cp.array_str(a) == np.array_str(h)
    assert cp.array2string(a, precision=1, separator=",") == np.array2string(h, precision=1, separator=",")
    with cp.printoptions(precision=2):
        assert repr(cp.asarray([1 / 3])) == "array([0.33])"
    path = tmp_path / "a.bin"
    a.tofile(path)
    _compare(cp.fromfile(path), h.ravel())
    import pickle

    back = pickle.loads(pickle.dumps(a[:, 1:]))
    assert isinstance(back, cp.ndarray)
    _compare(back, h[:, 1:])
    _compare(pickle.loads(a.dumps()), h)
    assert cp.base_repr(10, 3) == "101" and cp.binary_repr(-3, width=4) == "1101"
    for n, f, k in ((4, cp.triu, 1), (3, cp.tril, -1), (5, cp.triu, 0)):
        _compare(cp.mask_indices(n, f, k), np.mask_indices(n, getattr(np, f.__name__), k))


def test_scalars_and_protocol_edges_match_numpy():
    h = np.arange(6, dtype=np.int16).reshape(2, 3)
    a = cp.asarray(h)
    # C long long scalars are their own NumPy types on Linux; NumPy scalars on the left of a
    # comparison reach ember as 0-d host arrays through NEP 13.
    for got, want in ((a + np.longlong(2), h + np.longlong(2)), (np.ulonglong(3) * a, np.ulonglong(3) * h),
                      (np.int64(3) == a, np.int64(3) == h), (np.float32(2.5) < a, np.float32(2.5) < h),
                      (a == None, h == None), (a != object(), h != object())):  # noqa: E711
        _compare(got, want)
    for dtype in ("int8", "uint16", "bool", "float16"):
        x = np.array([1, 2, 3], dtype=dtype)
        for u in ("add", "multiply", "maximum"):
            _compare(getattr(cp, u).accumulate(cp.asarray(x)), getattr(np, u).accumulate(x))
    it = iter(a)
    _compare(next(it), h[0])
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        iter(cp.asarray(3))


def test_an_empty_boolean_mask_selects_nothing_on_any_axis_as_numpy():
    h = np.arange(24.0).reshape(2, 3, 4)
    empty = np.array([], dtype=bool)
    for index in (empty, (slice(None), empty), (Ellipsis, empty)):
        device_index = tuple(cp.asarray(i) if isinstance(i, np.ndarray) else i for i in index) \
            if isinstance(index, tuple) else cp.asarray(index)
        _compare(cp.asarray(h)[device_index], h[index])
        got, want = cp.asarray(h), h.copy()
        got[device_index] = 5
        want[index] = 5
        _compare(got, want)
    with pytest.raises(IndexError, match="boolean index did not match indexed array along axis 0"):
        cp.asarray(h)[cp.asarray([True, False, True])]


def test_joining_warns_as_numpy_when_complex_becomes_real_and_row_stack_is_deprecated():
    for xp in (np, cp):
        parts = [xp.ones(2, dtype=complex), xp.ones(2, dtype=complex)]
        for join in (xp.concatenate, xp.stack, xp.vstack):
            with pytest.warns(np.exceptions.ComplexWarning, match="discards the imaginary part"):
                join(parts, dtype=float, casting="unsafe")
        if not hasattr(xp, "row_stack"):
            continue  # NumPy 2.5 removed it; ember keeps it, deprecated, as NumPy 2.0-2.4 had it
        with pytest.warns(DeprecationWarning, match="`row_stack` alias is deprecated"):
            stacked = xp.row_stack(parts)
        assert stacked.shape == (2, 2)


def test_byte_bounds_and_like_layouts_match_numpy():
    h = np.arange(24.0).reshape(4, 6)
    for view in (lambda x: x, lambda x: x[::-1, ::2], lambda x: x.T[1:], lambda x: x[2:, 1:4]):
        got, want = view(cp.asarray(h)), view(h)
        low, high = cp.byte_bounds(got)
        nlow, nhigh = np.lib.array_utils.byte_bounds(want)
        assert high - low == nhigh - nlow
        assert low - got.data.ptr == nlow - want.__array_interface__["data"][0]
    f, nf = cp.asfortranarray(cp.arange(24.0).reshape(2, 3, 4)), np.asfortranarray(np.arange(24.0).reshape(2, 3, 4))
    for order in "CFAK":
        for shape in ((4, 2), (5, 4, 2, 3), (4, 2, 3)):
            got, want = cp.empty_like(f, order=order, shape=shape), np.empty_like(nf, order=order, shape=shape)
            assert (got.flags.c_contiguous, got.flags.f_contiguous) == (want.flags.c_contiguous,
                                                                         want.flags.f_contiguous), (order, shape)


def test_ufunc_types_are_numpys_loops_over_the_dtypes_ember_holds():
    assert "ff->f" in cp.add.types and "dd->d" in cp.true_divide.types and "e->e" in cp.sin.types
    for u in (cp.add, cp.sin, cp.divmod, cp.frexp):
        assert u.types and u.ntypes == len(u.types)
        for loop in u.types:
            assert loop in getattr(np, u.__name__).types
            for char in loop.replace("->", ""):
                cp.zeros(1, dtype=np.dtype(char))  # every listed type is one ember holds
    assert not any("O" in t or "g" in t or "M" in t for t in cp.add.types)


@pytest.mark.parametrize("name,dtype", [("add", "float64"), ("maximum", "int16"), ("multiply", "int8"),
                                        ("logical_or", "bool"), ("minimum", "float32")])
def test_ufunc_reduceat_matches_numpy(name, dtype):
    rng = np.random.default_rng(RNG_SEED)
    h = (rng.standard_normal((6, 9)) * 4).astype(dtype)
    u, nu = getattr(cp, name), getattr(np, name)
    for indices, axis in (([0, 4, 1, 5], 1), ([0, 3, 3, 8], -1), ([2, 0, 5], 0), ([], 1), ([8], 1)):
        got, want = u.reduceat(cp.asarray(h), indices, axis=axis), nu.reduceat(h, indices, axis=axis)
        assert got.dtype == want.dtype and got.shape == want.shape and got.flags.c_contiguous
        np.testing.assert_allclose(got.get(), want, rtol=1e-12 if dtype == "float64" else 1e-6)
    through_numpy = nu.reduceat(cp.asarray(h), [0, 2], axis=1)  # NEP 13
    assert isinstance(through_numpy, cp.ndarray)
    np.testing.assert_allclose(through_numpy.get(), nu.reduceat(h, [0, 2], axis=1), rtol=1e-6)
    for xp in (np, cp):
        with pytest.raises(IndexError, match=f"index 9 out-of-bounds in {name}.reduceat \\[0, 9\\)"):
            getattr(xp, name).reduceat(xp.asarray(h), [0, 9], axis=1)
    with pytest.raises(ValueError, match="reduceat only supported for binary functions"):
        cp.sin.reduceat(cp.asarray(h), [0])


def test_new_empty_arrays_have_zero_strides_as_numpy():
    for shape in ((0, 3), (2, 0), (1, 0, 2), (0,)):
        for order in "CF":
            assert cp.empty(shape, order=order).strides == np.empty(shape, order=order).strides
            assert cp.zeros(shape, order=order).strides == np.zeros(shape, order=order).strides
    view, host = cp.arange(6).reshape(2, 3)[:0], np.arange(6).reshape(2, 3)[:0]
    assert view.strides == host.strides  # a view keeps its strides
    for order in "CFK":
        assert view.copy(order=order).strides == host.copy(order=order).strides
    assert cp.empty_like(cp.zeros((0, 3))).strides == np.empty_like(np.zeros((0, 3))).strides


def test_reshape_argument_checks_match_numpy():
    for call, exc, message in (
        (lambda xp: xp.zeros((2, 3)).reshape(3, 2, copy="False"), ValueError, "strings are not allowed for 'copy'"),
        (lambda xp: xp.zeros(1).reshape((1,) * 65), ValueError, "maximum supported dimension for an ndarray is"),
        (lambda xp: xp.reshape(xp.zeros(1), (1,) * 65), ValueError, "currently 64, found 65"),
        (lambda xp: xp.zeros((1,) * 65), ValueError, "currently 64, found 65"),
    ):
        for xp in (np, cp):
            with pytest.raises(exc, match=message):
                call(xp)
    assert cp.ones(64).reshape([1] * 63 + [64]).ndim == 64
