//! Generated source compiled as ember compiles it: the dialect's options for how floating-point
//! operations round, and NVRTC's minimal mode where the source allows it.

use ember_codegen::Dialect;
use ember_core::Result;
use ember_runtime::cuda::nvrtc;
use ember_runtime::{BackendKind, Device, Function};

use crate::dialect::dialect;

/// How a generated kernel's floating-point operations round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// Each operation rounded on its own, as NumPy rounds it, so results match NumPy's to
    /// the bit wherever NumPy's are exactly rounded (`i * step + start` is two roundings in
    /// NumPy; contracted into one multiply-add it differs in the last bit about half the
    /// time). ember's array operations, fusion and `ember.fuse`.
    Separate,
    /// The compiler's default, which may contract a product and a sum into one multiply-add:
    /// code the user wrote (`@jit` kernels, `ElementwiseKernel` snippets), compiled as Numba
    /// and CuPy compile it, and matrix products, which contract as BLAS does.
    Contracted,
}

/// The source and options ember builds generated `source` with on a device of `dialect`:
/// `options` and, for [`Rounding::Separate`], the dialect's way of turning contraction off
/// (a pragma first in the source, or options); float32 division and square root correctly
/// rounded where the device can (`correctly_rounded_divide_sqrt`) and the dialect needs asking
/// (as NVRTC's defaults have them), unless the options ask for fast math.
pub fn generated_program(
    dialect: Dialect,
    source: &str,
    options: &[String],
    rounding: Rounding,
    correctly_rounded_divide_sqrt: bool,
) -> (String, Vec<String>) {
    let table = dialect.table();
    let mut opts = options.to_vec();
    let mut text = String::new();
    if rounding == Rounding::Separate {
        if let Some(pragma) = table.separate_rounding_pragma {
            text.push_str(pragma);
            text.push('\n');
        }
        opts.extend(
            table
                .separate_rounding_options
                .iter()
                .map(|o| o.to_string()),
        );
    }
    text.push_str(source);
    if let Some(exact) = table.correctly_rounded_divide_sqrt_option {
        let fast = opts.iter().any(|o| o == table.fast_math_option);
        if correctly_rounded_divide_sqrt && !fast && !opts.iter().any(|o| o == exact) {
            opts.push(exact.to_string());
        }
    }
    (text, opts)
}

/// Compiles source ember generated (array operations, ElementwiseKernel, ReductionKernel,
/// @jit kernels) with `options`, rounding as `rounding` says ([`generated_program`]), and
/// returns kernel `name`. On CUDA it asks NVRTC for its minimal mode (no textures or device
/// runtime: about 10% faster to compile); a snippet that needs more is compiled again without
/// it.
pub fn compile_generated(
    device: &'static Device,
    source: &str,
    name: &str,
    options: &[String],
    rounding: Rounding,
) -> Result<Function> {
    let (source, mut opts) = generated_program(
        dialect(device),
        source,
        options,
        rounding,
        device.info().correctly_rounded_divide_sqrt,
    );
    let source = source.as_str();
    match device.kind() {
        BackendKind::OpenCl => {
            if !opts.iter().any(|o| o.starts_with("-cl-std")) {
                opts.push("-cl-std=CL1.2".into());
            }
        }
        BackendKind::Cuda => {
            let mut minimal = opts.clone();
            minimal.push("-minimal".into());
            match device.module(source, name, &minimal) {
                Ok(m) => return m.function(name),
                Err(ember_core::Error::Compile(_)) => {}
                Err(e) => return Err(e),
            }
        }
    }
    device.module(source, name, &opts)?.function(name)
}

/// What [`generated_device_code`] asks NVRTC for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceCode {
    /// PTX text.
    Ptx,
    /// LTO-IR (NVVM's link-time-optimisation form).
    LtoIr,
}

/// Generated CUDA C `source` compiled as [`compile_generated`] compiles it on a CUDA device
/// (contracted rounding, the same options, NVRTC's minimal mode where the source allows it),
/// but to PTX or LTO-IR for compute capability `cc` instead of a cubin: no device is needed.
/// `fastmath` and `optimize` are Numba's `fastmath` and `opt` (the dialect's options for
/// them); `relocatable` keeps functions no kernel calls (a device function compiled alone).
#[allow(clippy::too_many_arguments)]
pub fn generated_device_code(
    source: &str,
    name: &str,
    options: &[String],
    fastmath: bool,
    optimize: bool,
    cc: (u32, u32),
    relocatable: bool,
    output: DeviceCode,
) -> Result<Vec<u8>> {
    let table = Dialect::Cuda.table();
    let mut options = options.to_vec();
    if fastmath {
        options.push(table.fast_math_option.to_string());
    }
    if !optimize && !options.iter().any(|o| o == table.no_optimization_option) {
        options.push(table.no_optimization_option.to_string());
    }
    let (source, mut opts) =
        generated_program(Dialect::Cuda, source, &options, Rounding::Contracted, true);
    if relocatable && output == DeviceCode::Ptx {
        opts.push("-rdc=true".into());
    }
    let arch = format!("compute_{}{}", cc.0, cc.1);
    let run = |opts: &[String]| match output {
        DeviceCode::Ptx => nvrtc::compile_ptx(&source, name, &arch, opts).map(String::into_bytes),
        DeviceCode::LtoIr => nvrtc::compile_ltoir(&source, name, &arch, opts),
    };
    let mut minimal = opts.clone();
    minimal.push("-minimal".into());
    match run(&minimal) {
        Err(ember_core::Error::Compile(_)) => run(&opts),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "__kernel void k() {}";

    #[test]
    fn separate_rounding_turns_contraction_off_in_each_dialect() {
        let (cuda, opts) = generated_program(Dialect::Cuda, SRC, &[], Rounding::Separate, true);
        assert_eq!(
            cuda, SRC,
            "CUDA ignores FP_CONTRACT pragmas: an option does it"
        );
        assert_eq!(opts, ["-fmad=false"]);
        let (cl, opts) = generated_program(Dialect::OpenCl, SRC, &[], Rounding::Separate, false);
        assert_eq!(cl, format!("#pragma OPENCL FP_CONTRACT OFF\n{SRC}"));
        assert!(opts.is_empty(), "{opts:?}");
    }

    #[test]
    fn contracted_code_is_compiled_as_given() {
        for d in [Dialect::Cuda, Dialect::OpenCl] {
            let user = vec!["-DX=1".to_string()];
            let (src, opts) = generated_program(d, SRC, &user, Rounding::Contracted, false);
            assert_eq!((src.as_str(), opts), (SRC, user));
        }
    }

    #[test]
    fn opencl_divides_correctly_rounded_where_the_device_can_unless_fast() {
        let exact = "-cl-fp32-correctly-rounded-divide-sqrt";
        let (_, opts) = generated_program(Dialect::OpenCl, SRC, &[], Rounding::Contracted, true);
        assert_eq!(opts, [exact]);
        let fast = vec!["-cl-fast-relaxed-math".to_string()];
        let (_, opts) = generated_program(Dialect::OpenCl, SRC, &fast, Rounding::Separate, true);
        assert_eq!(opts, fast);
        let (_, opts) = generated_program(Dialect::Cuda, SRC, &[], Rounding::Contracted, true);
        assert!(
            opts.is_empty(),
            "NVRTC divides correctly rounded by default: {opts:?}"
        );
    }
}
