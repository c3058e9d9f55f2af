"""NumPy's universal functions and the ndarray operators, computed on the device.

Type resolution is NumPy 2's own (tables generated from NumPy; Python scalars are weak as in
NEP 50), broadcasting and ``out=`` as in NumPy; each (ufunc, dtypes, layout) compiles one kernel,
cached. The call goes straight to native code: operands are read there and results made there.
"""

from __future__ import annotations

import numpy as np

from . import _dtypes, _ember, _fusion
from ._ndarray import ndarray

_call = _ember.ufunc_call


def _foreign(args):
    """Operands NumPy would convert (lists, tuples, foreign device arrays) as ember arrays."""
    from ._creation import asarray

    out = []
    for a in args:
        if isinstance(a, (list, tuple)) or hasattr(a, "__cuda_array_interface__") or (
            hasattr(a, "__dlpack__") and not isinstance(a, np.ndarray)
        ):
            a = asarray(a)
        out.append(a)
    return tuple(out)


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
            if converted == args:
                raise
            return _call(self._id, converted, out, name)

    def __repr__(self):
        return f"<ufunc '{self.__name__}'>"


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
def _part(a, imaginary: bool):
    """``a.real`` / ``a.imag``: for complex ``a``, a view of its parts (writable, sharing the
    memory, as in NumPy); for real ``a``, ``a`` itself / zeros."""
    if a.dtype.kind != "c":
        if not imaginary:
            return a
        from ._creation import zeros

        return zeros(a.shape, a.dtype)
    part = np.dtype(np.float32 if a.dtype == np.complex64 else np.float64)
    native = a._a
    offset = native.offset + (part.itemsize if imaginary else 0)
    from ._ndarray import _wrap_view

    return _wrap_view(native.view(list(native.shape), list(native.strides), offset, part.name), a)


def _set_part(a, value, imaginary: bool):
    if a.dtype.kind != "c":
        if imaginary:
            raise TypeError(f"array of {a.dtype} has no imaginary part to set")
        a[...] = value
        return
    _part(a, imaginary)[...] = value


def real(val):
    """The real part of ``val`` (a view for complex arrays)."""
    return _part(val, False) if isinstance(val, ndarray) else np.real(val)


def imag(val):
    """The imaginary part of ``val`` (a view for complex arrays)."""
    return _part(val, True) if isinstance(val, ndarray) else np.imag(val)


ndarray.real = property(lambda self: _part(self, False), lambda self, v: _set_part(self, v, False))
ndarray.imag = property(lambda self: _part(self, True), lambda self, v: _set_part(self, v, True))
# CuPy returns a real array itself from conj(); complex ones get the conjugate ufunc.
ndarray.conj = ndarray.conjugate = lambda self: UFUNCS["conjugate"](self) if self.dtype.kind == "c" else self


# --- operators --------------------------------------------------------------------------------
_OPERAND_TYPES = (ndarray, bool, int, float, complex, np.generic, list, tuple, np.ndarray)


def _operand(x) -> bool:
    """Whether an operator should try ``x`` as an operand (else Python gets NotImplemented)."""
    return isinstance(x, _OPERAND_TYPES) or hasattr(x, "__cuda_array_interface__") or hasattr(x, "__dlpack__")


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


def _binary(name):
    i = UFUNCS[name]._id

    def forward(self, other):
        if type(other) is ndarray:
            return _binary_call(i, self, other)
        if not _operand(other):
            return NotImplemented
        return _converting(other, lambda o: _binary_call(i, self, o))

    def reflected(self, other):
        if not _operand(other):
            return NotImplemented
        return _converting(other, lambda o: _binary_call(i, o, self))

    def inplace(self, other):
        _converting(other, lambda o: _call(i, (self, o), self, None))
        return self

    return forward, reflected, inplace


def _native(dunder, name, form, fallback):
    """``fallback`` with a native method in front: ndarray and scalar operands go from
    Python's operator slot straight to the ufunc; the others reach ``fallback``."""
    return _ember.operator_method(ndarray, dunder, UFUNCS[name]._id, form, fallback)


