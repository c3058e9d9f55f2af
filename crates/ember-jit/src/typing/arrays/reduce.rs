//! Reductions of a whole array in host functions: `a.sum()`, `np.max(a)`, `a.mean()`,
//! `a.argmin()`, ... over every element in C order, with NumPy's result types and NumPy's
//! errors for an empty array.

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{BinOp, CmpOp, Span};
use crate::error::{at, R};
use crate::ir::{self, Const, ExprKind as K, Failure, NanRule, TempRole};
use crate::types::{ArrayTy, Ty, BOOL, INT64};
use crate::typing::{FnTyper, Val};

use super::nan_reduce::is_nan_reduction;

/// The reductions, by the name of the method (`np.` functions of the same name, and `amin`
/// and `amax`, are the same).
pub(crate) fn is_reduction(name: &str) -> bool {
    matches!(
        name,
        "sum"
            | "prod"
            | "min"
            | "max"
            | "amin"
            | "amax"
            | "mean"
            | "var"
            | "std"
            | "argmin"
            | "argmax"
            | "any"
            | "all"
    )
}

/// The dtype NumPy sums and multiplies `d` in: integers widen to 64 bits.
fn accumulator(d: DType) -> DType {
    match d.kind() {
        Kind::Bool | Kind::Int => DType::I64,
        Kind::UInt => DType::U64,
        _ => d,
    }
}

/// The float dtype of a mean: float32 stays float32, other numbers are float64.
pub(super) fn mean_dtype(d: DType) -> DType {
    if d == DType::F32 {
        DType::F32
    } else {
        DType::F64
    }
}

pub(super) const F64_PAIR: &[DType] = &[DType::F64, DType::F64];

/// Refuses an extremum of complex numbers (NumPy's order for them is not compiled yet).
fn unordered(m: &str, d: DType, span: Span) -> R<()> {
    if d.kind() == Kind::Complex
        && matches!(m, "min" | "max" | "amin" | "amax" | "argmin" | "argmax")
    {
        return at(
            span,
            format!("{m}() of a complex array is not supported yet (NumPy orders complex numbers by their real parts, then their imaginary parts): compare a.real and a.imag"),
        );
    }
    Ok(())
}

impl FnTyper<'_, '_> {
    /// `a.<m>()` (or `np.<m>(a)`) for a reduction `m`.
    pub(crate) fn reduce(&mut self, m: &str, v: Val, span: Span) -> R<Val> {
        if let Some(plain) = m.strip_prefix("nan").filter(|_| is_nan_reduction(m)) {
            return self.nan_reduce(plain, v, span);
        }
        let Ty::Array(a) = v.ty.clone() else {
            return at(span, format!("np.{m}() takes an array, got {}", v.ty));
        };
        let d = a.dtype;
        if crate::types::record_of(d).is_some() || d.is_opaque() {
            return at(
                span,
                format!("{m}() of an array of {} is not supported", d.name()),
            );
        }
        unordered(m, d, span)?;
        let v = self.temp(&v)?;
        match m {
            "sum" | "prod" => {
                let t = accumulator(d);
                let (op, start) = if m == "sum" {
                    (BinOp::Add, Const::Zero)
                } else {
                    (BinOp::Mult, Const::Typed(1))
                };
                let start = match (start, t.kind()) {
                    (Const::Typed(_), Kind::Float) => Const::Float(1.0),
                    (Const::Typed(_), Kind::Complex) => Const::Complex(1.0, 0.0),
                    (c, _) => c,
                };
                self.fold(
                    &v,
                    &a,
                    t,
                    Val::constant(Ty::Scalar(t), start),
                    span,
                    |s, acc, x| {
                        let x = s.cast_to(&x, t);
                        Ok(Val::new(
                            Ty::Scalar(t),
                            K::Binary(op, acc.boxed(), x.boxed()),
                        ))
                    },
                )
            }
            "min" | "max" | "amin" | "amax" => {
                let max = m.ends_with("max");
                let empty = Failure::EmptyExtremum { max };
                self.extremum(&v, &a, max, NanRule::Propagate, empty, span)
            }
            "mean" | "var" | "std" => {
                if d.kind() == Kind::Complex {
                    return at(
                        span,
                        format!("{m}() of a complex array is not supported in @njit functions"),
                    );
                }
                let mean = self.mean(&v, &a, span)?;
                if m == "mean" {
                    return Ok(self.cast_to(&mean, mean_dtype(d)));
                }
                // Two passes, as NumPy: the mean, then the mean squared deviation (ddof 0).
                let mean = self.temp(&mean)?;
                let zero = Val::constant(Ty::Scalar(DType::F64), Const::Float(0.0));
                let squares = self.fold(&v, &a, DType::F64, zero, span, |s, acc, x| {
                    let x = s.cast_to(&x, DType::F64);
                    let dev = float64(K::Binary(BinOp::Sub, x.boxed(), mean.boxed()));
                    let sq = float64(K::Binary(BinOp::Mult, dev.boxed(), dev.boxed()));
                    Ok(float64(K::Binary(BinOp::Add, acc.boxed(), sq.boxed())))
                })?;
                let var = self.per_element(&v, squares);
                let r = if m == "std" {
                    float64(K::Math("sqrt", vec![var.expr()]))
                } else {
                    var
                };
                Ok(self.cast_to(&r, mean_dtype(d)))
            }
            "argmin" | "argmax" => self.arg_extremum(&v, &a, m == "argmax", false, span),
            _ => {
                // any / all: the truth of every element, combined.
                let all = m == "all";
                let start = Val::constant(BOOL, Const::Bool(all));
                self.fold(&v, &a, DType::Bool, start, span, |_, acc, x| {
                    Ok(truth_joined(all, acc, x))
                })
            }
        }
    }

