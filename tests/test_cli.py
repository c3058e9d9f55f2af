"""`ember info` / `ember doctor` / `python -m ember info` and `ember demo`."""

import os
import subprocess
import sys

EMBER = [sys.executable, "-m", "ember"]


def run(*args):
    return subprocess.run([*EMBER, *args], capture_output=True, text=True, timeout=300, env=dict(os.environ))


def test_info_reports_backends_libraries_and_cache():
    r = run("info")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for section in ("CUDA", "driver:", "NVRTC:", "library search:", "OpenCL", "selected backend:", "kernel cache:"):
        assert section in out, f"{section!r} missing from:\n{out}"
    assert "libnvrtc" in out and "libcuda" in out, "every library attempt must be listed"


def test_doctor_is_info():
    r = run("doctor")
    assert r.returncode == 0 and "selected backend:" in r.stdout


def test_demo_passes():
    r = run("demo")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all checks passed" in r.stdout and "FAIL" not in r.stdout


def test_usage_error():
    r = run("frobnicate")
    assert r.returncode == 2 and "invalid choice" in r.stderr
