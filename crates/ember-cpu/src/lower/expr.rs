//! Expressions.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, Value};
use ember_core::dtype::Kind;
use ember_core::DType;
use ember_jit::ast::{BinOp, BoolOp};
use ember_jit::ir::{Const, Expr, ExprKind as K, NanRule, UnaryOp};
use ember_jit::Ty;

use super::{Exponent, Lowering};
use crate::abi::{Builtin, Fault};
use crate::values::{number_type, Val};

/// An optional value's flag (whether it holds a value) and its value.
fn optional_parts(v: Val) -> Result<(Value, Val), String> {
    match v {
        Val::Tuple(mut items) if items.len() == 2 => {
            let value = items.pop().ok_or("an optional without its value")?;
            Ok((items[0].number()?, value))
        }
        _ => Err("an optional value where the compiler expected one".into()),
    }
}

/// The dtype of a scalar expression.
pub(crate) fn dtype_of(e: &Expr) -> Result<DType, String> {
    e.dtype()
        .ok_or_else(|| format!("a number where the program has a {}", e.ty))
}

impl Lowering<'_, '_> {
    pub(crate) fn expr(&mut self, e: &Expr) -> Result<Val, String> {
        match &e.kind {
            K::Const(c) => self.constant(c, &e.ty),
            K::Local(id) => match self.inlined.last() {
                Some(frame) => Ok(frame[id.0].clone()),
                None => self.locals[id.0].clone().get(&mut self.b),
            },
            K::Temp(t) => {
                let slots = self.temps.get(t).ok_or("a temporary read before it is set")?;
                slots.clone().get(&mut self.b)
            }
            K::Cast(x) => {
                let v = self.expr(x)?;
                self.convert(v, &x.ty, &e.ty)
            }
            K::Unary(op, x) => {
                // At the operand's width (wrapping there), then converted to the result's.
                let (from, to) = (dtype_of(x)?, dtype_of(e)?);
                let v = self.expr(x)?;
                let v = self.unary(*op, from, v)?;
                self.cast(v, from, to)
            }
            K::Not(x) => {
                let t = self.truth(x)?;
                Ok(Val::Number(self.b.ins().bxor_imm_s(t, 1)))
            }
            K::Bool(x) => Ok(Val::Number(self.truth(x)?)),
            K::Binary(op, l, r) => {
                let d = dtype_of(e)?;
                if *op == BinOp::Pow && d.kind() == Kind::Float {
                    if let Some(c) = exponent_of(r) {
                        let x = self.expr(l)?.number()?;
                        if let Some(v) = self.constant_power(d, x, c, false) {
                            return Ok(Val::Number(v));
                        }
                    }
                }
                let (x, y) = (self.expr(l)?, self.expr(r)?);
                // A constant divisor other than zero needs no test.
                let divisor_known = matches!(&r.kind, K::Const(c) if c.truth());
                self.binary(*op, d, x, y, r.dtype(), divisor_known)
            }
            K::Compare(op, l, r) => {
                let d = dtype_of(l)?;
                let (x, y) = (self.expr(l)?, self.expr(r)?);
                self.compare(*op, d, x, y)
            }
            K::Logic(op, items) => self.logic(*op, items),
            K::All { items, negated } | K::Any { items, negated } => {
                let all = matches!(e.kind, K::All { .. });
                let mut acc = self.b.ins().iconst(types::I8, i64::from(all));
                for item in items {
                    let t = self.truth(item)?;
                    acc = if all {
                        self.b.ins().band(acc, t)
                    } else {
                        self.b.ins().bor(acc, t)
                    };
                }
                if *negated {
                    acc = self.b.ins().bxor_imm_s(acc, 1);
                }
                Ok(Val::Number(acc))
            }
            K::Select(cond, then, other) => self.choice(cond, then, other, &e.ty),
            K::Element(place) => {
                let address = self.element_address(place)?;
                self.load_element(place.ty.dtype, address)
            }
            K::Current => Ok(self
                .current
                .as_ref()
                .ok_or("an update's element read outside it")?
                .0
                .clone()),
            K::Dim(a, k) => Ok(Val::Number(self.expr(a)?.array()?.shape[*k])),
            K::Stride(a, k) => Ok(Val::Number(self.expr(a)?.array()?.strides[*k])),
            K::Size(a) => {
                let a = self.expr(a)?;
                let mut n = self.b.ins().iconst(types::I64, 1);
                for d in &a.array()?.shape {
                    n = self.b.ins().imul(n, *d);
                }
                Ok(Val::Number(n))
            }
            K::Address(a) => Ok(Val::Number(self.expr(a)?.array()?.data)),
            K::None => Val::zero(&mut self.b, &e.ty),
            K::Some(x) => {
                let v = self.expr(x)?;
                let holds = self.b.ins().iconst(types::I8, 1);
                Ok(Val::Tuple(vec![Val::Number(holds), v]))
            }
            K::IsNone(x) => {
                let (holds, _) = optional_parts(self.expr(x)?)?;
                Ok(Val::Number(self.b.ins().bxor_imm_s(holds, 1)))
            }
            K::Unwrap(x) => {
                let (holds, value) = optional_parts(self.expr(x)?)?;
                let (dtype, ndim) = match &e.ty {
                    Ty::Scalar(d) => (DType::ALL.iter().position(|x| x == d), -1),
                    Ty::Array(a) => (DType::ALL.iter().position(|x| *x == a.dtype), a.ndim as i64),
                    _ => (None, -1),
                };
                let dtype = dtype.map_or(-1, |k| k as i64);
                let details = [
                    self.b.ins().iconst(types::I64, dtype),
                    self.b.ins().iconst(types::I64, ndim),
                ];
                self.require(holds, Fault::Builtin(Builtin::NoneValue), &details)?;
                Ok(value)
            }
            K::MakeTuple(items) => Ok(Val::Tuple(
                items.iter().map(|x| self.expr(x)).collect::<Result<_, _>>()?,
            )),
            K::Item(t, k) => match self.expr(t)? {
                Val::Tuple(mut items) if *k < items.len() => Ok(items.swap_remove(*k)),
                _ => Err("an item of something that is not a tuple".into()),
            },
            K::ItemAt(t, i) => {
                let Val::Tuple(items) = self.expr(t)? else {
                    return Err("an item of something that is not a tuple".into());
                };
                let i = self.expr(i)?.number()?;
                let mut acc = items.first().cloned().ok_or("an item of an empty tuple")?;
                for (k, item) in items.iter().enumerate().skip(1) {
                    let hit = self.b.ins().icmp_imm_s(IntCC::Equal, i, k as i64);
                    acc = self.select_val(hit, item, &acc)?;
                }
                Ok(acc)
            }
            K::Wrap { index, len } if self.at_least_zero(index) => self.expr(index),
            K::Wrap { index, len } => {
                let i = self.expr(index)?.number()?;
                let n = self.expr(len)?.number()?;
                Ok(Val::Number(self.wrap_index(i, n)))
            }
            K::Part { value, imag } => {
                let v = self.expr(value)?;
                match v {
                    Val::Complex(re, im) => Ok(Val::Number(if *imag { im } else { re })),
                    // `x.real` of a real number is itself, `x.imag` zero.
                    Val::Number(x) if !*imag => Ok(Val::Number(x)),
                    Val::Number(_) => self.constant(&Const::Zero, &e.ty),
                    _ => Err("a part of something that is not a number".into()),
                }
            }
            K::Complex(re, im) => {
                let re = self.expr(re)?.number()?;
                let im = match im {
                    Some(x) => self.expr(x)?.number()?,
                    None => {
                        let t = self.b.func.dfg.value_type(re);
                        crate::values::zero_of(&mut self.b, t)
                    }
                };
                Ok(Val::Complex(re, im))
            }
            K::Conj(x) => {
                let (re, im) = self.expr(x)?.complex()?;
                Ok(Val::Complex(re, self.b.ins().fneg(im)))
            }
            K::Call(k, args) => {
                let values = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>, _>>()?;
                self.call(*k, &values)
            }
            K::Math(name, args) => {
                let d = dtype_of(e)?;
                let values = args
                    .iter()
                    .map(|a| self.expr(a).and_then(|v| v.number()))
                    .collect::<Result<Vec<_>, _>>()?;
                self.math(name, d, &values)
            }
            K::FloatTest(name, x) => {
                let v = self.expr(x)?.number()?;
                Ok(Val::Number(self.float_test(name, v)?))
            }
            K::Extremum { max, rule, args } => {
                let d = dtype_of(e)?;
                let x = self.expr(&args[0])?.number()?;
                let y = self.expr(&args[1])?.number()?;
                Ok(Val::Number(self.extremum(*max, *rule, d, x, y)))
            }
            K::Abs(x) => {
                let d = dtype_of(x)?;
                let v = self.expr(x)?;
                match (d.kind(), v) {
                    (Kind::Complex, Val::Complex(re, im)) => {
                        let f = self.libm("hypot", 2, self.b.func.dfg.value_type(re))?;
                        let call = self.b.ins().call(f, &[re, im]);
                        Ok(Val::Number(self.b.inst_results(call)[0]))
                    }
                    (Kind::Float, Val::Number(x)) => Ok(Val::Number(self.b.ins().fabs(x))),
                    (Kind::Int, Val::Number(x)) => Ok(Val::Number(self.b.ins().iabs(x))),
                    (_, v) => Ok(v),
                }
            }
            K::Alloc { shape, fill } => self.allocate(&e.ty, shape, fill.as_deref()),
            K::Round(x) => {
                let v = self.expr(x)?.number()?;
                let r = self.b.ins().nearest(v);
                Ok(Val::Number(self.b.ins().fcvt_to_sint_sat(types::I64, r)))
            }
            K::Geometry(_)
            | K::Sync(_)
            | K::Atomic { .. }
            | K::Cas { .. }
            | K::Intrinsic { .. }
            | K::Random(..)
            | K::FixedArray(_)
            => Err(
                "CUDA kernel intrinsics (thread indices, barriers, atomics, shared arrays) exist only in kernels, not in functions compiled for the CPU".into(),
            ),
            K::RoundNarrow(_) => Err("float16 arithmetic is not compiled for the CPU yet".into()),
            K::RecordAt(_) | K::Field { .. } => {
                Err("records (structured dtypes) are not compiled for the CPU yet".into())
            }
            K::ConstArray(_) | K::Captured(_) => {
                Err("global arrays are not compiled for the CPU yet: pass the array as an argument".into())
            }
            K::External(name, _) => Err(format!(
                "the CUDA C function {name} (cuda.declare_device) runs only on GPUs"
            )),
            K::Ufunc { name, ins, args } => {
                let out = dtype_of(e)?;
                if *name == "power" && out.kind() == Kind::Float {
                    if let Some(c) = exponent_of(&args[1]) {
                        let x = self.expr(&args[0])?.number()?;
                        if let Some(v) = self.constant_power(out, x, c, true) {
                            return Ok(Val::Number(v));
                        }
                    }
                }
                let values = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>, _>>()?;
                self.ufunc(name, ins, out, values)
            }
            K::Print { format, args } => self.print(format, args),
            K::RoundDigits(..) | K::PyMath(..) | K::Datetime(..) => {
                Err(format!("{} is not compiled for the CPU yet", describe(&e.kind)))
            }
        }
    }

