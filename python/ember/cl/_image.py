"""Images and samplers: OpenCL's texture memory, as PyOpenCL presents it.

An ``Image`` is a driver image object on the context's first device (ember's arrays never
use images); kernels take images and samplers as arguments, and ``enqueue_copy`` copies
between images, buffers and host memory. Devices without image support
(``device.image_support`` false) refuse to create them, naming the device.
"""

from __future__ import annotations

import struct
import warnings

import numpy as np

from .. import _ember
from .._creation import _host_pointer
from . import _handles
from ._constants import (
    addressing_mode,
    channel_order,
    channel_type,
    filter_mode,
    image_info,
    mem_flags,
    mem_info,
    mem_object_type,
    sampler_info,
    status_code,
)
from ._errors import Error, LogicError, invalid, native_call
from ._memory import Buffer, _as_buffer, _check_range, _host_bytes, _run
from ._platform import Context


class ImageFormat:
    """A pixel format: ``channel_order`` (``channel_order.RGBA``...) and
    ``channel_data_type`` (``channel_type.FLOAT``...)."""

    __slots__ = ("channel_order", "channel_data_type")

    def __init__(self, channel_order=0, channel_type=0):
        self.channel_order = int(channel_order)
        self.channel_data_type = int(channel_type)

    @property
    def channel_count(self) -> int:
        """Channels per pixel."""
        return _known(_CHANNELS, self.channel_order, "channel_count", "channel order")

    @property
    def dtype_size(self) -> int:
        """Bytes per channel (for packed types such as UNORM_SHORT_565: bytes per pixel)."""
        return _known(_CHANNEL_BYTES, self.channel_data_type, "dtype_size", "channel type")

    @property
    def itemsize(self) -> int:
        """Bytes per pixel."""
        if self.channel_data_type in _PACKED:
            return self.dtype_size
        return self.channel_count * self.dtype_size

    def __eq__(self, other):
        return (isinstance(other, ImageFormat) and self.channel_order == other.channel_order
                and self.channel_data_type == other.channel_data_type)

    def __hash__(self):
        return hash((ImageFormat, self.channel_order, self.channel_data_type))

    def __repr__(self):
        order = channel_order.to_string(self.channel_order, "<unknown channel order 0x%x>")
        kind = channel_type.to_string(self.channel_data_type, "<unknown channel data type 0x%x>")
        return f"ImageFormat({order}, {kind})"


def _known(table: dict, key: int, what: str, kind: str) -> int:
    try:
        return table[key]
    except KeyError:
        raise LogicError(f"ImageFormat.{what} failed: INVALID_VALUE - unknown {kind} {key:#x}",
                         routine=f"ImageFormat.{what}", code=status_code.INVALID_VALUE) from None


_CHANNELS = {channel_order.R: 1, channel_order.A: 1, channel_order.INTENSITY: 1, channel_order.LUMINANCE: 1,
             channel_order.Rx: 1, channel_order.DEPTH: 1, channel_order.RG: 2, channel_order.RA: 2,
             channel_order.RGx: 2, channel_order.DEPTH_STENCIL: 2, channel_order.RGB: 3, channel_order.RGBx: 3,
             channel_order.sRGB: 3, channel_order.sRGBx: 3, channel_order.RGBA: 4, channel_order.BGRA: 4,
             channel_order.ARGB: 4, channel_order.ABGR: 4, channel_order.sRGBA: 4, channel_order.sBGRA: 4}
_CHANNEL_BYTES = {channel_type.SNORM_INT8: 1, channel_type.UNORM_INT8: 1, channel_type.SIGNED_INT8: 1,
                  channel_type.UNSIGNED_INT8: 1, channel_type.SNORM_INT16: 2, channel_type.UNORM_INT16: 2,
                  channel_type.SIGNED_INT16: 2, channel_type.UNSIGNED_INT16: 2, channel_type.HALF_FLOAT: 2,
                  channel_type.UNORM_SHORT_565: 2, channel_type.UNORM_SHORT_555: 2,
                  channel_type.UNORM_INT_101010: 4, channel_type.UNORM_INT_101010_2: 4,
                  channel_type.SIGNED_INT32: 4, channel_type.UNSIGNED_INT32: 4, channel_type.FLOAT: 4,
                  channel_type.UNORM_INT24: 4}
