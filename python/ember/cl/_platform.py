"""Platforms, devices and contexts: ember's OpenCL devices as PyOpenCL presents them.

ember opens each OpenCL device once (with its own native context and queues) and knows it by an
ember device ordinal. ``get_platforms()`` groups those devices by the OpenCL platform they belong
to, using the platform list that ``ember info`` prints; platforms without a device ember opened
are not listed. A ``Context`` is a set of these devices: buffers live on its first device.
"""

from __future__ import annotations

import re
import sys
import warnings

from .. import _ember
from .. import errors as _ember_errors
from . import _handles, _info
from ._constants import context_info, context_properties, device_info, device_type, status_code
from ._errors import Error, LogicError, RuntimeError, invalid


class Platform:
    """An OpenCL platform (driver) and its devices; every ``platform_info`` parameter is an
    attribute (``p.vendor``, ``p.extensions``) and ``get_info`` answers it from the driver."""

    def __init__(self, name: str, version: str):
        self.name = name
        self.version = version
        self._devices: list[Device] = []

    def get_devices(self, device_type=device_type.ALL) -> list[Device]:
        """This platform's devices of ``device_type`` (a ``device_type`` bit mask)."""
        # None of that type is an empty list, as PyOpenCL answers DEVICE_NOT_FOUND.
        return [d for d in self._devices if d.type & device_type]

    def get_info(self, param):
        return _query(self._devices[0].ordinal, True, _info.PLATFORM, param, "clGetPlatformInfo")

    def _get_cl_version(self) -> tuple[int, int]:
        """The OpenCL version the platform implements, from ``version`` ("OpenCL 3.0 ...")."""
        return _cl_version(self.version)

    @property
    def int_ptr(self) -> int:
        """The ``cl_platform_id``."""
        return _ember.cl_handles(self._devices[0].ordinal)[0]

    def __getattr__(self, name):
        return _attribute(self, name, _info.PLATFORM, "Platform")

    def __repr__(self):
        return f"<ember.cl.Platform {self.name!r}>"


class Device:
    """An OpenCL device that ember opened. ``ordinal`` is its ember device number
    (``ember.Device(d.ordinal)`` allocates ember arrays there). Every ``device_info``
    parameter is an attribute (``d.local_mem_size``, ``d.extensions``) and ``get_info``
    answers it from the driver."""

    def __init__(self, ordinal: int, platform: Platform):
        info = _ember.device_info(ordinal)
        self.ordinal = ordinal
        self.platform = platform
        self.name = info["name"]
        self.type = device_type.CPU if info["is_cpu"] else device_type.GPU
        self.host_unified_memory = bool(info["host_unified"])
        self._compute_units = int(info["multiprocessors"])  # read once: launches size grids by it

    @property
    def ember_device(self):
        """This device as an ``ember.Device`` (a context manager for allocating ember arrays)."""
        from .._runtime import Device as EmberDevice

        return EmberDevice(self.ordinal)

    def get_info(self, param):
        if param == device_info.PLATFORM:
            return self.platform
        if param == device_info.PARENT_DEVICE:
            return None  # ember opens whole devices, never sub-devices
        return _query(self.ordinal, False, _info.DEVICE, param, "clGetDeviceInfo")

    def __getattr__(self, name):
        return _attribute(self, name, _info.DEVICE, "Device")

    def _get_cl_version(self) -> tuple[int, int]:
        """The OpenCL version the device implements, from ``version`` ("OpenCL 3.0 ...")."""
        return _cl_version(self.version)

    @property
    def int_ptr(self) -> int:
        """The ``cl_device_id``."""
        return _ember.cl_handles(self.ordinal)[1]

    @property
    def hashable_model_and_version_identifier(self) -> tuple:
        """What identifies the device's model and driver (for caches keyed by device)."""
        return ("v1", self.vendor, self.vendor_id, self.name, self.version)

    @property
    def persistent_unique_id(self) -> tuple:
        """Deprecated name of :attr:`hashable_model_and_version_identifier`."""
        warnings.warn("Device.persistent_unique_id is deprecated; use hashable_model_and_version_identifier",
                      DeprecationWarning, stacklevel=2)
        return self.hashable_model_and_version_identifier

    def __eq__(self, other):
        return isinstance(other, Device) and other.ordinal == self.ordinal

    def __hash__(self):
        return hash(("ember.cl.Device", self.ordinal))

    def __repr__(self):
        return f"<ember.cl.Device {self.name!r} on {self.platform.name!r} (ember device {self.ordinal})>"


