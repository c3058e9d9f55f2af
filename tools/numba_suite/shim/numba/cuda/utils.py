"""``numba.cuda.utils``: harness plumbing; only ``PYVERSION``, which tests compare against."""

import sys

PYVERSION = sys.version_info[:2]
