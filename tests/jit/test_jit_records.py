"""NumPy structured (record) dtypes in ``@cuda.jit`` kernels, as Numba has them: arrays of
records (host, ``cuda.to_device`` and ember arrays), a record element as a reference
(``r = a[i]; r.x += 1`` writes ``a``), fields by name, ``r['x']`` and position, nested arrays,
nested records, whole-record and nested-array copies, ``a.x``/``a['x']`` of a whole array (a
strided view of one field), record scalars as arguments (copied to
the device and back), record-typed constant, local and shared arrays, and ``from_dtype``'s
``Record`` type in signatures. Offsets are NumPy's, packed and aligned: a field not aligned for
its type is loaded and stored byte by byte. Every result is compared with NumPy doing the same
updates on the host; the CUDA C of the kernels compiles through NVRTC."""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest
from ember import cuda
from ember._jit import kernel_source
from ember.errors import JitError, PerformanceWarning
from ember.types import Record, from_dtype, int64, void

# A packed layout puts x (float64) at offset 1 and c (complex64) at 13: unaligned.
PACKED = np.dtype([("u", np.uint8), ("x", np.float64), ("n", np.int32), ("c", np.complex64),
                   ("h", np.float32, 3), ("j", np.int16, (2, 3))])
ALIGNED = np.dtype(PACKED.descr, align=True)
INNER = np.dtype([("p", np.int16), ("q", np.float32, 3)], align=True)
OUTER = np.dtype([("id", np.int32), ("inner", INNER), ("w", np.float64)], align=True)


def records(dtype, n, seed):
    rng = np.random.default_rng(seed)
    a = np.zeros(n, dtype)
    a["u"] = rng.integers(0, 200, n)
    a["x"] = rng.standard_normal(n)
    a["n"] = rng.integers(-1000, 1000, n)
    a["c"] = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    a["h"] = rng.standard_normal((n, 3))
    a["j"] = rng.integers(-300, 300, (n, 2, 3))
    return a


@cuda.jit
def update_fields(a, v):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i].x = a[i].x * v + a[i]["n"]
        r = a[i]
        r.n += 7
        r["c"] = r.c * 2 + 1j
        a[i][0] = a[i][2] % 5
        for k in range(3):
            r.h[k] += k * v
        r.j[1, 2] = r.j[0, 1] - r.j[1, 0]


def update_fields_numpy(a, v):
    a["x"] = a["x"] * v + a["n"]
    a["n"] += 7
    a["c"] = a["c"] * 2 + 1j
    a["u"] = a["n"] % 5
    a["h"] += np.arange(3) * v
    a["j"][:, 1, 2] = a["j"][:, 0, 1] - a["j"][:, 1, 0]


@pytest.mark.parametrize("dtype", [PACKED, ALIGNED], ids=["packed", "aligned"])
def test_fields_of_array_elements_update_in_place_as_numpy_does(dtype):
    assert PACKED.fields["x"][1] == 1 and PACKED.fields["c"][1] == 13
    n, v = 45, 1.5
    expected = records(dtype, n, 3)
    update_fields_numpy(expected, v)
    # A host array (copied back), a to_device array and an ember array: one specialisation.
    host = records(dtype, n, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PerformanceWarning)
        update_fields[2, 32](host, v)
    device = cuda.to_device(records(dtype, n, 3))
    update_fields[2, 32](device, v)
    arr = ember.asarray(records(dtype, n, 3))
    update_fields[2, 32](arr, v)
    for got in (host, device.copy_to_host(), arr.get()):
        for name in dtype.names:
            np.testing.assert_allclose(got[name], expected[name], rtol=1e-6, err_msg=name)


@cuda.jit
def copy_records(dst, src, rows, value):
    i = cuda.grid(1)
    if i < dst.shape[0]:
        dst[i] = src[src.shape[0] - 1 - i]
        dst[i].h = rows[i]
        dst[i]["j"] = value


def test_whole_records_and_nested_arrays_are_copied():
    src, dst = records(ALIGNED, 20, 5), records(ALIGNED, 20, 6)
    rows = np.random.default_rng(7).standard_normal((20, 3)).astype(np.float32)
    expected = src[::-1].copy()
    expected["h"] = rows
    expected["j"] = 9
    d = ember.asarray(dst)
    copy_records[1, 32](d, ember.asarray(src), ember.asarray(rows), 9)
    np.testing.assert_array_equal(d.get(), expected)


