"""Arrays NumPy reads or writes on the host, as CuPy provides them: reading from bytes, text,
files and iterators (``frombuffer``, ``fromstring``, ``fromiter``, ``fromfile``, ``loadtxt``,
``genfromtxt``, ``fromregex``, ``load``) copies the result to the device; writing (``save``,
``savez``, ``savetxt``) and formatting (``array_repr``, ``array_str``, ``array2string``, NumPy's
print options) copy the array to the host first. Parsing and formatting are NumPy's."""

from __future__ import annotations

import numpy as np

from . import _ember
from ._creation import asarray

__all__ = [
    "array2string", "array_repr", "array_str", "format_float_positional", "format_float_scientific", "frombuffer",
    "fromfile", "fromiter", "fromregex", "fromstring", "genfromtxt", "get_printoptions", "load", "loadtxt",
    "printoptions", "save", "savetxt", "savez", "savez_compressed", "set_printoptions",
]


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


# --- writing and printing: the array copied to the host, then NumPy's own -------------------------
def _host(a):
    return a.get() if isinstance(a, _ember.ndarray) else a


def save(file, arr, allow_pickle=True):
    """Writes ``arr`` to a ``.npy`` file (``numpy.save``), copying it from the device."""
    np.save(file, _host(arr), allow_pickle=allow_pickle)


def savez(file, *args, allow_pickle=True, **kwds):
    """Writes arrays to an uncompressed ``.npz`` file (``numpy.savez``)."""
    np.savez(file, *map(_host, args), allow_pickle=allow_pickle, **{k: _host(v) for k, v in kwds.items()})


def savez_compressed(file, *args, allow_pickle=True, **kwds):
    """Writes arrays to a compressed ``.npz`` file (``numpy.savez_compressed``)."""
    np.savez_compressed(file, *map(_host, args), allow_pickle=allow_pickle,
                        **{k: _host(v) for k, v in kwds.items()})


def savetxt(fname, X, *args, **kwargs):
    """Writes a 1-d or 2-d array to a text file (``numpy.savetxt``, same arguments)."""
    np.savetxt(fname, _host(X), *args, **kwargs)


def load(file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding="ASCII"):
    """Reads a ``.npy`` (an ember array) or ``.npz`` file (a mapping whose arrays come to the
    device as they are read), as ``numpy.load``."""
    obj = np.load(file, mmap_mode=mmap_mode, allow_pickle=allow_pickle, fix_imports=fix_imports,
                  encoding=encoding)
    if isinstance(obj, np.lib.npyio.NpzFile):
        return _DeviceNpz(obj)
    return asarray(obj) if isinstance(obj, np.ndarray) and obj.dtype != object else obj


class _DeviceNpz:
    """An opened ``.npz`` file whose arrays are ember arrays (``numpy.lib.npyio.NpzFile``'s
    face: ``files``, ``[name]``, ``keys()``, ``close()``, context manager)."""

    def __init__(self, npz):
        self._npz = npz
        self.files = npz.files

    def __getitem__(self, key):
        return asarray(self._npz[key])

    def __contains__(self, key):
        return key in self._npz

    def __iter__(self):
        return iter(self._npz)

    def __len__(self):
        return len(self._npz)

    def keys(self):
        return self._npz.keys()

    def close(self):
        self._npz.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def fromregex(file, regexp, dtype, encoding=None):
    """Records matched by a regular expression in a text file (``numpy.fromregex``), on the
    device (for dtypes ember holds)."""
    return asarray(np.fromregex(file, regexp, dtype, encoding=encoding))


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """``repr`` of the array as NumPy writes it (``numpy.array_repr``)."""
    return np.array_repr(_host(arr), max_line_width, precision, suppress_small)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """``str`` of the array as NumPy writes it (``numpy.array_str``)."""
    return np.array_str(_host(a), max_line_width, precision, suppress_small)


def array2string(a, *args, **kwargs):
    """The array as text (``numpy.array2string``, same arguments)."""
    return np.array2string(_host(a), *args, **kwargs)


# ember arrays print through NumPy, so NumPy's print options are theirs too.
get_printoptions = np.get_printoptions
set_printoptions = np.set_printoptions
printoptions = np.printoptions
format_float_positional = np.format_float_positional
format_float_scientific = np.format_float_scientific
