"""PyCUDA-style code (``ember.cuda.driver``, ``.compiler``, ``.gpuarray``, ``.autoinit``) gives
what NumPy (and CuPy, through the same memory) gives.

Memory, copies and arrays run on every backend, and so does CUDA C through ``SourceModule``:
NVRTC compiles it on CUDA, ember translates it to OpenCL C elsewhere. What needs CUDA itself
(kernel attributes, device faults, raw device pointers) runs in the ``gpu`` tests.
"""

from __future__ import annotations

import os
import threading

import ember
import ember.cuda.driver as drv
import ember.cuda.gpuarray as gpuarray
import numpy as np
import pytest
from conftest import on_cuda, run_python
from ember.cuda.compiler import SourceModule, nvrtc_options, wrap_source
from ember.testing import random_array

DTYPES = ["float32", "float64", "int32", "uint8", "complex64"]


# --- errors ---------------------------------------------------------------------------------------
def test_pycuda_errors_are_embers():
    assert drv.Error is ember.EmberError
    for cls in (drv.LogicError, drv.LaunchError, drv.RuntimeError):
        assert issubclass(cls, ember.DriverError) and issubclass(cls, drv.Error)
    assert drv.MemoryError is ember.OutOfMemoryError and drv.CompileError is ember.CompileError
    assert issubclass(ember.BackendUnavailableError, drv.Error)


@pytest.mark.parametrize("code, cls", [
    ("CUDA_ERROR_ILLEGAL_ADDRESS", drv.LogicError),
    ("CUDA_ERROR_INVALID_VALUE", drv.LogicError),
    ("CUDA_ERROR_LAUNCH_FAILED", drv.LaunchError),
    ("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", drv.LaunchError),
    ("CUDA_ERROR_NO_BINARY_FOR_GPU", drv.RuntimeError),
    ("CUDA_ERROR_UNKNOWN", ember.DriverError),
    ("CL_INVALID_ARG_SIZE", ember.DriverError),
])
def test_driver_errors_take_pycudas_class_for_their_code(code, cls):
    err = ember.DriverError("cuCtxSynchronize failed", backend="CUDA", call="cuCtxSynchronize", code=700, name=code,
                            last_kernel="scale")
    with pytest.raises(cls) as info, drv._CHECKED:
        raise err
    assert type(info.value) is cls
    assert info.value.last_kernel == "scale" and info.value.name == code and str(info.value) == str(err)


# --- compiler -------------------------------------------------------------------------------------
def test_source_is_wrapped_in_extern_c_as_pycuda_does():
    src = "__global__ void k(float *x) { x[0] = 1; }"
    assert wrap_source(src) == 'extern "C" {\n' + src + '\n}\n'
    assert wrap_source(src, no_extern_c=True) == src


def test_nvcc_options_become_nvrtc_options():
    opts = nvrtc_options(["-O3", "--use_fast_math", "-Xcompiler", "-fPIC", "-arch", "sm_80", "-DN=4"], ["/inc"])
    assert opts == ["--use_fast_math", "-arch", "sm_80", "-DN=4", "-I/inc"]
    with pytest.raises(TypeError, match="list of strings"):
        nvrtc_options("-O3")


def test_wrapped_source_compiles_with_nvrtc():
    try:
        ember._ember.nvrtc_version()
    except ember.BackendUnavailableError as e:
        if os.environ.get("EMBER_REQUIRE_NVRTC") == "1":
            raise AssertionError(f"NVRTC is required here (EMBER_REQUIRE_NVRTC=1): {e}") from e
        pytest.skip(f"NVRTC not installed: {e}")
    src = wrap_source("__global__ void twice(float *x, int n) { int i = threadIdx.x; if (i < n) x[i] *= SCALE; }")
    cubin = ember._ember.nvrtc_compile(src, "kernel", "sm_90", nvrtc_options(["-O3", "-DSCALE=2"]))
    assert cubin[:4] == b"\x7fELF"


