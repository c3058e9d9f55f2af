"""RawKernel and RawModule (CuPy style), checked against NumPy: NVRTC compiles the CUDA C on
CUDA, ember translates it to OpenCL C on OpenCL devices (PoCL here)."""

from __future__ import annotations

import ember as cp
import numpy as np
import pytest
from conftest import on_cuda, run_python

ADD = r"""
extern "C" __global__ void add(const float* x, const float* y, float* z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = x[i] + y[i];
}
"""

MODULE = r"""
extern "C" __global__ void scale(float* x, float a, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] > 0 ? x[i] * a : x[i] * 0.5f;
}
template <typename T> __global__ void fill_index(T* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (T)(i * 3);
}
extern "C" __global__ void block_sum(const float* x, float* out) {
    extern __shared__ float buf[];
    buf[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) { float s = 0; for (int k = 0; k < blockDim.x; ++k) s += buf[k]; out[blockIdx.x] = s; }
}
"""


DYNAMIC = r"""
extern "C" __global__ void child(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}
extern "C" __global__ void parent(float* x, int n) {
    if (threadIdx.x == 0 && blockIdx.x == 0) child<<<(n + 127) / 128, 128>>>(x, n);
}
"""


def test_test_sources_compile_through_nvrtc():
    """The CUDA C of the GPU tests compiles here too (NVRTC needs no GPU); a kernel launching
    kernels is compiled as relocatable code."""
    from conftest import nvrtc_or_skip

    nvrtc_or_skip()
    for src, name, opts in ((ADD, "add", []), (MODULE, "module", ["-std=c++17"]), (DYNAMIC, "dynamic", [])):
        assert cp._ember.nvrtc_compile(src, name, "sm_90", opts)[:4] == b"\x7fELF", name
    with pytest.raises(cp.CompileError, match="undefined_name"):
        cp._ember.nvrtc_compile('extern "C" __global__ void f() { undefined_name; }', "f", "sm_90")


WAITING_CHILD = r"""
extern "C" __global__ void child(float* x) {
    __shared__ float s[32];
    s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = s[31 - threadIdx.x];
}
extern "C" __global__ void parent(float* x) { child<<<1, 32>>>(x); }
"""


@pytest.mark.skipif(on_cuda(), reason="CUDA runs child grids that share memory")
def test_a_child_grid_that_shares_memory_says_why_it_cannot_run_on_opencl():
    with pytest.raises(cp.CompileError) as info:
        cp.RawModule(code=WAITING_CHILD).get_function("parent")
    err = info.value
    assert "kernel.cu(3): error: this kernel is launched by a kernel and uses __shared__ s" in err.log
    assert "launch it from the host instead" in err.log and ">3 |" in str(err) and err.source == WAITING_CHILD


def test_raw_module_needs_code_or_path():
    with pytest.raises(TypeError, match="exactly one of code= .* and path="):
        cp.RawModule()


gpu = pytest.mark.gpu


