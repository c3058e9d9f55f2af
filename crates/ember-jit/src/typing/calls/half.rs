//! `cuda.fp16.*`: Numba's float16 functions (`hadd`, `hfma`, `hlt`, `hsin`...). Each works
//! on float16 values as ember's float16 arithmetic does: on CUDA `hadd/hsub/hmul/hfma/hneg/
//! habs` are the f16 instructions (correctly rounded); others, and all elsewhere, computed in
//! float32 and rounded to float16 once (exact for `+ - * /` and `sqrt`, whose float32 results
//! round to the correctly rounded float16).

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{BinOp, CmpOp, Expr, Span};
use crate::error::{at, R};
use crate::ir::{Const, ExprKind as K, NanRule, UnaryOp};
use crate::types::{Ty, BOOL};
use crate::typing::{FnTyper, Val};

const HALF: Ty = Ty::Scalar(DType::F16);

impl FnTyper<'_, '_> {
    /// `cuda.fp16.<f>(args)`.
    pub(super) fn fp16(&mut self, f: &str, args: &[Expr], span: Span) -> R<Val> {
        let name = format!("cuda.fp16.{f}");
        let vals = self.values(args)?;
        let n = match f {
            "hadd" | "hsub" | "hmul" | "hdiv" | "heq" | "hne" | "hge" | "hgt" | "hle" | "hlt"
            | "hmax" | "hmin" => 2,
            "hfma" => 3,
            _ => 1,
        };
        if vals.len() != n {
            return at(
                span,
                format!("{name}() takes {n} argument(s), {} given", vals.len()),
            );
        }
        let mut xs = Vec::new();
        for v in &vals {
            match v.ty.scalar() {
                Some(d) if d.kind() != Kind::Complex => xs.push(self.cast_to(v, DType::F16)),
                _ => {
                    return at(
                        span,
                        format!("{name}() takes float16 numbers, got {}", v.ty),
                    )
                }
            }
        }
        self.c.uses.dtypes.insert(DType::F16);
        let cmp = |op| Ok(Val::new(BOOL, K::Compare(op, xs[0].boxed(), xs[1].boxed())));
        let math = |c: &'static str, xs: &[Val]| {
            Val::new(HALF, K::Math(c, xs.iter().map(Val::expr).collect()))
        };
        let v = match f {
            // CUDA's __hadd/__hsub/__hmul (its f16 instructions, which may contract where
            // the operators do not); elsewhere the operators.
            "hadd" => math("hadd", &xs),
            "hsub" => math("hsub", &xs),
            "hmul" => math("hmul", &xs),
            "hdiv" => return self.binop(BinOp::Div, xs[0].clone(), xs[1].clone(), span),
            "heq" => return cmp(CmpOp::Eq),
            "hne" => return cmp(CmpOp::NotEq),
            "hge" => return cmp(CmpOp::GtE),
            "hgt" => return cmp(CmpOp::Gt),
            "hle" => return cmp(CmpOp::LtE),
            "hlt" => return cmp(CmpOp::Lt),
            // CUDA's __hmax/__hmin: a NaN gives the other operand (fmax's rule).
            "hmax" | "hmin" => {
                return Ok(Val::new(
                    HALF,
                    K::Extremum {
                        max: f == "hmax",
                        rule: NanRule::Ignore,
                        args: Box::new([xs[0].expr(), xs[1].expr()]),
                    },
                ))
            }
            // Exact: no rounding.
            "hneg" => return Ok(Val::new(HALF, K::Unary(UnaryOp::Neg, xs[0].boxed()))),
            "habs" => return Ok(Val::new(HALF, K::Abs(xs[0].boxed())).nonneg(true)),
            "hfma" => math("fma", &xs),
            "hrcp" => {
                let one = Val::constant(HALF, Const::Float(1.0));
                return self.binop(BinOp::Div, one, xs[0].clone(), span);
            }
            _ => {
                let c = match f {
                    "hsin" => "sin",
                    "hcos" => "cos",
                    "hlog" => "log",
                    "hlog2" => "log2",
                    "hlog10" => "log10",
                    "hexp" => "exp",
                    "hexp2" => "exp2",
                    "hexp10" => "exp10",
                    "hsqrt" => "sqrt",
                    "hrsqrt" => "rsqrt",
                    "hceil" => "ceil",
                    "hfloor" => "floor",
                    "htrunc" => "trunc",
                    "hrint" => "rint",
                    _ => return at(span, format!("{name} is not supported in kernels")),
                };
                math(c, &xs)
            }
        };
        Ok(self.round_narrow(v))
    }
}
