"""Names Numba has and ember does not: how the shim says so.

Strict mode (``NUMBA_CPU_SUITE_STRICT=1``): such a name is simply missing (``AttributeError``,
``ImportError``), so a test module that imports one fails to import.

Default ("per test") mode: a name Numba has and ember lacks is a ``Missing`` placeholder, and a
``numba.X`` module the shim has not is a ``MissingModule`` whose names are placeholders. The
module then imports, and each *test* that uses the name fails: looking the name up during a
test (``types.unicode_type``), or using a placeholder bound at import (calling it
during a test, comparing it, testing its truth, iterating, indexing, doing arithmetic with it,
``isinstance`` against it) raises ``NotInEmber``. ``NotInEmber`` derives from ``BaseException``
so that ``except Exception`` and ``assertRaises(Exception)`` never swallow it: a placeholder can
only make a test fail, never pass.

Outside tests (while a module imports: decorators such as ``@register_jitable`` or
``@overload(f)`` at module level), calling a placeholder gives another placeholder, so that the
module's other tests can run; the decorated name is then a placeholder too, and so fails
whichever test uses it. The plugin sets ``IN_TEST`` around each test's setup, call and teardown.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
import types

STRICT = os.environ.get("NUMBA_CPU_SUITE_STRICT", "") not in ("", "0")
IN_TEST = False


class NotInEmber(BaseException):  # noqa: N818  (Numba's style of error name)
    """A test used a Numba name that ember has not (harness placeholder)."""


class Missing:
    """A Numba name ember lacks. Any use during a test raises ``NotInEmber``."""

    __slots__ = ("_numba_name",)

    def __init__(self, name: str):
        object.__setattr__(self, "_numba_name", name)

    def _fail(self, *args, **kwargs):
        raise NotInEmber(f"{self._numba_name}: Numba has it, ember has not (harness placeholder)")

    def __getattr__(self, attr):
        if attr.startswith(("_", "pytest")):  # private names, and what pytest probes objects for
            raise AttributeError(attr)
        if IN_TEST:
            self._fail()
        return Missing(f"{self._numba_name}.{attr}")

    def __call__(self, *args, **kwargs):
        if IN_TEST:
            self._fail()
        return Missing(self._numba_name)

    def __mro_entries__(self, bases):  # a class of the test module derives from it
        self._fail()

    def __repr__(self):
        return f"<missing in ember: {self._numba_name}>"

    __str__ = __repr__
    __setattr__ = __delattr__ = __bool__ = __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _fail
    __iter__ = __len__ = __contains__ = __getitem__ = __setitem__ = __index__ = __int__ = __float__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __or__ = __ror__ = _fail
    __and__ = __rand__ = __neg__ = __enter__ = __exit__ = __instancecheck__ = __subclasscheck__ = _fail
    __hash__ = None  # unhashable: a dict or set keyed by it fails (TypeError)


# Module attributes pytest and unittest look for (never Numba's names).
_PROBED = ("pytest", "_pytest", "setup", "teardown", "setUp", "tearDown", "load_tests", "collect_ignore")


def missing_name(module: str, name: str):
    """What ``module.name`` is when the shim has not that name: a placeholder, or (strict mode,
    dunders) an AttributeError."""
    if STRICT or (name.startswith("__") and name.endswith("__")) or name.startswith(_PROBED):
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    if IN_TEST:  # looked up by the test itself: it fails here, with the name
        Missing(f"{module}.{name}")._fail()
    return Missing(f"{module}.{name}")


def package_getattr(package, name: str):
    """``package.name`` for a package of the shim: its submodule ``name`` where one exists (so
    that ``from numba.core import types`` imports it), else a missing name."""
    import importlib
    from pathlib import Path

    for folder in getattr(package, "__path__", []):
        if (Path(folder) / name).is_dir() or (Path(folder) / f"{name}.py").exists():
            return importlib.import_module(f"{package.__name__}.{name}")
    return missing_name(package.__name__, name)


class MissingModule(types.ModuleType):
    """A ``numba.X`` module ember has no counterpart of: every name in it is missing."""

    def __init__(self, name: str):
        super().__init__(name, f"missing in ember: {name} (harness placeholder)")
        self.__path__ = []  # a package: its submodules are missing modules too

    def __getattr__(self, name):
        return missing_name(self.__name__, name)


class MissingFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on ``sys.meta_path``: a ``numba.X`` module nothing else finds is a MissingModule."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("numba."):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        return MissingModule(spec.name)

    def exec_module(self, module):
        pass


def install() -> None:
    """In per-test mode, puts MissingFinder last on ``sys.meta_path`` (once)."""
    if not STRICT and not any(isinstance(f, MissingFinder) for f in sys.meta_path):
        sys.meta_path.append(MissingFinder())
