//! ember's native back end: Python functions (`@ember.njit`) compiled to machine code in the
//! running process, with no toolchain.
//!
//! ember-jit types a function for its argument types into the typed IR, as it does for
//! kernels; here that IR is lowered through Cranelift ([`lower`]) into a module of machine
//! code ([`module`]), called through one entry with the calling convention of [`abi`]. Work
//! that is not one machine instruction calls C's math library or ember's routines
//! ([`runtime`]).

pub mod abi;
mod arena;
mod image;
mod lower;
mod module;
mod pool;
mod print;
mod runtime;
mod values;

pub use abi::{Builtin, CallContext, Fault, Leaf};
pub use arena::{Arena, Block};
pub use image::code_identity;
pub use module::{compile, compile_keeping, load, NativeFunction, Options};
pub use pool::{num_threads, pool_threads, set_num_threads};
pub use print::{line_text, set_printer, PrintPiece, Printer};
