//! The host calling convention of compiled functions: how a call's arguments and results sit
//! in memory, and how a call reports an exception.
//!
//! Python calls a compiled function through its entry, `entry(context, arguments, results)`.
//! `arguments` and `results` are blocks of 8-byte words, each value flattened into its
//! leaves ([`Leaf`]): a number is one word (its C value in the low bytes), a complex number
//! two (real, imaginary), an array `1 + 2 * ndim` (the address of its first element, its
//! shape, its byte strides), a tuple its items in order. Inside, functions call each other
//! with the same leaves as separate machine arguments.

use ember_core::dtype::Kind;
use ember_core::DType;
use ember_jit::Ty;

/// One machine value of a flattened value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf {
    /// A number of this dtype (bool as one byte, 0 or 1).
    Number(DType),
    /// The real or imaginary part of a complex number of this (float) dtype.
    Part(DType),
    /// An address.
    Address,
    /// An int64 (an array's extent or byte stride).
    Extent,
}

/// The leaves of a value of `ty`, in order, or what the CPU compiler cannot pass.
pub fn leaves(ty: &Ty) -> Result<Vec<Leaf>, String> {
    let mut out = Vec::new();
    push_leaves(ty, &mut out)?;
    Ok(out)
}

fn push_leaves(ty: &Ty, out: &mut Vec<Leaf>) -> Result<(), String> {
    match ty {
        Ty::Scalar(d) => match d.kind() {
            Kind::Complex => {
                let part = if *d == DType::C64 {
                    DType::F32
                } else {
                    DType::F64
                };
                out.extend([Leaf::Part(part), Leaf::Part(part)]);
            }
            Kind::Opaque => return Err(format!("values of dtype {}", d.name())),
            _ if matches!(d, DType::F16 | DType::BF16) => {
                return Err(format!("{} values", d.name()))
            }
            _ => out.push(Leaf::Number(*d)),
        },
        Ty::Array(a) => {
            if a.fixed.is_some() || !matches!(a.space, ember_jit::Space::Global) {
                return Err(format!("the array type {ty}"));
            }
            if matches!(a.dtype.kind(), Kind::Opaque) || matches!(a.dtype, DType::F16 | DType::BF16)
            {
                return Err(format!("arrays of dtype {}", a.dtype.name()));
            }
            out.push(Leaf::Address);
            out.extend(std::iter::repeat_n(Leaf::Extent, 2 * a.ndim));
        }
        Ty::Tuple(items) => {
            for t in items {
                push_leaves(t, out)?;
            }
        }
        Ty::None => {}
        // Whether it holds a value (a bool), then the value (zero when it holds none).
        Ty::Optional(t) => {
            out.push(Leaf::Number(DType::Bool));
            push_leaves(t, out)?;
        }
        Ty::Record(_) => return Err("records (structured dtypes)".into()),
        Ty::Group => return Err("cooperative groups".into()),
    }
    Ok(())
}

/// What a call's context holds: the status a compiled function leaves (0: it returned), the
/// details of a fault, and the arena the arrays it makes come from. Python reads it after
/// the call.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CallContext {
    /// 0, or [`Fault::code`] of what was raised.
    pub status: i64,
    /// Numbers a fault's message quotes (an index and the extent it missed).
    pub detail: [i64; 2],
    /// Where arrays made during the call live (null: the function makes none).
    pub arena: *const crate::arena::Arena,
}

// The arena is shared by the chunks of a parallel loop (it locks); the rest is plain data.
unsafe impl Send for CallContext {}

impl Default for CallContext {
    fn default() -> Self {
        CallContext {
            status: 0,
            detail: [0; 2],
            arena: std::ptr::null(),
        }
    }
}

impl CallContext {
    /// A context whose arrays come from `arena`.
    pub fn with_arena(arena: &crate::arena::Arena) -> CallContext {
        CallContext {
            arena,
            ..CallContext::default()
        }
    }
}

/// Byte offset of [`CallContext::status`].
pub(crate) const STATUS_OFFSET: i32 = 0;

/// Byte offset of [`CallContext::detail`].
pub(crate) const DETAIL_OFFSET: i32 = 8;

