"""Numba's type objects: what ``numba.types`` and ``from numba import float32, void`` give, for
``@cuda.jit`` signatures and for code written against Numba.

ember's scalar types (``ember.float32``, ``ember.cuda.float32``, ``ember.types.float32``: one
object) are NumPy's scalar types extended with Numba's type behaviour, so that one name serves
both libraries' code:

- as NumPy's: ``dtype=ember.float32``, ``np.dtype(ember.float32)``, ``ember.float32(1.5)`` (a
  ``numpy.float32``), ``x.dtype == ember.float32``, ``isinstance(v, ember.float32)``; it compares
  and hashes equal to ``numpy.float32`` (it is a subclass, never instantiated: calling it makes
  NumPy's scalar);
- as Numba's: ``float32[:]``, ``float32[:, ::1]`` and ``float32[::1, :]`` (array types),
  ``float32(float32, int32)`` and ``void(float32[:])`` (signatures), ``str(float32[:])``.

``float32()`` with no argument is NumPy's zero, not Numba's empty signature (write the
signature as a string, ``"float32()"``, for a device function without arguments).

A signature's text is what ``@cuda.jit`` compiles: ``str(void(float32[:], int32))`` is
``"void(float32[:], int32)"``. Tuple types (``UniTuple``, ``Tuple``) have their Numba
spelling. ``from_dtype(structured_dtype)`` is a :class:`Record` type: ``rec[:]`` is an array of
records, ``void(rec)`` takes one record.
"""

from __future__ import annotations

import abc
import copyreg
import re

import numpy as np

__all__ = [
    "Array", "as_dtype", "b1", "bool_", "Boolean", "boolean", "byte", "c16", "c8", "char", "Complex", "complex128",
    "complex64", "double", "f2", "f4", "f8", "Float", "float16", "float32", "float64", "from_dtype", "i1", "i2", "i4",
    "i8", "int16", "int32", "int64", "int8", "int_", "intc", "Integer", "intp", "none", "NoneType", "NPDatetime",
    "NPTimedelta", "Number",
    "parse_signature", "Record", "Signature", "Tuple", "Type", "typeof", "u1", "u2", "u4", "u8", "uint16", "uint32",
    "uint64", "uint8", "uintc", "uintp", "UniTuple", "void",
]


class Type(abc.ABC):  # noqa: B024  (an ABC for isinstance(): scalar classes are registered)
    """A Numba type. Its ``str`` is how signatures write it."""

    def __call__(self, *args):
        if args and all(is_type(a) for a in args):
            return Signature(self, args)
        raise TypeError(f"{self} is a type: call it with argument types to make a signature, e.g. {self}(int32)")

    def __str__(self):
        return _text(self)

    def __repr__(self):
        return _text(self)

    def __eq__(self, other):
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self):
        return hash((type(self), self._key()))

    def _key(self) -> tuple:
        return (str(self),)


class Number(Type):  # noqa: B024
    """A scalar number type (ember's scalar classes are registered here by kind)."""


class Boolean(Number):  # noqa: B024
    pass


class Integer(Number):  # noqa: B024
    pass


class Float(Number):  # noqa: B024
    pass


class Complex(Number):  # noqa: B024
    pass


class _Scalar(type):
    """The metaclass of ember's scalar types: a class it makes is NumPy's scalar type (a
    subclass standing for it) with Numba's indexing and calling added."""

    def __call__(cls, *args, **kwargs):
        if args and not kwargs and all(is_type(a) for a in args):
            return Signature(cls, args)
        return cls._numpy(*args, **kwargs)

    def __getitem__(cls, dims) -> Array:
        return Array(cls, *_dims(cls, dims))

    def __instancecheck__(cls, obj):
        return isinstance(obj, cls._numpy)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, cls._numpy)

    def __eq__(cls, other):
        # NumPy's dtypes compare with it as with NumPy's type (their __eq__ is asked next).
        return True if other is cls or other is cls._numpy else NotImplemented

    def __hash__(cls):
        return hash(cls._numpy)

    def __repr__(cls):
        return repr(cls._numpy)

    # Numba's attributes of a scalar type.
    @property
    def name(cls) -> str:
        return np.dtype(cls._numpy).name

    @property
    def bitwidth(cls) -> int:
        return np.dtype(cls._numpy).itemsize * 8

    @property
    def signed(cls) -> bool:
        return np.dtype(cls._numpy).kind in "ifc"

    @property
    def underlying_float(cls) -> _Scalar:
        """A complex type's parts' type (Numba's ``Complex.underlying_float``)."""
        if np.dtype(cls._numpy).kind != "c":
            raise AttributeError(f"{cls.name} is not a complex type: it has no underlying_float")
        return _by_dtype(np.dtype(cls._numpy).char.lower())


