"""``numba.cuda.testing``: harness plumbing in place of numba-cuda's (which needs its driver and
dispatcher): ``CUDATestCase`` and the skip decorators the tests import, decided by ember's
device. The FileCheck assertions (``assertFileCheckAsm`` ...) are absent, as is any other name.
"""

from __future__ import annotations

import os
import unittest
from pathlib import Path

import ember.cuda
import numpy as np
import pytest  # noqa: F401  (numba-cuda's testing module imports it; some tests rely on that)

from numba.cuda.core import config
from numba.cuda.tests.support import HAS_NUMBA, TestCase


class CUDATestCase(TestCase):
    FLOAT16_RTOL = np.finfo(np.float16).eps

    def setUp(self):
        self._saved = (config.CUDA_LOW_OCCUPANCY_WARNINGS, config.CUDA_WARN_ON_IMPLICIT_COPY)
        config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
        config.CUDA_WARN_ON_IMPLICIT_COPY = 0

    def tearDown(self):
        config.CUDA_LOW_OCCUPANCY_WARNINGS, config.CUDA_WARN_ON_IMPLICIT_COPY = self._saved


# The mark numba-cuda's ``skip_on_cudasim`` leaves: the test runs on ember's device whatever it
# is, and the report counts it apart ("tests numba-cuda runs on its own CPU simulator").
CUDA_ONLY = "__numba_suite_cuda_only__"


def skip_on_cudasim(reason):
    """numba-cuda skips these on its CPU simulator: they need a CUDA GPU (its driver, PTX, the
    CUDA array interface, warp-level hardware). ember runs them on any device; the mark lets the
    report give the pass rate of the rest, the tests numba-cuda itself holds a CPU device to."""

    def mark(obj):
        setattr(obj, CUDA_ONLY, reason)
        return obj

    return mark


def skip_unless_cudasim(reason):
    return unittest.skipUnless(config.ENABLE_CUDASIM, reason)


skip_on_standalone_numba_cuda = unittest.skipUnless(HAS_NUMBA, "requires base numba install")


def xfail_unless_cudasim(fn):
    return fn if config.ENABLE_CUDASIM else unittest.expectedFailure(fn)


def _never(reason):
    return lambda fn: fn


# Conditions about Numba's own installation that do not apply to ember: never skip.
skip_if_external_memmgr = skip_under_cuda_memcheck = skip_on_arm = skip_on_wsl2 = _never
skip_if_nvjitlink_missing = skip_on_nvjitlink_13_1_sm_120 = _never


def _runs(fn):
    return fn


# ember needs neither cudadevrt nor the CUDA headers for what these tests do.
skip_if_cudadevrt_missing = skip_if_curand_kernel_missing = skip_if_cuda_includes_missing = _runs


def skip_without_nvdisasm(reason):
    return unittest.skip(reason)  # the tests disassemble ember's SASS with nvdisasm: not here


def skip_with_nvdisasm(reason):
    return _never(reason)


# numba-cuda's test data (.cu/.ptx files the linking tests use), from the tree run.py lays out.
test_data_dir = Path(os.environ.get("NUMBA_SUITE_TREE", ".")) / "numba" / "cuda" / "tests" / "data"


def cc_X_or_above(major, minor):
    cc = ember.cuda.get_current_device().compute_capability
    # An OpenCL device names itself with a string: no CUDA level to check, so the test runs
    # and ember's support of the feature is what it measures.
    return not isinstance(cc, tuple) or cc >= (major, minor)


def skip_unless_cc_50(fn):
    return unittest.skipUnless(cc_X_or_above(5, 0), "requires cc >= 5.0")(fn)


def skip_unless_cc_53(fn):
    return unittest.skipUnless(cc_X_or_above(5, 3), "requires cc >= 5.3")(fn)


def skip_unless_cc_60(fn):
    return unittest.skipUnless(cc_X_or_above(6, 0), "requires cc >= 6.0")(fn)


def skip_unless_cc_75(fn):
    return unittest.skipUnless(cc_X_or_above(7, 5), "requires cc >= 7.5")(fn)


def skip_unless_cc_90(fn):
    return unittest.skipUnless(cc_X_or_above(9, 0), "requires cc >= 9.0")(fn)


class ForeignArray:
    """An array from "another library": a device array seen only through its CUDA array
    interface (numba-cuda's helper of the same name)."""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__
