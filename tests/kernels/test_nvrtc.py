"""ember's generated CUDA C compiles through NVRTC to cubin for sm_90, with no GPU needed."""


import ember
import pytest
from conftest import nvrtc_or_skip
from ember.testing import ALL_DTYPES

native = ember._ember


def test_every_copy_and_fill_kernel_compiles_to_sm90_cubin():
    nvrtc_or_skip()
    names = [d.name for d in ALL_DTYPES]
    sources = [native.generated_source("fill", [t], 0, "cuda") for t in names]
    sources += [native.generated_source("fill", [t], 3, "cuda") for t in ("float16", "complex128")]
    sources += [native.generated_source("copy", [a, b], 2, "cuda") for a in names for b in names]
    for src in sources:
        name = src.split("void ", 1)[1].split("(", 1)[0]
        cubin = native.nvrtc_compile(src, name, "sm_90")
        assert cubin[:4] == b"\x7fELF", name


def test_nvrtc_errors_are_compile_errors():
    nvrtc_or_skip()
    src = 'extern "C" __global__ void k(float* x) {\n  x[0] = missing;\n}\n'
    with pytest.raises(ember.CompileError) as info:
        native.nvrtc_compile(src, "k", "sm_90")
    err = info.value
    assert err.backend == "CUDA" and "--gpu-architecture=sm_90" in err.options
    assert "missing" in err.log and ">2 |   x[0] = missing;" in str(err), str(err)


def test_opencl_sources_build_on_the_cpu_device():
    if ember.backend() != "opencl":
        pytest.skip("needs the OpenCL backend")
    # The same generator in its other dialect, built by the OpenCL driver.
    src = native.generated_source("copy", ["complex64", "float16"], 2, "opencl")
    native.compile_module(0, src, "ember_copy_complex64_float16", ["-cl-std=CL1.2"])
