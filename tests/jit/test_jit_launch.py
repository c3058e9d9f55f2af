"""Launching ``@cuda.jit`` kernels: thread and block indices in three dimensions, arguments
from the host (NumPy arrays copied in and back, Python and NumPy scalars keeping their types,
explicit signatures) and launch configurations."""

from __future__ import annotations

import math
import warnings

import ember
import numpy as np
import pytest
from ember import cuda
from ember._jit import dispatcher as jit_dispatcher
from ember.errors import PerformanceWarning
from jit_harness import TPB, N, blocks, floats, host
from jit_kernels import FLOAT_OPS, float_ops, scalar_args, thread_ids

# ---- the thread grid ----


def test_thread_and_block_indices_in_three_dimensions():
    grid, block = (2, 3, 2), (4, 2, 3)
    n = math.prod(grid) * math.prod(block)
    small, big = ember.zeros((n, 14), dtype=np.int32), ember.zeros((n, 12), dtype=np.int64)
    thread_ids[grid, block](small, big)
    small, big = small.get(), big.get()
    w, h, d = (g * b for g, b in zip(grid, block, strict=True))
    want_small, want_big = np.zeros((n, 12), np.int64), np.zeros((n, 12), np.int64)
    for bz, by, bx, tz, ty, tx in np.ndindex(*grid[::-1], *block[::-1]):
        x, y, z = bx * block[0] + tx, by * block[1] + ty, bz * block[2] + tz
        row = x + w * (y + h * z)
        want_small[row] = [tx, ty, tz, bx, by, bz, *block, *grid]
        want_big[row] = [x, y, z, w, h, d, x, w, x, y, w, h]
    np.testing.assert_array_equal(small[:, :12], want_small)
    np.testing.assert_array_equal(big, want_big)
    lane, warp = small[:, 12], small[:, 13]
    assert (warp == 32).all() and ((lane >= 0) & (lane < warp)).all()
    linear = want_small[:, 0] + block[0] * (want_small[:, 1] + block[1] * want_small[:, 2])
    np.testing.assert_array_equal(lane, linear % 32)  # lanes count threads in x-fastest order


# ---- arguments from the host ----


def test_numpy_arrays_are_copied_in_and_back_with_one_warning(rng, monkeypatch):
    monkeypatch.setattr(jit_dispatcher, "_warned_host_arrays", False)
    a, b = floats(rng, "float64"), floats(rng, "float64")
    a_before = a.copy()
    out = np.zeros((N, 14))
    with pytest.warns(PerformanceWarning, match="copied to the device and back"):
        FLOAT_OPS[blocks(N), TPB](a, b, out)
    np.testing.assert_allclose(out, host(float_ops, list(a), list(b), dtype=np.float64), rtol=1e-14)
    np.testing.assert_array_equal(a, a_before)
    b.flags.writeable = False  # read-only inputs are accepted and not written back
    out2 = np.zeros((N, 14))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        FLOAT_OPS[blocks(N), TPB](a, b, out2)
    np.testing.assert_array_equal(out2, out)


@cuda.jit(device=True)
def _bump(row, j):
    row[j] += 1.0


@cuda.jit
def _writes_through_aliases(a, b, c, d):
    i = cuda.grid(1)
    if i < a.size:
        view = b[1:]  # b is written through a view
        view[0] = a[i]
        alias = c  # c through a variable
        alias[i] = a[i]
        _bump(d, i)  # d in a device function


def test_a_kernel_writing_a_read_only_numpy_array_is_refused_before_it_runs(rng):
    a = floats(rng, "float64")
    names = ["a", "b", "c", "d"]
    for k in range(1, 4):
        args = [a.copy(), np.zeros(N), np.zeros(N), np.zeros(N)]
        args[k].flags.writeable = False
        before = [x.copy() for x in args]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PerformanceWarning)
            want = (rf"kernel _writes_through_aliases writes to argument {k} \('{names[k]}'\), "
                    r"a read-only NumPy array \(flags.writeable is False\)")
            with pytest.raises(ValueError, match=want):
                _writes_through_aliases[blocks(N), TPB](*args)
        for x, y in zip(args, before, strict=True):  # nothing ran: every argument unchanged
            np.testing.assert_array_equal(x, y)
    args = [a.copy(), np.zeros(N), np.zeros(N), np.zeros(N)]
    args[0].flags.writeable = False  # only read: accepted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PerformanceWarning)
        _writes_through_aliases[blocks(N), TPB](*args)
    np.testing.assert_array_equal(args[2], a)
    np.testing.assert_array_equal(args[3], 1.0)


