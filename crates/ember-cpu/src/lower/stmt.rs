//! Statements: assignments, control flow, stores and views.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::InstBuilder;
use ember_core::dtype::Kind;
use ember_jit::ir::{Failure, Step, Stmt};
use ember_jit::Ty;

use super::{LoopExits, Lowering};
use crate::abi::{Builtin, Fault};
use crate::values::Val;

impl Lowering<'_, '_> {
    pub(crate) fn block(&mut self, stmts: &[Stmt]) -> Result<(), String> {
        stmts.iter().try_for_each(|s| self.stmt(s))
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), String> {
        match s {
            Stmt::Line(n) => self.line = *n,
            Stmt::Assign { local, value } => {
                let v = self.expr(value)?;
                self.locals[local.0].clone().set(&mut self.b, &v)?;
            }
            Stmt::Let { temp, value, .. } | Stmt::Set { temp, value } => {
                let v = self.expr(value)?;
                let slots = self.temp_slots(*temp, &value.ty)?;
                slots.set(&mut self.b, &v)?;
            }
            Stmt::Declare { temp, ty } => {
                self.temp_slots(*temp, ty)?;
            }
            Stmt::Store { place, value } => {
                let v = self.expr(value)?;
                let address = self.element_address(place)?;
                self.store_element(place.ty.dtype, address, &v)?;
            }
            Stmt::Update {
                pointer,
                place,
                value,
            } => {
                let address = self.element_address(place)?;
                let old = self.load_element(place.ty.dtype, address)?;
                self.pointers.insert(*pointer, address);
                let saved = self.current.replace((old, address));
                let v = self.expr(value);
                self.current = saved;
                self.store_element(place.ty.dtype, address, &v?)?;
            }
            Stmt::Eval(e) => {
                self.expr(e)?;
            }
            Stmt::If {
                cond,
                negate,
                then,
                orelse,
            } => {
                if self.if_converted(cond, *negate, then, orelse)? {
                    return Ok(());
                }
                let c = self.truth(cond)?;
                let (t, e, join) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                if *negate {
                    self.b.ins().brif(c, e, &[], t, &[]);
                } else {
                    self.b.ins().brif(c, t, &[], e, &[]);
                }
                self.enter(t);
                self.block(then)?;
                self.b.ins().jump(join, &[]);
                self.enter(e);
                self.block(orelse)?;
                self.b.ins().jump(join, &[]);
                self.enter(join);
            }
            Stmt::While { setup, cond, body } => {
                let (head, inner, exit) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.ins().jump(head, &[]);
                self.b.switch_to_block(head);
                self.block(setup)?;
                let c = self.truth(cond)?;
                self.b.ins().brif(c, inner, &[], exit, &[]);
                self.enter(inner);
                self.loops.push(LoopExits { next: head, exit });
                let done = self.block(body);
                self.loops.pop();
                done?;
                self.b.ins().jump(head, &[]);
                self.b.seal_block(head);
                self.enter(exit);
            }
            Stmt::For {
                index,
                ty,
                start,
                stop,
                step,
                body,
                parallel,
            } => {
                if self.runs_in_parallel(*parallel, matches!(step, Step::One), body) {
                    self.parallel_loop(*index, *ty, start, stop, body)?
                } else {
                    self.counted_loop(*index, *ty, start, stop, step, body)?
                }
            }
            Stmt::Block(body) => self.block(body)?,
            Stmt::LoopFlag(flag) => {
                let slots = self.temp_slots(*flag, &Ty::Scalar(ember_core::DType::Bool))?;
                let zero = self.b.ins().iconst(cranelift_codegen::ir::types::I8, 0);
                slots.set(&mut self.b, &Val::Number(zero))?;
            }
            Stmt::Unbroken { flag, body } => {
                let slots = self.temp_slots(*flag, &Ty::Scalar(ember_core::DType::Bool))?;
                let broke = slots.get(&mut self.b)?.number()?;
                let (run, join) = (self.b.create_block(), self.b.create_block());
                self.b.ins().brif(broke, join, &[], run, &[]);
                self.enter(run);
                self.block(body)?;
                self.b.ins().jump(join, &[]);
                self.enter(join);
            }
            Stmt::Break { flag } => {
                if let Some(flag) = flag {
                    let slots = self.temp_slots(*flag, &Ty::Scalar(ember_core::DType::Bool))?;
                    let one = self.b.ins().iconst(cranelift_codegen::ir::types::I8, 1);
                    slots.set(&mut self.b, &Val::Number(one))?;
                }
                let exit = self.loops.last().ok_or("break outside a loop")?.exit;
                self.b.ins().jump(exit, &[]);
                self.dead();
            }
            Stmt::Continue => {
                let next = self.loops.last().ok_or("continue outside a loop")?.next;
                self.b.ins().jump(next, &[]);
                self.dead();
            }
            Stmt::Return(value) => {
                let v = match value {
                    Some(e) => self.expr(e)?,
                    None => Val::Unit,
                };
                let mut values = Vec::new();
                v.flatten(&mut values);
                self.b.ins().return_(&values);
                self.dead();
            }
            Stmt::Raise(n) => self.raise(Fault::Raised(*n))?,
            Stmt::Require {
                cond,
                failure,
                details,
            } => {
                let ok = self.truth(cond)?;
                let mut values = Vec::new();
                for d in details {
                    values.push(self.expr(d)?.number()?);
                }
                if let Failure::PythonIntOutOfBounds { dtype } = failure {
                    let row = dtype.row() as i64;
                    values.push(self.b.ins().iconst(cranelift_codegen::ir::types::I64, row));
                }
                self.require(ok, Fault::Builtin(builtin_of(*failure)), &values)?;
            }
            Stmt::View {
                temp,
                ty,
                base,
                axes,
            } => {
                let v = self.view(base, axes)?;
                self.temp_slots(*temp, ty)?.set(&mut self.b, &v)?;
            }
            Stmt::Transpose { temp, ty, base } => {
                let a = self.expr(base)?.array()?.clone();
                let mut t = a.clone();
                t.shape.reverse();
                t.strides.reverse();
                self.temp_slots(*temp, ty)?.set(&mut self.b, &Val::Array(t))?;
            }
            Stmt::FieldView { .. } | Stmt::Reinterpret { .. } => {
                return Err("record fields and reinterpreted arrays (.real, .imag, .view()) are not compiled for the CPU yet".into())
            }
            Stmt::DynamicShared { .. } => {
                return Err("cuda.shared.array exists only in CUDA kernels".into())
            }
        }
        Ok(())
    }

