//! Every `cuda.*` intrinsic a kernel written in Python may call: one row each. The Python
//! front makes its placeholders from these rows (`ember._jit.intrinsics`, `ember.cuda.random`),
//! coarsening reads whether a row may be copied per logical thread, and stubs and docs list
//! them. How each is typed and written is `calls/`'s, by the row's name.

/// Whether a coarsened kernel (several logical threads per hardware thread) may use it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coarsening {
    /// Anywhere: the same for every logical thread of a hardware thread, or per element.
    Anywhere,
    /// In the kernel only, where the rewrite gives each copy its own value (thread indices,
    /// `grid`) or keeps one barrier; not in device functions, which run once per copy.
    KernelOnly,
    /// Never: warp-level (a warp holds other logical threads once coarsened).
    Never,
}

/// One intrinsic.
pub struct Intrinsic {
    /// The dotted name the front gives it (`cuda.atomic.add`).
    pub name: &'static str,
    pub coarsening: Coarsening,
}

const fn row(name: &'static str, coarsening: Coarsening) -> Intrinsic {
    Intrinsic { name, coarsening }
}

use Coarsening::{Anywhere, KernelOnly, Never};

pub const INTRINSICS: &[Intrinsic] = &[
    row("cuda.grid", KernelOnly),
    row("cuda.gridsize", KernelOnly),
    row("cuda.threadIdx.x", KernelOnly),
    row("cuda.threadIdx.y", KernelOnly),
    row("cuda.threadIdx.z", KernelOnly),
    row("cuda.blockDim.x", KernelOnly),
    row("cuda.blockDim.y", KernelOnly),
    row("cuda.blockDim.z", KernelOnly),
    row("cuda.blockIdx.x", Anywhere),
    row("cuda.blockIdx.y", Anywhere),
    row("cuda.blockIdx.z", Anywhere),
    row("cuda.gridDim.x", Anywhere),
    row("cuda.gridDim.y", Anywhere),
    row("cuda.gridDim.z", Anywhere),
    row("cuda.laneid", Never),
    row("cuda.warpsize", Anywhere),
    row("cuda.syncthreads", KernelOnly),
    row("cuda.syncwarp", Never),
    row("cuda.threadfence", Anywhere),
    row("cuda.threadfence_block", Anywhere),
    row("cuda.threadfence_system", Anywhere),
    row("cuda.shared.array", Anywhere),
    row("cuda.local.array", Anywhere),
    row("cuda.const.array_like", Anywhere),
    row("cuda.atomic.add", Anywhere),
    row("cuda.atomic.sub", Anywhere),
    row("cuda.atomic.max", Anywhere),
    row("cuda.atomic.min", Anywhere),
    row("cuda.atomic.nanmax", Anywhere),
    row("cuda.atomic.nanmin", Anywhere),
    row("cuda.atomic.exch", Anywhere),
    row("cuda.atomic.and_", Anywhere),
    row("cuda.atomic.or_", Anywhere),
    row("cuda.atomic.xor", Anywhere),
    row("cuda.atomic.inc", Anywhere),
    row("cuda.atomic.dec", Anywhere),
    row("cuda.atomic.cas", Anywhere),
    row("cuda.atomic.compare_and_swap", Anywhere),
    row("cuda.syncthreads_count", Never),
    row("cuda.syncthreads_and", Never),
    row("cuda.syncthreads_or", Never),
    row("cuda.nanosleep", Anywhere),
    row("cuda.cg.this_grid", Never),
    // Bit operations and arithmetic: pure functions of their arguments.
    row("cuda.popc", Anywhere),
    row("cuda.brev", Anywhere),
    row("cuda.clz", Anywhere),
    row("cuda.ffs", Anywhere),
    row("cuda.fma", Anywhere),
    row("cuda.cbrt", Anywhere),
    row("cuda.selp", Anywhere),
    // Warp-level: votes, shuffles and matches read other lanes.
    row("cuda.activemask", Never),
    row("cuda.lanemask_lt", Never),
    row("cuda.all_sync", Never),
    row("cuda.any_sync", Never),
    row("cuda.eq_sync", Never),
    row("cuda.ballot_sync", Never),
    row("cuda.shfl_sync", Never),
    row("cuda.shfl_up_sync", Never),
    row("cuda.shfl_down_sync", Never),
    row("cuda.shfl_xor_sync", Never),
    row("cuda.match_any_sync", Never),
    row("cuda.match_all_sync", Never),
    // Cache-hinted loads and stores of one element.
    row("cuda.ldca", Anywhere),
    row("cuda.ldcg", Anywhere),
    row("cuda.ldcs", Anywhere),
    row("cuda.ldlu", Anywhere),
    row("cuda.ldcv", Anywhere),
    row("cuda.stcg", Anywhere),
    row("cuda.stcs", Anywhere),
    row("cuda.stwb", Anywhere),
    row("cuda.stwt", Anywhere),
    // Numba's float16 functions.
    row("cuda.fp16.hadd", Anywhere),
    row("cuda.fp16.hsub", Anywhere),
    row("cuda.fp16.hmul", Anywhere),
    row("cuda.fp16.hdiv", Anywhere),
    row("cuda.fp16.hneg", Anywhere),
    row("cuda.fp16.habs", Anywhere),
    row("cuda.fp16.hfma", Anywhere),
    row("cuda.fp16.heq", Anywhere),
    row("cuda.fp16.hne", Anywhere),
    row("cuda.fp16.hge", Anywhere),
    row("cuda.fp16.hgt", Anywhere),
    row("cuda.fp16.hle", Anywhere),
    row("cuda.fp16.hlt", Anywhere),
    row("cuda.fp16.hmax", Anywhere),
    row("cuda.fp16.hmin", Anywhere),
    row("cuda.fp16.hsin", Anywhere),
    row("cuda.fp16.hcos", Anywhere),
    row("cuda.fp16.hlog", Anywhere),
    row("cuda.fp16.hlog2", Anywhere),
    row("cuda.fp16.hlog10", Anywhere),
    row("cuda.fp16.hexp", Anywhere),
    row("cuda.fp16.hexp2", Anywhere),
    row("cuda.fp16.hexp10", Anywhere),
    row("cuda.fp16.hsqrt", Anywhere),
    row("cuda.fp16.hrsqrt", Anywhere),
    row("cuda.fp16.hceil", Anywhere),
    row("cuda.fp16.hfloor", Anywhere),
    row("cuda.fp16.hrcp", Anywhere),
    row("cuda.fp16.htrunc", Anywhere),
    row("cuda.fp16.hrint", Anywhere),
    row("cuda.random.xoroshiro128p_next", Anywhere),
    row("cuda.random.xoroshiro128p_uniform_float32", Anywhere),
    row("cuda.random.xoroshiro128p_uniform_float64", Anywhere),
    row("cuda.random.xoroshiro128p_normal_float32", Anywhere),
    row("cuda.random.xoroshiro128p_normal_float64", Anywhere),
];

/// The row called `name`.
pub fn intrinsic(name: &str) -> Option<&'static Intrinsic> {
    INTRINSICS.iter().find(|i| i.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_dotted_under_cuda() {
        for (k, i) in INTRINSICS.iter().enumerate() {
            assert!(i.name.starts_with("cuda."), "{}", i.name);
            assert!(
                INTRINSICS[k + 1..].iter().all(|o| o.name != i.name),
                "{}",
                i.name
            );
        }
    }
}
