"""Numba's ``numba.cuda.cudadrv`` names that user code imports for type checks (``driver.Stream``,
``devicearray.DeviceNDArray``), over ember's objects: nothing here is a second implementation."""

from . import devicearray, driver, error  # noqa: F401
