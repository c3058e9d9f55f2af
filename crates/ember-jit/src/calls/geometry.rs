//! Thread geometry: `cuda.grid`/`cuda.gridsize`, and a coarsened kernel's logical thread
//! indices and block size.

use ember_codegen::Dialect;

use crate::ast::Span;
use crate::coarsen::Mapping;
use crate::error::{at, Fail, R};
use crate::function::FnCompiler;

impl FnCompiler<'_, '_> {
    pub(super) fn grid_axis(&self, grid: bool, k: usize) -> String {
        let axis = ["x", "y", "z"][k];
        match (self.c.dialect, grid) {
            (Dialect::Cuda, true) => {
                format!("((long long)blockIdx.{axis} * blockDim.{axis} + threadIdx.{axis})")
            }
            (Dialect::Cuda, false) => format!("((long long)gridDim.{axis} * blockDim.{axis})"),
            (Dialect::OpenCl, true) => format!("((long)get_global_id({k}))"),
            (Dialect::OpenCl, false) => format!("((long)get_global_size({k}))"),
        }
    }

    /// A coarsened kernel's logical thread index (`threadIdx.<k>`: copy k's) or block size
    /// along the coarsened axis, as C of type int.
    pub(super) fn coarse_geometry(&self, what: &str, span: Span) -> R<String> {
        let Some(plan) = self.c.coarse else {
            return at(
                span,
                format!("ember.coarse.{what} outside a coarsened kernel"),
            );
        };
        let k = plan.axis;
        let (tid, bdim) = match self.c.dialect {
            Dialect::Cuda => (
                format!("(int)threadIdx.{}", ["x", "y", "z"][k]),
                format!("(int)blockDim.{}", ["x", "y", "z"][k]),
            ),
            Dialect::OpenCl => (
                format!("(int)get_local_id({k})"),
                format!("(int)get_local_size({k})"),
            ),
        };
        let f = plan.factor;
        if what == "blockDim" {
            return Ok(format!("({bdim} * {f})"));
        }
        let copy: u32 = what
            .strip_prefix("threadIdx.")
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| Fail::At(span, format!("unknown ember.coarse.{what}")))?;
        Ok(match plan.mapping {
            Mapping::Strided => format!("({tid} + {copy} * {bdim})"),
            Mapping::Adjacent => format!("({tid} * {f} + {copy})"),
        })
    }

    /// `cuda.grid` (copy `Some(k)`) or `cuda.gridsize` (`None`) along `axis` in a coarsened
    /// kernel: the logical block is `factor` times the hardware one along the coarsened axis.
    pub(super) fn coarse_grid_axis(&self, copy: Option<u32>, axis: usize) -> String {
        let Some(plan) = self.c.coarse.filter(|p| p.axis == axis) else {
            return self.grid_axis(copy.is_some(), axis);
        };
        let a = ["x", "y", "z"][axis];
        let f = plan.factor;
        let (block, tid, bdim, groups) = match self.c.dialect {
            Dialect::Cuda => (
                format!("(long long)blockIdx.{a}"),
                format!("(long long)threadIdx.{a}"),
                format!("(long long)blockDim.{a}"),
                format!("(long long)gridDim.{a}"),
            ),
            Dialect::OpenCl => (
                format!("(long)get_group_id({axis})"),
                format!("(long)get_local_id({axis})"),
                format!("(long)get_local_size({axis})"),
                format!("(long)get_num_groups({axis})"),
            ),
        };
        match (copy, plan.mapping) {
            (None, _) => format!("({groups} * {bdim} * {f})"),
            // Written as (hardware index) * factor + k, so the C compiler sees neighbours.
            (Some(k), Mapping::Adjacent) => format!("(({block} * {bdim} + {tid}) * {f} + {k})"),
            (Some(k), Mapping::Strided) => {
                format!("({block} * {bdim} * {f} + {tid} + {k} * {bdim})")
            }
        }
    }
}
