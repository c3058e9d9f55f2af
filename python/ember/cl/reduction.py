"""``pyopencl.reduction``: ``ReductionKernel(context, dtype_out, neutral, reduce_expr,
map_expr=None, arguments=None, name="reduce_kernel", options=None, preamble="")``: ``map_expr``
(of ``i`` and the arguments) reduced with ``reduce_expr`` (of ``a`` and ``b``, ``a`` the
earlier), starting from ``neutral``. Two launches: groups reduce strided runs in local memory
to one value each, then one group reduces those. The result is a 0-d array of ``dtype_out``."""

from __future__ import annotations

import numpy as np

from . import _snippets
from .array import empty
from .tools import dtype_to_ctype

_LOCAL = 128
_CPU_GROUPS = 1024  # at most on a CPU device (measured best at 2^24 among 16..2^17)


def _source(name: str, ctype: str, neutral: str, map_expr: str, params: str, prologue: str) -> str:
    sep = ", " if params else ""
    return f"""
__kernel void {name}(__global {ctype} *ember_out, long ember_out_offset{sep}{params},
                     long ember_start, long ember_stop, long ember_step, long ember_count)
{{
{prologue}    __local {ctype} ember_partial[{_LOCAL}];
    int lid = get_local_id(0);
    {ctype} acc = {neutral};
    // Each group reduces a contiguous block (its items striding through it): a block a core.
    long ember_per = (ember_count + get_num_groups(0) - 1) / get_num_groups(0);
    long ember_lo = get_group_id(0) * ember_per;
    long ember_hi = ember_lo + ember_per < ember_count ? ember_lo + ember_per : ember_count;
    for (long ember_k = ember_lo + lid; ember_k < ember_hi; ember_k += get_local_size(0)) {{
        long i = ember_start + ember_k * ember_step;
        {ctype} b = {map_expr};
        {ctype} a = acc;
        acc = REDUCE(a, b);
    }}
    ember_partial[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int ember_w = {_LOCAL // 2}; ember_w > 0; ember_w >>= 1) {{
        if (lid < ember_w) {{
            {ctype} a = ember_partial[lid], b = ember_partial[lid + ember_w];
            ember_partial[lid] = REDUCE(a, b);
        }}
        barrier(CLK_LOCAL_MEM_FENCE);
    }}
    if (lid == 0)
        ((__global {ctype} *)((__global char *)ember_out + ember_out_offset))[get_group_id(0)] = ember_partial[0];
}}
"""


class ReductionKernel:
    def __init__(self, context, dtype_out, neutral, reduce_expr, map_expr=None, arguments=None,
                 name="reduce_kernel", options=None, preamble=""):
        self.context = context
        self.dtype_out = np.dtype(dtype_out)
        self.args = _snippets.parse_arg_list(arguments)
        vectors = [a for a in self.args if isinstance(a, _snippets.VectorArg)]
        if map_expr is None:
            if not vectors:
                raise ValueError("map_expr is needed when no argument is an array")
            map_expr = f"{vectors[0].name}[i]"
        ctype = dtype_to_ctype(self.dtype_out)
        params, prologue = _snippets.parameters(self.args), _snippets.prologue(self.args)
        first = _source(f"{name}_stage1", ctype, neutral, map_expr, params, prologue)
        # The second stage reduces the first's values: itself a reduction of one array.
        part = [_snippets.VectorArg(self.dtype_out, "ember_in")]
        second = _source(f"{name}_stage2", ctype, neutral, "ember_in[i]", _snippets.parameters(part),
                         _snippets.prologue(part))
        source = f"{preamble}\n#define REDUCE(a, b) ({reduce_expr})\n{first}{second}"
        program = _snippets.build(context, source, options)
        self._stage1 = getattr(program, f"{name}_stage1")
        self._stage2 = getattr(program, f"{name}_stage2")

    def __call__(self, *args, queue=None, wait_for=None, return_event=False, range=None, slice=None,  # noqa: A002
                 out=None, allocator=None):
        queue = _snippets.queue_of(self.args, args, queue)
        if queue is None:
            raise ValueError("the reduction has no array argument: pass queue=")
        start, stop, step, count = _snippets.index_range(self.args, args, range, slice, "reduction")
        groups = _snippets.group_count(queue, count, _LOCAL, _CPU_GROUPS, 8)
        partial = _snippets.scratch(queue, groups, self.dtype_out)
        bounds = [np.int64(start), np.int64(stop), np.int64(step), np.int64(count)]
        launch = [*_partial_args(partial), *_snippets.call_arguments(self.args, args), *bounds]
        _snippets.launch(self._stage1, queue, (groups * _LOCAL,), (_LOCAL,), *launch, wait_for=wait_for)
        result = empty(queue, (), self.dtype_out, allocator=allocator) if out is None else out
        part = [np.int64(0), np.int64(groups), np.int64(1), np.int64(groups)]
        event = _snippets.launch(self._stage2, queue, (_LOCAL,), (_LOCAL,), *_partial_args(result),
                                 *_partial_args(partial), *part)
        return (result, event) if return_event else result


def _partial_args(arr) -> tuple:
    """An array (or a native scratch array) as an array parameter: its buffer and offset."""
    native = getattr(arr, "_a", arr)
    return _snippets.whole_buffer(native), np.int64(native.offset)
