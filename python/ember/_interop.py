"""Zero-copy exchange with other libraries: DLPack and ``__cuda_array_interface__``."""

from __future__ import annotations

import numpy as np

from . import _dtypes, _ember
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


def _from_cuda_array_interface(obj):
    cai = obj.__cuda_array_interface__
    if cai.get("mask") is not None:
        raise ValueError("ember does not support masked __cuda_array_interface__ arrays (a 'mask' entry)")
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
    if cai.get("version", 0) >= 3 and cai.get("stream") is not None:
        # The producer's work may still be queued: wait for it before we use the memory.
        _ember.synchronize(current_device_id())
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
