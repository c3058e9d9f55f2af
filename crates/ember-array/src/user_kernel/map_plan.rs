//! How a map kernel (ElementwiseKernel, ufuncs) covers its loop: the layout it is compiled
//! for (vector loads, flat, or strided over collapsed axes) and the arguments of a launch.

use ember_codegen::user_kernel::{flat_per_thread, vector_loadable, VECTOR};
use ember_codegen::{Cover, Param, Role};
use ember_core::shape::{broadcast_strides, c_strides, collapse_axes};
use ember_core::Result;
use ember_runtime::{current_stream, Device, Function, KernelArg};

use crate::array::Array;
use ember_kernel::{launch_generated, launch_shape_covering, launch_shape_unrolled};

use ember_kernel::checked::{launch_checked, Fault};
use ember_kernel::ScalarBytes;

/// The error for a fault a checked map launch recorded at site `k` (binding `k`): an
/// element-wise operand outside its buffer, or a raw array indexed past its size.
fn out_of_bounds(
    function: &Function,
    bindings: &[Binding],
    operand: &dyn Fn(usize) -> String,
    f: &Fault,
) -> ember_core::Error {
    let k = f.site as usize;
    let text = match bindings.get(k) {
        Some(Binding::Raw(_)) => format!(
            "index {} is out of bounds for raw {} with size {}",
            f.index,
            operand(k),
            f.extent
        ),
        _ => format!(
            "an element of {} starts at byte {} of its {}-byte buffer, outside it (a view whose strides reach past its memory)",
            operand(k),
            f.index,
            f.extent
        ),
    };
    ember_core::Error::OutOfBounds(format!(
        "kernel {}: {text}, at {}; found by checked mode (the access did not touch memory outside its array)",
        function.name(),
        f.place()
    ))
}

/// What a kernel parameter is bound to for one launch, in parameter order.
pub enum Binding<'a> {
    /// An input or output array (broadcast to the loop shape).
    Array(&'a Array),
    /// A C-contiguous array the snippet indexes itself.
    Raw(Array),
    /// A value, already as the parameter's bytes.
    Scalar(ScalarBytes),
}

impl Binding<'_> {
    fn elementwise(&self) -> Option<&Array> {
        match self {
            Binding::Array(a) => Some(a),
            _ => None,
        }
    }
}

/// Who wrote a kernel's body. A user's C snippet (`ElementwiseKernel`) may make a pointer
/// of a scalar argument, so its launches are never queued (`launch_generated`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Body {
    Generated,
    UserSnippet,
}

/// The layout a launch is compiled for.
pub struct MapPlan {
    /// Collapsed loop axes; empty when every array is C-contiguous in the loop shape.
    pub loop_shape: Vec<usize>,
    /// Each element-wise array's byte strides over `loop_shape`.
    pub loop_strides: Vec<Vec<isize>>,
    /// Contiguous inputs read with vector loads.
    pub vector: bool,
    /// Checked mode (`ember_kernel::checked`): the kernel checks each element's place, and
    /// is always strided (`loop_shape` has an axis at least).
    pub checked: bool,
    /// How the launch's work-items cover the loop (the device's way, [`ember_kernel::cover`]).
    pub cover: Cover,
}

impl MapPlan {
    /// The same layout without vector loads (strided groups back to elements).
    pub fn ungroup(&mut self) {
        if self.vector {
            if let Some(inner) = self.loop_shape.len().checked_sub(1) {
                self.loop_shape[inner] *= VECTOR;
                for strides in &mut self.loop_strides {
                    strides[inner] /= VECTOR as isize;
                }
            }
        }
        self.vector = false;
    }
}

/// The layout for `bindings` over a loop of `shape`.
pub fn plan(shape: &[usize], params: &[Param], bindings: &[Binding]) -> MapPlan {
    let roles: smallvec::SmallVec<[Role; 8]> = params.iter().map(|p| p.role).collect();
    plan_roles(shape, &roles, bindings)
}

