//! Innermost `range` loops whose iterations are independent, run two float64 (four float32)
//! elements at a time in SIMD registers: `out[i] = alpha * x[i] + y[i]`, a stencil's row, a
//! ufunc's loop. Cranelift does not vectorise by itself; this does it for the loops that are
//! plainly element-wise, and the scalar loop finishes the elements left over.
//!
//! A loop qualifies when its body only stores float elements of C-contiguous arrays at the
//! counter (plus or minus a constant) along their last axis, from arithmetic the vector unit
//! does exactly as the scalar one (`+ - *`, division without a zero check, `sqrt`, `abs`,
//! constant powers, inlined helpers), with every other index and number the same for all
//! iterations. Each lane computes what the scalar loop computes, so the results are the same
//! bit for bit. Arrays written whose memory overlaps arrays read (other than the element being
//! written) leave the whole loop scalar, checked when it runs.

use std::collections::{HashMap, HashSet};

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use ember_core::DType;
use ember_jit::ast::BinOp;
use ember_jit::ir::{Const, Expr, ExprKind as K, Place, Stmt, Temp, UnaryOp};
use ember_jit::{Layout, Ty};

use super::{Exponent, Lowering};
use crate::values::{number_type, Val};

/// A loop found vectorisable: its element type, and the variables that hold its counter.
pub(crate) struct Plan {
    dtype: DType,
    counter_locals: Vec<usize>,
    /// With `fastmath`: variables summed (`+`) or multiplied (`*`) over the iterations, each
    /// lane keeping its own partial result until the loop ends.
    reductions: Vec<(usize, BinOp)>,
}

/// What the body may read besides invariant values: the counter, its copies, its temporaries.
struct Scope<'p> {
    counter: Temp,
    counter_locals: &'p HashSet<usize>,
    body_temps: &'p HashSet<Temp>,
    /// Variables the body sets (each before any read of it in the iteration).
    body_locals: &'p HashSet<usize>,
}

/// The vector values of the body's temporaries and variables so far in an iteration.
#[derive(Default)]
struct Lanes {
    temps: HashMap<Temp, Value>,
    locals: HashMap<usize, Value>,
}