def test_source_module_says_what_it_cannot_translate_and_where():
    """On an OpenCL device the CUDA C is translated; a construct without an OpenCL form is a
    CompileError naming it and its line (on CUDA, NVRTC compiles the same source)."""
    if on_cuda():
        pytest.skip("NVRTC compiles warp intrinsics")
    src = "__global__ void k(float *x) {\n  float v = x[0];\n  x[0] = __shfl_down_sync(0xffffffff, v, 1);\n}"
    with pytest.raises(ember.CompileError) as info:
        SourceModule(src)
    assert isinstance(info.value, drv.Error)
    # The lines are those of the source PyCUDA's wrapping in extern "C" { } gives NVRTC too.
    assert "kernel.cu(4): error: __shfl_down_sync: warp intrinsics" in info.value.log
    assert ">4 |   x[0] = __shfl_down_sync(0xffffffff, v, 1);" in str(info.value)


def test_importing_the_pycuda_modules_starts_no_driver():
    code = (
        "import ember.cuda.driver, ember.cuda.compiler, ember.cuda.gpuarray\n"
        "maps = open('/proc/self/maps').read()\n"
        "print('libcuda' in maps, 'libOpenCL' in maps, 'libnvrtc' in maps)\n"
    )
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False", "False"], r.stdout


# --- device memory and copies ---------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_mem_alloc_and_memcpy_round_trip(rng, dtype):
    host = random_array(rng, (7, 13), dtype)
    alloc = drv.mem_alloc(host.nbytes)
    drv.memcpy_htod(alloc, host)
    copy = drv.mem_alloc(host.nbytes)
    drv.memcpy_dtod(copy, alloc, host.nbytes)
    out = np.empty_like(host)
    drv.memcpy_dtoh(out, copy)
    np.testing.assert_array_equal(out, host)
    np.testing.assert_array_equal(drv.from_device(alloc, host.shape, host.dtype), host)
    np.testing.assert_array_equal(drv.from_device_like(drv.to_device(host), host), host)


def test_async_copies_on_a_stream(rng):
    host = drv.pagelocked_empty((1000,), np.float64)
    host[:] = random_array(rng, 1000, np.float64)
    stream = drv.Stream()
    alloc = drv.mem_alloc(host.nbytes)
    drv.memcpy_htod_async(alloc, host, stream)
    back = drv.pagelocked_zeros_like(host)
    drv.memcpy_dtoh_async(back, alloc, stream)
    stream.synchronize()
    np.testing.assert_array_equal(back, host)


def test_device_allocation_is_a_pointer_that_frees_once():
    alloc = drv.mem_alloc(64)
    assert isinstance(alloc, ember._ember.DevicePointer) and int(alloc) == alloc.ptr != 0
    assert "owned" in repr(alloc)
    alloc.free()
    assert int(alloc) == 0
    with pytest.raises(drv.LogicError, match="already freed"):
        alloc.free()


# Integer device addresses exist on CUDA and on CPU devices (host memory); an OpenCL GPU has
# buffers, not addresses: viewing one by its number is refused with a message saying so.
ADDRESSES = on_cuda() or ember.Device(0).attributes["is_cpu"]
NO_ADDRESS = "on an OpenCL GPU an integer address names no device memory"


def test_foreign_device_allocation_wraps_without_owning(rng):
    owner = gpuarray.to_gpu(random_array(rng, 16, np.int32))
    if not ADDRESSES:
        with pytest.raises(ValueError, match=NO_ADDRESS):
            drv.from_device(drv.DeviceAllocation(owner.ptr), (16,), np.int32)
        return
    alloc = drv.DeviceAllocation(owner.ptr)
    assert int(alloc) == owner.ptr and "foreign" in repr(alloc)
    np.testing.assert_array_equal(drv.from_device(alloc, (16,), np.int32), owner.get())
    with pytest.raises(drv.LogicError, match="allocated by another library"):
        alloc.free()


def test_copies_check_their_buffers(rng):
    alloc = drv.mem_alloc(16)
    with pytest.raises(ValueError, match="outside"):
        drv.memcpy_htod(alloc, random_array(rng, 10, np.float32))
    with pytest.raises(ValueError, match="not contiguous"):
        drv.memcpy_htod(alloc, random_array(rng, (4, 4), np.float32)[:, ::2])
    with pytest.raises(TypeError, match="could not determine array length"):
        drv.memcpy_htod(alloc, 3.0)
    with pytest.raises(ValueError, match="read-only"):
        drv.memcpy_dtoh(b"0123456789abcdef", alloc)
    with pytest.raises(TypeError, match="device pointer"):
        drv.memcpy_dtoh(np.empty(4, np.float32), "address")


def test_mem_get_info_is_free_and_total():
    free, total = drv.mem_get_info()
    assert 0 < free <= total