def test_raw_kernel_vector_add(rng):
    n = 10_000
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    dx, dy, dz = cp.asarray(x), cp.asarray(y), cp.empty(n, dtype=np.float32)
    k = cp.RawKernel(ADD, "add")
    k(((n + 255) // 256,), (256,), (dx, dy, dz, np.int32(n)))
    np.testing.assert_array_equal(dz.get(), x + y)
    # A Python int goes in as int64, as in CuPy; the int parameter reads its low bytes.
    dz.fill(0)
    k((n + 255) // 256, 256, [dx, dy, dz, n])
    np.testing.assert_array_equal(dz.get(), x + y)


@gpu
def test_raw_kernel_attributes():
    k = cp.RawKernel(ADD, "add")
    attrs = k.attributes
    assert list(attrs) == [
        "max_threads_per_block", "shared_size_bytes", "const_size_bytes", "local_size_bytes", "num_regs",
        "ptx_version", "binary_version", "cache_mode_ca", "max_dynamic_shared_size_bytes",
        "preferred_shared_memory_carveout",
    ]
    assert 0 < k.num_regs < 64 and k.max_threads_per_block == 1024 and k.binary_version == 90
    k.max_dynamic_shared_size_bytes = 64 * 1024
    assert k.max_dynamic_shared_size_bytes == 64 * 1024


def test_raw_module_functions_templates_and_shared_memory(rng):
    mod = cp.RawModule(code=MODULE, options=("-std=c++17",), name_expressions=("fill_index<int>", "fill_index<double>"))
    x = rng.standard_normal(5000).astype(np.float32)
    dx = cp.asarray(x)
    mod.get_function("scale")((20,), (256,), (dx, np.float32(3.0), 5000))
    np.testing.assert_allclose(dx.get(), np.where(x > 0, x * 3, x * 0.5), rtol=1e-6)
    for dtype, expr in ((np.int32, "fill_index<int>"), (np.float64, "fill_index<double>")):
        out = cp.empty(100, dtype=dtype)
        mod.get_function(expr)((1,), (128,), (out, np.int32(100)))
        np.testing.assert_array_equal(out.get(), (np.arange(100) * 3).astype(dtype))
    v = rng.standard_normal(4 * 128).astype(np.float32)
    sums = cp.empty(4, dtype=np.float32)
    mod.get_function("block_sum")((4,), (128,), (cp.asarray(v), sums), shared_mem=128 * 4)
    np.testing.assert_allclose(sums.get(), v.reshape(4, 128).sum(axis=1), rtol=1e-5)


@gpu
def test_launch_errors_before_anything_runs():
    k = cp.RawKernel(ADD, "add")
    a = cp.ones(4, dtype=np.float32)
    with pytest.raises(TypeError, match="kernel add takes 4 argument"):
        k((1,), (4,), (a, a, a))
    with pytest.raises(TypeError, match="argument 3 of kernel add is a Python scalar passed as float64.*numpy.int32"):
        k((1,), (4,), (a, a, a, 4.0))
    with pytest.raises(TypeError, match="argument 0 of kernel add is a NumPy array.*ember.asarray"):
        k((1,), (4,), (np.ones(4, np.float32), a, a, np.int32(4)))
    with pytest.raises(ValueError, match="block .* has 2048 threads, more than the 1024"):
        k((1,), (2048,), (a, a, a, np.int32(4)))
    with pytest.raises(ValueError, match="every dimension must be at least 1"):
        k((0,), (4,), (a, a, a, np.int32(4)))
    with pytest.raises(ValueError, match="module has no kernel named \"nope\""):
        cp.RawModule(code=MODULE).get_function("nope")


@gpu
def test_compile_error_shows_numbered_source():
    k = cp.RawKernel('extern "C" __global__ void bad(float* x) {\n  x[0] = undefined_name;\n}\n', "bad")
    with pytest.raises(cp.CompileError) as info:
        k((1,), (1,), (cp.empty(1, dtype=np.float32),))
    err = info.value
    assert err.backend == "CUDA" and "undefined_name" in err.log and "extern" in err.source
    assert ">2 |   x[0] = undefined_name;" in str(err)


def test_dynamic_parallelism_runs_child_grids(rng):
    """Seed 000: a kernel launching a kernel. CUDA links the device runtime; on OpenCL the child
    grid runs as loops in the launching thread."""
    x = rng.standard_normal(1000).astype(np.float32)
    dx = cp.asarray(x)
    cp.RawModule(code=DYNAMIC).get_function("parent")((1,), (32,), (dx, np.int32(1000)))
    np.testing.assert_array_equal(dx.get(), x * 2)


@gpu
def test_zero_copy_with_cupy_and_torch(rng):
    cupy = pytest.importorskip("cupy")
    x = rng.standard_normal(1000).astype(np.float32)
    c = cupy.asarray(x)
    e = cp.asarray(c)  # a view of CuPy's memory
    assert e.data.ptr == c.data.ptr
    out = cp.empty(1000, dtype=np.float32)
    cp.RawKernel(ADD, "add")((4,), (256,), (e, c, out, np.int32(1000)))  # CuPy arrays go in as pointers
    np.testing.assert_array_equal(out.get(), x + x)
    back = cupy.asarray(out)
    assert back.data.ptr == out.data.ptr
    torch = pytest.importorskip("torch")
    t = torch.from_dlpack(out)
    assert t.data_ptr() == out.data.ptr
    t.mul_(2)
    cp.synchronize()
    np.testing.assert_array_equal(out.get(), (x + x) * 2)


@gpu
def test_faulting_kernel_raises_driver_error_naming_it():
    code = (
        "import ember, numpy as np\n"
        "src = 'extern \"C\" __global__ void wild_write(float* x) { x[1ll << 40] = 1.0f; }'\n"
        "k = ember.RawKernel(src, 'wild_write')\n"
        "k((1,), (1,), (ember.empty(1, dtype=np.float32),))\n"
        "try:\n"
        "    ember.synchronize()\n"
        "except ember.DriverError as e:\n"
        "    print('DriverError', e.last_kernel, '|', e)\n"
    )
    r = run_python(code)
    assert "DriverError wild_write |" in r.stdout, r.stdout + r.stderr
    assert "ILLEGAL_ADDRESS" in r.stdout


def test_second_process_loads_from_disk(tmp_path):
    code = (
        "import ember, numpy as np\n"
        f"k = ember.RawKernel({ADD!r}, 'add')\n"
        "a = ember.ones(8, dtype=np.float32)\n"
        "k((1,), (8,), (a, a, a, np.int32(8)))\n"
        "print(*ember._ember.cache_stats(0))\n"
    )
    env = {"EMBER_CACHE_DIR": str(tmp_path)}
    first, second = run_python(code, env), run_python(code, env)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert int(second.stdout.split()[2]) == 0 and int(second.stdout.split()[1]) >= 1, second.stdout
