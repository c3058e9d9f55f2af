"""ember.cl: PyOpenCL programs run with ``from ember import cl``, checked against NumPy."""

import warnings

import ember
import numpy as np
import pytest
from conftest import run_python
from ember import cl, cuda

# One program for the module: each new build costs PoCL about a second.
SOURCE = """
__kernel void vector_add(__global const float *a, __global const float *b, __global float *out)
{
    int i = get_global_id(0);
    out[i] = a[i] + b[i];
}

// Work-item (r, c) of a (rows, cols) range handles element r * width + c.
__kernel void scale_2d(__global const float *x, __global float *out, float alpha, int width)
{
    int r = get_global_id(0), c = get_global_id(1);
    out[r * width + c] = alpha * x[r * width + c] + (float)(r - c);
}

__kernel void reverse_groups(__global const float *x, __global float *out, __local float *tile)
{
    int l = get_local_id(0), n = get_local_size(0);
    tile[l] = x[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[n - 1 - l];
}
"""

mf = cl.mem_flags


@pytest.fixture(scope="module")
def prg(ctx):
    return cl.Program(ctx, SOURCE).build()


def to_host(queue, buf, shape, dtype=np.float32):
    out = np.empty(shape, dtype)
    cl.enqueue_copy(queue, out, buf)
    return out


def test_import_starts_no_backend():
    # With an unknown backend named, starting one fails: the import must not try.
    r = run_python("from ember import cl; print(cl.mem_flags.COPY_HOST_PTR)", {"EMBER_BACKEND": "none-such"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "32"


def test_platforms_group_the_opencl_devices():
    platforms = cl.get_platforms()
    assert platforms
    for p in platforms:
        assert p.name and p.vendor and p.version
        devices = p.get_devices()
        assert devices == p.get_devices(cl.device_type.ALL)
        for d in devices:
            assert d.platform is p
            assert d.type & (cl.device_type.CPU | cl.device_type.GPU)
            assert d.max_work_group_size >= 1 and d.max_compute_units >= 1
            assert d.global_mem_size > 0 and len(d.max_work_item_sizes) == 3
            assert d.get_info(cl.device_info.NAME) == d.name
            assert ember.Device(d.ordinal).name == d.name


def test_constants_have_opencl_values():
    assert (mf.READ_WRITE, mf.WRITE_ONLY, mf.READ_ONLY, mf.USE_HOST_PTR, mf.COPY_HOST_PTR) == (1, 2, 4, 8, 32)
    assert (cl.device_type.CPU, cl.device_type.GPU, cl.device_type.ALL) == (2, 4, 0xFFFFFFFF)
    assert cl.command_queue_properties.PROFILING_ENABLE == 2


def test_vector_add_as_pyopencl_users_write_it(ctx, queue, prg, rng):
    a_np = rng.random(50_000).astype(np.float32)
    b_np = rng.random(50_000).astype(np.float32)
    a_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a_np)
    b_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b_np)
    res_g = cl.Buffer(ctx, mf.WRITE_ONLY, a_np.nbytes)
    knl = prg.vector_add
    event = knl(queue, a_np.shape, None, a_g, b_g, res_g)
    res_np = np.empty_like(a_np)
    cl.enqueue_copy(queue, res_np, res_g)
    event.wait()
    assert event.command_execution_status == cl.command_execution_status.COMPLETE
    np.testing.assert_array_equal(res_np, a_np + b_np)


def test_two_dimensional_range_and_scalar_arguments(ctx, queue, prg, rng):
    rows, cols = 24, 40
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    x_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    out_g = cl.Buffer(ctx, mf.WRITE_ONLY, x.nbytes)
    prg.scale_2d(queue, (rows, cols), None, x_g, out_g, np.float32(1.5), np.int32(cols))
    r, c = np.indices((rows, cols))
    np.testing.assert_allclose(to_host(queue, out_g, x.shape), np.float32(1.5) * x + (r - c), rtol=1e-6, atol=1e-6)


