"""NumPy's datetime64 and timedelta64 in ``@cuda.jit`` kernels, ``vectorize`` and
``guvectorize``, as Numba has them (``NPDatetime(unit)``, ``NPTimedelta(unit)``): arrays of any
unit as arguments, datetime and timedelta scalars as arguments, arithmetic between units in the
finer unit (years and months through the calendar), NaT propagating through arithmetic and
comparing unequal, timedelta times and over numbers, timedelta over timedelta, negation and
``abs``; Numba's refusals as ``JitError``. Every result is compared with NumPy computing the same
expression on the host, on random dates of several units with NaT among them; the CUDA C
compiles through NVRTC."""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest
from ember import cuda, guvectorize, vectorize
from ember._jit import kernel_source
from ember.errors import JitError, PerformanceWarning
from ember.types import NPDatetime, NPTimedelta, as_dtype, from_dtype, typeof, void

N = 300
NAT_EVERY = 17


def dates(unit, seed, lo="1890-01-01", hi="2110-12-31"):
    """Random datetimes of ``unit`` between two days, NaT at every NAT_EVERY-th place."""
    rng = np.random.default_rng(seed)
    lo, hi = np.datetime64(lo, "s").astype(np.int64), np.datetime64(hi, "s").astype(np.int64)
    a = rng.integers(lo, hi, N).astype("M8[s]").astype(f"M8[{unit}]")
    a[rng.integers(0, NAT_EVERY) :: NAT_EVERY] = np.datetime64("NaT")
    return a


def deltas(unit, seed, span=100_000):
    rng = np.random.default_rng(seed)
    a = rng.integers(-span, span, N).astype(f"m8[{unit}]")
    a[rng.integers(0, NAT_EVERY) :: NAT_EVERY] = np.timedelta64("NaT")
    return a


# Constants from the globals, as Numba takes them.
EPOCH = np.datetime64("2000-01-01T12", "h")
NOT_A_DAY = np.datetime64("NaT", "D")
HOLIDAYS = np.array(["2000-01-01", "NaT", "1969-07-20", "2024-12-25"], "M8[D]")
DAY = NPDatetime("D")


@cuda.jit
def arithmetic(a, b, h, m, n, f, target, shift, diff, later, earlier, flipped, total, gap, times, rtimes, ftimes,
               over, fover, ratio, neg, pos, absolute, shifted, since, lt, eq, ne, ge, tne, count, nat, epoch,
               unequal, earliest, longest, halves, to_holiday, first):
    """a: datetime64[D], b: datetime64[s], h: timedelta64[h], m: timedelta64[m], n: int32,
    f: float64; target: a datetime64[s] scalar, shift: a timedelta64[D] scalar."""
    i = cuda.grid(1)
    if i < a.size:
        diff[i] = b[i] - a[i]
        later[i] = a[i] + h[i]
        earlier[i] = a[i] - m[i]
        flipped[i] = m[i] + b[i]
        total[i] = h[i] + m[i]
        gap[i] = h[i] - m[i]
        times[i] = h[i] * n[i]
        rtimes[i] = n[i] * h[i]
        ftimes[i] = h[i] * f[i]
        over[i] = h[i] / n[i]
        fover[i] = m[i] / f[i]
        ratio[i] = h[i] / m[i]
        neg[i] = -h[i]
        pos[i] = +m[i]
        absolute[i] = abs(h[i])
        shifted[i] = a[i] + shift
        since[i] = b[i] - target
        lt[i] = a[i] < b[i]
        eq[i] = a[i] == target
        ne[i] = b[i] != target
        ge[i] = h[i] >= m[i]
        tne[i] = h[i] != m[i]
        count[i] = int(h[i]) + np.int64(m[i])
        nat[i] = np.isnat(b[i])
        epoch[i] = b[i] - EPOCH
        unequal[i] = a[i] != NOT_A_DAY
        earliest[i] = min(b[i], target)
        longest[i] = max(m[i], -m[i], m[i] * 2)
        halves[i] = h[i] // n[i] + m[i] // f[i]
        to_holiday[i] = HOLIDAYS[i % 4] - a[i]
        pair = cuda.local.array(2, DAY)
        pair[0] = a[i]
        pair[1] = HOLIDAYS[i % 4]
        first[i] = min(pair[0], pair[1])


