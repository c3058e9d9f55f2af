"""``numba.tests.support``: harness plumbing in place of Numba's (which is built on Numba's compiler,
its runtime and its type system). Nothing here compiles or runs anything of ember's.

- ``TestCase.assertPreciseEqual`` follows Numba's rules: the two values must be of the same
  family (array, sequence, exact: bool/int/str/bytes, complex, approximate: float), arrays of
  equal dtype, shape, strides (in elements, ignoring axes of length 0 or 1) and writeability,
  NumPy scalars of equal dtype, bools never equal to non-bools; ints, bools and ``prec='exact'``
  floats compare exactly (and the sign of a zero counts unless ``ignore_sign_on_zero``); NaN
  equals NaN; for ``prec='single'/'double'`` two floats may differ by
  ``2**(ulps - bits - 1) * (|a| + |b|)`` with bits 24/53.
- ``subTest``: the first failing subtest fails the test (no going on through the rest).
- ``assertTypingError``: the block raises ``JitError`` (Numba's TypingError/LoweringError),
  ``TypeError`` or ``NotImplementedError``, as Numba's accepts.
- ``subprocess_test_runner``: skipped (run.py sets ``SUBPROC_TEST=1``, so the
  ``@needs_subprocess`` tests it would start in a subprocess run directly).
- ``run_test_in_subprocess``: runs the test in the test's own process (Numba isolates its own
  state so), with the given environment variables set.
- ``assertRefCount``: Numba's check that reference counts of Python objects do not change.
- ``MemoryLeakMixin`` / ``EnableNRTStatsMixin`` / ``assertNoNRTLeak``: Numba's checks of its
  reference-counted runtime (NRT); ember has no such runtime, so nothing to count (no-ops).
- The skip decorators keep Numba's conditions where they are about the machine (Linux, 32 bits,
  SciPy or cffi installed ...). ``expected_failure_py3XX`` (tests Numba itself fails on one
  Python version) are no-ops: the test runs and counts as it comes out.

Numba's internal helpers (``IRPreservingTestPipeline``, ``no_pyobj_flags`` and the other
``Flags``, ``forbid_codegen``, ``override_env_config``, ``capture_cache_log`` ...) are missing
(see ``numba/_missing.py``).
"""

from __future__ import annotations

import cmath
import contextlib
import enum
import functools
import gc
import io
import math
import os
import platform
import subprocess
import sys
import tempfile
import unittest
import warnings
from functools import cached_property

import numpy as np
from ember.errors import JitError

from numba import _missing
from numba.core import config, utils
from numba.np import numpy_support


def __getattr__(name: str):
    return _missing.missing_name("numba.tests.support", name)


# ---- decorators and platform facts (Numba's conditions)

def tag(*tags):
    def mark(fn):
        fn.tags = tags
        return fn

    return mark


always_test = tag("always_test")
_32bit = sys.maxsize <= 2**32
is_parfors_unsupported = _32bit
skip_parfors_unsupported = unittest.skipIf(_32bit, "parfors not supported")
skip_if_32bit = unittest.skipIf(_32bit, "Not supported on 32 bit")
skip_unless_py10_or_later = unittest.skipUnless(utils.PYVERSION >= (3, 10), "needs Python 3.10 or later")
skip_unless_py10 = unittest.skipUnless(utils.PYVERSION == (3, 10), "needs Python 3.10")
skip_unless_py312 = unittest.skipUnless(utils.PYVERSION == (3, 12), "needs Python 3.12")
skip_unless_py314_or_later = unittest.skipUnless(utils.PYVERSION >= (3, 14), "needs Python 3.14+")
skip_if_py313plus_on_windows = unittest.skipIf(
    utils.PYVERSION >= (3, 13) and sys.platform.startswith("win"), "Not supported on Python 3.13+ on Windows")
skip_if_linux_aarch64 = unittest.skipIf(
    sys.platform.startswith("linux") and platform.machine() == "aarch64", "Not supported on Linux aarch64")
IS_NUMPY_2 = numpy_support.numpy_version >= (2, 0)
skip_if_numpy_2 = unittest.skipIf(IS_NUMPY_2, "Not supported on numpy 2.0+")
numpy_sincos_low_precision = (sys.platform.startswith("linux") and platform.machine() == "x86_64"
                              and numpy_support.numpy_version < (1, 25))
REDUCED_TESTING = bool(int(os.environ.get("_NUMBA_REDUCED_TESTING", 0)))
skip_if_reduced_testing = unittest.skipIf(REDUCED_TESTING, "Skipped for reduced testing")
_free_threading = not getattr(sys, "_is_gil_enabled", lambda: True)()
skip_if_freethreading = unittest.skipIf(_free_threading, "free-threading build")


