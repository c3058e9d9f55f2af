"""``ember.vectorize`` and ``ember.guvectorize``: Numba's ufunc builders over kernels
compiled from Python.

``@vectorize`` compiles the scalar function as a device function and runs it inside an
elementwise kernel (broadcasting, strides and vector loads come from ``ElementwiseKernel``).
``@guvectorize`` runs the function once per element of the loop dimensions, each call seeing
sub-arrays of the core dimensions, from a generated kernel.
"""

from __future__ import annotations

import contextlib
import json
import warnings

import numpy as np

from .. import _ember, _runtime
from .._creation import asarray, empty
from .._ndarray import ndarray
from .._operands import on_device
from .._shape import broadcast_to
from .._user_kernels import ElementwiseKernel
from ..errors import JitError
from . import pickling
from .dispatcher import Dispatcher
from .front import _Program, program_json
from .gufunc_layout import LayoutFunc
from .ufunc_types import UFuncShape, declared_signature, pick_loop

_TARGETS = ("cuda", "opencl", "cpu", "parallel")


def _carrier(d: np.dtype) -> np.dtype:
    """The dtype an elementwise kernel moves values of ``d`` as: datetime64/timedelta64 as
    their int64 counts (what kernels compute with), others as themselves."""
    return np.dtype(np.int64) if d.kind in "mM" else d


def _as_carrier(v):
    """An input as its :func:`_carrier` dtype (a view: no copy)."""
    if isinstance(v, ndarray) and v.dtype.kind in "mM":
        return v.view(np.int64)
    if isinstance(v, (np.datetime64, np.timedelta64)):
        return v.astype(np.int64)
    return v


def _check_target(target: str) -> str:
    if target not in _TARGETS:
        raise ValueError(f"target must be one of {', '.join(_TARGETS)}, got {target!r}")
    return target


def _dialect() -> str:
    """The C dialect of the current device ("cuda" or "opencl")."""
    return "cuda" if _runtime.Device().attributes["backend"] == "cuda" else "opencl"


def _device_for(target: str):
    """The device a target runs on: the current one, or for "cpu"/"opencl" an OpenCL device of
    that kind (on a CUDA machine, one of the extra OpenCL devices ``ember.cl`` opens)."""
    if target == "cuda":
        return None
    current = _runtime.Device().attributes
    if current["backend"] != "cuda" and (target == "opencl" or current["is_cpu"]):
        return None
    for i in _runtime._opencl_extra_ids():
        dev = _runtime.Device(i)
        if target == "opencl" or dev.attributes.get("is_cpu", False):
            return dev
    raise ValueError(
        f"target={target!r} needs an OpenCL {'CPU ' if target != 'opencl' else ''}device, and ember sees none: "
        "install PoCL (apt-get install pocl-opencl-icd) or use target='cuda'"
    )


def _inputs(args):
    """Inputs as device arrays or scalars, their dtypes, which were Python scalars, and whether
    the caller gave only host data (then results go back to the host)."""
    host = not any(on_device(a) for a in args)
    values, dtypes, weak = [], [], []
    for a in args:
        if isinstance(a, (bool, int, float, complex)):
            values.append(a)
            dtypes.append(np.dtype(type(a)) if not isinstance(a, bool) else np.dtype(bool))
            weak.append(True)
        elif isinstance(a, np.generic):
            values.append(a)
            dtypes.append(a.dtype)
            weak.append(False)
        else:
            arr = a if isinstance(a, ndarray) else asarray(a)
            values.append(arr)
            dtypes.append(arr.dtype)
            weak.append(False)
    return values, dtypes, weak, host


