"""``numba.core``: only ``errors`` (an alias of ``numba.cuda.core.errors``)."""
