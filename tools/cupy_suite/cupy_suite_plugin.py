"""pytest plugin of run.py: dump collected node ids, or keep only a chosen set of them.

CuPy's parameterized classes put array reprs (with newlines and brackets) into node ids, which
pytest cannot take on its command line, so selection happens here instead, after collection:

- ``CUPY_SUITE_COLLECT=FILE``: write every collected node id to FILE (a JSON list).
- ``CUPY_SUITE_IDS=FILE``: deselect every item whose node id is not in FILE (a JSON list).
"""

from __future__ import annotations

import json
import os


def pytest_collection_modifyitems(session, config, items):
    dump = os.environ.get("CUPY_SUITE_COLLECT")
    if dump:
        with open(dump, "w") as f:
            json.dump([item.nodeid for item in items], f)
    chosen = os.environ.get("CUPY_SUITE_IDS")
    if chosen:
        with open(chosen) as f:
            keep = set(json.load(f))
        selected = [item for item in items if item.nodeid in keep]
        config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in keep])
        items[:] = selected
