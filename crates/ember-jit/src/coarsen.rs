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

use std::collections::BTreeSet;

use crate::ast::{BoolOp, Expr, ExprKind, Program, Stmt, StmtKind};

/// Where logical thread `k` of a hardware thread sits along the coarsened axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mapping {
    /// `t + k * hardware_block`: rows of a tile, whose copies share column loads.
    Strided,
    /// `t * factor + k`: neighbouring elements, whose loads merge into vectors.
    Adjacent,
}

/// One coarsened variant of a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Plan {
    /// 0, 1, 2 for x, y, z.
    pub axis: usize,
    pub factor: u32,
    pub mapping: Mapping,
    /// Every array argument's data is 16-byte aligned (CUDA tells the C compiler so).
    pub aligned: bool,
}

impl Plan {
    /// x coarsens neighbours (vector loads), y and z rows (shared loads).
    pub fn new(axis: usize, factor: u32, aligned: bool) -> Plan {
        Plan {
            axis,
            factor,
            mapping: if axis == 0 {
                Mapping::Adjacent
            } else {
                Mapping::Strided
            },
            aligned,
        }
    }

    /// `"x4"`, `"y2"`, `"x4a"` (aligned): x coarsens neighbours, y and z rows.
    pub fn parse(text: &str) -> Option<Plan> {
        let (text, aligned) = match text.strip_suffix('a') {
            Some(t) => (t, true),
            None => (text, false),
        };
        let mut chars = text.chars();
        let axis = match chars.next()? {
            'x' => 0,
            'y' => 1,
            'z' => 2,
            _ => return None,
        };
        let factor: u32 = chars.as_str().parse().ok()?;
        if !(2..=16).contains(&factor) {
            return None;
        }
        Some(Plan::new(axis, factor, aligned))
    }

    /// How `parse` spells it (for `inspect_c` keys and cache labels).
    pub fn label(&self) -> String {
        format!(
            "{}{}{}",
            ["x", "y", "z"][self.axis],
            self.factor,
            if self.aligned { "a" } else { "" }
        )
    }
}

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

fn copy_name(name: &str, k: u32) -> String {
    format!("{name}${k}")
}

fn name_at(span: crate::ast::Span, id: &str) -> Expr {
    Expr {
        span,
        kind: ExprKind::Name { id: id.to_string() },
    }
}

fn stmt_at(span: crate::ast::Span, kind: StmtKind) -> Stmt {
    Stmt { span, kind }
}

/// A name, or a tuple of names (nested): a target with no element store in it.
fn names_only(target: &Expr) -> bool {
    match &target.kind {
        ExprKind::Name { .. } => true,
        ExprKind::Tuple { elts } => elts.iter().all(names_only),
        _ => false,
    }
}

fn intrinsic_name(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Intrinsic { name } => Some(name),
        _ => None,
    }
}

fn called(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Call { func, .. } => intrinsic_name(func),
        _ => None,
    }
}

/// `cuda.grid(n)` / `cuda.gridsize(n)`'s `n` (3 when it is not a literal: treated as varying).
fn grid_rank(args: &[Expr]) -> usize {
    match args.first().map(|a| &a.kind) {
        Some(ExprKind::Int { v }) => v.parse().unwrap_or(3),
        _ => 3,
    }
}

/// Pure functions of their arguments: math, NumPy scalar functions, builtins, dtype casts.
fn pure_namespace(name: &str) -> bool {
    ["math.", "np.", "builtin.", "dtype."]
        .iter()
        .any(|p| name.starts_with(p))
}

