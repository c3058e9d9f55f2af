"""Harness plumbing, run at every interpreter's start (``shim/`` is on PYTHONPATH): drops the
finder numba-cuda's ``.pth`` file installs (``_numba_cuda_redirector``), and in the harness's
processes (``NUMBA_SUITE_TREE`` set) imports the shim's ``numba`` at once. Processes the tests
start (``ProcessPoolExecutor`` with ``spawn``) then import the shim's ``numba``, as the test
process does, before ``spawn`` puts the parent's ``sys.path`` (the tree's empty ``numba``
package first) in place."""

import os
import sys

sys.meta_path[:] = [f for f in sys.meta_path if type(f).__module__ != "_numba_cuda_redirector"]
if os.environ.get("NUMBA_SUITE_TREE"):
    import numba  # noqa: F401  (the shim)
