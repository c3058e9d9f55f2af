//! Rows of the intrinsic registry written as C ([`crate::ir::ExprKind::Intrinsic`]): CUDA's
//! device functions (`__popc`, `__shfl_sync`...), OpenCL C's builtins (`popcount`, `clz`)
//! and helpers typing declared where OpenCL C has none (`ember_brev32`, `ember_ffs64`).
//! Typing refuses the warp-level rows on dialects without warps, so only CUDA writes those.

use ember_codegen::types::value_type;
use ember_codegen::Dialect;
use ember_core::DType;

use super::function::FnWriter;
use crate::compiler::Access;
use crate::helpers::hint_register;
use crate::ir::{Expr, ExprKind as K, Place};
use crate::types::Space;

impl FnWriter<'_, '_> {
    /// Intrinsic `name` of `args` (converted by typing), as a C expression of `d`.
    pub(crate) fn intrinsic(&mut self, name: &str, args: &[Expr], d: DType) -> String {
        let dialect = self.e.dialect;
        if let Some(hint) = name.strip_prefix("cuda.ld") {
            return self.hinted_load(hint, args, d);
        }
        // A cache-hinted store's value (its store is the statement's: [`Self::hinted_store`]);
        // the call itself is nothing.
        if name.starts_with("cuda.st") {
            return args.first().map_or_else(String::new, |v| self.expr(v));
        }
        let codes: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
        let arg = |k: usize| codes.get(k).cloned().unwrap_or_default();
        let t = value_type(d, dialect);
        let a = args.first().and_then(Expr::dtype).unwrap_or(d);
        let bits = 8 * a.itemsize();
        let cuda = dialect == Dialect::Cuda;
        let x = arg(0);
        match name {
            "cuda.popc" if cuda => {
                if bits == 64 {
                    format!("(({t})__popcll((unsigned long long)({x})))")
                } else {
                    // Zero-extended from the argument's width: popc(int8(-1)) is 8.
                    let u = value_type(a.unsigned_twin(), dialect);
                    format!("(({t})__popc((unsigned int)({u})({x})))")
                }
            }
            // Through the unsigned type of the argument's width: a `signed char` promotes to
            // int before overload resolution (PoCL), counting 32 bits.
            "cuda.popc" => {
                let u = value_type(a.unsigned_twin(), dialect);
                format!("(({t})popcount(({u})({x})))")
            }
            "cuda.clz" if cuda => match bits {
                64 => format!("(({t})__clzll((long long)({x})))"),
                32 => format!("(({t})__clz((int)({x})))"),
                _ => {
                    let u = value_type(a.unsigned_twin(), dialect);
                    format!("(({t})(__clz((int)({u})({x})) - {}))", 32 - bits)
                }
            },
            "cuda.clz" => {
                let u = value_type(a.unsigned_twin(), dialect);
                format!("(({t})clz(({u})({x})))")
            }
            "cuda.ffs" if cuda && bits == 64 => {
                format!("((unsigned int)__ffsll((long long)({x})))")
            }
            "cuda.ffs" if cuda => format!("((unsigned int)__ffs((int)({x})))"),
            "cuda.ffs" => {
                let u = value_type(a.unsigned_twin(), dialect);
                format!("ember_ffs{bits}(({u})({x}))")
            }
            "cuda.brev" if cuda && bits == 64 => format!("__brevll({x})"),
            "cuda.brev" if cuda => format!("__brev({x})"),
            "cuda.brev" => format!("ember_brev{bits}({x})"),
            "cuda.nanosleep" if cuda => format!("__nanosleep({x})"),
            // A sleep of 0 ns is within the instruction's [0, 2 * ns].
            "cuda.nanosleep" => format!("((void)({x}))"),
            "cuda.activemask" => "__activemask()".into(),
            "cuda.lanemask_lt" => "ember_lanemask_lt()".into(),
            "cuda.all_sync" | "cuda.any_sync" | "cuda.eq_sync" => {
                let f = match name {
                    "cuda.all_sync" => "__all_sync",
                    "cuda.any_sync" => "__any_sync",
                    _ => "__uni_sync",
                };
                format!("((unsigned char)({f}({x}, ({}) != 0) != 0))", arg(1))
            }
            "cuda.ballot_sync" => format!("((int)__ballot_sync({x}, ({}) != 0))", arg(1)),
            "cuda.shfl_sync" => format!("__shfl_sync({x}, {}, {})", arg(1), arg(2)),
            "cuda.shfl_xor_sync" => format!("__shfl_xor_sync({x}, {}, {})", arg(1), arg(2)),
            // The delta's bits as CUDA's unsigned parameter (Numba passes them as they are).
            "cuda.shfl_up_sync" => {
                format!(
                    "__shfl_up_sync({x}, {}, (unsigned int)({}))",
                    arg(1),
                    arg(2)
                )
            }
            "cuda.shfl_down_sync" => {
                format!(
                    "__shfl_down_sync({x}, {}, (unsigned int)({}))",
                    arg(1),
                    arg(2)
                )
            }
            "cuda.match_any_sync" => format!("((int)__match_any_sync({x}, {}))", arg(1)),
            "cuda.match_all_sync" => format!("((int)ember_match_all({x}, {}))", arg(1)),
            "cuda.syncthreads_count" if cuda => format!("__syncthreads_count({x})"),
            // 1 or 0, as Numba's (CUDA's are only nonzero).
            "cuda.syncthreads_and" if cuda => format!("((int)(__syncthreads_and({x}) != 0))"),
            "cuda.syncthreads_or" if cuda => format!("((int)(__syncthreads_or({x}) != 0))"),
            // Elsewhere by the counter typing declared (argument 1): `and` counts the lanes
            // whose predicate fails.
            "cuda.syncthreads_count" => format!("ember_block_count({}, {x})", arg(1)),
            "cuda.syncthreads_and" => {
                format!("((int)(ember_block_count({}, ({x}) == 0) == 0))", arg(1))
            }
            "cuda.syncthreads_or" => format!("((int)(ember_block_count({}, {x}) != 0))", arg(1)),
            _ => String::new(),
        }
    }

