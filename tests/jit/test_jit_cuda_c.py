"""The kernels of the ``@cuda.jit`` language tests (``jit_kernels``) as CUDA C: each compiles
through NVRTC, plain and checked (skipped where NVRTC is not installed)."""

from __future__ import annotations

import ember
from ember._jit import kernel_source
from jit_kernels import (
    BUILTINS,
    COMPLEX,
    CONTROL_FLOW,
    FLOAT_OPS,
    INT_OPS,
    LOGIC,
    MATH_FLOATS,
    MIRRORED,
    SLICES,
    TRANSPOSES,
    TUPLES,
    UNARY_OPS,
    augmented_kernel,
    block_sums,
    device_calls,
    float_atomics,
    half_arithmetic,
    int_atomics,
    reverse_blocks,
    scalar_args,
    shared_atomics,
    thread_ids,
    warp_exchange,
    window_sort,
)


def test_generated_cuda_c_compiles_through_nvrtc():
    from conftest import nvrtc_or_skip

    nvrtc_or_skip()
    kernels = [
        (INT_OPS, ["int32[::1]", "int32[::1]", "int64[:, ::1]"]),
        (INT_OPS, ["uint32[::1]", "uint64[::1]", "uint64[:, ::1]"]),
        (UNARY_OPS, ["uint8[::1]", "uint32[::1]", "uint64[:, ::1]"]),
        (FLOAT_OPS, ["float32[::1]", "float32[::1]", "float32[:, ::1]"]),
        (LOGIC, ["int64[::1]", "float64[::1]", "bool[:, ::1]"]),
        (CONTROL_FLOW, ["int64[::1]", "int64[::1]", "int64[:, ::1]"]),
        (TUPLES, ["int64[::1]", "int64[::1]", "int64[:, ::1]"]),
        (MIRRORED, ["float64[:, :]", "float64[:, :]"]),
        (SLICES, ["int64[:, :]", "int64[:, ::1]"]),
        (TRANSPOSES, ["int64[:, :]", "int64[:, ::1]"]),
        (MATH_FLOATS, ["float32[::1]"] * 3 + ["float32[:, ::1]"]),
        (MATH_FLOATS, ["float64[::1]"] * 3 + ["float64[:, ::1]"]),
        (BUILTINS, ["float64[::1]", "int8[::1]", "float64[:, ::1]", "int64[:, ::1]"]),
        (COMPLEX, ["complex128[::1]", "complex128[::1]", "complex128[:, ::1]", "float64[:, ::1]"]),
        (device_calls, ["float64[::1]", "float64[::1]", "float64[:, ::1]"]),
        (thread_ids, ["int32[:, ::1]", "int64[:, ::1]"]),
        (block_sums, ["float32[::1]", "float32[::1]", "int32[:, ::1]"]),
        (reverse_blocks, ["float64[::1]", "float64[::1]", "int64[::1]"]),
        (window_sort, ["int64[::1]", "float64[:, ::1]"]),
        (augmented_kernel, ["int64[::1]", "float64[:, ::1]"]),
        (warp_exchange, ["int64[::1]", "int64[::1]"]),
        (float_atomics, ["float32[::1]"] * 3 + ["float32[:, ::1]", "float32[::1]"]),
        (float_atomics, ["float64[::1]"] * 3 + ["float64[:, ::1]", "float64[::1]"]),
        (shared_atomics, ["int64[::1]", "int32[::1]", "float64[::1]", "uint64[::1]", "int64[::1]"]),
        (scalar_args, ["float64[::1]", "int64", "float64", "bool", "int8", "uint16", "float32", "uint64",
                       "complex128"]),
        (half_arithmetic, ["float16[::1]"] * 3),
    ]
    for t in ("int32", "uint32", "int64", "uint64"):
        kernels.append((int_atomics, [f"{t}[::1]", f"{t}[::1]", f"{t}[::1]", f"{t}[:, ::1]", f"{t}[::1]",
                                      f"{t}[:, ::1]"]))
    for kernel, types in kernels:
        for checked in (False, True):
            src = kernel_source(kernel, types, "cuda", checked=checked)
            name = src.rsplit('extern "C" __global__ void ', 1)[1].split("(", 1)[0]
            elf = ember._ember.nvrtc_compile(src, name, "sm_90", [])
            assert elf[:4] == b"\x7fELF", (kernel.__name__, types, checked)
