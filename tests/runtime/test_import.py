"""Importing ember is cheap and safe: it starts no driver and exposes the documented names."""

import ember
import numpy as np
from conftest import run_python


def test_import_starts_no_driver():
    code = (
        "import ember, ember.cuda\n"
        "maps = open('/proc/self/maps').read()\n"
        "print('libcuda' in maps, 'libOpenCL' in maps, 'libnvrtc' in maps)\n"
    )
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False", "False"], r.stdout


def test_dtypes_are_numpys():
    # NumPy's types, standing for them everywhere (they also carry Numba's type behaviour:
    # tests/jit/test_numba_types.py).
    for mine, numpys in ((ember.float32, np.float32), (ember.bool_, np.bool_), (ember.complex128, np.complex128)):
        assert mine == numpys and hash(mine) == hash(numpys) and issubclass(mine, numpys)
        assert np.dtype(mine) == np.dtype(numpys) and np.dtype(mine).type is numpys
        assert type(mine(1)) is numpys and isinstance(numpys(1), mine)


def test_error_hierarchy():
    assert issubclass(ember.BackendUnavailableError, ImportError)
    assert issubclass(ember.OutOfMemoryError, MemoryError)
    for cls in (ember.CompileError, ember.DriverError, ember.JitError, ember.BackendUnavailableError,
                ember.OutOfMemoryError):
        assert issubclass(cls, ember.EmberError)


def test_backend_is_named():
    assert ember.backend() in ("cuda", "opencl")


def _import_graph() -> dict[str, set[str]]:
    """Which of ember's modules each module imports, at the top or inside functions
    (``from . import x`` names submodule ``x``; the native ``_ember`` is a leaf)."""
    import ast
    import pathlib

    root = pathlib.Path(ember.__file__).parent
    modules = {}
    for path in root.rglob("*.py"):
        parts = ("ember", *path.relative_to(root).with_suffix("").parts)
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    known = set(modules) | {"ember._ember"}
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")
                base = base[: len(base) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                subs = {f"{target}.{a.name}" for a in node.names} & known
                edges |= subs if len(subs) == len(node.names) else ({target} & known) | subs
            elif isinstance(node, ast.Import):
                edges |= {a.name for a in node.names} & known
        graph[name] = edges - {name}
    return graph


def test_no_module_of_ember_imports_one_that_imports_it():
    """No import cycle, counting imports inside functions: the layers only import downwards."""
    graph = _import_graph()
    state, stack = {}, []

    def visit(module):
        state[module] = "open"
        stack.append(module)
        for dep in sorted(graph.get(module, ())):
            if state.get(dep) == "open":
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(dep):] + [dep]))
            if dep not in state:
                visit(dep)
        stack.pop()
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module)


def test_ndarray_is_defined_in_one_module():
    """Every method and property of ``ember.ndarray`` comes from ``ember._ndarray``."""
    foreign = sorted(
        name for name, value in vars(ember.ndarray).items()
        if callable(value) and getattr(value, "__module__", "ember._ndarray") not in ("ember._ndarray", None)
    )
    assert not foreign, foreign
