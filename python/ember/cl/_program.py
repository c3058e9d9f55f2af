"""Programs (OpenCL C source built through ember's kernel cache) and their kernels.

Kernels are launched PyOpenCL's way, ``knl(queue, global_size, local_size, *args)``: buffers,
ember arrays, NumPy scalars (``numpy.int32(n)``), ``LocalMemory`` and ``None`` are arguments;
Python numbers need ``set_scalar_arg_dtypes`` first, as in PyOpenCL.
"""

from __future__ import annotations

import operator
import re
import shlex
import warnings

import numpy as np

from .. import _ember
from .._memory import MemoryPointer
from ..errors import CompileError, DriverError
from . import _handles
from ._capture import capture_kernel_call
from ._constants import (
    build_status,
    kernel_info,
    kernel_work_group_info,
    program_build_info,
    program_info,
    status_code,
)
from ._errors import (
    InvalidValueError,
    KernelArgumentError,
    KernelNameError,
    LogicError,
    ProgramBuildError,
    from_driver,
    invalid,
    message,
)
from ._memory import Buffer, buffer_of_pointer
from ._platform import Context
from ._queue import CommandQueue, Event

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_KERNEL_NAMES = re.compile(r"(?:\b__kernel|\bkernel)\b[^;{]*?\bvoid\s+(\w+)\s*\(")


