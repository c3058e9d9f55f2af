"""The CUDA C conformance suite (`cuda_c_conformance/`): every case's kernel launched through ember
(translated to OpenCL C on OpenCL devices, NVRTC on CUDA) and its array arguments compared with
NumPy's. With EMBER_CUDA_C_SUITE_SAVE=<folder> each case also saves what its arrays held, for
`cuda_c_conformance/compare.py` to set beside another device's run."""

from __future__ import annotations

import os
import re
import zlib

import ember as cp
import numpy as np
import pytest
from conftest import nvrtc_or_skip, on_cuda
from cuda_c_conformance import groups

GROUPS = {name: groups.load(name) for name in groups.NAMES}
CASES = [(g, c) for g, group in GROUPS.items() for c in group.CASES]


@pytest.fixture(scope="module")
def modules():
    built = {}

    def module(name):
        if name not in built:
            group = GROUPS[name]
            built[name] = cp.RawModule(code=groups.source(group), options=getattr(group, "OPTIONS", ()),
                                       name_expressions=groups.name_expressions(group))
        return built[name]

    return module


def test_the_suite_is_large_and_names_are_unique():
    names = [f"{g}.{c.name}" for g, c in CASES]
    assert len(names) == len(set(names))
    assert len(CASES) >= 100, len(CASES)


@pytest.mark.parametrize(("group", "case"), CASES, ids=[f"{g}.{c.name}" for g, c in CASES])
def test_case(group, case, modules):
    check(group, case, modules(group))


GAPS = [(g, c, why) for g, group in GROUPS.items() for c, why in getattr(group, "GAPS", [])]


@pytest.mark.parametrize(("group", "case", "why"), GAPS, ids=[f"{g}.{c.name}" for g, c, _ in GAPS])
def test_gap(group, case, why):
    """C++ the translation leaves out: NVRTC runs it; on OpenCL devices it is a CompileError that
    names the construct and its line."""
    g = GROUPS[group]
    source = groups.source(g).split(g.CASES[0].source)[0] + case.source  # the prelude, then the case
    names = [case.name] if "<" in case.name else []
    build = lambda: cp.RawModule(code=source, options=getattr(g, "OPTIONS", ()), name_expressions=names)  # noqa: E731
    if on_cuda():
        check(group, case, build())
        return
    with pytest.raises(cp.CompileError, match=re.escape(why)) as info:
        build().get_function(case.name)
    assert "kernel.cu(" in str(info.value)


def check(group, case, module):
    """Launches the case's kernel and compares its array arguments with NumPy's values."""
    rng = np.random.default_rng(zlib.crc32(f"{group}.{case.name}".encode()))
    host = case.args(rng)
    device = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in host]
    module.get_function(case.name)(case.grid, case.block, tuple(device), shared_mem=case.shared)
    got = {i: d.get() for i, d in enumerate(device) if isinstance(host[i], np.ndarray)}
    want = case.expect(*[a.copy() if isinstance(a, np.ndarray) else a for a in host])
    save = os.environ.get("EMBER_CUDA_C_SUITE_SAVE")
    if save:
        np.savez(os.path.join(save, f"{group}.{case.name}.npz"), **{str(i): v for i, v in got.items()})
    for i, value in want.items():
        value = np.asarray(value)
        if value.dtype.kind in "iub":  # an integer reference must fit the argument's type
            assert np.array_equal(value.astype(got[i].dtype).astype(value.dtype), value), f"argument {i}"
        if case.rtol or case.atol:
            np.testing.assert_allclose(got[i], value.astype(got[i].dtype), rtol=case.rtol, atol=case.atol,
                                       err_msg=f"argument {i}")
        else:
            np.testing.assert_array_equal(got[i], value.astype(got[i].dtype), err_msg=f"argument {i}")


@pytest.mark.parametrize("group", list(GROUPS))
def test_every_group_is_cuda_c_that_nvrtc_accepts(group):
    """The suite's kernels are CUDA C as NVIDIA's compiler reads it (NVRTC compiles without a GPU)."""
    nvrtc_or_skip()
    g = GROUPS[group]
    cubin = cp._ember.nvrtc_compile(groups.source(g), g.CASES[0].kernel, "sm_90", list(getattr(g, "OPTIONS", ())))
    assert cubin[:4] == b"\x7fELF"
