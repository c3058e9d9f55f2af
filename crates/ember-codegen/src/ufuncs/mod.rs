//! NumPy's universal functions as ember writes them: the registry of the ufuncs ember has
//! ([`registry`]), NumPy's loops and casting tables (generated from NumPy, [`tables`]), type
//! resolution as NumPy 2 does it ([`resolve`]) and each loop's C expression ([`expr`]). Array
//! operations, fusion and `@jit` kernels all resolve and write ufuncs here.

pub mod expr;
pub mod registry;
pub mod resolve;
pub mod tables;
mod ulp;

pub use registry::{Call, UfuncRow, UFUNCS};
pub use resolve::{find_loop, ufunc, OperandType, Ufunc};