    /// A constant of type `ty`.
    pub(crate) fn constant(&mut self, c: &Const, ty: &Ty) -> Result<Val, String> {
        let d = ty
            .scalar()
            .ok_or_else(|| format!("a constant of type {ty}"))?;
        let part = match d {
            DType::C64 => DType::F32,
            DType::C128 => DType::F64,
            other => other,
        };
        let number = |this: &mut Self, v: f64, i: i128| -> Value {
            match part.kind() {
                Kind::Float if part == DType::F32 => this.b.ins().f32const(v as f32),
                Kind::Float => this.b.ins().f64const(v),
                _ => this.b.ins().iconst(number_type(part), i as i64),
            }
        };
        let (re, im, int) = match *c {
            Const::Int(v) => (v as f64, 0.0, v as i128),
            Const::Count(v) => (v as f64, 0.0, v as i128),
            Const::Typed(v) => (v as f64, 0.0, v),
            Const::Zero => (0.0, 0.0, 0),
            Const::Float(v) => (v, 0.0, v as i128),
            Const::Bool(v) => (f64::from(u8::from(v)), 0.0, i128::from(v)),
            Const::Complex(re, im) => (re, im, 0),
        };
        if d.is_complex() {
            let r = number(self, re, 0);
            let i = number(self, im, 0);
            return Ok(Val::Complex(r, i));
        }
        Ok(Val::Number(number(self, re, int)))
    }

