//! `prange` loops of `parallel=True` functions: the loop body becomes a function of its own
//! that runs a chunk of the iterations, ember's runtime runs the chunks on threads
//! ([`crate::runtime`]), and reductions (`s += x`, `p *= x`, `m = max(m, x)`...) are combined
//! after, as Numba does. Every variable of the function is copied into an environment the
//! chunks read; a variable the body assigns that is not a reduction is private to a chunk.

use cranelift_codegen::ir::{
    types, AbiParam, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, UserFuncName, Value,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::Linkage;
use ember_core::dtype::Kind;
use ember_core::DType;
use ember_jit::ast::BinOp;
use ember_jit::ir::{statements, Expr, ExprKind as K, LocalId, NanRule, Stmt, Temp};
use ember_jit::Ty;

use super::{LoopExits, Lowering};
use crate::values::{machine_types, number_type, Slots, Val};

/// The most threads a loop is split among (the partial results live on the stack).
pub(crate) const MOST_CHUNKS: usize = 64;

/// How a reduction variable combines.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Combine {
    /// `+=` and `-=` (a chunk starts at 0; partial sums are added).
    Add,
    /// `*=` (a chunk starts at 1).
    Mul,
    Or,
    Xor,
    And,
    /// `m = max(m, x)` / `min` (a chunk starts at the value before the loop).
    Extremum {
        max: bool,
        rule: NanRule,
    },
}

/// The reduction each assignment of `local` in `body` makes, if every one makes the same and
/// nothing else in the body reads it.
fn reduction(local: LocalId, body: &[Stmt]) -> Option<Combine> {
    let mut found: Option<Combine> = None;
    let reads_local = |e: &Expr| {
        e.descendants()
            .iter()
            .any(|d| matches!(d.kind, K::Local(id) if id == local))
    };
    for s in statements(body) {
        match s {
            Stmt::Assign { local: l, value } if *l == local => {
                let (c, rest) = reduction_of(local, value)?;
                if reads_local(rest) || found.is_some_and(|f| f != c) {
                    return None;
                }
                found = Some(c);
            }
            other => {
                if other.exprs().into_iter().any(reads_local) {
                    return None;
                }
            }
        }
    }
    found
}

/// `local = local op x` (the variable maybe converted first): the combination and `x`.
fn reduction_of(local: LocalId, value: &Expr) -> Option<(Combine, &Expr)> {
    let is_local = |e: &Expr| match &e.kind {
        K::Local(id) => *id == local,
        K::Cast(x) => matches!(x.kind, K::Local(id) if id == local),
        _ => false,
    };
    let value = match &value.kind {
        K::Cast(x) => x,
        _ => value,
    };
    match &value.kind {
        K::Binary(op, l, r) if is_local(l) => {
            let c = match op {
                BinOp::Add | BinOp::Sub => Combine::Add,
                BinOp::Mult => Combine::Mul,
                BinOp::BitOr => Combine::Or,
                BinOp::BitXor => Combine::Xor,
                BinOp::BitAnd => Combine::And,
                _ => return None,
            };
            Some((c, r))
        }
        K::Binary(BinOp::Add | BinOp::Mult, l, r) if is_local(r) => {
            let c = if matches!(value.kind, K::Binary(BinOp::Add, ..)) {
                Combine::Add
            } else {
                Combine::Mul
            };
            Some((c, l))
        }
        K::Extremum { max, rule, args } if is_local(&args[0]) => Some((
            Combine::Extremum {
                max: *max,
                rule: *rule,
            },
            &args[1],
        )),
        _ => None,
    }
}

/// Whether the loop body leaves the loop early (then it runs serially).
fn leaves_early(body: &[Stmt]) -> bool {
    fn walk(body: &[Stmt], depth: usize) -> bool {
        body.iter().any(|s| match s {
            Stmt::Return(_) => true,
            Stmt::Break { .. } if depth == 0 => true,
            Stmt::For { body, .. } | Stmt::While { body, .. } => walk(body, depth + 1),
            other => other.blocks().into_iter().any(|b| walk(b, depth)),
        })
    }
    walk(body, 0)
}

