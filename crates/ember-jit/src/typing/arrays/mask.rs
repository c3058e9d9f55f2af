//! Boolean masks and the positions of nonzero elements, in host functions: `a[mask]` (a new
//! 1-d array of the elements where the mask is true), `a[mask] = x`, `np.nonzero(a)` /
//! `np.where(a)`, `np.flatnonzero(a)`, `np.argwhere(a)` and `np.count_nonzero(a)`. Each counts
//! first, then fills an array of that length, in C order as NumPy's.

use ember_core::DType;

use crate::ast::{BinOp, CmpOp, Span};
use crate::error::{at, R};
use crate::ir::{self, Const, ExprKind as K, Failure, Place};
use crate::types::{ArrayTy, Layout, Ty, BOOL, INT64};
use crate::typing::{FnTyper, Val};

fn int64(kind: K) -> Val {
    Val::new(INT64, kind)
}

fn plus_one(x: &Val) -> Val {
    let one = Val::constant(INT64, Const::Int(1));
    int64(K::Binary(BinOp::Add, x.boxed(), one.boxed()))
}

impl FnTyper<'_, '_> {
    /// `a[mask]`: the elements where `mask` (a bool array of `a`'s shape) is true.
    pub(crate) fn masked_select(&mut self, v: &Val, a: &ArrayTy, m: &Val, span: Span) -> R<Val> {
        let (v, m, ma) = self.mask_of(v, a, m, span)?;
        let count = self.count_true(&m, &ma, span)?;
        let (out, out_ty) = self.made_array(a.dtype, &[count], None)?;
        let pos = self.counter_at_zero();
        let dims: Vec<Val> = (0..a.ndim).map(|k| self.dim(&v, a, k)).collect();
        self.nest_loops(&dims, |s, index| {
            let keep = s.truth_at(&m, &ma, index, span)?;
            let x = s.element(&v, a, index, span)?;
            let at_ = int64(K::Temp(pos));
            s.when(keep, |s| {
                s.push(ir::Stmt::Store {
                    place: Place {
                        array: out.boxed(),
                        ty: out_ty.clone(),
                        indices: vec![at_.expr()],
                    },
                    value: x.expr(),
                });
                s.set(pos, &plus_one(&at_));
            });
            Ok(())
        })?;
        Ok(out)
    }

    /// `a[mask] = x`: a number into every element where the mask is true, or a 1-d array's
    /// elements in order (as many as the mask has true elements).
    pub(crate) fn masked_store(
        &mut self,
        v: &Val,
        a: &ArrayTy,
        m: &Val,
        x: Val,
        span: Span,
    ) -> R<()> {
        let (v, m, ma) = self.mask_of(v, a, m, span)?;
        let source = match x.ty.clone() {
            Ty::Scalar(_) => {
                let x = self.convert(&x, &Ty::Scalar(a.dtype), span)?;
                Source::Number(self.temp(&x)?)
            }
            Ty::Array(xa) if xa.ndim == 1 => {
                let x = self.temp(&x)?;
                let count = self.count_true(&m, &ma, span)?;
                let given = self.dim(&x, &xa, 0);
                let fits = Val::new(BOOL, K::Compare(CmpOp::Eq, given.boxed(), count.boxed()));
                self.require(fits, Failure::MaskAssign, &[&given, &count]);
                Source::Array(x, xa)
            }
            t => {
                return at(
                    span,
                    format!("a[mask] = x takes a number or a 1-d array as x, got {t}"),
                )
            }
        };
        let pos = self.counter_at_zero();
        let dims: Vec<Val> = (0..a.ndim).map(|k| self.dim(&v, a, k)).collect();
        self.nest_loops(&dims, |s, index| {
            let keep = s.truth_at(&m, &ma, index, span)?;
            let place = Place {
                array: v.boxed(),
                ty: a.clone(),
                indices: index.iter().map(Val::expr).collect(),
            };
            let at_ = int64(K::Temp(pos));
            let value = match &source {
                Source::Number(x) => x.clone(),
                Source::Array(xs, xa) => {
                    let e = s.element(xs, xa, std::slice::from_ref(&at_), span)?;
                    s.cast_to(&e, a.dtype)
                }
            };
            let counts = matches!(source, Source::Array(..));
            s.when(keep, |s| {
                s.push(ir::Stmt::Store {
                    place,
                    value: value.expr(),
                });
                if counts {
                    s.set(pos, &plus_one(&at_));
                }
            });
            Ok(())
        })
    }

