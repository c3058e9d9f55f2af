"""Cooperative groups (Numba's ``cuda.cg.this_grid().sync()``): a barrier of the whole grid,
launched so that every block is resident (CUDA's cooperative launch). OpenCL has no such
barrier and says so."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import on_cuda
from ember import cuda
from ember._jit import kernel_source
from ember.errors import JitError


def rotate_rounds(a, rounds):
    """Each round moves every value one block to the right, through global memory: only a
    grid-wide barrier between rounds makes the result exact."""
    i = cuda.grid(1)
    n = a.shape[0]
    grid = cuda.cg.this_grid()
    for _ in range(rounds):
        v = a[(i + n - cuda.blockDim.x) % n]
        grid.sync()
        a[i] = v + 1
        cuda.cg.this_grid().sync()


def test_the_cuda_c_of_a_grid_barrier_compiles():
    from conftest import nvrtc_or_skip

    nvrtc_or_skip()
    src = kernel_source(rotate_rounds, ["int64[::1]", "int32"], "cuda")
    name = src.rsplit('extern "C" __global__ void ', 1)[1].split("(", 1)[0]
    assert src.count("ember_grid_sync()") == 3  # the helper and two barriers
    assert ember._ember.nvrtc_compile(src, name, "sm_90", [])[:4] == b"\x7fELF"


def test_opencl_says_it_has_no_grid_barrier():
    with pytest.raises(JitError, match="cuda.cg.this_grid\\(\\) needs CUDA's cooperative launch: OpenCL has no "
                                       "grid-wide barrier"):
        kernel_source(rotate_rounds, ["int64[::1]", "int32"], "opencl")


@pytest.mark.gpu
def test_a_grid_barrier_orders_every_block_round_after_round():
    if not on_cuda():
        pytest.skip("cooperative launches are CUDA's")
    kernel = cuda.jit(rotate_rounds)
    threads = 128
    blocks = 24
    start = np.random.default_rng(8).integers(-1000, 1000, blocks * threads)
    a = ember.asarray(start)
    kernel[blocks, threads](a, 7)
    np.testing.assert_array_equal(a.get(), np.roll(start, 7 * threads) + 7)
    most = kernel.overloads[kernel.signatures[0]].max_cooperative_grid_blocks(threads)
    assert most >= blocks
    with pytest.raises(ValueError, match=f"holds at most {most} blocks of {threads} threads"):
        kernel[most + 1, threads](ember.zeros((most + 1) * threads, np.int64), 1)