class Program:
    """``Program(context, src)``: OpenCL C source; ``build(options)`` compiles it for the
    context's devices and returns the program, whose kernels are its attributes
    (``prg.vector_add``). ``Program(context, devices, binaries)`` loads the binaries another
    program gave (``prg.binaries``, ``get_info(program_info.BINARIES)``) on those devices."""

    def __init__(self, context: Context, src, *more):
        if not isinstance(context, Context):
            raise TypeError(f"context must be an ember.cl.Context, got {type(context).__name__}")
        self._binaries = None
        if more:
            if len(more) != 1 or isinstance(src, str):
                raise TypeError("ember.cl.Program takes (context, source) or (context, devices, binaries); "
                                "programs from IL are not supported")
            devices, binaries = list(src), list(more[0])
            if len(devices) != len(binaries):
                raise invalid("clCreateProgramWithBinary", status_code.INVALID_VALUE,
                              f"{len(devices)} devices and {len(binaries)} binaries: give one binary a device")
            self._binaries = dict(zip(devices, (bytes(b) for b in binaries), strict=True))
            src = ""
        elif not isinstance(src, str):
            raise TypeError("ember.cl.Program takes (context, source: str) or (context, devices, binaries)")
        self.context = context
        self.source = src
        self.options: list[str] = []
        self._modules: dict | None = None
        self._kernels: dict[str, Kernel] = {}
        self._objects: dict = {}  # compiled, not linked (compile())

    def build(self, options=None, devices=None, cache_dir=None) -> Program:
        """Compiles the program (through ember's kernel cache) for ``devices`` (default: the
        context's). ``options`` is a list or a string of compiler options. A failure raises
        ``ProgramBuildError`` (a ``cl.RuntimeError`` and an ``ember.CompileError``) with the
        build log and the source around the first error."""
        opts = _options(options)
        modules = {}
        for device in (list(self._binaries) if self._binaries else None) or devices or self.context.devices:
            try:
                if self._binaries:
                    modules[device.ordinal] = _ember.load_module(device.ordinal, self._binaries[device])
                    continue
                modules[device.ordinal] = _ember.build_module(device.ordinal, self.source, "cl.Program", opts)
            except CompileError as e:
                text = message("clBuildProgram", status_code.BUILD_PROGRAM_FAILURE)
                text += f"\n\nBuild on {device!r}:\n\n{e.log.rstrip()}\n(options: {' '.join(opts)})"
                raise ProgramBuildError(text, log=e.log, source=self.source, options=opts) from None
            except DriverError as e:
                raise from_driver(e) from None
        self._modules, self.options = modules, opts
        self._kernels.clear()
        return self

    def compile(self, options=None, devices=None, headers=None) -> Program:
        """Compiles the program without linking (OpenCL's ``clCompileProgram``), for
        ``link_program``. ``headers`` are ``(include name, Program)`` pairs that
        ``#include "name"`` finds. A failure raises ``ProgramBuildError`` with the log."""
        opts = _options(options)
        pairs = []
        for name, header in headers or ():
            if not isinstance(header, Program):
                raise TypeError(f"headers are (name, Program) pairs; {name!r} came with {type(header).__name__}")
            pairs.append((str(name), header.source))
        objects = {}
        for device in devices or self.context.devices:
            try:
                objects[device.ordinal] = _ember.ClObject(device.ordinal, self.source, opts, pairs)
            except CompileError as e:
                text = message("clCompileProgram", status_code.COMPILE_PROGRAM_FAILURE)
                text += f"\n\nCompile on {device!r}:\n\n{e.log.rstrip()}\n(options: {' '.join(opts)})"
                raise ProgramBuildError(text, log=e.log, source=self.source, options=opts) from None
            except (DriverError, ValueError) as e:
                raise _compile_error("clCompileProgram", e) from None
        self._objects, self.options = objects, opts
        return self

    def _require_built(self) -> dict:
        if self._modules is None:
            raise invalid("clCreateKernel", status_code.INVALID_PROGRAM_EXECUTABLE,
                          "the program is not built yet: call prg.build() first", cls=LogicError)
        return self._modules

    def _candidate_names(self) -> list[str]:
        return list(dict.fromkeys(_KERNEL_NAMES.findall(_COMMENTS.sub(" ", self.source))))

    @property
    def int_ptr(self) -> int:
        """The ``cl_program`` handle on the first device it was built for."""
        return _handles.seen(self, next(iter(self._require_built().values())).handle)

    from_int_ptr = classmethod(_handles.from_int_ptr)

    def all_kernels(self) -> list[Kernel]:
        """Every kernel of the program (found by their ``__kernel`` declarations)."""
        self._require_built()
        kernels = []
        for name in self._candidate_names():
            try:
                kernels.append(Kernel(self, name))
            except KernelNameError:
                continue  # a match inside a string or a disabled #if block
        return kernels

    @property
    def kernel_names(self) -> str:
        return ";".join(k.function_name for k in self.all_kernels())

    @property
    def num_kernels(self) -> int:
        return len(self.all_kernels())

    @property
    def devices(self) -> list:
        return [d for d in self.context.devices if d.ordinal in self._require_built()]

    def get_info(self, param):
        values = {program_info.CONTEXT: lambda: self.context, program_info.SOURCE: lambda: self.source,
                  program_info.DEVICES: lambda: self.devices, program_info.NUM_DEVICES: lambda: len(self.devices),
                  program_info.KERNEL_NAMES: lambda: self.kernel_names,
                  program_info.NUM_KERNELS: lambda: self.num_kernels,
                  program_info.BINARIES: lambda: self.binaries,
                  program_info.BINARY_SIZES: lambda: [len(b) for b in self.binaries]}
        if param not in values:
            raise invalid("clGetProgramInfo", status_code.INVALID_VALUE, f"info parameter {param!r} is not available")
        return values[param]()

    def get_build_info(self, device, param):
        """The build's ``program_build_info`` on ``device``: its status, options and log
        (ember's builds that return succeeded; a failed one raised with its log)."""
        values = {program_build_info.STATUS: lambda: build_status.SUCCESS if self._modules else build_status.NONE,
                  program_build_info.OPTIONS: lambda: " ".join(self.options),
                  program_build_info.LOG: lambda: ""}
        if param not in values:
            raise invalid("clGetProgramBuildInfo", status_code.INVALID_VALUE,
                          f"info parameter {param!r} is not available")
        return values[param]()

    @property
    def binaries(self) -> list[bytes]:
        """The driver's binary for each of the program's devices (``Program(context, devices,
        binaries)`` loads them)."""
        modules = self._require_built()
        return [modules[d.ordinal].binary() for d in self.devices]

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        kernel = self._kernels.get(name)
        if kernel is None:
            if self._modules is None:
                warnings.warn("Pre-build attribute access defeats compiler caching.", UserWarning, stacklevel=2)
                self.build()
            try:
                kernel = self._kernels[name] = Kernel(self, name)
            except KernelNameError:
                raise AttributeError(f"'{name}' was not found as a program info attribute or as a kernel name") \
                    from None
        return kernel

    def __repr__(self):
        state = "built" if self._modules is not None else "not built"
        return f"<ember.cl.Program ({state}) with {len(self.source.splitlines())} lines>"


