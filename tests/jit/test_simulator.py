"""The simulator (``EMBER_SIMULATE=1``, Numba's ``NUMBA_ENABLE_CUDASIM=1``): ``@cuda.jit`` kernels
run as Python, one call of the kernel's function per thread. Each kernel here runs twice, compiled
on this machine's device and simulated, on the same seeded inputs, and the two must agree: the
project's example kernels (loaded from ``examples/``), barriers, shared, local and dynamic shared
memory, atomics, ``cuda.random``, the bit and float16 functions, the warp functions (against
NumPy where the device has no warps), and a grid-wide sync. Then what the simulator is for:
``print``, exceptions with the kernel's own line and the thread, ``breakpoint()``, out-of-bounds
indexing, deadlocks reported rather than hung."""

from __future__ import annotations

import ast
import math
import pathlib
import traceback

import ember
import numpy as np
import pytest
from conftest import run_python
from ember import cuda
from ember._jit.simulator import SimulatedKernel, simulated_intrinsic
from ember.errors import DeviceFunctionLaunchError

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def simulate(monkeypatch):
    monkeypatch.setattr(cuda.config, "ENABLE_CUDASIM", True)


def both(define):
    """``define()`` (which decorates kernels with ``@cuda.jit``) compiled, then simulated."""
    compiled = define()
    cuda.config.ENABLE_CUDASIM = True
    try:
        simulated = define()
    finally:
        cuda.config.ENABLE_CUDASIM = False
    return compiled, simulated


def run_both(define, launch, *inputs):
    """The outputs ``launch(kernels, *inputs)`` gives compiled and simulated, as NumPy arrays."""
    compiled, simulated = both(define)
    return ([np.asarray(o.get()) for o in launch(compiled, *inputs)],
            [np.asarray(o.get()) for o in launch(simulated, *inputs)])


# ---- every intrinsic has its simulated form ----


def test_every_row_of_the_intrinsic_registry_is_simulated():
    from ember._intrinsic import DeviceOnly

    rows = ember._ember.jit_intrinsics()
    assert len(rows) > 100
    for row in rows:
        if row.split(".")[1] in ("threadIdx", "blockIdx", "blockDim", "gridDim", "laneid", "warpsize"):
            continue
        value = simulated_intrinsic(row)
        assert callable(value) and not isinstance(value, DeviceOnly), row


# ---- the project's example kernels ----


def example(name: str) -> dict:
    """The imports, constants and functions of ``examples/name.py`` (not its script), executed
    under the current ``@cuda.jit``."""
    tree = ast.parse((EXAMPLES / f"{name}.py").read_text())
    keep = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom, ast.FunctionDef))
            or (isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant))]
    scope: dict = {"__name__": f"example_{name}"}
    exec(compile(ast.Module(keep, []), str(EXAMPLES / f"{name}.py"), "exec"), scope)  # noqa: S102
    return scope


def test_example_vector_add(rng):
    a, b = rng.standard_normal(1000, dtype=np.float32), rng.standard_normal(1000, dtype=np.float32)

    def launch(ex, a, b):
        c = cuda.device_array(a.size, np.float32)
        ex["add"][8, 128](cuda.to_device(a), cuda.to_device(b), c)
        return [c]

    got, sim = run_both(lambda: example("vector_add_numba"), launch, a, b)
    np.testing.assert_array_equal(sim[0], got[0])
    np.testing.assert_array_equal(sim[0], a + b)


def test_example_matrix_add_2d(rng):
    a, b = rng.standard_normal((37, 45)), rng.standard_normal((37, 45))

    def launch(ex, a, b):
        c = cuda.device_array(a.shape, np.float64)
        ex["matrix_add"][(3, 3), (16, 16)](cuda.to_device(a), cuda.to_device(b), c)
        return [c]

    got, sim = run_both(lambda: example("matrix_add_2d"), launch, a, b)
    np.testing.assert_array_equal(sim[0], got[0])


def test_example_heat_equation_device_function(rng):
    u0 = rng.random((20, 24)) * 100.0

    def launch(ex, u0):
        u, v = cuda.to_device(u0), cuda.device_array(u0.shape, np.float64)
        for _ in range(3):
            ex["heat_step"][(3, 3), (8, 8)](u, v, 0.2)
            u, v = v, u
        return [u]

    got, sim = run_both(lambda: example("heat_equation"), launch, u0)
    np.testing.assert_allclose(sim[0], got[0], rtol=1e-14)  # the device's compiler may fuse a + b * c


