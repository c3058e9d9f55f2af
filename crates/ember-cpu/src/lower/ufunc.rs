//! NumPy's ufuncs on numbers: the elements of whole-array expressions (`a / b`, `np.sqrt(a)`)
//! and `np.<ufunc>(x, y)` on scalars. NumPy's semantics hold where Python's differ: a zero
//! divisor gives inf, NaN or 0 instead of raising, and an integer to a negative integer power
//! raises ValueError.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use ember_core::dtype::Kind;
use ember_core::DType;
use ember_jit::ast::{BinOp, CmpOp};
use ember_jit::ir::NanRule;

use super::Lowering;
use crate::abi::{Builtin, Fault};
use crate::values::{number_type, Val};

/// The operator a two-operand ufunc computes.
fn operator(name: &str) -> Option<BinOp> {
    Some(match name {
        "add" => BinOp::Add,
        "subtract" => BinOp::Sub,
        "multiply" => BinOp::Mult,
        "divide" => BinOp::Div,
        "floor_divide" => BinOp::FloorDiv,
        "remainder" => BinOp::Mod,
        "power" => BinOp::Pow,
        "left_shift" => BinOp::LShift,
        "right_shift" => BinOp::RShift,
        "bitwise_and" => BinOp::BitAnd,
        "bitwise_or" => BinOp::BitOr,
        "bitwise_xor" => BinOp::BitXor,
        _ => return None,
    })
}

/// The comparison a ufunc computes.
fn comparison(name: &str) -> Option<CmpOp> {
    Some(match name {
        "equal" => CmpOp::Eq,
        "not_equal" => CmpOp::NotEq,
        "less" => CmpOp::Lt,
        "less_equal" => CmpOp::LtE,
        "greater" => CmpOp::Gt,
        "greater_equal" => CmpOp::GtE,
        _ => return None,
    })
}

/// The C math library's name of a float ufunc.
fn libm_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "sqrt" => "sqrt",
        "cbrt" => "cbrt",
        "exp" => "exp",
        "exp2" => "exp2",
        "expm1" => "expm1",
        "log" => "log",
        "log2" => "log2",
        "log10" => "log10",
        "log1p" => "log1p",
        "sin" => "sin",
        "cos" => "cos",
        "tan" => "tan",
        "arcsin" => "asin",
        "arccos" => "acos",
        "arctan" => "atan",
        "sinh" => "sinh",
        "cosh" => "cosh",
        "tanh" => "tanh",
        "arcsinh" => "asinh",
        "arccosh" => "acosh",
        "arctanh" => "atanh",
        "floor" => "floor",
        "ceil" => "ceil",
        "trunc" => "trunc",
        "rint" => "rint",
        "fabs" => "fabs",
        "arctan2" => "atan2",
        "hypot" => "hypot",
        "copysign" => "copysign",
        "fmod" => "fmod",
        "nextafter" => "nextafter",
        _ => return None,
    })
}

