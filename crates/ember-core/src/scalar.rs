//! A host scalar, and its bytes in a given dtype (for kernel arguments and fills).

use crate::dtype::DType;

/// A value from the host, before it is given a dtype.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Complex(f64, f64),
}

impl Scalar {
    /// The kind of number this is (a Python scalar's kind: `bool`, `int`, `float`, `complex`).
    pub fn kind(self) -> crate::dtype::Kind {
        use crate::dtype::Kind;
        match self {
            Scalar::Bool(_) => Kind::Bool,
            Scalar::Int(_) | Scalar::UInt(_) => Kind::Int,
            Scalar::Float(_) => Kind::Float,
            Scalar::Complex(..) => Kind::Complex,
        }
    }

    /// The value's little-endian bytes as an element of `dtype`, converted as NumPy's
    /// `np.array(value).astype(dtype)` does for in-range values (floats truncate toward zero,
    /// complex keeps the real part when the target is real).
    pub fn to_bytes(self, dtype: DType) -> Vec<u8> {
        let (re, im) = match self {
            Scalar::Bool(b) => (b as u8 as f64, 0.0),
            Scalar::Int(i) => return int_bytes(i as i128, dtype),
            Scalar::UInt(u) => return int_bytes(u as i128, dtype),
            Scalar::Float(f) => (f, 0.0),
            Scalar::Complex(r, i) => (r, i),
        };
        match dtype {
            DType::Bool => vec![(re != 0.0 || im != 0.0) as u8],
            d if d.is_narrow() => d.narrow_bits(re).unwrap_or(0).to_le_bytes().to_vec(),
            DType::F32 => (re as f32).to_le_bytes().to_vec(),
            DType::F64 => re.to_le_bytes().to_vec(),
            DType::C64 => [(re as f32).to_le_bytes(), (im as f32).to_le_bytes()].concat(),
            DType::C128 => [re.to_le_bytes(), im.to_le_bytes()].concat(),
            _ => int_bytes(re as i128, dtype),
        }
    }
}

impl Scalar {
    /// [`Scalar::to_bytes`] into a fixed buffer (no allocation); returns the byte count.
    pub fn write_bytes(self, dtype: DType, out: &mut [u8; 16]) -> usize {
        let n = dtype.itemsize();
        match self {
            Scalar::Int(i)
                if !matches!(
                    dtype.kind(),
                    crate::dtype::Kind::Float
                        | crate::dtype::Kind::Complex
                        | crate::dtype::Kind::Bool
                ) =>
            {
                out[..n].copy_from_slice(&(i as i128).to_le_bytes()[..n]);
            }
            Scalar::Float(f) if dtype == DType::F32 => {
                out[..4].copy_from_slice(&(f as f32).to_le_bytes())
            }
            Scalar::Float(f) if dtype == DType::F64 => out[..8].copy_from_slice(&f.to_le_bytes()),
            other => out[..n].copy_from_slice(&other.to_bytes(dtype)),
        }
        n
    }
}

/// Integer value to `dtype`, wrapping like a C cast for integer targets.
fn int_bytes(v: i128, dtype: DType) -> Vec<u8> {
    match dtype {
        DType::Bool => vec![(v != 0) as u8],
        DType::F16 | DType::F32 | DType::F64 | DType::C64 | DType::C128 => {
            Scalar::Float(v as f64).to_bytes(dtype)
        }
        _ => v.to_le_bytes()[..dtype.itemsize()].to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_to_each_dtype() {
        assert_eq!(
            Scalar::Float(2.5).to_bytes(DType::F32),
            2.5f32.to_le_bytes()
        );
        assert_eq!(
            Scalar::Float(-3.7).to_bytes(DType::I16),
            (-3i16).to_le_bytes()
        );
        assert_eq!(
            Scalar::Float(1.5).to_bytes(DType::F16),
            0x3E00u16.to_le_bytes()
        );
        assert_eq!(Scalar::Float(0.0).to_bytes(DType::Bool), [0]);
    }

    #[test]
    fn ints_wrap_like_c() {
        assert_eq!(Scalar::Int(-1).to_bytes(DType::U8), [255]);
        assert_eq!(Scalar::Int(300).to_bytes(DType::U8), [44]);
        assert_eq!(
            Scalar::UInt(u64::MAX).to_bytes(DType::U64),
            u64::MAX.to_le_bytes()
        );
    }

    #[test]
    fn write_bytes_matches_to_bytes() {
        for (s, d) in [
            (Scalar::Int(-7), DType::I16),
            (Scalar::Float(2.5), DType::F32),
            (Scalar::Bool(true), DType::F64),
            (Scalar::UInt(9), DType::U64),
        ] {
            let mut out = [0u8; 16];
            let n = s.write_bytes(d, &mut out);
            assert_eq!(&out[..n], s.to_bytes(d).as_slice());
        }
    }

    #[test]
    fn complex_parts() {
        let b = Scalar::Complex(1.0, -2.0).to_bytes(DType::C64);
        assert_eq!(b, [1.0f32.to_le_bytes(), (-2.0f32).to_le_bytes()].concat());
        assert_eq!(
            Scalar::Complex(1.0, -2.0).to_bytes(DType::F64),
            1.0f64.to_le_bytes()
        );
    }
}
