//! CuPy's kernels from C snippets: `ElementwiseKernel` and `ReductionKernel`. ember writes
//! the kernel around the snippet in the device's dialect, so both run on CUDA and OpenCL.

pub mod elementwise;
pub mod map_plan;
pub mod params;
pub mod reduction;

use ember_codegen::{UserMap, UserReduce};
use ember_core::{DType, Error, Result, Scalar};
use ember_runtime::{Device, Function};

use crate::array::Array;
use ember_kernel::{compile_generated, dialect, scalar_param, KernelMemo, Rounding, ScalarBytes};

pub use elementwise::ElementwiseKernel;
pub use params::{parse_params, ParamSpec, ParamType};
pub use reduction::ReductionKernel;

/// A call argument of a user kernel.
#[derive(Clone, Debug)]
pub enum UserArg {
    Array(Array),
    /// A host value; `dtype` is set for NumPy scalars (Python scalars have none).
    Scalar(Scalar, Option<DType>),
}

impl UserArg {
    fn array(&self) -> Option<&Array> {
        match self {
            UserArg::Array(a) => Some(a),
            UserArg::Scalar(..) => None,
        }
    }
}

/// What a user kernel compiles into, per instance.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Spec {
    Map(UserMap),
    Reduce(UserReduce),
}

/// Compiled instances of one user kernel: (spec, device) -> function.
#[derive(Default)]
struct Instances(KernelMemo<Spec>);

impl Instances {
    fn get(
        &self,
        device: &'static Device,
        spec: Spec,
        options: &[String],
        rounding: Rounding,
    ) -> Result<Function> {
        self.0.get_or_compile(device, &spec, || {
            let d = dialect(device);
            // OpenCL C has builtins such as `mad` and `clamp` that a kernel may not be named
            // after: prefix the symbol there.
            let symbol = |name: &str| format!("{}{name}", d.table().user_symbol_prefix);
            let (source, name) = match &spec {
                Spec::Map(m) => {
                    let mut m = m.clone();
                    m.common.name = symbol(&m.common.name);
                    (m.source(d), m.common.name)
                }
                Spec::Reduce(r) => {
                    let mut r = r.clone();
                    r.common.name = symbol(&r.common.name);
                    (r.source(d), r.common.name)
                }
            };
            compile_generated(device, &source, &name, options, rounding)
        })
    }
}

/// The kernel name CuPy allows.
fn check_kernel_name(name: &str) -> Result<()> {
    let mut chars = name.chars();
    let ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(ember_core::Error::Value(format!(
            "Invalid kernel name: \"{name}\""
        )))
    }
}

/// A scalar argument's bytes as kernel parameter `name` of `dtype` ([`scalar_param`]: a
/// Python scalar must fit, a NumPy scalar (`numpy` is its dtype) converts as `astype` does).
fn scalar_bytes(
    name: &str,
    value: Scalar,
    numpy: Option<DType>,
    dtype: DType,
) -> Result<ScalarBytes> {
    let python = numpy.is_none().then(|| value.kind());
    scalar_param(value, python, dtype).map_err(|e| match e {
        Error::Overflow(m) => Error::Overflow(format!("{m} (parameter '{name}')")),
        Error::Value(m) => Error::Value(format!("{m} (parameter '{name}')")),
        other => other,
    })
}
