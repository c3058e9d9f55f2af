"""``pyopencl.characterize``: what a device can do, asked of its driver (extensions, vendor
attributes, the platform's version), for code that picks kernels or sizes by device."""

from __future__ import annotations

import re
import warnings

from ._constants import device_svm_capabilities, device_type

_POCL = "Portable Computing Language"


class CLCharacterizationWarning(UserWarning):
    """A device property could not be read and a guess was used."""


def has_double_support(dev) -> bool:
    """Whether the device computes in double precision (``cl_khr_fp64``)."""
    return "cl_khr_fp64" in dev.extensions.split() or bool(dev.double_fp_config)


def has_amd_double_support(dev) -> bool:
    """Whether the device has AMD's older double-precision extension."""
    return "cl_amd_fp64" in dev.extensions.split()


def nv_compute_capability(dev) -> tuple[int, int] | None:
    """An NVIDIA device's compute capability, None for other devices."""
    if "cl_nv_device_attribute_query" not in dev.extensions.split():
        return None
    return dev.compute_capability_major_nv, dev.compute_capability_minor_nv


def reasonable_work_group_size_multiple(dev, ctx=None) -> int:
    """A work-group size multiple that keeps the device's SIMD lanes busy: the warp (NVIDIA) or
    wavefront (AMD) width, else the device's preferred multiple for kernels."""
    if nv_compute_capability(dev) is not None:
        return dev.warp_size_nv
    if "cl_amd_device_attribute_query" in dev.extensions.split():
        return dev.wavefront_width_amd
    try:
        return dev.preferred_work_group_size_multiple
    except Exception:  # noqa: BLE001  (an OpenCL 1.2 driver: no such parameter)
        return 32 if dev.type & device_type.GPU else 1


def get_simd_group_size(dev, type_size: int) -> int | None:
    """How many work-items run in lockstep (None when unknown)."""
    if nv_compute_capability(dev) is not None:
        return dev.warp_size_nv
    if "cl_amd_device_attribute_query" in dev.extensions.split():
        return dev.wavefront_width_amd
    if dev.type & device_type.CPU:
        # The vector lanes of one work-item loop: the native width for the element size.
        widths = {1: dev.native_vector_width_char, 2: dev.native_vector_width_short,
                  4: dev.native_vector_width_int, 8: dev.native_vector_width_long}
        return widths.get(type_size)
    return None


def usable_local_mem_size(dev, nargs: int | None = None) -> int:
    """Local memory a kernel can use: the device's, less what NVIDIA's older devices keep
    for kernel arguments."""
    size = dev.local_mem_size
    cc = nv_compute_capability(dev)
    if cc is not None and cc < (2, 0):
        size -= 256 if nargs is None else 4 * nargs  # arguments live in local memory there
    return size


def simultaneous_work_items_on_local_access(dev) -> int:
    """Work-items whose local-memory accesses the hardware serves together."""
    cc = nv_compute_capability(dev)
    if cc is not None:
        return 16 if cc < (2, 0) else 32
    return 1 if dev.type & device_type.CPU else 16


def local_memory_access_granularity(dev) -> int:
    """The bytes of one local-memory bank."""
    return 4


def local_memory_bank_count(dev) -> int | None:
    """The banks of local memory (None when unknown)."""
    cc = nv_compute_capability(dev)
    if cc is not None:
        return 16 if cc < (2, 0) else 32
    return None if dev.type & device_type.CPU else 32


def get_fast_inaccurate_build_options(dev) -> list[str]:
    """Build options that trade accuracy for speed on this device."""
    options = ["-cl-mad-enable", "-cl-fast-relaxed-math", "-cl-no-signed-zeros"]
    if dev.platform.name == _POCL:
        return options  # PoCL takes every one of them
    return options + ["-cl-unsafe-math-optimizations", "-cl-finite-math-only"]


def get_pocl_version(platform, fallback_value=None) -> tuple[int, int] | None:
    """PoCL's (major, minor) version, None for other platforms."""
    if platform.name != _POCL:
        return None
    found = re.match(r"^OpenCL [0-9.]+ [Pp]o[Cc][Ll] ([0-9]+)\.([0-9]+)", platform.version)
    if found is None:
        warnings.warn(f"PoCL version number did not have expected format: {platform.version!r}",
                      CLCharacterizationWarning, stacklevel=2)
        return fallback_value
    return int(found[1]), int(found[2])


def has_struct_arg_count_bug(dev, ctx=None):
    """Whether the device counts struct kernel arguments wrongly (PoCL before 0.14, Apple's
    CPU driver): the name of the affected driver, or False."""
    if dev.platform.name == "Apple" and dev.type & device_type.CPU:
        return "apple"
    if dev.platform.name == _POCL and get_pocl_version(dev.platform, fallback_value=(0, 14)) <= (0, 13):
        return "pocl"
    return False


def has_src_build_cache(dev) -> bool:
    """Whether builds from source are cached: always, through ember's own kernel cache."""
    return True


def _svm_capabilities(dev) -> int:
    """The device's ``svm_capabilities`` bits (0 where it predates OpenCL 2.0 or does not say)."""
    try:
        return int(dev.svm_capabilities)
    except Exception:  # an OpenCL 1.x driver refuses the query
        return 0


def has_coarse_grain_buffer_svm(dev) -> bool:
    return bool(_svm_capabilities(dev) & device_svm_capabilities.COARSE_GRAIN_BUFFER)


def has_fine_grain_buffer_svm(dev) -> bool:
    return bool(_svm_capabilities(dev) & device_svm_capabilities.FINE_GRAIN_BUFFER)


def has_fine_grain_system_svm(dev) -> bool:
    return bool(_svm_capabilities(dev) & device_svm_capabilities.FINE_GRAIN_SYSTEM)


def has_fine_grain_buffer_svm_atomics(dev) -> bool:
    return has_fine_grain_buffer_svm(dev) and bool(_svm_capabilities(dev) & device_svm_capabilities.ATOMICS)


def has_fine_grain_system_svm_atomics(dev) -> bool:
    return has_fine_grain_system_svm(dev) and bool(_svm_capabilities(dev) & device_svm_capabilities.ATOMICS)
