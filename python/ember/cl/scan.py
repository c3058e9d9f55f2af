"""``pyopencl.scan``: prefix scans of an associative ``scan_expr`` (of ``a``, the earlier
value, and ``b``), optionally segmented (``is_segment_start_expr``; ``scan_expr`` may read
``across_seg_boundary``), each value given by ``input_expr`` of ``i`` and the arguments, each
result handed to ``output_statement`` as ``item`` (inclusive), ``prev_item`` (exclusive: the
neutral value at ``i = 0`` and at segment starts) and ``last_item`` (the whole scan's).

Three launches: every work-item folds a contiguous run of the input; one work-item scans the
runs' totals; every work-item scans its run again from that prefix and writes the outputs.
"""

from __future__ import annotations

import numpy as np

from . import _snippets
from .array import empty
from .tools import dtype_to_ctype

_LOCAL = 128
_GROUPS = 32  # 4,096 runs at most: the middle launch scans their totals in one work-item


def _source(name: str, ctype: str, neutral: str, scan_expr: str, input_expr: str, output_statement: str,
            segment_expr: str | None, fetches, params: str, prologue: str, preamble: str) -> str:
    sep = ", " if params else ""
    fetch = "".join(f"        {ft} {fname} = (i + {off} >= 0 && i + {off} < n) ? {arg}[i + {off}] : 0;\n"
                    for fname, ft, arg, off in fetches)
    segment = f"({segment_expr})" if segment_expr else "0"
    value = f"""        long i = ember_i;
{fetch}        {ctype} ember_x = {input_expr};
        int ember_seg = {segment};"""
    return f"""{preamble}
#define SCAN_EXPR(a, b, across_seg_boundary) ({scan_expr})
inline void ember_run(long n, long *lo, long *hi)
{{
    long runs = get_global_size(0), w = get_global_id(0);
    long chunk = (n + runs - 1) / runs;
    *lo = w * chunk < n ? w * chunk : n;
    *hi = *lo + chunk < n ? *lo + chunk : n;
}}

__kernel void {name}_fold({params}{sep}long n, __global {ctype} *ember_totals, __global char *ember_flags)
{{
{prologue}    long lo, hi;
    ember_run(n, &lo, &hi);
    {ctype} acc = {neutral};
    int any_seg = 0;
    for (long ember_i = lo; ember_i < hi; ++ember_i) {{
{value}
        {ctype} a = acc, b = ember_x;
        acc = SCAN_EXPR(a, b, ember_seg);
        any_seg |= ember_seg;
    }}
    ember_totals[get_global_id(0)] = acc;
    ember_flags[get_global_id(0)] = any_seg;
}}

__kernel void {name}_prefix(long runs, __global {ctype} *ember_totals, __global char *ember_flags,
                            __global {ctype} *ember_last)
{{
    {ctype} acc = {neutral};
    for (long w = 0; w < runs; ++w) {{
        {ctype} a = acc, b = ember_totals[w];
        ember_totals[w] = acc;
        acc = SCAN_EXPR(a, b, ember_flags[w]);
    }}
    ember_last[0] = acc;
}}

__kernel void {name}_output({params}{sep}long n, __global {ctype} *ember_totals, __global {ctype} *ember_last)
{{
{prologue}    long lo, hi;
    ember_run(n, &lo, &hi);
    {ctype} acc = ember_totals[get_global_id(0)];
    const {ctype} last_item = ember_last[0];
    for (long ember_i = lo; ember_i < hi; ++ember_i) {{
{value}
        const {ctype} prev_item = ember_seg ? ({ctype})({neutral}) : acc;
        {ctype} a = acc, b = ember_x;
        acc = SCAN_EXPR(a, b, ember_seg);
        const {ctype} item = acc;
        {{ {output_statement}; }}
    }}
}}
"""


