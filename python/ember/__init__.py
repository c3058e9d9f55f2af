"""ember: GPU programming from Python, with one array type, one memory pool and one kernel
cache, on CUDA GPUs and on any OpenCL device (PoCL on the CPU when there is no GPU).

``import ember as cp`` runs CuPy-style array code. Importing ember starts no driver: the
backend starts on first use (``EMBER_BACKEND=cuda|opencl|auto`` chooses it).
"""

from __future__ import annotations

import site as _site
import sys as _sys

import numpy as _np

from . import _ember, _pip_opencl

# pip's CUDA wheels put libraries under site-packages/nvidia/*/lib: tell the loader where
# Python's package folders are (this loads nothing).
_python_dirs = [p for p in dict.fromkeys([*_sys.path, *_site.getsitepackages(), _site.getusersitepackages()]) if p]
_ember.add_python_dirs(_python_dirs)
# No OpenCL driver on the system: PoCL from pip (`pip install ember[pocl]`), if installed.
_pip_opencl.use_if_needed(_python_dirs)

from . import cublas, cuda, errors, exceptions, extending, fft, lib, linalg, profiler, random  # noqa: E402, F401  (public namespaces, as in CuPy)
from ._array_api import *  # noqa: E402, F403
from ._array_api import __all__ as _array_api_names  # noqa: E402
from ._array_api_info import __array_namespace_info__  # noqa: E402
from ._bits import *  # noqa: E402, F403
from ._bits import __all__ as _bits_names  # noqa: E402
from ._calculus import *  # noqa: E402, F403
from ._calculus import __all__ as _calculus_names  # noqa: E402
from ._contractions import *  # noqa: E402, F403
from ._contractions import __all__ as _contractions_names  # noqa: E402
from ._conversions import *  # noqa: E402, F403
from ._conversions import __all__ as _conversions_names  # noqa: E402
from ._creation import (  # noqa: E402
    arange,
    array,
    asarray,
    ascontiguousarray,
    asnumpy,
    empty,
    empty_like,
    full,
    full_like,
    geomspace,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from ._diagonals import *  # noqa: E402, F403
from ._diagonals import __all__ as _diagonals_names  # noqa: E402
from ._differences import *  # noqa: E402, F403
from ._differences import __all__ as _differences_names  # noqa: E402
from ._errstate import errstate, geterr, seterr  # noqa: E402
from ._flatiter import flatiter  # noqa: E402
from ._functional import *  # noqa: E402, F403
from ._functional import __all__ as _functional_names  # noqa: E402
from ._fusion import fuse  # noqa: E402
from ._histograms import *  # noqa: E402, F403
from ._histograms import __all__ as _histograms_names  # noqa: E402
from ._host_io import *  # noqa: E402, F403
from ._host_io import __all__ as _host_io_names  # noqa: E402
from ._index_tricks import *  # noqa: E402, F403
from ._index_tricks import __all__ as _index_tricks_names  # noqa: E402
from ._indexing import nonzero, take, where  # noqa: E402
from ._interop import from_dlpack  # noqa: E402
from ._interp import interp  # noqa: E402
from ._jit.cpu import jit, njit, prange  # noqa: E402
from ._jit.prange import get_num_threads, pndindex, set_num_threads  # noqa: E402
from ._jit.vectorize import guvectorize, vectorize  # noqa: E402
from ._linalg import dot, inner, matmul, matvec, outer, vdot, vecmat  # noqa: E402
from ._logic import *  # noqa: E402, F403
from ._logic import __all__ as _logic_names  # noqa: E402
from ._manipulation import *  # noqa: E402, F403
from ._manipulation import __all__ as _manipulation_names  # noqa: E402
from ._nanfunctions import *  # noqa: E402, F403
from ._nanfunctions import __all__ as _nanfunctions_names  # noqa: E402
from ._ndarray import ndarray  # noqa: E402
from ._numpy_names import *  # noqa: E402, F403
from ._numpy_names import __all__ as _numpy_names_names  # noqa: E402
from ._order_statistics import median  # noqa: E402
from ._overlap import *  # noqa: E402, F403
from ._overlap import __all__ as _overlap_names  # noqa: E402
from ._pad import pad  # noqa: E402
from ._pinned import PinnedMemoryPool, empty_pinned, get_default_pinned_memory_pool  # noqa: E402
from ._polynomials import *  # noqa: E402, F403
from ._polynomials import __all__ as _polynomials_names  # noqa: E402
from ._quantiles import *  # noqa: E402, F403
from ._quantiles import __all__ as _quantiles_names  # noqa: E402
from ._ranges import linspace, logspace  # noqa: E402
from ._raw import RawKernel, RawModule  # noqa: E402
from ._reductions import (  # noqa: E402
    all,
    amax,
    amin,
    any,
    argmax,
    argmin,
    cumprod,
    cumsum,
    max,
    mean,
    min,
    prod,
    std,
    sum,
    var,
)
from ._rounding import around, fix, round, round_  # noqa: E402
from ._runtime import (  # noqa: E402
    Device,
    MemoryPool,
    backend,
    get_default_memory_pool,
    synchronize,
)
from ._shape import (  # noqa: E402
    array_split,
    asfortranarray,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    broadcast_arrays,
    broadcast_shapes,
    broadcast_to,
    concatenate,
    copy,
    dstack,
    expand_dims,
    hstack,
    moveaxis,
    ravel,
    reshape,
    split,
    squeeze,
    stack,
    swapaxes,
    transpose,
    vstack,
)
from ._sorting import *  # noqa: E402, F403
from ._sorting import __all__ as _sorting_names  # noqa: E402
from ._special_math import *  # noqa: E402, F403
from ._special_math import __all__ as _special_math_names  # noqa: E402
from ._statistics import *  # noqa: E402, F403
from ._statistics import __all__ as _statistics_names  # noqa: E402
from ._structured import make_aligned_dtype  # noqa: E402
from ._triangles import eye, identity, tri, tril, triu  # noqa: E402
from ._two_output_ufuncs import divmod, frexp, modf  # noqa: E402, A004
from ._ufuncs import UFUNCS as _UFUNCS  # noqa: E402
from ._ufuncs import clip, imag, real, ufunc  # noqa: E402
from ._user_kernels import ElementwiseKernel, ReductionKernel  # noqa: E402

globals().update(_UFUNCS)  # add, subtract, ..., sqrt, ...: one ufunc object each
from .errors import (  # noqa: E402
    BackendUnavailableError,
    CompileError,
    DriverError,
    EmberError,
    JitError,
    OutOfMemoryError,
)

__version__ = _ember.__version__


def get_array_module(*args):
    """``ember`` if any argument is an ember array, else ``numpy`` (CuPy's way to write code
    that runs on either)."""
    for arg in args:
        if isinstance(arg, ndarray):
            return _sys.modules[__name__]
    return _np


def is_available() -> bool:
    """Whether ember has a device to run on (CuPy's ``cupy.is_available``); starts the backend."""
    return cuda.is_available()


def show_config() -> None:
    """Prints what ember found on this machine (what ``ember info`` prints)."""
    from ._info import report

    _sys.stdout.write(report() + "\n")


def __getattr__(name):
    # ember.cl is imported on first use: most programs never need OpenCL's API.
    if name == "cl":
        import importlib

        return importlib.import_module(".cl", __name__)
    raise AttributeError(f"module 'ember' has no attribute {name!r}")


# The dtypes are NumPy's, as in CuPy, with Numba's type behaviour (ember.types: float32[:],
# void(float32[:], int32)), so that code written for either runs.
from . import types  # noqa: E402
from ._dtypes import bfloat16  # noqa: E402  (ml_dtypes', as JAX's)
from .types import (  # noqa: E402
    bool_,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    void,
)

dtype = _np.dtype
__array_api_version__ = "2024.12"

__all__ = [
    "BackendUnavailableError", "CompileError", "Device", "DriverError", "ElementwiseKernel", "EmberError",
    "JitError", "MemoryPool", "OutOfMemoryError", "RawKernel", "RawModule", "ReductionKernel", "arange",
    "array", "ascontiguousarray", "asarray", "asnumpy", "backend", "bfloat16", "bool_", "complex64", "complex128",
    "dtype", "empty", "empty_like", "errors", "float16", "float32", "float64", "from_dlpack", "full",
    "fuse", "guvectorize", "vectorize", "PinnedMemoryPool", "empty_pinned", "get_default_pinned_memory_pool",
    "full_like", "get_default_memory_pool", "int8", "int16", "int32", "int64", "linspace", "ndarray", "ones",
    "ones_like", "synchronize", "types", "uint8", "uint16", "uint32", "uint64", "void", "zeros", "zeros_like",
]
__all__ += [
    "array_split", "asfortranarray", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_arrays",
    "broadcast_shapes", "broadcast_to", "concatenate", "copy", "dstack", "expand_dims", "hstack", "moveaxis",
    "ravel", "reshape", "split", "squeeze", "stack", "swapaxes", "transpose", "vstack",
]
__all__ += [
    "clip", "eye", "identity", "imag", "nonzero", "real", "take", "tri", "tril", "triu", "ufunc", "where",
    *sorted(_UFUNCS),
]
__all__ += ["all", "amax", "amin", "any", "argmax", "argmin", "cumprod", "cumsum", "max", "mean", "min", "prod", "std",
            "sum", "var"]
__all__ += ["cublas", "dot", "inner", "lib", "linalg", "matmul", "matvec", "outer", "vdot", "vecmat"]
__all__ += ["geomspace", "logspace"]
__all__ += ["jit", "njit", "prange", "pndindex", "get_num_threads", "set_num_threads"]
__all__ += ["errstate", "geterr", "seterr"]
__all__ += ["around", "fix", "get_array_module", "is_available", "round", "round_", "show_config"]
# NumPy's functions composed of ember's, one module per part of NumPy's API, and NumPy's own
# types, dtype helpers and constants (each module lists its names).
__all__ += [*_array_api_names, "__array_namespace_info__", *_bits_names, *_calculus_names, *_contractions_names,
            *_conversions_names,
            *_diagonals_names, *_differences_names, *_functional_names, *_host_io_names, *_index_tricks_names,
            *_logic_names, *_manipulation_names, *_nanfunctions_names, *_overlap_names, *_polynomials_names,
            *_histograms_names, *_quantiles_names, *_sorting_names, *_special_math_names, *_statistics_names,
            "divmod", "median", "flatiter", "frexp", "modf",
            "pad", "make_aligned_dtype", "interp"]
__all__ += _numpy_names_names