def _runs(fn):
    return fn


# Tests Numba itself fails on one Python or NumPy version: here they run and count as they come out.
expected_failure_py311 = expected_failure_py312 = expected_failure_py313 = _runs
expected_failure_py314 = expected_failure_np2 = _runs

try:
    import scipy  # noqa: F401
    import scipy.linalg.cython_blas  # noqa: F401
    import scipy.linalg.cython_lapack  # noqa: F401

    has_blas = has_lapack = _has_scipy = True
except ImportError:
    has_blas = has_lapack = _has_scipy = False
skip_unless_scipy = unittest.skipIf(not _has_scipy, "SciPy needed for test")
needs_blas = unittest.skipUnless(has_blas, "BLAS needs SciPy 1.0+")
needs_lapack = unittest.skipUnless(has_lapack, "LAPACK needs SciPy 1.0+")
try:
    import cffi  # noqa: F401

    _has_cffi = True
except ImportError:
    _has_cffi = False
skip_unless_cffi = unittest.skipUnless(_has_cffi, "requires cffi")
try:
    import setuptools  # noqa: F401

    has_setuptools = True
except ImportError:
    has_setuptools = False
needs_setuptools = unittest.skipUnless(has_setuptools, "Test needs setuptools")
needs_subprocess = unittest.skipUnless(os.environ.get("SUBPROC_TEST") == "1", "needs subprocess harness")

linux_only = unittest.skipIf(not sys.platform.startswith("linux"), "linux only test")
windows_only = unittest.skipIf(not sys.platform.startswith("win"), "Windows-only test")
skip_if_windows = unittest.skipIf(sys.platform.startswith("win"), "non Windows test")
_is_armv7l = platform.machine() == "armv7l"
disabled_test = unittest.skipIf(True, "Test disabled")
skip_ppc64le_issue4563 = skip_ppc64le_issue6465 = skip_ppc64le_invalid_ctr_loop = unittest.skipIf(
    platform.machine() == "ppc64le", "PPC64LE LLVM bug")
has_typeguard = bool(os.environ.get("NUMBA_USE_TYPEGUARD", 0))
skip_unless_typeguard = unittest.skipUnless(has_typeguard, "Typeguard is not enabled")
skip_if_typeguard = unittest.skipIf(has_typeguard, "Broken if Typeguard is enabled")
IS_MACOS = platform.system() == "Darwin"
skip_macos_fenv_errors = unittest.skipIf(IS_MACOS, "fenv.h-like functionality unreliable on macOS")
IS_MACOS_ARM64 = IS_MACOS and platform.machine() == "arm64"
IS_WIN_ARM64 = platform.system() == "Windows" and platform.machine() == "ARM64"
skip_win_arm64_unittuple_uimm12 = unittest.skipIf(IS_WIN_ARM64, "win-arm64")


def ignore_internal_warnings():
    """Numba's filters for its own internal warnings (typeguard, TBB): none arise here."""


# ---- the test case


