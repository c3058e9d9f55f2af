//! Thread coarsening: one hardware thread runs `factor` logical threads of a kernel, so that
//! what those threads would load alike is loaded once (a tiled matmul's shared-memory column)
//! and neighbours' elements move as one 16-byte vector (an elementwise kernel).
//!
//! The kernel's tree is rewritten before it is compiled. Values that can differ between the
//! logical threads of one hardware thread ("varying": derived from the thread index along the
//! coarsened axis, read from memory, or assigned under control flow that varies) get one copy
//! per logical thread, named `name$k`; everything else stays single, barriers included. A
//! statement that touches varying values runs once per copy, in order, which keeps each
//! logical thread's own order; the order between logical threads is free, as it is between
//! threads. Kernels where this is not sound are left alone: a barrier under varying control, a
//! `return` under varying control, warp-level intrinsics, thread geometry or barriers inside
//! device functions.
//!
//! `plan` names a variant, `walk` asks questions of the tree, `uniformity` finds what
//! varies and whether coarsening is sound, `rewrite` writes the coarsened tree.

mod plan;
mod rewrite;
mod uniformity;
mod walk;

use crate::ast::{Program, StmtKind};

pub use plan::{Mapping, Plan};
use rewrite::{copy_name, name_at, stmt_at, Rewriter};
use uniformity::Uniformity;

/// The thread axes' names, by index.
const AXES: [&str; 3] = ["x", "y", "z"];

/// What coarsening could do for a kernel, found once from its tree.
#[derive(Clone, Debug, Default)]
pub struct Opportunities {
    /// Sound to coarsen along x, y, z.
    pub sound: [bool; 3],
    /// Along y: a shared array read in a loop at an index the same for every row, in a
    /// kernel with barriers (a tiled matmul's `sB[j, tx]`): copies share those loads.
    pub shared_rows: bool,
    /// Along x: a guarded straight-line body reading or writing arrays at the thread's index
    /// (an elementwise kernel): copies' elements merge into vector loads.
    pub elementwise: bool,
}

impl Opportunities {
    pub fn of(program: &Program) -> Opportunities {
        let mut o = Opportunities::default();
        for axis in 0..3 {
            let u = Uniformity::of(program, axis);
            o.sound[axis] = u.unsound.is_none();
            if axis == 0 {
                o.elementwise = u.elementwise;
            }
            if axis == 1 {
                o.shared_rows = u.shared_rows && u.barrier;
            }
        }
        o
    }
}

/// `program` with its kernel (function 0) coarsened by `plan`, or why that is not sound.
pub fn coarsen(program: &Program, plan: &Plan) -> Result<Program, &'static str> {
    let u = Uniformity::of(program, plan.axis);
    if let Some(why) = u.unsound {
        return Err(why);
    }
    let mut out = program.clone();
    let kernel = &program.functions[0];
    let mut r = Rewriter {
        u: &u,
        plan: *plan,
        temps: 0,
    };
    let mut body = Vec::new();
    // A parameter reassigned with varying values starts each copy from the argument.
    for p in &kernel.params {
        if u.varying.contains(p) {
            for k in 0..plan.factor {
                body.push(stmt_at(
                    kernel.span,
                    StmtKind::Assign {
                        targets: vec![name_at(kernel.span, &copy_name(p, k))],
                        value: name_at(kernel.span, p),
                    },
                ));
            }
        }
    }
    body.extend(r.block(&kernel.body));
    out.functions[0].body = body;
    Ok(out)
}
