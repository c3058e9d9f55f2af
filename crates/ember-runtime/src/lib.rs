//! ember's runtime: one small [`Backend`] trait with a CUDA and an OpenCL implementation, and
//! what every frontend shares on top of it: devices, streams and events, the caching memory
//! pool, and compilation through the one kernel cache.

pub mod backend;
pub mod buffer;
pub mod cache;
pub mod cuda;
pub mod declared;
pub mod deferred;
pub mod device;
pub mod fork;
pub mod guard;
pub mod launch_queue;
pub mod opencl;
pub mod pool;
pub mod probe;
pub mod profile;
pub mod stream;

pub use backend::{
    Backend, BackendKind, Compiled, DeviceInfo, FunctionAttribute, Handle, KernelArg, KernelParams,
    NdRange,
};
pub use buffer::Buffer;
pub use cache::{CacheStats, DiskCache};
pub use device::{device, device_count, devices, opencl_devices, Device, Function, Module};
pub use pool::{MemoryPool, RawAllocator};
pub use stream::{
    current_device, current_stream, current_stream_owner, pop_current_stream, push_current_stream,
    set_current_device, Event, Stream, StreamOwner,
};
