"""Run the Array API standard's test suite (data-apis/array-api-tests) against ember.

Usage (see README.md)::

    .venv/bin/python tools/array_api_suite/run.py [--files a,b] [--max-examples N] [--out DIR]
    .venv/bin/python tools/array_api_suite/run.py --report-only [--out DIR]
    .venv/bin/python tools/array_api_suite/run.py --names

One pytest process per test file of ``array_api_tests/`` (``ARRAY_API_TESTS_MODULE=ember``),
each with a per-test timeout (pytest-timeout, when importable) and an overall timeout, writing
JUnit XML to ``OUT/<file>.xml``. Then print pass rates per file, the failure causes (exception
type + first line of the message, numbers blanked) and the ember names the failures ask for.
``--names`` compares the spec's names (the ``array_api_stubs`` of the suite's ``array-api``
submodule) with ``dir(ember)``, ``ember.linalg``, ``ember.fft`` and the ndarray type.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import json
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/, for peer_suite
import peer_suite  # noqa: E402

DEFAULT_SRC = "/work/peers/array-api-tests"
DEFAULT_LIBS = "/work/peers/pylibs"  # hypothesis extras: ndindex, pytest-json-report, ...
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128"]


def pytest_args(args, has_timeout: bool) -> list[str]:
    """Options shared by every file's run."""
    out = ["-p", "no:cacheprovider", "-q", "-rN", "-W", "ignore::UserWarning",
           f"--max-examples={args.max_examples}"]
    if not args.random:
        out.append("--derandomize")  # same examples every run
    if not args.deadline:
        out.append("--disable-deadline")  # timings on a shared CPU OpenCL device are noise
    disabled = [e for e in ("fft", "linalg") if e not in args.extensions.split(",")]
    if disabled:
        out += ["--disable-extension", *disabled]
    if args.disable_dds:
        out.append("--disable-data-dependent-shapes")
    if args.xfails_file:
        out += ["--xfails-file", args.xfails_file]
    if args.skips_file:
        out += ["--skips-file", args.skips_file]
    if has_timeout and args.timeout:
        out += [f"--timeout={args.timeout}", "--timeout-method=signal"]
    return out


def run_file(args, name: str, common: list[str], env: dict, out: Path) -> dict:
    xml, log = out / f"{name}.xml", out / f"{name}.log"
    xml.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "pytest", *common, f"--junitxml={xml}",
           f"array_api_tests/{name}.py"]
    start, note = time.time(), ""
    with open(log, "w") as fh:
        fh.write(" ".join(cmd) + "\n")
        fh.flush()
        try:
            subprocess.run(cmd, cwd=args.src, env=env, stdout=fh, stderr=subprocess.STDOUT,
                           timeout=args.file_timeout)
        except subprocess.TimeoutExpired:
            note = f"killed after {args.file_timeout}s"
    if not xml.exists():
        note = note or "wrote no XML"
    return {"seconds": round(time.time() - start), "note": note}


# ---- reporting -------------------------------------------------------------------------------

# The names a failure asks for: ember's own AttributeErrors and the suite's phrasings.
MISSING = [
    (re.compile(r"module '(ember(?:\.\w+)*)' has no attribute '(\w+)'"), "{0}.{1}"),
    (re.compile(r"'ndarray' object has no attribute '(\w+)'"), "ndarray.{0}"),
    (re.compile(r"(\w+) is not defined in ember"), "ember.{0}"),
    (re.compile(r"ember is missing the (\w+) extension function (\w+)\(\)"), "ember.{0}.{1}"),
    (re.compile(r"ember is missing the \w+ function (\w+)\(\)"), "ember.{0}"),
    (re.compile(r"array object is missing the (?:attribute|method) (\w+)"), "ndarray.{0}"),
    (re.compile(r"(\w+) not found in array module"), "ember.{0}"),
    (re.compile(r"(\w+) not found in (\w+) extension"), "ember.{1}.{0}"),
    (re.compile(r"(\w+) not found in array object"), "ndarray.{0}"),
]


def missing_name(text: str) -> str:
    for pattern, fmt in MISSING:
        m = pattern.search(text)
        if m:
            return fmt.format(*m.groups())
    return ""


