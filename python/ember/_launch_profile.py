"""``ember.profiler.profile()``: every kernel launched inside the ``with`` block, timed on its
device, and a table of them by total device time.

While a profile is open each launch is issued at once between two events on its stream (CUDA
events; markers of OpenCL's profiling queues), so the table's times are the device's, launch
by launch; the profile itself costs two events a launch. Bytes are those of the arrays a launch
was given (each element once, broadcast axes once); kernels launched with raw pointers leave
them blank.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from . import _ember

__all__ = ["Launch", "Profile", "profile"]


@dataclass(frozen=True)
class Launch:
    """One launch: the kernel's name, its device, grid and block, the bytes of its arrays
    (``None`` where not known) and its device time in seconds."""

    kernel: str
    device: int
    grid: tuple
    block: tuple
    bytes: int | None
    seconds: float


@dataclass(frozen=True)
class KernelRow:
    """The launches of one kernel added up (a row of :meth:`Profile.table`)."""

    kernel: str
    launches: int
    seconds: float
    grid: str
    block: str
    bytes: int | None

    @property
    def bandwidth(self) -> float | None:
        """Bytes per second over the kernel's device time (``None`` without bytes)."""
        if self.bytes is None or self.seconds <= 0:
            return None
        return self.bytes / self.seconds


def _dims(d: tuple) -> str:
    if not any(d):
        return "-"  # an OpenCL launch that left the group size to the driver
    dims = list(d)
    while len(dims) > 1 and dims[-1] == 1:
        dims.pop()
    return "x".join(str(n) for n in dims)


def _shape(shapes: Counter) -> str:
    """The most frequent shape, and how many others the kernel was launched with."""
    (common, _), *others = shapes.most_common()
    return _dims(common) + (f" (+{len(others)} more)" if others else "")


class Profile:
    """What ``profile()`` gives: ``launches`` in order, ``kernels()`` added up by kernel, and
    ``table()`` to print."""

    def __init__(self):
        self.launches: list[Launch] = []
        self._mark: int | None = None

    def __enter__(self) -> Profile:
        if self._mark is not None:
            raise RuntimeError("this profile is already open: use a new ember.profiler.profile() to nest one")
        self.launches = []
        self._mark = _ember.profile_open()
        return self

    def __exit__(self, *exc) -> None:
        mark, self._mark = self._mark, None
        raw = _ember.profile_close(mark)
        self.launches = [Launch(k, d, tuple(g), tuple(b), n, ms / 1e3) for k, d, g, b, n, ms in raw]

    @property
    def seconds(self) -> float:
        """Device time of all the launches."""
        return sum(launch.seconds for launch in self.launches)

    def kernels(self) -> list[KernelRow]:
        """One row per kernel, by total device time (most first)."""
        groups: dict[str, list[Launch]] = {}
        for launch in self.launches:
            groups.setdefault(launch.kernel, []).append(launch)
        rows = []
        for name, launches in groups.items():
            known = [launch.bytes for launch in launches]
            rows.append(KernelRow(
                kernel=name,
                launches=len(launches),
                seconds=sum(launch.seconds for launch in launches),
                grid=_shape(Counter(launch.grid for launch in launches)),
                block=_shape(Counter(launch.block for launch in launches)),
                bytes=None if None in known else sum(known),
            ))
        return sorted(rows, key=lambda r: r.seconds, reverse=True)

    def table(self, limit: int | None = None) -> str:
        """The kernels by total device time: launches, time, share, mean per launch, grid and
        block (the most frequent), bytes and achieved bandwidth."""
        if self._mark is not None:
            raise RuntimeError("profile().table() is read after the with block closes")
        rows = self.kernels()[:limit]
        total = self.seconds or 1.0
        head = ["kernel", "launches", "total ms", "%", "mean us", "grid", "block", "MB", "GB/s"]
        body = []
        for r in rows:
            bw = r.bandwidth
            body.append([
                r.kernel if len(r.kernel) <= 48 else r.kernel[:45] + "...",
                str(r.launches), f"{r.seconds * 1e3:.3f}", f"{100 * r.seconds / total:.1f}",
                f"{r.seconds / r.launches * 1e6:.1f}", r.grid, r.block,
                "-" if r.bytes is None else f"{r.bytes / 1e6:.2f}", "-" if bw is None else f"{bw / 1e9:.1f}",
            ])
        widths = [max(len(cell) for cell in column) for column in zip(head, *body, strict=True)]

        def line(cells):  # the kernel's name to the left, the figures to the right
            pairs = enumerate(zip(cells, widths, strict=True))
            return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in pairs)

        lines = [line(head), *(line(row) for row in body)]
        lines.append(f"{len(self.launches)} launches, {self.seconds * 1e3:.3f} ms of device time")
        return "\n".join(lines)

    def __repr__(self):
        return f"<ember.profiler.Profile: {len(self.launches)} launches, {self.seconds * 1e3:.3f} ms>"


def profile() -> Profile:
    """``with ember.profiler.profile() as p: ...`` then ``print(p.table())``."""
    return Profile()
