"""The NumPy parity sweep itself: every dtype of every family of functions and every ufunc of
the registry has a case, over all the ``test_parity_*.py`` files (their case lists are
``parity_cases``'s)."""

from __future__ import annotations

import ember as cp
import numpy as np
from ember.testing import DTYPE_NAMES, numpy_supports
from parity_cases import (
    BINARY_CASES,
    BINARY_FAMILIES,
    COMPLEX_BINARY,
    COMPLEX_UNARY,
    INPLACE_CASES,
    LINALG_CASES,
    MIXED_CASES,
    OPERATOR_CASES,
    REDUCTION_CASES,
    REDUCTION_FAMILIES,
    SHAPE_CASES,
    UNARY_CASES,
    UNARY_FAMILIES,
)


def test_the_sweep_covers_every_dtype_of_every_family():
    """Every dtype NumPy supports for some member of a family runs in that family somewhere."""
    def covered(families, cases, nin):
        for family, members in families.items():
            wanted = {d for name in members for d in DTYPE_NAMES
                      if numpy_supports(lambda x, name=name: getattr(np, name)(*[x] * nin), d)}
            have = {d for name, d in cases if name in members}
            assert wanted <= have, f"{family}: no case for {sorted(wanted - have)}"

    covered(UNARY_FAMILIES, UNARY_CASES, 1)
    covered(BINARY_FAMILIES, BINARY_CASES, 2)
    # Every ufunc of the registry is swept (a new row comes with its family entry).
    swept = {n for fam in (*UNARY_FAMILIES.values(), *BINARY_FAMILIES.values()) for n in fam}
    swept |= {n for n, _ in UNARY_CASES + BINARY_CASES} | set(COMPLEX_UNARY) | set(COMPLEX_BINARY)
    swept |= {n for n, _, _ in MIXED_CASES}
    registry = {u.__name__ for u in cp._ufuncs.UFUNCS.values()}
    assert registry - swept == set(), "ufuncs no sweep covers"
    for family, members in REDUCTION_FAMILIES.items():
        assert {d for n, d in REDUCTION_CASES if n in members} == set(DTYPE_NAMES), family
    assert {d for _, d in LINALG_CASES} == set(DTYPE_NAMES)
    assert {d for _, d in SHAPE_CASES} == set(DTYPE_NAMES)
    assert {d for _, d in OPERATOR_CASES} | {d for _, d, _ in INPLACE_CASES} >= {"float32", "int32", "uint8"}