OUTS = {
    "diff": "m8[s]", "later": "M8[h]", "earlier": "M8[m]", "flipped": "M8[s]", "total": "m8[m]", "gap": "m8[m]",
    "times": "m8[h]", "rtimes": "m8[h]", "ftimes": "m8[h]", "over": "m8[h]", "fover": "m8[m]", "ratio": "f8",
    "neg": "m8[h]", "pos": "m8[m]", "absolute": "m8[h]", "shifted": "M8[D]", "since": "m8[s]", "lt": "?",
    "eq": "?", "ne": "?", "ge": "?", "tne": "?", "count": "i8", "nat": "?", "epoch": "m8[s]", "unequal": "?",
    "earliest": "M8[s]", "longest": "m8[m]", "halves": "m8[m]",
    "to_holiday": "m8[D]", "first": "M8[D]",
}


def arithmetic_numpy(a, b, h, m, n, f, target, shift):
    n = n.astype(np.int64)
    with np.errstate(all="ignore"):
        return {
            "diff": b - a, "later": a + h, "earlier": a - m, "flipped": m + b, "total": h + m, "gap": h - m,
            "times": h * n, "rtimes": n * h, "ftimes": h * f, "over": h / n, "fover": m / f, "ratio": h / m,
            "neg": -h, "pos": +m, "absolute": abs(h), "shifted": a + shift, "since": b - target, "lt": a < b,
            "eq": a == target, "ne": b != target, "ge": h >= m, "tne": h != m,
            "count": h.astype(np.int64) + m.astype(np.int64), "nat": np.isnat(b), "epoch": b - EPOCH,
            "unequal": a != NOT_A_DAY, "earliest": np.where(target < b, target, b),
            "longest": python_max(m, -m, m * 2), "halves": h // n + m // f,
            "to_holiday": HOLIDAYS[np.arange(N) % 4] - a, "first": python_min(a, HOLIDAYS[np.arange(N) % 4]),
        }


def python_min(*values):
    """Python's min() element by element (NaT is never less, nor is anything than NaT)."""
    acc = values[0]
    for v in values[1:]:
        acc = np.where(v < acc, v, acc)
    return acc


def python_max(*values):
    """Python's max() element by element: the first unless a later one is greater (NaT is never
    greater, nor is anything than NaT)."""
    acc = values[0]
    for v in values[1:]:
        acc = np.where(v > acc, v, acc)
    return acc


