"""ember.profiler.benchmark, as cupyx.profiler.benchmark: its times, its summary line, its errors."""

import time

import ember
import numpy as np
import pytest
from ember.profiler import benchmark


def test_times_bracket_the_calls_and_their_device_work():
    x = ember.arange(1 << 20, dtype=np.float32)

    def work(x):
        y = ember.sqrt(x) * 2 + 1
        ember.synchronize()  # the device's work ends inside the call
        return y

    r = benchmark(work, (x,), n_repeat=6, n_warmup=2)
    assert r.name == "work"
    assert r.cpu_times.shape == (6,) and r.gpu_times.shape == (1, 6)
    assert np.all(r.cpu_times > 0) and np.all(r.gpu_times > 0)
    # The call waited for its work, so the events around it span about the host's time.
    assert abs(r.gpu_times[0].mean() - r.cpu_times.mean()) <= 0.5 * r.cpu_times.mean() + 1e-3
    line = str(r)
    assert line.startswith("work") and "CPU:" in line and "GPU-0:" in line and "+/-" in line


def test_kwargs_name_and_max_duration():
    seen = []

    def nap(seconds, tag=None):
        seen.append(tag)
        time.sleep(seconds)

    r = benchmark(nap, (0.02,), {"tag": "t"}, n_repeat=100, n_warmup=1, max_duration=0.05, name="nap")
    assert r.name == "nap" and set(seen) == {"t"}
    assert 1 <= r.cpu_times.size <= 4 and r.gpu_times.shape == (1, r.cpu_times.size)
    assert np.all(r.cpu_times >= 0.019)
    one = benchmark(nap, (0.0,), n_repeat=1, n_warmup=0)
    assert "+/-" not in str(one)  # a single repeat has no spread


@pytest.mark.parametrize("call,message", [
    (lambda: benchmark(3), "`func` should be a callable object."),
    (lambda: benchmark(print, [1]), "`args` should be of tuple type."),
    (lambda: benchmark(print, (), [1]), "`kwargs` should be of dict type."),
    (lambda: benchmark(print, (), n_repeat=2.5), "`n_repeat` should be an integer."),
    (lambda: benchmark(print, (), n_warmup=None), "`n_warmup` should be an integer."),
    (lambda: benchmark(print, (), n_repeat=0), "`n_repeat` should be at least 1."),
], ids=["func", "args", "kwargs", "n_repeat", "n_warmup", "zero"])
def test_bad_arguments_raise_cupys_errors(call, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call()


def test_time_range_as_a_block_and_a_decorator():
    from ember import profiler

    calls = []
    real_push, real_pop = ember._ember.nvtx_push, ember._ember.nvtx_pop
    try:
        ember._ember.nvtx_push = lambda message, argb: calls.append(("push", message, argb)) or True
        ember._ember.nvtx_pop = lambda: calls.append(("pop",)) or True
        with profiler.time_range("step", color_id=1):
            pass

        @profiler.time_range(argb_color=0xFF123456, color_id=2)
        def double(x):
            return x * 2

        assert double(3) == 6 and double.__name__ == "double"
        with pytest.raises(ZeroDivisionError), profiler.time_range("failing"):
            1 / 0  # noqa: B018  (the range closes on an exception too)
    finally:
        ember._ember.nvtx_push, ember._ember.nvtx_pop = real_push, real_pop
    assert calls == [("push", "step", 0xFF0000FF), ("pop",), ("push", "double", 0xFF123456), ("pop",),
                     ("push", "failing", 0xFF00FF00), ("pop",)]


def test_time_range_needs_a_message_as_a_block_and_says_once_when_nvtx_is_missing(monkeypatch):
    from ember import profiler

    with pytest.raises(ValueError, match="message argument cannot be None"), profiler.time_range():
        pass
    with pytest.raises(TypeError, match="message must be a str"):
        profiler.time_range(3)
    monkeypatch.setattr(ember._ember, "nvtx_push", lambda message, argb: False)
    monkeypatch.setattr(profiler, "_warned", False)
    with pytest.warns(RuntimeWarning, match="NVTX") as seen:
        for _ in range(3):
            with profiler.time_range("quiet"):
                pass
    assert len(seen) == 1


@pytest.mark.gpu
def test_nvtx_is_found_where_pip_or_the_toolkit_has_it():
    import glob
    import sys

    patterns = ["nvidia/*/lib/libnvtx3interop.so*", "nvidia/nvtx/lib/libnvToolsExt.so*"]
    places = [p for d in sys.path for pattern in patterns for p in glob.glob(f"{d}/{pattern}")]
    places += glob.glob("/usr/local/cuda*/targets/*/lib/libnvtx3interop.so*")
    places += glob.glob("/usr/local/cuda*/lib64/libnvToolsExt.so*")
    if not places:
        pytest.skip("no NVTX library on this machine")
    assert ember._ember.nvtx_push("ember test", 0xFF00FF00) is True
    assert ember._ember.nvtx_pop() is True
