//! Numba's scalar device functions: bit operations (`cuda.popc`, `cuda.brev`, `cuda.clz`,
//! `cuda.ffs`, `int.bit_count()`), `cuda.fma`, `cuda.cbrt`, `cuda.selp` and `cuda.nanosleep`,
//! typed as numba-cuda's `cudadecl.py` types them.

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{Expr, Span};
use crate::error::{at, R};
use crate::helpers::Helper;
use crate::intrinsics::intrinsic;
use crate::ir::ExprKind as K;
use crate::types::{promote, Ty};
use crate::typing::{FnTyper, Val};

const INTEGERS: &str = "int8, int16, int32, int64, uint8, uint16, uint32 or uint64";

/// The registry's name for `name` (the IR keeps a `'static` one).
pub(super) fn row(name: &str) -> &'static str {
    intrinsic(name).map_or("cuda.?", |i| i.name)
}

impl FnTyper<'_, '_> {
    /// `cuda.popc`/`brev`/`clz`/`ffs`/`fma`/`cbrt`/`selp`/`nanosleep`; `None` for other names.
    pub(super) fn scalar_intrinsic(
        &mut self,
        name: &str,
        args: &[Expr],
        span: Span,
    ) -> Option<R<Val>> {
        Some(match name {
            "cuda.popc" | "cuda.clz" | "cuda.ffs" | "cuda.brev" => self.bits(name, args, span),
            "cuda.fma" | "cuda.cbrt" => self.fused(name, args, span),
            "cuda.selp" => self.selp(args, span),
            "cuda.nanosleep" => self.nanosleep(args, span),
            _ => return None,
        })
    }

    /// The integer dtype of a bit operation's argument.
    fn integer_arg(&self, v: &Val, name: &str, span: Span) -> R<DType> {
        match v.ty.scalar() {
            Some(d) if matches!(d.kind(), Kind::Int | Kind::UInt) => Ok(d),
            _ => at(
                span,
                format!("{name}() takes an integer ({INTEGERS}), got {}", v.ty),
            ),
        }
    }

    /// `x.bit_count()` of an integer: Numba's is `cuda.popc(x)`.
    pub(super) fn bit_count(&mut self, v: Val, span: Span) -> R<Val> {
        let d = self.integer_arg(&v, "int.bit_count", span)?;
        Ok(self.popc_of(v, d))
    }

    fn popc_of(&mut self, v: Val, d: DType) -> Val {
        Val::new(
            Ty::Scalar(d),
            K::Intrinsic {
                name: row("cuda.popc"),
                args: vec![v.expr()],
            },
        )
        // A count: at most 64, so >= 0 in every integer type.
        .nonneg(true)
    }

    /// popc and clz keep the argument's type (counting in its width); ffs returns uint32
    /// (its 1-based lowest set bit, 0 for 0); brev reverses a uint32 or uint64.
    fn bits(&mut self, name: &str, args: &[Expr], span: Span) -> R<Val> {
        let [v] = self.exactly::<1>(name, args, span)?;
        let d = self.integer_arg(&v, name, span)?;
        let wide = d.itemsize() == 8;
        Ok(match name {
            "cuda.popc" => self.popc_of(v, d),
            "cuda.clz" => Val::new(
                Ty::Scalar(d),
                K::Intrinsic {
                    name: row(name),
                    args: vec![v.expr()],
                },
            )
            .nonneg(true),
            "cuda.ffs" => {
                // Narrow integers widen to 32 bits (sign or zero extension keeps the lowest
                // set bit); the 64-bit ones count in 64.
                let t = match (wide, d.kind()) {
                    (true, _) => d,
                    (false, Kind::UInt) => DType::U32,
                    (false, _) => DType::I32,
                };
                let x = self.cast_to(&v, t);
                self.c.uses.dtypes.insert(DType::U32);
                if let Some(h) = ffs_helper(self.c.dialect, wide) {
                    self.c.uses.helpers.insert(h);
                }
                Val::new(
                    Ty::Scalar(DType::U32),
                    K::Intrinsic {
                        name: row(name),
                        args: vec![x.expr()],
                    },
                )
                .nonneg(true)
            }
            _ => {
                // Numba has uint32 and uint64 forms; other integers convert to the one of
                // their width.
                let t = if wide { DType::U64 } else { DType::U32 };
                let x = self.cast_to(&v, t);
                if let Some(h) = brev_helper(self.c.dialect, wide) {
                    self.c.uses.helpers.insert(h);
                }
                Val::new(
                    Ty::Scalar(t),
                    K::Intrinsic {
                        name: row(name),
                        args: vec![x.expr()],
                    },
                )
                .nonneg(true)
            }
        })
    }

