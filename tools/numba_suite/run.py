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
import collections
import json
import os
import random
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHIM = HERE / "shim"
INI = HERE / "pytest.ini"
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


def pytest_env(tree: Path) -> dict:
    """The environment of every pytest run: the shim first on sys.path, never the simulator."""
    env = dict(os.environ)
    # The shim (``numba``) and this folder (``numba_suite_plugin``), then whatever was there.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SHIM), str(HERE), env.get("PYTHONPATH")]))
    env["NUMBA_SUITE_TREE"] = str(tree)
    env.pop("NUMBA_ENABLE_CUDASIM", None)  # ember runs the kernels, not Numba's simulator
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def pytest_cmd(tree: Path, *args: str) -> list[str]:
    # Run from the tree's parent: ``python -m`` puts the working directory first on sys.path,
    # and the tree's own ``numba`` folder must not hide the shim's.
    return [sys.executable, "-m", "pytest", "-c", str(INI), "--rootdir", str(tree),
            "-p", "numba_suite_plugin", *args]


def collect(tree: Path, folder: str, out: Path, env: dict) -> tuple[list[str], list[str]]:
    """Node ids of one folder, and the modules that failed to import (with the reason)."""
    dump = out / f"{folder}.collected.json"
    dump.unlink(missing_ok=True)
    proc = subprocess.run(
        pytest_cmd(tree, "--collect-only", "-q", "--continue-on-collection-errors",
                   str(tree / TESTS / folder)),
        cwd=tree.parent, env={**env, "NUMBA_SUITE_COLLECT": str(dump)},
        capture_output=True, text=True,
    )
    ids = json.loads(dump.read_text()) if dump.exists() else []
    errors = []
    # The error sections name the module, then end with an "E   SomeError: ..." line.
    for section in re.split(r"_{3,} ERROR collecting ", proc.stdout)[1:]:
        module = section.split(" ", 1)[0]
        reason = [ln[4:].strip() for ln in section.splitlines() if ln.startswith("E   ")]
        errors.append(f"{module}: {reason[-1] if reason else '?'}")
    return ids, errors


def run_folder(tree: Path, folder: str, ids: list[str], out: Path, env: dict,
               timeout: int | None, chunk: int) -> list[str]:
    """Run ids in chunks of ``chunk``; merge the chunks' JUnit XML into OUT/<folder>.xml."""
    notes = []
    suite = ET.Element("testsuite", name=folder)
    for start in range(0, len(ids), chunk):
        part = ids[start:start + chunk]
        n = start // chunk
        xml, chosen = out / f"{folder}.part{n}.xml", out / f"{folder}.part{n}.json"
        xml.unlink(missing_ok=True)
        chosen.write_text(json.dumps(part))
        # Only the modules that hold the chosen ids (all imported fine when collected); the
        # plugin deselects the rest of their tests.
        modules = sorted({str(tree / node.split("::", 1)[0]) for node in part})
        args = [f"--junitxml={xml}", "-q"]
        if timeout:
            args += [f"--timeout={timeout}", "--timeout-method=signal"]
        budget = (timeout or 120) * len(part) + 120  # overall limit of one chunk
        with open(out / f"{folder}.log", "a") as log:
            try:
                subprocess.run(pytest_cmd(tree, *args, *modules), cwd=tree.parent,
                               env={**env, "NUMBA_SUITE_IDS": str(chosen)},
                               stdout=log, stderr=subprocess.STDOUT, timeout=budget)
            except subprocess.TimeoutExpired:
                notes.append(f"chunk {n} killed after {budget}s")
        chosen.unlink()
        if not xml.exists():
            notes.append(f"chunk {n} ({len(part)} tests) wrote no XML")
            continue
        cases = list(ET.parse(xml).getroot().iter("testcase"))
        if len(cases) != len(part):
            notes.append(f"chunk {n}: {len(part)} ids chosen, {len(cases)} in the XML")
        suite.extend(cases)
        xml.unlink()
        # Merged after every chunk: a run cut short still reports what it ran.
        ET.ElementTree(suite).write(out / f"{folder}.xml", encoding="unicode")
    return notes


