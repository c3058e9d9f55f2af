"""Harness plumbing, run at every interpreter's start (``shim/`` is on PYTHONPATH): drops the
finder numba-cuda's ``.pth`` file installs (``_numba_cuda_redirector``), so that processes the
tests start (``ProcessPoolExecutor`` with ``spawn``) import the shim's ``numba`` as the test
process does (``numba/__init__.py`` drops it there too), not the installed numba-cuda."""

import sys

sys.meta_path[:] = [f for f in sys.meta_path if type(f).__module__ != "_numba_cuda_redirector"]
