"""Device functions written in CUDA C, called from Python kernels: Numba's
``cuda.declare_device(name, sig, link=...)`` and ``cuda.CUSource``.

The linked CUDA C compiles with the kernel, in the same NVRTC program (ember compiles kernels
from source, so sources are what it links: CUDA C in memory or ``.cu`` files). The function
follows Numba's ABI (``int name(ret *out, args...)``, returning 0) or, with ``abi="c"``, the
C ABI (``ret name(args...)``). CUDA C runs on the CUDA backend only.
"""

from __future__ import annotations

import os

from .. import types as ember_types


class CUSource:
    """CUDA C source in memory, to link into kernels (Numba's ``cuda.CUSource``)."""

    kind = "cu"
    default_name = "<unnamed-cu>"

    def __init__(self, data, name=None):
        self._data = data
        self._name = name

    @property
    def name(self) -> str:
        return self._name or self.default_name

    @property
    def data(self) -> str:
        data = self._data.getvalue() if hasattr(self._data, "getvalue") else self._data
        return data.decode() if isinstance(data, (bytes, bytearray)) else str(data)


def link_sources(link) -> tuple[str, ...]:
    """The CUDA C texts of ``link``: ``CUSource`` objects and paths of ``.cu`` files."""
    if link is None:
        return ()
    items = link if isinstance(link, (list, tuple, set, frozenset)) else (link,)
    out = []
    for item in items:
        if isinstance(item, CUSource):
            out.append(item.data)
        elif isinstance(item, (str, os.PathLike)) and os.fspath(item).endswith(".cu"):
            with open(item, encoding="utf-8") as f:
                out.append(f.read())
        else:
            what = os.fspath(item) if isinstance(item, (str, os.PathLike)) else type(item).__name__
            raise TypeError(
                f"cannot link {what!r}: ember compiles kernels from source with NVRTC, so it links CUDA C "
                "(cuda.CUSource or a .cu file), not PTX, cubin, fatbin, object files, archives or LTO-IR"
            )
    return tuple(sorted(set(out), key=out.index))  # a set's order is arbitrary: keep the first of each


def _signature(sig) -> ember_types.Signature:
    """``sig`` (a signature object or its text) as a signature with a return type."""
    try:
        return ember_types.parse_signature(sig)
    except TypeError as e:
        if "Return type" in str(e):
            raise TypeError("Return type must be provided for device declarations: write it as "
                            "'int32(int32)' or int32(int32)") from None
        raise


def _type_name(t) -> str:
    """The type's name for the compiler: a dtype name, or its text where it is not a scalar."""
    if t is ember_types.none:
        return "void"
    try:
        return ember_types.as_dtype(t).name
    except (TypeError, AttributeError):
        return str(t)


class ExternFunction:
    """What ``declare_device`` returns: call it from kernels and device functions."""

    def __init__(self, name: str, sig, link=None, use_cooperative=False, abi="numba"):
        if abi not in ("numba", "c"):
            raise NotImplementedError(f"Unsupported ABI: {abi}")
        if use_cooperative:
            raise NotImplementedError("use_cooperative=True: ember has no cooperative launches yet")
        self.name = name
        self.sig = _signature(sig)
        many = isinstance(link, (list, tuple, set, frozenset))
        self.link = tuple(link) if many else (() if link is None else (link,))
        self.abi = abi
        self._sources = link_sources(link)

    def tree(self, extra_sources=()) -> dict:
        """The function as the kernel's tree declares it."""
        ret = self.sig.return_type
        return {
            "name": self.name,
            "args": [_type_name(a) for a in self.sig.args],
            "ret": None if ret is ember_types.none else _type_name(ret),
            "abi": self.abi,
            "sources": list(self._sources) + [s for s in extra_sources if s not in self._sources],
        }

    def __call__(self, *args):
        raise TypeError(f"{self.name} is a CUDA C device function: call it from a kernel")

    def __repr__(self):
        return f"<declared device function {self.name}: {self.sig}>"


def declare_device(name, sig, link=None, use_cooperative=False, abi="numba"):
    """Numba's ``cuda.declare_device``: the signature of a device function written in CUDA C
    (``link``: its source, ``cuda.CUSource`` or ``.cu`` files), callable from kernels."""
    return ExternFunction(name, sig, link, use_cooperative, abi)