def _options(options) -> list[str]:
    """Compiler options given as a string or a list, as a list."""
    if options is None:
        return []
    if isinstance(options, str):
        return shlex.split(options)
    return [str(o) for o in options]


def _compile_error(routine: str, error):
    if isinstance(error, DriverError):
        return from_driver(error)
    return invalid(routine, status_code.INVALID_VALUE, str(error), cls=LogicError)


def link_program(context: Context, programs, options=None, devices=None) -> Program:
    """Links programs made with ``Program.compile`` into one built program (OpenCL's
    ``clLinkProgram``): a kernel may call a function another program defines."""
    programs = list(programs)
    if not programs:
        raise invalid("clLinkProgram", status_code.INVALID_VALUE, "link_program needs at least one program")
    opts = _options(options)
    modules = {}
    for device in devices or context.devices:
        objects = []
        for prg in programs:
            obj = prg._objects.get(device.ordinal)
            if obj is None:
                raise invalid("clLinkProgram", status_code.INVALID_OPERATION,
                              f"a program to link was not compiled for {device!r}: call prg.compile() first",
                              cls=LogicError)
            objects.append(obj)
        source = "\n".join(prg.source for prg in programs)
        try:
            modules[device.ordinal] = _ember.cl_link(device.ordinal, objects, opts, source)
        except CompileError as e:
            text = message("clLinkProgram", status_code.LINK_PROGRAM_FAILURE, e.log.rstrip())
            raise ProgramBuildError(text, log=e.log, source=source, options=opts) from None
        except (DriverError, ValueError) as e:
            raise _compile_error("clLinkProgram", e) from None
    linked = Program(context, "\n".join(prg.source for prg in programs))
    linked._modules, linked.options = modules, opts
    return linked


