"""``ember.cublas``: CuPy's ``cupy.cublas`` batched solver and its limit.

``batched_gesv(a, b)`` solves ``a @ x = b`` for stacks, as ``ember.linalg.solve`` does
(CuPy's shapes: ``b`` is ``(..., M)`` or ``(..., M, K)``, batch axes equal to ``a``'s).
``get/set_batched_gesv_limit``: on CUDA, stacks of matrices up to this order are factored and
solved by cuBLAS's ``getrfBatched``/``getrsBatched`` (one launch for the stack), larger ones
by cuSOLVER a matrix at a time; 0 turns the batched routines off. ember's default is 32 (CuPy's
is 256). Devices without cuSOLVER use ember's own kernels whatever the limit.
"""

from __future__ import annotations

from . import _ember
from .linalg import solve

__all__ = ["batched_gesv", "get_batched_gesv_limit", "set_batched_gesv_limit"]


def get_batched_gesv_limit() -> int:
    return _ember.lapack_batched_gesv_limit()


def set_batched_gesv_limit(limit) -> None:
    limit = int(limit)
    if limit < 0:
        raise ValueError(f"the batched gesv limit is an order, at least 0, not {limit}")
    _ember.lapack_batched_gesv_limit(limit)


def batched_gesv(a, b):
    """Solves ``a @ x = b`` for each matrix of ``a`` (``(..., M, M)``) and ``b`` (``(..., M)``
    or ``(..., M, K)`` with ``a``'s batch axes)."""
    if not ((a.ndim == b.ndim or a.ndim == b.ndim + 1) and a.shape[:-1] == b.shape[:a.ndim - 1]):
        raise ValueError("a must have (..., M, M) shape and b must have (..., M) or (..., M, K)")
    vector = a.ndim == b.ndim + 1
    x = solve(a, b[..., None] if vector else b)
    return x[..., 0] if vector else x
