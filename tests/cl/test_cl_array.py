"""PyOpenCL's ``pyopencl.array``, ``clrandom``, ``cltypes``, ``characterize`` and ``tools`` on
ember (issue 29): ``cl.array.Array`` is ember's one array type; values checked against NumPy."""

import ember
import numpy as np
import pytest
from ember import cl
from ember.cl import array as cl_array
from ember.cl import characterize, clrandom, cltypes, tools


def test_array_is_embers_one_array_type(queue, rng):
    host = rng.standard_normal((6, 5)).astype(np.float32)
    a = cl_array.to_device(queue, host)
    assert type(a) is ember.ndarray and isinstance(a, cl_array.Array) and isinstance(a * 2, cl_array.Array)
    assert a.queue is queue and a.copy().queue is queue and a.copy(queue=None).queue is None
    np.testing.assert_array_equal(a.get(), host)
    np.testing.assert_array_equal((2 * a - a ** 2).get(queue), 2 * host - host ** 2)
    out = np.empty_like(host)
    assert a.get(queue, out) is out  # PyOpenCL's get(queue, ary)
    np.testing.assert_array_equal(out, host)
    b = cl_array.Array(queue, (4, 3), np.int32)  # PyOpenCL's constructor
    assert (b.shape, b.dtype, b.queue) == ((4, 3), np.int32, queue)
    assert b.fill(7) is b and (b.get() == 7).all()


