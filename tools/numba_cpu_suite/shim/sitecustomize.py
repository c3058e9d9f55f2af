"""Harness plumbing, run at every interpreter's start (``shim/`` is on PYTHONPATH): in the
harness's processes (``NUMBA_CPU_SUITE_TREE`` set) imports the shim's ``numba`` at once, so that
processes the tests start (``multiprocessing`` with ``spawn``) import it too, before ``spawn``
puts the parent's ``sys.path`` (the tree's own empty ``numba`` package first) in place."""

import os

if os.environ.get("NUMBA_CPU_SUITE_TREE"):
    import numba  # noqa: F401  (the shim)
