"""Bits and bytes: NumPy's ``packbits`` and ``unpackbits``, and ``ndarray.byteswap``.

``packbits``/``unpackbits`` are a few device kernels: the truth of each element, grouped eight
to a byte along the axis and weighted by bit position (``big``: the first element is the
highest bit). ``byteswap`` reverses each element's bytes in one fused kernel (each part of a
complex number on its own, as NumPy does).
"""

from __future__ import annotations

import functools
import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from . import _ember
from ._creation import asarray, zeros
from ._fusion import fuse
from ._reductions import sum as _sum
from ._shape import concatenate, moveaxis, ravel
from ._ufuncs import UFUNCS

__all__ = ["packbits", "unpackbits"]

_UNSIGNED = {2: np.uint16, 4: np.uint32, 8: np.uint64}

_right_shift, _bitwise_and, _not_equal, _multiply = (
    UFUNCS["right_shift"], UFUNCS["bitwise_and"], UFUNCS["not_equal"], UFUNCS["multiply"],
)


def _shifts(bitorder: str) -> np.ndarray:
    """Each position's bit in its byte: 7..0 for ``big``, 0..7 for ``little``."""
    if bitorder not in ("big", "little"):
        raise ValueError("'order' must be either 'little' or 'big'")
    shifts = np.arange(8, dtype=np.uint8)
    return shifts[::-1].copy() if bitorder == "big" else shifts


def _prepare(a, axis):
    """``a`` flattened (``axis=None``) or as at least 1-d, and the axis to work along."""
    if axis is None or a.ndim == 0:
        if axis is not None:
            normalize_axis_index(axis, 1)
        return ravel(a), 0
    return a, normalize_axis_index(axis, a.ndim)


def packbits(a, /, axis=None, bitorder="big"):
    """The truth of ``a``'s elements packed eight to a uint8 along ``axis`` (of the flattened
    array when None), the last byte padded with zero bits."""
    a = a if isinstance(a, _ember.ndarray) else asarray(a)
    if a.dtype.kind not in "biu":
        raise TypeError("Expected an input array of integer or boolean data type")
    weights = asarray(np.left_shift(np.uint8(1), _shifts(bitorder)))
    a, axis = _prepare(a, axis)
    bits = moveaxis(_not_equal(a, 0).astype(np.uint8), axis, -1)
    n = bits.shape[-1]
    if n % 8:
        bits = concatenate([bits, zeros(bits.shape[:-1] + (8 - n % 8,), np.uint8)], axis=-1)
    groups = bits.reshape(bits.shape[:-1] + (bits.shape[-1] // 8, 8))
    packed = _sum(_multiply(groups, weights), axis=-1, dtype=np.uint8)
    return moveaxis(packed, -1, axis)


def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    """The bits of uint8 array ``a`` as 0/1 uint8 elements along ``axis`` (of the flattened
    array when None), eight per byte; ``count`` keeps that many (padding with zeros), or
    drops ``-count`` from the end."""
    a = a if isinstance(a, _ember.ndarray) else asarray(a)
    if a.dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    shifts = asarray(_shifts(bitorder))
    a, axis = _prepare(a, axis)
    moved = moveaxis(a, axis, -1)
    total = moved.shape[-1] * 8
    bits = _bitwise_and(_right_shift(moved[..., None], shifts), np.uint8(1))
    bits = bits.reshape(moved.shape[:-1] + (total,))
    if count is not None:
        count = operator.index(count)
        if count < 0:
            if -count > total:
                raise ValueError("-count larger than number of elements")
            count += total
        if count > total:
            bits = concatenate([bits, zeros(bits.shape[:-1] + (count - total,), np.uint8)], axis=-1)
        else:
            bits = bits[..., :count]
    return moveaxis(bits, -1, axis)



@functools.cache
def _reverser(itemsize: int):
    """A fused kernel reversing the bytes of unsigned integers of ``itemsize`` bytes."""
    bits = 8 * itemsize

    def reverse(u):
        out = (u >> (bits - 8)) & 0xFF
        for k in range(1, itemsize):
            shift = bits - 8 - 8 * k
            byte = (u >> shift) & 0xFF if shift > 0 else (u & 0xFF)
            out = out | (byte << (8 * k))
        return out

    return fuse(reverse)


def _swapped(part):
    """``part`` (a real dtype) with each element's bytes reversed, as the same dtype."""
    if part.itemsize == 1:
        return part.copy()
    as_unsigned = part.view(_UNSIGNED[part.itemsize])
    return _reverser(part.itemsize)(as_unsigned).view(part.dtype)


def byteswap(a, inplace=False):
    """``a`` with the bytes of every element reversed (``ndarray.byteswap``): a new array, or
    ``a`` itself changed when ``inplace``."""
    if a.dtype.kind == "c":
        result = zeros(a.shape, a.dtype) if not inplace else a
        real, imag = _swapped(a.real), _swapped(a.imag)
        result.real[...] = real
        result.imag[...] = imag
        return result
    swapped = _swapped(a)
    if inplace:
        a[...] = swapped
        return a
    return swapped
