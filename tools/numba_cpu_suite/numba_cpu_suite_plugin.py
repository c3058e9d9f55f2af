"""pytest plugin of run.py: import the shim's ``numba`` first, dump or select node ids, and note
what each test does.

- Importing ``numba`` here, before collection, makes every test module see the shim's package
  (not the empty ``numba/__init__.py`` of the tree that run.py lays out for pytest's rootdir).
- ``NUMBA_CPU_SUITE_COLLECT=FILE``: write every collected node id to FILE (a JSON list).
- ``NUMBA_CPU_SUITE_IDS=FILE``: deselect every item whose node id is not in FILE (a JSON list).
- ``NUMBA_CPU_SUITE_PROGRESS=FILE``: append ``start <id>`` / ``end <id>`` lines as tests run, so
  run.py can tell which test a crashed or hung process was running.
- Module-level placeholders (``numba/_missing.py``) are never collected as tests; placeholders
  fail when used inside a test (``_missing.IN_TEST``).
- A test during which ember raised a ``JitError`` gets the JUnit property ``jit_error`` (its
  first line), so the report can tell passes that only asserted a compile-time rejection.
"""

import os

import numba  # noqa: F401  (the shim, first)
import pytest
from ember.errors import JitError
from numba import _missing
from peer_suite import selection_hook

pytest_collection_modifyitems = selection_hook("NUMBA_CPU_SUITE")

_jit_errors = []
_jit_error_init = JitError.__init__


def _noting_init(self, *args, **kwargs):
    _jit_errors.append(str(args[0]) if args else "")
    _jit_error_init(self, *args, **kwargs)


JitError.__init__ = _noting_init


def pytest_pycollect_makeitem(collector, name, obj):
    if isinstance(obj, _missing.Missing):
        return []
    return None


def _progress(word, nodeid):
    path = os.environ.get("NUMBA_CPU_SUITE_PROGRESS")
    if path:
        with open(path, "a") as f:
            f.write(f"{word} {nodeid}\n")


def pytest_runtest_logstart(nodeid, location):
    _progress("start", nodeid)


def pytest_runtest_logfinish(nodeid, location):
    _progress("end", nodeid)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _jit_errors.clear()
    _missing.IN_TEST = True
    try:
        return (yield)
    finally:
        _missing.IN_TEST = False


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    try:
        return (yield)
    finally:
        if _jit_errors:
            first = _jit_errors[0].strip().splitlines()
            item.user_properties.append(("jit_error", first[0][:300] if first else ""))
