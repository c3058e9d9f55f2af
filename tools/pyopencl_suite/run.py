"""Run PyOpenCL's own tests against ember presented as ``pyopencl`` (issue 29's yardstick).

Usage (see README.md)::

    .venv/bin/python tools/pyopencl_suite/run.py [--folders test_array.py,...] [--out DIR]
    .venv/bin/python tools/pyopencl_suite/run.py --report-only [--out DIR]

For each test file of PyOpenCL's ``test/`` folder: collect the node ids, run them in chunks with
a per-test timeout (pytest-timeout, when importable), and write JUnit XML to
``OUT/<file>.xml``. Then print pass rates, the modules that failed to import (and why), and
the failure classes.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/, for peer_suite
import peer_suite  # noqa: E402

FOLDERS = ["test_array.py", "test_algorithm.py", "test_clrandom.py", "test_wrapper.py"]

MISSING = peer_suite.missing_name_patterns("pyopencl")
_REVERSE = {"pyopencl": "ember.cl"}
# Failure classes, first match wins (see peer_suite.ChunkedSuite.classes).
CLASSES = [
    ("timeout", re.compile(r"Failed: Timeout")),
    ("missing name", None),
    ("wrong values", re.compile(r"Not equal to tolerance|Arrays are not (almost )?equal"
                                r"|Mismatched elements|assert .*(==|<|allclose)")),
    ("exception mismatch", re.compile(r"not raised|DID NOT RAISE|does not match|Regex didn't")),
]
IMPORT_CLASSES = [
    ("name missing from pyopencl", re.compile(r"from 'pyopencl|module 'pyopencl|No module named 'pyopencl")),
    ("third-party package missing", re.compile(r"No module named")),
]


def lay_tree(src: Path, out: Path) -> Path:
    """OUT/tree/test -> PyOpenCL's tests. The tests run from OUT, so that PyOpenCL's own
    package folder (next to test/ in its repository) never hides the shim's ``pyopencl``."""
    tree = out / "tree"
    tree.mkdir(parents=True, exist_ok=True)
    link = tree / "test"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(src / "test", target_is_directory=True)
    return tree


class PyOpenCLSuite(peer_suite.ChunkedSuite):
    name = "pyopencl_suite"
    src = "/work/peers/pyopencl"
    src_help = "PyOpenCL's source tree (with test/)"
    tests = "test"
    folders = FOLDERS
    folders_help = "comma-separated test files of PyOpenCL's test/"
    sample = 0
    sample_help = "node ids per file (seeded; 0: all)"
    all_help = "run every collected test (default)"
    timeout = 120
    classes, missing, reverse, import_classes = CLASSES, MISSING, _REVERSE, IMPORT_CLASSES

    def layout(self, src: Path, out: Path) -> tuple[Path, Path]:
        tree = lay_tree(src, out)
        return tree, tree.parent

    def sample_size(self, args):
        return None if args.all else args.sample or None


if __name__ == "__main__":
    PyOpenCLSuite().main(__doc__)
