"""The arrays a simulated kernel indexes: plain NumPy arrays (views of the launch's host copies),
records viewed as ``np.record`` so that fields read as attributes (``a[i].x``), as in kernels.

An index out of bounds raises NumPy's ``IndexError``; the launch re-raises it led by the thread
(``tid=[..] ctaid=[..]: index 8 is out of bounds...``). Indexing stays NumPy's own C code: a
subclass that checked in Python made a simulated thread's every index several times slower.
"""

from __future__ import annotations

import numpy as np


def kernel_view(array: np.ndarray) -> np.ndarray:
    if array.dtype.names is not None:
        return array.view((np.record, array.dtype))
    return array