# Messages that differ only by a name group under one cause; the names are listed with it.
GENERIC = [
    (re.compile(r"\b\w+ is not defined in ember"), "X is not defined in ember"),
    (re.compile(r"missing the (\w+) extension function \w+\(\)"), r"missing the \1 extension function X()"),
    (re.compile(r"missing the (\w+) function \w+\(\)"), r"missing the \1 function X()"),
    (re.compile(r"missing the (attribute|method) \w+"), r"missing the \1 X"),
    (re.compile(r"\b\w+ not found in (array module|array object|\w+ extension)"), r"X not found in \1"),
    (re.compile(r"module '(ember[\w.]*)' has no attribute '\w+'"), r"module '\1' has no attribute 'X'"),
    (re.compile(r"Argument '\w+' missing from signature"), "Argument 'X' missing from signature"),
    (re.compile(r"Expected argument '\w+' to be named '\w+'"), "Expected argument 'X' to be named 'Y'"),
    # test_special_cases: "out=nan, but should be +infinity [floor_divide()]"
    (re.compile(r"^AssertionError: (out|x1)=.*, but should be .*(\[\w+\(\)\])$"),
     r"AssertionError: special-case value wrong \2"),
]


def cause(outcome: ET.Element) -> tuple[str, str]:
    """(cause, detail): 'ExceptionType: first line of the message', numbers and array reprs
    blanked; cause also has the names of GENERIC blanked, detail keeps them."""
    msg = (outcome.get("message") or "").strip()
    text = outcome.text or ""
    if not msg or msg == "collection failure":
        errs = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
        msg = (errs[-1] if msg else errs[0]) if errs else msg or "?"
    # Hypothesis groups several distinct failures; name the first inner one.
    if msg.startswith(("ExceptionGroup", "hypothesis.errors.FlakyFailure", "FlakyFailure")):
        inner = re.search(r"^E\s+\|\s+([\w.]+(?:Error|Exception|Failure)\b.*)$", text, re.M)
        msg = f"{msg.split(':')[0]} [{inner.group(1)}]" if inner else msg
    line = msg.splitlines()[0]
    if re.fullmatch(r"(AssertionError: )?assert \w+", line):  # bare "assert False": add the why
        why = re.search(r"^\s*\+\s+where (.*)$", msg, re.M)
        line += f" ({why.group(1)[:100]})" if why else ""
    line = re.sub(r"(?<!\w)array\(.*?\)(, dtype=\w+\))?", "array(...)", line)
    line = re.sub(r"(?<![\w.])[-+]?\d+(\.\d+)?(e[-+]?\d+)?(?![\w])", "N", line)
    line = re.sub(r"\(N(, N)+,?\)|\(N,\)", "(shape)", line)[:170]
    key = line
    for pattern, repl in GENERIC:
        key = pattern.sub(repl, key)
    return key, line


def short(detail: str, key: str) -> str:
    """A variant of a GENERIC cause by its names alone ('cholesky', 'device')."""
    if "X" not in key:
        return detail
    return missing_name(detail).split(".")[-1] or ",".join(re.findall(r"'(\w+)'", detail)) or detail


def report(out: Path, meta: dict) -> None:
    causes, missing = collections.Counter(), collections.Counter()
    details = collections.defaultdict(collections.Counter)
    example = {}
    totals = collections.Counter()
    print(f"{'file':44} {'tests':>5} {'passed':>6} {'failed':>6} {'errors':>6} {'skipped':>7} "
          f"{'pass%':>6} {'secs':>5}")
    for name, info in meta.items():
        xml = out / f"{name}.xml"
        counts = collections.Counter()
        for node, outcome in peer_suite.failures(xml, counts) if xml.exists() else ():
            full = f"{outcome.get('message') or ''}\n{outcome.text or ''}"
            key, detail = cause(outcome)
            causes[key] += 1
            details[key][detail] += 1
            example.setdefault(key, node)
            gone = missing_name(full)
            if gone:
                missing[gone] += 1
                example.setdefault(gone, node)
        totals.update(counts)
        ran = counts["passed"] + counts["failure"] + counts["error"]
        rate = f"{100 * counts['passed'] / ran:5.1f}%" if ran else "    -"
        print(f"{name:44} {sum(counts.values()):>5} {counts['passed']:>6} {counts['failure']:>6} "
              f"{counts['error']:>6} {counts['skipped']:>7} {rate:>6} {info['seconds']:>5}"
              + (f"  ({info['note']})" if info.get("note") else ""))
    ran = totals["passed"] + totals["failure"] + totals["error"]
    print(f"{'TOTAL':44} {sum(totals.values()):>5} {totals['passed']:>6} {totals['failure']:>6} "
          f"{totals['error']:>6} {totals['skipped']:>7} "
          f"{100 * totals['passed'] / max(ran, 1):5.1f}%")
    print("pass% = passed / (passed + failed + errors); skipped (incl. xfail) apart")
    print("\nfailure causes (count, cause, first test):")
    for key, n in causes.most_common(40):
        print(f"  {n:4}  {key}\n          e.g. {example[key]}")
        if len(details[key]) > 1:
            shown = [f"{short(d, key)} ({c})" for d, c in details[key].most_common(8)]
            print("          variants: " + "; ".join(shown)
                  + (f"; ... {len(details[key]) - 8} more" if len(details[key]) > 8 else ""))
    print("\nmissing names asked for by failures (count, name, first test):")
    for key, n in missing.most_common(60):
        print(f"  {n:4}  {key:36} e.g. {example[key]}")


