//! Automatic fusion of eager elementwise code.
//!
//! A large ufunc result is not computed when it is asked for: its output is allocated, its
//! type resolved and its errors raised as usual, but the launch waits in a queue. A later
//! ufunc that reads the pending result takes its expression instead of its memory, so
//! `(a * 10 + 2) * b` becomes one expression over `a` and `b`. The queue is finished the
//! moment anything else touches memory (the runtime's `deferred` rule): then each pending
//! result that is still referenced — by a Python object, a view, or other pending work — is
//! computed, and one that nobody can see any more (an intermediate) is never computed.
//!
//! A pending result is computed by one fused kernel once its expression has been seen
//! `after` times (a loop's body fuses from its second pass; one-off expressions reuse the
//! per-ufunc kernels instead of compiling a new one), else ufunc by ufunc as eager code does.
//! Only results of at least `min_size` elements wait: small operations are bound by launch
//! latency and are launched at once.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use ember_core::config::Config;
use ember_core::dtype::Kind;
use ember_core::{Result, Scalar};
use ember_runtime::deferred as hook;
use ember_runtime::{current_stream, Handle};

use super::fused::{default_of, FusedParam, Ref, Step};
use super::tables::Loop;
use super::{Operand, OperandType, Ufunc};
use crate::array::Array;
use ember_kernel::{param_bytes, ScalarBytes};

mod flush;

/// The most operations one fused expression takes (longer chains are cut into pieces).
const MAX_STEPS: usize = 32;
/// The most distinct inputs one fused kernel reads.
const MAX_LEAVES: usize = 16;
/// The most results waiting at once (a loop that never reads memory still runs).
const MAX_QUEUE: usize = 64;
/// Expressions whose sightings are counted before the count starts over.
const MAX_SIGNATURES: usize = 4096;
/// The count of an expression whose fused kernel failed to compile.
const BROKEN: u32 = u32::MAX;

static ENABLED: AtomicBool = AtomicBool::new(true);
static MIN_SIZE: AtomicUsize = AtomicUsize::new(1 << 16);
static AFTER: AtomicU32 = AtomicU32::new(2);

/// What became of the results that waited: [recorded, fused, alone, never computed].
static STATS: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];

/// Counts since the process started: results that waited, computed by a fused kernel,
/// computed alone, and never computed (nothing referred to them any more).
pub fn stats() -> [u64; 4] {
    STATS.each_ref().map(|c| c.load(Ordering::Relaxed))
}

fn count(which: usize) {
    STATS[which].fetch_add(1, Ordering::Relaxed);
}

fn settings() {
    static READ: OnceLock<()> = OnceLock::new();
    READ.get_or_init(|| {
        // A bad setting has already failed the device's start, before any array existed.
        if let Ok(c) = Config::get() {
            ENABLED.store(c.fusion, Ordering::Relaxed);
            MIN_SIZE.store(c.fusion_min_size, Ordering::Relaxed);
            AFTER.store(c.fusion_after, Ordering::Relaxed);
        }
        hook::set_hook(flush::finish_pending);
    });
}

/// Changes the settings (`EMBER_FUSION`, `EMBER_FUSION_MIN_SIZE`, `EMBER_FUSION_AFTER`)
/// for the rest of the process; returns the previous ones. Pending work is finished first.
pub fn configure(enabled: bool, min_size: usize, after: u32) -> (bool, usize, u32) {
    settings();
    hook::finish();
    (
        ENABLED.swap(enabled, Ordering::Relaxed),
        MIN_SIZE.swap(min_size.max(1), Ordering::Relaxed),
        AFTER.swap(after.max(1), Ordering::Relaxed),
    )
}

/// A value a fused kernel reads.
#[derive(Clone)]
enum Leaf {
    Array(Array),
    /// A scalar parameter, already as its bytes.
    Scalar(FusedParam, ScalarBytes),
}

impl Leaf {
    fn param(&self) -> FusedParam {
        match self {
            Leaf::Array(a) => FusedParam {
                dtype: a.dtype(),
                weak: false,
            },
            Leaf::Scalar(p, _) => *p,
        }
    }

    fn same(&self, other: &Leaf) -> bool {
        match (self, other) {
            (Leaf::Array(a), Leaf::Array(b)) => a.is_same_view(b),
            _ => false,
        }
    }
}

/// A ufunc result waiting to be computed.
struct Pending {
    output: Array,
    ufunc: &'static Ufunc,
    found: &'static Loop,
    /// The ufunc's own operands (to compute it alone).
    direct: smallvec::SmallVec<[Operand; 3]>,
    /// The whole expression, down to memory that is not pending (to compute it fused).
    leaves: Vec<Leaf>,
    steps: Vec<Step>,
    stream: Handle,
}

fn queue() -> &'static Mutex<Vec<Pending>> {
    static QUEUE: Mutex<Vec<Pending>> = Mutex::new(Vec::new());
    &QUEUE
}

