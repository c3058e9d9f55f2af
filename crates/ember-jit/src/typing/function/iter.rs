//! `for` loops over `enumerate(...)` and `zip(...)` (nested freely, over `range(...)`, arrays
//! and tuples of one type), and over the rows of an n-d array: one int64 index loop that
//! reads every iterable at that index, to the shortest one's length (Numba's `zip`), with
//! nothing allocated. Tuple targets are bound item by item, so no tuple is built.

use ember_core::DType;

use super::{FnTyper, Val};
use crate::ast::{Expr, ExprKind, Span, Stmt};
use crate::error::{at, R};
use crate::ir::{self, BinOp, CmpOp, ExprKind as K, Step, Temp, TempRole, ViewAxis};
use crate::types::{ArrayTy, Layout, Ty, BOOL, INT64};

/// One iterable read at the loop's index.
enum Leaf {
    /// A 1-d array's elements, or an n-d array's rows (views).
    Array(Val, ArrayTy),
    /// A tuple of one item type.
    Tuple(Val, Ty),
    /// `range(start, _, step)` in its loop type (start and step evaluated once).
    Range { start: Val, step: Val, ty: DType },
}

/// What the loop yields, as a tree over the leaves.
enum Shape {
    Leaf(usize),
    /// `enumerate`'s count: the index plus its start (int64).
    Count(Val),
    /// A tuple of items (`enumerate` yields (count, item), `zip` one item per iterable).
    Group(Vec<Shape>),
}

/// The intrinsic a call names, if it is `enumerate` or `zip`.
pub(super) fn iter_builtin(iter: &Expr) -> Option<&'static str> {
    let ExprKind::Call { func, .. } = &iter.kind else {
        return None;
    };
    match &func.kind {
        ExprKind::Intrinsic { name } if name == "builtin.enumerate" => Some("enumerate"),
        ExprKind::Intrinsic { name } if name == "builtin.zip" => Some("zip"),
        _ => None,
    }
}

fn int64(v: i64) -> Val {
    Val::constant(INT64, ir::Const::Int(v))
}

fn binary(op: BinOp, l: &Val, r: &Val) -> Val {
    Val::new(INT64, K::Binary(op, l.boxed(), r.boxed()))
}

fn compare(op: CmpOp, l: &Val, r: &Val) -> Val {
    Val::new(BOOL, K::Compare(op, l.boxed(), r.boxed()))
}

fn select(cond: &Val, then: &Val, other: &Val) -> Val {
    Val::new(INT64, K::Select(cond.boxed(), then.boxed(), other.boxed()))
}

impl FnTyper<'_, '_> {
    /// The loop `for target in iter` where `iter` is `enumerate(...)`, `zip(...)` or an n-d
    /// array (`seq` when the caller already evaluated it).
    pub(super) fn iter_loop(
        &mut self,
        target: &Expr,
        iter: &Expr,
        seq: Option<Val>,
        body: &[Stmt],
        broke: Option<Temp>,
    ) -> R<()> {
        self.c.register(&INT64);
        let mut leaves = Vec::new();
        let mut lens = Vec::new();
        let shape = match seq {
            Some(v) => self.leaf(v, iter.span, &mut leaves, &mut lens)?,
            None => self.iter_shape(iter, &mut leaves, &mut lens)?,
        };
        // The shortest length: zip stops there.
        let mut len = match lens.first() {
            Some(l) => l.clone(),
            None => int64(0),
        };
        for l in &lens[1.min(lens.len())..] {
            len = select(&compare(CmpOp::Lt, l, &len), l, &len);
        }
        let n = self.fresh(TempRole::Stop);
        self.push(ir::Stmt::Let {
            temp: n,
            value: len.expr(),
            constant: true,
        });
        let i = self.fresh(TempRole::Index);
        let index = Val::new(INT64, K::Temp(i)).nonneg(true);
        self.open_block();
        let r = self.bind(target, &shape, &leaves, &index, iter.span);
        let mut block = self.close_block();
        r?;
        block.extend(self.loop_body(body, broke)?);
        self.push(ir::Stmt::For {
            index: i,
            ty: DType::I64,
            start: int64(0).expr(),
            stop: Val::new(INT64, K::Temp(n)).nonneg(true).expr(),
            step: Step::One,
            body: block,
            parallel: false,
        });
        Ok(())
    }

