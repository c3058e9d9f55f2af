"""``pyopencl.elementwise``: ``ElementwiseKernel(context, arguments, operation, name,
preamble="", options=None)``, an OpenCL C statement run for every index ``i`` (and ``n``,
the number of indices) over arrays of one size. The kernel loops over its indices in a grid
stride, so any size runs in one launch; ``range=``/``slice=`` choose the indices."""

from __future__ import annotations

import numpy as np

from . import _snippets

_LOCAL = 128  # work-items per group
# None: one index per work-item on a CPU device. PoCL vectorises a work-group's work-items
# when each runs straight through (a loop per work-item runs ~6x slower, measured at 2^24).
_CPU_GROUPS = None


class ElementwiseKernel:
    def __init__(self, context, arguments, operation, name="elwise_kernel", preamble="", options=None,
                 **kwargs):
        if kwargs:  # PyOpenCL's loop_prep, after_loop, ...: code ember would otherwise drop
            raise TypeError(f"ElementwiseKernel: ember does not take {', '.join(sorted(kwargs))}; "
                            "put such code in the operation or the preamble")
        self.context = context
        self.args = _snippets.parse_arg_list(arguments)
        self.name = name
        params = _snippets.parameters(self.args)
        source = (
            f"{preamble}\n#define PYOPENCL_ELWISE_CONTINUE continue\n"
            f"__kernel void {name}({params}{', ' if params else ''}long ember_start, long ember_stop, "
            f"long ember_step)\n{{\n{_snippets.prologue(self.args)}"
            "    long n = ember_step > 0 ? (ember_stop - ember_start + ember_step - 1) / ember_step\n"
            "                            : (ember_start - ember_stop - ember_step - 1) / (-ember_step);\n"
            "    long ember_per = (n + get_num_groups(0) - 1) / get_num_groups(0);\n"
            "    long ember_lo = get_group_id(0) * ember_per, ember_hi = min(ember_lo + ember_per, n);\n"
            "    for (long ember_k = ember_lo + get_local_id(0); ember_k < ember_hi; ember_k += get_local_size(0)) {\n"
            "        long i = ember_start + ember_k * ember_step;\n"
            f"        {operation};\n"
            "    }\n}\n")
        self._kernel = getattr(_snippets.build(context, source, options), name)

    def __call__(self, *args, range=None, slice=None, queue=None, wait_for=None, capture_as=None):  # noqa: A002
        queue = _snippets.queue_of(self.args, args, queue)
        if queue is None:
            raise ValueError("the kernel has no array argument: pass queue=")
        start, stop, step, count = _snippets.index_range(self.args, args, range, slice, "kernel")
        groups = _snippets.group_count(queue, count, _LOCAL, _CPU_GROUPS, 32)
        launch = _snippets.call_arguments(self.args, args) + [np.int64(start), np.int64(stop), np.int64(step)]
        return _snippets.launch(self._kernel, queue, (groups * _LOCAL,), (_LOCAL,), *launch, wait_for=wait_for)
