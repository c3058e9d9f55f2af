"""pytest plugin of run.py: import the shim's ``numba`` first, dump or select node ids.

- Importing ``numba`` here, before collection, makes every test module see the shim's package
  (not the empty ``numba/__init__.py`` of the tree that run.py lays out for pytest's rootdir).
- ``NUMBA_SUITE_COLLECT=FILE``: write every collected node id to FILE (a JSON list).
- ``NUMBA_SUITE_IDS=FILE``: deselect every item whose node id is not in FILE (a JSON list).
- A test numba-cuda marks ``skip_on_cudasim`` (on its function or class) gets the JUnit property
  ``cuda_only`` (the reason), so the report can count it apart.
"""

import numba  # noqa: F401  (the shim, first)
from numba.cuda.testing import CUDA_ONLY
from peer_suite import selection_hook

pytest_collection_modifyitems = selection_hook("NUMBA_SUITE")


def pytest_itemcollected(item):
    for owner in (getattr(item, "function", None), getattr(item, "cls", None)):
        reason = getattr(owner, CUDA_ONLY, None)
        if reason is not None:
            item.user_properties.append(("cuda_only", reason))
            return
