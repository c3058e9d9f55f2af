"""``ember.ndarray``: the one array type, a thin Python face over the native array.

Shape, strides, dtype, offset and the buffer live in Rust (``ember_array::Array``); this class
adds NumPy's spelling: properties, host conversion, ``__repr__``, and the interchange
protocols (``__cuda_array_interface__``, DLPack).
"""

from __future__ import annotations

import numpy as np

from . import _dtypes, _ember
from ._memory import ArrayMemory, MemoryPointer
from ._runtime import Device, backend, current_device_id, get_current_stream


def _wrap(native) -> ndarray:
    arr = _new(ndarray)
    arr._a = native
    return arr


def _wrap_view(native, parent: ndarray) -> ndarray:
    """``native``, a view of ``parent``'s memory: its ``base`` is the array that owns the
    memory (a view of a view points at the owner, as in NumPy), kept alive by the view."""
    arr = _new(ndarray)
    arr._a = native
    root = getattr(parent, "_base", None)
    arr._base = parent if root is None else root
    return arr


_new = object.__new__


def _shape_tuple(shape) -> tuple[int, ...]:
    if type(shape) is int:
        if shape < 0:
            raise ValueError(f"negative dimensions are not allowed (shape ({shape},))")
        return (shape,)
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    try:
        shape = tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a sequence of ints, got {shape!r}") from None
    if any(d < 0 for d in shape):
        raise ValueError(f"negative dimensions are not allowed (shape {shape})")
    return shape


def _memory_order(order, like=None) -> str:
    """'C' or 'F' for a new array: 'K' and 'A' follow ``like`` (Fortran-ordered only when it is
    F- and not C-contiguous), else C."""
    if order is None or order == "C" or order == "c":
        return "C"
    if order in ("F", "f"):
        return "F"
    if order in ("K", "A", "k", "a"):
        if like is not None and like.flags.f_contiguous and not like.flags.c_contiguous:
            return "F"
        return "C"
    raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")


def _in_order(make, shape, order: str):
    """The native array ``make(shape)`` allocates, laid out in ``order`` ('C' or 'F')."""
    if order == "C" or len(shape) < 2:
        return make(shape)
    native = make(shape[::-1])
    return native.view(list(shape), list(native.strides)[::-1], 0, native.dtype)


def _c_order(host: np.ndarray, dtype=None) -> np.ndarray:
    """``host`` as a C-contiguous array of ``dtype``, keeping 0-d arrays 0-d."""
    return np.asarray(host, dtype=dtype, order="C").reshape(host.shape)


def _host_pointer(host: np.ndarray) -> int:
    return host.__array_interface__["data"][0]


def _view_of_pointer(memptr, shape, dtype_name, strides):
    """The native array for ``ndarray(shape, dtype, memptr=..., strides=...)``: a view of an
    ember buffer, or of foreign device memory kept alive by ``memptr``."""
    itemsize = _dtypes.from_name(dtype_name).itemsize
    if strides is None:
        strides, step = [], itemsize
        for d in reversed(shape):
            strides.append(step)
            step *= max(d, 1)
        strides.reverse()
    strides = [int(s) for s in strides]
    if len(strides) != len(shape):
        raise ValueError(f"strides {tuple(strides)} do not match shape {shape}")
    mem = getattr(memptr, "mem", None)
    if isinstance(mem, ArrayMemory):
        base = mem._native
        return base.view(list(shape), strides, memptr.ptr - base.buffer_address, dtype_name)
    if hasattr(memptr, "ptr"):
        address = int(memptr.ptr)
    elif hasattr(memptr, "__index__") or hasattr(memptr, "__int__"):
        address = int(memptr)  # a PyCUDA DeviceAllocation or a plain address
    else:
        raise TypeError(
            f"memptr must be an ember.cuda.MemoryPointer, a DeviceAllocation or an address, got {type(memptr).__name__}"
        )
    device = getattr(memptr, "device_id", None)
    device = current_device_id() if device is None or device < 0 else device
    return _ember.from_foreign(device, address, list(shape), strides, dtype_name, memptr)


class Flags:
    """``ndarray.flags``: the layout flags NumPy and CuPy report."""

    __slots__ = ("c_contiguous", "f_contiguous", "owndata")

    def __init__(self, c, f, own):
        self.c_contiguous, self.f_contiguous, self.owndata = c, f, own

    def __getitem__(self, name):
        key = {"C_CONTIGUOUS": "c_contiguous", "F_CONTIGUOUS": "f_contiguous", "OWNDATA": "owndata"}
        return getattr(self, key.get(name, name.lower()))

    def __repr__(self):
        return (
            f"  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}\n"
            f"  OWNDATA : {self.owndata}"
        )