_PACKED = {channel_type.UNORM_SHORT_565, channel_type.UNORM_SHORT_555, channel_type.UNORM_INT_101010,
           channel_type.UNORM_INT_101010_2}

# The channel type of a NumPy dtype, as ``image_from_array`` picks it (PyOpenCL's tables).
DTYPE_TO_CHANNEL_TYPE = {np.dtype(np.float32): channel_type.FLOAT, np.dtype(np.float16): channel_type.HALF_FLOAT,
                         np.dtype(np.int8): channel_type.SIGNED_INT8, np.dtype(np.int16): channel_type.SIGNED_INT16,
                         np.dtype(np.int32): channel_type.SIGNED_INT32, np.dtype(np.uint8): channel_type.UNSIGNED_INT8,
                         np.dtype(np.uint16): channel_type.UNSIGNED_INT16,
                         np.dtype(np.uint32): channel_type.UNSIGNED_INT32}
DTYPE_TO_CHANNEL_TYPE_NORM = {np.dtype(np.int8): channel_type.SNORM_INT8, np.dtype(np.int16): channel_type.SNORM_INT16,
                              np.dtype(np.uint8): channel_type.UNORM_INT8,
                              np.dtype(np.uint16): channel_type.UNORM_INT16}

_IMAGE_TYPES = frozenset({mem_object_type.IMAGE1D, mem_object_type.IMAGE1D_ARRAY, mem_object_type.IMAGE1D_BUFFER,
                          mem_object_type.IMAGE2D, mem_object_type.IMAGE2D_ARRAY, mem_object_type.IMAGE3D})


def _require_images(context: Context, routine: str):
    device = context.devices[0]
    if not device.image_support:
        raise invalid(routine, status_code.INVALID_OPERATION,
                      f"{device!r} has no image support (device.image_support is false); use buffers there",
                      cls=LogicError)
    return device


def get_supported_image_formats(context: Context, flags, image_type) -> list[ImageFormat]:
    """The formats the context's first device supports for images of ``image_type``
    (``mem_object_type.IMAGE2D``...) with access ``flags``; empty without image support."""
    device = context.devices[0]
    if not device.image_support:
        return []
    pairs = native_call("clGetSupportedImageFormats",
                  lambda: _ember.cl_supported_image_formats(device.ordinal, int(flags), int(image_type)))
    return [ImageFormat(order, kind) for order, kind in pairs]


class ImageDescriptor:
    """An image's type, shape and pitches (OpenCL's ``cl_image_desc``), for ``create_image``."""

    def __init__(self):
        self.image_type = mem_object_type.IMAGE2D
        self.width = self.height = self.depth = 0
        self.array_size = 0
        self.pitches = (0, 0)
        self.num_mip_levels = 0
        self.num_samples = 0
        self.buffer = None

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.width, self.height, self.depth)

    @shape.setter
    def shape(self, shape) -> None:
        """Sets the extents as the image type reads them: an array image's last extent is its
        array size."""
        dims = [int(d) for d in shape]
        if not 1 <= len(dims) <= 3:
            raise ValueError(f"an image shape has one to three extents, got {tuple(shape)}")
        arrayed = self.image_type in (mem_object_type.IMAGE1D_ARRAY, mem_object_type.IMAGE2D_ARRAY)
        if arrayed:
            *dims, self.array_size = dims
        dims += [0] * (3 - len(dims))
        self.width, self.height, self.depth = dims


