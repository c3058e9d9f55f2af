"""``ember.linalg``: the whole of ``numpy.linalg`` on ember arrays, on the device.

- Factorizations and what they give (``_decompositions``, ``_solve``): ``cholesky qr eigh
  eigvalsh eig eigvals svd solve inv det slogdet lstsq pinv cond tensorsolve tensorinv
  matrix_power``, through LAPACK's routines on stacks of matrices (``_lapack``): cuSOLVER on
  CUDA devices, ember's own kernels on every other device (blocked LU and Cholesky,
  Householder QR, Jacobi eigh and SVD). ``engine()`` names the one in use;
  ``use_ember_kernels()`` takes ember's kernels on CUDA too.
- Norms, ranks and products (``_norms``): ``norm matrix_rank multi_dot`` and the Array API's
  ``linalg`` extension (``vector_norm matrix_norm vecdot matrix_transpose outer cross diagonal
  trace tensordot matmul svdvals``).

NumPy's semantics and errors (``LinAlgError`` with NumPy's messages); where ember follows
CuPy instead it says so: float32 and complex64 are computed in single precision (NumPy computes
in double and rounds the result), ``lstsq``'s default ``rcond`` is the compute dtype's.
"""

from numpy.linalg import LinAlgError

from ._decompositions import (
    EighResult,
    EigResult,
    QRResult,
    SVDResult,
    cholesky,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    qr,
    svd,
)
from ._lapack import engine, use_ember_kernels
from ._norms import (
    cross,
    diagonal,
    matmul,
    matrix_norm,
    matrix_rank,
    matrix_transpose,
    multi_dot,
    norm,
    outer,
    svdvals,
    tensordot,
    trace,
    vecdot,
    vector_norm,
)
from ._solve import (
    SlogdetResult,
    cond,
    det,
    inv,
    lstsq,
    matrix_power,
    pinv,
    slogdet,
    solve,
    tensorinv,
    tensorsolve,
)

__all__ = [
    "EigResult", "EighResult", "LinAlgError", "QRResult", "SVDResult", "SlogdetResult", "cholesky", "cond",
    "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "engine", "inv", "lstsq", "matmul",
    "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "multi_dot", "norm", "outer", "pinv", "qr",
    "slogdet", "solve", "svd", "svdvals", "tensordot", "tensorinv", "tensorsolve", "trace", "use_ember_kernels",
    "vecdot", "vector_norm",
]
