"""Every program in examples/ runs on the default device and passes its own check against
NumPy (CUDA C too: translated to OpenCL C where there is no CUDA); only those that need
PyTorch or CuPy may skip, and only where those are missing."""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import on_cuda

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PROGRAMS = sorted(p for p in EXAMPLES.glob("*.py") if not p.name.startswith("_"))
SKIP_STATUS = 77
CUDA_C = {"vector_add_pycuda", "multiply_size_t_pycuda", "piecewise_scale_rawmodule", "unrolled_scale_sourcemodule"}
PEERS = {"interop_cupy_torch": ("torch", "cupy"), "torch_autograd": ("torch",)}


def may_skip(stem: str) -> bool:
    if stem in PEERS:
        installed = [m for m in PEERS[stem] if importlib.util.find_spec(m) is not None]
        return not on_cuda() or not installed
    return False


def test_the_examples_of_the_issue_are_all_there():
    names = {p.stem for p in PROGRAMS}
    wanted = {"vector_add_numba", "vectorize_expression", "matrix_add_2d", "matmul_shared", "heat_equation",
              "monte_carlo_option", "leaky_relu_elementwise", "arrays_broadcast_mask", "vector_add_pyopencl",
              "memory_pool"} | CUDA_C | set(PEERS)
    assert wanted <= names, f"missing: {sorted(wanted - names)}"


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_example_runs_and_checks_itself(path):
    r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=600, cwd=path.parent,
                       env=dict(os.environ))
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    if r.returncode == SKIP_STATUS:
        assert may_skip(path.stem), f"{path.name} skipped where it must run: {lines[-1:]}"
        assert lines and lines[-1].startswith("SKIP: "), "a skip must say why on its last line"
        return
    assert r.returncode == 0, f"{path.name} failed:\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    assert lines, f"{path.name} printed nothing"


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_example_is_written_for_its_original_library(path):
    """A docstring naming the original library, and ember's imports marked with what they replace."""
    source = path.read_text()
    tree = ast.parse(source)
    doc = ast.get_docstring(tree) or ""
    assert "Written for" in doc and "only the imports change" in doc, f"{path.name}: docstring convention"
    lines = source.splitlines()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            module = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
            if (module or "").split(".")[0] == "ember" and any(a.asname or a.name != "ember" for a in node.names):
                assert "# was:" in lines[node.lineno - 1], f"{path.name}:{node.lineno}: say what the import replaces"
