"""The CPU rows of BENCHMARKS.md (no GPU): ember on the OpenCL CPU device (PoCL) beside NumPy,
PyOpenCL on the same device, and Numba's CUDA simulator."""

from __future__ import annotations

import os
import sys
import tempfile

import numpy as np

from .common import random_f32, record
from .kernels import jit_module, jit_module_source
from .measure import fresh_process, gbps, sustained_us, wall_ms
from .report import Row

SIMULATOR = r"""
import json, sys, time
import numpy as np
from numba import cuda

@cuda.jit
def vector_add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]

n = int(sys.argv[1])
a = np.random.default_rng(0).random(n, dtype=np.float32)
b = np.random.default_rng(1).random(n, dtype=np.float32)
c = np.zeros(n, dtype=np.float32)
t0 = time.perf_counter()
vector_add[(n + 255) // 256, 256](a, b, c)
seconds = time.perf_counter() - t0
assert np.array_equal(c, a + b)
print(json.dumps([seconds * 1e3]))
"""

SCALE_CL = "__kernel void scale(__global float* x, const float a) { x[get_global_id(0)] *= a; }"


def rows(libs: dict, quick: bool, progress) -> list[Row]:
    log2 = 20 if quick else 24
    n = 1 << log2
    add = Row("CPU (no GPU)", f"a + b, float32, 2^{log2}", "GB/s", True, ">= PyOpenCL on PoCL")
    launch = Row("CPU (no GPU)", "small kernel launch, sustained", "µs", False, "<= 15 µs")
    sim_n = 10_000 if quick else 100_000
    vadd = Row("CPU (no GPU)", f"seed's @cuda.jit vector add, {sim_n:,} elements", "ms", False,
               ">= 10,000x faster than Numba's simulator")
    a_h, b_h = random_f32(n, 0), random_f32(n, 1)
    repeat = 5 if quick else 20
    for name in ("ember", "PyOpenCL", "NumPy"):
        if name in libs:
            progress(f"CPU: {name}")
            _library(libs[name], add, launch, a_h, b_h, repeat, quick)
    progress("CPU: ember @cuda.jit vector add")
    record(vadd, "ember", lambda: _jit_vector_add_ms(sim_n, repeat))
    progress("CPU: Numba's CUDA simulator")
    python = os.environ.get("NUMBA_PYTHON", sys.executable)
    env = {"NUMBA_ENABLE_CUDASIM": "1"}
    record(vadd, "Numba simulator", lambda: _simulated_ms(python, sim_n, env))
    return [add, launch, vadd]


def _library(lib, add: Row, launch: Row, a_h, b_h, repeat: int, quick: bool) -> None:
    a, b = lib.asarray(a_h), lib.asarray(b_h)
    record(add, lib.name, lambda: gbps(12 * a_h.size, wall_ms(lambda: a + b, lib.sync, repeat)))
    if lib.name != "NumPy":
        record(launch, lib.name, lambda: _launch_us(lib, quick))


def _launch_us(lib, quick: bool) -> float:
    """The same OpenCL C kernel launched through ember's PyOpenCL API and through PyOpenCL."""
    count, reps = (200, 3) if quick else (2000, 7)
    if lib.name == "ember":
        from ember import cl

        ctx = cl.create_some_context()
        queue = cl.CommandQueue(ctx)
        buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=random_f32(64, 2))
    else:
        cl, ctx, queue = lib.xp, lib.extra["ctx"], lib.extra["queue"]
        buf = lib.asarray(random_f32(64, 2)).data
    k = cl.Program(ctx, SCALE_CL).build().scale
    return sustained_us(lambda: k(queue, (64,), None, buf, np.float32(1.0)), queue.finish, count, reps)


def _jit_vector_add_ms(n: int, repeat: int) -> float:
    from ember import cuda

    folder = tempfile.mkdtemp(prefix="ember-bench-")
    jit_module_source("ember", folder)
    vector_add = jit_module("ember", folder).vector_add
    a, b = random_f32(n, 0), random_f32(n, 1)
    da, db, dc = cuda.to_device(a), cuda.to_device(b), cuda.device_array(n, dtype=np.float32)
    ms = wall_ms(lambda: vector_add[(n + 255) // 256, 256](da, db, dc), cuda.synchronize, repeat)
    assert np.array_equal(dc.copy_to_host(), a + b), "ember's vector add is wrong"
    return ms


def _simulated_ms(python: str, n: int, env: dict) -> float:
    try:
        return fresh_process(SIMULATOR, str(n), env=env, timeout=900, python=python)[0]
    except FileNotFoundError as e:
        raise RuntimeError(f"NUMBA_PYTHON={python} does not run") from e
