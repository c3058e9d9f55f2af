//! Constants as C literals of their type.

use ember_codegen::types::value_type;
use ember_core::DType;

use super::Emitter;
use crate::ir::Const;

impl Emitter<'_> {
    pub(crate) fn int64_literal(&self, v: i64) -> String {
        let suffix = self.dialect.table().int64_suffix;
        if v == i64::MIN {
            format!("(-9223372036854775807{suffix} - 1)")
        } else {
            format!("{v}{suffix}")
        }
    }

    pub(crate) fn float_literal(&self, x: f64, d: DType) -> String {
        let f32 = d.compute() == DType::F32;
        if x.is_nan() {
            return if f32 { "(0.0f/0.0f)" } else { "(0.0/0.0)" }.into();
        }
        if x.is_infinite() {
            let inf = if f32 { "(1.0f/0.0f)" } else { "(1.0/0.0)" };
            return if x > 0.0 {
                inf.into()
            } else {
                format!("(-{inf})")
            };
        }
        let text = if f32 {
            format!("{:?}f", x as f32)
        } else {
            format!("{x:?}")
        };
        if x < 0.0 {
            format!("({text})")
        } else {
            text
        }
    }

    /// Constant `c` of dtype `d`.
    pub(crate) fn constant(&self, c: &Const, d: DType) -> String {
        let t = value_type(d, self.dialect);
        match *c {
            Const::Int(v) => self.int64_literal(v),
            Const::Count(n) => n.to_string(),
            Const::Typed(v) if d == DType::U64 => format!("(({t}){v}u)"),
            Const::Typed(v) if v < 0 => format!("(({t})({}))", self.int64_literal(v as i64)),
            Const::Typed(v) => format!("(({t}){v})"),
            Const::Zero => format!("(({t})0)"),
            Const::Float(x) => self.float_literal(x, d),
            Const::Bool(b) => format!("((unsigned char){})", b as u8),
            Const::Complex(re, im) => {
                let part = if d == DType::C64 {
                    DType::F32
                } else {
                    DType::F64
                };
                format!(
                    "ember_make_{}({}, {})",
                    d.name(),
                    self.float_literal(re, part),
                    self.float_literal(im, part)
                )
            }
        }
    }
}
