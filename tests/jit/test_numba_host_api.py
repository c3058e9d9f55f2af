"""Numba's host API of ``numba.cuda`` in ``ember.cuda``: devices (``cuda.gpus``, ``detect``,
contexts, tuple compute capability), streams (legacy, per-thread, external), host memory the
device addresses (``mapped_array``, ``managed_array``, ``cuda.mapped``), ``device_array``
layouts, ``cuda.vectorize``/``guvectorize``/``reduce``, and what a kernel tells about itself
(``overloads``, ``inspect_asm``, ``inspect_types``, resources, ``specialize``, ``forall``).
Results are checked against NumPy on random inputs with fixed seeds."""

from __future__ import annotations

import io
import math
import threading

import ember
import numpy as np
import pytest
from ember import _ember, _runtime, cuda

RNG = np.random.default_rng(20261125)


# ---- devices and contexts ----


def test_gpus_lists_the_devices_and_makes_one_current():
    assert len(cuda.gpus) == _ember.device_count() == len(list(cuda.gpus)) == len(cuda.list_devices())
    first = cuda.gpus[0]
    assert first.id == 0 and first.name == _ember.device_info(0)["name"]
    assert str(first) == "<Managed Device 0>"
    with cuda.gpus[0] as entered:
        assert entered is first
        assert cuda.get_current_device().id == 0 and cuda.gpus.current.id == 0
    with pytest.raises(IndexError):
        cuda.gpus[len(cuda.gpus)]


def test_compute_capability_is_a_tuple_everywhere():
    cc = cuda.get_current_device().compute_capability
    assert isinstance(cc, tuple) and len(cc) == 2 and all(isinstance(v, int) for v in cc)
    assert cc == cuda.current_context().device.compute_capability == cuda.gpus[0].compute_capability
    props = cuda.runtime.getDeviceProperties(0)
    assert cc == (props["major"], props["minor"])  # one fact with CuPy's face
    if _runtime.backend() == "opencl":
        assert cc == (0, 0)
    assert (cc >= (7, 0)) in (True, False)  # comparisons work (they raised on a string)


def test_device_attributes_and_unknown_attribute_error():
    dev = cuda.get_current_device()
    info = _ember.device_info(dev.id)
    assert dev.MAX_THREADS_PER_BLOCK == info["max_threads_per_block"]
    assert dev.WARP_SIZE == info["warp_size"] and dev.MULTIPROCESSOR_COUNT == info["multiprocessors"]
    assert dev == cuda.select_device(dev.id) and hash(dev) == hash(cuda.get_current_device())
    with pytest.raises(AttributeError, match="does not know the device attribute 'PCI_BUS_ID'"):
        _ = dev.PCI_BUS_ID


def test_context_synchronizes_and_reports_memory():
    ctx = cuda.current_context()
    free, total = ctx.get_memory_info()
    assert ctx.get_memory_info().total == total > 0 and 0 <= free <= total
    ctx.synchronize()
    assert ctx == cuda.current_context()


def test_detect_prints_each_device_and_returns_true(capsys):
    assert cuda.detect() is True
    out = capsys.readouterr().out
    assert f"Found {len(cuda.gpus)}" in out and "[SUPPORTED]" in out and cuda.gpus[0].name in out
    assert "1/1 devices are supported" in out or f"/{len(cuda.gpus)} devices" in out


# ---- streams ----


def test_default_stream_variants_synchronize():
    for s in (cuda.stream(), cuda.default_stream(), cuda.legacy_default_stream(), cuda.per_thread_default_stream()):
        s.synchronize()
        assert int(s) == s.handle == s.ptr
    assert cuda.legacy_default_stream() == _runtime.Stream.null
    assert cuda.per_thread_default_stream() == cuda.per_thread_default_stream()


def test_per_thread_default_stream_differs_between_threads():
    here = cuda.per_thread_default_stream()
    seen = []
    t = threading.Thread(target=lambda: seen.append(cuda.per_thread_default_stream()))
    t.start()
    t.join()
    assert seen[0] != here


def test_external_stream_keeps_its_handle():
    s = cuda.external_stream(0x12345678)
    assert int(s.handle) == 0x12345678 == s.ptr and s.external
    assert cuda.external_stream(0) == cuda.legacy_default_stream()
    with pytest.raises(TypeError, match="takes a stream handle"):
        cuda.external_stream("0x1234")
    with pytest.raises(ValueError, match="not negative"):
        cuda.external_stream(-1)


