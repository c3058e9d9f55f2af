"""NumPy (pageable) -> device -> NumPy bandwidth: ember beside CuPy and PyTorch."""

from __future__ import annotations

import numpy as np

from .common import record
from .measure import gbps, wall_ms
from .report import Row

TO_DEVICE = {"ember": lambda lib, h: lib.xp.asarray(h), "CuPy": lambda lib, h: lib.xp.asarray(h),
             "PyTorch": lambda lib, h: lib.xp.from_numpy(h).cuda()}
TO_HOST = {"ember": lambda lib, d: lib.xp.asnumpy(d), "CuPy": lambda lib, d: lib.xp.asnumpy(d),
           "PyTorch": lambda lib, d: d.cpu().numpy()}


def rows(libs: dict, quick: bool, progress) -> list[Row]:
    mib = 16 if quick else 256
    host = np.random.default_rng(14).standard_normal(mib * 2**18, dtype=np.float32)
    up = Row("transfers", f"NumPy -> device, {mib} MiB float32, new array", "GB/s", True, ">= 15 GB/s")
    down = Row("transfers", f"device -> NumPy, {mib} MiB float32, new array", "GB/s", True, ">= 15 GB/s")
    repeat = 5 if quick else 20
    for name in ("ember", "CuPy", "PyTorch"):
        if name in libs:
            progress(f"transfers: {name}")
            _library(libs[name], up, down, host, repeat)
    return [up, down]


def _library(lib, up: Row, down: Row, host, repeat: int) -> None:
    to_device, to_host = TO_DEVICE[lib.name], TO_HOST[lib.name]
    record(up, lib.name, lambda: gbps(host.nbytes, wall_ms(lambda: to_device(lib, host), lib.sync, repeat)))
    dev = to_device(lib, host)
    record(down, lib.name, lambda: gbps(host.nbytes, wall_ms(lambda: to_host(lib, dev), lib.sync, repeat)))
    if not np.array_equal(to_host(lib, dev), host):
        down.figures[lib.name] = "n/a (data changed on the round trip)"