def _image_type(shape, is_array: bool, buffer) -> int:
    if buffer is not None and is_array:
        raise ValueError("'buffer' and 'is_array' are mutually exclusive")
    n = len(shape)
    if n == 3:
        if buffer is not None:
            raise TypeError("'buffer' argument is not supported for 3D arrays")
        return mem_object_type.IMAGE2D_ARRAY if is_array else mem_object_type.IMAGE3D
    if n == 2:
        if buffer is not None:
            raise TypeError("'buffer' argument is not supported for 2D arrays")
        return mem_object_type.IMAGE1D_ARRAY if is_array else mem_object_type.IMAGE2D
    if n == 1:
        if is_array:
            raise TypeError("array of zero-dimensional images not supported")
        return mem_object_type.IMAGE1D_BUFFER if buffer is not None else mem_object_type.IMAGE1D
    raise ValueError("images cannot have more than three dimensions")


class Image:
    """``Image(context, flags, format, shape=None, pitches=None, hostbuf=None,
    is_array=False, buffer=None)``: an image of ``shape`` = (width[, height[, depth]])
    pixels (with ``is_array``, the last extent is the number of images). ``hostbuf`` is
    copied in (``COPY_HOST_PTR``; ``USE_HOST_PTR`` also copies: later changes on either side
    are not seen by the other, read back with ``enqueue_copy``)."""

    def __init__(self, context: Context, flags, format: ImageFormat, shape=None, pitches=None, hostbuf=None,
                 is_array=False, buffer=None, *, desc: ImageDescriptor | None = None):
        if not isinstance(context, Context):
            raise TypeError(f"context must be an ember.cl.Context, got {type(context).__name__}")
        if not isinstance(format, ImageFormat):
            raise TypeError(f"format must be an ember.cl.ImageFormat, got {type(format).__name__}")
        flags = int(flags)
        if hostbuf is not None and not flags & (mem_flags.USE_HOST_PTR | mem_flags.COPY_HOST_PTR):
            warnings.warn("'hostbuf' was passed, but no memory flags to make use of it.", stacklevel=2)
        if desc is None:
            if shape is None:
                if hostbuf is None:
                    raise LogicError("'shape' must be passed if 'hostbuf' is not given",
                                     routine="Image", code=status_code.INVALID_VALUE)
                shape = np.shape(hostbuf)
            if hostbuf is None and pitches is not None:
                raise LogicError("'pitches' may only be given if 'hostbuf' is given",
                                 routine="Image", code=status_code.INVALID_VALUE)
            desc = ImageDescriptor()
            desc.image_type = _image_type(tuple(shape), is_array, buffer)
            desc.shape = shape
            desc.pitches = tuple(pitches) if pitches is not None else (0, 0)
            desc.buffer = buffer
        elif shape is not None or pitches is not None or is_array or buffer is not None:
            raise TypeError("shape, pitches, is_array and buffer may not be passed with desc=")
        device = _require_images(context, "clCreateImage")
        pitches = tuple(int(p) for p in desc.pitches) + (0,) * (2 - len(desc.pitches))
        address = nbytes = 0
        host = None
        if hostbuf is not None and flags & (mem_flags.USE_HOST_PTR | mem_flags.COPY_HOST_PTR):
            host = np.ascontiguousarray(hostbuf) if isinstance(hostbuf, np.ndarray) else np.frombuffer(
                memoryview(hostbuf), np.uint8)
            address, nbytes = _host_pointer(host), host.nbytes
            # ember never leaves the driver a host pointer to use later: USE_HOST_PTR copies.
            flags = (flags & ~mem_flags.USE_HOST_PTR) | mem_flags.COPY_HOST_PTR
        elif flags & (mem_flags.USE_HOST_PTR | mem_flags.COPY_HOST_PTR):
            raise LogicError("Image failed: INVALID_HOST_PTR - COPY_HOST_PTR and USE_HOST_PTR need a hostbuf",
                             routine="clCreateImage", code=status_code.INVALID_HOST_PTR)
        backing = None
        if desc.buffer is not None:
            backing = desc.buffer._native
        size = [max(desc.width, 1), max(desc.height, 1) if desc.image_type in _WITH_HEIGHT else 0,
                max(desc.depth, 1) if desc.image_type == mem_object_type.IMAGE3D else 0]
        try:
            self._native = native_call("clCreateImage", lambda: _ember.cl_create_image(
                device.ordinal, flags, (format.channel_order, format.channel_data_type), desc.image_type, size,
                int(desc.array_size), pitches, address, nbytes, backing))
        except Error as e:
            e.args = (f"{e.args[0]} (the image was {format!r}, {mem_object_type.to_string(desc.image_type)} of "
                      f"{tuple(size)}; cl.get_supported_image_formats(ctx, flags, image_type) lists the formats "
                      f"{device.name} takes)",) + e.args[1:]
            raise
        self.context, self.flags, self.hostbuf = context, flags, hostbuf
        self.format, self.type = format, desc.image_type
        self._buffer = desc.buffer  # keeps a buffer image's memory alive

    # --- information ----------------------------------------------------------------------------
    def get_image_info(self, param):
        """An image fact (``image_info.WIDTH``...), read from the driver."""
        raw = native_call("clGetImageInfo", lambda: self._native.info(int(param)))
        if param == image_info.FORMAT:
            return ImageFormat(*struct.unpack("II", raw[:8]))
        if param == image_info.BUFFER:
            return self._buffer
        if param in (image_info.NUM_MIP_LEVELS, image_info.NUM_SAMPLES):
            return struct.unpack("I", raw[:4])[0]
        return struct.unpack("N", raw[:struct.calcsize("N")])[0]

    def get_info(self, param):
        """A memory-object fact (``mem_info.TYPE``, ``SIZE``, ``FLAGS``...)."""
        values = {mem_info.TYPE: lambda: self.type, mem_info.FLAGS: lambda: self.flags,
                  mem_info.CONTEXT: lambda: self.context, mem_info.OFFSET: lambda: 0,
                  mem_info.HOST_PTR: lambda: None, mem_info.SIZE: lambda: self.size}
        if param not in values:
            raise invalid("clGetMemObjectInfo", status_code.INVALID_VALUE, f"info parameter {param!r} is not available")
        return values[param]()

    @property
    def size(self) -> int:
        """Bytes of pixel data."""
        height, depth, count = (max(self.get_image_info(p), 1) for p in
                                (image_info.HEIGHT, image_info.DEPTH, image_info.ARRAY_SIZE))
        return self.get_image_info(image_info.ROW_PITCH) * height * depth * count

    def __getattr__(self, name):
        code = getattr(image_info, name.upper(), None) if not name.startswith("_") else None
        if code is None:
            raise AttributeError(f"'Image' object has no attribute {name!r}")
        return self.get_image_info(code)

    @property
    def image(self) -> _ImageInfo:
        """Image facts as attributes (``img.image.depth``), as PyOpenCL has them."""
        return _ImageInfo(self)

    @property
    def shape(self) -> tuple[int, ...]:
        if self.type == mem_object_type.IMAGE2D:
            return (self.width, self.height)
        if self.type == mem_object_type.IMAGE3D:
            return (self.width, self.height, self.depth)
        raise LogicError("only images have shapes", routine="Image.shape", code=status_code.INVALID_VALUE)

    @property
    def int_ptr(self) -> int:
        """The ``cl_mem`` handle."""
        return _handles.seen(self, self._native.handle)

    from_int_ptr = classmethod(_handles.from_int_ptr)

    def release(self) -> None:
        """Drops this handle's reference (OpenCL frees the image once commands using it end)."""
        self._native = None

    def __eq__(self, other):
        return isinstance(other, Image) and other.int_ptr == self.int_ptr

    def __hash__(self):
        return hash(("ember.cl.Image", self.int_ptr))

    def __repr__(self):
        return f"<ember.cl.Image {mem_object_type.to_string(self.type)} {self.format!r}>"


