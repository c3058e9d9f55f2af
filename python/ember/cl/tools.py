"""``pyopencl.tools``: allocators and memory pools (faces over ember's one pool), and the pytest
helpers that run a test once per OpenCL device (``pytest_generate_tests_for_pyopencl``,
``PYOPENCL_TEST``)."""

from __future__ import annotations

import functools
import os
import re

import numpy as np

from ._constants import mem_flags, svm_mem_flags
from ._errors import LogicError
from ._memory import Buffer, copy_buffers
from ._platform import Context, Device, Platform, get_platforms
from ._program import Program
from ._queue import CommandQueue
from ._svm import SVMAllocation, SVMPointer

# ---- allocators -----------------------------------------------------------------------------


class _Allocator:
    """``allocator(nbytes)``: a ``Buffer`` of ``nbytes`` (None for 0) from ember's pool."""

    def __init__(self, context: Context, mem_flags_=mem_flags.READ_WRITE):
        self.context = context
        self.mem_flags = mem_flags_

    def __call__(self, nbytes: int):
        nbytes = int(nbytes)
        if nbytes < 0:
            raise LogicError(f"cannot allocate {nbytes} bytes")
        if nbytes == 0:
            return None
        return Buffer(self.context, self.mem_flags, nbytes)


class DeferredAllocator(_Allocator):
    """``DeferredAllocator(context, mem_flags=READ_WRITE)``: OpenCL allocates a buffer's memory
    at its first use; ember's pool allocates at once, so this is ``ImmediateAllocator``."""


class ImmediateAllocator(_Allocator):
    """``ImmediateAllocator(queue, mem_flags=READ_WRITE)``: allocates when called, so running
    out of memory is raised at the call."""

    def __init__(self, queue: CommandQueue, mem_flags_=mem_flags.READ_WRITE):
        super().__init__(queue.context, mem_flags_)
        self.queue = queue


class PooledBuffer(Buffer):
    """A buffer of a ``MemoryPool``: ``release()`` gives its memory back to the pool."""

    def release(self) -> None:
        pool, self._pool = getattr(self, "_pool", None), None
        if pool is not None and self._native is not None:
            # The memory goes back to the pool in a new handle; this one lets go of it.
            pool._held.append(PooledBuffer._view(self.context, self.flags, self._native, self.hostbuf, self.offset))
            pool.active_blocks -= 1
        super().release()


class MemoryPool:
    """``MemoryPool(allocator, leading_bits_in_bin_id=4)``: hands out buffers in size bins
    (rounded up by less than 1/2**(leading_bits - 1) of the size, as PyOpenCL's pool does) from
    ``allocator``, itself backed by ember's pool. ``allocate(n)`` / ``pool(n)``."""

    def __init__(self, allocator=None, leading_bits_in_bin_id=4):
        if allocator is None:
            raise TypeError("MemoryPool needs an allocator, e.g. MemoryPool(ImmediateAllocator(queue))")
        self.allocator = allocator
        self.leading_bits_in_bin_id = int(leading_bits_in_bin_id)
        self._held: list[PooledBuffer] = []
        self.active_blocks = 0

    def bin_number(self, size: int) -> int:
        """The bin of an allocation of ``size`` bytes: ``(exponent << bits) | mantissa``, the
        mantissa the size's ``bits`` leading bits rounded up."""
        bits = self.leading_bits_in_bin_id
        size = max(int(size), 1)  # a zero-byte request gets the smallest block
        exponent = max(size.bit_length() - bits, 0)
        mantissa = -(-size >> exponent)  # rounded up
        if mantissa >> bits:  # carried into a new leading bit
            mantissa, exponent = mantissa >> 1, exponent + 1
        return (exponent << bits) | mantissa

    def alloc_size(self, bin_nr: int) -> int:
        """The bytes a buffer of bin ``bin_nr`` has."""
        bits = self.leading_bits_in_bin_id
        return (bin_nr & ((1 << bits) - 1)) << (bin_nr >> bits)

    def allocate(self, size: int):
        size = int(size)
        if size == 0:
            return None
        want = self.alloc_size(self.bin_number(size))
        for k, held in enumerate(self._held):
            if held.size == want:
                buf = self._held.pop(k)
                break
        else:
            raw = self.allocator(want)
            buf = PooledBuffer._view(raw.context, raw.flags, raw._native, raw.hostbuf, raw.offset)
        buf._pool = self
        self.active_blocks += 1
        return buf

    __call__ = allocate

    @property
    def held_blocks(self) -> int:
        return len(self._held)

    def free_held(self) -> None:
        """Gives every held buffer back to ember's pool."""
        self._held.clear()

    stop_holding = free_held


