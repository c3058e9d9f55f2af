//! A whole array expression computed in one loop: `a * 2.0 + b` reads `a` and `b` once and
//! writes one new array, where operator by operator it would make an array for `a * 2.0` and
//! read it back. Each operation keeps NumPy's loop (its dtype and its semantics), so the values
//! are those of the operator-by-operator computation; only the arrays in between are gone.

use ember_codegen::ufuncs::{ufunc, OperandType};
use ember_core::DType;

use crate::ast::{CmpOp, Expr, ExprKind, Span, UnaryOp};
use crate::error::{Fail, R};
use crate::ir::ExprKind as K;
use crate::types::Ty;
use crate::typing::{FnTyper, Val};

use super::elementwise::{binop_ufunc, compare_ufunc, scalar_operand, unary_ufunc};

/// An element-by-element expression over arrays, not yet computed.
enum Tree {
    /// A value computed already: an array read element by element, or a number.
    Leaf(Val),
    /// A ufunc of trees, by NumPy's loop `ins -> out`.
    Node {
        name: &'static str,
        ins: &'static [DType],
        out: DType,
        kids: Vec<Tree>,
    },
}

impl Tree {
    /// The dtype of an array-valued tree's elements (`None`: a number, or not an array).
    fn array_dtype(&self) -> Option<DType> {
        match self {
            Tree::Leaf(v) => match &v.ty {
                Ty::Array(a) => Some(a.dtype),
                _ => None,
            },
            Tree::Node { out, .. } => Some(*out),
        }
    }
}

impl FnTyper<'_, '_> {
    /// `e` (an operator or a ufunc call) when it is whole-array: computed in one loop with the
    /// array operations under it. `None`: `e` is not such an expression.
    pub(crate) fn fused_array_expression(&mut self, e: &Expr) -> Option<R<Val>> {
        if !self.c.host || !fusable(e) {
            return None;
        }
        Some(self.tree(e).and_then(|t| self.materialise(t, e.span)))
    }

    /// The tree of `e`: operations whose operands include an array become nodes; anything
    /// else is typed now (in Python's order of evaluation) as a leaf.
    fn tree(&mut self, e: &Expr) -> R<Tree> {
        let span = e.span;
        let (name, operands): (Option<&'static str>, Vec<&Expr>) = match &e.kind {
            ExprKind::BinOp { op, left, right } if fusable(e) => {
                (Some(binop_ufunc(*op)), vec![&**left, &**right])
            }
            ExprKind::UnaryOp { op, operand } if fusable(e) => (unary_ufunc(*op), vec![&**operand]),
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } if fusable(e) => (compare_ufunc(ops[0]), vec![&**left, &comparators[0]]),
            ExprKind::Call { func, args, .. } if fusable(e) => {
                let ExprKind::Intrinsic { name } = &func.kind else {
                    unreachable!("fusable calls are intrinsics")
                };
                (call_ufunc(name), args.iter().collect())
            }
            _ => return Ok(Tree::Leaf(self.expr(e)?)),
        };
        let name = name.expect("fusable expressions name a ufunc");
        let mut kids = Vec::with_capacity(operands.len());
        for o in operands {
            kids.push(self.tree(o)?);
        }
        if kids.iter().all(|k| k.array_dtype().is_none()) {
            // Numbers only: the operation as on numbers.
            let vals = kids
                .into_iter()
                .map(|k| match k {
                    Tree::Leaf(v) => v,
                    Tree::Node { .. } => unreachable!("a node is an array"),
                })
                .collect();
            return self.on_numbers(e, vals).map(Tree::Leaf);
        }
        let u = ufunc(name).map_err(|err| Fail::At(span, err.to_string()))?;
        let mut ops = Vec::with_capacity(kids.len());
        for k in &kids {
            ops.push(match (k.array_dtype(), k) {
                (Some(d), _) => OperandType::Strong(d),
                (None, Tree::Leaf(v)) => match v.ty.scalar() {
                    Some(d) => scalar_operand(d),
                    None => {
                        return crate::error::at(
                            span,
                            format!(
                                "np.{}() takes arrays of numbers and numbers, got {}",
                                u.name, v.ty
                            ),
                        )
                    }
                },
                (None, Tree::Node { .. }) => unreachable!("a node is an array"),
            });
        }
        let scalars: Vec<Option<&Val>> = kids
            .iter()
            .map(|k| match k {
                Tree::Leaf(v) if matches!(v.ty, Ty::Scalar(_)) => Some(v),
                _ => None,
            })
            .collect();
        let (ins, outs) = self.loop_with_python_ints(u, ops, &scalars, span)?;
        self.c.uses.dtypes.extend(ins.iter().copied());
        Ok(Tree::Node {
            name: u.row.name,
            ins,
            out: outs[0],
            kids,
        })
    }

    /// The operation of `e` on numbers already evaluated (`vals`, its operands in order).
    fn on_numbers(&mut self, e: &Expr, vals: Vec<Val>) -> R<Val> {
        let span = e.span;
        let mut vals = vals.into_iter();
        let mut next = || vals.next().expect("an operand per operand");
        match &e.kind {
            ExprKind::BinOp { op, .. } => {
                let (l, r) = (next(), next());
                self.binop(*op, l, r, span)
            }
            ExprKind::UnaryOp { op, .. } => {
                let v = next();
                self.unary(*op, v, span)
            }
            ExprKind::Compare { ops, .. } => {
                let (l, r) = (next(), next());
                self.compare_two(ops[0], &l, &r, span)
            }
            ExprKind::Call { func, args, .. } => {
                let ExprKind::Intrinsic { name } = &func.kind else {
                    unreachable!("fusable calls are intrinsics")
                };
                let vals: Vec<Val> = args.iter().map(|_| next()).collect();
                self.call_on_values(name, vals, args, span)
            }
            _ => unreachable!("only fusable expressions have operands here"),
        }
    }

    /// The tree computed: a leaf is its value; a node, one loop into a new array.
    fn materialise(&mut self, t: Tree, span: Span) -> R<Val> {
        let (ins, out) = match &t {
            Tree::Leaf(_) => {
                let Tree::Leaf(v) = t else { unreachable!() };
                return Ok(v);
            }
            Tree::Node { out, .. } => (leaf_types(&t), *out),
        };
        let mut leaves = Vec::new();
        let t = take_leaves(t, &mut leaves);
        self.elements(leaves, &ins, None, out, span, move |s, elements| {
            let mut elements = elements.into_iter();
            s.element_of(&t, &mut elements)
        })
    }

    /// The element of tree `t` from its leaves' elements, in order.
    fn element_of(&mut self, t: &Shape, elements: &mut impl Iterator<Item = Val>) -> R<Val> {
        match t {
            Shape::Leaf => Ok(elements.next().expect("an element per leaf")),
            Shape::Node {
                name,
                ins,
                out,
                kids,
            } => {
                let mut args = Vec::with_capacity(kids.len());
                for (k, &d) in kids.iter().zip(ins.iter()) {
                    let v = self.element_of(k, elements)?;
                    args.push(self.cast_to(&v, d).expr());
                }
                Ok(Val::new(Ty::Scalar(*out), K::Ufunc { name, ins, args }))
            }
        }
    }
}

