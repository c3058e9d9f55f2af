"""Harness plumbing: CuPy's accelerator switches (``cupy._core._accelerator``). ember has no
CUB or cuTENSOR routines to switch; the lists are only stored, empty by default as CuPy's are
without them, so tests that branch on them take their plain paths."""

ACCELERATOR_CUB = 1
ACCELERATOR_CUTENSOR = 2
ACCELERATOR_CUTENSORNET = 3

_routine: list = []
_reduction: list = []


def get_routine_accelerators() -> list:
    return list(_routine)


def set_routine_accelerators(names) -> None:
    _routine[:] = list(names)


def get_reduction_accelerators() -> list:
    return list(_reduction)


def set_reduction_accelerators(names) -> None:
    _reduction[:] = list(names)
