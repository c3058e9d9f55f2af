"""PTX of ember's kernels without a GPU, through NVRTC: Numba's ``cuda.compile_ptx``,
``cuda.compile`` (PTX and LTO-IR, kernels and device functions with Numba's two ABIs), the
``_for_current_device`` forms, and ``Dispatcher.inspect_asm`` (the PTX of each specialisation).
The PTX is read for the instructions the kernel's Python must become; the kernels also run
and are checked against NumPy."""

from __future__ import annotations

import math
import re

import ember
import numpy as np
import pytest
from conftest import nvrtc_or_skip
from ember import cuda, types
from ember.types import complex64, float32, float64, int32, void

RNG = np.random.default_rng(20261127)


@pytest.fixture(autouse=True)
def _nvrtc():
    nvrtc_or_skip()


def pairwise_max(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = max(a[i], b[i]) - min(a[i], b[i])


def mul_add(x, y, z):
    return x * y + z


def test_compile_ptx_of_a_kernel_names_its_entry_and_instructions():
    ptx, resty = cuda.compile_ptx(pairwise_max, (float32[::1], float32[::1], float32[::1]))
    assert resty == void
    assert ".visible .entry ember_kernel_pairwise_max(" in ptx
    assert "max.f32" in ptx and "min.f32" in ptx
    lowest = cuda.compile_ptx(pairwise_max, "void(float64[:], float64[:], float64[:])", cc=(8, 0))[0]
    assert ".target sm_80" in lowest and "max.f64" in lowest and "min.f64" in lowest


def test_max_and_min_of_floats_keep_pythons_rule_around_the_max_instruction():
    # Python's rule with NaN (the first argument unless the second beats it), which the PTX
    # above computes with one max.f32/min.f32 and a NaN test (Numba's fmax would drop the NaN).
    a = RNG.standard_normal(64).astype(np.float32)
    b = RNG.standard_normal(64)
    a[::7] = np.nan
    b[3::11] = np.nan
    c = cuda.device_array(64)
    cuda.jit(pairwise_max)[2, 32](cuda.to_device(a), cuda.to_device(b), c)
    want = [max(float(x), float(y)) - min(float(x), float(y)) for x, y in zip(a, b, strict=True)]
    np.testing.assert_array_equal(c.copy_to_host(), want)


def test_compile_ptx_of_a_device_function_by_each_abi():
    sig = (float64, float64, float64)
    numba_abi, resty = cuda.compile_ptx(mul_add, sig, device=True)
    assert resty == float64
    # Numba's ABI: the value through a pointer (a store), a status returned.
    assert ".visible .func  (.param .b32 func_retval0) mul_add(" in numba_abi
    assert "fma.rn.f64" in numba_abi and "st.f64" in numba_abi
    c_abi, resty = cuda.compile(mul_add, sig, abi_info={"abi_name": "madd"})
    assert resty == float64 and ".visible .func  (.param .b64 func_retval0) madd(" in c_abi
    # A declared return type converts the value.
    narrowed, resty = cuda.compile(mul_add, "float32(float64, float64, float64)")
    assert resty == float32 and "cvt.rn.f32.f64" in narrowed


def test_fastmath_shows_in_the_ptx():
    def divide(r, x, y):
        r[0] = math.sin(x) / y

    sig = (float32[::1], float32, float32)
    fast, _ = cuda.compile_ptx(divide, sig, fastmath=True)
    precise, _ = cuda.compile_ptx(divide, sig)
    assert "div.approx.ftz.f32" in fast and "sin.approx.ftz.f32" in fast
    assert "div.rn.f32" in precise and "sin.approx" not in precise


def test_inspect_asm_is_the_ptx_of_each_specialisation():
    kernel = cuda.jit(pairwise_max)
    a, b = RNG.standard_normal(16), RNG.standard_normal(16)
    c = cuda.device_array(16)
    kernel[1, 16](cuda.to_device(a), cuda.to_device(b), c)
    np.testing.assert_array_equal(c.copy_to_host(), np.maximum(a, b) - np.minimum(a, b))
    asm = kernel.inspect_asm()
    assert len(asm) == 1
    ptx = next(iter(asm.values()))
    assert ".entry ember_kernel_pairwise_max(" in ptx and "max.f64" in ptx
    assert kernel.inspect_lto_ptx() == asm
    assert "ember_kernel_pairwise_max(" in next(iter(kernel.inspect_llvm().values()))  # the generated C


def test_inspect_asm_of_a_device_function_and_of_fences():
    device = cuda.jit((float64, float64, float64), device=True)(mul_add)
    assert "fma.rn.f64" in device.inspect_asm((float64, float64, float64))

    @cuda.jit(void(int32[:]))
    def fenced(a):
        a[0] = 1
        cuda.threadfence_block()
        a[1] = 2
        cuda.threadfence()

    ptx = fenced.inspect_asm((int32[:],))
    assert "membar.cta;" in ptx and ("membar.gl;" in ptx or "fence.sc.gpu;" in ptx)


def test_inspect_asm_gives_the_generated_c_without_nvrtc(monkeypatch):
    kernel = cuda.jit("void(float64[::1], float64[::1], float64[::1])")(pairwise_max)

    def missing():
        raise ember.BackendUnavailableError("NVRTC (libnvrtc.so) was not found")

    monkeypatch.setattr(ember._ember, "nvrtc_version", missing)
    (text,) = kernel.inspect_asm().values()  # a dict by signature, as Numba's
    assert "ember_kernel_pairwise_max(" in text and text == kernel.inspect_llvm((float64[::1],) * 3)


def test_opt_false_compiles_without_optimisation_and_still_computes():
    def scale(x, y):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = x[i] * y + 1.0

    plain = cuda.jit(scale)
    slow = cuda.jit(opt=False)(scale)
    x = RNG.standard_normal(40)
    for kernel in (plain, slow):
        d = cuda.to_device(x)
        kernel[2, 32](d, 3.0)
        np.testing.assert_allclose(d.copy_to_host(), x * 3.0 + 1.0)
    # Unoptimised PTX keeps its locals in memory and does not contract.
    assert "__local_depot" in next(iter(slow.inspect_asm().values()))
    assert "__local_depot" not in next(iter(plain.inspect_asm().values()))
    sig = (float64, float64, float64)
    assert "fma.rn.f64" not in cuda.jit(sig, device=True, opt=False)(mul_add).inspect_asm(sig)
    assert "fma.rn.f64" not in cuda.compile_ptx(mul_add, sig, device=True, opt=False)[0]


COMPLEX_TABLE = (np.arange(8) * (1 - 2j)).astype(np.complex64).reshape(2, 4)
REAL_TABLE = np.arange(6) / 4.0


def test_constant_arrays_load_from_constant_memory():
    def read(out, x):
        i = cuda.threadIdx.x
        c = cuda.const.array_like(COMPLEX_TABLE)
        r = cuda.const.array_like(REAL_TABLE)
        out[i] = c[i % 2, i % 4] * r[i % 6]

    ptx, _ = cuda.compile_ptx(read, (complex64[:], float64))
    assert re.search(r"ld\.const\.v2\.[bf]32", ptx) and re.search(r"ld\.const\.[bf]64", ptx)


def test_ltoir_and_forceinline():
    def set_zero(a):
        a[0] = 0

    plain, resty = cuda.compile(set_zero, (float32[::1],), output="ltoir")
    forced, _ = cuda.compile(set_zero, (float32[::1],), output="ltoir", forceinline=True)
    assert resty == types.none and isinstance(plain, bytes) and plain != forced


@pytest.mark.parametrize("call, error, message", [
    (lambda: cuda.compile(mul_add, (float64,) * 3, output="cubin"), NotImplementedError, "Unsupported output type"),
    (lambda: cuda.compile(mul_add, (float64,) * 3, forceinline=True), ValueError, "only designate forced inlining"),
    (lambda: cuda.compile_ptx(pairwise_max, (float32[:],) * 3, abi="c"), NotImplementedError, "C ABI is not supported"),
    (lambda: cuda.compile_ptx(mul_add, "float64(float64, float64, float64)"), TypeError, "must have void return"),
    (lambda: cuda.compile_ptx(mul_add, (float64,) * 3, device=True, abi="fortran"), NotImplementedError,
     "Unsupported ABI"),
    (lambda: cuda.compile_ptx(mul_add, (float64,) * 2, device=True), ember.JitError, "takes 3 argument"),
    (lambda: cuda.compile_ptx(mul_add, 42), TypeError, "a signature is"),
])
def test_compile_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_for_current_device_forms():
    ptx, _ = cuda.compile_ptx_for_current_device(pairwise_max, (float64[::1],) * 3)
    cc = cuda.get_current_device().compute_capability if ember.backend() == "cuda" else None
    from ember._jit.ptx import default_cc

    major, minor = cc or default_cc()
    assert f".target sm_{major}{minor}" in ptx
    device_ptx, resty = cuda.compile_for_current_device(mul_add, (float32, float32, float32))
    assert resty == float32 and "fma.rn.f32" in device_ptx
