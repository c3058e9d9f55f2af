"""Kernels from Python (``@cuda.jit``), ember beside numba-cuda in one run (BENCHMARKS.md rows):

1. first call of a new kernel in a fresh process with a cold cache, each further new kernel, and
   the first call with a warm disk cache (fresh processes);
2. sustained time per launch with 3 device-array arguments, beside the raw ``cuLaunchKernel``
   floor measured in this process;
3. the seed's shared-memory tiled matmul on 4096² float32 (TFLOP/s);
4. the seed's vector add on 2^28 float32 beside a device-to-device copy (GB/s).

``--cpu``: the seed's vector add on 100,000 elements, ember on the OpenCL CPU device beside
Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``; set ``NUMBA_PYTHON`` to a Python that has
Numba if this one has not).

    python benchmarks/kernels_from_python.py [--quick] [--cpu]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import ember
import numpy as np
from kernels_from_strings import TINY as TINY_C
from kernels_from_strings import per_launch_us

KERNELS = '''
import math
from {lib} import cuda, float32

TPB = 16


@cuda.jit
def vector_add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit
def tiny(a, b, c):
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

# Fresh interpreter: device start-up outside the timed span, then three new kernels.
COMPILE_PROBE = r"""
import json, sys, time
import numpy as np
lib = sys.argv[1]
sys.path.insert(0, sys.argv[2])
if lib == "ember":
    import ember
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


def write_kernels(folder: str, lib: str) -> None:
    with open(os.path.join(folder, f"jit_kernels_{lib}.py"), "w") as f:
        f.write(KERNELS.format(lib="ember" if lib == "ember" else "numba"))


def load_numba():
    try:
        from numba import cuda

        if not cuda.is_available():
            return None
        return cuda
    except Exception:  # numba-cuda fails to import in many ways (NumPy version, CUDA libs)
        return None


def compile_rows(libs) -> list[tuple[str, float, float, float]]:
    rows = []
    for lib in libs:
        with tempfile.TemporaryDirectory() as folder:
            write_kernels(folder, lib)
            env = dict(os.environ, EMBER_CACHE_DIR=os.path.join(folder, "cache"),
                       NUMBA_CACHE_DIR=os.path.join(folder, "cache"))
            runs = []
            for _ in range(2):  # cold, then warm disk cache
                out = subprocess.run([sys.executable, "-c", COMPILE_PROBE, lib, folder], env=env,
                                     capture_output=True, text=True)
                if out.returncode != 0:
                    print(f"({lib} compile probe failed: {out.stderr.strip().splitlines()[-1:]})")
                    break
                runs.append(json.loads(out.stdout))
        if len(runs) == 2:
            cold, warm = runs
            rows.append((lib, cold[0], statistics.median(cold[1:]), warm[0]))
    return rows


def import_kernels(lib: str, folder: str):
    write_kernels(folder, lib)
    sys.path.insert(0, folder)
    return __import__(f"jit_kernels_{lib}")


