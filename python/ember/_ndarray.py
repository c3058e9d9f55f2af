"""``ember.ndarray``: the one array type, a thin Python face over the native array, defined
whole in this module.

Shape, strides, dtype, offset and the buffer live in Rust (``ember_array::Array``), and so do
the array semantics (reshape, views, broadcasting, indexing: ``ember_array::shape`` and
``ember_array::index``). This class adds NumPy's spelling: properties, methods, operators, host
conversion, ``__repr__``, and the interchange protocols (``__cuda_array_interface__``, DLPack).

The modules its methods call (reductions, ufuncs, indexing, products, rounding) sit below it
and never import it: they make arrays through ``_ember.wrap`` and recognise them with
``isinstance(x, _ember.ndarray)`` (the class, registered with the native module when it is
defined), so the package has no import cycle.
"""

from __future__ import annotations

import ctypes
import math
import os
import pickle
import sys

import numpy as np

from . import (
    _bits,
    _diagonals,
    _dtypes,
    _ember,
    _flatiter,
    _index_tricks,
    _indexing,
    _interop,
    _linalg,
    _manipulation,
    _protocols,
    _reductions,
    _rounding,
    _sorting,
    _structured,
    _ufuncs,
)
from ._creation import _c_order, _c_strides, _host_pointer, _in_order, _memory_order, _shape_tuple, asarray, empty_like
from ._interop import _DL_CPU, _foreign_view
from ._memory import ArrayMemory, DeviceAllocation, MemoryPointer, UnownedMemory
from ._ndarray_cl import ClState, PyOpenCLArray, face
from ._ndarray_cl import carry as _ndarray_cl_carry
from ._operands import on_device
from ._runtime import Device, backend, current_device_id, get_current_stream


def _unpickle(host: np.ndarray) -> ndarray:
    """A pickled ember array, back on the current device."""
    return asarray(host)


def _wrap(native) -> ndarray:
    arr = _new(ndarray)
    arr._a = native
    arr._cl = None  # set, so the native operators read it without an AttributeError
    return arr


def _wrap_view(native, parent: ndarray) -> ndarray:
    """``native``, a view of ``parent``'s memory: its ``base`` is the array that owns the
    memory (a view of a view points at the owner, as in NumPy), kept alive by the view."""
    arr = _new(ndarray)
    arr._a = native
    arr._cl = None
    root = getattr(parent, "_base", None)
    arr._base = parent if root is None else root
    return arr


_new = object.__new__


def _stream_of(stream_or_queue):
    """The ember stream of a stream or of a PyOpenCL ``CommandQueue`` (its ``stream``)."""
    return getattr(stream_or_queue, "stream", stream_or_queue)
_SAME_QUEUE = object()  # copy()'s default: the copy keeps the array's PyOpenCL queue


def _made_by_numba(arr):
    """The stream an array made through Numba's API was made with (0 for none), looked up on
    the array or the array its memory belongs to (a view's); None for any other array. Kept
    off the array's hot paths: indexing does not copy it to views."""
    made = getattr(arr, "_stream", None)
    if made is None:
        made = getattr(getattr(arr, "_base", None), "_stream", None)
    return made


def _view_of_pointer(memptr, shape, dtype_name, strides):
    """The native array for ``ndarray(shape, dtype, memptr=..., strides=...)``: a view of an
    ember buffer, or of foreign device memory kept alive by ``memptr``."""
    itemsize = _dtypes.from_name(dtype_name).itemsize
    if strides is None:
        strides = _c_strides(shape, itemsize)
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


def _strided_new(shape, dtype_name, strides):
    """New memory for ``ndarray(shape, strides=...)``: just enough bytes for the elements the
    strides reach (non-negative strides; the first element at the start)."""
    strides = tuple(int(s) for s in strides)
    if len(strides) != len(shape):
        raise ValueError(f"ndarray() with strides {strides} does not match shape {shape}")
    itemsize = _dtypes.from_name(dtype_name).itemsize
    if any(s < 0 for s in strides):
        raise ValueError(f"ndarray() with strides {strides}: negative strides need memptr= (and an offset)")
    if any(d == 0 for d in shape):
        extent = 0
    else:
        extent = sum((d - 1) * s for d, s in zip(shape, strides, strict=True)) + itemsize
        contiguous = itemsize * math.prod(shape)
        if extent > contiguous:
            raise ValueError(
                f"ndarray() with strides {strides} reaches {extent} bytes, more than the {contiguous} bytes of "
                f"shape {shape}: allocate the memory and pass memptr="
            )
    base = _ember.empty(current_device_id(), [max(extent, 0)], "uint8")
    return base.view(list(shape), list(strides), 0, dtype_name)


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


