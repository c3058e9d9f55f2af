"""``pyopencl.algorithm``: stream compaction on the scan kernels: ``copy_if``, ``remove_if``,
``partition`` and ``unique``, each one scan of a predicate (an OpenCL C expression of
``ary[i]``, ``i`` and ``extra_args``). Each returns its output arrays (as long as the input;
the first ``count`` items are the answer), ``count`` (a 0-d array) and an event.
"""

from __future__ import annotations

import numpy as np

from .array import empty_like, zeros
from .scan import GenericScanKernel
from .tools import dtype_to_ctype

_kernels: dict = {}


def _scan_kernel(context, ary_dtype, index_dtype, input_expr: str, output_statement: str, extra_args, preamble,
                 outputs: tuple[str, ...]) -> GenericScanKernel:
    """A scan of ``input_expr`` (0 or 1 per item) that places items by ``output_statement``;
    built once per context and form."""
    extra = tuple((name, np.asarray(value).dtype) for name, value in extra_args)
    key = (id(context), np.dtype(ary_dtype), np.dtype(index_dtype), input_expr, output_statement, extra, preamble,
           outputs)
    kernel = _kernels.get(key)
    if kernel is None or kernel.context is not context:
        t, ix = dtype_to_ctype(ary_dtype), dtype_to_ctype(index_dtype)
        arguments = ", ".join([f"__global {t} *ary", *(f"__global {t} *{o}" for o in outputs),
                               f"__global {ix} *count", *(f"{dtype_to_ctype(d)} {n}" for n, d in extra)])
        kernel = _kernels[key] = GenericScanKernel(
            context, index_dtype, arguments, input_expr, "a+b", "0", output_statement, preamble=preamble,
            name_prefix="ember_compact")
    return kernel


def _index_dtype(n: int):
    return np.int32 if n < 2**31 - 1 else np.int64


def _run(ary, predicate_expr: str, extra_args, preamble, queue, wait_for, outputs: tuple[str, ...],
         placement: str):
    n = ary.size
    queue = queue or ary.queue
    index_dtype = _index_dtype(n)
    out = [empty_like(ary, queue=queue) for _ in outputs]
    count = zeros(queue or ary.queue, (), index_dtype) if queue or ary.queue else _zeros_like_device(ary, index_dtype)
    if n == 0:
        return out, count, None
    statement = f"{placement}\n        if (i == n - 1) count[0] = last_item;"
    kernel = _scan_kernel(_context_of(ary, queue), ary.dtype, index_dtype, f"({predicate_expr}) ? 1 : 0",
                          statement, extra_args, preamble, outputs)
    values = [np.asarray(v)[()] for _, v in extra_args]
    event = kernel(ary, *out, count, *values, queue=queue, wait_for=wait_for)
    return out, count, event


def _context_of(ary, queue):
    if queue is not None:
        return queue.context
    from ._platform import context_of

    return context_of(ary._a.device)


def _zeros_like_device(ary, dtype):
    from .array import _default_queue

    return zeros(_default_queue(ary._a.device), (), dtype)


def copy_if(ary, predicate, extra_args=(), preamble="", queue=None, wait_for=None):
    """The items of ``ary`` for which ``predicate`` holds, in order: ``(out, count, event)``."""
    (out,), count, event = _run(ary, predicate, extra_args, preamble, queue, wait_for, ("out",),
                                "if (prev_item != item) out[item - 1] = ary[i];")
    return out, count, event


def remove_if(ary, predicate, extra_args=(), preamble="", queue=None, wait_for=None):
    """The items of ``ary`` for which ``predicate`` does not hold, in order."""
    return copy_if(ary, f"!({predicate})", extra_args, preamble, queue, wait_for)


def partition(ary, predicate, extra_args=(), preamble="", queue=None, wait_for=None):
    """``(out_true, out_false, count_true, event)``: the items for which ``predicate`` holds,
    then (in ``out_false``) the others, each in order."""
    (yes, no), count, event = _run(
        ary, predicate, extra_args, preamble, queue, wait_for, ("out_true", "out_false"),
        "if (prev_item != item) out_true[item - 1] = ary[i]; else out_false[i - item] = ary[i];")
    return yes, no, count, event


def unique(ary, is_equal_expr="a == b", extra_args=(), preamble="", queue=None, wait_for=None):
    """The first item of each run of equal items (``is_equal_expr`` of ``a`` and ``b``) of a
    sorted ``ary``: ``(out, count, event)``."""
    macro = f"#define EMBER_IS_EQUAL(a, b) ({is_equal_expr})\n"
    return copy_if(ary, "i == 0 || !EMBER_IS_EQUAL(ary[i - 1], ary[i])", extra_args, preamble + macro, queue,
                   wait_for)