/// Every variable a chunk needs, in a fixed order: the function's locals, then the
/// temporaries made so far.
struct Environment {
    locals: Vec<Slots>,
    temps: Vec<(Temp, Slots)>,
}

impl Environment {
    fn slots(&self) -> impl Iterator<Item = &Slots> {
        self.locals.iter().chain(self.temps.iter().map(|(_, s)| s))
    }

    fn words(&self) -> Result<usize, String> {
        let mut n = 0;
        for s in self.slots() {
            n += machine_types(s.ty())?.len();
        }
        Ok(n)
    }
}

impl Lowering<'_, '_> {
    /// Whether the `for` loop can be lowered by [`Self::parallel_loop`].
    pub(crate) fn runs_in_parallel(&self, parallel: bool, one_step: bool, body: &[Stmt]) -> bool {
        parallel && self.shared.parallel && one_step && !leaves_early(body)
    }

    /// `for index in prange(start, stop)`, its chunks on threads.
    pub(crate) fn parallel_loop(
        &mut self,
        index: Temp,
        ty: DType,
        start: &Expr,
        stop: &Expr,
        body: &[Stmt],
    ) -> Result<(), String> {
        let reductions: Vec<(LocalId, Combine)> = (0..self.locals.len())
            .filter_map(|k| reduction(LocalId(k), body).map(|c| (LocalId(k), c)))
            .filter(|(l, _)| matches!(self.f.locals[l.0].ty, Ty::Scalar(d) if !d.is_complex()))
            .collect();
        let mut temps: Vec<(Temp, Slots)> =
            self.temps.iter().map(|(t, s)| (*t, s.clone())).collect();
        temps.sort_by_key(|(t, _)| (t.role.prefix(), t.n));
        let env = Environment {
            locals: self.locals.clone(),
            temps,
        };
        let words = env.words()?;
        let body_fn = self.outline(index, ty, body, &env, &reductions)?;

        // The environment and the chunks' partial results, on this function's stack.
        let env_slot = self.stack_block(words.max(1))?;
        let partial_words = reductions.len().max(1);
        let partials = self.stack_block(MOST_CHUNKS * partial_words)?;
        let mut values = Vec::new();
        for s in env.slots() {
            s.get(&mut self.b)?.flatten(&mut values);
        }
        let flags = MemFlagsData::trusted();
        for (k, v) in values.iter().enumerate() {
            self.b.ins().store(flags, *v, env_slot, (k * 8) as i32);
        }
        let lo = self.expr(start)?.number()?;
        let hi = self.expr(stop)?.number()?;
        let (lo, hi) = (self.widen_index(lo, ty), self.widen_index(hi, ty));
        let mut sig = self.module.make_signature();
        sig.params.extend([AbiParam::new(types::I64); 7]);
        sig.returns.push(AbiParam::new(types::I64));
        let run = self.import("ember_cpu_parallel_for", sig)?;
        let body_ref = self.module.declare_func_in_func(body_fn, self.b.func);
        let body_address = self.b.ins().func_addr(types::I64, body_ref);
        let pw = self.b.ins().iconst(types::I64, partial_words as i64);
        let call = self.b.ins().call(
            run,
            &[self.ctx, body_address, env_slot, lo, hi, partials, pw],
        );
        let chunks = self.b.inst_results(call)[0];
        self.return_if_raised()?;
        self.combine(&reductions, partials, partial_words, chunks)
    }