def test_declared_scalar_types_accept_python_numbers(ctx, queue, prg, rng):
    x = rng.standard_normal((4, 8)).astype(np.float32)
    x_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    out_g = cl.Buffer(ctx, mf.WRITE_ONLY, x.nbytes)
    knl = cl.Kernel(prg, "scale_2d")
    knl.set_scalar_arg_dtypes([None, None, np.float32, np.int32])
    knl(queue, (4, 8), None, x_g, out_g, -2.0, 8)
    r, c = np.indices((4, 8))
    np.testing.assert_allclose(to_host(queue, out_g, x.shape), np.float32(-2.0) * x + (r - c), rtol=1e-6, atol=1e-6)
    with pytest.raises(TypeError, match=r"length of argument list \(2\) and CL-generated number of arguments \(4\)"):
        knl.set_scalar_arg_dtypes([None, None])


def test_local_memory_with_explicit_local_size(ctx, queue, prg, rng):
    group = 16
    x = rng.standard_normal(group * 8).astype(np.float32)
    x_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    out_g = cl.Buffer(ctx, mf.WRITE_ONLY, x.nbytes)
    prg.reverse_groups(queue, x.shape, (group,), x_g, out_g, cl.LocalMemory(group * 4))
    np.testing.assert_array_equal(to_host(queue, out_g, x.shape), x.reshape(-1, group)[:, ::-1].ravel())


def test_local_memory_beyond_the_device_is_refused_before_launching(ctx, queue, prg, rng):
    # PoCL aborted the process on it; refused up front (PyOpenCL's LogicError family, as a
    # driver's refusal would be), and the queue goes on working.
    group = 16
    x = rng.standard_normal(group * 8).astype(np.float32)
    x_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    out_g = cl.Buffer(ctx, mf.WRITE_ONLY, x.nbytes)
    needs = r"_groups: it needs \d+ bytes of shared memory per block \(\d+ declared in the kernel, 1073741824 dy"
    with pytest.raises(cl.LogicError, match=needs):
        prg.reverse_groups(queue, x.shape, (group,), x_g, out_g, cl.LocalMemory(1 << 30))
    prg.reverse_groups(queue, x.shape, (group,), x_g, out_g, cl.LocalMemory(group * 4))
    np.testing.assert_array_equal(to_host(queue, out_g, x.shape), x.reshape(-1, group)[:, ::-1].ravel())


def test_global_offset_starts_the_range_later(ctx, queue, prg, rng):
    a = rng.random(64).astype(np.float32)
    a_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    out = np.full(64, -1, np.float32)
    out_g = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out)
    prg.vector_add(queue, (48,), None, a_g, a_g, out_g, global_offset=(16,))
    expected = out.copy()
    expected[16:] = 2 * a[16:]
    np.testing.assert_array_equal(to_host(queue, out_g, 64), expected)


def test_enqueue_copy_with_offsets(ctx, queue, rng):
    src = rng.integers(-1000, 1000, 64).astype(np.int32)
    src_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=src)
    dst_g = cl.Buffer(ctx, mf.READ_WRITE, src.nbytes)
    cl.enqueue_copy(queue, dst_g, np.zeros_like(src))
    cl.enqueue_copy(queue, dst_g, src_g, byte_count=40, src_offset=8, dst_offset=100).wait()
    expected = np.zeros_like(src)
    expected[25:35] = src[2:12]
    np.testing.assert_array_equal(to_host(queue, dst_g, 64, np.int32), expected)
    # Host <-> buffer with offsets: read part of a buffer, write part of one.
    part = np.empty(5, np.int32)
    cl.enqueue_copy(queue, part, src_g, src_offset=12)
    np.testing.assert_array_equal(part, src[3:8])
    cl.enqueue_copy(queue, dst_g, part, dst_offset=4)
    expected[1:6] = src[3:8]
    np.testing.assert_array_equal(to_host(queue, dst_g, 64, np.int32), expected)


def test_enqueue_copy_out_of_range_is_a_logic_error(ctx, queue):
    small, large = cl.Buffer(ctx, mf.READ_WRITE, 16), cl.Buffer(ctx, mf.READ_WRITE, 64)
    with pytest.raises(cl.LogicError, match="INVALID_VALUE - 32 bytes at destination offset 0"):
        cl.enqueue_copy(queue, small, large, byte_count=32)
    with pytest.raises(TypeError, match="host-to-host"):
        cl.enqueue_copy(queue, np.zeros(4), np.zeros(4))