def _unary(name):
    i = UFUNCS[name]._id

    def op(self):
        return _call(i, (self,), None, None)

    return op


for _dunder, _name in (
    ("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "true_divide"),
    ("floordiv", "floor_divide"), ("mod", "remainder"), ("pow", "power"), ("and", "bitwise_and"),
    ("or", "bitwise_or"), ("xor", "bitwise_xor"), ("lshift", "left_shift"), ("rshift", "right_shift"),
):
    _f, _r, _i = _binary(_name)
    setattr(ndarray, f"__{_dunder}__", _native(f"__{_dunder}__", _name, "forward", _f))
    setattr(ndarray, f"__r{_dunder}__", _native(f"__r{_dunder}__", _name, "reflected", _r))
    setattr(ndarray, f"__i{_dunder}__", _native(f"__i{_dunder}__", _name, "inplace", _i))

for _dunder, _name in (
    ("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
    ("ge", "greater_equal"),
):
    setattr(ndarray, f"__{_dunder}__", _native(f"__{_dunder}__", _name, "forward", _binary(_name)[0]))

for _dunder, _name in (("neg", "negative"), ("pos", "positive"), ("abs", "absolute"), ("invert", "invert")):
    setattr(ndarray, f"__{_dunder}__", _native(f"__{_dunder}__", _name, "unary", _unary(_name)))

# Arrays compare element-wise, so they are not hashable (as in NumPy and CuPy); NumPy must
# not try to convert them (it cannot: __array__ refuses) but let ember's reflected operators run.
ndarray.__hash__ = None
ndarray.__array_ufunc__ = None


def _divmod(self, other):
    return UFUNCS["floor_divide"](self, other), UFUNCS["remainder"](self, other)


ndarray.__divmod__ = _divmod


# --- three-operand functions ------------------------------------------------------------------
def _result_dtype(*values) -> np.dtype:
    """NumPy 2's result type of arrays and (weak) Python scalars."""
    return np.result_type(*[v.dtype if isinstance(v, ndarray) else v for v in values])


_kernels: dict = {}


def where(condition, x=None, y=None):
    """``where(condition, x, y)``: elements of ``x`` where ``condition`` holds, else of ``y``
    (broadcast together; the result type is NumPy's result type of ``x`` and ``y``)."""
    from ._creation import asarray
    from ._user_kernels import ElementwiseKernel

    if _fusion.tracing(condition, x, y):
        return _fusion.trace_where(condition, x, y)
    if x is None and y is None:
        from ._advanced import nonzero

        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    dtype = _result_dtype(x, y)
    kernel = _kernels.get("w")
    if kernel is None:
        kernel = _kernels["w"] = ElementwiseKernel("bool c, T x, T y", "T z", "z = c ? x : y", "ember_where")
    cond = condition if isinstance(condition, ndarray) else asarray(condition)
    if cond.dtype != np.bool_:
        cond = UFUNCS["not_equal"](cond, 0)
    xs = x.astype(dtype, copy=False) if isinstance(x, ndarray) else dtype.type(x)
    ys = y.astype(dtype, copy=False) if isinstance(y, ndarray) else dtype.type(y)
    if not isinstance(xs, ndarray) and not isinstance(ys, ndarray):
        xs = asarray(np.asarray(xs))
    return kernel(cond, xs, ys)


def clip(a, a_min=None, a_max=None, out=None):
    """Limits the values of ``a`` to ``[a_min, a_max]`` (NumPy's ``clip``: maximum then minimum)."""
    if a_min is None and a_max is None:
        # NumPy 2.1+: nothing to limit, a copy.
        from ._creation import asarray

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


ndarray.clip = lambda self, min=None, max=None, out=None: clip(self, min, max, out)


def _nonzero_method(self):
    from ._advanced import nonzero

    return nonzero(self)


def _take_method(self, indices, axis=None, out=None):
    from ._advanced import take

    return take(self, indices, axis, out)


ndarray.nonzero = _nonzero_method
ndarray.take = _take_method