class ndarray:
    """An n-dimensional array on a device.

    ``ndarray(shape, dtype=float, order='C')`` allocates an uninitialised array, as CuPy's does.
    """

    __slots__ = ("_a", "_base", "__weakref__")
    __array_priority__ = 100

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C"):
        order = _memory_order(order)
        shape = _shape_tuple(shape)
        name = _dtypes.name_of(dtype)
        if memptr is None:
            if strides is not None:
                raise ValueError("strides= needs memptr=: a new array is laid out by order= ('C' or 'F')")
            self._a = _in_order(lambda s: _ember.empty(current_device_id(), s, name), shape, order)
            return
        self._a = _view_of_pointer(memptr, shape, name, strides)

    # --- what the array is ------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._a.shape)

    @property
    def strides(self) -> tuple[int, ...]:
        return tuple(self._a.strides)

    @property
    def dtype(self) -> np.dtype:
        return _dtypes.from_name(self._a.dtype)

    @property
    def ndim(self) -> int:
        return len(self._a.shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self._a.shape:
            n *= d
        return n

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    @property
    def flags(self) -> Flags:
        return Flags(self._a.c_contiguous, self._a.f_contiguous, self.base is None and self._a.owns_pool_memory)

    @property
    def device(self) -> Device:
        return Device(self._a.device)

    @property
    def data(self) -> MemoryPointer:
        mem = ArrayMemory(self._a)
        return MemoryPointer(mem, self._a.address - mem.ptr)

    @property
    def base(self):
        """The array whose memory this view shares (None when the array owns its memory)."""
        return getattr(self, "_base", None)

    @property
    def gpudata(self):
        """PyCUDA's name for the memory: a ``DeviceAllocation`` at the first element, which kernels
        and ``drv.memcpy_*`` take and which keeps this array's memory alive."""
        from .cuda.driver import DeviceAllocation

        return DeviceAllocation._over(self)

    @property
    def ptr(self) -> int:
        """PyCUDA's name for the address of the first element (``int(a.gpudata)``)."""
        return self._a.address

    def __len__(self):
        if not self._a.shape:
            raise TypeError("len() of unsized object")
        return self._a.shape[0]

    # --- host conversion ----------------------------------------------------------------------
    def get(self, stream=None, order="C", out=None, blocking=True) -> np.ndarray:
        """A NumPy copy of the array (C order)."""
        if out is not None:
            if not isinstance(out, np.ndarray) or out.shape != self.shape or out.dtype != self.dtype:
                raise ValueError(f"out must be a NumPy array of shape {self.shape} and dtype {self.dtype}")
            target = out if out.flags.c_contiguous else np.empty(self.shape, self.dtype)
        else:
            target = np.empty(self.shape, self.dtype)
        if stream is not None:
            with stream:
                self._a.to_host(_host_pointer(target), target.nbytes)
        else:
            self._a.to_host(_host_pointer(target), target.nbytes)
        if out is not None and target is not out:
            out[...] = target
            return out
        return target

    def copy_to_host(self, ary=None, stream=None) -> np.ndarray:
        """Numba's name for :meth:`get`."""
        return self.get(stream=stream, out=ary)

    def set(self, arr, stream=None) -> None:
        """Copies a host array of the same shape into this array."""
        host = np.asarray(arr)
        if host.shape != self.shape:
            raise ValueError(f"shape mismatch: cannot set an array of shape {self.shape} from shape {host.shape}")
        host = _c_order(host, self.dtype)
        if stream is not None:
            with stream:
                self._a.set_from_host(_host_pointer(host), host.nbytes)
        else:
            self._a.set_from_host(_host_pointer(host), host.nbytes)

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed. Use .get() or ember.asnumpy() to copy it explicitly."
        )

    def tolist(self):
        return self.get().tolist()

    def item(self):
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self.get().item()

    def __bool__(self):
        if self.size != 1:
            raise ValueError(
                "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()"
            )
        return bool(self.item())

    def __int__(self):
        return int(self.item())

    def __float__(self):
        return float(self.item())

    def __complex__(self):
        return complex(self.item())

    def __index__(self):
        if self.ndim != 0 or self.dtype.kind not in "iu":
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self.item())

    def __repr__(self):
        return repr(self.get())

    def __str__(self):
        return str(self.get())

    # --- copies and conversions ---------------------------------------------------------------
    def astype(self, dtype, order="K", casting=None, subok=None, copy=True) -> ndarray:
        """A copy converted to ``dtype`` (NumPy's conversion rules)."""
        name = _dtypes.name_of(dtype)
        if not copy and name == self._a.dtype:
            return self
        return _wrap(self._a.astype(name))

    def fill(self, value) -> None:
        """Sets every element to ``value``."""
        if isinstance(value, np.generic):
            value = value.item()
        self._a.fill(value)

    def view(self, dtype=None) -> ndarray:
        """A view of the same memory (with another dtype of the same item size)."""
        if dtype is None:
            return _wrap_view(self._a.view(list(self._a.shape), list(self._a.strides), self._a.offset, self._a.dtype),
                              self)
        d = _dtypes.normalize(dtype)
        if d.itemsize != self.itemsize:
            raise ValueError(
                f"a view as {d} needs the same item size as {self.dtype} ({self.itemsize} bytes); got {d.itemsize}"
            )
        return _wrap_view(self._a.view(list(self._a.shape), list(self._a.strides), self._a.offset, _dtypes.name_of(d)),
                          self)

    @property
    def T(self) -> ndarray:
        return self.transpose()

    # --- interchange --------------------------------------------------------------------------
    @property
    def __cuda_array_interface__(self) -> dict:
        if backend() != "cuda":
            raise AttributeError(
                "__cuda_array_interface__ exists only for arrays on the CUDA backend; use DLPack (__dlpack__) instead"
            )
        stream = get_current_stream(self._a.device).ptr
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "descr": [("", self.dtype.str)],
            "data": (self._a.address if self.size else 0, False),
            "strides": None if self._a.c_contiguous else self.strides,
            "version": 3,
            # CAI v3: 1 names CUDA's legacy default stream.
            "stream": stream or 1,
        }

    def __dlpack_device__(self) -> tuple[int, int]:
        return _ember.dlpack_device(self._a)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if copy:
            return self.copy().__dlpack__(stream=stream)
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"cannot export to device {dl_device}: the array is on {self.__dlpack_device__()}")
        if stream is not None and stream != -1:
            # The consumer will use the data on its stream: finish our work on it first.
            get_current_stream(self._a.device).synchronize()
        return _ember.to_dlpack(self._a)

    def __array_namespace__(self, api_version=None):
        import ember

        return ember
