"""Alias only: ``cupyx.scipy.fftpack.get_fft_plan`` is ``ember.fft.get_fft_plan``."""

from ember.fft import get_fft_plan  # noqa: F401
