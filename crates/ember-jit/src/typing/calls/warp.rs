//! Warp-level intrinsics (`cuda.activemask`, `cuda.lanemask_lt`, the votes `all_sync`,
//! `any_sync`, `eq_sync`, `ballot_sync`, the shuffles `shfl*_sync`, `match_any_sync`,
//! `match_all_sync`) and the block votes `cuda.syncthreads_count/and/or`, typed as numba-cuda
//! types them (`intrinsics.py`, `cudadecl.py`). The warp-level ones need a dialect with
//! 32-lane warps: on another, compiling one is an error, never a guess at what a lane is. The
//! block votes count in local memory where the dialect has no instruction for them.

use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{CmpOp, Expr, Span};
use crate::error::{at, R};
use crate::helpers::Helper;
use crate::ir::{Const, ExprKind as K, FixedArrayDecl, TempRole};
use crate::types::{Ty, BOOL, INT32};
use crate::typing::{FnTyper, Val};

use super::bits::row;

/// Whether `name` is one of this module's.
fn is_warp(name: &str) -> bool {
    matches!(
        name,
        "cuda.activemask"
            | "cuda.lanemask_lt"
            | "cuda.all_sync"
            | "cuda.any_sync"
            | "cuda.eq_sync"
            | "cuda.ballot_sync"
            | "cuda.shfl_sync"
            | "cuda.shfl_up_sync"
            | "cuda.shfl_down_sync"
            | "cuda.shfl_xor_sync"
            | "cuda.match_any_sync"
            | "cuda.match_all_sync"
    )
}

fn is_block_vote(name: &str) -> bool {
    matches!(
        name,
        "cuda.syncthreads_count" | "cuda.syncthreads_and" | "cuda.syncthreads_or"
    )
}

impl FnTyper<'_, '_> {
    /// A warp-level intrinsic or block vote; `None` for other names.
    pub(super) fn warp_intrinsic(
        &mut self,
        name: &str,
        args: &[Expr],
        span: Span,
    ) -> Option<R<Val>> {
        if !is_warp(name) && !is_block_vote(name) {
            return None;
        }
        // Arguments are checked first: a wrong one is an error on every device.
        let v = self.warp(name, args, span);
        let table = self.c.dialect.table();
        if v.is_ok() && table.warp.is_none() && is_warp(name) {
            return Some(at(
                span,
                format!(
                    "{name}() needs CUDA's 32-lane warps, which {} kernels do not have: run the kernel on a CUDA device",
                    table.name
                ),
            ));
        }
        Some(v)
    }