class SVMAllocator:
    """``SVMAllocator(context, alignment=0, flags=svm_mem_flags.READ_WRITE, queue=None)``:
    ``allocator(n)`` is a new ``SVMAllocation`` of ``n`` bytes."""

    def __init__(self, context: Context, alignment=0, flags=svm_mem_flags.READ_WRITE, queue=None, *,
                 is_fine_grain=None):
        self.context, self.alignment, self.flags, self.queue = context, int(alignment or 0), int(flags), queue

    def __call__(self, size: int):
        return SVMAllocation(self.context, int(size), self.alignment, self.flags, self.queue)


class PooledSVM(SVMPointer):
    """An allocation of an ``SVMPool``: ``release()`` gives it back to the pool."""

    def __init__(self, pool: SVMPool, allocation: SVMAllocation, size: int):
        self._pool, self._allocation = pool, allocation
        self.svm_ptr, self.size = allocation.svm_ptr, size

    def _ember_buffer(self) -> Buffer:
        """A buffer over the memory that keeps this pooled allocation (not only the memory)
        alive, so the pool gets it back only when no array uses it."""
        return self._allocation._ember_buffer(owner=self)

    def release(self) -> None:
        if self._allocation is not None:
            self._pool._held.append(self._allocation)
            self._pool.active_blocks -= 1
            self._allocation = None

    def __getattr__(self, name):  # the allocation's queue binding, buffer view, context
        allocation = self.__dict__.get("_allocation")
        if allocation is None:
            raise AttributeError(f"'PooledSVM' object has no attribute {name!r} (it was released)")
        return getattr(allocation, name)

    def __del__(self):
        self.release()


class SVMPool(MemoryPool):
    """``SVMPool(allocator)``: ``SVMAllocation``s in size bins, reused after ``release()``."""

    def allocate(self, size: int):
        size = int(size)  # 0 too: an allocation of the smallest bin, as PyOpenCL's
        want = self.alloc_size(self.bin_number(size))
        for k, held in enumerate(self._held):
            if held.size == want:
                allocation = self._held.pop(k)
                break
        else:
            allocation = self.allocator(want)
        self.active_blocks += 1
        return PooledSVM(self, allocation, size)

    __call__ = allocate


# ---- memoizing per context ------------------------------------------------------------------


def first_arg_dependent_memoize(func):
    """Caches ``func(obj, *args)`` per first argument (held weakly where it can be) and the
    rest of the arguments."""
    caches: dict = {}
    refs: dict = {}

    @functools.wraps(func)
    def wrapper(first, *args):
        key = id(first)
        cache = caches.get(key)
        if cache is None or refs.get(key) is not first:
            cache = caches[key] = {}
            refs[key] = first
        if args not in cache:
            cache[args] = func(first, *args)
        return cache[args]

    wrapper.clear_cache = lambda: (caches.clear(), refs.clear())
    return wrapper


context_dependent_memoize = first_arg_dependent_memoize


# ---- the C names of dtypes (for kernels made from snippets) -------------------------------

_C_NAMES = {np.dtype(t): n for t, n in (
    (np.int8, "char"), (np.uint8, "unsigned char"), (np.int16, "short"), (np.uint16, "unsigned short"),
    (np.int32, "int"), (np.uint32, "unsigned int"), (np.int64, "long"), (np.uint64, "unsigned long"),
    (np.float16, "half"), (np.float32, "float"), (np.float64, "double"), (np.bool_, "bool"),
    (np.complex64, "cfloat_t"), (np.complex128, "cdouble_t"), (np.intp, "long"))}
