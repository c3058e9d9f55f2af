"""Copies between device arrays of any layout: the strided casting copy kernel, given the fewest
axes that describe both operands, and safe when source and destination overlap."""

from __future__ import annotations

from . import _dtypes, _ember


def coalesce(shape, *strides):
    """``shape`` and each operand's ``strides`` with unit axes dropped and neighbouring axes
    merged wherever every operand steps through them as one axis.

    The copy kernel is compiled per number of axes and per contiguity, so a transposed or
    sliced copy of a 4-d array often needs only a 1-d or 2-d kernel (or a plain memcpy)."""
    out_shape: list[int] = []
    out_strides: list[list[int]] = [[] for _ in strides]
    for axis, d in enumerate(shape):
        if d == 1:
            continue
        if out_shape and all(o[-1] == s[axis] * d for o, s in zip(out_strides, strides, strict=True)):
            out_shape[-1] *= d
            for o, s in zip(out_strides, strides, strict=True):
                o[-1] = s[axis]
        else:
            out_shape.append(d)
            for o, s in zip(out_strides, strides, strict=True):
                o.append(s[axis])
    return out_shape, out_strides


def _byte_range(native) -> tuple[int, int]:
    """The bytes ``[lo, hi)`` of the buffer that a non-empty native array touches."""
    lo = hi = native.offset
    for d, s in zip(native.shape, native.strides, strict=True):
        if s < 0:
            lo += (d - 1) * s
        else:
            hi += (d - 1) * s
    return lo, hi + _dtypes.from_name(native.dtype).itemsize


def device_copy(src, dst) -> None:
    """Copies native ``src`` into native ``dst`` of the same shape (converting the dtype) on
    the device, correct even when the two overlap in one buffer (as NumPy's assignment is)."""
    shape = src.shape
    if 0 in shape:
        return
    if src.buffer_id == dst.buffer_id:
        if src.offset == dst.offset and src.strides == dst.strides and src.dtype == dst.dtype:
            return  # a[...] = a
        (s_lo, s_hi), (d_lo, d_hi) = _byte_range(src), _byte_range(dst)
        if s_lo < d_hi and d_lo < s_hi:
            # Threads would read elements that others already overwrote: stage the source.
            staged = _ember.empty(src.device, src.shape, src.dtype)
            device_copy(src, staged)
            src = staged
    flat_shape, (s_strides, d_strides) = coalesce(shape, src.strides, dst.strides)
    if len(flat_shape) != len(shape):
        src = src.view(flat_shape, s_strides, src.offset, src.dtype)
        dst = dst.view(flat_shape, d_strides, dst.offset, dst.dtype)
    src.copy_into(dst)


def device_fill(dst, value) -> None:
    """Sets every element of native ``dst`` to the Python scalar ``value`` (fewest axes)."""
    if 0 in dst.shape:
        return
    flat_shape, (strides,) = coalesce(dst.shape, dst.strides)
    if len(flat_shape) != len(dst.shape):
        dst = dst.view(flat_shape, strides, dst.offset, dst.dtype)
    dst.fill(value)