    /// Python's truth value of a scalar expression, as a byte 0 or 1.
    pub(crate) fn truth(&mut self, e: &Expr) -> Result<Value, String> {
        let d = dtype_of(e)?;
        let v = self.expr(e)?;
        self.truth_of(d, &v)
    }

    pub(crate) fn truth_of(&mut self, d: DType, v: &Val) -> Result<Value, String> {
        Ok(match (d.kind(), v) {
            (Kind::Bool, Val::Number(x)) => *x,
            (Kind::Float, Val::Number(x)) => {
                let t = self.b.func.dfg.value_type(*x);
                let z = crate::values::zero_of(&mut self.b, t);
                self.b.ins().fcmp(FloatCC::NotEqual, *x, z)
            }
            (Kind::Complex, Val::Complex(re, im)) => {
                let t = self.b.func.dfg.value_type(*re);
                let z = crate::values::zero_of(&mut self.b, t);
                let a = self.b.ins().fcmp(FloatCC::NotEqual, *re, z);
                let b = self.b.ins().fcmp(FloatCC::NotEqual, *im, z);
                self.b.ins().bor(a, b)
            }
            (_, Val::Number(x)) => self.b.ins().icmp_imm_s(IntCC::NotEqual, *x, 0),
            _ => return Err(format!("the truth value of a {d} that is not a number")),
        })
    }