_REGISTERED: dict[str, np.dtype] = {}
# Other names OpenCL C has for the same scalar types.
_C_ALIASES = {"uchar": np.uint8, "ushort": np.uint16, "uint": np.uint32, "ulong": np.uint64, "unsigned": np.uint32,
              "signed char": np.int8, "unsigned long long": np.uint64, "long long": np.int64, "size_t": np.uint64,
              "ptrdiff_t": np.int64, "intptr_t": np.int64, "uintptr_t": np.uint64, "cl_int": np.int32,
              "int8_t": np.int8, "int16_t": np.int16, "int32_t": np.int32, "int64_t": np.int64,
              "uint8_t": np.uint8, "uint16_t": np.uint16, "uint32_t": np.uint32, "uint64_t": np.uint64}


def get_or_register_dtype(c_names, dtype=None) -> np.dtype:
    """The dtype registered under the C name(s) ``c_names``; with ``dtype``, registers it
    under them first (a name already taken by another dtype is refused)."""
    names = [c_names] if isinstance(c_names, str) else list(c_names)
    if dtype is None:
        for name in names:
            if name in _REGISTERED:
                return _REGISTERED[name]
            found = next((d for d, n in _C_NAMES.items() if n == name), None)
            if found is not None:
                return found
            if name in _C_ALIASES:
                return np.dtype(_C_ALIASES[name])
        raise TypeError(f"unknown C type name {names[0]!r}: register it with get_or_register_dtype(name, dtype)")
    dtype = np.dtype(dtype)
    for name in names:
        if _REGISTERED.get(name, dtype) != dtype:
            raise RuntimeError(f"C name {name!r} is already registered for {_REGISTERED[name]}")
        _REGISTERED[name] = dtype
    _C_NAMES.setdefault(dtype, names[0])
    return dtype


def dtype_to_ctype(dtype) -> str:
    """The C name of ``dtype`` in OpenCL C (a registered one for structured dtypes)."""
    dtype = np.dtype(dtype)
    try:
        return _C_NAMES[dtype]
    except KeyError:
        raise ValueError(f"unable to map dtype '{dtype}': register it with get_or_register_dtype") from None


def match_dtype_to_c_struct(device, name: str, dtype, context=None) -> tuple[np.dtype, str]:
    """The structured ``dtype`` laid out as OpenCL C lays out ``typedef struct {...} name`` on
    ``device``, and that declaration: the device is asked (a kernel writes each field's
    ``offsetof`` and the ``sizeof``), so padding matches. Fields of registered struct types
    and sub-arrays (``float j[3][2]``) are declared by their C names."""
    dtype = np.dtype(dtype)
    if dtype.names is None:
        raise ValueError(f"match_dtype_to_c_struct takes a structured dtype, got {dtype}")
    fields = []
    for field in dtype.names:
        ftype = dtype.fields[field][0]
        base, dims = (ftype.subdtype if ftype.subdtype else (ftype, ()))
        fields.append((field, base, dims, f"{dtype_to_ctype(base)} {field}{''.join(f'[{d}]' for d in dims)};"))
    decl = "typedef struct {\n" + "".join(f"    {line}\n" for *_, line in fields) + f"}} {name};\n"
    context = context or Context([device])
    source = (decl + f"__kernel void ember_struct_layout(__global ulong *out) {{\n"
              f"    out[0] = sizeof({name});\n"
              + "".join(f"    out[{k + 1}] = (ulong)(&(({name} *)0)->{f});\n" for k, (f, *_) in enumerate(fields))
              + "}\n")
    kernel = Program(context, source).build().ember_struct_layout
    queue = CommandQueue(context, device)
    out = np.zeros(len(fields) + 1, np.uint64)
    layout = Buffer(context, mem_flags.READ_WRITE, out.nbytes)
    kernel(queue, (1,), None, layout)
    copy_buffers(queue, out, layout)
    matched = np.dtype({"names": list(dtype.names),
                        "formats": [dtype.fields[f][0] for f in dtype.names],
                        "offsets": [int(o) for o in out[1:]], "itemsize": int(out[0])})
    return matched, decl


# ---- argument lists of kernels made from snippets -------------------------------------------

_QUALIFIERS = {"__global", "global", "const", "__const", "restrict", "__restrict", "__restrict__", "volatile",
               "__constant", "constant"}


