//! Types of kernel values, with Numba's rules for combining them.

use std::fmt;

use ember_core::dtype::Kind;
use ember_core::DType;

/// Where an array's elements live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Space {
    /// Device memory passed in as an argument.
    Global,
    /// `cuda.shared.array`: one per block.
    Shared,
    /// `cuda.local.array`: one per thread.
    Local,
    /// `cuda.const.array_like` or a global NumPy array: read-only, in the program.
    Const,
}

/// Memory order of an array: `C` (C-contiguous, strides follow from the shape) or `A` (any
/// strides), as Numba's `float32[::1]` and `float32[:]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    C,
    A,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArrayTy {
    pub dtype: DType,
    pub ndim: usize,
    pub layout: Layout,
    pub space: Space,
    /// The shape, when fixed at compile time (shared, local and constant arrays).
    pub fixed: Option<Vec<i64>>,
    /// Elements may sit at addresses not aligned for their C type (a field of a packed
    /// record): loaded and stored byte by byte.
    pub unaligned: bool,
}

impl ArrayTy {
    pub fn global(dtype: DType, ndim: usize, layout: Layout) -> ArrayTy {
        ArrayTy {
            dtype,
            ndim,
            layout,
            space: Space::Global,
            fixed: None,
            unaligned: false,
        }
    }
}

/// A record (Numba's `Record`): one element of a structured dtype, referred to where it
/// lives, so writing a field writes that memory (`r = a[i]; r.x = 1` changes `a`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecordTy {
    /// The structured dtype (an opaque dtype with a record layout).
    pub dtype: DType,
    /// Where the element lives.
    pub space: Space,
    /// The alignment its address is known to have (fields are loaded byte by byte where
    /// their offset from it is not aligned for their type).
    pub align: usize,
}

impl RecordTy {
    /// A record of `dtype` at the start of an element of an array in `space`.
    pub fn element(dtype: DType, space: Space) -> RecordTy {
        let align = record_of(dtype).map_or(1, |r| r.alignment_at(0));
        RecordTy {
            dtype,
            space,
            align,
        }
    }

    /// The field layout (every record type is made from a dtype that has one).
    pub fn layout(&self) -> Option<&'static ember_core::Record> {
        match self.dtype {
            DType::Opaque(o) => o.record(),
            _ => None,
        }
    }
}

/// The record layout of `dtype`, if it is a structured dtype kernels can read.
pub fn record_of(dtype: DType) -> Option<&'static ember_core::Record> {
    match dtype {
        DType::Opaque(o) => o.record(),
        _ => None,
    }
}

/// The type of a value in a kernel.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Scalar(DType),
    Array(ArrayTy),
    Tuple(Vec<Ty>),
    /// A reference to a record.
    Record(RecordTy),
    /// Python's `None`: a function without `return x`, the literal, an argument passed as
    /// `None`. No data.
    None,
    /// A value or `None` (Numba's `Optional`): a variable assigned both, a function returning
    /// both. Held as a flag and the value; using it where the value is needed checks the flag.
    Optional(Box<Ty>),
    /// A cooperative group (`cuda.cg.this_grid()`): no data, only its methods (`sync()`).
    Group,
}

pub const INT64: Ty = Ty::Scalar(DType::I64);
pub const FLOAT64: Ty = Ty::Scalar(DType::F64);
pub const INT32: Ty = Ty::Scalar(DType::I32);
pub const BOOL: Ty = Ty::Scalar(DType::Bool);

impl Ty {
    pub fn scalar(&self) -> Option<DType> {
        match self {
            Ty::Scalar(d) => Some(*d),
            _ => None,
        }
    }

    pub fn is_int(&self) -> bool {
        matches!(self.scalar().map(DType::kind), Some(Kind::Int | Kind::UInt))
    }