# ---- reporting -------------------------------------------------------------------------------

MISSING = [
    re.compile(r"module '(numba[\w.]*)' has no attribute '(\w+)'"),
    re.compile(r"module '(ember[\w.]*)' has no attribute '(\w+)'"),
    re.compile(r"'(\w+)' object has no attribute '(\w+)'"),
    re.compile(r"cannot import name '(\w+)' from '([\w.]+)'"),
    re.compile(r"No module named '([\w.]+)'()"),
]
_REVERSE = {"numba.cuda": "ember.cuda", "numba.cuda.core.errors": "ember.errors"}
# (class, pattern) tried in order on the failure's message, "E" lines, failing ">" lines and
# "file.py:N:" location lines (not on the quoted source, which names every message); first wins.
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


def import_class(reason: str) -> str:
    for cls, pattern in IMPORT_CLASSES:
        if pattern.search(reason):
            return cls
    return "other"


def essentials(outcome: ET.Element) -> str:
    """The message, then the traceback's "E", ">" and location lines."""
    keep = [ln for ln in (outcome.text or "").splitlines()
            if ln.startswith(("E ", ">")) or re.match(r"\S+\.py:\d+: ", ln)]
    return "\n".join([outcome.get("message") or "", *keep])


def classify(text: str) -> tuple[str, str]:
    """(class, detail) of one failure or error, from ``essentials()``."""
    for cls, pattern in CLASSES:
        if pattern is None:
            for missing in MISSING:
                m = missing.search(text)
                if m:
                    a, b = m.groups()
                    if missing.pattern.startswith("cannot"):
                        a, b = b, a
                    for numba_name, ember_name in _REVERSE.items():  # ember.cuda.x -> numba.cuda.x
                        if a == ember_name or a.startswith(ember_name + "."):
                            a = numba_name + a[len(ember_name):]
                    return cls, f"{a}.{b}" if b else a
        elif pattern.search(text):
            return cls, ""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return "other", lines[0][:160] if lines else "?"


def example(node: str, text: str) -> str:
    """One line: the node id and the first informative line of its failure."""
    lines = [ln.lstrip("E> ").strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln and ln not in ("AssertionError", "AssertionError:")]
    if not lines:
        return f"{node}: ?"
    # For "X not raised" and the like, add the first "SomeError: ..." line after it.
    errors = [ln for ln in lines[1:]
              if re.match(r"[\w.]+(Error|Exception|Warning): ", ln) and ln != lines[0]]
    extra = errors[0] if errors else ""
    return f"{node}: {lines[0][:150]}" + (f" | {extra[:150]}" if extra else "")


