"""``@vectorize`` and ``@guvectorize`` with ``target="cpu"|"parallel"`` on ember's native back
end: NumPy ufuncs and gufuncs whose loops are compiled in this process (the same compiler as
``@njit``).

The scalar function is compiled by ``@njit``; each loop (a call over broadcast arrays,
``reduce``, ``accumulate``) is a small Python function generated for the number of inputs and
dimensions, compiled by ``@njit`` too, calling the scalar function per element. With
``target="parallel"`` the outermost loop is a ``prange``. NumPy's rules hold: shapes broadcast,
``out=`` is written, a signature is chosen as NumPy chooses a loop, a reduction of nothing needs
an identity.
"""

from __future__ import annotations

import linecache

import numpy as np

try:
    from numpy.lib.array_utils import normalize_axis_tuple
except ImportError:  # NumPy 1.x
    from numpy.core.numeric import normalize_axis_tuple

from .._ndarray import ndarray
from .cpu import CPUDispatcher
from .gufunc_layout import LayoutFunc
from .prange import prange
from .ufunc_types import UFuncShape, declared_signature, pick_loop

# Python's own scalar types: what NumPy (and Numba) make of them.
_PYTHON_SCALARS = {bool: np.dtype(bool), int: np.dtype(np.int64), float: np.dtype(np.float64),
                   complex: np.dtype(np.complex128)}


def _indices(ndim: int) -> str:
    return ", ".join(f"i{k}" for k in range(ndim))


def _loop_source(nin: int, ndim: int, parallel: bool) -> str:
    """``out[i...] = f(x0[i...], x1[i...], ...)`` over every element of ``out`` (``ndim`` >= 1)."""
    ins = [f"x{k}" for k in range(nin)]
    idx = _indices(ndim)
    lines = [f"def _loop({', '.join(ins)}, out):"]
    for k in range(ndim):
        ranged = "prange" if parallel and k == 0 else "range"
        lines.append("    " * (k + 1) + f"for i{k} in {ranged}(out.shape[{k}]):")
    call = ", ".join(f"{x}[{idx}]" for x in ins)
    lines.append("    " * (ndim + 1) + f"out[{idx}] = _f({call})")
    return "\n".join(lines) + "\n"


_REDUCE = '''\
def _reduce(x, out):
    for i in {ranged}(x.shape[0]):
        acc = x[i, 0]
        for j in range(1, x.shape[1]):
            acc = _f(acc, x[i, j])
        out[i] = acc


def _reduce_from(x, start, out):
    for i in {ranged}(x.shape[0]):
        acc = start
        for j in range(x.shape[1]):
            acc = _f(acc, x[i, j])
        out[i] = acc


def _accumulate(x, out):
    for i in {ranged}(x.shape[0]):
        acc = x[i, 0]
        out[i, 0] = acc
        for j in range(1, x.shape[1]):
            acc = _f(acc, x[i, j])
            out[i, j] = acc
'''


def _compiled(source: str, name: str, scalar: CPUDispatcher, parallel: bool, label: str) -> CPUDispatcher:
    """The function ``name`` of generated ``source``, compiled; its source is registered so that
    ember's front (and tracebacks) can read it."""
    filename = f"<ember {label}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"_f": scalar, "prange": prange}
    exec(compile(source, filename, "exec"), namespace)
    return CPUDispatcher(namespace[name], parallel=parallel, error_model="numpy")


def _operand(a):
    """An input as a NumPy array, its dtype, and whether it was a Python scalar (which counts by
    kind only when choosing a signature)."""
    if type(a) in _PYTHON_SCALARS:
        d = _PYTHON_SCALARS[type(a)]
        return np.asarray(a, dtype=d), d, True
    if isinstance(a, ndarray) or (hasattr(a, "__cuda_array_interface__") and not isinstance(a, np.ndarray)):
        raise TypeError(f"a target='cpu' ufunc takes NumPy arrays and numbers, got a device array ({type(a).__name__}):"
                        " copy it to the host (.get()) or build the ufunc with target='cuda'")
    arr = np.asarray(a)
    return arr, arr.dtype, False


