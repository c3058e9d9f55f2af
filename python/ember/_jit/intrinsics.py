"""What kernels written in Python call: ``cuda.grid``, ``cuda.threadIdx.x``,
``cuda.shared.array``, ``cuda.atomic.add`` and the rest of Numba's device API. Each is a
``DeviceOnly`` placeholder the compiler recognises; called from host code it raises
``TypeError``.
"""

from __future__ import annotations

from .. import _ember
from .._intrinsic import DeviceOnly


class Namespace:
    """A group of intrinsics (``cuda.threadIdx``, ``cuda.atomic``): attributes only."""

    def __init__(self, name: str, members):
        self._name = name
        for m in members:
            setattr(self, m, DeviceOnly(f"{name}.{m}"))

    def __repr__(self):
        return f"<device-only namespace {self._name}>"


def _placeholders() -> list[str]:
    """One placeholder per row of ember-jit's intrinsic registry (``cuda.random.*`` live in
    ``ember.cuda.random``), grouped into namespaces by their dotted names."""
    groups: dict[str, list[str]] = {}
    for name in _ember.jit_intrinsics():
        _, first, *rest = name.split(".")
        if first == "random":
            continue
        if rest:
            groups.setdefault(first, []).append(rest[0])
        else:
            globals()[first] = DeviceOnly(name)
            groups.setdefault(first, [])
    for group, members in groups.items():
        if members:
            globals()[group] = Namespace(f"cuda.{group}", members)
    return sorted(groups)


__all__ = _placeholders()
