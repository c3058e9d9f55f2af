"""Harness plumbing only: ember has no ``cupyx``.

CuPy's ``cupy.testing`` comparison decorators run ``import cupyx.scipy.sparse`` on every call
(``_convert_output_to_ndarray``) to ask whether a result is a sparse matrix. This package exists
so that import succeeds; it holds nothing else, so any test that uses a real ``cupyx`` feature
still fails with ``AttributeError: module 'cupyx' has no attribute ...``.

Aliases of ember's own functions: ``errstate seterr geterr`` (``ember.errstate`` with CuPy's
``linalg`` key). Plumbing: ``cusolver.check_availability`` (see ``cusolver.py``).
"""

from ember import errstate, geterr, seterr  # noqa: F401

from . import cusolver, scipy  # noqa: F401