impl Lowering<'_, '_> {
    /// The plan for vectorising a `range` loop over `index` with `body`, if it qualifies.
    pub(crate) fn vector_plan(&self, index: Temp, body: &[Stmt]) -> Option<Plan> {
        let mut counter_locals = HashSet::new();
        let mut body_temps = HashSet::new();
        let mut body_locals = HashSet::new();
        let mut reductions = Vec::new();
        let mut dtype = None;
        for s in body {
            match s {
                Stmt::Line(_) => {}
                Stmt::Assign { local, value }
                    if self.shared.fastmath && reduced(local.0, value).is_some() =>
                {
                    let d = self.f.locals[local.0].ty.scalar()?;
                    if !matches!(d, DType::F64 | DType::F32) || dtype.is_some_and(|x| x != d) {
                        return None;
                    }
                    dtype = Some(d);
                    reductions.push((local.0, reduced(local.0, value)?.0));
                }
                Stmt::Assign { local, value } if matches!(value.kind, K::Temp(t) if t == index) => {
                    counter_locals.insert(local.0);
                }
                Stmt::Assign { local, .. } if local.0 >= self.f.params.len() => {
                    body_locals.insert(local.0);
                }
                Stmt::Let { temp, value, .. } => {
                    body_temps.insert(*temp);
                    let _ = value;
                }
                Stmt::Store { place, .. } => {
                    let d = place.ty.dtype;
                    if !matches!(d, DType::F64 | DType::F32) || dtype.is_some_and(|x| x != d) {
                        return None;
                    }
                    dtype = Some(d);
                }
                _ => return None,
            }
        }
        let dtype = dtype?;
        if counter_locals.iter().any(|l| body_locals.contains(l)) {
            return None;
        }
        let scope = Scope {
            counter: index,
            counter_locals: &counter_locals,
            body_temps: &body_temps,
            body_locals: &body_locals,
        };
        // A reduction's variable is read only by its own update.
        let reduced_locals: HashSet<usize> = reductions.iter().map(|(l, _)| *l).collect();
        let reads = ember_jit::ir::expressions(body)
            .into_iter()
            .filter(|e| matches!(e.kind, K::Local(l) if reduced_locals.contains(&l.0)))
            .count();
        if reads != reductions.len() {
            return None;
        }
        // A variable read in an iteration before that iteration sets it carries a value from
        // one iteration to the next (a sum): not element-wise.
        let mut set = HashSet::new();
        for s in body {
            let read = match s {
                Stmt::Let { value, .. } | Stmt::Assign { value, .. } => value.descendants(),
                Stmt::Store { place, value } => {
                    let mut v = value.descendants();
                    v.extend(place.exprs().into_iter().flat_map(|e| e.descendants()));
                    v
                }
                _ => Vec::new(),
            };
            let carried = read.iter().any(|e| {
                matches!(e.kind, K::Local(l) if body_locals.contains(&l.0) && !set.contains(&l.0))
            });
            if carried {
                return None;
            }
            if let Stmt::Assign { local, .. } = s {
                set.insert(local.0);
            }
        }
        for s in body {
            let ok = match s {
                Stmt::Assign { local, value } if reduced_locals.contains(&local.0) => {
                    let (_, rest) = reduced(local.0, value).expect("a reduction");
                    self.lanes_of(rest, dtype, &scope)
                }
                Stmt::Assign { local, value } if body_locals.contains(&local.0) => {
                    self.f.locals[local.0].ty == Ty::Scalar(dtype)
                        && self.lanes_of(value, dtype, &scope)
                }
                Stmt::Let { value, .. } => self.lanes_of(value, dtype, &scope),
                Stmt::Store { place, value } => {
                    self.at_counter(place, dtype, &scope) && self.lanes_of(value, dtype, &scope)
                }
                _ => true,
            };
            if !ok {
                return None;
            }
        }
        // An array written may be read in the same loop only at the element being written.
        let written: Vec<&Place> = body
            .iter()
            .filter_map(|s| match s {
                Stmt::Store { place, .. } => Some(place),
                _ => None,
            })
            .collect();
        for s in body {
            let exprs = match s {
                Stmt::Let { value, .. } | Stmt::Store { value, .. } => value.descendants(),
                _ => continue,
            };
            for e in exprs {
                if let K::Element(p) = &e.kind {
                    let same_array = written
                        .iter()
                        .any(|w| format!("{:?}", w.array) == format!("{:?}", p.array));
                    let same_element = written.iter().any(|w| format!("{w:?}") == format!("{p:?}"));
                    if same_array && !same_element {
                        return None;
                    }
                }
            }
        }
        Some(Plan {
            dtype,
            counter_locals: counter_locals.into_iter().collect(),
            reductions,
        })
    }

    /// A place at the counter along the last axis of a C-contiguous array, the rest invariant.
    fn at_counter(&self, p: &Place, dtype: DType, scope: &Scope) -> bool {
        if p.ty.layout != Layout::C || p.ty.dtype != dtype || p.ty.fixed.is_some() {
            return false;
        }
        let Some((last, rest)) = p.indices.split_last() else {
            return false;
        };
        self.invariant(&p.array, scope)
            && rest.iter().all(|i| self.invariant(i, scope))
            && self.counter_offset(last, scope).is_some()
    }

    /// `counter + k` (a constant k) as an index: k.
    fn counter_offset(&self, e: &Expr, scope: &Scope) -> Option<i64> {
        let is_counter = |x: &Expr| match &x.kind {
            K::Temp(t) => *t == scope.counter,
            K::Local(l) => scope.counter_locals.contains(&l.0),
            _ => false,
        };
        match &e.kind {
            _ if is_counter(e) => Some(0),
            K::Wrap { index, .. } if self.at_least_zero(index) => self.counter_offset(index, scope),
            K::Binary(op @ (BinOp::Add | BinOp::Sub), x, c) if is_counter(x) => match c.kind {
                K::Const(Const::Int(k)) => Some(if *op == BinOp::Add { k } else { -k }),
                _ => None,
            },
            _ => None,
        }
    }

    /// The same value in every iteration (and free of effects).
    fn invariant(&self, e: &Expr, scope: &Scope) -> bool {
        e.descendants().iter().all(|x| match &x.kind {
            K::Temp(t) => *t != scope.counter && !scope.body_temps.contains(t),
            K::Local(l) => {
                !scope.counter_locals.contains(&l.0)
                    && !scope.body_locals.contains(&l.0)
                    && self.inlined.is_empty()
            }
            K::Const(_)
            | K::Dim(..)
            | K::Stride(..)
            | K::Cast(_)
            | K::Unary(..)
            | K::Wrap { .. } => true,
            K::Binary(op, ..) => {
                !matches!(op, BinOp::Div | BinOp::FloorDiv | BinOp::Mod | BinOp::Pow)
            }
            _ => false,
        })
    }

