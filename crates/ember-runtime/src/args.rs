//! Arguments of user-written kernels (RawKernel, SourceModule, OpenCL programs): checked
//! against what the API tells of the kernel's parameters before anything is launched.

use ember_core::dtype::Kind;
use ember_core::{DType, Error, Result};

use crate::backend::{BackendKind, Handle, KernelArg, KernelParams};
use crate::device::Function;

/// One argument as the caller gave it.
#[derive(Clone, Copy, Debug)]
pub enum LaunchArg {
    /// An ember array: its buffer, the byte offset of its first element, its device, and
    /// whether only ember orders work on its memory (`Array::is_private`).
    Array {
        handle: Handle,
        offset: usize,
        device: usize,
        private: bool,
    },
    /// A device address from outside ember (a `DeviceAllocation`, a CAI pointer).
    Pointer(u64),
    /// A null pointer (`None`).
    Null,
    /// A value of a dtype. `weak` marks a Python scalar, whose dtype (int64, float64) is a
    /// default rather than the caller's choice.
    Scalar {
        bytes: [u8; 16],
        dtype: DType,
        weak: bool,
    },
    /// OpenCL `__local` memory of this many bytes.
    Local(usize),
}

impl LaunchArg {
    /// A scalar argument: `value` as an element of `dtype`.
    pub fn of_scalar(value: ember_core::Scalar, dtype: DType, weak: bool) -> LaunchArg {
        let mut bytes = [0u8; 16];
        value.write_bytes(dtype, &mut bytes);
        LaunchArg::Scalar { bytes, dtype, weak }
    }

    /// A scalar argument from its little-endian bytes.
    pub fn scalar(value: &[u8], dtype: DType, weak: bool) -> LaunchArg {
        let mut bytes = [0u8; 16];
        let n = value.len().min(16);
        bytes[..n].copy_from_slice(&value[..n]);
        LaunchArg::Scalar { bytes, dtype, weak }
    }

    fn describe(&self) -> String {
        match self {
            LaunchArg::Array { .. } => "an array (a device pointer, 8 bytes)".into(),
            LaunchArg::Pointer(_) => "a device pointer (8 bytes)".into(),
            LaunchArg::Null => "None (a null pointer, 8 bytes)".into(),
            LaunchArg::Scalar { dtype, weak, .. } => {
                let origin = if *weak {
                    "a Python scalar passed as "
                } else {
                    ""
                };
                format!("{origin}{} ({} bytes)", dtype.name(), dtype.itemsize())
            }
            LaunchArg::Local(n) => format!("local memory of {n} bytes"),
        }
    }
}

const NULL: [u8; 8] = [0; 8];

/// Backend arguments of one launch, inline for the usual handful (no allocation per launch).
pub type KernelArgs<'a> = smallvec::SmallVec<[KernelArg<'a>; 12]>;

/// Checks `args` against `function`'s parameters and turns them into backend arguments in
/// `out` (filled in place: the inline buffer is large, so it is not returned by value).
pub fn kernel_args<'a>(
    function: &Function,
    args: &'a [LaunchArg],
    out: &mut KernelArgs<'a>,
) -> Result<()> {
    let device = function.device();
    let kind = device.kind();
    let name = function.name();
    let params = function.params();
    if let Some(KernelParams { count, .. }) = params {
        if *count != args.len() {
            return Err(Error::Type(format!(
                "kernel {name} takes {count} argument(s), but {} were given",
                args.len()
            )));
        }
    }
    let sizes = params.and_then(|p| p.sizes.as_deref());
    for (i, arg) in args.iter().enumerate() {
        let want = sizes.and_then(|s| s.get(i)).copied();
        out.push(one_arg(name, kind, device.info().ordinal, i, arg, want)?);
    }
    Ok(())
}

/// Whether a launch of a user's kernel with `args` (converted to `kargs`) may be queued
/// (`Device::launch_queued`): every array is ember's and private, and no argument can carry
/// another library's device address — no raw pointer, no integer of 8 bytes.
pub fn queueable(args: &[LaunchArg], kargs: &KernelArgs<'_>) -> bool {
    args.len() == kargs.len()
        && args.iter().zip(kargs).all(|(arg, karg)| match (arg, karg) {
            (LaunchArg::Array { private, .. }, _) => *private,
            (LaunchArg::Null, _) => true,
            (LaunchArg::Scalar { dtype, .. }, KernelArg::Bytes(b)) => {
                b.len() != 8 || !matches!(dtype.kind(), Kind::Int | Kind::UInt)
            }
            _ => false,
        })
}