_WITH_HEIGHT = frozenset({mem_object_type.IMAGE2D, mem_object_type.IMAGE2D_ARRAY, mem_object_type.IMAGE3D})


class _ImageInfo:
    __slots__ = ("_image",)

    def __init__(self, image: Image):
        self._image = image

    def __getattr__(self, name):
        return getattr(self._image, name)


def create_image(context: Context, flags, format: ImageFormat, shape=None, pitches=None, hostbuf=None,
                 is_array=False, buffer=None) -> Image:
    """An ``Image`` (PyOpenCL's newer spelling of the constructor)."""
    return Image(context, flags, format, shape=shape, pitches=pitches, hostbuf=hostbuf, is_array=is_array,
                 buffer=buffer)


def image_from_array(ctx: Context, ary: np.ndarray, num_channels=None, mode="r", norm_int=False) -> Image:
    """An image holding the C-contiguous NumPy array ``ary``: its last axis is the channels
    when ``num_channels`` > 1, the other axes (reversed) the image's extents."""
    if not ary.flags.c_contiguous:
        raise ValueError("array must be C-contiguous")
    dtype = ary.dtype
    if num_channels is None:
        from . import cltypes

        dtype, num_channels = cltypes.vec_type_to_scalar_and_count.get(dtype, (dtype, 1))
        shape, strides = ary.shape, ary.strides
    elif num_channels == 1:
        shape, strides = ary.shape, ary.strides
    else:
        if ary.shape[-1] != num_channels:
            raise RuntimeError("last dimension must be equal to number of channels")
        shape, strides = ary.shape[:-1], ary.strides[:-1]
    if mode not in ("r", "w"):
        raise ValueError(f"invalid value '{mode}' for 'mode'")
    order = {1: channel_order.R, 2: channel_order.RG, 3: channel_order.RGB, 4: channel_order.RGBA}[num_channels]
    table = DTYPE_TO_CHANNEL_TYPE_NORM if norm_int else DTYPE_TO_CHANNEL_TYPE
    if np.dtype(dtype) not in table:
        raise TypeError(f"no {'normalized ' if norm_int else ''}image channel type for dtype {np.dtype(dtype)}")
    flags = (mem_flags.READ_ONLY if mode == "r" else mem_flags.WRITE_ONLY) | mem_flags.COPY_HOST_PTR
    return create_image(ctx, flags, ImageFormat(order, table[np.dtype(dtype)]), shape=shape[::-1],
                        pitches=strides[::-1][1:], hostbuf=ary)