    /// `e` computed lane by lane exactly as the scalar code computes it.
    fn lanes_of(&self, e: &Expr, dtype: DType, scope: &Scope) -> bool {
        if e.ty != Ty::Scalar(dtype) {
            return false;
        }
        if self.invariant(e, scope) {
            return true;
        }
        let all = |xs: &[Expr]| xs.iter().all(|x| self.lanes_of(x, dtype, scope));
        match &e.kind {
            K::Element(p) => self.at_counter(p, dtype, scope),
            K::Temp(t) => scope.body_temps.contains(t),
            K::Local(l) => scope.body_locals.contains(&l.0),
            K::Binary(BinOp::Add | BinOp::Sub | BinOp::Mult, l, r) => {
                self.lanes_of(l, dtype, scope) && self.lanes_of(r, dtype, scope)
            }
            // Python's division raises for a zero divisor: only a constant one other than 0.
            K::Binary(BinOp::Div, l, r) => {
                self.lanes_of(l, dtype, scope)
                    && matches!(r.kind, K::Const(Const::Float(c)) if c != 0.0)
            }
            K::Binary(BinOp::Pow, l, r) => {
                self.lanes_of(l, dtype, scope) && vector_exponent(r).is_some()
            }
            K::Unary(UnaryOp::Neg, x) | K::Abs(x) => self.lanes_of(x, dtype, scope),
            K::Math(name, args) => {
                matches!(*name, "sqrt" | "fabs" | "floor" | "ceil" | "trunc" | "rint") && all(args)
            }
            K::Ufunc { name, ins, args } => {
                ins.iter().all(|d| *d == dtype)
                    && match *name {
                        "add" | "subtract" | "multiply" | "divide" | "negative" | "absolute"
                        | "sqrt" | "square" | "positive" => all(args),
                        "power" => {
                            self.lanes_of(&args[0], dtype, scope)
                                && vector_exponent(&args[1]).is_some()
                        }
                        _ => false,
                    }
            }
            K::Call(k, args) => {
                // A helper computed in place: its expression of its parameters, lane by lane.
                let callee = &self.program.functions[*k];
                super::inlinable(callee, *k).is_some_and(|body| {
                    callee
                        .params
                        .iter()
                        .all(|p| p.ty == Ty::Scalar(dtype) && callee.locals[p.local.0].ty == p.ty)
                        && all(args)
                        && callee_lanes(body, dtype)
                })
            }
            _ => false,
        }
    }

