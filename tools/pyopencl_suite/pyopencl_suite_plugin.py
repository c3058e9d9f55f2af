"""pytest plugin of run.py: import the shim's ``pyopencl`` first, dump or select node ids.

- ``PYOPENCL_SUITE_COLLECT=FILE``: write every collected node id to FILE (a JSON list).
- ``PYOPENCL_SUITE_IDS=FILE``: deselect every item whose node id is not in FILE (a JSON list).
"""

import pyopencl  # noqa: F401  (the shim, first)
from peer_suite import selection_hook

pytest_collection_modifyitems = selection_hook("PYOPENCL_SUITE")