def test_array_over_a_buffer_at_an_offset_and_base_data(ctx, queue):
    host = np.arange(32, dtype=np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    view = cl_array.Array(queue, (3, 4), np.float32, data=buf, offset=8 * 4)
    np.testing.assert_array_equal(view.get(), host[8:20].reshape(3, 4))
    assert view.offset == 32 and view.base_data.size == buf.size
    view += 100
    np.testing.assert_array_equal(cl_array.Array(queue, 32, np.float32, data=buf).get()[8:20], host[8:20] + 100)
    with pytest.raises(ValueError, match="does not fit"):
        cl_array.Array(queue, (40,), np.float32, data=buf)


def test_module_functions_match_numpy(queue, rng):
    x = rng.standard_normal(50)
    y = rng.standard_normal(50)
    a, b = cl_array.to_device(queue, x), cl_array.to_device(queue, y)
    np.testing.assert_array_equal(cl_array.maximum(a, b).get(), np.maximum(x, y))
    np.testing.assert_array_equal(cl_array.minimum(a, 0.25).get(), np.minimum(x, 0.25))
    np.testing.assert_array_equal(cl_array.if_positive(a, a, b).get(), np.where(x > 0, x, y))
    np.testing.assert_allclose(cl_array.sum(a).get(), x.sum(), rtol=1e-13)
    np.testing.assert_allclose(cl_array.dot(a, b).get(), x @ y, rtol=1e-13)
    assert cl_array.max(a).get() == x.max() and cl_array.min(a).get() == x.min()
    steps = cl_array.arange(queue, 3, 20, 4, dtype=np.int32)
    np.testing.assert_array_equal(steps.get(), np.arange(3, 20, 4, dtype=np.int32))
    idx = rng.integers(0, 50, 20)
    np.testing.assert_array_equal(cl_array.take(a, cl_array.to_device(queue, idx)).get(), x[idx])
    np.testing.assert_array_equal(cl_array.concatenate([a, b]).get(), np.concatenate([x, y]))
    np.testing.assert_array_equal(cl_array.diff(a).get(), np.diff(x))
    np.testing.assert_allclose(cl_array.cumsum(a).get(), np.cumsum(x), rtol=1e-12)
    with pytest.raises(ValueError, match="zero-size"):
        cl_array.max(cl_array.empty(queue, 0, np.float32))


def test_clrandom_draws_in_range_and_repeats_for_a_seed(ctx, queue):
    for dtype in (np.float32, np.float64):
        x = clrandom.rand(queue, (20000,), dtype, a=2, b=5).get()
        assert x.dtype == dtype and 2 <= x.min() and x.max() < 5 and abs(x.mean() - 3.5) < 0.05
    ints = clrandom.rand(queue, 20000, np.int32, a=-3, b=7).get()
    assert set(np.unique(ints)) == set(range(-3, 7))
    one, two = clrandom.PhiloxGenerator(ctx, seed=5), clrandom.ThreefryGenerator(ctx, seed=5)
    np.testing.assert_array_equal(one.normal(queue, 100, np.float64).get(), two.normal(queue, 100, np.float64).get())
    n = one.normal(queue, 40000, np.float32, mu=1, sigma=2).get()
    assert abs(n.mean() - 1) < 0.05 and abs(n.std() - 2) < 0.05
    v = one.uniform(queue, 30, cltypes.float4).get()
    assert v.dtype == cltypes.float4 and all(0 <= v[f].min() and v[f].max() < 1 for f in ("x", "y", "z", "w"))
    with pytest.raises(TypeError, match="integer dtype"):
        one.normal(queue, 10, np.int32)


def test_cltypes_and_dtype_registry():
    v = cltypes.make_float3(1, 2, 3)
    assert cltypes.float3.itemsize == 16 and (v["x"], v["y"], v["z"]) == (1, 2, 3)
    assert tuple(cltypes.zeros_int2()) == (0, 0) and tuple(cltypes.filled_double2(4)) == (4, 4)
    assert tools.dtype_to_ctype(cltypes.float4) == "float4" and tools.dtype_to_ctype(np.uint32) == "unsigned int"
    assert tools.get_or_register_dtype("float4") == cltypes.float4
    with pytest.raises(TypeError, match="make_float4"):
        cltypes.make_float4(1, 2)


def test_device_information_and_characterize(ctx):
    dev = ctx.devices[0]
    assert dev.get_info(cl.device_info.EXTENSIONS) == dev.extensions and "cl_khr" in dev.extensions
    assert dev.local_mem_size > 0 and len(dev.max_work_item_sizes) == dev.max_work_item_dimensions
    assert dev.platform.vendor and dev.platform._get_cl_version() >= (1, 2)
    assert characterize.has_double_support(dev) == ("cl_khr_fp64" in dev.extensions.split())
    if dev.platform.name == "Portable Computing Language":
        assert characterize.get_pocl_version(dev.platform) >= (1, 0)
        assert characterize.has_struct_arg_count_bug(dev) is False
    with pytest.raises(AttributeError, match="no attribute 'not_a_parameter'"):
        _ = dev.not_a_parameter


def test_memory_pool_bins_and_reuse(queue):
    pool = tools.MemoryPool(tools.ImmediateAllocator(queue))
    for size in (1, 15, 16, 17, 1000, 123457, 2**30 + 3):
        got = pool.alloc_size(pool.bin_number(size))
        assert size <= got <= size + size / 8 + 1 and pool.bin_number(got) == pool.bin_number(size)
    buf = pool.allocate(1000)
    assert buf.size == pool.alloc_size(pool.bin_number(1000))
    buf.release()
    assert pool.held_blocks == 1 and pool.allocate(1000).size == buf.size and pool.held_blocks == 0
    a = cl_array.arange(queue, 100, dtype=np.float32, allocator=pool)
    assert a.allocator is pool
    assert tools.ImmediateAllocator(queue)(0) is None


def test_pytest_device_parametrization(monkeypatch):
    monkeypatch.setenv("PYOPENCL_TEST", "0:0")
    [(platform, devices)] = tools.get_test_platforms_and_devices()
    assert platform == cl.get_platforms()[0] and devices == platform.get_devices()[:1]
    monkeypatch.setenv("PYOPENCL_TEST", "no such platform")
    with pytest.raises(RuntimeError, match="not found"):
        tools.get_test_platforms_and_devices()


def test_struct_layout_asked_of_the_device(queue):
    dtype, decl = tools.match_dtype_to_c_struct(
        queue.device, "padded_rec", np.dtype([("a", np.int8), ("b", np.float64), ("c", np.int32, (3,))]))
    assert "typedef struct" in decl and "int c[3];" in decl
    # OpenCL C aligns the double to 8 bytes and rounds the struct up to 8.
    assert [dtype.fields[f][1] for f in ("a", "b", "c")] == [0, 8, 16] and dtype.itemsize == 32
    dtype = tools.get_or_register_dtype("padded_rec", dtype)
    host = np.zeros(7, dtype)
    host["b"], host["c"] = np.arange(7) * 1.5, np.arange(21).reshape(7, 3)
    dev = cl_array.to_device(queue, host)
    np.testing.assert_array_equal(dev[::2].get(), host[::2])
    assert (cl_array.zeros(queue, 5, dtype).get() == np.zeros(5, dtype)).all()


def test_context_dependent_memoize(ctx):
    calls = []

    @tools.context_dependent_memoize
    def build(context, n):
        calls.append(n)
        return n * 2

    assert build(ctx, 3) == build(ctx, 3) == 6 and calls == [3]
    assert build(ctx, 4) == 8 and calls == [3, 4]


def test_vector_and_struct_kernel_arguments_by_value(ctx, queue):
    prg = cl.Program(ctx, """
        typedef struct { int count; float scale; } params_t;
        __kernel void fill(float4 x, params_t p, __global float4 *dest)
        { int i = get_global_id(0); dest[i] = x * (p.scale * (i < p.count)); }""").build()
    params = np.array((30, 2.5), np.dtype([("count", np.int32), ("scale", np.float32)]))[()]
    dest = cl_array.empty(queue, 50, cltypes.float4)
    prg.fill(queue, (50,), None, cltypes.make_float4(1, 2, 3, 4), params, dest.data)
    got = dest.get()
    want = np.zeros(50, cltypes.float4)
    want[:30] = cltypes.make_float4(2.5, 5, 7.5, 10)
    np.testing.assert_array_equal(got.view(np.float32), want.view(np.float32))


def test_wrapper_odds_and_ends(ctx):
    host = np.arange(25, dtype=np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR, hostbuf=host)
    view = buf.get_host_array(25, np.float32)
    assert view.base is buf and (view == host).all()
    with pytest.raises(cl.LogicError, match="USE_HOST_PTR"):
        cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 100).get_host_array(25, np.float32)
    platform = ctx.devices[0].platform
    assert platform.get_devices(cl.device_type.ACCELERATOR | cl.device_type.CUSTOM) == []
    assert cl.DeviceTopologyAmd(3, 4, 5).function == 5
    dev = ctx.devices[0]
    assert dev.hashable_model_and_version_identifier[3] == dev.name
    with pytest.deprecated_call():
        _ = dev.persistent_unique_id
    with cl.CommandQueue(ctx) as q:
        pass
    with pytest.warns(cl.CommandQueueUsedAfterExit):
        q.flush()