# --- page-locked host memory ----------------------------------------------------------------------
@pytest.mark.parametrize("order", ["C", "F"])
def test_pagelocked_arrays_are_numpy_arrays_over_pinned_memory(rng, order):
    a = drv.pagelocked_empty((5, 6), np.complex64, order=order)
    assert isinstance(a.base, drv.PagelockedHostAllocation) and a.flags.writeable
    assert a.flags[f"{order}_CONTIGUOUS"] and a.shape == (5, 6) and a.dtype == np.complex64
    values = random_array(rng, (5, 6), np.complex64)
    a[...] = values
    np.testing.assert_array_equal(a, values)
    z = drv.pagelocked_zeros(7, np.int16)
    np.testing.assert_array_equal(z, np.zeros(7, np.int16))
    with pytest.raises(ValueError, match="DEVICEMAP"):
        drv.pagelocked_empty(4, np.float32, mem_flags=drv.host_alloc_flags.DEVICEMAP)


# --- In / Out / InOut -----------------------------------------------------------------------------
def test_in_out_inout_copy_around_a_launch(rng):
    host = random_array(rng, 100, np.float32)
    arg = drv.InOut(host.copy())
    arg.pre_call(None)
    np.testing.assert_array_equal(drv.from_device(arg.get_device_alloc(), host.shape, host.dtype), host)
    doubled = host * 2
    drv.memcpy_htod(arg.get_device_alloc(), doubled)
    arg.post_call(None)
    np.testing.assert_array_equal(arg.array, doubled)
    assert (drv.In.copy_in, drv.In.copy_out, drv.Out.copy_in, drv.Out.copy_out) == (True, False, False, True)


def test_argument_handlers_check_their_array(rng):
    with pytest.raises(ValueError, match="not contiguous"):
        drv.In(random_array(rng, (4, 4), np.float32)[::2])
    with pytest.raises(ValueError, match="read-only"):
        drv.Out(b"immutable")
    with pytest.raises(TypeError, match="could not determine array length"):
        drv.InOut([1.0, 2.0])
    assert drv.In(b"bytes are a buffer").get_device_alloc() is not None


# --- gpuarray -------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_to_gpu_round_trips(rng, dtype):
    host = random_array(rng, (9, 5), dtype)
    g = gpuarray.to_gpu(host)
    assert isinstance(g, gpuarray.GPUArray) and isinstance(g, ember.ndarray)
    np.testing.assert_array_equal(g.get(), host)
    np.testing.assert_array_equal(gpuarray.to_gpu_async(host, stream=drv.Stream()).get(), host)


def test_to_gpu_keeps_fortran_order(rng):
    host = np.asfortranarray(random_array(rng, (4, 6), np.float64))
    g = gpuarray.to_gpu(host)
    assert g.strides == host.strides and g.flags.f_contiguous
    np.testing.assert_array_equal(g.get(), host)
    np.testing.assert_array_equal(gpuarray.zeros_like(g).get(), np.zeros_like(host))
    assert gpuarray.empty_like(g).strides == host.strides


def test_creation_functions_match_numpy():
    np.testing.assert_array_equal(gpuarray.zeros((3, 4), np.int32).get(), np.zeros((3, 4), np.int32))
    np.testing.assert_array_equal(gpuarray.ones(5).get(), np.ones(5))
    e = gpuarray.empty((2, 3), np.float32)
    assert e.shape == (2, 3) and e.dtype == np.float32
    assert gpuarray.GPUArray(7, np.uint16).shape == (7,)
    like = gpuarray.ones_like(e, dtype=np.int8)
    np.testing.assert_array_equal(like.get(), np.ones((2, 3), np.int8))


def test_gpuarray_over_gpudata_views_the_same_memory(rng):
    host = random_array(rng, (6, 8), np.float32)
    alloc = drv.to_device(host)
    view = gpuarray.GPUArray(host.shape, host.dtype, gpudata=alloc)
    np.testing.assert_array_equal(view.get(), host)
    if not ADDRESSES:
        with pytest.raises(ValueError, match=NO_ADDRESS):
            gpuarray.GPUArray(host.shape, host.dtype, gpudata=int(alloc))
        return
    by_address = gpuarray.GPUArray(host.shape, host.dtype, gpudata=int(alloc))
    new = random_array(rng, (6, 8), np.float32)
    by_address.set(new)
    np.testing.assert_array_equal(view.get(), new)
    transposed = gpuarray.GPUArray((8, 6), host.dtype, gpudata=view.gpudata, strides=(4, 32))
    np.testing.assert_array_equal(transposed.get(), new.T)


