"""On the CUDA backend: bursts of small operations are issued from the launch queue's thread
(crates/ember-runtime/src/launch_queue.rs). The device must see the same work in the same
order as without the queue: results, host reads, streams, events, threads and memory shared
with CuPy and PyTorch all behave as if every launch had been issued at once."""

import subprocess
import sys
import textwrap
import threading

import ember
import numpy as np
import pytest
from ember import cuda

pytestmark = pytest.mark.gpu


def _queued() -> int:
    """Launches the device's queue has taken so far."""
    return ember._ember.queued_launches(0)


def _flips(host, x0, count):
    """x <- s - x, `count` times: the order of the steps matters (they do not commute)."""
    x = x0.copy()
    for _ in range(count):
        x = host - x
    return x


@cuda.jit
def _flip(x, s):
    """x <- s - x as a @cuda.jit kernel."""
    i = cuda.grid(1)
    if i < x.size:
        x[i] = s[i] - x[i]


def _small_ints(rng, n=1024):
    # Integer-valued floats: long chains of additions stay exact.
    return rng.integers(-8, 9, n).astype(np.float32)


def test_a_long_dependent_chain_matches_numpy(rng):
    host = _small_ints(rng)
    s = ember.asarray(host)
    x = s
    before = _queued()
    for _ in range(3000):
        x = x + s
    np.testing.assert_array_equal(x.get(), host * 3001)
    assert _queued() - before > 2000, "a burst of small operations should go through the queue"


def test_in_place_burst_with_host_reads_between(rng):
    host = _small_ints(rng)
    s = ember.asarray(host)
    x = ember.ones_like(s)
    expected = np.ones_like(host)
    for k in range(400):
        x *= -1.0
        x += s
        expected = host - expected
        if k % 37 == 0:
            np.testing.assert_array_equal(x.get(), expected)
    np.testing.assert_array_equal(x.get(), expected)


def test_reductions_in_a_burst(rng):
    host = _small_ints(rng)
    s = ember.asarray(host)
    totals = [(s * float(k)).sum() for k in range(200)]
    np.testing.assert_array_equal([float(t) for t in totals], [float(host.sum()) * k for k in range(200)])


def test_cupy_sees_a_burst_once_it_takes_the_pointer(rng):
    cp = pytest.importorskip("cupy")
    host = _small_ints(rng)
    s = ember.asarray(host)
    x = ember.zeros_like(s)
    for _ in range(500):
        x += s
    c = cp.asarray(x)  # takes the pointer: queued launches are issued first
    np.testing.assert_array_equal(cp.asnumpy(c * 1), host * 500)
    # From now on x is shared: ember's launches over it go in order with CuPy's.
    expected = host * 500
    for _ in range(200):
        x *= -1.0
        c += 1
        expected = 1 - expected
    np.testing.assert_array_equal(cp.asnumpy(c), expected)
    np.testing.assert_array_equal(x.get(), expected)


def test_torch_and_ember_alternate_on_shared_memory(rng):
    torch = pytest.importorskip("torch")
    host = _small_ints(rng)
    t = torch.as_tensor(host, device="cuda")
    x = ember.asarray(t)  # foreign memory: never queued
    s = ember.asarray(host)
    expected = host.copy()
    for _ in range(300):
        x += s
        t.mul_(-1)
        expected = -(expected + host)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(t.cpu().numpy(), expected)


def test_cupy_kernels_on_an_ember_stream_come_after_the_burst(rng):
    cp = pytest.importorskip("cupy")
    host = _small_ints(rng)
    s = ember.asarray(host)
    x = ember.zeros_like(s)
    c = cp.asarray(x)
    stream = ember.cuda.Stream()
    with stream:
        for _ in range(300):
            y = s + s
            x += y
    foreign = cp.cuda.Stream.from_external(stream)  # takes the handle: queued work goes first
    with foreign:
        c *= 2
    foreign.synchronize()
    np.testing.assert_array_equal(x.get(), host * 1200)


def test_events_time_a_burst(rng):
    host = _small_ints(rng)
    s = ember.asarray(host)
    start, end = ember.cuda.Event(), ember.cuda.Event()
    start.record()
    for _ in range(2000):
        s = s + 1
    end.record()
    end.synchronize()
    ms = ember.cuda.get_elapsed_time(start, end)
    assert ms > 0.5, f"2000 launches cannot take {ms} ms on the device"
    np.testing.assert_array_equal(s.get(), host + 2000)


def test_threads_each_keep_their_order(rng):
    hosts = [_small_ints(rng) for _ in range(4)]
    results = [None] * 4

    def work(k):
        s = ember.asarray(hosts[k])
        x = ember.zeros_like(s)
        for _ in range(500):
            x += s
        results[k] = x.get()

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        np.testing.assert_array_equal(results[k], hosts[k] * 500)


