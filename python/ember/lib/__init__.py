"""``ember.lib``: NumPy's ``numpy.lib`` submodules that apply to device arrays
(``stride_tricks``)."""

from . import stride_tricks

__all__ = ["stride_tricks"]
