"""What a ``@cuda.jit`` kernel tells about itself, as Numba's dispatcher does: ``overloads``
(its compiled specialisations by argument types), ``inspect_asm``/``inspect_types``, the
compiled kernel's resources (registers, shared and local memory), and ``specialize``/``forall``.

A specialisation's argument types are ember's types by their names (``float32``,
``array(float32, 1d, C)``: Numba's own spelling of them); as dict keys they are Numba's type
objects where ``ember.types`` has them, and lookups take any spelling of the same types.
"""

from __future__ import annotations

import inspect
import sys

import numpy as np

from .. import _runtime, types
from .._operands import on_device

numba_type = types.from_name

# CuPy's attribute names (what the native side reports) for Numba's properties.
_RESOURCES = {
    "regs_per_thread": "num_regs",
    "shared_mem_per_block": "shared_size_bytes",
    "max_threads_per_block": "max_threads_per_block",
    "local_mem_per_thread": "local_size_bytes",
    "const_mem_size": "const_size_bytes",
}


def _element_name(t) -> str:
    if isinstance(t, types.Record):
        return f"Record({t.name})"
    return np.dtype(getattr(t, "_numpy", t)).name


def type_name(t) -> str:
    """ember's name of a type given in any spelling: ``"array(float32, 1d, C)"``, Numba's
    ``float32[::1]`` or ``types.Array``, a NumPy scalar type or dtype, ``"int64"``."""
    if isinstance(t, str):
        return t
    dtype = getattr(t, "dtype", None)
    ndim = getattr(t, "ndim", None)
    layout = getattr(t, "layout", None)
    if dtype is not None and isinstance(ndim, int) and layout is not None:
        # Numba's array type. ember specialises on C-contiguity only: F and A are "A".
        return f"array({_element_name(dtype)}, {ndim}d, {'C' if layout == 'C' else 'A'})"
    try:
        return _element_name(t)
    except TypeError:
        return str(t)


def _names(key) -> tuple[str, ...]:
    """A key of ``overloads`` as type names: argument types, or a signature (its ``args``)."""
    key = getattr(key, "args", key)
    if not isinstance(key, tuple):
        key = (key,)
    return tuple(type_name(t) for t in key)


class SignatureDict(dict):
    """A dict by argument types whose lookups take any spelling of the same types."""

    def _key(self, key):
        try:
            if dict.__contains__(self, key):
                return key
        except TypeError:  # an unhashable spelling
            pass
        wanted = _names(key)
        for k in self:
            if _names(k) == wanted:
                return k
        raise KeyError(key)

    def __getitem__(self, key):
        return dict.__getitem__(self, self._key(key))

    def __contains__(self, key):
        try:
            self._key(key)
        except KeyError:
            return False
        return True

    def get(self, key, default=None):
        return self[key] if key in self else default


class Overload:
    """One compiled specialisation of a kernel: its argument types, the generated C, and the
    resources the device's API reports for the compiled kernel."""

    def __init__(self, kernel, spec: dict):
        self.kernel, self.spec = kernel, spec
        self.name = kernel.__name__
        self.argument_types = tuple(numba_type(t) for t in spec["types"])
        self.source = spec["source"]
        self.device = spec["device"]
        self.coarsened = spec["coarsened"]
        self.checked = spec["checked"]
        self.attributes = spec["attributes"]

    def __getattr__(self, name):
        attr = _RESOURCES.get(name)
        if attr is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        # 0 where the API does not report it (OpenCL has no register or constant-memory count).
        return int(self.attributes.get(attr, 0))

    def inspect_asm(self, cc=None) -> str:
        """PTX where NVRTC can be loaded (see ``Dispatcher.inspect_asm``), else the generated C."""
        from . import ptx

        if not ptx.nvrtc_available():
            return self.source
        return self.inspect_ptx(cc)

    def inspect_ptx(self, cc=None) -> str:
        """The PTX of this specialisation (needs NVRTC)."""
        from . import ptx

        return ptx.specialisation_ptx(self.kernel, self.spec, cc)

    def inspect_llvm(self) -> str:
        return self.source

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0) -> int:
        """The most blocks of ``blockdim`` (an int or a tuple) a launch of this kernel may have
        when it synchronises its grid (``cuda.cg.this_grid().sync()``): all must be resident
        at once. CUDA only."""
        dims = (blockdim,) if isinstance(blockdim, int) else tuple(blockdim)
        threads = 1
        for d in dims:
            threads *= int(d)
        return int(self.kernel._max_cooperative_blocks(self.spec["index"], threads, int(dynsmemsize)))

    def __repr__(self):
        return f"<ember kernel {self.name}({', '.join(map(str, self.argument_types))})>"


