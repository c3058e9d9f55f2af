"""Kernel rows of BENCHMARKS.md on a CUDA device: kernels from strings beside CuPy, kernels from
Python (``@cuda.jit``) beside numba-cuda — launch cost, first-use compile cost, bandwidth, the
seed's tiled matmul."""

from __future__ import annotations

import os
import statistics
import sys
import tempfile

import numpy as np

from .common import fail, random_f32, record
from .measure import fresh_process, gbps, sustained_us, tflops
from .report import Row

TINY_C = r"""
extern "C" __global__ void tiny(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""

# Fresh interpreter: device start-up outside the timed span (so NVRTC's own start-up is inside
# it), then three new ElementwiseKernels.
ELEMENTWISE_PROBE = r"""
import json, sys, time
import numpy as np
lib = sys.argv[1]
xp = __import__(lib)
x = xp.asarray(np.ones(1 << 20, dtype=np.float32))
sync = (lambda: xp.cuda.Device().synchronize()) if lib == "cupy" else xp.synchronize
sync()
times = []
for k, op in enumerate(["y = x > 0 ? x : x * a", "y = x * a + 1", "y = x - a * x"]):
    t0 = time.perf_counter()
    kern = xp.ElementwiseKernel("float32 x, float32 a", "float32 y", op, f"probe{k}")
    kern(x, np.float32(0.1))
    sync()
    times.append((time.perf_counter() - t0) * 1e3)
print(json.dumps(times))
"""

JIT_KERNELS = '''
import math
from {lib} import cuda, float32

TPB = 16


@cuda.jit
def vector_add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit
def fast_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = float32(0.)
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


@cuda.jit
def probe0(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] * 2.0 + b[i]


@cuda.jit
def probe1(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = math.sqrt(abs(a[i])) - b[i]


@cuda.jit
def probe2(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = max(a[i], b[i]) * 0.5
'''

# Fresh interpreter: device start-up outside the timed span, then three new kernels (the
# module's import counted with the first).
JIT_PROBE = r"""
import json, sys, time
import numpy as np
lib = sys.argv[1]
sys.path.insert(0, sys.argv[2])
if lib == "ember":
    from ember import cuda
else:
    from numba import cuda
x = cuda.to_device(np.ones(1 << 20, dtype=np.float32))
y = cuda.to_device(np.ones(1 << 20, dtype=np.float32))
z = cuda.device_array(1 << 20, dtype=np.float32)
cuda.synchronize()
t0 = time.perf_counter()
mod = __import__(f"jit_kernels_{lib}")
import_ms = (time.perf_counter() - t0) * 1e3
times = []
for name in ("probe0", "probe1", "probe2"):
    t0 = time.perf_counter()
    getattr(mod, name)[4096, 256](x, y, z)
    cuda.synchronize()
    times.append((time.perf_counter() - t0) * 1e3)
