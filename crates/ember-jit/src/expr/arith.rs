//! Arithmetic and unary operators, by Numba's typing rules.

use ember_codegen::types::{round_call, value_type};
use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{BinOp, Span, UnaryOp};
use crate::error::{at, R};
use crate::function::{FnCompiler, Val};
use crate::helpers::Helper;
use crate::types::{arith, Ty, BOOL};

impl FnCompiler<'_, '_> {
    /// `l op r`; a float16 result is rounded to float16, as each float16 operation rounds.
    pub(crate) fn binop(&mut self, op: BinOp, l: Val, r: Val, span: Span) -> R<Val> {
        let v = self.binop_unrounded(op, l, r, span)?;
        Ok(self.round_narrow(v))
    }

    /// `v` rounded to its dtype when it is a narrow float (float16) computed in float.
    pub(crate) fn round_narrow(&mut self, v: Val) -> Val {
        let Some(d) = v.ty.scalar().filter(|d| d.is_narrow()) else {
            return v;
        };
        self.c.helpers.insert(Helper::Round(d));
        let nonneg = v.nonneg;
        Val::new(v.ty, round_call(d, &v.code)).nonneg(nonneg)
    }

    fn binop_unrounded(&mut self, op: BinOp, l: Val, r: Val, span: Span) -> R<Val> {
        if op == BinOp::MatMult {
            return at(
                span,
                "the @ operator is not supported in kernels; write the loop",
            );
        }
        if let (Ty::Tuple(a), Ty::Tuple(b), BinOp::Add) = (&l.ty, &r.ty, op) {
            // Tuple concatenation.
            let (a, b) = (a.clone(), b.clone());
            let (lt, rt) = (self.temp(&l)?, self.temp(&r)?);
            let mut items = Vec::new();
            for (i, t) in a.into_iter().enumerate() {
                items.push(Val::new(t, format!("{}.f{i}", lt.code)));
            }
            for (i, t) in b.into_iter().enumerate() {
                items.push(Val::new(t, format!("{}.f{i}", rt.code)));
            }
            return Ok(self.make_tuple(items));
        }
        let what = format!("operator {}", op.symbol());
        let (a, b) = match (l.ty.scalar(), r.ty.scalar()) {
            (Some(a), Some(b)) => (a, b),
            _ => {
                return at(
                    span,
                    format!(
                        "unsupported operand types for {}: {} and {}{}",
                        op.symbol(),
                        l.ty,
                        r.ty,
                        if matches!(l.ty, Ty::Array(_)) || matches!(r.ty, Ty::Array(_)) {
                            " (whole-array arithmetic is not available inside kernels: index the elements)"
                        } else {
                            ""
                        }
                    ),
                )
            }
        };
        let _ = &what;
        let integral = |d: DType| matches!(d.kind(), Kind::Int | Kind::UInt | Kind::Bool);
        let complex = |d: DType| d.kind() == Kind::Complex;
        let nonneg = l.nonneg && r.nonneg;
        match op {
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                if !integral(a) || !integral(b) {
                    return at(
                        span,
                        format!(
                            "operator {} needs integers or booleans, got {} and {}",
                            op.symbol(),
                            l.ty,
                            r.ty
                        ),
                    );
                }
                let t = if a == DType::Bool && b == DType::Bool {
                    DType::Bool
                } else {
                    arith(a, b)
                };
                let (x, y) = (self.cast_to(&l, t), self.cast_to(&r, t));
                Ok(Val::new(Ty::Scalar(t), format!("({x} {} {y})", op.symbol())).nonneg(nonneg))
            }
            BinOp::LShift | BinOp::RShift => {
                if !integral(a) || !integral(b) {
                    return at(
                        span,
                        format!(
                            "operator {} needs integers, got {} and {}",
                            op.symbol(),
                            l.ty,
                            r.ty
                        ),
                    );
                }
                let t = if a.kind() == Kind::UInt {
                    DType::U64
                } else {
                    DType::I64
                };
                let (x, y) = (self.cast_to(&l, t), self.cast_to(&r, t));
                let nonneg = op == BinOp::RShift && l.nonneg;
                Ok(Val::new(Ty::Scalar(t), format!("({x} {} {y})", op.symbol())).nonneg(nonneg))
            }
            BinOp::Div => {
                let t = match arith(a, b) {
                    d if integral(d) => DType::F64,
                    d => d,
                };
                self.arith_op(&l, &r, t, "/", nonneg)
            }
            BinOp::Add | BinOp::Sub | BinOp::Mult => {
                let t = arith(a, b);
                let sym = op.symbol();
                if complex(t) && op == BinOp::Mult {
                    return Ok(self.complex_call("ember_cmul", &l, &r, t));
                }
                let nonneg = nonneg && op != BinOp::Sub;
                self.arith_op(&l, &r, t, sym, nonneg)
            }
            BinOp::FloorDiv | BinOp::Mod => {
                let t = arith(a, b);
                if complex(t) {
                    return at(
                        span,
                        format!(
                            "operator {} is not defined for complex numbers",
                            op.symbol()
                        ),
                    );
                }
                let (helper, name) = if op == BinOp::FloorDiv {
                    (Helper::FloorDiv(t), "floordiv")
                } else {
                    (Helper::Mod(t), "mod")
                };
                self.c.helpers.insert(helper);
                let (x, y) = (self.cast_to(&l, t), self.cast_to(&r, t));
                let nonneg = if op == BinOp::Mod { r.nonneg } else { nonneg };
                Ok(Val::new(
                    Ty::Scalar(t),
                    format!("ember_{name}_{}({x}, {y})", t.name()),
                )
                .nonneg(nonneg))
            }
            BinOp::Pow => self.power(l, r, a, b, span),
            BinOp::MatMult => unreachable!("rejected above"),
        }
    }

    /// A complex product or quotient: the prelude's helper, the one arrays use (NumPy's
    /// product, Smith's quotient), in both dialects.
    fn complex_call(&mut self, helper: &str, l: &Val, r: &Val, t: DType) -> Val {
        self.c.dtypes.insert(t);
        let (x, y) = (self.cast_to(l, t), self.cast_to(r, t));
        let bits = t.itemsize() * 8;
        Val::new(Ty::Scalar(t), format!("{helper}{bits}({x}, {y})"))
    }

    fn arith_op(&mut self, l: &Val, r: &Val, t: DType, sym: &str, nonneg: bool) -> R<Val> {
        if t.kind() == Kind::Complex && sym == "/" {
            return Ok(self.complex_call("ember_cdiv", l, r, t));
        }
        let (x, y) = (self.cast_to(l, t), self.cast_to(r, t));
        if t.kind() == Kind::Int && sym != "/" {
            // Numba's integers wrap; C's signed overflow is undefined, and compilers use that
            // (`a + a == 0` only for `a == 0`): compute in the unsigned type.
            let st = value_type(t, self.c.dialect);
            let u = value_type(t.unsigned_twin(), self.c.dialect);
            let code = format!("(({st})(({u}){x} {sym} ({u}){y}))");
            return Ok(Val::new(Ty::Scalar(t), code).nonneg(nonneg));
        }
        Ok(Val::new(Ty::Scalar(t), format!("({x} {sym} {y})")).nonneg(nonneg))
    }

    /// `l ** r` by Numba's rules: integers by squaring, float32 keeps float32 for an integer
    /// exponent, otherwise `pow` in the promoted type.
    fn power(&mut self, l: Val, r: Val, a: DType, b: DType, span: Span) -> R<Val> {
        let integral = |d: DType| matches!(d.kind(), Kind::Int | Kind::UInt | Kind::Bool);
        if integral(a) && integral(b) {
            let t = arith(a, b);
            self.c.helpers.insert(Helper::IntPow(t));
            let (x, y) = (self.cast_to(&l, t), self.cast_to(&r, t));
            return Ok(
                Val::new(Ty::Scalar(t), format!("ember_ipow_{}({x}, {y})", t.name()))
                    .nonneg(l.nonneg),
            );
        }
        if a.kind() == Kind::Complex || b.kind() == Kind::Complex {
            return at(span, "complex powers are not supported in kernels");
        }
        if integral(b) && matches!(a, DType::F32 | DType::F64) {
            // Numba multiplies by squaring (x ** 2 is exactly x * x), in the float's type.
            self.c.helpers.insert(Helper::IntPow(a));
            let e = self.cast_to(&r, DType::I64);
            let code = format!("ember_ipow_{}({}, {e})", a.name(), l.code);
            return Ok(Val::new(Ty::Scalar(a), code));
        }
        let t = arith(a, b);
        let (x, y) = (self.cast_to(&l, t), self.cast_to(&r, t));
        let f = self.math_name("pow", t);
        Ok(Val::new(Ty::Scalar(t), format!("{f}({x}, {y})")))
    }

    /// The C function for math function `name` on `t` (CUDA names float32 versions with an
    /// `f`; OpenCL overloads).
    pub(crate) fn math_name(&self, name: &str, t: DType) -> String {
        if t.compute() == DType::F32 {
            format!("{name}{}", self.c.dialect.table().float32_math_suffix)
        } else {
            name.to_string()
        }
    }

    pub(super) fn unary(&mut self, op: UnaryOp, v: Val, span: Span) -> R<Val> {
        if op == UnaryOp::Not {
            let t = self.truth_of(&v, span)?;
            return Ok(Val::new(BOOL, format!("((unsigned char)!{t})")).nonneg(true));
        }
        let d = self.scalar_of(
            &v,
            span,
            &format!(
                "unary {}",
                match op {
                    UnaryOp::Invert => "~",
                    UnaryOp::USub => "-",
                    _ => "+",
                }
            ),
        )?;
        let wide = |d: DType| match d.kind() {
            Kind::UInt => DType::U64,
            Kind::Int | Kind::Bool => DType::I64,
            _ => d,
        };
        match op {
            UnaryOp::Invert => match d.kind() {
                Kind::Bool => {
                    Ok(Val::new(BOOL, format!("((unsigned char)!{})", v.code)).nonneg(true))
                }
                Kind::Int | Kind::UInt => {
                    // Inverted at the operand's width, then widened (Numba).
                    let t = value_type(d, self.c.dialect);
                    let inner = Val::new(Ty::Scalar(d), format!("(({t})~{})", v.code));
                    let w = wide(d);
                    Ok(Val::new(Ty::Scalar(w), self.cast_to(&inner, w)))
                }
                _ => at(
                    span,
                    format!("operator ~ needs integers or booleans, got {}", v.ty),
                ),
            },
            UnaryOp::USub => {
                let w = wide(d);
                if matches!(d.kind(), Kind::Int | Kind::UInt) {
                    // Negated at the operand's width, then widened (Numba): -uint8(1) is 255 and
                    // -int8(-128) is -128. The negation is unsigned 64-bit arithmetic (wraps by
                    // definition), then truncated.
                    let t = value_type(d, self.c.dialect);
                    let u64t = value_type(DType::U64, self.c.dialect);
                    let i64t = value_type(DType::I64, self.c.dialect);
                    let negated = format!("(({u64t})0 - ({u64t})({i64t})({}))", v.code);
                    let bits = 8 * d.itemsize();
                    if d.kind() == Kind::Int && bits < 64 {
                        // Signed: truncated and sign-extended by arithmetic, not by a cast:
                        // NVRTC 13 folds `(long long)(short)(0ULL - x)` into `-x` and gives
                        // 32768 for -int16(-32768) (hand-written CUDA C too).
                        let sign = 1u64 << (bits - 1);
                        let mask = (1u64 << bits) - 1;
                        let code = format!(
                            "(({i64t})(({negated} & ({u64t}){mask}UL) ^ ({u64t}){sign}UL) - ({i64t}){sign}L)"
                        );
                        return Ok(Val::new(Ty::Scalar(w), code));
                    }
                    let code = format!("(({t}){negated})");
                    let inner = Val::new(Ty::Scalar(d), code);
                    return Ok(Val::new(Ty::Scalar(w), self.cast_to(&inner, w)));
                }
                if d.kind() == Kind::Complex {
                    // CUDA's complex structs have no unary minus.
                    let z = self.temp(&v)?;
                    let code = format!("ember_make_{}(-({z}).x, -({z}).y)", d.name(), z = z.code);
                    return Ok(Val::new(v.ty.clone(), code));
                }
                let x = self.cast_to(&v, w);
                Ok(Val::new(Ty::Scalar(w), format!("(-{x})")))
            }
            _ => {
                let w = wide(d);
                Ok(Val::new(Ty::Scalar(w), self.cast_to(&v, w)).nonneg(v.nonneg))
            }
        }
    }
}
