"""PoCL from pip, for machines with no OpenCL driver installed (no root, no apt).

``pip install ember[pocl]`` brings ``pocl-binary-distribution`` (PoCL's CPU device) and PyOpenCL,
whose wheel carries an OpenCL ICD loader. When the system has no loader with a registered driver,
ember uses those: it registers PoCL with pip's loader through a vendors folder of its own (the
``.icd`` file names the library by its full path) and points the OpenCL bindings at that loader
(``OPENCL_DYLIB_PATH``). A driver the system has always wins; so does any setting the user made.
"""

from __future__ import annotations

import os
from pathlib import Path

# The loader PyOpenCL's wheel carries finds its package through this variable.
_HOME = "PYOPENCL_HOME"


def use_if_needed(python_dirs: list[str]) -> str | None:
    """Sets up pip's PoCL when nothing else provides OpenCL; returns the loader used, if any."""
    if os.environ.get("OPENCL_DYLIB_PATH"):
        return None
    found = _find(python_dirs)
    if found is None or _system_driver():
        return None
    loader, pocl, home = found
    vendors = _vendors_folder(pocl)
    if vendors is None:
        return None
    os.environ["OPENCL_DYLIB_PATH"] = str(loader)
    os.environ.setdefault(_HOME, str(home))
    os.environ.setdefault("OCL_ICD_VENDORS", str(vendors))
    return str(loader)


# Where the system's dynamic loader finds libraries, besides LD_LIBRARY_PATH.
_LIB_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
             "/lib/x86_64-linux-gnu", "/lib64", "/lib", "/usr/local/lib")


def _system_driver() -> bool:
    """Whether the system has an ICD loader and a driver registered with it (found on disk:
    importing ember loads no driver)."""
    dirs = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d] + list(_LIB_DIRS)
    if not any(os.path.exists(os.path.join(d, "libOpenCL.so.1")) for d in dirs):
        return False
    vendors = Path(os.environ.get("OCL_ICD_VENDORS") or "/etc/OpenCL/vendors")
    if vendors.is_file():
        return True
    try:
        return any(p.suffix == ".icd" for p in vendors.iterdir())
    except OSError:
        return False


def _find(python_dirs: list[str]):
    """(loader, PoCL library, PyOpenCL's package folder) from pip's wheels, or None."""
    for d in python_dirs:
        home = Path(d) / "pyopencl"
        libs = home / ".libs"
        loaders = sorted(libs.glob("libOpenCL*.so*"))
        pocls = sorted(libs.glob("libpocl*.so*"))
        if loaders and pocls:
            return loaders[0], pocls[0], home
    return None


def _vendors_folder(pocl: Path) -> Path | None:
    """A folder whose one ``.icd`` file names ``pocl`` by its full path, in ember's cache."""
    cache = Path(os.environ.get("EMBER_CACHE_DIR") or Path.home() / ".cache" / "ember")
    folder = cache / "opencl-vendors"
    icd = folder / "pocl.icd"
    text = f"{pocl.resolve()}\n"
    try:
        if not icd.is_file() or icd.read_text() != text:
            folder.mkdir(parents=True, exist_ok=True)
            partial = folder / f".pocl.icd.{os.getpid()}"
            partial.write_text(text)
            partial.replace(icd)
    except OSError:
        return None
    return folder
