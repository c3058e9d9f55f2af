//! Whole-array operations of host functions (`@njit`), which make or fill arrays element by
//! element: [`elementwise`] operators and ufuncs with array operands, [`reduce`] reductions
//! (`sum`, `max`, `argmin`...). Kernels index elements instead.

pub(crate) mod elementwise;
pub(crate) mod reduce;