def test_gpuarray_keeps_its_memory_alive(rng):
    host = random_array(rng, 32, np.int64)
    view = gpuarray.GPUArray(host.shape, host.dtype, gpudata=drv.to_device(host))
    ember.zeros(1 << 16, np.int64)  # the pool would reuse freed memory here
    np.testing.assert_array_equal(view.get(), host)
    owner = gpuarray.to_gpu(host)
    if not ADDRESSES:
        with pytest.raises(ValueError, match=NO_ADDRESS):
            gpuarray.GPUArray(host.shape, host.dtype, gpudata=owner.ptr, base=owner)
        return
    based = gpuarray.GPUArray(host.shape, host.dtype, gpudata=owner.ptr, base=owner)
    del owner
    ember.zeros(1 << 16, np.int64)
    np.testing.assert_array_equal(based.get(), host)


def test_gpuarray_with_an_allocator(rng):
    host = random_array(rng, (3, 3), np.float64)
    g = gpuarray.to_gpu(host, allocator=drv.mem_alloc)
    np.testing.assert_array_equal(g.get(), host)
    assert isinstance(g.gpudata, drv.DeviceAllocation) and int(g.gpudata) == g.ptr == g.data.ptr
    with pytest.raises(ValueError, match="base="):
        gpuarray.GPUArray(3, np.float32, base=g)


# --- devices, contexts, streams, events -----------------------------------------------------------
def test_device_attributes():
    dev = drv.Device(0)
    assert drv.Device.count() >= 1 and dev.name() == ember.Device(0).name and dev.total_memory() > 0
    assert dev.max_threads_per_block == dev.get_attribute(drv.device_attribute.MAX_THREADS_PER_BLOCK) > 0
    assert dev.get_attributes()[drv.device_attribute.MAX_BLOCK_DIM_X] == dev.max_block_dim_x > 0
    with pytest.raises(drv.LogicError, match="invalid device ordinal"):
        drv.Device(drv.Device.count())


def test_contexts_are_per_thread_and_push_pop():
    seen = []

    def in_a_fresh_thread():
        # A new thread starts with no context pushed, whatever other tests imported.
        dev = drv.Device(0)
        seen.append(drv.Context.get_current())
        ctx = dev.make_context()
        seen.append((drv.Context.get_current() is ctx, drv.Context.get_device() == dev))
        drv.Context.synchronize()
        ctx.pop()
        seen.append(drv.Context.get_current())
        with pytest.raises(drv.LogicError, match="no context was pushed"):
            drv.Context.pop()
        seen.append("done")

    thread = threading.Thread(target=in_a_fresh_thread)
    thread.start()
    thread.join()
    assert seen == [None, (True, True), None, "done"]


def test_events_time_work_on_a_stream():
    stream = drv.Stream()
    start = drv.Event().record(stream)
    ember.ones(1 << 20, np.float32)
    end = drv.Event().record(stream)
    assert end.synchronize() is end and end.query() and stream.is_done()
    assert end.time_since(start) >= 0 and start.time_till(end) == pytest.approx(end.time_since(start))


# --- launches through drv.Function (with an OpenCL kernel where there is no CUDA) -----------------
OPENCL_VADD = """
__kernel void vadd(__global float *out, __global const float *a, __global const float *b, int n) {
    int i = get_global_id(0);
    if (i < n) out[i] = a[i] + b[i];
}
"""


@pytest.fixture
def vadd():
    if ember.backend() != "opencl":
        pytest.skip("exercises drv.Function with an OpenCL kernel; the gpu tests use CUDA C")
    return drv.Function(ember._ember.build_module(0, OPENCL_VADD, "vadd", [], []).function("vadd", "pycuda"))


def test_function_with_in_out(rng, vadd):
    a, b = random_array(rng, 1000, np.float32), random_array(rng, 1000, np.float32)
    out = np.zeros_like(a)
    vadd(drv.Out(out), drv.In(a), drv.In(b), np.int32(a.size), block=(128, 1, 1), grid=(8, 1))
    np.testing.assert_array_equal(out, a + b)
    acc = a.copy()
    seconds = vadd(drv.InOut(acc), drv.In(acc.copy()), gpuarray.to_gpu(b), np.int32(a.size), block=(128, 1, 1),
                   grid=(8, 1), stream=drv.Stream(), time_kernel=True)
    np.testing.assert_array_equal(acc, a + b)
    assert 0 <= seconds < 60