class TestCase(unittest.TestCase):
    longMessage = True
    _numba_parallel_test_ = False

    @cached_property
    def random(self):
        return np.random.RandomState(42)

    @contextlib.contextmanager
    def subTest(self, msg=None, **params):
        """The first failing subtest fails the test, with the subtest's parameters noted (a test
        counts once in the report, failed if any subtest fails, as in Numba's own runs; unittest's
        subTest would go on through thousands of failing subtests, and swallow pytest-timeout's
        interruption)."""
        try:
            yield
        except BaseException as e:
            e.add_note(f"in subTest {msg or ''} {params}")
            raise

    def subprocess_test_runner(self, test_module, test_class=None, test_name=None, envvars=None, timeout=60,
                               flags=None, _subproc_test_env="1"):
        """Numba's runner tests start a subprocess that runs a whole test class with
        ``SUBPROC_TEST=1`` (``@needs_subprocess``). run.py sets ``SUBPROC_TEST=1`` for every run,
        so those classes' tests run (and count) themselves; their runner is skipped."""
        raise unittest.SkipTest("runs the tests of another class: run.py runs those directly (SUBPROC_TEST=1)")

    @staticmethod
    def run_test_in_subprocess(maybefunc=None, timeout=60, envvars=None):
        """Numba runs such a test in a subprocess, to isolate Numba's own state (its config read
        from the environment, its annotation and MCJIT state): here it runs in the test's process,
        with ``envvars`` set while it runs (ember reads no ``NUMBA_*`` variable)."""

        def wrapper(func):
            @functools.wraps(func)
            def inner(self, *args, **kwargs):
                saved = {k: os.environ.get(k) for k in envvars or {}}
                os.environ.update(envvars or {})
                try:
                    return func(self, *args, **kwargs)
                finally:
                    for k, v in saved.items():
                        if v is None:
                            os.environ.pop(k, None)
                        else:
                            os.environ[k] = v

            return inner

        return wrapper(maybefunc) if callable(maybefunc) else wrapper

    def assertRaises(self, expected_exception, *args, **kwargs):
        _check_expected(expected_exception)
        return super().assertRaises(expected_exception, *args, **kwargs)

    def assertRaisesRegex(self, expected_exception, *args, **kwargs):
        _check_expected(expected_exception)
        return super().assertRaisesRegex(expected_exception, *args, **kwargs)

    def reset_module_warnings(self, module):
        if isinstance(module, str):
            module = sys.modules[module]
        with contextlib.suppress(AttributeError):
            del module.__warningregistry__

    @contextlib.contextmanager
    def assertTypingError(self):
        with self.assertRaises((JitError, TypeError, NotImplementedError)) as cm:
            yield cm

    @contextlib.contextmanager
    def assertRefCount(self, *objects):
        gc.collect()
        old = [sys.getrefcount(x) for x in objects]
        yield
        gc.collect()
        new = [sys.getrefcount(x) for x in objects]
        for o, n, obj in zip(old, new, objects, strict=True):
            if o != n:
                self.fail(f"Refcount changed from {o} to {n} for object: {obj!r}")

    def assertRefCountEqual(self, *objects):
        gc.collect()
        rc = [sys.getrefcount(x) for x in objects]
        for i in range(1, len(rc)):
            if rc[0] != rc[i]:
                self.fail(f"Refcount for objects does not match. #0({rc[0]}) != #{i}({rc[i]}) does not match.")

    @contextlib.contextmanager
    def assertNoNRTLeak(self):
        yield  # Numba's runtime (NRT) allocation counts: ember has no NRT

    def assertStridesEqual(self, first, second):
        self.assertEqual(first.shape, second.shape, "shapes differ")
        self.assertEqual(first.itemsize, second.itemsize, "itemsizes differ")
        self.assertEqual(_strides(first), _strides(second), "strides differ")

    def assertPreciseEqual(self, first, second, prec="exact", ulps=1, msg=None, ignore_sign_on_zero=False,
                           abs_tol=None):
        try:
            self._precise(first, second, prec, ulps, msg, ignore_sign_on_zero, abs_tol)
        except AssertionError as exc:
            failure = str(exc)
        else:
            return
        self.fail(f"when comparing {first} and {second}: {failure}")

    def _precise(self, first, second, prec, ulps, msg, ignore_sign_on_zero, abs_tol):
        fam1, fam2 = _family(first), _family(second)
        self.assertEqual(fam1, fam2, f"Type Family mismatch. ({fam1} != {fam2})" + (f": {msg}" if msg else ""))
        if fam1 == "ndarray":
            self.assertEqual(first.dtype, second.dtype)
            self.assertEqual(first.ndim, second.ndim, "different number of dimensions")
            self.assertEqual(first.shape, second.shape, "different shapes")
            self.assertEqual(first.flags.writeable, second.flags.writeable, "different mutability")
            self.assertEqual(_strides(first), _strides(second), "different strides")
            for a, b in zip(first.flat, second.flat, strict=False):
                self._precise(a, b, prec, ulps, msg, ignore_sign_on_zero, abs_tol)
            return
        if fam1 == "sequence":
            self.assertEqual(len(first), len(second), msg=msg)
            for a, b in zip(first, second, strict=False):
                self._precise(a, b, prec, ulps, msg, ignore_sign_on_zero, abs_tol)
            return
        if fam1 == "enum":
            self.assertIs(first.__class__, second.__class__)
            self._precise(first.value, second.value, prec, ulps, msg, ignore_sign_on_zero, abs_tol)
            return
        if fam1 == "unknown":
            self.assertIs(first.__class__, second.__class__)
        exact = fam1 in ("exact", "unknown") or prec == "exact"
        if hasattr(first, "dtype") and hasattr(second, "dtype"):
            self.assertEqual(first.dtype, second.dtype)
        if isinstance(first, (bool, np.bool_)) != isinstance(second, (bool, np.bool_)):
            self.fail(f"Mismatching return types ({first.__class__} vs. {second.__class__})"
                      + (f": {msg}" if msg else ""))
        with contextlib.suppress(TypeError):
            if cmath.isnan(first) and cmath.isnan(second):
                return
        if abs_tol is not None:
            tol = np.finfo(type(first)).eps if abs_tol == "eps" else abs_tol
            if abs(first - second) < tol:
                return
        delta = None
        if not exact:
            bits = {"single": 24, "double": 53}.get(prec)
            if bits is None:
                raise ValueError(f"unsupported precision {prec!r}")
            delta = 2 ** (ulps - bits - 1) * (abs(first) + abs(second))

        def number(a, b):
            if delta is None or a == b == 0.0 or math.isinf(a) or math.isinf(b):
                self.assertEqual(a, b, msg=msg)
                if not ignore_sign_on_zero:
                    with contextlib.suppress(TypeError):
                        if math.copysign(1, a) != math.copysign(1, b):
                            self.fail(self._formatMessage(msg, f"{a} != {b}"))
            else:
                self.assertAlmostEqual(a, b, delta=delta, msg=msg)

        if isinstance(first, (complex, np.complexfloating)):
            number(first.real, second.real)
            number(first.imag, second.imag)
        elif isinstance(first, (np.timedelta64, np.datetime64)) and np.isnat(first):
            self.assertEqual(np.isnat(first), np.isnat(second))
        else:
            number(first, second)


