"""``cuda.reduce`` (Numba's ``cuda.Reduce``): a binary function, compiled as a device function,
reduces a 1-d array on the device.

The kernel is written in Python and compiled by ember's ``@cuda.jit``, as Numba's is. It needs
no identity element (the function is all it has): each block folds a strided slice of the
array per thread, then halves its 128 partial values in shared memory, combining only values
that exist. A second launch of one block folds the per-block results (at most 64) and the
initial value. The function must be associative and commutative, as for Numba: the order in
which values meet is the kernel's.
"""

from __future__ import annotations

import numpy as np

from .._creation import asarray, empty
from .._operands import on_device
from . import intrinsics as cuda  # the kernel below is written as Numba users write theirs
from .dispatcher import jit

_BLOCK = 128  # threads per block (a power of two: the shared-memory tree halves it)
_MAX_BLOCKS = 64  # blocks of the first pass, so one block of the second takes their results


def _reduce_kernel(functor, dtype):
    reduce_op = functor if getattr(functor, "_device", False) else jit(device=True)(functor)
    block = _BLOCK

    def reduce_blocks(arr, n, partials, init, use_init):
        """``partials[b]``: block ``b``'s fold of the elements ``b*block + tid + k*step``."""
        sm = cuda.shared.array(block, dtype=dtype)
        tid = cuda.threadIdx.x
        start = cuda.blockIdx.x * block + tid
        step = block * cuda.gridDim.x
        if start < n:
            acc = arr[start]
            for i in range(start + step, n, step):
                acc = reduce_op(acc, arr[i])
            sm[tid] = acc
        cuda.syncthreads()
        # Threads of this block that hold a value: the first min(block, n - first index).
        valid = min(block, n - cuda.blockIdx.x * block)
        width = block // 2
        while width > 0:
            if tid < width and tid + width < valid:
                sm[tid] = reduce_op(sm[tid], sm[tid + width])
            cuda.syncthreads()
            width //= 2
        if tid == 0:
            if use_init:
                partials[cuda.blockIdx.x] = reduce_op(sm[0], init)
            else:
                partials[cuda.blockIdx.x] = sm[0]

    reduce_blocks.__qualname__ = f"reduce_{getattr(functor, '__name__', 'op')}"
    return jit(reduce_blocks)


class Reduce:
    """``cuda.reduce(fn)`` / ``cuda.Reduce(fn)``: call it on a 1-d host or device array.

    ``r(arr, size=None, res=None, init=0, stream=0)``: reduces the first ``size`` elements
    (all by default) combined with ``init`` (of ``arr``'s dtype), and returns the result as a
    NumPy scalar; with ``res`` (a device array) writes it to ``res[0]`` and returns None. An
    empty array gives ``init``. The compiled kernel is kept per dtype while the object lives.
    """

    def __init__(self, functor):
        if not callable(functor):
            raise TypeError(f"cuda.reduce takes a binary function, got {type(functor).__name__}")
        self._functor = functor
        self._kernels: dict = {}
        self.__name__ = getattr(functor, "__name__", "reduce")
        self.__doc__ = getattr(functor, "__doc__", None)

    def _kernel(self, dtype):
        kernel = self._kernels.get(dtype)
        if kernel is None:
            kernel = self._kernels[dtype] = _reduce_kernel(self._functor, dtype)
        return kernel

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        if arr.ndim != 1:
            raise TypeError("only support 1D array")
        arr = arr if on_device(arr) else asarray(np.asarray(arr))
        if size is not None:
            arr = arr[:size]
        init = arr.dtype.type(init)
        if arr.size < 1:
            if res is not None:
                res[:1] = init
                return None
            return init
        kernel = self._kernel(np.dtype(arr.dtype))
        n = arr.size
        blocks = min(_MAX_BLOCKS, (n + _BLOCK - 1) // _BLOCK)
        partials = empty(blocks, dtype=arr.dtype)
        # With one block the first pass already folds in init; else the second pass does.
        kernel[blocks, _BLOCK, stream](arr, n, partials, init, blocks == 1)
        if blocks > 1:
            kernel[1, _BLOCK, stream](partials, blocks, partials, init, True)
        if res is not None:
            res[:1] = partials[:1]
            return None
        return partials[:1].get(stream=None if stream in (0, None) else stream)[0]

    def __repr__(self):
        return f"<ember.cuda.Reduce {self.__name__}>"


reduce = Reduce

__all__ = ["Reduce", "reduce"]