    pub fn is_integral(&self) -> bool {
        matches!(
            self.scalar().map(DType::kind),
            Some(Kind::Int | Kind::UInt | Kind::Bool)
        )
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Scalar(d) => f.write_str(d.name()),
            Ty::Array(a) => {
                let space = match a.space {
                    Space::Global => "",
                    Space::Shared => "shared ",
                    Space::Local => "local ",
                    Space::Const => "constant ",
                };
                let layout = match a.layout {
                    Layout::C => "C",
                    Layout::A => "A",
                };
                match record_of(a.dtype) {
                    Some(_) => write!(
                        f,
                        "{space}array(Record({}), {}d, {layout})",
                        a.dtype.name(),
                        a.ndim
                    ),
                    None => write!(f, "{space}array({}, {}d, {layout})", a.dtype.name(), a.ndim),
                }
            }
            Ty::Tuple(items) => {
                f.write_str("(")?;
                for (i, t) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                if items.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str(")")
            }
            Ty::Record(r) => write!(f, "Record({})", r.dtype.name()),
            Ty::None => f.write_str("none"),
            Ty::Optional(t) => write!(f, "OptionalType({t})"),
            Ty::Group => f.write_str("grid_group"),
        }
    }
}

fn bits(d: DType) -> usize {
    d.itemsize() * 8
}

fn int_of(signed: bool, bits: usize) -> DType {
    match (signed, bits) {
        (true, 8) => DType::I8,
        (true, 16) => DType::I16,
        (true, 32) => DType::I32,
        (true, _) => DType::I64,
        (false, 8) => DType::U8,
        (false, 16) => DType::U16,
        (false, 32) => DType::U32,
        (false, _) => DType::U64,
    }
}

/// Numba's integer arithmetic: at least 64 bits; signed when either side is signed.
pub fn int_arith(a: DType, b: DType) -> DType {
    let signed = |d: DType| d.kind() != Kind::UInt;
    let width = bits(a).max(bits(b)).max(64);
    int_of(signed(a) || signed(b), width)
}

/// The dtype of a complex dtype's parts (float32 for complex64, float64 for complex128).
pub fn part_dtype(c: DType) -> DType {
    if c == DType::C64 {
        DType::F32
    } else {
        DType::F64
    }
}

/// NumPy's `promote_types`, which Numba uses for every pair that is not two integers: the
/// table generated from NumPy (ember-codegen's ufuncs), the one array operations use.
pub fn promote(a: DType, b: DType) -> DType {
    ember_codegen::ufuncs::resolve::promote(a, b)
}

/// The type both sides of an arithmetic operator are brought to (Numba's overload choice):
/// two integers widen to 64 bits; an integer with float32 stays float32 only for integers
/// float32 holds exactly by Numba's conversion rules (bool, int8, int16, uint8).
pub fn arith(a: DType, b: DType) -> DType {
    let integral = |d: DType| matches!(d.kind(), Kind::Int | Kind::UInt | Kind::Bool);
    if integral(a) && integral(b) {
        return int_arith(
            if a == DType::Bool { DType::I64 } else { a },
            if b == DType::Bool { DType::I64 } else { b },
        );
    }
    let small = |d: DType| matches!(d, DType::Bool | DType::I8 | DType::I16 | DType::U8);
    match (a, b) {
        (DType::F32, i) | (i, DType::F32) if integral(i) => {
            if small(i) {
                DType::F32
            } else {
                DType::F64
            }
        }
        (c, i) | (i, c) if c.kind() == Kind::Complex && integral(i) => DType::C128,
        _ => promote(a, b),
    }
}

