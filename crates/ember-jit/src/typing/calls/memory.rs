//! Memory intrinsics: `cuda.shared.array` and `cuda.local.array` (static and dynamic), and
//! `cuda.atomic.*` on global and shared elements.

use ember_core::DType;

use crate::ast::{Expr, ExprKind, Span};
use crate::compiler::fixed_array;
use crate::error::{at, Fail, R};
use crate::helpers::{AtomicOp, Helper};
use crate::ir::{Const, ExprKind as K, FixedArrayDecl, Stmt, TempRole};
use crate::types::{ArrayTy, Layout, Space, Ty, INT64};
use crate::typing::expr::{const_ints, is_none};
use crate::typing::{FnTyper, Val};

impl FnTyper<'_, '_> {
    /// `cuda.shared.array` / `cuda.local.array`: declared once at the top of the function.
    pub(super) fn new_array(
        &mut self,
        shared: bool,
        shape: &Expr,
        dtype: &Expr,
        alignment: Option<&Expr>,
        span: Span,
    ) -> R<Val> {
        let align = alignment.map(|e| self.alignment(e)).transpose()?.flatten();
        let d = self.dtype_of(dtype)?;
        let dims = const_ints(shape).ok_or_else(|| {
            Fail::At(shape.span, "the shape must be a constant integer or tuple of them (a literal or a global constant)".into())
        })?;
        if dims.iter().any(|&n| n < 0) {
            return at(shape.span, "array dimensions cannot be negative");
        }
        self.c.uses.dtypes.insert(d);
        let t = self.c.dialect.table();
        if shared && dims.iter().product::<i64>() == 0 {
            // Dynamic shared memory: its size is the launch's `sharedmem`.
            if t.dynamic_shared_param && !self.is_kernel() {
                return at(span, format!("dynamic shared memory is only available in the kernel itself on {}; pass the array to device functions", t.name));
            }
            self.c.uses.helpers.insert(Helper::DynamicShared);
            let ty = Ty::Array(ArrayTy {
                dtype: d,
                ndim: 1,
                layout: Layout::C,
                space: Space::Shared,
                fixed: None,
                unaligned: false,
            });
            self.c.register(&ty);
            let name = self.fresh(TempRole::Dynamic);
            self.push(Stmt::DynamicShared {
                temp: name,
                ty: ty.clone(),
                dtype: d,
            });
            return Ok(Val::new(ty, K::Temp(name)));
        }
        // Where device functions cannot declare shared arrays (OpenCL), the kernel declares
        // them and passes them down (emit/hoisted.rs).
        let count: i64 = dims.iter().product::<i64>().max(1);
        let name = self.fresh(if shared {
            TempRole::Shared
        } else {
            TempRole::LocalArray
        });
        if self.final_pass {
            self.arrays.push(FixedArrayDecl {
                storage: name,
                dtype: d,
                count,
                shared,
                align,
            });
        }
        let ty = fixed_array(d, dims, if shared { Space::Shared } else { Space::Local });
        Ok(self.fixed_array_value(&ty, name))
    }

    /// `alignment=` of a shared or local array (Numba's rules): None, or a constant power of two
    /// that is a multiple of a pointer's size.
    fn alignment(&mut self, e: &Expr) -> R<Option<u32>> {
        if is_none(e) {
            return Ok(None);
        }
        let Some(n) =
            const_ints(e).filter(|v| v.len() == 1 && !matches!(e.kind, ExprKind::Tuple { .. }))
        else {
            return at(
                e.span,
                "RequireLiteralValue: alignment must be a constant integer",
            );
        };
        let n = n[0];
        let problem = if n <= 0 {
            Some("Alignment must be positive".to_string())
        } else if n & (n - 1) != 0 {
            Some("Alignment must be a power of 2".to_string())
        } else if n % 8 != 0 {
            Some("Alignment must be a multiple of 8".to_string())
        } else {
            None
        };
        match problem {
            Some(p) => at(e.span, format!("{p}, got {n}")),
            None => u32::try_from(n)
                .map(Some)
                .map_err(|_| Fail::At(e.span, format!("alignment {n} is too large"))),
        }
    }

