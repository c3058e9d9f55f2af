"""pytest plugin of run.py: import the shim's ``numba`` first, dump or select node ids.

- Importing ``numba`` here, before collection, makes every test module see the shim's package
  (not the empty ``numba/__init__.py`` of the tree that run.py lays out for pytest's rootdir).
- ``NUMBA_SUITE_COLLECT=FILE``: write every collected node id to FILE (a JSON list).
- ``NUMBA_SUITE_IDS=FILE``: deselect every item whose node id is not in FILE (a JSON list).
"""

from __future__ import annotations

import json
import os

import numba  # noqa: F401  (the shim, first)


def pytest_collection_modifyitems(session, config, items):
    dump = os.environ.get("NUMBA_SUITE_COLLECT")
    if dump:
        with open(dump, "w") as f:
            json.dump([item.nodeid for item in items], f)
    chosen = os.environ.get("NUMBA_SUITE_IDS")
    if chosen:
        with open(chosen) as f:
            keep = set(json.load(f))
        selected = [item for item in items if item.nodeid in keep]
        config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in keep])
        items[:] = selected