/// The type a variable takes when assigned values of types `a` and `b` (in different
/// branches or iterations): NumPy's `promote_types`, as Numba unifies; `None` when they do
/// not unify.
pub fn unify(a: &Ty, b: &Ty) -> Option<Ty> {
    if a == b {
        return Some(a.clone());
    }
    match (a, b) {
        // Numba unifies no two datetime-like types (nor one with a number).
        (Ty::Scalar(x), Ty::Scalar(y)) if x.datetime().is_some() || y.datetime().is_some() => None,
        (Ty::Scalar(x), Ty::Scalar(y)) => Some(Ty::Scalar(promote(*x, *y))),
        (Ty::Tuple(x), Ty::Tuple(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .map(|(p, q)| unify(p, q))
            .collect::<Option<Vec<_>>>()
            .map(Ty::Tuple),
        // None and a value: either (Numba's Optional).
        (Ty::None, Ty::Optional(_)) => Some(b.clone()),
        (Ty::Optional(_), Ty::None) => Some(a.clone()),
        (Ty::None, t) | (t, Ty::None) if !matches!(t, Ty::Group) => {
            Some(Ty::Optional(Box::new(t.clone())))
        }
        (Ty::Optional(x), Ty::Optional(y)) => Some(Ty::Optional(Box::new(unify(x, y)?))),
        (Ty::Optional(x), t) | (t, Ty::Optional(x)) => Some(Ty::Optional(Box::new(unify(x, t)?))),
        (Ty::Array(x), Ty::Array(y))
            if x.dtype == y.dtype
                && x.ndim == y.ndim
                && x.space == y.space
                && x.fixed == y.fixed
                && x.unaligned == y.unaligned =>
        {
            Some(Ty::Array(ArrayTy {
                layout: Layout::A,
                ..x.clone()
            }))
        }
        _ => None,
    }
}

/// Parses one argument type as Numba writes it: `float32`, `int64[:]`, `float32[:, ::1]`,
/// `f4[:,:]`, `uint8[::1]`, `int32[::1, :, :]` (Fortran order: read by its strides, as
/// any layout).
pub fn parse_arg_type(text: &str) -> Result<Ty, String> {
    let t = text.trim();
    if t == "none" {
        return Ok(Ty::None);
    }
    if let Some(inner) = t
        .strip_prefix("optional(")
        .or_else(|| t.strip_prefix("Optional("))
        .and_then(|x| x.strip_suffix(')'))
    {
        return match parse_arg_type(inner)? {
            Ty::None | Ty::Optional(_) => {
                Err(format!("'{t}': an optional type holds a value type"))
            }
            inner => Ok(Ty::Optional(Box::new(inner))),
        };
    }
    if let Some(ty) = parse_tuple_type(t)? {
        return Ok(ty);
    }
    if let Some(ty) = parse_record_type(t)? {
        return Ok(ty);
    }
    if let Some((dtype, dims)) = parse_datetime_type(t)? {
        return match dims {
            "" => Ok(Ty::Scalar(dtype)),
            d => match d.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
                Some(inner) => array_of(dtype, inner, t),
                None => Err(format!(
                    "'{t}': after a datetime type come its array dimensions, '[:]'"
                )),
            },
        };
    }
    let (base, dims) = match t.find('[') {
        Some(i) => {
            if !t.ends_with(']') {
                return Err(format!("'{t}' is not a type: a '[' without its ']'"));
            }
            (&t[..i], Some(&t[i + 1..t.len() - 1]))
        }
        None => (t, None),
    };
    let dtype = dtype_named(base.trim()).ok_or_else(|| {
        format!(
            "'{}' is not a type ember knows (use a NumPy dtype name such as float32 or int64)",
            base.trim()
        )
    })?;
    let Some(dims) = dims else {
        return Ok(Ty::Scalar(dtype));
    };
    array_of(dtype, dims, t)
}

/// The array type of `dtype` with dimensions `dims` (the text between the brackets).
fn array_of(dtype: DType, dims: &str, t: &str) -> Result<Ty, String> {
    let parts: Vec<&str> = dims.split(',').map(str::trim).collect();
    let mut layout = Layout::A;
    for (i, p) in parts.iter().enumerate() {
        match *p {
            ":" => {}
            "::1" if i + 1 == parts.len() => layout = Layout::C,
            "::1" if i == 0 => {}
            _ => {
                return Err(format!(
                    "'{t}': each dimension of an array type is ':' (or '::1' for the last, meaning C-contiguous, or the first, meaning Fortran-contiguous), got '{p}'"
                ))
            }
        }
    }
    Ok(Ty::Array(ArrayTy::global(dtype, parts.len(), layout)))
}

/// `Record(<dtype name>)`, a record type as ember.types writes it, optionally with array
/// dimensions (`Record(...)[:]`); `None` for any other text.
fn parse_record_type(t: &str) -> Result<Option<Ty>, String> {
    let Some(rest) = t.strip_prefix("Record(") else {
        return Ok(None);
    };
    // The dtype's name has brackets and parentheses of its own: the record's ')' is the one
    // that closes the first '('.
    let mut depth = 1usize;
    let mut close = None;
    for (i, c) in rest.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let close =
        close.ok_or_else(|| format!("'{t}': a Record type is written 'Record(<dtype>)'"))?;
    let name = &rest[..close];
    let dtype = DType::from_name(name)
        .ok()
        .filter(|d| record_of(*d).is_some())
        .ok_or_else(|| {
            format!("'{name}' is not a structured dtype ember knows: make its type with ember.types.from_dtype(dtype)")
        })?;
    let tail = rest[close + 1..].trim();
    if tail.is_empty() {
        return Ok(Some(Ty::Record(RecordTy::element(dtype, Space::Global))));
    }
    match tail.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        Some(dims) => array_of(dtype, dims, t).map(Some),
        None => Err(format!(
            "'{t}': after a Record type come its array dimensions, '[:]'"
        )),
    }
}

