"""PyOpenCL's images, samplers, separate compilation, raw handles and captured calls on ember
(issue 29), checked against the NumPy data they were made from (fixed seeds)."""

import io

import numpy as np
import pytest
from ember import cl

COPY_2D = """
__kernel void copy_2d(__global float *dest, __read_only image2d_t src, sampler_t samp, int width)
{
    int y = get_global_id(0), x = get_global_id(1);
    dest[y * width + x] = read_imagef(src, samp, (int2)(x, y)).x;
}
"""


@pytest.fixture(scope="module")
def images(ctx):
    if not ctx.devices[0].image_support:
        pytest.skip(f"{ctx.devices[0]!r} has no image support")
    return ctx


def test_image_format_and_supported_formats(images):
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.HALF_FLOAT)
    assert (fmt.channel_count, fmt.dtype_size, fmt.itemsize) == (4, 2, 8)
    assert fmt == cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.HALF_FLOAT) and not hasattr(fmt, "__dict__")
    assert repr(fmt) == "ImageFormat(RGBA, HALF_FLOAT)"
    formats = cl.get_supported_image_formats(images, cl.mem_flags.READ_ONLY, cl.mem_object_type.IMAGE2D)
    # OpenCL 1.2 requires every image device to support RGBA with FLOAT for reading.
    assert cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT) in formats


def test_image_round_trip_kernel_read_and_fill(images, queue, rng):
    a = rng.random((48, 40), dtype=np.float32)
    img = cl.image_from_array(images, a, 1)
    assert (img.shape, img.width, img.height, img.row_pitch >= 160) == ((40, 48), 40, 48, True)
    assert img.format == cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT)
    back = np.zeros_like(a)
    cl.enqueue_copy(queue, back, img, origin=(0, 0), region=(40, 48))
    np.testing.assert_array_equal(back, a)

    samp = cl.Sampler(images, False, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.NEAREST)
    assert (samp.normalized_coords, samp.addressing_mode) == (False, cl.addressing_mode.CLAMP_TO_EDGE)
    prg = cl.Program(images, COPY_2D).build()
    dest = cl.Buffer(images, cl.mem_flags.READ_WRITE, a.nbytes)
    prg.copy_2d(queue, a.shape, None, dest, img, samp, np.int32(40))
    out = np.zeros_like(a)
    cl.enqueue_copy(queue, out, dest)
    np.testing.assert_array_equal(out, a)

    # A sub-rectangle written from the host, then read back alone.
    patch = rng.random((5, 7), dtype=np.float32)
    cl.enqueue_copy(queue, img, patch, origin=(3, 10), region=(7, 5))
    expected = a.copy()
    expected[10:15, 3:10] = patch
    cl.enqueue_copy(queue, back, img, origin=(0, 0), region=(40, 48))
    np.testing.assert_array_equal(back, expected)

    cl.enqueue_fill_image(queue, img, np.float32([0.25, 0, 0, 0]), (0, 0), (40, 48))
    cl.enqueue_copy(queue, back, img, origin=(0, 0), region=(40, 48))
    assert (back == np.float32(0.25)).all()


def test_copies_between_images_and_buffers(images, queue, rng):
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNSIGNED_INT8)
    a = rng.integers(0, 256, (16, 24, 4), dtype=np.uint8)
    src = cl.Image(images, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, fmt, shape=(24, 16), hostbuf=a)
    layers = cl.Image(images, cl.mem_flags.READ_WRITE, fmt, shape=(24, 16, 3), is_array=True)
    assert layers.type == cl.mem_object_type.IMAGE2D_ARRAY and layers.array_size == 3
    cl.enqueue_copy(queue, layers, src, src_origin=(0, 0, 0), dest_origin=(0, 0, 2), region=(24, 16, 1))
    buf = cl.Buffer(images, cl.mem_flags.READ_WRITE, a.nbytes)
    cl.enqueue_copy(queue, buf, layers, origin=(0, 0, 2), region=(24, 16, 1), offset=0)
    host = np.zeros_like(a)
    cl.enqueue_copy(queue, host, buf)
    np.testing.assert_array_equal(host, a)

    flipped = np.ascontiguousarray(a[::-1])
    cl.enqueue_copy(queue, buf, flipped)
    cl.enqueue_copy(queue, src, buf, offset=0, origin=(0, 0), region=(24, 16))
    cl.enqueue_copy(queue, host, src, origin=(0, 0), region=(24, 16))
    np.testing.assert_array_equal(host, flipped)