_KINDS = {"b": Boolean, "i": Integer, "u": Integer, "f": Float, "c": Complex}


def _scalar(numpy_type, name: str) -> _Scalar:
    """ember's scalar type standing for ``numpy_type``, exported as ``name``: printed and
    compared as NumPy's."""
    kind = _KINDS[np.dtype(numpy_type).kind]
    meta = _METAS.get(kind)
    if meta is None:
        meta = _METAS[kind] = type(f"_{kind.__name__}Scalar", (_Scalar,), {})
        kind.register(meta)
        copyreg.pickle(meta, lambda cls: (scalar_named, (cls.name,)))
    return meta(name, (numpy_type,), {"_numpy": numpy_type, "__module__": __name__})


_METAS: dict[type, type] = {}


def scalar_named(name: str) -> _Scalar:
    """ember's scalar type of a dtype name (``"float32"``): how pickles name them."""
    return _by_dtype(name)


bool_ = boolean = b1 = _scalar(np.bool_, "bool_")
int8 = i1 = char = _scalar(np.int8, "int8")
int16 = i2 = _scalar(np.int16, "int16")
int32 = i4 = intc = _scalar(np.int32, "int32")
int64 = i8 = intp = int_ = _scalar(np.int64, "int64")
uint8 = u1 = byte = _scalar(np.uint8, "uint8")  # Numba's byte is unsigned (NumPy's np.byte is not)
uint16 = u2 = _scalar(np.uint16, "uint16")
uint32 = u4 = uintc = _scalar(np.uint32, "uint32")
uint64 = u8 = uintp = _scalar(np.uint64, "uint64")
float16 = f2 = _scalar(np.float16, "float16")
float32 = f4 = _scalar(np.float32, "float32")
float64 = f8 = double = _scalar(np.float64, "float64")
complex64 = c8 = _scalar(np.complex64, "complex64")
complex128 = c16 = _scalar(np.complex128, "complex128")

SCALARS = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64, complex64,
           complex128)


class _NPDatetimeBase(Type):
    """Numba's ``NPDatetime``/``NPTimedelta``: values of ``datetime64[unit]``/``timedelta64[unit]``
    (int64 counts of the unit; ``unit`` ``""`` is NumPy's generic unit). Its ``str`` is NumPy's
    dtype name, as Numba's is."""

    type_name = ""
    _code = ""

    def __init__(self, unit: str = ""):
        try:
            d = np.dtype(f"{self._code}[{unit}]" if unit else self._code)
        except TypeError:
            raise ValueError(f"{unit!r} is not a datetime unit (Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as)") from None
        if np.datetime_data(d) != (unit or "generic", 1):
            raise ValueError(f"{unit!r} is not a datetime unit: Numba's datetime types have one plain unit")
        self.unit = unit
        self.dtype = d

    def __call__(self, *args):
        if args and all(is_type(a) for a in args):
            return Signature(self, args)
        # Numba's cast_python_value: the NumPy scalar of this unit.
        return getattr(np, self.type_name)(*args, *((self.unit,) if self.unit else ()))

    def __getitem__(self, dims) -> Array:
        return Array(self, *_dims(self, dims))

    @property
    def name(self) -> str:
        return str(self.dtype)

    @property
    def bitwidth(self) -> int:
        return 64

    def _key(self) -> tuple:
        return (self.unit,)


class NPDatetime(_NPDatetimeBase):
    """``types.NPDatetime('D')``: the type of ``numpy.datetime64`` values in days."""

    type_name, _code = "datetime64", "M8"


class NPTimedelta(_NPDatetimeBase):
    """``types.NPTimedelta('D')``: the type of ``numpy.timedelta64`` values in days."""

    type_name, _code = "timedelta64", "m8"


def _datetime_type(d: np.dtype) -> _NPDatetimeBase:
    """The Numba type of a datetime64/timedelta64 dtype."""
    unit, count = np.datetime_data(d)
    if count != 1 or d.byteorder == ">":
        raise TypeError(f"{d} has no Numba type: kernels compute on datetime64 and timedelta64 of one plain unit "
                        "(datetime64[D], timedelta64[ns]) in native byte order")
    cls = NPDatetime if d.kind == "M" else NPTimedelta
    return cls("" if unit == "generic" else unit)


