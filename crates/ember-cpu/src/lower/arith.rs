//! Arithmetic, comparisons and conversions of numbers with Python's and NumPy's rules
//! (Numba's error model `'python'`: a zero divisor raises ZeroDivisionError).

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, Type, Value};
use ember_core::dtype::Kind;
use ember_core::DType;
use ember_jit::ast::{BinOp, CmpOp};
use ember_jit::Ty;

use super::Lowering;
use crate::abi::{Builtin, Fault};
use crate::values::{number_type, Val};

/// The float dtype of a complex dtype's parts.
fn part_of(d: DType) -> DType {
    if d == DType::C64 {
        DType::F32
    } else {
        DType::F64
    }
}

impl Lowering<'_, '_> {
    /// `v` (of type `from`) as a value of type `to` (Numba's casts, C's conversions).
    pub(crate) fn convert(&mut self, v: Val, from: &Ty, to: &Ty) -> Result<Val, String> {
        if from == to {
            return Ok(v);
        }
        match (from, to, v) {
            (Ty::Scalar(f), Ty::Scalar(t), v) => self.cast(v, *f, *t),
            (Ty::Tuple(fs), Ty::Tuple(ts), Val::Tuple(items)) if fs.len() == ts.len() => {
                let mut out = Vec::new();
                for ((f, t), v) in fs.iter().zip(ts).zip(items) {
                    out.push(self.convert(v, f, t)?);
                }
                Ok(Val::Tuple(out))
            }
            // Arrays differ only in what is known of their layout: the same value.
            (Ty::Array(_), Ty::Array(_), v) => Ok(v),
            // An argument passed None or a value, held by an optional variable.
            (Ty::None, Ty::Optional(_), _) => Val::zero(&mut self.b, to),
            (f, Ty::Optional(t), v) if !matches!(f, Ty::Optional(_)) => {
                let v = self.convert(v, f, t)?;
                let holds = self.b.ins().iconst(types::I8, 1);
                Ok(Val::Tuple(vec![Val::Number(holds), v]))
            }
            (f, t, _) => Err(format!("a conversion from {f} to {t}")),
        }
    }

    /// A number of `from` as one of `to`.
    pub(crate) fn cast(&mut self, v: Val, from: DType, to: DType) -> Result<Val, String> {
        if from == to {
            return Ok(v);
        }
        match (from.kind(), to.kind(), v) {
            (Kind::Complex, Kind::Complex, Val::Complex(re, im)) => {
                let (f, t) = (part_of(from), part_of(to));
                Ok(Val::Complex(
                    self.cast_number(re, f, t),
                    self.cast_number(im, f, t),
                ))
            }
            // A complex to a real number keeps the real part (NumPy's cast, with a warning).
            (Kind::Complex, _, Val::Complex(re, _)) => {
                Ok(Val::Number(self.cast_number(re, part_of(from), to)))
            }
            (_, Kind::Complex, Val::Number(x)) => {
                let p = part_of(to);
                let re = self.cast_number(x, from, p);
                let im = crate::values::zero_of(&mut self.b, number_type(p));
                Ok(Val::Complex(re, im))
            }
            (_, _, Val::Number(x)) => Ok(Val::Number(self.cast_number(x, from, to))),
            _ => Err(format!("a conversion from {from} to {to}")),
        }
    }