class Sampler:
    """``Sampler(context, normalized_coords, addressing_mode, filter_mode)``: how kernels
    read images (``read_imagef(img, sampler, coord)``)."""

    def __init__(self, context: Context, normalized_coords, addressing_mode_=None, filter_mode_=None):
        if not isinstance(context, Context):
            raise TypeError(f"context must be an ember.cl.Context, got {type(context).__name__}")
        if isinstance(normalized_coords, (list, tuple)):  # PyOpenCL's properties form
            raise TypeError("ember.cl.Sampler takes (context, normalized_coords, addressing_mode, filter_mode)")
        device = _require_images(context, "clCreateSampler")
        self.context = context
        self._settings = (bool(normalized_coords), int(addressing_mode_), int(filter_mode_))
        self._native = native_call("clCreateSampler", lambda: _ember.ClSampler(device.ordinal, *self._settings))

    def get_info(self, param):
        values = {sampler_info.CONTEXT: self.context, sampler_info.REFERENCE_COUNT: 1,
                  sampler_info.NORMALIZED_COORDS: self._settings[0],
                  sampler_info.ADDRESSING_MODE: self._settings[1], sampler_info.FILTER_MODE: self._settings[2]}
        if param not in values:
            raise invalid("clGetSamplerInfo", status_code.INVALID_VALUE, f"info parameter {param!r} is not available")
        return values[param]

    def __getattr__(self, name):
        code = getattr(sampler_info, name.upper(), None) if not name.startswith("_") else None
        if code is None:
            raise AttributeError(f"'Sampler' object has no attribute {name!r}")
        return self.get_info(code)

    @property
    def int_ptr(self) -> int:
        """The ``cl_sampler`` handle."""
        return _handles.seen(self, self._native.handle)

    from_int_ptr = classmethod(_handles.from_int_ptr)

    def __eq__(self, other):
        return isinstance(other, Sampler) and other.int_ptr == self.int_ptr

    def __hash__(self):
        return hash(("ember.cl.Sampler", self.int_ptr))

    def __repr__(self):
        normalized, addressing, filtering = self._settings
        return (f"<ember.cl.Sampler normalized={normalized} {addressing_mode.to_string(addressing)} "
                f"{filter_mode.to_string(filtering)}>")