def test_kernels_and_copies_run_on_a_wrapped_ember_stream():
    # A real handle to wrap: an ember stream's, as another library's would be.
    owner = cuda.stream()
    s = cuda.external_stream(owner.ptr)
    x = RNG.standard_normal(1000)
    d = cuda.to_device(x, stream=s)
    add_one.forall(x.size, stream=s)(d)
    s.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(stream=s), x + 1)


# ---- memory ----


@cuda.jit
def add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def _maps_host_memory() -> bool:
    info = _ember.device_info(_runtime.current_device_id())
    return info["backend"] == "cuda" or info["host_unified"]


@pytest.mark.skipif(not _maps_host_memory(), reason="the device does not address host memory")
@pytest.mark.parametrize("make", [cuda.mapped_array, cuda.managed_array])
def test_mapped_and_managed_arrays_are_written_in_place(make):
    m = make((4, 25), dtype=np.float32)
    x = RNG.standard_normal((4, 25)).astype(np.float32)
    m[...] = x
    add_one[4, 32](m.reshape(-1))
    cuda.synchronize()
    assert isinstance(m, np.ndarray) and type(m).__name__ in ("MappedNDArray", "ManagedNDArray")
    np.testing.assert_array_equal(m, x + 1)
    np.testing.assert_array_equal(m.copy_to_host(), x + 1)


def test_mapped_context_gives_device_arrays_holding_results_after_the_block():
    a, b = RNG.standard_normal(50), RNG.standard_normal(70)
    want_a, want_b = a + 1, b + 1
    with cuda.mapped(a, b) as (da, db):
        add_one[1, 64](da)
        add_one[2, 64](db)
    np.testing.assert_array_equal(a, want_a)
    np.testing.assert_array_equal(b, want_b)
    with pytest.raises(TypeError, match="takes NumPy arrays"):
        with cuda.mapped([1, 2]):
            pass


def test_pinned_arrays_and_pinned_context():
    p = cuda.pinned_array((3, 5), np.float64, order="F")
    assert p.flags.f_contiguous and p.shape == (3, 5)
    like = cuda.pinned_array_like(np.zeros((2, 3, 4)).transpose(1, 0, 2))
    assert like.strides == (32, 96, 8)
    with cuda.pinned(p, like):
        p[...] = 1
    assert (p == 1).all()


def test_device_array_takes_orders_and_dense_strides():
    d = cuda.device_array((3, 4), dtype=np.float32, strides=(4, 12))
    assert d.strides == (4, 12) and d.flags.f_contiguous
    t = RNG.standard_normal((2, 3, 4)).transpose(1, 0, 2)
    like = cuda.device_array_like(t)
    assert like.shape == t.shape and like.strides == (32, 96, 8)
    like[...] = ember.asarray(t)
    np.testing.assert_array_equal(like.get(), t)
    assert cuda.device_array(5, order="F").shape == (5,)
    with pytest.raises(ValueError, match="do not lay out shape"):
        cuda.device_array((3, 4), dtype=np.float32, strides=(4, 8))
    with pytest.raises(ValueError, match="order must be 'C' or 'F'"):
        cuda.device_array(3, order="K")


# ---- ufunc builders and reductions ----


def test_cuda_vectorize_defaults_to_the_device_and_takes_numba_signatures():
    @cuda.vectorize(["float32(float32, float32)", "int32(int32, int32)", "float64(float64, float64)"])
    def vadd(a, b):
        return a + b

    for dtype in (np.float32, np.int32, np.float64):
        x = (RNG.standard_normal(1001) * 100).astype(dtype)
        y = (RNG.standard_normal(1001) * 100).astype(dtype)
        got = vadd(x, y)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, x + y)
        d = cuda.to_device(x)
        assert isinstance(vadd(d, d), ember.ndarray)
        np.testing.assert_allclose(vadd.reduce(x), np.add.reduce(x), rtol=1e-5)
    with pytest.raises(KeyError, match="Unrecognized options"):
        cuda.vectorize(["float32(float32)"], nonexistent=2)
    with pytest.warns(RuntimeWarning, match="nopython kwarg for cuda target is redundant"):
        cuda.vectorize(["float32(float32)"], nopython=True)
    # Only scalars: a scalar back, of the loop's type.
    got = vadd(1.5, np.float64(2.25))
    assert type(got) is np.float64 and got == 3.75