    /// A real number of `from` as one of `to`, as C converts.
    fn cast_number(&mut self, x: Value, from: DType, to: DType) -> Value {
        let (ft, tt) = (number_type(from), number_type(to));
        match (from.kind(), to.kind()) {
            _ if from == to => x,
            (_, Kind::Bool) if from.kind() == Kind::Float => {
                let z = crate::values::zero_of(&mut self.b, ft);
                self.b.ins().fcmp(FloatCC::NotEqual, x, z)
            }
            (_, Kind::Bool) => self.b.ins().icmp_imm_s(IntCC::NotEqual, x, 0),
            (Kind::Float, Kind::Float) if ft.bits() < tt.bits() => self.b.ins().fpromote(tt, x),
            (Kind::Float, Kind::Float) => self.b.ins().fdemote(tt, x),
            (Kind::Float, _) => {
                // C leaves out-of-range conversions undefined; these saturate (NaN: 0), where
                // Cranelift's plain conversion would trap.
                let wide = if tt.bits() < 32 { types::I32 } else { tt };
                let r = if to.kind() == Kind::UInt && tt.bits() == 64 {
                    self.b.ins().fcvt_to_uint_sat(wide, x)
                } else if to.kind() == Kind::UInt && tt.bits() == 32 {
                    let r = self.b.ins().fcvt_to_sint_sat(types::I64, x);
                    return self.b.ins().ireduce(tt, r);
                } else {
                    self.b.ins().fcvt_to_sint_sat(wide, x)
                };
                if wide == tt {
                    r
                } else {
                    self.b.ins().ireduce(tt, r)
                }
            }
            (Kind::Int, Kind::Float) => self.b.ins().fcvt_from_sint(tt, x),
            (_, Kind::Float) => self.b.ins().fcvt_from_uint(tt, x),
            _ if ft.bits() == tt.bits() => x,
            _ if ft.bits() > tt.bits() => self.b.ins().ireduce(tt, x),
            (Kind::Int, _) => self.b.ins().sextend(tt, x),
            _ => self.b.ins().uextend(tt, x),
        }
    }

    /// `x op y`, both of dtype `d` (for `**` with an integer exponent, `exponent` is its
    /// dtype: int64).
    pub(crate) fn binary(
        &mut self,
        op: BinOp,
        d: DType,
        x: Val,
        y: Val,
        exponent: Option<DType>,
        divisor_known: bool,
    ) -> Result<Val, String> {
        if d.is_complex() {
            return self.complex_binary(op, d, x, y);
        }
        // (numpy_binary calls back here with `divisor_known`, its divisor made safe.)
        let divides = matches!(op, BinOp::Div | BinOp::FloorDiv | BinOp::Mod);
        if self.shared.numpy_errors && divides && !divisor_known {
            return self.numpy_binary(op, d, d, x, y);
        }
        let (x, y) = (x.number()?, y.number()?);
        let float = d.kind() == Kind::Float;
        let signed = d.kind() == Kind::Int;
        self.divisor_known = divisor_known;
        let v = match op {
            BinOp::Add if float => self.b.ins().fadd(x, y),
            BinOp::Sub if float => self.b.ins().fsub(x, y),
            BinOp::Mult if float => self.b.ins().fmul(x, y),
            BinOp::Add => self.b.ins().iadd(x, y),
            BinOp::Sub => self.b.ins().isub(x, y),
            BinOp::Mult => self.int_product(x, y),
            BinOp::Div if float => {
                self.raise_if_zero(y, true, Builtin::Division)?;
                self.b.ins().fdiv(x, y)
            }
            BinOp::FloorDiv if float => {
                self.raise_if_zero(y, true, Builtin::FloatModulo)?;
                self.float_helper("floordiv", d, x, y)?
            }
            BinOp::Mod if float => {
                self.raise_if_zero(y, true, Builtin::FloatModulo)?;
                self.float_helper("mod", d, x, y)?
            }
            BinOp::Div => return Err("true division of integers (typing converts them)".into()),
            BinOp::FloorDiv => {
                self.raise_if_zero(y, false, Builtin::IntegerDivision)?;
                self.int_floordiv(x, y, signed)
            }
            BinOp::Mod => {
                self.raise_if_zero(y, false, Builtin::IntegerModulo)?;
                self.int_mod(x, y, signed)
            }
            BinOp::Pow => return self.power(d, x, y, exponent),
            BinOp::LShift => self.b.ins().ishl(x, y),
            BinOp::RShift if signed => self.b.ins().sshr(x, y),
            BinOp::RShift => self.b.ins().ushr(x, y),
            BinOp::BitOr => self.b.ins().bor(x, y),
            BinOp::BitXor => self.b.ins().bxor(x, y),
            BinOp::BitAnd => self.int_mask(x, y),
            BinOp::MatMult => return Err("the @ operator on numbers".into()),
        };
        Ok(Val::Number(v))
    }

