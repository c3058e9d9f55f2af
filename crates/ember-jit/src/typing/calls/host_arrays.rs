//! NumPy's functions and array methods on whole arrays in host functions: reductions
//! (`a.sum()`, `np.max(a)`), ufuncs of arrays (`np.sqrt(a)`, `abs(a)`), `astype` and `copy`.

use crate::ast::CmpOp;
use crate::ast::{Expr, ExprKind, Keyword, Span};
use crate::error::{at, R};
use crate::ir::{Const, ExprKind as K, Failure, Stmt, TempRole};
use crate::types::{Ty, BOOL, INT64};
use crate::typing::arrays::mask::Nonzero;
use crate::typing::arrays::nan_reduce::is_nan_reduction;
use crate::typing::arrays::reduce::is_reduction;
use crate::typing::{FnTyper, Val};
use ember_core::DType;

impl FnTyper<'_, '_> {
    /// `v.m(args)` when `m` is a method of arrays in host functions (`None`: it is not).
    pub(super) fn host_array_method(
        &mut self,
        v: &Val,
        m: &str,
        args: &[Expr],
        keywords: &[Keyword],
        span: Span,
    ) -> Option<R<Val>> {
        let crate::types::Ty::Array(a) = &v.ty else {
            return None;
        };
        let dtype = a.dtype;
        if is_reduction(m) {
            return Some(self.reduction_call(m, v.clone(), args, keywords, span));
        }
        match m {
            "clip" => {
                let mut all = vec![self.bound_expr(v.clone(), span)];
                all.extend(args.iter().cloned());
                Some(self.clip(&all, keywords, span))
            }
            "nonzero" if args.is_empty() && keywords.is_empty() => {
                Some(self.nonzero(v.clone(), Nonzero::Axes, span))
            }
            "copy" if args.is_empty() && keywords.is_empty() => {
                Some(self.array_cast(v.clone(), dtype, span))
            }
            "astype" if args.len() == 1 && keywords.is_empty() => Some(
                self.dtype_of(&args[0])
                    .and_then(|d| self.array_cast(v.clone(), d, span)),
            ),
            _ => None,
        }
    }

    /// `np.f(args)` (or `abs(a)`) when `f` works on whole arrays and an argument is an array
    /// (`None`: `f` does not; with no array argument it is typed as a function of numbers).
    pub(super) fn host_array_function(
        &mut self,
        name: &str,
        args: &[Expr],
        keywords: &[Keyword],
        span: Span,
    ) -> Option<R<Val>> {
        let f = match name {
            "builtin.abs" => "absolute",
            _ => name.strip_prefix("np.")?,
        };
        if f == "clip" {
            return Some(self.clip(args, keywords, span));
        }
        if let Some(how) = Nonzero::named(f).filter(|_| args.len() == 1 && keywords.is_empty()) {
            return Some(self.expr(&args[0]).and_then(|v| self.nonzero(v, how, span)));
        }
        if f == "where" && args.len() == 3 && keywords.is_empty() {
            let vals = match args.iter().map(|a| self.expr(a)).collect::<R<Vec<_>>>() {
                Ok(v) => v,
                Err(e) => return Some(Err(e)),
            };
            if self.whole_array(&vals.iter().collect::<Vec<_>>()) {
                return Some(self.array_where(vals, span));
            }
            return Some(at(
                span,
                "np.where() of three numbers (a 0-d array in NumPy) is not compiled for the CPU; \
                 write `x if cond else y`",
            ));
        }
        let reduction = (is_reduction(f) || is_nan_reduction(f)) && !args.is_empty();
        let u = ember_codegen::ufuncs::ufunc(f)
            .ok()
            .filter(|u| u.nout == 1 && args.len() == u.nin && keywords.is_empty());
        if !reduction && u.is_none() {
            return None;
        }
        if reduction {
            // np.sum(a, axis=...): the array, then what the method takes.
            let v = match self.expr(&args[0]) {
                Ok(v) => v,
                Err(e) => return Some(Err(e)),
            };
            if matches!(v.ty, crate::types::Ty::Array(_)) {
                return Some(self.reduction_call(f, v, &args[1..], keywords, span));
            }
            let bound = self.standing_for(vec![v], &args[..1]);
            let rest: Vec<Expr> = bound.into_iter().chain(args[1..].iter().cloned()).collect();
            return Some(self.call_scalar_intrinsic(name, &rest, keywords, span));
        }
        let vals = match args.iter().map(|a| self.expr(a)).collect::<R<Vec<_>>>() {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        };
        if !self.whole_array(&vals.iter().collect::<Vec<_>>()) {
            // Numbers: the scalar function, on the values already evaluated.
            let bound = self.standing_for(vals, args);
            return Some(self.call_scalar_intrinsic(name, &bound, keywords, span));
        }
        let u = u.expect("a ufunc");
        Some(self.array_ufunc(u.name, vals, span))
    }

    /// A reduction's call: the whole array, or `axis=k` (a constant integer) as NumPy's.
    fn reduction_call(
        &mut self,
        m: &str,
        v: Val,
        args: &[Expr],
        keywords: &[Keyword],
        span: Span,
    ) -> R<Val> {
        let axis = match (args, keywords) {
            ([], []) => return self.reduce(m, v, span),
            ([a], []) => a,
            ([], [k]) if k.name == "axis" => &k.value,
            _ => {
                return at(
                    span,
                    format!("{m}() takes only an axis in @njit functions (not dtype, out, keepdims or ddof)"),
                )
            }
        };
        if crate::typing::expr::is_none(axis) {
            return self.reduce(m, v, span);
        }
        match crate::typing::expr::int_literal(axis) {
            Some(k) => self.reduce_along(m, v, k, span),
            None => self.reduce_along_given(m, v, axis, span),
        }
    }

