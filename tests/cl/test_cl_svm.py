"""PyOpenCL's shared virtual memory on ember (issue 29): allocations, maps, fills, copies,
kernels on SVM pointers, buffers and arrays over SVM memory, checked against NumPy."""

import numpy as np
import pytest
from ember import cl
from ember.cl import array as cl_array
from ember.cl import characterize, tools

TWICE = "__kernel void twice(__global float *a) { a[get_global_id(0)] *= 2; }"


@pytest.fixture(scope="module")
def svm_ctx(ctx):
    if not characterize.has_coarse_grain_buffer_svm(ctx.devices[0]):
        pytest.skip(f"{ctx.devices[0]!r} has no coarse-grain SVM")
    return ctx


def test_coarse_grain_svm_maps_fills_kernels_and_copies(svm_ctx, queue, rng):
    n = 3000
    ary = cl.csvm_empty(svm_ctx, (n,), np.float32, alignment=64)
    assert isinstance(ary.base, cl.SVMAllocation) and ary.base.svm_ptr % 64 == 0
    svm = cl.SVM(ary)
    cl.enqueue_svm_memfill(queue, svm, np.float32(0))
    host = rng.random(n, dtype=np.float32)
    with svm.map_rw(queue) as mapped:
        assert mapped is ary and (mapped == 0).all()
        mapped[:] = host
    prg = cl.Program(svm_ctx, TWICE).build()
    prg.twice(queue, (n,), None, svm)
    prg.twice(queue, (n,), None, svm.as_buffer(svm_ctx))  # a buffer over the same memory
    with svm.map_ro(queue) as mapped:
        np.testing.assert_array_equal(mapped, host * 4)
    out = np.full(n, -1, np.float32)
    cl.enqueue_copy(queue, out, svm)
    np.testing.assert_array_equal(out, host * 4)
    cl.enqueue_copy(queue, svm, host)
    with svm.map_ro(queue) as mapped:
        np.testing.assert_array_equal(mapped, host)

    opaque = cl.SVMAllocation(svm_ctx, 4 * n, 0, cl.svm_mem_flags.READ_WRITE)
    cl.enqueue_svm_memfill(queue, opaque, np.float32(1.5))
    prg.twice(queue, (n,), None, opaque)
    with opaque.map_ro(queue) as raw:
        assert (raw.view(np.float32) == 3).all()
    cl.enqueue_svm_migratemem(queue, [opaque])
    opaque.release()
    opaque.release()  # a second release does nothing


def test_arrays_over_svm_allocators(svm_ctx, queue, rng):
    host = rng.standard_normal(2000).astype(np.float32)
    for alloc in (tools.SVMAllocator(svm_ctx, queue=queue), tools.SVMPool(tools.SVMAllocator(svm_ctx, queue=queue))):
        a = cl_array.to_device(queue, host, allocator=alloc)
        b = cl_array.arange(queue, 2000, dtype=np.float32, allocator=alloc)
        assert a.allocator is alloc
        np.testing.assert_allclose((a + b).get(), host + np.arange(2000, dtype=np.float32))
    pool = tools.SVMPool(tools.SVMAllocator(svm_ctx, queue=queue))
    first = cl_array.empty(queue, 500, np.float32, allocator=pool).fill(1)
    second = cl_array.empty(queue, 500, np.float32, allocator=pool).fill(2)  # the same bin: new memory
    assert (first.get() == 1).all() and (second.get() == 2).all()
    del first  # its allocation goes back to the pool only now
    third = cl_array.empty(queue, 500, np.float32, allocator=pool).fill(3)
    assert (second.get() == 2).all() and (third.get() == 3).all() and pool.held_blocks == 0
    empty = tools.SVMAllocator(svm_ctx)(0)
    empty.release()


def test_svm_errors(svm_ctx, queue):
    ary = cl.csvm_empty(svm_ctx, 16, np.int32)
    with pytest.raises(cl.LogicError, match="do not fit"):
        cl.enqueue_copy(queue, np.zeros(4, np.int32), cl.SVM(ary), byte_count=64 + 4)
    with pytest.raises(cl.LogicError, match="multiple of the pattern"):
        cl.enqueue_svm_memfill(queue, cl.SVM(ary), np.int64(0), byte_count=12)
    with pytest.raises(TypeError, match="NumPy array over shared virtual memory"):
        cl.SVM([1, 2, 3])
    mapping = cl.SVM(ary).map_rw(queue)
    mapping.release()
    with pytest.raises(cl.LogicError, match="not mapped"):
        mapping.release()