def test_exit_with_launches_queued_is_clean():
    code = textwrap.dedent("""
        import ember, numpy as np
        s = ember.ones(1024, dtype=np.float32)
        for _ in range(5000):
            s = s + 1
        print("queued")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "queued"


def test_a_fault_behind_queued_launches_is_reported_not_hung():
    # A kernel that writes far outside memory poisons the context; the launches queued after
    # it fail in the launch thread, and the error reaches the caller at the synchronisation.
    code = textwrap.dedent("""
        import ember, numpy as np
        bad = ember.RawKernel('extern "C" __global__ void bad(float* p) { p[1ll << 40] = 1.0f; }', "bad")
        s = ember.ones(1024, dtype=np.float32)
        for _ in range(50):
            s = s + 1
        bad((1,), (1,), (s,))
        for _ in range(200):
            s = s + 1
        try:
            ember.synchronize()
        except ember.EmberError as e:
            print(type(e).__name__, str(e).splitlines()[0][:200])
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "DriverError" in out.stdout and "CUDA_ERROR_ILLEGAL_ADDRESS" in out.stdout, out.stdout


def test_jit_bursts_keep_order_and_bad_shapes_fail_at_the_call(rng):
    flip = _flip
    host = _small_ints(rng)
    s = ember.asarray(host)
    x = ember.ones_like(s)
    before = _queued()
    for _ in range(501):
        flip[8, 128](x, s)
    np.testing.assert_array_equal(x.get(), _flips(host, np.ones_like(host), 501))
    assert _queued() - before > 400
    # A new shape launches at once, so what the driver refuses is raised here, not later.
    for _ in range(20):
        flip[8, 128](x, s)
    with pytest.raises(ember.errors.DriverError, match="cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE"):
        flip[8, 128, 0, 64 << 10](x, s)  # 64 KiB of dynamic shared memory, beyond the default 48
    np.testing.assert_array_equal(x.get(), _flips(host, np.ones_like(host), 521))


def test_jit_launches_on_another_librarys_stream_are_its_to_order(rng):
    cp = pytest.importorskip("cupy")
    flip = _flip
    host = _small_ints(rng)
    s = ember.asarray(host)
    x = ember.ones_like(s)
    theirs = cp.cuda.Stream(non_blocking=True)
    for _ in range(301):
        flip[8, 128, theirs](x, s)
    theirs.synchronize()  # CuPy's wait must cover ember's launches on its stream
    np.testing.assert_array_equal(x.get(), _flips(host, np.ones_like(host), 301))


def test_another_librarys_device_sync_orders_two_ember_streams(rng):
    torch = pytest.importorskip("torch")
    host = _small_ints(rng)
    s = ember.asarray(host)
    first, second = ember.cuda.Stream(), ember.cuda.Stream()
    with first:
        y = ember.zeros_like(s)
        for _ in range(300):
            y += s
    torch.cuda.synchronize()  # ember does not see this: the stream switch must not reorder
    with second:
        z = y * 1
    np.testing.assert_array_equal(z.get(), host * 300)


_RAW = r'''
extern "C" __global__ void flip(float* x, const float* s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = s[i] - x[i];
}
extern "C" __global__ void flip_at(unsigned long long address, const float* s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) ((float*)address)[i] = s[i] - ((float*)address)[i];
}
'''


def test_raw_kernel_bursts_keep_order(rng):
    flip = ember.RawKernel(_RAW, "flip")
    host = _small_ints(rng)
    s = ember.asarray(host)
    x = ember.ones_like(s)
    before = _queued()
    for _ in range(501):
        flip((8,), (128,), (x, s, np.int32(s.size)))
    np.testing.assert_array_equal(x.get(), _flips(host, np.ones_like(host), 501))
    assert _queued() - before > 400


def test_raw_kernel_taking_an_address_as_a_number_stays_in_order(rng):
    # The 8-byte integer may be another library's pointer: such launches go at once, in
    # order with that library's work on the same stream.
    torch = pytest.importorskip("torch")
    flip_at = ember.RawKernel(_RAW, "flip_at")
    host = _small_ints(rng)
    s = ember.asarray(host)
    t = torch.ones(host.size, device="cuda")
    expected = np.ones_like(host)
    before = _queued()
    for _ in range(300):
        flip_at((8,), (128,), (np.uint64(t.data_ptr()), s, np.int32(s.size)))
        t.mul_(-1)
        expected = -(host - expected)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(t.cpu().numpy(), expected)
    assert _queued() == before, "a launch with an address among its arguments was queued"
