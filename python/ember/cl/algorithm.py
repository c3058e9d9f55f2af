"""``pyopencl.algorithm``: stream compaction on the scan kernels: ``copy_if``, ``remove_if``,
``partition`` and ``unique``, each one scan of a predicate (an OpenCL C expression of
``ary[i]``, ``i`` and ``extra_args``). Each returns its output arrays (as long as the input;
the first ``count`` items are the answer), ``count`` (a 0-d array) and an event.
"""

from __future__ import annotations

import numpy as np

from .. import _creation, _index_tricks, _indexing, _reductions, _sorting
from .._runtime import Device as _EmberDevice
from . import _snippets
from .array import _default_queue, _done_event, empty, empty_like, zeros
from .elementwise import ElementwiseKernel
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
    queue = queue or ary.queue or _default_queue(ary._a.device)
    index_dtype = _index_dtype(n)
    out = [empty_like(ary, queue=queue) for _ in outputs]
    count = zeros(queue, (), index_dtype)
    if n == 0:
        return out, count, None
    statement = f"{placement}\n        if (i == n - 1) count[0] = last_item;"
    kernel = _scan_kernel(queue.context, ary.dtype, index_dtype, f"({predicate_expr}) ? 1 : 0",
                          statement, extra_args, preamble, outputs)
    values = [np.asarray(v)[()] for _, v in extra_args]
    event = kernel(ary, *out, count, *values, queue=queue, wait_for=wait_for)
    return out, count, event


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


# ---- sorting -------------------------------------------------------------------------------


class RadixSort:
    """``RadixSort(context, arguments, key_expr, sort_arg_names, bits_at_a_time=2,
    index_dtype=np.int32, key_dtype=np.uint32, ...)``: a stable sort of the arrays
    ``sort_arg_names`` by ``key_expr`` (OpenCL C of ``i`` and the arguments), each key's low
    ``key_bits`` bits (all by default). Keys are made by a kernel of the expression; the order
    comes from ember's stable device sort. Call: ``(sorted arrays), event = sort(*args,
    key_bits=None, queue=None)``."""

    def __init__(self, context, arguments, key_expr, sort_arg_names, bits_at_a_time=2, index_dtype=np.int32,
                 key_dtype=np.uint32, scan_kernel=None, options=None):
        self.context = context
        self.args = _snippets.parse_arg_list(arguments)
        names = [a.name for a in self.args]
        missing = [n for n in sort_arg_names if n not in names]
        if missing:
            raise ValueError(f"sort_arg_names {missing} are not among the arguments {names}")
        self.sort_arg_names = list(sort_arg_names)
        self.key_dtype = np.dtype(key_dtype)
        key_arg = _snippets.VectorArg(self.key_dtype, "ember_keys")
        self._keys = ElementwiseKernel(context, [key_arg, *self.args],
                                       f"ember_keys[i] = ({dtype_to_ctype(self.key_dtype)})({key_expr})",
                                       "ember_radix_keys", options=options)

    def __call__(self, *args, key_bits=None, allocator=None, queue=None, wait_for=None):
        n = _snippets.size_of(self.args, args)
        if n is None:
            raise ValueError("the sort has no array argument to size it")
        queue = _snippets.queue_of(self.args, args, queue)
        keys = empty(queue, n, self.key_dtype)
        self._keys(keys, *args, queue=queue, wait_for=wait_for)
        bits = 8 * self.key_dtype.itemsize if key_bits is None else int(key_bits)
        if bits < 8 * self.key_dtype.itemsize:
            keys &= self.key_dtype.type((1 << bits) - 1)
        order = _sorting.argsort(keys, kind="stable")
        by_name = dict(zip((a.name for a in self.args), args, strict=True))
        out = tuple(_index_tricks.take_along_axis(by_name[name], order, 0) for name in self.sort_arg_names)
        return out, _done_event(queue)


class KeyValueSorter:
    """``KeyValueSorter(context)``: ``starts, lists, event = kvs(queue, keys, values, nkeys,
    starts_dtype)``: the values grouped by key (keys in ``[0, nkeys)``), each group in its
    original order; group ``k`` is ``lists[starts[k]:starts[k + 1]]``."""

    def __init__(self, context):
        self.context = context

    def __call__(self, queue, keys, values, nkeys, starts_dtype, allocator=None, wait_for=None):
        if wait_for:
            queue._wait_for(wait_for)
        with _EmberDevice(keys._a.device):
            order = _sorting.argsort(keys, kind="stable")
            lists = values[order]
            bounds = _creation.arange(int(nkeys) + 1, dtype=keys.dtype)
            starts = _sorting.searchsorted(keys[order], bounds, side="left").astype(starts_dtype)
        return starts, lists, _done_event(queue)


# ---- lists of lists ------------------------------------------------------------------------


class OutputList:
    """One list of a ``ListOfListsBuilder``'s result: ``count`` items in ``lists``, the items
    of input ``i`` at ``lists[starts[i]:starts[i + 1]]``. With empty lists eliminated,
    ``starts`` runs over the inputs that appended and ``nonempty_indices`` names them."""

    def __init__(self, count, starts, lists, nonempty_indices=None, num_nonempty_lists=None):
        self.count = count
        self.starts = starts
        self.lists = lists
        self.nonempty_indices = nonempty_indices
        self.num_nonempty_lists = num_nonempty_lists


