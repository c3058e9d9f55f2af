"""NumPy's universal functions, computed on the device, and what the ndarray operators fall
back to for operands the native operators do not take as they are.

Type resolution is NumPy 2's own (tables generated from NumPy; Python scalars are weak as in
NEP 50), broadcasting and ``out=`` as in NumPy; each (ufunc, dtypes, layout) compiles one kernel,
cached. The call goes straight to native code: operands are read there and results made there.
"""

from __future__ import annotations

import numpy as np

from . import _dtypes, _ember, _fusion, _structured
from ._creation import asarray, zeros
from ._operands import needs_conversion

_call = _ember.ufunc_call


def _foreign(args):
    """Operands NumPy would convert (lists, tuples, foreign device arrays) as ember arrays."""
    return tuple(asarray(a) if needs_conversion(a) else a for a in args)


# NumPy's type characters of the dtypes ember holds (C long long 'q' is int64 too).
_HELD_TYPECODES = set("?bhilqBHILQefdFD")


class ufunc:
    """A universal function: ``ember.add(x, y, out=None, dtype=None)`` and so on."""

    __slots__ = ("__name__", "nin", "nout", "_id")

    def __init__(self, name: str):
        self.__name__ = name
        self._id, self.nin, self.nout = _ember.ufunc_id(name)

    @property
    def nargs(self) -> int:
        return self.nin + self.nout

    def __call__(self, *args, out=None, dtype=None, casting="same_kind", **kwargs):
        if kwargs:
            raise TypeError(f"{self.__name__}() got unexpected keyword arguments {sorted(kwargs)}")
        if casting != "same_kind":
            raise ValueError(f"ember's ufuncs cast outputs with casting='same_kind' only, got {casting!r}")
        if len(args) == self.nin + self.nout and out is None:
            args, out = args[: self.nin], args[self.nin:]
        if isinstance(out, tuple) and len(out) == 1:
            out = out[0]
        name = None if dtype is None else _dtypes.name_of(dtype)
        try:
            return _call(self._id, args, out, name)
        except TypeError:
            if _fusion.tracing(*args):
                return _fusion.trace_ufunc(self.__name__, args, out, dtype)
            converted = _foreign(args)
            if all(c is a for c, a in zip(converted, args, strict=True)):
                raise
            return _call(self._id, converted, out, name)

    def __repr__(self):
        return f"<ufunc '{self.__name__}'>"

    @property
    def types(self) -> list[str]:
        """NumPy's loop signatures of this ufunc (``'ff->f'``...) over the dtypes ember holds."""
        return [t for t in getattr(np, self.__name__).types if set(t) - set("->") <= _HELD_TYPECODES]

    @property
    def ntypes(self) -> int:
        return len(self.types)

    @property
    def identity(self):
        """The value a reduction over nothing gives (NumPy's, from NumPy's ufunc of the name)."""
        return getattr(np, self.__name__).identity

    def _binary(self, method: str):
        if self.nin != 2 or self.nout != 1:
            raise ValueError(f"{method} only supported for binary functions")

    def outer(self, A, B, /, **kwargs):
        """``u(a, b)`` for every pair of elements: the result has ``A.shape + B.shape``."""
        self._binary("outer product")
        A, B = asarray(A), asarray(B)
        return self(A.reshape(A.shape + (1,) * B.ndim), B, **kwargs)

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, initial=np._NoValue, where=True):
        """Applies the ufunc along ``axis`` (NumPy's ``ufunc.reduce``)."""
        from ._ufunc_methods import reduce_with

        self._binary("reduce")
        return reduce_with(self, array, axis, dtype, out, keepdims, initial, where)

    def at(self, a, indices, b=None, /):
        """The ufunc applied in place at ``a[indices]``, once per occurrence of each index."""
        from ._ufunc_at import ufunc_at

        ufunc_at(self, a, indices, b)

    def accumulate(self, array, axis=0, dtype=None, out=None):
        """The running result of the ufunc along ``axis`` (NumPy's ``ufunc.accumulate``)."""
        from ._ufunc_methods import accumulate_with

        self._binary("accumulate")
        return accumulate_with(self, array, axis, dtype, out)

    def reduceat(self, array, indices, axis=0, dtype=None, out=None):
        """Reductions of the slices between consecutive ``indices`` along ``axis`` (NumPy's
        ``ufunc.reduceat``: a non-increasing pair gives the element at the first index)."""
        from ._ufunc_methods import reduceat_with

        self._binary("reduceat")
        return reduceat_with(self, array, indices, axis, dtype, out)


def _registry() -> dict[str, ufunc]:
    """One ufunc object per row of the registry (crates/ember-codegen/src/ufuncs/registry.rs),
    under its name and each of its aliases (``np.abs is np.absolute``)."""
    table = {}
    for name, aliases, _summary, _jit in _ember.ufunc_rows():
        u = ufunc(name)
        for n in (name, *aliases):
            table[n] = u
    return table


UFUNCS = _registry()


# --- complex parts ----------------------------------------------------------------------------
def complex_part(a, imaginary: bool):
    """``a.real`` / ``a.imag``: for complex ``a``, a view of its parts (writable, sharing the
    memory, as in NumPy); for real ``a``, ``a`` itself / zeros."""
    if a.dtype.kind != "c":
        return zeros(a.shape, a.dtype) if imaginary else a
    part = np.dtype(np.float32 if a.dtype == np.complex64 else np.float64)
    native = a._a
    offset = native.offset + (part.itemsize if imaginary else 0)
    return _ember.wrap(native.view(list(native.shape), list(native.strides), offset, part.name), a)


