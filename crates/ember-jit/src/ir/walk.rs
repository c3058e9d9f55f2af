//! Walking the IR: an expression's operands, a statement's expressions and nested blocks
//! (for back ends that scan before lowering, and for tests).

use super::*;

impl Expr {
    /// The expressions this one reads directly, in evaluation order.
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Const(_)
            | ExprKind::Local(_)
            | ExprKind::Temp(_)
            | ExprKind::Current
            | ExprKind::FixedArray(_)
            | ExprKind::ConstArray(_)
            | ExprKind::Captured(_)
            | ExprKind::None
            | ExprKind::Geometry(_) => Vec::new(),
            ExprKind::Cast(x)
            | ExprKind::Unary(_, x)
            | ExprKind::Not(x)
            | ExprKind::Bool(x)
            | ExprKind::RoundNarrow(x)
            | ExprKind::Dim(x, _)
            | ExprKind::Stride(x, _)
            | ExprKind::Size(x)
            | ExprKind::Address(x)
            | ExprKind::Some(x)
            | ExprKind::IsNone(x)
            | ExprKind::Unwrap(x)
            | ExprKind::Item(x, _)
            | ExprKind::Conj(x)
            | ExprKind::FloatTest(_, x)
            | ExprKind::Abs(x)
            | ExprKind::Round(x)
            | ExprKind::Part { value: x, .. } => vec![x],
            ExprKind::Binary(_, l, r)
            | ExprKind::Compare(_, l, r)
            | ExprKind::ItemAt(l, r)
            | ExprKind::RoundDigits(l, r)
            | ExprKind::Wrap { index: l, len: r } => vec![l, r],
            ExprKind::Select(c, a, b) => vec![c, a, b],
            ExprKind::Logic(_, items)
            | ExprKind::All { items, .. }
            | ExprKind::Any { items, .. }
            | ExprKind::MakeTuple(items)
            | ExprKind::Call(_, items)
            | ExprKind::Math(_, items)
            | ExprKind::PyMath(_, items)
            | ExprKind::Datetime(_, items)
            | ExprKind::External(_, items)
            | ExprKind::Intrinsic { args: items, .. }
            | ExprKind::Ufunc { args: items, .. } => items.iter().collect(),
            ExprKind::Complex(re, im) => std::iter::once(&**re).chain(im.as_deref()).collect(),
            ExprKind::Extremum { args, .. } => args.iter().collect(),
            ExprKind::Print { args, .. } => args.iter().map(PrintArg::expr).collect(),
            ExprKind::Alloc { shape, fill } => shape.iter().chain(fill.as_deref()).collect(),
            ExprKind::Element(p) | ExprKind::RecordAt(p) | ExprKind::Random(_, p) => p.exprs(),
            ExprKind::Field { record, .. } => vec![record],
            ExprKind::Sync(Sync::Warp(Some(m))) => vec![m],
            ExprKind::Sync(_) => Vec::new(),
            ExprKind::Atomic { place, value, .. } => {
                let mut v = place.exprs();
                v.push(value);
                v
            }
            ExprKind::Cas { place, old, new } => {
                let mut v = place.exprs();
                v.push(old);
                v.push(new);
                v
            }
        }
    }

    /// This expression and every expression inside it, depth first (operands after it).
    pub fn descendants(&self) -> Vec<&Expr> {
        let mut out = vec![self];
        for c in self.children() {
            out.extend(c.descendants());
        }
        out
    }
}

impl Place {
    /// The array, then its indices.
    pub fn exprs(&self) -> Vec<&Expr> {
        std::iter::once(&*self.array)
            .chain(self.indices.iter())
            .collect()
    }
}

impl Stmt {
    /// The expressions the statement evaluates itself (not those of nested blocks).
    pub fn exprs(&self) -> Vec<&Expr> {
        match self {
            Stmt::Assign { value, .. }
            | Stmt::Let { value, .. }
            | Stmt::Set { value, .. }
            | Stmt::Eval(value)
            | Stmt::Return(Some(value))
            | Stmt::Transpose { base: value, .. }
            | Stmt::FieldView { base: value, .. }
            | Stmt::Reinterpret { base: value, .. } => vec![value],
            Stmt::Store { place, value } | Stmt::Update { place, value, .. } => {
                let mut v = place.exprs();
                v.push(value);
                v
            }
            Stmt::If { cond, .. } | Stmt::While { cond, .. } => vec![cond],
            Stmt::Require { cond, details, .. } => std::iter::once(cond).chain(details).collect(),
            Stmt::For { start, stop, .. } => vec![start, stop],
            Stmt::View { base, axes, .. } => {
                let mut v = vec![base];
                for a in axes {
                    match a {
                        ViewAxis::Whole => {}
                        ViewAxis::Index(i) => v.push(i),
                        ViewAxis::Slice { lo, hi, .. } => v.extend(lo.iter().chain(hi.iter())),
                    }
                }
                v
            }
            _ => Vec::new(),
        }
    }

    /// The blocks nested in the statement, in order.
    pub fn blocks(&self) -> Vec<&[Stmt]> {
        match self {
            Stmt::If { then, orelse, .. } => vec![then, orelse],
            Stmt::While { setup, body, .. } => vec![setup, body],
            Stmt::For { body, .. } | Stmt::Block(body) | Stmt::Unbroken { body, .. } => {
                vec![body]
            }
            _ => Vec::new(),
        }
    }
}

/// Every statement of `body`, nested ones included, in order.
pub fn statements(body: &[Stmt]) -> Vec<&Stmt> {
    let mut out = Vec::new();
    for s in body {
        out.push(s);
        for b in s.blocks() {
            out.extend(statements(b));
        }
    }
    out
}

/// Every expression of `body`, nested ones included.
pub fn expressions(body: &[Stmt]) -> Vec<&Expr> {
    statements(body)
        .into_iter()
        .flat_map(|s| s.exprs())
        .flat_map(|e| e.descendants())
        .collect()
}