/// Python's own exceptions a compiled function raises (Numba's messages, error model
/// `'python'`), by status code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `x / 0` of floats (and of integers, computed in float64).
    Division,
    /// `x // 0` and `divmod(x, 0)` of integers.
    IntegerDivision,
    /// `x % 0` of integers.
    IntegerModulo,
    /// `x // 0.0` and `x % 0.0` of floats.
    FloatModulo,
    /// `0 ** -n` of integers.
    NegativePowerOfZero,
    /// An index outside its axis (with `boundscheck=True`); details: index, extent.
    Index,
    /// `np.empty(-1)`.
    NegativeDimensions,
    /// The system allocator refused an array.
    OutOfMemory,
    /// Array shapes that do not broadcast together; details: the two lengths.
    Broadcast,
    /// An operand that does not broadcast to the array stored into; details: its length and
    /// the array's.
    BroadcastInto,
    /// `max()` of an empty array.
    EmptyMaximum,
    /// `min()` of an empty array.
    EmptyMinimum,
    /// `argmax()` of an empty array.
    EmptyArgmax,
    /// `argmin()` of an empty array.
    EmptyArgmin,
    /// An integer array raised to a negative integer power.
    NegativeIntegerPower,
    /// A Python int out of the range of an array operation's integer type; details: the int,
    /// the dtype's row in `DType::ALL`.
    PythonIntOutOfBounds,
    /// An array whose size in bytes does not fit in an `isize`.
    ArrayTooBig,
    /// A tuple indexed outside it.
    TupleIndex,
    /// `range(a, b, 0)`.
    RangeStepZero,
    /// An optional value used where its value is needed holds None; details: the value's
    /// dtype's row in `DType::ALL` (-1: not a number or array), its dimensions (-1: a number).
    NoneValue,
    /// `np.nanargmax`/`nanargmin` of NaNs only.
    AllNan,
    /// `np.nanmax`/`np.nanmin` of an empty array.
    EmptyFmax,
    EmptyFmin,
    /// A boolean mask of another shape than the array's; details: the two lengths.
    MaskShape,
    /// `a[mask] = b` with the wrong number of values; details: given, needed.
    MaskAssign,
    /// An axis out of the array's dimensions; details: the axis, the dimensions.
    Axis,
}

impl Builtin {
    const ALL: [Builtin; 26] = [
        Builtin::Division,
        Builtin::IntegerDivision,
        Builtin::IntegerModulo,
        Builtin::FloatModulo,
        Builtin::NegativePowerOfZero,
        Builtin::Index,
        Builtin::NegativeDimensions,
        Builtin::OutOfMemory,
        Builtin::Broadcast,
        Builtin::BroadcastInto,
        Builtin::EmptyMaximum,
        Builtin::EmptyMinimum,
        Builtin::EmptyArgmax,
        Builtin::EmptyArgmin,
        Builtin::NegativeIntegerPower,
        Builtin::PythonIntOutOfBounds,
        Builtin::ArrayTooBig,
        Builtin::TupleIndex,
        Builtin::RangeStepZero,
        Builtin::NoneValue,
        Builtin::AllNan,
        Builtin::EmptyFmax,
        Builtin::EmptyFmin,
        Builtin::MaskShape,
        Builtin::MaskAssign,
        Builtin::Axis,
    ];

    /// The Python exception class and its message, naming the fault's `detail` numbers.
    pub fn message(self, detail: [i64; 2]) -> (&'static str, String) {
        let [a, b] = detail;
        let (class, text) = self.exception();
        let text = match self {
            Builtin::Broadcast => {
                format!("{text}: an axis of length {a} meets one of length {b}")
            }
            Builtin::Index => format!("index {a} is out of bounds for an axis of size {b}"),
            Builtin::PythonIntOutOfBounds => {
                let dtype = ember_core::DType::ALL
                    .get(b as usize)
                    .map_or("?", |d| d.name());
                format!("Python integer {a} out of bounds for {dtype}")
            }
            Builtin::BroadcastInto => {
                format!("{text}: an operand's axis of length {a} does not fit the output's of length {b}")
            }
            Builtin::Axis => format!("axis {a} is out of bounds for array of dimension {b}"),
            Builtin::MaskShape => format!(
                "{text} along an axis; size of axis is {a} but size of corresponding boolean axis is {b}"
            ),
            Builtin::MaskAssign => format!(
                "NumPy boolean array indexing assignment cannot assign {a} input values to the {b} output values where the mask is true"
            ),
            Builtin::NoneValue => {
                let dtype = usize::try_from(a)
                    .ok()
                    .and_then(|k| ember_core::DType::ALL.get(k));
                match (dtype, b) {
                    (Some(d), -1) => format!("expected {}, got None", d.name()),
                    (Some(d), n) => format!("expected array({}, {n}d), got None", d.name()),
                    (None, _) => text.to_string(),
                }
            }
            _ => text.to_string(),
        };
        (class, text)
    }

