//! Innermost `range` loops with short, straight bodies run several iterations per trip: the
//! body lowered `factor` times one after another, the counter tested once. Cranelift does not
//! unroll by itself, and a loop of one load and one add spends most of its instructions on the
//! counter and the branch; with fewer instructions per element the processor keeps more loads
//! in flight (`s += a[i]` over a large array, each thread of a `prange` sum). The iterations
//! run in their order and each computes what it computes in the plain loop, so results are the
//! same bit for bit; the plain loop after finishes the iterations left over.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use ember_core::DType;
use ember_jit::ir::{statements, Stmt, Temp};

use super::Lowering;
use crate::values::Val;

impl Lowering<'_, '_> {
    /// Runs a step-1 loop's leading iterations the fast way the body allows (in SIMD lanes, or
    /// unrolled), leaving the counter at the first iteration left for the plain loop.
    pub(super) fn loop_prefix(
        &mut self,
        index: Temp,
        ty: DType,
        stop: Value,
        body: &[Stmt],
    ) -> Result<(), String> {
        if ty != DType::I64 {
            return Ok(());
        }
        if let Some(plan) = self.vector_plan(index, body) {
            return self.vector_prefix(&plan, index, stop, body);
        }
        match unroll_factor(body) {
            1 => Ok(()),
            factor => self.unrolled_prefix(index, stop, body, factor),
        }
    }

    /// The iterations from the counter's value up to `stop`, `factor` per trip, as many whole
    /// trips as fit.
    fn unrolled_prefix(
        &mut self,
        index: Temp,
        stop: Value,
        body: &[Stmt],
        factor: i64,
    ) -> Result<(), String> {
        let counter = self.counter(index)?;
        let first = counter.get(&mut self.b)?.number()?;
        let end = self.whole_trips_end(first, stop, factor);
        let (inner, exit) = (self.b.create_block(), self.b.create_block());
        let go = self.b.ins().icmp(IntCC::SignedLessThan, first, end);
        self.b.ins().brif(go, inner, &[], exit, &[]);
        self.b.switch_to_block(inner);
        let i = counter.get(&mut self.b)?.number()?;
        for k in 0..factor {
            if k > 0 {
                let ik = self.b.ins().iadd_imm_s(i, k);
                counter.set(&mut self.b, &Val::Number(ik))?;
            }
            self.block(body)?;
        }
        let next = self.b.ins().iadd_imm_s(i, factor);
        counter.set(&mut self.b, &Val::Number(next))?;
        let again = self.b.ins().icmp(IntCC::SignedLessThan, next, end);
        self.b.ins().brif(again, inner, &[], exit, &[]);
        self.b.seal_block(inner);
        self.enter(exit);
        Ok(())
    }

    /// The variable of a loop's counter.
    pub(super) fn counter(&self, index: Temp) -> Result<crate::values::Slots, String> {
        Ok(self
            .temps
            .get(&index)
            .ok_or("a loop counter never set")?
            .clone())
    }

    /// `first` plus the iterations up to `stop` rounded down to a multiple of `per_trip` (a
    /// power of two); `first` when the loop is empty or its length overflows.
    pub(super) fn whole_trips_end(&mut self, first: Value, stop: Value, per_trip: i64) -> Value {
        let count = self.b.ins().isub(stop, first);
        let zero = self.b.ins().iconst(types::I64, 0);
        let positive = self.b.ins().icmp(IntCC::SignedGreaterThan, count, zero);
        let count = self.b.ins().select(positive, count, zero);
        let whole = self.b.ins().band_imm_s(count, !(per_trip - 1));
        self.b.ins().iadd(first, whole)
    }
}

/// How many iterations a trip of the loop runs: more for shorter bodies (the code grows by
/// the body's size times the factor), 1 for a body that is not straight. `break` and
/// `continue` would need a trip's own exits, and an inner loop is where the time goes.
pub(super) fn unroll_factor(body: &[Stmt]) -> i64 {
    let straight = statements(body).iter().all(|s| {
        !matches!(
            s,
            Stmt::For { .. }
                | Stmt::While { .. }
                | Stmt::Break { .. }
                | Stmt::Continue
                | Stmt::LoopFlag(_)
                | Stmt::Unbroken { .. }
        )
    });
    if !straight {
        return 1;
    }
    match ember_jit::ir::expressions(body).len() {
        0..=16 => 8,
        17..=64 => 4,
        65..=128 => 2,
        _ => 1,
    }
}