# ---- copies and fills ------------------------------------------------------------------------


def _triple(value, what: str, fill: int) -> list[int]:
    dims = [int(v) for v in value]
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"{what} has one to three entries, got {tuple(value)}")
    return dims + [fill] * (3 - len(dims))


def _needed_bytes(image: Image, region, row_pitch: int, slice_pitch: int) -> int:
    width, height, depth = region
    row = row_pitch or width * image.format.itemsize
    plane = slice_pitch or row * height
    return plane * (depth - 1) + row * (height - 1) + width * image.format.itemsize


def _check_host(routine: str, host: np.ndarray, image: Image, region, row_pitch, slice_pitch):
    need = _needed_bytes(image, region, row_pitch, slice_pitch)
    if host.nbytes < need:
        raise invalid(routine, status_code.INVALID_VALUE,
                      f"the host buffer has {host.nbytes} bytes; region {tuple(region)} of {image.format!r} "
                      f"needs {need}")


def _enqueue_read_image(queue, mem: Image, origin, region, hostbuf, row_pitch=0, slice_pitch=0, wait_for=None,
                        is_blocking=True):
    origin, region = _triple(origin, "origin", 0), _triple(region, "region", 1)
    host = _host_bytes(hostbuf, writable=True)
    _check_host("clEnqueueReadImage", host, mem, region, row_pitch, slice_pitch)
    native = mem._native
    return _run(queue, wait_for, lambda: native_call("clEnqueueReadImage", lambda: native.read(
        origin, region, int(row_pitch), int(slice_pitch), _host_pointer(host), host.nbytes, queue._handle)),
        done=True)


def _enqueue_write_image(queue, mem: Image, origin, region, hostbuf, row_pitch=0, slice_pitch=0, wait_for=None,
                         is_blocking=True):
    origin, region = _triple(origin, "origin", 0), _triple(region, "region", 1)
    host = _host_bytes(hostbuf)
    _check_host("clEnqueueWriteImage", host, mem, region, row_pitch, slice_pitch)
    native = mem._native
    return _run(queue, wait_for, lambda: native_call("clEnqueueWriteImage", lambda: native.write(
        origin, region, int(row_pitch), int(slice_pitch), _host_pointer(host), host.nbytes, queue._handle)),
        done=True)


def _enqueue_copy_image(queue, src: Image, dest: Image, src_origin, dest_origin, region, wait_for=None):
    src_origin, dest_origin = _triple(src_origin, "src_origin", 0), _triple(dest_origin, "dest_origin", 0)
    region = _triple(region, "region", 1)
    return _run(queue, wait_for, lambda: native_call("clEnqueueCopyImage", lambda: src._native.copy_to(
        dest._native, src_origin, dest_origin, region, queue._handle)), done=False)


def _enqueue_copy_image_to_buffer(queue, src: Image, dest, origin, region, offset=0, wait_for=None):
    origin, region = _triple(origin, "origin", 0), _triple(region, "region", 1)
    dest = _as_buffer(dest)
    _check_range("clEnqueueCopyImageToBuffer", "offset", int(offset), _needed_bytes(src, region, 0, 0), dest.size)
    return _run(queue, wait_for, lambda: native_call("clEnqueueCopyImageToBuffer", lambda: src._native.copy_to_buffer(
        dest._native, int(offset), origin, region, queue._handle)), done=False)


def _enqueue_copy_buffer_to_image(queue, src, dest: Image, offset, origin, region, wait_for=None):
    origin, region = _triple(origin, "origin", 0), _triple(region, "region", 1)
    src = _as_buffer(src)
    _check_range("clEnqueueCopyBufferToImage", "offset", int(offset), _needed_bytes(dest, region, 0, 0), src.size)
    def copy():
        return dest._native.copy_from_buffer(src._native, int(offset), origin, region, queue._handle)

    return _run(queue, wait_for, lambda: native_call("clEnqueueCopyBufferToImage", copy), done=False)


