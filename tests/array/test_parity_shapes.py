"""NumPy parity of ember's shape functions (reshape, transpose, concatenate, split, ...) and of
ndarray's attributes and methods, on views of every dtype.
(How the sweep works, and the case tables several files share: ``parity_cases``.)"""

from __future__ import annotations

import math

import ember as cp
import numpy as np
import pytest
from ember.testing import DTYPE_NAMES, assert_same, cases_with_bugs, parity
from ember.testing.strategies import SHAPES, operands, run_sweep, values
from hypothesis import strategies as st
from parity_cases import SHAPE_CASES, dt, fill_values

# =================================================================================================
# Shape functions
# =================================================================================================
SHAPE_BUGS: dict = {}


@st.composite
def new_shapes(draw, size: int):
    """A shape of ``size`` elements (its factors spread over 0..5 axes, maybe a -1), or now and
    then one of the wrong size, for NumPy's error."""
    if draw(st.integers(0, 9)) == 0:
        return (size + 1,)
    factors, p, rest = [], 2, size
    while rest > 1 and p * p <= rest:
        while rest % p == 0:
            factors.append(p)
            rest //= p
        p += 1
    if rest > 1:
        factors.append(rest)
    ndim = draw(st.integers(1 if factors or size == 0 else 0, 5))
    shape = [1] * ndim
    for f in factors:
        shape[draw(st.integers(0, ndim - 1))] *= f
    if size == 0:
        shape[draw(st.integers(0, ndim - 1))] = 0
    if ndim and size and draw(st.booleans()):
        shape[draw(st.integers(0, ndim - 1))] = -1
    return tuple(shape)