class ndarray(PyOpenCLArray):
    """An n-dimensional array on a device.

    ``ndarray(shape, dtype=float, order='C')`` allocates an uninitialised array, as CuPy's does.
    It is also PyOpenCL's ``Array`` (``ember.cl.array.Array``; see ``_ndarray_cl``).
    """

    __slots__ = ("_a", "_base", "_stream", "_cl", "__weakref__")
    __array_priority__ = 100

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C"):
        order = _memory_order(order)
        shape = _shape_tuple(shape)
        name = _dtypes.name_of(dtype)
        if memptr is None:
            if strides is not None:
                self._a = _strided_new(shape, name, strides)
                return
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
        if 0 in self._a.shape:
            # An empty array points nowhere, as CuPy's (and as its CUDA array interface says).
            return MemoryPointer(UnownedMemory(0, 0, self, self._a.device), 0)
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
        return DeviceAllocation._over(self)

    @property
    def ptr(self) -> int:
        """PyCUDA's name for the address of the first element (``int(a.gpudata)``)."""
        return self._a.address

    # Numba's DeviceNDArray names.
    @property
    def stream(self):
        """The stream the array was made with through Numba's API (``device_array(stream=s)``,
        ``to_device(..., stream=s)``, ``as_cuda_array`` of an array naming one); 0 if none."""
        return _made_by_numba(self) or 0

    @property
    def gpu_data(self) -> MemoryPointer:
        """Numba's name for the memory the array's elements span: a pointer to its lowest byte,
        ``alloc_size`` bytes long (equal for two views of the same bytes)."""
        mem = ArrayMemory(self._a)
        low = self._a.address + sum(min(0, (n - 1) * st) for n, st in zip(self.shape, self.strides, strict=True))
        return MemoryPointer(mem, low - mem.ptr if self.size else 0, self.alloc_size)

    def get_ipc_handle(self):
        """Numba's handle for another process to open this array's memory (CUDA IPC):
        picklable; ``with handle as array:`` in the other process."""
        from ._jit.ipc import IpcArrayHandle

        return IpcArrayHandle.of(self)

    @property
    def device_ctypes_pointer(self) -> ctypes.c_void_p:
        """The address of the first element as a ``ctypes.c_void_p`` (0 for an empty array)."""
        return ctypes.c_void_p(self._a.address if self.size else 0)

    @property
    def alloc_size(self) -> int:
        """Bytes from the lowest to the highest byte the array's elements occupy (Numba's
        ``alloc_size``: a strided view spans more than its ``nbytes``)."""
        if self.size == 0:
            return 0
        return self.itemsize + sum((n - 1) * abs(st) for n, st in zip(self.shape, self.strides, strict=True))

    def __len__(self):
        if not self._a.shape:
            raise TypeError("len() of unsized object")
        return self._a.shape[0]

    # --- indexing (ember_array::index) --------------------------------------------------------
    def __getitem__(self, index):
        """``a[index]``: a view for basic indices (integers, slices, ``...``, ``None``; all
        integers give a 0-d array, as in CuPy), a gathered copy for integer and boolean arrays;
        for a structured array, a field name (or a list of them) gives a view of the fields."""
        try:
            return _ember.getitem(self, index)
        except IndexError:
            if self.dtype.names is None or not _structured.is_field_index(index):
                raise
        return _wrap_view(_structured.field_view(self, index), self)

    def __setitem__(self, index, value):
        try:
            _indexing.setitem(self, index, value)
        except (TypeError, IndexError, ValueError):
            if not (_structured.is_field_index(index) or self.dtype.names is not None):
                raise
            self._set_structured(index, value)

    def _set_structured(self, index, value) -> None:
        """``a[index] = value`` where a field is named or a structured value is cast by fields."""
        if _structured.is_field_index(index):
            target = _wrap_view(_structured.field_view(self, index), self)
            if target.dtype.names is not None:
                _structured.assign(target, value, _wrap_view)
            else:
                target[...] = value
            return
        if isinstance(value, ndarray) and value.dtype.names is not None:
            value = _structured.cast(value, self.dtype, _wrap_view)
        elif not isinstance(value, ndarray):
            value = asarray(np.asarray(value, dtype=self.dtype))
        _indexing.setitem(self, index, value)

    def __iter__(self):
        """Iterates over the first axis, giving views (as NumPy does); a 0-d array raises at
        once, as ``iter()`` of it does in NumPy."""
        if not self._a.shape:
            raise TypeError("iteration over a 0-d array")
        return (_ember.getitem(self, i) for i in range(self._a.shape[0]))

    def sort(self, axis=-1, kind=None, order=None, *, stable=None) -> None:
        """Sorts the array in place along ``axis`` (stable, NumPy's order: NaN last)."""
        self[...] = _sorting.sort(self, axis=axis, kind=kind, order=order)

    def argsort(self, axis=-1, kind=None, order=None, *, stable=None):
        """The indices that sort the array along ``axis``."""
        return _sorting.argsort(self, axis=axis, kind=kind, order=order)

    def partition(self, kth, axis=-1, kind="introselect", order=None) -> None:
        """Partitions the array in place: the element at each ``kth`` where sorting puts it,
        smaller ones before it, larger after (ember sorts the whole axis)."""
        self[...] = _sorting.partition(self, kth, axis=axis, kind=kind, order=order)

    def argpartition(self, kth, axis=-1, kind="introselect", order=None):
        """The indices that would partition the array along ``axis``."""
        return _sorting.argpartition(self, kth, axis=axis, kind=kind, order=order)

    def searchsorted(self, v, side="left", sorter=None):
        """Where ``v``'s values would go in this sorted 1-d array."""
        return _sorting.searchsorted(self, v, side=side, sorter=sorter)

    def nonzero(self) -> tuple:
        """The indices of the non-zero elements, one int64 array per axis."""
        return _ember.nonzero(self)

    def take(self, indices, axis=None, out=None):
        """Elements at ``indices`` (of the flattened array when ``axis`` is None)."""
        return _indexing.take(self, indices, axis, out)

    # --- host conversion ----------------------------------------------------------------------
    def get(self, stream=None, order="C", out=None, blocking=True, *, queue=None, ary=None,
            async_=None) -> np.ndarray:
        """A NumPy copy of the array (C order). PyOpenCL's form ``get(queue, ary)`` works too:
        ``queue`` is a stream, ``ary`` (the second argument when it is an array) is ``out``."""
        if isinstance(order, np.ndarray) or order is None:  # PyOpenCL's get(queue, ary)
            order, out = "C", order if out is None else out
        stream = _stream_of(queue if stream is None else stream)
        out = ary if out is None else out
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

    def copy_to_device(self, ary, stream=None) -> None:
        """Numba's ``DeviceNDArray.copy_to_device``: ``ary`` copied into this array, from the
        device (another device array, or anything with ``__cuda_array_interface__`` or
        ``__dlpack__``) or from the host; its shape and dtype must be this array's."""
        if stream in (0, None):
            stream = None
        if not on_device(ary):
            host = np.asarray(ary)
            _check_same_layout(self, host)
            self.set(host, stream=stream)
            return
        source = asarray(ary)
        _check_same_layout(self, source)
        if stream is None:
            _index_tricks.copyto(self, source)
        else:
            with stream:
                _index_tricks.copyto(self, source)

    def set(self, arr, stream=None, async_=False, *, queue=None) -> None:
        """Copies a host array of the same shape into this array (PyOpenCL's ``queue=``
        names the stream too; the copy completes before it returns)."""
        stream = _stream_of(queue if stream is None else stream)
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
        # Numba's device arrays copy to the host here (np.asarray(d), np.testing on them);
        # CuPy's refuse, so an unnoticed copy never slips into array code. Each face keeps its
        # rule: arrays made through Numba's API carry `_stream` (their views, through their base).
        if _made_by_numba(self) is None:
            raise TypeError(
                "Implicit conversion to a NumPy array is not allowed. Use .get() or ember.asnumpy() to copy it "
                "explicitly."
            )
        if copy is False:
            raise ValueError("a device array cannot be viewed as a NumPy array without a copy (copy=False)")
        host = self.get()
        return host if dtype is None else host.astype(dtype, copy=False)

    def byteswap(self, inplace=False) -> ndarray:
        """The elements with their bytes reversed (each part of a complex number on its own)."""
        return _bits.byteswap(self, inplace)

    def tofile(self, fid, sep="", format="%s") -> None:  # noqa: A002  (NumPy's name)
        """Writes the elements to a file (``numpy.ndarray.tofile``), copied to the host first."""
        self.get().tofile(fid, sep=sep, format=format)

    def __reduce__(self):
        """Pickling (``pickle``, ``multiprocessing``, Dask): the elements go through the host,
        and unpickling puts them on the current device, as CuPy's arrays do."""
        return _unpickle, (self.get(),)

    def dumps(self) -> bytes:
        """A pickle of the array (``pickle.loads`` gives an ember array back)."""
        return pickle.dumps(self)

    def dump(self, file) -> None:
        """Pickles the array to ``file`` (a path or an open binary file)."""
        if isinstance(file, str | os.PathLike):
            with open(file, "wb") as f:
                pickle.dump(self, f)
        else:
            pickle.dump(self, file)

    def tobytes(self, order="C") -> bytes:
        """The elements' bytes, copied to the host, in ``order``."""
        return self.get().tobytes(order)

    def to_device(self, device, /, *, stream=None) -> ndarray:
        """The array on ``device`` (an ``ember.cuda.Device``, its id, or ``"cpu"`` for a
        NumPy array on the host): the array API's copy between devices."""
        if device == "cpu":
            return self.get(stream=stream)
        target = getattr(device, "id", device)
        if target == self._a.device:
            return self
        host = self.get(stream=stream)  # between devices through the host, for now
        with Device(target):
            out = _wrap(_ember.empty(target, list(self.shape), self._a.dtype))
            out.set(host, stream=stream)
            return out

    def tolist(self):
        return self.get().tolist()

    def item(self):
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self.get().item()

    def __bool__(self):
        if self.size == 0:
            raise ValueError(
                "The truth value of an empty array is ambiguous. Use `array.size > 0` to check that an array is "
                "not empty."
            )
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
    def astype(self, dtype, order="K", casting=None, subok=None, copy=True, *, queue=None) -> ndarray:
        """A copy converted to ``dtype`` (NumPy's conversion rules; PyOpenCL's ``queue=`` is
        accepted)."""
        name = _dtypes.name_of(dtype)
        if not copy and name == self._a.dtype:
            return self
        if self.dtype.names is not None and name != self._a.dtype:  # field by field, as NumPy
            return _structured.cast(self, _dtypes.from_name(name), _wrap_view)
        _dtypes.warn_complex_to_real(self.dtype, _dtypes.from_name(name))
        if self._a.c_contiguous or order in ("C", "c") or self.ndim < 2:
            return _wrap(self._a.astype(name))
        # Another layout kept, as NumPy's order='K' (and 'F', 'A') keep it: a new array laid
        # out like this one, written through the converting copy.
        out = empty_like(self, dtype=name, order=order)
        out[...] = self
        return out

    def copy(self, order="C", *, queue=_SAME_QUEUE) -> ndarray:
        """A copy on the device in ``order`` ('C' by default, as ``numpy.ndarray.copy``). It
        keeps the array's PyOpenCL queue, or takes ``queue`` (None for none), as PyOpenCL's."""
        result = _ember.copy_in_order(self, order)
        mine = getattr(self, "_cl", None)
        if queue is not _SAME_QUEUE or mine is not None:
            result._cl = ClState(mine.queue if queue is _SAME_QUEUE else queue, (), mine and mine.allocator)
        return result

    def fill(self, value, queue=None, wait_for=None):
        """Sets every element to ``value``: a scalar, a 0-d array (on the device, read there), or
        for a structured array anything NumPy reads as one element of it. Returns the array
        (PyOpenCL's ``fill``; NumPy's returns None)."""
        for evt in wait_for or ():
            evt.wait()
        opaque = _dtypes.is_opaque(self.dtype)
        if isinstance(value, (bool, int, float, complex, np.generic)) and not opaque:
            self._a.fill(value.item() if isinstance(value, np.generic) else value)
            return self._filled(queue)
        if not isinstance(value, ndarray):
            device = _foreign_view(value)
            value = device if device is not None else np.asarray(value, dtype=self.dtype if opaque else None)
        if value.ndim != 0:
            raise ValueError("setting an array element with a sequence.")
        self[...] = value
        return self._filled(queue)

    def _filled(self, queue) -> ndarray:
        """``fill``'s result; an array with a PyOpenCL queue records the fill's event."""
        state = getattr(self, "_cl", None)
        if state is not None and (queue or state.queue) is not None:
            self.add_event(face.last_event(queue or state.queue))
        return self

    def view(self, dtype=None) -> ndarray:
        """A view of the same memory as ``dtype``. A dtype of another size changes the length
        of the last axis, which must be contiguous (NumPy's rules and messages)."""
        shape, strides, name = list(self._a.shape), list(self._a.strides), self._a.dtype
        if dtype is not None:
            d = _dtypes.normalize(dtype)
            name = _dtypes.name_of(d)
            if d.itemsize != self.itemsize:
                shape[-1:], strides[-1:] = self._resized_last_axis(d.itemsize)
        return _wrap_view(self._a.view(shape, strides, self._a.offset, name), self)

    def _resized_last_axis(self, size: int) -> tuple[list[int], list[int]]:
        """The last axis's length and stride in elements of ``size`` bytes (for ``view``)."""
        old = self.itemsize
        if self.ndim == 0:
            raise ValueError("Changing the dtype of a 0d array is only supported if the itemsize is unchanged")
        if self.shape[-1] != 1 and self.size and self.strides[-1] != old:
            raise ValueError("To change to a dtype of a different size, the last axis must be contiguous")
        if size < old and old % size:
            raise ValueError(
                "When changing to a smaller dtype, its size must be a divisor of the size of original dtype"
            )
        total = self.shape[-1] * old
        if total % size:
            raise ValueError(
                "When changing to a larger dtype, its size must be a divisor of the total size in bytes "
                "of the last axis of the array."
            )
        return [total // size], [size]

    # --- shape (ember_array::shape) -----------------------------------------------------------
    def reshape(self, *shape, order="C", copy=None) -> ndarray:
        """``a.reshape(2, 3)`` or ``a.reshape((2, 3))``: a view whenever NumPy gives one, else a
        copy on the device (NumPy's rule); ``copy=False`` raises instead of copying."""
        return _ember.reshape(self, shape, order, copy)

    def ravel(self, order="C") -> ndarray:
        """The elements as a 1-d array: a view when they already lie in ``order``."""
        return _ember.ravel(self, order)

    def flatten(self, order="C") -> ndarray:
        """A 1-d copy of the array (always a copy, as ``numpy.ndarray.flatten``)."""
        return _ember.flatten(self, order)

    def transpose(self, *axes) -> ndarray:
        """``a.transpose()``, ``a.transpose(1, 0, 2)`` or ``a.transpose((1, 0, 2))``: a view."""
        return _ember.transpose(self, axes)

    @property
    def T(self) -> ndarray:
        return _ember.transpose(self, ())

    @property
    def mT(self) -> ndarray:
        """The matrices of a stack transposed (the last two axes swapped): a view."""
        if self.ndim < 2:
            raise ValueError("matrix transpose with ndim < 2 is undefined")
        return self.swapaxes(-1, -2)

    @property
    def flat(self) -> _flatiter.flatiter:
        """The array as 1-d in C order, to index, assign or iterate (``numpy.flatiter``)."""
        return _flatiter.flatiter(self)

    def swapaxes(self, axis1, axis2) -> ndarray:
        """A view with two axes exchanged."""
        return _ember.swapaxes(self, axis1, axis2)

    def squeeze(self, axis=None) -> ndarray:
        """A view without the length-1 axes (all, or those in ``axis``)."""
        return _ember.squeeze(self, axis)

    # --- reductions ---------------------------------------------------------------------------
    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return _reductions.sum(self, axis, dtype, out, keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return _reductions.prod(self, axis, dtype, out, keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return _reductions.mean(self, axis, dtype, out, keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=None):
        return _reductions.var(self, axis, dtype, out, ddof, keepdims, correction=correction)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=None):
        return _reductions.std(self, axis, dtype, out, ddof, keepdims, correction=correction)

    def max(self, axis=None, out=None, keepdims=False):
        return _reductions.max(self, axis, out, keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        return _reductions.min(self, axis, out, keepdims)

    def argmax(self, axis=None, out=None, *, keepdims=False, dtype=None):
        return _reductions.argmax(self, axis, out, keepdims=keepdims, dtype=dtype)

    def argmin(self, axis=None, out=None, *, keepdims=False, dtype=None):
        return _reductions.argmin(self, axis, out, keepdims=keepdims, dtype=dtype)

    def any(self, axis=None, out=None, keepdims=False):
        return _reductions.any(self, axis, out, keepdims)

    def all(self, axis=None, out=None, keepdims=False):
        return _reductions.all(self, axis, out, keepdims)

    def cumsum(self, axis=None, dtype=None, out=None):
        return _reductions.cumsum(self, axis, dtype, out)

    def cumprod(self, axis=None, dtype=None, out=None):
        return _reductions.cumprod(self, axis, dtype, out)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return _diagonals.diagonal(self, offset, axis1, axis2)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        return _diagonals.trace(self, offset, axis1, axis2, dtype, out)

    def repeat(self, repeats, axis=None):
        return _manipulation.repeat(self, repeats, axis)

    def compress(self, condition, axis=None, out=None):
        return _index_tricks.compress(condition, self, axis, out)

    def choose(self, choices, out=None, mode="raise"):
        return _index_tricks.choose(self, choices, out, mode)

    def put(self, indices, values, mode="raise"):
        _index_tricks.put(self, indices, values, mode)

    # --- elementwise --------------------------------------------------------------------------
    @property
    def real(self) -> ndarray:
        """The real part: a view for complex arrays, the array itself otherwise."""
        return _ufuncs.complex_part(self, False)

    @real.setter
    def real(self, value):
        _ufuncs.set_complex_part(self, value, False)

    @property
    def imag(self) -> ndarray:
        """The imaginary part: a view for complex arrays, zeros otherwise."""
        return _ufuncs.complex_part(self, True)

    @imag.setter
    def imag(self, value):
        _ufuncs.set_complex_part(self, value, True)

    def conj(self) -> ndarray:
        """The complex conjugate (CuPy returns a real array itself)."""
        return _ufuncs.UFUNCS["conjugate"](self) if self.dtype.kind == "c" else self

    conjugate = conj

    def clip(self, min=None, max=None, out=None):
        return _ufuncs.clip(self, min, max, out)

    def round(self, decimals=0, out=None):
        """``a.round(decimals=0, out=None)``: see :func:`ember.around`."""
        return _rounding.around(self, decimals, out)

    def __divmod__(self, other):
        return _ufuncs.UFUNCS["floor_divide"](self, other), _ufuncs.UFUNCS["remainder"](self, other)

    # Arrays compare element-wise, so they are not hashable (as in NumPy and CuPy).
    __hash__ = None

    # --- NumPy's dispatch: np.sin(x), np.mean(x) run ember's (see _protocols) -----------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _protocols.array_ufunc(self, ufunc, method, *inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _protocols.array_function(self, func, types, args, kwargs)

    # --- products -----------------------------------------------------------------------------
    def dot(self, b, out=None):
        return _linalg.dot(self, b, out=out)

    def __matmul__(self, other):
        return _linalg.matmul(self, other) if _ufuncs._operand(other) else NotImplemented

    def __rmatmul__(self, other):
        return _linalg.matmul(other, self) if _ufuncs._operand(other) else NotImplemented

    def __imatmul__(self, other):
        return _linalg.matmul(self, other, out=self)

    # --- interchange --------------------------------------------------------------------------
    @property
    def __cuda_array_interface__(self) -> dict:
        if backend() != "cuda":
            raise AttributeError(
                "__cuda_array_interface__ exists only for arrays on the CUDA backend; use DLPack (__dlpack__) instead"
            )
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "descr": self.dtype.descr,
            "data": (self._a.address if self.size else 0, False),
            "strides": None if self._a.c_contiguous else self.strides,
            "version": 3,
            "stream": _interop.stream_entry(self.stream, self._a.device),
        }

    def __dlpack_device__(self) -> tuple[int, int]:
        return _ember.dlpack_device(self._a)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule viewing the array: DLPack 1.0's versioned form when the consumer's
        ``max_version`` allows it, else the legacy one."""
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"cannot export to device {dl_device}: the array is on {self.__dlpack_device__()}")
        host = self.__dlpack_device__()[0] == _DL_CPU
        if stream != -1 and (host or stream is not None):
            # The consumer will use the data on its stream, or (host memory: a CPU device)
            # read it at once: finish our work on it first. -1 asks for no wait (DLPack).
            get_current_stream(self._a.device).synchronize()
        versioned = max_version is not None and max_version[0] >= 1
        source = self.copy() if copy else self
        return _ember.to_dlpack(source._a, versioned, bool(copy))

    def __array_namespace__(self, /, *, api_version=None):
        """The ``ember`` module: the Array API standard's namespace, 2024.12 (and earlier)."""
        if api_version not in (None, "2021.12", "2022.12", "2023.12", "2024.12"):
            raise ValueError(f"Unrecognized array API version: {api_version!r}; ember implements up to 2024.12")
        return sys.modules["ember"]


def _install_operators():
    """The arithmetic, comparison and unary operators: native methods (``ember.ndarray`` and
    scalar operands go from Python's operator slot straight to the ufunc) in front of the
    Python methods of ``_ufuncs`` for every other operand. Native methods are made for this
    class, so they are set once it exists."""
    ufunc_id = {name: u._id for name, u in _ufuncs.UFUNCS.items()}

    def native(dunder, name, form, fallback):
        setattr(ndarray, dunder, _ember.operator_method(ndarray, dunder, ufunc_id[name], form, fallback))

    for dunder, name in (
        ("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "true_divide"),
        ("floordiv", "floor_divide"), ("mod", "remainder"), ("pow", "power"), ("and", "bitwise_and"),
        ("or", "bitwise_or"), ("xor", "bitwise_xor"), ("lshift", "left_shift"), ("rshift", "right_shift"),
    ):
        forward, reflected, inplace = _ufuncs.binary_operators(name)
        native(f"__{dunder}__", name, "forward", forward)
        native(f"__r{dunder}__", name, "reflected", reflected)
        native(f"__i{dunder}__", name, "inplace", inplace)
    for dunder, name in (
        ("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
        ("ge", "greater_equal"),
    ):
        native(f"__{dunder}__", name, "forward", _ufuncs.binary_operators(name)[0])
    for dunder, name in (("neg", "negative"), ("pos", "positive"), ("abs", "absolute"), ("invert", "invert")):
        native(f"__{dunder}__", name, "unary", _ufuncs.unary_operator(name))


_install_operators()

# The native module recognises and makes ember arrays by identity, with no Python-level checks.
_ember.register_types(
    ndarray,
    np.ndarray,
    # C's long long types are NumPy scalar types of their own on Linux (int64 is C long).
    [(_dtypes.from_name(n).type, n) for n in _dtypes.SUPPORTED] + [(np.longlong, "int64"), (np.ulonglong, "uint64")],
)
_ember.register_face_carry(_ndarray_cl_carry)


def _check_same_layout(dst, src) -> None:
    """Numba's rule for a copy into a device array: the same shape and dtype."""
    if tuple(src.shape) != tuple(dst.shape):
        raise ValueError(f"incompatible shape: {tuple(dst.shape)} vs. {tuple(src.shape)}")
    if np.dtype(src.dtype) != np.dtype(dst.dtype):
        raise TypeError(f"incompatible dtype: {np.dtype(dst.dtype)} vs. {np.dtype(src.dtype)}")
