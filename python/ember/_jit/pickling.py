"""Pickling kernels, device functions and ufuncs, as Numba pickles them: the Python function
and the options, from which the other side builds the object again (and compiles on first use;
ember's disk cache makes that a lookup).

A function defined at module level travels by reference (its module and name, as pickle sends
functions); one defined inside another function travels as its code, through ``cloudpickle``
(Numba ships a copy of it for the same job), which pickles the device functions it closes over
in turn.
"""

from __future__ import annotations

import importlib
import pickle


def function_spec(fn) -> tuple:
    """How ``fn`` (a kernel's Python function) travels."""
    qualname = getattr(fn, "__qualname__", fn.__name__)
    if "<locals>" not in qualname and "<lambda>" not in qualname:
        return ("ref", fn.__module__, qualname)
    try:
        import cloudpickle
    except ImportError:
        raise pickle.PicklingError(
            f"{qualname} is defined inside a function: pickling it sends its code, which needs the "
            "cloudpickle package (pip install cloudpickle); or define it at module level"
        ) from None
    return ("code", cloudpickle.dumps(fn))


def load_function(spec: tuple):
    """The object a :func:`function_spec` names: for a reference, what the module holds under
    that name now (the decorated object itself)."""
    if spec[0] == "ref":
        obj = importlib.import_module(spec[1])
        for part in spec[2].split("."):
            obj = getattr(obj, part)
        return obj
    return pickle.loads(spec[1])


def rebuild(factory, spec: tuple, *args):
    """The other side of a ``__reduce__``: the module's own object where it is one of ours (a
    kernel pickled by reference), else ``factory(py_func, *args)``."""
    fn = load_function(spec)
    if spec[0] == "ref" and isinstance(fn, factory):
        return fn
    return factory(getattr(fn, "py_func", fn), *args)