    /// `a.<m>(axis=k)`: the reduction along axis `k` (negative: from the end) into a new
    /// array of the other axes (a number for a 1-d array), as NumPy's.
    pub(crate) fn reduce_along(&mut self, m: &str, v: Val, axis: i64, span: Span) -> R<Val> {
        let Ty::Array(a) = v.ty.clone() else {
            return at(span, format!("np.{m}() takes an array, got {}", v.ty));
        };
        let n = a.ndim as i64;
        if axis < -n || axis >= n {
            return at(
                span,
                format!("axis {axis} is out of bounds for array of dimension {n}"),
            );
        }
        let k = axis.rem_euclid(n.max(1)) as usize;
        if a.ndim == 1 {
            return self.reduce(m, v, span);
        }
        let d = a.dtype;
        unordered(m, d, span)?;
        let (t, start) = match m {
            "sum" => (accumulator(d), None),
            "prod" => (accumulator(d), None),
            "min" | "max" | "amin" | "amax" => (d, None),
            "mean" | "var" | "std" if d.kind() != Kind::Complex => (DType::F64, None),
            "argmin" | "argmax" => (d, None),
            "any" => (DType::Bool, Some(Const::Bool(false))),
            "all" => (DType::Bool, Some(Const::Bool(true))),
            _ => {
                return at(
                    span,
                    format!("{m}(axis=...) is not supported in @njit functions: reduce the whole array or write the loop"),
                )
            }
        };
        let v = self.temp(&v)?;
        let dims: Vec<Val> = (0..a.ndim).map(|j| self.dim(&v, &a, j)).collect();
        let mut kept = Vec::new();
        for (j, dim) in dims.iter().enumerate() {
            if j != k {
                kept.push(self.temp(dim)?);
            }
        }
        let along = self.temp(&dims[k])?;
        let arg = matches!(m, "argmin" | "argmax");
        if matches!(m, "min" | "max" | "amin" | "amax" | "argmin" | "argmax") {
            // An empty axis has no extremum (unless there is nothing to reduce it into).
            let zero = Val::constant(INT64, Const::Int(0));
            let mut items =
                vec![Val::new(BOOL, K::Compare(CmpOp::Gt, along.boxed(), zero.boxed())).expr()];
            for x in &kept {
                items.push(Val::new(BOOL, K::Compare(CmpOp::Eq, x.boxed(), zero.boxed())).expr());
            }
            let ok = Val::new(
                BOOL,
                K::Any {
                    items,
                    negated: false,
                },
            );
            let max = m.ends_with("max");
            let failure = if arg {
                Failure::EmptyArgExtremum { max }
            } else {
                Failure::EmptyExtremum { max }
            };
            self.require(ok, failure, &[]);
        }
        let result = match m {
            "mean" | "var" | "std" => mean_dtype(d),
            _ if arg => DType::I64,
            _ => t,
        };
        let out_ty = ArrayTy::global(result, kept.len(), crate::types::Layout::C);
        self.c.register(&Ty::Array(out_ty.clone()));
        let made = Val::new(
            Ty::Array(out_ty.clone()),
            K::Alloc {
                shape: kept.iter().map(Val::expr).collect(),
                fill: None,
            },
        );
        let out = self.temp(&made)?;
        self.nest_loops(&kept, |s, idx| {
            let at_j = |j: &Val| {
                let mut full: Vec<Val> = idx.to_vec();
                full.insert(k, j.clone());
                full
            };
            if arg {
                // The best element so far and where it is along the axis.
                let zero = Val::constant(INT64, Const::Count(0)).nonneg(true);
                let best = s.declare(Ty::Scalar(d));
                let x = s.element(&v, &a, &at_j(&zero), span)?;
                s.set(best, &x);
                let at = s.declare(INT64);
                s.set(at, &zero);
                s.nest_loops(std::slice::from_ref(&along), |s, jj| {
                    let x = s.element(&v, &a, &at_j(&jj[0]), span)?;
                    s.arg_step(best, at, x, jj[0].clone(), m == "argmax", false)
                })?;
                s.push(ir::Stmt::Store {
                    place: ir::Place {
                        array: out.boxed(),
                        ty: out_ty.clone(),
                        indices: idx.iter().map(Val::expr).collect(),
                    },
                    value: Val::new(INT64, K::Temp(at)).expr(),
                });
                return Ok(());
            }
            let acc = s.declare(Ty::Scalar(t));
            let first = match start {
                Some(c) => Val::constant(Ty::Scalar(t), c),
                None if matches!(m, "sum" | "mean" | "var" | "std") => {
                    Val::constant(Ty::Scalar(t), Const::Zero)
                }
                None if m == "prod" => s.cast_to(&Val::constant(INT64, Const::Int(1)), t),
                None => {
                    let zero = Val::constant(INT64, Const::Count(0)).nonneg(true);
                    let x = s.element(&v, &a, &at_j(&zero), span)?;
                    s.cast_to(&x, t)
                }
            };
            s.set(acc, &first);
            s.nest_loops(std::slice::from_ref(&along), |s, jj| {
                let x = s.element(&v, &a, &at_j(&jj[0]), span)?;
                let now = Val::new(Ty::Scalar(t), K::Temp(acc));
                let next = match m {
                    "sum" | "mean" | "var" | "std" | "prod" => {
                        let x = s.cast_to(&x, t);
                        let op = if m == "prod" { BinOp::Mult } else { BinOp::Add };
                        Val::new(Ty::Scalar(t), K::Binary(op, now.boxed(), x.boxed()))
                    }
                    "any" | "all" => truth_joined(m == "all", now, x),
                    _ => Val::new(
                        Ty::Scalar(t),
                        K::Extremum {
                            max: m.ends_with("max"),
                            rule: NanRule::Propagate,
                            args: Box::new([now.expr(), x.expr()]),
                        },
                    ),
                };
                s.set(acc, &next);
                Ok(())
            })?;
            let mut value = Val::new(Ty::Scalar(t), K::Temp(acc));
            if matches!(m, "mean" | "var" | "std") {
                let count = s.cast_to(&along, DType::F64);
                let count = s.temp(&count)?;
                let per_element = |total: Val| {
                    float64(K::Ufunc {
                        name: "divide",
                        ins: F64_PAIR,
                        args: vec![total.expr(), count.expr()],
                    })
                };
                value = per_element(value);
                if m != "mean" {
                    // Two passes, as NumPy: the mean, then the mean squared deviation (ddof 0).
                    let mean = s.temp(&value)?;
                    let squares = s.declare(Ty::Scalar(t));
                    s.set(squares, &Val::constant(Ty::Scalar(t), Const::Zero));
                    s.nest_loops(std::slice::from_ref(&along), |s, jj| {
                        let x = s.element(&v, &a, &at_j(&jj[0]), span)?;
                        let x = s.cast_to(&x, DType::F64);
                        let dev = float64(K::Binary(BinOp::Sub, x.boxed(), mean.boxed()));
                        let sq = float64(K::Binary(BinOp::Mult, dev.boxed(), dev.boxed()));
                        let now = Val::new(Ty::Scalar(t), K::Temp(squares));
                        s.set(
                            squares,
                            &float64(K::Binary(BinOp::Add, now.boxed(), sq.boxed())),
                        );
                        Ok(())
                    })?;
                    value = per_element(Val::new(Ty::Scalar(t), K::Temp(squares)));
                    if m == "std" {
                        value = float64(K::Math("sqrt", vec![value.expr()]));
                    }
                }
                value = s.cast_to(&value, result);
            }
            s.c.uses.dtypes.insert(result);
            s.push(ir::Stmt::Store {
                place: ir::Place {
                    array: out.boxed(),
                    ty: out_ty.clone(),
                    indices: idx.iter().map(Val::expr).collect(),
                },
                value: value.expr(),
            });
            Ok(())
        })?;
        Ok(out)
    }

