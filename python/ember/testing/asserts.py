"""NumPy's array assertions, taking ember arrays on either side (as ``cupy.testing``'s do).

Each converts ember arrays (and other device arrays with ``__cuda_array_interface__``) to NumPy
arrays, then hands over to ``numpy.testing``: the failure messages are NumPy's own. NumPy arrays,
lists and scalars pass through unchanged, so NumPy's rules for them (``strict=``, scalars
broadcast against arrays) stay NumPy's.
"""

from __future__ import annotations

import numpy as np

import ember


def to_host(x):
    """``x`` as NumPy sees it: device arrays copied to the host, anything else as it is."""
    if isinstance(x, ember.ndarray) or hasattr(x, "__cuda_array_interface__"):
        return ember.asnumpy(x)
    return x


def assert_allclose(actual, desired, rtol=1e-7, atol=0, equal_nan=True, err_msg="", verbose=True, *,
                    strict=False):
    """``numpy.testing.assert_allclose`` on ember or NumPy arrays or scalars: ``|actual - desired|
    <= atol + rtol * |desired|`` elementwise."""
    # strict= is NumPy 2's; pass it only when asked, so NumPy 1.24 keeps working.
    extra = {"strict": True} if strict else {}
    np.testing.assert_allclose(to_host(actual), to_host(desired), rtol=rtol, atol=atol, equal_nan=equal_nan,
                               err_msg=err_msg, verbose=verbose, **extra)


def assert_array_equal(x, y, err_msg="", verbose=True, *, strict=False):
    """``numpy.testing.assert_array_equal`` on ember or NumPy arrays or scalars: the same shape
    (or a scalar against an array, unless ``strict``) and equal elements, NaN equal to NaN."""
    np.testing.assert_array_equal(to_host(x), to_host(y), err_msg=err_msg, verbose=verbose, strict=strict)


def assert_array_almost_equal(x, y, decimal=6, err_msg="", verbose=True):
    """``numpy.testing.assert_array_almost_equal`` on ember or NumPy arrays or scalars:
    ``|x - y| < 1.5 * 10**(-decimal)`` elementwise."""
    np.testing.assert_array_almost_equal(to_host(x), to_host(y), decimal=decimal, err_msg=err_msg, verbose=verbose)


def assert_array_less(x, y, err_msg="", verbose=True):
    """``numpy.testing.assert_array_less`` on ember or NumPy arrays or scalars: ``x < y``
    elementwise."""
    np.testing.assert_array_less(to_host(x), to_host(y), err_msg=err_msg, verbose=verbose)
