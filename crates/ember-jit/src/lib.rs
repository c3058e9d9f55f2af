//! ember's compiler for kernels written in Python (Numba's `@cuda.jit` language).
//!
//! Python parses the function (`ember/_jit/front.py`), resolves every free name and hands a
//! plain tree over as JSON ([`ast`]). Here each function is typed per argument-type signature
//! with Numba's rules ([`types`]) into a typed IR ([`ir`]), which a back end writes out: C
//! through ember-codegen's dialect tables (`emit`), so the same tree becomes CUDA C or
//! OpenCL C. It compiles only: launching is ember-kernel's.

mod analysis;
pub mod ast;
pub mod coarsen;
pub mod compiler;
mod datetime;
mod emit;
mod error;
mod externs;
mod helpers;
pub mod intrinsics;
pub mod ir;
mod named;
mod pymath;
pub mod types;
mod typing;

pub use ast::Program;
pub use coarsen::{Mapping, Opportunities, Plan};
pub use compiler::{
    compile_device, compile_device_entry, compile_kernel, compile_kernel_checked,
    compile_kernel_coarse, type_device, type_host, type_kernel, Access, DeviceSource, KernelSource,
    ParamSlot, Raised, Site,
};
pub use emit::Abi;
pub use error::locate;
pub use ir::IrProgram;
pub use named::with_named_fields;
pub use types::{parse_arg_type, parse_signature, ArrayTy, Layout, Space, Ty};
