"""NumPy's exception and warning classes (``numpy.exceptions``), which ember raises where NumPy
does (``AxisError`` for a bad axis, ``ComplexWarning`` for a complex-to-real cast...); CuPy's
``cupy.exceptions`` is the same module. ember's own errors are in ``ember.errors``."""

from numpy.exceptions import (
    AxisError,
    ComplexWarning,
    DTypePromotionError,
    ModuleDeprecationWarning,
    RankWarning,
    TooHardError,
    VisibleDeprecationWarning,
)

__all__ = [
    "AxisError", "ComplexWarning", "DTypePromotionError", "ModuleDeprecationWarning", "RankWarning", "TooHardError",
    "VisibleDeprecationWarning",
]
