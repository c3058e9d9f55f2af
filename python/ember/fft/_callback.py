"""Load and store callbacks (CuPy's ``cupy.fft.config.set_cufft_callbacks``): CUDA C device
functions in cuFFT's callback signatures that change each value a transform reads (load) or
writes (store).

cuFFT runs callbacks inside its kernels, compiled and linked with it at run time (nvcc and
static linking, or LTO). ember runs them in a kernel of its own before the transform (load:
``dst[i] = load(src, i, info, 0)`` over the input) and after it (store: ``store(dst, i,
result[i], info, 0)`` over the output), compiled from the same source (NVRTC on CUDA, the
CUDA C -> OpenCL C translation on OpenCL devices), so they work with cuFFT and with ember's
passes alike, on every backend. The offsets are those cuFFT gives: element indices into the
contiguous input and output. Both
callback conventions are taken (``cb_ver="legacy"``: ``size_t`` offsets, a
``d_loadCallbackPtr``/``d_storeCallbackPtr`` naming the function; ``"jit"``: ``unsigned long
long`` offsets and the function's name).
"""

from __future__ import annotations

import re
import threading
import warnings

import numpy as np

from .._creation import empty
from .._ndarray import _wrap, ndarray
from .._raw import RawKernel


class _Local(threading.local):
    manager = None  # a class default: reading it costs no exception (every transform reads it)


_local = _Local()

_LOAD_PTR = re.compile(r"d_loadCallbackPtr\s*=\s*([A-Za-z_]\w*)\s*;")
_STORE_PTR = re.compile(r"d_storeCallbackPtr\s*=\s*([A-Za-z_]\w*)\s*;")
# The function-pointer variables of the legacy convention: ember calls the functions directly.
_PTR_DECL = re.compile(r"__device__\s+\w+\s+d_(?:load|store)CallbackPtr\s*=\s*[A-Za-z_]\w*\s*;")
_INCLUDE = re.compile(r"#\s*include\s*<cufft(?:Xt)?\.h>")

# cuFFT's callback data types (cuComplex is float2 in cuFFT's headers).
_PRELUDE = """typedef float cufftReal;
typedef double cufftDoubleReal;
typedef float2 cufftComplex;
typedef double2 cufftDoubleComplex;
"""
_C_TYPES = {"f": "cufftReal", "d": "cufftDoubleReal", "F": "cufftComplex", "D": "cufftDoubleComplex"}


def get_current_callback_manager():
    """The callbacks a ``with set_cufft_callbacks(...):`` block of this thread set, or None."""
    return _local.manager


def _data(pointer, aux) -> ndarray | None:
    """The array behind a callback's ``callerInfo`` (a MemoryPointer of an ember array)."""
    if pointer is None:
        return None
    mem = getattr(pointer, "mem", None)
    native = getattr(mem, "_native", None)
    if native is None or pointer.ptr != mem.ptr:
        raise ValueError("callback data must be the start of an ember array's memory (arr.data)")
    return _wrap(native)