# ---- names -----------------------------------------------------------------------------------

def spec_names(src: Path, version: str) -> dict[str, list[str]]:
    """The spec's names per namespace, from the suite's array_api_stubs."""
    sys.path.insert(0, str(src / "array-api" / "src"))
    pkg = "array_api_stubs._" + version.replace(".", "_")
    mod = lambda m: importlib.import_module(f"{pkg}.{m}")  # noqa: E731
    stubs_dir = src / "array-api" / "src" / "array_api_stubs" / ("_" + version.replace(".", "_"))
    main = list(DTYPES) + list(mod("constants").__all__) + ["__array_namespace_info__"]
    for path in sorted(stubs_dir.glob("*_functions.py")):
        main += mod(path.stem).__all__
    array = mod("array_object").array
    attrs = [n for n, v in vars(array).items() if not n.startswith("_abc") and n != "__init__"
             and (callable(v) or isinstance(v, property))]
    info = [n for n in mod("info").__all__ if n != "__array_namespace_info__"]
    return {"ember": main, "ember.linalg": list(mod("linalg").__all__),
            "ember.fft": list(mod("fft").__all__), "ndarray": attrs, "info": info}


def names(src: Path, version: str, module: str) -> None:
    spec = spec_names(src, version)
    xp = importlib.import_module(module)
    arr = xp.ones((1, 1))
    have = {"ember": xp, "ember.linalg": getattr(xp, "linalg", None),
            "ember.fft": getattr(xp, "fft", None), "ndarray": arr}
    try:
        have["info"] = xp.__array_namespace_info__()
    except Exception:  # noqa: BLE001
        have["info"] = None
    print(f"Array API {version} names missing from {module}:")
    for space, wanted in spec.items():
        obj = have[space]
        gone = [n for n in wanted if obj is None or not hasattr(obj, n)]
        state = "" if obj is not None else "  (namespace absent)"
        print(f"\n{space}: {len(wanted) - len(gone)}/{len(wanted)} present{state}")
        if gone:
            print("  missing: " + ", ".join(gone))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", default=os.environ.get("ARRAY_API_SUITE_SRC", DEFAULT_SRC),
                        help="array-api-tests tree (with array-api/ filled in)")
    parser.add_argument("--libs", default=DEFAULT_LIBS, help="added to PYTHONPATH")
    parser.add_argument("--module", default="ember")
    parser.add_argument("--version", default="2024.12", help="ARRAY_API_TESTS_VERSION")
    parser.add_argument("--files", default="", help="comma-separated test files, e.g. "
                        "test_creation_functions (default: all)")
    parser.add_argument("--max-examples", type=int, default=20)
    parser.add_argument("--random", action="store_true", help="no --derandomize")
    parser.add_argument("--deadline", action="store_true",
                        help="keep Hypothesis' 800 ms deadline per example")
    parser.add_argument("--extensions", default="", help="enable: linalg,fft (default none)")
    parser.add_argument("--disable-dds", action="store_true",
                        help="skip data-dependent-shape functions (unique_*, nonzero, ...)")
    parser.add_argument("--xfails-file")
    parser.add_argument("--skips-file")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per test (0: none)")
    parser.add_argument("--file-timeout", type=int, default=1200, help="seconds per file")
    parser.add_argument("--out", default="/tmp/array_api_suite")
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--names", action="store_true", help="only list missing spec names")
    args = parser.parse_args()

    src, out = Path(args.src).resolve(), Path(args.out)
    args.src = src
    if args.names:
        names(src, args.version, args.module)
        return
    out.mkdir(parents=True, exist_ok=True)
    meta_file = out / "meta.json"
    meta = json.loads(meta_file.read_text()) if meta_file.exists() else {}
    if not args.report_only:
        env = peer_suite.pytest_env(args.libs, ARRAY_API_TESTS_MODULE=args.module,
                                    ARRAY_API_TESTS_VERSION=args.version)
        common = pytest_args(args, peer_suite.has_pytest_timeout(env, "--file-timeout"))
        files = ([f.removesuffix(".py") for f in args.files.split(",")] if args.files else
                 sorted(p.stem for p in (src / "array_api_tests").glob("test_*.py")))
        for name in files:
            print(f"{name} ...", end=" ", flush=True)
            meta[name] = run_file(args, name, common, env, out)
            meta_file.write_text(json.dumps(meta, indent=1))
            print(f"{meta[name]['seconds']}s {meta[name]['note']}", flush=True)
    report(out, dict(sorted(meta.items())))


if __name__ == "__main__":
    main()