def test_example_shared_memory_matmul(rng):
    a, b = rng.random((40, 40), dtype=np.float32), rng.random((40, 40), dtype=np.float32)

    def launch(ex, a, b):
        c = cuda.device_array((40, 40), np.float32)
        ex["fast_matmul"][(3, 3), (16, 16)](cuda.to_device(a), cuda.to_device(b), c)
        return [c]

    got, sim = run_both(lambda: example("matmul_shared"), launch, a, b)
    np.testing.assert_allclose(sim[0], got[0], rtol=2e-6)
    np.testing.assert_allclose(sim[0], a @ b, rtol=1e-5)


def test_example_monte_carlo_draws_the_same_numbers():
    from ember.cuda.random import create_xoroshiro128p_states

    def launch(ex):
        sums, sums_sq = cuda.device_array(64, np.float64), cuda.device_array(64, np.float64)
        states = create_xoroshiro128p_states(64, seed=2718)
        ex["simulate"][2, 32](states, 100.0, 105.0, 0.03, 0.25, 1.0, 12, 3, sums, sums_sq)
        return [sums, sums_sq, states]

    got, sim = run_both(lambda: example("monte_carlo_option"), launch)
    np.testing.assert_array_equal(sim[2], got[2])  # the states advanced alike
    # Normals agree up to the last bits of float32 log and cos (PoCL's and NumPy's), which a
    # payoff max(S - K, 0) near zero turns into absolute, not relative, differences.
    np.testing.assert_allclose(sim[0], got[0], rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(sim[1], got[1], rtol=1e-5, atol=1e-1)


# ---- the language: memory, atomics, random, scalar functions ----


def _language():
    @cuda.jit(device=True)
    def clamp(x, lo, hi):
        return min(max(x, lo), hi)

    @cuda.jit
    def block_sums(x, out, counts):
        buf = cuda.shared.array(64, np.float64)
        dyn = cuda.shared.array(0, np.int32)  # dynamic shared memory, 64 int32
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        buf[t] = x[i]
        dyn[t] = 1 if x[i] > 0 else 0
        cuda.syncthreads()
        k = 32
        while k > 0:
            if t < k:
                buf[t] += buf[t + k]
            cuda.syncthreads()
            k //= 2
        n = cuda.syncthreads_count(x[i] > 0)
        every = cuda.syncthreads_and(dyn[t] + 1)
        if t == 0:
            out[cuda.blockIdx.x] = buf[0]
            counts[cuda.blockIdx.x, 0] = n
            counts[cuda.blockIdx.x, 1] = every
        if t == 1:
            s = 0
            for j in range(64):
                s += dyn[j]
            counts[cuda.blockIdx.x, 2] = s

    @cuda.jit
    def atomics(x, hist, mx, mn, inc, dec, old):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            cuda.atomic.add(hist, clamp(i % 19, 0, 15), 1)
            cuda.atomic.max(mx, 0, v)
            cuda.atomic.nanmin(mn, 0, v)
            cuda.atomic.inc(inc, 0, 7)
            cuda.atomic.dec(dec, 0, 5)
            cuda.atomic.or_(old, 1, 1 << (i % 31))
            if i == 0:
                old[0] = cuda.atomic.exch(old, 2, 42)

    @cuda.jit
    def local_and_bits(x, out):
        i = cuda.grid(1)
        if i < x.size:
            scratch = cuda.local.array(4, np.int64)
            for k in range(4):
                scratch[k] = x[i] >> k
            out[i, 0] = cuda.popc(x[i])
            out[i, 1] = cuda.clz(x[i])
            out[i, 2] = cuda.ffs(x[i])
            out[i, 3] = cuda.brev(np.uint32(x[i] & 0xFFFF))
            out[i, 4] = scratch[0] + scratch[1] + scratch[2] + scratch[3]
            out[i, 5] = cuda.selp(x[i] > 0, 1, -1)

    @cuda.jit
    def halves(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i, 0] = cuda.fp16.hadd(a[i], b[i])
            out[i, 1] = cuda.fp16.hmul(a[i], b[i])
            out[i, 2] = cuda.fp16.hfma(a[i], b[i], a[i])
            out[i, 3] = cuda.fp16.hmax(a[i], b[i])
            out[i, 4] = cuda.fp16.hdiv(a[i], b[i])
            out[i, 5] = cuda.fp16.hsqrt(cuda.fp16.habs(a[i]))

    @cuda.jit
    def floats(a, b, c, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i, 0] = cuda.fma(a[i], b[i], c[i])
            out[i, 1] = cuda.cbrt(a[i])
            out[i, 2] = math.sqrt(abs(a[i])) + math.sin(b[i]) * c[i]

    @cuda.jit
    def uniforms(states, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            for k in range(3):
                out[i, k] = cuda.random.xoroshiro128p_uniform_float64(states, i)
            out[i, 3] = cuda.random.xoroshiro128p_uniform_float32(states, i)
            out[i, 4] = cuda.random.xoroshiro128p_normal_float64(states, i)

    return locals()


def test_barriers_shared_and_dynamic_shared_memory(rng):
    x = rng.standard_normal(64 * 5)

    def launch(k, x):
        out, counts = cuda.device_array(5, np.float64), ember.zeros((5, 3), np.int32)
        k["block_sums"][5, 64, 0, 64 * 4](cuda.to_device(x), out, counts)
        return [out, counts]

    got, sim = run_both(_language, launch, x)
    np.testing.assert_allclose(sim[0], got[0], rtol=1e-14)
    np.testing.assert_allclose(sim[0], x.reshape(5, 64).sum(axis=1), rtol=1e-12)
    np.testing.assert_array_equal(sim[1], got[1])
    positives = (x.reshape(5, 64) > 0).sum(axis=1)
    np.testing.assert_array_equal(sim[1], np.stack([positives, np.ones(5, int), positives], axis=1))


def test_atomics(rng):
    x = rng.standard_normal(300).astype(np.float32)
    x[17] = np.nan  # nanmin ignores it; max keeps memory's value

    def launch(k, x):
        outs = [ember.zeros(16, np.int32), ember.full(1, -np.inf, np.float32), ember.full(1, np.nan, np.float32),
                ember.zeros(1, np.uint32), ember.zeros(1, np.uint32), ember.asarray(np.array([0, 0, 7], np.int64))]
        k["atomics"][3, 128](cuda.to_device(x), *outs)
        return outs

    got, sim = run_both(_language, launch, x)
    for g, s in zip(got, sim, strict=True):
        np.testing.assert_array_equal(s, g)
    finite = x[~np.isnan(x)]
    assert sim[2][0] == finite.min() and sim[3][0] == 300 % 8 and sim[5][0] == 7


def test_local_arrays_and_bit_functions(rng):
    x = rng.integers(-(2**40), 2**40, 200)

    def launch(k, x):
        out = ember.zeros((200, 6), np.int64)
        k["local_and_bits"][2, 128](cuda.to_device(x), out)
        return [out]

    got, sim = run_both(_language, launch, x)
    np.testing.assert_array_equal(sim[0], got[0])


def test_float16_and_float_functions(rng):
    a = rng.uniform(0.5, 8, 200).astype(np.float16)
    b = rng.uniform(0.5, 8, 200).astype(np.float16)

    def launch(k, a, b):
        out = ember.zeros((200, 6), np.float16)
        k["halves"][2, 128](cuda.to_device(a), cuda.to_device(b), out)
        return [out]

    got, sim = run_both(_language, launch, a, b)
    np.testing.assert_array_equal(sim[0], got[0])
    f = [rng.standard_normal(200).astype(np.float32) for _ in range(3)]

    def launch_floats(k, a, b, c):
        out = ember.zeros((200, 3), np.float32)
        k["floats"][2, 128](cuda.to_device(a), cuda.to_device(b), cuda.to_device(c), out)
        return [out]

    got, sim = run_both(_language, launch_floats, *f)
    np.testing.assert_array_equal(sim[0][:, 0], got[0][:, 0])  # fma: rounded once
    np.testing.assert_allclose(sim[0][:, 1], got[0][:, 1], rtol=2.5e-7)  # cbrt: within an ulp
    np.testing.assert_allclose(sim[0][:, 2], got[0][:, 2], rtol=1e-6, atol=1e-6)


def test_cuda_random_uniforms_bit_for_bit():
    from ember.cuda.random import create_xoroshiro128p_states

    def launch(k):
        states = create_xoroshiro128p_states(100, seed=99)
        out = ember.zeros((100, 5), np.float64)
        k["uniforms"][1, 128](states, out)
        return [out, states]

    got, sim = run_both(_language, launch)
    np.testing.assert_array_equal(sim[1], got[1])
    np.testing.assert_array_equal(sim[0][:, :4], got[0][:, :4])
    np.testing.assert_allclose(sim[0][:, 4], got[0][:, 4], rtol=1e-6)  # float32 log's last bit


def test_aliased_arguments_stay_aliased(simulate):
    @cuda.jit
    def shift(a, b):
        i = cuda.grid(1)
        if i < b.size:
            b[i] = a[i] * 10

    base = ember.arange(10, dtype=np.float64)
    shift[1, 16](base[:5], base[5:])
    np.testing.assert_array_equal(base.get(), [0, 1, 2, 3, 4, 0, 10, 20, 30, 40])


# ---- warps and the grid (compiled warps need CUDA: NumPy is the reference here) ----


def test_warp_functions(simulate, rng):
    @cuda.jit
    def warp(x, out):
        i = cuda.grid(1)
        lane = cuda.laneid
        v = x[i]
        out[i, 0] = cuda.shfl_sync(0xFFFFFFFF, v, 3)
        out[i, 1] = cuda.shfl_down_sync(0xFFFFFFFF, v, 1)
        out[i, 2] = cuda.shfl_up_sync(0xFFFFFFFF, v, 2)
        out[i, 3] = cuda.shfl_xor_sync(0xFFFFFFFF, v, 16)
        out[i, 4] = cuda.ballot_sync(0xFFFFFFFF, v > 0)
        out[i, 5] = cuda.all_sync(0xFFFFFFFF, v > -100) + 2 * cuda.any_sync(0xFFFFFFFF, v > 4)
        out[i, 6] = cuda.match_any_sync(0xFFFFFFFF, v % 3)
        out[i, 7] = lane + 100 * (cuda.activemask() == 0xFFFFFFFF)
        out[i, 8] = cuda.lanemask_lt()

    x = rng.integers(-5, 6, 64)
    out = ember.zeros((64, 9), np.int64)
    warp[1, 64](cuda.to_device(x), out)
    got = out.get()
    w = x.reshape(2, 32)
    lanes = np.arange(32)
    for k in range(2):
        g = got[32 * k: 32 * k + 32]
        np.testing.assert_array_equal(g[:, 0], w[k, 3])
        np.testing.assert_array_equal(g[:, 1], np.where(lanes + 1 < 32, w[k, np.minimum(lanes + 1, 31)], w[k]))
        np.testing.assert_array_equal(g[:, 2], np.where(lanes >= 2, w[k, lanes - 2], w[k]))
        np.testing.assert_array_equal(g[:, 3], w[k, lanes ^ 16])
        ballot = int(sum(1 << j for j in range(32) if w[k, j] > 0))
        np.testing.assert_array_equal(g[:, 4], np.int32(np.uint32(ballot).view(np.int32)))
        np.testing.assert_array_equal(g[:, 5], 1 + 2 * int((w[k] > 4).any()))
        same = [sum(1 << j for j in range(32) if w[k, j] % 3 == w[k, m] % 3) for m in range(32)]
        np.testing.assert_array_equal(g[:, 6], np.array(same, np.uint32).view(np.int32))
        np.testing.assert_array_equal(g[:, 7], lanes + 100)
        np.testing.assert_array_equal(g[:, 8], (1 << lanes) - 1)


@pytest.mark.gpu
def test_warp_functions_agree_with_cuda(rng):
    def define():
        @cuda.jit
        def warp(x, out):
            i = cuda.grid(1)
            v = x[i]
            out[i, 0] = cuda.shfl_sync(0xFFFFFFFF, v, 3) + cuda.shfl_down_sync(0xFFFFFFFF, v, 1)
            out[i, 1] = cuda.shfl_up_sync(0xFFFFFFFF, v, 2) + cuda.shfl_xor_sync(0xFFFFFFFF, v, 5)
            out[i, 2] = cuda.ballot_sync(0xFFFFFFFF, v > 0)
            out[i, 3] = cuda.match_any_sync(0xFFFFFFFF, v % 3)
            m, p = cuda.match_all_sync(0xFFFFFFFF, v // 100)
            out[i, 4] = m + p + cuda.eq_sync(0xFFFFFFFF, v > -50)
            out[i, 5] = cuda.syncthreads_count(v > 1) + cuda.lanemask_lt()
        return warp

    x = rng.integers(-5, 6, 96)

    def launch(warp, x):
        out = ember.zeros((96, 6), np.int64)
        warp[1, 96](cuda.to_device(x), out)
        return [out]

    got, sim = run_both(define, launch, x)
    np.testing.assert_array_equal(sim[0], got[0])


def _barriers():
    """Kernels whose threads wait at barriers: one that deadlocks (half the block at
    syncthreads, half at syncwarp), and one that syncs the grid."""

    @cuda.jit
    def split(a):
        t = cuda.threadIdx.x
        if t < 16:
            cuda.syncthreads()
        else:
            cuda.syncwarp()
        a[t] = 1

    @cuda.jit
    def two_phase(a, out):
        i = cuda.grid(1)
        a[i] = i
        cuda.cg.this_grid().sync()
        out[i] = a[(i + 37) % a.size]  # written by another block before the sync

    return locals()


def test_grid_sync_runs_every_block_at_once(simulate):
    a, out = ember.zeros(128, np.int64), ember.zeros(128, np.int64)
    _barriers()["two_phase"][4, 32](a, out)
    np.testing.assert_array_equal(out.get(), (np.arange(128) + 37) % 128)


# ---- what the simulator is for ----


def test_print_in_kernels_prints_thread_after_thread(simulate, capsys):
    @cuda.jit
    def show(a):
        i = cuda.grid(1)
        print("thread", i, a[i], i % 2 == 0)

    show[2, 2](np.array([1.5, -2.0, 3.25, 4.0]))
    assert capsys.readouterr().out.splitlines() == [
        "thread 0 1.5 True", "thread 1 -2.0 False", "thread 2 3.25 True", "thread 3 4.0 False"]


def _raising():
    @cuda.jit
    def fails(a):
        i = cuda.grid(1)
        if i == 5:
            raise ValueError("bad value at five")
        a[i] = i

    @cuda.jit
    def fails_between_barriers(a):
        i = cuda.grid(1)
        a[i] = 1
        cuda.syncthreads()
        if i == 9:
            raise ZeroDivisionError("nine")
        cuda.syncthreads()
        a[i] = 2

    return fails, fails_between_barriers


@pytest.mark.parametrize("which", [0, 1], ids=["in-turn", "threads"])
def test_an_exception_surfaces_with_the_kernels_line_and_thread(simulate, which):
    kernel = _raising()[which]
    a = ember.zeros(32, np.int64)
    with pytest.raises((ValueError, ZeroDivisionError)) as info:
        kernel[2, 16](a)
    tid, ctaid = ("[5, 0, 0]", "[0, 0, 0]") if which == 0 else ("[9, 0, 0]", "[0, 0, 0]")
    assert str(info.value).startswith(f"tid={tid} ctaid={ctaid}: ")
    frames = traceback.extract_tb(info.value.__traceback__)
    source = kernel.py_func.__code__
    raise_line = next(n for n, text in enumerate(pathlib.Path(source.co_filename).read_text().splitlines(), 1)
                      if n > source.co_firstlineno and "raise " in text)
    assert (frames[-1].filename, frames[-1].lineno) == (source.co_filename, raise_line)
    # The process keeps working: the same kernel runs again, and a compiled one beside it.
    with pytest.raises((ValueError, ZeroDivisionError)):
        kernel[2, 16](a)
    assert float(ember.ones(4).sum()) == 4.0


def test_out_of_bounds_indexing_names_the_thread(simulate):
    @cuda.jit
    def past_the_end(a):
        i = cuda.grid(1)
        a[i + 2] = 1.0

    with pytest.raises(IndexError, match=r"^tid=\[2, 0, 0\] ctaid=\[1, 0, 0\]: index 8 is out of bounds for axis 0 "
                                         r"with size 8$"):
        past_the_end[2, 4](ember.zeros(8))


def test_a_barrier_no_thread_can_pass_is_a_deadlock_error(simulate):
    with pytest.raises(RuntimeError, match=r"deadlock: every running thread waits at a barrier \(a warp function, "
                                           r"syncthreads\)"):
        _barriers()["split"][1, 32](ember.zeros(32))


def test_threads_that_return_early_do_not_block_syncthreads(simulate):
    @cuda.jit
    def early(a, out):
        i = cuda.grid(1)
        if i >= a.size:
            return
        cuda.syncthreads()
        out[i] = a[a.size - 1 - i]

    a = np.arange(50.0)
    out = ember.zeros(50)
    early[1, 64](a, out)
    np.testing.assert_array_equal(out.get(), a[::-1])


def test_launch_errors_match_the_compiled_kernels(simulate):
    @cuda.jit
    def k(a):
        a[0] = 1

    @cuda.jit(device=True)
    def dev(x):
        return x + 1

    assert isinstance(k, SimulatedKernel) and "simulated" in repr(k)
    with pytest.raises(ValueError, match="griddim and blockdim must be at least 1"):
        k[0, 1](ember.zeros(1))
    with pytest.raises(ValueError, match=r"asks for 2048 threads per block; CUDA blocks \(and the simulator's\) hold "
                                         "at most 1024"):
        k[1, 2048](ember.zeros(1))
    with pytest.raises(ValueError, match="Kernel launch configuration was not specified"):
        k(ember.zeros(1))
    with pytest.raises(DeviceFunctionLaunchError, match="dev is a device function"):
        dev[1, 1](1)
    assert dev(41) == 42  # device functions run on the host too


def test_only_the_users_kernels_are_simulated(simulate, rng):
    """ember's own kernels written in Python (sorting, histograms) stay compiled; the user's
    options are checked as the compiled kernels check them."""
    from ember._jit import Dispatcher, jit

    assert isinstance(jit(lambda a: None), Dispatcher)
    x = rng.standard_normal(5000)
    np.testing.assert_array_equal(ember.sort(ember.asarray(x)).get(), np.sort(x))
    with pytest.raises(TypeError, match="jit\\(\\) got unexpected keyword arguments: bogus"):
        cuda.jit(bogus=1)
    assert isinstance(cuda.jit("void(float64[:])")(lambda a: None), SimulatedKernel)


def test_breakpoint_and_numba_variable_in_a_fresh_process():
    """NUMBA_ENABLE_CUDASIM=1 turns the simulator on for code written for Numba, and
    ``breakpoint()`` in a kernel reaches the hook PYTHONBREAKPOINT names, in the kernel's frame."""
    program = """
import sys
import numpy as np
from ember import cuda

seen = []
def record():
    frame = sys._getframe(1)
    # What pdb evaluates in the kernel's frame: its locals, and its cuda's thread.
    seen.append((frame.f_code.co_name, frame.f_locals["i"], tuple(frame.f_globals["cuda"].threadIdx)))

@cuda.jit
def kernel(a):
    i = cuda.grid(1)
    if i % 3 == 0:
        breakpoint()
    a[i] = i

kernel[2, 4](np.zeros(8))
print(repr(kernel))
print(seen)
"""
    done = run_python(program, {"NUMBA_ENABLE_CUDASIM": "1", "PYTHONBREAKPOINT": "__main__.record"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "<ember.cuda.jit kernel kernel (simulated)>"
    assert lines[1] == "[('kernel', 0, (0, 0, 0)), ('kernel', 3, (3, 0, 0)), ('kernel', 6, (2, 0, 0))]"


# ---- what numba-cuda's own suite found (run under NUMBA_ENABLE_CUDASIM=1) ----


def _numba_cases():
    @cuda.jit("void(int32[:], int32)")
    def clz32(out, x):
        out[0] = cuda.clz(x)
        out[1] = cuda.popc(x)

    @cuda.jit
    def fields(points, pair, out):
        i = cuda.grid(1)
        if i < points.size:
            out[i] = points[i].x * pair.x + points[i].y * pair.y

    @cuda.jit
    def maths(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i, 0] = math.sqrt(x[i])
            v = x[i]  # float32 with float32 only: NumPy's and Numba's typing agree (see the docs)
            out[i, 1] = math.exp(v * v * v * v)
            out[i, 2] = math.floor(v + v + v)
            out[i, 3] = math.log(x[i])
            out[i, 4] = x[i] / (x[i] - x[i])

    return locals()


def test_signatures_cast_scalars_and_python_numbers_are_int64_and_float64():
    def launch(k):
        out = ember.zeros(2, np.int32)
        k["clz32"][1, 1](out, 11)
        return [out]

    got, sim = run_both(_numba_cases, launch)
    np.testing.assert_array_equal(sim[0], got[0])
    np.testing.assert_array_equal(sim[0], [28, 3])


def test_records_and_namedtuples_keep_their_fields(rng):
    import collections

    Pair = collections.namedtuple("Pair", ["x", "y"])
    points = np.zeros(50, dtype=[("x", np.float64), ("y", np.float64)])
    points["x"], points["y"] = rng.standard_normal(50), rng.standard_normal(50)

    def launch(k):
        out = ember.zeros(50)
        k["fields"][1, 64](cuda.to_device(points), Pair(2.0, -3.0), out)
        return [out]

    got, sim = run_both(_numba_cases, launch)
    np.testing.assert_array_equal(sim[0], got[0])
    np.testing.assert_allclose(sim[0], 2 * points["x"] - 3 * points["y"])


@pytest.mark.filterwarnings("ignore:.*encountered in scalar:RuntimeWarning")  # NumPy's words for x / 0
def test_math_answers_as_the_device_does(rng):
    """NaN and inf where Python's math raises, float32 kept, floor an int64, x / 0 inf."""
    x = np.concatenate([rng.uniform(-4, 4, 60), [0.0, -0.0, 1.0, 12.0]]).astype(np.float32)

    def launch(k):
        out = ember.zeros((x.size, 5), np.float32)
        k["maths"][1, 64](cuda.to_device(x), out)
        return [out]

    got, sim = run_both(_numba_cases, launch)
    np.testing.assert_array_equal(np.isnan(sim[0]), np.isnan(got[0]))
    np.testing.assert_array_equal(sim[0][:, 2], got[0][:, 2])
    np.testing.assert_allclose(sim[0][:, [0, 1, 3]], got[0][:, [0, 1, 3]], rtol=2e-7)
    assert np.isinf(sim[0][:, 1]).sum() > 10 and np.isnan(sim[0][:, 4]).all() is np.False_


def test_debug_division_by_zero_raises(simulate):
    @cuda.jit(debug=True)
    def divide(r, x, y):
        r[0] = y[0] / x[0]
        r[1] = y[0]

    r = np.zeros(2)
    with pytest.raises(ZeroDivisionError, match=r"^tid=\[0, 0, 0\] ctaid=\[0, 0, 0\]: divide by zero"):
        divide[1, 1](r, np.zeros(1), np.ones(1))
    assert r[1] == 0.0  # execution stopped at the division


def test_warp_functions_meet_by_mask(simulate):
    @cuda.jit
    def halves(x, out):
        lane = cuda.laneid
        if lane < 16:
            out[lane] = cuda.ballot_sync(0x0000FFFF, x[lane] > 0)
        else:
            out[lane] = cuda.ballot_sync(0xFFFF0000, x[lane] > 0)

    x = np.array([1, -1] * 16)
    out = ember.zeros(32, np.int64)
    halves[1, 32](x, out)
    low = sum(1 << j for j in range(16) if x[j] > 0)
    high = sum(1 << j for j in range(16, 32) if x[j] > 0)
    np.testing.assert_array_equal(out.get(), [low] * 16 + [np.int32(np.uint32(high).view(np.int32))] * 16)


def test_thread_indices_print_as_tuples(simulate, capsys):
    @cuda.jit
    def where(a):
        print(cuda.threadIdx, cuda.blockIdx)

    where[1, 2](np.zeros(1))
    assert capsys.readouterr().out.splitlines() == ["(0, 0, 0) (0, 0, 0)", "(1, 0, 0) (0, 0, 0)"]


@cuda.jit
def _module_kernel(a, record):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = i * 2
    if i == 0:
        record.x = record.x + 1.5


def test_records_by_reference_callbacks_pickling_and_the_compiled_views(simulate):
    """A record argument is written back; pre-launch callbacks run; kernels and configured
    launches pickle; inspect_* answer from the same function compiled (running stays simulated);
    a signature's integer argument wraps as C casts it."""
    import pickle

    kernel = cuda.jit(_module_kernel.py_func)
    record = np.zeros(1, dtype=[("x", np.float64)])[0]
    seen = []
    launch = kernel[1, 8]
    launch.pre_launch_callbacks.append(lambda k, cfg: seen.append((k, tuple(cfg.blockdim))))
    a = ember.zeros(8, np.int64)
    launch(a, record)
    assert seen == [(kernel, (8, 1, 1))] and record["x"] == 1.5
    np.testing.assert_array_equal(a.get(), np.arange(8) * 2)
    again = pickle.loads(pickle.dumps(kernel[1, 8]))
    again(a, record)
    assert record["x"] == 3.0
    with pytest.raises(pickle.PicklingError, match="pre-launch callbacks"):
        pickle.dumps(launch)
    signed = cuda.jit("void(int32[::1], int32)")(lambda out, x: None)
    assert "float32" not in str(list(signed.inspect_llvm())) and isinstance(signed, SimulatedKernel)

    @cuda.jit("void(int32[::1], int32)")
    def store(out, x):
        out[0] = x

    out = ember.zeros(1, np.int32)
    store[1, 1](out, 0xFFFFFFFF)
    assert out.get()[0] == -1


@pytest.mark.parametrize("greenlets", [True, False], ids=["greenlets", "thread-pool"])
def test_both_schedulers_agree_on_barriers_failures_and_deadlocks(simulate, monkeypatch, rng, greenlets):
    """Kernels with barriers run as greenlets (ember's `simulator` extra) or, without the
    greenlet package, on a pool of Python threads: both give the same answers."""
    from ember._jit.simulator import launch as simulated

    monkeypatch.setattr(simulated, "GREENLETS", greenlets)
    kernels = _language()
    x = rng.standard_normal(64 * 3)
    out, counts = ember.zeros(3), ember.zeros((3, 3), np.int32)
    kernels["block_sums"][3, 64, 0, 64 * 4](cuda.to_device(x), out, counts)
    np.testing.assert_allclose(out.get(), x.reshape(3, 64).sum(axis=1), rtol=1e-12)
    np.testing.assert_array_equal(counts.get()[:, 0], (x.reshape(3, 64) > 0).sum(axis=1))
    with pytest.raises(ZeroDivisionError, match=r"^tid=\[9, 0, 0\] ctaid=\[0, 0, 0\]: nine"):
        _raising()[1][2, 16](ember.zeros(32, np.int64))

    with pytest.raises(RuntimeError, match="deadlock"):
        _barriers()["split"][1, 32](ember.zeros(32))

    a, got = ember.zeros(128, np.int64), ember.zeros(128, np.int64)
    _barriers()["two_phase"][4, 32](a, got)
    np.testing.assert_array_equal(got.get(), (np.arange(128) + 37) % 128)


def test_compiled_kernels_and_vectorize_call_simulated_device_functions(simulate, rng):
    """A device function decorated while simulating is still one the compiler can call: a
    ufunc from ``cuda.vectorize`` (always compiled) uses it."""

    @cuda.jit(device=True)
    def twice_plus(x, y):
        return 2 * x + y

    @cuda.vectorize(["float64(float64, float64)"])
    def ufunc(x, y):
        return twice_plus(x, y)

    x, y = rng.standard_normal(100), rng.standard_normal(100)
    np.testing.assert_array_equal(np.asarray(ufunc(cuda.to_device(x), cuda.to_device(y)).get()), 2 * x + y)


@cuda.jit(device=True)
def _compiled_before_the_switch(x):
    return x * 3 + 1


def test_device_functions_compiled_before_the_switch_run_as_python(simulate):
    @cuda.jit
    def calls(out):
        i = cuda.grid(1)
        out[i] = _compiled_before_the_switch(i)

    assert not isinstance(_compiled_before_the_switch, SimulatedKernel)
    out = ember.zeros(8, np.int64)
    calls[1, 8](out)
    np.testing.assert_array_equal(out.get(), np.arange(8) * 3 + 1)