    /// A `for` loop over `range`: the index from `start` while below (above) `stop`.
    fn counted_loop(
        &mut self,
        index: ember_jit::ir::Temp,
        ty: ember_core::DType,
        start: &ember_jit::ir::Expr,
        stop: &ember_jit::ir::Expr,
        step: &Step,
        body: &[Stmt],
    ) -> Result<(), String> {
        let t = crate::values::number_type(ty);
        let signed = ty.kind() == Kind::Int;
        let counter = self.temp_slots(index, &Ty::Scalar(ty))?;
        let first = self.expr(start)?;
        counter.set(&mut self.b, &first)?;
        // Rotated: tested once before the loop, then at the bottom of each iteration, so an
        // iteration takes one branch (Cranelift keeps blocks in the order they are made).
        let (inner, next, exit) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        // Python evaluates the stop once, before the loop.
        let n = self.expr(stop)?.number()?;
        if matches!(step, Step::One) {
            self.loop_prefix(index, ty, n, body)?;
        }
        let go = self.loop_test(&counter, n, step, signed)?;
        self.b.ins().brif(go, inner, &[], exit, &[]);
        self.b.switch_to_block(inner);
        self.loops.push(LoopExits { next, exit });
        let done = self.block(body);
        self.loops.pop();
        done?;
        self.b.ins().jump(next, &[]);
        self.enter(next);
        let i = counter.get(&mut self.b)?.number()?;
        let i = match step {
            Step::One => self.b.ins().iadd_imm_s(i, 1),
            Step::Const(k) => self.b.ins().iadd_imm_s(i, *k),
            Step::Var(s) => {
                let s = self.temps.get(s).ok_or("a loop step never set")?.clone();
                let s = s.get(&mut self.b)?.number()?;
                let s = if self.b.func.dfg.value_type(s) == t {
                    s
                } else {
                    self.b.ins().ireduce(t, s)
                };
                self.b.ins().iadd(i, s)
            }
        };
        counter.set(&mut self.b, &Val::Number(i))?;
        let again = self.loop_test(&counter, n, step, signed)?;
        self.b.ins().brif(again, inner, &[], exit, &[]);
        self.b.seal_block(inner);
        self.enter(exit);
        Ok(())
    }

    /// Whether a counted loop goes on: the counter below (above) the stop.
    fn loop_test(
        &mut self,
        counter: &crate::values::Slots,
        n: cranelift_codegen::ir::Value,
        step: &Step,
        signed: bool,
    ) -> Result<cranelift_codegen::ir::Value, String> {
        let i = counter.get(&mut self.b)?.number()?;
        let (lt, gt) = if signed {
            (IntCC::SignedLessThan, IntCC::SignedGreaterThan)
        } else {
            (IntCC::UnsignedLessThan, IntCC::UnsignedGreaterThan)
        };
        Ok(match step {
            Step::One => self.b.ins().icmp(lt, i, n),
            Step::Const(k) if *k > 0 => self.b.ins().icmp(lt, i, n),
            Step::Const(_) => self.b.ins().icmp(gt, i, n),
            Step::Var(s) => {
                let s = self.temps.get(s).ok_or("a loop step never set")?.clone();
                let s = s.get(&mut self.b)?.number()?;
                let up = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, s, 0);
                let down = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, s, 0);
                let below = self.b.ins().icmp(lt, i, n);
                let above = self.b.ins().icmp(gt, i, n);
                let going_down = self.b.ins().band(down, above);
                self.b.ins().select(up, below, going_down)
            }
        })
    }
}

/// The exception a host function's check raises.
fn builtin_of(f: Failure) -> Builtin {
    match f {
        Failure::Broadcast => Builtin::Broadcast,
        Failure::BroadcastInto => Builtin::BroadcastInto,
        Failure::EmptyExtremum { max: true } => Builtin::EmptyMaximum,
        Failure::EmptyExtremum { max: false } => Builtin::EmptyMinimum,
        Failure::EmptyNanExtremum { max: true } => Builtin::EmptyFmax,
        Failure::EmptyNanExtremum { max: false } => Builtin::EmptyFmin,
        Failure::EmptyArgExtremum { max: true } => Builtin::EmptyArgmax,
        Failure::EmptyArgExtremum { max: false } => Builtin::EmptyArgmin,
        Failure::PythonIntOutOfBounds { .. } => Builtin::PythonIntOutOfBounds,
        Failure::TupleIndex => Builtin::TupleIndex,
        Failure::RangeStepZero => Builtin::RangeStepZero,
        Failure::AllNan => Builtin::AllNan,
        Failure::MaskShape => Builtin::MaskShape,
        Failure::MaskAssign => Builtin::MaskAssign,
        Failure::Axis => Builtin::Axis,
    }
}
