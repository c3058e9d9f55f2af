"""``numba.core.extending``: the same names as ``numba.extending``."""

from ember.extending import register_jitable  # noqa: F401  (re-exported)

from numba import _missing


def __getattr__(name: str):
    return _missing.missing_name(__name__, name)
