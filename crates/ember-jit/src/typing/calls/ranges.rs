//! `np.arange` and `np.linspace` in host functions: new 1-d arrays of evenly spaced numbers,
//! with NumPy's lengths, values and dtypes.

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{BinOp, CmpOp, Expr, Keyword, Span};
use crate::error::{at, R};
use crate::helpers::Helper;
use crate::ir::{self, Const, ExprKind as K, NanRule, Place};
use crate::types::{ArrayTy, Layout, Ty, BOOL, INT64};
use crate::typing::{FnTyper, Val};

/// The arguments of `f` by name: positional ones in the order of `names`, then keywords
/// (`dtype` is returned apart).
fn arguments<'e>(
    f: &str,
    names: &[&str],
    args: &'e [Expr],
    keywords: &'e [Keyword],
    span: Span,
) -> R<(Vec<Option<&'e Expr>>, Option<&'e Expr>)> {
    let mut given: Vec<Option<&Expr>> = vec![None; names.len()];
    if args.len() > names.len() {
        return at(
            span,
            format!(
                "np.{f}() takes at most {} positional arguments",
                names.len()
            ),
        );
    }
    for (k, a) in args.iter().enumerate() {
        given[k] = Some(a);
    }
    let mut dtype = None;
    for kw in keywords {
        if kw.name == "dtype" {
            dtype = Some(&kw.value);
            continue;
        }
        match names.iter().position(|n| *n == kw.name) {
            Some(k) if given[k].is_none() => given[k] = Some(&kw.value),
            Some(_) => {
                return at(
                    kw.value.span,
                    format!("np.{f}() got multiple values for '{}'", kw.name),
                )
            }
            None => {
                return at(
                    kw.value.span,
                    format!("np.{f}() got an unexpected keyword argument '{}'", kw.name),
                )
            }
        }
    }
    Ok((given, dtype))
}

impl FnTyper<'_, '_> {
    /// `np.arange([start,] stop[, step], dtype=None)`.
    pub(super) fn arange(&mut self, args: &[Expr], keywords: &[Keyword], span: Span) -> R<Val> {
        let (given, dtype) = arguments("arange", &["start", "stop", "step"], args, keywords, span)?;
        let dtype = dtype.map(|e| self.dtype_of(e)).transpose()?;
        // One positional argument is the stop.
        let (start, stop, step) = match (given[0], given[1], given[2]) {
            (Some(stop), None, None) if args.len() == 1 => (None, stop, None),
            (start, Some(stop), step) => (start, stop, step),
            _ => return at(span, "np.arange() needs a stop"),
        };
        let number = |s: &mut Self, e: Option<&Expr>, default: i64| -> R<Val> {
            let v = match e {
                Some(e) => s.expr(e)?,
                None => Val::constant(INT64, Const::Int(default)),
            };
            match v.ty.scalar() {
                Some(d)
                    if matches!(d.kind(), Kind::Bool | Kind::Int | Kind::UInt | Kind::Float) =>
                {
                    s.temp(&v)
                }
                _ => at(
                    span,
                    format!("np.arange() takes real numbers, got {}", v.ty),
                ),
            }
        };
        let start = number(self, start, 0)?;
        let stop = number(self, Some(stop), 0)?;
        let step = number(self, step, 1)?;
        let float = [&start, &stop, &step]
            .iter()
            .any(|v| v.ty.scalar().is_some_and(|d| d.kind() == Kind::Float));
        let t = if float { DType::F64 } else { DType::I64 };
        let result = dtype.unwrap_or(t);
        let (start, stop, step) = (
            self.cast_to(&start, t),
            self.cast_to(&stop, t),
            self.cast_to(&step, t),
        );
        let (start, step) = (self.temp(&start)?, self.temp(&step)?);
        // The length: ceil((stop - start) / step), at least 0; a zero step divides by zero.
        let length = if float {
            let span_ = self.binop(BinOp::Sub, stop, start.clone(), span)?;
            let q = self.binop(BinOp::Div, span_, step.clone(), span)?;
            let up = Val::new(Ty::Scalar(DType::F64), K::Math("ceil", vec![q.expr()]));
            self.cast_to(&up, DType::I64)
        } else {
            // -((start - stop) // step), Python's floor division.
            let back = self.binop(BinOp::Sub, start.clone(), stop, span)?;
            let q = self.binop(BinOp::FloorDiv, back, step.clone(), span)?;
            Val::new(INT64, K::Unary(ir::UnaryOp::Neg, q.boxed()))
        };
        let length = self.at_least_zero(length)?;
        self.evenly_spaced(result, length, span, |s, i| {
            let i = s.cast_to(i, t);
            let offset = s.binop(BinOp::Mult, i, step.clone(), span)?;
            s.binop(BinOp::Add, start.clone(), offset, span)
        })
    }

