"""Harness plumbing: the two modules of CuPy's private ``cupy._core`` that its sorting and
statistics test modules import at module level to switch CuPy's CUB and cuTENSOR routines.
Nothing else of ``cupy._core`` exists here."""
