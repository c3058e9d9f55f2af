"""Harness plumbing: CuPy's ``cupy._core._cub_reduction``, imported at module level by
``test_search.py``; its members are read only by CUB-only tests, which skip here
(``cupy.cuda.cub.available`` is False)."""
