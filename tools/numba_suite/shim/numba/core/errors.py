"""``numba.core.errors`` is ``numba.cuda.core.errors`` (the names mapped to ember's errors)."""

from numba.cuda.core.errors import *  # noqa: F403
from numba.cuda.core.errors import __getattr__  # noqa: F401
