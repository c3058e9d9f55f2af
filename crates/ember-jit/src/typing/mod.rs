//! Typing: each Python function, specialised for argument types, typed by Numba's rules into
//! the IR ([`crate::ir`]). [`function`] types statements and variables (unified over repeated
//! passes), [`expr`] expressions, [`calls`] calls of device functions, builtins and intrinsics,
//! [`arrays`] whole-array operations of host functions.

mod arrays;
mod calls;
pub(crate) mod expr;
pub(crate) mod function;

pub(crate) use function::{FnTyper, Val};
