"""`ember info` / `ember doctor` / `python -m ember info` and `ember demo`."""

import importlib.util
import os
import subprocess
import sys

import ember
from conftest import on_cuda

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


def test_demo_runs_the_named_examples_and_reports_each():
    r = run("demo", "leaky_relu")
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "device:" in out and "leaky_relu_elementwise" in out and " ok " in out, out
    assert "matches NumPy" in out and "1 passed, 0 skipped, 0 failed" in out, out


def test_demo_exits_nonzero_when_an_example_fails_and_shows_skips(tmp_path):
    (tmp_path / "good.py").write_text("print('two plus two is', 2 + 2)\n")
    (tmp_path / "wrong.py").write_text("assert 2 + 2 == 5, 'arithmetic is broken'\n")
    (tmp_path / "absent.py").write_text("import sys\nprint('SKIP: needs a frobnicator')\nsys.exit(77)\n")
    r = run("demo", "--dir", str(tmp_path))
    assert r.returncode == 1, r.stdout + r.stderr
    out = r.stdout
    assert "two plus two is 4" in out and "needs a frobnicator" in out, out
    assert "AssertionError: arithmetic is broken" in out, out
    assert "1 passed, 1 skipped, 1 failed" in out, out


def test_demo_names_a_missing_folder(tmp_path):
    r = run("demo", "--dir", str(tmp_path / "nowhere"))
    assert r.returncode == 1 and "no examples folder" in r.stdout, r.stdout


def test_bench_quick_writes_markdown_and_chart(tmp_path):
    """A benchmark never fails: it prints the table and writes it; figures are not checked here."""
    # The GPU groups on any GPU (CUDA, or OpenCL on one), the CPU group on a CPU device.
    group = "cpu" if not on_cuda() and ember.Device(0).attributes["is_cpu"] else "transfers"
    r = run("bench", "--quick", "--only", group, "--out", str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    md = (tmp_path / "bench.md").read_text()
    assert "| workload | unit | ember |" in md and "ember / best peer" in md, md
    assert md.count("\n| ") >= 4, md
    assert f"wrote {tmp_path / 'bench.md'}" in r.stdout
    if importlib.util.find_spec("matplotlib") is not None:
        assert (tmp_path / "bench.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bench_rejects_an_unknown_group():
    r = run("bench", "--only", "everything")
    assert r.returncode == 2 and "unknown group" in r.stderr, r.stderr


def test_usage_error():
    r = run("frobnicate")
    assert r.returncode == 2 and "invalid choice" in r.stderr
