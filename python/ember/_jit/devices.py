"""Numba's device objects: ``cuda.gpus``, ``cuda.get_current_device()``,
``cuda.current_context()``, ``cuda.list_devices()`` and ``cuda.detect()``.

They stand over ember's devices (``ember.Device``: CuPy's face of the same devices), with
Numba's spellings: ``compute_capability`` is a tuple, ``with cuda.gpus[1]:`` makes device 1
current for the block, a context has ``device``, ``synchronize()`` and ``get_memory_info()``.

**Compute capability on OpenCL.** An OpenCL device (PoCL's CPU device, an AMD or Intel GPU) has
no CUDA compute capability. ember reports ``(0, 0)`` there, the value CUDA's own device
properties give when there is no CUDA level to report and the one ``ember.cuda.runtime.
getDeviceProperties`` gives for ``major``/``minor`` (one fact, one place: both come from
``ember._runtime.compute_capability``). A tuple keeps ``cc >= (7, 0)`` comparisons working,
and code that checks a level takes its portable path. ``cuda.detect()`` lists such a device as
supported: ember runs the whole kernel language there.
"""

from __future__ import annotations

from collections import namedtuple

from .. import _ember, _runtime
from .streams import Stream, default_stream, event, external_stream, legacy_default_stream, per_thread_default_stream

# Numba's CU_DEVICE_ATTRIBUTE_* names that ember's device information answers on every backend.
_ATTRIBUTES = {
    "MAX_THREADS_PER_BLOCK": lambda i: i["max_threads_per_block"],
    "MAX_BLOCK_DIM_X": lambda i: i["max_block_dims"][0],
    "MAX_BLOCK_DIM_Y": lambda i: i["max_block_dims"][1],
    "MAX_BLOCK_DIM_Z": lambda i: i["max_block_dims"][2],
    "MULTIPROCESSOR_COUNT": lambda i: i["multiprocessors"],
    "WARP_SIZE": lambda i: i["warp_size"],
    "UNIFIED_ADDRESSING": lambda i: 1,  # CUDA on 64-bit hosts; host pointers on CPU devices
    "INTEGRATED": lambda i: int(bool(i.get("host_unified", False))),
    "KERNEL_EXEC_TIMEOUT": lambda i: 0,
    "TCC_DRIVER": lambda i: 0,
}

MemoryInfo = namedtuple("MemoryInfo", "free,total")


def compute_capability(ordinal: int) -> tuple[int, int]:
    """Device ``ordinal``'s compute capability, ``(0, 0)`` on OpenCL (see the module's doc)."""
    return _runtime.compute_capability(_ember.device_info(ordinal))


class Device:
    """A device as Numba describes it: ``id``, ``name``, ``compute_capability`` (a tuple),
    ``uuid``, and the ``CU_DEVICE_ATTRIBUTE_*`` names ember knows on every backend
    (``MAX_THREADS_PER_BLOCK``, ``MULTIPROCESSOR_COUNT``, ``WARP_SIZE``...) as attributes."""

    def __init__(self, ordinal: int):
        self.id = _runtime.check_device(int(ordinal))

    @property
    def _info(self) -> dict:
        return _ember.device_info(self.id)

    @property
    def name(self) -> str:
        return self._info["name"]

    @property
    def compute_capability(self) -> tuple[int, int]:
        return compute_capability(self.id)

    @property
    def uuid(self) -> str:
        """A stable name for the device within this process (ember does not read the
        hardware UUID): the backend, ordinal and name."""
        return f"{self._info['backend']}-{self.id}-{self.name}"

    @property
    def supports_float16(self) -> bool:
        return self.compute_capability >= (5, 3)

    @property
    def supports_bfloat16(self) -> bool:
        return self.compute_capability >= (8, 0)

    @property
    def supports_fp8(self) -> bool:
        return self.compute_capability >= (8, 9)

    def __getattr__(self, name):
        read = _ATTRIBUTES.get(name)
        if read is None:
            raise AttributeError(
                f"ember does not know the device attribute {name!r}; it knows {', '.join(sorted(_ATTRIBUTES))}"
            )
        return read(self._info)

    def get_primary_context(self) -> Context:
        return Context(self)

    def reset(self):
        """Waits for the device's work and gives its cached memory blocks back (ember keeps
        one context per device for the whole process: nothing is destroyed)."""
        _ember.synchronize(self.id)
        _ember.pool_free_all_blocks(self.id)

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(("ember.cuda.Device", self.id))

    def __repr__(self):
        kind = "CUDA" if self._info["backend"] == "cuda" else "OpenCL"
        return f"<{kind} device {self.id} '{self.name}'>"