class Kernel:
    """``Kernel(program, name)``, also ``program.<name>``; call it as
    ``knl(queue, global_size, local_size, *args, global_offset=None, wait_for=None)``, which
    returns an ``Event``."""

    def __init__(self, program: Program, name: str):
        modules = program._require_built()
        natives = {}
        for ordinal, module in modules.items():
            try:
                natives[ordinal] = module.function(name, front="opencl")
            except ValueError as e:
                raise invalid("clCreateKernel", status_code.INVALID_KERNEL_NAME, str(e), cls=KernelNameError) from None
            except DriverError as e:
                raise from_driver(e) from None
        self.program = program
        self.context = program.context
        self.function_name = name
        self._natives = natives
        self.num_args = next(iter(natives.values())).param_count
        self._scalar_types: list[tuple[int, type]] = []
        self._args: list | None = None

    # --- arguments ------------------------------------------------------------------------------
    def set_scalar_arg_dtypes(self, dtypes) -> None:
        """Declares the C types of scalar arguments (None for buffers and other arguments), so
        Python numbers are accepted and converted."""
        dtypes = list(dtypes)
        if len(dtypes) != self.num_args:
            raise TypeError(f"length of argument list ({len(dtypes)}) and CL-generated number of arguments "
                            f"({self.num_args}) do not agree")
        self._scalar_types = [(i, np.dtype(d).type) for i, d in enumerate(dtypes) if d is not None]

    set_arg_types = set_scalar_arg_dtypes

    def set_arg(self, index: int, value) -> None:
        """Sets one argument for ``enqueue_nd_range_kernel`` (arguments stay set)."""
        if not 0 <= index < self.num_args:
            raise invalid("clSetKernelArg", status_code.INVALID_ARG_INDEX,
                          f"kernel {self.function_name} has {self.num_args} arguments, no argument {index}")
        if not isinstance(self._args, list):
            self._args = [_UNSET] * self.num_args if self._args is None else list(self._args)
        self._args[index] = value

    def set_args(self, *args) -> None:
        """Sets every argument for ``enqueue_nd_range_kernel``."""
        self._check_count(args)
        self._args = list(args)

    def _check_count(self, args) -> None:
        if len(args) != self.num_args:
            raise TypeError(f"kernel {self.function_name} takes {self.num_args} argument(s), but {len(args)} were "
                            f"given; call it as knl(queue, global_size, local_size, *args)")

    def _convert(self, args) -> list:
        out = [a._array if isinstance(a, Buffer) else buffer_of_pointer(a)._array if isinstance(a, MemoryPointer)
               else a for a in args]
        for i, t in self._scalar_types:
            value = out[i]
            try:
                out[i] = t(operator.index(value)) if issubclass(t, np.integer) else t(value)
            except (TypeError, ValueError, OverflowError) as e:
                raise KernelArgumentError(
                    message("Kernel.set_arg", status_code.INVALID_VALUE,
                            f"argument {i} of kernel {self.function_name}: cannot convert {value!r} to "
                            f"{np.dtype(t)} as set_scalar_arg_dtypes declared ({e})"),
                    routine="Kernel.set_arg", code=status_code.INVALID_VALUE) from None
        return out

    # --- launching ------------------------------------------------------------------------------
    def __call__(self, queue, global_size, local_size, *args, global_offset=None, g_times_l=False,
                 allow_empty_ndrange=False, wait_for=None) -> Event:
        if len(args) != self.num_args:
            self._check_count(args)
        self._args = args
        return self._enqueue(queue, global_size, local_size, args, global_offset, wait_for, g_times_l,
                             allow_empty_ndrange)

    def _enqueue(self, queue, global_size, local_size, args, global_offset, wait_for, g_times_l,
                 allow_empty_ndrange) -> Event:
        if not isinstance(queue, CommandQueue):
            raise TypeError(f"the first argument must be an ember.cl.CommandQueue, got {type(queue).__name__}")
        native = self._natives.get(queue.device.ordinal)
        if native is None:
            raise invalid("clEnqueueNDRangeKernel", status_code.INVALID_PROGRAM_EXECUTABLE,
                          f"the program was not built for {queue.device!r}", cls=LogicError)
        gs, ls, offset = _sizes(global_size, local_size, global_offset, g_times_l)
        if wait_for:
            queue._wait_for(wait_for)
        if 0 in gs:
            if allow_empty_ndrange:
                return queue._event(None, done=True)
            raise invalid("clEnqueueNDRangeKernel", status_code.INVALID_GLOBAL_WORK_SIZE,
                          f"global size {tuple(gs)} is empty; pass allow_empty_ndrange=True to allow it")
        launch_args = self._convert(args)
        start = queue._start()
        try:
            native.launch_ndrange(gs, ls, launch_args, queue._handle, offset)
        except TypeError as e:
            raise self._argument_error(e, args) from None
        except ValueError as e:
            text = str(e)
            code = status_code.INVALID_VALUE if "argument" in text else status_code.INVALID_WORK_GROUP_SIZE
            if any(isinstance(a, Buffer) and a.offset for a in args):
                text += " (a sub-buffer such as buf[a:b] cannot be a kernel argument in ember.cl: pass the whole " \
                        "buffer and the offset as an integer argument)"
            raise invalid("clEnqueueNDRangeKernel", code, text) from None
        except DriverError as e:
            raise from_driver(e) from None
        return queue._event(start)

    def _argument_error(self, error: TypeError, args) -> KernelArgumentError:
        text = str(error)
        if "is a Python" in text:
            text += ", or declare the scalar types once with knl.set_scalar_arg_dtypes([...])"
        if any(type(a).__module__ == "ember.cl.array" for a in args):
            text += " (perhaps you meant to pass 'array.data' instead of the array itself?)"
        return KernelArgumentError(message("Kernel.set_arg", status_code.INVALID_VALUE, text),
                                   routine="Kernel.set_arg", code=status_code.INVALID_VALUE)

    def capture_call(self, output_file, queue, global_size, local_size, *args, **kwargs) -> None:
        """Writes a Python script that repeats this launch (see ``_capture``) instead of
        launching."""
        capture_kernel_call(self, output_file, queue, global_size, local_size, *args, **kwargs)

    # --- information ----------------------------------------------------------------------------
    def get_work_group_info(self, param, device):
        """Work-group facts of the kernel on ``device``: ``WORK_GROUP_SIZE`` (the largest
        work-group), ``LOCAL_MEM_SIZE`` and ``PRIVATE_MEM_SIZE`` (bytes)."""
        names = {kernel_work_group_info.WORK_GROUP_SIZE: "max_threads_per_block",
                 kernel_work_group_info.LOCAL_MEM_SIZE: "shared_size_bytes",
                 kernel_work_group_info.PRIVATE_MEM_SIZE: "local_size_bytes"}
        if param not in names:
            raise invalid("clGetKernelWorkGroupInfo", status_code.INVALID_VALUE,
                          f"info parameter {param!r} is not available")
        native = self._natives.get(device.ordinal)
        if native is None:
            raise invalid("clGetKernelWorkGroupInfo", status_code.INVALID_DEVICE,
                          f"the program was not built for {device!r}", cls=LogicError)
        return native.attribute(names[param])

    def get_info(self, param):
        values = {kernel_info.FUNCTION_NAME: self.function_name, kernel_info.NUM_ARGS: self.num_args,
                  kernel_info.CONTEXT: self.context, kernel_info.PROGRAM: self.program}
        if param not in values:
            raise invalid("clGetKernelInfo", status_code.INVALID_VALUE, f"info parameter {param!r} is not available")
        return values[param]

    @property
    def int_ptr(self) -> int:
        """The ``cl_kernel`` handle on the first device of the program."""
        return _handles.seen(self, next(iter(self._natives.values())).handle)

    from_int_ptr = classmethod(_handles.from_int_ptr)

    def clone(self) -> Kernel:
        k = Kernel(self.program, self.function_name)
        k._scalar_types = list(self._scalar_types)
        return k

    def __repr__(self):
        return f"<ember.cl.Kernel {self.function_name} with {self.num_args} arguments>"