    /// The largest (`max`) or smallest element, NaNs as `rule` says; `empty` when there is
    /// none.
    pub(super) fn extremum(
        &mut self,
        v: &Val,
        a: &ArrayTy,
        max: bool,
        rule: NanRule,
        empty: Failure,
        span: Span,
    ) -> R<Val> {
        self.require_elements(v, empty);
        let first = self.first_element(v, a, span)?;
        let d = a.dtype;
        self.fold(v, a, d, first, span, |_, acc, x| {
            Ok(Val::new(
                Ty::Scalar(d),
                K::Extremum {
                    max,
                    rule,
                    args: Box::new([acc.expr(), x.expr()]),
                },
            ))
        })
    }

    /// The mean of every element, as float64 (NaN for an empty array, as NumPy).
    fn mean(&mut self, v: &Val, a: &ArrayTy, span: Span) -> R<Val> {
        let zero = Val::constant(Ty::Scalar(DType::F64), Const::Float(0.0));
        let sum = self.fold(v, a, DType::F64, zero, span, |s, acc, x| {
            let x = s.cast_to(&x, DType::F64);
            Ok(float64(K::Binary(BinOp::Add, acc.boxed(), x.boxed())))
        })?;
        Ok(self.per_element(v, sum))
    }

    /// `total / a.size` with NumPy's division (an empty array gives NaN, not an error).
    fn per_element(&mut self, v: &Val, total: Val) -> Val {
        let n = Val::new(INT64, K::Size(v.boxed()));
        let n = self.cast_to(&n, DType::F64);
        float64(K::Ufunc {
            name: "divide",
            ins: F64_PAIR,
            args: vec![total.expr(), n.expr()],
        })
    }

