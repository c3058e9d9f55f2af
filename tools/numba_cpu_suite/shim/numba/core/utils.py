"""``numba.core.utils`` (harness plumbing): the Python version tests compare against, and
``pysignature`` (``inspect.signature``). Any other name is missing."""

import inspect
import sys

from numba import _missing

PYVERSION = sys.version_info[:2]
pysignature = inspect.signature


def __getattr__(name: str):
    return _missing.missing_name(__name__, name)
