"""Arrays NumPy reads on the host (from bytes, text, files and iterators), copied to the
device: ``frombuffer``, ``fromstring``, ``fromiter``, ``fromfile``, ``loadtxt``,
``genfromtxt``, as CuPy provides them. Parsing is NumPy's; the result is an ember array."""

from __future__ import annotations

import numpy as np

from ._creation import asarray

__all__ = ["frombuffer", "fromfile", "fromiter", "fromstring", "genfromtxt", "loadtxt"]


def frombuffer(buffer, dtype=float, count=-1, offset=0, *, like=None):
    """The bytes of ``buffer`` read as a 1-d array of ``dtype`` (``numpy.frombuffer``), on
    the device."""
    return asarray(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string, dtype=float, count=-1, *, sep, like=None):
    """Numbers parsed from text separated by ``sep`` (``numpy.fromstring``), on the device."""
    return asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def fromiter(iter, dtype, count=-1, *, like=None):  # noqa: A002  (NumPy's parameter name)
    """The values of an iterable as a 1-d array (``numpy.fromiter``), on the device."""
    return asarray(np.fromiter(iter, dtype=dtype, count=count))


def fromfile(file, dtype=float, count=-1, sep="", offset=0, *, like=None):
    """An array read from a binary or text file (``numpy.fromfile``), on the device."""
    return asarray(np.fromfile(file, dtype=dtype, count=count, sep=sep, offset=offset))


def loadtxt(*args, **kwargs):
    """A table read from a text file (``numpy.loadtxt``, same arguments), on the device."""
    kwargs.pop("like", None)
    return _to_device(np.loadtxt(*args, **kwargs))


def genfromtxt(*args, **kwargs):
    """A table read from a text file with missing values handled (``numpy.genfromtxt``, same
    arguments), on the device."""
    kwargs.pop("like", None)
    return _to_device(np.genfromtxt(*args, **kwargs))


def _to_device(result):
    """``unpack=True`` gives a tuple of columns: each goes to the device."""
    if isinstance(result, tuple | list):
        return type(result)(asarray(r) for r in result)
    return asarray(result)