class NoneType(Type):
    """Numba's ``none``, which ``void`` names: the return type of kernels."""

    def __call__(self, *args):
        if all(is_type(a) for a in args):
            return Signature(self, args)
        return super().__call__(*args)

    def __getitem__(self, dims):
        raise TypeError("void is a return type: arrays have a scalar dtype, e.g. float32[:]")


none = void = NoneType()


class Array(Type):
    """An array type: ``Array(float32, 2, "C")`` is ``float32[:, ::1]``. ``layout``: ``"C"``
    (C-contiguous), ``"F"`` (Fortran-contiguous; ember's kernels read it by its strides, as
    any layout) or ``"A"`` (any strides)."""

    def __init__(self, dtype, ndim: int, layout: str = "A", readonly: bool = False):
        if not isinstance(dtype, (_Scalar, Record, _NPDatetimeBase)):
            dtype = from_dtype(dtype)
        if not isinstance(ndim, int) or ndim < 1:
            raise ValueError(f"an array type has at least one dimension, got ndim={ndim!r}")
        if layout not in ("C", "F", "A"):
            raise ValueError(f"layout must be 'C', 'F' or 'A', got {layout!r}")
        self.dtype, self.ndim, self.layout, self.readonly = dtype, ndim, layout, readonly

    def _key(self) -> tuple:
        return (self.dtype.name, self.ndim, self.layout, self.readonly)


class Record(Type):
    """Numba's record type: the elements of a structured dtype (``from_dtype(dtype)``).
    ``rec[:]`` is an array of them; a kernel reads and writes their fields in place."""

    def __init__(self, dtype):
        from . import _dtypes

        self.dtype = _dtypes.normalize(dtype)  # registers its layout with the compiler
        if self.dtype.fields is None:
            raise TypeError(f"{self.dtype} is not a structured dtype: its type is from_dtype({self.dtype})")
        #: The dtype's name as ember registers it (NumPy's ``str(dtype)``).
        self.name = _dtypes.name_of(self.dtype)

    def __getitem__(self, dims) -> Array:
        return Array(self, *_dims(self, dims))

    @property
    def fields(self) -> dict:
        """``{name: (type, offset)}``, in the dtype's order (Numba's ``Record.fields``)."""
        out = {}
        for name in self.dtype.names:
            sub, offset = self.dtype.fields[name][:2]
            out[name] = (from_dtype(sub.base) if sub.subdtype is None else sub, offset)
        return out

    @property
    def size(self) -> int:
        """Bytes per record."""
        return self.dtype.itemsize

    @property
    def aligned(self) -> bool:
        return self.dtype.isalignedstruct

    def offset(self, name: str) -> int:
        """The byte offset of field ``name``."""
        return self.dtype.fields[name][1]

    def typeof(self, name: str):
        """The type of field ``name``."""
        return self.fields[name][0]

    def _key(self) -> tuple:
        return (self.name,)


class UniTuple(Type):
    """A tuple of ``count`` values of one type."""

    def __init__(self, dtype, count: int):
        self.dtype, self.count = dtype, count
        self.types = (dtype,) * count


class Tuple(Type):
    """A tuple of values of the given types (``UniTuple`` when they are all one type)."""

    def __new__(cls, types):
        types = tuple(types)
        if types and all(t == types[0] for t in types):
            return UniTuple(types[0], len(types))
        return super().__new__(cls)

    def __init__(self, types):
        self.types = tuple(types)


class Signature:
    """A function's type: ``return_type(*args)``, Numba's ``Signature``. Its ``str`` is the
    text ``@cuda.jit`` compiles."""

    def __init__(self, return_type, args):
        self.return_type = none if return_type is None else return_type
        self.args = tuple(args)

    def __str__(self):
        return f"{_text(self.return_type)}({', '.join(_text(a) for a in self.args)})"

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, Signature) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))


Type.register(_Scalar)


# How ember's compiler names an array type: "array(float32, 2d, C)", "array(Record(...), 1d, A)".
ARRAY_NAME = re.compile(r"^array\((\w+(?:\[\w+\])?|Record\(.*\)), (\d+)d, ([CA])\)$")


