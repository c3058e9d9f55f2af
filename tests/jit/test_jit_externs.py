"""CUDA C device functions called from Python kernels: ``cuda.declare_device(name, sig,
link=...)`` with ``cuda.CUSource`` or ``.cu`` files, in Numba's ABI (``int f(ret *out, ...)``)
and the C ABI, and ``@cuda.jit(link=...)``. The generated CUDA C compiles through NVRTC here;
the kernels run on the CUDA backend (``gpu`` tests); OpenCL devices refuse them clearly."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import on_cuda
from ember import cuda, float32, int32
from ember._jit import kernel_source
from ember.errors import JitError

TIMES2 = cuda.CUSource("""
extern "C" __device__ int times2(int *out, int a) { *out = a * 2; return 0; }
""")
TIMES4 = cuda.CUSource("""
extern "C" __device__ int times2(int *out, int a);
extern "C" __device__ int times4(int *out, int a) { int t; times2(&t, a); *out = 2 * t; return 0; }
""")
FMA_C = cuda.CUSource("""
extern "C" __device__ float scaled_sum(float a, float b, float c) { return a * b + c; }
""")

times2 = cuda.declare_device("times2", "int32(int32)", link=TIMES2)
times4 = cuda.declare_device("times4", int32(int32), link=[TIMES2, TIMES4])
scaled_sum = cuda.declare_device("scaled_sum", float32(float32, float32, float32), link=FMA_C, abi="c")


@cuda.jit(device=True)
def via_device_function(x):
    return times2(x) + times4(x)


def calls(r, f, x, y):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = times2(x[i]) + via_device_function(x[i] + i)  # converted to int32 as declared
        f[i] = scaled_sum(y[i], 2.0, 1.0)


TYPES = ["int64[::1]", "float32[::1]", "int32[::1]", "float32[::1]"]


def test_declarations_keep_numbas_api():
    for sig in ("int32(float32[:])", int32(float32[:])):
        f1 = cuda.declare_device("f1", sig)
        assert f1.name == "f1" and f1.sig.args == (float32[:],) and f1.sig.return_type == int32
    for bad in ((float32[:],), "(float32[:],)"):
        with pytest.raises(TypeError, match="Return type"):
            cuda.declare_device("f1", bad)
    with pytest.raises(NotImplementedError, match="Unsupported ABI: fortran"):
        cuda.declare_device("f1", "int32(int32)", abi="fortran")
    with pytest.raises(TypeError, match="links CUDA C"):
        cuda.declare_device("f1", "int32(int32)", link="kernel.ptx")


def test_the_cuda_c_compiles_through_nvrtc(tmp_path):
    import ember
    from conftest import nvrtc_or_skip

    nvrtc_or_skip()
    src = kernel_source(calls, TYPES, "cuda")
    assert src.count("int times2(int *out, int a) {") == 1  # each source once
    name = src.rsplit('extern "C" __global__ void ', 1)[1].split("(", 1)[0]
    assert ember._ember.nvrtc_compile(src, name, "sm_90", [])[:4] == b"\x7fELF"
    # A .cu file given to @jit(link=...) compiles with the kernel.
    cu = tmp_path / "times3.cu"
    cu.write_text('extern "C" __device__ int times3(int *out, int a) { *out = 3 * a; return 0; }\n')
    times3 = cuda.declare_device("times3", "int32(int32)")

    def uses_file(r):
        r[0] = times3(r[0])

    kernel = cuda.jit(link=[str(cu)])(uses_file)
    src = kernel_source(kernel, ["int32[::1]"], "cuda")
    assert "*out = 3 * a" in src


@pytest.mark.gpu
def test_kernels_call_cuda_c_on_the_device(rng):
    x = rng.integers(-1000, 1000, 64).astype(np.int32)
    y = rng.standard_normal(64).astype(np.float32)
    r, f = np.zeros(64, np.int64), np.zeros(64, np.float32)
    cuda.jit(calls)[2, 32](r, f, x, y)
    xi = x.astype(np.int64) + np.arange(64)
    np.testing.assert_array_equal(r, 2 * x + 2 * xi + 4 * xi)
    np.testing.assert_allclose(f, y * 2 + 1, rtol=1e-6)


def test_opencl_devices_refuse_cuda_c_clearly():
    if on_cuda():
        pytest.skip("the CUDA backend runs CUDA C")
    with pytest.raises(JitError, match=r"times2\(\) is CUDA C \(cuda.declare_device\): it compiles on the CUDA "
                                       "backend only"):
        cuda.jit(calls)[1, 32](np.zeros(4, np.int64), np.zeros(4, np.float32), np.zeros(4, np.int32),
                               np.zeros(4, np.float32))