class CPUUFunc(UFuncShape):
    """A ufunc made by ``@vectorize(target="cpu"|"parallel")``: call it as a NumPy ufunc."""

    # Other compiled functions call it on numbers as its scalar function (typed by their
    # arguments: no declared signature for the front).
    _ember_jit_dispatcher = True
    _device = True
    _signatures = ()

    def __init__(self, py_func, signatures=(), target="cpu", identity=None):
        py_func = getattr(py_func, "py_func", py_func)  # a @jit function: its Python function
        self.py_func = py_func
        self.__name__ = py_func.__name__
        self.__doc__ = py_func.__doc__
        self.__module__ = py_func.__module__
        self.identity = identity
        self._parallel = target == "parallel"
        self._scalar = CPUDispatcher(py_func, error_model="numpy")
        self._loops: dict = {}
        self._returns: dict = {}  # input dtypes -> result dtype, typed once
        self._typed_loops = []
        for s in signatures:
            ret, args = declared_signature(s)
            # Compiled now, as Numba compiles declared signatures; a tuple of argument types
            # (no return type) returns what the function returns.
            found = self._return_dtype(args)
            self._typed_loops.append((found if ret is None else ret, args))

    def _return_dtype(self, ins) -> np.dtype:
        key = tuple(np.dtype(d) for d in ins)
        found = self._returns.get(key)
        if found is None:
            found = self._returns[key] = self._typed_return(key)
        return found

    def _typed_return(self, ins) -> np.dtype:
        text = self._scalar._return_type("(" + ", ".join(d.name for d in ins) + ")")
        try:
            return np.dtype(text)
        except TypeError:
            raise TypeError(f"a @vectorize function returns one number; {self.__name__} returns {text}") from None

    def _types_for(self, dtypes, weak) -> tuple[np.dtype, list[np.dtype]]:
        """(result dtype, input dtypes) of the loop for inputs of ``dtypes``."""
        if not self._typed_loops:
            return self._return_dtype(dtypes), list(dtypes)
        sig = pick_loop(self._typed_loops, list(dtypes), list(weak))
        if sig is None:
            have = ", ".join(d.name for d in dtypes)
            raise TypeError(f"ufunc '{self.__name__}' not supported for the input types ({have}); its loops are "
                            + ", ".join(self.types))
        return sig

    def _loop(self, kind: str, *key):
        found = self._loops.get((kind, *key))
        if found is None:
            if kind == "map":
                nin, ndim = key
                source, name = _loop_source(nin, ndim, self._parallel), "_loop"
            else:
                source = _REDUCE.format(ranged="prange" if self._parallel else "range")
                name = "_" + kind
            found = self._loops[(kind, *key)] = _compiled(source, name, self._scalar, self._parallel,
                                                          f"{kind} loop of {self.__name__}")
        return found

    def __call__(self, *args, out=None, **kwargs):
        if kwargs:
            raise TypeError(f"{self.__name__}() takes out= among NumPy's ufunc keywords, not "
                            + ", ".join(sorted(kwargs)))
        if len(args) == self.nin + 1 and out is None:
            *args, out = args  # NumPy's ufuncs take the output array positionally too
        elif len(args) == self.nin + 1:
            raise TypeError(f"{self.__name__}() got the output array twice (positionally and as out=)")
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} arguments (and an output array), "
                            f"{len(args)} given")
        operands = [_operand(a) for a in args]
        ret, ins = self._types_for([d for _, d, _ in operands], [w for _, _, w in operands])
        arrays = [a.astype(t, copy=False) for (a, _, _), t in zip(operands, ins, strict=True)]
        if isinstance(out, tuple):
            (out,) = out
        if out is not None and not isinstance(out, np.ndarray):
            raise TypeError(f"out= must be a NumPy array for a target='cpu' ufunc, got {type(out).__name__}")
        shape = np.broadcast_shapes(*(a.shape for a in arrays), *(() if out is None else (out.shape,)))
        if out is not None and shape != out.shape:
            raise ValueError(f"non-broadcastable output operand with shape {out.shape} doesn't match the broadcast "
                             f"shape {shape}")
        result = out if out is not None and out.dtype == ret else np.empty(shape, dtype=ret)
        views = [np.broadcast_to(a, shape) for a in arrays]
        if shape == ():
            # One element: the loops run over at least one dimension.
            views, target = [v.reshape(1) for v in views], result.reshape(1)
        else:
            target = result
        if target.size:
            self._loop("map", self.nin, target.ndim)(*views, target)
        if out is not None:
            if result is not out:
                np.copyto(out, result, casting="same_kind")
            return out
        return result[()] if shape == () else result

    def _moved(self, array, axis):
        """``array`` with the reduced axes last, as 2-d (kept, reduced), and the kept shape."""
        a = np.asarray(array)
        if axis is None:
            axes = tuple(range(a.ndim))
        else:
            axes = tuple(sorted(normalize_axis_tuple(axis, a.ndim)))
        kept = [k for k in range(a.ndim) if k not in axes]
        moved = np.transpose(a, kept + list(axes))
        kept_shape = tuple(a.shape[k] for k in kept)
        n = int(np.prod([a.shape[k] for k in axes], dtype=np.int64))
        return moved.reshape(int(np.prod(kept_shape, dtype=np.int64)), n), kept_shape, axes

    def _binary(self, what: str):
        if self.nin != 2:
            raise ValueError(f"{what} only supported for binary functions")

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, initial=np._NoValue):
        """NumPy's ``ufunc.reduce``: the function folded along ``axis`` (an int, a tuple, or
        None for all axes), from the first element or from ``initial``."""
        self._binary("reduce")
        x, kept_shape, axes = self._moved(array, axis)
        d = np.dtype(dtype) if dtype is not None else x.dtype
        ret, ins = self._types_for([d, d], [False, False])
        x = x.astype(ins[1], copy=False)
        start = self.identity if initial is np._NoValue else initial
        result = np.empty(x.shape[0], dtype=ret)
        if x.shape[1] == 0 and start is None:
            raise ValueError(f"zero-size array to reduction operation {self.__name__} which has no identity")
        if x.shape[0]:
            if start is None:
                self._loop("reduce")(x, result)
            else:
                self._loop("reduce_from")(x, ret.type(start), result)
        result = result.reshape(kept_shape)
        if keepdims:
            full = list(np.shape(array))
            for k in axes:
                full[k] = 1
            result = result.reshape(full)
        if out is not None:
            np.copyto(out, result, casting="same_kind")
            return out
        return result[()] if result.ndim == 0 else result

    def accumulate(self, array, axis=0, dtype=None, out=None):
        """NumPy's ``ufunc.accumulate``: the running fold along ``axis``."""
        self._binary("accumulate")
        a = np.asarray(array)
        axis = normalize_axis_tuple(axis, max(a.ndim, 1))[0]
        moved = np.moveaxis(a, axis, -1)
        x = moved.reshape(-1, moved.shape[-1]) if moved.ndim else moved.reshape(1, 1)
        d = np.dtype(dtype) if dtype is not None else x.dtype
        ret, ins = self._types_for([d, d], [False, False])
        x = x.astype(ins[1], copy=False)
        result = np.empty(x.shape, dtype=ret)
        if x.size:
            self._loop("accumulate")(x, result)
        result = np.moveaxis(result.reshape(moved.shape), -1, axis)
        if out is not None:
            np.copyto(out, result, casting="same_kind")
            return out
        return result

    def outer(self, a, b):
        """NumPy's ``ufunc.outer``: ``f(a[i...], b[j...])`` over every pair."""
        self._binary("outer")
        a, b = np.asarray(a), np.asarray(b)
        return self(a.reshape(a.shape + (1,) * b.ndim), b)

    def __repr__(self):
        return f"<ember.vectorize ufunc {self.__name__} (target={'parallel' if self._parallel else 'cpu'})>"


