"""NumPy parity sweep of ember's array API (the ``ember`` section of API.md), in the style of
CuPy's ``numpy_cupy_allclose``: every case runs one body with NumPy 2 and with ember and checks
that both give the same shape, the same dtype and the same values, or raise the same (public)
exception class.

Hypothesis draws shapes (0-d, empty, 1..5-d, broadcastable pairs), views (contiguous, stepped,
``[::-2]``-style negative steps, offsets, transposes: ember views are made by slicing a larger
ember array the same way the NumPy view slices the NumPy one) and values (NaN, +-inf, -0.0,
subnormals and finfo extremes for floats; iinfo extremes for integers).

On PoCL every new (function, dtypes, layout) compiles a kernel, so which (function, dtype)
pairs run is fixed by pytest parametrisation: each function on its main dtype, plus a rotating
subset of the other dtypes NumPy supports for it, chosen so that every dtype appears in every
family of functions somewhere in this file (``test_the_sweep_covers_every_dtype_of_every_family``
checks that). Hypothesis runs a few derandomised examples per case, without shrinking (set
``EMBER_PARITY_SHRINK=1`` to shrink a failure to a minimal example).

Known ember bugs are ``xfail(strict=True)`` cases: the suite stays green and the bug visible;
once fixed, the case XPASSes and the mark must go.
"""

from __future__ import annotations

import math
import os
import warnings
import zlib

import ember as cp
import numpy as np
import pytest
from conftest import ALL_DTYPES
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

# --- settings -------------------------------------------------------------------------------------
PHASES = (Phase.explicit, Phase.generate) + ((Phase.shrink,) if os.environ.get("EMBER_PARITY_SHRINK") else ())


def sweep_settings(examples: int):
    return settings(
        max_examples=examples, deadline=None, database=None, phases=PHASES, derandomize=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                               HealthCheck.function_scoped_fixture],
    )


def run_sweep(body, case_id: str, examples: int = 15) -> dict:
    """Runs ``body(data, tally)`` on ``examples`` Hypothesis examples, seeded by ``case_id`` (so
    every run is the same, and every case explores differently). Fails unless at least one
    example compared values (not only errors): no case can pass vacuously."""
    tally = {"compared": 0, "raised": 0}

    @seed(zlib.crc32(case_id.encode()))
    @sweep_settings(examples)
    @given(data=st.data())
    def prop(data):
        body(data, tally)

    prop()
    assert tally["compared"] > 0, f"{case_id}: NumPy raised on every example, nothing was compared"
    return tally


def dt(name) -> np.dtype:
    return np.dtype(name)