/// A tree with its leaves taken out (in order).
enum Shape {
    Leaf,
    Node {
        name: &'static str,
        ins: &'static [DType],
        out: DType,
        kids: Vec<Shape>,
    },
}

fn take_leaves(t: Tree, leaves: &mut Vec<Val>) -> Shape {
    match t {
        Tree::Leaf(v) => {
            leaves.push(v);
            Shape::Leaf
        }
        Tree::Node {
            name,
            ins,
            out,
            kids,
        } => Shape::Node {
            name,
            ins,
            out,
            kids: kids.into_iter().map(|k| take_leaves(k, leaves)).collect(),
        },
    }
}

/// The dtype each leaf of `t` is read as (its parent's loop type for it), in order.
fn leaf_types(t: &Tree) -> Vec<DType> {
    fn walk(t: &Tree, want: DType, out: &mut Vec<DType>) {
        match t {
            Tree::Leaf(_) => out.push(want),
            Tree::Node { ins, kids, .. } => {
                for (k, &d) in kids.iter().zip(ins.iter()) {
                    walk(k, d, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    if let Tree::Node { ins, kids, .. } = t {
        for (k, &d) in kids.iter().zip(ins.iter()) {
            walk(k, d, &mut out);
        }
    }
    out
}

/// The ufunc a call computes on arrays: `np.<ufunc>(...)` or `abs(...)`.
fn call_ufunc(name: &str) -> Option<&'static str> {
    let f = match name {
        "builtin.abs" => "absolute",
        _ => name.strip_prefix("np.")?,
    };
    ufunc(f).ok().map(|u| u.name)
}

/// True for the expressions a tree is made of: operators (not `@`, not `not`, one comparison
/// that is not `in`/`is`) and ufunc calls with only their inputs as arguments.
fn fusable(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::BinOp { op, .. } => *op != crate::ast::BinOp::MatMult,
        ExprKind::UnaryOp { op, .. } => *op != UnaryOp::Not,
        ExprKind::Compare { ops, .. } => {
            ops.len() == 1 && !matches!(ops[0], CmpOp::In | CmpOp::NotIn | CmpOp::Is | CmpOp::IsNot)
        }
        ExprKind::Call {
            func,
            args,
            keywords,
        } => match &func.kind {
            ExprKind::Intrinsic { name } if keywords.is_empty() => {
                call_ufunc(name)
                    .is_some_and(|n| ufunc(n).is_ok_and(|u| u.nout == 1 && u.nin == args.len()))
                    && !args
                        .iter()
                        .any(|a| matches!(a.kind, ExprKind::Starred { .. }))
            }
            _ => false,
        },
        _ => false,
    }
}
