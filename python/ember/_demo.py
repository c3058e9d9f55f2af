"""``ember demo``: runs the example programs on the default device, each in a fresh interpreter,
and prints per example whether its own check against NumPy passed, how long it took and on
which device. An example that cannot run here (PyTorch or CuPy not installed, zero-copy interop
without CUDA) prints ``SKIP: why`` and exits with status 77; the demo shows the reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

SKIP_STATUS = 77
TIMEOUT_S = 600

# The order a newcomer meets them: the three ways of working, then the rest.
ORDER = [
    "vector_add_numba", "vector_add_pycuda", "multiply_size_t_pycuda", "vector_add_pyopencl", "vectorize_expression",
    "matrix_add_2d",
    "matmul_shared", "heat_equation", "monte_carlo_option", "leaky_relu_elementwise", "piecewise_scale_rawmodule",
    "unrolled_scale_sourcemodule", "arrays_broadcast_mask", "interop_cupy_torch", "torch_autograd", "memory_pool",
]


def examples_dir(folder: str | None = None) -> Path:
    """The folder given, else the examples shipped inside the package (``examples/`` of a checkout)."""
    path = Path(folder) if folder else Path(__file__).resolve().parent / "examples"
    if not path.is_dir():
        raise FileNotFoundError(f"no examples folder at {path}; pass --dir to name one")
    return path


def programs(folder: Path, names: list[str] | None = None) -> list[Path]:
    found = sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))
    rank = {name: i for i, name in enumerate(ORDER)}
    found.sort(key=lambda p: (rank.get(p.stem, len(ORDER)), p.stem))
    if names:
        found = [p for p in found if any(n in p.stem for n in names)]
    return found


class Outcome:
    def __init__(self, status: str, seconds: float, summary: str, detail: str = ""):
        self.status, self.seconds, self.summary, self.detail = status, seconds, summary, detail


def run_one(path: Path) -> Outcome:
    """Runs one example in a fresh interpreter; its last line of output is its summary."""
    t0 = time.perf_counter()
    try:
        r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=TIMEOUT_S,
                           cwd=path.parent, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    except subprocess.TimeoutExpired:
        return Outcome("FAIL", time.perf_counter() - t0, f"did not finish within {TIMEOUT_S} s")
    seconds = time.perf_counter() - t0
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    last = lines[-1].strip() if lines else ""
    if r.returncode == SKIP_STATUS:
        return Outcome("skip", seconds, last.removeprefix("SKIP:").strip() or "skipped")
    if r.returncode != 0:
        err = [ln for ln in r.stderr.splitlines() if ln.strip()]
        why = err[-1].strip() if err else f"exit status {r.returncode}"
        return Outcome("FAIL", seconds, why, "\n".join(err[-12:]))
    return Outcome("ok", seconds, last)


def run(names: list[str] | None = None, folder: str | None = None) -> int:
    """Runs the demo; returns the number of failed examples."""
    import ember as em

    print(f"ember {em.__version__} demo")
    try:
        info = em.Device(0).attributes
        device = f"{info['name']} ({em.backend()})"
    except em.EmberError as e:
        print(f"  no device: {e}\n  run `ember info` to see what ember looked for")
        return 1
    try:
        found = programs(examples_dir(folder), names)
    except FileNotFoundError as e:
        print(f"  {e}")
        return 1
    if not found:
        print(f"  no example matches {names}")
        return 1
    print(f"  device: {device}\n  {len(found)} examples, each in a fresh Python process\n")
    tty = sys.stdout.isatty()
    counts = {"ok": 0, "skip": 0, "FAIL": 0}
    width = max(len(p.stem) for p in found)
    for i, path in enumerate(found, 1):
        head = f"[{i:2d}/{len(found)}] {path.stem.ljust(width)}"
        if tty:
            print(f"{head}  running...", end="\r", flush=True)
        out = run_one(path)
        counts[out.status] += 1
        print(f"{head}  {out.status.ljust(4)} {out.seconds * 1e3:8.0f} ms  {device}")
        print(f"        {out.summary}")
        if out.detail:
            print("\n".join("        | " + ln for ln in out.detail.splitlines()))
    print(f"\n{counts['ok']} passed, {counts['skip']} skipped, {counts['FAIL']} failed")
    return counts["FAIL"]