def overloads(kernel) -> SignatureDict:
    """``kernel``'s specialisations for the current device, by argument types: the plain one of
    each (not coarsened, not index-checked) where it exists, else the first made."""
    device = _runtime.current_device_id()
    chosen: dict[tuple, dict] = {}
    for spec in kernel._specialisations():
        if spec["device"] != device:
            continue
        key = tuple(spec["types"])
        plain = spec["coarsened"] is None and not spec["checked"]
        if key not in chosen or (plain and (chosen[key]["coarsened"] is not None or chosen[key]["checked"])):
            chosen[key] = spec
    out = SignatureDict()
    for spec in chosen.values():
        o = Overload(kernel, spec)
        out[o.argument_types] = o
    return out


def by_signature(kernel, signature, read, single=True):
    """``read(overload)`` for ``signature``'s specialisation; with no signature, for the one
    specialisation of a specialised kernel (where ``single``: Numba's resource getters), else a
    dict of it by argument types (always, for the ``inspect_*`` methods)."""
    found = overloads(kernel)
    if signature is not None:
        try:
            return read(found[signature])
        except KeyError:
            have = ", ".join(f"({', '.join(map(str, k))})" for k in found) or "none yet"
            raise KeyError(
                f"kernel {kernel.__name__} has no specialisation for {signature}; it has {have}"
            ) from None
    if single and kernel.specialized and len(found) == 1:
        return read(next(iter(found.values())))
    return SignatureDict({k: read(v) for k, v in found.items()})


def inspect_types(kernel, file=None):
    file = sys.stdout if file is None else file
    try:
        lines, first = inspect.getsourcelines(kernel.py_func)
        where = inspect.getsourcefile(kernel.py_func)
    except (OSError, TypeError):
        lines, first, where = ["# (the function's source is not available)\n"], 0, "<unknown>"
    for o in overloads(kernel).values():
        print(f"{kernel.__name__} ({', '.join(_names(o.argument_types))})", file=file)
        print("-" * 80, file=file)
        print(f"# File: {where}", file=file)
        for n, line in enumerate(lines, start=first):
            print(f"# --- LINE {n} --- ", file=file)
            print(line.rstrip("\n"), file=file)
        print("=" * 80, file=file)


def _dims(ndim: int, c_contiguous: bool) -> str:
    dims = [":"] * ndim
    if c_contiguous:
        dims[-1] = "::1"
    return ", ".join(dims)


def signature_item(value) -> str:
    """How a ``@cuda.jit`` signature writes the type of ``value`` (an argument, or a type)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, complex):
        return "complex128"
    if isinstance(value, np.generic):
        return value.dtype.name
    if isinstance(value, np.ndarray) or on_device(value):
        dtype = np.dtype(value.dtype)
        flags = value.flags
        c = flags["C_CONTIGUOUS"] if not hasattr(flags, "c_contiguous") else flags.c_contiguous
        return f"{dtype.name}[{_dims(value.ndim, bool(c))}]"
    name = type_name(value)
    m = types.ARRAY_NAME.match(name)
    if m:
        return f"{m.group(1)}[{_dims(int(m.group(2)), m.group(3) == 'C')}]"
    try:
        return np.dtype(name).name
    except TypeError:
        raise TypeError(f"cannot specialise a kernel for {value!r}: give arrays, numbers or types") from None


def specialize(kernel, args):
    if kernel.specialized:
        raise RuntimeError("Dispatcher already specialized")
    items = tuple(signature_item(a) for a in args)
    from .devices import compute_capability

    key = (compute_capability(_runtime.current_device_id()), items)
    found = kernel.specializations.get(key)
    if found is None:
        options = getattr(kernel, "_options", {})
        found = type(kernel)(kernel.py_func, (f"void({', '.join(items)})",), **options)
        kernel.specializations[key] = found
    return found


class ForAll:
    """``kernel.forall(ntasks, tpb, stream, sharedmem)``: called with the arguments, launches
    ``ntasks`` threads (rounded up to whole blocks) of the kernel specialised for them."""

    def __init__(self, kernel, ntasks, tpb=0, stream=0, sharedmem=0):
        if ntasks < 0:
            raise ValueError(f"Can't create ForAll with negative task count: {ntasks}")
        self.kernel, self.ntasks, self.tpb = kernel, int(ntasks), int(tpb)
        self.stream, self.sharedmem = stream, sharedmem

    def __call__(self, *args):
        if self.ntasks == 0:
            return
        kernel = self.kernel if self.kernel.specialized else self.kernel.specialize(*args)
        tpb = self.tpb
        if tpb == 0:
            # The most the compiled kernel takes (its registers may allow fewer than the device).
            limit = by_signature(kernel, None, lambda o: o.max_threads_per_block)
            limit = min(limit.values(), default=0) if isinstance(limit, dict) else limit
            tpb = min(1024, limit or 1024)
        grid = (self.ntasks + tpb - 1) // tpb
        kernel[grid, tpb, self.stream, self.sharedmem](*args)


__all__ = ["ForAll", "Overload", "SignatureDict", "overloads", "specialize", "type_name"]
