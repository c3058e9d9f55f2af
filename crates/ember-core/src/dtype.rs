//! The dtypes of API.md: one table, read by every layer.

use crate::error::{Error, Result};
use crate::opaque::Opaque;

/// Kind of a dtype, as NumPy's `dtype.kind` letter says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Bool,
    Int,
    UInt,
    Float,
    Complex,
    /// A dtype held but not computed on ([`Opaque`]).
    Opaque,
}

macro_rules! dtypes {
    ($( $variant:ident => $name:literal, $size:literal, $kind:ident, $typestr:literal, $dl_code:literal; )*) => {
        /// An element type of an ember array: a numeric dtype of the table below, or an
        /// [`Opaque`] one that arrays hold but nothing computes on.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum DType { $( $variant, )* Opaque(Opaque) }

        /// The numeric dtypes alone, for their positions in [`DType::ALL`].
        #[derive(Clone, Copy)]
        enum Numeric { $( $variant ),* }

        impl DType {
            /// The position of a numeric dtype in [`DType::ALL`] (its row in every per-dtype
            /// table); `None` for an opaque dtype, which no table has.
            pub fn numeric_index(self) -> Option<usize> {
                match self { $( DType::$variant => Some(Numeric::$variant as usize), )* DType::Opaque(_) => None }
            }

            /// The row of a per-dtype table for `self`: its [`numeric_index`](Self::numeric_index),
            /// and uint8's for an opaque dtype. Only tables of storage facts may read an opaque
            /// dtype's row; computations refuse it first ([`DType::numeric`]).
            pub fn row(self) -> usize {
                self.numeric_index().unwrap_or(Numeric::U8 as usize)
            }

            /// Every numeric dtype, in NumPy's order.
            pub const ALL: &'static [DType] = &[ $( DType::$variant ),* ];

            /// NumPy's name (`"float32"`).
            pub fn name(self) -> &'static str {
                match self { $( DType::$variant => $name, )* DType::Opaque(o) => o.name() }
            }

            /// Bytes per element.
            pub fn itemsize(self) -> usize {
                match self { $( DType::$variant => $size, )* DType::Opaque(o) => o.itemsize() }
            }

            /// Family of the type.
            pub fn kind(self) -> Kind {
                match self { $( DType::$variant => Kind::$kind, )* DType::Opaque(_) => Kind::Opaque }
            }

            /// The array-interface type string, little-endian (`"<f4"`).
            pub fn typestr(self) -> &'static str {
                match self { $( DType::$variant => $typestr, )* DType::Opaque(o) => o.typestr() }
            }

            /// DLPack's `DLDataTypeCode` for the type; an error for an opaque one, which DLPack
            /// cannot describe.
            pub fn dlpack_code(self) -> Result<u8> {
                match self {
                    $( DType::$variant => Ok($dl_code), )*
                    DType::Opaque(o) => Err(Error::Type(format!(
                        "DLPack has no dtype {}: view the array as a numeric dtype of its size first",
                        o.name()
                    ))),
                }
            }

            /// Parses NumPy's name of a dtype (an opaque one by the name it was registered under).
            pub fn from_name(name: &str) -> Result<DType> {
                match name {
                    $( $name => Ok(DType::$variant), )*
                    "bool_" => Ok(DType::Bool),
                    other => Opaque::named(other).map(DType::Opaque).ok_or_else(|| Error::Type(format!(
                        "ember has no dtype {other:?}; supported dtypes are {}",
                        DType::ALL.iter().map(|d| d.name()).collect::<Vec<_>>().join(", ")
                    ))),
                }
            }
        }
    };
}

dtypes! {
    Bool => "bool", 1, Bool, "|b1", 6;
    I8 => "int8", 1, Int, "|i1", 0;
    I16 => "int16", 2, Int, "<i2", 0;
    I32 => "int32", 4, Int, "<i4", 0;
    I64 => "int64", 8, Int, "<i8", 0;
    U8 => "uint8", 1, UInt, "|u1", 1;
    U16 => "uint16", 2, UInt, "<u2", 1;
    U32 => "uint32", 4, UInt, "<u4", 1;
    U64 => "uint64", 8, UInt, "<u8", 1;
    F16 => "float16", 2, Float, "<f2", 2;
    BF16 => "bfloat16", 2, Float, "<V2", 4;
    F32 => "float32", 4, Float, "<f4", 2;
    F64 => "float64", 8, Float, "<f8", 2;
    C64 => "complex64", 8, Complex, "<c8", 5;
    C128 => "complex128", 16, Complex, "<c16", 5;
}

impl DType {
    /// The dtype DLPack describes with `(code, bits, lanes)`.
    pub fn from_dlpack(code: u8, bits: u8, lanes: u16) -> Result<DType> {
        let found = DType::ALL
            .iter()
            .copied()
            .find(|d| d.dlpack_code().ok() == Some(code) && d.itemsize() * 8 == bits as usize);
        match found {
            Some(d) if lanes == 1 => Ok(d),
            _ => Err(Error::Type(format!(
                "DLPack dtype (code={code}, bits={bits}, lanes={lanes}) has no ember dtype"
            ))),
        }
    }

    /// True for float16/32/64.
    pub fn is_float(self) -> bool {
        self.kind() == Kind::Float
    }

