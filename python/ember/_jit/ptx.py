"""PTX (and LTO-IR) of ember's kernels and device functions, with no GPU: Numba's
``cuda.compile``, ``compile_ptx`` and their ``_for_current_device`` forms, and what
``Dispatcher.inspect_asm`` shows.

ember writes every kernel as CUDA C (the same code generator its CUDA backend runs); NVRTC
turns that C into PTX for a compute capability, as it turns it into the cubin that runs on a
CUDA device. NVRTC is loaded at run time (pip's ``nvidia-cuda-nvrtc`` or the CUDA toolkit);
without it these functions raise :class:`~ember.errors.BackendUnavailableError`.
"""

from __future__ import annotations

import re

from .. import _ember, _runtime
from .. import types as ember_types
from ..types import Signature, is_type
from .front import program_json

# numba-cuda's default (it raises Numba's config.CUDA_DEFAULT_PTX_CC of 5.0 to 7.5), raised to the
# oldest architecture the installed NVRTC still compiles for. 7.5 has float16 arithmetic (5.3+).
DEFAULT_CC = (7, 5)
# The oldest compute capability each NVRTC major version targets (CUDA 12 dropped Kepler,
# CUDA 13 everything before Turing).
_OLDEST_CC = {11: (3, 5), 12: (5, 0), 13: (7, 5)}

_ARRAY = re.compile(r"^array\((\w+), (\d+)d, ([CA])\)$")


def default_cc(cc=None) -> tuple[int, int]:
    """``cc`` as a ``(major, minor)`` tuple; with none, Numba's default for the installed NVRTC."""
    if cc:
        major, minor = cc
        return int(major), int(minor)
    major, _ = _ember.nvrtc_version()
    oldest = _OLDEST_CC.get(major, (7, 5) if major > 13 else DEFAULT_CC)
    return max(DEFAULT_CC, oldest)


def current_cc() -> tuple[int, int]:
    """The current device's compute capability on CUDA; elsewhere (no CUDA device) the
    default of :func:`default_cc`."""
    from .devices import compute_capability

    if _runtime.backend() == "cuda":
        return tuple(compute_capability(_runtime.current_device_id()))
    return default_cc()


def _split_types(text: str) -> list[str]:
    """A comma-separated list of types, split at the commas outside brackets."""
    items, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    items.append(text[start:].strip())
    return [t for t in items if t]


def _void(text: str | None) -> bool:
    return text is None or text in ("void", "none")


def split_signature(sig) -> tuple[list[str], str | None]:
    """``sig`` (text, a signature object, or a tuple of argument types) as the argument types'
    texts and the declared return type's text (None where ``sig`` declares none)."""
    if isinstance(sig, str):
        head, paren, rest = sig.strip().partition("(")
        if not paren or not rest.endswith(")"):
            raise TypeError(f"a signature looks like 'float32(float32, int32)' or '(float32[:],)', got {sig!r}")
        return _split_types(rest[:-1]), head.strip() or None
    if isinstance(sig, Signature):
        return [ember_types._text(a) for a in sig.args], ember_types._text(sig.return_type)
    if is_type(sig):
        sig = (sig,)
    if isinstance(sig, tuple) and all(is_type(a) or isinstance(a, str) for a in sig):
        return [a if isinstance(a, str) else ember_types._text(a) for a in sig], None
    raise TypeError(
        "a signature is a string such as 'float32(float32, int32)', a signature object such as "
        f"float32(float32, int32), or a tuple of argument types; got {type(sig).__name__}")


def _options(debug, lineinfo) -> list[str]:
    options = []
    if debug:
        options.append("-G")
    if lineinfo:
        options.append("-lineinfo")
    return options


def compile(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None, opt=None, abi="c",
            abi_info=None, output="ptx", forceinline=False, launch_bounds=None):
    """Numba's ``cuda.compile``: ``pyfunc`` compiled for ``sig`` to PTX (``output="ptx"``, a
    str) or LTO-IR (``"ltoir"``, bytes), as ``(code, return type)``. No GPU is needed.

    ``device=True`` compiles a device function behind an ``extern "C"`` entry point named
    ``abi_info["abi_name"]`` (default: the function's name): ``abi="c"`` returns the value,
    ``abi="numba"`` writes it through a first pointer parameter and returns a status (0), the
    shape of Numba's calling convention (its mangled names are not reproduced). A signature
    without a return type returns the inferred one; with one, the value is converted to it.
    ``device=False`` compiles a kernel (Numba ABI only; its return type is void).
    ``cc`` defaults to numba-cuda's (7, 5), raised to the oldest architecture the installed NVRTC
    supports. ``fastmath`` and ``opt`` are ``@cuda.jit``'s; ``debug`` adds ``-G``, ``lineinfo``
    ``-lineinfo``. ``forceinline`` marks the entry
    ``__forceinline__`` (LTO-IR only, as in Numba). ``launch_bounds`` is not supported.
    """
    if output not in ("ptx", "ltoir"):
        raise NotImplementedError(f"Unsupported output type: {output}")
    if forceinline and output != "ltoir":
        raise ValueError("Can only designate forced inlining in LTO-IR")
    if abi not in ("numba", "c"):
        raise NotImplementedError(f"Unsupported ABI: {abi}")
    if abi == "c" and not device:
        raise NotImplementedError("The C ABI is not supported for kernels")
    if forceinline and not device:
        raise ValueError("Cannot force-inline kernels")
    if launch_bounds is not None:
        raise NotImplementedError("launch_bounds is not supported by ember's compile(); leave it out")
    link = getattr(pyfunc, "_link", ())  # a @cuda.jit(link=...) function's CUDA C
    pyfunc = getattr(pyfunc, "py_func", pyfunc)
    args, ret = split_signature(sig)
    tree = program_json(pyfunc, None, link)
    if device:
        name = (abi_info or {}).get("abi_name", pyfunc.__name__)
        source, ret_text = _ember.jit_device_entry(tree, args, name, abi, None if _void(ret) else ret, forceinline)
        resty = ember_types.from_name(ret_text)
    else:
        if not _void(ret):
            raise TypeError("CUDA kernel must have void return type.")
        source, name = _ember.jit_kernel_source(tree, args, "cuda")
        resty = ember_types.void
    optimize = opt is None or bool(opt)
    code = device_code(source, name, fastmath, optimize, default_cc(cc), device, output, _options(debug, lineinfo))
    return code, resty