def test_image_errors(images, queue):
    fmt = cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT)
    with pytest.raises(cl.LogicError, match="'shape' must be passed"):
        cl.Image(images, cl.mem_flags.READ_ONLY, fmt)
    img = cl.Image(images, cl.mem_flags.READ_WRITE, fmt, shape=(8, 8))
    with pytest.raises(cl.LogicError, match="host buffer has 16 bytes"):
        cl.enqueue_copy(queue, np.zeros(4, np.float32), img, origin=(0, 0), region=(8, 8))
    with pytest.raises(ValueError, match="images cannot have more than three dimensions"):
        cl.Image(images, cl.mem_flags.READ_ONLY, fmt, shape=(2, 2, 2, 2))
    with pytest.raises(cl.Error, match="clCreateImage"):
        cl.Image(images, cl.mem_flags.READ_ONLY, cl.ImageFormat(0x1234, cl.channel_type.FLOAT), shape=(8, 8))
    np.testing.assert_array_equal(np.zeros(1), 0)  # the process goes on after driver errors
    cl.enqueue_copy(queue, np.zeros(64, np.float32), img, origin=(0, 0), region=(8, 8))


def test_compile_and_link_programs(ctx, queue):
    sink = cl.Program(ctx, "void store(__global float *out, float x) { out[get_global_id(0)] = x; }").compile()
    header = cl.Program(ctx, "inline float offset_of(void) { return 0.5f; }").compile()
    main = cl.Program(ctx, """
        #include "offset.h"
        void store(__global float *out, float x);
        __kernel void fill_index(__global float *out) { store(out, get_global_id(0) + offset_of()); }
        """).compile(headers=[("offset.h", header)])
    linked = cl.link_program(ctx, [sink, main])
    assert linked.kernel_names == "fill_index"
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * 300)
    linked.fill_index(queue, (300,), None, buf)
    out = np.empty(300, np.float32)
    cl.enqueue_copy(queue, out, buf)
    np.testing.assert_array_equal(out, np.arange(300, dtype=np.float32) + np.float32(0.5))

    with pytest.raises(cl.ProgramBuildError, match="clCompileProgram failed: COMPILE_PROGRAM_FAILURE"):
        cl.Program(ctx, "void broken( { }").compile()
    with pytest.raises(cl.LogicError, match="was not compiled"):
        cl.link_program(ctx, [cl.Program(ctx, "void f(void) {}")])
    with pytest.raises(cl.ProgramBuildError, match="LINK_PROGRAM_FAILURE"):
        cl.link_program(ctx, [main])  # store() is defined nowhere


def test_int_ptr_round_trips(ctx, queue):
    device = ctx.devices[0]
    prg = cl.Program(ctx, "__kernel void twice(__global float *a) { a[get_global_id(0)] *= 2; }").build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    objects = [device, device.platform, ctx, queue, cl.enqueue_marker(queue), prg, prg.twice, buf]
    if device.image_support:
        objects += [cl.Sampler(ctx, False, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.NEAREST),
                    cl.Image(ctx, cl.mem_flags.READ_ONLY, cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT),
                             shape=(4, 4))]
    handles = set()
    for obj in objects:
        handle = obj.int_ptr
        assert handle != 0
        handles.add(handle)
        again = type(obj).from_int_ptr(handle)
        assert again == obj and type(again) is type(obj)
    assert len(handles) == len(objects)  # each a driver object of its own
    with pytest.raises(cl.LogicError, match="not handles from other OpenCL libraries"):
        cl.Buffer.from_int_ptr(12345)
    with pytest.raises(cl.LogicError, match="no cl_mem of its own"):
        buf[16:32].int_ptr  # noqa: B018


def test_capture_call_writes_a_script_that_repeats_the_launch(ctx, queue, rng):
    a, b = rng.random(300, dtype=np.float32), rng.random(300, dtype=np.float32)
    flags = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
    a_g, b_g = cl.Buffer(ctx, flags, hostbuf=a), cl.Buffer(ctx, flags, hostbuf=b)
    out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, a.nbytes)
    prg = cl.Program(ctx, """__kernel void scaled_sum(__global const float *a, __global const float *b,
                                                      __global float *out, float s)
                             { int i = get_global_id(0); out[i] = s * (a[i] + b[i]); }""").build()
    script = io.StringIO()
    prg.scaled_sum.capture_call(script, queue, a.shape, None, a_g, b_g, out, np.float32(3))
    namespace = {}
    exec(compile(script.getvalue(), "captured.py", "exec"), namespace)
    args = namespace["main"]()
    result = np.empty_like(a)
    cl.enqueue_copy(cl.CommandQueue(args[2].context), result, args[2])
    np.testing.assert_array_equal(result, np.float32(3) * (a + b))
    with pytest.raises(TypeError, match="cannot capture argument 0"):
        prg.scaled_sum.capture_call(io.StringIO(), queue, a.shape, None, "a", b_g, out, np.float32(3))