def launch_rows(kernels, numba_kernels, count: int, repeat: int) -> list[tuple[str, float]]:
    a, b, c = (ember.ones(32, dtype=np.float32) for _ in range(3))
    raw = ember.RawKernel(TINY_C, "tiny").kernel
    args = (a, b, c, np.int32(32))
    rows = [("cuLaunchKernel floor (ember native loop)",
             per_launch_us(lambda: raw.launch_repeated((1,), (32,), args, count), ember.synchronize, 1, repeat)
             / count)]
    tiny = kernels.tiny
    rows.append(("ember @cuda.jit kernel[1, 32](a, b, c)",
                 per_launch_us(lambda: tiny[1, 32](a, b, c), ember.synchronize, count, repeat)))
    if numba_kernels is not None:
        from numba import cuda as ncuda

        na, nb, nc = (ncuda.to_device(np.ones(32, dtype=np.float32)) for _ in range(3))
        ntiny = numba_kernels.tiny
        rows.append(("numba-cuda @cuda.jit kernel[1, 32](a, b, c)",
                     per_launch_us(lambda: ntiny[1, 32](na, nb, nc), ncuda.synchronize, count // 10, repeat)))
    return rows


def timed_ms(fn, start, end, repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def matmul_rows(kernels, numba_kernels, n: int, repeat: int) -> list[tuple[str, float]]:
    from ember import cuda

    rng = np.random.default_rng(0)
    A, B = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    grid, block = (n // 16, n // 16), (16, 16)
    dA, dB, dC = cuda.to_device(A), cuda.to_device(B), cuda.device_array((n, n), dtype=np.float32)
    ms = timed_ms(lambda: kernels.fast_matmul[grid, block](dA, dB, dC), cuda.event(), cuda.event(), repeat)
    check = slice(0, 64)
    assert np.allclose(dC.get()[check, check], A[check] @ B[:, check], rtol=1e-3), "ember matmul is wrong"
    rows = [("ember @cuda.jit tiled matmul", 2 * n**3 / (ms * 1e-3) / 1e12)]
    if numba_kernels is not None:
        from numba import cuda as ncuda

        nA, nB, nC = ncuda.to_device(A), ncuda.to_device(B), ncuda.device_array((n, n), dtype=np.float32)
        ms = timed_ms(lambda: numba_kernels.fast_matmul[grid, block](nA, nB, nC), ncuda.event(), ncuda.event(),
                      repeat)
        rows.append(("numba-cuda @cuda.jit tiled matmul", 2 * n**3 / (ms * 1e-3) / 1e12))
    return rows


def vector_add_rows(kernels, numba_kernels, n: int, repeat: int) -> list[tuple[str, float]]:
    from ember import cuda

    rng = np.random.default_rng(1)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    da, db, dc = cuda.to_device(a), cuda.to_device(b), cuda.device_array(n, dtype=np.float32)
    threads = 256
    blocks = (n + threads - 1) // threads
    copy_ms = timed_ms(lambda: da._a.copy_into(dc._a), cuda.event(), cuda.event(), repeat)
    rows = [("ember device-to-device copy (2 x 4 bytes per element)", 2 * n * 4 / (copy_ms * 1e-3) / 1e9)]
    ms = timed_ms(lambda: kernels.vector_add[blocks, threads](da, db, dc), cuda.event(), cuda.event(), repeat)
    assert np.array_equal(dc.get()[:1000], a[:1000] + b[:1000]), "ember vector add is wrong"
    rows.append(("ember @cuda.jit vector add (3 x 4 bytes per element)", 3 * n * 4 / (ms * 1e-3) / 1e9))
    # The same kernel written by hand in CUDA C: what one element per thread allows here.
    raw = ember.RawKernel(TINY_C, "tiny")
    ms = timed_ms(lambda: raw((blocks,), (threads,), (da, db, dc, np.int32(n))), cuda.event(), cuda.event(), repeat)
    rows.append(("the same kernel in CUDA C (RawKernel), for reference", 3 * n * 4 / (ms * 1e-3) / 1e9))
    if numba_kernels is not None:
        from numba import cuda as ncuda

        na, nb, nc = ncuda.to_device(a), ncuda.to_device(b), ncuda.device_array(n, dtype=np.float32)
        ms = timed_ms(lambda: numba_kernels.vector_add[blocks, threads](na, nb, nc), ncuda.event(), ncuda.event(),
                      repeat)
        rows.append(("numba-cuda @cuda.jit vector add", 3 * n * 4 / (ms * 1e-3) / 1e9))
    return rows


SIMULATOR = r"""
import time, sys
import numpy as np
from numba import cuda

@cuda.jit
def vector_add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]

n = int(sys.argv[1])
a = np.random.default_rng(0).random(n, dtype=np.float32)
b = np.ones(n, dtype=np.float32)
c = np.zeros(n, dtype=np.float32)
t0 = time.perf_counter()
vector_add[(n + 255) // 256, 256](a, b, c)
print(time.perf_counter() - t0)
assert np.array_equal(c, a + b)
"""


def cpu_main(n: int) -> None:
    from ember import cuda

    with tempfile.TemporaryDirectory() as folder:
        kernels = import_kernels("ember", folder)
        rng = np.random.default_rng(0)
        a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        da, db, dc = cuda.to_device(a), cuda.to_device(b), cuda.device_array(n, dtype=np.float32)
        blocks = (n + 255) // 256

        def run():
            kernels.vector_add[blocks, 256](da, db, dc)
            cuda.synchronize()

        run()
        assert np.array_equal(dc.get(), a + b)
        times = []
        for _ in range(21):
            t0 = time.perf_counter()
            run()
            times.append(time.perf_counter() - t0)
        ember_s = statistics.median(times)
    python = os.environ.get("NUMBA_PYTHON", sys.executable)
    sim = subprocess.run([python, "-c", SIMULATOR, str(n)], env=dict(os.environ, NUMBA_ENABLE_CUDASIM="1"),
                         capture_output=True, text=True)
    print(f"ember {ember.__version__} on {ember.Device(0).name}")
    print(f"\n| the seed's vector add, {n:,} float32 | seconds | ratio |\n| --- | ---: | ---: |")
    print(f"| ember @cuda.jit on the OpenCL CPU device (warm) | {ember_s:.6f} | 1 |")
    if sim.returncode == 0:
        sim_s = float(sim.stdout.strip())
        print(f"| Numba CUDA simulator | {sim_s:.2f} | {sim_s / ember_s:,.0f}x slower |")
    else:
        print(f"(Numba's simulator did not run: {sim.stderr.strip().splitlines()[-1:]}; set NUMBA_PYTHON)")
    print("target: ember >= 10,000x faster than the simulator")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    parser.add_argument("--cpu", action="store_true", help="the CPU comparison with Numba's simulator")
    opts = parser.parse_args()
    if opts.cpu:
        cpu_main(100_000)
        return
    if ember.backend() != "cuda":
        sys.exit("this benchmark measures CUDA kernels; run it on a CUDA machine (or pass --cpu)")
    count, repeat = (2000, 5) if opts.quick else (20000, 9)
    numba = load_numba()
    libs = ["ember"] + (["numba"] if numba is not None else [])
    print(f"ember {ember.__version__} on {ember.Device(0).name}; numba-cuda: "
          f"{'present' if numba is not None else 'not importable here'}")
    print("\n| first call of a new @cuda.jit kernel, fresh process | cold cache (ms) | each further new (ms) "
          "| warm disk cache (ms) |")
    print("| --- | ---: | ---: | ---: |")
    for lib, first, further, warm in compile_rows(libs):
        print(f"| {lib} | {first:.0f} | {further:.0f} | {warm:.1f} |")
    print("target: ember cold <= 300 ms, further <= 60 ms, warm <= 10 ms")
    folder = tempfile.mkdtemp()
    kernels = import_kernels("ember", folder)
    numba_kernels = None
    if numba is not None:
        try:
            numba_kernels = import_kernels("numba", folder)
        except Exception as e:  # numba-cuda's deeper imports fail with NumPy versions it does not know
            print(f"(numba-cuda kernels did not import: {type(e).__name__}: {e}; the numba rows are skipped)")
    print("\n| launch with 3 device arrays, sustained | µs per launch |\n| --- | ---: |")
    for name, us in launch_rows(kernels, numba_kernels, count, repeat):
        print(f"| {name} | {us:.2f} |")
    print("target: ember @cuda.jit <= floor + 1 µs")
    n = 1024 if opts.quick else 4096
    print(f"\n| seed's shared-memory matmul, {n}² float32 | TFLOP/s |\n| --- | ---: |")
    for name, t in matmul_rows(kernels, numba_kernels, n, repeat):
        print(f"| {name} | {t:.2f} |")
    print("target: ember >= 10 TFLOP/s")
    n = 1 << (20 if opts.quick else 28)
    print(f"\n| seed's vector add, 2^{int(np.log2(n))} float32 | GB/s |\n| --- | ---: |")
    for name, g in vector_add_rows(kernels, numba_kernels, n, repeat * 3):
        print(f"| {name} | {g:.0f} |")
    print("target: ember vector add >= 96% of the copy's GB/s")


if __name__ == "__main__":
    main()