DTYPE_NAMES = [d.name for d in ALL_DTYPES]
FLOATS = ["float16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


# --- comparison -----------------------------------------------------------------------------------
RTOL = {"e": 1e-3, "f": 1e-5, "d": 1e-12, "F": 1e-5, "D": 1e-12}


LOOSE = "loose"  # as an rtol: the transcendental tolerance of the result's dtype


def rtol_for(dtype, loose: bool = False) -> float:
    """Relative tolerance for results of ``dtype``: 0 (exact) for bool and integers; a little
    looser for transcendental functions (a few ulp either side)."""
    r = RTOL.get(np.dtype(dtype).char, 0.0)
    return r * 4 if loose else r


def public_class(exc: BaseException) -> type:
    """The first public class of ``exc``: NumPy's private ``_UFuncNoLoopError`` is a TypeError,
    ``AxisError`` stays ``numpy.exceptions.AxisError``."""
    for cls in type(exc).__mro__:
        if cls.__module__ in ("builtins", "numpy.exceptions"):
            return cls
    return Exception


def quiet(fn, *args, **kwargs):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def assert_same(got, want, rtol: float | None = None):
    """``got`` (an ember array) has NumPy's ``want``'s shape, dtype and values (NaN where NumPy
    has NaN; exactly equal for bool and integers)."""
    want = np.asarray(want)
    if rtol == LOOSE:
        rtol = rtol_for(want.dtype, loose=True)
    assert isinstance(got, cp.ndarray), f"ember returned {type(got).__name__}, not an ember.ndarray"
    assert got.shape == want.shape, f"shape {got.shape} != NumPy's {want.shape}"
    assert got.dtype == want.dtype, f"dtype {got.dtype} != NumPy's {want.dtype}"
    host = got.get()
    assert host.shape == want.shape and host.dtype == want.dtype
    rtol = rtol_for(want.dtype) if rtol is None else rtol
    if rtol == 0 or want.dtype.kind in "biu":
        np.testing.assert_array_equal(host, want, strict=True)
    else:
        np.testing.assert_allclose(host, want, rtol=rtol, atol=0, equal_nan=True)


def numpy_result(fn, *args):
    """``(fn(np, *args), None)``, or ``(None, exception)`` where NumPy raises."""
    try:
        return quiet(fn, np, *args), None
    except Exception as e:  # noqa: BLE001 - any NumPy error is a contract for ember
        return None, e


def parity(fn, np_args, em_args, tally, rtol=None, compare=None):
    """Runs ``fn(xp, *args)`` with NumPy and with ember: same result, or the same exception class
    (then returns None). ``compare(got, want)`` replaces the default check when given."""
    want, err = numpy_result(fn, *np_args)
    if err is not None:
        tally["raised"] += 1
        with pytest.raises(public_class(err)):
            quiet(fn, cp, *em_args)
        return None
    got = quiet(fn, cp, *em_args)
    if compare is None:
        if isinstance(want, (tuple, list)):
            assert isinstance(got, (tuple, list)) and len(got) == len(want)
            for g, w in zip(got, want, strict=True):
                assert_same(g, w, rtol)
        else:
            assert_same(got, want, rtol)
    else:
        compare(got, want)
    tally["compared"] += 1
    return want


# --- values ---------------------------------------------------------------------------------------
def special_values(dtype, finite_only: bool = False) -> list:
    """Values that find bugs: signed zeros, NaN, infinities, ties for rounding, subnormals and
    the extremes of the type."""
    d = dt(dtype)
    if d.kind == "b":
        return [True, False]
    if d.kind in "iu":
        info = np.iinfo(d)
        small = [0, 1, 2, 3, 7] + ([-1, -2] if d.kind == "i" else [])
        return sorted({info.min, info.min + 1, info.max, info.max - 1, *small})
    f = np.finfo(d)
    finite = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0]
    extreme = [float(f.max), -float(f.max), float(f.tiny), -float(f.tiny), float(f.smallest_subnormal),
               -float(f.smallest_subnormal), float(2 ** (f.nmant + 1) + 2)]
    nonfinite = [math.nan, math.inf, -math.inf]
    if d.kind == "f":
        return finite if finite_only else finite + extreme + nonfinite
    if finite_only:
        return [complex(a, b) for a, b in [(0, 0), (1, 0), (0, 1), (-1, 0), (0, -1), (0.5, -2.5), (-0.0, 1.5)]]
    reals = finite[:4] + nonfinite + [float(f.max)]
    return [complex(a, b) for a in reals for b in reals[::3]] + [complex(0, math.inf), complex(math.nan, 0)]


# Domains shape the bulk of the random values (specials are added on top): where a function is
# defined, where it has interesting behaviour, or what an argument means (shift counts, exponents).
DOMAINS = ("any", "unit", "positive", "ties", "exponent", "shift", "small", "moderate", "bounded")


