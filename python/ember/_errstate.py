"""``errstate seterr geterr``: NumPy's error-state functions with CuPy's ``linalg`` key.

``linalg`` says what ``ember.linalg`` does when LAPACK reports a singular or not
positive-definite matrix or an iteration that did not converge: ``'raise'`` (the default, as
NumPy does: ``LinAlgError``, at the cost of one host read of the status) or ``'ignore'`` (no
read, no synchronization; the results then hold what the factorization left, as CuPy's
default). The floating-point keys take ``'ignore'`` only: ember's kernels never report
floating-point errors. The state is per thread, as CuPy's is.
"""

from __future__ import annotations

import contextlib
import threading

_FLOAT_KEYS = ("divide", "over", "under", "invalid")
_state = threading.local()


def geterr() -> dict:
    """The current state: ``{divide, over, under, invalid, linalg}``."""
    return {**{k: "ignore" for k in _FLOAT_KEYS}, "linalg": getattr(_state, "linalg", "raise")}


def seterr(*, all=None, divide=None, over=None, under=None, invalid=None, linalg=None) -> dict:  # noqa: A002
    """Sets the state (NumPy's signature and ``linalg``); returns the old one."""
    old = geterr()
    for key, value in zip(_FLOAT_KEYS, (divide, over, under, invalid), strict=True):
        value = value if value is not None else all
        if value not in (None, "ignore"):
            raise NotImplementedError(
                f"seterr({key}={value!r}): ember's kernels do not report floating-point errors; only "
                "'ignore' is possible (check results with ember.isfinite instead)")
    if linalg is not None:
        if linalg not in ("ignore", "raise"):
            raise ValueError(f"linalg must be 'ignore' or 'raise', not {linalg!r}")
        _state.linalg = linalg
    return old


@contextlib.contextmanager
def errstate(*, all=None, divide=None, over=None, under=None, invalid=None, linalg=None):  # noqa: A002
    """``seterr`` for the body of a ``with`` block."""
    old = seterr(all=all, divide=divide, over=over, under=under, invalid=invalid, linalg=linalg)
    try:
        yield
    finally:
        _state.linalg = old["linalg"]
