"""Strides and axis order of host and device arrays, as Numba's array makers take them."""

from __future__ import annotations


def dense(shape, strides, itemsize) -> bool:
    """Whether ``strides`` place every element of ``shape`` once, with no gap: each axis,
    taken from the smallest stride up, steps over all the axes before it."""
    if 0 in shape:
        return True
    step = itemsize
    for n, s in sorted(((n, s) for n, s in zip(shape, strides, strict=True) if n > 1), key=lambda p: p[1]):
        if s != step:
            return False
        step *= n
    return True


def contiguous_strides_like(ary):
    """Strides of a dense array with ``ary``'s axis order (None when C or F order will do), as
    Numba's ``device_array_like`` computes them (after NumPy's ``empty_like``)."""
    flags = ary.flags
    if flags.c_contiguous or flags.f_contiguous or ary.ndim <= 1:
        return None
    order = sorted(range(ary.ndim), key=lambda k: ary.strides[k])
    strides = [0] * ary.ndim
    step = ary.dtype.itemsize
    for k in order:
        strides[k] = step
        step *= ary.shape[k]
    return tuple(strides)


def order_like(ary) -> str:
    flags = getattr(ary, "flags", None)
    return "F" if flags is not None and flags.f_contiguous and not flags.c_contiguous else "C"
