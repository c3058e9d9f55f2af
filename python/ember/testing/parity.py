"""The NumPy-parity contract: one body run with NumPy and with ember gives the same shape, dtype
and values, or raises the same public exception class.

``parity(fn, numpy_args, ember_args, tally)`` is the sweep's primitive: ``fn(xp, *args)`` runs
with ``xp=numpy`` on the NumPy arguments and ``xp=ember`` on the ember ones, and the results are
compared with ``assert_same`` (tolerances from ``rtol_for``: exact for bool and integers).
"""

from __future__ import annotations

import warnings

import numpy as np

import ember

# Relative tolerance per result dtype (by its character code): a few ulp of each float type.
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
    """``fn(*args, **kwargs)`` with NumPy's floating-point warnings and all other warnings off."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def assert_values(host: np.ndarray, want: np.ndarray, rtol, err_msg: str = ""):
    """Values as NumPy's: exact for bool and integers; else within ``rtol`` (relative), NaN
    where NumPy has NaN and the same infinities. Complex results: finite ones within ``rtol`` of
    their magnitude; non-finite ones part by part (NumPy defines both parts of ``inf+nanj``).
    ``rtol`` None is ``rtol_for(want.dtype)``; ``LOOSE`` is the transcendental tolerance."""
    rtol = rtol_for(want.dtype) if rtol is None else rtol
    atol = 0.0
    if rtol == LOOSE:
        rtol = rtol_for(want.dtype, loose=True)
        # a few ulp, also where ulps are subnormal
        atol = 2 * float(np.finfo(want.dtype).smallest_subnormal) if want.dtype.kind in "fc" else 0.0
    if rtol == 0 or want.dtype.kind in "biu":
        np.testing.assert_array_equal(host, want, strict=True, err_msg=err_msg)
    elif want.dtype.kind == "c":
        finite = np.isfinite(want)
        for part in (np.real, np.imag):
            np.testing.assert_allclose(part(host[~finite]), part(want[~finite]), rtol=rtol, atol=atol,
                                       equal_nan=True, err_msg=f"{err_msg} (non-finite complex results)")
        np.testing.assert_allclose(host[finite], want[finite], rtol=rtol, atol=atol, equal_nan=True, err_msg=err_msg)
    else:
        np.testing.assert_allclose(host, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=err_msg)


def assert_same(got, want, rtol=None, err_msg: str = ""):
    """``got`` (an ember array) has NumPy's ``want``'s shape, dtype and values."""
    want = np.asarray(want)
    assert isinstance(got, ember.ndarray), f"ember returned {type(got).__name__}, not an ember.ndarray"
    assert got.shape == want.shape, f"shape {got.shape} != NumPy's {want.shape}"
    assert got.dtype == want.dtype, f"dtype {got.dtype} != NumPy's {want.dtype}"
    host = got.get()
    assert host.shape == want.shape and host.dtype == want.dtype
    assert_values(host, want, rtol, err_msg)


def new_tally() -> dict:
    """A count of the examples a sweep compared and of those where NumPy raised."""
    return {"compared": 0, "raised": 0}


def numpy_result(fn, *args):
    """``(fn(numpy, *args), None)``, or ``(None, exception)`` where NumPy raises."""
    try:
        return quiet(fn, np, *args), None
    except Exception as e:  # noqa: BLE001 - any NumPy error is a contract for ember
        return None, e


def parity(fn, np_args, em_args, tally=None, rtol=None, compare=None):
    """Runs ``fn(xp, *args)`` with NumPy and with ember: the same result (returned, NumPy's), or
    the same exception class (then returns None). ``compare(got, want)`` replaces the default
    check when given; ``tally`` (see ``new_tally``) counts what happened."""
    tally = new_tally() if tally is None else tally
    want, err = numpy_result(fn, *np_args)
    if err is not None:
        tally["raised"] += 1
        expected = public_class(err)
        try:
            quiet(fn, ember, *em_args)
        except expected:
            return None
        raise AssertionError(f"ember did not raise {expected.__name__}; NumPy raised {type(err).__name__}: {err}")
    got = quiet(fn, ember, *em_args)
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
