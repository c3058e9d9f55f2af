"""Parameters of a draw: NumPy's checks (with NumPy's messages) and broadcasting, then the
launch of a sampler kernel. Numbers are checked on the host; arrays where they live (an ember
array's check is one reduction, and one bool read back)."""

from __future__ import annotations

import numbers
from types import SimpleNamespace

import numpy as np

from .. import _dtypes
from .._creation import _shape_tuple, asarray, ascontiguousarray
from .._ndarray import ndarray
from .._reductions import any as _device_any
from .._shape import broadcast_to
from .._ufuncs import UFUNCS

# The largest Poisson mean NumPy draws from.
POISSON_LAM_MAX = np.iinfo("l").max - np.sqrt(np.iinfo("l").max) * 10

# A constraint: (what makes a value bad, as a function of the array module and the values; the
# message, with {0} for the parameter's name). NaN passes only where NumPy lets it.
CONSTRAINTS = {
    "nonneg": (lambda xp, x: x < 0, "{0} < 0"),
    "positive": (lambda xp, x: x <= 0, "{0} <= 0"),
    "positive_not_nan": (lambda xp, x: xp.logical_or(x <= 0, xp.isnan(x)), "{0} <= 0"),
    "bounded_0_1": (lambda xp, x: xp.logical_not(xp.logical_and(x >= 0, x <= 1)),
                    "{0} < 0, {0} > 1 or {0} is NaN"),
    "bounded_gt0_1": (lambda xp, x: xp.logical_not(xp.logical_and(x > 0, x <= 1)),
                      "{0} <= 0, {0} > 1 or {0} contains NaNs"),
    "bounded_lt0_1": (lambda xp, x: xp.logical_not(xp.logical_and(x >= 0, x < 1)),
                      "{0} < 0, {0} >= 1 or {0} is NaN"),
    "gt_1": (lambda xp, x: xp.logical_not(x > 1), "{0} <= 1 or {0} is NaN"),
    "poisson": (lambda xp, x: xp.logical_not(x >= 0), "{0} < 0 or {0} is NaN"),
    "poisson_max": (lambda xp, x: xp.logical_not(x <= POISSON_LAM_MAX), "{0} value too large"),
}


def is_scalar(value) -> bool:
    """A number (or a 0-d host array), which NumPy checks and passes as one value."""
    if isinstance(value, (numbers.Number, np.generic)):
        return True
    return isinstance(value, np.ndarray) and value.ndim == 0


# What the constraints call, on the device.
_DEVICE = SimpleNamespace(
    **{name: UFUNCS[name] for name in ("logical_and", "logical_or", "logical_not", "isnan")}, any=_device_any
)


def _module(value):
    return _DEVICE if isinstance(value, ndarray) else np


def any_true(value) -> bool:
    """Whether a bool, or any element of a host or device array of bools, is true (a device
    array: one reduction and one bool read back)."""
    return bool(value.any()) if isinstance(value, (ndarray, np.ndarray)) else bool(value)


def any_bad(value, bad) -> bool:
    """Whether ``bad`` (a function of the array module and the values) holds anywhere."""
    xp = _module(value)
    return bool(xp.any(bad(xp, value)))


def check(name: str, value, *constraints: str) -> None:
    """Raises NumPy's ``ValueError`` where ``value`` breaks a constraint."""
    if is_scalar(value):
        # NumPy checks a number's "< 0 or is NaN" first, an array's "too large" first.
        constraints = tuple(c for c in constraints if c != "poisson_max") + (
            ("poisson_max",) if "poisson_max" in constraints else ())
    for c in constraints:
        bad, message = CONSTRAINTS[c]
        if any_bad(value, bad):
            raise ValueError(message.format(name))


def host_or_device(value, kind: str):
    """A number as a Python float/int; an array as a host (NumPy) or ember array of float64
    (``kind='f'``), int64 (``'i'``) or uint64 (``'u'``)."""
    dtype = {"f": np.float64, "i": np.int64, "u": np.uint64}[kind]
    if value is None:
        raise TypeError("a distribution's parameter must be a number or an array, not None")
    if is_scalar(value):
        return float(value) if kind == "f" else int(value)
    if isinstance(value, ndarray):
        return value if value.dtype == dtype else value.astype(dtype)
    return np.asarray(value, dtype=dtype)


def shape_of(value) -> tuple[int, ...]:
    return () if is_scalar(value) else tuple(value.shape)


def out_shape(size, params) -> tuple[int, ...]:
    """``size``, which every parameter must broadcast to, or the parameters' broadcast shape."""
    shapes = [shape_of(p) for p in params]
    if size is None:
        return np.broadcast_shapes(*shapes) if shapes else ()
    size = _shape_tuple(size)
    if np.broadcast_shapes(size, *shapes) != size:
        np.broadcast_shapes(*shapes)  # NumPy's message where the parameters disagree
        raise ValueError(f"shape mismatch: parameters of shapes {tuple(shapes)} do not broadcast to size {size}")
    return size


def per_item(value, shape: tuple[int, ...]):
    """A parameter as the sampler takes it: a number, or a C-contiguous device array of
    ``shape``."""
    if isinstance(value, (int, float)):
        return value
    if not isinstance(value, ndarray):
        value = asarray(value)
    if value.shape != shape:
        value = broadcast_to(value, shape)
    return ascontiguousarray(value)


def output_dtype(dtype, default: str, integer: bool) -> tuple[str, str | None]:
    """The dtype a draw's kernel writes (``default`` when ``dtype`` is None) and the one to
    cast it to after, if another: reals are drawn as float16/32/64, integers as any integer
    type; other types (CuPy's legacy functions take any) are cast from float64 or int64."""
    if dtype is None:
        return default, None
    d = _dtypes.normalize(dtype)
    name = _dtypes.name_of(d)
    if integer and d.kind in "iu":
        return name, None
    if not integer and d.char in "efd":
        return name, None
    if d.kind not in "biuf":
        raise TypeError(f"Unsupported dtype {d} for a random draw: use a real or integer dtype")
    return default, name


def draw(bits, law: str, size, params: list, dtype: str):
    """A draw from ``law`` of ``bits`` with checked, converted ``params`` (numbers or arrays of
    float64/int64), shaped ``size`` or as the parameters broadcast."""
    shape = out_shape(size, params)
    return bits.sample(law, shape, dtype, [per_item(p, shape) for p in params])
