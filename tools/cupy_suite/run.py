"""Run a fixed, seeded sample of CuPy's own tests against ember presented as ``cupy``.

Usage (see README.md)::

    .venv/bin/python tools/cupy_suite/run.py [--folders a,b] [--sample N | --all] [--out DIR]
    .venv/bin/python tools/cupy_suite/run.py --report-only [--out DIR]

For each folder of CuPy's ``tests/cupy_tests``: collect the node ids (``pytest --collect-only``),
take a seeded sample of them (sorted ids, ``random.Random(seed).sample``), run those in chunks
with a per-test timeout (pytest-timeout, when importable) and an overall timeout per chunk, and
write JUnit XML to ``OUT/<folder>.xml``. Then print pass rates and the failure classes.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/, for peer_suite
import peer_suite  # noqa: E402

FOLDERS = [
    "creation_tests", "manipulation_tests", "math_tests", "logic_tests",
    "indexing_tests", "binary_tests", "padding_tests", "core_tests",
]

MISSING = peer_suite.missing_name_patterns(
    "cupy", re.compile(r"type object '(ndarray)' has no attribute '(\w+)'"))
_REVERSE = {"cupy.cuda": "ember.cuda", "cupy.random": "ember.random",
            "cupy.linalg": "ember.linalg", "cupy.exceptions": "ember.errors",
            "cupy.fft": "ember.fft"}
# Failure classes, first match wins (see peer_suite.ChunkedSuite.classes).
CLASSES = [
    ("timeout", re.compile(r"Failed: Timeout")),
    # cupy.testing asks isinstance(result, cupy.poly1d) only once ember's result is neither an
    # ndarray nor a scalar of NumPy's kind: a wrong return type, not a wanted poly1d.
    ("wrong return type", re.compile(r"has no attribute 'poly1d'[\s\S]*testing/_loops\.py"
                                     r"|different type of return value")),
    ("missing name", None),
    ("unsupported dtype", re.compile(r"ember arrays cannot hold dtype|Unsupported type")),
    ("wrong dtype", re.compile(r"ndarrays of different dtypes")),
    ("wrong shape", re.compile(r"assert cupy_r\.shape == numpy_r\.shape|\(shapes \(")),
    ("wrong layout", re.compile(r"_contiguous flag is false|Strides are not equal")),
    ("wrong values", re.compile(r"Not equal to tolerance|Arrays are not (almost )?equal"
                                r"|Mismatched elements|Results are not equal|not less-ordered")),
    ("exception mismatch", re.compile(r"Only (cupy|numpy) raises error|Different types of errors"
                                      r"|expected to raise errors|DID NOT RAISE")),
]


def device_count() -> int:
    """How many devices ember sees on this machine."""
    import ember

    return ember.cuda.runtime.getDeviceCount()


class CupySuite(peer_suite.ChunkedSuite):
    name = "cupy_suite"
    src = "/work/peers/cupy"
    src_help = "CuPy source tree (with tests/ and cupy/testing/)"
    tests = "cupy_tests"
    folders = FOLDERS
    folders_help = "comma-separated folders of tests/cupy_tests"
    sample = 150
    sample_help = "node ids per folder (seeded)"
    all_help = "run every collected test"
    timeout = 120
    classes, missing, reverse = CLASSES, MISSING, _REVERSE

    def layout(self, src: Path, out: Path) -> tuple[Path, Path]:
        return src / "tests", src / "tests"

    def environment(self, env: dict, src: Path, rootdir: Path) -> None:
        env["CUPY_SUITE_SRC"] = str(src)
        # As CuPy's own CI runs it: tests that need more devices than there are are skipped.
        env.setdefault("CUPY_TEST_GPU_LIMIT", str(device_count()))


if __name__ == "__main__":
    CupySuite().main(__doc__)
