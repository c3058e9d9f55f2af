"""pytest plugin of run.py: import the shim's ``numba`` first, dump or select node ids.

- Importing ``numba`` here, before collection, makes every test module see the shim's package
  (not the empty ``numba/__init__.py`` of the tree that run.py lays out for pytest's rootdir).
- ``NUMBA_SUITE_COLLECT=FILE``: write every collected node id to FILE (a JSON list).
- ``NUMBA_SUITE_IDS=FILE``: deselect every item whose node id is not in FILE (a JSON list).
"""

import numba  # noqa: F401  (the shim, first)
from peer_suite import selection_hook

pytest_collection_modifyitems = selection_hook("NUMBA_SUITE")
