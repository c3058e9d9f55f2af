//! What varies between the logical threads of a hardware thread, and whether coarsening is
//! sound.

use std::collections::BTreeSet;

use crate::ast::{Expr, ExprKind, Program, Stmt, StmtKind};

use super::walk::{
    allowed_in_device_function, allowed_in_kernel, called, each_expr, each_stmt_expr, grid_rank,
    intrinsic_name, pure_namespace, straight_line,
};
use super::AXES;

/// Which variables vary between the logical threads of a hardware thread, for one axis, and
/// whether coarsening along it is sound.
pub(super) struct Uniformity {
    axis: usize,
    pub(super) varying: BTreeSet<String>,
    params: Vec<String>,
    /// Variables holding shared arrays.
    shared: BTreeSet<String>,
    changed: bool,
    /// The final pass checks soundness and looks for opportunities.
    last: bool,
    pub(super) unsound: Option<&'static str>,
    pub(super) barrier: bool,
    pub(super) shared_rows: bool,
    pub(super) elementwise: bool,
}

impl Uniformity {
    pub(super) fn of(program: &Program, axis: usize) -> Uniformity {
        let kernel = &program.functions[0];
        let mut u = Uniformity {
            axis,
            varying: BTreeSet::new(),
            params: kernel.params.clone(),
            shared: BTreeSet::new(),
            changed: false,
            last: false,
            unsound: None,
            barrier: false,
            shared_rows: false,
            elementwise: false,
        };
        u.check_intrinsics(program);
        // Each pass only adds varying names, so this settles within one pass per variable.
        for _ in 0..1000 {
            u.changed = false;
            u.block(&kernel.body, false, 0);
            if !u.changed {
                break;
            }
        }
        u.last = true;
        u.block(&kernel.body, false, 0);
        u
    }

    fn fail(&mut self, why: &'static str) {
        if self.unsound.is_none() {
            self.unsound = Some(why);
        }
    }

    fn check_intrinsics(&mut self, program: &Program) {
        for (i, f) in program.functions.iter().enumerate() {
            let mut bad = None;
            each_stmt_expr(&f.body, &mut |e| {
                if let ExprKind::Intrinsic { name } = &e.kind {
                    let ok = if i == 0 {
                        allowed_in_kernel(name)
                    } else {
                        allowed_in_device_function(name)
                    };
                    if !ok && bad.is_none() {
                        bad = Some(if i == 0 {
                            "the kernel uses a warp-level or unknown intrinsic"
                        } else {
                            "a device function reads the thread's place or waits at a barrier"
                        });
                    }
                }
            });
            if let Some(why) = bad {
                self.fail(why);
            }
        }
    }

    fn mark(&mut self, name: &str) {
        if !self.varying.contains(name) {
            self.varying.insert(name.to_string());
            self.changed = true;
        }
    }

