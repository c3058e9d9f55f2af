"""``ember.cl``: PyOpenCL's API on ember, so ``import pyopencl as cl`` becomes
``from ember import cl`` (``pyopencl.array`` is ``ember.cl.array``, and so on; see
docs/opencl.md).

Platforms and devices are ember's OpenCL devices (every ``device_info`` parameter is read from
the driver); buffers are ember arrays of bytes (they convert to and from ``ember.ndarray``
without copies: ``Buffer.as_array``, ``Buffer.from_array``); programs build through ember's
kernel cache; queues are ember streams. ``ember.cl.array.Array`` is ``ember.ndarray`` itself.

Where ember.cl differs from PyOpenCL:

- Only the devices ember opened are listed. A context's buffers live on its first device.
  Sub-buffers (``buf[a:b]``) work in copies and fills but cannot be kernel arguments.
- Programs build from source (or from binaries a program gave); ``kernel_names`` lists the
  ``__kernel`` functions found in the source (kernels made by macros are reachable by name but
  not listed). ``prg.<name>`` returns the same ``Kernel`` each time. pyopencl's own headers and
  ``PYOPENCL_BUILD_OPTIONS`` are not available. ``from_int_ptr`` rebuilds only objects ember
  made.
- Host transfers complete before ``enqueue_copy`` returns. ``Event.profile`` gives device
  durations (``end - start``) but host-clock start times.
- Errors are PyOpenCL's classes; those raised for a specific failure also derive from the
  fitting builtin or ember class (``ProgramBuildError`` is an ``ember.CompileError``,
  ``KernelArgumentError`` a ``TypeError``), and messages say what to change.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from . import array
from ._constants import (
    addressing_mode,
    build_status,
    channel_order,
    channel_type,
    command_execution_status,
    command_queue_info,
    command_queue_properties,
    context_info,
    context_properties,
    device_info,
    device_svm_capabilities,
    device_type,
    event_info,
    filter_mode,
    image_info,
    kernel_info,
    kernel_work_group_info,
    map_flags,
    mem_flags,
    mem_info,
    mem_migration_flags,
    mem_object_type,
    platform_info,
    profiling_info,
    program_build_info,
    program_info,
    sampler_info,
    status_code,
    svm_mem_flags,
)
from ._copy import enqueue_copy
from ._errors import (
    AllocationError,
    Error,
    InvalidValueError,
    KernelArgumentError,
    KernelNameError,
    LogicError,
    MemoryError,
    ProgramBuildError,
    RuntimeError,
)
from ._image import (
    DTYPE_TO_CHANNEL_TYPE,
    DTYPE_TO_CHANNEL_TYPE_NORM,
    Image,
    ImageDescriptor,
    ImageFormat,
    Sampler,
    create_image,
    enqueue_copy_image,
    enqueue_fill_image,
    enqueue_read_image,
    enqueue_write_image,
    get_supported_image_formats,
    image_from_array,
)
from ._memory import (
    Buffer,
    LocalMemory,
    MemoryMap,
    enqueue_fill,
    enqueue_fill_buffer,
    enqueue_map_buffer,
)
from ._platform import (
    Context,
    Device,
    DeviceTopologyAmd,
    Platform,
    choose_devices,
    create_some_context,
    get_platforms,
    unload_platform_compiler,
)
from ._program import Kernel, Program, enqueue_nd_range_kernel, link_program
from ._queue import (
    CommandQueue,
    CommandQueueUsedAfterExit,
    Event,
    UserEvent,
    enqueue_barrier,
    enqueue_marker,
    wait_for_events,
)
from ._svm import (
    SVM,
    SVMAllocation,
    SVMMap,
    SVMPointer,
    csvm_empty,
    csvm_empty_like,
    enqueue_svm_memfill,
    enqueue_svm_migratemem,
    fsvm_empty,
    fsvm_empty_like,
    svm_empty,
    svm_empty_like,
)

CtxFactory = Callable[[], Context]  # what tests take as ``ctx_factory`` (PyOpenCL's alias)


def get_cl_header_version() -> tuple[int, int]:
    """The OpenCL headers ember is built against (opencl3's: OpenCL 3.0)."""
    return (3, 0)


# PyOpenCL's submodules, imported on first use (``cl.tools``, ``cl.clrandom`` ...).
_SUBMODULES = ("characterize", "clrandom", "cltypes", "tools")


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'ember.cl' has no attribute {name!r}")


__all__ = [
    "AllocationError", "Buffer", "CommandQueue", "CommandQueueUsedAfterExit", "Context", "CtxFactory",
    "Device", "DeviceTopologyAmd", "Error", "Event", "InvalidValueError", "Kernel", "KernelArgumentError",
    "KernelNameError", "LocalMemory", "LogicError", "MemoryError", "MemoryMap", "Platform", "Program",
    "ProgramBuildError", "RuntimeError", "UserEvent", "array", "build_status", "choose_devices",
    "command_execution_status", "command_queue_info", "command_queue_properties", "context_info",
    "context_properties", "create_some_context", "device_info", "device_type", "enqueue_barrier",
    "enqueue_copy", "enqueue_fill", "enqueue_fill_buffer", "enqueue_map_buffer", "enqueue_marker",
    "enqueue_nd_range_kernel", "event_info", "get_cl_header_version", "get_platforms", "kernel_info",
    "kernel_work_group_info", "map_flags", "mem_flags", "mem_info", "platform_info", "profiling_info",
    "program_build_info", "program_info", "status_code", "unload_platform_compiler", "wait_for_events",
    "DTYPE_TO_CHANNEL_TYPE", "DTYPE_TO_CHANNEL_TYPE_NORM", "Image", "ImageDescriptor", "ImageFormat", "Sampler",
    "addressing_mode", "channel_order", "channel_type", "create_image", "enqueue_copy_image", "enqueue_fill_image",
    "enqueue_read_image", "enqueue_write_image", "filter_mode", "get_supported_image_formats", "image_from_array",
    "image_info", "link_program", "mem_object_type", "sampler_info",
    "SVM", "SVMAllocation", "SVMMap", "SVMPointer", "csvm_empty", "csvm_empty_like", "device_svm_capabilities",
    "enqueue_svm_memfill", "enqueue_svm_migratemem", "fsvm_empty", "fsvm_empty_like", "mem_migration_flags",
    "svm_empty", "svm_empty_like", "svm_mem_flags",
]