/// [`plan`] from the parameters' roles alone.
pub fn plan_roles(shape: &[usize], roles: &[Role], bindings: &[Binding]) -> MapPlan {
    let checked = ember_kernel::checked::checked().unwrap_or(false);
    let cover = bindings
        .iter()
        .find_map(Binding::elementwise)
        .map_or(Cover::GridStride, |a| ember_kernel::cover(a.device()));
    // Vector loads are a GPU form: on CPU devices PoCL vectorises across work-items, and a
    // work-item's own vector loads turn its loads into gathers (an add of 2^24 float32 at
    // 26 GB/s with them, 46 without).
    let vectors = cover == Cover::GridStride;
    // The common case, checked without building stride lists: every array C-contiguous in
    // the full loop shape.
    let all_flat = bindings
        .iter()
        .filter_map(Binding::elementwise)
        .all(|a| a.shape() == shape && a.is_c_contiguous());
    if all_flat && !checked {
        let vector = vectors
            && roles.iter().zip(bindings).all(|(r, b)| match (r, b) {
                (Role::Input, Binding::Array(a)) => vector_loadable(a.dtype()) && a.is_aligned(16),
                _ => true,
            });
        return MapPlan {
            loop_shape: Vec::new(),
            loop_strides: Vec::new(),
            vector,
            checked,
            cover,
        };
    }
    let strides: Vec<Vec<isize>> = bindings
        .iter()
        .filter_map(Binding::elementwise)
        .map(|a| broadcast_strides(a.shape(), a.strides(), shape))
        .collect();
    let flat = bindings
        .iter()
        .filter_map(Binding::elementwise)
        .zip(&strides)
        .all(|(a, s)| *s == c_strides(shape, a.dtype().itemsize()));
    if flat && !checked {
        // Vector loads need every input readable 16 bytes at a time.
        let vector = vectors
            && roles.iter().zip(bindings).all(|(r, b)| match (r, b) {
                (Role::Input, Binding::Array(a)) => vector_loadable(a.dtype()) && a.is_aligned(16),
                _ => true,
            });
        return MapPlan {
            loop_shape: Vec::new(),
            loop_strides: Vec::new(),
            vector,
            checked,
            cover,
        };
    }
    let (sh, st) = collapse_axes(shape, &strides);
    if sh.is_empty() {
        let zeros = st.iter().map(|_| vec![0]).collect();
        return MapPlan {
            loop_shape: vec![1],
            loop_strides: zeros,
            vector: false,
            checked,
            cover,
        };
    }
    let mut plan = MapPlan {
        loop_shape: sh,
        loop_strides: st,
        vector: false,
        checked,
        cover,
    };
    if !checked && vectors {
        group_innermost(&mut plan, roles, bindings);
    }
    plan
}

/// Makes a strided `plan` take [`VECTOR`] consecutive elements of its innermost axis a
/// thread, with vector loads, where every array allows: contiguous along that axis, its
/// extent a multiple of [`VECTOR`], every group 16-byte aligned, inputs of a vector-loadable
/// dtype. The innermost extent and strides become counts of groups.
fn group_innermost(plan: &mut MapPlan, roles: &[Role], bindings: &[Binding]) {
    let Some(inner) = plan.loop_shape.len().checked_sub(1) else {
        return;
    };
    if !plan.loop_shape[inner].is_multiple_of(VECTOR) {
        return;
    }
    let arrays = roles
        .iter()
        .zip(bindings)
        .filter_map(|(r, b)| b.elementwise().map(|a| (r, a)));
    let fits = arrays.zip(&plan.loop_strides).all(|((role, a), strides)| {
        let size = a.dtype().itemsize() as isize;
        (*role != Role::Input || vector_loadable(a.dtype()))
            && strides[inner] == size
            && a.is_aligned(16)
            && strides[..inner].iter().all(|s| s % 16 == 0)
    });
    if fits {
        plan.loop_shape[inner] /= VECTOR;
        for strides in &mut plan.loop_strides {
            strides[inner] *= VECTOR as isize;
        }
        plan.vector = true;
    }
}

