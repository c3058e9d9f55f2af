"""``ember bench``: the benchmark suite of BENCHMARKS.md, ember side by side with every peer that
is installed (CuPy, numba-cuda, PyTorch, PyOpenCL, NumPy).

On a CUDA device it runs the GPU rows (arrays, kernels from strings, kernels from Python,
transfers); on a CPU device the CPU rows. It prints one table (ember, each peer, the ratio to
the best peer, the target) and with ``--out DIR`` writes it as Markdown plus a PNG bar chart of
the ratios. ``--quick`` uses small sizes (under a minute). A benchmark never fails: a row a
library cannot run reads "n/a" with the reason.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
import traceback

import numpy

from . import arrays, cpu, cpu_arrays, cuda_c, fft, kernels, linalg, numpy_api, pyopencl_face, random, sorting, transfer
from .peers import find_peers, load_ember
from .report import chart, judge, markdown, text_table

GPU_GROUPS = {"arrays": arrays.rows, "numpy": numpy_api.rows, "sorting": sorting.rows, "random": random.rows,
              "linalg": linalg.rows, "fft": fft.rows, "strings": kernels.string_rows,
              "python": kernels.python_rows, "cuda-c": cuda_c.rows, "transfers": transfer.rows,
              "pyopencl": pyopencl_face.rows}
CPU_GROUPS = {"cpu": cpu.rows, "cpu-arrays": cpu_arrays.rows, "cpu-sorting": sorting.cpu_rows,
              "cpu-pyopencl": pyopencl_face.rows, "cpu-cuda-c": cuda_c.rows}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ember bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="small sizes and few repeats (under a minute)")
    p.add_argument("--out", metavar="DIR", help="write bench.md and bench.png into DIR")
    p.add_argument("--only", metavar="GROUP", action="append",
                   help=f"run only these groups (GPU: {', '.join(GPU_GROUPS)}; CPU: {', '.join(CPU_GROUPS)})")
    return p


class Progress:
    """One status line per step; on a terminal each step overwrites the last."""

    def __init__(self, stream=sys.stderr):
        self.stream, self.tty, self.t0, self.width = stream, stream.isatty(), time.perf_counter(), 0

    def __call__(self, what: str) -> None:
        line = f"[{time.perf_counter() - self.t0:6.1f} s] {what}"
        if self.tty:
            self.stream.write("\r" + line.ljust(self.width))
            self.width = len(line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def done(self) -> None:
        if self.tty:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


def main(argv=None) -> int:
    opts = parser().parse_args(argv)
    ember = load_ember()
    is_cpu = ember.events is None
    groups = CPU_GROUPS if is_cpu else GPU_GROUPS
    chosen = opts.only or list(groups)
    unknown = [g for g in chosen if g not in groups]
    if unknown:
        print(f"ember bench: unknown group(s) {unknown} on this {'CPU' if is_cpu else 'GPU'} device; "
              f"choose from {list(groups)}", file=sys.stderr)
        return 2
    names = ("PyOpenCL", "NumPy", "numba-cuda") if is_cpu else ("CuPy", "PyTorch", "numba-cuda", "PyOpenCL")
    found, missing = find_peers(names)
    if is_cpu:
        found.pop("numba-cuda", None)  # on the CPU Numba appears as its simulator, run in a subprocess
        missing.pop("numba-cuda", None)
    libs = {"ember": ember, **found}
    header = describe(ember, found, missing, opts.quick)
    print("\n".join(header), flush=True)
    progress = Progress()
    rows, failed = [], []
    for g in chosen:
        try:
            rows.extend(groups[g](libs, opts.quick, progress))
        except Exception:  # a bug in one group must not lose the others' figures
            print(f"\nember bench: the {g} group stopped:\n{traceback.format_exc()}", file=sys.stderr)
            failed.append(g)
    progress.done()
    judge(rows)
    print()
    print(text_table(rows))
    if opts.out:
        os.makedirs(opts.out, exist_ok=True)
        md = os.path.join(opts.out, "bench.md")
        png = os.path.join(opts.out, "bench.png")
        with open(md, "w") as f:
            f.write(markdown(rows, ["# ember bench", "", *(f"- {h}" for h in header)]))
        why = chart(rows, png, header[0])
        print(f"\nwrote {md}" + (f" and {png}" if why is None else f" ({why})"))
    return 1 if failed else 0


def describe(ember, found: dict, missing: dict, quick: bool) -> list[str]:
    dev = ember.xp.Device(0)
    lines = [f"ember {ember.version} on {dev.name} ({ember.xp.backend()}), "
             f"{datetime.date.today().isoformat()}{', --quick sizes' if quick else ''}",
             f"Python {platform.python_version()}, NumPy {numpy.__version__}",
             "peers: " + (", ".join(f"{lib.name} {lib.version}" for lib in found.values()) or "none installed")]
    if missing:
        lines.append("not compared: " + "; ".join(f"{k} ({v})" for k, v in missing.items()))
    return lines

