"""User mistakes raise the right exception class with a message that says what to do."""

import ember
import numpy as np
import pytest
from conftest import run_python


def test_unsupported_dtype_lists_supported_ones():
    with pytest.raises(ValueError, match="Unsupported dtype <U4: ember arrays cannot hold it; they hold bool, int8"):
        ember.zeros(3, dtype=np.dtype("U4"))
    with pytest.raises(ValueError, match=r"Unsupported dtype >i4: .*byte-order.*use int32"):
        ember.zeros(3, dtype=">i4")
    with pytest.raises(TypeError, match="not a dtype"):
        ember.zeros(3, dtype="no-such-type")


def test_negative_shape():
    with pytest.raises(ValueError, match="negative dimensions"):
        ember.empty((2, -1))


def test_implicit_numpy_conversion_is_refused():
    a = ember.arange(3)
    with pytest.raises(TypeError, match=r"Use \.get\(\)"):
        np.asarray(a)


def test_bad_backend_variable_names_choices():
    r = run_python("import ember; ember.zeros(1)", {"EMBER_BACKEND": "metal"})
    assert r.returncode != 0
    assert "ValueError" in r.stderr and "use cuda, opencl or auto" in r.stderr, r.stderr


def test_missing_cuda_is_backend_unavailable():
    code = (
        "import ember\n"
        "try:\n    ember.zeros(1)\nexcept ember.BackendUnavailableError as e:\n"
        "    print('unavailable:', e)\nelse:\n    print('cuda present')\n"
    )
    r = run_python(code, {"EMBER_BACKEND": "cuda"})
    assert r.returncode == 0, r.stderr
    if "cuda present" not in r.stdout:
        assert "CUDA backend is not available" in r.stdout and "ember info" in r.stdout, r.stdout


def test_opencl_compile_error_shows_numbered_source():
    if ember.backend() != "opencl":
        pytest.skip("OpenCL source needs the OpenCL backend")
    src = "__kernel void broken(__global float* x) {\n  int i = get_global_id(0);\n  x[i] = undefined_name;\n}\n"
    with pytest.raises(ember.CompileError) as info:
        ember._ember.compile_module(0, src, "broken")
    err = info.value
    assert err.backend == "OpenCL" and err.source == src and "undefined_name" in err.log
    text = str(err)
    assert ">3 |   x[i] = undefined_name;" in text, text


def test_missing_kernel_name():
    if ember.backend() != "opencl":
        pytest.skip("OpenCL source needs the OpenCL backend")
    src = "__kernel void present(__global float* x) { x[0] = 1.0f; }"
    with pytest.raises(ValueError, match='no kernel named "absent"'):
        ember._ember.compile_module(0, src, "absent")


def test_device_out_of_range():
    with pytest.raises(ValueError, match="device 99 does not exist"):
        ember.Device(99)
