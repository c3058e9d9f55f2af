"""Kernels the simulator runs: what ``@cuda.jit`` returns while ``EMBER_SIMULATE=1`` (or
Numba's ``NUMBA_ENABLE_CUDASIM=1``) is set.

A launch copies its array arguments to the host, runs the kernel's own Python function once
per thread, block after block, with a ``cuda`` that answers for the running thread, and copies
back what the threads wrote. Kernels that meet at barriers (``syncthreads``, the warp
functions, ``grid.sync()``) run a block's threads one at a time, switching at the barriers (as
greenlets, or pooled Python threads without the greenlet package: ``threads.py``); the others
run thread after thread on the caller's thread, where ``pdb`` is at home.
Exceptions surface with the kernel's own traceback and the thread that raised them.
"""

from __future__ import annotations

import functools
import itertools
import math
import pickle
import types as pytypes

import numpy as np

from ... import _ember
from ..._intrinsic import DeviceOnly
from ..._operands import on_device
from ...errors import DeviceFunctionLaunchError
from .. import intrinsics, pickling
from . import device_api as api
from .arrays import kernel_view
from .math_api import BY_FUNCTION as MATH_FUNCTIONS
from .math_api import SIMULATED_MATH
from .threads import Aborted, Launch, Pool, greenlets_available, run_greenlets

MAX_THREADS_PER_BLOCK = 1024
# Kernels with barriers run as greenlets where the greenlet package is installed (ember's
# `simulator` extra), else on a pool of Python threads; tests switch this to check both.
GREENLETS = True  # CUDA's limit, which the simulated kernels keep
_LAUNCH_HELP = (
    "Kernel launch configuration was not specified. Use the syntax:\n\n"
    "kernel_function[blockspergrid, threadsperblock](arg0, arg1, ..., argn)"
)
# Device API calls that make threads wait for one another: a kernel that reaches one runs its
# threads as Python threads.
_MEETS = {
    "syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or", "syncwarp",
    "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "all_sync", "any_sync", "eq_sync",
    "ballot_sync", "match_any_sync", "match_all_sync", "this_grid",
}
_PURE_MODULES = {"math", "cmath", "numpy", "operator", "numba", "ember", "ember.types"}


class _SimulatedCuda:
    """The ``cuda`` module as a simulated kernel sees it: the device API of ``device_api``
    (one attribute per row of the intrinsic registry); everything else from ``ember.cuda``."""

    warpsize = api.WARP
    threadIdx = property(lambda self: api.current().index)
    blockIdx = property(lambda self: api.current().block.index)
    blockDim = property(lambda self: api.current().block.dim)
    gridDim = property(lambda self: api.current().block.grid)
    laneid = property(lambda self: api.current().lane)

    def __getattr__(self, name):
        # Numba's type objects (cuda.float32(x)): the rest of ember.cuda is host API.
        from ... import types

        try:
            return getattr(types, name)
        except AttributeError:
            raise AttributeError(f"the simulator's cuda has no {name!r}: kernels use the device API") from None

    def __repr__(self):
        return "<ember.cuda as the simulator's kernels see it>"


_THREAD_STATE = {"threadIdx", "blockIdx", "blockDim", "gridDim", "laneid", "warpsize"}


def _build() -> _SimulatedCuda:
    cuda = _SimulatedCuda()
    for name in _ember.jit_intrinsics():
        first = name.split(".")[1]
        if first not in _THREAD_STATE:
            cuda.__dict__[first] = getattr(api, first)
    return cuda


SIMULATED_CUDA = _build()


def simulated_intrinsic(dotted: str):
    """The simulator's implementation of registry row ``dotted`` ("cuda.atomic.add")."""
    value = SIMULATED_CUDA
    for part in dotted.split(".")[1:]:
        value = getattr(value, part)
    return value


def _is_cuda_module(value) -> bool:
    """``ember.cuda``, or a module presenting it (``numba.cuda`` of a shim): its ``jit`` is ours."""
    return isinstance(value, pytypes.ModuleType) and getattr(getattr(value, "jit", None), "ember_user_jit", False)


