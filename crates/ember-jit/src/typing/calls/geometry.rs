//! Thread geometry: a coarsened kernel's logical thread indices, block size and grid.

use crate::ast::Span;
use crate::error::{at, Fail, R};
use crate::ir::Geometry;
use crate::typing::FnTyper;

impl FnTyper<'_, '_> {
    /// A coarsened kernel's logical thread index (`threadIdx.<k>`: copy k's) or block size
    /// along the coarsened axis.
    pub(super) fn coarse_geometry(&self, what: &str, span: Span) -> R<Geometry> {
        if self.c.coarse.is_none() {
            return at(
                span,
                format!("ember.coarse.{what} outside a coarsened kernel"),
            );
        }
        if what == "blockDim" {
            return Ok(Geometry::CoarseBlockDim);
        }
        let copy: u32 = what
            .strip_prefix("threadIdx.")
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| Fail::At(span, format!("unknown ember.coarse.{what}")))?;
        Ok(Geometry::CoarseThreadIdx(copy))
    }

    /// `cuda.grid` (copy `Some(k)`) or `cuda.gridsize` (`None`) along `axis` in a coarsened
    /// kernel: the logical block is `factor` times the hardware one along the coarsened axis.
    pub(super) fn coarse_grid_axis(&self, copy: Option<u32>, axis: usize) -> Geometry {
        match self.c.coarse.filter(|p| p.axis == axis) {
            Some(_) => Geometry::CoarseGrid { copy, axis },
            None if copy.is_some() => Geometry::Grid(axis),
            None => Geometry::GridSize(axis),
        }
    }
}
