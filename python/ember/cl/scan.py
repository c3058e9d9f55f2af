"""``pyopencl.scan``: prefix scans of an associative ``scan_expr`` (of ``a``, the earlier
value, and ``b``), optionally segmented (``is_segment_start_expr``; ``scan_expr`` may read
``across_seg_boundary``), each value given by ``input_expr`` of ``i`` and the arguments, each
result handed to ``output_statement`` as ``item`` (inclusive), ``prev_item`` (exclusive: the
neutral value at ``i = 0`` and at segment starts) and ``last_item`` (the whole scan's).

Three launches, in one of two shapes by device. On a CPU device every work-item folds a
contiguous run of the input, one work-item scans the runs' totals, and every work-item scans
its run again from that prefix and writes the outputs (PoCL runs work-items as loops: long
runs are fastest). On a GPU, where neighbouring work-items must read neighbouring elements,
each work-group takes a contiguous part in tiles of one element per work-item, scanned in local
memory: the groups' totals, their prefix (one group), then the outputs from each prefix.
"""

from __future__ import annotations

import numpy as np

from . import _snippets
from ._constants import device_type
from .tools import dtype_to_ctype

_LOCAL = 128
_GROUPS = 32  # 4,096 runs at most on a CPU: the middle launch scans their totals in one work-item
_GPU_GROUPS_PER_UNIT = 4  # work-groups per compute unit on a GPU (a few thousand at most)


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


def use_tiles(device) -> bool:
    """Whether scans on ``device`` take the GPU shape (the tests set it for CPU devices too)."""
    return not device.type & device_type.CPU