    /// `a and b and ...` / `a or ...`: each operand evaluated only when the ones before
    /// leave the answer open.
    fn logic(&mut self, op: BoolOp, items: &[Expr]) -> Result<Val, String> {
        let join = self.b.create_block();
        let result = self.b.append_block_param(join, types::I8);
        let and = matches!(op, BoolOp::And);
        for (k, item) in items.iter().enumerate() {
            let t = self.truth(item)?;
            if k + 1 == items.len() {
                self.b.ins().jump(join, &[t.into()]);
                break;
            }
            let more = self.b.create_block();
            if and {
                self.b.ins().brif(t, more, &[], join, &[t.into()]);
            } else {
                self.b.ins().brif(t, join, &[t.into()], more, &[]);
            }
            self.enter(more);
        }
        self.enter(join);
        Ok(Val::Number(result))
    }

    /// `then if cond else other`, only the branch taken evaluated.
    fn choice(&mut self, cond: &Expr, then: &Expr, other: &Expr, ty: &Ty) -> Result<Val, String> {
        let c = self.truth(cond)?;
        let (t, e, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let params: Vec<Value> = crate::values::machine_types(ty)?
            .into_iter()
            .map(|m| self.b.append_block_param(join, m))
            .collect();
        self.b.ins().brif(c, t, &[], e, &[]);
        for (block, branch) in [(t, then), (e, other)] {
            self.enter(block);
            let v = self.expr(branch)?;
            let mut values = Vec::new();
            v.flatten(&mut values);
            let args: Vec<_> = values.into_iter().map(Into::into).collect();
            self.b.ins().jump(join, &args);
        }
        self.enter(join);
        Val::assemble(ty, &mut params.into_iter())
    }

    /// `then if cond else other` of values already computed, leaf by leaf.
    fn select_val(&mut self, cond: Value, then: &Val, other: &Val) -> Result<Val, String> {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        then.flatten(&mut a);
        other.flatten(&mut b);
        let chosen: Vec<Value> = a
            .into_iter()
            .zip(b)
            .map(|(x, y)| self.b.ins().select(cond, x, y))
            .collect();
        let mut it = chosen.into_iter();
        Ok(match then {
            Val::Number(_) => Val::Number(it.next().ok_or("no value")?),
            Val::Complex(..) => {
                Val::Complex(it.next().ok_or("no value")?, it.next().ok_or("no value")?)
            }
            _ => return Err("a run-time index into a tuple of arrays or tuples".into()),
        })
    }

    /// `counter - c` of a `range` loop counting up from at least `c`: never negative.
    pub(crate) fn at_least_zero(&self, index: &Expr) -> bool {
        match &index.kind {
            K::Binary(ember_jit::ast::BinOp::Sub, x, c) => match (&x.kind, &c.kind) {
                (K::Temp(t), K::Const(Const::Int(c))) => {
                    self.least.counters.get(t).is_some_and(|s| s >= c)
                }
                (K::Local(l), K::Const(Const::Int(c))) => {
                    self.inlined.is_empty() && self.least.locals.get(&l.0).is_some_and(|s| s >= c)
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// Python's negative index: `i + n` when `i < 0`.
    pub(crate) fn wrap_index(&mut self, i: Value, n: Value) -> Value {
        let negative = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, i, 0);
        let wrapped = self.b.ins().iadd(i, n);
        self.b.ins().select(negative, wrapped, i)
    }

    fn unary(&mut self, op: UnaryOp, d: DType, v: Val) -> Result<Val, String> {
        Ok(match (op, v) {
            (UnaryOp::Neg, Val::Complex(re, im)) => {
                Val::Complex(self.b.ins().fneg(re), self.b.ins().fneg(im))
            }
            (UnaryOp::Neg, Val::Number(x)) if d.kind() == Kind::Float => {
                Val::Number(self.b.ins().fneg(x))
            }
            (UnaryOp::Neg, Val::Number(x)) => Val::Number(self.b.ins().ineg(x)),
            (UnaryOp::Invert, Val::Number(x)) => Val::Number(self.b.ins().bnot(x)),
            _ => return Err(format!("a unary operator on a {d}")),
        })
    }

    pub(crate) fn float_test(&mut self, name: &str, v: Value) -> Result<Value, String> {
        let inf = if self.b.func.dfg.value_type(v) == types::F32 {
            self.b.ins().f32const(f32::INFINITY)
        } else {
            self.b.ins().f64const(f64::INFINITY)
        };
        Ok(match name {
            "isnan" => self.b.ins().fcmp(FloatCC::Unordered, v, v),
            "isinf" => {
                let a = self.b.ins().fabs(v);
                self.b.ins().fcmp(FloatCC::Equal, a, inf)
            }
            "isfinite" => {
                let a = self.b.ins().fabs(v);
                self.b.ins().fcmp(FloatCC::LessThan, a, inf)
            }
            other => return Err(format!("the float test {other}")),
        })
    }

    /// `max`/`min` of two numbers of `d` by `rule`.
    pub(crate) fn extremum(
        &mut self,
        max: bool,
        rule: NanRule,
        d: DType,
        x: Value,
        y: Value,
    ) -> Value {
        let float = d.kind() == Kind::Float;
        if !float {
            let cc = match (max, d.kind()) {
                (true, Kind::Int) => IntCC::SignedGreaterThan,
                (false, Kind::Int) => IntCC::SignedLessThan,
                (true, _) => IntCC::UnsignedGreaterThan,
                (false, _) => IntCC::UnsignedLessThan,
            };
            // Python's rule: the first wins ties.
            let second = self.b.ins().icmp(cc, y, x);
            return self.b.ins().select(second, y, x);
        }
        let (gt, lt) = (FloatCC::GreaterThan, FloatCC::LessThan);
        match rule {
            // The first argument wins ties and NaNs (Python's `max(a, b)`: b only if b > a).
            NanRule::Python => {
                let second = self.b.ins().fcmp(if max { gt } else { lt }, y, x);
                self.b.ins().select(second, y, x)
            }
            // np.maximum: a NaN on either side is the result (x + y carries it).
            NanRule::Propagate => {
                let nan = self.b.ins().fcmp(FloatCC::Unordered, x, y);
                let sum = self.b.ins().fadd(x, y);
                let m = self.c_fmax(max, x, y);
                self.b.ins().select(nan, sum, m)
            }
            NanRule::Ignore => self.c_fmax(max, x, y),
        }
    }

    /// C's `fmax`/`fmin`: a NaN argument is ignored.
    fn c_fmax(&mut self, max: bool, x: Value, y: Value) -> Value {
        let x_nan = self.b.ins().fcmp(FloatCC::Unordered, x, x);
        let y_nan = self.b.ins().fcmp(FloatCC::Unordered, y, y);
        let m = if max {
            self.b.ins().fmax(x, y)
        } else {
            self.b.ins().fmin(x, y)
        };
        let m = self.b.ins().select(y_nan, x, m);
        self.b.ins().select(x_nan, y, m)
    }
}

/// What an expression is, for a message.
fn describe(k: &K) -> &'static str {
    match k {
        K::RoundDigits(..) => "round(x, ndigits)",
        K::PyMath(..) => "this math/cmath function",
        K::Datetime(..) => "datetime64/timedelta64 arithmetic",
        _ => "this expression",
    }
}

/// The value of a constant exponent.
fn exponent_of(e: &Expr) -> Option<Exponent> {
    match &e.kind {
        K::Const(Const::Int(n)) => Some(Exponent::Int(*n)),
        K::Const(Const::Typed(n)) => i64::try_from(*n).ok().map(Exponent::Int),
        K::Const(Const::Float(x)) => Some(Exponent::Float(*x)),
        _ => None,
    }
}