def bulk_values(rng, dtype, shape, domain: str, scale: float) -> np.ndarray:
    d = dt(dtype)
    if d.kind == "b":
        return rng.random(shape) < 0.5
    if d.kind in "iu":
        info = np.iinfo(d)
        bits = 8 * d.itemsize
        if domain == "exponent":
            return rng.integers(0, 2 * bits, shape).astype(d)
        if domain == "shift":
            return rng.integers(-3 if d.kind == "i" else 0, bits + 3, shape).astype(d)
        if domain in ("small", "ties", "unit", "moderate", "bounded") or scale < 1:
            lo = max(info.min, -9)
            return rng.integers(lo, 10, shape).astype(d)
        return rng.integers(info.min, info.max, shape, dtype=d, endpoint=True)
    real = d.kind == "f"

    def part():
        if domain == "unit":
            return rng.uniform(-1.1, 1.1, shape)
        if domain == "ties":
            return rng.integers(-40, 40, shape) / 2 * scale
        if domain == "positive":
            return np.abs(rng.standard_normal(shape)) * scale
        if domain in ("small", "moderate"):
            return rng.standard_normal(shape) * 3
        if domain == "bounded":  # products that stay in range (for prod of up to ~1000 elements)
            return rng.uniform(0.8, 1.25, shape) * rng.choice([-1, 1], shape)
        return rng.standard_normal(shape) * scale

    with np.errstate(all="ignore"):
        if real:
            return part().astype(d)
        return (part() + 1j * part()).astype(d)


