"""Harness plumbing: CuPy's linalg tests ask ``cupyx.cusolver.check_availability(name)`` before
testing a feature of a cuSOLVER routine. ember has each routine these tests ask about (on
cuSOLVER or its own kernels), so the answer is True for them; any other name is False and
its test skips as it would on a CuPy without that routine."""

from __future__ import annotations

# Routines ember's linalg provides on every device (geev: cuSOLVER, or NumPy's LAPACK on the
# host where cuSOLVER is absent), as named in CuPy's tests.
_EMBER_HAS = {"geev", "potrfBatched", "syevj", "gesvdj", "gesvdjBatched", "gesvda", "getrfBatched"}


def check_availability(name: str) -> bool:
    return name in _EMBER_HAS
