"""Streams and events: ordering, waiting and timing."""

import ember
import numpy as np
import pytest
from ember import cuda


def test_work_on_a_stream(rng):
    s = cuda.Stream()
    host = rng.standard_normal(1 << 16).astype(np.float32)
    with s:
        assert cuda.get_current_stream() is s
        a = ember.asarray(host)
        b = a.astype(np.float64)
        ev = s.record()
    ev.synchronize()
    assert ev.done
    assert cuda.get_current_stream() is not s
    np.testing.assert_array_equal(b.get(), host.astype(np.float64))
    s.synchronize()


def test_default_stream_follows_other_streams(rng):
    # ember's streams are blocking streams, as CUDA's: a read on the default stream comes after
    # the work issued before it on any stream, with no synchronisation between (issue 28).
    for _ in range(3):
        host = rng.random(1 << 20)
        s = cuda.Stream()
        with s:
            a = ember.asarray(host)
            b = a + a
        np.testing.assert_array_equal(b.get(), host + host)


def test_streams_follow_the_default_stream(rng):
    for _ in range(3):
        host = rng.random(1 << 20)
        a = ember.asarray(host)
        b = a * 3.0
        s = cuda.Stream()
        with s:
            c = b - a
        s.synchronize()
        with s:
            np.testing.assert_array_equal(c.get(), host * 3.0 - host)


def test_events_time_work(rng):
    start, end = cuda.Event(), cuda.Event()
    host = rng.standard_normal(1 << 18).astype(np.float32)
    a = ember.asarray(host)
    start.record()
    for _ in range(5):
        a = a.astype(np.float64).astype(np.float32)
    end.record()
    end.synchronize()
    ms = cuda.get_elapsed_time(start, end)
    assert 0 <= ms < 60_000
    np.testing.assert_array_equal(a.get(), host)


def test_stream_waits_for_event(rng):
    producer, consumer = cuda.Stream(), cuda.Stream()
    host = rng.integers(-1000, 1000, 1 << 16).astype(np.int32)
    with producer:
        a = ember.asarray(host)
        b = a.astype(np.int64)
    consumer.wait_event(producer.record())
    with consumer:
        c = b.astype(np.float64)
    consumer.synchronize()
    np.testing.assert_array_equal(c.get(), host.astype(np.float64))


def test_device_context_and_synchronize():
    with ember.Device(0) as d:
        assert d.id == 0
        d.synchronize()
    ember.synchronize()
    assert ember.Device() == ember.Device(0)


def test_cuda_stream_protocol():
    stream = cuda.Stream()
    if ember.backend() == "cuda":
        assert stream.__cuda_stream__() == (0, stream.ptr)
    else:
        with pytest.raises(TypeError, match="stream protocol is CUDA's; this stream is on the opencl backend"):
            stream.__cuda_stream__()