impl Lowering<'_, '_> {
    /// Ufunc `name` of `args` (already of the loop's types `ins`), giving a number of `out`.
    pub(crate) fn ufunc(
        &mut self,
        name: &str,
        ins: &[DType],
        out: DType,
        args: Vec<Val>,
    ) -> Result<Val, String> {
        let d = *ins.first().ok_or("a ufunc without operands")?;
        let unsupported = || {
            Err(format!(
                "np.{name} of {} is not compiled for the CPU yet",
                d.name()
            ))
        };
        if let (Some(op), [x, y]) = (operator(name), args.as_slice()) {
            if d.is_complex() && !matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mult) {
                return unsupported();
            }
            return self.numpy_binary(op, d, ins[1], x.clone(), y.clone());
        }
        if let (Some(op), [x, y]) = (comparison(name), args.as_slice()) {
            return self.compare(op, d, x.clone(), y.clone());
        }
        if d.is_complex() {
            return unsupported();
        }
        let float = d.kind() == Kind::Float;
        match (name, args.as_slice()) {
            ("positive", [x]) => Ok(x.clone()),
            ("negative", [Val::Number(x)]) if float => Ok(Val::Number(self.b.ins().fneg(*x))),
            ("negative", [Val::Number(x)]) => Ok(Val::Number(self.b.ins().ineg(*x))),
            ("invert", [Val::Number(x)]) if d == DType::Bool => {
                Ok(Val::Number(self.b.ins().bxor_imm_s(*x, 1)))
            }
            ("invert", [Val::Number(x)]) => Ok(Val::Number(self.b.ins().bnot(*x))),
            ("absolute", [Val::Number(x)]) => Ok(Val::Number(match d.kind() {
                Kind::Float => self.b.ins().fabs(*x),
                Kind::Int => self.b.ins().iabs(*x),
                _ => *x,
            })),
            ("square", [x]) => self.numpy_binary(BinOp::Mult, d, d, x.clone(), x.clone()),
            ("logical_and" | "logical_or" | "logical_xor", [x, y]) => {
                let (a, b) = (self.truth_of(d, x)?, self.truth_of(ins[1], y)?);
                Ok(Val::Number(match name {
                    "logical_and" => self.b.ins().band(a, b),
                    "logical_or" => self.b.ins().bor(a, b),
                    _ => self.b.ins().bxor(a, b),
                }))
            }
            ("logical_not", [x]) => {
                let t = self.truth_of(d, x)?;
                Ok(Val::Number(self.b.ins().bxor_imm_s(t, 1)))
            }
            ("maximum" | "minimum" | "fmax" | "fmin", [x, y]) => {
                let rule = if name.starts_with('f') {
                    NanRule::Ignore
                } else {
                    NanRule::Propagate
                };
                let max = name.ends_with("max") || name == "maximum";
                let (x, y) = (x.number()?, y.number()?);
                Ok(Val::Number(self.extremum(max, rule, d, x, y)))
            }
            ("isnan" | "isinf" | "isfinite", [Val::Number(x)]) if float => {
                Ok(Val::Number(self.float_test(name, *x)?))
            }
            ("isnan" | "isinf" | "isfinite", [_]) => {
                let finite = name == "isfinite";
                Ok(Val::Number(
                    self.b.ins().iconst(types::I8, i64::from(finite)),
                ))
            }
            (_, _) if float => {
                let Some(c) = libm_name(name) else {
                    return unsupported();
                };
                let values = args
                    .iter()
                    .map(|a| a.number())
                    .collect::<Result<Vec<_>, _>>()?;
                self.math(c, out, &values)
            }
            _ => unsupported(),
        }
    }

    /// `x op y` of dtype `d` by NumPy's rules (`e`: the second operand's dtype).
    pub(crate) fn numpy_binary(
        &mut self,
        op: BinOp,
        d: DType,
        e: DType,
        x: Val,
        y: Val,
    ) -> Result<Val, String> {
        let float = d.kind() == Kind::Float;
        let divides = matches!(op, BinOp::Div | BinOp::FloorDiv | BinOp::Mod);
        if !divides || d.is_complex() {
            if op == BinOp::Pow && !float && d.kind() == Kind::Int {
                let n = y.number()?;
                let ok = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, n, 0);
                self.require(ok, Fault::Builtin(Builtin::NegativeIntegerPower), &[])?;
            }
            return self.binary(op, d, x, y, Some(e), true);
        }
        let (xv, yv) = (x.number()?, y.number()?);
        if float {
            if op == BinOp::Div {
                return Ok(Val::Number(self.b.ins().fdiv(xv, yv)));
            }
            // A zero divisor: x / 0 for `//` (inf or NaN), NaN for `%` (C's fmod).
            let t = number_type(d);
            let z = crate::values::zero_of(&mut self.b, t);
            let zero = self
                .b
                .ins()
                .fcmp(cranelift_codegen::ir::condcodes::FloatCC::Equal, yv, z);
            let r = self.binary(op, d, x, y, Some(e), true)?.number()?;
            let at_zero = if op == BinOp::FloorDiv {
                self.b.ins().fdiv(xv, yv)
            } else {
                self.nan(t)
            };
            return Ok(Val::Number(self.b.ins().select(zero, at_zero, r)));
        }
        // Integers: a zero divisor gives 0 (NumPy warns); divide by 1 there to not trap.
        let t = number_type(d);
        let zero = self.b.ins().icmp_imm_s(IntCC::Equal, yv, 0);
        let one = self.b.ins().iconst(t, 1);
        let safe = self.b.ins().select(zero, one, yv);
        let r = self
            .binary(op, d, x, Val::Number(safe), Some(e), true)?
            .number()?;
        let nothing = self.b.ins().iconst(t, 0);
        Ok(Val::Number(self.b.ins().select(zero, nothing, r)))
    }

    fn nan(&mut self, t: types::Type) -> Value {
        if t == types::F32 {
            self.b.ins().f32const(f32::NAN)
        } else {
            self.b.ins().f64const(f64::NAN)
        }
    }
}