def _simulated(value):
    """What a kernel's global or closure value ``value`` is inside the simulator."""
    if _is_cuda_module(value):
        return SIMULATED_CUDA
    if value is math:
        return SIMULATED_MATH
    if callable(value) and id(value) in MATH_FUNCTIONS and getattr(math, value.__name__, None) is value:
        return MATH_FUNCTIONS[id(value)]
    if isinstance(value, pytypes.ModuleType) and value.__name__ == "ember.cuda.random":
        return api.random
    if isinstance(value, DeviceOnly):
        return simulated_intrinsic(value.intrinsic)
    if isinstance(value, intrinsics.Namespace):
        return simulated_intrinsic(value._name)
    if isinstance(value, SimulatedKernel):
        return value
    if getattr(value, "_ember_jit_dispatcher", False) and value._device:  # compiled before the switch
        return SimulatedKernel(value.py_func, device=True)
    return value


def _round(x, ndigits=None):
    """``round`` as the compiled kernels round: to ``ndigits`` decimals correctly rounded (Python's
    rule, in the operand's float type), the operand itself where the result would overflow."""
    if ndigits is None or not isinstance(x, (float, np.floating)):
        return round(x) if ndigits is None else round(x, ndigits)
    kind = type(x) if isinstance(x, np.floating) else float
    if not math.isfinite(float(x)):
        return x
    try:
        y = round(float(x), int(ndigits))
    except OverflowError:
        return x
    with np.errstate(over="ignore"):
        out = kind(y)
    return out if math.isfinite(float(out)) else x


class _Functions:
    """The kernel's function and its device functions, with their globals seen through
    ``_simulated``: made once per launch (globals may change between launches)."""

    def __init__(self):
        self._made: dict = {}

    def get(self, fn):
        made = self._made.get(fn.__code__)
        if made is None:
            scope = {k: _simulated(v) for k, v in fn.__globals__.items()}
            scope.setdefault("round", _round)  # the builtin, as kernels round
            closure = None
            if fn.__closure__:
                closure = tuple(pytypes.CellType(_simulated(_cell(c))) for c in fn.__closure__)
            made = pytypes.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, closure)
            made.__kwdefaults__ = fn.__kwdefaults__
            self._made[fn.__code__] = made
        return made


def _cell(cell):
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell (a name bound later)
        return None


_functions = _Functions()


def _reach(fn) -> tuple[set, bool]:
    """The names the code of ``fn`` and of the functions it calls uses, and whether it calls
    into a module ember cannot see through."""
    names: set = set()
    opaque = False
    seen: set = set()
    todo = [fn]
    while todo:
        item = todo.pop()
        f = getattr(item, "py_func", item)
        code = getattr(f, "__code__", None)
        if code is None or code in seen:
            continue
        seen.add(code)
        own: set = set()
        stack = [code]
        while stack:
            c = stack.pop()
            own.update(c.co_names)
            stack.extend(k for k in c.co_consts if isinstance(k, pytypes.CodeType))
        names |= own
        scope = {k: v for k, v in f.__globals__.items() if k in own}
        if f.__closure__:
            scope.update(zip(code.co_freevars, (_cell(c) for c in f.__closure__), strict=True))
        for value in scope.values():
            if isinstance(value, pytypes.ModuleType):
                pure = _is_cuda_module(value) or value.__name__ in _PURE_MODULES or value.__name__.startswith("ember.")
                opaque = opaque or not pure
            elif callable(value):
                todo.append(value)
    return names, opaque


# ---- launch configuration ----


def _dims(value, what: str) -> api.Dim3:
    items = list(value) if isinstance(value, (tuple, list)) else [value]
    if not 1 <= len(items) <= 3:
        raise ValueError(f"{what} must be a sequence of 1, 2 or 3 integers, got {items} "
                         "(an int or a tuple of 1 to 3 positive ints)")
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items):
        raise TypeError(f"{what} must be a sequence of integers, got {items} (an int or a tuple of 1 to 3 "
                        "positive ints)")
    return api.Dim3(*items)


