"""Harness plumbing only (see ``cupyx/__init__.py``)."""

from . import sparse  # noqa: F401