def _check_expected(expected):
    """A Numba error class ember has not, given to ``assertRaises``: say which (not unittest's
    "arg 1 must be an exception type")."""
    for e in expected if isinstance(expected, tuple) else (expected,):
        if isinstance(e, _missing.Missing):
            e._fail()


def _family(value) -> str:
    if isinstance(value, np.ndarray):
        return "ndarray"
    if isinstance(value, enum.Enum):
        return "enum"
    if isinstance(value, (tuple, list)):
        return "sequence"
    if isinstance(value, (bool, np.bool_, int, str, np.integer, bytes, np.bytes_)):
        return "exact"
    if isinstance(value, (complex, np.complexfloating)):
        return "complex"
    if isinstance(value, (float, np.inexact)):
        return "approximate"
    return "unknown"


def _strides(arr):
    """Strides in elements, ignoring axes of length 0 or 1 (as Numba compares them)."""
    if arr.size == 0:
        return [0] * arr.ndim
    return [s / arr.itemsize for s, n in zip(arr.strides, arr.shape, strict=True) if n > 1]


class SerialMixin:
    _numba_parallel_test_ = False


class EnableNRTStatsMixin:
    """Numba's runtime statistics switch: ember has no NRT (no-op)."""


class MemoryLeak:
    """Numba's NRT allocation counting around a test: ember has no NRT (no-op)."""

    def memory_leak_setup(self):
        pass

    def memory_leak_teardown(self):
        pass

    def assert_no_memory_leak(self):
        pass

    def disable_leak_check(self):
        pass


class MemoryLeakMixin(EnableNRTStatsMixin, MemoryLeak):
    pass


class CheckWarningsMixin:
    """``check_warnings(messages, category)``: each message warned, of that category."""

    @contextlib.contextmanager
    def check_warnings(self, messages, category=RuntimeWarning):
        with warnings.catch_warnings(record=True) as catch:
            warnings.simplefilter("always")
            yield
        found = 0
        for w in catch:
            for m in messages:
                if m in str(w.message):
                    self.assertEqual(w.category, category)
                    found += 1
        self.assertEqual(found, len(messages))


# ---- helpers


@contextlib.contextmanager
def override_config(name, value):
    """Sets a ``numba.core.config`` setting for the block; a setting the plumbing config has not
    (one ember does not read) is missing."""
    old = getattr(config, name)
    setattr(config, name, value)
    try:
        yield
    finally:
        setattr(config, name, old)


def compile_function(name, code, globs):
    co = compile(code.rstrip(), "<string>", "single")
    ns = {}
    eval(co, globs, ns)
    return ns[name]


def temp_directory(prefix):
    return tempfile.mkdtemp(prefix=prefix + "-")


def import_dynamic(modname):
    import importlib

    importlib.invalidate_caches()
    __import__(modname)
    return sys.modules[modname]


@contextlib.contextmanager
def captured_output(stream_name):
    orig = getattr(sys, stream_name)
    setattr(sys, stream_name, io.StringIO())
    try:
        yield getattr(sys, stream_name)
    finally:
        setattr(sys, stream_name, orig)


def captured_stdout():
    return captured_output("stdout")


def captured_stderr():
    return captured_output("stderr")


def run_in_subprocess(code, flags=None, env=None, timeout=30):
    cmd = [sys.executable, *(flags or []), "-c", code]
    proc = subprocess.run(cmd, capture_output=True, env=env, timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError(f"process failed with code {proc.returncode}: stderr follows\n{proc.stderr.decode()}\n")
    return proc.stdout, proc.stderr