/// True when this call may wait: fusion is on, the result is large, and every input is ember
/// memory that nobody else can write meanwhile.
pub(super) fn wants(u: &Ufunc, found: &Loop, inputs: &[Operand], n: usize) -> bool {
    if !size_wanted(u, n) {
        return false;
    }
    // Python scalars alone make a 0-d array, a strong operand downstream; a step of the
    // expression would stay weak.
    if !inputs.iter().any(|op| matches!(op, Operand::Array(_))) {
        return false;
    }
    inputs.iter().enumerate().all(|(k, op)| match op {
        Operand::Array(a) => deferrable(a),
        // A float16 loop rounds its scalar first, and an int above int64 travels as its
        // bits: both are left to the eager path, which handles them exactly.
        Operand::Scalar(Scalar::UInt(_), OperandType::Weak(_)) => false,
        // A Python int beyond 64 bits travels as a float: the eager path converts it.
        Operand::Scalar(Scalar::Float(_), OperandType::Weak(Kind::Int)) => false,
        Operand::Scalar(..) => !found.0[k].is_narrow(),
    })
}

/// [`wants`] for a call of arrays alone.
pub(super) fn wants_arrays(u: &Ufunc, arrays: &[&Array], n: usize) -> bool {
    size_wanted(u, n) && !arrays.is_empty() && arrays.iter().all(|a| deferrable(a))
}

/// Whether fusion is on and a result of `n` elements of `u` is worth waiting.
fn size_wanted(u: &Ufunc, n: usize) -> bool {
    settings();
    ENABLED.load(Ordering::Relaxed)
        && n >= MIN_SIZE.load(Ordering::Relaxed)
        && u.nout == 1
        // Checked mode raises at the ufunc at fault, so nothing waits.
        && !ember_kernel::checked::checked().unwrap_or(false)
}

/// Whether an input array may be read later: ember's own memory nobody else can reach.
fn deferrable(a: &Array) -> bool {
    a.buffer().is_pooled() && !a.buffer().is_exposed()
}

fn scalar_leaf(value: Scalar, t: OperandType) -> Leaf {
    let param = match t {
        OperandType::Weak(kind) => FusedParam {
            dtype: default_of(kind),
            weak: true,
        },
        OperandType::Strong(dtype) => FusedParam { dtype, weak: false },
    };
    Leaf::Scalar(param, param_bytes(value, param.dtype))
}

/// Adds `leaf` to `leaves` (once per distinct view), returning its parameter number.
fn intern(leaves: &mut Vec<Leaf>, leaf: Leaf) -> usize {
    if let Some(k) = leaves.iter().position(|l| l.same(&leaf)) {
        return k;
    }
    leaves.push(leaf);
    leaves.len() - 1
}

fn remap(r: Ref, params: &[usize], base: usize) -> Ref {
    match r {
        Ref::Param(k) => Ref::Param(params[k]),
        Ref::Step(j) => Ref::Step(base + j),
    }
}

/// Queues `u` over `inputs` into `output` (fresh, C-contiguous, of the broadcast shape).
pub(super) fn record(
    u: &'static Ufunc,
    found: &'static Loop,
    inputs: &[Operand],
    output: &Array,
) -> Result<()> {
    let mut q = queue().lock().unwrap_or_else(|e| e.into_inner());
    let mut leaves: Vec<Leaf> = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let mut args: Vec<Ref> = Vec::with_capacity(inputs.len());
    for op in inputs {
        match op {
            Operand::Array(a) => {
                let producer = q.iter().rev().find(|p| a.is_same_view(&p.output));
                match producer {
                    Some(p)
                        if steps.len() + p.steps.len() < MAX_STEPS
                            && leaves.len() + p.leaves.len() <= MAX_LEAVES =>
                    {
                        // The producer's expression replaces the read of its memory.
                        let params: Vec<usize> = p
                            .leaves
                            .iter()
                            .map(|l| intern(&mut leaves, l.clone()))
                            .collect();
                        let base = steps.len();
                        for step in &p.steps {
                            steps.push(match step {
                                Step::Ufunc { name, args } => Step::Ufunc {
                                    name: name.clone(),
                                    args: args.iter().map(|&r| remap(r, &params, base)).collect(),
                                },
                                Step::Cast { arg, to } => Step::Cast {
                                    arg: remap(*arg, &params, base),
                                    to: *to,
                                },
                                Step::Where { cond, x, y } => Step::Where {
                                    cond: remap(*cond, &params, base),
                                    x: remap(*x, &params, base),
                                    y: remap(*y, &params, base),
                                },
                            });
                        }
                        args.push(Ref::Step(steps.len() - 1));
                    }
                    _ => args.push(Ref::Param(intern(&mut leaves, Leaf::Array(a.clone())))),
                }
            }
            Operand::Scalar(v, t) => {
                leaves.push(scalar_leaf(*v, *t));
                args.push(Ref::Param(leaves.len() - 1));
            }
        }
    }
    steps.push(Step::Ufunc {
        name: u.name.to_string(),
        args,
    });
    let device = output.device();
    q.push(Pending {
        output: output.clone(),
        ufunc: u,
        found,
        direct: inputs.iter().cloned().collect(),
        leaves,
        steps,
        stream: current_stream(device),
    });
    hook::mark_pending();
    count(0);
    // Waiting intermediates hold memory eager code would have reused: a bounded amount.
    let waiting: usize = q.iter().map(|p| p.output.nbytes()).sum();
    let full = q.len() >= MAX_QUEUE || waiting > device.info().total_memory / 4;
    drop(q);
    if full {
        hook::finish();
    }
    Ok(())
}
