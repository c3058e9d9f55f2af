"""``numba.core.types`` / ``numba.types``: ember's own type objects (``ember.types``, the same
objects). A name ``ember.types`` has not is missing; so are submodules such as
``numba.core.types.functions`` (see ``numba/_missing.py``)."""

from ember.types import *  # noqa: F403
from ember.types import __all__ as _ember_names  # noqa: F401

from numba import _missing


def __getattr__(name: str):
    return _missing.missing_name(__name__, name)
