//! Running what waits: every pending result somebody still refers to is computed, in the
//! order it was asked for, fused or alone; the rest is dropped.

use std::collections::HashMap;
use std::fmt::Write;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use ember_codegen::Role;
use ember_core::Result;
use ember_runtime::deferred as hook;
use ember_runtime::{current_stream, Buffer, Device, Function};

use super::super::fused::{fused_map, FusedParam};
use super::super::{run_loop, Operand};
use super::{count, queue, Leaf, Pending, AFTER, BROKEN, MAX_SIGNATURES};
use crate::array::Array;
use crate::user_kernel::map_plan::{self, Binding};
use ember_kernel::{compile_generated, dialect, KernelMemo, Rounding};

/// How a pending result is computed.
enum Plan {
    /// Not at all: nothing refers to it.
    Skip,
    /// By its own ufunc, reading its operands' memory.
    Alone,
    /// By one kernel evaluating its whole expression.
    Fused(Function, map_plan::MapPlan),
}

/// The runtime's hook: computes every pending result somebody still refers to, in the order
/// they were asked for.
pub(super) fn finish_pending() {
    let mut q = queue().lock().unwrap_or_else(|e| e.into_inner());
    let _finishing = hook::finishing();
    let batch = std::mem::take(&mut *q);
    if let Err(err) = run(&batch) {
        hook::keep_error(err);
    }
    hook::clear_pending();
    drop(q);
    drop(batch);
}

fn buffer_key(a: &Array) -> *const Buffer {
    Arc::as_ptr(a.buffer())
}

fn run(batch: &[Pending]) -> Result<()> {
    // References to each buffer held inside the batch itself: the rest are the user's.
    let mut held: HashMap<*const Buffer, usize> = HashMap::new();
    let mut producer: HashMap<*const Buffer, usize> = HashMap::new();
    for (i, p) in batch.iter().enumerate() {
        *held.entry(buffer_key(&p.output)).or_default() += 1;
        producer.insert(buffer_key(&p.output), i);
        for op in &p.direct {
            if let Operand::Array(a) = op {
                *held.entry(buffer_key(a)).or_default() += 1;
            }
        }
        for leaf in &p.leaves {
            if let Leaf::Array(a) = leaf {
                *held.entry(buffer_key(a)).or_default() += 1;
            }
        }
    }
    // Backwards: what is needed, and how each needed result is computed.
    let mut needed = vec![false; batch.len()];
    let mut plans: Vec<Plan> = Vec::with_capacity(batch.len());
    for (i, p) in batch.iter().enumerate().rev() {
        let key = buffer_key(&p.output);
        let outside = Arc::strong_count(p.output.buffer()) - held[&key];
        if outside == 0 && !needed[i] {
            plans.push(Plan::Skip);
            continue;
        }
        let plan = match fused_plan(p) {
            Some((f, layout)) => Plan::Fused(f, layout),
            None => Plan::Alone,
        };
        let mut need = |a: &Array| {
            if let Some(&j) = producer.get(&buffer_key(a)) {
                if j < i {
                    needed[j] = true;
                }
            }
        };
        match &plan {
            Plan::Fused(..) => p.leaves.iter().for_each(|l| {
                if let Leaf::Array(a) = l {
                    need(a)
                }
            }),
            _ => p.direct.iter().for_each(|op| {
                if let Operand::Array(a) = op {
                    need(a)
                }
            }),
        }
        plans.push(plan);
    }
    plans.reverse();
    // One failure does not stop the others: results the user holds are computed if they can be.
    let mut first_error = None;
    for (p, plan) in batch.iter().zip(&plans) {
        let device = p.output.device();
        let switched = current_stream(device) != p.stream;
        if switched {
            ember_runtime::stream::push_current_handle(device, p.stream);
        }
        count(match plan {
            Plan::Fused(..) => 1,
            Plan::Alone => 2,
            Plan::Skip => 3,
        });
        let result = match plan {
            Plan::Skip => Ok(()),
            Plan::Alone => run_loop(
                device,
                p.ufunc,
                p.found,
                &p.direct,
                std::slice::from_ref(&p.output),
                p.output.shape(),
                true,
            ),
            Plan::Fused(f, layout) => {
                let bindings = bindings(p);
                map_plan::launch(
                    device,
                    f,
                    p.output.size(),
                    &bindings,
                    layout,
                    map_plan::Body::Generated,
                    &|k| format!("operand {k}"),
                )
            }
        };
        if switched {
            ember_runtime::pop_current_stream(device);
        }
        if let Err(err) = result {
            first_error.get_or_insert(err);
        }
    }
    first_error.map_or(Ok(()), Err)
}