    /// The address of `words` 8-byte words of this function's stack.
    pub(crate) fn stack_block(&mut self, words: usize) -> Result<Value, String> {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (words * 8) as u32,
            3,
        ));
        Ok(self.b.ins().stack_addr(types::I64, slot, 0))
    }

    fn widen_index(&mut self, v: Value, ty: DType) -> Value {
        if number_type(ty) == types::I64 {
            v
        } else if ty.kind() == Kind::Int {
            self.b.ins().sextend(types::I64, v)
        } else {
            self.b.ins().uextend(types::I64, v)
        }
    }

    /// Each reduction variable combined with every chunk's partial result, in chunk order.
    fn combine(
        &mut self,
        reductions: &[(LocalId, Combine)],
        partials: Value,
        partial_words: usize,
        chunks: Value,
    ) -> Result<(), String> {
        if reductions.is_empty() {
            return Ok(());
        }
        let (head, inner, exit) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.ins().jump(head, &[zero.into()]);
        self.b.switch_to_block(head);
        let t = self.b.append_block_param(head, types::I64);
        let more = self.b.ins().icmp(
            cranelift_codegen::ir::condcodes::IntCC::SignedLessThan,
            t,
            chunks,
        );
        self.b.ins().brif(more, inner, &[], exit, &[]);
        self.enter(inner);
        let row = self.b.ins().imul_imm_s(t, (partial_words * 8) as i64);
        let row = self.b.ins().iadd(partials, row);
        for (k, (local, c)) in reductions.iter().enumerate() {
            let Ty::Scalar(d) = self.f.locals[local.0].ty.clone() else {
                continue;
            };
            let slots = self.locals[local.0].clone();
            let current = slots.get(&mut self.b)?.number()?;
            let part =
                self.b
                    .ins()
                    .load(number_type(d), MemFlagsData::trusted(), row, (k * 8) as i32);
            let v = self.combine_one(*c, d, current, part)?;
            slots.set(&mut self.b, &Val::Number(v))?;
        }
        let next = self.b.ins().iadd_imm_s(t, 1);
        self.b.ins().jump(head, &[next.into()]);
        self.b.seal_block(head);
        self.enter(exit);
        Ok(())
    }

    fn combine_one(&mut self, c: Combine, d: DType, x: Value, y: Value) -> Result<Value, String> {
        let float = d.kind() == Kind::Float;
        Ok(match c {
            Combine::Add if float => self.b.ins().fadd(x, y),
            Combine::Add => self.b.ins().iadd(x, y),
            Combine::Mul if float => self.b.ins().fmul(x, y),
            Combine::Mul => self.b.ins().imul(x, y),
            Combine::Or => self.b.ins().bor(x, y),
            Combine::Xor => self.b.ins().bxor(x, y),
            Combine::And => self.b.ins().band(x, y),
            Combine::Extremum { max, rule } => self.extremum(max, rule, d, x, y),
        })
    }

    /// The starting value of a chunk's reduction variable (None: the value before the loop).
    fn identity(&mut self, c: Combine, d: DType) -> Option<Value> {
        let t = number_type(d);
        let float = d.kind() == Kind::Float;
        Some(match c {
            Combine::Add | Combine::Or | Combine::Xor => crate::values::zero_of(&mut self.b, t),
            Combine::Mul if float && t == types::F32 => self.b.ins().f32const(1.0),
            Combine::Mul if float => self.b.ins().f64const(1.0),
            Combine::Mul => self.b.ins().iconst(t, 1),
            Combine::And => self.b.ins().iconst(t, -1),
            Combine::Extremum { .. } => return None,
        })
    }

    /// The loop body as a function `body(context, environment, lo, hi, partial)` running
    /// iterations `lo..hi` and writing its reductions' partial results.
    fn outline(
        &mut self,
        index: Temp,
        ty: DType,
        body: &[Stmt],
        env: &Environment,
        reductions: &[(LocalId, Combine)],
    ) -> Result<cranelift_module::FuncId, String> {
        let n = self.shared.outlined.get();
        self.shared.outlined.set(n + 1);
        let mut sig = cranelift_codegen::ir::Signature::new(self.shared.call_conv);
        sig.params.extend([AbiParam::new(types::I64); 5]);
        let name = format!("prange{n}_{}", self.f.name);
        let id = self
            .module
            .declare_function(&name, Linkage::Local, &sig)
            .map_err(|e| format!("declaring a parallel loop body: {e}"))?;
        let mut ctx = self.module.make_context();
        ctx.func.signature = sig;
        ctx.func.name = UserFuncName::user(2, n as u32);
        let mut fctx = FunctionBuilderContext::new();
        {
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            let params = super::entry_block(&mut b);
            let mut inner = Lowering::new(
                b,
                &mut *self.module,
                self.program,
                self.f,
                self.functions,
                self.shared,
                Ty::None,
                params[0],
            );
            inner.line = self.line;
            inner.chunk(&params, index, ty, body, env, reductions)?;
            inner.b.seal_all_blocks();
            let config = inner.module.isa().frontend_config();
            inner.b.finalize(config);
        }
        let show = std::env::var_os("EMBER_CPU_ASM").is_some();
        ctx.set_disasm(show);
        self.module
            .define_function(id, &mut ctx)
            .map_err(|e| format!("compiling a parallel loop body: {e}"))?;
        if let Some(code) = ctx.compiled_code().filter(|_| show) {
            eprintln!("; {name}\n{}", code.vcode.as_deref().unwrap_or(""));
        }
        Ok(id)
    }

    /// The body function's code: the environment read back, the iterations, the partials.
    fn chunk(
        &mut self,
        params: &[Value],
        index: Temp,
        ty: DType,
        body: &[Stmt],
        env: &Environment,
        reductions: &[(LocalId, Combine)],
    ) -> Result<(), String> {
        let (env_block, lo, hi, partial) = (params[1], params[2], params[3], params[4]);
        let flags = MemFlagsData::trusted();
        let mut word = 0i32;
        let mut load = |l: &mut Self, ty: &Ty| -> Result<Slots, String> {
            let slots = Slots::declare(&mut l.b, ty)?;
            let values: Vec<Value> = machine_types(ty)?
                .into_iter()
                .map(|t| {
                    let v = l.b.ins().load(t, flags, env_block, word * 8);
                    word += 1;
                    v
                })
                .collect();
            slots.set(&mut l.b, &Val::assemble(ty, &mut values.into_iter())?)?;
            Ok(slots)
        };
        for s in &env.locals {
            let slots = load(self, s.ty())?;
            self.locals.push(slots);
        }
        for (t, s) in &env.temps {
            let slots = load(self, s.ty())?;
            self.temps.insert(*t, slots);
        }
        for (local, c) in reductions {
            if let Ty::Scalar(d) = self.f.locals[local.0].ty.clone() {
                if let Some(v) = self.identity(*c, d) {
                    self.locals[local.0]
                        .clone()
                        .set(&mut self.b, &Val::Number(v))?;
                }
            }
        }
        // for index in lo..hi (step 1), tested at the bottom.
        let t = number_type(ty);
        let narrow = |l: &mut Self, v: Value| {
            if t == types::I64 {
                v
            } else {
                l.b.ins().ireduce(t, v)
            }
        };
        let (first, last) = (narrow(self, lo), narrow(self, hi));
        let counter = self.temp_slots(index, &Ty::Scalar(ty))?;
        counter.set(&mut self.b, &Val::Number(first))?;
        self.loop_prefix(index, ty, last, body)?;
        let first = counter.get(&mut self.b)?.number()?;
        let (inner, next, exit) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let lt = if ty.kind() == Kind::Int {
            cranelift_codegen::ir::condcodes::IntCC::SignedLessThan
        } else {
            cranelift_codegen::ir::condcodes::IntCC::UnsignedLessThan
        };
        let go = self.b.ins().icmp(lt, first, last);
        self.b.ins().brif(go, inner, &[], exit, &[]);
        self.b.switch_to_block(inner);
        self.loops.push(LoopExits { next, exit });
        let done = self.block(body);
        self.loops.pop();
        done?;
        self.b.ins().jump(next, &[]);
        self.enter(next);
        let i = counter.get(&mut self.b)?.number()?;
        let i = self.b.ins().iadd_imm_s(i, 1);
        counter.set(&mut self.b, &Val::Number(i))?;
        let again = self.b.ins().icmp(lt, i, last);
        self.b.ins().brif(again, inner, &[], exit, &[]);
        self.b.seal_block(inner);
        self.enter(exit);
        for (k, (local, _)) in reductions.iter().enumerate() {
            let v = self.locals[local.0].clone().get(&mut self.b)?.number()?;
            self.b.ins().store(flags, v, partial, (k * 8) as i32);
        }
        self.b.ins().return_(&[]);
        self.dead();
        Ok(())
    }
}
