"""Harness plumbing only: ember has no ``cupyx``.

CuPy's ``cupy.testing`` comparison decorators run ``import cupyx.scipy.sparse`` on every call
(``_convert_output_to_ndarray``) to ask whether a result is a sparse matrix. This package exists
so that import succeeds; it holds nothing else, so any test that uses a real ``cupyx`` feature
still fails with ``AttributeError: module 'cupyx' has no attribute ...``.
"""

from . import scipy  # noqa: F401