    /// The first index of the largest (`max`) or smallest element; the first NaN wins, or
    /// with `skip_nan` (`np.nanargmax`) NaNs are passed over (NumPy's ValueError when every
    /// element is one).
    pub(super) fn arg_extremum(
        &mut self,
        v: &Val,
        a: &ArrayTy,
        max: bool,
        skip_nan: bool,
        span: Span,
    ) -> R<Val> {
        self.require_elements(v, Failure::EmptyArgExtremum { max });
        let d = a.dtype;
        let best = self.declare(Ty::Scalar(d));
        let first = self.first_element(v, a, span)?;
        self.set(best, &first);
        let at_ = self.declare(INT64);
        let counter = self.declare(INT64);
        let zero = Val::constant(INT64, Const::Int(0));
        self.set(at_, &zero);
        self.set(counter, &zero);
        let dims: Vec<Val> = (0..a.ndim).map(|k| self.dim(v, a, k)).collect();
        self.nest_loops(&dims, |s, index| {
            let x = s.element(v, a, index, span)?;
            let k = Val::new(INT64, K::Temp(counter));
            s.arg_step(best, at_, x, k.clone(), max, skip_nan)?;
            let next = Val::new(
                INT64,
                K::Binary(
                    BinOp::Add,
                    k.boxed(),
                    Val::constant(INT64, Const::Int(1)).boxed(),
                ),
            );
            s.set(counter, &next);
            Ok(())
        })?;
        if skip_nan && d.kind() == Kind::Float {
            let b = Val::new(Ty::Scalar(d), K::Temp(best));
            let nan = Val::new(BOOL, K::FloatTest("isnan", b.boxed()));
            self.require(Val::new(BOOL, K::Not(nan.boxed())), Failure::AllNan, &[]);
        }
        Ok(Val::new(INT64, K::Temp(at_)).nonneg(true))
    }