def test_cuda_guvectorize_defaults_to_the_device():
    @cuda.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()")
    def dot(a, b, out):
        acc = 0.0
        for i in range(a.shape[0]):
            acc += a[i] * b[i]
        out[0] = acc

    a, b = RNG.standard_normal((7, 5)), RNG.standard_normal((7, 5))
    np.testing.assert_allclose(dot(a, b), (a * b).sum(axis=1), rtol=1e-12)

    # Numba's old style: a "()" input declared as an array arrives as a 1-element array.
    @cuda.guvectorize(["void(int32[:], int32[:], int32[:])"], "(n),()->(n)")
    def shift(x, y, res):
        for i in range(x.shape[0]):
            res[i] = x[i] + y[0]

    @cuda.guvectorize(["void(float64[:], float64, float64[:])"], "(n),()->(n)")
    def shift_scalar(x, y, res):
        for i in range(x.shape[0]):
            res[i] = x[i] + y

    xi = RNG.integers(-50, 50, (3, 4)).astype(np.int32)
    yi = np.array([2, 10, -7], np.int32)
    np.testing.assert_array_equal(shift(xi, yi), xi + yi[:, None])
    xf, yf = RNG.standard_normal((3, 4)), RNG.standard_normal(3)
    np.testing.assert_allclose(shift_scalar(xf, yf), xf + yf[:, None], rtol=1e-15)


@pytest.mark.parametrize("n", [1, 5, 127, 128, 129, 1000, 8192, 100_001])
def test_reduce_sums_like_numpy(n):
    sum_reduce = cuda.reduce(lambda a, b: a + b)
    x = RNG.standard_normal(n)
    np.testing.assert_allclose(sum_reduce(x), x.sum(), rtol=1e-12)
    np.testing.assert_allclose(sum_reduce(cuda.to_device(x)), x.sum(), rtol=1e-12)


def test_reduce_init_size_res_and_empty_arrays():
    @cuda.reduce
    def max_reduce(a, b):
        return max(a, b)

    x = RNG.standard_normal(12345)
    assert max_reduce(x) == x.max()
    assert max_reduce(x, size=100) == x[:100].max()
    assert max_reduce(x, init=10.0) == 10.0
    assert max_reduce(np.zeros(0), init=3.5) == 3.5
    res = cuda.device_array(2)
    assert max_reduce(x, res=res) is None and res.get()[0] == x.max()
    ints = RNG.integers(-1000, 1000, 777).astype(np.int32)
    got = cuda.Reduce(lambda a, b: a + b)(ints, init=5)
    assert got == ints.sum() + 5 and got.dtype == np.int32
    with pytest.raises(TypeError, match="only support 1D array"):
        max_reduce(np.zeros((2, 2)))


# ---- what a kernel tells about itself ----


@cuda.jit
def pi_sin(x, n):
    i = cuda.grid(1)
    if i < n:
        x[i] = 3.14 * math.sin(x[i])


def test_overloads_and_signatures_by_argument_types():
    f32, f64 = cuda.to_device(np.ones(8, np.float32)), cuda.to_device(np.ones(8))
    pi_sin[1, 8](f32, 8)
    pi_sin[1, 8](f64, 8)
    pi_sin[1, 8](f64, 8)
    assert len(pi_sin.overloads) == 2 and pi_sin.signatures == list(pi_sin.overloads)
    key = ("array(float32, 1d, C)", np.int64)  # names, NumPy types: the same entry
    assert key in pi_sin.overloads and ("array(float32, 1d, A)", np.int64) not in pi_sin.overloads
    np.testing.assert_allclose(f32.get(), 3.14 * np.sin(np.float32(1)), rtol=1e-6)
    asm = pi_sin.inspect_asm()
    assert set(asm) == set(pi_sin.signatures)
    # PTX where NVRTC loads (test_jit_ptx.py), else the generated C; inspect_llvm is the C.
    assert "pi_sin" in pi_sin.inspect_asm(key) and "ember_kernel_pi_sin(" in pi_sin.inspect_llvm(key)
    with pytest.raises(KeyError, match="has no specialisation for"):
        pi_sin.inspect_asm(("int8",))


