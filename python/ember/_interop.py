"""Zero-copy exchange with other libraries: DLPack and ``__cuda_array_interface__``."""

from __future__ import annotations

import numpy as np

from . import _config, _dtypes, _ember
from ._runtime import backend, current_device_id, get_current_stream

_DL_CPU, _DL_CUDA = 1, 2


def from_dlpack(x, *, device=None, copy=None):
    """An ember array viewing ``x``'s memory (an object with ``__dlpack__``, or a DLPack
    capsule), without copying. On the CUDA backend the tensor must be on the current GPU; on
    a CPU OpenCL device it must be in host memory (NumPy arrays work)."""
    if isinstance(x, _ember.ndarray):
        # Ember's own array: a view, on every device (an OpenCL GPU's buffers have no DLPack
        # form another library reads).
        return x.copy() if copy else x.view()
    dev = current_device_id()
    if hasattr(x, "__dlpack__"):
        kind, _ = x.__dlpack_device__()
        # DLPack names CUDA's legacy default stream 1.
        stream = {"stream": get_current_stream().ptr or 1} if kind == _DL_CUDA and backend() == "cuda" else {}
        try:
            capsule = x.__dlpack__(max_version=(1, 0), **stream)
        except TypeError:  # a producer older than DLPack 1.0 takes no max_version
            capsule = x.__dlpack__(**stream)
    else:
        capsule = x
    arr = _ember.wrap(_ember.from_dlpack_capsule(dev, capsule))
    return arr.copy() if copy else arr


class MaskedArrayError(NotImplementedError, ValueError):
    """A ``__cuda_array_interface__`` with a mask: Numba raises NotImplementedError, CuPy
    ValueError; this is both."""


def stream_entry(recorded, device_id: int):
    """The ``stream`` entry of an array's ``__cuda_array_interface__``: the stream the array was
    made with (Numba's API), else this thread's current stream; None for CUDA's legacy default
    stream, as Numba gives (work there is ordered before any blocking stream's next work)."""
    stream = recorded or get_current_stream(device_id)
    handle = int(getattr(stream, "handle", None) or stream.ptr)
    return handle or None


def producer_stream(cai: dict):
    """The stream a ``__cuda_array_interface__`` names (an external stream), or 0 for none."""
    handle = cai.get("stream") if cai.get("version", 0) >= 3 else None
    if handle is None:
        return 0
    from ._jit.streams import external_stream

    return external_stream(int(handle))


def _from_cuda_array_interface(obj, sync: bool = True):
    cai = obj.__cuda_array_interface__
    if cai.get("mask") is not None:
        raise MaskedArrayError(
            "Masked arrays are not supported: ember reads no 'mask' entry of __cuda_array_interface__; "
            "pass the data and the mask as two arrays"
        )
    typestr = np.dtype(cai["typestr"])
    if not typestr.isnative:
        # Device memory in the other byte order: ember would have to swap it, not view it.
        raise ValueError(
            f"ember does not support __cuda_array_interface__ data of non-native byte order ({cai['typestr']!r})"
        )
    descr = cai.get("descr")
    if typestr.kind == "V" and descr and descr != [("", cai["typestr"])]:
        # A structured dtype: the typestr says only '|V<size>', the descr has the fields.
        fields = np.dtype([tuple(f) for f in descr])
        if fields.itemsize == typestr.itemsize:
            typestr = fields
    dtype = _dtypes.normalize(typestr)
    shape = tuple(int(d) for d in cai["shape"])
    strides = cai.get("strides")
    address = int(cai["data"][0])
    stream = producer_stream(cai)
    if stream and sync and _config.CUDA_ARRAY_INTERFACE_SYNC:
        # The producer's work may still be queued on its stream: wait for it first.
        stream.synchronize()
    return _ember.wrap(
        _ember.from_foreign(current_device_id(), address, list(shape),
                            None if strides is None else [int(s) for s in strides], _dtypes.name_of(dtype), obj)
    )


def _foreign_view(obj):
    """A zero-copy view of a device object, or ``None`` when ``obj`` is host data."""
    if isinstance(obj, (np.ndarray, np.generic, list, tuple, int, float, complex, bool)):
        return None
    if hasattr(obj, "__cupy_get_ndarray__"):
        # CuPy's protocol for array-like wrappers: the array they hold (an ember array here).
        held = obj.__cupy_get_ndarray__()
        if isinstance(held, _ember.ndarray):
            return held
    if backend() == "cuda" and hasattr(obj, "__cuda_array_interface__"):
        return _from_cuda_array_interface(obj)
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        kind, _ = obj.__dlpack_device__()
        if (kind == _DL_CUDA and backend() == "cuda") or (
            kind == _DL_CPU and _ember.device_info(current_device_id())["host_unified"]
        ):
            return from_dlpack(obj)
        if kind == _DL_CPU:
            return None
    return None
