"""The simulator: ``@cuda.jit`` kernels run as Python, thread by thread, for ``pdb``,
``breakpoint()``, ``print`` and tracebacks inside kernels.

On while ``ember.cuda.config.ENABLE_CUDASIM`` is true: set from ``EMBER_SIMULATE=1`` or Numba's
``NUMBA_ENABLE_CUDASIM=1`` when ember is imported, and read when ``@cuda.jit`` decorates a
function (kernels made before it changes keep their kind). Only the user's ``ember.cuda.jit``
switches: the kernels ember writes in Python for itself (sorting, histograms) stay compiled.
"""

from __future__ import annotations

from ... import _config
from ...types import Signature, is_type, signature_text
from .. import dispatcher
from .kernel import SimulatedKernel
from .scope import simulated_intrinsic


def enabled() -> bool:
    return bool(_config.ENABLE_CUDASIM)


def jit(func_or_sig=None, device=False, **options):
    """``ember.cuda.jit`` (see :func:`ember._jit.dispatcher.jit`): compiled kernels, or
    simulated ones while the simulator is on. Options are checked alike either way."""
    if not enabled():
        return dispatcher.jit(func_or_sig, device=device, **options)
    dispatcher.jit(None, device=device, **options)  # refuses what the compiled form refuses; compiles nothing

    debug = bool(options.get("debug"))

    def make(fn, signatures=()):
        fn = getattr(fn, "py_func", fn)
        if not callable(fn):
            raise TypeError(f"@cuda.jit decorates a function, got {type(fn).__name__}")
        return SimulatedKernel(fn, device=device, signatures=signatures, debug=debug, options=options)

    if func_or_sig is None:
        return make
    if isinstance(func_or_sig, (str, Signature)) or (isinstance(func_or_sig, tuple) and all(
            is_type(a) for a in func_or_sig)):
        return lambda fn: make(fn, (signature_text(func_or_sig),))
    if isinstance(func_or_sig, (tuple, list)):
        return lambda fn: make(fn, tuple(signature_text(s) for s in func_or_sig))
    return make(func_or_sig)


jit.ember_user_jit = True  # how kernels' globals are recognised as ember.cuda (kernel.py)
__all__ = ["SimulatedKernel", "enabled", "jit", "simulated_intrinsic"]