    /// `cuda.fma(a, b, c)` and `cuda.cbrt(a)`: float32 when every argument is float32 (or
    /// float16), else float64.
    fn fused(&mut self, name: &str, args: &[Expr], span: Span) -> R<Val> {
        let n = if name == "cuda.fma" { 3 } else { 1 };
        if args.len() != n {
            return at(
                span,
                format!("{name}() takes {n} argument(s), {} given", args.len()),
            );
        }
        let vals = self.values(args)?;
        let mut single = true;
        for v in &vals {
            match v.ty.scalar() {
                Some(d) if d.kind() != Kind::Complex => single &= d.compute() == DType::F32,
                _ => {
                    return at(
                        span,
                        format!("{name}() takes float32 or float64 numbers, got {}", v.ty),
                    )
                }
            }
        }
        let t = if single { DType::F32 } else { DType::F64 };
        let xs: Vec<_> = vals.iter().map(|v| self.cast_to(v, t).expr()).collect();
        let f = if n == 3 { "fma" } else { "cbrt" };
        Ok(Val::new(Ty::Scalar(t), K::Math(f, xs)))
    }

    /// `cuda.selp(test, a, b)`: `a` if `test` else `b`, all three evaluated (a select, not a
    /// branch); `a` and `b` of one type among PTX's `selp` types.
    fn selp(&mut self, args: &[Expr], span: Span) -> R<Val> {
        let [c, a, b] = self.exactly::<3>("cuda.selp", args, span)?;
        self.scalar_arg(&c, "cuda.selp", span)?;
        let (da, db) = (
            self.scalar_arg(&a, "cuda.selp", span)?,
            self.scalar_arg(&b, "cuda.selp", span)?,
        );
        let d = if da == db { da } else { promote(da, db) };
        if !matches!(
            d,
            DType::F64
                | DType::F32
                | DType::I16
                | DType::U16
                | DType::I32
                | DType::U32
                | DType::I64
                | DType::U64
        ) {
            return at(
                span,
                format!(
                    "cuda.selp() selects between two values of one type among float64, float32, int16, uint16, int32, uint32, int64 and uint64, got {} and {}",
                    da.name(),
                    db.name()
                ),
            );
        }
        let c = self.temp(&c)?;
        let (a, b) = (self.cast_to(&a, d), self.cast_to(&b, d));
        let (a, b) = (self.temp(&a)?, self.temp(&b)?);
        let nonneg = a.nonneg && b.nonneg;
        Ok(Val::new(Ty::Scalar(d), K::Select(c.boxed(), a.boxed(), b.boxed())).nonneg(nonneg))
    }

    /// `cuda.nanosleep(ns)`: a hint; where the dialect cannot sleep, no wait at all (which the
    /// instruction allows: it sleeps anywhere in [0, 2 * ns]).
    fn nanosleep(&mut self, args: &[Expr], span: Span) -> R<Val> {
        let [v] = self.exactly::<1>("cuda.nanosleep", args, span)?;
        self.integer_arg(&v, "cuda.nanosleep", span)?;
        let x = self.cast_to(&v, DType::U32);
        Ok(Val::new(
            Ty::None,
            K::Intrinsic {
                name: row("cuda.nanosleep"),
                args: vec![x.expr()],
            },
        ))
    }
}

/// OpenCL C has no ffs: 1 + the lowest set bit's index, counted as the bits of `x ^ (x - 1)`.
fn ffs_helper(dialect: ember_codegen::Dialect, wide: bool) -> Option<Helper> {
    if dialect != ember_codegen::Dialect::OpenCl {
        return None;
    }
    let (n, t) = if wide { (64, "ulong") } else { (32, "uint") };
    Some(Helper::Text(format!(
        "static inline uint ember_ffs{n}({t} x) {{ return x ? (uint)popcount(x ^ (x - 1)) : 0u; }}\n"
    )))
}

/// OpenCL C has no bit reversal: neighbouring bits swapped, then pairs, nibbles, bytes and
/// 16-bit halves (and 32-bit halves for 64 bits).
fn brev_helper(dialect: ember_codegen::Dialect, wide: bool) -> Option<Helper> {
    if dialect != ember_codegen::Dialect::OpenCl {
        return None;
    }
    let masks: &[(u32, u64)] = &[
        (1, 0x5555555555555555),
        (2, 0x3333333333333333),
        (4, 0x0f0f0f0f0f0f0f0f),
        (8, 0x00ff00ff00ff00ff),
        (16, 0x0000ffff0000ffff),
    ];
    let (n, t, suffix) = if wide {
        (64, "ulong", "UL")
    } else {
        (32, "uint", "U")
    };
    let mut body = String::new();
    for &(s, m) in masks {
        let m = if wide { m } else { m & 0xffff_ffff };
        body.push_str(&format!(
            "x = ((x >> {s}) & 0x{m:x}{suffix}) | ((x & 0x{m:x}{suffix}) << {s}); "
        ));
    }
    let last = if wide {
        "return (x >> 32) | (x << 32);"
    } else {
        "return x;"
    };
    Some(Helper::Text(format!(
        "static inline {t} ember_brev{n}({t} x) {{ {body}{last} }}\n"
    )))
}