def test_datetime_arithmetic_matches_numpy():
    rng = np.random.default_rng(7)
    a, b = dates("D", 1), dates("s", 2)
    h, m = deltas("h", 3), deltas("m", 4, span=10**7)
    n = rng.integers(-9, 10, N).astype(np.int32)  # zero divisors too: NaT
    f = rng.standard_normal(N) * 3
    f[::23] = np.nan  # a NaN factor gives NaT
    target, shift = np.datetime64("1999-12-31", "s"), np.timedelta64(-40, "D")
    a[4:6], b[4] = target, target  # equal values of different units
    want = arithmetic_numpy(a, b, h, m, n, f, target, shift)
    assert want["eq"].any() and (~want["lt"]).any()
    outs = [ember.zeros(N, d) for d in OUTS.values()]
    args = [ember.asarray(x) for x in (a, b, h, m, n, f)]
    arithmetic[(N + 63) // 64, 64](*args, target, shift, *outs)
    for k, o in zip(OUTS, outs, strict=True):
        got = o.get()
        assert got.dtype == np.dtype(OUTS[k]) == want[k].dtype, k
        if got.dtype.kind in "mM":
            got, want[k] = got.view(np.int64), want[k].view(np.int64)
        np.testing.assert_array_equal(got, want[k], err_msg=k)


@cuda.jit
def calendar(y, mo, d, w, years, months, to_days, by_weeks, in_months, before, same, months_by_weeks):
    """y: datetime64[Y], mo: datetime64[M], d: datetime64[D], w: timedelta64[W],
    years: timedelta64[Y], months: timedelta64[M]."""
    i = cuda.grid(1)
    if i < y.size:
        to_days[i] = mo[i] - d[i]
        by_weeks[i] = y[i] + w[i]
        in_months[i] = mo[i] + years[i] - months[i]
        before[i] = mo[i] < d[i]
        same[i] = y[i] == mo[i]
        months_by_weeks[i] = mo[i] - w[i]


def test_years_and_months_go_through_the_calendar_as_numpys_do():
    # Before and after 1970, across leap years (1600, 2000 and 2400 are; 1900 and 2100 not).
    y = dates("Y", 11, lo="1580-01-01", hi="2420-12-31")
    mo = dates("M", 12, lo="1580-01-01", hi="2420-12-31")
    d = dates("D", 13, lo="1580-01-01", hi="2420-12-31")
    y[:3] = np.array(["1600", "1900", "2000"], "M8[Y]")
    mo[:5] = np.array(["1600-01", "1900-02", "2000-03", "1969-12", "1970-01"], "M8[M]")
    d[:5] = np.array(["1600-01-01", "1900-03-01", "2000-02-29", "1969-12-31", "1970-01-01"], "M8[D]")
    w, years, months = deltas("W", 14, span=5000), deltas("Y", 15, span=300), deltas("M", 16, span=3000)
    outs = {"to_days": "m8[D]", "by_weeks": "M8[W]", "in_months": "M8[M]", "before": "?", "same": "?",
            "months_by_weeks": "M8[W]"}
    got = [ember.zeros(N, t) for t in outs.values()]
    calendar[(N + 63) // 64, 64](*(ember.asarray(x) for x in (y, mo, d, w, years, months)), *got)
    want = [mo - d, y + w, mo + years - months, mo < d, y == mo, mo - w]
    for name, g, x in zip(outs, got, want, strict=True):
        assert g.dtype == x.dtype, name
        g = g.get()
        np.testing.assert_array_equal(g.view(np.int64) if g.dtype.kind in "mM" else g,
                                      x.view(np.int64) if x.dtype.kind in "mM" else x, err_msg=name)


def test_vectorize_and_guvectorize_take_and_give_datetimes():
    datetime_t, ns_t = from_dtype(np.dtype("M8[ms]")), from_dtype(np.dtype("m8[us]"))

    # Argument types alone: the return type is the function's (timedelta64[ms] here).
    @vectorize([(datetime_t, datetime_t)], target="cuda")
    def elapsed(start, end):
        return end - start

    @vectorize([NPDatetime("us")(datetime_t, ns_t)], target="cuda")
    def later(start, step):
        return start + step

    with pytest.raises(JitError, match=r"returns datetime64\[us\], and its signature says datetime64\[ms\]"):
        vectorize([NPDatetime("ms")(datetime_t, ns_t)], target="cuda")(later.py_func)

    @guvectorize([(datetime_t, datetime_t, NPTimedelta("ms")[:])], "(),()->()", target="cuda")
    def elapsed_into(start, end, out):
        out[0] = end - start

    a, b = dates("ms", 21), dates("ms", 22)
    step = deltas("us", 23, span=10**12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PerformanceWarning)
        got = elapsed(a, b)
        assert got.dtype == np.dtype("m8[ms]")
        np.testing.assert_array_equal(got.view(np.int64), (b - a).view(np.int64))
        got = elapsed(ember.asarray(a), ember.asarray(b)).get()
        np.testing.assert_array_equal(got.view(np.int64), (b - a).view(np.int64))
        np.testing.assert_array_equal(elapsed_into(a, b).view(np.int64), (b - a).view(np.int64))
        np.testing.assert_array_equal(later(a, step).view(np.int64), (a + step).view(np.int64))
    # Scalars give a scalar, as NumPy's ufuncs do.
    assert elapsed(a[3], b[3]) == b[3] - a[3]


@cuda.jit(device=True)
def step_back(day, step):
    return day - step


@cuda.jit(void(NPDatetime("D")[::1], NPTimedelta("D"), NPDatetime("D")[::1]))
def declared(days, step, out):
    i = cuda.grid(1)
    if i < days.size:
        out[i] = step_back(days[i], -step)


def test_types_names_and_signatures_are_numbas():
    d, t = NPDatetime("D"), NPTimedelta("ns")
    assert str(d) == "datetime64[D]" and str(t) == "timedelta64[ns]" and str(NPDatetime()) == "datetime64"
    assert d == from_dtype(np.dtype("datetime64[D]")) and d != NPDatetime("s") and d != NPTimedelta("D")
    assert as_dtype(t) == np.dtype("m8[ns]") and from_dtype(as_dtype(d)) == d
    assert typeof(np.datetime64("2020-01-01")) == d and typeof(np.timedelta64(3, "ns")) == t
    assert typeof(np.arange("2005-02", "2005-03", dtype="M8[D]")).dtype == d
    assert d(5) == np.datetime64(5, "D")
    assert str(void(d[::1], t)) == "void(datetime64[D][::1], timedelta64[ns])"
    with pytest.raises(TypeError, match="one plain unit"):
        from_dtype(np.dtype("M8[10s]"))
    with pytest.raises(ValueError, match="not a datetime unit"):
        NPDatetime("Q")
    days = np.arange("2005-02", "2005-04", dtype="M8[D]")
    out = ember.zeros(days.size, "M8[D]")
    declared[1, 64](ember.asarray(days), np.timedelta64(3, "D"), out)
    np.testing.assert_array_equal(out.get(), days + 3)
    # A signature's datetime parameter takes that type only (Numba converts none to another).
    for wrong in (np.timedelta64(3, "h"), 3):
        with pytest.raises(TypeError, match="no signature of kernel declared matches"):
            declared[1, 64](ember.asarray(days), wrong, out)


@cuda.jit
def add_dates(a, b, out):
    out[0] = a[0] + b[0]


@cuda.jit
def scaled_dates(a, out):
    out[0] = a[0] * 2


@cuda.jit
def store(a, out):
    out[0] = a[0]


@cuda.jit
def mixed_compare(a, t, out):
    out[0] = a[0] < t[0]


@cuda.jit
def add_deltas(a, b, out):
    out[0] = a[0] + b[0]


@cuda.jit
def mixed_max(a, b, out):
    out[0] = max(a[0], b[0])


@cuda.jit
def to_float(a, out):
    out[0] = float(a[0])


@cuda.jit
def to_int32(a, out):
    out[0] = np.int32(a[0])


@cuda.jit
def isnat(a, out):
    out[0] = np.isnat(a[0])


def test_what_numba_refuses_is_a_jit_error():
    cases = [
        (add_dates, ["datetime64[D][::1]"] * 3, r"operator \+ is not defined for datetime64\[D\] and datetime64\[D\]"),
        (scaled_dates, ["datetime64[D][::1]"] * 2, r"operator \* is not defined for datetime64\[D\] and int64"),
        (store, ["datetime64[D][::1]", "datetime64[s][::1]"],
         r"cannot convert datetime64\[D\] to datetime64\[s\]: Numba converts"),
        (store, ["int64[::1]", "timedelta64[D][::1]"], r"cannot convert int64 to timedelta64\[D\]"),
        (mixed_compare, ["datetime64[D][::1]", "timedelta64[D][::1]", "bool[::1]"],
         r"cannot compare datetime64\[D\] and timedelta64\[D\] with <"),
        (add_deltas, ["timedelta64[M][::1]", "timedelta64[D][::1]", "timedelta64[D][::1]"],
         r"cannot add timedelta64\[M\] and timedelta64\[D\]: the units do not convert"),
        (add_dates, ["datetime64[D][::1]", "timedelta64[Y][::1]", "datetime64[D][::1]"],
         r"cannot combine datetime64\[D\] and timedelta64\[Y\]"),
        (to_float, ["timedelta64[s][::1]", "float64[::1]"], r"float\(\) of timedelta64\[s\] is not defined"),
        (mixed_max, ["datetime64[D][::1]", "datetime64[s][::1]", "datetime64[s][::1]"],
         r"max\(\) of datetime64\[D\] and datetime64\[s\]: Numba unifies no two"),
        (to_int32, ["datetime64[s][::1]", "int32[::1]"], r"Cannot cast datetime64\[s\] to int32"),
        (isnat, ["float64[::1]", "bool[::1]"], r"np.isnat\(\) takes a datetime64 or timedelta64, not float64"),
    ]
    for kernel, types, message in cases:
        with pytest.raises(JitError, match=message):
            kernel_source(kernel, types, "opencl")


def test_the_cuda_c_compiles_through_nvrtc():
    from conftest import nvrtc_or_skip

    nvrtc_or_skip()
    cases = [
        (arithmetic, ["datetime64[D][::1]", "datetime64[s][::1]", "timedelta64[h][::1]", "timedelta64[m][::1]",
                      "int32[::1]", "float64[::1]", "datetime64[s]", "timedelta64[D]"]
         + [f"{np.dtype(t).name}[::1]" if t != "?" else "bool[::1]" for t in OUTS.values()]),
        (calendar, ["datetime64[Y][::1]", "datetime64[M][::1]", "datetime64[D][::1]", "timedelta64[W][::1]",
                    "timedelta64[Y][::1]", "timedelta64[M][::1]", "timedelta64[D][::1]", "datetime64[W][::1]",
                    "datetime64[M][::1]", "bool[::1]", "bool[::1]", "datetime64[W][::1]"]),
    ]
    for kernel, types in cases:
        src = kernel_source(kernel, types, "cuda")
        name = src.rsplit('extern "C" __global__ void ', 1)[1].split("(", 1)[0]
        assert ember._ember.nvrtc_compile(src, name, "sm_90", [])[:4] == b"\x7fELF", kernel
