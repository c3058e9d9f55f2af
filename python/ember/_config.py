"""Settings Numba reads from ``numba.cuda.config`` and CuPy from its environment (and their
environment variables), as ``ember.cuda.config``. Set one by assigning the attribute.

- ``CUDA_ARRAY_INTERFACE_SYNC``: wait for the stream an imported ``__cuda_array_interface__``
  names before using the memory (default on). Read from ``EMBER_CUDA_ARRAY_INTERFACE_SYNC``, or
  Numba's ``NUMBA_CUDA_ARRAY_INTERFACE_SYNC`` / CuPy's ``CUPY_CUDA_ARRAY_INTERFACE_SYNC``: code
  ported from either keeps its setting.
- ``ENABLE_CUDASIM``: ``@cuda.jit`` makes kernels the simulator runs as Python (see
  ``ember/_jit/simulator``). Read from ``EMBER_SIMULATE`` or Numba's ``NUMBA_ENABLE_CUDASIM``;
  ``@cuda.jit`` reads it each time it decorates a function.
"""

from __future__ import annotations

import os


def _flag(*names: str, default: bool) -> bool:
    for name in names:
        value = os.environ.get(name)
        if value is not None:
            return value.strip().lower() not in ("0", "false", "no", "off", "")
    return default


CUDA_ARRAY_INTERFACE_SYNC = _flag(
    "EMBER_CUDA_ARRAY_INTERFACE_SYNC", "NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "CUPY_CUDA_ARRAY_INTERFACE_SYNC",
    default=True,
)

ENABLE_CUDASIM = _flag("EMBER_SIMULATE", "NUMBA_ENABLE_CUDASIM", default=False)