def _config(config):
    items = list(config) if isinstance(config, tuple) else [config]
    if not 2 <= len(items) <= 4:
        raise ValueError("a launch configuration is kernel[griddim, blockdim] or kernel[griddim, blockdim, stream, "
                         f"sharedmem], got {len(items)} item(s)")
    griddim, blockdim = _dims(items[0], "griddim"), _dims(items[1], "blockdim")
    if min(griddim) < 1 or min(blockdim) < 1:
        raise ValueError("griddim and blockdim must be at least 1 in every dimension, got "
                         f"griddim={items[0]} and blockdim={items[1]}")
    threads = blockdim[0] * blockdim[1] * blockdim[2]
    if threads > MAX_THREADS_PER_BLOCK:
        raise ValueError(f"blockdim={items[1]} asks for {threads} threads per block; CUDA blocks (and the "
                         f"simulator's) hold at most {MAX_THREADS_PER_BLOCK}")
    sharedmem = int(items[3]) if len(items) > 3 else 0
    return griddim, blockdim, sharedmem


# ---- arguments ----


def _root(array):
    """The allocation ``array`` views: the array at the end of its ``base`` chain."""
    from ..._ndarray import ndarray

    root = array
    while isinstance(getattr(root, "base", None), ndarray):
        root = root.base
    return root


class _Arguments:
    """The kernel's arguments on the host: NumPy arrays as they are, device arrays as views of
    a host copy of the allocation they view (so aliased arguments stay aliased), copied back
    after the launch where the threads changed them."""

    def __init__(self):
        self._copies: dict = {}  # id(root) -> (root, host copy, snapshot)
        self._records: list = []  # (the caller's record, the copy the kernel saw)

    def host(self, value):
        from ..._creation import asarray

        if isinstance(value, np.ndarray):
            return kernel_view(value)
        if isinstance(value, np.void) and value.dtype.names is not None:
            # A record is passed by reference: the kernel's writes reach it after the launch.
            holder = np.empty(1, dtype=(np.record, value.dtype))
            holder[0] = value
            self._records.append((value, holder))
            return holder[0]
        if isinstance(value, tuple):
            items = [self.host(v) for v in value]
            return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
        if on_device(value):
            array = asarray(value)
            root = _root(array)
            if root is not array and (root._a.offset != 0 or not root.flags.c_contiguous):
                root = array
            entry = self._copies.get(id(root))
            if entry is None:
                host = root.get()
                entry = self._copies[id(root)] = (root, host, host.copy())
            if root is array:
                return kernel_view(entry[1])
            view = np.ndarray(array.shape, array.dtype, buffer=entry[1], offset=array._a.offset,
                              strides=array.strides)
            return kernel_view(view)
        return value

    def write_back(self):
        for record, holder in self._records:
            for name in record.dtype.names:
                record[name] = holder[0][name]
        for root, host, snapshot in self._copies.values():
            if host.tobytes() != snapshot.tobytes():
                root.set(host)


# ---- running the threads ----


class DivisionByZero(ZeroDivisionError, FloatingPointError):
    """A division by zero in a ``debug=True`` kernel: ``ZeroDivisionError`` as the compiled
    kernel raises it, and NumPy's ``FloatingPointError``, which Numba's simulator raises."""


def _raised(error: BaseException, thread) -> BaseException:
    """``error`` as the launch raises it: its message led by the thread, its traceback kept."""
    if thread is None:
        return error
    if type(error) is FloatingPointError and "divide by zero" in str(error):
        error = DivisionByZero(str(error)).with_traceback(error.__traceback__)
    text = str(error)
    message = f"{thread.where()}: {text}" if text else thread.where()
    try:
        named = type(error)(message)
    except Exception:  # an exception class that takes other arguments: the note names the thread
        error.add_note(f"raised by the simulated thread {thread.where()}")
        return error
    return named.with_traceback(error.__traceback__)


def _blocks(griddim, blockdim, launch, sharedmem):
    for z, y, x in itertools.product(range(griddim[2]), range(griddim[1]), range(griddim[0])):
        block = api.Block(api.Dim3(x, y, z), blockdim, griddim, launch, np.zeros(sharedmem, np.uint8))
        block.threads = [api.Thread(api.Dim3(tx, ty, tz), block) for tz, ty, tx in
                         itertools.product(range(blockdim[2]), range(blockdim[1]), range(blockdim[0]))]
        block.live = len(block.threads)
        yield block


def _run_in_turn(fn, args, griddim, blockdim, sharedmem, errors):
    """Thread after thread on this Python thread: kernels that never wait for one another."""
    launch = Launch()
    try:
        with np.errstate(**errors):
            for block in _blocks(griddim, blockdim, launch, sharedmem):
                for thread in block.threads:
                    launch.running = {thread}
                    api.enter(thread)
                    try:
                        fn(*args)
                    except Exception as error:
                        raise _raised(error, thread) from None
    finally:
        api.enter(None)


