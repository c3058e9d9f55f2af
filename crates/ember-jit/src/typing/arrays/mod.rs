//! Whole-array operations of host functions (`@njit`), which make or fill arrays element by
//! element: [`elementwise`] operators and ufuncs with array operands, [`fuse`] whole
//! expressions of them in one loop, [`reduce`] reductions
//! (`sum`, `max`, `argmin`...), [`nan_reduce`] those that skip NaNs (`np.nansum`...), [`mask`] boolean masks and
//! `np.nonzero`. Kernels index elements instead.

pub(crate) mod elementwise;
mod fuse;
pub(crate) mod mask;
pub(crate) mod nan_reduce;
mod overlap;
pub(crate) mod reduce;
