"""PoCL from pip (``ember._pip_opencl``): when it is used, and how it is registered. The whole path
(pip's loader loading pip's PoCL) is checked by hand with the system's driver hidden, since CI's
machine has one (see the issue notes); these tests check the decisions on stand-in files."""

import os

import pytest
from ember import _pip_opencl


@pytest.fixture
def wheels(tmp_path):
    """A site folder laid out as pip installs PyOpenCL and pocl-binary-distribution."""
    libs = tmp_path / "site" / "pyopencl" / ".libs"
    libs.mkdir(parents=True)
    (libs / "libOpenCL-5519dec5.so.1.0.0").write_bytes(b"")
    (libs / "libpocl-21062cec.so").write_bytes(b"")
    return tmp_path / "site"


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for var in ("OPENCL_DYLIB_PATH", "OCL_ICD_VENDORS", "PYOPENCL_HOME"):
        # Set first, so that monkeypatch restores each variable (or its absence) afterwards:
        # what use_if_needed sets must not reach later tests' subprocesses.
        monkeypatch.setenv(var, "")
        monkeypatch.delenv(var)
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path / "cache"))
    return monkeypatch


def test_without_a_system_driver_pips_pocl_is_registered_by_full_path(wheels, clean_env, tmp_path):
    clean_env.setattr(_pip_opencl, "_system_driver", lambda: False)
    loader = _pip_opencl.use_if_needed(["/nowhere", str(wheels)])
    libs = wheels / "pyopencl" / ".libs"
    assert loader == str(libs / "libOpenCL-5519dec5.so.1.0.0")
    assert os.environ["OPENCL_DYLIB_PATH"] == loader
    assert os.environ["PYOPENCL_HOME"] == str(wheels / "pyopencl")
    vendors = tmp_path / "cache" / "opencl-vendors"
    assert os.environ["OCL_ICD_VENDORS"] == str(vendors)
    assert (vendors / "pocl.icd").read_text() == f"{(libs / 'libpocl-21062cec.so').resolve()}\n"


def test_a_system_driver_or_the_users_choice_wins(wheels, clean_env):
    clean_env.setattr(_pip_opencl, "_system_driver", lambda: True)
    assert _pip_opencl.use_if_needed([str(wheels)]) is None
    assert "OPENCL_DYLIB_PATH" not in os.environ
    clean_env.setattr(_pip_opencl, "_system_driver", lambda: False)
    clean_env.setenv("OPENCL_DYLIB_PATH", "/opt/vendor/libOpenCL.so.1")
    assert _pip_opencl.use_if_needed([str(wheels)]) is None
    assert os.environ["OPENCL_DYLIB_PATH"] == "/opt/vendor/libOpenCL.so.1"


def test_nothing_changes_without_pips_wheels(tmp_path, clean_env):
    clean_env.setattr(_pip_opencl, "_system_driver", lambda: False)
    (tmp_path / "site" / "pyopencl" / ".libs").mkdir(parents=True)  # PyOpenCL alone: no PoCL
    assert _pip_opencl.use_if_needed([str(tmp_path / "site")]) is None
    assert "OPENCL_DYLIB_PATH" not in os.environ and "OCL_ICD_VENDORS" not in os.environ


def test_this_machines_driver_is_seen(monkeypatch):
    # CI runs on PoCL from apt: the system's loader and its vendors folder.
    monkeypatch.delenv("OCL_ICD_VENDORS", raising=False)
    vendors = "/etc/OpenCL/vendors"
    if not os.path.isdir(vendors) or not any(f.endswith(".icd") for f in os.listdir(vendors)):
        pytest.skip("no OpenCL driver registered with the system's loader")
    assert _pip_opencl._system_driver()
