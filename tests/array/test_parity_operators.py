"""NumPy parity of ember's operators: binary (and reflected) and unary operators, in-place
operators through views, ``out=`` and divmod.
(How the sweep works, and the case tables several files share: ``parity_cases``.)"""

from __future__ import annotations

import operator

import ember as cp
import numpy as np
import pytest
from ember.testing import cases_with_bugs, grid_pairs, numpy_result, parity, public_class, rtol_for, special_grid
from ember.testing.strategies import SMALL_SHAPES, operands, placements, run_sweep, values
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from parity_cases import INPLACE_CASES, OPERATOR_CASES, OPERATORS, binary_domains, dt

# =================================================================================================
# Operators, in-place operators and out=
# =================================================================================================
UNARY_OPERATORS = {"-x": operator.neg, "+x": operator.pos, "~x": operator.invert, "abs(x)": abs}
OPERATOR_BUGS: dict = {}


@pytest.mark.parametrize("op,dtype", cases_with_bugs(OPERATOR_CASES, OPERATOR_BUGS))
def test_binary_operators_and_reflected_forms_match_numpy(op, dtype):
    name, fn, _ = OPERATORS[op]
    domains = binary_domains(name, dtype)

    def body(data, tally):
        shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4))
        # whole arrays: the operators reach the ufuncs, whose layouts the binary sweep covers
        n1, e1 = data.draw(operands(dtype, shapes.input_shapes[0], domains[0], views=False), label="x")
        n2, e2 = data.draw(operands(dtype, shapes.input_shapes[1], domains[1], views=False), label="y")
        form = data.draw(st.sampled_from(["arrays", "scalar-right", "scalar-left"]), label="form")
        if form == "arrays":
            parity(lambda xp, x, y: fn(x, y), [n1, n2], [e1, e2], tally)
        else:
            s = data.draw(st.sampled_from([2, 3, 0, 1.5] if dt(dtype).kind in "iub" and name not in (
                "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift") else [2, 3, 0, 1]))
            f = (lambda xp, x: fn(x, s)) if form == "scalar-right" else (lambda xp, x: fn(s, x))
            parity(f, [n1], [e1], tally)

    run_sweep(body, f"operator-{op}-{dtype}", examples=5)


@pytest.mark.parametrize("op,dtype", [("-x", "int8"), ("-x", "float32"), ("+x", "uint16"), ("~x", "int32"),
                                      ("~x", "bool"), ("abs(x)", "int64"), ("abs(x)", "complex64"),
                                      ("-x", "bool")])
def test_unary_operators_match_numpy(op, dtype):
    fn = UNARY_OPERATORS[op]

    def body(data, tally):
        n, e = data.draw(operands(dtype, data.draw(SMALL_SHAPES), views=False), label="x")
        parity(lambda xp, x: fn(x), [n], [e], tally)

    if op == "-x" and dtype == "bool":  # NumPy refuses: a case that only checks the error
        with pytest.raises(TypeError):
            -cp.asarray(np.array([True]))
        return
    run_sweep(body, f"unary-operator-{op}-{dtype}", examples=4)


@pytest.mark.parametrize("op,dtype,other", [("/", "int32", "int32"), ("+", "int8", "float32"),
                                            ("*", "uint8", "complex64"), ("-", "bool", "bool")])
def test_in_place_operator_that_would_change_the_dtype_raises_like_numpy(op, dtype, other):
    name, _, ifn = OPERATORS[op]
    x, y = special_grid(dtype, "small"), special_grid(other, "small")[:1]
    want, err = numpy_result(lambda xp, a, b: ifn(a, b), x.copy(), y)
    assert err is not None and want is None
    with pytest.raises(public_class(err)):
        ifn(cp.asarray(x), cp.asarray(y))


@pytest.mark.parametrize("op,dtype,other", INPLACE_CASES)
def test_in_place_operators_write_through_views_like_numpy(op, dtype, other):
    """``view op= y`` on a stepped/reversed/transposed view of a larger array: the view takes
    NumPy's values (cast back with same_kind, or NumPy's error) and nothing else changes."""
    name, _, ifn = OPERATORS[op]
    domains = binary_domains(name, dtype)

    def body(data, tally):
        shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4), label="shape")
        base_shape, index, axes = data.draw(placements(shape), label="target")
        base = data.draw(values(dtype, base_shape, domains[0]), label="base")
        y_shape = shape[data.draw(st.integers(0, len(shape)), label="y dims"):]
        n2, e2 = data.draw(operands(other, y_shape, domains[1]), label="y")

        def fn(xp, b, y):
            b = b.copy()
            view = b[index].transpose(axes)
            result = ifn(view, y)
            assert result is view or xp is np
            return b

        parity(fn, [base, n2], [cp.asarray(base), e2], tally)

    run_sweep(body, f"inplace-{op}-{dtype}-{other}", examples=5)


