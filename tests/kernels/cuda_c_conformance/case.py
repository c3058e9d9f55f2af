"""One conformance case: a kernel, its arguments made from a seeded generator, its launch shape,
and what NumPy says its array arguments hold afterwards."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Case:
    name: str  # the kernel, or its name expression (`"scale<float>"`) for a template
    source: str  # CUDA C: the kernel and whatever only it uses
    args: Callable[[np.random.Generator], list]  # NumPy arrays and NumPy scalars, in the kernel's order
    expect: Callable[..., dict]  # (copies of the arguments) -> {argument index: its value after the launch}
    grid: tuple = (1,)
    block: tuple = (128,)
    shared: int = 0  # bytes of dynamic shared memory
    # 0, 0: bit for bit. CUDA contracts `a * b + c` into one fma by default (NVRTC's --fmad=true),
    # as OpenCL C may (FP_CONTRACT on): a case with such an expression gets a tolerance.
    rtol: float = 0.0
    atol: float = 0.0

    @property
    def kernel(self) -> str:
        return self.name.split("<")[0]


def f32(rng, *shape, low=-1.0, high=1.0):
    return rng.uniform(low, high, shape).astype(np.float32)


def f64(rng, *shape, low=-1.0, high=1.0):
    return rng.uniform(low, high, shape)


def ints(rng, *shape, low=-1000, high=1000, dtype=np.int32):
    return rng.integers(low, high, shape).astype(dtype)


def blocks(n: int, block: int) -> int:
    return (n + block - 1) // block


def block_tree_sums(x: np.ndarray, block: int = 128) -> np.ndarray:
    """Each block's sum as a shared-memory tree reduction pairs its elements (`s[t] += s[t + h]`
    for h = block/2, ..., 1), in `x`'s own dtype: one value per block."""
    s = x.reshape(-1, block).copy()
    h = block // 2
    while h:
        s[:, :h] = s[:, :h] + s[:, h:2 * h]
        h //= 2
    return s[:, 0]
