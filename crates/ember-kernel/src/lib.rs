//! ember's launch layer: what every frontend (array operations, ElementwiseKernel and
//! ReductionKernel, RawKernel and SourceModule, PyOpenCL programs, `@jit` kernels) shares
//! between generating code and running it on a device.
//!
//! - [`dialect`]: the C dialect a device's generated code is written in;
//! - [`compile`]: generated source compiled with the dialect's options for how it rounds;
//! - [`memo`]: compiled kernels by spec and device, so a repeated launch is a hash lookup;
//! - [`launch`]: launch shapes, and queued-or-immediate launches of generated kernels;
//! - [`scalars`]: host scalars as generated kernels' parameter bytes, with NumPy's range rules;
//! - [`checked`]: checked mode (index checks in kernels), and the launch that reads the
//!   fault record back;
//! - [`cuda_c`]: CUDA C built by NVRTC on CUDA and translated to OpenCL C elsewhere;
//! - [`args`]: arguments of user-written kernels (RawKernel, SourceModule, OpenCL programs):
//!   scalars, arrays and device pointers checked against the kernel's parameters;
//! - [`jit`]: a `@jit` kernel's specialisations, found without re-typing, and their launches.

pub mod args;
pub mod checked;
pub mod compile;
pub mod cuda_c;
pub mod dialect;
pub mod jit;
pub mod launch;
pub mod memo;
pub mod scalars;

pub use args::{kernel_args, KernelArgs, LaunchArg};
pub use compile::{
    compile_generated, generated_device_code, generated_program, DeviceCode, Rounding,
};
pub use cuda_c::{cuda_module, CudaModule, DynamicShared};
pub use dialect::dialect;
pub use jit::{Dispatcher, JitArg, LaunchConfig};
pub use launch::{
    cover, launch_generated, launch_shape, launch_shape_covering, launch_shape_unrolled,
    note_bytes, Operand,
};
pub use memo::KernelMemo;
pub use scalars::{param_bytes, scalar_param, ScalarBytes};
