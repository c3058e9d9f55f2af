"""Decorators that run one test body with NumPy and with ember and compare what they return
(``cupy.testing.numpy_cupy_allclose`` and its family).

The decorated test takes the array module as the argument ``name`` (``xp``) and returns an array,
a scalar, or a tuple or list of them. It runs with ``xp=numpy``, then with ``xp=ember``; the
results must have the same types (an ember array where NumPy gives an array or a NumPy scalar),
shapes, dtypes (when ``type_check``) and values. Where one side raises, the other must raise an
instance of the first public class of NumPy's exception (``ValueError``, ``IndexError``,
``numpy.exceptions.AxisError``, ...), and the error must be one that ``accept_error`` accepts
(``True`` for any, an exception class or a tuple of them; ``False``, the default as in CuPy, for
none: a test that only errs checks nothing).
"""

from __future__ import annotations

import functools
import inspect
import traceback

import numpy as np

import ember

from . import asserts
from .parity import public_class


def _call(impl, args, kwargs):
    """``(impl(*args, **kwargs), None)``, or ``(None, exception)`` where the body raises."""
    try:
        return impl(*args, **kwargs), None
    except Exception as e:  # noqa: BLE001 - compared with the other side's
        if e.__traceback__.tb_next is None:
            raise  # the call itself failed (a wrong argument): a mistake in the test, not a result
        return None, e


def _describe(error: BaseException) -> str:
    return "".join(traceback.format_exception(type(error), error, error.__traceback__))


def _check_errors(ember_error, numpy_error, accept_error):
    if ember_error is None:
        raise AssertionError(f"only NumPy raised:\n{_describe(numpy_error)}")
    if numpy_error is None:
        raise AssertionError(f"only ember raised:\n{_describe(ember_error)}") from ember_error
    expected = public_class(numpy_error)
    if not isinstance(ember_error, expected):
        raise AssertionError(f"ember raised {type(ember_error).__name__}, NumPy {expected.__name__}:\n"
                             f"ember:\n{_describe(ember_error)}\nNumPy:\n{_describe(numpy_error)}") from ember_error
    accepted = Exception if accept_error is True else (accept_error or ())
    if not (isinstance(ember_error, accepted) and isinstance(numpy_error, accepted)):
        raise AssertionError(f"both raised {expected.__name__} (pass accept_error= to accept it):\n"
                             f"ember:\n{_describe(ember_error)}\nNumPy:\n{_describe(numpy_error)}") from ember_error


def _pair(got, want):
    """``(ember result, NumPy result)`` as two comparable objects, or AssertionError when their
    types do not correspond."""
    if isinstance(got, ember.ndarray) and isinstance(want, (np.ndarray, np.generic)):
        return got, want
    if isinstance(got, np.generic) and isinstance(want, np.generic):
        return got, want
    if np.isscalar(got) and np.isscalar(want):
        return np.asarray(got), np.asarray(want)
    if want is None:
        raise AssertionError("the test returned None with NumPy: return what to compare")
    raise AssertionError(f"NumPy and ember return different types:\nember: {type(got)}\nNumPy: {type(want)}")


def _tolerance(tol, dtype):
    """A tolerance: a number, or CuPy's ``{numpy.float16: 1e-3, 'default': 1e-6}`` per dtype."""
    if not isinstance(tol, dict):
        return tol
    found = tol.get(np.dtype(dtype).type, tol.get("default"))
    if found is None:
        raise TypeError(f"no tolerance for {np.dtype(dtype).name} (and no 'default') in {tol}")
    return found


def _compare_with_numpy(check, name: str, type_check: bool, accept_error):
    """The decorator: runs the test with NumPy and ember under the argument ``name`` and hands
    each pair of results to ``check(ember_result, numpy_result)``."""
    def decorator(impl):
        signature = inspect.signature(impl)
        if name not in signature.parameters:
            raise TypeError(f"{impl.__name__} takes no argument {name!r} for the array module")

        @functools.wraps(impl)
        def test(*args, **kwargs):
            want, numpy_error = _call(impl, args, {**kwargs, name: np})
            got, ember_error = _call(impl, args, {**kwargs, name: ember})
            if numpy_error is not None or ember_error is not None:
                _check_errors(ember_error, numpy_error, accept_error)
                return
            many = isinstance(want, (tuple, list))
            if many != isinstance(got, (tuple, list)) or (many and len(got) != len(want)):
                raise AssertionError(f"NumPy returned {type(want).__name__} {want!r}, ember {got!r}")
            for g, w in zip(*((got, want) if many else ((got,), (want,))), strict=True):
                g, w = _pair(g, w)
                if type_check and g.dtype != w.dtype:
                    raise AssertionError(f"ndarrays of different dtypes are returned.\nember: {g.dtype}\n"
                                         f"NumPy: {w.dtype}")
                if g.shape != w.shape:
                    raise AssertionError(f"ndarrays of different shapes are returned.\nember: {g.shape}\n"
                                         f"NumPy: {w.shape}")
                check(g, w)

        # pytest must not take the array module for a fixture
        test.__signature__ = signature.replace(parameters=[p for p in signature.parameters.values() if p.name != name])
        return test
    return decorator


def numpy_ember_allclose(rtol=1e-7, atol=0, err_msg="", verbose=True, name="xp", type_check=True,
                         accept_error=False):
    """Checks that the test's NumPy and ember results are close (``assert_allclose``).

    ``rtol`` and ``atol`` are numbers, or (as in CuPy) dicts from scalar types to numbers with a
    ``'default'``. With ``type_check`` the dtypes must be equal. ``accept_error``: see the module.
    """
    if not type_check and (isinstance(rtol, dict) or isinstance(atol, dict)):
        raise TypeError("per-dtype tolerances need type_check=True (the dtypes may differ without it)")

    def check(got, want):
        asserts.assert_allclose(got, want, _tolerance(rtol, want.dtype), _tolerance(atol, want.dtype),
                                err_msg=err_msg, verbose=verbose)
    return _compare_with_numpy(check, name, type_check, accept_error)


def numpy_ember_array_equal(err_msg="", verbose=True, name="xp", type_check=True, accept_error=False):
    """Checks that the test's NumPy and ember results are equal (``assert_array_equal``)."""
    def check(got, want):
        asserts.assert_array_equal(got, want, err_msg=err_msg, verbose=verbose)
    return _compare_with_numpy(check, name, type_check, accept_error)


def numpy_ember_array_almost_equal(decimal=6, err_msg="", verbose=True, name="xp", type_check=True,
                                   accept_error=False):
    """Checks that the test's NumPy and ember results agree to ``decimal`` places
    (``assert_array_almost_equal``)."""
    def check(got, want):
        asserts.assert_array_almost_equal(got, want, decimal=decimal, err_msg=err_msg, verbose=verbose)
    return _compare_with_numpy(check, name, type_check, accept_error)


# CuPy's names, so tests written for cupy.testing run unchanged.
numpy_cupy_allclose = numpy_ember_allclose
numpy_cupy_array_equal = numpy_ember_array_equal
numpy_cupy_array_almost_equal = numpy_ember_array_almost_equal
