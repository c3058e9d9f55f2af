"""The simulator: ``@cuda.jit`` kernels run as Python, thread by thread, for ``pdb``,
``breakpoint()``, ``print`` and tracebacks inside kernels.

On while ``ember.cuda.config.ENABLE_CUDASIM`` is true: set from ``EMBER_SIMULATE=1`` or Numba's
``NUMBA_ENABLE_CUDASIM=1`` when ember is imported, and read when ``@cuda.jit`` decorates a
function (kernels made before it changes keep their kind).
"""

from __future__ import annotations

from .kernel import SimulatedKernel, simulated_intrinsic


def enabled() -> bool:
    from ... import _config

    return bool(_config.ENABLE_CUDASIM)


__all__ = ["SimulatedKernel", "enabled", "simulated_intrinsic"]
