//! Thread geometry: `cuda.grid`/`cuda.gridsize`, and a coarsened kernel's logical thread
//! indices and block size.

use crate::ast::Span;
use crate::coarsen::Mapping;
use crate::error::{at, Fail, R};
use crate::function::FnCompiler;

impl FnCompiler<'_, '_> {
    pub(super) fn grid_axis(&self, grid: bool, k: usize) -> String {
        let t = self.c.dialect.table();
        let what = if grid {
            t.global_index
        } else {
            t.global_extent
        };
        format!("(({}){})", t.int64, t.axis(what, k))
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
        let t = self.c.dialect.table();
        let tid = format!("(int){}", t.axis(t.thread_idx, k));
        let bdim = format!("(int){}", t.axis(t.block_dim, k));
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
        let f = plan.factor;
        let t = self.c.dialect.table();
        let [block, tid, bdim, groups] = [t.block_idx, t.thread_idx, t.block_dim, t.grid_dim]
            .map(|what| format!("({}){}", t.int64, t.axis(what, axis)));
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