fn bindings(p: &Pending) -> smallvec::SmallVec<[Binding<'_>; 8]> {
    let mut b: smallvec::SmallVec<[Binding; 8]> = p
        .leaves
        .iter()
        .map(|l| match l {
            Leaf::Array(a) => Binding::Array(a),
            Leaf::Scalar(_, bytes) => Binding::Scalar(bytes.clone()),
        })
        .collect();
    b.push(Binding::Array(&p.output));
    b
}

/// The expression's signature: what its kernel is specialised on (values of scalars aside).
fn signature(p: &Pending) -> String {
    let mut s = String::new();
    for l in &p.leaves {
        let param = l.param();
        let kind = match l {
            Leaf::Array(_) => 'a',
            Leaf::Scalar(..) if param.weak => 'w',
            Leaf::Scalar(..) => 's',
        };
        let _ = write!(s, "{kind}{},", param.dtype.name());
    }
    for step in &p.steps {
        let _ = write!(s, "|{step:?}");
    }
    let _ = write!(s, "->{}", p.output.dtype().name());
    s
}

/// The fused kernel for `p`, once its expression is hot (seen often enough); `None` to
/// compute it alone.
fn fused_plan(p: &Pending) -> Option<(Function, map_plan::MapPlan)> {
    static SEEN: Mutex<Option<HashMap<String, u32>>> = Mutex::new(None);
    if p.steps.len() < 2 {
        return None;
    }
    let sig = signature(p);
    {
        let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
        let seen = seen.get_or_insert_with(HashMap::new);
        if seen.len() > MAX_SIGNATURES {
            seen.clear();
        }
        let count = seen.entry(sig.clone()).or_default();
        if *count == BROKEN {
            return None;
        }
        *count = (*count + 1).min(BROKEN - 1);
        if *count < AFTER.load(Ordering::Relaxed) {
            return None;
        }
    }
    let device = p.output.device();
    let bindings = bindings(p);
    let roles: smallvec::SmallVec<[Role; 8]> = bindings
        .iter()
        .enumerate()
        .map(|(k, b)| match b {
            Binding::Scalar(_) => Role::Scalar,
            _ if k < p.leaves.len() => Role::Input,
            _ => Role::Output,
        })
        .collect();
    let layout = map_plan::plan_roles(p.output.shape(), &roles, &bindings);
    if layout.checked {
        // Checked mode runs ufunc by ufunc, so that a fault names the ufunc at fault.
        return None;
    }
    match fused_function(device, p, sig.clone(), &layout) {
        Ok(f) => Some((f, layout)),
        Err(_) => {
            // A generated expression that fails to compile is a bug of ours; the ufunc-by-ufunc
            // path still computes the right numbers, and the expression is not tried again.
            let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
            seen.get_or_insert_with(HashMap::new).insert(sig, BROKEN);
            None
        }
    }
}

fn fused_function(
    device: &'static Device,
    p: &Pending,
    sig: String,
    layout: &map_plan::MapPlan,
) -> Result<Function> {
    static KERNELS: KernelMemo<(String, usize, bool)> = KernelMemo::new();
    let key = (sig, layout.loop_shape.len(), layout.vector);
    KERNELS.get_or_compile(device, &key, || {
        let d = dialect(device);
        let params: Vec<(FusedParam, bool)> = p
            .leaves
            .iter()
            .map(|l| (l.param(), matches!(l, Leaf::Array(_))))
            .collect();
        let mut spec = fused_map(
            &params,
            &p.steps,
            p.output.dtype(),
            layout.loop_shape.len(),
            layout.vector,
            d,
        )?;
        spec.cover = layout.cover;
        compile_generated(
            device,
            &spec.source(d),
            &spec.common.name,
            &[],
            Rounding::Separate,
        )
    })
}
