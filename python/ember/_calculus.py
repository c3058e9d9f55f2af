"""NumPy's numerical calculus on arrays: ``gradient`` (central differences inside, one- or
two-sided second-order differences at the edges, even or uneven spacing), ``trapezoid`` (the
composite trapezoidal rule) and ``cross`` (vector cross products of 2- and 3-vectors).

Each is NumPy 2's formula written over ember's ufuncs, slices and reductions, so it runs on the
device with NumPy's result dtypes (NEP 50: Python scalars weak, NumPy scalars and 0-d arrays
strong). The only host reads: whether coordinate differences are all equal (``gradient``, one
bool per axis, as NumPy takes that shortcut too).
"""

from __future__ import annotations

import functools
import operator
import warnings

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from . import _ember, _reductions
from ._creation import asarray, empty
from ._differences import diff
from ._shape import broadcast_shapes, moveaxis
from ._ufuncs import UFUNCS

__all__ = ["cross", "gradient", "trapezoid"]

_multiply, _subtract, _negative = UFUNCS["multiply"], UFUNCS["subtract"], UFUNCS["negative"]


def _array(a):
    return a if isinstance(a, _ember.ndarray) else asarray(a)


def _ndim(x) -> int:
    return x.ndim if isinstance(x, _ember.ndarray) else np.ndim(x)


def _spacings(varargs, f, axes):
    """One spacing per axis of ``axes``: a scalar (kept as given, so it promotes as NumPy's
    does), or the differences of a 1-d coordinate array (a 0-d array when they are all equal)."""
    n = len(varargs)
    if n == 0:
        return [1.0] * len(axes)
    if n == 1 and _ndim(varargs[0]) == 0:
        return list(varargs) * len(axes)
    if n != len(axes):
        raise TypeError("invalid number of arguments")
    dx = list(varargs)
    for i, distances in enumerate(dx):
        if _ndim(distances) == 0:
            continue
        distances = _array(distances)
        if distances.ndim != 1:
            raise ValueError("distances must be either scalars or 1d")
        if len(distances) != f.shape[axes[i]]:
            raise ValueError("when 1d, distances must match the length of the corresponding dimension")
        if distances.dtype.kind in "iu":
            # Differences of integer coordinates in float64, as NumPy's (no wrap-around).
            distances = distances.astype(np.float64)
        diffx = diff(distances)
        # Even spacing is taken as a scalar, as NumPy does (the same rounding as NumPy's).
        if bool(_reductions.all(diffx == diffx[0])):
            diffx = diffx[0]
        dx[i] = diffx
    return dx


def _along(ndim, axis, k):
    """The index taking ``k`` along ``axis`` and everything along the other axes."""
    index = [slice(None)] * ndim
    index[axis] = k
    return tuple(index)


