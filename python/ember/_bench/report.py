"""The results of ``ember bench``: rows, the ratio to the best peer, the printed table, the
Markdown file and the PNG bar chart of the ratios."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

# cuSOLVER / cuFFT: the vendor library through ember on CUDA, beside ember's own kernels on OpenCL.
# The CUDA C rows: NVRTC's cubin on CUDA and OpenCL C written by hand, beside ember's translation.
LIB_ORDER = ["ember", "CuPy", "PyTorch", "numba-cuda", "Numba simulator", "PyOpenCL", "NumPy", "cuSOLVER", "cuFFT",
             "NVRTC cubin", "OpenCL C by hand"]


@dataclass
class Row:
    group: str
    workload: str
    unit: str
    higher_is_better: bool
    target: str = ""
    figures: dict = field(default_factory=dict)  # library -> number, or "n/a (why)"
    compare: bool = True  # False: a reference row (a ceiling, a floor) with no ratio
    key: str = ""  # a reference other rows' targets name ("floor", "copy")
    met: bool | None = None  # whether ember meets the target, once judged

    def value(self, lib: str):
        v = self.figures.get(lib)
        return v if isinstance(v, (int, float)) and math.isfinite(v) else None

    def best_peer(self) -> tuple[str, float] | None:
        peers = [(lib, self.value(lib)) for lib in self.figures if lib != "ember" and self.value(lib) is not None]
        if not peers or not self.compare:
            return None
        pick = max if self.higher_is_better else min
        return pick(peers, key=lambda p: p[1])

    def ratio(self) -> float | None:
        """ember's speed over the best peer's: above 1 means ember is ahead."""
        best, mine = self.best_peer(), self.value("ember")
        if best is None or mine is None or mine == 0 or best[1] == 0:
            return None
        return mine / best[1] if self.higher_is_better else best[1] / mine


def judge(rows: list[Row]) -> None:
    """Sets ``met`` on each row whose target can be read: "<= 250 ms", ">= best peer",
    ">= 0.97x best peer", ">= 2x NumPy", "<= floor + 1 µs", ">= 96% of the copy", ">= PyOpenCL on PoCL",
    ">= 10,000x faster than Numba's simulator". Unknown when a figure it needs is missing."""
    refs = {r.key: r.value("ember") for r in rows if r.key}
    for r in rows:
        r.met = _meets(r, refs)


def _meets(r: Row, refs: dict) -> bool | None:
    mine, t = r.value("ember"), r.target.replace(",", "")
    if mine is None or not t:
        return None
    le = t.startswith("<=")
    if m := re.match(r"[<>]= (?:([\d.]+)x )?best peer", t):
        ratio = r.ratio()
        return None if ratio is None else ratio >= float(m.group(1) or 1)
    if m := re.match(r">= ([\d.]+)x (NumPy|PyOpenCL|CuPy|PyTorch|NVRTC cubin|OpenCL C by hand)$", t):
        peer = r.value(m.group(2))
        if peer is None or mine == 0:
            return None
        return (peer / mine if not r.higher_is_better else mine / peer) >= float(m.group(1))
    if m := re.match(r">= ([\d.]+)x faster than", t):
        ratio = r.ratio()
        return None if ratio is None else ratio >= float(m.group(1))
    if m := re.match(r"[<>]= (\w+) \+ ([\d.]+)", t):
        base = refs.get(m.group(1))
        return None if base is None else mine <= base + float(m.group(2))
    if m := re.match(r">= ([\d.]+)% of the (\w+)", t):
        base = refs.get(m.group(2))
        return None if base is None else mine >= float(m.group(1)) / 100 * base
    if m := re.match(r"[<>]= ([\d.]+)", t):
        return mine <= float(m.group(1)) if le else mine >= float(m.group(1))
    if m := re.match(r"[<>]= (\S+)", t):
        peer = r.value(m.group(1))
        return None if peer is None else (mine <= peer if le else mine >= peer)
    return None


def fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    if abs(v) >= 100:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}" if abs(v) >= 0.1 else f"{v:.3g}"


def columns(rows: list[Row]) -> list[str]:
    seen = {lib for r in rows for lib in r.figures}
    return [lib for lib in LIB_ORDER if lib in seen]


def cells(row: Row, libs: list[str]) -> list[str]:
    best, ratio = row.best_peer(), row.ratio()
    met = {True: "met", False: "MISSED", None: ""}[row.met]
    return ([row.workload, row.unit] + [fmt(row.figures.get(lib)) for lib in libs]
            + [best[0] if best else "", f"{ratio:.2f}x" if ratio else "", row.target, met])


def markdown(rows: list[Row], header: list[str]) -> str:
    libs = columns(rows)
    head = ["workload", "unit", *libs, "best peer", "ember / best peer", "target", "ember"]
    align = ["---", "---"] + ["---:"] * (len(head) - 4) + ["---", "---"]
    out = [*header, "", "| " + " | ".join(head) + " |", "| " + " | ".join(align) + " |"]
    group = None
    for r in rows:
        if r.group != group:
            group = r.group
            out.append(f"| **{group}** |" + " |" * (len(head) - 1))
        out.append("| " + " | ".join(c.replace("|", "/") for c in cells(r, libs)) + " |")
    out += ["", "ember / best peer: ember's speed over the fastest peer's on that row (above 1: ember is ahead). "
            "n/a: the library cannot run that row here, with the reason."]
    missed = [r for r in rows if r.met is False]
    if missed:
        out += ["", "Targets ember misses in this run:", ""]
        out += [f"- {r.workload}: ember {fmt(r.value('ember'))} {r.unit}, target {r.target}"
                + (f" (best peer {r.best_peer()[0]} {fmt(r.best_peer()[1])} {r.unit})" if r.best_peer() else "")
                for r in missed]
    return "\n".join(out) + "\n"


def text_table(rows: list[Row]) -> str:
    """The table for a terminal: fixed-width columns, long n/a reasons cut short."""
    libs = columns(rows)
    head = ["workload", "unit", *libs, "best peer", "ratio", "target", "ember"]
    body = []
    for r in rows:
        c = cells(r, libs)
        body.append(c[:2] + [x if len(x) <= 40 else x[:37] + "..." for x in c[2:]])
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]
    line = "  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True))
    out = [line, "-" * len(line)]
    group = None
    for r, b in zip(rows, body, strict=True):
        if r.group != group:
            group = r.group
            out.append(f"[{group}]")
        out.append("  ".join(x.ljust(w) if i < 2 or i >= len(b) - 4 else x.rjust(w)
                             for i, (x, w) in enumerate(zip(b, widths, strict=True))))
    return "\n".join(out)


def chart(rows: list[Row], path: str, title: str) -> str | None:
    """A PNG bar chart of ember / best peer per row; returns why not when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install matplotlib) — no PNG written"
    ranked = [r for r in rows if r.ratio() is not None]
    if not ranked:
        return "no row has both ember and a peer — no PNG written"
    labels = [f"{r.workload} (vs {r.best_peer()[0]})" for r in ranked]
    ratios = [r.ratio() for r in ranked]
    fig, ax = plt.subplots(figsize=(10, 0.42 * len(ranked) + 1.4))
    colours = ["#2a9d8f" if x >= 1 else "#e76f51" for x in ratios]
    ax.barh(range(len(ranked)), ratios, color=colours)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(range(len(ranked)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("ember / best peer (speed ratio, log scale; right of 1 = ember ahead)")
    ax.set_title(title, fontsize=10)
    for i, x in enumerate(ratios):
        ax.text(x, i, f" {x:.2f}x", va="center", fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None
