"""Importing ember is cheap and safe: it starts no driver and exposes the documented names."""

import ember
import numpy as np
from conftest import run_python


def test_import_starts_no_driver():
    code = (
        "import ember, ember.cuda\n"
        "maps = open('/proc/self/maps').read()\n"
        "print('libcuda' in maps, 'libOpenCL' in maps, 'libnvrtc' in maps)\n"
    )
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False", "False"], r.stdout


def test_dtypes_are_numpys():
    assert ember.float32 is np.float32 and ember.bool_ is np.bool_ and ember.complex128 is np.complex128


def test_error_hierarchy():
    assert issubclass(ember.BackendUnavailableError, ImportError)
    assert issubclass(ember.OutOfMemoryError, MemoryError)
    for cls in (ember.CompileError, ember.DriverError, ember.JitError, ember.BackendUnavailableError,
                ember.OutOfMemoryError):
        assert issubclass(cls, ember.EmberError)


def test_backend_is_named():
    assert ember.backend() in ("cuda", "opencl")
