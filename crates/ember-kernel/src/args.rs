//! Arguments of user-written kernels (RawKernel, SourceModule, OpenCL programs): checked
//! against what the API tells of the kernel's parameters before anything is launched.

use ember_core::dtype::Kind;
use ember_core::{DType, Error, Result};

use ember_runtime::declared::CType;
use ember_runtime::{BackendKind, Function, Handle, KernelArg, KernelParams};

/// One argument as the caller gave it.
#[derive(Clone, Debug)]
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
    /// A value of a structured dtype (a C struct, an OpenCL vector such as `float4`): its
    /// bytes, passed by value.
    Struct(Vec<u8>),
    /// An OpenCL object passed by its handle: an image (`cl_mem`) or a sampler.
    Object(Handle),
    /// An OpenCL shared-virtual-memory address.
    Svm(u64),
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
            LaunchArg::Struct(bytes) => format!("a struct of {} bytes", bytes.len()),
            LaunchArg::Object(_) => "an OpenCL image or sampler".into(),
            LaunchArg::Svm(_) => "an SVM pointer (8 bytes)".into(),
        }
    }
}

const NULL: [u8; 8] = [0; 8];

/// Converts NumPy scalars to the parameter types the kernel's source declares, where the value
/// is kept (as PyCUDA and CuPy accept them): `numpy.int32(n)` for a `size_t` becomes 8 bytes,
/// `numpy.float32(x)` for a `double` a double. A value that would change is refused: a
/// negative number for an unsigned parameter (`OverflowError`), a narrower parameter or
/// another kind of number (`TypeError`). Python scalars keep their own rules (`one_arg`).
pub fn match_declared(function: &Function, args: &mut [LaunchArg]) -> Result<()> {
    let Some(declared) = function.declared() else {
        return Ok(());
    };
    if declared.len() != args.len() {
        return Ok(()); // the count is checked against what the driver says, in `kernel_args`
    }
    let sizes = function.params().and_then(|p| p.sizes.as_deref());
    for (index, (arg, ty)) in args.iter_mut().zip(declared).enumerate() {
        // Where the driver tells a size the source reading disagrees with (a `long` of 4
        // bytes, a preprocessor branch not taken), the driver is right: trust only the size.
        let size = sizes.and_then(|s| s.get(index)).copied();
        if size.is_some_and(|n| ty.size().is_some_and(|t| t != n)) {
            continue;
        }
        if *ty == CType::Pointer
            && matches!(arg, LaunchArg::Scalar { .. })
            && function.device().kind() == BackendKind::OpenCl
        {
            // An integer is an address only to CUDA: OpenCL would read the bytes as a pointer
            // into nowhere.
            return Err(Error::Type(format!(
                "argument {index} of kernel {} is a number, but the kernel's parameter {index} is a pointer; an OpenCL kernel takes buffers: pass an ember array (a view of it as a copy, or the base array and an offset argument)",
                function.name()
            )));
        }
        match *arg {
            LaunchArg::Scalar {
                bytes,
                dtype,
                weak: false,
            } => {
                if let Some(converted) = converted(function.name(), index, &bytes, dtype, ty)? {
                    *arg = converted;
                }
            }
            LaunchArg::Scalar {
                bytes,
                dtype,
                weak: true,
            } => {
                if let Some(converted) = python_int(function.name(), index, &bytes, dtype, ty)? {
                    *arg = converted;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// A NumPy scalar of `dtype` (its `bytes`) as parameter type `ty`; `None` where it goes as it is.
fn converted(
    kernel: &str,
    index: usize,
    bytes: &[u8; 16],
    dtype: DType,
    ty: &CType,
) -> Result<Option<LaunchArg>> {
    let have = dtype.itemsize();
    let value = scalar_of(dtype, bytes);
    let name = dtype.name();
    let refuse = |advice: String| {
        Error::Type(format!(
            "argument {index} of kernel {kernel} is numpy.{name}, but the kernel's parameter {index} is {}; {advice}",
            ty.describe()
        ))
    };
    match (dtype.kind(), *ty) {
        (
            Kind::Int | Kind::UInt,
            CType::Int {
                bytes: want,
                signed,
            },
        ) => {
            if want == have && (dtype.kind() == Kind::Int) == signed {
                return Ok(None);
            }
            let target = int_dtype(want, signed);
            if want < have {
                return Err(refuse(format!(
                    "pass numpy.{}(x): ember widens integers but never narrows them",
                    target.name()
                )));
            }
            let v = match value {
                ember_core::Scalar::Int(v) => v as i128,
                ember_core::Scalar::UInt(v) => v as i128,
                _ => return Ok(None),
            };
            fitting_int(
                v,
                target,
                || format!("argument {index} of kernel {kernel} is numpy.{name}({v})"),
                index,
                ty,
            )
            .map(Some)
        }
        (Kind::Float, CType::Float { bytes: want }) => {
            if want == have {
                return Ok(None);
            }
            let target = match want {
                2 => DType::F16,
                4 => DType::F32,
                _ => DType::F64,
            };
            if want < have {
                return Err(refuse(format!(
                    "pass numpy.{}(x): ember widens floats but never rounds them to a narrower type",
                    target.name()
                )));
            }
            Ok(Some(LaunchArg::of_scalar(value, target, false)))
        }
        (Kind::Int | Kind::UInt, CType::Float { bytes: want }) => {
            Err(refuse(format!("pass numpy.float{}(x)", want * 8)))
        }
        (
            Kind::Float,
            CType::Int {
                bytes: want,
                signed,
            },
        ) => Err(refuse(format!(
            "pass numpy.{}(x)",
            int_dtype(want, signed).name()
        ))),
        _ => Ok(None),
    }
}

/// A Python `int` (passed as int64) for an integer parameter of another size: CUDA reads the
/// low bytes of the 8 CuPy passes; OpenCL takes exactly the parameter's size. Both get the
/// value, checked to fit.
fn python_int(
    kernel: &str,
    index: usize,
    bytes: &[u8; 16],
    dtype: DType,
    ty: &CType,
) -> Result<Option<LaunchArg>> {
    let CType::Int {
        bytes: want,
        signed,
    } = *ty
    else {
        return Ok(None);
    };
    if dtype.kind() != Kind::Int || want == dtype.itemsize() {
        return Ok(None);
    }
    let ember_core::Scalar::Int(v) = scalar_of(dtype, bytes) else {
        return Ok(None);
    };
    fitting_int(
        v as i128,
        int_dtype(want, signed),
        || format!("argument {index} of kernel {kernel} is the Python int {v}"),
        index,
        ty,
    )
    .map(Some)
}

/// Integer `v` as parameter `index` of type `ty` (`target`), or `OverflowError` naming the
/// argument (`what`) and the range the parameter holds.
fn fitting_int(
    v: i128,
    target: DType,
    what: impl FnOnce() -> String,
    index: usize,
    ty: &CType,
) -> Result<LaunchArg> {
    let (lo, hi) = target.int_bounds().unwrap_or((i128::MIN, i128::MAX));
    if v < lo || v > hi {
        return Err(Error::Overflow(format!(
            "{}, which the kernel's parameter {index} ({}) cannot hold; pass a value in [{lo}, {hi}]",
            what(),
            ty.describe()
        )));
    }
    let s = if target.kind() == Kind::Int {
        ember_core::Scalar::Int(v as i64)
    } else {
        ember_core::Scalar::UInt(v as u64)
    };
    Ok(LaunchArg::of_scalar(s, target, false))
}

/// The value a NumPy scalar's little-endian `bytes` hold.
fn scalar_of(dtype: DType, bytes: &[u8; 16]) -> ember_core::Scalar {
    let n = dtype.itemsize();
    let mut wide = [0u8; 8];
    wide[..n.min(8)].copy_from_slice(&bytes[..n.min(8)]);
    match dtype.kind() {
        Kind::Int => {
            let shift = 64 - 8 * n.min(8) as u32;
            ember_core::Scalar::Int((i64::from_le_bytes(wide) << shift) >> shift)
        }
        Kind::UInt => ember_core::Scalar::UInt(u64::from_le_bytes(wide)),
        Kind::Float => ember_core::Scalar::Float(match n {
            2 => half::f16::from_bits(u16::from_le_bytes([wide[0], wide[1]])).to_f64(),
            4 => f32::from_le_bytes([wide[0], wide[1], wide[2], wide[3]]) as f64,
            _ => f64::from_le_bytes(wide),
        }),
        _ => ember_core::Scalar::Bool(wide[0] != 0),
    }
}

fn int_dtype(bytes: usize, signed: bool) -> DType {
    match (bytes, signed) {
        (1, true) => DType::I8,
        (1, false) => DType::U8,
        (2, true) => DType::I16,
        (2, false) => DType::U16,
        (4, true) => DType::I32,
        (4, false) => DType::U32,
        (_, true) => DType::I64,
        (_, false) => DType::U64,
    }
}

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
        LaunchArg::Array { .. } | LaunchArg::Pointer(_) | LaunchArg::Null | LaunchArg::Svm(_)
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
        LaunchArg::Struct(ref bytes) => match want {
            Some(size) if size != bytes.len() => return Err(mismatch(size)),
            _ => KernelArg::Bytes(bytes),
        },
        LaunchArg::Svm(address) => match kind {
            BackendKind::OpenCl => KernelArg::Svm(address),
            BackendKind::Cuda => {
                return Err(Error::Type(format!(
                    "argument {index} of kernel {kernel} is OpenCL shared virtual memory, which a CUDA kernel cannot take"
                )))
            }
        },
        LaunchArg::Object(handle) => match kind {
            BackendKind::OpenCl => KernelArg::Memory(handle),
            BackendKind::Cuda => {
                return Err(Error::Type(format!(
                    "argument {index} of kernel {kernel} is an OpenCL image or sampler, which a CUDA kernel cannot take"
                )))
            }
        },
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

    fn int_arg(v: i64, dtype: DType) -> [u8; 16] {
        match LaunchArg::of_scalar(ember_core::Scalar::Int(v), dtype, false) {
            LaunchArg::Scalar { bytes, .. } => bytes,
            _ => unreachable!(),
        }
    }

    const SIZE_T: CType = CType::Int {
        bytes: 8,
        signed: false,
    };

    #[test]
    fn int32_widens_to_size_t_when_it_keeps_its_value() {
        let got = converted("k", 2, &int_arg(1000, DType::I32), DType::I32, &SIZE_T).unwrap();
        match got {
            Some(LaunchArg::Scalar { bytes, dtype, .. }) => {
                assert_eq!(dtype, DType::U64);
                assert_eq!(u64::from_le_bytes(bytes[..8].try_into().unwrap()), 1000);
            }
            other => panic!("not widened: {other:?}"),
        }
        let negative = converted("k", 2, &int_arg(-3, DType::I32), DType::I32, &SIZE_T);
        assert!(matches!(negative, Err(Error::Overflow(m)) if m.contains("numpy.int32(-3)")));
        let signed = CType::Int {
            bytes: 8,
            signed: true,
        };
        match converted("k", 0, &int_arg(-3, DType::I16), DType::I16, &signed).unwrap() {
            Some(LaunchArg::Scalar { bytes, .. }) => {
                assert_eq!(i64::from_le_bytes(bytes[..8].try_into().unwrap()), -3)
            }
            other => panic!("not widened: {other:?}"),
        }
    }

    #[test]
    fn narrowing_and_kind_changes_are_refused() {
        let int = CType::Int {
            bytes: 4,
            signed: true,
        };
        let narrow = converted("k", 1, &int_arg(5, DType::I64), DType::I64, &int);
        assert!(matches!(narrow, Err(Error::Type(m)) if m.contains("pass numpy.int32(x)")));
        let float = CType::Float { bytes: 4 };
        let kind = converted("k", 1, &int_arg(5, DType::I32), DType::I32, &float);
        assert!(matches!(kind, Err(Error::Type(m)) if m.contains("pass numpy.float32(x)")));
        assert!(converted("k", 1, &int_arg(5, DType::I32), DType::I32, &int)
            .unwrap()
            .is_none());
    }

    #[test]
    fn small_ints_fit_narrow_parameters() {
        assert!(fits_in(1000, 4));
        assert!(fits_in(-5, 1));
        assert!(!fits_in(1 << 40, 4));
        assert!(fits_in(255, 1), "an unsigned char parameter takes 255");
    }
}
