//! CUDA C (RawKernel, RawModule, SourceModule) on any device: compiled by NVRTC on a CUDA
//! device, translated to OpenCL C by `ember-translate` on every other. The translated source is
//! what the module cache keys on, so a translation is compiled once per device like any source.

use std::sync::Arc;

use ember_core::{CompileFailure, Error, Result};
use ember_runtime::{BackendKind, Device, Function, Module};
use ember_translate::KernelName;

use crate::args::LaunchArg;
use crate::compile::{generated_program, Rounding};
use crate::dialect::dialect;

/// A module built from CUDA C, and (when translated) how its kernels are named in OpenCL C.
#[derive(Clone)]
pub struct CudaModule {
    pub module: Arc<Module>,
    /// `None`: compiled by NVRTC (CUDA's names are the module's).
    kernels: Option<Arc<[KernelName]>>,
    /// A translation's module variables (host-filled `__constant__`, `__device__`): name and
    /// initial bytes; buffers the caller keeps and passes after the arguments of the kernels
    /// that use them.
    constants: Arc<[(String, Vec<u8>)]>,
}

/// How a kernel takes the dynamic shared memory a launch asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DynamicShared {
    /// As asked (CUDA, and OpenCL C written by the user).
    AsAsked,
    /// A translated kernel declaring `extern __shared__` memory: a last `__local` argument,
    /// of at least one byte (OpenCL refuses an empty one).
    Parameter,
    /// A translated kernel without `extern __shared__` memory: it has no such argument.
    Unused,
}

impl DynamicShared {
    /// For a launch asking for `asked` bytes: the shared bytes to launch with, and the
    /// argument to append (a translated kernel's `__local` parameter).
    pub fn split(self, asked: u32) -> (u32, Option<LaunchArg>) {
        match self {
            DynamicShared::AsAsked => (asked, None),
            DynamicShared::Parameter => (0, Some(LaunchArg::Local(asked.max(1) as usize))),
            DynamicShared::Unused => (0, None),
        }
    }
}

impl CudaModule {
    /// A module not built from CUDA C (OpenCL C, a program binary): names are its own.
    pub fn plain(module: Arc<Module>) -> Self {
        CudaModule {
            module,
            kernels: None,
            constants: Arc::from([]),
        }
    }

    /// The module variables a translation keeps in buffers: name, initial bytes.
    pub fn constants(&self) -> &[(String, Vec<u8>)] {
        &self.constants
    }

    /// The `__constant__` buffers kernel `name` takes after its arguments, in order.
    pub fn kernel_constants(&self, name: &str) -> Vec<String> {
        self.kernels
            .as_ref()
            .and_then(|ks| ks.iter().find(|k| k.cuda == name))
            .map(|k| k.constants.clone())
            .unwrap_or_default()
    }

    /// The kernel CUDA calls `name` (a name or a name expression such as `fill<float>`), and
    /// how it takes dynamic shared memory.
    pub fn kernel(&self, name: &str) -> Result<(Function, DynamicShared)> {
        let Some(kernels) = &self.kernels else {
            return Ok((self.module.function(name)?, DynamicShared::AsAsked));
        };
        match kernels.iter().find(|k| k.cuda == name) {
            Some(k) => {
                let shared = if k.dynamic_shared {
                    DynamicShared::Parameter
                } else {
                    DynamicShared::Unused
                };
                Ok((self.module.function(&k.opencl)?, shared))
            }
            None => Err(Error::Value(format!(
                "the module has no kernel named {name:?}"
            ))),
        }
    }
}

/// Builds CUDA C `source` for `dev`: NVRTC on CUDA, translation to OpenCL C elsewhere.
pub fn cuda_module(
    dev: &'static Device,
    source: &str,
    name: &str,
    options: &[String],
    name_expressions: &[String],
) -> Result<CudaModule> {
    if dev.kind() == BackendKind::Cuda {
        return Ok(CudaModule::plain(dev.module_with_names(
            source,
            name,
            options,
            name_expressions,
        )?));
    }
    let (defines, cl_options, rounding) = opencl_options(options);
    let translated =
        ember_translate::translate(source, &defines, name_expressions).map_err(|e| {
            Error::Compile(Box::new(CompileFailure {
                backend: "CUDA C -> OpenCL C translation".into(),
                name: name.to_string(),
                options: options.to_vec(),
                log: format!("kernel.cu({}): error: {}", e.line, e.message),
                source: source.to_string(),
            }))
        })?;
    // Rounded as NVRTC rounds by default: float32 division and square root correctly rounded
    // (where the device can), products and sums contracted unless `--fmad=false`.
    let (text, cl_options) = generated_program(
        dialect(dev),
        &translated.source,
        &cl_options,
        rounding,
        dev.info().correctly_rounded_divide_sqrt,
    );
    let module = dev.module(&text, name, &cl_options).map_err(|e| match e {
        // The log's lines are the CUDA source's (the translation carries `#line`s).
        Error::Compile(mut c) => {
            c.log = format!(
                "{}\n\nThe OpenCL C ember translated the CUDA C to:\n{}",
                c.log, translated.source
            );
            c.source = source.to_string();
            c.backend = format!("{} (translated from CUDA C)", c.backend);
            Error::Compile(c)
        }
        other => other,
    })?;
    Ok(CudaModule {
        module,
        kernels: Some(translated.kernels.into()),
        constants: translated.constants.into(),
    })
}

/// NVRTC's options as the translation and OpenCL's compiler take them: `-D` definitions go
/// to the preprocessor, fast math to OpenCL's, `--fmad=false` to the rounding (no contraction),
/// the rest (`-std`, `-arch`, line info) mean nothing to OpenCL C.
fn opencl_options(options: &[String]) -> (Vec<(String, String)>, Vec<String>, Rounding) {
    let mut defines = Vec::new();
    let mut cl = Vec::new();
    let mut rounding = Rounding::Contracted;
    let mut it = options.iter();
    while let Some(o) = it.next() {
        let definition = if o == "-D" || o == "--define-macro" {
            it.next().cloned()
        } else {
            o.strip_prefix("-D")
                .or_else(|| o.strip_prefix("--define-macro="))
                .map(str::to_string)
        };
        if let Some(d) = definition {
            let (n, v) = d.split_once('=').unwrap_or((&d, "1"));
            defines.push((n.to_string(), v.to_string()));
        } else if matches!(o.as_str(), "--use_fast_math" | "-use_fast_math") {
            cl.push("-cl-fast-relaxed-math".to_string());
        } else if matches!(o.as_str(), "--fmad=false" | "-fmad=false") {
            rounding = Rounding::Separate;
        }
    }
    (defines, cl, rounding)
}

#[cfg(test)]
mod tests {
    use super::{opencl_options, Rounding};

    #[test]
    fn nvrtc_options_become_defines_and_fast_math() {
        let opts: Vec<String> = [
            "-DN=4",
            "-D",
            "FLAG",
            "--use_fast_math",
            "--fmad=false",
            "-std=c++17",
            "--define-macro=M=2",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let (defines, cl, rounding) = opencl_options(&opts);
        assert_eq!(
            defines,
            vec![
                ("N".to_string(), "4".to_string()),
                ("FLAG".to_string(), "1".to_string()),
                ("M".to_string(), "2".to_string())
            ]
        );
        assert_eq!(cl, vec!["-cl-fast-relaxed-math".to_string()]);
        assert_eq!(rounding, Rounding::Separate);
        assert_eq!(opencl_options(&[]).2, Rounding::Contracted);
    }
}
