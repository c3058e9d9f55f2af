//! Arithmetic and unary operators, by Numba's typing rules.

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{BinOp, Span, UnaryOp};
use crate::error::{at, R};
use crate::helpers::Helper;
use crate::ir::{self, ExprKind as K, UnaryOp as IrUnary};
use crate::types::{arith, Ty, BOOL};
use crate::typing::arrays::elementwise::{binop_ufunc, unary_ufunc};
use crate::typing::{FnTyper, Val};

impl FnTyper<'_, '_> {
    /// `l op r`; a float16 result is rounded to float16, as each float16 operation rounds.
    pub(crate) fn binop(&mut self, op: BinOp, l: Val, r: Val, span: Span) -> R<Val> {
        if self.whole_array(&[&l, &r]) && op != BinOp::MatMult {
            return self.array_ufunc(binop_ufunc(op), vec![l, r], span);
        }
        let v = self.binop_unrounded(op, l, r, span)?;
        Ok(self.round_narrow(v))
    }

    /// `v` rounded to its dtype when it is a narrow float (float16) computed in float.
    pub(crate) fn round_narrow(&mut self, v: Val) -> Val {
        let Some(d) = v.ty.scalar().filter(|d| d.is_narrow()) else {
            return v;
        };
        self.c.uses.helpers.insert(Helper::Round(d));
        let nonneg = v.nonneg;
        Val::new(v.ty.clone(), K::RoundNarrow(v.boxed())).nonneg(nonneg)
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
                items.push(Val::new(t, K::Item(lt.boxed(), i)));
            }
            for (i, t) in b.into_iter().enumerate() {
                items.push(Val::new(t, K::Item(rt.boxed(), i)));
            }
            return Ok(self.make_tuple(items));
        }
        if let Some(v) = self.date_binop(op, &l, &r, span) {
            return v;
        }
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
                Ok(self.typed_binary(op, &l, &r, t).nonneg(nonneg))
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
                let nonneg = op == BinOp::RShift && l.nonneg;
                Ok(self.typed_binary(op, &l, &r, t).nonneg(nonneg))
            }
            BinOp::Div => {
                let t = match arith(a, b) {
                    d if integral(d) => DType::F64,
                    d => d,
                };
                if complex(t) {
                    // CPython's quotient, as Numba divides complex numbers.
                    self.c.uses.dtypes.insert(t);
                    self.c.uses.helpers.insert(Helper::PyMath("cdiv", t));
                    let (x, y) = (self.cast_to(&l, t), self.cast_to(&r, t));
                    return Ok(Val::new(
                        Ty::Scalar(t),
                        K::PyMath("cdiv", vec![x.expr(), y.expr()]),
                    ));
                }
                Ok(self.typed_binary(op, &l, &r, t).nonneg(nonneg))
            }
            BinOp::Add | BinOp::Sub | BinOp::Mult => {
                let t = arith(a, b);
                if complex(t) && op == BinOp::Mult {
                    self.c.uses.dtypes.insert(t);
                    return Ok(self.typed_binary(op, &l, &r, t));
                }
                let nonneg = nonneg && op != BinOp::Sub;
                Ok(self.typed_binary(op, &l, &r, t).nonneg(nonneg))
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
                let helper = if op == BinOp::FloorDiv {
                    Helper::FloorDiv(t)
                } else {
                    Helper::Mod(t)
                };
                self.c.uses.helpers.insert(helper);
                let nonneg = if op == BinOp::Mod { r.nonneg } else { nonneg };
                Ok(self.typed_binary(op, &l, &r, t).nonneg(nonneg))
            }
            BinOp::Pow => self.power(l, r, a, b),
            BinOp::MatMult => unreachable!("rejected above"),
        }
    }

    /// `l op r` with both operands cast to `t`.
    fn typed_binary(&mut self, op: BinOp, l: &Val, r: &Val, t: DType) -> Val {
        let (x, y) = (self.cast_to(l, t), self.cast_to(r, t));
        Val::new(Ty::Scalar(t), K::Binary(op, x.boxed(), y.boxed()))
    }

    /// `l ** r` by Numba's rules: integers by squaring, float32 keeps float32 for an integer
    /// exponent, otherwise `pow` in the promoted type.
    fn power(&mut self, l: Val, r: Val, a: DType, b: DType) -> R<Val> {
        let integral = |d: DType| matches!(d.kind(), Kind::Int | Kind::UInt | Kind::Bool);
        if integral(a) && integral(b) {
            let t = arith(a, b);
            self.c.uses.helpers.insert(Helper::IntPow(t));
            return Ok(self.typed_binary(BinOp::Pow, &l, &r, t).nonneg(l.nonneg));
        }
        if a.kind() == Kind::Complex || b.kind() == Kind::Complex {
            // CPython's complex power (its integral-exponent quotient is CPython's too).
            let t = arith(a, b);
            self.c.uses.dtypes.insert(t);
            self.c.uses.helpers.insert(Helper::PyMath("cdiv", t));
            self.c.uses.helpers.insert(Helper::PyMath("cpow", t));
            let (x, y) = (self.cast_to(&l, t), self.cast_to(&r, t));
            return Ok(Val::new(
                Ty::Scalar(t),
                K::PyMath("cpow", vec![x.expr(), y.expr()]),
            ));
        }
        if integral(b) && matches!(a, DType::F32 | DType::F64) {
            // Numba multiplies by squaring (x ** 2 is exactly x * x), in the float's type.
            self.c.uses.helpers.insert(Helper::IntPow(a));
            let e = self.cast_to(&r, DType::I64);
            return Ok(Val::new(
                Ty::Scalar(a),
                K::Binary(BinOp::Pow, l.boxed(), e.boxed()),
            ));
        }
        let t = arith(a, b);
        Ok(self.typed_binary(BinOp::Pow, &l, &r, t))
    }

    pub(crate) fn unary(&mut self, op: UnaryOp, v: Val, span: Span) -> R<Val> {
        if op == UnaryOp::Not {
            self.truth_of(&v, span)?;
            if let K::Const(c) = &v.kind {
                // Kept a constant: `if not flag:` prunes as `if flag:` does.
                return Ok(Val::constant(BOOL, ir::Const::Bool(!c.truth())).nonneg(true));
            }
            return Ok(Val::new(BOOL, K::Not(v.boxed())).nonneg(true));
        }
        if let Some(v) = self.date_unary(op, &v, span) {
            return v;
        }
        if let Some(u) = unary_ufunc(op).filter(|_| self.whole_array(&[&v])) {
            return self.array_ufunc(u, vec![v], span);
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
                Kind::Bool => Ok(Val::new(BOOL, K::Not(v.boxed())).nonneg(true)),
                Kind::Int | Kind::UInt => {
                    // Inverted at the operand's width, then widened (Numba).
                    let inner = Val::new(Ty::Scalar(d), K::Unary(IrUnary::Invert, v.boxed()));
                    let w = wide(d);
                    Ok(self.cast_to(&inner, w).nonneg(false))
                }
                _ => at(
                    span,
                    format!("operator ~ needs integers or booleans, got {}", v.ty),
                ),
            },
            UnaryOp::USub => {
                let w = wide(d);
                if matches!(d.kind(), Kind::Int | Kind::UInt) {
                    // Negated at the operand's width, then widened (Numba): -uint8(1) is 255
                    // and -int8(-128) is -128.
                    let bits = 8 * d.itemsize();
                    if d.kind() == Kind::Int && bits < 64 {
                        // Narrow signed: negated, truncated and sign-extended in one node
                        // of the wide type.
                        return Ok(Val::new(Ty::Scalar(w), K::Unary(IrUnary::Neg, v.boxed())));
                    }
                    let inner = Val::new(Ty::Scalar(d), K::Unary(IrUnary::Neg, v.boxed()));
                    return Ok(self.cast_to(&inner, w).nonneg(false));
                }
                if d.kind() == Kind::Complex {
                    // Read twice (both parts): evaluated once.
                    let z = self.temp(&v)?;
                    return Ok(Val::new(v.ty.clone(), K::Unary(IrUnary::Neg, z.boxed())));
                }
                let x = self.cast_to(&v, w);
                Ok(Val::new(Ty::Scalar(w), K::Unary(IrUnary::Neg, x.boxed())))
            }
            _ => {
                let w = wide(d);
                Ok(self.cast_to(&v, w).nonneg(v.nonneg))
            }
        }
    }
}