    /// The Python exception class (a builtin's name, or a module's class by its dotted path)
    /// and message (without the details).
    pub fn exception(self) -> (&'static str, &'static str) {
        match self {
            Builtin::Division => ("ZeroDivisionError", "division by zero"),
            Builtin::IntegerDivision => ("ZeroDivisionError", "integer division by zero"),
            Builtin::IntegerModulo => ("ZeroDivisionError", "integer modulo by zero"),
            Builtin::FloatModulo => ("ZeroDivisionError", "modulo by zero"),
            Builtin::NegativePowerOfZero => (
                "ZeroDivisionError",
                "0 cannot be raised to a negative power",
            ),
            Builtin::Index => ("IndexError", "index out of bounds"),
            Builtin::NegativeDimensions => ("ValueError", "negative dimensions are not allowed"),
            Builtin::OutOfMemory => ("MemoryError", "Allocation failed (probably too large)."),
            Builtin::Broadcast => ("ValueError", "operands could not be broadcast together"),
            Builtin::BroadcastInto => ("ValueError", "non-broadcastable output operand"),
            Builtin::EmptyMaximum => (
                "ValueError",
                "zero-size array to reduction operation maximum which has no identity",
            ),
            Builtin::EmptyMinimum => (
                "ValueError",
                "zero-size array to reduction operation minimum which has no identity",
            ),
            Builtin::EmptyArgmax => ("ValueError", "attempt to get argmax of an empty sequence"),
            Builtin::EmptyArgmin => ("ValueError", "attempt to get argmin of an empty sequence"),
            Builtin::NegativeIntegerPower => (
                "ValueError",
                "Integers to negative integer powers are not allowed.",
            ),
            Builtin::PythonIntOutOfBounds => ("OverflowError", "Python integer out of bounds"),
            Builtin::ArrayTooBig => (
                "ValueError",
                "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.",
            ),
            Builtin::TupleIndex => ("IndexError", "tuple index out of range"),
            Builtin::RangeStepZero => ("ValueError", "range() arg 3 must not be zero"),
            Builtin::NoneValue => ("TypeError", "expected a value, got None"),
            Builtin::AllNan => ("ValueError", "All-NaN slice encountered"),
            Builtin::MaskShape => ("IndexError", "boolean index did not match indexed array"),
            Builtin::Axis => ("numpy.exceptions.AxisError", "axis is out of bounds"),
            Builtin::MaskAssign => (
                "ValueError",
                "NumPy boolean array indexing assignment cannot assign the values",
            ),
            Builtin::EmptyFmax => (
                "ValueError",
                "zero-size array to reduction operation fmax which has no identity",
            ),
            Builtin::EmptyFmin => (
                "ValueError",
                "zero-size array to reduction operation fmin which has no identity",
            ),
        }
    }
}

/// What a call raised, as its status word says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The front's exception `n` (a `raise` statement of the function).
    Raised(usize),
    /// One of Python's own.
    Builtin(Builtin),
}

impl Fault {
    /// The status word: `n + 1` for a raise, negative for Python's own.
    pub fn code(self) -> i64 {
        match self {
            Fault::Raised(n) => n as i64 + 1,
            Fault::Builtin(b) => {
                -(Builtin::ALL.iter().position(|x| *x == b).unwrap_or(0) as i64) - 1
            }
        }
    }

    /// The fault a non-zero status word stands for.
    pub fn from_code(code: i64) -> Option<Fault> {
        match code {
            0 => None,
            c if c > 0 => Some(Fault::Raised(c as usize - 1)),
            c => Builtin::ALL
                .get((-c - 1) as usize)
                .map(|b| Fault::Builtin(*b)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fault_codes_round_trip() {
        for f in [
            Fault::Raised(0),
            Fault::Raised(7),
            Fault::Builtin(Builtin::Division),
            Fault::Builtin(Builtin::Index),
        ] {
            assert_eq!(Fault::from_code(f.code()), Some(f));
        }
        assert_eq!(Fault::from_code(0), None);
    }

    #[test]
    fn arrays_flatten_to_address_shape_strides() {
        let t = Ty::Array(ember_jit::ArrayTy::global(
            DType::F32,
            2,
            ember_jit::Layout::A,
        ));
        let l = leaves(&Ty::Tuple(vec![t, Ty::Scalar(DType::C128)])).unwrap();
        assert_eq!(l.len(), 5 + 2);
        assert_eq!(l[0], Leaf::Address);
        assert_eq!(l[5], Leaf::Part(DType::F64));
    }
}
