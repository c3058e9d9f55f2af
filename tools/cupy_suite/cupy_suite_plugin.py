"""pytest plugin of run.py: dump collected node ids, or keep only a chosen set of them.

CuPy's parameterized classes put array reprs (with newlines and brackets) into node ids, which
pytest cannot take on its command line, so selection happens here instead, after collection:

- ``CUPY_SUITE_COLLECT=FILE``: write every collected node id to FILE (a JSON list).
- ``CUPY_SUITE_IDS=FILE``: deselect every item whose node id is not in FILE (a JSON list).
"""

from peer_suite import selection_hook

pytest_collection_modifyitems = selection_hook("CUPY_SUITE")
