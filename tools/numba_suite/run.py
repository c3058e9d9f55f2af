"""Run numba-cuda's own tests against ember presented as ``numba.cuda`` (issue 28's yardstick).

Usage (see README.md)::

    .venv/bin/python tools/numba_suite/run.py [--folders a,b] [--sample N | --all] [--out DIR]
    .venv/bin/python tools/numba_suite/run.py --report-only [--out DIR]

For each folder of numba-cuda's ``numba/cuda/tests``: collect the node ids (``pytest
--collect-only``), take all of them or a seeded sample (sorted ids, ``random.Random(seed)``),
run those in chunks with a per-test timeout (pytest-timeout, when importable) and an overall
timeout per chunk, and write JUnit XML to ``OUT/<folder>.xml``. Then print pass rates, the
modules that failed to import (and why), and the failure classes.
"""

from __future__ import annotations

import argparse
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/, for peer_suite
import peer_suite  # noqa: E402

FOLDERS = ["cudapy"]
TESTS = "numba/cuda/tests"  # the test package, relative to the tree's root


def lay_tree(src: Path, out: Path) -> Path:
    """OUT/tree/numba/cuda/tests -> numba-cuda's tests, so that pytest names the test modules
    ``numba.cuda.tests.<folder>.<module>`` (the tree's empty ``__init__.py`` files are never
    imported: the plugin imports the shim's ``numba`` first)."""
    tree = out / "tree"
    (tree / "numba" / "cuda").mkdir(parents=True, exist_ok=True)
    for init in (tree / "numba" / "__init__.py", tree / "numba" / "cuda" / "__init__.py"):
        init.touch()
    link = tree / TESTS
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(src / "numba" / "cuda" / "tests", target_is_directory=True)
    return tree


MISSING = peer_suite.missing_name_patterns("numba")
_REVERSE = {"numba.cuda": "ember.cuda", "numba.cuda.core.errors": "ember.errors"}
# Failure classes, first match wins (see peer_suite.ChunkedSuite.classes).
CLASSES = [
    ("timeout", re.compile(r"Failed: Timeout")),
    ("missing name", None),
    ("type object as signature", re.compile(r"'type' object is not subscriptable"
                                            r"|numpy\.\w+' object is not callable"
                                            r"|no type variables left in numpy"
                                            r"|signatures must be strings")),
    ("unsupported in kernels", re.compile(r"JitError|not supported|unsupported|cannot compile",
                                          re.I)),
    ("wrong values", re.compile(r"Not equal to tolerance|Arrays are not (almost )?equal"
                                r"|Mismatched elements|AssertionError: [-\d.e+]+ != ")),
    ("exception mismatch", re.compile(r"not raised|DID NOT RAISE|does not match|Regex didn't")),
]
# Why a test module failed to import, by the missing name's module (first match wins).
IMPORT_CLASSES = [
    ("Numba type objects (void, float32[:], types)",
     re.compile(r"cannot import name 'types' from 'numba'|No module named 'numba\.cuda\.types'")),
    ("needs the CPU Numba package", re.compile(r"No module named 'numba\.(?!cuda)|"
                                               r"from 'numba'|module 'numba' has")),
    ("needs Numba's compiler internals (out of scope)",
     re.compile(r"No module named 'numba\.cuda\.|from '(numba|ember)\.cuda\.\w|"
                r"module 'numba\.cuda\.core\.config' has")),
    ("Numba type objects (void, float32[:], types)",
     re.compile(r"cannot import name '(void|types|\w+\d+|[fiuc]\d|b1)' from 'numba\.cuda'|"
                r"'type' object is not subscriptable|object is not callable|"
                r"no type variables left in numpy|signatures must be strings")),
    ("other name missing from numba.cuda", re.compile(r"from 'numba\.cuda'|"
                                                      r"module 'numba\.cuda' has")),
    ("third-party package missing", re.compile(r"No module named")),
]


class NumbaSuite(peer_suite.ChunkedSuite):
    name = "numba_suite"
    src = "/work/peers/numba-cuda/numba_cuda"
    src_help = "numba-cuda's numba_cuda folder (with numba/cuda/tests)"
    tests = TESTS
    folders = FOLDERS
    folders_help = "comma-separated folders of numba/cuda/tests"
    sample = 0
    sample_help = "node ids per folder (seeded; 0: all)"
    all_help = "run every collected test (default)"
    timeout = 60
    classes, missing, reverse, import_classes = CLASSES, MISSING, _REVERSE, IMPORT_CLASSES
    columns = [("modules", 7, lambda info: info.get("modules", 0)),
               ("no-import", 9, lambda info: len(info.get("collection_errors", [])))]

    def layout(self, src: Path, out: Path) -> tuple[Path, Path]:
        # Run from the tree's parent: ``python -m`` puts the working directory first on
        # sys.path, and the tree's own ``numba`` folder must not hide the shim's.
        tree = lay_tree(src, out)
        return tree, tree.parent

    def environment(self, env: dict, src: Path, rootdir: Path) -> None:
        env["NUMBA_SUITE_TREE"] = str(rootdir)

    def sample_size(self, args: argparse.Namespace) -> int | None:
        return None if args.all else args.sample or None

    def folder_meta(self, src: Path, folder: str) -> dict:
        return {"modules": len(list((src / TESTS / folder).glob("test_*.py")))}

    def report(self, out: Path, meta: dict) -> None:
        super().report(out, meta)
        for folder in meta:
            xml = out / f"{folder}.xml"
            if xml.exists():
                by_module(folder, outcomes(xml))


def outcomes(xml: Path) -> dict[tuple[str, str], tuple[str, bool]]:
    """(module, test) -> (passed/failed/skipped, marked cuda_only). A test with subtests has
    several JUnit cases: it passed only if none of them failed."""
    tests = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        cls = case.get("classname", "")
        module = next((p for p in cls.split(".") if p.startswith("test_")), cls)
        tags = {c.tag for c in case}
        state = "failed" if tags & {"failure", "error"} else "skipped" if "skipped" in tags else "passed"
        cuda_only = any(p.get("name") == "cuda_only" for p in case.iter("property"))
        key = (module, f"{cls}::{case.get('name')}")
        if tests.get(key, ("passed",))[0] != "failed":
            tests[key] = (state, cuda_only)
    return tests


def rate(states: list[str]) -> str:
    ran = [s for s in states if s != "skipped"]
    passed = ran.count("passed")
    return f"{passed:4}/{len(ran):<4} {100 * passed / len(ran):5.1f}%" if ran else f"{'(all skipped)':>16}"


def by_module(folder: str, tests: dict) -> None:
    """Pass rates per module, and apart for the tests numba-cuda marks ``skip_on_cudasim``
    (they need a CUDA GPU: numba-cuda's own CPU simulator never runs them)."""
    print(f"\n{folder}: per test (subtests folded into their test), pass rate = passed / ran")
    print(f"  {'all tests':40} {rate([s for s, _ in tests.values()])}")
    print(f"  {'tests numba-cuda runs on its simulator':40} "
          f"{rate([s for s, c in tests.values() if not c])}")
    print(f"  {'tests it marks skip_on_cudasim':40} {rate([s for s, c in tests.values() if c])}")
    modules = sorted({m for m, _ in tests})
    print(f"\n  {'module':34} {'all':>16}   {'simulator tests':>16}")
    for module in modules:
        mine = [v for (m, _), v in tests.items() if m == module]
        sim = [s for s, c in mine if not c]
        print(f"  {module:34} {rate([s for s, _ in mine]):>16}   {rate(sim) if sim else '':>16}")


if __name__ == "__main__":
    NumbaSuite().main(__doc__)