def test_inspect_types_names_each_specialisation():
    pi_sin[1, 8](cuda.to_device(np.ones(8, np.float32)), 8)
    out = io.StringIO()
    pi_sin.inspect_types(file=out)
    text = out.getvalue()
    assert "pi_sin (array(float32, 1d, C), int64)" in text and "x[i] = 3.14 * math.sin(x[i])" in text


def test_kernel_resources_as_the_device_reports_them():
    @cuda.jit
    def simple_smem(ary):
        sm = cuda.shared.array(10, dtype=np.float64)
        for j in range(10):
            sm[j] = j
        for j in range(10):
            ary[j] = sm[j]

    a = cuda.to_device(np.zeros(10, np.float32))
    simple_smem[1, 1](a)
    np.testing.assert_array_equal(a.get(), np.arange(10))
    shared = simple_smem.get_shared_mem_per_block()
    (sig,) = simple_smem.signatures
    assert shared.keys() == {sig} and simple_smem.get_shared_mem_per_block(sig) == shared[sig]
    # The ten float64s; CUDA reports exactly them, an OpenCL driver may count its own local
    # memory too (NVIDIA's: 96 bytes).
    assert shared[sig] == 80 if ember.backend() == "cuda" else 80 <= shared[sig] <= 256
    for query in (simple_smem.get_regs_per_thread, simple_smem.get_local_mem_per_thread,
                  simple_smem.get_const_mem_size, simple_smem.get_max_threads_per_block):
        value = query(sig)
        assert isinstance(value, int) and value >= 0
    assert 0 < simple_smem.get_max_threads_per_block(sig) <= cuda.get_current_device().MAX_THREADS_PER_BLOCK


def test_specialize_compiles_once_per_types_and_binds_the_kernel():
    @cuda.jit
    def scale(x, k):
        i = cuda.grid(1)
        if i < x.size:
            x[i] *= k

    x32 = cuda.to_device(RNG.standard_normal(100).astype(np.float32))
    s = scale.specialize(x32, np.float32(2))
    assert s.specialized and not scale.specialized
    assert scale.specialize(x32, np.float32(3)) is s and len(scale.specializations) == 1
    assert scale.specialize(x32, 2.0) is not s and len(scale.specializations) == 2
    before = x32.get()
    s[1, 128](x32, np.float32(2))
    np.testing.assert_array_equal(x32.get(), before * 2)
    with pytest.raises(RuntimeError, match="Dispatcher already specialized"):
        s.specialize(x32, np.float32(2))
    with pytest.raises(TypeError, match="no signature of kernel scale matches"):
        s[1, 128](cuda.to_device(np.zeros(4, np.int32)), np.float32(2))
    explicit = cuda.jit("void(float32[::1], float32)")(scale.py_func)
    with pytest.raises(RuntimeError, match="Dispatcher already specialized"):
        explicit.specialize(x32, np.float32(2))


@pytest.mark.parametrize("n", [1, 100, 1025, 5000])
def test_forall_launches_one_thread_per_task(n):
    x = RNG.standard_normal(n)
    d = cuda.to_device(x)
    add_one.forall(n)(d)
    np.testing.assert_array_equal(d.get(), x + 1)
    add_one.forall(n, tpb=32)(d)
    np.testing.assert_array_equal(d.get(), (x + 1) + 1)
    add_one.forall(0)(d)
    with pytest.raises(ValueError, match="negative task count: -1"):
        add_one.forall(-1)