class set_cufft_callbacks:  # noqa: N801  (CuPy's name: a context manager class)
    """``with set_cufft_callbacks(cb_load=..., cb_store=...):`` transforms in the block apply
    the callbacks (see the module's documentation). ``cb_load_data``/``cb_store_data`` (an
    array's ``.data``) is the callbacks' ``callerInfo``; ``cb_*_aux_arr`` is its deprecated
    spelling."""

    def __init__(self, cb_load=None, cb_store=None, *, cb_load_aux_arr=None, cb_store_aux_arr=None,
                 cb_load_name=None, cb_store_name=None, cb_load_data=None, cb_store_data=None, cb_ver="legacy",
                 nvrtc_options=()):
        if cb_ver not in ("legacy", "jit"):
            raise ValueError('cb_ver must be "legacy" or "jit"')
        if cb_load_aux_arr is not None or cb_store_aux_arr is not None:
            warnings.warn("passing an ndarray to cb_load_aux_arr or cb_store_aux_arr is deprecated, please switch "
                          "to pass arr.data to cb_load_data or cb_store_data instead", DeprecationWarning,
                          stacklevel=2)
        if cb_load_aux_arr is not None and cb_load_data is not None:
            raise ValueError("only use cb_load_data and not cb_load_aux_arr")
        if cb_store_aux_arr is not None and cb_store_data is not None:
            raise ValueError("only use cb_store_data and not cb_store_aux_arr")
        if not cb_load and not cb_store:
            raise ValueError("need to specify either cb_load or cb_store, or both")
        if cb_ver == "legacy":
            warnings.warn('Using the legacy callback is considered deprecated, please switch to use cb_ver="jit" '
                          "instead", DeprecationWarning, stacklevel=2)
        self.cb_load, self.cb_store, self.cb_ver = cb_load or "", cb_store or "", cb_ver
        self.cb_load_name = self._name(cb_load, cb_load_name, _LOAD_PTR, "load")
        self.cb_store_name = self._name(cb_store, cb_store_name, _STORE_PTR, "store")
        self.cb_load_data = cb_load_aux_arr if cb_load_aux_arr is not None else _data(cb_load_data, None)
        self.cb_store_data = cb_store_aux_arr if cb_store_aux_arr is not None else _data(cb_store_data, None)
        self.nvrtc_options = tuple(nvrtc_options)
        self._kernels: dict = {}

    @staticmethod
    def _name(code, name, pattern, what):
        if not code:
            return None
        if name is not None:
            return name
        found = pattern.search(code)
        if found is None:
            raise ValueError(f"cb_{what}_name cannot be inferred, please specify it explicitly")
        return found.group(1)

    def key(self) -> tuple:
        """What tells plans with these callbacks apart in the plan cache."""
        return (self.cb_load, self.cb_store, id(self.cb_load_data), id(self.cb_store_data))

    def __enter__(self):
        self._previous = get_current_callback_manager()
        _local.manager = self
        return self

    def __exit__(self, *exc):
        _local.manager = self._previous

    # ---- running them ------------------------------------------------------------------------
    def source(self, which: str, load_char: str, store_char: str) -> str:
        """The CUDA C of the ``which`` ("load" or "store") kernel for a transform reading
        ``load_char`` and writing ``store_char`` values (dtype chars)."""
        parts = [_PRELUDE]
        for code in dict.fromkeys(c for c in (self.cb_load, self.cb_store) if c):
            parts.append(_PTR_DECL.sub("", _INCLUDE.sub("", code)))
        if which == "load":
            t, call = _C_TYPES[load_char], f"dst[i] = {self.cb_load_name}((void*)src, i, info, 0)"
        else:
            t, call = _C_TYPES[store_char], f"{self.cb_store_name}((void*)dst, i, src[i], info, 0)"
        parts.append(f"""
extern "C" __global__ void ember_fft_{which}(const {t}* src, {t}* dst, long long count, void* info) {{
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < count) {call};
}}""")
        return "\n".join(parts)

    def _kernel(self, which: str, load_char: str, store_char: str) -> RawKernel:
        key = (which, load_char, store_char)
        if key not in self._kernels:
            source = self.source(which, load_char, store_char)
            self._kernels[key] = RawKernel(source, f"ember_fft_{which}", options=self.nvrtc_options)
        return self._kernels[key]

    @staticmethod
    def _launch(function, src: ndarray, dst: ndarray, info) -> None:
        count = src.size
        if count == 0:
            return
        if info is None:
            info = empty(1, dtype=np.uint8)  # a null callerInfo the kernel never reads
        threads = 256
        function(((count + threads - 1) // threads,), (threads,), (src, dst, np.int64(count), info))

    def load(self, a: ndarray, store_char: str) -> ndarray:
        """``a`` (contiguous) with the load callback applied to each value."""
        if not self.cb_load:
            return a
        out = empty(a.shape, dtype=a.dtype, order="F" if a.flags.f_contiguous and not a.flags.c_contiguous else "C")
        function = self._kernel("load", a.dtype.char, store_char)
        self._launch(function, a, out, self.cb_load_data)
        return out

    def store(self, result: ndarray, out: ndarray, load_char: str) -> None:
        """Writes ``result`` into ``out`` (both contiguous, the same layout) through the store
        callback."""
        function = self._kernel("store", load_char, out.dtype.char)
        self._launch(function, result, out, self.cb_store_data)