def from_name(name: str):
    """The type object of ember's name of a type (``"float32"``, ``"array(float32, 1d, C)"``,
    ``"(int64, float32)"``, ``"none"``: how ember's compiler writes types), where this module
    has one; else the name itself."""
    if name in ("none", "void"):
        return none
    if name.startswith("(") and name.endswith(")"):
        # A tuple of scalars (what kernels take): "(int64, float32)", "(int64,)", "()".
        items = [x.strip() for x in name[1:-1].split(",") if x.strip()]
        found = [from_name(x) for x in items]
        return name if any(isinstance(x, str) for x in found) else Tuple(found)
    m = ARRAY_NAME.match(name)
    try:
        if m:
            return Array(_element_named(m.group(1)), int(m.group(2)), m.group(3))
        return _element_named(name)
    except (TypeError, AttributeError, KeyError):
        return name


def _element_named(name: str):
    """A scalar type by its dtype's name, or a record type (``Record(<dtype name>)``)."""
    if name.startswith("Record(") and name.endswith(")"):
        from . import _dtypes

        return Record(_dtypes.from_name(name[len("Record("):-1]))
    if name.startswith(("datetime64", "timedelta64")):
        return _datetime_type(np.dtype(name))
    return scalar_named(name)


def is_type(value) -> bool:
    """Whether ``value`` is a Numba type (a scalar, array, tuple or void type)."""
    return isinstance(value, (Type, _Scalar))


def _by_dtype(dtype) -> _Scalar:
    """ember's scalar type of a NumPy dtype (or anything ``np.dtype`` takes)."""
    d = np.dtype(dtype)
    for t in SCALARS:
        if np.dtype(t._numpy) == d:
            return t
    raise TypeError(f"{d} has no Numba scalar type in ember (use a bool, integer, float or complex dtype)")


def from_dtype(dtype):
    """Numba's ``numpy_support.from_dtype``: the type of a NumPy dtype's values (a scalar type,
    or a :class:`Record` type for a structured dtype)."""
    d = np.dtype(dtype)
    if d.fields is not None:
        return Record(d)
    if d.kind in "mM":
        return _datetime_type(d)
    return _by_dtype(d)


def as_dtype(t) -> np.dtype:
    """Numba's ``numpy_support.as_dtype``: the NumPy dtype of a scalar type (array and tuple
    types have none, as in Numba)."""
    if isinstance(t, _Scalar):
        return np.dtype(t._numpy)
    if isinstance(t, (Record, _NPDatetimeBase)):
        return t.dtype
    raise TypeError(f"{t!r} has no NumPy dtype (as_dtype takes a scalar type such as float32)")


def _dims(scalar, dims) -> tuple[int, str]:
    """``(ndim, layout)`` of ``scalar[dims]``: each dimension ``:``, with ``::1`` on the last (C)
    or the first (F) for a contiguous one, as Numba writes them."""
    dims = dims if isinstance(dims, tuple) else (dims,)
    steps = []
    for d in dims:
        if not isinstance(d, slice) or d.start is not None or d.stop is not None or d.step not in (None, 1):
            raise TypeError(
                f"{scalar.name}[{', '.join(map(str, dims))}]: each dimension of an array type is ':' "
                "(or '::1' on the last for C order, on the first for Fortran order)")
        steps.append(d.step)
    n = len(steps)
    if steps.count(1) == 0:
        return n, "A"
    if steps.count(1) == 1 and steps[-1] == 1:
        return n, "C"
    if steps.count(1) == 1 and steps[0] == 1:
        return n, "F"
    raise TypeError(f"{scalar.name}[...]: only the first or the last dimension may be '::1'")


def _text(t) -> str:
    """How a signature writes ``t``."""
    if isinstance(t, _Scalar):
        return t.name
    if isinstance(t, NoneType):
        return "void"
    if isinstance(t, Array):
        dims = [":"] * t.ndim
        if t.layout == "C":
            dims[-1] = "::1"
        elif t.layout == "F":
            dims[0] = "::1"
        return f"{_text(t.dtype)}[{', '.join(dims)}]"
    if isinstance(t, Record):
        return f"Record({t.name})"
    if isinstance(t, _NPDatetimeBase):
        return t.name
    if isinstance(t, UniTuple):
        return f"UniTuple({_text(t.dtype)} x {t.count})"
    if isinstance(t, Tuple):
        return f"Tuple({', '.join(_text(x) for x in t.types)})"
    if isinstance(t, str):
        return t
    raise TypeError(f"{t!r} is not a Numba type")


def signature_text(sig) -> str:
    """The text of a ``@cuda.jit`` signature given as a string, a :class:`Signature`, or a
    tuple of argument types (a kernel's: its return type is void)."""
    if isinstance(sig, str):
        return sig
    if isinstance(sig, Signature):
        return str(sig)
    if isinstance(sig, tuple) and all(is_type(a) or isinstance(a, str) for a in sig):
        return str(Signature(none, sig))
    raise TypeError(
        f"a signature is a string such as 'void(float32[:], int32)', a signature object such as "
        f"void(float32[:], int32), or a tuple of argument types; got {type(sig).__name__}")