    /// Reads the iterable `e` into leaves (evaluated once, before the loop) and their lengths.
    fn iter_shape(&mut self, e: &Expr, leaves: &mut Vec<Leaf>, lens: &mut Vec<Val>) -> R<Shape> {
        let call = match &e.kind {
            ExprKind::Call {
                func,
                args,
                keywords,
            } => match &func.kind {
                ExprKind::Intrinsic { name } => Some((name.as_str(), args, keywords)),
                _ => None,
            },
            _ => None,
        };
        match call {
            Some(("builtin.enumerate", args, keywords)) => {
                let mut start = args.get(1);
                for kw in keywords {
                    if kw.name == "start" && start.is_none() {
                        start = Some(&kw.value);
                    } else {
                        return at(
                            e.span,
                            format!(
                                "enumerate() got an unexpected keyword argument '{}'",
                                kw.name
                            ),
                        );
                    }
                }
                if args.is_empty() || args.len() > 2 {
                    return at(
                        e.span,
                        format!("enumerate() takes 1 or 2 arguments, got {}", args.len()),
                    );
                }
                let count = match start {
                    None => int64(0).nonneg(true),
                    Some(s) => {
                        let v = self.expr(s)?;
                        if !v.ty.is_integral() {
                            return at(
                                s.span,
                                "Only integers supported as start value in enumerate",
                            );
                        }
                        let v = self.cast_to(&v, DType::I64);
                        self.temp(&v)?
                    }
                };
                let inner = self.iter_shape(&args[0], leaves, lens)?;
                Ok(Shape::Group(vec![Shape::Count(count), inner]))
            }
            Some(("builtin.zip", args, keywords)) => {
                if let Some(kw) = keywords.first() {
                    return at(
                        e.span,
                        format!(
                            "zip() got an unexpected keyword argument '{}' in a kernel",
                            kw.name
                        ),
                    );
                }
                if args.is_empty() {
                    return at(e.span, "zip() needs at least one iterable in a kernel");
                }
                let mut items = Vec::new();
                for a in args {
                    items.push(self.iter_shape(a, leaves, lens)?);
                }
                Ok(Shape::Group(items))
            }
            Some(("builtin.range", args, _)) => self.range_leaf(args, e.span, leaves, lens),
            _ => {
                let v = self.expr(e)?;
                self.leaf(v, e.span, leaves, lens)
            }
        }
    }

    fn leaf(
        &mut self,
        v: Val,
        span: Span,
        leaves: &mut Vec<Leaf>,
        lens: &mut Vec<Val>,
    ) -> R<Shape> {
        let v = self.temp(&v)?;
        let (leaf, len) = match &v.ty {
            Ty::Array(a) if a.ndim >= 1 => {
                let a = a.clone();
                let len = self.dim(&v, &a, 0);
                (Leaf::Array(v, a), len)
            }
            Ty::Tuple(items) if !items.is_empty() && items.iter().all(|t| *t == items[0]) => {
                let n = items.len() as i64;
                let item = items[0].clone();
                self.tuple_getter(&v.ty);
                (Leaf::Tuple(v, item), int64(n).nonneg(true))
            }
            Ty::Tuple(items) if items.is_empty() => (Leaf::Tuple(v, INT64), int64(0)),
            Ty::Tuple(_) => return at(span, "a loop over a tuple needs all its items of one type"),
            t => {
                return at(
                    span,
                    format!(
                    "enumerate() and zip() in kernels take range(...), arrays and tuples, not {t}"
                ),
                )
            }
        };
        let len = self.temp(&len)?;
        leaves.push(leaf);
        lens.push(len);
        Ok(Shape::Leaf(leaves.len() - 1))
    }

    /// `range(...)` as a leaf: its length is Python's `len(range(...))`.
    fn range_leaf(
        &mut self,
        args: &[Expr],
        span: Span,
        leaves: &mut Vec<Leaf>,
        lens: &mut Vec<Val>,
    ) -> R<Shape> {
        if args.is_empty() || args.len() > 3 {
            return at(
                span,
                format!("range expected 1 to 3 arguments, got {}", args.len()),
            );
        }
        let mut vals = Vec::new();
        for a in args {
            let v = self.expr(a)?;
            if !v.ty.is_integral() {
                return at(a.span, format!("range() takes integers, got {}", v.ty));
            }
            vals.push(v);
        }
        let d = super::loops::range_type(vals.iter().filter_map(|v| v.ty.scalar()));
        let ty = Ty::Scalar(d);
        self.c.register(&ty);
        let literal_step = args.get(2).and_then(crate::typing::expr::int_literal);
        if literal_step == Some(0) {
            return at(args[2].span, "range() arg 3 must not be zero");
        }
        let as64 = |t: &mut Self, v: &Val| -> R<Val> {
            let c = t.cast_to(v, DType::I64);
            t.temp(&c)
        };
        let stop = as64(self, &vals[vals.len().min(2) - 1])?;
        let start64 = match vals.len() {
            1 => int64(0).nonneg(true),
            _ => as64(self, &vals[0])?,
        };
        let step64 = match (vals.get(2), literal_step) {
            (None, _) => int64(1),
            (Some(_), Some(k)) => int64(k),
            (Some(s), None) => as64(self, s)?,
        };
        let (start, step) = (&start64, &step64);
        let up = |start: &Val, stop: &Val, step: &Val| {
            // (stop - start + step - 1) / step, C's division: 0 or less when empty.
            let span = binary(BinOp::Sub, stop, start);
            let top = binary(BinOp::Sub, &binary(BinOp::Add, &span, step), &int64(1));
            binary(BinOp::Div, &top, step)
        };
        let raw = match literal_step {
            Some(k) if k > 0 => up(start, &stop, step),
            Some(k) => up(&stop, start, &int64(-k)),
            None if vals.len() < 3 => up(start, &stop, step),
            None => {
                let neg = binary(BinOp::Sub, &int64(0), step);
                select(
                    &compare(CmpOp::Gt, step, &int64(0)),
                    &up(start, &stop, step),
                    &select(
                        &compare(CmpOp::Lt, step, &int64(0)),
                        &up(&stop, start, &neg),
                        &int64(0),
                    ),
                )
            }
        };
        let zero = int64(0);
        let len = select(&compare(CmpOp::Gt, &raw, &zero), &raw, &zero).nonneg(true);
        let len = self.temp(&len)?;
        // Start and step in the range's own type (Numba's loop variable type).
        let start = match vals.len() {
            1 => Val::constant(ty.clone(), ir::Const::Count(0)).nonneg(true),
            _ => {
                let c = self.cast_to(&vals[0], d);
                self.temp(&c)?
            }
        };
        let step = match (vals.get(2), literal_step) {
            (None, _) => Val::constant(ty.clone(), ir::Const::Int(1)),
            (Some(_), Some(k)) => Val::constant(ty.clone(), ir::Const::Int(k)),
            (Some(s), None) => {
                let c = self.cast_to(s, d);
                self.temp(&c)?
            }
        };
        leaves.push(Leaf::Range { start, step, ty: d });
        lens.push(len);
        Ok(Shape::Leaf(leaves.len() - 1))
    }

