//! The common call made cheap: every input an array, all C-contiguous, of one shape, on one
//! device, without `out=` or `dtype=`. The loop and kernel found for such a call are kept per
//! thread, so a repeated call skips type resolution, broadcasting, layout planning and the
//! kernel table, and goes from its operands to the launch.

use std::cell::RefCell;

use ember_codegen::user_kernel::vector_loadable;
use ember_codegen::Cover;
use ember_core::{DType, Result};
use ember_runtime::{Device, Function};

use super::{deferred, loop_kernel, resolve, tables, OperandType, Ufunc};
use crate::array::Array;
use crate::user_kernel::map_plan::{self, MapPlan};

/// Calls remembered per thread (the most recent first).
const RECENT: usize = 8;

struct Entry {
    ufunc: usize,
    dtypes: [DType; 3],
    vector: bool,
    device: *const Device,
    found: &'static tables::Loop,
    function: Function,
}

thread_local! {
    static CALLS: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
}

/// `u` over `arrays` when the call has the common form (see the module's comment), else
/// `None` and the general path takes it. Its result, errors and deferral are the general
/// path's.
pub(super) fn apply(u: &'static Ufunc, arrays: &[&Array]) -> Result<Option<Array>> {
    if u.nout != 1 || arrays.len() != u.nin || arrays.len() > 3 {
        return Ok(None);
    }
    // Checked kernels are strided and read their fault record: the general path plans them.
    if ember_kernel::checked::checked()? {
        return Ok(None);
    }
    let first = arrays[0];
    let (device, shape) = (first.device(), first.shape());
    if !arrays
        .iter()
        .all(|a| std::ptr::eq(a.device(), device) && a.shape() == shape && a.is_c_contiguous())
    {
        return Ok(None);
    }
    let n: usize = shape.iter().product();
    if n == 0 {
        return Ok(None);
    }
    let cover = ember_kernel::cover(device);
    let vector = cover == Cover::GridStride
        && arrays
            .iter()
            .all(|a| vector_loadable(a.dtype()) && a.is_aligned(16));
    let mut dtypes = [DType::Bool; 3];
    for (slot, a) in dtypes.iter_mut().zip(arrays) {
        *slot = a.dtype();
    }
    let recent = CALLS.with(|calls| {
        let mut calls = calls.borrow_mut();
        let k = calls.iter().position(|e| {
            e.ufunc == u.id
                && e.dtypes == dtypes
                && e.vector == vector
                && std::ptr::eq(e.device, device)
        })?;
        // Most recent first: a loop of a few operations finds each at once.
        if k > 0 {
            let e = calls.remove(k);
            calls.insert(0, e);
        }
        Some((calls[0].found, calls[0].function.clone()))
    });
    let plan = MapPlan {
        loop_shape: Vec::new(),
        loop_strides: Vec::new(),
        vector,
        checked: false,
        cover,
    };
    let (found, function) = match recent {
        Some(hit) => hit,
        None => {
            let kinds: smallvec::SmallVec<[OperandType; 3]> = arrays
                .iter()
                .map(|a| OperandType::Strong(a.dtype()))
                .collect();
            let found = resolve::find_loop(u, &kinds, None)?;
            let input_types = arrays.iter().map(|a| Some(a.dtype()));
            let output_types = std::iter::once(found.1[0]);
            let function = loop_kernel(device, u, found, input_types, output_types, &plan)?;
            CALLS.with(|calls| {
                let mut calls = calls.borrow_mut();
                calls.truncate(RECENT - 1);
                calls.insert(
                    0,
                    Entry {
                        ufunc: u.id,
                        dtypes,
                        vector,
                        device,
                        found,
                        function: function.clone(),
                    },
                );
            });
            (found, function)
        }
    };
    if deferred::wants_arrays(u, arrays, n) {
        return Ok(None);
    }
    let out = Array::empty(device, shape, found.1[0])?;
    {
        let mut operands: smallvec::SmallVec<[&Array; 4]> = arrays.iter().copied().collect();
        operands.push(&out);
        map_plan::launch_flat(device, &function, n, &operands, &plan)?;
    }
    Ok(Some(out))
}