class DeviceTopologyAmd:
    """An AMD device's PCI location (``cl_amd_device_attribute_query``'s topology)."""

    __slots__ = ("bus", "device", "function", "type")

    def __init__(self, bus=0, device=0, function=0):
        self.type = 1  # CL_DEVICE_TOPOLOGY_TYPE_PCIE_AMD
        self.bus, self.device, self.function = int(bus), int(device), int(function)


def unload_platform_compiler(platform) -> None:
    """OpenCL's hint that the platform's compiler may be unloaded; ember keeps it, as a driver
    may (it loads again on the next build either way)."""


def _cl_version(text: str) -> tuple[int, int]:
    found = re.match(r"OpenCL (\d+)\.(\d+)", text)
    return (int(found[1]), int(found[2])) if found else (1, 2)


def _query(ordinal: int, of_platform: bool, table: dict, param, routine: str):
    kind = _info.kind_of(table, param)
    if kind is None:
        raise invalid(routine, status_code.INVALID_VALUE,
                      f"information parameter {param!r} is not one ember.cl knows how to read")
    try:
        raw = _ember.opencl_info(ordinal, of_platform, int(param))
    except _ember_errors.DriverError as e:
        raise invalid(routine, status_code.INVALID_VALUE, str(e)) from None
    return _info.decode(raw, kind)


def _attribute(obj, name: str, table: dict, what: str):
    entry = table.get(name.upper()) if not name.startswith("_") else None
    if entry is None:
        raise AttributeError(f"'{what}' object has no attribute {name!r}")
    return obj.get_info(entry[0])


def _info_of(obj, names: dict, param, routine: str):
    try:
        return getattr(obj, names[param])
    except KeyError:
        raise invalid(routine, status_code.INVALID_VALUE,
                      f"info parameter {param!r} is not available in ember.cl; "
                      f"available: {', '.join(sorted(names.values()))}") from None


def _type_name(mask: int) -> str:
    return device_type.to_string(mask, "type-%#x")


_platforms: list[Platform] | None = None


def get_platforms() -> list[Platform]:
    """The OpenCL platforms that have a device ember opened, in ember's device order."""
    global _platforms
    if _platforms is None:
        _platforms = _discover()
    if not _platforms:
        raise Error("no platforms found", routine="clGetPlatformIDs", code=status_code.PLATFORM_NOT_FOUND_KHR)
    return list(_platforms)


def _discover() -> list[Platform]:
    ordinals = _ember.opencl_device_ids()
    report = _ember.info_report().get("opencl", (False, []))
    known = report[1] if report[0] else []
    platforms: dict[tuple[str, str], Platform] = {}
    for ordinal in ordinals:
        compiler = _ember.device_info(ordinal)["compiler"]
        # The native device reports "<platform name> <platform version> <driver version>".
        key = next(((n, v) for n, v, _ in known if compiler.startswith(f"{n} {v}")), ("OpenCL", compiler))
        platform = platforms.get(key)
        if platform is None:
            platform = platforms[key] = Platform(*key)
        platform._devices.append(Device(ordinal, platform))
    return list(platforms.values())


def _all_devices() -> list[Device]:
    return [d for p in get_platforms() for d in p._devices]


class Context:
    """A set of devices that buffers and programs belong to.

    ``Context(devices)``, ``Context(dev_type=device_type.ALL)``, or ``Context()`` for the
    default (first) device. ``properties`` may name the platform:
    ``[(context_properties.PLATFORM, platform)]``. Buffers are allocated on ``devices[0]``; a
    kernel on another device of the same context cannot use them (ember gives each device its
    own native context).
    """

    def __init__(self, devices=None, properties=None, dev_type=None, cache_dir=None):
        platform = None
        for key, value in properties or ():
            if key != context_properties.PLATFORM or not isinstance(value, Platform):
                raise invalid("Context", status_code.INVALID_VALUE,
                              f"unsupported context property ({key!r}, {value!r}); only "
                              f"(context_properties.PLATFORM, platform) is supported", cls=LogicError)
            platform = value
        if devices is not None:
            if dev_type is not None:
                raise invalid("Context", status_code.INVALID_VALUE, "give devices or dev_type, not both")
            devices = list(devices)
            if not devices or not all(isinstance(d, Device) for d in devices):
                raise invalid("Context", status_code.INVALID_DEVICE,
                              f"devices must be a non-empty list of ember.cl.Device, got {devices!r}", cls=LogicError)
        else:
            platform = platform or get_platforms()[0]
            if dev_type is None or dev_type == device_type.DEFAULT:
                devices = platform.get_devices()[:1]
            else:
                devices = platform.get_devices(dev_type)
        self.devices = devices
        self.properties = list(properties or ())

    @property
    def num_devices(self) -> int:
        return len(self.devices)

    def _get_cl_version(self) -> tuple[int, int]:
        """The OpenCL version of the context's platform."""
        return self.devices[0].platform._get_cl_version()

    @property
    def int_ptr(self) -> int:
        """The ``cl_context`` of the first device (ember gives each device its own)."""
        return _handles.seen(self, _ember.cl_handles(self.devices[0].ordinal)[2])

    def get_info(self, param):
        names = {context_info.DEVICES: "devices", context_info.NUM_DEVICES: "num_devices",
                 context_info.PROPERTIES: "properties"}
        return _info_of(self, names, param, "clGetContextInfo")

    def __repr__(self):
        return f"<ember.cl.Context on {', '.join(d.name for d in self.devices)}>"


