"""``numba.cuda.tests.support``: harness plumbing in place of numba-cuda's (which needs Numba's
compiler internals). It holds the unittest base class and helpers the cudapy tests import;
``assertPreciseEqual`` compares with NumPy (documented tolerances below). Other names are
missing, so a test that needs them fails to import and is counted as such.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import tempfile
import unittest
import warnings

import numpy as np

from numba.cuda.core import config

HAS_NUMBA = False


def temp_directory(prefix):
    return tempfile.mkdtemp(prefix=prefix + "-")


@contextlib.contextmanager
def override_config(name, value):
    old_value = getattr(config, name)
    setattr(config, name, value)
    try:
        yield
    finally:
        setattr(config, name, old_value)


def captured_stdout():
    return contextlib.redirect_stdout(io.StringIO())


def captured_stderr():
    return contextlib.redirect_stderr(io.StringIO())


def run_in_subprocess(code, flags=(), env=None, timeout=30):
    try:
        proc = subprocess.run([sys.executable, *flags, "-c", code], env=env, check=True,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.CalledProcessError as e:
        raise AssertionError(f"process failed with code {e.returncode:d}: stderr:\n{e.stderr}\n") from e
    return proc.stdout, proc.stderr


try:
    import cffi  # noqa: F401
    _HAS_CFFI = True
except ImportError:
    _HAS_CFFI = False
skip_unless_cffi = unittest.skipUnless(_HAS_CFFI, "requires cffi")

linux_only = unittest.skipIf(not sys.platform.startswith("linux"), "Linux-only test")
windows_only = unittest.skipIf(not sys.platform.startswith("win"), "Windows-only test")

# Relative tolerance per precision, as Numba's ulps-based check allows (ulps=1 by default):
# 'exact' is bitwise equality (NaN equals NaN), 'single' float32's, 'double' float64's epsilon.
_RTOL = {"exact": 0.0, "single": float(np.finfo(np.float32).eps),
         "double": float(np.finfo(np.float64).eps)}


class TestCase(unittest.TestCase):
    def assertPreciseEqual(self, first, second, prec="exact", ulps=1, msg=None,
                           ignore_sign_on_zero=False, abs_tol=None):
        """Equal shapes and dtypes for arrays, then equal values within ``prec``/``ulps``."""
        if isinstance(first, (list, tuple)) and isinstance(second, (list, tuple)):
            self.assertEqual(len(first), len(second), msg)
            for a, b in zip(first, second, strict=True):
                self.assertPreciseEqual(a, b, prec, ulps, msg, ignore_sign_on_zero, abs_tol)
            return
        a, b = np.asarray(first), np.asarray(second)
        if isinstance(first, np.ndarray) or isinstance(second, np.ndarray):
            self.assertEqual(a.shape, b.shape, msg)
            self.assertEqual(a.dtype, b.dtype, msg)
        if a.dtype.kind == "c" or b.dtype.kind == "c":
            # Numba compares complex numbers part by part (NumPy's allclose mixes up infinite
            # parts of complex64 against complex128).
            arrays = isinstance(first, np.ndarray) or isinstance(second, np.ndarray)
            for part in (np.real, np.imag):
                pa, pb = (part(a), part(b)) if arrays else (part(a)[()], part(b)[()])
                self.assertPreciseEqual(pa, pb, prec, ulps, msg, ignore_sign_on_zero, abs_tol)
            return
        if a.dtype.kind == "f" or b.dtype.kind == "f":
            rtol = _RTOL.get(prec, 0.0) * ulps * 2
            np.testing.assert_allclose(a, b, rtol=rtol, atol=abs_tol or 0, equal_nan=True,
                                       err_msg=msg or "")
            if not ignore_sign_on_zero and prec == "exact":
                np.testing.assert_array_equal(np.signbit(a.real), np.signbit(b.real), msg or "")
        else:
            np.testing.assert_array_equal(a, b, msg or "")

    def assertStridesEqual(self, first, second):
        self.assertEqual(first.strides, second.strides)


class CheckWarningsMixin:
    """``check_warnings(messages, category)``: each message warned once, of that category."""

    @contextlib.contextmanager
    def check_warnings(self, messages, category=RuntimeWarning):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
        found = [w for w in caught for m in messages if m in str(w.message)]
        for w in found:
            self.assertEqual(w.category, category)
        self.assertEqual(len(found), len(messages))


class MemoryLeakMixin:
    """Numba's check that its reference-counted runtime (NRT) leaked nothing: ember has no
    such runtime (arrays in kernels are views of the launch's arguments), so nothing to count."""


def import_dynamic(modname):
    import importlib

    importlib.invalidate_caches()
    __import__(modname)
    return sys.modules[modname]


def ignore_internal_warnings():
    """Numba's filters for its own internal warnings (typeguard, TBB): none arise here."""