    fn warp(&mut self, name: &str, args: &[Expr], span: Span) -> R<Val> {
        let call = |args: Vec<&Val>| K::Intrinsic {
            name: row(name),
            args: args.into_iter().map(Val::expr).collect(),
        };
        self.c.uses.dtypes.insert(DType::U32);
        match name {
            "cuda.activemask" | "cuda.lanemask_lt" => {
                self.exactly::<0>(name, args, span)?;
                if name == "cuda.lanemask_lt" {
                    self.c.uses.helpers.insert(Helper::Text(format!(
                        "{} unsigned int ember_lanemask_lt(void) {{ unsigned int m; asm(\"mov.u32 %0, %%lanemask_lt;\" : \"=r\"(m)); return m; }}\n",
                        self.c.dialect.table().device_fn
                    )));
                }
                Ok(Val::new(Ty::Scalar(DType::U32), call(vec![])).nonneg(true))
            }
            "cuda.all_sync" | "cuda.any_sync" | "cuda.eq_sync" | "cuda.ballot_sync" => {
                let [m, p] = self.exactly::<2>(name, args, span)?;
                let m = self.mask(&m, name, span)?;
                match p.ty.scalar() {
                    Some(d) if matches!(d.kind(), Kind::Int | Kind::UInt | Kind::Bool) => {}
                    _ => {
                        return at(
                            span,
                            format!(
                                "{name}(): Predicate must be an integer or boolean. Got {}",
                                p.ty
                            ),
                        )
                    }
                }
                let ty = if name == "cuda.ballot_sync" {
                    INT32
                } else {
                    BOOL
                };
                Ok(Val::new(ty, call(vec![&m, &p])))
            }
            "cuda.shfl_sync"
            | "cuda.shfl_up_sync"
            | "cuda.shfl_down_sync"
            | "cuda.shfl_xor_sync" => {
                let [m, v, lane] = self.exactly::<3>(name, args, span)?;
                let m = self.mask(&m, name, span)?;
                let d = v.ty.scalar();
                if !matches!(
                    d,
                    Some(
                        DType::I32 | DType::I64 | DType::U32 | DType::U64 | DType::F32 | DType::F64
                    )
                ) {
                    return at(
                        span,
                        format!(
                            "{name}() only supports 32- and 64-bit ints and floats (int32, int64, uint32, uint64, float32, float64), got {}",
                            v.ty
                        ),
                    );
                }
                let lane = match lane.ty.scalar() {
                    Some(t) if matches!(t.kind(), Kind::Int | Kind::UInt | Kind::Bool) => {
                        self.cast_to(&lane, DType::I32)
                    }
                    _ => {
                        return at(
                            span,
                            format!("{name}() takes an integer lane, got {}", lane.ty),
                        )
                    }
                };
                let nonneg = v.nonneg;
                Ok(Val::new(v.ty.clone(), call(vec![&m, &v, &lane])).nonneg(nonneg))
            }
            _ if is_block_vote(name) => {
                let [p] = self.exactly::<1>(name, args, span)?;
                match p.ty.scalar() {
                    Some(d) if matches!(d.kind(), Kind::Int | Kind::UInt | Kind::Bool) => {}
                    _ => {
                        return at(
                            span,
                            format!("{name}() takes an integer predicate, got {}", p.ty),
                        )
                    }
                }
                // Numba passes the predicate as int32 (a wider one truncates).
                let p = self.cast_to(&p, DType::I32);
                let table = self.c.dialect.table();
                if table.warp.is_some() {
                    return Ok(Val::new(INT32, call(vec![&p])).nonneg(true));
                }
                // Without CUDA's: a counter in local memory, which only the kernel itself
                // may declare there.
                if !table.shared_in_device_functions && !self.is_kernel() {
                    return at(
                        span,
                        format!("{name}() is available in the kernel itself on {}, not in device functions", table.name),
                    );
                }
                let storage = self.fresh(TempRole::Shared);
                if self.final_pass {
                    self.arrays.push(FixedArrayDecl {
                        storage,
                        dtype: DType::I32,
                        count: 1,
                        shared: true,
                        align: None,
                    });
                }
                self.c.uses.helpers.insert(Helper::Text(format!(
                    "{dev} int ember_block_count(__local int* s, int p) {{\n  barrier(CLK_LOCAL_MEM_FENCE);\n  if (get_local_id(0) == 0 && get_local_id(1) == 0 && get_local_id(2) == 0) *s = 0;\n  barrier(CLK_LOCAL_MEM_FENCE);\n  if (p) atomic_inc((volatile __local int*)s);\n  barrier(CLK_LOCAL_MEM_FENCE);\n  return *s;\n}}\n",
                    dev = table.device_fn
                )));
                // The storage travels as its name (the C array decays to its pointer).
                let counter = Val::new(INT32, K::Temp(storage));
                Ok(Val::new(INT32, call(vec![&p, &counter])).nonneg(true))
            }
            _ => {
                // match_any_sync / match_all_sync: int32, int64, float32 or float64 values
                // (others convert to the one holding them).
                let [m, v] = self.exactly::<2>(name, args, span)?;
                let m = self.mask(&m, name, span)?;
                let t = match v.ty.scalar() {
                    Some(d @ (DType::I32 | DType::I64 | DType::F32 | DType::F64)) => d,
                    Some(DType::U32 | DType::U64) => DType::I64,
                    Some(d) if matches!(d.kind(), Kind::Int | Kind::UInt | Kind::Bool) => {
                        DType::I32
                    }
                    Some(d) if d.kind() == Kind::Float => DType::F32,
                    _ => {
                        return at(
                            span,
                            format!(
                                "{name}() matches int32, int64, float32 or float64 values, got {}",
                                v.ty
                            ),
                        )
                    }
                };
                let v = self.cast_to(&v, t);
                if name == "cuda.match_any_sync" {
                    return Ok(Val::new(INT32, call(vec![&m, &v])));
                }
                self.c.uses.helpers.insert(Helper::Text(format!(
                    "template <typename T> {} unsigned int ember_match_all(unsigned int m, T v) {{ int p; return __match_all_sync(m, v, &p); }}\n",
                    self.c.dialect.table().device_fn
                )));
                // (mask, pred): the mask is that of the lanes when all match, else 0.
                let t = self.temp(&Val::new(INT32, call(vec![&m, &v])))?;
                let zero = Val::constant(INT32, Const::Count(0));
                let pred = Val::new(BOOL, K::Compare(CmpOp::NotEq, t.boxed(), zero.boxed()));
                self.c.uses.dtypes.insert(DType::Bool);
                Ok(self.make_tuple(vec![t, pred]))
            }
        }
    }

    /// A warp mask: an integer (Numba's rule), as uint32.
    fn mask(&mut self, m: &Val, name: &str, span: Span) -> R<Val> {
        match m.ty.scalar() {
            Some(d) if matches!(d.kind(), Kind::Int | Kind::UInt) => {
                Ok(self.cast_to(m, DType::U32))
            }
            _ => at(
                span,
                format!(
                    "{name}(): Mask type must be an integer (a 32-bit lane mask), got {}",
                    m.ty
                ),
            ),
        }
    }
}