OUT_CASES = [("add", "float32", "float64"), ("multiply", "int16", "int64"), ("sqrt", "float32", "float32"),
             ("less", "float64", "bool"), ("true_divide", "int32", "float32"), ("negative", "int8", "int16"),
             ("subtract", "float64", "float32"), ("maximum", "uint8", "complex64"), ("add", "int32", "float32"),
             ("exp", "complex64", "complex128")]


OUT_BUGS: dict = {}


@pytest.mark.parametrize("name,dtype,out_dtype", cases_with_bugs(OUT_CASES, OUT_BUGS))
def test_out_argument_takes_the_result_like_numpy(name, dtype, out_dtype):
    """``ufunc(..., out=view)`` into a strided view of another dtype: NumPy's values cast into
    it (same_kind), or NumPy's error (TypeError when the cast is not same_kind, ValueError when
    the shape does not broadcast); the returned array is ``out``."""
    nin = getattr(np, name).nin

    def body(data, tally):
        shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4), label="shape")
        ins = [data.draw(operands(dtype, shape[data.draw(st.integers(0, len(shape))):]), label="x")
               for _ in range(nin)]
        castable = np.can_cast(np.result_type(*[n for n, _ in ins]), out_dtype, "same_kind")
        # one error at a time: NumPy checks the cast before the shape
        out_shape = shape if not castable or data.draw(st.booleans(), label="out fits") else shape + (2,)
        base_shape, index, axes = data.draw(placements(out_shape), label="out")
        base = data.draw(values(out_dtype, base_shape), label="out base")

        def fn(xp, b, *xs):
            b = b.copy()
            out = b[index].transpose(axes)
            result = getattr(xp, name)(*xs, out=out)
            assert result is out or xp is np
            return b

        # The values have the precision of the inputs' loop (complex64 exp into complex128 is
        # still a complex64 result), whatever out's dtype.
        parity(fn, [base] + [n for n, _ in ins], [cp.asarray(base)] + [e for _, e in ins], tally,
               rtol=max(rtol_for(dtype, loose=True), rtol_for(out_dtype)))

    run_sweep(body, f"out-{name}-{dtype}-{out_dtype}", examples=5)


@pytest.mark.parametrize("name,dtype,out_dtype", [("add", "float32", "int32"), ("true_divide", "int8", "int8"),
                                                  ("multiply", "complex64", "float64"), ("less", "int8", "bool")])
def test_out_the_result_cannot_be_cast_to_raises_like_numpy(name, dtype, out_dtype):
    x = special_grid(dtype, "moderate")
    f = lambda xp, a, o: getattr(xp, name)(a, a, out=o)  # noqa: E731
    o = np.zeros(x.shape, out_dtype)
    if numpy_result(f, x, o)[1] is None:
        parity(f, [x, o], [cp.asarray(x), cp.asarray(o)], {"compared": 0, "raised": 0})  # bool out of less: fine
        return
    with pytest.raises(public_class(numpy_result(f, x, o)[1])):
        f(cp, cp.asarray(x), cp.asarray(o))


def test_out_of_another_kind_and_shape_raises_numpys_type_error_first():
    x = np.zeros(3, np.float32)
    f = lambda xp, a, o: xp.add(a, a, out=o)  # noqa: E731
    parity(f, [x, np.zeros(4, np.int32)], [cp.asarray(x), cp.zeros(4, np.int32)], {"compared": 0, "raised": 0})


def test_divmod_matches_numpy():
    tally = {"compared": 0, "raised": 0}
    for dtype in ("int16", "float32"):
        a, b = grid_pairs(special_grid(dtype, "any"), special_grid(dtype, "small"))
        parity(lambda xp, x, y: divmod(x, y), [a, b], [cp.asarray(a), cp.asarray(b)], tally)
    assert tally["compared"] == 2


class _EqualsTwoOrFour:
    def __eq__(self, other):
        return (other == 2) | (other == 4)


class _DiffersFromTwoOrFour:
    def __ne__(self, other):
        return (other == 2) | (other == 4)


@pytest.mark.parametrize("value", [None, Ellipsis, object(), _EqualsTwoOrFour(), _DiffersFromTwoOrFour()],
                         ids=["None", "Ellipsis", "object", "own-eq", "own-ne"])
def test_comparisons_with_any_object_match_numpy(value):
    h = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float64)
    a = cp.asarray(h)
    for compare in (lambda x: x == value, lambda x: x != value, lambda x: value == x, lambda x: value != x):
        try:
            want = compare(h)
        except ValueError:  # Python inverts the object's own == for its !=: ambiguous for arrays
            with pytest.raises(ValueError, match="ambiguous"):
                compare(a)
            continue
        np.testing.assert_array_equal(compare(a).get(), want)
