"""The type stubs (python/ember/*.pyi, written by tools/gen_stubs.py) are current, and mypy's
stubtest finds them in agreement with the binary and the package."""

from __future__ import annotations

import difflib
import importlib.util
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "ember"
ALLOWLIST = ROOT / "tools" / "stubtest-allowlist.txt"

_spec = importlib.util.spec_from_file_location("gen_stubs", ROOT / "tools" / "gen_stubs.py")
gen_stubs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen_stubs)

# stubtest checks every submodule of a package it is given, importing each (ember.examples would run
# its programs) and comparing .py sources with themselves; this runs it on the stubbed modules only,
# as its --check-typeshed mode runs on exactly the modules named.
STUBTEST = """
import sys
from mypy import stubtest
build = stubtest.build_stubs
stubtest.build_stubs = lambda modules, options, find_submodules=False: build(modules, options, False)
sys.exit(stubtest.main())
"""


def _module(stub: str) -> str:
    parts = ["ember", *pathlib.PurePosixPath(stub).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_stubs_match_the_package(tmp_path):
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_stubs.py"), "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    fresh, committed = gen_stubs.generated_files(tmp_path), gen_stubs.generated_files(PACKAGE)
    diff = []
    for name in sorted(fresh | committed):
        old = (PACKAGE / name).read_text().splitlines() if name in committed else []
        new = (tmp_path / name).read_text().splitlines() if name in fresh else []
        diff += difflib.unified_diff(old, new, f"python/ember/{name}", f"regenerated/{name}", lineterm="", n=1)
    assert not diff, (
        "the type stubs no longer match the package (a registry row, a signature or an export changed): "
        "run `python tools/gen_stubs.py` and commit python/ember/*.pyi\n" + "\n".join(diff[:60])
    )


def test_stubtest_finds_the_stubs_agree_with_the_binary(tmp_path):
    pytest.importorskip("mypy.stubtest", reason="mypy is in requirements-dev.txt")
    # Errors inside the package's .py modules that the stubs import are not the stubs' to report.
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nfollow_imports = silent\n")
    modules = sorted(_module(stub) for stub in gen_stubs.generated_files(PACKAGE))
    assert "ember" in modules and "ember._ember" in modules, modules
    r = subprocess.run(
        [sys.executable, "-c", STUBTEST, "--mypy-config-file", str(config), "--allowlist", str(ALLOWLIST),
         # PEP 800's @disjoint_base: which classes are disjoint bases changed in Python 3.12.
         "--ignore-disjoint-bases", "--concise", *modules],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert r.returncode == 0, f"stubtest {' '.join(modules)}:\n{r.stdout}{r.stderr}"