def test_python_and_numpy_scalars_keep_their_types():
    out = ember.zeros(8)
    args = (2**40, 0.1, True, np.int8(-100), np.uint16(65535), np.float32(0.1), 2**63 + 5, 1 + 2j)
    scalar_args[1, 1](out, *args)
    np.testing.assert_array_equal(
        out.get(), [3 * 2**40, 0.025, 1.5, -200, 65536, float(np.float32(0.1)), 8, 2.0])
    scalar_args[1, 1](out, np.int64(-7), np.float64(2.0), np.bool_(False), np.int8(3), np.uint16(1), np.float32(2),
                      2**64 - 1, 3j)
    np.testing.assert_array_equal(out.get(), [-21, 0.5, -1.5, 6, 2, 2.0, 15, 3.0])
    assert list(scalar_args.inspect_c()) == [
        "(array(float64, 1d, C), int64, float64, bool, int8, uint16, float32, uint64, complex128)"]


def test_explicit_signature_converts_scalars_and_rejects_other_arrays(rng):
    @cuda.jit("void(float32[:], int32)")
    def add_half(a, n):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += n * 0.5

    assert list(add_half.inspect_c()) == ["(array(float32, 1d, A), int32)"]  # compiled when decorated
    x = rng.standard_normal(100).astype(np.float32)
    d = ember.asarray(x)
    add_half[blocks(100), TPB](d, 3)
    add_half[blocks(100), TPB](d[::-1][::2], np.int16(-4))  # a strided, reversed view; int16 converts
    want = x + np.float32(1.5)
    want[::-1][::2] -= np.float32(2.0)
    np.testing.assert_array_equal(d.get(), want)
    with pytest.raises(TypeError, match="no signature"):
        add_half[1, 1](ember.zeros(4), 1)
    with pytest.raises(TypeError, match="no signature"):
        add_half[1, 1](ember.zeros((2, 2), dtype=np.float32), 1)
    assert len(add_half.inspect_c()) == 1


def test_several_signatures_pick_the_first_that_fits(rng):
    @cuda.jit(["void(int32[::1], int32)", "void(float64[:], float64)"])
    def scale(a, k):
        i = cuda.grid(1)
        if i < a.shape[0]:
            a[i] *= k

    assert sorted(scale.inspect_c()) == ["(array(float64, 1d, A), float64)", "(array(int32, 1d, C), int32)"]
    ints_ = ember.arange(10, dtype=np.int32)
    scale[1, 16](ints_, 3)
    np.testing.assert_array_equal(ints_.get(), np.arange(10) * 3)
    with pytest.raises(TypeError, match="no signature"):
        scale[1, 16](ints_[::2], 3)  # int32[::1] needs a contiguous array
    x = rng.standard_normal(10)
    d = ember.asarray(x)
    scale[1, 16](d[::3], 2)  # a Python int converts to float64 for the second signature
    x[::3] *= 2
    np.testing.assert_array_equal(d.get(), x)


# ---- launch configurations ----


def test_a_repeated_launch_configuration_is_read_once_and_kernels_are_still_collected():
    import gc
    import weakref

    @cuda.jit
    def fill_index(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = i

    a = ember.zeros(40, dtype=np.int64)
    n = 2
    first = fill_index[n, 32]
    assert fill_index[n, 32] is first            # an equal configuration: the same launcher
    assert fill_index[(n - 1) * 2, 32] is first
    assert fill_index[3, 32] is not first         # another configuration
    fill_index[n, 32](a)
    np.testing.assert_array_equal(a.get(), np.arange(40))
    ref = weakref.ref(fill_index)
    del fill_index, first
    gc.collect()
    assert ref() is None


def test_pre_launch_callbacks_run_before_each_launch_of_their_configuration():
    import pickle

    @cuda.jit
    def bump(a):
        a[cuda.grid(1)] += 1

    seen = []
    a = ember.zeros(8, np.int32)
    launch = bump[1, 8]
    launch.pre_launch_callbacks.append(lambda kernel, config: seen.append((kernel, config, int(a.get()[0]))))
    launch(a)
    launch(a)
    assert [(k is bump, c is launch, before) for k, c, before in seen] == [(True, True, 0), (True, True, 1)]
    bump[1, 8](a)  # another configuration of the same shape: no callbacks
    assert len(seen) == 2 and (a.get() == 3).all()
    with pytest.raises(pickle.PicklingError, match="Cannot pickle configured launches with pre-launch callbacks"):
        pickle.dumps(launch)

    def refuse(kernel, config):
        raise RuntimeError("not now")

    launch.pre_launch_callbacks.append(refuse)
    with pytest.raises(RuntimeError, match="not now"):
        launch(a)
    assert (a.get() == 3).all()  # the kernel did not run
