"""Thread coarsening of ``@cuda.jit`` kernels: one hardware thread runs several logical threads.

Launches coarsen automatically on CUDA (the seed's tiled matmul by rows, elementwise kernels
into 16-byte vectors); here each kernel is forced through each plan that is sound for it and
compared with NumPy, with the plain launch, and with what ``inspect_c`` says was compiled.
Kernels where coarsening is not sound must run uncoarsened and still be right."""

import ember
import numpy as np
import pytest
from ember import _ember, cuda, float32, int32
from ember._jit import kernel_source

TPB = 16


@pytest.fixture
def coarsening():
    """Sets the coarsening mode for one test, restoring the previous one after."""
    old = _ember.jit_coarsening()
    yield lambda mode: _ember.jit_coarsening(mode)
    _ember.jit_coarsening(old)


def coarsened(kernel, exact=False) -> list[str]:
    """The plans of the kernel's compiled specialisations that are coarsened (without the
    'a' CUDA adds for 16-byte-aligned arguments unless `exact`)."""
    plans = [k.split("coarsened ")[1] for k in kernel.inspect_c() if "coarsened" in k]
    return plans if exact else [p.removesuffix("a") for p in plans]


# The seed kernels again, not imported from test_jit_seeds: these tests count the coarsened
# specialisations each kernel object holds, which other modules' launches would add to.
@cuda.jit
def fast_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = float32(0.)
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


@cuda.jit
def vector_add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit
def column_sums(m, out):
    """Block (16, 16): rows strided by blockDim.y, then a tree over the block's rows. A
    uniform while loop with a barrier, and a uniform counter that must halve once per pass."""
    s = cuda.shared.array((16, 16), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col = cuda.blockIdx.x * cuda.blockDim.x + tx
    acc = float32(0)
    if col < m.shape[1]:
        for r in range(ty, m.shape[0], cuda.blockDim.y):
            acc += m[r, col]
    s[ty, tx] = acc
    cuda.syncthreads()
    step = cuda.blockDim.y // 2
    while step > 0:
        if ty < step:
            s[ty, tx] += s[ty + step, tx]
        cuda.syncthreads()
        step //= 2
    if ty == 0 and col < m.shape[1]:
        out[col] = s[0, tx]


@cuda.jit
def first_above(x, limits, out):
    """A loop left by a varying break, and a local array per logical thread."""
    i = cuda.grid(1)
    if i < out.size:
        seen = cuda.local.array(2, int32)
        seen[0] = -1
        seen[1] = 0
        for j in range(x.size):
            seen[1] += 1
            if x[j] > limits[i]:
                seen[0] = j
                break
        out[i] = seen[0] * 1000 + seen[1]


@cuda.jit
def collatz(start, out):
    """A while loop whose trip count differs per thread; a conditional expression."""
    i = cuda.grid(1)
    if i < out.size:
        n = start[i]
        steps = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        out[i] = steps


@cuda.jit
def histogram(x, bins):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(bins, x[i] % bins.size, 1)


@cuda.jit
def scale_strided(x, out, f):
    """A grid-stride loop: the grid's logical size, not the hardware one."""
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.size, stride):
        out[i] = x[i] * f


@cuda.jit(device=True)
def clip(v, lo, hi):
    return min(max(v, lo), hi)


@cuda.jit
def clip_shifted(x, lo, out):
    """A parameter reassigned per thread, a device function, tuple unpacking."""
    i = cuda.grid(1)
    if i < x.size:
        lo = lo + i % 3
        a, b = lo, lo + 10
        out[i] = clip(x[i], a, b)


@cuda.jit
def where_am_i(out):
    """Every thread writes its place: logical indices, block size and grid size."""
    x, y = cuda.grid(2)
    w, h = cuda.gridsize(2)
    if x < out.shape[1] and y < out.shape[0]:
        out[y, x, 0] = cuda.threadIdx.x
        out[y, x, 1] = cuda.threadIdx.y
        out[y, x, 2] = cuda.blockDim.x * 100 + cuda.blockDim.y
        out[y, x, 3] = w * 1000 + h