def _tiled_source(name: str, ctype: str, neutral: str, scan_expr: str, input_expr: str, output_statement: str,
                  segment_expr: str | None, fetches, params: str, prologue: str, preamble: str) -> str:
    """The GPU shape (see the module's doc): tiles of ``_LOCAL`` elements scanned in local memory
    (Hillis-Steele, carrying segment starts), work-groups over contiguous parts."""
    sep = ", " if params else ""
    fetch = "".join(f"            {ft} {fname} = (i + {off} >= 0 && i + {off} < n) ? {arg}[i + {off}] : 0;\n"
                    for fname, ft, arg, off in fetches)
    segment = f"({segment_expr})" if segment_expr else "0"
    load = f"""        {ctype} ember_x = {neutral};
        int ember_seg = 0;
        if (ember_i < hi) {{
            long i = ember_i;
{fetch}            ember_x = {input_expr};
            ember_seg = {segment};
        }}
        ember_vals[lid] = ember_x;
        ember_segs[lid] = ember_seg;
        barrier(CLK_LOCAL_MEM_FENCE);
        ember_tile_scan(ember_vals, ember_segs, lid);"""
    advance = f"""        {ctype} ember_tile = ember_vals[{_LOCAL - 1}];
        char ember_tile_seg = ember_segs[{_LOCAL - 1}];
        barrier(CLK_LOCAL_MEM_FENCE);
        carry = SCAN_EXPR(carry, ember_tile, ember_tile_seg);"""
    part = """    long groups = get_num_groups(0), g = get_group_id(0);
    long per = (n + groups - 1) / groups;
    long lo = g * per < n ? g * per : n, hi = lo + per < n ? lo + per : n;
    int lid = get_local_id(0);"""
    return f"""{preamble}
#define SCAN_EXPR(a, b, across_seg_boundary) ({scan_expr})
inline void ember_tile_scan(__local {ctype} *vals, __local char *segs, int lid)
{{
    for (int off = 1; off < {_LOCAL}; off <<= 1) {{
        {ctype} ember_prev = vals[lid], ember_cur = vals[lid];
        char ember_prev_seg = 0, ember_cur_seg = segs[lid];
        if (lid >= off) {{
            ember_prev = vals[lid - off];
            ember_prev_seg = segs[lid - off];
        }}
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid >= off) {{
            vals[lid] = SCAN_EXPR(ember_prev, ember_cur, ember_cur_seg);
            segs[lid] = ember_cur_seg | ember_prev_seg;
        }}
        barrier(CLK_LOCAL_MEM_FENCE);
    }}
}}

__kernel void {name}_fold({params}{sep}long n, __global {ctype} *ember_totals, __global char *ember_flags)
{{
{prologue}    __local {ctype} ember_vals[{_LOCAL}];
    __local char ember_segs[{_LOCAL}];
{part}
    {ctype} carry = {neutral};
    int any_seg = 0;
    for (long base = lo; base < hi; base += {_LOCAL}) {{
        long ember_i = base + lid;
{load}
        any_seg |= ember_segs[{_LOCAL - 1}];
{advance}
    }}
    if (lid == 0) {{
        ember_totals[g] = carry;
        ember_flags[g] = any_seg;
    }}
}}

__kernel void {name}_prefix(long runs, __global {ctype} *ember_totals, __global char *ember_flags,
                            __global {ctype} *ember_last)
{{
    __local {ctype} ember_vals[{_LOCAL}];
    __local char ember_segs[{_LOCAL}];
    int lid = get_local_id(0);
    {ctype} carry = {neutral};
    for (long base = 0; base < runs; base += {_LOCAL}) {{
        long w = base + lid;
        ember_vals[lid] = w < runs ? ember_totals[w] : ({ctype})({neutral});
        ember_segs[lid] = w < runs ? ember_flags[w] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        ember_tile_scan(ember_vals, ember_segs, lid);
        {ctype} ember_before = lid == 0 ? carry : SCAN_EXPR(carry, ember_vals[lid - 1], ember_segs[lid - 1]);
        if (w < runs)
            ember_totals[w] = ember_before;
{advance}
    }}
    if (lid == 0)
        ember_last[0] = carry;
}}

__kernel void {name}_output({params}{sep}long n, __global {ctype} *ember_totals, __global {ctype} *ember_last)
{{
{prologue}    __local {ctype} ember_vals[{_LOCAL}];
    __local char ember_segs[{_LOCAL}];
{part}
    {ctype} carry = ember_totals[g];
    const {ctype} last_item = ember_last[0];
    for (long base = lo; base < hi; base += {_LOCAL}) {{
        long ember_i = base + lid;
{load}
        if (ember_i < hi) {{
            long i = ember_i;
{fetch}            const {ctype} item = SCAN_EXPR(carry, ember_vals[lid], ember_segs[lid]);
            const {ctype} prev_item = ember_seg ? ({ctype})({neutral})
                : lid == 0 ? carry : SCAN_EXPR(carry, ember_vals[lid - 1], ember_segs[lid - 1]);
            {{ {output_statement}; }}
        }}
{advance}
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
        self._tiled = use_tiles(context.devices[0])
        make = _tiled_source if self._tiled else _source
        source = make(name_prefix, ctype, str(neutral), scan_expr, input_expr, output_statement,
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
        if self._tiled:
            groups = _snippets.group_count(queue, n, _LOCAL, 8, _GPU_GROUPS_PER_UNIT)
            runs, fold_size, prefix_size = groups, (groups * _LOCAL,), (_LOCAL,)
        else:
            runs = _GROUPS * _LOCAL
            fold_size, prefix_size = (runs,), (1,)
        # Each scratch array starts its own allocation, so the kernels take it at offset 0.
        t = _snippets.scratch(queue, runs, self.dtype)
        f = _snippets.scratch(queue, runs, np.int8)
        last_arg = _snippets.scratch(queue, 1, self.dtype)
        user = _snippets.call_arguments(self.args, args)
        n64 = np.int64(n)
        _snippets.launch(self._fold, queue, fold_size, (_LOCAL,), *user, n64, t, f, wait_for=wait_for)
        _snippets.launch(self._prefix, queue, prefix_size, prefix_size, np.int64(runs), t, f, last_arg)
        event = _snippets.launch(self._output, queue, fold_size, (_LOCAL,), *user, n64, t, last_arg)
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
