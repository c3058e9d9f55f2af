"""Harness plumbing and aliases only (see ``cupyx/__init__.py``)."""

from . import fftpack, sparse  # noqa: F401
