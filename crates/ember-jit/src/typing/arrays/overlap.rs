//! Arrays written while other arrays over the same memory are read (`a += a[::-1]`,
//! `a[1:] = a[:-1]`): NumPy gives the result of reading every input first. An input whose
//! memory overlaps the array written (and is not that array itself, read at the element being
//! written) is copied first, as NumPy copies it.

use ember_core::DType;

use crate::ast::{BinOp, CmpOp, Span};
use crate::error::R;
use crate::ir::{self, Const, ExprKind as K, NanRule, TempRole};
use crate::types::{ArrayTy, Layout, Ty, BOOL, INT64};
use crate::typing::{FnTyper, Val};

impl FnTyper<'_, '_> {
    /// `src`, or a copy of it where its memory overlaps `dst`'s.
    pub(crate) fn unaliased(
        &mut self,
        src: &Val,
        a: &ArrayTy,
        dst: &Val,
        d: &ArrayTy,
        span: Span,
    ) -> R<Val> {
        if same_variable(src, dst) {
            return Ok(src.clone());
        }
        let (src_lo, src_hi) = self.extent(src, a)?;
        let (dst_lo, dst_hi) = self.extent(dst, d)?;
        let before = |x: &Val, y: &Val| Val::new(BOOL, K::Compare(CmpOp::Lt, x.boxed(), y.boxed()));
        let overlap = Val::new(
            BOOL,
            K::All {
                items: vec![
                    before(&src_lo, &dst_hi).expr(),
                    before(&dst_lo, &src_hi).expr(),
                ],
                negated: false,
            },
        );
        let any = Ty::Array(ArrayTy {
            layout: Layout::A,
            ..a.clone()
        });
        self.c.register(&any);
        let chosen = self.fresh(TempRole::Value);
        self.push(ir::Stmt::Declare {
            temp: chosen,
            ty: any.clone(),
        });
        self.open_block();
        let copied = self.array_cast(src.clone(), a.dtype, span);
        let copy_block = self.close_block();
        let copy = copied?;
        let mut then = copy_block;
        then.push(ir::Stmt::Set {
            temp: chosen,
            value: Val::new(any.clone(), copy.kind).expr(),
        });
        self.push(ir::Stmt::If {
            cond: overlap.expr(),
            negate: false,
            then,
            orelse: vec![ir::Stmt::Set {
                temp: chosen,
                value: Val::new(any.clone(), src.kind.clone()).expr(),
            }],
        });
        Ok(Val::new(any, K::Temp(chosen)))
    }

    /// The first and one past the last byte address an array's elements occupy (equal when
    /// it has none), each evaluated once.
    fn extent(&mut self, v: &Val, a: &ArrayTy) -> R<(Val, Val)> {
        let int = |kind: K| Val::new(INT64, kind);
        let address = Val::new(Ty::Scalar(DType::U64), K::Address(v.boxed()));
        let mut lo = self.cast_to(&address, DType::I64);
        let mut hi = lo.clone();
        let mut empty = Val::constant(BOOL, Const::Bool(false));
        for k in 0..a.ndim {
            let n = self.dim(v, a, k);
            let last = int(K::Binary(
                BinOp::Sub,
                n.boxed(),
                Val::constant(INT64, Const::Int(1)).boxed(),
            ));
            let reach = int(K::Binary(
                BinOp::Mult,
                last.boxed(),
                self.stride(v, a, k).boxed(),
            ));
            let reach = self.temp(&reach)?;
            let side = |max: bool| {
                int(K::Extremum {
                    max,
                    rule: NanRule::Python,
                    args: Box::new([reach.expr(), Val::constant(INT64, Const::Int(0)).expr()]),
                })
            };
            lo = int(K::Binary(BinOp::Add, lo.boxed(), side(false).boxed()));
            hi = int(K::Binary(BinOp::Add, hi.boxed(), side(true).boxed()));
            let zero = Val::new(
                BOOL,
                K::Compare(
                    CmpOp::Eq,
                    n.boxed(),
                    Val::constant(INT64, Const::Int(0)).boxed(),
                ),
            );
            empty = Val::new(
                BOOL,
                K::Any {
                    items: vec![empty.expr(), zero.expr()],
                    negated: false,
                },
            );
        }
        let size = Val::constant(INT64, Const::Int(a.dtype.itemsize() as i64));
        let end = int(K::Binary(BinOp::Add, hi.boxed(), size.boxed()));
        // No elements: an empty range (overlapping nothing).
        let lo = self.temp(&lo)?;
        let hi = Val::new(INT64, K::Select(empty.boxed(), lo.boxed(), end.boxed()));
        self.c.uses.helpers.extend([
            crate::helpers::Helper::Max(DType::I64),
            crate::helpers::Helper::Min(DType::I64),
        ]);
        Ok((lo, self.temp(&hi)?))
    }
}

/// The same local variable or temporary: the same array, element for element.
fn same_variable(x: &Val, y: &Val) -> bool {
    match (&x.kind, &y.kind) {
        (K::Local(a), K::Local(b)) => a == b,
        (K::Temp(a), K::Temp(b)) => a == b,
        _ => false,
    }
}
