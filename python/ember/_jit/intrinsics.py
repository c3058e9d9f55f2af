"""What kernels written in Python call: ``cuda.grid``, ``cuda.threadIdx.x``,
``cuda.shared.array``, ``cuda.atomic.add`` and the rest of Numba's device API. Each is a
``DeviceOnly`` placeholder the compiler recognises; called from host code it raises
``TypeError``.
"""

from __future__ import annotations

from .._intrinsic import DeviceOnly


class Namespace:
    """A group of intrinsics (``cuda.threadIdx``, ``cuda.atomic``): attributes only."""

    def __init__(self, name: str, members):
        self._name = name
        for m in members:
            setattr(self, m, DeviceOnly(f"{name}.{m}"))

    def __repr__(self):
        return f"<device-only namespace {self._name}>"


grid = DeviceOnly("cuda.grid")
gridsize = DeviceOnly("cuda.gridsize")
threadIdx = Namespace("cuda.threadIdx", "xyz")
blockIdx = Namespace("cuda.blockIdx", "xyz")
blockDim = Namespace("cuda.blockDim", "xyz")
gridDim = Namespace("cuda.gridDim", "xyz")
laneid = DeviceOnly("cuda.laneid")
warpsize = DeviceOnly("cuda.warpsize")
syncthreads = DeviceOnly("cuda.syncthreads")
syncwarp = DeviceOnly("cuda.syncwarp")
threadfence = DeviceOnly("cuda.threadfence")
threadfence_block = DeviceOnly("cuda.threadfence_block")
threadfence_system = DeviceOnly("cuda.threadfence_system")
shared = Namespace("cuda.shared", ["array"])
local = Namespace("cuda.local", ["array"])
const = Namespace("cuda.const", ["array_like"])
atomic = Namespace(
    "cuda.atomic",
    ["add", "sub", "max", "min", "nanmax", "nanmin", "exch", "and_", "or_", "xor", "cas", "compare_and_swap"],
)

__all__ = [
    "atomic", "blockDim", "blockIdx", "const", "grid", "gridDim", "gridsize", "laneid", "local", "shared",
    "syncthreads", "syncwarp", "threadIdx", "threadfence", "threadfence_block", "threadfence_system", "warpsize",
]