fn one_arg<'a>(
    kernel: &str,
    kind: BackendKind,
    ordinal: usize,
    index: usize,
    arg: &'a LaunchArg,
    want: Option<usize>,
) -> Result<KernelArg<'a>> {
    let mismatch = |size: usize| {
        Error::Type(format!(
            "argument {index} of kernel {kernel} is {}, but the kernel's parameter {index} takes {size} bytes{}",
            arg.describe(),
            advice(arg, size)
        ))
    };
    let is_pointer = matches!(
        arg,
        LaunchArg::Array { .. } | LaunchArg::Pointer(_) | LaunchArg::Null
    );
    if let Some(size) = want {
        if is_pointer && size != 8 {
            return Err(mismatch(size));
        }
    }
    Ok(match *arg {
        LaunchArg::Array {
            handle,
            offset,
            device,
            ..
        } => {
            if device != ordinal {
                return Err(Error::Value(format!(
                    "argument {index} of kernel {kernel} is an array on device {device}, but the kernel runs on device {ordinal}; copy it there first"
                )));
            }
            match kind {
                BackendKind::Cuda => KernelArg::Buffer { handle, offset },
                BackendKind::OpenCl if offset == 0 => KernelArg::Memory(handle),
                BackendKind::OpenCl => {
                    return Err(Error::Value(format!(
                        "argument {index} of kernel {kernel} is a view starting {offset} bytes into its buffer; an OpenCL kernel takes whole buffers, so pass a copy (a.copy()) or the base array and an offset argument"
                    )))
                }
            }
        }
        LaunchArg::Pointer(address) => match kind {
            BackendKind::Cuda => KernelArg::Memory(address),
            BackendKind::OpenCl => {
                return Err(Error::Type(format!(
                    "argument {index} of kernel {kernel} is a raw device pointer, which an OpenCL kernel cannot take; pass an ember array or cl.Buffer"
                )))
            }
        },
        LaunchArg::Null => match kind {
            BackendKind::Cuda => KernelArg::Bytes(&NULL),
            BackendKind::OpenCl => KernelArg::Memory(0),
        },
        LaunchArg::Scalar {
            ref bytes,
            dtype,
            weak,
        } => {
            let have = dtype.itemsize();
            match want {
                Some(size) if size != have => {
                    // A Python int goes in as int64, as CuPy passes it; a smaller integer
                    // parameter takes its low bytes, which is the same number when it fits.
                    let fits = weak
                        && dtype == DType::I64
                        && size < 8
                        && fits_in(i64::from_le_bytes(bytes[..8].try_into().unwrap_or([0; 8])), size);
                    if !fits {
                        return Err(mismatch(size));
                    }
                    KernelArg::Bytes(&bytes[..size])
                }
                _ => KernelArg::Bytes(&bytes[..have]),
            }
        }
        LaunchArg::Local(n) => match kind {
            BackendKind::OpenCl => KernelArg::Local(n),
            BackendKind::Cuda => {
                return Err(Error::Type(format!(
                    "argument {index} of kernel {kernel} is OpenCL local memory; CUDA kernels get dynamic shared memory through shared_mem="
                )))
            }
        },
    })
}

fn fits_in(value: i64, bytes: usize) -> bool {
    let bits = 8 * bytes as u32;
    let min = -(1i64 << (bits - 1));
    let max = (1i64 << bits) - 1;
    (min..=max).contains(&value)
}

fn advice(arg: &LaunchArg, size: usize) -> String {
    let typed = match size {
        1 => "numpy.int8 or numpy.uint8",
        2 => "numpy.int16 or numpy.float16",
        4 => "numpy.int32 or numpy.float32",
        8 => "numpy.int64 or numpy.float64",
        _ => "a NumPy scalar of that size",
    };
    match arg {
        LaunchArg::Scalar { .. } => format!("; pass the value as {typed}"),
        _ => "; is the argument order right?".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_ints_fit_narrow_parameters() {
        assert!(fits_in(1000, 4));
        assert!(fits_in(-5, 1));
        assert!(!fits_in(1 << 40, 4));
        assert!(fits_in(255, 1), "an unsigned char parameter takes 255");
    }
}