def test_fill_buffer_repeats_the_pattern(ctx, queue):
    buf = cl.Buffer(ctx, mf.READ_WRITE, 64)
    cl.enqueue_fill_buffer(queue, buf, np.float32(0), 0, 64)
    cl.enqueue_fill_buffer(queue, buf, np.float32(7.5), 16, 32)
    np.testing.assert_array_equal(to_host(queue, buf, 16), np.r_[np.zeros(4), np.full(8, 7.5), np.zeros(4)])


def test_buffer_views_as_ember_array_without_copy(ctx, queue, prg, rng):
    a = rng.random(256).astype(np.float32)
    a_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    out_g = cl.Buffer(ctx, mf.READ_WRITE, a.nbytes)
    prg.vector_add(queue, a.shape, None, a_g, a_g, out_g)
    view = out_g.as_array(np.float32, (16, 16))  # ember work and the queue's commands run in order
    np.testing.assert_array_equal(view.get(), (2 * a).reshape(16, 16))
    view.fill(3.0)  # writes through the array are seen by the buffer
    np.testing.assert_array_equal(to_host(queue, out_g, 256), np.full(256, 3.0, np.float32))
    same = ember.ndarray((256,), np.float32, memptr=out_g.data)
    assert same.data.ptr == view.data.ptr


def test_ember_array_wraps_as_buffer_without_copy(ctx, queue, prg, rng):
    a = rng.random(128).astype(np.float32)
    with cl.get_platforms()[0].get_devices()[0].ember_device:
        x = ember.asarray(a)
        out = ember.zeros(128, np.float32)
    x_g, out_g = cl.Buffer.from_array(x), cl.Buffer.from_array(out)
    assert out_g.size == out.nbytes
    prg.vector_add(queue, (128,), None, x_g, x_g, out_g)
    queue.finish()
    np.testing.assert_array_equal(out.get(), 2 * a)  # the kernel wrote the ember array
    # ember arrays are kernel arguments and copy targets too.
    prg.vector_add(queue, (128,), None, out, x, out)
    cl.enqueue_copy(queue, a, out)
    np.testing.assert_array_equal(a, 3 * x.get())


def test_use_host_ptr_shares_host_memory_on_a_cpu_device(ctx, queue, prg, rng):
    host = rng.random(64).astype(np.float32)
    orig = host.copy()
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.USE_HOST_PTR, hostbuf=host)
    copied = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=host)
    prg.vector_add(queue, host.shape, None, copied, copied, buf)
    queue.finish()
    if ctx.devices[0].host_unified_memory:
        np.testing.assert_array_equal(host, 2 * orig)  # the kernel wrote the host array itself
    np.testing.assert_array_equal(to_host(queue, buf, 64), 2 * orig)
    host[:] = 0  # COPY_HOST_PTR took a copy at creation
    np.testing.assert_array_equal(to_host(queue, copied, 64), orig)


def test_events_wait_across_queues_and_profile(ctx, prg, rng):
    a = rng.random(4096).astype(np.float32)
    a_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    mid_g, out_g = cl.Buffer(ctx, mf.READ_WRITE, a.nbytes), cl.Buffer(ctx, mf.READ_WRITE, a.nbytes)
    timed = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    other = cl.CommandQueue(ctx, stream=cuda.Stream(device=ctx.devices[0].ordinal))  # a queue of its own
    first = prg.vector_add(timed, a.shape, None, a_g, a_g, mid_g)
    second = prg.vector_add(other, a.shape, None, mid_g, a_g, out_g, wait_for=[first])
    cl.wait_for_events([first, second])
    assert first.profile.end >= first.profile.start
    np.testing.assert_array_equal(to_host(other, out_g, a.shape), 3 * a)
    with pytest.raises(cl.RuntimeError, match="PROFILING_INFO_NOT_AVAILABLE"):
        second.profile.start  # noqa: B018


def test_program_lists_its_kernels(ctx, prg):
    names = {k.function_name for k in prg.all_kernels()}
    assert names == {"vector_add", "scale_2d", "reverse_groups"}
    assert set(prg.kernel_names.split(";")) == names
    knl = prg.scale_2d
    assert knl.num_args == 4
    size = knl.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, ctx.devices[0])
    assert 1 <= size <= ctx.devices[0].max_work_group_size
    with pytest.raises(AttributeError, match="'nope' was not found as a program info attribute or as a kernel name"):
        prg.nope  # noqa: B018