/// `datetime64[D]`, `timedelta64[ns]`, `datetime64` (the generic unit), as NumPy and Numba
/// name them: the dtype and the text after it (array dimensions, or nothing); `None` for
/// any other text.
fn parse_datetime_type(t: &str) -> Result<Option<(DType, &str)>, String> {
    use ember_core::datetime::{DateKind, Unit};
    let (kind, rest) = if let Some(r) = t.strip_prefix("datetime64") {
        (DateKind::Datetime, r)
    } else if let Some(r) = t.strip_prefix("timedelta64") {
        (DateKind::Timedelta, r)
    } else {
        return Ok(None);
    };
    // A unit in brackets, unless the brackets hold array dimensions.
    let (unit, rest) = match rest.strip_prefix('[').and_then(|r| r.split_once(']')) {
        Some((u, after)) if !u.contains(':') => {
            let unit = Unit::named(u.trim()).filter(|_| !u.trim().is_empty()).ok_or_else(|| {
                format!("'{t}': '{u}' is not a datetime unit (Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as)")
            })?;
            (unit, after.trim())
        }
        _ => (Unit::GENERIC, rest.trim()),
    };
    let dtype = DType::datetime_of(kind, unit).map_err(|e| e.to_string())?;
    Ok(Some((dtype, rest)))
}

/// `UniTuple(int32 x 2)` and `Tuple(int32, float64)` (as ember.types writes Numba's tuple
/// types); `None` for any other text.
fn parse_tuple_type(t: &str) -> Result<Option<Ty>, String> {
    if let Some(inner) = t
        .strip_prefix("UniTuple(")
        .and_then(|r| r.strip_suffix(')'))
    {
        let (item, count) = inner
            .rsplit_once(" x ")
            .ok_or_else(|| format!("'{t}': a UniTuple is written 'UniTuple(int32 x 2)'"))?;
        let count: usize = count
            .trim()
            .parse()
            .map_err(|_| format!("'{t}': the count of a UniTuple is a number"))?;
        let item = parse_arg_type(item)?;
        return Ok(Some(Ty::Tuple(vec![item; count])));
    }
    let Some(inner) = t.strip_prefix("Tuple(").and_then(|r| r.strip_suffix(')')) else {
        return Ok(None);
    };
    Ok(Some(Ty::Tuple(parse_type_list(inner)?)))
}