class CUDAUFunc(UFuncShape):
    """A ufunc made by ``@vectorize``: call it on arrays and scalars (broadcasting, ``out=``)."""

    def __init__(self, py_func, signatures=(), target="cuda"):
        self.py_func = py_func
        self.__name__ = py_func.__name__
        self.__doc__ = py_func.__doc__
        self._target = _check_target(target)
        self._made_with = (tuple(signatures), target)
        self._program = None
        self._signatures = []
        for s in signatures:
            ret, args = declared_signature(s)
            if ret is None and not isinstance(s, tuple):
                raise TypeError(f"a @vectorize signature needs a return type: {s!r}")
            # A tuple of argument types (Numba's form without a return type): the return type
            # is the function's, found when it compiles below.
            self._signatures.append((ret, args))
        self._kernels: dict = {}
        if self._signatures:
            # Type-check every signature now (as Numba compiles eagerly).
            for k, (ret, args) in enumerate(self._signatures):
                self._signatures[k] = (self._kernel(args, ret, _dialect())[1], args)

    def __reduce__(self):
        return (pickling.rebuild, (type(self), pickling.function_spec(self.py_func), *self._made_with))

    @property
    def _typed_loops(self) -> list:
        return self._signatures

    def _tree(self) -> str:
        if self._program is None:
            self._program = program_json(self.py_func)
        return self._program

    def _kernel(self, args, ret, dialect):
        key = (dialect, tuple(args))
        found = self._kernels.get(key)
        if found is None:
            names = [np.dtype(a).name for a in args]
            preamble, cname, ret_text = _ember.jit_device_source(self._tree(), names, dialect)
            if ret is None:
                try:
                    ret = np.dtype(ret_text)
                except TypeError:
                    raise TypeError(f"a @vectorize function returns one number, {self.__name__} returns "
                                    f"{ret_text}") from None
            out = np.dtype(ret)
            if out.kind in "mM" and ret_text != out.name:
                # Numba converts no datetime64/timedelta64 to another type or unit.
                raise JitError(f"{self.__name__} returns {ret_text}, and its signature says {out.name}: datetime64 "
                               "and timedelta64 values convert to no other type or unit")
            params = ", ".join(f"{_carrier(np.dtype(a)).name} x{i}" for i, a in enumerate(args))
            call = ", ".join(f"x{i}" for i in range(len(names)))
            kernel = ElementwiseKernel(params, f"{_carrier(out).name} out0", f"out0 = {cname}({call});",
                                       name=f"vectorize_{self.__name__}", preamble=preamble)
            found = self._kernels[key] = (kernel, out)
        return found

    def __call__(self, *args, out=None, stream=0):
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} arguments, {len(args)} given")
        device = _device_for(self._target)
        if device is not None:
            with device:
                return self._run(args, out, stream)
        return self._run(args, out, stream)

    def _run(self, args, out, stream):
        values, dtypes, weak, host = _inputs(args)
        if self._signatures:
            sig = pick_loop(self._signatures, dtypes, weak, exact_first=True)
            if sig is None:
                have = ", ".join(d.name for d in dtypes)
                raise TypeError(
                    f"ufunc '{self.__name__}' has no loop for inputs ({have}); its signatures are "
                    + ", ".join(self.types)
                )
            ret, ins = sig
        else:
            ret, ins = None, dtypes
        values = [
            v.astype(t) if isinstance(v, ndarray) and v.dtype != t else v for v, t in zip(values, ins, strict=True)
        ]
        scalars = not any(isinstance(v, ndarray) for v in values)
        if scalars and values and out is None:
            # Only scalars (Numba's ufuncs take them): one element, given back as a scalar.
            values[0] = asarray(np.asarray(values[0], dtype=ins[0]))
        kernel, out_dtype = self._kernel(ins, ret, _dialect())
        outs = () if out is None else (out if isinstance(out, ndarray) else asarray(out),)
        moved = [_as_carrier(v) for v in (*values, *outs)]
        if stream not in (0, None):
            with stream:
                result = kernel(*moved)
        else:
            result = kernel(*moved)
        if out_dtype.kind in "mM":
            result = outs[0] if outs else result.view(out_dtype)
        if isinstance(out, np.ndarray):
            np.copyto(out, result.get())
            return out
        if scalars and out is None:
            return result.get()[()]
        # A device output given is returned as the device array it is (Numba's rule).
        return result.get() if host and out is None else result

    def reduce(self, arr, stream=0):
        """The ufunc folded over a 1-d array (``np.add.reduce`` for an adding ufunc), on the
        device, as a NumPy scalar: Numba's ``ufunc.reduce``. The function must be binary,
        associative and commutative."""
        from .reduction import Reduce

        if self.nin != 2:
            raise TypeError(f"reduce needs a binary ufunc; {self.__name__} takes {self.nin} arguments")
        a = arr if on_device(arr) else asarray(np.asarray(arr))
        if a.ndim != 1:
            raise TypeError(f"reduce takes a 1-d array, got {a.ndim} dimensions")
        if a.size == 0:
            raise ValueError(f"zero-size array to reduction operation {self.__name__} which has no identity")
        if self._signatures:
            sig = pick_loop(self._signatures, [a.dtype, a.dtype], [False, False], exact_first=True)
            if sig is None:
                raise TypeError(f"ufunc '{self.__name__}' has no loop for ({a.dtype}, {a.dtype})")
            if sig[1][0] != a.dtype:
                a = a.astype(sig[1][0])
        reducer = self.__dict__.get("_reducer")
        if reducer is None:
            reducer = self._reducer = Reduce(self.py_func)
        # The first element starts the fold (a ufunc has no identity ember can rely on).
        return reducer(a[1:], init=a[:1].get()[0], stream=stream) if a.size > 1 else a[:1].get()[0]

    def __repr__(self):
        return f"<ember.vectorize ufunc {self.__name__}>"


