//! Which C dialect a device's generated code is written in.

use ember_codegen::Dialect;
use ember_runtime::{BackendKind, Device};

/// The dialect a device's generated code is written in.
pub fn dialect(device: &Device) -> Dialect {
    match device.kind() {
        BackendKind::Cuda => Dialect::Cuda,
        BackendKind::OpenCl => Dialect::OpenCl,
    }
}