    pub(super) fn varying(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Name { id } => self.varying.contains(id),
            ExprKind::Intrinsic { name } => *name == format!("cuda.threadIdx.{}", AXES[self.axis]),
            ExprKind::Call {
                func,
                args,
                keywords,
            } => match intrinsic_name(func) {
                Some("cuda.grid") => grid_rank(args) > self.axis,
                Some("cuda.gridsize") | Some("cuda.shared.array") => false,
                Some(n) if pure_namespace(n) => {
                    args.iter().any(|a| self.varying(a))
                        || keywords.iter().any(|k| self.varying(&k.value))
                }
                // Device functions, atomics, random draws, local arrays: their own per copy.
                _ => true,
            },
            ExprKind::Subscript { value, index } => match &value.kind {
                ExprKind::Attribute { attr, .. } if attr == "shape" || attr == "strides" => {
                    self.varying(value) || self.varying(index)
                }
                // An element read from memory.
                _ => true,
            },
            ExprKind::Attribute { value, .. } => self.varying(value),
            ExprKind::Slice { lower, upper, step } => [lower, upper, step]
                .into_iter()
                .flatten()
                .any(|x| self.varying(x)),
            ExprKind::BinOp { left, right, .. } => self.varying(left) || self.varying(right),
            ExprKind::UnaryOp { operand, .. } => self.varying(operand),
            ExprKind::BoolOp { values, .. } | ExprKind::Tuple { elts: values } => {
                values.iter().any(|v| self.varying(v))
            }
            ExprKind::Compare {
                left, comparators, ..
            } => self.varying(left) || comparators.iter().any(|c| self.varying(c)),
            ExprKind::IfExp { test, body, orelse } => {
                self.varying(test) || self.varying(body) || self.varying(orelse)
            }
            ExprKind::Starred { value } => self.varying(value),
            ExprKind::Unsupported { .. } | ExprKind::Bound { .. } => true,
            _ => false,
        }
    }

    /// Whether a loop over `iter` runs the same iterations in every copy.
    fn uniform_iter(&self, iter: &Expr) -> bool {
        match &iter.kind {
            ExprKind::Call { func, args, .. } if intrinsic_name(func) == Some("builtin.range") => {
                !args.iter().any(|a| self.varying(a))
            }
            // Elements read from an array or tuple.
            _ => false,
        }
    }

    /// Whether a `break` or `continue` of this loop (not of a nested one) sits under varying
    /// control.
    fn exits_vary(&self, body: &[Stmt], ctl: bool) -> bool {
        body.iter().any(|s| match &s.kind {
            StmtKind::Break | StmtKind::Continue => ctl,
            StmtKind::If { test, body, orelse } => {
                let c = ctl || self.varying(test);
                self.exits_vary(body, c) || self.exits_vary(orelse, c)
            }
            // A nested loop's `else` runs in this loop: whether it runs depends on how the
            // nested loop ended.
            StmtKind::For { orelse, .. } | StmtKind::While { orelse, .. } => {
                self.exits_vary(orelse, ctl || !self.uniform_loop(s))
            }
            _ => false,
        })
    }

    /// Whether a loop reads memory or calls anything but pure functions: run once per copy,
    /// such a loop could wait for another copy of the same hardware thread (a spin lock, a
    /// flag set by a neighbour), which never comes.
    fn may_wait(test: Option<&Expr>, body: &[Stmt]) -> bool {
        let mut waits = false;
        let mut look = |e: &Expr| {
            waits |= match &e.kind {
                ExprKind::Subscript { value, .. } => !matches!(
                    &value.kind,
                    ExprKind::Attribute { attr, .. } if attr == "shape" || attr == "strides"
                ),
                ExprKind::Call { func, .. } => !intrinsic_name(func).is_some_and(pure_namespace),
                _ => false,
            };
        };
        if let Some(t) = test {
            each_expr(t, &mut look);
        }
        each_stmt_expr(body, &mut look);
        waits
    }

    /// Whether any name bound by `target` varies.
    pub(super) fn target_varies(&self, target: &Expr) -> bool {
        match &target.kind {
            ExprKind::Name { id } => self.varying.contains(id),
            ExprKind::Tuple { elts } => elts.iter().any(|e| self.target_varies(e)),
            _ => false,
        }
    }

    /// Whether a loop statement runs as one loop for every copy (else once per copy).
    pub(super) fn uniform_loop(&self, s: &Stmt) -> bool {
        match &s.kind {
            StmtKind::For {
                target, iter, body, ..
            } => {
                self.uniform_iter(iter)
                    && !self.target_varies(target)
                    && !self.exits_vary(body, false)
            }
            StmtKind::While { test, body, .. } => {
                !self.varying(test) && !self.exits_vary(body, false)
            }
            _ => false,
        }
    }

    fn bind(&mut self, target: &Expr, varies: bool, value: Option<&Expr>, ctl: bool) {
        match &target.kind {
            ExprKind::Name { id } => {
                if varies {
                    self.mark(id);
                }
                if value.and_then(called) == Some("cuda.shared.array") {
                    self.shared.insert(id.clone());
                    // One array per block: its variable must not be copied.
                    if (ctl || self.varying.contains(id)) && self.last {
                        self.fail("a shared array is held by a variable that varies");
                    }
                }
            }
            ExprKind::Tuple { elts } => {
                // `x, y = cuda.grid(2)`: only the coarsened axis's item varies.
                let grid = match value.map(|v| &v.kind) {
                    Some(ExprKind::Call { func, args, .. })
                        if intrinsic_name(func) == Some("cuda.grid") =>
                    {
                        Some(grid_rank(args))
                    }
                    _ => None,
                };
                for (i, e) in elts.iter().enumerate() {
                    let v = match grid {
                        Some(n) if n == elts.len() => ctl || i == self.axis,
                        _ => varies,
                    };
                    self.bind(e, v, None, ctl);
                }
            }
            _ => {}
        }
    }

    fn block(&mut self, body: &[Stmt], ctl: bool, loops: usize) {
        for s in body {
            self.stmt(s, ctl, loops);
        }
    }

    fn stmt(&mut self, s: &Stmt, ctl: bool, loops: usize) {
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                let v = ctl || self.varying(value);
                for t in targets {
                    self.bind(t, v, Some(value), ctl);
                }
                if self.last && !ctl {
                    self.look_for_shared_rows(value, loops);
                }
            }
            StmtKind::AugAssign { target, value, .. } => {
                let v = ctl || self.varying(value);
                self.bind(target, v, None, ctl);
                if self.last && !ctl {
                    self.look_for_shared_rows(value, loops);
                }
            }
            StmtKind::Expr { value } if called(value) == Some("cuda.syncthreads") => {
                self.barrier = true;
                if ctl && self.last {
                    self.fail(
                        "a barrier sits under control flow that differs between coarsened threads",
                    );
                }
            }
            StmtKind::If { test, body, orelse } => {
                let c = ctl || self.varying(test);
                if self.last && !ctl && c && orelse.is_empty() && straight_line(body) {
                    self.look_for_elements(body);
                }
                self.block(body, c, loops);
                self.block(orelse, c, loops);
            }
            StmtKind::For {
                target,
                body,
                orelse,
                ..
            } => {
                let c = ctl || !self.uniform_loop(s);
                self.bind(target, c, None, ctl);
                self.block(body, c, loops + 1);
                self.block(orelse, c, loops);
            }
            StmtKind::While { test, body, orelse } => {
                let c = ctl || !self.uniform_loop(s);
                if c && self.last && Self::may_wait(Some(test), body) {
                    self.fail("a while loop that differs between coarsened threads reads memory or calls functions (it may wait for another thread)");
                }
                self.block(body, c, loops + 1);
                self.block(orelse, c, loops);
            }
            StmtKind::Return { .. } if ctl && self.last => {
                self.fail("a return sits under control flow that differs between coarsened threads")
            }
            StmtKind::Unsupported { .. } if self.last => self.fail("an unsupported statement"),
            // A raise ends the thread, and with it every coarsened copy.
            StmtKind::Raise { .. } if self.last => self.fail("a raise statement"),
            _ => {}
        }
    }

    /// A shared-array read at an index every copy shares, inside a loop.
    fn look_for_shared_rows(&mut self, value: &Expr, loops: usize) {
        if loops == 0 {
            return;
        }
        let mut found = false;
        each_expr(value, &mut |e| {
            if let ExprKind::Subscript { value, index } = &e.kind {
                if let ExprKind::Name { id } = &value.kind {
                    if self.shared.contains(id) && !self.varying(index) {
                        found = true;
                    }
                }
            }
        });
        self.shared_rows |= found;
    }

    /// An argument array read or written at a varying index in a guarded straight-line body.
    fn look_for_elements(&mut self, body: &[Stmt]) {
        let mut found = false;
        each_stmt_expr(body, &mut |e| {
            if let ExprKind::Subscript { value, index } = &e.kind {
                if let ExprKind::Name { id } = &value.kind {
                    if self.params.contains(id) && self.varying(index) {
                        found = true;
                    }
                }
            }
        });
        self.elementwise |= found;
    }
}
