"""``ember.cuda.cufft``: CuPy's ``cupy.cuda.cufft`` face of ember's FFT plans.

:class:`Plan1d` and :class:`PlanNd` are ``ember.fft``'s plans (cuFFT's on CUDA, ember's
passes elsewhere); ``with plan:`` makes ``ember.fft`` run on a plan (:func:`get_current_plan`).
:func:`getVersion` is cuFFT's version, 0 where cuFFT is not found.
"""

from __future__ import annotations

from ..fft._plan import (  # noqa: F401  (the public face)
    CUFFT_C2C,
    CUFFT_C2R,
    CUFFT_D2Z,
    CUFFT_FORWARD,
    CUFFT_INVERSE,
    CUFFT_R2C,
    CUFFT_Z2D,
    CUFFT_Z2Z,
    Plan1d,
    PlanNd,
    get_current_plan,
    getVersion,
)

__all__ = [
    "CUFFT_C2C", "CUFFT_C2R", "CUFFT_D2Z", "CUFFT_FORWARD", "CUFFT_INVERSE", "CUFFT_R2C", "CUFFT_Z2D", "CUFFT_Z2Z",
    "Plan1d", "PlanNd", "get_current_plan", "getVersion",
]