@st.composite
def values(draw, dtype, shape, domain: str = "any", specials: bool = True):
    """A NumPy array of ``shape``: random values of ``domain``, with a few specials placed at
    drawn positions."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1), label="seed"))
    scale = draw(st.sampled_from([1.0, 1e-2, 30.0, 1e4]), label="scale")
    x = np.array(bulk_values(rng, dtype, shape, domain, scale), dtype=dtype)
    if x.size and specials and domain not in ("exponent", "shift", "bounded"):
        d = dt(dtype)
        finite_only = domain == "moderate" or (domain == "positive" and d.kind == "c")
        pool = special_values(dtype, finite_only)
        if domain == "positive" and d.kind in "fiu":
            pool = [v for v in pool if not (v < 0)]
        for _ in range(draw(st.integers(0, min(x.size, 6)), label="specials")):
            x.flat[draw(st.integers(0, x.size - 1))] = quiet(np.asarray, draw(st.sampled_from(pool)), dtype=d)
    return x


def _axis_slice(n: int, step: int, off: int) -> tuple[slice, int]:
    """A slice taking ``n`` elements with ``step`` from an axis of the returned length."""
    if n == 0:
        return slice(0, 0), off
    length = n * abs(step) + off
    if step > 0:
        return slice(off, off + n * step, step), length
    start = length - 1 - off
    stop = start + n * step
    return slice(start, None if stop < 0 else stop, step), length


MAX_BASE = 3000


@st.composite
def placements(draw, shape):
    """Where a view of ``shape`` sits in a larger C-ordered base array: ``(base_shape, index,
    axes)`` with ``base[index].transpose(axes)`` the view. Kinds: the whole base (contiguous),
    stepped / reversed / offset slices, transposes, a 0-d element of a 1-d base."""
    ndim = len(shape)
    kinds = ["contiguous", "strided", "transposed"] if ndim > 1 else ["contiguous", "strided"]
    kind = draw(st.sampled_from(kinds), label="layout")
    if kind == "contiguous":
        return tuple(shape), (Ellipsis,), tuple(range(ndim))
    if ndim == 0:
        k = draw(st.integers(0, 3))
        return (k + 1 + draw(st.integers(0, 2)),), (k, Ellipsis), ()
    axes = tuple(draw(st.permutations(range(ndim)))) if kind == "transposed" else tuple(range(ndim))
    pre = [0] * ndim
    for i, a in enumerate(axes):
        pre[a] = shape[i]
    index, base_shape, size = [], [], 1
    for n in pre:
        step = draw(st.sampled_from([1, -1, 2, -2, 3, -3] if kind == "strided" else [1, -1, 2, -2]))
        off = draw(st.integers(0, 1))
        if size * (n * abs(step) + off) > MAX_BASE:
            step, off = (1, 0)
        sl, length = _axis_slice(n, step, off)
        index.append(sl)
        base_shape.append(length)
        size *= max(length, 1)
    return tuple(base_shape), tuple(index) + (Ellipsis,), axes


@st.composite
def operands(draw, dtype, shape, domain: str = "any", specials: bool = True):
    """``(numpy_view, ember_view)``: the same view of the same values, one on each side."""
    base_shape, index, axes = draw(placements(tuple(shape)))
    base = draw(values(dtype, base_shape, domain, specials))
    n = base[index].transpose(axes)
    e = cp.asarray(base)[index]
    if axes != tuple(range(len(axes))):
        e = e.transpose(axes)
    assert n.shape == tuple(shape), (n.shape, shape)
    return n, e


SHAPES = hnp.array_shapes(min_dims=0, max_dims=5, min_side=0, max_side=4)
SMALL_SHAPES = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)


# --- which (function, dtype) pairs run -----------------------------------------------------------
def numpy_supports(fn, dtype) -> bool:
    """Whether NumPy has a loop for ``fn`` on ``dtype`` (tried on one element)."""
    x = np.ones(1, dtype=dtype)
    try:
        quiet(fn, x)
    except TypeError:
        return False
    return True


def rotation(family: dict, nin: int, per: int | None = None) -> list[tuple[str, str]]:
    """``(name, dtype)`` cases for a family ``{name: main dtype}``: each function on its main
    dtype, plus ``per`` others of those NumPy supports for it, rotating through the dtypes so
    that the family as a whole covers all of them."""
    names = list(family)
    cases = []
    for i, name in enumerate(names):
        ufunc = getattr(np, name)
        supported = [d for d in DTYPE_NAMES if numpy_supports(lambda x: ufunc(*[x] * nin), d)]
        k = per if per is not None else max(2, math.ceil(len(DTYPE_NAMES) / len(names)))
        others = [d for d in supported if d != family[name]]
        chosen = [family[name]] + [others[(i * k + j) % len(others)] for j in range(min(k, len(others)))]
        cases += [(name, d) for d in dict.fromkeys(chosen)]
    return cases


def cases_with_bugs(cases, bugs: dict) -> list:
    """``cases`` as pytest params, the known ember bugs marked ``xfail(strict=True)``."""
    out = []
    for case in cases:
        reason = bugs.get(case)
        marks = [pytest.mark.xfail(strict=True, reason=f"ember bug: {reason}")] if reason else []
        out.append(pytest.param(*case, marks=marks, id="-".join(map(str, case))))
    missing = set(bugs) - set(cases)
    assert not missing, f"bug marks for cases that do not run: {missing}"
    return out


# =================================================================================================
# Elementwise: unary ufuncs
# =================================================================================================
TRANSCENDENTAL = {"sqrt", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan",
                  "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "power", "arctan2"}
UNARY_FAMILIES = {
    "transcendental": {n: "float32" for n in ["sqrt", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1",
                                              "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh",
                                              "tanh"]},
    "rounding": {n: "float32" for n in ["floor", "ceil", "trunc", "rint"]},
    "arithmetic": {"negative": "float64", "positive": "int16", "absolute": "int8", "sign": "float32",
                   "square": "int32", "reciprocal": "float64"},
    "classification": {n: "float32" for n in ["isnan", "isinf", "isfinite", "logical_not"]},
    "bitwise": {"invert": "int32"},
}
UNARY_DOMAIN = {"arcsin": "unit", "arccos": "unit", "log": "positive", "log2": "positive", "log10": "positive",
                "sqrt": "positive", "log1p": "positive", "floor": "ties", "ceil": "ties", "trunc": "ties",
                "rint": "ties"}
UNARY_CASES = [c for fam in UNARY_FAMILIES.values() for c in rotation(fam, 1)]
UNARY_CASES += [("invert", d) for d in ["bool"] + INTS if ("invert", d) not in UNARY_CASES]
UNARY_CASES += [("abs", "float32"), ("bitwise_not", "uint8")]  # the aliases
UNARY_BUGS: dict = {}


def unary_domain(name, dtype) -> str:
    domain = UNARY_DOMAIN.get(name, "any")
    if dt(dtype).kind == "c" and name in TRANSCENDENTAL | {"reciprocal"}:
        return "moderate"  # complex special values: see test_complex_special_values_like_numpy
    return domain


@pytest.mark.parametrize("name,dtype", cases_with_bugs(UNARY_CASES, UNARY_BUGS))
def test_unary_ufunc_matches_numpy_on_any_shape_and_view(name, dtype):
    domain = unary_domain(name, dtype)

    def body(data, tally):
        shape = data.draw(SHAPES, label="shape")
        n, e = data.draw(operands(dtype, shape, domain), label="x")
        if name == "reciprocal" and n.dtype.kind in "iu" and (n == 0).any():
            return  # 1/0 in integers is undefined behaviour in NumPy's C loop
        rtol = LOOSE if name in TRANSCENDENTAL else None
        parity(lambda xp, x: getattr(xp, name)(x), [n], [e], tally, rtol=rtol)

    run_sweep(body, f"unary-{name}-{dtype}")


# =================================================================================================
# Elementwise: binary ufuncs
# =================================================================================================
BINARY_FAMILIES = {
    "arithmetic": {"add": "float32", "subtract": "int16", "multiply": "uint32", "true_divide": "float64",
                   "floor_divide": "int32", "remainder": "float32", "fmod": "int64", "power": "float64",
                   "arctan2": "float32"},
    "extrema": {"maximum": "float32", "minimum": "float64", "fmax": "float16", "fmin": "float32"},
    "comparison": {"equal": "float32", "not_equal": "complex64", "less": "int8", "less_equal": "uint64",
                   "greater": "float64", "greater_equal": "int64"},
    "logical": {"logical_and": "bool", "logical_or": "float32", "logical_xor": "int16"},
    "bitwise": {"bitwise_and": "int32", "bitwise_or": "uint8", "bitwise_xor": "int64", "left_shift": "int32",
                "right_shift": "int16"},
}
SECOND_DOMAIN = {("power", "iu"): "exponent", ("left_shift", "iu"): "shift", ("right_shift", "iu"): "shift",
                 ("floor_divide", "iu"): "small", ("remainder", "iu"): "small", ("fmod", "iu"): "small"}
BINARY_CASES = [c for fam in BINARY_FAMILIES.values() for c in rotation(fam, 2)]
BINARY_CASES += [("divide", "float32"), ("mod", "int32")]  # the aliases
BINARY_BUGS: dict = {}


def binary_domains(name, dtype) -> tuple[str, str]:
    d = dt(dtype)
    if d.kind == "c" and name in TRANSCENDENTAL | {"true_divide", "divide"}:
        return "moderate", "moderate"
    second = next((v for (n, kinds), v in SECOND_DOMAIN.items() if n == name and d.kind in kinds), "any")
    if name == "power" and d.kind in "fc":
        return "any", "small"
    return "any", second


def check_binary(name, dtype1, dtype2, domains, data, tally, max_dims=5):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=max_dims, max_side=4),
                       label="shapes")
    s1, s2 = shapes.input_shapes
    n1, e1 = data.draw(operands(dtype1, s1, domains[0]), label="x")
    n2, e2 = data.draw(operands(dtype2, s2, domains[1]), label="y")
    rtol = LOOSE if name in TRANSCENDENTAL else None
    parity(lambda xp, x, y: getattr(xp, name)(x, y), [n1, n2], [e1, e2], tally, rtol=rtol)


@pytest.mark.parametrize("name,dtype", cases_with_bugs(BINARY_CASES, BINARY_BUGS))
def test_binary_ufunc_matches_numpy_with_broadcasting_and_views(name, dtype):
    domains = binary_domains(name, dtype)
    run_sweep(lambda data, tally: check_binary(name, dtype, dtype, domains, data, tally), f"binary-{name}-{dtype}")
