"""The language of ``@cuda.jit`` kernels: arrays (indexing in 1 to 3 dimensions with negative
indices, views with any strides in and out, slicing and transposing inside kernels) and
module-level constants (scalars, tuples and global arrays), compared with the same Python on
the host (see ``jit_kernels``)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from ember import cuda
from jit_harness import HALF, TPB, N, blocks, host
from jit_kernels import MIRRORED, SLICES, TRANSPOSES, mirrored, slices, transposes

# ---- arrays ----


def host_cells(fn, a, shape):
    return np.array([[fn(a, i, j) for j in range(shape[1])] for i in range(shape[0])])


def test_2d_indexing_with_negative_indices_shape_size_ndim(rng):
    x = rng.standard_normal((13, 21))
    out = ember.zeros(x.shape)
    MIRRORED[(2, 3), (8, 8)](ember.asarray(x), out)
    # The device may fuse a * b + c into one rounding (as CUDA and OpenCL compilers do by default).
    np.testing.assert_allclose(out.get(), host_cells(mirrored, x, x.shape), rtol=1e-15)


def test_2d_views_transposed_and_negative_strides_in_and_out(rng):
    base = rng.standard_normal((26, 30))
    view = base.T[::-1, ::2]  # negative and doubled strides, not contiguous
    out = ember.zeros((view.shape[1], view.shape[0])).T  # written through a transpose
    MIRRORED[(4, 2), (8, 8)](ember.asarray(base).T[::-1, ::2], out)
    assert not out.flags.c_contiguous
    np.testing.assert_allclose(out.get(), host_cells(mirrored, view, view.shape), rtol=1e-15)


def cube(a, i, j, k):
    return a[i, j, k] + 2 * a[-1 - i, j, -k - 1] + a.shape[2] * a[i, -j - 1, k] - a.strides[0]


def test_3d_indexing_of_a_permuted_reversed_view(rng):
    dev = cuda.jit(device=True)(cube)

    @cuda.jit
    def cells3(a, out):
        i, j, k = cuda.grid(3)
        if i < out.shape[0] and j < out.shape[1] and k < out.shape[2]:
            out[i, j, k] = dev(a, i, j, k)

    base = rng.integers(-1000, 1000, (4, 5, 6)).astype(np.int64)
    view = base.transpose(2, 0, 1)[:, ::-1]
    dview = ember.asarray(base).transpose(2, 0, 1)[:, ::-1]
    assert dview.strides == view.strides
    out = ember.zeros(view.shape, dtype=np.int64)
    cells3[(2, 2, 2), (4, 4, 4)](dview, out)
    want = np.array([[[cube(view, i, j, k) for k in range(5)] for j in range(4)] for i in range(6)])
    np.testing.assert_array_equal(out.get(), want)


@pytest.mark.parametrize("layout", ["contiguous", "reversed columns"])
def test_slicing_inside_kernels_gives_views(rng, layout):
    base = rng.integers(-50, 50, (40, 12)).astype(np.int64)
    a, d = (base, ember.asarray(base)) if layout == "contiguous" else (base[:, ::-1], ember.asarray(base)[:, ::-1])
    out = ember.zeros((40, 22), dtype=np.int64)
    SLICES[1, TPB](d, out)
    np.testing.assert_array_equal(out.get(), host(slices, [a] * 40, list(range(40)), dtype=np.int64))


@pytest.mark.parametrize("layout", ["contiguous", "reversed columns"])
def test_transpose_inside_kernels_is_a_view_like_numpys(rng, layout):
    base = rng.integers(-50, 50, (40, 12)).astype(np.int64)
    a, d = (base, ember.asarray(base)) if layout == "contiguous" else (base[:, ::-1], ember.asarray(base)[:, ::-1])
    out = ember.zeros((40, 9), dtype=np.int64)
    TRANSPOSES[1, TPB](d, out)
    np.testing.assert_array_equal(out.get(), host(transposes, [a] * 40, list(range(40)), dtype=np.int64))


# ---- module-level constants ----

SCALE = 3
OFFSET = -1.25
SIZES = (4, 8, 16)
MIXED = (2, 0.25)
FLAG = True
WEIGHTS = np.array([0.5, -1.0, 2.0, 4.5, -3.25], dtype=np.float32)
TABLE = np.arange(12, dtype=np.int64).reshape(3, 4) * 7 - 20
COMPLEX_TABLE = (np.random.default_rng(5).standard_normal((2, 3, 4)) * (1 - 2j)).astype(np.complex64)


def with_constants(v, i):
    w = WEIGHTS[i % WEIGHTS.size]
    return v * SCALE + OFFSET + w + SIZES[-1] * MIXED[1] + MIXED[0] + (HALF if FLAG else 0.0) + len(SIZES)


def test_complex_constant_arrays_keep_both_parts(rng):
    @cuda.jit
    def read_table(out):
        t = cuda.const.array_like(COMPLEX_TABLE)
        i, j, k = cuda.threadIdx.x, cuda.threadIdx.y, cuda.threadIdx.z
        out[i, j, k] = t[i, j, k] * 2

    out = ember.zeros(COMPLEX_TABLE.shape, dtype=np.complex64)
    read_table[1, COMPLEX_TABLE.shape](out)
    np.testing.assert_array_equal(out.get(), COMPLEX_TABLE * 2)


def test_module_constants_tuples_and_global_arrays(rng):
    dev = cuda.jit(device=True)(with_constants)

    @cuda.jit
    def use_constants(x, out):
        i = cuda.grid(1)
        if i < x.size:
            t = cuda.const.array_like(TABLE)
            out[i, 0] = dev(x[i], i)
            out[i, 1] = t[i % 3, -1 - i % 4]
            out[i, 2] = TABLE[-1, i % 4] + TABLE.shape[1] + t.size

    x = rng.standard_normal(N)
    out = ember.zeros((N, 3))
    use_constants[blocks(N), TPB](ember.asarray(x), out)
    i = np.arange(N)
    want = np.stack([
        [with_constants(v, k) for k, v in enumerate(x)],
        TABLE[i % 3, -1 - i % 4],
        TABLE[-1, i % 4] + TABLE.shape[1] + TABLE.size,
    ], axis=1)
    np.testing.assert_allclose(out.get(), want, rtol=1e-15)  # a * b + c may be fused on the device


@cuda.jit
def complex_parts(z, w):
    i, j = cuda.grid(2)
    if i < z.shape[0] and j < z.shape[1]:
        cuda.atomic.add(z.real, (i, j), 1.0)  # Numba's test_complex: atomics on a part
        z.imag[i, j] = 2 * z.real[i, j] + z.imag[i, j]
        w.real[i, j] = 3 * w[i, j]  # a real array's .real is itself


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_real_and_imag_of_complex_arrays_are_writable_views(rng, dt):
    z = (rng.standard_normal((5, 7)) + 1j * rng.standard_normal((5, 7))).astype(dt)
    w = rng.standard_normal((5, 7))
    want_z, want_w = z.copy(), 3 * w
    want_z.real += 1
    want_z.imag = 2 * want_z.real + want_z.imag
    d = ember.asarray(z)
    ew = ember.asarray(w)
    complex_parts[(1, 1), (8, 8)](d[:, ::-1], ew)  # through a strided view too
    np.testing.assert_allclose(d.get(), want_z, rtol=1e-6)  # elementwise: the view reaches every one
    np.testing.assert_array_equal(ew.get(), want_w)


@cuda.jit
def viewed(raw, start, stop, words, halves):
    i = cuda.grid(1)
    if i == 0:
        words[0] = raw[start:stop].view(np.int32)[0]  # numba-cuda's test_array_methods
        w = raw.view(np.uint32)
        for k in range(w.size):
            words[k + 1] = w[k]
        h = halves.view(np.int16)
        h[1] = -2  # a view writes through


def test_view_reads_the_same_bytes_as_another_dtype():
    raw = np.arange(64, dtype=np.uint8)
    words = ember.zeros(17, np.int64)
    halves = ember.asarray(np.array([5, 7], np.uint16))
    viewed[1, 1](ember.asarray(raw), 8, 12, words, halves)
    got = words.get()
    assert got[0] == raw[8:12].view(np.int32)[0]
    np.testing.assert_array_equal(got[1:], raw.view(np.uint32))
    np.testing.assert_array_equal(halves.get(), np.array([5, -2], np.int16).view(np.uint16))


COPIED = np.arange(12).reshape(3, 4)[::-1] * 2


@cuda.jit
def copies(out):
    q = COPIED.copy()  # a constant array's copy is a local array: writable
    q[0, 0] = -1
    s = cuda.local.array((2, 3), np.float32)
    for i in range(2):
        for j in range(3):
            s[i, j] = i * 10 + j
    t = s.copy()
    s[0, 0] = 99  # the copy keeps the old values
    for i in range(3):
        for j in range(4):
            out[i, j] = q[i, j] + t[i % 2, j % 3]


def test_copy_of_constant_shape_arrays_is_a_local_array():
    out = ember.zeros((3, 4))
    copies[1, 1](out)
    want = COPIED.astype(float)
    want[0, 0] = -1
    t = np.array([[0, 1, 2], [10, 11, 12]], float)
    want += np.array([[t[i % 2, j % 3] for j in range(4)] for i in range(3)])
    np.testing.assert_array_equal(out.get(), want)

    @cuda.jit
    def copies_an_argument(a):
        b = a.copy()
        a[0] = b[0]

    with pytest.raises(ember.JitError, match=r"copy\(\) needs memory a kernel cannot allocate"):
        copies_an_argument[1, 1](ember.zeros(3))


def store_regions(a, m, b, x):
    # Each store names a region, as NumPy assigns it: slices, a row, a scalar broadcast, an
    # array broadcast along its leading axes and along axes of length 1 (issue 28).
    a[1:5] = x
    a[9:] = b[:3]
    a[::4] = -1
    a[-2::-3] = b[4]
    m[1] = b[:5]
    m[2, 1:4] = x
    m[3:, :] = b[5:10]
    m[:2, ::2] = m[4:5, ::2]


STORE_REGIONS = cuda.jit(store_regions)


@pytest.mark.parametrize("dt", [np.float64, np.int32])
def test_slice_assignment_stores_every_element_of_the_region(rng, dt):
    a, b = rng.integers(-50, 50, 12).astype(dt), rng.integers(-50, 50, 10).astype(dt)
    m = rng.integers(-50, 50, (6, 5)).astype(dt)
    want_a, want_m = a.copy(), m.copy()
    store_regions(want_a, want_m, b, 3)
    da, dm = ember.asarray(a), ember.asarray(m)
    STORE_REGIONS[1, 1](da, dm, ember.asarray(b), 3)
    np.testing.assert_array_equal(da.get(), want_a)
    np.testing.assert_array_equal(dm.get(), want_m)


def test_whole_axis_stores_into_local_and_shared_arrays_and_0d_indices():
    @cuda.jit
    def k(out, r, ary, i):
        loc = cuda.local.array((2, 3), np.float64)
        loc[:] = 2.5
        loc[1] = 7
        sh = cuda.shared.array((2, 4), np.int32)
        if cuda.threadIdx.x == 0:
            sh[:, :] = 3
            sh[1, :] = 4
        cuda.syncthreads()
        if cuda.threadIdx.x == 0:
            out[0] = loc[0, 2] + loc[1, 0] + sh[0, 3] + sh[1, 0]
            r[()] = ary[i]  # a 0-d integer array indexes as its value, as in NumPy

    out, r = ember.zeros(1), ember.zeros((), np.int64)
    k[1, 4](out, r, ember.arange(10) * 3, ember.asarray(np.int64(4)))
    assert out.get()[0] == 2.5 + 7 + 3 + 4
    assert int(r.get()) == 12


def test_slice_assignment_errors_say_what_to_do():
    @cuda.jit
    def partial(out):
        loc = cuda.local.array(4, np.float64)
        loc[1:3] = 0
        out[0] = loc[0]

    with pytest.raises(ember.errors.JitError, match="must be the whole axis"):
        partial[1, 1](ember.zeros(1))

    @cuda.jit
    def too_many(out, m):
        out[1:3] = m

    with pytest.raises(ember.errors.JitError, match="could not broadcast an array of 2 dimensions"):
        too_many[1, 1](ember.zeros(4), ember.zeros((2, 2)))