/// The `cuda.*` intrinsics a coarsened kernel may use (warp-level ones are not among them:
/// a warp holds other logical threads once coarsened).
fn allowed_in_kernel(name: &str) -> bool {
    if pure_namespace(name) || name.starts_with("cuda.atomic.") || name.starts_with("cuda.random.")
    {
        return true;
    }
    if let Some((group, axis)) = name.strip_prefix("cuda.").and_then(|n| n.split_once('.')) {
        if matches!(group, "threadIdx" | "blockIdx" | "blockDim" | "gridDim")
            && matches!(axis, "x" | "y" | "z")
        {
            return true;
        }
    }
    matches!(
        name,
        "cuda.grid"
            | "cuda.gridsize"
            | "cuda.syncthreads"
            | "cuda.threadfence"
            | "cuda.threadfence_block"
            | "cuda.threadfence_system"
            | "cuda.shared.array"
            | "cuda.local.array"
            | "cuda.const.array_like"
            | "cuda.warpsize"
    )
}

/// What a device function may use: it runs once per copy, so nothing that reads the thread's
/// place or waits for the block.
fn allowed_in_device_function(name: &str) -> bool {
    allowed_in_kernel(name)
        && !name.starts_with("cuda.threadIdx.")
        && !name.starts_with("cuda.blockDim.")
        && !matches!(name, "cuda.grid" | "cuda.gridsize" | "cuda.syncthreads")
}

/// Every expression in `e`, `e` first.
fn each_expr<'e>(e: &'e Expr, f: &mut dyn FnMut(&'e Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Attribute { value, .. } => each_expr(value, f),
        ExprKind::Subscript { value, index } => {
            each_expr(value, f);
            each_expr(index, f);
        }
        ExprKind::Slice { lower, upper, step } => {
            for x in [lower, upper, step].into_iter().flatten() {
                each_expr(x, f);
            }
        }
        ExprKind::BinOp { left, right, .. } => {
            each_expr(left, f);
            each_expr(right, f);
        }
        ExprKind::UnaryOp { operand, .. } => each_expr(operand, f),
        ExprKind::BoolOp { values, .. } | ExprKind::Tuple { elts: values } => {
            for v in values {
                each_expr(v, f);
            }
        }
        ExprKind::Compare {
            left, comparators, ..
        } => {
            each_expr(left, f);
            for c in comparators {
                each_expr(c, f);
            }
        }
        ExprKind::Call {
            func,
            args,
            keywords,
        } => {
            each_expr(func, f);
            for a in args {
                each_expr(a, f);
            }
            for k in keywords {
                each_expr(&k.value, f);
            }
        }
        ExprKind::IfExp { test, body, orelse } => {
            each_expr(test, f);
            each_expr(body, f);
            each_expr(orelse, f);
        }
        _ => {}
    }
}

/// Every expression in the statements, nested ones included.
fn each_stmt_expr<'e>(body: &'e [Stmt], f: &mut dyn FnMut(&'e Expr)) {
    for s in body {
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    each_expr(t, f);
                }
                each_expr(value, f);
            }
            StmtKind::AugAssign { target, value, .. } => {
                each_expr(target, f);
                each_expr(value, f);
            }
            StmtKind::Expr { value } => each_expr(value, f),
            StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
                each_expr(test, f);
                each_stmt_expr(body, f);
                each_stmt_expr(orelse, f);
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => {
                each_expr(target, f);
                each_expr(iter, f);
                each_stmt_expr(body, f);
                each_stmt_expr(orelse, f);
            }
            StmtKind::Return { value: Some(v) } => each_expr(v, f),
            _ => {}
        }
    }
}

/// Whether evaluating `e` twice is the same as once: no calls but pure intrinsics.
fn side_effect_free(e: &Expr) -> bool {
    let mut pure = true;
    each_expr(e, &mut |x| {
        if let ExprKind::Call { func, .. } = &x.kind {
            if !intrinsic_name(func).is_some_and(pure_namespace) {
                pure = false;
            }
        }
    });
    pure
}

/// Statements with no control flow and no barrier.
fn straight_line(body: &[Stmt]) -> bool {
    body.iter().all(|s| match &s.kind {
        StmtKind::Assign { .. } | StmtKind::AugAssign { .. } | StmtKind::Pass => true,
        StmtKind::Expr { value } => called(value) != Some("cuda.syncthreads"),
        _ => false,
    })
}