class Argument:
    def __init__(self, dtype, name: str):
        self.dtype = np.dtype(dtype)
        self.name = name

    def __repr__(self):
        return f"{type(self).__name__}({self.dtype}, {self.name!r})"


class VectorArg(Argument):
    """An array argument (``float *x``): ``x[i]`` in the snippet."""

    def __init__(self, dtype, name: str, with_offset: bool = False):
        super().__init__(dtype, name)


class ScalarArg(Argument):
    """A value argument (``float a``)."""


def parse_c_arg(text: str) -> Argument:
    """One C declaration (``const float *x``, ``unsigned int n``) as an argument."""
    text = text.strip()
    tokens = re.findall(r"[A-Za-z_]\w*|\*", text)
    pointer = "*" in tokens
    words = [t for t in tokens if t != "*" and t not in _QUALIFIERS]
    if len(words) < 2:
        raise ValueError(f"cannot read the argument declaration {text!r}: write it as 'float *x' or 'int n'")
    name, ctype = words[-1], " ".join(words[:-1])
    dtype = get_or_register_dtype(ctype)
    return VectorArg(dtype, name) if pointer else ScalarArg(dtype, name)


def parse_arg_list(arguments) -> list[Argument]:
    """A C argument list (a string, or a list of strings and ``Argument`` objects)."""
    if arguments is None:
        return []
    if isinstance(arguments, str):
        arguments = [a for a in arguments.split(",") if a.strip()]
    return [a if isinstance(a, Argument) else parse_c_arg(a) for a in arguments]


# ---- running tests once per device ---------------------------------------------------------


class _ContextFactory:
    """Makes a new context on one device each call (what tests take as ``ctx_factory``)."""

    def __init__(self, device: Device):
        self.device = device

    def __call__(self) -> Context:
        return Context([self.device])

    def __str__(self):
        return f"<context factory for <pyopencl.Device '{self.device.name.strip()}' on " \
               f"'{self.device.platform.name.strip()}'>>"


def _find(objects: list, spec: str):
    if spec.strip().isdigit():
        return objects[int(spec)]
    for obj in objects:
        if spec.lower() in f"{obj.name} {obj.vendor}".lower():
            return obj
    raise RuntimeError(f"object '{spec}' not found")


def get_test_platforms_and_devices(plat_dev_string: str | None = None) -> list[tuple[Platform, list[Device]]]:
    """The (platform, devices) pairs tests run on: from ``plat_dev_string`` or the environment
    variable ``PYOPENCL_TEST`` (``"0:0,1;intel:i5"``: platforms and devices by index or by part
    of their name), else every platform with all its devices."""
    if plat_dev_string is None:
        plat_dev_string = os.environ.get("PYOPENCL_TEST")
    if not plat_dev_string:
        return [(p, p.get_devices()) for p in get_platforms()]
    result = []
    for entry in plat_dev_string.split(";"):
        parts = entry.split(":")
        if len(parts) > 2:
            raise RuntimeError("invalid syntax of PYOPENCL_TEST")
        platform = _find(get_platforms(), parts[0])
        devices = platform.get_devices()
        if len(parts) == 2:
            devices = [_find(devices, d) for d in parts[1].split(",")]
        result.append((platform, devices))
    return result


def pytest_generate_tests_for_pyopencl(metafunc) -> None:
    """``from ember.cl.tools import pytest_generate_tests_for_pyopencl as pytest_generate_tests``
    runs each test taking ``ctx_factory``, ``device`` or ``platform`` once per device."""
    names = [n for n in ("platform", "device", "ctx_factory", "ctx_getter") if n in metafunc.fixturenames]
    if not names:
        return
    values = []
    for platform, devices in get_test_platforms_and_devices():
        for device in devices:
            row = {"platform": platform, "device": device, "ctx_factory": _ContextFactory(device),
                   "ctx_getter": _ContextFactory(device)}
            values.append(tuple(row[n] for n in names))

    def ids(value):
        return f"<pyopencl.Platform '{value.name}'>" if isinstance(value, Platform) else str(value)

    metafunc.parametrize(names, values, ids=ids)