def shape_call(name, data, shape, dtype):
    """The call of shape function ``name`` on operands like ``x`` (arguments drawn), and the
    extra operands it takes, as ``(fn, numpy_extras, ember_extras)``."""
    ndim = len(shape)
    axis_in = st.integers(-ndim - 1, ndim) if ndim else st.just(0)
    if name == "reshape":
        new = data.draw(new_shapes(math.prod(shape)), label="new shape")
        order = data.draw(st.sampled_from("CFA"), label="order")
        method = data.draw(st.booleans(), label="method")
        return ((lambda xp, x: x.reshape(new, order=order)) if method
                else (lambda xp, x: xp.reshape(x, new, order=order))), [], []
    if name == "ravel":
        order = data.draw(st.sampled_from("CFAK"), label="order")
        return (lambda xp, x: xp.ravel(x, order)), [], []
    if name == "transpose":
        axes = data.draw(st.one_of(st.none(), st.permutations(range(ndim)).map(tuple)), label="axes")
        return (lambda xp, x: xp.transpose(x, axes)), [], []
    if name == "moveaxis":
        src = data.draw(st.lists(st.integers(-ndim, ndim - 1), max_size=ndim, unique=True), label="source") \
            if ndim else []
        dst = data.draw(st.lists(st.integers(-ndim, ndim - 1), min_size=len(src), max_size=len(src), unique=True)) \
            if ndim else []
        return (lambda xp, x: xp.moveaxis(x, src, dst)), [], []
    if name == "swapaxes":
        a1, a2 = data.draw(axis_in, label="axis1"), data.draw(axis_in, label="axis2")
        return (lambda xp, x: xp.swapaxes(x, a1, a2)), [], []
    if name == "squeeze":
        ones = [i for i, d in enumerate(shape) if d == 1]
        # (0-d with axis=0: test_squeeze_of_a_0d_array_with_axis_0_like_numpy)
        axis = data.draw(st.one_of(st.none(), st.sampled_from(ones or [0]) if ndim else st.none(),
                                   st.lists(st.integers(0, ndim - 1), max_size=2, unique=True).map(tuple)
                                   if ndim else st.just(())), label="axis")
        return (lambda xp, x: xp.squeeze(x, axis)), [], []
    if name == "expand_dims":
        axis = data.draw(st.one_of(st.integers(-ndim - 2, ndim + 1),
                                   st.lists(st.integers(-ndim - 2, ndim + 1), min_size=1, max_size=2, unique=True)
                                   .map(tuple)), label="axis")
        return (lambda xp, x: xp.expand_dims(x, axis)), [], []
    if name == "broadcast_to":
        target = tuple(data.draw(st.lists(st.integers(0, 3), max_size=2))) + tuple(
            d if d != 1 or data.draw(st.booleans()) else data.draw(st.integers(0, 3)) for d in shape)
        return (lambda xp, x: xp.broadcast_to(x, target).copy()), [], []
    # functions of several arrays: the others share x's shape (but along the axis) and maybe not its dtype
    other = data.draw(st.sampled_from([dtype, dtype, "int16", "float32", "complex64", "bool", "uint64"]),
                      label="dtype2")
    count = data.draw(st.integers(0, 2), label="more arrays")
    if name in ("concatenate", "hstack", "vstack") and ndim:
        axis = data.draw(st.integers(-ndim, ndim - 1), label="axis") if name == "concatenate" else (
            (1 if ndim > 1 else 0) if name == "hstack" else 0)
        shapes = [tuple(data.draw(st.integers(0, 3)) if i == axis % ndim else d for i, d in enumerate(shape))
                  for _ in range(count)]
    else:
        axis = data.draw(st.integers(-ndim - 1, ndim), label="axis")
        shapes = [shape] * count
    extras = [data.draw(operands(other, s), label="other") for s in shapes]
    ne, ee = [n for n, _ in extras], [e for _, e in extras]
    if name == "concatenate":
        return (lambda xp, x, *more: xp.concatenate([x, *more], axis=axis)), ne, ee
    if name == "stack":
        return (lambda xp, x, *more: xp.stack([x, *more], axis=axis)), ne, ee
    if name == "vstack":
        return (lambda xp, x, *more: xp.vstack([x, *more])), ne, ee
    if name == "hstack":
        return (lambda xp, x, *more: xp.hstack([x, *more])), ne, ee
    assert name == "split"
    n_axis = shape[axis % ndim] if ndim and -ndim <= axis < ndim else 0
    sections = data.draw(st.one_of(st.integers(1, 4), st.lists(st.integers(-1, n_axis + 1), max_size=3)),
                         label="sections")
    return (lambda xp, x: list(xp.split(x, sections, axis=axis))), [], []


@pytest.mark.parametrize("axis", [0, -1])
def test_squeeze_of_a_0d_array_with_axis_0_like_numpy(axis):
    x = np.array(1.5, dtype=np.float32)
    parity(lambda xp, a: xp.squeeze(a, axis), [x], [cp.asarray(x)], {"compared": 0, "raised": 0})


@pytest.mark.parametrize("name,dtype", cases_with_bugs(SHAPE_CASES, SHAPE_BUGS))
def test_shape_function_matches_numpy_on_views_of_every_dtype(name, dtype):
    def body(data, tally):
        shape = data.draw(SHAPES, label="shape")
        n, e = data.draw(operands(dtype, shape), label="x")
        fn, n_more, e_more = shape_call(name, data, shape, dtype)
        parity(fn, [n, *n_more], [e, *e_more], tally, rtol=0)

    run_sweep(body, f"shape-{name}-{dtype}", examples=8)