    /// Runs the loop's leading iterations (a multiple of the lane count, from the counter's
    /// value up to `stop`) as vector iterations, leaving the counter at the first one left.
    pub(super) fn vector_prefix(
        &mut self,
        plan: &Plan,
        index: Temp,
        stop: Value,
        body: &[Stmt],
    ) -> Result<(), String> {
        let lanes: i64 = if plan.dtype == DType::F64 { 2 } else { 4 };
        // Several vectors per trip, as the scalar loops are unrolled (see `unroll`).
        let copies = super::unroll::unroll_factor(body).clamp(1, 4);
        let vt = vector_type(plan.dtype);
        let counter = self.counter(index)?;
        let first = counter.get(&mut self.b)?.number()?;
        // The last start of a whole trip.
        let end = self.whole_trips_end(first, stop, lanes * copies);
        let apart = self.arrays_apart(body)?;
        let end = self.b.ins().select(apart, end, first);
        // Each reduction keeps a vector of partial results per copy (fastmath reassociates).
        let partials: Vec<Vec<_>> = plan
            .reductions
            .iter()
            .map(|(_, op)| {
                let one = if *op == BinOp::Add { 0.0 } else { 1.0 };
                let c = if plan.dtype == DType::F64 {
                    self.b.ins().f64const(one)
                } else {
                    self.b.ins().f32const(one as f32)
                };
                let start = self.b.ins().splat(vt, c);
                (0..copies)
                    .map(|_| {
                        let var = self.b.declare_var(vt);
                        self.b.def_var(var, start);
                        var
                    })
                    .collect()
            })
            .collect();
        let (inner, exit) = (self.b.create_block(), self.b.create_block());
        let go = self.b.ins().icmp(IntCC::SignedLessThan, first, end);
        self.b.ins().brif(go, inner, &[], exit, &[]);
        self.b.switch_to_block(inner);
        let i = counter.get(&mut self.b)?.number()?;
        for copy in 0..copies {
            let at = if copy == 0 {
                i
            } else {
                let at = self.b.ins().iadd_imm_s(i, copy * lanes);
                counter.set(&mut self.b, &Val::Number(at))?;
                at
            };
            for l in &plan.counter_locals {
                self.locals[*l].clone().set(&mut self.b, &Val::Number(at))?;
            }
            let partials: Vec<_> = partials.iter().map(|p| p[copy as usize]).collect();
            self.vector_iteration(plan, body, vt, lanes, &partials)?;
        }
        let next = self.b.ins().iadd_imm_s(i, lanes * copies);
        counter.set(&mut self.b, &Val::Number(next))?;
        let again = self.b.ins().icmp(IntCC::SignedLessThan, next, end);
        self.b.ins().brif(again, inner, &[], exit, &[]);
        self.b.seal_block(inner);
        self.enter(exit);
        // Each reduction: its copies' and lanes' partial results combined, then into the
        // variable (the scalar loop goes on from there).
        for ((l, op), vars) in plan.reductions.iter().zip(&partials) {
            let join = |s: &mut Self, x, y| {
                if *op == BinOp::Add {
                    s.b.ins().fadd(x, y)
                } else {
                    s.b.ins().fmul(x, y)
                }
            };
            let mut acc = self.b.use_var(vars[0]);
            for var in &vars[1..] {
                let v = self.b.use_var(*var);
                acc = join(self, acc, v);
            }
            let mut total = self.b.ins().extractlane(acc, 0);
            for lane in 1..lanes {
                let x = self.b.ins().extractlane(acc, lane as u8);
                total = join(self, total, x);
            }
            let slots = self.locals[*l].clone();
            let before = slots.get(&mut self.b)?.number()?;
            let v = join(self, before, total);
            slots.set(&mut self.b, &Val::Number(v))?;
        }
        // The loop's variable holds the last index taken, as after the scalar loop.
        if !plan.counter_locals.is_empty() {
            let ran = self.b.ins().icmp(IntCC::SignedLessThan, first, end);
            let last = self.b.ins().iadd_imm_s(end, -1);
            for l in &plan.counter_locals {
                let slots = self.locals[*l].clone();
                let before = slots.get(&mut self.b)?.number()?;
                let v = self.b.ins().select(ran, last, before);
                slots.set(&mut self.b, &Val::Number(v))?;
            }
        }
        Ok(())
    }