times[0] += import_ms
print(json.dumps(times))
"""


def jit_module_source(lib: str, folder: str) -> None:
    """Writes the seed kernels for ``lib`` ("ember" or "numba") into ``folder``."""
    with open(os.path.join(folder, f"jit_kernels_{lib}.py"), "w") as f:
        f.write(JIT_KERNELS.format(lib=lib))


def jit_module(lib: str, folder: str):
    """Imports the seed kernels written into ``folder`` by :func:`jit_module_source`."""
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return __import__(f"jit_kernels_{lib}")


def first_use(rows: tuple[Row, Row, Row], lib: str, probe: str, *args: str) -> None:
    """Cold-cache first kernel, each further new kernel, warm-disk-cache first kernel (fresh processes)."""
    try:
        with tempfile.TemporaryDirectory() as cache:
            env = {"EMBER_CACHE_DIR": cache, "CUPY_CACHE_DIR": cache, "NUMBA_CACHE_DIR": cache}
            cold = fresh_process(probe, *args, env=env)
            warm = fresh_process(probe, *args, env=env)
        figures = (cold[0], statistics.median(cold[1:]), warm[0])
    except Exception as e:  # a peer whose probe fails gets n/a on the three rows
        for row in rows:
            fail(row, lib, e)
        return
    for row, v in zip(rows, figures, strict=True):
        row.figures[lib] = v


def string_rows(libs: dict, quick: bool, progress) -> list[Row]:
    group = "kernels from strings"
    n = 1 << (22 if quick else 28)
    p = f"2^{int(np.log2(n))}"
    table = {
        "launch": Row(group, "RawKernel launch, 4 arguments, sustained", "µs", False, "<= floor + 0.5 µs"),
        "cold": Row(group, "first ElementwiseKernel, fresh process, cold cache", "ms", False, "<= 250 ms"),
        "further": Row(group, "each further new ElementwiseKernel", "ms", False, "<= 40 ms"),
        "warm": Row(group, "first ElementwiseKernel, warm disk cache", "ms", False, "<= 5 ms"),
        "copy": Row(group, f"device-to-device copy, float32, {p} (the ceiling)", "GB/s", True, compare=False,
                    key="copy"),
        "leaky": Row(group, f"ElementwiseKernel leaky ReLU, float32, {p}", "GB/s", True, ">= 96% of the copy"),
    }
    host = random_f32(n, 9) - np.float32(0.5)
    for name in ("ember", "CuPy"):
        if name in libs:
            progress(f"kernels from strings: {name}")
            _string_library(libs[name], table, host, quick)
    return list(table.values())


def _string_library(lib, table, host, quick: bool) -> None:
    count, reps = (2000, 5) if quick else (20000, 9)
    xp, name, n = lib.xp, lib.name, host.size
    a, b, c = (xp.ones(32, dtype=np.float32) for _ in range(3))
    k = xp.RawKernel(TINY_C, "tiny")
    args = (a, b, c, np.int32(32))
    record(table["launch"], name, lambda: sustained_us("k((1,), (32,), args)", lib.sync, count, reps,
                                                        {"k": k, "args": args}))
    first_use((table["cold"], table["further"], table["warm"]), name, ELEMENTWISE_PROBE, name.lower())
    x = lib.asarray(host)
    y = xp.empty_like(x)
    kern = xp.ElementwiseKernel("float32 x, float32 a", "float32 y", "y = x > 0 ? x : x * a", "leaky_relu")
    copy = (lambda: x._a.copy_into(y._a)) if name == "ember" else (lambda: y.__setitem__(Ellipsis, x))
    record(table["copy"], name, lambda: gbps(8 * n, lib.time_ms(copy, reps * 3)))
    record(table["leaky"], name, lambda: gbps(8 * n, lib.time_ms(lambda: kern(x, np.float32(0.1), y), reps * 3)))
    if not np.array_equal(xp.asnumpy(y), np.where(host > 0, host, host * np.float32(0.1))):
        table["leaky"].figures[name] = "n/a (wrong result)"


def python_rows(libs: dict, quick: bool, progress) -> list[Row]:
    group = "kernels from Python"
    mm = 1024 if quick else 4096
    n = 1 << (22 if quick else 28)
    table = {
        "cold": Row(group, "first @cuda.jit call, fresh process, cold cache", "ms", False, "<= 300 ms"),
        "further": Row(group, "each further new @cuda.jit kernel", "ms", False, "<= 60 ms"),
        "warm": Row(group, "first @cuda.jit call, warm disk cache", "ms", False, "<= 10 ms"),
        "launch": Row(group, "@cuda.jit launch, 3 device arrays, sustained", "µs", False, "<= floor + 1 µs"),
        "matmul": Row(group, f"seed's shared-memory tiled matmul, float32, {mm}", "TFLOP/s", True, ">= 10 TFLOP/s"),
        "vadd": Row(group, f"seed's vector add, float32, 2^{int(np.log2(n))}", "GB/s", True, ">= 96% of the copy"),
    }
    host = {"A": random_f32((mm, mm), 10), "B": random_f32((mm, mm), 11), "a": random_f32(n, 12),
            "b": random_f32(n, 13)}
    folder = tempfile.mkdtemp(prefix="ember-bench-")
    for name, module in (("ember", "ember"), ("numba-cuda", "numba")):
        if name not in libs:
            continue
        progress(f"kernels from Python: {name}")
        jit_module_source(module, folder)
        first_use((table["cold"], table["further"], table["warm"]), name, JIT_PROBE, module, folder)
        try:
            kernels = jit_module(module, folder)
        except Exception as e:  # numba-cuda's imports fail with NumPy versions it does not know
            for key in ("launch", "matmul", "vadd"):
                fail(table[key], name, e)
            continue
        _python_library(libs[name], kernels, table, host, quick)
    return list(table.values())


def _python_library(lib, kernels, table, host, quick: bool) -> None:
    count, reps = (2000, 5) if quick else (20000, 9)
    name = lib.name
    cuda = lib.xp.cuda if name == "ember" else lib.xp  # numba-cuda's Lib is already its cuda module
    x, y, z = (cuda.to_device(np.ones(32, dtype=np.float32)) for _ in range(3))
    add = kernels.vector_add
    # numba-cuda launches about ten times slower: fewer launches keep its row short.
    launches = count if name == "ember" else count // 10
    record(table["launch"], name, lambda: sustained_us("add[1, 32](x, y, z)", cuda.synchronize, launches, reps,
                                                        {"add": add, "x": x, "y": y, "z": z}))
    A, B = host["A"], host["B"]
    mm = A.shape[0]
    dA, dB, dC = cuda.to_device(A), cuda.to_device(B), cuda.device_array((mm, mm), dtype=np.float32)
    grid, block = (mm // 16, mm // 16), (16, 16)
    matmul = kernels.fast_matmul[grid, block]
    record(table["matmul"], name, lambda: tflops(2 * mm**3, lib.time_ms(lambda: matmul(dA, dB, dC), reps)))
    corner = slice(0, 64)
    if not np.allclose(dC.copy_to_host()[corner, corner], A[corner] @ B[:, corner], rtol=1e-3):
        table["matmul"].figures[name] = "n/a (wrong result)"
    a, b = host["a"], host["b"]
    n = a.size
    da, db, dc = cuda.to_device(a), cuda.to_device(b), cuda.device_array(n, dtype=np.float32)
    launch = add[(n + 255) // 256, 256]
    record(table["vadd"], name, lambda: gbps(12 * n, lib.time_ms(lambda: launch(da, db, dc), reps * 3)))
    if not np.array_equal(dc.copy_to_host()[:4096], a[:4096] + b[:4096]):
        table["vadd"].figures[name] = "n/a (wrong result)"
