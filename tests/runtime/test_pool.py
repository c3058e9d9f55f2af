"""The caching memory pool: reuse, statistics, limits and out-of-memory errors."""

import gc

import ember
import numpy as np
import pytest


@pytest.fixture
def pool():
    p = ember.get_default_memory_pool()
    ember.fft.config.get_plan_cache().clear()  # what FFTs keep between calls lives in the pool too
    ember.linalg._lapack.forget()  # and cuSOLVER's work areas
    gc.collect()
    p.free_all_blocks()
    yield p
    p.set_limit(size=0)
    gc.collect()
    p.free_all_blocks()


def test_freed_block_is_reused(pool):
    a = ember.empty(1000, np.float32)
    address = a.data.ptr
    used = pool.used_bytes()
    assert used >= 4000
    del a
    assert pool.used_bytes() == used - 4096 and pool.n_free_blocks() == 1
    b = ember.empty(1000, np.float32)
    assert b.data.ptr == address, "the cached block was not reused"
    assert pool.n_free_blocks() == 0


def test_totals_and_free_all_blocks(pool):
    arrays = [ember.zeros(n, np.uint8) for n in (100, 5000, 70_000)]
    live = pool.used_bytes()
    assert live >= 75_100 and pool.total_bytes() == live
    del arrays
    assert pool.used_bytes() == 0 and pool.total_bytes() == live and pool.free_bytes() == live
    pool.free_all_blocks()
    assert pool.total_bytes() == 0 and pool.n_free_blocks() == 0


def test_limit_raises_out_of_memory_with_statistics(pool):
    keep = ember.zeros(1 << 18, np.float32)  # 1 MiB
    pool.set_limit(size=2 << 20)
    assert pool.get_limit() == 2 << 20
    with pytest.raises(ember.OutOfMemoryError) as info:
        ember.empty(2 << 20, np.float32)
    err = info.value
    assert isinstance(err, MemoryError)
    assert err.requested == 8 << 20 and err.used_bytes == 1 << 20 and err.limit == 2 << 20
    assert "8.0 MiB" in str(err) and "limit 2.0 MiB" in str(err) and "set_limit" in str(err)
    ok = ember.empty(1 << 18, np.float32)  # still fits under the limit
    np.testing.assert_array_equal(keep.get(), np.zeros(1 << 18, np.float32))
    del ok


def test_limit_frees_cache_before_failing(pool):
    a = ember.empty(3 << 18, np.float32)  # 3 MiB, then cached
    del a
    pool.set_limit(size=4 << 20)
    b = ember.empty(1 << 20, np.float32)  # 4 MiB: fits only once the cache is freed
    assert pool.total_bytes() == 4 << 20
    del b


def test_huge_allocation_is_out_of_memory(pool):
    with pytest.raises(ember.OutOfMemoryError, match="out of memory allocating"):
        ember.empty(1 << 50, np.uint8)


def test_set_limit_validates():
    p = ember.get_default_memory_pool()
    with pytest.raises(ValueError, match="between 0 and 1"):
        p.set_limit(fraction=1.5)


def test_pinned_memory_pool_reuses_freed_blocks_and_round_trips_data():
    pool = ember.get_default_pinned_memory_pool()
    pool.free_all_blocks()
    assert pool.n_free_blocks() == 0
    host = ember.empty_pinned((257, 3), np.float64)
    assert host.shape == (257, 3) and host.dtype == np.float64 and host.flags.c_contiguous
    values = np.random.default_rng(5).standard_normal((257, 3))
    host[...] = values
    device = ember.asarray(host)
    np.testing.assert_array_equal((device * 2).get(), values * 2)
    address = host.ctypes.data
    del host
    gc.collect()
    # 257*3*8 = 6168 bytes, kept as a 6656-byte block (sizes round up to 512).
    assert pool.n_free_blocks() == 1 and pool.free_bytes() == 6656
    again = ember.empty_pinned(6600, np.uint8)
    assert again.ctypes.data == address and pool.n_free_blocks() == 0
    fortran = ember.empty_pinned((4, 5), np.int32, order="F")
    assert fortran.flags.f_contiguous and not fortran.flags.c_contiguous
    del again, fortran
    gc.collect()
    pool.free_all_blocks()
    assert pool.n_free_blocks() == 0 and pool.free_bytes() == 0
    pointer = pool.malloc(10)
    assert int(pointer) == pointer.ptr and pointer.mem.size == 512
    with pytest.raises(ValueError, match="negative size"):
        pool.malloc(-1)
    with pytest.raises(ValueError, match="negative dimensions"):
        ember.empty_pinned((2, -1))
