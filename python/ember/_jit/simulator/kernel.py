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
import pickle

from ...errors import DeviceFunctionLaunchError
from .. import pickling
from . import scope
from .arguments import Arguments, scalar
from .launch import MAX_THREADS_PER_BLOCK, configuration, run
from .threads import running

_LAUNCH_HELP = (
    "Kernel launch configuration was not specified. Use the syntax:\n\n"
    "kernel_function[blockspergrid, threadsperblock](arg0, arg1, ..., argn)"
)


class SimulatedKernel:
    """``@cuda.jit`` under the simulator: a kernel (``kernel[griddim, blockdim](*args)``) or a
    device function (called from kernels, and from host code too). Explicit signatures cast the
    scalar arguments to their types, as the compiled kernel would take them; ``debug=True`` makes
    floating-point division by zero raise, as Numba's debug mode does."""

    simulated = True  # how scope.py tells one from a compiled kernel

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
        if not self._device and running() is None:
            raise ValueError(_LAUNCH_HELP)
        # A device function (or a kernel a kernel calls): a signature casts its arguments and
        # its result, as the compiled call does.
        sig = self._signature(len(args)) if self._signatures else None
        if sig is None:
            return scope.function(self.py_func)(*args, **kwargs)
        result = scope.function(self.py_func)(*self._cast(args), **kwargs)
        return scalar(result, getattr(sig, "return_type", None))

    def __getitem__(self, config):
        if self._device:
            raise DeviceFunctionLaunchError(
                f"Cannot compile a device function as a kernel: {self.__name__} is a device function: call it "
                "from a kernel; only kernels are launched with kernel[griddim, blockdim](...)")
        griddim, blockdim, sharedmem = configuration(config)
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
        return [scalar(a, k) for a, k in zip(args, kinds, strict=True)]

    def _launch(self, griddim, blockdim, sharedmem, args):
        from ..host import synchronize

        synchronize()  # the arguments' producers finish before the host copies them
        arguments = Arguments()
        host_args = [arguments.host(a) for a in self._cast(args)]
        fn = scope.fresh().get(self.py_func)  # globals are read afresh at each launch
        errors = {"divide": "raise"} if self._debug else {}
        try:
            run(fn, host_args, griddim, blockdim, sharedmem, self.py_func, errors)
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
