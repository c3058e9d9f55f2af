"""``numba.cuda.core``: harness plumbing only (``config``, ``errors``); the compiler is missing."""
