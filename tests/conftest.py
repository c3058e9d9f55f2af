"""Shared test setup: a private kernel cache, the `gpu` marker, seeded random data."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

# Every test process gets its own cache folder, so tests see real misses and hits.
os.environ.setdefault("EMBER_CACHE_DIR", tempfile.mkdtemp(prefix="ember-test-cache-"))

import ember  # noqa: E402

ALL_DTYPES = [np.dtype(n) for n in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
)]


def on_cuda() -> bool:
    try:
        return ember.backend() == "cuda"
    except ember.EmberError:
        return False


def pytest_collection_modifyitems(config, items):
    if on_cuda():
        return
    skip = pytest.mark.skip(reason="needs the CUDA backend (no CUDA device here)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def random_array(rng, shape, dtype) -> np.ndarray:
    """Non-trivial values of `dtype`: signs, fractions and extremes where the type has them."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        values = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
        return values
    if dtype.kind == "f":
        return (rng.standard_normal(shape) * 100).astype(dtype)
    re = rng.standard_normal(shape) * 10
    im = rng.standard_normal(shape) * 10
    return (re + 1j * im).astype(dtype)


@pytest.fixture
def rng():
    return np.random.default_rng(20261121)


def run_python(code: str, env_extra: dict | None = None, timeout: int = 120) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter (for process-wide state: drivers, config, caches)."""
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=timeout)


@pytest.fixture
def fusion():
    """Automatic fusion on for every result, fused from the first time an expression is seen."""
    before = ember._ember.set_fusion(True, 1, 1)
    yield
    ember._ember.set_fusion(*before)


@pytest.fixture
def no_fusion():
    """Automatic fusion off: every operation launches on its own."""
    before = ember._ember.set_fusion(False, 1, 1)
    yield
    ember._ember.set_fusion(*before)