def test_function_prepared_calls(rng, vadd):
    a, b = random_array(rng, 500, np.float32), random_array(rng, 500, np.float32)
    ga, gb, out = gpuarray.to_gpu(a), gpuarray.to_gpu(b), gpuarray.empty(500, np.float32)
    vadd.prepare("PPPi").prepared_call((4, 1), (128, 1, 1), out, ga, gb, 500)
    np.testing.assert_array_equal(out.get(), a + b)
    out.fill(0)
    vadd.prepare([np.intp, np.intp, None, np.int32])
    vadd.prepared_async_call((4, 1), (128, 1, 1), drv.Stream(), out, ga, gb, 500)
    assert vadd.prepared_timed_call((4, 1), (128, 1, 1), out, ga, gb, 500)() >= 0
    np.testing.assert_array_equal(out.get(), a + b)
    with pytest.raises(TypeError, match="takes 4 argument"):
        vadd.prepared_call((4, 1), (128, 1, 1), out, ga, gb)
    with pytest.raises(ValueError, match="not supported"):
        vadd.prepare("PP16s")


def test_function_call_errors(rng, vadd):
    a = gpuarray.to_gpu(random_array(rng, 64, np.float32))
    with pytest.raises(ValueError, match="must specify block size"):
        vadd(a, a, a, np.int32(64))
    with pytest.raises(ValueError, match="extra keyword arguments: blocks"):
        vadd(a, a, a, np.int32(64), block=(64, 1, 1), blocks=1)
    with pytest.raises(TypeError, match="takes 4 argument"):
        vadd(a, a, a, block=(64, 1, 1))
    with pytest.raises(TypeError, match="Python int; as in PyCUDA"):
        vadd(a, a, a, 64, block=(64, 1, 1))
    with pytest.raises(TypeError, match=r"drv.In\(x\)"):
        vadd(a, a.get(), a, np.int32(64), block=(64, 1, 1))
    with pytest.raises(ValueError, match="threads, more than"):
        vadd(a, a, a, np.int32(64), block=(1 << 20, 1, 1))
    with pytest.raises(drv.LogicError, match="prepare"):
        drv.Function(vadd._kernel).prepared_call((1, 1), (64, 1, 1), a, a, a, 64)
    assert vadd.max_threads_per_block > 0
    with pytest.raises(AttributeError, match="no attribute 'registers'"):
        vadd.registers  # noqa: B018


# --- CUDA C through SourceModule -------------------------------------------------------------------
CUDA_SOURCE = """
__global__ void vadd(float *out, const float *a, const float *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}
__global__ void twice(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}
"""


@pytest.fixture
def module():
    import ember.cuda.autoinit  # noqa: F401 - what PyCUDA programs start with

    return SourceModule(CUDA_SOURCE)


