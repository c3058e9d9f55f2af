"""What the peer-suite harnesses share: a peer library's own pytest suite, run against ember.

``cupy_suite`` and ``numba_suite`` are each a ``ChunkedSuite``: for each folder of the peer's
tests, collect the node ids (``pytest --collect-only``), take all of them or a seeded sample
(sorted ids, ``random.Random(seed).sample``), run those in chunks with a per-test timeout
(pytest-timeout, when importable) and an overall timeout per chunk, merge the chunks' JUnit XML
into ``OUT/<folder>.xml``, then print pass rates per folder and the failure classes. A tool
keeps only what is its own: its shim, its source tree's layout, its folders, its failure
classes. ``array_api_suite`` (one pytest process per file) uses the environment, timeout and
JUnit helpers.

The tools' pytest plugins import this module too (``tools/`` is on the runs' ``PYTHONPATH``)
for ``selection_hook``.
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
from collections.abc import Callable, Iterator
from pathlib import Path

TOOLS = Path(__file__).resolve().parent


def pytest_env(*paths: str | Path, **values: str) -> dict:
    """The environment of a pytest run: ``paths`` first on ``PYTHONPATH``, ``values`` set, and
    Python's hash seed fixed unless the caller's environment sets one."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [*map(str, paths), env.get("PYTHONPATH")]))
    env.update(values)
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def has_pytest_timeout(env: dict, fallback: str) -> bool:
    """Whether pytest-timeout is importable under ``env``; if not, says that only ``fallback``
    (the limit of a whole pytest process) applies."""
    found = subprocess.run([sys.executable, "-c", "import pytest_timeout"], env=env,
                           capture_output=True).returncode == 0
    if not found:
        print(f"pytest-timeout not importable: only {fallback} applies")
    return found


def failures(xml: Path, counts: collections.Counter) -> Iterator[tuple[str, ET.Element]]:
    """(node id, its ``<failure>`` or ``<error>``) of each failed test case of a JUnit file;
    every case is counted in ``counts`` as passed, failure, error or skipped."""
    for case in ET.parse(xml).getroot().iter("testcase"):
        outcome = next((c for c in case if c.tag in ("failure", "error", "skipped")), None)
        counts["passed" if outcome is None else outcome.tag] += 1
        if outcome is not None and outcome.tag != "skipped":
            yield f"{case.get('classname')}::{case.get('name')}", outcome


def selection_hook(prefix: str):
    """The ``pytest_collection_modifyitems`` hook of a tool's plugin.

    A peer's parameterized tests can put array reprs (with newlines and brackets) into node
    ids, which pytest cannot take on its command line, so selection happens after collection:
    ``<prefix>_COLLECT=FILE`` writes every collected node id to FILE (a JSON list), and
    ``<prefix>_IDS=FILE`` deselects every item whose node id is not in FILE (a JSON list).
    """

    def pytest_collection_modifyitems(session, config, items):
        dump = os.environ.get(f"{prefix}_COLLECT")
        if dump:
            with open(dump, "w") as f:
                json.dump([item.nodeid for item in items], f)
        chosen = os.environ.get(f"{prefix}_IDS")
        if chosen:
            with open(chosen) as f:
                keep = set(json.load(f))
            selected = [item for item in items if item.nodeid in keep]
            config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in keep])
            items[:] = selected

    return pytest_collection_modifyitems


# ---- failure classes -------------------------------------------------------------------------


def missing_name_patterns(peer: str, *extra: re.Pattern) -> list[re.Pattern]:
    """How Python says a name is missing, groups (module or type, name): of the peer's module
    (the shim), of ember's, of an object's type, ``extra``, an import's, a whole module's."""
    return [
        re.compile(rf"module '({peer}[\w.]*)' has no attribute '(\w+)'"),
        re.compile(r"module '(ember[\w.]*)' has no attribute '(\w+)'"),
        re.compile(r"'(\w+)' object has no attribute '(\w+)'"),
        *extra,
        re.compile(r"cannot import name '(\w+)' from '([\w.]+)'"),
        re.compile(r"No module named '([\w.]+)'()"),
    ]


def essentials(outcome: ET.Element) -> str:
    """The message, then the traceback's "E", ">" and location lines."""
    keep = [ln for ln in (outcome.text or "").splitlines()
            if ln.startswith(("E ", ">")) or re.match(r"\S+\.py:\d+: ", ln)]
    return "\n".join([outcome.get("message") or "", *keep])