# Numba's options of @vectorize/@guvectorize; ember's kernels need none of them.
_OPTIONS = frozenset({"nopython", "forceobj", "boundscheck", "fastmath", "writable_args", "nogil", "debug",
                      "lineinfo", "opt"})


def _check_options(kws, builder: str):
    """Numba's refusals of unknown options: ``vectorize``'s KeyError, ``guvectorize``'s
    TypeError, with their words."""
    unknown = sorted(set(kws) - _OPTIONS)
    if not unknown:
        return
    if builder == "guvectorize":
        raise TypeError(f"The following target options are not supported: {', '.join(map(repr, unknown))}")
    raise KeyError(f"Unrecognized options. vectorize target does not support option: {unknown[0]!r}")


def vectorize(ftylist_or_function=(), target="cpu", identity=None, cache=False, **kws):
    """Numba's ``@vectorize``: a ufunc from a scalar function. ``target="cuda"`` runs on the
    current device; ``"cpu"``/``"parallel"`` are compiled for this processor as ``@njit`` compiles
    (``parallel`` shares the loop among threads); ``"opencl"`` runs on an OpenCL device.
    Signatures are strings such as ``"float32(float32, float32)"`` or signature
    objects (``float32(float32, float32)``); without them the ufunc is typed by its inputs on
    each new combination."""
    _check_options(kws, "vectorize")
    if "nopython" in kws and target == "cuda":
        warnings.warn("nopython kwarg for cuda target is redundant", RuntimeWarning, stacklevel=2)
    _check_target(target)

    def make(fn, sigs):
        if target in ("cpu", "parallel"):
            from .cpu_ufunc import CPUUFunc

            return CPUUFunc(fn, sigs, target, identity)
        return CUDAUFunc(fn, sigs, target)

    if callable(ftylist_or_function) and not hasattr(ftylist_or_function, "return_type"):
        return make(ftylist_or_function, ())
    single = isinstance(ftylist_or_function, str) or hasattr(ftylist_or_function, "return_type")
    sigs = [ftylist_or_function] if single else list(ftylist_or_function)

    def wrap(fn):
        return make(fn, sigs)

    return wrap


def _zero() -> dict:
    return {"line": 0, "col": 0, "end_line": 0, "end_col": 0}


def _n(kind: str, **fields) -> dict:
    return {"span": _zero(), "k": kind, **fields}


