//! NumPy 2's `result_type` of arrays and scalars, from the generated promotion tables:
//! arrays and NumPy scalars promote by their dtypes (`promote_types`); Python int, float and
//! complex are *weak* (NEP 50): only their kind counts, and a kind the other operands
//! already reach takes their precision.

use ember_core::dtype::Kind;
use ember_core::{DType, Error, Result};

use crate::ufunc::resolve::{can_cast_safely, can_cast_same_kind, promote, OperandType};

/// The dtype NumPy gives a weak Python scalar of `kind` on its own (`np.asarray(1.0)`).
/// No Python scalar is of the opaque kind.
pub(crate) fn default_of(kind: Kind) -> DType {
    match kind {
        Kind::Bool | Kind::Opaque => DType::Bool,
        Kind::Int | Kind::UInt => DType::I64,
        Kind::Float => DType::F64,
        Kind::Complex => DType::C128,
    }
}

/// The order of kinds in promotion: bool < integer < float < complex.
fn rank(kind: Kind) -> u8 {
    match kind {
        Kind::Bool | Kind::Opaque => 0,
        Kind::Int | Kind::UInt => 1,
        Kind::Float => 2,
        Kind::Complex => 3,
    }
}

/// `dtype` promoted with a weak Python scalar of `kind` (NEP 50): `dtype` itself when its
/// kind is at least the scalar's; a float dtype meeting a complex scalar becomes the complex
/// of its precision (its promotion with complex64: float16 and float32 give complex64);
/// otherwise its promotion with the scalar's default dtype.
fn with_weak(dtype: DType, kind: Kind) -> DType {
    if rank(dtype.kind()) >= rank(kind) {
        return dtype;
    }
    match (dtype.kind(), kind) {
        (Kind::Float, Kind::Complex) => promote(dtype, DType::C64),
        _ => promote(dtype, default_of(kind)),
    }
}

/// `np.result_type` of `operands` (at least one).
pub fn result_type(operands: &[OperandType]) -> Result<DType> {
    let strong = operands.iter().filter_map(|o| match o {
        OperandType::Strong(d) => Some(*d),
        OperandType::Weak(_) => None,
    });
    let weak = operands.iter().filter_map(|o| match o {
        OperandType::Weak(k) => Some(*k),
        OperandType::Strong(_) => None,
    });
    let opaque = operands.iter().find_map(|o| match o {
        OperandType::Strong(d) if d.is_opaque() => Some(*d),
        _ => None,
    });
    if let Some(opaque) = opaque {
        // An opaque dtype meets only itself (concatenating datetime64 arrays); anything
        // else is a computation on it, which `numeric` refuses.
        if operands.iter().all(|o| *o == OperandType::Strong(opaque)) {
            return Ok(opaque);
        }
        return opaque.numeric("type promotion");
    }
    let strongest = strong.reduce(promote);
    let weakest = weak.max_by_key(|&k| rank(k));
    match (strongest, weakest) {
        (Some(d), Some(k)) => Ok(with_weak(d, k)),
        (Some(d), None) => Ok(d),
        (None, Some(k)) => Ok(default_of(k)),
        (None, None) => Err(Error::Value(
            "at least one array or dtype is required".into(),
        )),
    }
}

/// NumPy's casting rules (`casting=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Casting {
    No,
    Equiv,
    Safe,
    SameKind,
    Unsafe,
}

impl Casting {
    /// `casting=` as NumPy reads it.
    pub fn parse(text: &str) -> Result<Casting> {
        Ok(match text {
            "no" => Casting::No,
            "equiv" => Casting::Equiv,
            "safe" => Casting::Safe,
            "same_kind" => Casting::SameKind,
            "unsafe" => Casting::Unsafe,
            other => {
                return Err(Error::Value(format!(
                    "casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe' (got '{other}')"
                )))
            }
        })
    }