    /// True for complex64/128.
    pub fn is_complex(self) -> bool {
        self.kind() == Kind::Complex
    }

    /// True for the signed and unsigned integers (not bool).
    pub fn is_integer(self) -> bool {
        matches!(self.kind(), Kind::Int | Kind::UInt)
    }

    /// The smallest and largest values of an integer or bool dtype; `None` for the others.
    pub fn int_bounds(self) -> Option<(i128, i128)> {
        let bits = 8 * self.itemsize() as u32;
        match self.kind() {
            Kind::Bool => Some((0, 1)),
            Kind::Int => Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)),
            Kind::UInt => Some((0, (1i128 << bits) - 1)),
            _ => None,
        }
    }

    /// The dtype arithmetic on its elements is done in: float16 and bfloat16 are stored narrow
    /// and computed in float32 (rounded back after each operation); the others in themselves.
    pub fn compute(self) -> DType {
        match self {
            DType::F16 | DType::BF16 => DType::F32,
            d => d,
        }
    }

    /// True for a float stored in fewer bits than it computes in (float16).
    pub fn is_narrow(self) -> bool {
        self.compute() != self
    }

    /// `v` as the bits of a narrow float, rounded to nearest even; `None` for other dtypes.
    pub fn narrow_bits(self, v: f64) -> Option<u16> {
        match self {
            DType::F16 => Some(half::f16::from_f64(v).to_bits()),
            DType::BF16 => Some(half::bf16::from_f64(v).to_bits()),
            _ => None,
        }
    }

    /// The value of a narrow float's `bits`; `None` for other dtypes.
    pub fn from_narrow_bits(self, bits: u16) -> Option<f64> {
        match self {
            DType::F16 => Some(half::f16::from_bits(bits).to_f64()),
            DType::BF16 => Some(half::bf16::from_bits(bits).to_f64()),
            _ => None,
        }
    }

    /// `v` rounded to the nearest value of a narrow float (as NumPy converts a Python float to
    /// float16: `1e5` becomes `inf`); `v` itself for other dtypes.
    pub fn round_narrow(self, v: f64) -> f64 {
        self.narrow_bits(v)
            .and_then(|b| self.from_narrow_bits(b))
            .unwrap_or(v)
    }

    /// True for a dtype ember holds but does not compute on ([`Opaque`]).
    pub fn is_opaque(self) -> bool {
        matches!(self, DType::Opaque(_))
    }

    /// `Ok(self)` for a numeric dtype; for an opaque one, the `TypeError` every computation
    /// gives, saying how to compute on the bytes. `what` names the computation.
    pub fn numeric(self, what: &str) -> Result<DType> {
        match self {
            DType::Opaque(o) => {
                let same_size = match o.itemsize() {
                    1 => Some("uint8"),
                    2 => Some("uint16"),
                    4 => Some("uint32"),
                    8 => Some("int64"),
                    _ => None,
                };
                let view = match same_size {
                    Some(d) => format!("a numeric dtype of the same size first, e.g. a.view('{d}')"),
                    None => format!(
                        "bytes first: a.view('uint8') gives each element's {} bytes along the last axis",
                        o.itemsize()
                    ),
                };
                Err(Error::Type(format!(
                    "{what} is not supported for dtype {}: ember holds such arrays (to move, view and copy) but does not compute on them; view the array as {view}",
                    o.name()
                )))
            }
            d => Ok(d),
        }
    }

    /// The numeric dtype whose loads and stores carry this dtype's bytes unchanged, for kernels
    /// that only move elements (gathers, compaction): itself for most numeric dtypes, uint16
    /// for the narrow floats (whose loads convert), for an opaque dtype the unsigned integer of
    /// its size or complex128 for 16 bytes; `None` for an opaque dtype of any other size.
    pub fn mover(self) -> Option<DType> {
        match self {
            DType::F16 | DType::BF16 => Some(DType::U16),
            DType::Opaque(o) => match o.itemsize() {
                1 => Some(DType::U8),
                2 => Some(DType::U16),
                4 => Some(DType::U32),
                8 => Some(DType::U64),
                16 => Some(DType::C128),
                _ => None,
            },
            d => Some(d),
        }
    }

    /// The unsigned integer type as wide as `self` (for wrapping arithmetic on its bits).
    pub fn unsigned_twin(self) -> DType {
        match self.itemsize() {
            1 => DType::U8,
            2 => DType::U16,
            4 => DType::U32,
            _ => DType::U64,
        }
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &d in DType::ALL {
            assert_eq!(DType::from_name(d.name()).unwrap(), d);
        }
        assert_eq!(DType::from_name("bool_").unwrap(), DType::Bool);
    }

    #[test]
    fn unknown_name_lists_supported() {
        let err = DType::from_name("float128").unwrap_err().to_string();
        assert!(
            err.contains("float128") && err.contains("complex64"),
            "{err}"
        );
    }

    #[test]
    fn dlpack_codes_round_trip() {
        for &d in DType::ALL {
            let bits = (d.itemsize() * 8) as u8;
            assert_eq!(
                DType::from_dlpack(d.dlpack_code().unwrap(), bits, 1).unwrap(),
                d
            );
        }
        assert!(DType::from_dlpack(2, 32, 4).is_err());
    }
}