def _run_together(fn, args, blocks, errors, pool):
    """The threads of ``blocks`` on the pool's Python threads, taking turns at barriers."""
    launch = blocks[0].launch
    threads = [t for b in blocks for t in b.threads]

    def body(thread):
        api.enter(thread)
        try:
            with np.errstate(**errors):  # NumPy's error state is each thread's own
                fn(*args)
        except Aborted:
            pass
        except BaseException as error:  # noqa: BLE001  (re-raised on the launching thread)
            launch.fail(error, thread)
        finally:
            api.enter(None)
            thread.block.live -= 1
            launch.leave(thread)

    if pool is None:
        run_greenlets(launch, threads, body, api.enter)
        api.enter(None)
    else:
        pool.run(launch, threads, body)
    if launch.failure is not None:
        error, thread = launch.failure
        raise _raised(error, thread) from None


def _run(fn, args, griddim, blockdim, sharedmem, kernel, errors):
    names, opaque = _reach(kernel)
    if not ("this_grid" in names or opaque or names & _MEETS):
        _run_in_turn(fn, args, griddim, blockdim, sharedmem, errors)
        return
    pool = None if GREENLETS and greenlets_available() else Pool()
    try:
        if "this_grid" in names:
            launch = Launch()
            launch.cooperative = True
            _run_together(fn, args, list(_blocks(griddim, blockdim, launch, sharedmem)), errors, pool)
        else:
            for block in _blocks(griddim, blockdim, None, sharedmem):
                block.launch = Launch()
                _run_together(fn, args, [block], errors, pool)
    finally:
        if pool is not None:
            pool.close()