    /// `a.<m>(axis=k)` with `k` known only when it runs: the reduction along each axis, the
    /// one `k` names taken (NumPy's AxisError for another).
    fn reduce_along_given(&mut self, m: &str, v: Val, axis: &Expr, span: Span) -> R<Val> {
        let Ty::Array(a) = v.ty.clone() else {
            return at(span, format!("np.{m}() takes an array, got {}", v.ty));
        };
        let k = self.expr(axis)?;
        if !k.ty.is_integral() {
            return at(axis.span, format!("an axis is an integer, got {}", k.ty));
        }
        let k = self.cast_to(&k, DType::I64);
        let k = self.temp(&k)?;
        let v = self.temp(&v)?;
        let n = a.ndim as i64;
        let mut branches = Vec::new();
        for j in 0..n {
            self.open_block();
            let r = self.reduce_along(m, v.clone(), j, span);
            let block = self.close_block();
            branches.push((j, block, r?));
        }
        let Some(ty) = branches.first().map(|(_, _, r)| r.ty.clone()) else {
            return at(span, format!("{m}() of a 0-d array takes no axis"));
        };
        if let Some((_, _, r)) = branches.iter().find(|(_, _, r)| r.ty != ty) {
            return at(
                span,
                format!(
                    "{m}(axis=...) gives {} or {}: pass a constant axis",
                    ty, r.ty
                ),
            );
        }
        self.c.register(&ty);
        let result = self.fresh(TempRole::Choice);
        self.push(Stmt::Declare {
            temp: result,
            ty: ty.clone(),
        });
        // An axis out of range: NumPy's AxisError, naming the axis as given.
        let mut orelse = vec![Stmt::Require {
            cond: Val::constant(BOOL, Const::Bool(false)).expr(),
            failure: Failure::Axis,
            details: vec![k.expr(), Val::constant(INT64, Const::Int(n)).expr()],
        }];
        for (j, mut block, r) in branches.into_iter().rev() {
            block.push(Stmt::Set {
                temp: result,
                value: r.expr(),
            });
            // Axis j, or j - ndim counted from the end.
            let named = |x: i64| {
                Val::new(
                    BOOL,
                    K::Compare(
                        CmpOp::Eq,
                        k.boxed(),
                        Val::constant(INT64, Const::Int(x)).boxed(),
                    ),
                )
                .expr()
            };
            let cond = Val::new(
                BOOL,
                K::Any {
                    items: vec![named(j), named(j - n)],
                    negated: false,
                },
            );
            orelse = vec![Stmt::If {
                cond: cond.expr(),
                negate: false,
                then: block,
                orelse,
            }];
        }
        for s in orelse {
            self.push(s);
        }
        Ok(Val::new(ty, K::Temp(result)))
    }

    /// Intrinsic `name` called with `vals` (its arguments, evaluated already, written as `like`).
    pub(crate) fn call_on_values(
        &mut self,
        name: &str,
        vals: Vec<Val>,
        like: &[Expr],
        span: Span,
    ) -> R<Val> {
        let bound = self.standing_for(vals, like);
        self.call_intrinsic(name, &bound, &[], span)
    }

    /// Expressions that stand for `vals` (already evaluated), at the places of `like`.
    pub(crate) fn standing_for(&mut self, vals: Vec<Val>, like: &[Expr]) -> Vec<Expr> {
        vals.into_iter()
            .zip(like)
            .map(|(v, e)| self.bound_expr(v, e.span))
            .collect()
    }

    /// An expression standing for value `v`, already evaluated.
    fn bound_expr(&mut self, v: Val, span: Span) -> Expr {
        self.bound.push(v);
        Expr {
            kind: ExprKind::Bound {
                slot: self.bound.len() - 1,
            },
            span,
        }
    }

    /// `np.clip(a, a_min, a_max)` (and `a.clip(...)`): NumPy's `minimum(maximum(a, a_min),
    /// a_max)`, with its dtypes and NaNs; a bound given as `None` is left out.
    fn clip(&mut self, args: &[Expr], keywords: &[Keyword], span: Span) -> R<Val> {
        let mut given: [Option<&Expr>; 3] = [None; 3];
        if args.len() > 3 {
            return at(span, "np.clip() takes an array and two bounds");
        }
        for (k, a) in args.iter().enumerate() {
            given[k] = Some(a);
        }
        for kw in keywords {
            let k = match kw.name.as_str() {
                "a_min" | "min" => 1,
                "a_max" | "max" => 2,
                other => {
                    return at(
                        kw.value.span,
                        format!("np.clip() got an unexpected keyword argument '{other}'"),
                    )
                }
            };
            if given[k].replace(&kw.value).is_some() {
                return at(
                    kw.value.span,
                    format!("np.clip() got multiple values for '{}'", kw.name),
                );
            }
        }
        let Some(a) = given[0] else {
            return at(span, "np.clip() needs the array to clip");
        };
        let mut v = self.expr(a)?;
        let bounds = [("np.maximum", given[1]), ("np.minimum", given[2])];
        for (name, bound) in bounds {
            let Some(b) = bound.filter(|e| !crate::typing::expr::is_none(e)) else {
                continue;
            };
            let b = self.expr(b)?;
            let pair = [self.bound_expr(v, span), self.bound_expr(b, span)];
            v = match self.host_array_function(name, &pair, &[], span) {
                Some(r) => r?,
                None => return at(span, format!("{name}() of these values")),
            };
        }
        Ok(v)
    }
}
