//! Launching: the shape of a grid-stride launch, and launches of ember's generated kernels,
//! queued when only ember can see the memory they touch.

use ember_codegen::Cover;
use ember_core::DType;
use ember_core::Result;
use ember_runtime::{current_stream, Device, Function, KernelArg};

/// What the launch layer needs of an array operand: where its elements are, how they are laid
/// out, and who else may see its memory. `ember_array::Array` is one; kernels take nothing
/// else that is memory.
pub trait Operand {
    fn device(&self) -> &'static Device;
    fn dtype(&self) -> DType;
    fn shape(&self) -> &[usize];
    fn strides(&self) -> &[isize];
    fn is_c_contiguous(&self) -> bool;
    /// Whether the first element's address is a multiple of `bytes`.
    fn is_aligned(&self, bytes: u64) -> bool;
    /// Whether only ember orders work on this memory (no view was handed to another
    /// library), so launches touching it may be queued.
    fn is_private(&self) -> bool;
    /// The kernel argument for the first element's address.
    fn kernel_arg(&self) -> KernelArg<'static>;
    fn ndim(&self) -> usize {
        self.shape().len()
    }
}

/// Tells an open profile (`ember_runtime::profile`) the bytes the next launch's `arrays`
/// hold: each element along its non-broadcast axes, read or written once.
pub fn note_bytes<'a>(arrays: impl IntoIterator<Item = &'a (dyn Operand + 'a)>) {
    if !ember_runtime::profile::is_open() {
        return;
    }
    let bytes = arrays
        .into_iter()
        .map(|a| {
            let elements: usize = (a.shape().iter().zip(a.strides()))
                .map(|(&n, &s)| if s == 0 && n > 0 { 1 } else { n })
                .product();
            (elements * a.dtype().itemsize()) as u64
        })
        .sum();
    ember_runtime::profile::note_bytes(bytes);
}

/// Launches one of ember's generated kernels on the current stream; `arrays` is all the
/// memory it touches. When none of it is visible outside ember, a burst of such launches may
/// be issued from the backend's launch thread (`Device::launch_queued`).
pub fn launch_generated<'a, A: Operand + 'a, I>(
    device: &'static Device,
    function: &Function,
    grid: [u32; 3],
    block: [u32; 3],
    arrays: I,
    args: &[KernelArg<'_>],
) -> Result<()>
where
    I: IntoIterator<Item = &'a A>,
    I::IntoIter: Clone,
{
    let stream = current_stream(device);
    let mut arrays = arrays.into_iter();
    note_bytes(arrays.clone().map(|a| a as &dyn Operand)); // walks them only in a profile
    if arrays.all(Operand::is_private) {
        device.launch_queued(function, grid, block, 0, stream, args)
    } else {
        device.launch(function, grid, block, 0, stream, args)
    }
}

/// How ember's generated streaming kernels cover their elements on `device`: CPU devices
/// give every step a work-item of its own (see [`Cover::OnePerItem`]).
pub fn cover(device: &Device) -> Cover {
    match device.info().is_cpu {
        true => Cover::OnePerItem,
        false => Cover::GridStride,
    }
}

/// Grid and block giving each of `items` steps a work-item of its own, for `cover`
/// ([`Cover::GridStride`]: as [`launch_shape_unrolled`] with one element a thread).
pub fn launch_shape_covering(device: &Device, items: usize, cover: Cover) -> ([u32; 3], [u32; 3]) {
    match cover {
        Cover::GridStride => launch_shape(device, items),
        Cover::OnePerItem => {
            // Large groups: PoCL's cost is per group (measured on 2 cores: an add of 2^20
            // float32 in groups of 256 work-items at 53 GB/s, of 4,096 at 90).
            let block = CPU_GROUP.min(device.info().max_threads_per_block.max(1));
            let groups = items.div_ceil(block).clamp(1, u32::MAX as usize);
            ([groups as u32, 1, 1], [block as u32, 1, 1])
        }
    }
}

/// Work-items in a group of a [`Cover::OnePerItem`] launch.
const CPU_GROUP: usize = 4096;

/// Grid and block for `n` elements with a grid-stride loop.
pub fn launch_shape(device: &Device, n: usize) -> ([u32; 3], [u32; 3]) {
    let info = device.info();
    let block = 256.min(info.max_threads_per_block.max(1));
    let blocks_wanted = n.div_ceil(block).max(1);
    let per_unit = if info.is_cpu { 4 } else { 32 };
    let cap = (info.multiprocessors.max(1) * per_unit).min(65_535);
    ([blocks_wanted.min(cap) as u32, 1, 1], [block as u32, 1, 1])
}

/// Grid and block for `n` elements when each thread takes `per_thread` of them: on GPUs one
/// step of the loop covers everything (measured fastest for streaming kernels on the H200:
/// every load is issued at once); CPUs get few work-groups that loop.
pub fn launch_shape_unrolled(device: &Device, n: usize, per_thread: usize) -> ([u32; 3], [u32; 3]) {
    let info = device.info();
    if info.is_cpu {
        return launch_shape(device, n.div_ceil(per_thread.max(1)));
    }
    let block = 256.min(info.max_threads_per_block.max(1));
    let blocks = n
        .div_ceil(block * per_thread.max(1))
        .clamp(1, i32::MAX as usize);
    ([blocks as u32, 1, 1], [block as u32, 1, 1])
}
