"""CuPy's ``ElementwiseKernel`` and ``ReductionKernel``: kernels around C snippets.

ember writes the kernel around the snippet in the device's own dialect, so the same snippet
runs on CUDA and on OpenCL (PoCL on the CPU). Parameter lists, type placeholders,
broadcasting, output allocation, ``i``, ``_ind.size()`` and raw parameters follow CuPy.
"""

from __future__ import annotations

import numpy as np

from . import _ember
from ._interop import _foreign_view
from ._runtime import current_device_id

_PY_SCALARS = (bool, int, float, complex)


def _arg(value, index: int):
    """A call argument as the native kernel takes it."""
    if isinstance(value, _ember.ndarray):
        return value._a
    if isinstance(value, np.generic):
        return (value.item(), value.dtype.name)
    if isinstance(value, _PY_SCALARS):
        return (value, None)
    if isinstance(value, np.ndarray):
        raise TypeError(
            f"Unsupported type {type(value)} for argument {index}: a NumPy array lives in host memory; "
            "copy it to the device with ember.asarray(x) first"
        )
    view = _foreign_view(value)
    if view is None:
        raise TypeError(f"Unsupported type {type(value)} for argument {index}")
    return view._a


def _args(args) -> tuple:
    return tuple(_arg(a, k) for k, a in enumerate(args))


class ElementwiseKernel:
    """``ElementwiseKernel(in_params, out_params, operation, name='kernel', ...)``: runs
    ``operation`` once per element of the broadcast arguments; outputs not given are
    allocated. Call as ``k(*inputs, *outputs_optional, size=None, stream=None)``."""

    # Snippets compile as CuPy compiles them: the compiler may contract a * b + c into one
    # multiply-add. ember.fuse's kernels, made of NumPy's ufuncs, round each operation.
    _separate_rounding = False

    def __init__(self, in_params, out_params, operation, name="kernel", reduce_dims=True, preamble="",
                 no_return=False, return_tuple=False, loop_prep="", after_loop="", options=()):
        self.in_params, self.out_params, self.operation = in_params, out_params, operation
        self.name, self.reduce_dims, self.preamble = name, reduce_dims, preamble
        self.no_return, self.return_tuple = no_return, return_tuple
        self.options = tuple(options)
        self._native = _ember.ElementwiseKernel(
            in_params, out_params, operation, name, preamble, loop_prep, after_loop, [str(o) for o in options],
            self._separate_rounding,
        )
        self.nin, self.nout = self._native.nin, self._native.nout
        self.nargs = self.nin + self.nout

    def __call__(self, *args, size=None, block_size=None, stream=None):
        if block_size is not None and block_size <= 0:
            raise ValueError("block_size must be greater than zero")
        if size is not None and size < 0:
            raise ValueError(f"size must be non-negative, got {size}")
        native = _args(args)
        if stream is None:
            outs = self._native.call(current_device_id(), native, size)
        else:
            with stream:
                outs = self._native.call(current_device_id(), native, size)
        if self.no_return:
            return None
        arrays = tuple(_ember.wrap(o) for o in outs)
        if self.nout == 1 and not self.return_tuple:
            return arrays[0]
        return arrays

    def __repr__(self):
        return f"<ember.ElementwiseKernel {self.name}>"


class ReductionKernel:
    """``ReductionKernel(in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
    name='reduce_kernel', reduce_type=None, ...)``: maps each element with ``map_expr``,
    combines with ``reduce_expr`` (over ``a`` and ``b``), writes each output with
    ``post_map_expr`` (``a`` is the result). Call as ``k(*args, out=None, axis=None,
    keepdims=False, stream=None)``; returns the first output."""

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
                 name="reduce_kernel", reduce_type=None, reduce_dims=True, preamble="", options=()):
        self.in_params, self.out_params = in_params, out_params
        self.map_expr, self.reduce_expr, self.post_map_expr = map_expr, reduce_expr, post_map_expr
        self.identity = identity
        self.name, self.reduce_dims, self.preamble = name, reduce_dims, preamble
        self.options = tuple(options)
        self._native = _ember.ReductionKernel(
            in_params, out_params, map_expr, reduce_expr, post_map_expr,
            None if identity is None else str(identity), name, reduce_type, preamble, [str(o) for o in options],
        )
        self.reduce_type = self._native.reduce_type
        self.nin, self.nout = self._native.nin, self._native.nout
        self.nargs = self.nin + self.nout

    def __call__(self, *args, out=None, axis=None, keepdims=False, stream=None):
        if out is not None:
            if self.nout != 1:
                raise ValueError("out= works for kernels with one output; pass the outputs as arguments")
            if len(args) != self.nin:
                raise ValueError("cannot specify 'out' as both a positional and keyword argument")
            args = (*args, out)
        if axis is not None:
            axis = [int(a) for a in axis] if isinstance(axis, (tuple, list)) else [int(axis)]
        native = _args(args)
        if stream is None:
            return _ember.wrap(self._native.call(current_device_id(), native, axis, bool(keepdims)))
        with stream:
            return _ember.wrap(self._native.call(current_device_id(), native, axis, bool(keepdims)))

    def __repr__(self):
        return f"<ember.ReductionKernel {self.name}>"