def set_complex_part(a, value, imaginary: bool):
    """``a.real = value`` / ``a.imag = value``."""
    if a.dtype.kind != "c":
        if imaginary:
            raise TypeError(f"array of {a.dtype} has no imaginary part to set")
        a[...] = value
        return
    complex_part(a, imaginary)[...] = value


def real(val):
    """The real part of ``val`` (a view for complex arrays); a scalar or host data becomes a
    device array first, as every ember function takes them (CuPy's ``real`` too)."""
    return complex_part(val if isinstance(val, _ember.ndarray) else asarray(val), False)


def imag(val):
    """The imaginary part of ``val`` (a view for complex arrays; zeros for real ones)."""
    return complex_part(val if isinstance(val, _ember.ndarray) else asarray(val), True)


# --- what the operators fall back to ----------------------------------------------------------
_OPERAND_TYPES = (bool, int, float, complex, np.generic, list, tuple, np.ndarray)


def _operand(x) -> bool:
    """Whether an operator should try ``x`` as an operand (else Python gets NotImplemented)."""
    return (
        isinstance(x, _OPERAND_TYPES) or isinstance(x, _ember.ndarray) or hasattr(x, "__cuda_array_interface__")
        or hasattr(x, "__dlpack__")
    )


_binary_call = _ember.ufunc_binary


def _converting(other, call):
    """``call(other)``; when that raises TypeError for an operand NumPy would convert (a list,
    a foreign device array), ``call`` of the converted operand."""
    try:
        return call(other)
    except TypeError:
        other_c = _foreign((other,))[0]
        if other_c is other:
            raise
        return call(other_c)


def _their_comparison(other, name):
    """For an object with its own ``==`` or ``!=``, which NumPy calls with each element: that
    method (``!=`` as the inverse of its ``==``, Python's default); ``None`` for others."""
    cls = type(other)
    if name == "equal":
        return None if cls.__eq__ is object.__eq__ else other.__eq__
    if cls.__ne__ is not object.__ne__:
        return other.__ne__
    if cls.__eq__ is not object.__eq__:
        return lambda a: _invert(other.__eq__(a))
    return None


def _invert(answer):
    return answer if answer is NotImplemented else ~answer if isinstance(answer, _ember.ndarray) else not answer


def _elementwise_answer(a, answer, other):
    """The object's answer for all of ``a`` as a boolean array of its shape (NumPy asks each
    element; an answer for the whole array must hold one per element, or one for all)."""
    if isinstance(answer, _ember.ndarray) and answer.shape == a.shape:
        return answer.astype(bool, copy=False)
    if isinstance(answer, (bool, np.bool_)):
        return _ember.wrap(_ember.full(a._a.device, list(a.shape), "bool", bool(answer)))
    raise TypeError(f"{type(other).__name__} compared with an ember array gave {type(answer).__name__}, not one "
                    "answer per element; compare with the values on the host (a.get()) instead")


def binary_operators(name):
    """The forward, reflected and in-place operator methods of binary ufunc ``name``, for the
    operands the native operators leave to Python."""
    i = UFUNCS[name]._id

    def forward(self, other):
        if isinstance(other, _ember.ndarray):
            return _binary_call(i, self, other)
        if not _operand(other):
            if name in ("equal", "not_equal") and not hasattr(other, "__array_ufunc__"):
                theirs = _their_comparison(other, name)
                answer = NotImplemented if theirs is None else theirs(self)
                if answer is not NotImplemented:
                    return _elementwise_answer(self, answer, other)
                # NumPy compares elementwise with any object (None, object()): never equal.
                return _ember.wrap(_ember.full(self._a.device, list(self.shape), "bool", name == "not_equal"))
            return NotImplemented
        return _converting(other, lambda o: _binary_call(i, self, o))

    if name in ("equal", "not_equal"):
        plain = forward

        def forward(self, other):
            try:
                return plain(self, other)
            except TypeError:
                if not _structured.involved(self, other):
                    raise
                return _structured.compare(self, other, name, lambda native, parent: _ember.wrap(native))

    def reflected(self, other):
        if not _operand(other):
            return NotImplemented
        return _converting(other, lambda o: _binary_call(i, o, self))

    def inplace(self, other):
        _converting(other, lambda o: _call(i, (self, o), self, None))
        return self

    return forward, reflected, inplace


def unary_operator(name):
    """The operator method of unary ufunc ``name``."""
    i = UFUNCS[name]._id

    def op(self):
        return _call(i, (self,), None, None)

    return op


def clip(a, a_min=np._NoValue, a_max=np._NoValue, out=None, *, min=None, max=None):  # noqa: A002  (NumPy's names)
    """Limits the values of ``a`` to ``[a_min, a_max]`` (NumPy's ``clip``: maximum then minimum;
    NumPy 2.1's and the Array API's ``min``/``max`` are the same bounds)."""
    given = (a_min is not np._NoValue, a_max is not np._NoValue)
    if given[0] != given[1]:  # one bound given, the other not even as None: NumPy's TypeError
        raise TypeError(f"clip() missing 1 required positional argument: '{'a_max' if given[0] else 'a_min'}'")
    a_min, a_max = (None if b is np._NoValue else b for b in (a_min, a_max))
    if min is not None or max is not None:
        if a_min is not None or a_max is not None:
            raise ValueError(
                "Passing `min` or `max` keyword argument when `a_min` and `a_max` are provided is forbidden."
            )
        a_min, a_max = min, max
    if a_min is None and a_max is None:
        # NumPy 2.1+: nothing to limit, a copy.
        result = asarray(a).copy()
        if out is not None:
            out[...] = result
            return out
        return result
    result = a
    if a_min is not None:
        result = UFUNCS["maximum"](result, a_min, out=out if a_max is None else None)
    if a_max is not None:
        result = UFUNCS["minimum"](result, a_max, out=out)
    return result