    /// The value the loop yields at `index` for `shape`.
    fn item(&mut self, shape: &Shape, leaves: &[Leaf], index: &Val, span: Span) -> R<Val> {
        match shape {
            Shape::Count(start) => {
                if matches!(start.kind, K::Const(ir::Const::Int(0))) {
                    return Ok(index.clone());
                }
                Ok(binary(BinOp::Add, start, index).nonneg(start.nonneg))
            }
            Shape::Group(items) => {
                let mut vals = Vec::new();
                for s in items {
                    vals.push(self.item(s, leaves, index, span)?);
                }
                Ok(self.make_tuple(vals))
            }
            Shape::Leaf(k) => match &leaves[*k] {
                Leaf::Array(v, a) if a.ndim == 1 => {
                    self.element(v, a, std::slice::from_ref(index), span)
                }
                Leaf::Array(v, a) => {
                    // A row: the view `v[index]`.
                    let ty = Ty::Array(ArrayTy {
                        dtype: a.dtype,
                        ndim: a.ndim - 1,
                        layout: Layout::A,
                        space: a.space,
                        fixed: None,
                        unaligned: a.unaligned,
                    });
                    if a.fixed.is_some() {
                        return at(
                            span,
                            "a loop over the rows of a shared, local or constant array is not supported; index its elements",
                        );
                    }
                    self.c.register(&ty);
                    self.c.uses.helpers.insert(crate::helpers::Helper::Wrap);
                    let mut axes = vec![ViewAxis::Index(index.expr())];
                    axes.extend((1..a.ndim).map(|_| ViewAxis::Whole));
                    let name = self.fresh(TempRole::View);
                    self.push(ir::Stmt::View {
                        temp: name,
                        ty: ty.clone(),
                        base: v.expr(),
                        axes,
                    });
                    Ok(Val::new(ty, K::Temp(name)))
                }
                Leaf::Tuple(v, item) => {
                    Ok(Val::new(item.clone(), K::ItemAt(v.boxed(), index.boxed())))
                }
                Leaf::Range { start, step, ty } => {
                    let t = Ty::Scalar(*ty);
                    let i = self.cast_to(index, *ty);
                    let scaled = match step.kind {
                        K::Const(ir::Const::Int(1)) => i,
                        _ => Val::new(t.clone(), K::Binary(BinOp::Mult, i.boxed(), step.boxed())),
                    };
                    let forward = matches!(step.kind, K::Const(ir::Const::Int(k)) if k > 0);
                    Ok(
                        Val::new(t, K::Binary(BinOp::Add, start.boxed(), scaled.boxed()))
                            .nonneg(start.nonneg && forward),
                    )
                }
            },
        }
    }

    /// `target = item`, a tuple target matched against a group item by item.
    fn bind(
        &mut self,
        target: &Expr,
        shape: &Shape,
        leaves: &[Leaf],
        index: &Val,
        span: Span,
    ) -> R<()> {
        if let (ExprKind::Tuple { elts }, Shape::Group(items)) = (&target.kind, shape) {
            if elts.len() == items.len()
                && !elts
                    .iter()
                    .any(|e| matches!(e.kind, ExprKind::Unsupported { .. }))
            {
                for (e, s) in elts.iter().zip(items) {
                    self.bind(e, s, leaves, index, span)?;
                }
                return Ok(());
            }
        }
        let v = self.item(shape, leaves, index, span)?;
        self.assign(target, v)
    }
}
