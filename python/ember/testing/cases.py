"""Which (function, dtype) cases a parity sweep runs.

On PoCL every new (function, dtypes, layout) compiles a kernel, so a sweep cannot run every
function on every dtype: ``rotation`` runs each function of a family on its main dtype and deals
every other dtype to one function of the family that NumPy supports it for.
"""

from __future__ import annotations

import numpy as np

from .dtypes import ALL_DTYPES
from .parity import quiet

DTYPE_NAMES = [d.name for d in ALL_DTYPES]


def numpy_supports(fn, dtype) -> bool:
    """Whether NumPy has a loop for ``fn`` on ``dtype`` (tried on one element)."""
    x = np.ones(1, dtype=dtype)
    try:
        quiet(fn, x)
    except TypeError:
        return False
    return True


def ufunc_supports(nin: int):
    """``supports(name, dtype)`` for ``rotation``: whether NumPy's ufunc ``name`` of ``nin``
    inputs has a loop for ``dtype``."""
    return lambda name, d: numpy_supports(lambda x: getattr(np, name)(*[x] * nin), d)


def rotation(family: dict, supports, dtypes=DTYPE_NAMES) -> list[tuple]:
    """``(name, dtype)`` cases for a family ``{name: main dtype}``: each function on its main
    dtype, then every other dtype of ``dtypes`` once in the family, dealt round-robin to the
    functions that NumPy supports it for (``supports(name, dtype)``)."""
    names = list(family)
    cases = [(name, family[name]) for name in names]
    turn = 0
    for d in dtypes:
        if any(c[1] == d for c in cases):
            continue
        for i in range(len(names)):
            name = names[(turn + i) % len(names)]
            if supports(name, d):
                cases.append((name, d))
                turn = (turn + i + 1) % len(names)
                break
    return cases


def cases_with_bugs(cases, bugs: dict) -> list:
    """``cases`` as pytest params, the known ember bugs (``{case: reason}``) marked
    ``xfail(strict=True)``: the suite stays green and the bug visible; once fixed, the case
    XPASSes and the mark must go."""
    import pytest

    out = []
    for case in cases:
        reason = bugs.get(case)
        marks = [pytest.mark.xfail(strict=True, reason=f"ember bug: {reason}")] if reason else []
        out.append(pytest.param(*case, marks=marks, id="-".join(map(str, case))))
    missing = set(bugs) - set(cases)
    assert not missing, f"bug marks for cases that do not run: {missing}"
    return out