    /// `x * y` for integers. `(v * c1 + c2) * c3` becomes `v * (c1*c3) + c2*c3` (exact: the
    /// arithmetic wraps): the product no longer waits for the sum, so a recurrence stepped
    /// twice per iteration (`s = s * a + c` two times: a congruential generator) waits for one
    /// multiply per iteration instead of two. LLVM's instcombine makes the same rewrite.
    fn int_product(&mut self, x: Value, y: Value) -> Value {
        let (x, y) = match self.int_constant(x) {
            Some(_) => (y, x),
            None => (x, y),
        };
        if self.b.func.dfg.value_type(x) == types::I64 {
            if let (Some(c3), Some((v, c1, c2))) = (self.int_constant(y), self.affine(x)) {
                let (k1, k2) = (c1.wrapping_mul(c3), c2.wrapping_mul(c3));
                let (k1, k2) = (
                    self.b.ins().iconst(types::I64, k1),
                    self.b.ins().iconst(types::I64, k2),
                );
                let m = self.b.ins().imul(v, k1);
                return self.b.ins().iadd(m, k2);
            }
        }
        self.b.ins().imul(x, y)
    }

    /// `x & y` for integers. `(v >> k) & m` of a signed `v`, where the mask keeps none of the
    /// bits the shift copied the sign into, is `v`'s logical shift (masked only if `m` keeps
    /// fewer bits): one instruction instead of three (`(z >> 30) & 0x3ffffffff` is how a
    /// Python program writes a 64-bit logical shift; LLVM folds it the same way).
    fn int_mask(&mut self, x: Value, y: Value) -> Value {
        use cranelift_codegen::ir::Opcode;
        let (x, y) = match self.int_constant(x) {
            Some(_) => (y, x),
            None => (x, y),
        };
        let bits = self.b.func.dfg.value_type(x).bits();
        let shifted = self.with_constant(x, Opcode::Sshr);
        if let (Some(m), Some((v, k))) = (self.int_constant(y), shifted) {
            if (1..i64::from(bits)).contains(&k) {
                // The bits of `v >> k` below the sign's copies, and the mask in `v`'s width.
                let low = (1u64 << (bits - k as u32)) - 1;
                let m = m as u64 & (u64::MAX >> (64 - bits));
                if m & !low == 0 {
                    let logical = self.b.ins().ushr_imm_s(v, k);
                    return if m == low {
                        logical
                    } else {
                        self.b.ins().band(logical, y)
                    };
                }
            }
        }
        self.b.ins().band(x, y)
    }

