"""``numba.cuda.cudadrv.driver``'s public names: every stream ``ember.cuda`` hands out is a
``Stream`` (``cuda.stream()``, ``default_stream()``, ``external_stream(ptr)``); ``driver`` is the
driver object code asks for the device count and the driver's version."""

from ..._jit.devices import Context, Device
from ..._jit.streams import Event
from ..._jit.streams import StreamBase as Stream
from ...errors import DriverError as CudaAPIError  # noqa: F401
from .. import runtime


class Driver:
    """Numba's ``driver`` singleton, over ember's runtime (CUDA or OpenCL, whichever ember runs)."""

    @property
    def is_available(self) -> bool:
        return runtime.getDeviceCount() > 0

    def get_device_count(self) -> int:
        return runtime.getDeviceCount()

    def get_version(self) -> tuple[int, int]:
        """The CUDA driver's version as (major, minor), as ``driverGetVersion`` gives it."""
        version = runtime.driverGetVersion()
        return version // 1000, version % 1000 // 10


driver = Driver()


def _have_nvjitlink() -> bool:
    # ember compiles each kernel with its device functions and linked CUDA C in one NVRTC
    # program: it never links through nvJitLink, so ``lto=True`` is a hint it has no use for.
    return False


__all__ = ["Context", "CudaAPIError", "Device", "Driver", "Event", "Stream", "driver"]
