"""Checked mode: kernels check their indices, and the first out-of-bounds access raises
OutOfBoundsError (an IndexError) naming the kernel, the array, the index and the place, with
the access skipped so that memory outside the array stays intact; the process keeps working.

Each kind of kernel is covered: `@jit` (boundscheck=True and EMBER_CHECKED), ElementwiseKernel
(raw arrays indexed by the snippet) and ember's own generated kernels (a view reaching past its
buffer, as a planning bug would make)."""

import ember
import numpy as np
import pytest
from conftest import run_python
from ember import cuda
from ember.errors import OutOfBoundsError


@pytest.fixture
def checked():
    """Checked mode on for kernels compiled in the test (EMBER_CHECKED's override)."""
    before = ember._ember.set_checked(True)
    yield
    ember._ember.set_checked(before)


@cuda.jit(boundscheck=True)
def _fill_past_end(a):
    i = cuda.grid(1)
    a[i] = i + 1


@cuda.jit(boundscheck=True)
def _shift_left(out, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i + 1]


@cuda.jit(boundscheck=True)
def _negative(a, k):
    a[k] = 7


@cuda.jit(boundscheck=True)
def _columns(a, shift):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j + shift] = 1


@cuda.jit(boundscheck=True)
def _shared_overrun(out):
    sh = cuda.shared.array(16, ember.float32)
    t = cuda.threadIdx.x
    sh[t] = t
    cuda.syncthreads()
    if t < 16:
        out[t] = sh[t]


@cuda.jit(device=True)
def _store(a, i, v):
    a[i] = v


@cuda.jit(boundscheck=True)
def _through_device_function(a, k):
    _store(a, k, 5.0)


@cuda.jit(boundscheck=False)
def _unchecked(a):
    i = cuda.grid(1)
    a[i] = i + 1


def _overhanging(a, n):
    """A 1-d view of n elements from a's first, reaching past its buffer (a test hook)."""
    return ember._ember.wrap(ember._ember.overhanging_view(a._a, n))


def _byte(e):
    return int(str(e.value).split("starts at byte ")[1].split(" ")[0])


def test_an_out_of_bounds_write_raises_and_leaves_memory_outside_intact():
    buf = ember.zeros(2048, dtype=ember.float32)
    a = buf[:1000]
    with pytest.raises(OutOfBoundsError) as e:
        _fill_past_end[4, 256](a)
    msg = str(e.value)
    assert isinstance(e.value, IndexError)
    assert "kernel _fill_past_end" in msg and "array 'a'" in msg, msg
    assert "is out of bounds for array 'a' with size 1000 (a write)" in msg, msg
    index = int(msg.split("index ")[1].split(" ")[0])
    assert 1000 <= index < 1024, msg
    assert "test_checked.py, line " in msg and "block (" in msg and "thread (" in msg, msg
    host = buf.get()
    np.testing.assert_array_equal(host[:1000], np.arange(1, 1001, dtype=np.float32))
    np.testing.assert_array_equal(host[1000:], 0)


def test_the_process_keeps_working_and_the_record_is_cleared():
    a = ember.zeros(100, dtype=ember.float32)
    for _ in range(2):
        with pytest.raises(OutOfBoundsError):
            _fill_past_end[1, 128](a)
    _fill_past_end[1, 100](a)
    np.testing.assert_array_equal(a.get(), np.arange(1, 101, dtype=np.float32))
    assert float((a * 2).sum()) == float(np.arange(1, 101).sum() * 2)


def test_an_out_of_bounds_read_is_named_as_a_read():
    rng = np.random.default_rng(3)
    host = rng.standard_normal(300).astype(np.float32)
    a = ember.asarray(host)
    out = ember.zeros(300, dtype=ember.float32)
    with pytest.raises(OutOfBoundsError, match=r"index 300 is out of bounds for array 'a' with size 300 \(a read\)"):
        _shift_left[2, 256](out, a)
    np.testing.assert_array_equal(out.get()[:299], host[1:])


def test_negative_indices_wrap_and_are_reported_as_written():
    a = ember.zeros(10, dtype=ember.int32)
    _negative[1, 1](a, -1)
    assert a.get()[9] == 7
    with pytest.raises(OutOfBoundsError, match=r"index -11 is out of bounds for array 'a' with size 10"):
        _negative[1, 1](a, -11)
    with pytest.raises(OutOfBoundsError, match=r"index 10 is out of bounds"):
        _negative[1, 1](a, 10)
    np.testing.assert_array_equal(a.get(), [0] * 9 + [7])


def test_the_axis_of_a_2d_array_is_named():
    a = ember.zeros((4, 6), dtype=ember.int32)
    _columns[(1, 1), (4, 6)](a, 0)
    assert int(a.sum()) == 24
    with pytest.raises(OutOfBoundsError, match=r"axis 1 of array 'a' with size 6"):
        _columns[(1, 1), (4, 6)](a, 3)