class GenericScanKernel:
    """``GenericScanKernel(context, dtype, arguments, input_expr, scan_expr, neutral,
    output_statement, is_segment_start_expr=None, input_fetch_exprs=(), index_dtype=np.int32,
    name_prefix="scan", options=None, preamble="")``; call it with the arguments (``size=``
    for a scan shorter than the first array)."""

    def __init__(self, context, dtype, arguments, input_expr, scan_expr, neutral, output_statement,
                 is_segment_start_expr=None, input_fetch_exprs=(), index_dtype=np.int32, name_prefix="scan",
                 options=None, preamble="", devices=None):
        if neutral is None:
            raise ValueError("the scan needs a neutral value (the identity of scan_expr)")
        self.context = context
        self.dtype = np.dtype(dtype)
        self.args = _snippets.parse_arg_list(arguments)
        by_name = {a.name: a for a in self.args}
        fetches = [(fname, dtype_to_ctype(by_name[arg].dtype), arg, int(off))
                   for fname, arg, off in input_fetch_exprs]
        self.name = name_prefix
        ctype = dtype_to_ctype(self.dtype)
        source = _source(name_prefix, ctype, str(neutral), scan_expr, input_expr, output_statement,
                         is_segment_start_expr, fetches, _snippets.parameters(self.args),
                         _snippets.prologue(self.args), preamble)
        program = _snippets.build(context, source, options)
        self._fold = getattr(program, f"{name_prefix}_fold")
        self._prefix = getattr(program, f"{name_prefix}_prefix")
        self._output = getattr(program, f"{name_prefix}_output")

    def __call__(self, *args, allocator=None, queue=None, size=None, wait_for=None, return_event=False):
        queue = _snippets.queue_of(self.args, args, queue)
        if queue is None:
            raise ValueError("the scan has no array argument: pass queue=")
        n = _snippets.size_of(self.args, args) if size is None else int(size)
        if n is None:
            raise ValueError("the scan has no array argument to size it: pass size=")
        runs = _GROUPS * _LOCAL
        totals = empty(queue, runs, self.dtype)
        flags = empty(queue, runs, np.int8)
        last = empty(queue, 1, self.dtype)
        user = _snippets.call_arguments(self.args, args)
        t, f, last_arg = (_snippets.call_arguments([_snippets.VectorArg(x.dtype, "x")], [x])[0] for x in
                          (totals, flags, last))
        n64 = np.int64(n)
        _snippets.launch(self._fold, queue, (runs,), (_LOCAL,), *user, n64, t, f, wait_for=wait_for)
        _snippets.launch(self._prefix, queue, (1,), (1,), np.int64(runs), t, f, last_arg)
        event = _snippets.launch(self._output, queue, (runs,), (_LOCAL,), *user, n64, t, last_arg)
        return event


GenericDebugScanKernel = GenericScanKernel  # PyOpenCL's serial reference: the same results


class _SimpleScan:
    exclusive = False

    def __init__(self, context, dtype, scan_expr, neutral=None, name_prefix="scan", options=None, preamble="",
                 devices=None):
        if neutral is None:
            if self.exclusive:
                raise ValueError("an exclusive scan needs a neutral value")
            neutral = "0"
        ctype = dtype_to_ctype(np.dtype(dtype))
        item = "prev_item" if self.exclusive else "item"
        self._scan = GenericScanKernel(
            context, dtype, f"__global {ctype} *input_ary, __global {ctype} *output_ary", "input_ary[i]",
            scan_expr, neutral, f"output_ary[i] = {item}", name_prefix=name_prefix, options=options,
            preamble=preamble)

    def __call__(self, input_ary, output_ary=None, allocator=None, queue=None):
        """Scans ``input_ary`` into ``output_ary`` (in place when not given); returns it."""
        out = input_ary if output_ary is None else output_ary
        self._scan(input_ary, out, queue=queue)
        return out


class InclusiveScanKernel(_SimpleScan):
    """``InclusiveScanKernel(context, dtype, scan_expr, neutral=None)``: ``out[i]`` is the scan
    of ``in[0..i]``."""


class ExclusiveScanKernel(_SimpleScan):
    """``ExclusiveScanKernel(context, dtype, scan_expr, neutral)``: ``out[i]`` is the scan of
    ``in[0..i-1]`` (``neutral`` at 0)."""

    exclusive = True