/// The types of a comma-separated list (a signature's arguments, a tuple's items), split at
/// the commas outside brackets and parentheses.
fn parse_type_list(inner: &str) -> Result<Vec<Ty>, String> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in inner.char_indices() {
        match c {
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                items.push(parse_arg_type(&inner[start..i])?);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !inner[start..].trim().is_empty() {
        items.push(parse_arg_type(&inner[start..])?);
    }
    Ok(items)
}

/// Parses a Numba signature `void(float32[:], int32)` (or `(float32[:], int32)`) into its
/// return type and argument types.
pub fn parse_signature(text: &str) -> Result<(Option<Ty>, Vec<Ty>), String> {
    let t = text.trim();
    let open = t.find('(').ok_or_else(|| {
        format!("signature '{t}' has no argument list: write e.g. 'void(float32[:], int32)'")
    })?;
    if !t.ends_with(')') {
        return Err(format!("signature '{t}' must end with ')'"));
    }
    let ret = t[..open].trim();
    let ret = match ret {
        "" | "void" | "none" => None,
        r => Some(parse_arg_type(r)?),
    };
    Ok((ret, parse_type_list(&t[open + 1..t.len() - 1])?))
}

/// The dtype of array elements called `name`: a scalar dtype ([`scalar_dtype_named`]), or a
/// registered structured dtype (by NumPy's `str(dtype)`).
pub fn element_dtype_named(name: &str) -> Option<DType> {
    scalar_dtype_named(name).or_else(|| {
        DType::from_name(name)
            .ok()
            .filter(|d| record_of(*d).is_some())
    })
}

/// The dtype of scalars called `name`: a number's ([`dtype_named`]), or a datetime-like one
/// (`datetime64[D]`).
pub fn scalar_dtype_named(name: &str) -> Option<DType> {
    dtype_named(name).or_else(|| match parse_datetime_type(name) {
        Ok(Some((d, ""))) => Some(d),
        _ => None,
    })
}

/// A dtype by NumPy's or Numba's name (`float32`, `f4`, `intp`, `bool_`, `boolean`).
pub fn dtype_named(name: &str) -> Option<DType> {
    Some(match name {
        "bool" | "bool_" | "boolean" | "b1" => DType::Bool,
        "int8" | "i1" | "char" => DType::I8,
        "int16" | "i2" => DType::I16,
        "int32" | "i4" | "intc" => DType::I32,
        "int64" | "i8" | "intp" | "int_" => DType::I64,
        // Numba's byte is unsigned (NumPy's np.byte is not).
        "uint8" | "u1" | "ubyte" | "byte" => DType::U8,
        "uint16" | "u2" => DType::U16,
        "uint32" | "u4" | "uintc" => DType::U32,
        "uint64" | "u8" | "uintp" => DType::U64,
        "float16" | "f2" | "half" => DType::F16,
        "float32" | "f4" | "single" => DType::F32,
        "float64" | "f8" | "double" | "float_" => DType::F64,
        "complex64" | "c8" | "csingle" => DType::C64,
        "complex128" | "c16" | "cdouble" | "complex_" => DType::C128,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_arithmetic_widens_to_64_bits_like_numba() {
        assert_eq!(arith(DType::I32, DType::I32), DType::I64);
        assert_eq!(arith(DType::U32, DType::U8), DType::U64);
        assert_eq!(arith(DType::U64, DType::I64), DType::I64);
        assert_eq!(arith(DType::Bool, DType::Bool), DType::I64);
    }

    #[test]
    fn mixed_kinds_follow_numpy_promotion() {
        assert_eq!(arith(DType::F32, DType::I64), DType::F64);
        assert_eq!(arith(DType::F32, DType::I16), DType::F32);
        assert_eq!(arith(DType::F32, DType::U16), DType::F64);
        assert_eq!(arith(DType::I32, DType::C64), DType::C128);
        assert_eq!(arith(DType::F32, DType::F32), DType::F32);
        assert_eq!(arith(DType::F32, DType::C64), DType::C64);
        assert_eq!(arith(DType::F64, DType::C64), DType::C128);
        assert_eq!(promote(DType::I64, DType::U64), DType::F64);
    }

    #[test]
    fn unification_widens_and_rejects_mismatches() {
        assert_eq!(unify(&INT64, &FLOAT64), Some(FLOAT64));
        assert_eq!(unify(&INT32, &INT64), Some(INT64));
        assert_eq!(unify(&INT64, &Ty::Scalar(DType::U64)), Some(FLOAT64));
        assert_eq!(unify(&BOOL, &INT32), Some(INT32));
        let arr = Ty::Array(ArrayTy::global(DType::F32, 1, Layout::C));
        assert_eq!(unify(&arr, &INT64), None);
        assert_eq!(
            unify(
                &Ty::Tuple(vec![INT64, INT32]),
                &Ty::Tuple(vec![FLOAT64, INT64])
            ),
            Some(Ty::Tuple(vec![FLOAT64, INT64]))
        );
    }

    #[test]
    fn record_types_parse_by_their_dtype_name() {
        let field = |name: &str, offset, dtype, shape: Vec<usize>| ember_core::Field {
            name: name.into(),
            offset,
            dtype,
            shape,
        };
        let name = "[('a', '<i4'), ('b', '<f4', (2,))]";
        let record = ember_core::Record {
            fields: vec![
                field("a", 0, DType::I32, vec![]),
                field("b", 4, DType::F32, vec![2]),
            ],
            itemsize: 12,
            alignment: 1,
        };
        ember_core::Opaque::register_record(name, "|V12", record).unwrap();
        let (_, args) =
            parse_signature(&format!("void(Record({name})[::1], Record({name}), int32)")).unwrap();
        let Ty::Array(a) = &args[0] else {
            panic!("{args:?}")
        };
        assert_eq!(
            (a.layout, record_of(a.dtype).unwrap().itemsize),
            (Layout::C, 12)
        );
        assert_eq!(
            args[1],
            Ty::Record(RecordTy::element(a.dtype, Space::Global))
        );
        assert_eq!(args[2], INT32);
        assert_eq!(args[1].to_string(), format!("Record({name})"));
        let err = parse_arg_type("Record([('zz', '<i4')])").unwrap_err();
        assert!(err.contains("from_dtype"), "{err}");
    }

    #[test]
    fn datetime_types_parse_by_numpys_names() {
        let d = parse_arg_type("datetime64[D]").unwrap();
        assert_eq!(d.to_string(), "datetime64[D]");
        let (_, args) =
            parse_signature("void(datetime64[D][::1], timedelta64[ns], timedelta64[:])").unwrap();
        let Ty::Array(a) = &args[0] else {
            panic!("{args:?}")
        };
        assert_eq!((a.dtype.name(), a.layout), ("datetime64[D]", Layout::C));
        assert_eq!(args[1].to_string(), "timedelta64[ns]");
        assert_eq!(args[2].to_string(), "array(timedelta64, 1d, A)");
        assert!(parse_arg_type("datetime64[Q]")
            .unwrap_err()
            .contains("not a datetime unit"));
        assert_eq!(unify(&d, &INT64), None);
    }

    #[test]
    fn signatures_parse_as_numba_writes_them() {
        let (ret, args) = parse_signature("void(float32[:], float32[:, ::1], int32)").unwrap();
        assert_eq!(ret, None);
        assert_eq!(
            args,
            vec![
                Ty::Array(ArrayTy::global(DType::F32, 1, Layout::A)),
                Ty::Array(ArrayTy::global(DType::F32, 2, Layout::C)),
                INT32
            ]
        );
        assert!(parse_signature("void(float31[:])")
            .unwrap_err()
            .contains("float31"));
        assert!(parse_arg_type("f4[::2]").unwrap_err().contains("::2"));
        // Fortran order is read by its strides; Numba's byte is uint8.
        assert_eq!(
            parse_arg_type("int32[::1, :, :]").unwrap(),
            Ty::Array(ArrayTy::global(DType::I32, 3, Layout::A))
        );
        assert!(parse_arg_type("int32[:, ::1, :]").is_err());
        assert_eq!(parse_arg_type("byte").unwrap(), Ty::Scalar(DType::U8));
    }
}