def example(node: str, text: str) -> str:
    """One line: the node id and the first informative line of its failure."""
    lines = [ln.lstrip("E> ").strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln and ln not in ("AssertionError", "AssertionError:")]
    if not lines:
        return f"{node}: ?"
    # For "Only cupy raises error", "X not raised" and the like, add the first "SomeError: ..."
    # line after it.
    errors = [ln for ln in lines[1:]
              if re.match(r"[\w.]+(Error|Exception|Warning): ", ln) and ln != lines[0]]
    extra = errors[0] if errors else ""
    return f"{node}: {lines[0][:150]}" + (f" | {extra[:150]}" if extra else "")


# ---- chunked runs ----------------------------------------------------------------------------


class ChunkedSuite:
    """A peer's test suite run folder by folder, in chunks; a tool subclasses it with its own
    names, paths, folders and failure classes (class attributes) and layout (methods)."""

    name: str  # the tool's folder under tools/: its shim/, pytest.ini and <name>_plugin.py
    src: str  # the peer's source tree, unless --src or $<NAME>_SRC says otherwise
    src_help: str
    tests: str  # the folder of the test folders, relative to pytest's rootdir
    folders: list[str]  # the default --folders
    folders_help: str
    sample: int  # the default --sample
    sample_help: str
    all_help: str
    timeout: int  # the default --timeout
    # Failures are classified by CLASSES, (class, pattern) tried in order on ``essentials()``
    # (not on the quoted source, which names every message); first wins. The class "missing
    # name" (pattern None) tries MISSING (``missing_name_patterns``); REVERSE renames ember's
    # modules in what it found back to the peer's (ember.cuda.x -> cupy.cuda.x).
    classes: list[tuple[str, re.Pattern | None]]
    missing: list[re.Pattern]
    reverse: dict[str, str]
    # Why a test module failed to import, (class, pattern), first match wins; a suite that has
    # them reports its collection errors as import errors, grouped and counted by name.
    import_classes: list[tuple[str, re.Pattern]] | tuple = ()
    # Further columns of the per-folder table: (title, width, value from the folder's meta).
    columns: list[tuple[str, int, Callable[[dict], object]]] | tuple = ()
    # Set by main() for the runs: pytest's rootdir, their working directory, their environment.
    rootdir: Path
    cwd: Path
    env: dict

    # ---- what a tool has of its own, or may change

    def layout(self, src: Path, out: Path) -> tuple[Path, Path]:
        """(pytest's rootdir, the working directory of its runs) for the peer's tree ``src``."""
        raise NotImplementedError

    def environment(self, env: dict, src: Path, rootdir: Path) -> None:
        """Adds the tool's own settings to the runs' environment."""

    def sample_size(self, args: argparse.Namespace) -> int | None:
        """How many node ids to run per folder; None: all."""
        return None if args.all else args.sample

    def folder_meta(self, src: Path, folder: str) -> dict:
        """What meta.json records of a folder besides the counts."""
        return {}

    # ---- the run

    @property
    def here(self) -> Path:
        return TOOLS / self.name

    @property
    def prefix(self) -> str:
        """Of the environment variables of the tool and its plugin."""
        return self.name.upper()

    def main(self, doc: str) -> None:
        """The tool's command line; ``doc`` is its run.py's docstring."""
        parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
        parser.add_argument("--src", default=os.environ.get(f"{self.prefix}_SRC", self.src),
                            help=self.src_help)
        parser.add_argument("--folders", default=",".join(self.folders), help=self.folders_help)
        parser.add_argument("--sample", type=int, default=self.sample, help=self.sample_help)
        parser.add_argument("--all", action="store_true", help=self.all_help)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--timeout", type=int, default=self.timeout,
                            help="seconds per test (0: none)")
        parser.add_argument("--chunk", type=int, default=50, help="tests per pytest process")
        parser.add_argument("--out", default=f"/tmp/{self.name}")
        parser.add_argument("--report-only", action="store_true",
                            help="only summarise the XML already in --out")
        args = parser.parse_args()

        src, out = Path(args.src).resolve(), Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        meta_file = out / "meta.json"
        if args.report_only:
            self.report(out, json.loads(meta_file.read_text()))
            return
        self.rootdir, self.cwd = self.layout(src, out)
        # The shim, the tool's folder (its plugin) and tools/ (this module), then what was there.
        self.env = pytest_env(self.here / "shim", self.here, TOOLS)
        self.environment(self.env, src, self.rootdir)
        timeout = args.timeout if has_pytest_timeout(self.env, "the per-chunk overall timeout") else None
        meta = json.loads(meta_file.read_text()) if meta_file.exists() else {}
        folders = args.folders.split(",")
        for folder in folders:
            ids, errors = self.collect(folder, out)
            sample = self.sample_size(args)
            chosen = sorted(ids) if sample is None else sorted(random.Random(args.seed).sample(
                sorted(ids), min(sample, len(ids))))
            (out / f"{folder}.ids").write_text(json.dumps(chosen, indent=0))
            (out / f"{folder}.log").write_text("")
            print(f"{folder}: {len(ids)} collected, {len(errors)} modules failed to import, "
                  f"running {len(chosen)}", flush=True)
            meta[folder] = {"collected": len(ids), "sampled": len(chosen),
                            "collection_errors": errors, "notes": ["the run was cut short"]}
            meta_file.write_text(json.dumps(meta, indent=1))
            notes = self.run_folder(folder, chosen, out, timeout, args.chunk)
            meta[folder] = {"collected": len(ids), "sampled": len(chosen),
                            **self.folder_meta(src, folder), "collection_errors": errors,
                            "notes": notes}
            meta_file.write_text(json.dumps(meta, indent=1))
        self.report(out, {f: meta[f] for f in folders if f in meta})

    def pytest_cmd(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "pytest", "-c", str(self.here / "pytest.ini"),
                "--rootdir", str(self.rootdir), "-p", f"{self.name}_plugin", *args]

    def path(self, node_path: str) -> str:
        """A path of the rootdir (a node id's module, a folder) as a command-line argument:
        as it is when the runs start in the rootdir, else absolute."""
        return node_path if self.cwd == self.rootdir else str(self.rootdir / node_path)

    def collect(self, folder: str, out: Path) -> tuple[list[str], list[str]]:
        """Node ids of one folder, and the modules that failed to import (with the reason)."""
        dump = out / f"{folder}.collected.json"
        dump.unlink(missing_ok=True)
        proc = subprocess.run(
            self.pytest_cmd("--collect-only", "-q", "--continue-on-collection-errors",
                            self.path(f"{self.tests}/{folder}")),
            cwd=self.cwd, env={**self.env, f"{self.prefix}_COLLECT": str(dump)},
            capture_output=True, text=True,
        )
        ids = json.loads(dump.read_text()) if dump.exists() else []
        if not ids and proc.returncode not in (0, 5):
            # pytest itself failed (the plugin or the shim did not import): say why.
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-15:]
            print(f"collection failed (pytest exit {proc.returncode}):\n  " + "\n  ".join(tail), flush=True)
        errors = []
        # The error sections name the module, then end with an "E   SomeError: ..." line.
        for section in re.split(r"_{3,} ERROR collecting ", proc.stdout)[1:]:
            module = section.split(" ", 1)[0]
            reason = [ln[4:].strip() for ln in section.splitlines() if ln.startswith("E   ")]
            errors.append(f"{module}: {reason[-1] if reason else '?'}")
        return ids, errors

    def run_folder(self, folder: str, ids: list[str], out: Path, timeout: int | None,
                   chunk: int) -> list[str]:
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
            modules = sorted({self.path(node.split("::", 1)[0]) for node in part})
            args = [f"--junitxml={xml}", "-q"]
            if timeout:
                args += [f"--timeout={timeout}", "--timeout-method=signal"]
            budget = (timeout or 120) * len(part) + 120  # overall limit of one chunk
            with open(out / f"{folder}.log", "a") as log:
                try:
                    subprocess.run(self.pytest_cmd(*args, *modules), cwd=self.cwd,
                                   env={**self.env, f"{self.prefix}_IDS": str(chosen)},
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

    # ---- the report

    def classify(self, text: str) -> tuple[str, str]:
        """(class, detail) of one failure or error, from ``essentials()``."""
        for cls, pattern in self.classes:
            if pattern is None:
                for missing in self.missing:
                    m = missing.search(text)
                    if m:
                        a, b = m.groups()
                        if missing.pattern.startswith("cannot"):
                            a, b = b, a
                        for peer_name, ember_name in self.reverse.items():
                            if a == ember_name or a.startswith(ember_name + "."):
                                a = peer_name + a[len(ember_name):]
                        return cls, f"{a}.{b}" if b else a
            elif pattern.search(text):
                return cls, ""
        lines = [ln for ln in text.strip().splitlines() if ln.strip()]
        return "other", lines[0][:160] if lines else "?"

    def import_class(self, reason: str) -> str:
        for cls, pattern in self.import_classes:
            if pattern.search(reason):
                return cls
        return "other"

    def report(self, out: Path, meta: dict) -> None:
        missing = collections.Counter()
        classes = collections.Counter()
        examples = collections.defaultdict(list)
        others = collections.Counter()
        extra = "".join(f" {title:>{width}}" for title, width, _ in self.columns)
        print(f"{'folder':20} {'collected':>9} {'sampled':>7} {'passed':>6} {'failed':>6} "
              f"{'errors':>6} {'skipped':>7} {'pass%':>6}{extra}"
              "  (pass% = passed / (sampled - skipped))")
        for folder, info in meta.items():
            xml = out / f"{folder}.xml"
            if not xml.exists():
                continue
            counts = collections.Counter()
            for node, outcome in failures(xml, counts):
                text = essentials(outcome)
                cls, detail = self.classify(text)
                classes[cls] += 1
                if cls == "missing name":
                    missing[detail] += 1
                elif cls == "other":
                    others[detail] += 1
                if len(examples[cls]) < 10:
                    examples[cls].append(example(node, text))
            ran = sum(counts.values()) - counts["skipped"]
            rate = 100 * counts["passed"] / ran if ran else 0.0
            extra = "".join(f" {value(info):>{width}}" for _, width, value in self.columns)
            print(f"{folder:20} {info['collected']:>9} {info['sampled']:>7} {counts['passed']:>6} "
                  f"{counts['failure']:>6} {counts['error']:>6} {counts['skipped']:>7} "
                  f"{rate:>5.1f}%{extra}")
            for line in info.get("collection_errors", []):
                if self.import_classes:
                    print(f"    import error: {line[:200]}")
                else:
                    print(f"    collection error: {line}")
            for line in info.get("notes", []):
                print(f"    note: {line}")
        if self.import_classes:
            print("\nmodules that failed to import, by reason:")
            for folder, info in meta.items():
                reasons = collections.Counter(self.import_class(e)
                                              for e in info.get("collection_errors", []))
                for cls, n in reasons.most_common():
                    print(f"  {folder:12} {n:4}  {cls}")
        print("\nfailure classes:", dict(classes.most_common()))
        if self.import_classes:
            for info in meta.values():  # names whose absence stopped a whole module
                for line in info.get("collection_errors", []):
                    cls, detail = self.classify(line.split(": ", 1)[-1])
                    if cls == "missing name":
                        missing[detail + " (import)"] += 1
            print("\nmissing names (count; '(import)': a test module failed to import):")
        else:
            print("\nmissing names (count):")
        for name, n in missing.most_common(40):
            print(f"  {n:4}  {name}")
        for cls in [c for c, _ in self.classes if c != "missing name"]:
            if examples[cls]:
                print(f"\nexamples of {cls}:")
                for line in examples[cls]:
                    print(f"  {line}")
        print("\nother failures (first line, count):")
        for text, n in others.most_common(25):
            print(f"  {n:4}  {text}")


class ModuleRedirect:
    """An import hook for a shim: ``<peer>.Y`` is ember's ``<ember>.Y`` module object itself
    where ember has one (else the import fails, as it would); ``skip(fullname)`` leaves a name
    to the normal import system (the shim's own plumbing modules)."""

    def __init__(self, peer: str, ember: str, skip=lambda fullname: False):
        self.peer, self.ember, self.skip = peer + ".", ember + ".", skip

    def find_spec(self, fullname, path=None, target=None):
        import importlib.util

        if not fullname.startswith(self.peer) or self.skip(fullname):
            return None
        try:
            found = importlib.util.find_spec(self.ember + fullname[len(self.peer):])
        except ModuleNotFoundError:
            found = None
        return None if found is None else importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        import importlib

        sys.modules[module.__name__] = importlib.import_module(self.ember + module.__name__[len(self.peer):])

    def install(self) -> None:
        """Puts the hook first on ``sys.meta_path`` (once per peer)."""
        if not any(isinstance(f, ModuleRedirect) and f.peer == self.peer for f in sys.meta_path):
            sys.meta_path.insert(0, self)