/// Launches `function`, compiled for a flat layout (`vector` or not) whose parameters are all
/// arrays, over `n` elements of `arrays` (inputs then outputs, all C-contiguous): the short
/// form of [`launch`] for the ufuncs' common call.
pub fn launch_flat(
    device: &'static Device,
    function: &Function,
    n: usize,
    arrays: &[&Array],
    plan: &MapPlan,
) -> Result<()> {
    let n64 = (n as i64).to_le_bytes();
    let mut kargs: smallvec::SmallVec<[KernelArg<'_>; 5]> =
        arrays.iter().map(|a| a.kernel_arg()).collect();
    kargs.push(KernelArg::Bytes(&n64));
    let (grid, block) = flat_shape(device, n, plan);
    launch_generated(
        device,
        function,
        grid,
        block,
        arrays.iter().copied(),
        &kargs,
    )
}

/// Grid and block of a flat layout: each thread takes [`flat_per_thread`] elements a step.
fn flat_shape(device: &Device, n: usize, plan: &MapPlan) -> ([u32; 3], [u32; 3]) {
    let per_thread = flat_per_thread(plan.vector, plan.cover);
    match plan.cover {
        Cover::GridStride => launch_shape_unrolled(device, n, per_thread),
        Cover::OnePerItem => launch_shape_covering(device, n.div_ceil(per_thread), plan.cover),
    }
}

/// Launches `function` (compiled for `plan`) over `n` elements. A checked launch that finds
/// an element outside its buffer raises, naming binding `k` as `operand(k)` says.
pub fn launch(
    device: &'static Device,
    function: &Function,
    n: usize,
    bindings: &[Binding],
    plan: &MapPlan,
    body: Body,
    operand: &dyn Fn(usize) -> String,
) -> Result<()> {
    let n64 = (n as i64).to_le_bytes();
    let extents: Vec<[u8; 8]> = plan
        .loop_shape
        .iter()
        .map(|&d| (d as i64).to_le_bytes())
        .collect();
    let strides: Vec<[u8; 8]> = plan
        .loop_strides
        .iter()
        .flatten()
        .map(|&s| (s as i64).to_le_bytes())
        .collect();
    let sizes: smallvec::SmallVec<[[u8; 8]; 8]> = bindings
        .iter()
        .map(|b| match b {
            Binding::Raw(a) => (a.size() as i64).to_le_bytes(),
            _ => [0; 8],
        })
        .collect();
    // Checked mode: the byte offsets, from each array's first element, at which an element
    // may start inside its buffer.
    let bounds: Vec<[u8; 8]> = match plan.checked {
        false => Vec::new(),
        true => bindings
            .iter()
            .filter_map(Binding::elementwise)
            .flat_map(|a| {
                let before = -(a.offset() as i64);
                let last = (a.buffer().len() - a.offset()) as i64 - a.dtype().itemsize() as i64;
                [before.to_le_bytes(), last.to_le_bytes()]
            })
            .collect(),
    };
    let mut kargs: smallvec::SmallVec<[KernelArg<'_>; 16]> = smallvec::SmallVec::new();
    for (b, size) in bindings.iter().zip(&sizes) {
        match b {
            Binding::Array(a) => kargs.push(a.kernel_arg()),
            Binding::Raw(a) => {
                kargs.push(a.kernel_arg());
                kargs.push(KernelArg::Bytes(size));
            }
            Binding::Scalar(bytes) => kargs.push(KernelArg::Bytes(bytes)),
        }
    }
    kargs.push(KernelArg::Bytes(&n64));
    kargs.extend(extents.iter().map(|b| KernelArg::Bytes(b)));
    kargs.extend(strides.iter().map(|b| KernelArg::Bytes(b)));
    let (grid, block) = match (plan.loop_shape.is_empty(), plan.vector) {
        (true, _) => flat_shape(device, n, plan),
        (false, true) => launch_shape_covering(device, n / VECTOR, plan.cover),
        (false, false) => launch_shape_covering(device, n, plan.cover),
    };
    if body == Body::UserSnippet || plan.checked {
        ember_kernel::note_bytes(bindings.iter().filter_map(|b| match b {
            Binding::Array(a) => Some(*a as &dyn ember_kernel::Operand),
            Binding::Raw(a) => Some(a as &dyn ember_kernel::Operand),
            Binding::Scalar(_) => None,
        }));
    }
    if plan.checked {
        kargs.extend(bounds.iter().map(|b| KernelArg::Bytes(b)));
        let stream = current_stream(device);
        let fault = launch_checked(device, stream, |record| {
            kargs.push(record);
            device.launch(function, grid, block, 0, stream, &kargs)
        })?;
        return match fault {
            None => Ok(()),
            Some(f) => Err(out_of_bounds(function, bindings, operand, &f)),
        };
    }
    if body == Body::UserSnippet {
        return device.launch(function, grid, block, 0, current_stream(device), &kargs);
    }
    let arrays = bindings.iter().filter_map(|b| match b {
        Binding::Array(a) => Some(*a),
        Binding::Raw(a) => Some(a),
        Binding::Scalar(_) => None,
    });
    launch_generated(device, function, grid, block, arrays, &kargs)
}