def test_copy_to_device_from_the_host_another_array_and_another_thread(rng):
    values = rng.integers(-50, 50, 100)
    common = cuda.to_device(values)
    target = cuda.to_device(np.zeros(100, dtype=values.dtype))
    # A device-to-device copy issued from another thread (numba-cuda's multithreads test).
    worker = threading.Thread(target=target.copy_to_device, args=(common,))
    worker.start()
    worker.join()
    np.testing.assert_array_equal(target.copy_to_host(), values)
    target.copy_to_device(values[::-1])  # from the host, a strided view
    np.testing.assert_array_equal(target.copy_to_host(), values[::-1])
    stream = cuda.stream()
    target.copy_to_device(common, stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(target.copy_to_host(), values)
    with pytest.raises(ValueError, match=r"incompatible shape: \(100,\) vs. \(3,\)"):
        target.copy_to_device(np.zeros(3, dtype=values.dtype))
    with pytest.raises(TypeError, match="incompatible dtype: int64 vs. float64"):
        target.copy_to_device(cuda.to_device(np.zeros(100)))


# ---- pickling ----


@cuda.jit(device=True)
def plus_one(a):
    return a + 1


@cuda.jit
def bump(arr):
    arr[0] = plus_one(arr[0])


def test_kernels_pickle_by_reference_or_by_code():
    import pickle

    assert pickle.loads(pickle.dumps(bump)) is bump  # module level: the module's own object
    assert pickle.loads(pickle.dumps(plus_one)) is plus_one

    @cuda.jit(device=True)
    def times_three(a):
        return 3 * a

    @cuda.jit("void(int64[::1])")
    def local(arr):
        arr[0] = times_three(arr[0]) + 1

    again = pickle.loads(pickle.dumps(pickle.loads(pickle.dumps(local))))  # twice, as Numba's test
    assert again is not local and again.__name__ == "local"
    out = ember.asarray(np.array([5], np.int64))
    again[1, 1](out)
    assert out.get()[0] == 16

    configured = pickle.loads(pickle.dumps(bump[5, (8, 2)]))
    assert configured.griddim == (5, 1, 1) and configured.blockdim == (8, 2, 1) and configured.sharedmem == 0
    out = ember.asarray(np.array([41], np.int64))
    pickle.loads(pickle.dumps(bump[1, 1]))(out)
    assert out.get()[0] == 42
    with pytest.raises(TypeError, match="streams belong to their process"):
        pickle.dumps(bump[1, 1, cuda.stream()])


def test_ufuncs_pickle_and_local_functions_need_cloudpickle(monkeypatch):
    import pickle
    import sys

    @cuda.vectorize(["int64(int64)", "float64(float64)"])
    def double(x):
        return 2 * x

    @cuda.guvectorize(["void(float64[:], float64[:])"], "(n)->()")
    def total(x, out):
        s = 0.0
        for v in x:
            s += v
        out[0] = s

    x = RNG.standard_normal((3, 4))
    np.testing.assert_allclose(pickle.loads(pickle.dumps(double))(x), 2 * x)
    np.testing.assert_allclose(pickle.loads(pickle.dumps(total))(x), x.sum(axis=1), rtol=1e-14)
    monkeypatch.setitem(sys.modules, "cloudpickle", None)
    with pytest.raises(pickle.PicklingError, match="needs the cloudpickle package"):
        pickle.dumps(double)
    assert pickle.loads(pickle.dumps(bump)) is bump  # by reference: no cloudpickle needed


# ---- the CUDA array interface ----


@pytest.mark.gpu
def test_cuda_array_interface_views_without_copies():
    a = ember.asarray(RNG.standard_normal((3, 4)))
    assert cuda.is_cuda_array(a) and not cuda.is_cuda_array(np.zeros(3))
    view = cuda.from_cuda_array_interface(dict(a.__cuda_array_interface__), owner=a)
    assert view.shape == (3, 4) and view.dtype == np.float64
    view[1, 2] = 42.0
    assert a.get()[1, 2] == 42.0  # the same memory
    assert cuda.as_cuda_array(a).__cuda_array_interface__["data"][0] == a.__cuda_array_interface__["data"][0]


def test_from_cuda_array_interface_wants_a_description():
    with pytest.raises(TypeError, match="takes a __cuda_array_interface__ dictionary"):
        cuda.from_cuda_array_interface({"shape": (3,)})
    with pytest.raises(TypeError, match="has no __cuda_array_interface__"):
        cuda.as_cuda_array(np.zeros(3))


# ---- Numba's device array attributes and driver names ----


def test_device_arrays_have_numbas_memory_attributes():
    d = cuda.to_device(np.arange(10.0))
    # gpu_data: the bytes the elements span (equal for views of the same bytes).
    assert d.stream == 0 and d.gpu_data == d.view(np.int64).gpu_data == d[::-1].gpu_data
    assert d[3:].gpu_data.ptr == d.gpu_data.ptr + 24 and (d.gpu_data.size, d[3:8].gpu_data.size) == (80, 40)
    assert d.gpu_data != cuda.to_device(np.arange(10.0)).gpu_data
    assert d.device_ctypes_pointer.value == d.data.ptr and d[2:].device_ctypes_pointer.value == d.data.ptr + 16
    assert cuda.device_array(0).device_ctypes_pointer.value in (0, None)
    # The span of the elements: a strided view spans more than its nbytes.
    assert (d.alloc_size, d[::2].alloc_size, d[::-3].alloc_size, d[:0].alloc_size) == (80, 72, 3 * 24 + 8, 0)
    s = cuda.stream()
    assert cuda.device_array(4, stream=s).stream is s and cuda.to_device(np.ones(2), stream=s).stream is s


def test_driver_names_are_the_objects_ember_hands_out():
    from ember.cuda.cudadrv import devicearray, driver

    assert isinstance(cuda.stream(), driver.Stream) and isinstance(cuda.default_stream(), driver.Stream)
    assert isinstance(cuda.external_stream(cuda.stream().handle), driver.Stream)
    assert devicearray.DeviceNDArray is ember.ndarray and devicearray.is_cuda_ndarray(cuda.device_array(2))
    assert not devicearray.is_cuda_ndarray(np.zeros(2))


@pytest.mark.parametrize("value, expected", [("0", False), ("1", True), ("false", False)])
def test_the_cuda_array_interface_sync_setting_reads_numbas_variable(value, expected):
    import subprocess
    import sys

    code = "import ember.cuda as c; print(c.config.CUDA_ARRAY_INTERFACE_SYNC)"
    env = {**__import__("os").environ, "NUMBA_CUDA_ARRAY_INTERFACE_SYNC": value}
    env.pop("EMBER_CUDA_ARRAY_INTERFACE_SYNC", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(expected)


def test_guvectorize_takes_signatures_without_a_return_type_as_text():
    @cuda.guvectorize(["(f8, f8, f8[:])"], "(),()->()")
    def add(a, b, out):
        out[0] = a + b

    h = RNG.standard_normal(12)
    np.testing.assert_array_equal(add(h, np.float64(7)), h + 7)


def test_interprocess_handles_are_cudas_and_say_so_elsewhere():
    d = cuda.to_device(np.arange(4))
    if _ember.device_info(d.device.id)["backend"] == "cuda":
        pytest.skip("the CUDA path is tested in tests/cuda/test_ipc.py")
    with pytest.raises(ValueError, match="interprocess memory handles are CUDA's"):
        d.get_ipc_handle()
    with pytest.raises(ValueError, match="interprocess memory handles are CUDA's"):
        cuda.current_context().get_ipc_handle(d.gpu_data)


def test_arrays_made_through_numbas_api_convert_to_numpy_as_numbas_do():
    h = RNG.standard_normal((4, 5))
    d = cuda.to_device(h)
    for made in (d, d[1:, ::2], cuda.device_array_like(h), cuda.as_cuda_array(d)):
        assert isinstance(np.asarray(made), np.ndarray) and np.asarray(made).shape == made.shape
    np.testing.assert_array_equal(d, h)  # NumPy's testing takes it, as with Numba
    np.testing.assert_array_equal(np.asarray(d[1:, ::2], dtype=np.float32), h[1:, ::2].astype(np.float32))
    with pytest.raises(ValueError, match="without a copy"):
        np.asarray(d, copy=False)
    # CuPy's rule for arrays made through its API: no silent copy.
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array is not allowed"):
        np.asarray(ember.asarray(h))
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.asarray(ember.asarray(h) + d)


@pytest.mark.parametrize("rows, cols", [(5, 6), (16, 17), (33, 130)])
def test_kernels_transpose_any_dtype(rng, rows, cols):
    from ember.cuda.kernels.transpose import transpose

    rec = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])
    x = rng.standard_normal((rows, cols))
    r = np.zeros((rows, cols), rec)
    r["i"] = rng.integers(0, 99, (rows, cols))
    r["j"] = rng.standard_normal((rows, cols, 3, 2))
    for host in (x, r, x > 0, (x + 1j * x).astype(np.complex64)):
        out = cuda.device_array((cols, rows), host.dtype)
        assert transpose(cuda.to_device(host), out) is out
        np.testing.assert_array_equal(out.copy_to_host(), host.T)
    np.testing.assert_array_equal(transpose(cuda.to_device(x)).copy_to_host(), x.T)
    like = cuda.cudadrv.devicearray.from_array_like(x.T)  # Numba's way to make the output
    assert (like.shape, like.strides, like.dtype) == (x.T.shape, (8, 8 * cols), x.dtype)
    transpose(cuda.to_device(x), like)
    np.testing.assert_array_equal(like.copy_to_host(), x.T)
    with pytest.raises(ValueError, match="writes a"):
        transpose(cuda.to_device(x), cuda.device_array((rows, cols)))
