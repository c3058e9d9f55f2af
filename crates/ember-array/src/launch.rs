//! Running generated kernels: one compiled function per (kernel spec, device), memoised so
//! that a repeated operation costs a hash lookup, not a code generation and a source hash.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Mutex, OnceLock};

use ember_codegen::{Dialect, MapKernel};
use ember_core::Result;
use ember_runtime::{current_stream, BackendKind, Device, Function, KernelArg};

use crate::array::Array;

/// Launches one of ember's generated kernels on the current stream; `arrays` is all the
/// memory it touches. When none of it is visible outside ember, a burst of such launches may
/// be issued from the backend's launch thread (`Device::launch_queued`).
pub fn launch_generated<'a>(
    device: &'static Device,
    function: &Function,
    grid: [u32; 3],
    block: [u32; 3],
    arrays: impl IntoIterator<Item = &'a Array>,
    args: &[KernelArg<'_>],
) -> Result<()> {
    let stream = current_stream(device);
    if arrays.into_iter().all(Array::is_private) {
        device.launch_queued(function, grid, block, 0, stream, args)
    } else {
        device.launch(function, grid, block, 0, stream, args)
    }
}

/// Compiled kernels by spec, then device: keyed by the spec alone so a lookup borrows it
/// (the spec is cloned only when a kernel is first compiled).
pub struct KernelMemo<K>(OnceLock<Mutex<PerSpec<K>>>);

/// Spec -> (device, function) pairs.
type PerSpec<K> = HashMap<K, Vec<(usize, Function)>, rustc_hash::FxBuildHasher>;

impl<K: Hash + Eq + Clone> KernelMemo<K> {
    pub const fn new() -> Self {
        KernelMemo(OnceLock::new())
    }

    /// The function for `key` on `device`, compiled by `build` the first time.
    pub fn get_or_compile(
        &self,
        device: &'static Device,
        key: &K,
        build: impl FnOnce() -> Result<Function>,
    ) -> Result<Function> {
        let map = self.0.get_or_init(|| Mutex::new(HashMap::default()));
        let device_key = device as *const Device as usize;
        let found = map
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .and_then(|per_device| {
                per_device
                    .iter()
                    .find(|(d, _)| *d == device_key)
                    .map(|(_, f)| f.clone())
            });
        if let Some(f) = found {
            return Ok(f);
        }
        let f = build()?;
        map.lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key.clone())
            .or_default()
            .push((device_key, f.clone()));
        Ok(f)
    }
}

impl<K: Hash + Eq + Clone> Default for KernelMemo<K> {
    fn default() -> Self {
        Self::new()
    }
}

/// The dialect a device's generated code is written in.
pub fn dialect(device: &Device) -> Dialect {
    match device.kind() {
        BackendKind::Cuda => Dialect::Cuda,
        BackendKind::OpenCl => Dialect::OpenCl,
    }
}

/// The compiled function for `spec` on `device`.
pub fn function(device: &'static Device, spec: &MapKernel) -> Result<Function> {
    static MEMO: KernelMemo<MapKernel> = KernelMemo::new();
    MEMO.get_or_compile(device, spec, || {
        compile_generated(
            device,
            &spec.source(dialect(device)),
            &spec.name,
            &[],
            Rounding::Separate,
        )
    })
}

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

/// Runs `spec` over `operands` (inputs then outputs, all of one shape), with `scalars` (bytes
/// in each scalar's parameter type).
pub fn run_map(
    spec: &MapKernel,
    operands: &[&Array],
    scalars: &[Vec<u8>],
    shape: &[usize],
) -> Result<()> {
    let n: usize = shape.iter().product();
    let Some(first) = operands.first() else {
        return Ok(());
    };
    if n == 0 {
        return Ok(());
    }
    let device = first.device();
    let function = function(device, spec)?;
    let n64 = (n as i64).to_le_bytes();
    let mut extents: Vec<[u8; 8]> = Vec::new();
    let mut strides: Vec<[u8; 8]> = Vec::new();
    let strided = spec.ndim > 0 && spec.inputs.iter().chain(&spec.outputs).any(|o| o.strided);
    if strided {
        extents.extend(shape.iter().map(|&d| (d as i64).to_le_bytes()));
        for (op, arr) in spec.inputs.iter().chain(&spec.outputs).zip(operands) {
            if op.strided {
                strides.extend(arr.strides().iter().map(|&s| (s as i64).to_le_bytes()));
            }
        }
    }
    let mut args: Vec<KernelArg<'_>> =
        Vec::with_capacity(operands.len() + scalars.len() + 1 + extents.len() + strides.len());
    args.extend(operands.iter().map(|a| a.kernel_arg()));
    args.extend(scalars.iter().map(|s| KernelArg::Bytes(s)));
    args.push(KernelArg::Bytes(&n64));
    args.extend(extents.iter().map(|b| KernelArg::Bytes(b)));
    args.extend(strides.iter().map(|b| KernelArg::Bytes(b)));
    let (grid, block) = launch_shape(device, n);
    device.launch(&function, grid, block, 0, current_stream(device), &args)
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
