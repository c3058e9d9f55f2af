"""The harness of the ``@cuda.jit`` language tests (``test_jit_*.py``): kernels that apply a
device function row by row (or cell by cell) to arrays, their launch, the same function applied
on the host, random inputs, and the result type the compiler gives a function."""

from __future__ import annotations

import ember
import numpy as np
from ember import cuda
from ember._jit.front import program_json

TPB = 64
N = 300  # rows of the elementwise tests: several blocks and a partial last one


def blocks(n: int, tpb: int = TPB) -> int:
    return (n + tpb - 1) // tpb


def result_type(fn, *types: str) -> str:
    """The type the compiler gives ``fn(*args)`` for argument ``types`` (no device needed)."""
    return ember._ember.jit_device_source(program_json(fn), list(types), "opencl")[2]


# ---- kernels that apply a device function row by row ----


def rows2(fn):
    """A kernel storing the tuple ``fn(a[i], b[i])`` (items of one type) as row i of ``out``."""
    dev = cuda.jit(device=True)(fn)

    @cuda.jit
    def rows(a, b, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            r = dev(a[i], b[i])
            for j in range(len(r)):
                out[i, j] = r[j]

    return rows


def rows3(fn):
    """As ``rows2``, for ``fn(a[i], b[i], c[i])``."""
    dev = cuda.jit(device=True)(fn)

    @cuda.jit
    def rows(a, b, c, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            r = dev(a[i], b[i], c[i])
            for j in range(len(r)):
                out[i, j] = r[j]

    return rows


def each_row(fn):
    """A kernel storing the tuple ``fn(a, i)`` (``a`` a whole array) as row i of ``out``."""
    dev = cuda.jit(device=True)(fn)

    @cuda.jit
    def rows(a, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            r = dev(a, i)
            for j in range(len(r)):
                out[i, j] = r[j]

    return rows


def each_2d(fn):
    """A kernel storing ``fn(a, i, j)`` in ``out[i, j]`` over a 2-D grid."""
    dev = cuda.jit(device=True)(fn)

    @cuda.jit
    def cells(a, out):
        i, j = cuda.grid(2)
        if i < out.shape[0] and j < out.shape[1]:
            out[i, j] = dev(a, i, j)

    return cells


def two_groups(fn):
    """A kernel storing ``fn(a[i], b[i])``, a pair of tuples (each of one type), as rows of two arrays."""
    dev = cuda.jit(device=True)(fn)

    @cuda.jit
    def rows(a, b, first, second):
        i = cuda.grid(1)
        if i < first.shape[0]:
            r, s = dev(a[i], b[i])
            for j in range(len(r)):
                first[i, j] = r[j]
            for j in range(len(s)):
                second[i, j] = s[j]

    return rows


def run(kernel, width, dtype, *inputs):
    """Launches a row kernel over ``inputs`` (host arrays); row i of the result is row i of ``out``."""
    n = len(inputs[0])
    out = ember.zeros((n, width), dtype=dtype)
    kernel[blocks(n), TPB](*[ember.asarray(x) for x in inputs], out)
    return out.get()


def host(fn, *inputs, dtype):
    """``fn`` applied on the host to the rows of ``inputs`` (lists of NumPy scalars or Python values)."""
    with np.errstate(all="ignore"):
        return np.array([fn(*args) for args in zip(*inputs, strict=True)], dtype=dtype)


def ints(rng, dtype, n=N, lo=None, hi=None):
    """Random integers of ``dtype`` over its whole range (or [lo, hi]), with its extremes first."""
    info = np.iinfo(dtype)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    x = rng.integers(lo, hi, n, dtype=dtype, endpoint=True)
    x[:3] = [hi, lo, hi // 2 + 1]
    return x


def floats(rng, dtype, n=N):
    x = (rng.standard_normal(n) * 10).astype(dtype)
    x[::9] = np.round(x[::9])  # exact multiples, where // and % have boundaries
    return x


# ---- a module-level constant the kernels read ----

HALF = np.float32(0.5)
