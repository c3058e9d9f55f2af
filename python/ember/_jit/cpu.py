"""Numba's CPU compiler on ember's native back end: ``@ember.jit`` / ``@ember.njit``.

The function is typed by ``ember-jit`` for the types of its arguments (lazily on each new
combination, or now for declared signatures) and compiled to machine code in this process by
Cranelift (``crates/ember-cpu``); a call is dispatched in native code
(``ember._ember.HostFunction``). ember compiles in nopython mode only: what it cannot compile
is a ``JitError`` naming the file, line and construct, never a fallback to the interpreter.
"""

from __future__ import annotations

import inspect
import warnings
from collections import Counter, namedtuple

from .. import _ember
from ..errors import JitWarning
from ..types import Signature, is_type, signature_text
from .front import program_json
from .prange import prange

__all__ = ["CPUDispatcher", "jit", "njit", "prange"]

# Numba's options that ember accepts: those it honours, and hints it leaves to its compiler.
_OPTIONS = {"nopython", "nogil", "cache", "parallel", "fastmath", "boundscheck", "error_model", "inline",
            "looplift", "forceobj", "locals", "debug", "no_cpython_wrapper", "no_cfunc_wrapper", "target",
            "_nrt", "no_rewrites"}


CompileStats = namedtuple("CompileStats", ["cache_path", "cache_hits", "cache_misses"])


class CPUDispatcher(_ember.HostFunction):
    """What ``@ember.njit`` returns: call it as the Python function."""

    _ember_jit_dispatcher = True
    # Calls from other compiled functions type it as a function of theirs.
    _device = True

    def __init__(self, py_func, signatures=(), **options):
        self.py_func = py_func
        self.__name__ = py_func.__name__
        self.__qualname__ = getattr(py_func, "__qualname__", py_func.__name__)
        self.__doc__ = py_func.__doc__
        self.__module__ = py_func.__module__
        self.__wrapped__ = py_func
        self.targetoptions = dict(options)
        self._exceptions: list = []  # what the function's `raise` statements raise, numbered
        error_model = options.get("error_model", "python")
        if error_model not in ("python", "numpy"):
            raise ValueError(f"error_model must be 'python' or 'numpy', got {error_model!r}")
        self._setup(self._front, py_func.__name__, bool(options.get("parallel")), bool(options.get("boundscheck")),
                    bool(options.get("fastmath")), bool(options.get("cache")), error_model == "numpy",
                    py_func.__code__.co_argcount)
        self._signatures = [signature_text(s) for s in signatures]
        for sig in self._signatures:
            self._compile_signature(sig)

    def _bind(self, args: tuple, kwargs: dict | None) -> tuple:
        """The positional arguments of a call with keywords or defaults left out, as Python binds
        them (``TypeError`` as Python's for a call that does not fit the signature)."""
        n = self.py_func.__code__.co_argcount
        if len(args) > n:  # Python's own words
            given = "was" if len(args) == 1 else "were"
            raise TypeError(f"{self.__name__}() takes {n} positional argument{'' if n == 1 else 's'} "
                            f"but {len(args)} {given} given")
        try:
            bound = inspect.signature(self.py_func).bind(*args, **(kwargs or {}))
        except TypeError as e:
            raise TypeError(f"{self.__name__}(): {e}") from None
        bound.apply_defaults()
        return bound.args

    def _front(self):
        return program_json(self.py_func, self._exceptions, host=True), self._exceptions

    @property
    def signatures(self) -> list:
        """The argument types of each compiled specialisation, as Numba lists them."""
        return list(self._specialisations)

    @property
    def stats(self) -> CompileStats:
        """Numba's ``stats``: with ``cache=True``, the cache folder and, per signature, how many
        specialisations were loaded from it (``cache_hits``) or compiled (``cache_misses``)."""
        hits, misses = Counter(), Counter()
        events = self._cache_events
        for signature, loaded in events[1] if events else ():
            (hits if loaded else misses)[signature] += 1
        return CompileStats(events[0] if events else None, hits, misses)

    def compile(self, sig):
        """Compiles for a declared signature now (Numba's ``dispatcher.compile``)."""
        self._compile_signature(signature_text(sig))

    def __repr__(self):
        return f"CPUDispatcher({self.py_func!r})"

    def __get__(self, obj, objtype=None):
        # A compiled function stored on a class is called as a plain function (no binding).
        return self


def _is_signature(value) -> bool:
    return isinstance(value, (str, Signature)) or (
        isinstance(value, tuple) and all(is_type(a) or isinstance(a, str) for a in value))


def jit(signature_or_function=None, locals=None, cache=False, pipeline_class=None, boundscheck=None, **options):
    """Numba's ``@jit``: compile a Python function to machine code for the CPU.

    Forms: ``@jit``, ``@jit()``, ``@jit("float64(float64)")``, ``@jit(["int64(int64)", ...])``,
    ``@jit(float64(float64))`` (ember.types' objects), ``@jit(nopython=True, parallel=True,
    fastmath=True, cache=True, nogil=True, boundscheck=True)``. ember compiles in nopython mode
    only: ``forceobj=True`` is refused, ``nopython=False`` warns and compiles nopython anyway.
    The GIL is released while compiled code runs (``nogil`` is always on).
    """
    unknown = set(options) - _OPTIONS
    if unknown:
        raise KeyError(f"Unrecognized options: {', '.join(sorted(unknown))}")
    if options.get("forceobj"):
        raise ValueError("ember compiles in nopython mode only: forceobj=True (object mode) is not available; "
                         "drop it, or call the function without @jit")
    if options.get("nopython") is False:
        warnings.warn("ember compiles in nopython mode only: nopython=False is ignored", JitWarning, stacklevel=2)
    if pipeline_class is not None:
        raise TypeError("pipeline_class is Numba's compiler internals; ember has its own compiler")
    options = dict(options, cache=bool(cache), boundscheck=boundscheck, locals=locals or {})

    def make(fn, sigs):
        if isinstance(fn, CPUDispatcher):
            fn = fn.py_func
        if not callable(fn):
            raise TypeError(f"@jit decorates a function, got {type(fn).__name__}")
        return CPUDispatcher(fn, sigs, **options)

    if signature_or_function is None:
        return lambda fn: make(fn, ())
    if _is_signature(signature_or_function):
        return lambda fn: make(fn, (signature_or_function,))
    if isinstance(signature_or_function, list):
        sigs = tuple(signature_or_function)
        for s in sigs:
            if not _is_signature(s):
                raise TypeError(f"a signature is a string such as 'float64(float64)', got {type(s).__name__}")
        return lambda fn: make(fn, sigs)
    return make(signature_or_function, ())


def njit(*args, **options):
    """Numba's ``@njit``: ``@jit(nopython=True)``."""
    if "nopython" in options:
        warnings.warn("nopython is set for njit and is ignored", RuntimeWarning, stacklevel=2)
        options.pop("nopython")
    return jit(*args, nopython=True, **options)