def test_arrays_on_a_second_device_stay_there(ctx):
    # PoCL opens two CPU devices with POCL_DEVICES: every array the PyOpenCL face makes for a
    # queue of the second device is made there (random numbers, structured fills, list builds).
    if ctx.devices[0].platform.name != "Portable Computing Language":
        pytest.skip("needs PoCL to make a second device")
    from conftest import run_python

    code = """
import numpy as np
from ember import cl
from ember.cl import array as cl_array, clrandom, cltypes
dev = cl.get_platforms()[0].get_devices()[1]
q = cl.CommandQueue(cl.Context([dev]))
r = clrandom.rand(q, 1000, np.float32)
assert r._a.device == dev.ordinal == 1 and 0 <= r.get().min() and r.get().max() < 1
v = cl_array.empty(q, 10, cltypes.float4)
v.fill(cltypes.make_float4(1, 2, 3, 4))
assert (v.get() == cltypes.make_float4(1, 2, 3, 4)).all()
print("ok")
"""
    done = run_python(code, {"POCL_DEVICES": "pthread pthread", "EMBER_BACKEND": "opencl"})
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-2000:]


def test_map_buffer_reads_and_writes_back(ctx, queue):
    host = np.arange(10, dtype=np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    mapped, _ = cl.enqueue_map_buffer(queue, buf, cl.map_flags.READ | cl.map_flags.WRITE, 8, (4,), np.float32)
    np.testing.assert_array_equal(mapped, host[2:6])
    with mapped.base:
        mapped *= 10
    out = np.empty_like(host)
    cl.enqueue_copy(queue, out, buf)
    np.testing.assert_array_equal(out, np.concatenate([host[:2], host[2:6] * 10, host[6:]]))
    with pytest.raises(cl.LogicError, match="already unmapped"):
        mapped.base.release()
    with pytest.raises(cl.Error, match="do not fit"):
        cl.enqueue_map_buffer(queue, buf, cl.map_flags.READ, 32, (4,), np.float32)


def test_program_binaries_load_back(ctx, queue):
    src = "__kernel void twice(__global float *x, __global float *y) { y[get_global_id(0)] = 2 * x[get_global_id(0)]; }"
    prg = cl.Program(ctx, src).build()
    [binary] = prg.get_info(cl.program_info.BINARIES)
    assert prg.get_info(cl.program_info.BINARY_SIZES) == [len(binary)] and prg.binaries == [binary]
    loaded = cl.Program(ctx, [queue.device], [binary]).build()
    x = cl_array.arange(queue, 64, dtype=np.float32)
    y = cl_array.empty_like(x)
    loaded.twice(queue, (64,), None, x.data, y.data)
    np.testing.assert_array_equal(y.get(), 2 * np.arange(64, dtype=np.float32))
    with pytest.raises(cl.Error, match="one binary a device"):
        cl.Program(ctx, [queue.device], [binary, binary])


def test_user_event_holds_back_commands_until_set(ctx, queue):
    import threading
    import time

    host = np.arange(1000, dtype=np.float32)
    src = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    dst = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, host.nbytes)
    prg = cl.Program(ctx, "__kernel void twice(__global const float *a, __global float *r)"
                          "{ int g = get_global_id(0); r[g] = 2 * a[g]; }").build()
    gate = cl.UserEvent(ctx)
    evt = prg.twice(queue, host.shape, None, src, dst, wait_for=[gate])
    seen = []
    evt.set_callback(cl.command_execution_status.COMPLETE, seen.append)
    waiter = threading.Thread(target=gate.wait)
    waiter.start()
    time.sleep(0.05)
    assert waiter.is_alive() and gate.command_execution_status != cl.command_execution_status.COMPLETE
    assert evt.command_execution_status != cl.command_execution_status.COMPLETE
    gate.set_status(cl.command_execution_status.COMPLETE)
    waiter.join(10)
    evt.wait()
    out = np.empty_like(host)
    cl.enqueue_copy(queue, out, dst)
    np.testing.assert_array_equal(out, 2 * host)
    for _ in range(100):
        if seen:
            break
        time.sleep(0.01)
    assert seen == [cl.command_execution_status.COMPLETE]


