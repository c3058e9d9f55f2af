"""Shared test setup: a private kernel cache, the `gpu` marker, the seeded `rng`, fusion on or off,
and `run_python` for a fresh interpreter. Test data and the NumPy comparisons are `ember.testing`'s."""

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


@pytest.fixture
def ember_lapack_kernels():
    """ember's own LAPACK kernels even where cuSOLVER is found (so that they are tested on
    the GPU machine too); cuSOLVER again afterwards."""
    ember._ember.lapack_use_portable(True)
    yield
    ember._ember.lapack_use_portable(False)


@pytest.fixture
def rng():
    return np.random.default_rng(20261121)


def run_python(code: str, env_extra: dict | None = None, timeout: int = 120) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter (for process-wide state: drivers, config, caches)."""
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=timeout)


def opencl_arrays(tmp_path, setup: str, arrays: dict) -> dict:
    """`arrays` (name: expression) computed after `setup` in a fresh interpreter on the OpenCL
    backend, as NumPy arrays: how the GPU tests compare CUDA's numbers with OpenCL's. Skips
    where no OpenCL device sits beside CUDA."""
    path = tmp_path / "opencl.npz"
    saved = ", ".join(f"{name}=({expr}).get()" for name, expr in arrays.items())
    code = f"import numpy as np, ember; {setup}; np.savez({str(path)!r}, {saved})"
    proc = run_python(code, {"EMBER_BACKEND": "opencl"}, timeout=300)
    if proc.returncode != 0:
        pytest.skip(f"no OpenCL device beside CUDA here: {proc.stderr[-300:]}")
    return dict(np.load(path))


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


def nvrtc_or_skip():
    try:
        return ember._ember.nvrtc_version()
    except ember.BackendUnavailableError as e:
        if os.environ.get("EMBER_REQUIRE_NVRTC") == "1":
            raise AssertionError(f"NVRTC is required here (EMBER_REQUIRE_NVRTC=1): {e}") from e
        pytest.skip(f"NVRTC not installed: {e}")


@pytest.fixture(scope="module")
def ctx():
    """An ``ember.cl`` context on the default OpenCL device (the ember.cl tests share one)."""
    from ember import cl

    return cl.create_some_context(interactive=False)


@pytest.fixture(scope="module")
def queue(ctx):
    from ember import cl

    return cl.CommandQueue(ctx)
