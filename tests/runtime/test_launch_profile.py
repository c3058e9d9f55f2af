"""``ember.profiler.profile()``: every launch inside the block with its device time, grid,
block and bytes, on this machine's backend (PoCL here, CUDA and NVIDIA's OpenCL on the GPU
machine), checked against events recorded around the same launches."""

import re

import ember
import numpy as np
import pytest
from ember import cuda
from ember.profiler import profile

N = 1 << 21


@cuda.jit
def scale(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * 3


@pytest.fixture(scope="module")
def arrays():
    rng = np.random.default_rng(7)
    a = ember.asarray(rng.random(N, dtype=np.float32))
    b = ember.asarray(rng.random(N, dtype=np.float32))
    out = ember.empty_like(a)
    scale[N // 256, 256](a, out)  # compiled and warmed outside the profiles
    ember.add(a, b, out=out)
    ember.synchronize()
    return a, b, out


def test_every_launch_with_its_grid_block_and_bytes(arrays):
    a, b, out = arrays
    with profile() as p:
        for _ in range(3):
            ember.add(a, b, out=out)
        scale[(N // 256, 1), (256, 1)](a, out)
    assert [launch.kernel for launch in p.launches][-1].endswith("scale")
    adds = [launch for launch in p.launches if launch.kernel == p.launches[0].kernel]
    assert len(adds) == 3 and len(p.launches) == 4
    jit = p.launches[-1]
    assert jit.grid == (N // 256, 1, 1) and jit.block == (256, 1, 1)
    assert jit.bytes == 2 * a.nbytes  # x and out
    assert all(launch.bytes == 3 * a.nbytes for launch in adds)  # a, b and out
    assert all(launch.seconds > 0 for launch in p.launches) and p.seconds == pytest.approx(
        sum(launch.seconds for launch in p.launches))
    rows = p.kernels()
    assert [r.launches for r in rows if r.kernel == adds[0].kernel] == [3]
    assert rows == sorted(rows, key=lambda r: r.seconds, reverse=True)


def test_device_times_agree_with_events_around_the_launches(arrays):
    a, b, out = arrays
    start, end = cuda.Event(), cuda.Event()
    with profile() as p:
        start.record()
        for _ in range(8):
            ember.add(a, b, out=out)
        end.record()
    end.synchronize()
    events = cuda.get_elapsed_time(start, end) / 1e3
    # The launches ran back to back between the two events: their times add up to about the span.
    assert 0.6 * events <= p.seconds <= 1.05 * events + 1e-4, (p.seconds, events)


def test_table_lists_kernels_by_device_time(arrays):
    a, b, out = arrays
    with profile() as p:
        ember.add(a, b, out=out)
        scale[N // 256, 256](a, out)
        scale[N // 256, 256](a, out)
    text = p.table()
    lines = text.splitlines()
    assert re.split(r"\s+", lines[0].strip()) == ["kernel", "launches", "total", "ms", "%", "mean", "us", "grid",
                                                   "block", "MB", "GB/s"]
    assert lines[-1] == f"3 launches, {p.seconds * 1e3:.3f} ms of device time"
    rows = [re.split(r"\s+", line.strip()) for line in lines[1:-1]]
    assert len(rows) == 2
    by_name = {r[0]: r for r in rows}
    jit = next(r for name, r in by_name.items() if name.endswith("scale"))
    seconds = sum(launch.seconds for launch in p.launches if launch.kernel.endswith("scale"))
    assert jit[1:3] == ["2", f"{seconds * 1e3:.3f}"]
    assert jit[5:8] == [str(N // 256), "256", f"{2 * 2 * a.nbytes / 1e6:.2f}"]
    assert float(jit[8]) == pytest.approx(2 * 2 * a.nbytes / seconds / 1e9, rel=0.01, abs=0.06)
    totals = [float(r[2]) for r in rows]
    assert totals == sorted(totals, reverse=True)


def test_nested_profiles_and_misuse(arrays):
    a, b, out = arrays
    with profile() as outer:
        ember.add(a, b, out=out)
        with profile() as inner:
            scale[N // 256, 256](a, out)
        p = outer
        with pytest.raises(RuntimeError, match="already open"), p:
            pass
        with pytest.raises(RuntimeError, match=r"read after the with block closes"):
            outer.table()
    assert [launch.kernel for launch in inner.launches] == [outer.launches[1].kernel]
    assert len(outer.launches) == 2


def test_a_failed_launch_inside_a_profile_leaves_it_working(arrays):
    a, b, out = arrays

    @cuda.jit
    def bad(x):
        x[0] = 1

    with profile() as p:
        with pytest.raises(ValueError, match="griddim and blockdim must be at least 1"):
            bad[0, 1](out)
        ember.add(a, b, out=out)
    assert len(p.launches) == 1
    np.testing.assert_allclose(out.get(), a.get() + b.get())


def test_no_launches_and_no_profile():
    with profile() as p:
        pass
    assert p.launches == [] and p.table().splitlines()[-1] == "0 launches, 0.000 ms of device time"
    x = ember.arange(10.0)
    assert float((x * 2).sum()) == 90.0  # launches outside a profile are not recorded anywhere


def test_work_the_block_deferred_is_launched_inside_it(arrays):
    """An element-wise expression ember holds back (to fuse it with what comes next) is the
    block's work: the profile launches it before it closes."""
    a, b, out = arrays
    for _ in range(3):  # ember learns the expression, then defers and fuses it
        (a * 2 + b).get()
    with profile() as p:
        c = a * 2 + b
    assert len(p.launches) == 1 and p.launches[0].bytes == 3 * a.nbytes, p.launches
    np.testing.assert_allclose(c.get(), a.get() * 2 + b.get(), rtol=1e-6)
