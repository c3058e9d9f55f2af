"""The arrays a simulated kernel indexes: NumPy arrays whose out-of-bounds index raises an
``IndexError`` that names the thread, as the compiled kernels' checked mode does."""

from __future__ import annotations

import numpy as np

from .threads import where


class CheckedArray(np.ndarray):
    """A NumPy array (a view of the launch's host copy) that says which thread indexed it
    out of bounds. Slices and views stay checked."""

    def __getitem__(self, index):
        try:
            return super().__getitem__(index)
        except IndexError as e:
            raise _named(e) from None

    def __setitem__(self, index, value):
        try:
            super().__setitem__(index, value)
        except IndexError as e:
            raise _named(e) from None


def _named(error: IndexError) -> IndexError:
    return IndexError(f"{where()}: {error}")


def checked(array: np.ndarray) -> CheckedArray:
    if array.dtype.names is not None:  # records: fields as attributes (a[i].x), as in kernels
        array = array.view((np.record, array.dtype))
    return array.view(CheckedArray)