def device_code(source: str, name: str, fastmath: bool, optimize: bool, cc, relocatable: bool, output: str = "ptx",
                options=()):
    """Generated CUDA C as NVRTC compiles it for ember (PTX text, or LTO-IR bytes)."""
    code = _ember.nvrtc_device_code(source, name, list(options), bool(fastmath), bool(optimize), tuple(cc),
                                    relocatable, output)
    return code.decode() if output == "ptx" else code


def compile_for_current_device(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, opt=None,
                               abi="c", abi_info=None, output="ptx", forceinline=False, launch_bounds=None):
    """:func:`compile` for the current device's compute capability (on CUDA; elsewhere the
    default one)."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=current_cc(),
                   opt=opt, abi=abi, abi_info=abi_info, output=output, forceinline=forceinline,
                   launch_bounds=launch_bounds)


def compile_ptx(pyfunc, sig, debug=None, lineinfo=False, device=False, fastmath=False, cc=None, opt=None,
                abi="numba", abi_info=None, forceinline=False, launch_bounds=None):
    """Numba's ``cuda.compile_ptx``: :func:`compile` to PTX, by default a kernel (Numba ABI)."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=cc, opt=opt,
                   abi=abi, abi_info=abi_info, output="ptx", forceinline=forceinline, launch_bounds=launch_bounds)


def compile_ptx_for_current_device(pyfunc, sig, debug=None, lineinfo=False, device=False, fastmath=False, opt=None,
                                   abi="numba", abi_info=None, forceinline=False, launch_bounds=None):
    """:func:`compile_ptx` for the current device's compute capability."""
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                       cc=current_cc(), opt=opt, abi=abi, abi_info=abi_info, forceinline=forceinline,
                       launch_bounds=launch_bounds)


def arg_text(name: str) -> str:
    """ember's name of an argument type (``array(float32, 1d, C)``) as a signature writes it
    (``float32[::1]``)."""
    m = _ARRAY.match(name)
    if m:
        dims = [":"] * int(m.group(2))
        if m.group(3) == "C":
            dims[-1] = "::1"
        return f"{m.group(1)}[{', '.join(dims)}]"
    return name


def specialisation_ptx(kernel, spec: dict, cc=None) -> str:
    """The PTX of one compiled specialisation of ``kernel``: on a CUDA device the generated C
    that ran, compiled for its compute capability; elsewhere the CUDA form of the same
    specialisation, for ``cc`` (default: :func:`default_cc`)."""
    options = getattr(kernel, "_options", {})
    # NVRTC takes tens of milliseconds: each specialisation's PTX is made once per cc.
    memo = kernel.__dict__.setdefault("_ptx", {})
    key = (tuple(spec["types"]), spec["device"], spec.get("coarsened"), bool(spec.get("checked")), cc)
    if key in memo:
        return memo[key]
    if _runtime.backend() == "cuda":
        source = spec["source"]
        name = re.search(r"__global__ void (\w+)\(", source).group(1)
        cc = cc or current_cc()
    else:
        args = [arg_text(t) for t in spec["types"]]
        tree = program_json(kernel.py_func, None, getattr(kernel, "_link", ()))
        source, name = _ember.jit_kernel_source(tree, args, "cuda",
                                                checked=bool(spec.get("checked")))
    memo[key] = device_code(source, name, options.get("fastmath", False), options.get("opt", True), default_cc(cc),
                            False)
    return memo[key]


def nvrtc_available() -> bool:
    """Whether NVRTC can be loaded (so ``inspect_asm`` can show PTX)."""
    try:
        _ember.nvrtc_version()
    except ImportError:
        return False
    return True


__all__ = ["compile", "compile_for_current_device", "compile_ptx", "compile_ptx_for_current_device", "default_cc"]