def typeof(value):
    """Numba's ``numba.typeof``: the type a kernel gives ``value`` as an argument. Python's
    bool, int, float and complex are ``boolean``, ``int64``, ``float64`` and ``complex128``;
    NumPy scalars their own type; arrays (NumPy, ember, CUDA array interface) ``Array`` with
    layout ``"C"``, ``"F"`` (more than one dimension) or ``"A"``; tuples ``Tuple``/``UniTuple``."""
    if is_type(value):
        return value
    if isinstance(value, (bool, np.bool_)):
        return boolean
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return float64
    if isinstance(value, complex):
        return complex128
    if isinstance(value, (np.datetime64, np.timedelta64)):
        return _datetime_type(value.dtype)
    if isinstance(value, np.generic):
        return _by_dtype(value.dtype)
    if isinstance(value, tuple):
        return Tuple([typeof(v) for v in value])
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if isinstance(shape, tuple) and dtype is not None and len(shape) > 0:
        flags = getattr(value, "flags", None)
        c = bool(flags["C_CONTIGUOUS"]) if flags is not None else _contiguous(value, shape, dtype, False)
        f = bool(flags["F_CONTIGUOUS"]) if flags is not None else _contiguous(value, shape, dtype, True)
        layout = "C" if c else ("F" if f else "A")
        return Array(dtype, len(shape), layout, readonly=isinstance(value, np.ndarray) and not value.flags.writeable)
    raise ValueError(f"cannot determine the Numba type of {type(value).__name__}")


def _contiguous(value, shape, dtype, fortran: bool) -> bool:
    """Whether an array without NumPy's flags (ember's, a CUDA array interface object) has
    C (or Fortran) strides."""
    strides = getattr(value, "strides", None)
    if strides is None:
        cai = getattr(value, "__cuda_array_interface__", {})
        strides = cai.get("strides")
        if strides is None:
            return not fortran or len(shape) == 1
    want, step = [], np.dtype(dtype).itemsize
    for n in (shape if fortran else reversed(shape)):
        want.append(step)
        step *= n
    want = want if fortran else want[::-1]
    return all(s == w for s, w, n in zip(strides, want, shape, strict=True) if n > 1)


_DATETIME_NAME = re.compile(r"\b(datetime64|timedelta64)(?:\[(\w+)\])?")
_DATETIME_CLASS = {"datetime64": "NPDatetime", "timedelta64": "NPTimedelta"}


def _evaluate(text: str):
    """A signature's text read as Python over the type names only (NumPy's names of datetime
    types, as str() writes them, read as the type objects)."""
    names = {n: globals()[n] for n in __all__}
    source = _DATETIME_NAME.sub(lambda m: f"{_DATETIME_CLASS[m[1]]}({m[2] or ''!r})", text)
    try:
        return eval(source, {"__builtins__": {}}, names)  # noqa: S307  (type names only)
    except Exception as e:
        raise TypeError(f"cannot read the signature {text!r}: {e}") from None


_NO_ARGUMENTS = re.compile(r"^\s*([\w\[\]:, ]+?)\s*\(\s*\)\s*$")


def parse_signature(sig) -> Signature:
    """A signature object from its text (``"int32(float32[:], int32)"``) or itself: Numba's
    ``sigutils.normalize_signature`` for signatures with a return type."""
    if isinstance(sig, str):
        no_args = _NO_ARGUMENTS.match(sig)
        # "int32()": a function of no arguments (evaluated, int32() would be NumPy's zero).
        sig = Signature(_evaluate(no_args[1]), ()) if no_args else _evaluate(sig)
    if not isinstance(sig, Signature):
        raise TypeError("Return type must be provided: write the signature as 'int32(int32)' or int32(int32)")
    return sig


def argument_types(sig) -> tuple:
    """The argument types of a signature with or without a return type: text
    (``"f8(f8, f8[:])"``, ``"(f8, f8[:])"``), a signature object, or a tuple of types."""
    if isinstance(sig, str):
        sig = _evaluate(sig)
    if isinstance(sig, Signature):
        return tuple(sig.args)
    if isinstance(sig, tuple):
        return tuple(_evaluate(a) if isinstance(a, str) else a for a in sig)
    return (sig,)
