//! `a[mask]` and `nonzero(mask)` by stream compaction on the device (see
//! `ember_codegen::compact`). The count of selected elements is read on the host: it is the
//! result's shape.

use ember_codegen::compact::{compact_source, count_source, BLOCK, ITEMS};
use ember_core::{DType, Error, Result};
use ember_runtime::{current_stream, KernelArg};

use crate::array::Array;
use crate::reduction::cumsum;
use ember_kernel::{compile_generated, dialect, KernelMemo, Rounding};

/// The count kernel (`None`) and the compaction kernels (by value dtype, `Some(None)` for
/// indices), compiled once per device.
static KERNELS: KernelMemo<Option<Option<DType>>> = KernelMemo::new();

fn contiguous(a: &Array) -> Result<Array> {
    if a.is_c_contiguous() {
        Ok(a.clone())
    } else {
        a.copy()
    }
}

/// The elements of `values` where `mask` is true, in C order (a 1-d array); with no
/// `values`, the flat indices of the true elements (int64).
pub fn compact(mask: &Array, values: Option<&Array>) -> Result<Array> {
    if let Some(v) = values.filter(|v| v.dtype().is_opaque()) {
        // Opaque elements move as the numeric dtype of their size.
        let mover = v
            .dtype()
            .mover()
            .map_or_else(|| v.dtype().numeric("boolean indexing"), Ok)?;
        let moved = v.view(v.shape(), v.strides(), v.offset(), mover)?;
        let out = compact(mask, Some(&moved))?;
        return out.view(out.shape(), out.strides(), out.offset(), v.dtype());
    }
    if mask.dtype() != DType::Bool {
        return Err(Error::Type(format!(
            "a mask must be bool, got {}",
            mask.dtype()
        )));
    }
    if let Some(v) = values {
        if v.shape() != mask.shape() {
            return Err(Error::Index(format!(
                "boolean index of shape {:?} does not match the array's shape {:?}",
                mask.shape(),
                v.shape()
            )));
        }
    }
    let device = mask.device();
    let mask = contiguous(mask)?;
    let values = values.map(contiguous).transpose()?;
    let n = mask.size();
    let out_dtype = values.as_ref().map_or(DType::I64, Array::dtype);
    if n == 0 {
        return Array::empty(device, &[0], out_dtype);
    }
    let chunk = BLOCK * ITEMS;
    let groups = n.div_ceil(chunk);
    let d = dialect(device);
    let counts = Array::empty(device, &[groups], DType::I64)?;
    let n64 = (n as i64).to_le_bytes();
    let grid = [groups as u32, 1, 1];
    let block = [BLOCK as u32, 1, 1];
    let stream = current_stream(device);
    let count = KERNELS.get_or_compile(device, &None, || {
        compile_generated(
            device,
            &count_source(d),
            "ember_mask_count",
            &[],
            Rounding::Separate,
        )
    })?;
    device.launch(
        &count,
        grid,
        block,
        0,
        stream,
        &[
            mask.kernel_arg(),
            counts.kernel_arg(),
            KernelArg::Bytes(&n64),
        ],
    )?;
    let inclusive = cumsum(&counts, None, None, None)?;
    // The total is the result's length: read it (8 bytes).
    let last = inclusive.view(
        &[1],
        &[8],
        inclusive.offset() + (groups - 1) * 8,
        DType::I64,
    )?;
    let mut total = [0u8; 8];
    last.to_host(&mut total)?;
    let total = i64::from_le_bytes(total).max(0) as usize;
    let out = Array::empty(device, &[total], out_dtype)?;
    if total == 0 {
        return Ok(out);
    }
    let name = match values {
        Some(ref v) => format!("ember_compact_{}", v.dtype().name()),
        None => "ember_compact_indices".to_string(),
    };
    let which = values.as_ref().map(Array::dtype);
    let kernel = KERNELS.get_or_compile(device, &Some(which), || {
        compile_generated(
            device,
            &compact_source(d, which),
            &name,
            &[],
            Rounding::Separate,
        )
    })?;
    let mut args = vec![mask.kernel_arg()];
    if let Some(ref v) = values {
        args.push(v.kernel_arg());
    }
    args.extend([
        out.kernel_arg(),
        counts.kernel_arg(),
        inclusive.kernel_arg(),
        KernelArg::Bytes(&n64),
    ]);
    let read = std::iter::once(&mask).chain(values.as_ref());
    ember_kernel::note_bytes(read.chain([&out]).map(|a| a as &dyn ember_kernel::Operand));
    device.launch(&kernel, grid, block, 0, stream, &args)?;
    Ok(out)
}
