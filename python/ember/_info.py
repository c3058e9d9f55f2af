"""``ember info``: what ember found on this machine, for bug reports."""

from __future__ import annotations

import os
import platform
import sys

import numpy as np

from . import _ember


def _size(path: str) -> tuple[int, int]:
    files = total = 0
    for root, _dirs, names in os.walk(path):
        for n in names:
            try:
                total += os.path.getsize(os.path.join(root, n))
                files += 1
            except OSError:
                pass
    return files, total


def report() -> str:
    """The text ``ember info`` prints."""
    lines = [
        f"ember {_ember.__version__}  (Python {platform.python_version()}, NumPy {np.__version__}, {sys.platform})",
        f"EMBER_BACKEND={os.environ.get('EMBER_BACKEND', '') or '(unset: auto)'}",
    ]
    r = _ember.info_report()

    ok, text = r["cuda_driver"]
    lines.append("")
    lines.append("CUDA")
    lines.append(f"  driver: {'CUDA ' + text if ok else 'not available: ' + text}")
    ok, devs = r["cuda_devices"]
    if ok:
        for i, (name, arch, mem) in enumerate(devs):
            lines.append(f"  device {i}: {name} ({arch}, {mem / 2**30:.1f} GiB)")
    ok, text = r["nvrtc"]
    lines.append(f"  NVRTC: {text if ok else 'not available'}")
    lines.append("  library search:")
    for lib, location, loaded, why in r["library_attempts"]:
        lines.append(f"    {'ok  ' if loaded else 'miss'} {lib}: {location}{'' if loaded else ' -- ' + why}")

    lines.append("")
    lines.append("OpenCL")
    ok, platforms = r["opencl"]
    if ok:
        for name, version, devices in platforms:
            lines.append(f"  platform: {name} ({version})")
            for dname, kind, driver in devices:
                lines.append(f"    {kind} device: {dname} (driver {driver})")
    else:
        lines.append(f"  not available: {platforms}")

    lines.append("")
    try:
        backend = _ember.backend_name()
        lines.append(f"selected backend: {backend}")
        for i in range(_ember.device_count()):
            info = _ember.device_info(i)
            lines.append(
                f"  device {i}: {info['name']} [{info['arch']}], compiler {info['compiler']}, "
                f"{info['total_memory'] / 2**30:.1f} GiB"
            )
    except Exception as e:  # the report must print whatever failed
        lines.append(f"selected backend: none ({type(e).__name__}: {e})")

    lines.append("")
    try:
        settings = _ember.settings()
    except ValueError as e:  # a bad EMBER_* variable: say which, as every device call will
        lines.append(f"settings: {e}")
        return "\n".join(lines)
    cache = str(settings["cache_dir"])
    files, total = _size(cache)
    lines.append(f"kernel cache: {cache} ({files} files, {total / 2**20:.1f} MiB)")
    if not settings["disk_cache"]:
        lines.append("  disk tier disabled by EMBER_DISK_CACHE")
    return "\n".join(lines)
