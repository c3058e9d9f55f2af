"""Matrix products, as NumPy spells them: ``dot matmul inner outer vdot`` (module functions),
``ndarray.dot`` and the ``@`` operators.

Shapes follow NumPy 2: ``matmul`` broadcasts batch axes and promotes 1-d operands (removing the
added axis from the result); ``dot``, ``inner`` and ``vdot`` sum over the axes NumPy's do; the
result dtype is ``numpy.result_type`` of the operands (integer products sum in that dtype and
wrap, as NumPy's do). Results are ember arrays, 0-d where NumPy returns a scalar. The products
run on the device (``ember_array::linalg``): cuBLAS on CUDA for float32/float64/complex, the
host's BLAS on a CPU device for those dtypes (``_host_blas``: the device's memory is the host's),
ember's tiled kernel everywhere else.
"""

from __future__ import annotations

import math

import numpy as np

from . import _dtypes, _ember, _host_blas
from ._creation import asarray, ascontiguousarray
from ._operands import needs_conversion
from ._ufuncs import UFUNCS

__all__ = ["dot", "inner", "matmul", "matvec", "outer", "vdot", "vecmat"]

_SCALARS = (bool, int, float, complex, np.generic)


def _array(x, name: str):
    """``x`` as an ember array: ember arrays as they are; Python scalars, lists and device
    arrays of other libraries converted; NumPy arrays refused (copy them explicitly)."""
    if isinstance(x, _ember.ndarray):
        return x
    if isinstance(x, np.ndarray):
        raise TypeError(
            f"Unsupported type {type(x)}: ember.{name} takes ember arrays; copy NumPy arrays to the device "
            "with ember.asarray(x) first"
        )
    if isinstance(x, _SCALARS) or needs_conversion(x):
        return asarray(x)
    raise TypeError(f"Unsupported type {type(x)}: ember.{name} takes ember arrays")


def _out(out):
    if out is None:
        return None
    if not isinstance(out, _ember.ndarray):
        raise TypeError(f"out must be an ember.ndarray, got {type(out).__name__}")
    return out._a


def _result_type(a, b) -> np.dtype:
    """NumPy 2's promotion of the operands' dtypes, from the generated tables."""
    return _dtypes.from_name(_ember.result_type([a._a.dtype, b._a.dtype]))


def _product(a, b, dtype: np.dtype, out, conj_a=False):
    on_host = _host_blas.product(a, b, dtype, out, conj_a)
    if on_host is not None:
        return on_host
    native = _ember.matmul(a._a, b._a, _dtypes.name_of(dtype), _out(out), conj_a)
    return out if out is not None else _ember.wrap(native)


def _check_inputs(a, b, dtype: np.dtype, casting: str):
    for i, x in enumerate((a, b)):
        if not _ember.can_cast(_dtypes.name_of(x.dtype), _dtypes.name_of(dtype), casting):
            raise TypeError(
                f"Cannot cast ufunc 'matmul' input {i} from {x.dtype!r} to {dtype!r} with casting rule {casting!r}"
            )


def _core_check(name, signature, a, b, need_a, need_b):
    for k, (x, need) in enumerate(((a, need_a), (b, need_b))):
        if x.ndim < need:
            raise ValueError(
                f"{name}: Input operand {k} does not have enough dimensions (has {x.ndim}, gufunc core with "
                f"signature {signature} requires {need})"
            )


def matvec(x1, x2, /, out=None, *, dtype=None):
    """Matrix-vector products over stacks (NumPy 2's gufunc ``(m,n),(n)->(m)``)."""
    a, b = _array(x1, "matvec"), _array(x2, "matvec")
    signature = "(m,n),(n)->(m)"
    _core_check("matvec", signature, a, b, 2, 1)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(
            f"matvec: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature {signature} "
            f"(size {b.shape[-1]} is different from {a.shape[-1]})"
        )
    result = matmul(a, b[..., None], dtype=dtype)[..., 0]
    return _into(result, out)


def vecmat(x1, x2, /, out=None, *, dtype=None):
    """Vector-matrix products over stacks, the vector conjugated (NumPy 2's gufunc
    ``(n),(n,m)->(m)``)."""
    a, b = _array(x1, "vecmat"), _array(x2, "vecmat")
    signature = "(n),(n,m)->(m)"
    _core_check("vecmat", signature, a, b, 1, 2)
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(
            f"vecmat: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature {signature} "
            f"(size {b.shape[-2]} is different from {a.shape[-1]})"
        )
    if a.dtype.kind == "c":
        a = UFUNCS["conjugate"](a)
    result = matmul(a[..., None, :], b, dtype=dtype)[..., 0, :]
    return _into(result, out)


def _into(result, out):
    if out is None:
        return result
    out[...] = result
    return out