    pub(super) fn atomic(&mut self, op: &str, args: &[Expr], span: Span) -> R<Val> {
        let full = format!("cuda.atomic.{op}");
        let (cas, nargs) = match op {
            "cas" => (true, 4),
            "compare_and_swap" => (true, 3),
            _ => (false, 3),
        };
        if args.len() != nargs {
            return at(
                span,
                format!("{full}() takes {nargs} arguments, {} given", args.len()),
            );
        }
        let arr = self.expr(&args[0])?;
        let Ty::Array(a) = arr.ty.clone() else {
            return at(
                args[0].span,
                format!("{full}() works on an array element, got {}", arr.ty),
            );
        };
        if matches!(a.space, Space::Const | Space::Local) {
            return at(
                args[0].span,
                format!("{full}() needs a global or shared array"),
            );
        }
        let d = a.dtype;
        let ints = matches!(d, DType::I32 | DType::U32 | DType::I64 | DType::U64);
        let floats = matches!(d, DType::F32 | DType::F64);
        let arithmetic = matches!(op, "add" | "sub" | "max" | "min" | "nanmax" | "nanmin");
        if matches!(op, "inc" | "dec") && !matches!(d, DType::U32 | DType::U64) {
            return at(
                span,
                format!(
                    "{full}() does not support arrays of {} (it takes uint32 and uint64)",
                    d.name()
                ),
            );
        }
        if !(ints || (floats && arithmetic)) {
            return at(
                span,
                format!(
                    "{full}() does not support arrays of {} (it takes {})",
                    d.name(),
                    if arithmetic {
                        "int32, uint32, int64, uint64, float32 and float64"
                    } else {
                        "int32, uint32, int64 and uint64"
                    }
                ),
            );
        }
        let place = if op == "compare_and_swap" {
            if a.ndim != 1 {
                return at(span, "cuda.atomic.compare_and_swap() takes a 1-d array");
            }
            let zero = Val::constant(INT64, Const::Count(0)).nonneg(true);
            self.place_at(&arr, &a, &[zero], span)?
        } else {
            self.element_place(&arr, &a, &args[1], span)?
        };
        let space = if a.space == Space::Shared {
            Space::Shared
        } else {
            Space::Global
        };
        if cas {
            let first = if op == "cas" { 2 } else { 1 };
            let old = self.expr(&args[first])?;
            let val = self.expr(&args[first + 1])?;
            self.atomic_operand(&full, &old, args[first].span)?;
            self.atomic_operand(&full, &val, args[first + 1].span)?;
            let (o, v) = (self.cast_to(&old, d), self.cast_to(&val, d));
            self.c.uses.helpers.insert(Helper::Cas(d, space));
            return Ok(Val::new(
                Ty::Scalar(d),
                K::Cas {
                    place,
                    old: o.boxed(),
                    new: v.boxed(),
                },
            ));
        }
        let aop = AtomicOp::named(op)
            .ok_or_else(|| Fail::At(span, format!("cuda.atomic has no operation '{op}'")))?;
        let val = self.expr(&args[2])?;
        self.atomic_operand(&full, &val, args[2].span)?;
        let v = self.cast_to(&val, d);
        self.c.uses.helpers.insert(Helper::Atomic(aop, d, space));
        Ok(Val::new(
            Ty::Scalar(d),
            K::Atomic {
                op: aop,
                place,
                value: v.boxed(),
            },
        ))
    }

    /// An atomic's value operand must be a number (it converts to the element's dtype).
    fn atomic_operand(&self, full: &str, v: &Val, span: Span) -> R<()> {
        match v.ty.scalar() {
            Some(d) if d.kind() != ember_core::dtype::Kind::Complex => Ok(()),
            _ => at(
                span,
                format!("{full}() combines the element with a number, got {}", v.ty),
            ),
        }
    }
}