    /// The positions of the nonzero elements of `v`, as `how` gives them (or their count).
    pub(crate) fn nonzero(&mut self, v: Val, how: Nonzero, span: Span) -> R<Val> {
        let Ty::Array(a) = v.ty.clone() else {
            return at(span, format!("this function takes an array, got {}", v.ty));
        };
        let v = self.temp(&v)?;
        let count = self.count_true(&v, &a, span)?;
        if how == Nonzero::Count {
            return Ok(count.nonneg(true));
        }
        let outs: Vec<(Val, ArrayTy)> = match how {
            Nonzero::Axes => (0..a.ndim.max(1))
                .map(|_| self.made_array(DType::I64, std::slice::from_ref(&count), None))
                .collect::<R<_>>()?,
            Nonzero::Flat | Nonzero::Count => vec![self.made_array(DType::I64, &[count], None)?],
            Nonzero::Rows => {
                // NumPy's argwhere is nonzero's arrays stacked, transposed: (ndim, count)
                // filled, its transpose returned (Fortran order, as NumPy's).
                let ndim = Val::constant(INT64, Const::Int(a.ndim as i64));
                vec![self.made_array(DType::I64, &[ndim, count], None)?]
            }
        };
        let pos = self.counter_at_zero();
        let flat = self.counter_at_zero();
        let dims: Vec<Val> = (0..a.ndim).map(|k| self.dim(&v, &a, k)).collect();
        self.nest_loops(&dims, |s, index| {
            let keep = s.truth_at(&v, &a, index, span)?;
            let at_ = int64(K::Temp(pos));
            let here = int64(K::Temp(flat));
            let stores: Vec<(usize, Vec<Val>, Val)> = match how {
                // A 0-d array's one element is at position 0 of one axis, as NumPy's.
                Nonzero::Axes if a.ndim == 0 => vec![(0, vec![at_.clone()], here.clone())],
                Nonzero::Axes => (0..a.ndim)
                    .map(|k| (k, vec![at_.clone()], index[k].clone()))
                    .collect(),
                Nonzero::Flat | Nonzero::Count => vec![(0, vec![at_.clone()], here.clone())],
                Nonzero::Rows => (0..a.ndim)
                    .map(|k| {
                        let axis = Val::constant(INT64, Const::Int(k as i64));
                        (0, vec![axis, at_.clone()], index[k].clone())
                    })
                    .collect(),
            };
            s.when(keep, |s| {
                for (k, indices, value) in stores {
                    s.push(ir::Stmt::Store {
                        place: Place {
                            array: outs[k].0.boxed(),
                            ty: outs[k].1.clone(),
                            indices: indices.iter().map(Val::expr).collect(),
                        },
                        value: value.expr(),
                    });
                }
                s.set(pos, &plus_one(&at_));
            });
            s.set(flat, &plus_one(&here));
            Ok(())
        })?;
        if how == Nonzero::Rows {
            let (stacked, ty) = &outs[0];
            return self.transposed(stacked, ty, span);
        }
        let mut arrays: Vec<Val> = outs.into_iter().map(|(v, _)| v).collect();
        Ok(match how {
            Nonzero::Axes => self.make_tuple(arrays),
            _ => arrays.swap_remove(0),
        })
    }

