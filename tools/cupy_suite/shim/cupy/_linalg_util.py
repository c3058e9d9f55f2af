"""Harness plumbing: the one name of CuPy's private ``cupy.linalg._util`` that its linalg tests
call, ``stacked_identity`` (the expected U/Vh of empty SVDs), written here on ember's own
functions; registered as ``cupy.linalg._util`` by ``cupy/__init__.py``."""

from __future__ import annotations

import ember


def stacked_identity(batch_shape, n, dtype):
    return ember.ascontiguousarray(ember.broadcast_to(ember.eye(n, dtype=dtype), tuple(batch_shape) + (n, n)))
