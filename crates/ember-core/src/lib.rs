//! ember's shared vocabulary: dtypes, shapes, errors and configuration.
//!
//! Every other crate speaks in these terms. Nothing here touches a GPU or Python.

pub mod config;
pub mod datetime;
pub mod dtype;
pub mod error;
pub mod opaque;
pub mod scalar;
pub mod shape;

pub use config::{BackendChoice, Config};
pub use dtype::DType;
pub use error::{CompileFailure, DriverFailure, Error, PoolStats, Result};
pub use opaque::{Field, Opaque, Record};
pub use scalar::Scalar;