def report(out: Path, meta: dict) -> None:
    missing = collections.Counter()
    classes = collections.Counter()
    examples = collections.defaultdict(list)
    others = collections.Counter()
    print(f"{'folder':20} {'collected':>9} {'sampled':>7} {'passed':>6} {'failed':>6} "
          f"{'errors':>6} {'skipped':>7} {'pass%':>6} {'modules':>7} {'no-import':>9}"
          "  (pass% = passed / (sampled - skipped))")
    for folder, info in meta.items():
        xml = out / f"{folder}.xml"
        if not xml.exists():
            continue
        counts = collections.Counter()
        for case in ET.parse(xml).getroot().iter("testcase"):
            node = f"{case.get('classname')}::{case.get('name')}"
            outcome = next((c for c in case if c.tag in ("failure", "error", "skipped")), None)
            if outcome is None:
                counts["passed"] += 1
                continue
            counts[outcome.tag] += 1
            if outcome.tag == "skipped":
                continue
            text = essentials(outcome)
            cls, detail = classify(text)
            classes[cls] += 1
            if cls == "missing name":
                missing[detail] += 1
            elif cls == "other":
                others[detail] += 1
            if len(examples[cls]) < 10:
                examples[cls].append(example(node, text))
        ran = sum(counts.values()) - counts["skipped"]
        rate = 100 * counts["passed"] / ran if ran else 0.0
        print(f"{folder:20} {info['collected']:>9} {info['sampled']:>7} {counts['passed']:>6} "
              f"{counts['failure']:>6} {counts['error']:>6} {counts['skipped']:>7} {rate:>5.1f}% "
              f"{info.get('modules', 0):>7} {len(info.get('collection_errors', [])):>9}")
        for line in info.get("collection_errors", []):
            print(f"    import error: {line[:200]}")
        for line in info.get("notes", []):
            print(f"    note: {line}")
    print("\nmodules that failed to import, by reason:")
    for folder, info in meta.items():
        reasons = collections.Counter(import_class(e) for e in info.get("collection_errors", []))
        for cls, n in reasons.most_common():
            print(f"  {folder:12} {n:4}  {cls}")
    print("\nfailure classes:", dict(classes.most_common()))
    for info in meta.values():  # names whose absence stopped a whole module
        for line in info.get("collection_errors", []):
            cls, detail = classify(line.split(": ", 1)[-1])
            if cls == "missing name":
                missing[detail + " (import)"] += 1
    print("\nmissing names (count; '(import)': a test module failed to import):")
    for name, n in missing.most_common(40):
        print(f"  {n:4}  {name}")
    for cls in [c for c, _ in CLASSES if c != "missing name"]:
        if examples[cls]:
            print(f"\nexamples of {cls}:")
            for line in examples[cls]:
                print(f"  {line}")
    print("\nother failures (first line, count):")
    for text, n in others.most_common(25):
        print(f"  {n:4}  {text}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", default=os.environ.get("NUMBA_SUITE_SRC",
                                                        "/work/peers/numba-cuda/numba_cuda"),
                        help="numba-cuda's numba_cuda folder (with numba/cuda/tests)")
    parser.add_argument("--folders", default=",".join(FOLDERS),
                        help="comma-separated folders of numba/cuda/tests")
    parser.add_argument("--sample", type=int, default=0,
                        help="node ids per folder (seeded; 0: all)")
    parser.add_argument("--all", action="store_true", help="run every collected test (default)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=int, default=60, help="seconds per test (0: none)")
    parser.add_argument("--chunk", type=int, default=50, help="tests per pytest process")
    parser.add_argument("--out", default="/tmp/numba_suite")
    parser.add_argument("--report-only", action="store_true",
                        help="only summarise the XML already in --out")
    args = parser.parse_args()

    src, out = Path(args.src).resolve(), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    meta_file = out / "meta.json"
    if args.report_only:
        report(out, json.loads(meta_file.read_text()))
        return
    tree = lay_tree(src, out)
    env = pytest_env(tree)
    has_timeout = subprocess.run([sys.executable, "-c", "import pytest_timeout"], env=env,
                                 capture_output=True).returncode == 0
    if not has_timeout:
        print("pytest-timeout not importable: only the per-chunk overall timeout applies")
    meta = json.loads(meta_file.read_text()) if meta_file.exists() else {}
    for folder in args.folders.split(","):
        ids, errors = collect(tree, folder, out, env)
        sample = None if args.all else args.sample or None
        chosen = sorted(ids) if sample is None else sorted(
            random.Random(args.seed).sample(sorted(ids), min(sample, len(ids))))
        (out / f"{folder}.ids").write_text(json.dumps(chosen, indent=0))
        (out / f"{folder}.log").write_text("")
        print(f"{folder}: {len(ids)} collected, {len(errors)} modules failed to import, "
              f"running {len(chosen)}", flush=True)
        meta[folder] = {"collected": len(ids), "sampled": len(chosen),
                        "collection_errors": errors, "notes": ["the run was cut short"]}
        meta_file.write_text(json.dumps(meta, indent=1))
        notes = run_folder(tree, folder, chosen, out, env,
                           args.timeout if has_timeout else None, args.chunk)
        modules = len(list((src / TESTS / folder).glob("test_*.py")))
        meta[folder] = {"collected": len(ids), "sampled": len(chosen), "modules": modules,
                        "collection_errors": errors, "notes": notes}
        meta_file.write_text(json.dumps(meta, indent=1))
    report(out, {f: meta[f] for f in args.folders.split(",") if f in meta})


if __name__ == "__main__":
    main()