    /// The constant `v` is, when an `iconst` made it.
    pub(crate) fn int_constant(&self, v: Value) -> Option<i64> {
        use cranelift_codegen::ir::{InstructionData, Opcode, ValueDef};
        let ValueDef::Result(inst, _) = self.b.func.dfg.value_def(v) else {
            return None;
        };
        match self.b.func.dfg.insts[inst] {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } => Some(imm.bits()),
            _ => None,
        }
    }

    /// `(u, c1, c2)` when `v` is `u * c1 + c2` with constants `c1` and `c2` (either order).
    fn affine(&self, v: Value) -> Option<(Value, i64, i64)> {
        use cranelift_codegen::ir::Opcode;
        let (product, c2) = self.with_constant(v, Opcode::Iadd)?;
        let (u, c1) = self.with_constant(product, Opcode::Imul)?;
        Some((u, c1, c2))
    }

    /// `(x, c)` when `v` is `op(x, c)` with a constant `c` (or `op(c, x)` where `op` commutes).
    pub(crate) fn with_constant(
        &self,
        v: Value,
        op: cranelift_codegen::ir::Opcode,
    ) -> Option<(Value, i64)> {
        use cranelift_codegen::ir::{InstructionData, Opcode};
        let inst = self.b.func.dfg.value_def(v).inst()?;
        let InstructionData::Binary {
            opcode,
            args: [x, y],
        } = self.b.func.dfg.insts[inst]
        else {
            return None;
        };
        let commutes = matches!(
            op,
            Opcode::Iadd | Opcode::Imul | Opcode::Band | Opcode::Bor | Opcode::Bxor
        );
        match (self.int_constant(x), self.int_constant(y)) {
            _ if opcode != op => None,
            (_, Some(c)) => Some((x, c)),
            (Some(c), _) if commutes => Some((y, c)),
            _ => None,
        }
    }

    fn raise_if_zero(&mut self, y: Value, float: bool, b: Builtin) -> Result<(), String> {
        if self.divisor_known {
            return Ok(());
        }
        let zero = if float {
            let t = self.b.func.dfg.value_type(y);
            let z = crate::values::zero_of(&mut self.b, t);
            self.b.ins().fcmp(FloatCC::Equal, y, z)
        } else {
            self.b.ins().icmp_imm_s(IntCC::Equal, y, 0)
        };
        self.raise_if(zero, Fault::Builtin(b))
    }

    /// Python's `x // y` of integers (`y != 0`); `MIN // -1` wraps to MIN, as NumPy's.
    fn int_floordiv(&mut self, x: Value, y: Value, signed: bool) -> Value {
        if !signed {
            return self.b.ins().udiv(x, y);
        }
        let t = self.b.func.dfg.value_type(x);
        let minus_one = self.b.ins().icmp_imm_s(IntCC::Equal, y, -1);
        let one = self.b.ins().iconst(t, 1);
        // Machine division traps on MIN / -1: divide by 1 there and negate.
        let safe = self.b.ins().select(minus_one, one, y);
        let q = self.b.ins().sdiv(x, safe);
        let negated = self.b.ins().ineg(x);
        let q = self.b.ins().select(minus_one, negated, q);
        let r = self.b.ins().srem(x, safe);
        let inexact = self.b.ins().icmp_imm_s(IntCC::NotEqual, r, 0);
        let signs = self.b.ins().bxor(r, y);
        let differ = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, signs, 0);
        let adjust = self.b.ins().band(inexact, differ);
        let q1 = self.b.ins().iadd_imm_s(q, -1);
        self.b.ins().select(adjust, q1, q)
    }

    /// Python's `x % y` of integers (`y != 0`): the sign of `y`.
    fn int_mod(&mut self, x: Value, y: Value, signed: bool) -> Value {
        if !signed {
            return self.b.ins().urem(x, y);
        }
        let t = self.b.func.dfg.value_type(x);
        let minus_one = self.b.ins().icmp_imm_s(IntCC::Equal, y, -1);
        let one = self.b.ins().iconst(t, 1);
        let safe = self.b.ins().select(minus_one, one, y);
        let r = self.b.ins().srem(x, safe);
        let inexact = self.b.ins().icmp_imm_s(IntCC::NotEqual, r, 0);
        let signs = self.b.ins().bxor(r, y);
        let differ = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, signs, 0);
        let adjust = self.b.ins().band(inexact, differ);
        let r1 = self.b.ins().iadd(r, y);
        self.b.ins().select(adjust, r1, r)
    }

    /// ember's runtime routine `ember_cpu_<what>_<dtype>` of two floats.
    fn float_helper(&mut self, what: &str, d: DType, x: Value, y: Value) -> Result<Value, String> {
        let t = number_type(d);
        let mut sig = self.module_signature();
        sig.params.extend([AbiParam::new(t), AbiParam::new(t)]);
        sig.returns.push(AbiParam::new(t));
        let f = self.import(&format!("ember_cpu_{what}_{}", d.name()), sig)?;
        let call = self.b.ins().call(f, &[x, y]);
        Ok(self.b.inst_results(call)[0])
    }

    pub(crate) fn module_signature(&self) -> cranelift_codegen::ir::Signature {
        cranelift_codegen::ir::Signature::new(self.b.func.signature.call_conv)
    }

    /// `x ** y`.
    fn power(
        &mut self,
        d: DType,
        x: Value,
        y: Value,
        exponent: Option<DType>,
    ) -> Result<Val, String> {
        let t = number_type(d);
        let integral = |k: DType| matches!(k.kind(), Kind::Int | Kind::UInt | Kind::Bool);
        if d.kind() == Kind::Float && !exponent.is_some_and(integral) {
            return self.math("pow", d, &[x, y]);
        }
        let mut sig = self.module_signature();
        let v = if d.kind() == Kind::Float {
            // A float to an integer power, by squaring.
            sig.params
                .extend([AbiParam::new(t), AbiParam::new(types::I64)]);
            sig.returns.push(AbiParam::new(t));
            let f = self.import(&format!("ember_cpu_fpow_{}", d.name()), sig)?;
            let e = self.widen(y, exponent.unwrap_or(DType::I64));
            let call = self.b.ins().call(f, &[x, e]);
            self.b.inst_results(call)[0]
        } else {
            let unsigned = d.kind() == Kind::UInt;
            sig.params.extend([AbiParam::new(types::I64); 3]);
            sig.returns.push(AbiParam::new(types::I64));
            let name = if unsigned {
                "ember_cpu_ipow_uint64"
            } else {
                "ember_cpu_ipow_int64"
            };
            let f = self.import(name, sig)?;
            let (a, e) = (self.widen(x, d), self.widen(y, exponent.unwrap_or(d)));
            let call = self.b.ins().call(f, &[self.ctx, a, e]);
            let r = self.b.inst_results(call)[0];
            let status = self.b.ins().load(
                types::I64,
                cranelift_codegen::ir::MemFlagsData::trusted(),
                self.ctx,
                crate::abi::STATUS_OFFSET,
            );
            let failed = self.b.ins().icmp_imm_s(IntCC::NotEqual, status, 0);
            let (raised, ok) = (self.b.create_block(), self.b.create_block());
            self.b.set_cold_block(raised);
            self.b.ins().brif(failed, raised, &[], ok, &[]);
            self.enter(raised);
            self.return_zero()?;
            self.enter(ok);
            if t == types::I64 {
                r
            } else {
                self.b.ins().ireduce(t, r)
            }
        };
        Ok(Val::Number(v))
    }

    /// An integer of `d` as an int64.
    fn widen(&mut self, x: Value, d: DType) -> Value {
        if number_type(d) == types::I64 {
            x
        } else if d.kind() == Kind::Int {
            self.b.ins().sextend(types::I64, x)
        } else {
            self.b.ins().uextend(types::I64, x)
        }
    }

    fn complex_binary(&mut self, op: BinOp, d: DType, x: Val, y: Val) -> Result<Val, String> {
        let (a, b) = x.complex()?;
        let (c, e) = y.complex()?;
        Ok(match op {
            BinOp::Add => Val::Complex(self.b.ins().fadd(a, c), self.b.ins().fadd(b, e)),
            BinOp::Sub => Val::Complex(self.b.ins().fsub(a, c), self.b.ins().fsub(b, e)),
            BinOp::Mult => {
                // (a + bi)(c + ei), each product rounded before the sum (no contraction).
                let (ac, be) = (self.b.ins().fmul(a, c), self.b.ins().fmul(b, e));
                let (ae, bc) = (self.b.ins().fmul(a, e), self.b.ins().fmul(b, c));
                Val::Complex(self.b.ins().fsub(ac, be), self.b.ins().fadd(ae, bc))
            }
            _ => {
                return Err(format!(
                    "the operator {} on {} numbers is not compiled for the CPU yet",
                    op.symbol(),
                    d.name()
                ))
            }
        })
    }

    /// `x op y` of two numbers of `d`, as a bool.
    pub(crate) fn compare(&mut self, op: CmpOp, d: DType, x: Val, y: Val) -> Result<Val, String> {
        if let (Val::Complex(a, b), Val::Complex(c, e)) = (&x, &y) {
            let re = self.b.ins().fcmp(FloatCC::Equal, *a, *c);
            let im = self.b.ins().fcmp(FloatCC::Equal, *b, *e);
            let eq = self.b.ins().band(re, im);
            return match op {
                CmpOp::Eq | CmpOp::Is => Ok(Val::Number(eq)),
                CmpOp::NotEq | CmpOp::IsNot => Ok(Val::Number(self.b.ins().bxor_imm_s(eq, 1))),
                _ => Err("ordering comparisons of complex numbers".into()),
            };
        }
        let (x, y) = (x.number()?, y.number()?);
        let v = if d.kind() == Kind::Float {
            let cc = match op {
                CmpOp::Eq | CmpOp::Is => FloatCC::Equal,
                CmpOp::NotEq | CmpOp::IsNot => FloatCC::NotEqual,
                CmpOp::Lt => FloatCC::LessThan,
                CmpOp::LtE => FloatCC::LessThanOrEqual,
                CmpOp::Gt => FloatCC::GreaterThan,
                CmpOp::GtE => FloatCC::GreaterThanOrEqual,
                CmpOp::In | CmpOp::NotIn => return Err("`in` of two numbers".into()),
            };
            self.b.ins().fcmp(cc, x, y)
        } else {
            let signed = d.kind() == Kind::Int;
            let cc = match op {
                CmpOp::Eq | CmpOp::Is => IntCC::Equal,
                CmpOp::NotEq | CmpOp::IsNot => IntCC::NotEqual,
                CmpOp::Lt if signed => IntCC::SignedLessThan,
                CmpOp::LtE if signed => IntCC::SignedLessThanOrEqual,
                CmpOp::Gt if signed => IntCC::SignedGreaterThan,
                CmpOp::GtE if signed => IntCC::SignedGreaterThanOrEqual,
                CmpOp::Lt => IntCC::UnsignedLessThan,
                CmpOp::LtE => IntCC::UnsignedLessThanOrEqual,
                CmpOp::Gt => IntCC::UnsignedGreaterThan,
                CmpOp::GtE => IntCC::UnsignedGreaterThanOrEqual,
                CmpOp::In | CmpOp::NotIn => return Err("`in` of two numbers".into()),
            };
            self.b.ins().icmp(cc, x, y)
        };
        Ok(Val::Number(v))
    }

    /// C's math function `name` of `args` in float dtype `d`: one instruction where the
    /// machine has it, else the C library's.
    pub(crate) fn math(&mut self, name: &str, d: DType, args: &[Value]) -> Result<Val, String> {
        let t: Type = number_type(d);
        let one = |_: &mut Self| {
            args.first()
                .copied()
                .ok_or_else(|| format!("{name}() without an argument"))
        };
        let v = match (name, args.len()) {
            ("sqrt", 1) => {
                let x = one(self)?;
                self.b.ins().sqrt(x)
            }
            ("floor", 1) => {
                let x = one(self)?;
                self.b.ins().floor(x)
            }
            ("ceil", 1) => {
                let x = one(self)?;
                self.b.ins().ceil(x)
            }
            ("trunc", 1) => {
                let x = one(self)?;
                self.b.ins().trunc(x)
            }
            ("rint", 1) => {
                let x = one(self)?;
                self.b.ins().nearest(x)
            }
            ("fabs", 1) => {
                let x = one(self)?;
                self.b.ins().fabs(x)
            }
            ("copysign", 2) => self.b.ins().fcopysign(args[0], args[1]),
            ("cdiv" | "rect" | "cpow" | "hadd" | "hsub" | "hmul", _) => {
                return Err(format!("{name} is not compiled for the CPU yet"))
            }
            (_, n) => {
                let f = self.libm(name, n, t)?;
                let call = self.b.ins().call(f, args);
                self.b.inst_results(call)[0]
            }
        };
        Ok(Val::Number(v))
    }
}
