"""The groups of the suite. Each group is one module of CUDA C (its `PRELUDE`, then every case's
source), built once: PoCL spends about a second on each program it builds."""

from __future__ import annotations

import importlib

NAMES = ("elementwise", "mathlib", "shared_memory", "atomics", "types", "templates", "algorithms", "half")


def load(name: str):
    return importlib.import_module(f"{__package__}.{name}")


def source(group) -> str:
    return "\n".join([getattr(group, "PRELUDE", "")] + [c.source for c in group.CASES])


def name_expressions(group) -> list[str]:
    """Template instances, and kernels with C++ linkage (named through NVRTC's lowered names)."""
    return [c.name for c in group.CASES if "<" in c.name or 'extern "C"' not in c.source]
