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
            DType::F16 => half::f16::from_f64(re).to_bits().to_le_bytes().to_vec(),
            DType::F32 => (re as f32).to_le_bytes().to_vec(),
            DType::F64 => re.to_le_bytes().to_vec(),
            DType::C64 => [(re as f32).to_le_bytes(), (im as f32).to_le_bytes()].concat(),
            DType::C128 => [re.to_le_bytes(), im.to_le_bytes()].concat(),
            _ => int_bytes(re as i128, dtype),
        }
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
    fn complex_parts() {
        let b = Scalar::Complex(1.0, -2.0).to_bytes(DType::C64);
        assert_eq!(b, [1.0f32.to_le_bytes(), (-2.0f32).to_le_bytes()].concat());
        assert_eq!(
            Scalar::Complex(1.0, -2.0).to_bytes(DType::F64),
            1.0f64.to_le_bytes()
        );
    }
}