class ListOfListsBuilder:
    """``ListOfListsBuilder(context, list_names_and_dtypes, generate_template, arg_decls,
    count_sharing=None, devices=None, name_prefix="plb_build_list", options=None, preamble="",
    eliminate_empty_output_lists=())``: runs the user's ``generate(LIST_ARG_DECL USER_ARG_DECL
    index_type i)`` for every ``i`` twice: once counting the ``APPEND_<name>(item)`` calls,
    then (after a scan of the counts) writing the items. ``result, event = builder(queue,
    n_objects, *args)``; ``result[name]`` is an :class:`OutputList`."""

    def __init__(self, context, list_names_and_dtypes, generate_template, arg_decls, count_sharing=None,
                 devices=None, name_prefix="plb_build_list", options=None, preamble="",
                 debug=False, complex_kernel=False, eliminate_empty_output_lists=()):
        self.context = context
        self.lists = [(name, np.dtype(dtype)) for name, dtype in list_names_and_dtypes]
        self.args = _snippets.parse_arg_list(arg_decls)
        self.eliminate = set(eliminate_empty_output_lists)
        user_decl = "".join(f"__global {dtype_to_ctype(a.dtype)} *{a.name}, " if isinstance(a, _snippets.VectorArg)
                            else f"{dtype_to_ctype(a.dtype)} {a.name}, " for a in self.args)
        user_pass = "".join(f"{a.name}, " for a in self.args)
        params = _snippets.parameters(self.args)
        sep = ", " if params else ""

        def kernel(pass_name: str, decl: str, list_params: str, setup: str, finish: str, append: str,
                   call: str) -> str:
            appends = "".join(f"#define APPEND_{n}(item) {append.format(n=n)}\n" for n, _ in self.lists)
            return f"""
#define LIST_ARG_DECL {decl}
#define USER_ARG_DECL {user_decl}
{appends}
{generate_template}
#undef LIST_ARG_DECL
#undef USER_ARG_DECL
{"".join(f"#undef APPEND_{n}{chr(10)}" for n, _ in self.lists)}
__kernel void {name_prefix}_{pass_name}({params}{sep}{list_params}long n)
{{
{_snippets.prologue(self.args)}    for (long ember_i = get_global_id(0); ember_i < n; ember_i += get_global_size(0)) {{
{setup}        generate({call}{user_pass}(index_type)ember_i);
{finish}    }}
}}
"""

        count_decl = "".join(f"long *ember_count_{n}, " for n, _ in self.lists)
        count_params = "".join(f"__global long *counts_{n}, " for n, _ in self.lists)
        count_setup = "".join(f"        long ember_count_{n} = 0;\n" for n, _ in self.lists)
        count_finish = "".join(f"        counts_{n}[ember_i] = ember_count_{n};\n" for n, _ in self.lists)
        write_decl = "".join(f"__global {dtype_to_ctype(d)} *ember_out_{n}, long *ember_pos_{n}, "
                             for n, d in self.lists)
        write_params = "".join(f"__global {dtype_to_ctype(d)} *ember_out_{n}, __global long *starts_{n}, "
                               for n, d in self.lists)
        write_setup = "".join(f"        long ember_pos_{n} = starts_{n}[ember_i];\n" for n, _ in self.lists)
        header = f"typedef long index_type;\n{preamble}\n"
        counting = kernel("count", count_decl, count_params, count_setup, count_finish,
                          "{{ ++*ember_count_{n}; }}", "".join(f"&ember_count_{n}, " for n, _ in self.lists))
        writing = kernel("write", write_decl, write_params, write_setup, "",
                         "{{ ember_out_{n}[(*ember_pos_{n})++] = (item); }}",
                         "".join(f"ember_out_{n}, &ember_pos_{n}, " for n, _ in self.lists))
        # generate() is defined once per pass: each pass is a program of its own.
        self._count = getattr(_snippets.build(context, header + counting, options), f"{name_prefix}_count")
        self._write = getattr(_snippets.build(context, header + writing, options), f"{name_prefix}_write")

    def __call__(self, queue, n_objects, *args, allocator=None, omit_lists=(), wait_for=None):
        n = int(n_objects)
        user = _snippets.call_arguments(self.args, args)
        counts = {name: zeros(queue, n, np.int64) for name, _ in self.lists}
        groups = max(1, min(1024, -(-n // 128)))
        count_args = [_buffer(counts[name]) for name, _ in self.lists]
        if n:
            _snippets.launch(self._count, queue, (groups * 128,), (128,), *user, *count_args, np.int64(n),
                             wait_for=wait_for)
        with _EmberDevice(queue.device.ordinal):  # the lists' arrays on the queue's device
            result = {name: self._placed(queue, n, counts[name], name, dtype) for name, dtype in self.lists}
        write_args = [arg for name, _ in self.lists
                      for arg in (_buffer(result[name].lists), _buffer(result[name]._all))]
        if n:
            _snippets.launch(self._write, queue, (groups * 128,), (128,), *user, *write_args, np.int64(n))
        return result, _done_event(queue)

    def _placed(self, queue, n: int, counts, name: str, dtype) -> OutputList:
        """A list's starts (a scan of its counts) and the array its items go to."""
        starts = _creation.zeros(n + 1, np.int64)
        if n:
            starts[1:] = _reductions.cumsum(counts)
        total = int(starts[n].get()) if n else 0
        items = empty(queue, max(total, 1), dtype)[:total]
        if name in self.eliminate:
            nonempty = _indexing.nonzero(counts)[0]
            kept = _creation.zeros(nonempty.size + 1, np.int64)
            kept[:-1] = starts[nonempty]
            kept[-1] = total
            out = OutputList(total, kept, items, nonempty, int(nonempty.size))
        else:
            out = OutputList(total, starts, items)
        out._all = starts  # every input's start: where the write pass puts its items
        return out


def _buffer(fresh):
    """The buffer of an array this module made (it starts at its buffer's first byte)."""
    buf, offset = _snippets.call_arguments([_snippets.VectorArg(fresh.dtype, "a")], [fresh])
    assert offset == 0, "made here, so at the start of its buffer"
    return buf
