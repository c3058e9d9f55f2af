"""``numba.core.config`` (harness plumbing): facts about the platform the tests read, and the
number of threads (ember runs ``prange`` on rayon's pool, one thread per core). Numba's other
settings (``DISABLE_JIT``, ``BOUNDSCHECK``, the dump switches ...) are missing: ember does not
read them, so a test that overrides one fails instead of passing for the wrong reason."""

import os
import sys

from numba import _missing

IS_32BITS = sys.maxsize <= 2**32
MACHINE_BITS = 32 if IS_32BITS else 64
IS_WIN32 = sys.platform.startswith("win32")
IS_OSX = sys.platform.startswith("darwin")
NUMBA_NUM_THREADS = NUMBA_DEFAULT_NUM_THREADS = os.cpu_count() or 1
ENABLE_CUDASIM = False


def __getattr__(name: str):
    return _missing.missing_name(__name__, name)