def test_queue_event_and_build_information(ctx):
    q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    assert q.get_info(cl.command_queue_info.DEVICE) == ctx.devices[0]
    assert q.get_info(cl.command_queue_info.CONTEXT) is ctx
    prg = cl.Program(ctx, "__kernel void dbl(__global float *a) { a[get_global_id(0)] *= 2; }").build(
        options=["-DUNUSED=1"])
    assert prg.get_build_info(ctx.devices[0], cl.program_build_info.STATUS) == cl.build_status.SUCCESS
    assert prg.get_build_info(ctx.devices[0], cl.program_build_info.OPTIONS) == "-DUNUSED=1"
    evt = prg.dbl(q, (64,), None, cl.Buffer(ctx, 0, 256))
    evt.wait()
    assert evt.get_info(cl.event_info.COMMAND_EXECUTION_STATUS) == cl.command_execution_status.COMPLETE
    assert evt.get_info(cl.event_info.COMMAND_QUEUE) is q
    assert evt.get_profiling_info(cl.profiling_info.END) >= evt.get_profiling_info(cl.profiling_info.START)
    with pytest.raises(cl.Error, match="not available"):
        q.get_info(0x9999)


def test_rectangular_buffer_copy(queue):
    src = cl_array.to_device(queue, np.arange(6, dtype=np.float32).reshape(2, 3))
    dst = cl_array.zeros(queue, (4, 5), np.float32)
    # region and origins in (bytes, rows): the 2x3 block into rows 1-2, columns 1-3.
    cl.enqueue_copy(queue, dst.data, src.data, src_origin=(0, 0), dst_origin=(4, 1), region=(12, 2),
                    src_pitches=(12,), dst_pitches=(20,))
    want = np.zeros((4, 5), np.float32)
    want[1:3, 1:4] = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(dst.get(), want)
    with pytest.raises(cl.Error, match="does not fit"):
        cl.enqueue_copy(queue, dst.data, src.data, src_origin=(0, 0), dst_origin=(0, 4), region=(20, 2))


def test_results_keep_queue_allocator_and_record_events(ctx, queue, rng):
    pool = tools.MemoryPool(tools.ImmediateAllocator(queue))
    host = rng.standard_normal(300).astype(np.float32)
    a = cl_array.to_device(queue, host, allocator=pool)
    for result in (a + a, 2 * a, a / 3, -a, a ** 2, a > 0):
        assert result.queue is queue and result.allocator is pool and len(result.events) == 1
    np.testing.assert_array_equal((a + 4000).get(), host + np.float32(4000))
    plain = ember.asarray(host)
    assert (plain + 1).queue is None and (plain + 1).allocator is None  # no PyOpenCL settings: none made
    x = cl_array.zeros(queue, 50, np.float32)  # zeros' own fill is an event, as in PyOpenCL
    before = len(x.events)
    for _ in range(5):
        x.fill(1.5)
    assert len(x.events) == before + 5
    for _ in range(100):
        x.fill(2.5)
    assert len(x.events) <= 20  # bounded, as PyOpenCL bounds it
    x.finish()
    assert x.events == [] and (x.get() == np.float32(2.5)).all()


def test_map_to_host_writes_back_on_release(queue):
    a = cl_array.zeros(queue, (5, 6, 7), np.float32)
    a[3, 2, 1] = 10
    host = a.map_to_host()
    assert isinstance(host.base, cl.MemoryMap) and host[3, 2, 1] == 10
    host[1, 2, 3] = 7
    saved = host.copy()
    host.base.release(queue)
    np.testing.assert_array_equal(a.get(), saved)
    strided = a[:, ::2]  # not contiguous: a plain copy
    copied = strided.map_to_host()
    assert not isinstance(copied.base, cl.MemoryMap)
    np.testing.assert_array_equal(copied, saved[:, ::2])
