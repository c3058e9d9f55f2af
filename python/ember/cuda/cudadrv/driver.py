"""``numba.cuda.cudadrv.driver``'s public names: every stream ``ember.cuda`` hands out is a
``Stream`` (``cuda.stream()``, ``default_stream()``, ``external_stream(ptr)``)."""

from ..._jit.devices import Context, Device
from ..._jit.streams import Event
from ..._jit.streams import StreamBase as Stream
from ...errors import DriverError as CudaAPIError  # noqa: F401

__all__ = ["Context", "CudaAPIError", "Device", "Event", "Stream"]