    /// One element `x` (at `k`) of an argmax (`max`) or argmin: it replaces the best so far
    /// when it beats it; a NaN beats any number, and nothing beats a NaN (`skip_nan`: a NaN
    /// beats nothing, and any number beats a NaN held, the first element's).
    fn arg_step(
        &mut self,
        best: ir::Temp,
        at: ir::Temp,
        x: Val,
        k: Val,
        max: bool,
        skip_nan: bool,
    ) -> R<()> {
        let x = self.temp(&x)?;
        let Ty::Scalar(d) = x.ty else {
            return crate::error::at(
                self.f.span,
                "an arg-extremum of elements that are not numbers",
            );
        };
        let b = Val::new(Ty::Scalar(d), K::Temp(best));
        let op = if max { CmpOp::Gt } else { CmpOp::Lt };
        let beats = Val::new(BOOL, K::Compare(op, x.boxed(), b.boxed()));
        let nan = |y: &Val| Val::new(BOOL, K::FloatTest("isnan", y.boxed()));
        let both = |items: Vec<Val>, all: bool| {
            let items = items.iter().map(Val::expr).collect();
            let negated = false;
            Val::new(
                BOOL,
                if all {
                    K::All { items, negated }
                } else {
                    K::Any { items, negated }
                },
            )
        };
        let better = if d.kind() == Kind::Float && skip_nan {
            let not_nan = Val::new(BOOL, K::Not(nan(&x).boxed()));
            both(vec![not_nan, both(vec![beats, nan(&b)], false)], true)
        } else if d.kind() == Kind::Float {
            let first_nan = Val::new(
                BOOL,
                K::All {
                    items: vec![
                        nan(&x).expr(),
                        Val::new(BOOL, K::Not(nan(&b).boxed())).expr(),
                    ],
                    negated: false,
                },
            );
            Val::new(
                BOOL,
                K::Any {
                    items: vec![beats.expr(), first_nan.expr()],
                    negated: false,
                },
            )
        } else {
            beats
        };
        let better = self.temp(&better)?;
        let pick = |new: &Val, old: Val, ty: Ty| {
            Val::new(ty, K::Select(better.boxed(), new.boxed(), old.boxed()))
        };
        let nb = pick(&x, b.clone(), Ty::Scalar(d));
        self.set(best, &nb);
        let na = pick(&k, Val::new(INT64, K::Temp(at)), INT64);
        self.set(at, &na);
        Ok(())
    }

    /// `acc = start; for each element x (C order): acc = step(acc, x)`; the value is `acc`.
    pub(super) fn fold(
        &mut self,
        v: &Val,
        a: &ArrayTy,
        t: DType,
        start: Val,
        span: Span,
        step: impl FnOnce(&mut Self, Val, Val) -> R<Val>,
    ) -> R<Val> {
        let acc = self.declare(Ty::Scalar(t));
        self.set(acc, &start);
        let dims: Vec<Val> = (0..a.ndim).map(|k| self.dim(v, a, k)).collect();
        self.nest_loops(&dims, |s, index| {
            let x = s.element(v, a, index, span)?;
            let now = Val::new(Ty::Scalar(t), K::Temp(acc));
            let next = step(s, now, x)?;
            s.set(acc, &next);
            Ok(())
        })?;
        Ok(Val::new(Ty::Scalar(t), K::Temp(acc)))
    }

    /// NumPy's error `failure` when the array has no elements.
    pub(super) fn require_elements(&mut self, v: &Val, failure: Failure) {
        let n = Val::new(INT64, K::Size(v.boxed()));
        let some = Val::new(
            BOOL,
            K::Compare(
                CmpOp::Gt,
                n.boxed(),
                Val::constant(INT64, Const::Int(0)).boxed(),
            ),
        );
        self.require(some, failure, &[]);
    }

    /// The element at index 0 of every axis.
    pub(super) fn first_element(&mut self, v: &Val, a: &ArrayTy, span: Span) -> R<Val> {
        let zeros = vec![Val::constant(INT64, Const::Count(0)).nonneg(true); a.ndim];
        let x = self.element(v, a, &zeros, span)?;
        self.temp(&x)
    }

    /// A temporary set later (an accumulator).
    pub(super) fn declare(&mut self, ty: Ty) -> ir::Temp {
        let t = self.fresh(TempRole::Value);
        self.c.register(&ty);
        self.push(ir::Stmt::Declare { temp: t, ty });
        t
    }

    pub(super) fn set(&mut self, t: ir::Temp, v: &Val) {
        self.push(ir::Stmt::Set {
            temp: t,
            value: v.expr(),
        });
    }
}

/// `acc and bool(x)` (`all`) or `acc or bool(x)`.
fn truth_joined(all: bool, acc: Val, x: Val) -> Val {
    let items = vec![acc.expr(), Val::new(BOOL, K::Bool(x.boxed())).expr()];
    let negated = false;
    Val::new(
        BOOL,
        if all {
            K::All { items, negated }
        } else {
            K::Any { items, negated }
        },
    )
}

pub(super) fn float64(kind: K) -> Val {
    Val::new(Ty::Scalar(DType::F64), kind)
}