    /// `np.linspace(start, stop, num=50, endpoint=True, dtype=None)`: NumPy's values
    /// (`i * step + start`, the last exactly `stop` when `endpoint`).
    pub(super) fn linspace(&mut self, args: &[Expr], keywords: &[Keyword], span: Span) -> R<Val> {
        let names = ["start", "stop", "num", "endpoint"];
        let (given, dtype) = arguments("linspace", &names, args, keywords, span)?;
        let dtype = dtype.map(|e| self.dtype_of(e)).transpose()?;
        let (Some(start), Some(stop)) = (given[0], given[1]) else {
            return at(span, "np.linspace() needs start and stop");
        };
        let real = |s: &mut Self, e: &Expr| -> R<Val> {
            let v = s.expr(e)?;
            match v.ty.scalar() {
                Some(d) if d.kind() != Kind::Complex && !d.is_opaque() => {
                    let v = s.cast_to(&v, DType::F64);
                    s.temp(&v)
                }
                _ => at(
                    e.span,
                    format!("np.linspace() takes real numbers, got {}", v.ty),
                ),
            }
        };
        let start = real(self, start)?;
        let stop = real(self, stop)?;
        let num = match given[2] {
            Some(e) => {
                let v = self.expr(e)?;
                if !v.ty.is_integral() {
                    return at(
                        e.span,
                        format!("np.linspace(): num must be an integer, got {}", v.ty),
                    );
                }
                self.cast_to(&v, DType::I64)
            }
            None => Val::constant(INT64, Const::Int(50)),
        };
        let num = self.temp(&num)?;
        let endpoint = match given[3] {
            Some(e) => {
                let v = self.expr(e)?;
                self.truth_of(&v, e.span)?;
                Val::new(BOOL, K::Bool(v.boxed()))
            }
            None => Val::constant(BOOL, Const::Bool(true)),
        };
        let endpoint = self.temp(&endpoint)?;
        let one = Val::constant(INT64, Const::Int(1));
        // div = num - 1 with the endpoint, else num; the step divides by at least 1 (a lone
        // sample is `start`, as NumPy's `y * delta` is for div 0).
        let less = self.binop(BinOp::Sub, num.clone(), one.clone(), span)?;
        let div = Val::new(
            INT64,
            K::Select(endpoint.boxed(), less.boxed(), num.boxed()),
        );
        let div = self.at_least(div, 1)?;
        let div = self.cast_to(&div, DType::F64);
        let delta = self.binop(BinOp::Sub, stop.clone(), start.clone(), span)?;
        let step = self.binop(BinOp::Div, delta, div, span)?;
        let step = self.temp(&step)?;
        // The index that is exactly `stop`: the last, with the endpoint and more than one.
        let many = Val::new(BOOL, K::Compare(CmpOp::Gt, num.boxed(), one.boxed()));
        let exact = Val::new(
            BOOL,
            K::All {
                items: vec![endpoint.expr(), many.expr()],
                negated: false,
            },
        );
        let last = Val::new(
            INT64,
            K::Select(
                exact.boxed(),
                less.boxed(),
                Val::constant(INT64, Const::Int(-1)).boxed(),
            ),
        );
        let last = self.temp(&last)?;
        let length = self.at_least_zero(num)?;
        self.evenly_spaced(dtype.unwrap_or(DType::F64), length, span, |s, i| {
            let x = s.cast_to(i, DType::F64);
            let x = s.binop(BinOp::Mult, x, step.clone(), span)?;
            let x = s.binop(BinOp::Add, x, start.clone(), span)?;
            let is_last = Val::new(BOOL, K::Compare(CmpOp::Eq, i.boxed(), last.boxed()));
            Ok(Val::new(
                Ty::Scalar(DType::F64),
                K::Select(is_last.boxed(), stop.boxed(), x.boxed()),
            ))
        })
    }

    /// A new 1-d array of `dtype` and `length` elements, element `i` being `value(i)`.
    fn evenly_spaced(
        &mut self,
        dtype: DType,
        length: Val,
        span: Span,
        value: impl FnOnce(&mut Self, &Val) -> R<Val>,
    ) -> R<Val> {
        if dtype.is_opaque() || dtype.kind() == Kind::Complex {
            return at(
                span,
                format!(
                    "an evenly spaced array of {} is not supported",
                    dtype.name()
                ),
            );
        }
        let a = ArrayTy::global(dtype, 1, Layout::C);
        let ty = Ty::Array(a.clone());
        self.c.register(&ty);
        let made = Val::new(
            ty,
            K::Alloc {
                shape: vec![length.expr()],
                fill: None,
            },
        );
        let out = self.temp(&made)?;
        let n = self.dim(&out, &a, 0);
        self.nest_loops(&[n], |s, index| {
            let v = value(s, &index[0])?;
            let v = s.cast_to(&v, dtype);
            s.c.uses.dtypes.insert(dtype);
            s.push(ir::Stmt::Store {
                place: Place {
                    array: out.boxed(),
                    ty: a.clone(),
                    indices: vec![index[0].expr()],
                },
                value: v.expr(),
            });
            Ok(())
        })?;
        Ok(out)
    }

    fn at_least_zero(&mut self, n: Val) -> R<Val> {
        self.at_least(n, 0)
    }

    /// `max(n, floor)` of an int64, evaluated once.
    fn at_least(&mut self, n: Val, floor: i64) -> R<Val> {
        let m = Val::new(
            INT64,
            K::Extremum {
                max: true,
                rule: NanRule::Python,
                args: Box::new([n.expr(), Val::constant(INT64, Const::Int(floor)).expr()]),
            },
        )
        .nonneg(floor >= 0);
        self.c.uses.helpers.insert(Helper::Max(DType::I64));
        self.temp(&m)
    }
}
