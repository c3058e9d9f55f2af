"""The intrinsic registry (crates/ember-jit/src/intrinsics.rs): every row is a placeholder
of ``ember.cuda`` under its dotted name, refuses host calls, and compiles in a kernel; a
kernel the registry says must not be coarsened (warp-level) is left as written."""

from __future__ import annotations

import functools

import ember
import numpy as np
import pytest
from ember import cuda
from ember._intrinsic import DeviceOnly


@pytest.mark.parametrize("name", ember._ember.jit_intrinsics())
def test_every_row_is_a_placeholder_of_ember_cuda(name):
    obj = functools.reduce(getattr, name.split(".")[1:], cuda)
    assert isinstance(obj, DeviceOnly) and obj.intrinsic == name
    with pytest.raises(TypeError, match="can only be called inside a kernel compiled with @cuda.jit"):
        obj()


def test_numba_names_of_the_device_api_are_rows():
    """Names a Numba kernel uses (numba-cuda's cuda module) are all in the registry."""
    rows = set(ember._ember.jit_intrinsics())
    for n in ["grid", "gridsize", "syncthreads", "syncwarp", "laneid", "warpsize", "threadfence",
              "shared.array", "local.array", "const.array_like", "atomic.add", "atomic.cas",
              "atomic.compare_and_swap", "threadIdx.x", "blockIdx.z", "gridDim.y", "blockDim.x"]:
        assert f"cuda.{n}" in rows, n


@cuda.jit
def lane_ids(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = cuda.laneid


def test_a_warp_level_row_keeps_its_kernel_uncoarsened():
    out = ember.zeros(64, np.int32)
    before = ember._ember.jit_coarsening("x2")
    try:
        lane_ids[1, 64](out)
    finally:
        ember._ember.jit_coarsening(before)
    np.testing.assert_array_equal(out.get(), np.arange(64) % 32)
    assert all("coarsened" not in key for key in lane_ids.inspect_c())