_UNSET = object()


def _dims(value, what: str) -> list[int]:
    try:
        dims = list(map(operator.index, value))
    except TypeError:
        raise TypeError(f"{what} must be a tuple of 1 to 3 ints such as (n,) or (nx, ny), got {value!r}") from None
    if not 1 <= len(dims) <= 3:
        raise invalid("clEnqueueNDRangeKernel", status_code.INVALID_WORK_DIMENSION,
                      f"{what} must have 1 to 3 dimensions, got {tuple(dims)}")
    return dims


def _sizes(global_size, local_size, global_offset, g_times_l):
    gs = _dims(global_size, "global_size")
    ls = None if local_size is None else _dims(local_size, "local_size")
    offset = None if global_offset is None else _dims(global_offset, "global_offset")
    for other, what in ((ls, "local"), (offset, "offset")):
        if other is not None and len(other) != len(gs):
            raise InvalidValueError(
                message("enqueue_nd_range_kernel", status_code.INVALID_VALUE,
                        f"global/{what} work sizes have differing dimensions ({tuple(gs)} and {tuple(other)})"),
                routine="enqueue_nd_range_kernel", code=status_code.INVALID_VALUE)
    if g_times_l and ls is not None:
        gs = [g * n for g, n in zip(gs, ls, strict=True)]
        if offset is not None:
            offset = [o * n for o, n in zip(offset, ls, strict=True)]
    return gs, ls, offset


def enqueue_nd_range_kernel(queue, kernel: Kernel, global_work_size, local_work_size, global_offset=None,
                            wait_for=None, *, g_times_l=False, allow_empty_ndrange=False) -> Event:
    """Launches ``kernel`` with the arguments set by ``set_arg``/``set_args`` (or its last call)."""
    args = kernel._args
    missing = [i for i, a in enumerate(args or [_UNSET] * kernel.num_args) if a is _UNSET]
    if missing:
        raise invalid("clEnqueueNDRangeKernel", status_code.INVALID_KERNEL_ARGS,
                      f"arguments {missing} of kernel {kernel.function_name} were never set", cls=LogicError)
    return kernel._enqueue(queue, global_work_size, local_work_size, args, global_offset, wait_for, g_times_l,
                           allow_empty_ndrange)
