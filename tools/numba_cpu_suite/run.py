"""Run Numba's own CPU tests against ember presented as ``numba`` (an independent yardstick).

Usage (see README.md)::

    .venv/bin/python tools/numba_cpu_suite/run.py [--folders test_a.py,npyufunc/test_b.py]
        [--sample N | --all] [--out DIR]
    .venv/bin/python tools/numba_cpu_suite/run.py --report-only [--out DIR]

For each test file of Numba's ``numba/tests`` (a "folder" of ``tools/peer_suite.py``): collect
the node ids, take all of them or a seeded sample (``--sample``, default 150 per file), run those
in chunks with a per-test timeout, and write JUnit XML to ``OUT/<file>.xml``. A chunk whose
process crashes or hangs is run again without the test it was running, which is recorded as a
crash or a hang. Then print pass rates per file, with the file's import status in strict mode
(every name ember lacks missing at import), and the failure classes.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/, for peer_suite
import peer_suite  # noqa: E402

TESTS = "numba/tests"  # the test package, relative to the tree's root
# The user-level test files: nopython functions called from Python (and a few files that test
# Numba's compiler internals, to show where the line is).
FILES = [
    "test_builtins.py", "test_mathlib.py", "test_operators.py", "test_range.py", "test_tuples.py",
    "test_array_exprs.py", "test_array_reductions.py", "test_array_methods.py", "test_np_functions.py",
    "test_ufuncs.py", "test_exceptions.py", "test_return_values.py", "test_intwidth.py",
    "test_indexing.py", "test_slices.py", "test_array_attr.py", "test_numberctor.py", "test_casting.py",
    "test_complex.py", "test_globals.py", "test_closure.py", "test_recursion.py", "test_inlining.py",
    "test_ir_inlining.py", "test_parfors.py", "test_iteration.py", "test_usecases.py",
    "test_fancy_indexing.py", "test_nested_calls.py", "test_array_manipulation.py",
    "test_array_iterators.py", "test_dyn_array.py", "test_optional.py", "test_unpack_sequence.py",
    "test_flow_control.py", "test_ssa.py", "test_blackscholes.py", "test_mandelbrot.py", "test_maxmin.py",
    "test_nan.py", "test_numbers.py", "test_python_int.py", "test_locals.py", "test_multi3.py",
    "test_interproc.py", "test_array_return.py", "test_chained_assign.py", "test_errormodels.py",
    "test_fastmath.py", "test_boundscheck.py", "test_vectorization_type_inference.py",
    "npyufunc/test_vectorize_decor.py", "npyufunc/test_gufunc.py", "npyufunc/test_ufunc.py",
    "npyufunc/test_dufunc.py", "npyufunc/test_errors.py", "npyufunc/test_update_inplace.py",
    "npyufunc/test_parallel_ufunc_issues.py", "npyufunc/test_parallel_low_work.py",
]

# ---- failure classes

# Numba names no shim can give ember: its compiler, typing and lowering internals, its runtime,
# its own test helpers built on them, and the compile results its dispatcher exposes.
INTERNAL = re.compile(
    r"^numba\.(core\.(ir|ir_utils|compiler|compiler_machinery|typed_passes|untyped_passes|typing|"
    r"typeinfer|registry|cpu|base|cgutils|rewrites|bytecode|controlflow|inline_closurecall|"
    r"annotations|datamodel|runtime|postproc|analysis|types\.(functions|misc|npytypes|containers|abstract|common|iterators|scalars|function_type)\b|consts|interpreter|dispatcher|"
    r"serialize|callconv|funcdesc|lowering|imputils|options|targetconfig|decorators|sigutils|"
    r"dataflow|byteflow|ssa|transforms|withcontexts|object_mode_passes|event|caching|environment|"
    r"target_extension|itanium_mangler|removerefctpass|llvm_bindings|unsafe|pythonapi|"
    r"inline_closurecall|typeconv|boxing)|parfors|np\.(ufunc|ufunc_db|unsafe|arrayobj|linalg|"
    r"npyimpl|npyfuncs)|misc|cpython|testing|_helperlib|_dispatcher|"
    r"tests\.support\.(no_pyobj_flags|force_pyobj_flags|nullary|IRPreservingTestPipeline|"
    r"forbid_codegen|capture_cache_log|override_env_config|create_temp_module|run_in_new_process|"
    r"redirect_c|strace|\w*NRT)|dispatcher\.(overloads|inspect_\w+|get_metadata|"
    r"nopython_signatures|_cache|get_call_template|typeof_pyval|get_annotation_info|"
    r"parallel_diagnostics|_compiler|targetdescr|library|fndesc|entry_point|get_overload|"
    r"_get_dispatcher\w*|_cache_hits|_cache_misses|stats|_can_compile|locals|_types_active_call)|"
    r"tests\.support\.TestCase\.(make_dummy_type|subprocess_test_runner|run_test_in_subprocess|"
    r"skip_if_no_external_compiler))")
# Numba's type objects (and sets of them) ember.types has not: the test needs Numba's type system.
TYPES = re.compile(r"^numba\.(core\.)?types\.")
CONFIG = re.compile(r"^numba\.core\.config\.")
EXTENDING = re.compile(r"^numba\.(core\.)?extending|^numba\.experimental\.structref|^numba\.(core\.)?"
                       r"(extending\.)?(overload\w*|register_jitable|intrinsic|generated_jit)\b")
MISSING = [
    ("notin", re.compile(r"NotInEmber: ([\w.]+)")),
    ("module", re.compile(r"module '(numba[\w.]*)' has no attribute '(\w+)'")),
    ("dispatcher", re.compile(r"'CPUDispatcher' object has no attribute '(\w+)'")),
    ("import", re.compile(r"cannot import name '(\w+)' from '(numba[\w.]*)'")),
    ("nomodule", re.compile(r"No module named '(numba[\w.]*)'")),
    ("testcase", re.compile(r"'Test\w*' object has no attribute '(\w+)'")),
    # Numba's type objects' methods (``types.Array(...).copy(layout='A')``)
    ("typeobj", re.compile(r"'(Array|UniTuple|Tuple|Record|Signature)' object has no attribute '(\w+)'")),
    # the NRT MemInfo behind an array Numba returns (``arr.base.refcount``)
    ("meminfo", re.compile(r"'ember\._ember\.ReturnedArray' object has no attribute '(\w+)'")),
    # an attribute of Numba's type objects (``types.int8.key``) that ember.types' have not
    ("typeattr", re.compile(r"type object '(u?int\d*|float\d+|complex\d+|bool_?|boolean|u?intp|u?intc|double|"
                            r"void|none|byte|char)' has no attribute '(\w+)'")),
]


def missing_numba_name(text: str) -> str | None:
    """The Numba name whose absence failed a test, as ``numba.x.y`` (``numba.dispatcher.y`` for a
    missing attribute of a compiled function), or None."""
    for kind, pattern in MISSING:
        m = pattern.search(text)
        if not m:
            continue
        if kind == "notin":
            return m.group(1).removesuffix(":")
        if kind == "module":
            return f"{m.group(1)}.{m.group(2)}"
        if kind == "dispatcher":
            if m.group(1).startswith("__"):  # a Python attribute ember's own code looked for
                continue
            return f"numba.dispatcher.{m.group(1)}"
        if kind == "typeobj":
            return f"numba.core.types.{m.group(1)}.{m.group(2)}"
        if kind == "meminfo":
            return f"numba.core.runtime.MemInfo.{m.group(1)}"
        if kind == "typeattr":
            return f"numba.core.types.{m.group(1)}.{m.group(2)}"
        if kind == "testcase":
            return f"numba.tests.support.TestCase.{m.group(1)}"
        if kind == "import":
            return f"{m.group(2)}.{m.group(1)}"
        return m.group(1)
    return None


def _construct(message: str) -> str:
    """The construct of a JitError message (after ``in function 'f':``), names of the test's own
    functions and numbers blanked, so that equal causes group together."""
    m = re.search(r"in (?:function|kernel) '[^']*': (.*)", message)
    text = m.group(1) if m else message
    text = re.sub(r"\b\d+\b", "N", text)
    return text.strip()[:140]


# Class -> does a test of this class count among the user-level tests (nopython functions called
# from Python: what ember claims)? The others need Numba's internals or object mode.
USER_LEVEL = {
    "Numba internals needed by the test (not ember-reachable)": False,
    "object mode (forceobj/looplift: ember is nopython only)": False,
    "Numba config setting ember does not read": False,
    "Numba type object ember.types has not (numba.core.types.X)": False,
    "Numba extension API ember lacks (overload, register_jitable ...)": True,
    "Numba user API ember lacks": True,
    "ember: argument type a compiled function does not take (str, list, None ...)": True,
    "ember: keyword arguments in a call from Python": True,
    "crash (process died)": True,
    "hang (timeout)": True,
    "ember JitError (construct not compiled)": True,
    "wrong result": True,
    "error message differs from Numba's": True,
    "expected exception not raised": True,
    "other exception": True,
    "other": True,
}


def classify(text: str) -> tuple[str, str]:
    """(class, detail) of a failure, from ``peer_suite.essentials`` (or a crash/hang record)."""
    if text.startswith("crash:"):
        return "crash (process died)", text.splitlines()[0]
    if "Failed: Timeout" in text or text.startswith("hang:"):
        return "hang (timeout)", ""
    if "forceobj=True (object mode)" in text or re.search(r"Unrecognized options: .*\b(forceobj|looplift)", text):
        return "object mode (forceobj/looplift: ember is nopython only)", ""
    if "pipeline_class is Numba's compiler internals" in text:
        return "Numba internals needed by the test (not ember-reachable)", "numba.core.compiler (pipeline_class=)"
    if re.search(r"guvectorize\(\) missing 1 required positional argument: 'signature'", text):
        return "Numba user API ember lacks", "guvectorize(layout) without type signatures (dynamic gufunc)"
    name = missing_numba_name(text)
    if name:
        if INTERNAL.search(name):
            return "Numba internals needed by the test (not ember-reachable)", name
        if TYPES.search(name):
            return "Numba type object ember.types has not (numba.core.types.X)", name
        if CONFIG.search(name):
            return "Numba config setting ember does not read", name
        if EXTENDING.search(name):
            return "Numba extension API ember lacks (overload, register_jitable ...)", name
        return "Numba user API ember lacks", name
    m = re.search(r"JitError: (.*)", text)
    if m and not re.search(r"not raised|DID NOT RAISE", text):
        return "ember JitError (construct not compiled)", _construct(m.group(1))
    m = re.search(r"functions compiled for the CPU take numbers, NumPy arrays and tuples of them, not (\w+)", text)
    if m:
        return "ember: argument type a compiled function does not take (str, list, None ...)", m.group(1)
    m = re.search(r"__call__\(\) got an unexpected keyword argument '(\w+)'", text)
    if m:
        return "ember: keyword arguments in a call from Python", ""
    if re.search(r"not raised|DID NOT RAISE", text):
        return "expected exception not raised", ""
    if re.search(r"not found in|does not match|Regex didn't match|not in '|^assert .* in str\(|"
                 r"AssertionError: '[^'\n]*' != [\"']", text, re.M):
        return "error message differs from Numba's", ""
    if re.search(r"when comparing|Not equal to tolerance|Arrays are not (almost )?equal|Mismatch|"
                 r"Type Family mismatch|different (strides|shapes|mutability|number of dim)|"
                 r"AssertionError: .* != |AssertionError: (False|True) is not (true|false)|"
                 r"Lists differ|Tuples differ|not almost equal|dtype\(.*\) != dtype", text):
        return "wrong result", ""
    m = re.search(r"^E\s+(\w+(?:Error|Exception)): (.*)$", text, re.M)
    if m:
        return "other exception", f"{m.group(1)}: {m.group(2)[:120]}"
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return "other", lines[0][:160] if lines else "?"


# ---- the suite


class NumbaCpuSuite(peer_suite.ChunkedSuite):
    name = "numba_cpu_suite"
    src = "/work/peers/numba-cpu"
    src_help = "the folder holding Numba's numba/tests"
    tests = TESTS
    folders = FILES
    folders_help = "comma-separated test files of numba/tests (npyufunc/test_x.py for the subfolder)"
    sample = 150
    sample_help = "node ids per file (seeded; 0: all)"
    all_help = "run every collected test"
    timeout = 60

    def layout(self, src: Path, out: Path) -> tuple[Path, Path]:
        """OUT/tree/numba/tests -> Numba's tests, so that pytest names the test modules
        ``numba.tests.<module>`` as Numba does (the tree's empty ``numba/__init__.py`` is never
        imported: the plugin imports the shim's ``numba`` first). The runs start in OUT, not in
        the tree: ``python -m`` puts the working directory first on ``sys.path``."""
        tree = out / "tree"
        (tree / "numba").mkdir(parents=True, exist_ok=True)
        (tree / "numba" / "__init__.py").touch()
        link = tree / TESTS
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(src / "numba" / "tests", target_is_directory=True)
        (out / "npyufunc").mkdir(exist_ok=True)
        return tree, out

    def environment(self, env: dict, src: Path, rootdir: Path) -> None:
        env["NUMBA_CPU_SUITE_TREE"] = str(rootdir)
        # Numba's @needs_subprocess tests (all of test_parfors) run only in a subprocess that a
        # runner test starts with SUBPROC_TEST=1: here they run directly (the runners skip).
        env["SUBPROC_TEST"] = "1"

    def sample_size(self, args: argparse.Namespace) -> int | None:
        return None if args.all or not args.sample else args.sample

    def folder_meta(self, src: Path, folder: str) -> dict:
        """Whether the file imports in strict mode (every Numba name ember lacks missing at
        import, as the file's imports need it), and why not."""
        proc = subprocess.run(self.pytest_cmd("--collect-only", "-q", self.path(f"{TESTS}/{folder}")),
                              cwd=self.cwd, env={**self.env, "NUMBA_CPU_SUITE_STRICT": "1"},
                              capture_output=True, text=True)
        reason = [ln[4:].strip() for ln in proc.stdout.splitlines() if ln.startswith("E   ")]
        return {"strict_import": "ok" if proc.returncode in (0, 5) and not reason
                else (reason[-1] if reason else f"pytest exit {proc.returncode}")}

    # ---- running, with crashes and hangs isolated

    def run_folder(self, folder: str, ids: list[str], out: Path, timeout: int | None,
                   chunk: int) -> list[str]:
        notes = []
        suite = ET.Element("testsuite", name=folder)
        for start in range(0, len(ids), chunk):
            cases = self.run_chunk(folder, ids[start:start + chunk], out, timeout, notes, start // chunk)
            suite.extend(cases)
            ET.ElementTree(suite).write(out / f"{folder}.xml", encoding="unicode")
        return notes

    def run_chunk(self, folder, part, out, timeout, notes, n) -> list[ET.Element]:
        """Runs ``part`` in one pytest process; if that process dies or stops making progress,
        records the test it was running as a crash or a hang and runs the rest again."""
        cases: list[ET.Element] = []
        remaining = list(part)
        stall = (timeout or 120) + 60  # no test started or ended for this long: a hang
        while remaining:
            xml, chosen, progress = (out / f"{folder}.part{n}.{s}" for s in ("xml", "json", "progress"))
            for f in (xml, progress):
                f.unlink(missing_ok=True)
            chosen.write_text(json.dumps(remaining))
            modules = sorted({self.path(node.split("::", 1)[0]) for node in remaining})
            args = [f"--junitxml={xml}", "-q"]
            if timeout:
                args += [f"--timeout={timeout}", "--timeout-method=signal"]
            env = {**self.env, f"{self.prefix}_IDS": str(chosen), f"{self.prefix}_PROGRESS": str(progress)}
            with open(out / f"{folder}.log", "a") as log:
                proc = subprocess.Popen(self.pytest_cmd(*args, *modules), cwd=self.cwd, env=env, stdout=log,
                                        stderr=subprocess.STDOUT, start_new_session=True)
                last, hung = time.monotonic(), False
                while proc.poll() is None:
                    time.sleep(1)
                    stamp = progress.stat().st_mtime if progress.exists() else None
                    if stamp is not None and time.time() - stamp < 2:
                        last = time.monotonic()
                    if time.monotonic() - last > stall:
                        os.killpg(proc.pid, signal.SIGKILL)
                        proc.wait()
                        hung = True
            chosen.unlink()
            ran = progress.read_text().splitlines() if progress.exists() else []
            progress.unlink(missing_ok=True)
            if xml.exists():
                found = list(ET.parse(xml).getroot().iter("testcase"))
                cases.extend(found)
                xml.unlink()
                if len({_node(c) for c in found}) < len(remaining):
                    notes.append(f"chunk {n}: {len(remaining)} ids chosen, fewer in the XML")
                break
            started, ended = [], set()
            for line in ran:
                word, node = line.split(" ", 1)
                (started.append if word == "start" else ended.add)(node)
            culprit = next((s for s in reversed(started) if s not in ended), None)
            if culprit is None or culprit not in remaining:
                notes.append(f"chunk {n} ({len(remaining)} tests): process exited {proc.returncode} "
                             "before running a test")
                break
            what = (f"hang: no progress for {stall}s, process killed" if hung
                    else f"crash: process died (exit {proc.returncode})")
            notes.append(f"{culprit}: {what}")
            cases.append(_synthetic_case(culprit, what))
            remaining.remove(culprit)
        return cases

    # ---- the report

    def report(self, out: Path, meta: dict) -> None:
        report(out, meta)


def _node(case: ET.Element) -> str:
    return f"{case.get('classname')}::{case.get('name')}"


def _synthetic_case(node: str, what: str) -> ET.Element:
    path, _, rest = node.partition("::")
    cls = path.removesuffix(".py").replace("/", ".")
    parts = rest.split("::")
    classname = ".".join([cls, *parts[:-1]])
    case = ET.Element("testcase", classname=classname, name=parts[-1], time="0")
    ET.SubElement(case, "error", message=what).text = what
    return case


def outcomes(xml: Path) -> dict[str, dict]:
    """Per test (subtests folded in: a test passed only if none of its cases failed): state
    (passed/failed/skipped), the failure's text, and whether ember raised a JitError in it."""
    tests: dict[str, dict] = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        key = _node(case)
        outcome = next((c for c in case if c.tag in ("failure", "error", "skipped")), None)
        state = ("passed" if outcome is None else "skipped" if outcome.tag == "skipped"
                 else "failed")
        entry = tests.setdefault(key, {"state": state, "text": "", "kind": "", "jit_error": ""})
        if state == "failed" and entry["state"] != "failed" or (state == "failed" and not entry["text"]):
            entry.update(state="failed", text=peer_suite.essentials(outcome), kind=outcome.tag)
        elif entry["state"] == "skipped" and state == "passed":
            entry["state"] = "passed"
        for prop in case.iter("property"):
            if prop.get("name") == "jit_error":
                entry["jit_error"] = prop.get("value") or "?"
    return tests


def report(out: Path, meta: dict) -> None:
    classes = collections.Counter()
    details = collections.defaultdict(collections.Counter)
    examples = collections.defaultdict(list)
    rows = []
    totals = collections.Counter()
    print(f"{'file':38} {'collected':>9} {'ran':>5} {'passed':>6} {'failed':>6} {'errors':>6} {'skipped':>7} "
          f"{'pass%':>6} {'user%':>13} {'import':>7}")
    for folder, info in meta.items():
        xml = out / f"{folder}.xml"
        tests = outcomes(xml) if xml.exists() else {}
        c = collections.Counter()
        user_ran = 0
        for node, t in tests.items():
            if t["state"] == "passed":
                c["passed"] += 1
                user_ran += 1
                if t["jit_error"]:
                    c["passed_with_jit_error"] += 1
                continue
            if t["state"] == "skipped":
                c["skipped"] += 1
                continue
            c["failure" if t["kind"] == "failure" else "error"] += 1
            cls, detail = classify(t["text"])
            classes[cls] += 1
            details[cls][detail] += 1
            if len(examples[cls]) < 12:
                examples[cls].append(peer_suite.example(node, t["text"]))
            if USER_LEVEL[cls]:
                user_ran += 1
        ran = c["passed"] + c["failure"] + c["error"]
        strict = info.get("strict_import", "?")
        imports = ("FAILS" if info.get("collection_errors") else "ok" if strict == "ok" else "strict")
        rate = f"{100 * c['passed'] / ran:5.1f}%" if ran else "   -  "
        user = f"{c['passed']}/{user_ran} {100 * c['passed'] / user_ran:3.0f}%" if user_ran else "-"
        print(f"{folder:38} {info['collected']:>9} {ran:>5} {c['passed']:>6} {c['failure']:>6} {c['error']:>6} "
              f"{c['skipped']:>7} {rate:>6} {user:>13} {imports:>7}")
        rows.append((folder, info, c, ran, user_ran, strict))
        totals.update(c)
        totals["ran"] += ran
        totals["user_ran"] += user_ran
        totals["collected"] += info["collected"]
        if strict != "ok":
            totals["strict_fail_files"] += 1
        else:
            totals["strict_passed"] += c["passed"]
            totals["strict_ran"] += ran
    ran = totals["ran"]
    print(f"{'TOTAL':38} {totals['collected']:>9} {ran:>5} {totals['passed']:>6} {totals['failure']:>6} "
          f"{totals['error']:>6} {totals['skipped']:>7} "
          f"{100 * totals['passed'] / max(ran, 1):5.1f}% "
          f"{totals['passed']}/{totals['user_ran']} {100 * totals['passed'] / max(totals['user_ran'], 1):3.0f}%")
    print("\n(ran = passed + failed + errors, sampled tests only, skipped excluded; a test with subtests "
          "counts once.\n pass% = passed / ran. user% = passed / the tests that ran and did not fail for "
          "Numba's internals,\n object mode or a Numba config setting: the tests that call nopython "
          "functions and compare with Python.\n import: ok = the file imports even when every Numba name ember "
          "lacks is missing at import (strict mode);\n strict = it imports only with placeholders for those names "
          "(in strict counting all its tests fail);\n FAILS = it does not import at all (its tests are not "
          "collected).)")
    print(f"\npassed while ember raised a JitError in the test (a compile-time rejection was what the test "
          f"asserted): {totals['passed_with_jit_error']}")
    print(f"strict counting (files that fail to import count 0): {totals['strict_passed']}/{ran} = "
          f"{100 * totals['strict_passed'] / max(ran, 1):.1f}% of the tests run; "
          f"{totals['strict_fail_files']} of {len(rows)} files fail to import in strict mode")
    print("\nfiles that fail to import in strict mode, and why:")
    for folder, _info, *_, strict in rows:
        if strict != "ok":
            print(f"  {folder:38} {strict[:150]}")
    for _folder, info, *_ in rows:
        for line in info.get("collection_errors", []):
            print(f"  does not import even with placeholders: {line[:200]}")
    notes = [(f, n) for f, info, *_ in rows for n in info.get("notes", [])]
    if notes:
        print("\nnotes (crashes, hangs, chunks cut short):")
        for folder, note in notes:
            print(f"  {folder}: {note[:220]}")
    print("\nfailure classes (count):")
    for cls, n in classes.most_common():
        print(f"  {n:5}  {cls}{'' if USER_LEVEL[cls] else '   [not user-level]'}")
    for cls, counter in sorted(details.items(), key=lambda kv: -classes[kv[0]]):
        shown = [(d, n) for d, n in counter.most_common(30) if d]
        if shown:
            print(f"\n{cls}: top details")
            for d, n in shown:
                print(f"  {n:5}  {d}")
    for cls in classes:
        print(f"\nexamples of {cls}:")
        for line in examples[cls]:
            print(f"  {line[:330]}")


if __name__ == "__main__":
    NumbaCpuSuite().main(__doc__)