def test_source_module_vector_add_with_in_out_inout(rng, module):
    n = 10_000
    a, b = random_array(rng, n, np.float32), random_array(rng, n, np.float32)
    vadd, twice = module.get_function("vadd"), module.get_function("twice")
    out = np.zeros_like(a)
    vadd(drv.Out(out), drv.In(a), drv.In(b), np.int32(n), block=(256, 1, 1), grid=((n + 255) // 256, 1))
    np.testing.assert_array_equal(out, a + b)
    x = a.copy()
    twice(drv.InOut(x), np.int32(n), block=(256, 1, 1), grid=((n + 255) // 256, 1), stream=drv.Stream())
    np.testing.assert_array_equal(x, a * 2)


def test_pycudas_front_page_example_runs_with_ember_imports(rng):
    import ember.cuda.autoinit  # noqa: F401
    import ember.cuda.driver as drv
    from ember.cuda.compiler import SourceModule

    mod = SourceModule("""
    __global__ void multiply_them(float *dest, float *a, float *b)
    {
      const int i = threadIdx.x;
      dest[i] = a[i] * b[i];
    }
    """)
    multiply_them = mod.get_function("multiply_them")
    limit = multiply_them.get_attribute(drv.function_attribute.MAX_THREADS_PER_BLOCK)
    if limit < 400:  # NVIDIA's OpenCL allows 256 per work-group to every kernel
        pytest.skip(f"this device runs at most {limit} threads per block; the example launches 400")
    a = rng.standard_normal(400).astype(np.float32)
    b = rng.standard_normal(400).astype(np.float32)
    dest = np.zeros_like(a)
    multiply_them(drv.Out(dest), drv.In(a), drv.In(b), block=(400, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(dest, a * b)


@pytest.mark.gpu
def test_source_module_with_gpuarrays_and_mem_alloc(rng, module):
    n = 4096
    a, b = random_array(rng, n, np.float32), random_array(rng, n, np.float32)
    ga, gb, gout = gpuarray.to_gpu(a), gpuarray.to_gpu(b), gpuarray.empty(n, np.float32)
    module.get_function("vadd")(gout, ga, gb.gpudata, np.int32(n), block=(256, 1, 1), grid=(n // 256, 1))
    np.testing.assert_array_equal(gout.get(), a + b)
    alloc = drv.mem_alloc(a.nbytes)
    drv.memcpy_htod(alloc, a)
    module.get_function("twice")(alloc, np.int32(n), block=(128, 1, 1), grid=(n // 128, 1))
    out = np.empty_like(a)
    drv.memcpy_dtoh(out, alloc)
    np.testing.assert_array_equal(out, a * 2)


@pytest.mark.gpu
def test_time_kernel_and_prepared_calls(rng, module):
    n = 1 << 20
    a, b = random_array(rng, n, np.float32), random_array(rng, n, np.float32)
    ga, gb, gout = gpuarray.to_gpu(a), gpuarray.to_gpu(b), gpuarray.zeros(n, np.float32)
    vadd = module.get_function("vadd")
    seconds = vadd(gout, ga, gb, np.int32(n), block=(256, 1, 1), grid=(n // 256, 1), time_kernel=True)
    assert isinstance(seconds, float) and 0 < seconds < 1
    gout.fill(0)
    vadd.prepare("PPPi").prepared_call((n // 256, 1), (256, 1, 1), gout.gpudata, ga.gpudata, gb.gpudata, n)
    np.testing.assert_array_equal(gout.get(), a + b)
    gout.fill(0)
    vadd.prepare([np.intp, np.intp, np.intp, np.int32])
    timed = vadd.prepared_timed_call((n // 256, 1), (256, 1, 1), int(gout.gpudata), ga.ptr, gb, np.int32(n))
    assert 0 < timed() < 1
    np.testing.assert_array_equal(gout.get(), a + b)


@pytest.mark.gpu
def test_launch_errors_come_before_the_launch(rng, module):
    vadd = module.get_function("vadd")
    g = gpuarray.to_gpu(random_array(rng, 256, np.float32))
    with pytest.raises(TypeError, match="takes 4 argument"):
        vadd(g, g, g, block=(256, 1, 1))
    with pytest.raises(TypeError, match="argument 3 of kernel vadd"):
        vadd(g, g, g, np.float64(256), block=(256, 1, 1))
    with pytest.raises(ValueError, match="threads, more than"):
        vadd(g, g, g, np.int32(256), block=(2048, 1, 1))
    with pytest.raises(drv.LogicError, match='named symbol not found: .*"no_such_kernel"'):
        module.get_function("no_such_kernel")


@pytest.mark.gpu
def test_function_attributes_and_device(module):
    vadd = module.get_function("vadd")
    assert 0 < vadd.num_regs == vadd.get_attribute(drv.function_attribute.NUM_REGS)
    assert 0 < vadd.max_threads_per_block <= 1024 and vadd.local_size_bytes == 0
    dev = drv.Context.get_device()
    major, minor = dev.compute_capability()
    assert ember.Device(0).compute_capability == f"{major}{minor}"
    assert dev.get_attribute(drv.device_attribute.WARP_SIZE) == 32


def test_stream_is_done_once_synchronized(rng, module):
    stream = drv.Stream()
    g = gpuarray.to_gpu(random_array(rng, 1 << 20, np.float32))
    module.get_function("twice")(g, np.int32(g.size), block=(256, 1, 1), grid=(g.size // 256, 1), stream=stream)
    stream.synchronize()
    assert stream.is_done() and stream.handle == stream.ptr != 0


@pytest.mark.gpu
def test_compile_errors_and_options(tmp_path, rng):
    with pytest.raises(drv.CompileError) as info:
        SourceModule("__global__ void broken(float *x) { x[0] = undefined_name; }")
    assert isinstance(info.value, drv.Error) and "undefined_name" in info.value.log
    (tmp_path / "scale.h").write_text("#define SCALE 3.0f\n")
    mod = SourceModule(
        '#include "scale.h"\n__global__ void scale(float *x) { x[threadIdx.x] *= SCALE; }',
        options=["-O3", "--use_fast_math"], include_dirs=[str(tmp_path)], arch="sm_52",
    )
    x = random_array(rng, 32, np.float32)
    g = gpuarray.to_gpu(x)
    mod.get_function("scale")(g, block=(32, 1, 1))
    np.testing.assert_allclose(g.get(), x * 3, rtol=1e-6)
    templated = SourceModule(
        'template <typename T> __device__ T sq(T v) { return v * v; }\n'
        'extern "C" __global__ void square(float *x) { x[threadIdx.x] = sq(x[threadIdx.x]); }',
        no_extern_c=True,
    )
    templated.get_function("square")(g, block=(32, 1, 1))
    np.testing.assert_allclose(g.get(), (x * 3) ** 2, rtol=1e-5)


@pytest.mark.gpu
def test_exchange_with_cupy_both_ways(rng, module):
    cp = pytest.importorskip("cupy")
    a = random_array(rng, (64, 32), np.float32)
    c = cp.asarray(a)
    g = gpuarray.GPUArray(c.shape, c.dtype, gpudata=c.data.ptr)
    np.testing.assert_array_equal(g.get(), a)
    module.get_function("twice")(g, np.int32(a.size), block=(256, 1, 1), grid=(8, 1))
    drv.Context.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(c), a * 2)
    module.get_function("twice")(c, np.int32(a.size), block=(256, 1, 1), grid=(8, 1))  # CuPy array as argument
    drv.Context.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(c), a * 4)
    view = ember.ndarray(c.shape, c.dtype, memptr=cp.cuda.MemoryPointer(c.data.mem, 0))
    np.testing.assert_array_equal(view.get(), a * 4)
    e = gpuarray.to_gpu(a)
    mem = cp.cuda.UnownedMemory(int(e.gpudata), e.nbytes, e)
    np.testing.assert_array_equal(cp.asnumpy(cp.ndarray(e.shape, e.dtype, cp.cuda.MemoryPointer(mem, 0))), a)
    np.testing.assert_array_equal(cp.asnumpy(cp.asarray(e)), a)


@pytest.mark.gpu
def test_kernel_takes_a_torch_tensor(rng, module):
    torch = pytest.importorskip("torch")
    a = random_array(rng, 1024, np.float32)
    t = torch.from_numpy(a.copy()).cuda()
    module.get_function("twice")(t, np.int32(a.size), block=(256, 1, 1), grid=(4, 1))
    drv.Context.synchronize()
    np.testing.assert_array_equal(t.cpu().numpy(), a * 2)


@pytest.mark.gpu
def test_faulting_kernel_names_itself_at_synchronize():
    # An illegal address kills the CUDA context for the rest of the process: use a fresh one.
    code = (
        "import ember, ember.cuda.autoinit\n"
        "import ember.cuda.driver as drv\n"
        "from ember.cuda.compiler import SourceModule\n"
        "f = SourceModule('__global__ void scribble(float *p) { p[threadIdx.x] = 1.0f; }').get_function('scribble')\n"
        "f(drv.DeviceAllocation(0x10), block=(32, 1, 1))\n"
        "try:\n"
        "    drv.Context.synchronize()\n"
        "except ember.DriverError as e:\n"
        "    print(type(e).__name__, isinstance(e, drv.Error), e.last_kernel, '|', e)\n"
    )
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("LogicError True scribble |"), r.stdout
    assert "scribble" in r.stdout.split("|", 1)[1]


def test_mem_alloc_like_holds_an_array_of_the_same_size(rng):
    a = rng.standard_normal((7, 5)).astype(np.float32)
    d = drv.mem_alloc_like(a)
    drv.memcpy_htod(d, a)
    back = np.empty_like(a)
    drv.memcpy_dtoh(back, d)
    np.testing.assert_array_equal(back, a)