# =================================================================================================
# ndarray attributes and methods
# =================================================================================================
ASTYPE_TARGETS = {d: [DTYPE_NAMES[(i + j) % len(DTYPE_NAMES)] for j in (1, 5, 9)] for i, d in enumerate(DTYPE_NAMES)}


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_ndarray_attributes_and_methods_match_numpy_on_views(dtype):
    """shape dtype ndim size nbytes strides itemsize flags T, and astype (to rotating targets,
    with values whose cast NumPy defines) copy ravel flatten reshape transpose swapaxes squeeze
    fill view get set."""
    def body(data, tally):
        shape = data.draw(SHAPES, label="shape")
        n, e = data.draw(operands(dtype, shape), label="x")
        for attr in ("shape", "dtype", "ndim", "size", "nbytes", "itemsize"):
            assert getattr(e, attr) == getattr(n, attr), attr
        if n.size:  # the strides of empty arrays and of length-1 axes are arbitrary (NumPy's vary too)
            assert [s for s, d in zip(e.strides, shape, strict=True) if d > 1] == [
                s for s, d in zip(n.strides, shape, strict=True) if d > 1]
        assert (e.flags.c_contiguous, e.flags.f_contiguous) == (n.flags.c_contiguous, n.flags.f_contiguous)
        parity(lambda xp, x: x.T, [n], [e], tally, rtol=0)
        target = data.draw(st.sampled_from(ASTYPE_TARGETS[dtype]), label="astype")
        src = n
        if dt(target).kind in "iub" and dt(dtype).kind in "fc":  # float -> int of NaN/inf/out of range: undefined
            src = np.abs(np.nan_to_num(np.real(n), posinf=0, neginf=0) % 100).astype(dtype)
        if dt(target).kind == "u" and dt(dtype).kind == "f":
            src = np.abs(src)
        ed = cp.asarray(src) if src is not n else e
        parity(lambda xp, x: x.astype(target), [src], [ed], tally, rtol=0)
        method = data.draw(st.sampled_from(["copy", "ravel", "flatten", "transpose", "swapaxes", "squeeze", "fill",
                                            "view", "set", "reshape"]), label="method")
        if method in ("copy", "ravel", "flatten"):
            order = data.draw(st.sampled_from("CFAK" if method != "copy" else "CFA"), label="order")
            parity(lambda xp, x: getattr(x, method)(order), [n], [e], tally, rtol=0)
        elif method == "transpose":
            parity(lambda xp, x: x.transpose(), [n], [e], tally, rtol=0)
        elif method == "swapaxes" and n.ndim:
            a1, a2 = data.draw(st.integers(0, n.ndim - 1)), data.draw(st.integers(0, n.ndim - 1))
            parity(lambda xp, x: x.swapaxes(a1, a2), [n], [e], tally, rtol=0)
        elif method == "squeeze":
            parity(lambda xp, x: x.squeeze(), [n], [e], tally, rtol=0)
        elif method == "reshape":
            new = data.draw(new_shapes(n.size), label="new shape")
            parity(lambda xp, x: x.reshape(new), [n], [e], tally, rtol=0)
        elif method == "fill":
            v = data.draw(st.sampled_from(fill_values(dtype)), label="value")

            def fill(xp, x):
                x = x.copy()
                x.fill(v)
                return x

            parity(fill, [n], [e], tally, rtol=0)
        elif method == "view":
            same_size = [d for d in DTYPE_NAMES if dt(d).itemsize == dt(dtype).itemsize]
            to = data.draw(st.sampled_from(same_size), label="view dtype")
            if dt(to).kind in "fc" or dt(dtype).kind in "fc":
                # reinterpreted bits: compare the bytes (NaN payloads would not compare equal)
                parity(lambda xp, x: x.view(to).view(f"u{dt(dtype).itemsize}") if dt(dtype).kind != "c"
                       else x.view(to), [n], [e], tally, rtol=0)
            else:
                parity(lambda xp, x: x.view(to), [n], [e], tally, rtol=0)
        elif method == "set":
            new_values = data.draw(values(dtype, shape), label="new values")
            e2 = cp.asarray(n.copy())
            e2.set(new_values)
            assert_same(e2, new_values, rtol=0)
            tally["compared"] += 1
        assert_same(e, n, rtol=0)  # nothing above changed the operand

    run_sweep(body, f"ndarray-{dtype}", examples=5)