@cuda.jit
def field_views(a, out):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        xs, hs = a.x, a["h"]  # strided views of one field of every record
        out[i, j] = xs[i, j] + hs[i, j, 2] + a.j[i, j, 1, 0]
        a.n[i, j] = a.u[i, j]


@pytest.mark.parametrize("dtype", [PACKED, ALIGNED], ids=["packed", "aligned"])
def test_fields_of_whole_arrays_are_strided_views(dtype):
    a = records(dtype, 12, 29).reshape(3, 4)[:, ::-1]  # a strided 2-d array of records
    expected = a.copy()
    expected["n"] = expected["u"]
    d, out = ember.asarray(a), ember.zeros((3, 4))
    field_views[(1, 1), (4, 4)](d, out)
    np.testing.assert_array_equal(d.get(), expected)
    np.testing.assert_allclose(out.get(), a["x"] + a["h"][..., 2] + a["j"][..., 1, 0])


@cuda.jit
def nested_records(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        inner = a[i].inner
        inner.q[1] += inner["p"]
        out[i] = a[i]["inner"].q[1] * a[i].w + a[i].id


def test_nested_records_are_references_into_their_parent():
    rng = np.random.default_rng(11)
    a = np.zeros(16, OUTER)
    a["id"], a["w"] = rng.integers(-9, 9, 16), rng.standard_normal(16)
    a["inner"]["p"], a["inner"]["q"] = rng.integers(-5, 5, 16), rng.standard_normal((16, 3))
    expected = a.copy()
    expected["inner"]["q"][:, 1] += expected["inner"]["p"]
    d, out = ember.asarray(a), ember.zeros(16)
    nested_records[1, 16](d, out)
    np.testing.assert_array_equal(d.get(), expected)
    np.testing.assert_allclose(out.get(), expected["inner"]["q"][:, 1] * expected["w"] + expected["id"])


@cuda.jit
def scalar_record(r, out):
    out[0] = r.x + r.n
    r.n = 42
    r.h[2] = r.c.imag


@pytest.mark.parametrize("dtype", [PACKED, ALIGNED], ids=["packed", "aligned"])
def test_a_record_argument_is_written_back_to_its_array(dtype):
    a = records(dtype, 3, 13)
    before = a.copy()
    rec = a.view(np.recarray)[1]  # np.record; a[2] is np.void: both pass
    out = np.zeros(1)
    scalar_record[1, 1](rec, out)
    scalar_record[1, 1](a[2], out)
    assert out[0] == pytest.approx(before["x"][2] + before["n"][2])
    expected = before.copy()
    expected["n"][1:] = 42
    expected["h"][1:, 2] = before["c"][1:].imag
    np.testing.assert_array_equal(a, expected)


CONST = records(PACKED, 6, 17)
ALIGNED_T = from_dtype(ALIGNED)


@cuda.jit
def const_local_shared(out, idx):
    c = cuda.const.array_like(CONST)
    loc = cuda.local.array(2, dtype=ALIGNED)
    sh = cuda.shared.array(8, dtype=ALIGNED_T)
    i = cuda.threadIdx.x
    loc[0].x = c[idx[i]].x
    loc[0]["h"][1] = c[idx[i]].h[1]
    sh[i] = loc[0]
    sh[i].n = c[idx[i]][2]
    cuda.syncthreads()
    out[i, 0] = sh[7 - i].x
    out[i, 1] = sh[7 - i].h[1] + sh[7 - i].n


def test_record_constant_local_and_shared_arrays():
    idx = np.random.default_rng(19).integers(0, 6, 8)
    out = ember.zeros((8, 2))
    const_local_shared[1, 8](out, ember.asarray(idx))
    back = idx[::-1]
    expected = np.stack([CONST["x"][back], CONST["h"][back, 1] + CONST["n"][back]], axis=1)
    np.testing.assert_allclose(out.get(), expected, rtol=1e-6)


def test_from_dtype_gives_a_record_type_for_signatures():
    rec = from_dtype(PACKED)
    assert isinstance(rec, Record) and rec == from_dtype(PACKED.newbyteorder("="))
    assert rec.size == 45 and not rec.aligned and from_dtype(ALIGNED).aligned
    assert rec.offset("c") == 13 and list(rec.fields) == list(PACKED.names)
    assert str(rec[:]) == f"Record({PACKED})[:]"
    kernel = cuda.jit(void(rec[:], int64))(lambda a, n: None)
    assert len(kernel.overloads) == 1
    with pytest.raises(TypeError, match="no signature"):
        kernel[1, 1](ember.zeros(3), 1)


def test_the_cuda_c_of_record_kernels_compiles_through_nvrtc():
    from conftest import nvrtc_or_skip

    cases = [(update_fields, [f"{from_dtype(d)}[:]", "float64"]) for d in (PACKED, ALIGNED)]
    cases += [(copy_records, [f"{from_dtype(ALIGNED)}[::1]"] * 2 + ["float32[:, ::1]", "int64"]),
              (nested_records, [f"{from_dtype(OUTER)}[::1]", "float64[::1]"]),
              (field_views, [f"{from_dtype(PACKED)}[:, :]", "float64[:, ::1]"]),
              (scalar_record, [str(from_dtype(PACKED)), "float64[::1]"]),
              (const_local_shared, ["float64[:, ::1]", "int64[::1]"])]
    sources = [kernel_source(k, types, "cuda") for k, types in cases]
    # The packed layout's float64 goes byte by byte, the aligned one's does not; complex64 is
    # 4-aligned in both (NumPy's alignment), less than its C type's 8.
    assert "ember_ldu_float64" in sources[0] and "ember_ldu_complex64" in sources[0]
    assert "ember_ldu_float64" not in sources[1] and "ember_ldu_complex64" in sources[1]
    nvrtc_or_skip()
    for src in sources:
        name = src.rsplit('extern "C" __global__ void ', 1)[1].split("(", 1)[0]
        assert ember._ember.nvrtc_compile(src, name, "sm_90", [])[:4] == b"\x7fELF"


UPDATES_WITHOUT_SOURCE = """
def updates(a, v):
    i = cuda.grid(1)
    if i < a.shape[0]:
        r = a[i]
        r.x += v
        a[i].n *= 2
        a[i]['x'] -= 1
        r.h[1] += r['n']
"""


def test_kernels_without_source_update_fields():
    # exec'd code has no source: the kernel is read from its bytecode (STORE_ATTR and all).
    namespace = {"cuda": cuda}
    exec(compile(UPDATES_WITHOUT_SOURCE, "<generated>", "exec"), namespace)
    a = records(PACKED, 10, 23)
    expected = a.copy()
    expected["x"] = expected["x"] + 2.5 - 1
    expected["n"] *= 2
    expected["h"][:, 1] += expected["n"]
    d = ember.asarray(a)
    cuda.jit(namespace["updates"])[1, 16](d, 2.5)
    np.testing.assert_array_equal(d.get(), expected)


def unknown_attribute(a):
    a[0].nope = 1


def unknown_key(a):
    a[0]["nope"] = 1


def index_out_of_range(a):
    a[0][9] = 1


def record_arithmetic(a, out):
    out[0] = a[0] + 1


def record_update(a):
    r = a[0]
    r += 1


def store_number_into_record(a):
    a[0] = 1.5


@pytest.mark.parametrize("fn, message", [
    (unknown_attribute, "Unknown attribute 'nope' of type Record"),
    (unknown_key, r"Field 'nope' was not found in record with fields \('u', 'x', 'n', 'c', 'h', 'j'\)"),
    (index_out_of_range, "Requested index 9 is out of range"),
    (record_arithmetic, "Record"),
    (record_update, "Record"),
    (store_number_into_record, "cannot assign a value of type float64 to a record"),
])
def test_mistakes_with_records_are_typing_errors(fn, message):
    types = [f"{from_dtype(PACKED)}[:]", "float64[:]"][: fn.__code__.co_argcount]
    with pytest.raises(JitError, match=message):
        kernel_source(fn, types, "opencl")
