"""``pyopencl.cltypes``: OpenCL C's scalar and vector types as NumPy dtypes.

``float4`` is a structured dtype of four float32 fields ``s0..s3`` titled ``x y z w`` (a
``float3`` has a fourth padding field, as OpenCL lays it out in 16 bytes); ``make_float4(1, 2,
3, 4)`` is a scalar of it, ``zeros_float4()`` and ``filled_float4(v)`` too. Each is registered
with :func:`ember.cl.tools.get_or_register_dtype` under its OpenCL name.
"""

from __future__ import annotations

import builtins

import numpy as np

from .tools import get_or_register_dtype

char, uchar = np.int8, np.uint8
short, ushort = np.int16, np.uint16
int, uint = np.int32, np.uint32  # noqa: A001  (OpenCL's names)
long, ulong = np.int64, np.uint64
half, float, double = np.float16, np.float32, np.float64  # noqa: A001

_SCALARS = {"char": char, "uchar": uchar, "short": short, "ushort": ushort, "int": int, "uint": uint,
            "long": long, "ulong": ulong, "float": float, "double": double}
_COUNTS = (2, 3, 4, 8, 16)
_TITLES = ("x", "y", "z", "w")

# (scalar dtype, count) -> vector dtype, and back.
vec_types: dict = {}
vec_type_to_scalar_and_count: dict = {}


def _vector_dtype(base, count: builtins.int) -> np.dtype:
    padded = 4 if count == 3 else count
    names = [f"s{i}" for i in range(count)] + [f"padding{i}" for i in range(padded - count)]
    titles = list(_TITLES[:count]) if count <= 4 else []
    titles += [None] * (padded - len(titles))
    return np.dtype({"names": names, "formats": [base] * padded, "titles": titles})


def _maker(dtype: np.dtype, count: builtins.int, padded: builtins.int):
    def make(*values):
        if len(values) != count:
            raise TypeError(f"make_{dtype_name(dtype)}() takes {count} values, got {len(values)}")
        return np.array(tuple(values) + (0,) * (padded - count), dtype=dtype)[()]

    return make


def dtype_name(dtype) -> str:
    """The OpenCL name of a vector dtype made here."""
    base, count = vec_type_to_scalar_and_count[np.dtype(dtype)]
    return next(n for n, t in _SCALARS.items() if np.dtype(t) == base) + str(count)


for _base_name, _base in _SCALARS.items():
    for _count in _COUNTS:
        _name = f"{_base_name}{_count}"
        _dtype = _vector_dtype(_base, _count)
        get_or_register_dtype(_name, _dtype)
        vec_types[np.dtype(_base), _count] = _dtype
        vec_type_to_scalar_and_count[_dtype] = (np.dtype(_base), _count)
        _padded = 4 if _count == 3 else _count
        globals()[_name] = _dtype
        globals()[f"make_{_name}"] = _maker(_dtype, _count, _padded)
        globals()[f"filled_{_name}"] = (lambda d, c, p: lambda value: _maker(d, c, p)(*([value] * c)))(
            _dtype, _count, _padded)
        globals()[f"zeros_{_name}"] = (lambda d: lambda: np.zeros((), d)[()])(_dtype)
