"""The bridge from ``ember.linalg``'s NumPy semantics to LAPACK's routines on the device
(``ember_array::lapack``: cuSOLVER on CUDA, ember's own kernels elsewhere).

The routines take stacks of column-major matrices, ``(batch, cols, rows)`` C-contiguous, and
work in place; ``to_columns`` makes that copy of a C-ordered stack and ``from_columns`` turns
results back into ``(..., rows, cols)`` views. Their ``info`` arrays stay on the device until
a function must decide whether to raise: ``failed`` reads them (one host read), as NumPy
raises ``LinAlgError`` where LAPACK reports a singular or not positive-definite matrix.
"""

from __future__ import annotations

import numpy as np

from .. import _ember
from .._errstate import geterr
from .._ndarray import _wrap, ndarray
from .._runtime import current_device_id
from .._shape import swapaxes

LinAlgError = np.linalg.LinAlgError


def common_type(*arrays, float16: bool = False) -> tuple[np.dtype, np.dtype]:
    """``(compute dtype, result dtype)`` of a linalg call on ``arrays``, CuPy's rule: integers
    and bool are taken as float64; float32 and complex64 are computed in single precision
    (NumPy computes everything in double and casts back; ember keeps single precision on the
    device, as CuPy does); complex anywhere makes both complex. float16 is refused as NumPy
    refuses it, unless ``float16`` (CuPy's eigh: computed in float32, returned in float16)."""
    single, complex_, half = True, False, False
    for a in arrays:
        dtype = a.dtype
        if dtype == np.float16:
            if not float16:
                raise TypeError("array type float16 is unsupported in linalg")
            half = True
        elif dtype.kind == "c":
            complex_ = True
            single &= dtype == np.complex64
        elif dtype.kind == "f":
            single &= dtype == np.float32
        elif dtype.kind in "biu":
            single = False
        else:
            raise TypeError(f"array type {dtype.name} is unsupported in linalg")
    compute = np.dtype(("F" if single else "D") if complex_ else ("f" if single else "d"))
    result = compute
    if half and all(a.dtype == np.float16 for a in arrays):
        result = np.dtype(np.float16)
    return compute, result


def real_of(dtype: np.dtype) -> np.dtype:
    return np.finfo(dtype).dtype if dtype.kind in "cf" else np.dtype(np.float64)


def stacked_2d(*arrays) -> None:
    for a in arrays:
        if a.ndim < 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")


def stacked_square(*arrays) -> None:
    stacked_2d(*arrays)
    for a in arrays:
        if a.shape[-1] != a.shape[-2]:
            raise LinAlgError("Last 2 dimensions of the array must be square")


def to_columns(a: ndarray, dtype: np.dtype) -> ndarray:
    """A new ``(batch, cols, rows)`` C-contiguous stack of ``a``'s matrices (``(..., rows,
    cols)``) in ``dtype``: each matrix column-major, as LAPACK takes it."""
    rows, cols = a.shape[-2:]
    return swapaxes(a, -1, -2).astype(dtype, order="C").reshape((-1, cols, rows))


def from_columns(f, batch: tuple, dtype=None) -> ndarray:
    """A C-ordered ``(..., rows, cols)`` stack (NumPy's layout of results) of a ``(batch,
    cols, rows)`` column-major one (ember or native), in ``dtype`` if given."""
    f = f if isinstance(f, ndarray) else _wrap(f)
    view = swapaxes(f.reshape(batch + f.shape[1:]), -1, -2)
    return view.astype(dtype or view.dtype, order="C")


def scaled(a: ndarray):
    """``(a, unscale)``: each matrix of the column-major stack ``a`` multiplied by the power
    of two that brings its largest magnitude near 1 (exact), and the ``(batch,)`` factors that
    scale singular values or eigenvalues back. Jacobi's sums of squares (ember's kernels)
    would otherwise overflow from about 1e77 in float64 and underflow below about 1e-77; it
    costs a few elementwise launches, so cuSOLVER's routines get it too rather than relying
    on each one's own scaling."""
    from .._indexing import where
    from .._ufuncs import UFUNCS

    peak = UFUNCS["absolute"](a).max(axis=(1, 2))
    usable = UFUNCS["isfinite"](peak) & (peak > 0)
    limit = np.finfo(peak.dtype).maxexp - 3  # 2**limit and 2**-limit are normal numbers
    exponent = UFUNCS["floor"](UFUNCS["log2"](where(usable, peak, 1)))
    exponent = UFUNCS["minimum"](UFUNCS["maximum"](exponent, -limit), limit)
    return a * UFUNCS["exp2"](-exponent)[:, None, None].astype(a.real.dtype), UFUNCS["exp2"](exponent)


def failed(info) -> bool:
    """Whether any ``info`` (native int32 array) is nonzero: one host read; never under
    ``errstate(linalg='ignore')`` (no read, no synchronization)."""
    if geterr()["linalg"] == "ignore":
        return False
    info = _wrap(info)
    return info.size > 0 and bool((info != 0).any())


def engine() -> str:
    """Which engine factors on the current device: ``"cusolver"`` or ``"ember"``."""
    return _ember.lapack_engine(current_device_id())


def use_ember_kernels(on: bool = True) -> None:
    """Takes ember's own factorization kernels on every device, CUDA included (``on``), or
    goes back to cuSOLVER where it is found."""
    _ember.lapack_use_portable(bool(on))


def forget() -> None:
    """Gives back what the engines keep between calls: cuSOLVER's handles and their work
    areas, which live in ember's pool (``free_all_blocks`` cannot take memory in use)."""
    _ember.lapack_forget()


# The routines, each on a (batch, cols, rows) stack it overwrites; see ember_array::lapack.
def getrf(a: ndarray):
    return _ember.lapack_getrf(a._a)


def getrs(lu: ndarray, pivots, b: ndarray) -> None:
    _ember.lapack_getrs(lu._a, pivots, b._a)


def potrf(a: ndarray, lower: bool):
    return _ember.lapack_potrf(a._a, lower)


def geqrf(a: ndarray) -> ndarray:
    return _wrap(_ember.lapack_geqrf(a._a))


def orgqr(q: ndarray, tau: ndarray) -> None:
    _ember.lapack_orgqr(q._a, tau._a)


def syevd(a: ndarray, lower: bool, vectors: bool):
    w, info = _ember.lapack_syevd(a._a, lower, vectors)
    return _wrap(w), info


def gesvd(a: ndarray, full: bool, vectors: bool):
    s, u, vt, info = _ember.lapack_gesvd(a._a, full, vectors)
    return _wrap(s), u and _wrap(u), vt and _wrap(vt), info


def geev(a: ndarray, vectors: bool):
    w, v, info = _ember.lapack_geev(a._a, vectors)
    return _wrap(w), v and _wrap(v), info