    /// The array and its mask in temporaries, the mask's shape checked against the array's
    /// (NumPy's IndexError).
    fn mask_of(&mut self, v: &Val, a: &ArrayTy, m: &Val, span: Span) -> R<(Val, Val, ArrayTy)> {
        let Ty::Array(ma) = m.ty.clone() else {
            return at(span, "a mask is an array of bools");
        };
        if ma.ndim != a.ndim {
            return at(
                span,
                format!(
                    "a boolean mask indexes an array of its own shape here: a {}-d array, a {}-d mask (a mask of fewer dimensions is not compiled yet)",
                    a.ndim, ma.ndim
                ),
            );
        }
        let (v, m) = (self.temp(v)?, self.temp(m)?);
        for k in 0..a.ndim {
            let (n, mn) = (self.dim(&v, a, k), self.dim(&m, &ma, k));
            let same = Val::new(BOOL, K::Compare(CmpOp::Eq, n.boxed(), mn.boxed()));
            self.require(same, Failure::MaskShape, &[&n, &mn]);
        }
        Ok((v, m, ma))
    }

    /// How many elements of `v` are true (nonzero).
    fn count_true(&mut self, v: &Val, a: &ArrayTy, span: Span) -> R<Val> {
        let zero = Val::constant(INT64, Const::Int(0));
        let n = self.fold(v, a, DType::I64, zero, span, |s, acc, x| {
            let t = Val::new(BOOL, K::Bool(x.boxed()));
            let t = s.cast_to(&t, DType::I64);
            Ok(int64(K::Binary(BinOp::Add, acc.boxed(), t.boxed())))
        })?;
        self.temp(&n)
    }

    /// Whether the element of `m` at `index` is true.
    fn truth_at(&mut self, m: &Val, ma: &ArrayTy, index: &[Val], span: Span) -> R<Val> {
        let x = self.element(m, ma, index, span)?;
        self.temp(&Val::new(BOOL, K::Bool(x.boxed())))
    }

    /// A new C-contiguous array of `dtype` and `shape` (int64 extents), its elements `fill`
    /// (or as the allocator gives them), in a temporary.
    pub(crate) fn made_array(
        &mut self,
        dtype: DType,
        shape: &[Val],
        fill: Option<Val>,
    ) -> R<(Val, ArrayTy)> {
        let a = ArrayTy::global(dtype, shape.len(), Layout::C);
        let ty = Ty::Array(a.clone());
        self.c.register(&ty);
        let made = Val::new(
            ty,
            K::Alloc {
                shape: shape.iter().map(Val::expr).collect(),
                fill: fill.map(|f| f.boxed()),
            },
        );
        Ok((self.temp(&made)?, a))
    }

    /// An int64 temporary set to 0 (a running position).
    pub(crate) fn counter_at_zero(&mut self) -> ir::Temp {
        let t = self.declare(INT64);
        self.set(t, &Val::constant(INT64, Const::Int(0)));
        t
    }

    /// `if cond: body`.
    fn when(&mut self, cond: Val, body: impl FnOnce(&mut Self)) {
        self.open_block();
        body(self);
        let then = self.close_block();
        self.push(ir::Stmt::If {
            cond: cond.expr(),
            negate: false,
            then,
            orelse: Vec::new(),
        });
    }
}

/// What [`FnTyper::nonzero`] makes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Nonzero {
    /// `np.nonzero` / `np.where(cond)`: a tuple of one int64 array per axis.
    Axes,
    /// `np.flatnonzero`: positions in C order.
    Flat,
    /// `np.argwhere`: a (count, ndim) array, one row of coordinates per element.
    Rows,
    /// `np.count_nonzero`: how many (int64).
    Count,
}

impl Nonzero {
    /// The one-argument NumPy function `f` of this kind.
    pub(crate) fn named(f: &str) -> Option<Nonzero> {
        Some(match f {
            "nonzero" | "where" => Nonzero::Axes,
            "flatnonzero" => Nonzero::Flat,
            "argwhere" => Nonzero::Rows,
            "count_nonzero" => Nonzero::Count,
            _ => return None,
        })
    }
}

/// What `a[mask] = x` writes: one number, or a 1-d array's elements in order.
enum Source {
    Number(Val),
    Array(Val, ArrayTy),
}