def gradient(f, *varargs, axis=None, edge_order=1):
    """The gradient of ``f`` along each axis of ``axis`` (all by default): second-order central
    differences inside, first- or second-order (``edge_order``) one-sided differences at the
    two ends. ``varargs``: one scalar spacing for all axes, or per axis a scalar or a 1-d array
    of coordinates (uneven spacing). One array for one axis, else a tuple of them."""
    f = _array(f)
    N = f.ndim
    axes = tuple(range(N)) if axis is None else normalize_axis_tuple(axis, N)
    dx = _spacings(varargs, f, axes)
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    otype = f.dtype
    if otype.kind not in "fc":
        if otype.kind in "iu":
            f = f.astype(np.float64)  # no modular arithmetic in the differences
        otype = np.dtype(np.float64)
    outvals = []
    for ax, ax_dx in zip(axes, dx, strict=True):
        if f.shape[ax] < edge_order + 1:
            raise ValueError(
                "Shape of array too small to calculate a numerical gradient, "
                "at least (edge_order + 1) elements are required.")
        at = functools.partial(_along, N, ax)
        out = empty(f.shape, dtype=otype)
        uniform = _ndim(ax_dx) == 0
        if uniform:
            out[at(slice(1, -1))] = (f[at(slice(2, None))] - f[at(slice(None, -2))]) / (2.0 * ax_dx)
        else:
            dx1, dx2 = ax_dx[0:-1], ax_dx[1:]
            shape = [1] * N
            shape[ax] = -1
            a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
            b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
            c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
            out[at(slice(1, -1))] = a * f[at(slice(None, -2))] + b * f[at(slice(1, -1))] + c * f[at(slice(2, None))]
        if edge_order == 1:
            dx_0 = ax_dx if uniform else ax_dx[0]
            dx_n = ax_dx if uniform else ax_dx[-1]
            out[at(0)] = (f[at(1)] - f[at(0)]) / dx_0
            out[at(-1)] = (f[at(-1)] - f[at(-2)]) / dx_n
        else:
            if uniform:
                a, b, c = -1.5 / ax_dx, 2.0 / ax_dx, -0.5 / ax_dx
            else:
                dx1, dx2 = ax_dx[0], ax_dx[1]
                a = -(2.0 * dx1 + dx2) / (dx1 * (dx1 + dx2))
                b = (dx1 + dx2) / (dx1 * dx2)
                c = -dx1 / (dx2 * (dx1 + dx2))
            out[at(0)] = a * f[at(0)] + b * f[at(1)] + c * f[at(2)]
            if uniform:
                a, b, c = 0.5 / ax_dx, -2.0 / ax_dx, 1.5 / ax_dx
            else:
                dx1, dx2 = ax_dx[-2], ax_dx[-1]
                a = dx2 / (dx1 * (dx1 + dx2))
                b = -(dx2 + dx1) / (dx1 * dx2)
                c = (2.0 * dx2 + dx1) / (dx2 * (dx1 + dx2))
            out[at(-1)] = a * f[at(-3)] + b * f[at(-2)] + c * f[at(-1)]
        outvals.append(out)
    return outvals[0] if len(axes) == 1 else tuple(outvals)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of ``y`` along ``axis`` by the composite trapezoidal rule, at the sample
    points ``x`` (1-d along ``axis``, or of ``y``'s shape) or spaced ``dx`` apart."""
    y = _array(y)
    if x is None:
        d = dx
    else:
        x = _array(x)
        if x.ndim == 1:
            d = diff(x)
            shape = [1] * y.ndim
            shape[axis] = d.shape[0]
            d = d.reshape(shape)
        else:
            d = diff(x, axis=axis)
    nd = y.ndim
    upper = [slice(None)] * nd
    lower = [slice(None)] * nd
    upper[axis], lower[axis] = slice(1, None), slice(None, -1)
    return _reductions.sum(d * (y[tuple(upper)] + y[tuple(lower)]) / 2.0, axis=axis)


@functools.cache
def _numpy_takes_2_vectors() -> bool:
    """NumPy 2.0 to 2.4 take 2-vectors in ``cross`` with a DeprecationWarning; later NumPy
    refuses them. ember does as the NumPy beside it does (asked once, on two tiny vectors)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            np.cross([1.0, 0.0], [0.0, 1.0])
        except ValueError:
            return False
    return True


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of (arrays of) vectors of 2 or 3 components along ``axisa`` of ``a``
    and ``axisb`` of ``b`` (both ``axis`` if given), broadcast over the other axes, the vectors
    of the result along ``axisc``. A 2-vector has a third component 0 (NumPy 2 deprecates this,
    with a DeprecationWarning); two 2-vectors give the z-component only."""
    if axis is not None:
        axisa, axisb, axisc = (axis,) * 3
    a, b = _array(a), _array(b)
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("At least one array has zero dimension")
    axisa = normalize_axis_index(operator.index(axisa), a.ndim, msg_prefix="axisa")
    axisb = normalize_axis_index(operator.index(axisb), b.ndim, msg_prefix="axisb")
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    na, nb = a.shape[-1], b.shape[-1]
    if (na, nb) != (3, 3) and not _numpy_takes_2_vectors():
        raise ValueError(
            f"Both input arrays must be (arrays of) 3-dimensional vectors, but they are {na} and {nb} "
            "dimensional instead."
        )
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    if na == 2 or nb == 2:
        warnings.warn(
            "Arrays of 2-dimensional vectors are deprecated. Use arrays of 3-dimensional vectors instead. "
            "(deprecated in NumPy 2.0)",
            DeprecationWarning, stacklevel=2,
        )
    shape = broadcast_shapes(a.shape[:-1], b.shape[:-1])
    if na == 3 or nb == 3:
        axisc = normalize_axis_index(operator.index(axisc), len(shape) + 1, msg_prefix="axisc")
    kind = np.promote_types(a.dtype, b.dtype)
    a, b = a.astype(kind, copy=False), b.astype(kind, copy=False)
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    if na == 2 and nb == 2:
        return _subtract(_multiply(a0, b1), _multiply(a1, b0))
    out = empty(shape + (3,), dtype=kind)
    if na == 3 and nb == 3:
        a2, b2 = a[..., 2], b[..., 2]
        out[..., 0] = _subtract(_multiply(a1, b2), _multiply(a2, b1))
        out[..., 1] = _subtract(_multiply(a2, b0), _multiply(a0, b2))
    elif na == 2:
        b2 = b[..., 2]
        out[..., 0] = _multiply(a1, b2)
        out[..., 1] = _negative(_multiply(a0, b2))
    else:
        a2 = a[..., 2]
        out[..., 0] = _negative(_multiply(a2, b1))
        out[..., 1] = _multiply(a2, b0)
    out[..., 2] = _subtract(_multiply(a0, b1), _multiply(a1, b0))
    return moveaxis(out, -1, axisc)