def enqueue_fill_image(queue, mem: Image, color, origin, region, wait_for=None):
    """Fills ``region`` of ``mem`` from ``origin`` with ``color``: four numbers, read as
    floats, ints or uints as the image's channel type needs."""
    origin, region = _triple(origin, "origin", 0), _triple(region, "region", 1)
    color = np.asarray(color)
    kind = mem.format.channel_data_type
    dtype = (np.int32 if kind in (channel_type.SIGNED_INT8, channel_type.SIGNED_INT16, channel_type.SIGNED_INT32)
             else np.uint32 if kind in (channel_type.UNSIGNED_INT8, channel_type.UNSIGNED_INT16,
                                        channel_type.UNSIGNED_INT32) else np.float32)
    if color.size > 4:
        raise ValueError(f"a fill colour has at most four channels, got {color.size}")
    raw = np.zeros(4, dtype)
    raw[:color.size] = color.ravel()
    packed = list(raw.view(np.uint8))
    return _run(queue, wait_for, lambda: native_call("clEnqueueFillImage", lambda: mem._native.fill(
        packed, origin, region, queue._handle)), done=False)


def enqueue_read_image(queue, mem: Image, origin, region, hostbuf, row_pitch=0, slice_pitch=0, wait_for=None,
                       is_blocking=True):
    """Deprecated spelling of ``enqueue_copy(queue, hostbuf, mem, origin=, region=)``."""
    warnings.warn("enqueue_read_image is deprecated; use enqueue_copy", DeprecationWarning, stacklevel=2)
    return _enqueue_read_image(queue, mem, origin, region, hostbuf, row_pitch, slice_pitch, wait_for, is_blocking)


def enqueue_write_image(queue, mem: Image, origin, region, hostbuf, row_pitch=0, slice_pitch=0, wait_for=None,
                        is_blocking=True):
    """Deprecated spelling of ``enqueue_copy(queue, mem, hostbuf, origin=, region=)``."""
    warnings.warn("enqueue_write_image is deprecated; use enqueue_copy", DeprecationWarning, stacklevel=2)
    return _enqueue_write_image(queue, mem, origin, region, hostbuf, row_pitch, slice_pitch, wait_for, is_blocking)


def enqueue_copy_image(queue, src: Image, dest: Image, src_origin, dest_origin, region, wait_for=None):
    """Deprecated spelling of ``enqueue_copy(queue, dest, src, src_origin=, dest_origin=, region=)``."""
    warnings.warn("enqueue_copy_image is deprecated; use enqueue_copy", DeprecationWarning, stacklevel=2)
    return _enqueue_copy_image(queue, src, dest, src_origin, dest_origin, region, wait_for)


def copy_with_image(queue, dest, src, kwargs: dict):
    """``enqueue_copy`` where ``dest`` or ``src`` is an image (PyOpenCL's argument names)."""
    def pitches():
        given = tuple(kwargs.pop("pitches", (0, 0)))
        return {"row_pitch": given[0], "slice_pitch": given[1] if len(given) > 1 else 0}

    if isinstance(dest, Image):
        if isinstance(src, Image):
            return _enqueue_copy_image(queue, src, dest, **kwargs)
        if isinstance(_as_buffer(src), Buffer):
            return _enqueue_copy_buffer_to_image(queue, src, dest, **kwargs)
        origin, region = kwargs.pop("origin"), kwargs.pop("region")
        return _enqueue_write_image(queue, dest, origin, region, src, **pitches(), **kwargs)
    if isinstance(_as_buffer(dest), Buffer):
        return _enqueue_copy_image_to_buffer(queue, src, dest, **kwargs)
    origin, region = kwargs.pop("origin"), kwargs.pop("region")
    return _enqueue_read_image(queue, src, origin, region, dest, **pitches(), **kwargs)
