"""``pyopencl.bitonic_sort``: ``BitonicSort(context)`` sorts an array in place along an axis
(keys and, with ``idx=``, an index array carried along), on ember's device sort. As
PyOpenCL's, the axis length must be a power of 2."""

from __future__ import annotations

from .. import _index_tricks, _sorting
from .array import _default_queue, _done_event


class BitonicSort:
    def __init__(self, context):
        self.context = context

    def __call__(self, arr, idx=None, queue=None, wait_for=None, axis=0):
        """Sorts ``arr`` along ``axis`` in place (and ``idx`` the same way); returns
        ``(arr, event)``."""
        queue = queue or arr.queue or _default_queue(arr._a.device)
        if wait_for:
            queue._wait_for(wait_for)
        length = arr.shape[axis]
        if length == 0:
            return arr, _done_event(queue)
        if length & (length - 1):
            raise ValueError("sorted array axis length must be a power of 2")
        if idx is None:
            arr[...] = _sorting.sort(arr, axis=axis)
        else:
            order = _sorting.argsort(arr, axis=axis, kind="stable")
            arr[...] = _index_tricks.take_along_axis(arr, order, axis)
            idx[...] = _index_tricks.take_along_axis(idx, order, axis)
        return arr, _done_event(queue)