def matmul(x1, x2, /, out=None, *, casting="same_kind", order="K", dtype=None, subok=True):
    """Matrix product of two arrays (NumPy's ``matmul``): batch axes broadcast, a 1-d operand
    is a row (first) or a column (second) whose axis the result drops. ``out`` may have a
    different dtype (cast with ``same_kind``) and broadcast batch axes."""
    a, b = _array(x1, "matmul"), _array(x2, "matmul")
    if dtype is None:
        result = _result_type(a, b)
    else:
        result = _dtypes.normalize(dtype)
        _check_inputs(a, b, result, casting)
    return _product(a, b, result, out)


def _aligned_error(a, b_shape, a_axis: int, b_axis: int) -> ValueError:
    def fmt(shape):
        return "(" + ",".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"

    return ValueError(
        f"shapes {fmt(a.shape)} and {fmt(b_shape)} not aligned: {a.shape[a_axis]} (dim {a_axis}) != "
        f"{b_shape[b_axis]} (dim {b_axis})"
    )


def dot(a, b, out=None):
    """Dot product (NumPy's ``dot``): the sum over the last axis of ``a`` and the
    second-to-last of ``b`` (the only one of a 1-d ``b``); a product when either is 0-d."""
    a, b = _array(a, "dot"), _array(b, "dot")
    result = _result_type(a, b)
    if a.ndim == 0 or b.ndim == 0:
        _dot_out(out, a.shape + b.shape, result)
        return UFUNCS["multiply"](a, b, out=out)
    b_axis = max(b.ndim - 2, 0)
    if a.shape[-1] != b.shape[b_axis]:
        raise _aligned_error(a, b.shape, a.ndim - 1, b_axis)
    _dot_out(out, a.shape[:-1] + b.shape[:-2] + (b.shape[-1:] if b.ndim > 1 else ()), result)
    if b.ndim <= 2 or a.ndim == 1:
        # NumPy's dot and matmul agree here (a 1-d `a` against a stack of matrices included).
        return _product(a, b, result, out)
    # a (..., k) with b (..., k, n): every row of `a` against every matrix of `b`.
    rows = a.reshape(math.prod(a.shape[:-1]), a.shape[-1])  # (not -1: the summed axis may be empty)
    stacked = _product(rows, b, result, None)  # b.shape[:-2] + (rows, n)
    moved = stacked.transpose(b.ndim - 2, *range(b.ndim - 2), b.ndim - 1)
    value = moved.reshape(*a.shape[:-1], *b.shape[:-2], b.shape[-1])
    if out is None:
        return ascontiguousarray(value)  # C-ordered, as NumPy's dot returns it
    out[...] = value
    return out


def _dot_out(out, shape: tuple, result) -> None:
    """NumPy's check of ``dot``'s ``out``: exactly the result's dtype and shape, C-contiguous."""
    if out is None:
        return
    if not isinstance(out, _ember.ndarray):
        raise TypeError(f"out must be an ember.ndarray, got {type(out).__name__}")
    if out.dtype != result or out.shape != tuple(shape) or not out.flags.c_contiguous:
        raise ValueError("output array is not acceptable (must have the right datatype, number of dimensions, "
                         "and be a C-Array)")


def inner(a, b):
    """Inner product over the last axes (NumPy's ``inner``); a product when either is 0-d."""
    a, b = _array(a, "inner"), _array(b, "inner")
    if a.ndim == 0 or b.ndim == 0:
        return UFUNCS["multiply"](a, b)
    if a.shape[-1] != b.shape[-1]:
        moved = (b.shape[-1], *b.shape[:-1])
        raise _aligned_error(a, moved, a.ndim - 1, 0)
    result = _result_type(a, b)
    if b.ndim == 1:
        return _product(a, b, result, None)
    # Rows of `b` as columns: a (..., k) @ b_rows.T (k, N), then b's leading axes restored.
    b_rows = b.reshape(math.prod(b.shape[:-1]), b.shape[-1])  # (not -1: the summed axis may be empty)
    value = _product(a, b_rows.T, result, None)
    return value.reshape(*a.shape[:-1], *b.shape[:-1])


def outer(a, b, out=None):
    """Outer product of the flattened ``a`` and ``b`` (NumPy's ``outer``)."""
    a, b = _array(a, "outer"), _array(b, "outer")
    return UFUNCS["multiply"](a.reshape(-1, 1), b.reshape(1, -1), out=out)


def vdot(a, b):
    """Dot product of the flattened arrays, conjugating ``a`` first (NumPy's ``vdot``)."""
    a, b = _array(a, "vdot"), _array(b, "vdot")
    if a.size != b.size:
        raise ValueError(f"cannot reshape array of size {b.size} into shape ({a.size},)")
    result = _result_type(a, b)
    return _product(a.reshape(-1), b.reshape(-1), result, None, conj_a=result.kind == "c")