def test_create_some_context_follows_pyopencl_ctx(monkeypatch):
    monkeypatch.setenv("PYOPENCL_CTX", "0:0")
    device = cl.get_platforms()[0].get_devices()[0]
    assert cl.create_some_context().devices == [device]
    name_part = device.name[:4].lower()
    assert cl.create_some_context(answers=["0", name_part]).devices == [device]
    with pytest.raises(cl.RuntimeError, match="input did not match any platform"):
        cl.create_some_context(answers=["no such platform"])


# --- errors -----------------------------------------------------------------------------------


def test_build_failure_shows_log_and_numbered_source(ctx):
    bad = "__kernel void broken(__global float *a)\n{\n    a[0] = undefined_name;\n}\n"
    with pytest.raises(cl.RuntimeError) as info:
        cl.Program(ctx, bad).build(options="-DWIDTH=4")
    err = info.value
    assert isinstance(err, ember.CompileError) and isinstance(err, cl.Error)
    assert err.code == cl.status_code.BUILD_PROGRAM_FAILURE and err.routine == "clBuildProgram"
    text = str(err)
    assert text.startswith("clBuildProgram failed: BUILD_PROGRAM_FAILURE")
    assert "undefined_name" in err.log and "(options: -DWIDTH=4)" in text
    assert ">3 |     a[0] = undefined_name;" in text


def test_wrong_argument_count_raises_before_launch(ctx, queue, prg):
    out = np.full(8, -1, np.float32)
    out_g = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out)
    with pytest.raises(TypeError, match=r"kernel vector_add takes 3 argument\(s\), but 2 were given"):
        prg.vector_add(queue, (8,), None, out_g, out_g)
    np.testing.assert_array_equal(to_host(queue, out_g, 8), out)


def test_python_float_argument_is_named(ctx, queue, prg):
    buf = cl.Buffer(ctx, mf.READ_WRITE, 16 * 4)
    with pytest.raises(cl.LogicError, match="argument 2 of kernel scale_2d is a Python float") as info:
        prg.scale_2d(queue, (4, 4), None, buf, buf, 1.5, np.int32(4))
    assert isinstance(info.value, TypeError)
    assert "numpy.float32(x)" in str(info.value)


def test_host_array_argument_is_a_type_error(ctx, queue, prg):
    buf = cl.Buffer(ctx, mf.READ_WRITE, 16)
    with pytest.raises(TypeError, match="argument 0 of kernel vector_add is a NumPy array.*cl.Buffer"):
        prg.vector_add(queue, (4,), None, np.zeros(4, np.float32), buf, buf)


def test_global_size_must_be_a_multiple_of_local_size(ctx, queue, prg):
    buf = cl.Buffer(ctx, mf.READ_WRITE, 40)
    with pytest.raises(cl.LogicError, match=r"INVALID_WORK_GROUP_SIZE.*not a multiple of local size") as info:
        prg.vector_add(queue, (10,), (4,), buf, buf, buf)
    assert info.value.code == cl.status_code.INVALID_WORK_GROUP_SIZE
    with pytest.raises(cl.LogicError, match="global/local work sizes have differing dimensions"):
        prg.vector_add(queue, (8,), (4, 1), buf, buf, buf)
    with pytest.raises(TypeError, match="global_size must be a tuple"):
        prg.vector_add(queue, 8, None, buf, buf, buf)


def test_buffer_argument_checks_follow_pyopencl(ctx):
    host = np.arange(4, dtype=np.float32)
    with warnings.catch_warnings(record=True) as caught, pytest.raises(cl.LogicError, match="INVALID_HOST_PTR"):
        warnings.simplefilter("always")
        cl.Buffer(ctx, mf.READ_ONLY, hostbuf=host)
    assert "no memory flags to make use of it" in str(caught[0].message)
    with pytest.raises(cl.LogicError, match="specified size is greater than host buffer size"):
        cl.Buffer(ctx, mf.COPY_HOST_PTR, size=64, hostbuf=host)
    with pytest.raises(cl.LogicError, match="INVALID_BUFFER_SIZE"):
        cl.Buffer(ctx, mf.READ_WRITE)
    assert cl.Buffer(ctx, mf.COPY_HOST_PTR, hostbuf=host).size == host.nbytes