    /// One vector of iterations, the counter at its first: the body's values in lanes, its
    /// stores whole vectors, each reduction into its vector of partial results.
    fn vector_iteration(
        &mut self,
        plan: &Plan,
        body: &[Stmt],
        vt: Type,
        lanes: i64,
        partials: &[cranelift_frontend::Variable],
    ) -> Result<(), String> {
        let mut lanes_of = Lanes::default();
        for s in body {
            match s {
                Stmt::Let { temp, value, .. } => {
                    let v = self.vector(value, vt, &lanes_of)?;
                    lanes_of.temps.insert(*temp, v);
                }
                Stmt::Assign { local, value }
                    if plan.reductions.iter().any(|(l, _)| *l == local.0) =>
                {
                    let k = plan
                        .reductions
                        .iter()
                        .position(|(l, _)| *l == local.0)
                        .expect("one");
                    let (op, rest) = reduced(local.0, value).expect("a reduction");
                    let v = self.vector(rest, vt, &lanes_of)?;
                    let acc = self.b.use_var(partials[k]);
                    let acc = if op == BinOp::Add {
                        self.b.ins().fadd(acc, v)
                    } else {
                        self.b.ins().fmul(acc, v)
                    };
                    self.b.def_var(partials[k], acc);
                }
                Stmt::Assign { local, value } if !plan.counter_locals.contains(&local.0) => {
                    let v = self.vector(value, vt, &lanes_of)?;
                    lanes_of.locals.insert(local.0, v);
                    // Read after the loop, the variable holds the last element's value.
                    let last = self.b.ins().extractlane(v, (lanes - 1) as u8);
                    self.locals[local.0]
                        .clone()
                        .set(&mut self.b, &Val::Number(last))?;
                }
                Stmt::Store { place, value } => {
                    let v = self.vector(value, vt, &lanes_of)?;
                    let address = self.element_address(place)?;
                    self.b.ins().store(flags(), v, address, 0);
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Whether every array written lies apart from every other array the body reads (by the
    /// memory each spans); an array read at the element written is the array itself.
    fn arrays_apart(&mut self, body: &[Stmt]) -> Result<Value, String> {
        let mut written = Vec::new();
        let mut read = Vec::new();
        for s in body {
            let exprs = match s {
                Stmt::Store { place, value } => {
                    written.push(place.array.as_ref().clone());
                    value.descendants()
                }
                Stmt::Let { value, .. } => value.descendants(),
                _ => continue,
            };
            for e in exprs {
                if let K::Element(p) = &e.kind {
                    read.push(p.array.as_ref().clone());
                }
            }
        }
        let mut apart = self.b.ins().iconst(types::I8, 1);
        for w in &written {
            let (wlo, whi) = self.span_of(w)?;
            for r in &read {
                if format!("{w:?}") == format!("{r:?}") {
                    continue;
                }
                let (rlo, rhi) = self.span_of(r)?;
                let before = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, whi, rlo);
                let after = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, rhi, wlo);
                let ok = self.b.ins().bor(before, after);
                apart = self.b.ins().band(apart, ok);
            }
        }
        Ok(apart)
    }

    /// The bytes a C-contiguous array spans: its address and one past its last element.
    fn span_of(&mut self, array: &Expr) -> Result<(Value, Value), String> {
        let a = self.expr(array)?.array()?.clone();
        let bytes = match (a.shape.first(), a.strides.first()) {
            (Some(n), Some(s)) => self.b.ins().imul(*n, *s),
            _ => self.b.ins().iconst(types::I64, 8),
        };
        let end = self.b.ins().iadd(a.data, bytes);
        Ok((a.data, end))
    }

    /// `e` for the lanes of one vector iteration.
    fn vector(&mut self, e: &Expr, vt: Type, lanes: &Lanes) -> Result<Value, String> {
        let d = super::expr::dtype_of(e)?;
        let varies = e.descendants().iter().any(|x| {
            matches!(x.kind, K::Element(_) | K::Temp(_) | K::Call(..))
                || matches!(x.kind, K::Local(l) if lanes.locals.contains_key(&l.0))
                || self.reads_frame(x)
        });
        if !varies {
            let x = self.expr(e)?.number()?;
            return Ok(self.b.ins().splat(vt, x));
        }
        Ok(match &e.kind {
            K::Local(l) if self.inlined.is_empty() && lanes.locals.contains_key(&l.0) => {
                lanes.locals[&l.0]
            }
            K::Temp(t) => match lanes.temps.get(t) {
                Some(v) => *v,
                None => {
                    let x = self.expr(e)?.number()?;
                    self.b.ins().splat(vt, x)
                }
            },
            K::Local(l) if !self.inlined.is_empty() => {
                self.inlined.last().expect("a frame")[l.0].number()?
            }
            K::Element(p) => {
                let address = self.element_address(p)?;
                self.b.ins().load(vt, flags(), address, 0)
            }
            K::Binary(op, l, r) => {
                let x = self.vector(l, vt, lanes)?;
                match op {
                    BinOp::Pow => {
                        let c = vector_exponent(r).ok_or("a vector power")?;
                        self.constant_power(d, x, c, false)
                            .ok_or("a vector power")?
                    }
                    _ => {
                        let y = self.vector(r, vt, lanes)?;
                        match op {
                            BinOp::Add => self.b.ins().fadd(x, y),
                            BinOp::Sub => self.b.ins().fsub(x, y),
                            BinOp::Mult => self.b.ins().fmul(x, y),
                            _ => self.b.ins().fdiv(x, y),
                        }
                    }
                }
            }
            K::Unary(_, x) => {
                let v = self.vector(x, vt, lanes)?;
                self.b.ins().fneg(v)
            }
            K::Abs(x) => {
                let v = self.vector(x, vt, lanes)?;
                self.b.ins().fabs(v)
            }
            K::Math(name, args) => {
                let v = self.vector(&args[0], vt, lanes)?;
                math_lanes(self, name, v)?
            }
            K::Ufunc { name, args, .. } => {
                let x = self.vector(&args[0], vt, lanes)?;
                match *name {
                    "power" => {
                        let c = vector_exponent(&args[1]).ok_or("a vector power")?;
                        self.constant_power(d, x, c, true).ok_or("a vector power")?
                    }
                    "negative" => self.b.ins().fneg(x),
                    "absolute" => self.b.ins().fabs(x),
                    "positive" => x,
                    "sqrt" => self.b.ins().sqrt(x),
                    "square" => self.b.ins().fmul(x, x),
                    _ => {
                        let y = self.vector(&args[1], vt, lanes)?;
                        match *name {
                            "add" => self.b.ins().fadd(x, y),
                            "subtract" => self.b.ins().fsub(x, y),
                            "multiply" => self.b.ins().fmul(x, y),
                            _ => self.b.ins().fdiv(x, y),
                        }
                    }
                }
            }
            K::Call(k, args) => {
                let mut frame = Vec::with_capacity(args.len());
                for a in args {
                    frame.push(Val::Number(self.vector(a, vt, lanes)?));
                }
                let body = super::inlinable(&self.program.functions[*k], *k)
                    .ok_or("a vector call of a function not inlined")?;
                self.inlined.push(frame);
                let v = self.vector(body, vt, lanes);
                self.inlined.pop();
                v?
            }
            _ => return Err("an expression the vector loop cannot compute".into()),
        })
    }

    /// `e` is a parameter of the helper being inlined (its lanes differ).
    fn reads_frame(&self, e: &Expr) -> bool {
        !self.inlined.is_empty() && matches!(e.kind, K::Local(_))
    }
}

/// Whether an inlined helper's expression can be computed lane by lane: its parameters are
/// lanes, the rest as in [`Lowering::lanes_of`].
fn callee_lanes(body: &Expr, dtype: DType) -> bool {
    body.descendants().iter().all(|x| match &x.kind {
        K::Local(_) | K::Const(_) => true,
        K::Binary(BinOp::Add | BinOp::Sub | BinOp::Mult, ..) => x.ty == Ty::Scalar(dtype),
        K::Binary(BinOp::Div, _, r) => matches!(r.kind, K::Const(Const::Float(c)) if c != 0.0),
        K::Binary(BinOp::Pow, _, r) => vector_exponent(r).is_some(),
        K::Unary(UnaryOp::Neg, _) | K::Abs(_) => true,
        K::Math(name, _) => matches!(*name, "sqrt" | "fabs" | "floor" | "ceil" | "trunc" | "rint"),
        _ => false,
    }) && body
        .descendants()
        .iter()
        .all(|x| x.ty == Ty::Scalar(dtype) || matches!(x.kind, K::Const(_)))
}

/// `local = local + rest` or `local = local * rest`: the operator and `rest`.
fn reduced(local: usize, value: &Expr) -> Option<(BinOp, &Expr)> {
    match &value.kind {
        K::Binary(op @ (BinOp::Add | BinOp::Mult), x, rest) if matches!(x.kind, K::Local(l) if l.0 == local) => {
            Some((*op, &**rest))
        }
        _ => None,
    }
}

/// A constant exponent the vector loop computes without a call.
fn vector_exponent(e: &Expr) -> Option<Exponent> {
    match e.kind {
        K::Const(Const::Int(n)) if n.unsigned_abs() <= 64 => Some(Exponent::Int(n)),
        K::Const(Const::Float(x)) if [0.5, 1.0, 2.0, -1.0].contains(&x) => Some(Exponent::Float(x)),
        _ => None,
    }
}

/// One of C's rounding and root functions on every lane.
fn math_lanes(l: &mut Lowering, name: &str, v: Value) -> Result<Value, String> {
    Ok(match name {
        "sqrt" => l.b.ins().sqrt(v),
        "fabs" => l.b.ins().fabs(v),
        "floor" => l.b.ins().floor(v),
        "ceil" => l.b.ins().ceil(v),
        "trunc" => l.b.ins().trunc(v),
        "rint" => l.b.ins().nearest(v),
        other => return Err(format!("{other} on vector lanes")),
    })
}

fn vector_type(d: DType) -> Type {
    number_type(d)
        .by(if d == DType::F64 { 2 } else { 4 })
        .expect("a 128-bit vector")
}

fn flags() -> MemFlagsData {
    let mut f = MemFlagsData::new();
    f.set_notrap();
    f
}