def _from_int_ptr(cls, int_ptr_value: int, retain: bool = True):
    """The platform, device or context with this handle (PyOpenCL's ``from_int_ptr``)."""
    try:
        return _handles.from_int_ptr(cls, int_ptr_value)
    except LogicError:
        pass
    for platform in get_platforms():
        if cls is Platform and platform.int_ptr == int_ptr_value:
            return platform
        for device in platform.get_devices():
            if cls is Device and device.int_ptr == int_ptr_value:
                return device
            if cls is Context and _ember.cl_handles(device.ordinal)[2] == int_ptr_value:
                return Context([device])
    raise _handles.unknown(cls, int_ptr_value)


Platform.from_int_ptr = Device.from_int_ptr = Context.from_int_ptr = classmethod(_from_int_ptr)

_device_contexts: dict[int, Context] = {}


def context_of(ordinal: int) -> Context:
    """The context ember.cl uses for objects made from ember arrays on device ``ordinal``."""
    ctx = _device_contexts.get(ordinal)
    if ctx is None:
        device = next((d for d in _all_devices() if d.ordinal == ordinal), None)
        if device is None:
            raise invalid("Context", status_code.INVALID_DEVICE,
                          f"ember device {ordinal} is not an OpenCL device", cls=LogicError)
        ctx = _device_contexts[ordinal] = Context([device])
    return ctx


def _pick(choices: list, answer: str, what: str):
    answer = answer.strip()
    if not answer:
        return choices[0]
    if answer.isdigit() and int(answer) < len(choices):
        return choices[int(answer)]
    for c in choices:
        if answer.lower() in c.name.lower():
            return c
    raise RuntimeError(f"input did not match any {what}")


def _ask(choices: list, what: str) -> str:
    print(f"Choose {what}:")
    for i, c in enumerate(choices):
        print(f"[{i}] {c!r}")
    return input("Choice [0]:")


def choose_devices(interactive=None, answers=None) -> list[Device]:
    """The devices ``create_some_context`` uses: from ``answers`` (PyOpenCL's
    ``PYOPENCL_CTX="platform:device[,device]"`` form, each an index or part of a name), by
    asking when ``interactive`` (a terminal, by default) and there is a choice, or the first
    device of the first platform."""
    if interactive is None:
        interactive = sys.stdin is not None and sys.stdin.isatty()
    answers = list(answers or ())
    platforms = get_platforms()
    if answers:
        platform = _pick(platforms, answers.pop(0), "platform")
    elif interactive and len(platforms) > 1:
        platform = _pick(platforms, _ask(platforms, "platform"), "platform")
    else:
        platform = platforms[0]
    devices = platform.get_devices()
    if answers:
        chosen = [_pick(devices, a, "device") for a in answers.pop(0).split(",")]
    elif interactive and len(devices) > 1:
        chosen = [_pick(devices, _ask(devices, "device"), "device")]
    else:
        chosen = devices[:1]
    if answers:
        raise RuntimeError(f"not all provided choices were used by choose_devices. (left over: '{':'.join(answers)}')")
    return chosen


def create_some_context(interactive=None, answers=None) -> Context:
    """A context on a device chosen as PyOpenCL chooses: ``answers``, else the environment
    variable ``PYOPENCL_CTX`` (e.g. ``"0:0"`` or ``":"``), else asking on a terminal when there
    is more than one choice, else the first device."""
    if answers is None:
        from os import environ

        spec = environ.get("PYOPENCL_CTX")
        if spec is not None:
            answers = spec.split(":")
    return Context(choose_devices(interactive, answers))