class SimulatedKernel:
    """``@cuda.jit`` under the simulator: a kernel (``kernel[griddim, blockdim](*args)``) or a
    device function (called from kernels, and from host code too). Explicit signatures cast the
    scalar arguments to their types, as the compiled kernel would take them; ``debug=True`` makes
    floating-point division by zero raise, as Numba's debug mode does."""

    def __init__(self, py_func, device=False, signatures=(), debug=False, options=None):
        self.py_func = py_func
        functools.update_wrapper(self, py_func, updated=())  # its name, qualname, module and doc
        self._device = device
        self._signatures = list(signatures)
        # The compiler reads a simulated device function as it reads a compiled one (py_func,
        # _device, _signatures): cuda.vectorize and compiled kernels can call it.
        self._ember_jit_dispatcher = True
        self._debug = debug
        self._options = dict(options or {})  # the decorator's, for the compiled views (inspect_asm...)

    def __reduce__(self):
        return (pickling.rebuild, (type(self), pickling.function_spec(self.py_func), self._device,
                                   tuple(self._signatures), self._debug, self._options))

    def __repr__(self):
        kind = "device function" if self._device else "kernel"
        return f"<ember.cuda.jit {kind} {self.__qualname__} (simulated)>"

    def __call__(self, *args, **kwargs):
        if not self._device and api.running() is None:
            raise ValueError(_LAUNCH_HELP)
        # A device function (or a kernel a kernel calls): a signature casts its arguments and
        # its result, as the compiled call does.
        sig = self._signature(len(args)) if self._signatures else None
        if sig is None:
            return _functions.get(self.py_func)(*args, **kwargs)
        result = _functions.get(self.py_func)(*self._cast(args), **kwargs)
        return _scalar(result, getattr(sig, "return_type", None))

    def __getitem__(self, config):
        if self._device:
            raise DeviceFunctionLaunchError(
                f"Cannot compile a device function as a kernel: {self.__name__} is a device function: call it "
                "from a kernel; only kernels are launched with kernel[griddim, blockdim](...)")
        griddim, blockdim, sharedmem = _config(config)
        return _Configured(self, griddim, blockdim, sharedmem)

    def forall(self, ntasks: int, tpb: int = 0, stream=0, sharedmem: int = 0):
        """A launcher of ``ntasks`` threads in one dimension (``kernel.forall(n)(*args)``)."""
        if ntasks < 0:
            raise ValueError(f"Can't create ForAll with negative task count: {ntasks}")
        tpb = tpb or min(ntasks, MAX_THREADS_PER_BLOCK) or 1
        return self[max(1, -(-ntasks // tpb)), tpb, stream, sharedmem]

    def specialize(self, *args):
        return self

    def __getattr__(self, name):
        # The compiler's views of the kernel (inspect_asm, inspect_llvm, get_regs_per_thread...):
        # the same function compiled, on demand; running stays simulated.
        if name.startswith(("inspect_", "get_")):
            compiled = self.__dict__.get("_compiled")
            if compiled is None:
                from .. import dispatcher

                sigs = list(self._signatures) or None
                decorate = dispatcher.jit(sigs, device=self._device, **self._options)
                compiled = self.__dict__["_compiled"] = decorate(self.py_func)
            return getattr(compiled, name)
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    @property
    def overloads(self) -> dict:
        return {}

    def _signature(self, count: int):
        """The first explicit signature taking ``count`` arguments (its argument and return
        types), or None."""
        from ...types import parse_signature

        for sig in self._signatures:
            try:
                parsed = parse_signature(sig)
            except (TypeError, ValueError, SyntaxError):  # a form only the compiler reads
                continue
            if len(parsed.args) == count:
                return parsed
        return None

    def _cast(self, args):
        """Scalar arguments in the types the explicit signature declares, else as Numba types
        Python numbers."""
        sig = self._signature(len(args))
        kinds = sig.args if sig is not None else [None] * len(args)
        return [_scalar(a, k) for a, k in zip(args, kinds, strict=True)]

    def _launch(self, griddim, blockdim, sharedmem, args):
        from ..host import synchronize

        synchronize()  # the arguments' producers finish before the host copies them
        arguments = _Arguments()
        host_args = [arguments.host(a) for a in self._cast(args)]
        global _functions
        _functions = _Functions()  # globals are read afresh at each launch
        fn = _functions.get(self.py_func)
        errors = {"divide": "raise"} if self._debug else {}
        try:
            _run(fn, host_args, griddim, blockdim, sharedmem, self.py_func, errors)
        finally:
            arguments.write_back()  # what ran before an exception is kept, as on the device


class _Configured:
    """``kernel[griddim, blockdim, stream, sharedmem]``: call it with the arguments."""

    def __init__(self, kernel, griddim, blockdim, sharedmem):
        self.kernel, self.griddim, self.blockdim, self.sharedmem = kernel, griddim, blockdim, sharedmem
        self.pre_launch_callbacks: list = []  # Numba's: f(kernel, launch) before each launch

    def __call__(self, *args):
        for callback in self.pre_launch_callbacks:
            callback(self.kernel, self)
        self.kernel._launch(self.griddim, self.blockdim, self.sharedmem, args)

    def __reduce__(self):
        if self.pre_launch_callbacks:
            raise pickle.PicklingError("Cannot pickle configured launches with pre-launch callbacks")
        return (_configured, (self.kernel, tuple(self.griddim), tuple(self.blockdim), self.sharedmem))


def _configured(kernel, griddim, blockdim, sharedmem):
    return kernel[griddim, blockdim, 0, sharedmem]


def _scalar(value, kind):
    """A scalar as the kernel takes it: in its signature's type (integers wrap, as C casts),
    else as Numba types a Python number (int64, float64, complex128), so arithmetic wraps and
    divides as on the device."""
    from ...types import as_dtype, is_type

    numeric = isinstance(value, (int, float, complex, np.number)) and not isinstance(value, (bool, np.bool_))
    if kind is not None and numeric and is_type(kind):
        try:
            dtype = as_dtype(kind)
        except (TypeError, ValueError):
            return value
        if dtype.kind in "iu" and isinstance(value, (int, np.integer)):
            bits = dtype.itemsize * 8
            wrapped = int(value) & ((1 << bits) - 1)
            if dtype.kind == "i" and wrapped >= 1 << (bits - 1):
                wrapped -= 1 << bits
            return dtype.type(wrapped)
        if dtype.kind in "fc" or (dtype.kind in "iu" and np.isfinite(value)):
            return dtype.type(value)
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float, complex)):
        return value
    if isinstance(value, int):
        return np.int64(value) if -(2**63) <= value < 2**63 else np.uint64(value)
    return np.float64(value) if isinstance(value, float) else np.complex128(value)