def test_seed_matmul_matches_numpy_coarsened_by_rows_and_by_columns(rng, coarsening):
    n = 70  # not a multiple of the tile: edge tiles padded with zeros
    A = rng.random((n, n), dtype=np.float32)
    B = rng.random((n, n), dtype=np.float32)
    grid = ((n + TPB - 1) // TPB, (n + TPB - 1) // TPB)
    expect = A @ B
    for plan in ("off", "y2", "x2"):
        coarsening(plan)
        C = ember.zeros((n, n), dtype=np.float32)
        fast_matmul[grid, (TPB, TPB)](ember.asarray(A), ember.asarray(B), C)
        np.testing.assert_allclose(C.get(), expect, rtol=2e-5, err_msg=plan)
    assert sorted(coarsened(fast_matmul)) == ["x2", "y2"]


def test_vector_add_coarsened_covers_the_tail(rng, coarsening):
    """n not a multiple of 4: the last hardware thread has copies both in and out of range."""
    coarsening("x4")
    for n in (1001, 4096 + 3):
        a = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        c = ember.full(n, np.float32(7.5))
        blocks = (n + 255) // 256
        vector_add[blocks, 256](ember.asarray(a), ember.asarray(b), c)
        np.testing.assert_array_equal(c.get(), a + b)
    assert coarsened(vector_add) == ["x4"]


def test_tree_reduction_with_a_uniform_while_and_counter(rng, coarsening):
    m = rng.random((37, 45), dtype=np.float32)
    expect = m.sum(axis=0)
    for plan in ("off", "y2", "y4", "x2"):
        coarsening(plan)
        out = ember.zeros(45, dtype=np.float32)
        column_sums[(3,), (16, 16)](ember.asarray(m), out)
        np.testing.assert_allclose(out.get(), expect, rtol=1e-5, err_msg=plan)
    assert sorted(coarsened(column_sums)) == ["x2", "y2", "y4"]


def test_varying_loops_breaks_and_local_arrays(rng, coarsening):
    x = rng.random(50)
    limits = rng.random(40) * 1.1  # some limits above every element: no break
    start = rng.integers(1, 5000, size=40).astype(np.int64)
    want_first = np.array([next((j * 1000 + j + 1 for j in range(50) if x[j] > t), -1000 + 50) for t in limits])

    def steps(n):
        s = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            s += 1
        return s

    want_steps = np.array([steps(int(v)) for v in start])
    coarsening("x4")
    out = ember.zeros(40, dtype=np.int32)
    first_above[2, 32](ember.asarray(x), ember.asarray(limits), out)
    np.testing.assert_array_equal(out.get(), want_first)
    got = ember.zeros(40, dtype=np.int64)
    collatz[2, 32](ember.asarray(start), got)
    np.testing.assert_array_equal(got.get(), want_steps)
    assert coarsened(first_above) == ["x4"] and coarsened(collatz) == ["x4"]


def test_atomics_run_once_per_logical_thread(rng, coarsening):
    coarsening("x4")
    x = rng.integers(0, 1000, size=5000).astype(np.int32)
    bins = ember.zeros(7, dtype=np.int32)
    histogram[(5000 + 127) // 128, 128](ember.asarray(x), bins)
    np.testing.assert_array_equal(bins.get(), np.bincount(x % 7, minlength=7))
    assert coarsened(histogram) == ["x4"]


def test_grid_stride_loop_sees_the_logical_grid(rng, coarsening):
    coarsening("x4")
    x = rng.standard_normal(3000)
    out = ember.zeros(3000)
    scale_strided[3, 64](ember.asarray(x), out, 2.5)  # 192 logical threads, 48 hardware ones
    np.testing.assert_array_equal(out.get(), x * 2.5)
    assert coarsened(scale_strided) == ["x4"]


def test_reassigned_parameter_and_device_function(rng, coarsening):
    coarsening("x2")
    x = rng.integers(-20, 40, size=333).astype(np.int64)
    out = ember.zeros(333, dtype=np.int64)
    clip_shifted[3, 128](ember.asarray(x), 4, out)
    lo = 4 + np.arange(333) % 3
    np.testing.assert_array_equal(out.get(), np.clip(x, lo, lo + 10))
    assert coarsened(clip_shifted) == ["x2"]


@pytest.mark.parametrize("plan", ["x4", "y2"])
def test_thread_geometry_is_the_logical_one(coarsening, plan):
    coarsening(plan)
    out = ember.zeros((12, 16, 4), dtype=np.int64)
    where_am_i[(2, 3), (8, 4)](out)
    got = out.get()
    ys, xs = np.mgrid[0:12, 0:16]
    np.testing.assert_array_equal(got[..., 0], xs % 8)
    np.testing.assert_array_equal(got[..., 1], ys % 4)
    assert (got[..., 2] == 804).all() and (got[..., 3] == 16 * 1000 + 12).all()
    assert plan in coarsened(where_am_i)


@cuda.jit
def nested_else_continue(a, out):
    """`continue` of the outer loop in the inner loop's `else`: whether it runs varies."""
    i = cuda.grid(1)
    if i < out.size:
        n = 0
        for r in range(4):
            for _j in range(1):
                if a[i] == r:
                    break
            else:
                continue
            n += 1
        out[i] = n


@cuda.jit
def tuple_into_elements(x, out):
    i = cuda.grid(1)
    acc = cuda.local.array(2, float32)
    acc[0], acc[1] = 0.5, 0.25
    if i < x.size:
        out[i] = x[i] + acc[0] + acc[1]


def test_loop_exits_and_element_tuples_stay_per_thread(rng, coarsening):
    coarsening("x2")
    a = rng.integers(0, 6, size=64)
    out = ember.zeros(64, dtype=np.int64)
    nested_else_continue[1, 64](ember.asarray(a), out)
    np.testing.assert_array_equal(out.get(), (a < 4).astype(np.int64))
    x = rng.standard_normal(64).astype(np.float32)
    got = ember.zeros(64, dtype=np.float32)
    tuple_into_elements[1, 64](ember.asarray(x), got)
    np.testing.assert_array_equal(got.get(), (x + np.float32(0.5)) + np.float32(0.25))
    assert coarsened(nested_else_continue) == ["x2"] and coarsened(tuple_into_elements) == ["x2"]


@cuda.jit
def spin_lock(lock, counter):
    while cuda.atomic.cas(lock, 0, 0, 1) != 0:
        pass
    counter[0] += 1
    cuda.threadfence()
    cuda.atomic.exch(lock, 0, 0)


@cuda.jit
def barrier_in_branch(x, out):
    s = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    if t < 32:
        cuda.syncthreads()
    out[t] = s[63 - t]


@cuda.jit
def early_exit(x, out):
    i = cuda.grid(1)
    if i >= x.size:
        return
    out[i] = x[i] * 2


@cuda.jit
def with_lane(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = cuda.laneid


@cuda.jit(device=True)
def my_row():
    return cuda.threadIdx.x


@cuda.jit
def asks_a_device_function(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = my_row()


@pytest.mark.parametrize("kernel, types, why", [
    (barrier_in_branch, ["float32[::1]"] * 2, "a barrier sits under control flow that differs"),
    (early_exit, ["float32[::1]"] * 2, "a return sits under control flow that differs"),
    (with_lane, ["int32[::1]"], "warp-level"),
    (asks_a_device_function, ["int32[::1]"], "a device function reads the thread's place"),
    (spin_lock, ["int32[::1]", "int32[::1]"], "it may wait for another thread"),
])
def test_unsound_kernels_are_not_coarsened(kernel, types, why):
    with pytest.raises(ValueError, match=why):
        kernel_source(kernel, types, "opencl", "x4")


def test_unsound_kernel_runs_plain_when_forced(rng, coarsening):
    coarsening("x4")
    x = rng.standard_normal(300).astype(np.float32)
    out = ember.zeros(300, dtype=np.float32)
    early_exit[3, 128](ember.asarray(x), out)
    np.testing.assert_array_equal(out.get(), x * 2)
    assert coarsened(early_exit) == []


def test_bad_modes_and_plans_say_what_is_accepted(coarsening):
    accepted = r'"sideways" is not valid: use off \(or 0\), auto .* or a plan such as y2 or x4'
    with pytest.raises(ValueError, match=accepted):
        _ember.jit_coarsening("sideways")
    with pytest.raises(ValueError, match="axis, factor 2-16"):
        kernel_source(vector_add, ["float32[::1]"] * 3, "cuda", "w3")
    coarsening("y2")
    assert _ember.jit_coarsening("off") == "y2"
    assert _ember.jit_coarsening("auto") == "off"


def test_automatic_coarsening_leaves_small_and_opencl_launches_alone(rng, coarsening):
    """Automatic coarsening is for CUDA and launches of at least 2^16 (rows) or 2^22
    (elements) threads; here (PoCL, or a small launch) the plain kernel runs."""
    coarsening("auto")

    @cuda.jit
    def add_one(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    a = ember.asarray(rng.standard_normal(1000).astype(np.float32))
    want = a.get() + 1
    add_one[4, 256](a)
    np.testing.assert_array_equal(a.get(), want)
    assert coarsened(add_one) == []


def test_coarsened_cuda_c_compiles_through_nvrtc():
    from conftest import nvrtc_or_skip

    nvrtc_or_skip()
    cases = [
        (fast_matmul, ["float32[:, ::1]"] * 3, "y2a"),
        (vector_add, ["float32[::1]"] * 3, "x4a"),
        (vector_add, ["float64[::1]"] * 3, "x2a"),
        (column_sums, ["float32[:, ::1]", "float32[::1]"], "y2"),
        (first_above, ["float64[::1]", "float64[::1]", "int32[::1]"], "x4"),
        (histogram, ["int32[::1]", "int32[::1]"], "x4a"),
        (where_am_i, ["int64[:, :, ::1]"], "y2"),
    ]
    for kernel, types, plan in cases:
        src = kernel_source(kernel, types, "cuda", plan)
        assert "ember.coarse" not in src and ("__builtin_assume_aligned" in src) == plan.endswith("a")
        name = "ember_kernel_" + kernel.__name__
        assert _ember.nvrtc_compile(src, name, "sm_90", [])[:4] == b"\x7fELF", (kernel.__name__, plan)


@pytest.mark.gpu
def test_seed_kernels_coarsen_automatically_on_cuda(rng, coarsening):
    """The seed's matmul coarsens by rows and its vector add into 16-byte vectors."""
    coarsening("auto")

    @cuda.jit
    def seed_matmul(A, B, C):  # fast_matmul, fresh: other tests forced plans on that one
        sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
        sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
        x, y = cuda.grid(2)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        tmp = float32(0.)
        for i in range(cuda.gridDim.x):
            sA[ty, tx] = A[y, tx + i * TPB]
            sB[ty, tx] = B[ty + i * TPB, x]
            cuda.syncthreads()
            for j in range(TPB):
                tmp += sA[ty, j] * sB[j, tx]
            cuda.syncthreads()
        C[y, x] = tmp

    n = 512
    A = rng.random((n, n), dtype=np.float32)
    B = rng.random((n, n), dtype=np.float32)
    C = ember.zeros((n, n), dtype=np.float32)
    seed_matmul[(n // TPB, n // TPB), (TPB, TPB)](ember.asarray(A), ember.asarray(B), C)
    np.testing.assert_allclose(C.get(), A @ B, rtol=2e-5)
    assert coarsened(seed_matmul, exact=True) == ["y2a"]

    @cuda.jit
    def seed_add(a, b, c):
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]

    small = ember.asarray(rng.standard_normal(1 << 20).astype(np.float32))
    seed_add[(1 << 20) // 256, 256](small, small, small)  # under 2^22 threads: plain
    assert coarsened(seed_add) == [] and len(seed_add.inspect_c()) == 1
    m = (1 << 22) + 5
    a = rng.standard_normal(m).astype(np.float32)
    b = rng.standard_normal(m).astype(np.float32)
    c = ember.zeros(m, dtype=np.float32)
    seed_add[(m + 255) // 256, 256](ember.asarray(a), ember.asarray(b), c)
    np.testing.assert_array_equal(c.get(), a + b)
    assert coarsened(seed_add, exact=True) == ["x4a"]
    # A view that is not 16-byte aligned gets the plain kernel.
    c2 = ember.zeros(m + 1, dtype=np.float32)
    seed_add[(m + 255) // 256, 256](ember.asarray(a), ember.asarray(b), c2[1:])
    np.testing.assert_array_equal(c2.get()[1:], a + b)
    assert coarsened(seed_add, exact=True) == ["x4a"] and len(seed_add.inspect_c()) == 2
