"""``numba.extending``: ember's ``register_jitable`` (``ember.extending``); the rest of Numba's
extension API (``overload``, ``intrinsic``, ``typeof_impl`` ...) is missing (``_missing.py``)."""

from ember.extending import register_jitable  # noqa: F401  (re-exported)

from numba import _missing


def __getattr__(name: str):
    return _missing.missing_name(__name__, name)
