"""Measuring shim: presents ember as the ``cupy`` module so that CuPy's own tests run on ember.

Not part of ember and never installed: ``tools/cupy_suite/run.py`` puts this folder first on
``sys.path``. It adds no behaviour of its own:

- ``cupy.X`` is ``ember.X`` (``from ember import *`` plus a module ``__getattr__``); a name
  ember lacks raises ``AttributeError: module 'cupy' has no attribute 'X'``.
- ``cupy.cuda``, ``cupy.random``, ``cupy.linalg``, ``cupy.exceptions``, ``cupy.fft`` and
  ``cupy.cublas`` are aliases of ``ember.cuda``, ``ember.random``, ``ember.linalg``,
  ``ember.exceptions``, ``ember.fft`` and ``ember.cublas`` (submodules too, e.g.
  ``cupy.cuda.runtime`` is ``ember.cuda.runtime`` and ``cupy.fft._fft`` is ``ember.fft._fft``).
  Every other ``cupy.*`` submodule (``cupy._core``, ``cupy.lib``, ...) is missing; ``cupyx``
  holds only the aliases its README lists.
- ``cupy.testing`` is CuPy's own helper package (``cupy/testing/*.py``), loaded at run time from
  a CuPy source tree outside the repository (``$CUPY_SUITE_SRC``, default ``/work/peers/cupy``).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import math
import os
import sys
import types as _types

import ember
from ember import *  # noqa: F403  (the whole point: cupy's namespace is ember's)

# cupy submodule -> the ember module it is an alias of. Nothing else is mapped.
_ALIASES = {
    "cupy.cuda": "ember.cuda",
    "cupy.random": "ember.random",
    "cupy.linalg": "ember.linalg",
    "cupy.exceptions": "ember.exceptions",
    "cupy.fft": "ember.fft",
    "cupy.cublas": "ember.cublas",
}


def __getattr__(name: str):
    """Forward ``cupy.name`` to ``ember.name``; report a missing name as cupy's."""
    try:
        return getattr(ember, name)
    except AttributeError:
        raise AttributeError(f"module 'cupy' has no attribute {name!r}") from None


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Import ``cupy.cuda[.x]`` as the very module object ``ember.cuda[.x]`` (no second copy)."""

    @staticmethod
    def _target(fullname: str) -> str | None:
        for cupy_name, ember_name in _ALIASES.items():
            if fullname == cupy_name or fullname.startswith(cupy_name + "."):
                return ember_name + fullname[len(cupy_name):]
        return None

    def find_spec(self, fullname, path=None, target=None):
        ember_name = self._target(fullname)
        if ember_name is None or importlib.util.find_spec(ember_name) is None:
            return None  # not mapped, or ember lacks it: the import fails as it would
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        # The import system returns whatever sits in sys.modules after exec_module, so the
        # placeholder module is replaced by ember's own module object.
        sys.modules[module.__name__] = importlib.import_module(self._target(module.__name__))


sys.meta_path.insert(0, _AliasFinder())


def _load_cupy_testing() -> None:
    """Load CuPy's ``cupy/testing`` package from the CuPy source tree, as ``cupy.testing``.

    CuPy's helpers import one thing at import time that is harness plumbing rather than the
    library under test: ``cupy._core.internal.prod`` (the product of a shape, for
    ``shaped_arange``). They are given it only while they load; afterwards ``cupy._core`` is
    gone again, so the tests themselves see only what ember has.
    """
    src = os.environ.get("CUPY_SUITE_SRC", "/work/peers/cupy")
    package_dir = os.path.join(src, "cupy", "testing")
    if not os.path.isfile(os.path.join(package_dir, "__init__.py")):
        return  # no CuPy sources: cupy.testing stays missing
    internal = _types.ModuleType("cupy._core.internal")
    internal.prod = math.prod
    core = _types.ModuleType("cupy._core")
    core.internal = internal
    plumbing = {"cupy._core": core, "cupy._core.internal": internal}
    saved = {name: sys.modules.get(name) for name in plumbing}
    sys.modules.update(plumbing)
    try:
        spec = importlib.util.spec_from_file_location(
            "cupy.testing",
            os.path.join(package_dir, "__init__.py"),
            submodule_search_locations=[package_dir],
        )
        testing = importlib.util.module_from_spec(spec)
        sys.modules["cupy.testing"] = testing
        spec.loader.exec_module(testing)
        globals()["testing"] = testing
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
        globals().pop("_core", None)  # set as an attribute by the imports above


_load_cupy_testing()

# Real CuPy imports these with the package, so tests use ``cupy.exceptions.X`` without an import.
for _name in _ALIASES:
    if importlib.util.find_spec(_ALIASES[_name]) is not None:
        importlib.import_module(_name)

# Plumbing: CuPy's flag for its CUB routines, read by skip conditions at collection
# (``cupy.cuda.cub.available``). ember has no CUB routines: False, so CuPy's CUB-only tests
# skip, as CuPy skips them without CUB.
if not hasattr(ember.cuda, "cub"):
    ember.cuda.cub = _types.SimpleNamespace(available=False)

# Plumbing: ``from cupy.linalg import _util`` looks the submodule up under the aliased module's
# own name, ``ember.linalg._util``; it is the harness's ``_linalg_util`` (stacked_identity).
from . import _linalg_util  # noqa: E402

sys.modules["ember.linalg._util"] = _linalg_util