/// Which variables vary between the logical threads of a hardware thread, for one axis, and
/// whether coarsening along it is sound.
struct Uniformity {
    axis: usize,
    varying: BTreeSet<String>,
    params: Vec<String>,
    /// Variables holding shared arrays.
    shared: BTreeSet<String>,
    changed: bool,
    /// The final pass checks soundness and looks for opportunities.
    last: bool,
    unsound: Option<&'static str>,
    barrier: bool,
    shared_rows: bool,
    elementwise: bool,
}

impl Uniformity {
    fn of(program: &Program, axis: usize) -> Uniformity {
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

    fn varying(&self, e: &Expr) -> bool {
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
            ExprKind::Unsupported { .. } => true,
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
    fn target_varies(&self, target: &Expr) -> bool {
        match &target.kind {
            ExprKind::Name { id } => self.varying.contains(id),
            ExprKind::Tuple { elts } => elts.iter().any(|e| self.target_varies(e)),
            _ => false,
        }
    }

    /// Whether a loop statement runs as one loop for every copy (else once per copy).
    fn uniform_loop(&self, s: &Stmt) -> bool {
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

const AXES: [&str; 3] = ["x", "y", "z"];

/// Writes the coarsened kernel body.
struct Rewriter<'u> {
    u: &'u Uniformity,
    plan: Plan,
    temps: usize,
}

impl Rewriter<'_> {
    fn block(&mut self, body: &[Stmt]) -> Vec<Stmt> {
        body.iter().flat_map(|s| self.uniform(s)).collect()
    }

    fn copies(&self, s: &Stmt) -> Vec<Stmt> {
        (0..self.plan.factor).map(|k| self.in_copy(s, k)).collect()
    }

    /// A statement of the kernel's uniform part.
    fn uniform(&mut self, s: &Stmt) -> Vec<Stmt> {
        let u = self.u;
        let kind = match &s.kind {
            StmtKind::Assign { targets, value }
                if !u.varying(value)
                    && targets.iter().all(|t| names_only(t) && !u.target_varies(t)) =>
            {
                StmtKind::Assign {
                    targets: targets.iter().map(|t| self.expr(t, None)).collect(),
                    value: self.expr(value, None),
                }
            }
            // `n += 1` on a uniform counter runs once, not once per copy.
            StmtKind::AugAssign { target, op, value }
                if matches!(target.kind, ExprKind::Name { .. })
                    && !u.target_varies(target)
                    && !u.varying(value) =>
            {
                StmtKind::AugAssign {
                    target: self.expr(target, None),
                    op: *op,
                    value: self.expr(value, None),
                }
            }
            StmtKind::Expr { value } if called(value) == Some("cuda.syncthreads") => s.kind.clone(),
            StmtKind::If { test, body, orelse } if !u.varying(test) => StmtKind::If {
                test: self.expr(test, None),
                body: self.block(body),
                orelse: self.block(orelse),
            },
            StmtKind::If { test, body, orelse } => return self.varying_if(s, test, body, orelse),
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } if u.uniform_loop(s) => StmtKind::For {
                target: self.expr(target, None),
                iter: self.expr(iter, None),
                body: self.block(body),
                orelse: self.block(orelse),
            },
            StmtKind::While { test, body, orelse } if u.uniform_loop(s) => StmtKind::While {
                test: self.expr(test, None),
                body: self.block(body),
                orelse: self.block(orelse),
            },
            StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Pass
            | StmtKind::Unsupported { .. } => s.kind.clone(),
            StmtKind::Return { value } => StmtKind::Return {
                value: value.as_ref().map(|v| self.expr(v, None)),
            },
            _ => return self.copies(s),
        };
        vec![stmt_at(s.span, kind)]
    }

    /// `if` on a varying test: once per copy; for neighbouring elements, a guarded
    /// straight-line body first tries all copies at once, loads before stores, so that the C
    /// compiler can merge the copies' accesses into vectors.
    fn varying_if(&mut self, s: &Stmt, test: &Expr, body: &[Stmt], orelse: &[Stmt]) -> Vec<Stmt> {
        let each = self.copies(s);
        if self.plan.mapping != Mapping::Adjacent
            || !orelse.is_empty()
            || !straight_line(body)
            || !side_effect_free(test)
        {
            return each;
        }
        let all = Expr {
            span: test.span,
            kind: ExprKind::BoolOp {
                op: BoolOp::And,
                values: (0..self.plan.factor)
                    .map(|k| self.copy_expr(test, k))
                    .collect(),
            },
        };
        let mut together = Vec::new();
        for st in body {
            match &st.kind {
                StmtKind::Assign { targets, value }
                    if targets.len() == 1
                        && matches!(targets[0].kind, ExprKind::Subscript { .. }) =>
                {
                    self.temps += 1;
                    let temp = format!("ember$t{}", self.temps);
                    for k in 0..self.plan.factor {
                        together.push(stmt_at(
                            st.span,
                            StmtKind::Assign {
                                targets: vec![name_at(st.span, &copy_name(&temp, k))],
                                value: self.copy_expr(value, k),
                            },
                        ));
                    }
                    for k in 0..self.plan.factor {
                        together.push(stmt_at(
                            st.span,
                            StmtKind::Assign {
                                targets: vec![self.copy_expr(&targets[0], k)],
                                value: name_at(st.span, &copy_name(&temp, k)),
                            },
                        ));
                    }
                }
                StmtKind::Pass => {}
                _ => together.extend(self.copies(st)),
            }
        }
        vec![stmt_at(
            s.span,
            StmtKind::If {
                test: all,
                body: together,
                orelse: each,
            },
        )]
    }

    /// Statement `s` as copy `k` runs it.
    fn in_copy(&self, s: &Stmt, k: u32) -> Stmt {
        let e = |x: &Expr| self.copy_expr(x, k);
        let b = |body: &[Stmt]| -> Vec<Stmt> { body.iter().map(|x| self.in_copy(x, k)).collect() };
        let kind = match &s.kind {
            StmtKind::Assign { targets, value } => StmtKind::Assign {
                targets: targets.iter().map(e).collect(),
                value: e(value),
            },
            StmtKind::AugAssign { target, op, value } => StmtKind::AugAssign {
                target: e(target),
                op: *op,
                value: e(value),
            },
            StmtKind::Expr { value } => StmtKind::Expr { value: e(value) },
            StmtKind::If { test, body, orelse } => StmtKind::If {
                test: e(test),
                body: b(body),
                orelse: b(orelse),
            },
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => StmtKind::For {
                target: e(target),
                iter: e(iter),
                body: b(body),
                orelse: b(orelse),
            },
            StmtKind::While { test, body, orelse } => StmtKind::While {
                test: e(test),
                body: b(body),
                orelse: b(orelse),
            },
            StmtKind::Return { value } => StmtKind::Return {
                value: value.as_ref().map(e),
            },
            other => other.clone(),
        };
        stmt_at(s.span, kind)
    }

    fn copy_expr(&self, x: &Expr, k: u32) -> Expr {
        self.expr(x, Some(k))
    }

    /// `x` with varying names and thread geometry as copy `k` sees them (`None`: the uniform
    /// part, where only the block's size changes).
    fn expr(&self, x: &Expr, k: Option<u32>) -> Expr {
        let axis = AXES[self.plan.axis];
        let sub = |e: &Expr| self.expr(e, k);
        let boxed = |e: &Expr| Box::new(self.expr(e, k));
        let kind = match &x.kind {
            ExprKind::Name { id } => match k {
                Some(k) if self.u.varying.contains(id) => ExprKind::Name {
                    id: copy_name(id, k),
                },
                _ => x.kind.clone(),
            },
            ExprKind::Intrinsic { name } if *name == format!("cuda.threadIdx.{axis}") => {
                match k {
                    Some(k) => ExprKind::Intrinsic {
                        name: format!("ember.coarse.threadIdx.{k}"),
                    },
                    // The analysis keeps the thread index out of the uniform part.
                    None => ExprKind::Unsupported {
                        what:
                            "ember: the thread index outside a coarsened copy (please report this)"
                                .into(),
                    },
                }
            }
            ExprKind::Intrinsic { name } if *name == format!("cuda.blockDim.{axis}") => {
                ExprKind::Intrinsic {
                    name: "ember.coarse.blockDim".into(),
                }
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                let func = match intrinsic_name(func) {
                    Some("cuda.grid") if grid_rank(args) > self.plan.axis => match k {
                        Some(k) => Expr {
                            span: func.span,
                            kind: ExprKind::Intrinsic {
                                name: format!("ember.coarse.grid.{k}"),
                            },
                        },
                        None => Expr {
                            span: func.span,
                            kind: ExprKind::Unsupported {
                                what: "ember: the grid index outside a coarsened copy (please report this)".into(),
                            },
                        },
                    },
                    Some("cuda.gridsize") if grid_rank(args) > self.plan.axis => Expr {
                        span: func.span,
                        kind: ExprKind::Intrinsic {
                            name: "ember.coarse.gridsize".into(),
                        },
                    },
                    _ => sub(func),
                };
                ExprKind::Call {
                    func: Box::new(func),
                    args: args.iter().map(sub).collect(),
                    keywords: keywords
                        .iter()
                        .map(|kw| crate::ast::Keyword {
                            name: kw.name.clone(),
                            value: sub(&kw.value),
                        })
                        .collect(),
                }
            }
            ExprKind::Attribute { value, attr } => ExprKind::Attribute {
                value: boxed(value),
                attr: attr.clone(),
            },
            ExprKind::Subscript { value, index } => ExprKind::Subscript {
                value: boxed(value),
                index: boxed(index),
            },
            ExprKind::Slice { lower, upper, step } => ExprKind::Slice {
                lower: lower.as_deref().map(boxed),
                upper: upper.as_deref().map(boxed),
                step: step.as_deref().map(boxed),
            },
            ExprKind::BinOp { op, left, right } => ExprKind::BinOp {
                op: *op,
                left: boxed(left),
                right: boxed(right),
            },
            ExprKind::UnaryOp { op, operand } => ExprKind::UnaryOp {
                op: *op,
                operand: boxed(operand),
            },
            ExprKind::BoolOp { op, values } => ExprKind::BoolOp {
                op: *op,
                values: values.iter().map(sub).collect(),
            },
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => ExprKind::Compare {
                left: boxed(left),
                ops: ops.clone(),
                comparators: comparators.iter().map(sub).collect(),
            },
            ExprKind::IfExp { test, body, orelse } => ExprKind::IfExp {
                test: boxed(test),
                body: boxed(body),
                orelse: boxed(orelse),
            },
            ExprKind::Tuple { elts } => ExprKind::Tuple {
                elts: elts.iter().map(sub).collect(),
            },
            other => other.clone(),
        };
        Expr { span: x.span, kind }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_parse_and_print_back() {
        for text in ["x4", "y2", "x2a", "z16"] {
            assert_eq!(Plan::parse(text).map(|p| p.label()), Some(text.to_string()));
        }
        assert_eq!(
            Plan::parse("x4").map(|p| p.mapping),
            Some(Mapping::Adjacent)
        );
        assert_eq!(Plan::parse("y2").map(|p| p.mapping), Some(Mapping::Strided));
        for bad in ["", "x", "x1", "x17", "w2", "y2b", "2x"] {
            assert_eq!(Plan::parse(bad), None, "{bad}");
        }
    }
}