    /// `cuda.ld<hint>(array, i)`: on CUDA, a global element by the hinted PTX load
    /// (`ld.global.cs.b32`, [`crate::helpers::Helper::CacheHint`]); elsewhere the plain read.
    fn hinted_load(&mut self, hint: &str, args: &[Expr], d: DType) -> String {
        let Some(K::Element(place)) = args.first().map(|a| &a.kind) else {
            return String::new();
        };
        let Some(call) = self.hinted_load_word(hint, place) else {
            let p = self.pointer(place, Access::Read);
            return self.load_elem(d, place.ty.space, &p, place.ty.unaligned);
        };
        match d {
            DType::F16 => format!("ember_h2f({call})"),
            DType::F32 => format!("__uint_as_float({call})"),
            DType::F64 => format!("__longlong_as_double((long long)({call}))"),
            _ => format!("(({})({call}))", value_type(d, Dialect::Cuda)),
        }
    }

    /// The hinted load's word (the element's bits) where CUDA has it: a global element.
    fn hinted_load_word(&mut self, hint: &str, place: &Place) -> Option<String> {
        if self.e.dialect != Dialect::Cuda || place.ty.space != Space::Global || place.ty.unaligned
        {
            return None;
        }
        let p = self.pointer(place, Access::Read);
        Some(format!(
            "ember_ld{hint}_b{}({p})",
            8 * place.ty.dtype.itemsize()
        ))
    }

    /// The 16 bits a hinted load of a float16 element reads, where CUDA has the instruction.
    pub(crate) fn hinted_load_bits(&mut self, name: &str, args: &[Expr]) -> Option<String> {
        let hint = name.strip_prefix("cuda.ld")?;
        let K::Element(place) = &args.first()?.kind else {
            return None;
        };
        self.hinted_load_word(hint, place)
    }

    /// The statement of a store of `value` at `ptr`, the element of `place`, when `value` is a
    /// cache-hinted store's (`cuda.st<hint>`) and CUDA has the hinted PTX store for it.
    pub(crate) fn hinted_store(
        &mut self,
        place: &Place,
        ptr: &str,
        value: &Expr,
    ) -> Option<String> {
        let K::Intrinsic { name, args } = &value.kind else {
            return None;
        };
        let hint = name.strip_prefix("cuda.st")?;
        let v = args.first()?;
        if self.e.dialect != Dialect::Cuda || place.ty.space != Space::Global || place.ty.unaligned
        {
            return None;
        }
        let d = place.ty.dtype;
        let bits = 8 * d.itemsize();
        let word = match d {
            DType::F16 => self.half_bits(v),
            DType::F32 => format!("__float_as_uint({})", self.expr(v)),
            DType::F64 => format!("(unsigned long long)__double_as_longlong({})", self.expr(v)),
            _ => format!("({})({})", hint_register(bits).0, self.expr(v)),
        };
        Some(format!("ember_st{hint}_b{bits}({ptr}, {word});"))
    }
}