class GUFunc(LayoutFunc):
    """A generalized ufunc made by ``@guvectorize`` for a device."""

    _exact_first = True

    def __init__(self, py_func, signatures, layout, target="cuda"):
        super().__init__(py_func, signatures, layout)
        self._made_with = (tuple(signatures), layout, target)
        self._target = _check_target(target)
        self._kernels: dict = {}

    def _kernel(self, n_args: int) -> Dispatcher:
        """The wrapper kernel: ``i = cuda.grid(1); if i < n: f(x0[i], x1[i], ...)``."""
        found = self._kernels.get(n_args)
        if found is not None:
            return found
        program = _Program()
        program.functions.append({})
        callee = program.function_id(self.py_func)
        params = [f"x{i}" for i in range(n_args)]
        index = _n("Name", id="i")
        args = [_n("Subscript", value=_n("Name", id=p), index=index) for p in params]
        grid = _n("Call", func=_n("Intrinsic", name="cuda.grid"), args=[_n("Int", v="1")], keywords=[])
        count = _n("Subscript", value=_n("Attribute", value=_n("Name", id="x0"), attr="shape"), index=_n("Int", v="0"))
        body = [
            _n("Assign", targets=[_n("Name", id="i")], value=grid),
            _n("If", test=_n("Compare", left=index, ops=["Lt"], comparators=[count]), orelse=[],
               body=[_n("Expr", value=_n("Call", func=_n("Func", id=callee), args=args, keywords=[]))]),
        ]
        program.functions[0] = {
            "name": f"guvectorize_{self.__name__}", "file": "<guvectorize>", "source": "", "first_line": 0,
            "params": params, "body": body, "span": _zero(),
        }
        text = json.dumps({"functions": program.functions, "arrays": program.arrays})
        kernel = Dispatcher.__new__(Dispatcher)
        kernel.py_func = self.py_func
        kernel.__name__ = f"guvectorize_{self.__name__}"
        kernel._device = False
        kernel._setup(kernel.__name__, False, None, lambda: text)
        self._kernels[n_args] = kernel
        return kernel

    def __reduce__(self):
        return (pickling.rebuild, (type(self), pickling.function_spec(self.py_func), *self._made_with))

    def __call__(self, *args, out=None, stream=0):
        device = _device_for(self._target)
        with contextlib.ExitStack() as scope:
            if device is not None:
                scope.enter_context(device)
            if stream not in (0, None):
                scope.enter_context(stream)
            return self._run(args, out)

    def _run(self, args, out):
        nin = len(self._ins)
        given_outs = self._given_outs(args, out)
        values, dtypes, weak, host = _inputs(args[:nin])
        full, as_array = self._loop_for(dtypes, weak)
        arrays = [v.astype(t) if isinstance(v, ndarray) else asarray(np.asarray(v, dtype=t))
                  for v, t in zip(values, full[:nin], strict=True)]
        loop, sizes, count = self._shapes(arrays)
        flat = []
        for a, core, one in zip(arrays, self._ins, as_array, strict=False):
            core_shape = self._core_shape(core, sizes, one)
            if core_shape != tuple(sizes[c] for c in core):
                a = a.reshape((*a.shape, 1))
            b = broadcast_to(a, loop + core_shape)
            flat.append(b.copy().reshape((count, *core_shape)) if b.size else empty((count, *core_shape), a.dtype))
        outs = [empty((count, *self._core_shape(core, sizes, True)), full[nin + k])
                for k, core in enumerate(self._outs)]
        if count:
            kernel = self._kernel(nin + len(self._outs))
            threads = 128
            kernel[(count + threads - 1) // threads, threads](*flat, *outs)
        results = []
        for k, (o, core) in enumerate(zip(outs, self._outs, strict=True)):
            shaped = o.reshape(loop + tuple(sizes[c] for c in core))
            if given_outs:
                target = given_outs[k]
                if isinstance(target, np.ndarray):
                    np.copyto(target, shaped.get())
                else:
                    # A device array, ember's or another library's (viewed, as Numba returns it).
                    target = target if isinstance(target, ndarray) else asarray(target)
                    target[...] = shaped
                shaped = target
            # Host inputs give host results, but a device output given stays on the device.
            results.append(shaped.get() if host and not given_outs and isinstance(shaped, ndarray) else shaped)
        return results[0] if len(results) == 1 else tuple(results)

    def __repr__(self):
        return f"<ember.guvectorize gufunc {self.__name__} {self.layout}>"


def guvectorize(ftylist, signature, target="cpu", identity=None, nopython=True, cache=False, **kws):
    """Numba's ``@guvectorize(signatures, layout, target=...)``: the function receives
    sub-arrays of the core dimensions and writes its outputs in place."""
    _check_options(kws, "guvectorize")
    if not nopython:
        raise TypeError("nopython flag must be True")
    single = isinstance(ftylist, str) or hasattr(ftylist, "return_type")
    sigs = [ftylist] if single else list(ftylist)

    def wrap(fn):
        if target in ("cpu", "parallel"):
            from .cpu_ufunc import CPUGUFunc

            return CPUGUFunc(fn, sigs, signature, target)
        return GUFunc(fn, sigs, signature, target)

    return wrap


def cuda_vectorize(ftylist_or_function=(), target="cuda", **kws):
    """``numba.cuda.vectorize``: :func:`vectorize` with the CUDA target (the current device,
    whatever its backend) by default."""
    return vectorize(ftylist_or_function, target=target, **kws)


def cuda_guvectorize(ftylist, signature, target="cuda", **kws):
    """``numba.cuda.guvectorize``: :func:`guvectorize` with the CUDA target by default."""
    return guvectorize(ftylist, signature, target=target, **kws)


__all__ = ["CUDAUFunc", "GUFunc", "JitError", "cuda_guvectorize", "cuda_vectorize", "guvectorize", "vectorize"]
