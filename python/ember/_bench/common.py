"""What every group of rows shares: recording a figure or the reason there is none."""

from __future__ import annotations

import numpy as np


def record(row, lib: str, thunk) -> None:
    """Runs ``thunk`` for ``lib``'s figure on ``row``; a failure becomes "n/a (why)"."""
    try:
        row.figures[lib] = float(thunk())
    except Exception as e:  # a row a library cannot run is reported, not fatal
        fail(row, lib, e)


def fail(row, lib: str, error: Exception) -> None:
    msg = str(error).strip().splitlines()[0] if str(error).strip() else ""
    row.figures[lib] = f"n/a ({type(error).__name__}: {msg[:60]})"


def random_f32(shape, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).random(shape, dtype=np.float32)


def launch_floor_us(count: int, repeat: int) -> float:
    """The raw ``cuLaunchKernel`` floor: ember's native loop over an empty 4-argument kernel."""
    import ember

    from .measure import sustained_us

    k = ember.RawKernel('extern "C" __global__ void floor_k(float* a, float* b, float* c, int n) {}', "floor_k")
    x = ember.ones(32, dtype=np.float32)
    args = (x, x, x, np.int32(32))
    native = k.kernel
    return sustained_us(lambda: native.launch_repeated((1,), (32,), args, count), ember.synchronize, 1,
                        repeat) / count