    /// Its name, as NumPy spells it in messages.
    pub fn name(self) -> &'static str {
        match self {
            Casting::No => "no",
            Casting::Equiv => "equiv",
            Casting::Safe => "safe",
            Casting::SameKind => "same_kind",
            Casting::Unsafe => "unsafe",
        }
    }

    /// `np.can_cast(from, to, casting)`.
    pub fn allows(self, from: DType, to: DType) -> bool {
        match self {
            Casting::No | Casting::Equiv => from == to,
            Casting::Safe => can_cast_safely(from, to),
            Casting::SameKind => can_cast_same_kind(from, to),
            Casting::Unsafe => true,
        }
    }

    /// [`Casting::allows`], else NumPy's `TypeError` for an array assignment.
    pub fn check(self, from: DType, to: DType) -> Result<()> {
        if self.allows(from, to) {
            return Ok(());
        }
        Err(Error::Type(format!(
            "Cannot cast array data from dtype('{}') to dtype('{}') according to the rule '{}'",
            from.name(),
            to.name(),
            self.name()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ufunc::resolve::{find_loop, ufunc};
    use OperandType::{Strong, Weak};

    const WEAK: [Kind; 3] = [Kind::Int, Kind::Float, Kind::Complex];

    #[test]
    fn weak_scalars_follow_nep_50() {
        let rt = |ops: &[OperandType]| result_type(ops).unwrap();
        assert_eq!(rt(&[Strong(DType::I8), Weak(Kind::Int)]), DType::I8);
        assert_eq!(rt(&[Strong(DType::I8), Weak(Kind::Float)]), DType::F64);
        assert_eq!(rt(&[Strong(DType::F16), Weak(Kind::Complex)]), DType::C64);
        assert_eq!(rt(&[Strong(DType::F64), Weak(Kind::Complex)]), DType::C128);
        assert_eq!(rt(&[Strong(DType::Bool), Weak(Kind::Int)]), DType::I64);
        assert_eq!(rt(&[Strong(DType::U8), Weak(Kind::Int)]), DType::U8);
        assert_eq!(rt(&[Weak(Kind::Int), Weak(Kind::Float)]), DType::F64);
        assert_eq!(rt(&[Weak(Kind::Int), Weak(Kind::Int)]), DType::I64);
        assert_eq!(rt(&[Strong(DType::I8), Strong(DType::U8)]), DType::I16);
        assert_eq!(
            rt(&[Strong(DType::I8), Strong(DType::U8), Weak(Kind::Float)]),
            DType::F64
        );
        assert!(result_type(&[]).is_err());
    }

    /// NumPy's `add` finds its loop by `result_type`, and it has a loop for every dtype: its
    /// generated table is an independent record of the same promotion, weak scalars included.
    #[test]
    fn result_type_agrees_with_the_generated_add_table() {
        let add = ufunc("add").unwrap();
        let mut types: Vec<OperandType> = DType::ALL.iter().map(|&d| Strong(d)).collect();
        types.extend(WEAK.iter().map(|&k| Weak(k)));
        for &a in &types {
            for &b in &types {
                let (_, outs) = find_loop(add, &[a, b], None).unwrap();
                assert_eq!(result_type(&[a, b]).unwrap(), outs[0], "{a:?} with {b:?}");
            }
        }
    }

    #[test]
    fn casting_rules_and_their_message() {
        assert!(Casting::SameKind.allows(DType::F64, DType::F32));
        assert!(!Casting::Safe.allows(DType::F64, DType::F32));
        assert!(!Casting::SameKind.allows(DType::F64, DType::I8));
        assert!(Casting::Unsafe.allows(DType::C128, DType::Bool));
        assert_eq!(
            Casting::SameKind.check(DType::F64, DType::I8).unwrap_err().to_string(),
            "Cannot cast array data from dtype('float64') to dtype('int8') according to the rule 'same_kind'"
        );
        assert_eq!(
            Casting::parse("bogus").unwrap_err().to_string(),
            "casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe' (got 'bogus')"
        );
    }
}