class Context:
    """The context of a device (ember has one per device, made when the device is first used)."""

    def __init__(self, device: Device):
        self.device = device

    def synchronize(self):
        _ember.synchronize(self.device.id)

    def get_memory_info(self) -> MemoryInfo:
        """``(free, total)`` bytes (on OpenCL, free is total less what ember's pool holds)."""
        return MemoryInfo(*_runtime.memory_info(self.device.id))

    def reset(self):
        self.device.reset()

    def get_ipc_handle(self, memory):
        """A handle another process opens to reach ``memory`` (``array.gpu_data``): CUDA IPC."""
        from .ipc import get_ipc_handle

        return get_ipc_handle(memory, self.device.id)

    def create_stream(self):
        return Stream(device=self.device.id)

    def get_default_stream(self):
        with _runtime.Device(self.device.id):
            return default_stream()

    def get_legacy_default_stream(self):
        with _runtime.Device(self.device.id):
            return legacy_default_stream()

    def get_per_thread_default_stream(self):
        with _runtime.Device(self.device.id):
            return per_thread_default_stream()

    def create_external_stream(self, ptr):
        with _runtime.Device(self.device.id):
            return external_stream(ptr)

    def create_event(self, timing=True):
        with _runtime.Device(self.device.id):
            return event(timing)

    def __eq__(self, other):
        return isinstance(other, Context) and other.device == self.device

    def __hash__(self):
        return hash(("ember.cuda.Context", self.device.id))

    def __repr__(self):
        return f"<ember context of {self.device!r}>"


class _ManagedDevice:
    """``cuda.gpus[i]``: device ``i``, and a context manager making it current for a block."""

    def __init__(self, ordinal: int):
        self._device = Device(ordinal)
        self._saved: list[int] = []

    def __getattr__(self, name):
        return getattr(self._device, name)

    def __enter__(self):
        self._saved.append(_runtime.current_device_id())
        _runtime._set_device(self._device.id)
        return self

    def __exit__(self, *exc):
        _runtime._set_device(self._saved.pop())

    def __eq__(self, other):
        if isinstance(other, _ManagedDevice):
            return other._device == self._device
        return other == self._device

    def __hash__(self):
        return hash(self._device)

    def __str__(self):
        return f"<Managed Device {self._device.id}>"

    __repr__ = __str__


class _DeviceList:
    """``cuda.gpus``: the devices of ember's backend, as a read-only sequence."""

    _made: list[_ManagedDevice] | None = None

    @property
    def _devices(self) -> list[_ManagedDevice]:
        # Made on first use, not at import (importing ember starts no driver); then the same
        # objects, as Numba's.
        if self._made is None:
            self._made = [_ManagedDevice(i) for i in range(_ember.device_count())]
        return self._made

    def __getitem__(self, index):
        return self._devices[index if isinstance(index, slice) else int(index)]

    def __len__(self):
        return _ember.device_count()

    def __iter__(self):
        return iter(self._devices)

    def __str__(self):
        return ", ".join(str(d) for d in self._devices)

    @property
    def current(self) -> _ManagedDevice:
        """The current device of this thread."""
        return self[_runtime.current_device_id()]


gpus = _DeviceList()


def get_current_device() -> Device:
    """The current device of this thread."""
    return Device(_runtime.current_device_id())


def current_context() -> Context:
    """The current device's context."""
    return Context(get_current_device())


def list_devices() -> _DeviceList:
    """Every device of ember's backend (``cuda.gpus``)."""
    return gpus


def detect() -> bool:
    """Prints the devices ember sees, as Numba's ``cuda.detect()`` does; True when kernels can
    run on at least one."""
    devices = list(gpus)
    backend = _runtime.backend()
    print(f"Found {len(devices)} {'CUDA' if backend == 'cuda' else 'OpenCL'} devices")
    supported = 0
    for dev in devices:
        cc = dev.compute_capability
        if backend == "cuda" and cc < (3, 5):
            status = "[NOT SUPPORTED: CC < 3.5]"
        else:
            status = "[SUPPORTED]"
            supported += 1
        print(f"id {dev.id:d}    {dev.name:>20s} {status:>40s}")
        shown = f"{cc[0]}.{cc[1]}" if backend == "cuda" else "none (OpenCL device)"
        for key, value in (("Compute Capability", shown), ("Backend", backend), ("UUID", dev.uuid),
                           ("Multiprocessors", dev.MULTIPROCESSOR_COUNT), ("Warp size", dev.WARP_SIZE)):
            print(f"{key:>40s}: {value}")
    print("Summary:")
    print(f"\t{supported}/{len(devices)} devices are supported")
    return supported > 0


__all__ = ["Context", "Device", "current_context", "detect", "get_current_device", "gpus", "list_devices"]