def _gufunc_loop_source(nargs: int, parallel: bool) -> str:
    """``f(x0[i], x1[i], ..., out0[i], ...)`` for each loop element ``i``."""
    params = [f"x{k}" for k in range(nargs)]
    ranged = "prange" if parallel else "range"
    call = ", ".join(f"{p}[i]" for p in params)
    return f"def _gu({', '.join(params)}):\n    for i in {ranged}(x0.shape[0]):\n        _f({call})\n"


class CPUGUFunc(LayoutFunc):
    """A gufunc made by ``@guvectorize(target="cpu"|"parallel")``: the function runs once per
    element of the loop dimensions (broadcast as NumPy broadcasts them) on sub-arrays of the
    core dimensions, writing its outputs in place."""

    def __init__(self, py_func, signatures, layout, target="cpu"):
        py_func = getattr(py_func, "py_func", py_func)  # a @jit function: its Python function
        super().__init__(py_func, signatures, layout)
        self.__doc__ = py_func.__doc__
        self.__module__ = py_func.__module__
        self._parallel = target == "parallel"
        self._scalar = CPUDispatcher(py_func, error_model="numpy")
        self._loops: dict = {}

    def _loop(self, nargs: int) -> CPUDispatcher:
        found = self._loops.get(nargs)
        if found is None:
            found = self._loops[nargs] = _compiled(_gufunc_loop_source(nargs, self._parallel), "_gu", self._scalar,
                                                   self._parallel, f"gufunc loop of {self.__name__}")
        return found

    def __call__(self, *args, out=None):
        nin = len(self._ins)
        given_outs = self._given_outs(args, out)
        operands = [_operand(a) for a in args[:nin]]
        full, as_array = self._loop_for([d for _, d, _ in operands], [w for _, _, w in operands])
        arrays = [a.astype(t, copy=False) for (a, _, _), t in zip(operands, full[:nin], strict=True)]
        loop, sizes, count = self._shapes(arrays)
        flat = []
        for a, core, one in zip(arrays, self._ins, as_array, strict=False):
            core_shape = self._core_shape(core, sizes, one)
            if core_shape != tuple(sizes[c] for c in core):
                a = a.reshape((*a.shape, 1))
            flat.append(np.broadcast_to(a, loop + core_shape).reshape((count, *core_shape)))
        outs = [np.zeros((count, *self._core_shape(core, sizes, True)), dtype=full[nin + k])
                for k, core in enumerate(self._outs)]
        if count:
            self._loop(nin + len(outs))(*flat, *outs)
        results = []
        for k, (o, core) in enumerate(zip(outs, self._outs, strict=True)):
            shaped = o.reshape(loop + tuple(sizes[c] for c in core))
            if given_outs:
                np.copyto(given_outs[k], shaped, casting="same_kind")
                shaped = given_outs[k]
            results.append(shaped)
        return results[0] if len(results) == 1 else tuple(results)

    def __repr__(self):
        target = "parallel" if self._parallel else "cpu"
        return f"<ember.guvectorize gufunc {self.__name__} {self.layout} (target={target})>"
