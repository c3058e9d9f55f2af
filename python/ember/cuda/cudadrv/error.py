"""``numba.cuda.cudadrv.error``: Numba's driver error classes are ember's."""

from ...errors import CompileError as NvrtcError
from ...errors import DriverError as CudaDriverError
from ...errors import DriverError as CudaRuntimeError
from ...errors import ForkedProcessError  # a CudaDriverError, as Numba's fork detection raises

__all__ = ["CudaDriverError", "CudaRuntimeError", "ForkedProcessError", "NvrtcError"]