def test_shared_arrays_are_checked():
    out = ember.zeros(16, dtype=ember.float32)
    want = r"index (1[6-9]|2\d|3[01]) is out of bounds for array 'sh' with size 16"
    with pytest.raises(OutOfBoundsError, match=want):
        _shared_overrun[1, 32](out)
    _shared_overrun[1, 16](out)
    np.testing.assert_array_equal(out.get(), np.arange(16, dtype=np.float32))


def test_device_functions_are_checked_and_named():
    a = ember.zeros(8, dtype=ember.float64)
    with pytest.raises(OutOfBoundsError, match=r"kernel _through_device_function in device function _store .*index 8"):
        _through_device_function[1, 1](a, 8)
    _through_device_function[1, 1](a, 3)
    assert a.get()[3] == 5.0


def test_checked_mode_turns_on_every_jit_kernel_and_boundscheck_false_wins(checked):
    @cuda.jit
    def plain(a):
        i = cuda.grid(1)
        a[i] = 2

    buf = ember.zeros(256, dtype=ember.int64)
    a = buf[:100]
    with pytest.raises(OutOfBoundsError, match="kernel plain"):
        plain[1, 128](a)
    assert int(buf[100:].sum()) == 0
    # boundscheck=False: the unchecked kernel runs (and writes past the view, inside buf).
    _unchecked[1, 128](a)
    np.testing.assert_array_equal(buf.get()[:128], np.arange(1, 129))


def test_the_checked_kernel_is_another_kernel():
    src = ember._jit.kernel_source(_fill_past_end, ["float32[::1]"], "opencl")
    checked_src = ember._jit.kernel_source(_fill_past_end, ["float32[::1]"], "opencl", checked=True)
    assert "ember_chk" not in src and "ember_fault_rec" not in src
    assert "ember_chkg(" in checked_src and "ember_pick(" in checked_src


def test_elementwise_kernel_raw_indexing_is_checked(checked):
    gather = ember.ElementwiseKernel("raw T x, int64 k", "T y", "y = x[i + k]", "checked_gather")
    rng = np.random.default_rng(5)
    host = rng.standard_normal(500)
    x = ember.asarray(host)
    y = gather(x, 0, size=500)
    np.testing.assert_array_equal(y.get(), host)
    with pytest.raises(OutOfBoundsError) as e:
        gather(x, 3, size=500)
    msg = str(e.value)
    assert "kernel" in msg and "checked_gather" in msg, msg
    assert "is out of bounds for raw array 'x' with size 500" in msg, msg
    index = int(msg.split("index ")[1].split(" ")[0])
    assert 500 <= index < 503, msg


def test_elementwise_kernel_outputs_are_checked_against_their_buffers(checked):
    double = ember.ElementwiseKernel("T x", "T y", "y = 2 * x", "checked_double")
    x = ember.arange(64, dtype=ember.float32)
    y = ember.zeros(64, dtype=ember.float32)
    double(x, y)
    np.testing.assert_array_equal(y.get(), 2 * np.arange(64, dtype=np.float32))
    store = ember.zeros(80, dtype=ember.float32)
    past = _overhanging(store[70:], 64)
    with pytest.raises(OutOfBoundsError, match=r"array 'y' starts at byte (\d+) of its 320-byte buffer") as e:
        double(x, past)
    assert 320 <= _byte(e) < 320 + 54 * 4
    np.testing.assert_array_equal(store.get()[70:], 2 * np.arange(10, dtype=np.float32))


def test_generated_kernels_check_their_operands(checked):
    base = ember.zeros(40, dtype=ember.float64)
    past = _overhanging(base[30:], 16)
    ones = ember.ones(16, dtype=ember.float64)
    want = r"output 0 of ufunc 'add' starts at byte \d+ of its 320-byte buffer"
    with pytest.raises(OutOfBoundsError, match=want) as e:
        ember.add(ones, ones, out=past)
    assert 320 <= _byte(e) < 320 + 6 * 8
    np.testing.assert_array_equal(base.get()[30:], 2.0)
    with pytest.raises(OutOfBoundsError, match=r"input 0 of ufunc 'multiply'"):
        past * 3.0
    # A cast (ember's own map kernel) reading past the buffer.
    with pytest.raises(OutOfBoundsError, match=r"operand 'x?\w*'"):
        past.astype(ember.float32)
    # Everything in bounds runs as before.
    np.testing.assert_array_equal((ones + ones).get(), 2.0)


def test_ember_checked_is_read_from_the_environment():
    code = """
import ember
from ember import cuda
from ember.errors import OutOfBoundsError

@cuda.jit
def k(a):
    a[cuda.grid(1)] = 1

assert ember._ember.settings()["checked"] and ember._ember.checked_mode()
a = ember.zeros(10, dtype=ember.int32)
try:
    k[1, 16](a)
except OutOfBoundsError as e:
    print("raised:", e)
"""
    r = run_python(code, {"EMBER_CHECKED": "1"})
    assert r.returncode == 0, r.stderr
    assert "raised: kernel k" in r.stdout and "with size 10" in r.stdout, r.stdout
    r = run_python("import ember; ember._ember.settings()", {"EMBER_CHECKED": "full"})
    assert r.returncode != 0 and 'EMBER_CHECKED="full" is not a yes/no setting' in r.stderr, r.stderr
