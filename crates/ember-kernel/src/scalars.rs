//! Scalars as the parameter bytes of generated kernels (array operations, fusion,
//! ElementwiseKernel and ReductionKernel, `@jit` kernels): the one place that decides how a
//! host value reaches a kernel and which values NumPy refuses.

use ember_codegen::types::param_dtype;
use ember_core::dtype::Kind;
use ember_core::{DType, Error, Result, Scalar};

/// A scalar parameter's bytes, inline (at most a complex128).
pub type ScalarBytes = smallvec::SmallVec<[u8; 16]>;

/// `value` as the parameter of a generated kernel that takes a `dtype`, converted as NumPy's
/// `astype` converts: a narrow float (float16) travels as a float holding the nearest value of
/// its dtype (NumPy converts first: `1e5` becomes `inf`).
pub fn param_bytes(value: Scalar, dtype: DType) -> ScalarBytes {
    let value = match value {
        Scalar::Float(v) if dtype.is_narrow() => Scalar::Float(dtype.round_narrow(v)),
        Scalar::Int(v) if dtype.is_narrow() => Scalar::Float(dtype.round_narrow(v as f64)),
        Scalar::UInt(v) if dtype.is_narrow() => Scalar::Float(dtype.round_narrow(v as f64)),
        v => v,
    };
    let mut bytes = [0u8; 16];
    let n = value.write_bytes(param_dtype(dtype), &mut bytes);
    ScalarBytes::from_slice(&bytes[..n])
}

/// [`param_bytes`], refusing what NumPy 2 refuses. `python` is the kind of Python scalar the
/// value was (`None` for a NumPy scalar, which converts as `astype` does): a Python int outside
/// an integer dtype's range is an `OverflowError` in NumPy's words (ints past 64 bits arrive
/// as their nearest float), and NaN or an infinity for an integer a `ValueError`.
pub fn scalar_param(value: Scalar, python: Option<Kind>, dtype: DType) -> Result<ScalarBytes> {
    if matches!(dtype.kind(), Kind::Int | Kind::UInt) {
        let python_int = python == Some(Kind::Int);
        match value {
            Scalar::Float(_) if python_int => {
                return Err(Error::Overflow(
                    "Python int too large to convert to C long".into(),
                ));
            }
            Scalar::Float(f) if !f.is_finite() => {
                let f = if f.is_nan() {
                    "NaN"
                } else if f > 0.0 {
                    "infinity"
                } else {
                    "-infinity"
                };
                return Err(Error::Value(format!("cannot convert float {f} to integer")));
            }
            Scalar::Int(_) | Scalar::UInt(_) if python_int => {
                let v = match value {
                    Scalar::Int(i) => i as i128,
                    Scalar::UInt(u) => u as i128,
                    _ => unreachable!("matched above"),
                };
                let (lo, hi) = dtype.int_bounds().unwrap_or((i128::MIN, i128::MAX));
                if !(lo..=hi).contains(&v) {
                    return Err(Error::Overflow(format!(
                        "Python integer {v} out of bounds for {}",
                        dtype.name()
                    )));
                }
            }
            _ => {}
        }
    }
    Ok(param_bytes(value, dtype))
}

#[cfg(test)]
mod tests {
    use super::*;

    const INT: Option<Kind> = Some(Kind::Int);

    #[test]
    fn float16_parameters_travel_as_float_holding_the_nearest_float16() {
        let b = param_bytes(Scalar::Float(1e5), DType::F16);
        assert_eq!(b.as_slice(), f32::INFINITY.to_le_bytes());
        let b = param_bytes(Scalar::Float(0.1), DType::F16);
        let nearest = half::f16::from_f64(0.1).to_f32();
        assert_eq!(b.as_slice(), nearest.to_le_bytes());
        assert_eq!(
            param_bytes(Scalar::Int(3), DType::F16).as_slice(),
            3f32.to_le_bytes()
        );
    }

    #[test]
    fn python_ints_must_fit_an_integer_parameter_as_numpy_2_says() {
        let e = scalar_param(Scalar::Int(300), INT, DType::I8).unwrap_err();
        assert!(
            matches!(&e, Error::Overflow(m) if m == "Python integer 300 out of bounds for int8"),
            "{e:?}"
        );
        let e = scalar_param(Scalar::Int(-1), INT, DType::U32).unwrap_err();
        assert!(matches!(&e, Error::Overflow(m) if m.contains("-1 out of bounds for uint32")));
        let e = scalar_param(Scalar::Float(2f64.powi(70)), INT, DType::I64).unwrap_err();
        assert!(
            matches!(&e, Error::Overflow(m) if m.contains("too large")),
            "{e:?}"
        );
        assert_eq!(
            scalar_param(Scalar::UInt(u64::MAX), INT, DType::U64)
                .unwrap()
                .as_slice(),
            u64::MAX.to_le_bytes()
        );
        assert_eq!(
            scalar_param(Scalar::Int(-128), INT, DType::I8)
                .unwrap()
                .as_slice(),
            [0x80]
        );
    }

    #[test]
    fn numpy_scalars_convert_as_astype_and_floats_need_a_finite_value() {
        // A NumPy int64 for an int8 parameter wraps as `astype` does.
        assert_eq!(
            scalar_param(Scalar::Int(300), None, DType::I8)
                .unwrap()
                .as_slice(),
            [44]
        );
        let e = scalar_param(Scalar::Float(f64::NAN), None, DType::I32).unwrap_err();
        assert!(
            matches!(&e, Error::Value(m) if m.contains("cannot convert float NaN")),
            "{e:?}"
        );
        let e =
            scalar_param(Scalar::Float(f64::INFINITY), Some(Kind::Float), DType::I8).unwrap_err();
        assert!(
            matches!(&e, Error::Value(m) if m.contains("float infinity")),
            "{e:?}"
        );
        // A Python float for an integer parameter truncates, as NumPy's assignment does.
        assert_eq!(
            scalar_param(Scalar::Float(3.0), Some(Kind::Float), DType::I8)
                .unwrap()
                .as_slice(),
            [3]
        );
        assert_eq!(
            scalar_param(Scalar::Float(-2.7), None, DType::I16)
                .unwrap()
                .as_slice(),
            (-2i16).to_le_bytes()
        );
    }
}
