//! A `@cuda.jit` kernel at run time: its specialisations by argument types and device, found
//! without re-typing on every launch, and the launch itself (arguments packed as the
//! generated C expects them).

use std::sync::{Arc, Mutex, OnceLock};

use ember_array::launch::{compile_generated, dialect};
use ember_array::Array;
use ember_codegen::types::param_dtype;
use ember_codegen::Dialect;
use ember_core::dtype::Kind;
use ember_core::{DType, Error, Result, Scalar};
use ember_runtime::{Device, Function, Handle, KernelArg};
use smallvec::SmallVec;

use crate::ast::Program;
use crate::compiler::{compile_kernel, ParamSlot};
use crate::types::{ArrayTy, Layout, Ty};

/// One launch argument.
pub enum JitArg<'a> {
    Array(&'a Array),
    /// A scalar and the dtype it arrived as (Python int -> int64, float -> float64, NumPy
    /// scalars keep theirs).
    Scalar(Scalar, DType),
}

impl JitArg<'_> {
    /// The type a lazily compiled kernel is specialised for.
    fn ty(&self) -> Ty {
        match self {
            JitArg::Array(a) => Ty::Array(ArrayTy::global(
                a.dtype(),
                a.ndim(),
                if a.is_c_contiguous() {
                    Layout::C
                } else {
                    Layout::A
                },
            )),
            JitArg::Scalar(_, d) => Ty::Scalar(*d),
        }
    }

    /// Whether this argument can be passed for a parameter of type `t` (explicit signatures:
    /// scalars convert, arrays must match dtype and rank, and be contiguous for `::1`).
    fn fits(&self, t: &Ty) -> bool {
        match (self, t) {
            (JitArg::Array(a), Ty::Array(p)) => {
                a.dtype() == p.dtype
                    && a.ndim() == p.ndim
                    && (p.layout == Layout::A || a.is_c_contiguous())
            }
            (JitArg::Scalar(_, d), Ty::Scalar(p)) => {
                d.kind() != Kind::Complex || p.kind() == Kind::Complex
            }
            _ => false,
        }
    }
}

/// A compiled specialisation on one device.
pub struct Compiled {
    pub types: Vec<Ty>,
    device: usize,
    function: Function,
    params: Vec<ParamSlot>,
    /// The generated C (for `inspect_source`-style introspection and errors).
    pub source: String,
}

/// How a launch is shaped.
#[derive(Clone, Copy, Debug)]
pub struct LaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    pub stream: Handle,
}

/// A kernel's compiled specialisations, and how to make more.
pub struct Dispatcher {
    name: String,
    program: OnceLock<Program>,
    options: Vec<String>,
    /// Explicit signatures (eager compilation): launches convert their arguments to one of
    /// them instead of specialising anew.
    signatures: Mutex<Vec<Vec<Ty>>>,
    compiled: Mutex<Vec<Arc<Compiled>>>,
}

impl Dispatcher {
    /// `fastmath` relaxes IEEE rules as Numba's `fastmath=True` does.
    pub fn new(name: &str, fastmath: bool) -> Dispatcher {
        Dispatcher {
            name: name.to_string(),
            program: OnceLock::new(),
            options: if fastmath {
                vec!["fastmath".into()]
            } else {
                Vec::new()
            },
            signatures: Mutex::new(Vec::new()),
            compiled: Mutex::new(Vec::new()),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The kernel's tree, read from `front` (the Python front's JSON) on first need.
    fn program(&self, front: &mut dyn FnMut() -> Result<String>) -> Result<&Program> {
        if let Some(p) = self.program.get() {
            return Ok(p);
        }
        let json = front()?;
        let parsed = Program::from_json(&json).map_err(Error::Jit)?;
        let _ = self.program.set(parsed);
        self.program
            .get()
            .ok_or_else(|| Error::Jit("kernel tree missing".into()))
    }

    /// Adds an explicit signature and compiles it for `device` now (Numba's eager mode).
    pub fn add_signature(
        &self,
        device: &'static Device,
        types: Vec<Ty>,
        front: &mut dyn FnMut() -> Result<String>,
    ) -> Result<Arc<Compiled>> {
        let compiled = self.compile(device, &types, front)?;
        lock(&self.signatures).push(types);
        Ok(compiled)
    }

    /// The generated C of each compiled specialisation, by its argument types.
    pub fn sources(&self) -> Vec<(String, String)> {
        lock(&self.compiled)
            .iter()
            .map(|c| {
                let items: Vec<String> = c.types.iter().map(Ty::to_string).collect();
                (format!("({})", items.join(", ")), c.source.clone())
            })
            .collect()
    }

    /// Whether launches are bound to explicit signatures.
    pub fn has_signatures(&self) -> bool {
        !lock(&self.signatures).is_empty()
    }

    /// The specialisation of `types` on `device`, compiled if new.
    pub fn compile(
        &self,
        device: &'static Device,
        types: &[Ty],
        front: &mut dyn FnMut() -> Result<String>,
    ) -> Result<Arc<Compiled>> {
        let ordinal = device.info().ordinal;
        if let Some(c) = lock(&self.compiled)
            .iter()
            .find(|c| c.device == ordinal && c.types == types)
        {
            return Ok(c.clone());
        }
        let program = self.program(front)?;
        let d = dialect(device);
        let kernel = compile_kernel(program, types, d)?;
        let options: Vec<String> = self
            .options
            .iter()
            .map(|o| match (o.as_str(), d) {
                ("fastmath", Dialect::Cuda) => "-use_fast_math".to_string(),
                ("fastmath", Dialect::OpenCl) => "-cl-fast-relaxed-math".to_string(),
                _ => o.clone(),
            })
            .collect();
        let function = compile_generated(device, &kernel.source, &kernel.name, &options)?;
        let compiled = Arc::new(Compiled {
            types: types.to_vec(),
            device: ordinal,
            function,
            params: kernel.params,
            source: kernel.source,
        });
        lock(&self.compiled).push(compiled.clone());
        Ok(compiled)
    }

    /// The specialisation these arguments launch, on `device`.
    fn find(
        &self,
        device: &'static Device,
        args: &[JitArg<'_>],
        front: &mut dyn FnMut() -> Result<String>,
    ) -> Result<Arc<Compiled>> {
        let ordinal = device.info().ordinal;
        let chosen = {
            let signatures = lock(&self.signatures);
            if signatures.is_empty() {
                None
            } else {
                let fits = signatures
                    .iter()
                    .find(|s| s.len() == args.len() && s.iter().zip(args).all(|(t, a)| a.fits(t)));
                match fits {
                    Some(types) => Some(types.clone()),
                    None => return Err(self.no_signature(&signatures, args)),
                }
            }
        };
        if let Some(types) = chosen {
            return self.compile(device, &types, front);
        }
        {
            let compiled = lock(&self.compiled);
            let hit = compiled.iter().find(|c| {
                c.device == ordinal
                    && c.types.len() == args.len()
                    && c.types.iter().zip(args).all(|(t, a)| same_type(a, t))
            });
            if let Some(c) = hit {
                return Ok(c.clone());
            }
        }
        let types: Vec<Ty> = args.iter().map(JitArg::ty).collect();
        self.compile(device, &types, front)
    }

    fn no_signature(&self, signatures: &[Vec<Ty>], args: &[JitArg<'_>]) -> Error {
        let given: Vec<String> = args.iter().map(|a| a.ty().to_string()).collect();
        let known: Vec<String> = signatures
            .iter()
            .map(|s| {
                let items: Vec<String> = s.iter().map(Ty::to_string).collect();
                format!("({})", items.join(", "))
            })
            .collect();
        Error::Type(format!(
            "no signature of kernel {} matches the arguments ({}); its signatures are {}",
            self.name,
            given.join(", "),
            known.join(", ")
        ))
    }

    /// Launches the kernel on `device` with `args`.
    pub fn launch(
        &self,
        device: &'static Device,
        args: &[JitArg<'_>],
        config: &LaunchConfig,
        front: &mut dyn FnMut() -> Result<String>,
    ) -> Result<()> {
        for (i, a) in args.iter().enumerate() {
            if let JitArg::Array(a) = a {
                if !std::ptr::eq(a.device(), device) {
                    return Err(Error::Value(format!(
                        "argument {i} of kernel {} is on device {} ({}), but the kernel runs on device {} ({}); copy it over first",
                        self.name,
                        a.device().info().ordinal,
                        a.device().info().name,
                        device.info().ordinal,
                        device.info().name
                    )));
                }
            }
        }
        let compiled = self.find(device, args, front)?;
        let mut blob: SmallVec<[u8; 512]> = SmallVec::new();
        // Byte ranges of the blob, per parameter slot, filled first so the kernel
        // arguments can borrow the finished blob.
        let mut ranges: SmallVec<[(usize, usize); 16]> = SmallVec::new();
        for slot in &compiled.params {
            let start = blob.len();
            match slot {
                ParamSlot::Array { arg, .. } => {
                    if let JitArg::Array(a) = &args[*arg] {
                        for &n in a.shape() {
                            blob.extend_from_slice(&(n as i64).to_le_bytes());
                        }
                        for &s in a.strides() {
                            blob.extend_from_slice(&(s as i64).to_le_bytes());
                        }
                    }
                }
                ParamSlot::Scalar { arg, dtype } => {
                    if let JitArg::Scalar(value, _) = &args[*arg] {
                        let mut bytes = [0u8; 16];
                        let d = param_dtype(*dtype);
                        let n = value.write_bytes(d, &mut bytes);
                        // Keep each value at its natural alignment within the blob.
                        while !blob.len().is_multiple_of(d.itemsize().clamp(1, 8)) {
                            blob.push(0);
                        }
                        let start = blob.len();
                        blob.extend_from_slice(&bytes[..n]);
                        ranges.push((start, blob.len()));
                        continue;
                    }
                }
                ParamSlot::DynamicShared => {
                    blob.extend_from_slice(&(config.shared_bytes as i64).to_le_bytes());
                }
            }
            ranges.push((start, blob.len()));
        }
        let mut kargs: SmallVec<[KernelArg<'_>; 16]> = SmallVec::new();
        for (slot, &(s, e)) in compiled.params.iter().zip(&ranges) {
            match slot {
                ParamSlot::Array { arg, ndim } => {
                    let JitArg::Array(a) = &args[*arg] else {
                        return Err(mismatch(&self.name, *arg));
                    };
                    kargs.push(a.kernel_arg());
                    if *ndim > 0 {
                        kargs.push(KernelArg::Bytes(&blob[s..e]));
                    }
                }
                ParamSlot::Scalar { arg, .. } => {
                    if !matches!(args[*arg], JitArg::Scalar(..)) {
                        return Err(mismatch(&self.name, *arg));
                    }
                    kargs.push(KernelArg::Bytes(&blob[s..e]));
                }
                ParamSlot::DynamicShared => {
                    kargs.push(KernelArg::Local(config.shared_bytes.max(1) as usize));
                    kargs.push(KernelArg::Bytes(&blob[s..e]));
                }
            }
        }
        // On OpenCL, dynamic shared memory is the kernel's own `__local` parameter (set above):
        // the runtime must not append another.
        let shared_bytes = match dialect(device) {
            Dialect::Cuda => config.shared_bytes,
            Dialect::OpenCl => 0,
        };
        device.launch(
            &compiled.function,
            config.grid,
            config.block,
            shared_bytes,
            config.stream,
            &kargs,
        )
    }
}

fn mismatch(name: &str, arg: usize) -> Error {
    Error::Type(format!(
        "argument {arg} of kernel {name} does not match the compiled signature (an array where a scalar was expected, or the reverse)"
    ))
}

/// Whether `a` has exactly type `t` (lazy specialisation: no conversion).
fn same_type(a: &JitArg<'_>, t: &Ty) -> bool {
    match (a, t) {
        (JitArg::Array(a), Ty::Array(p)) => {
            a.dtype() == p.dtype
                && a.ndim() == p.ndim
                && (p.layout == Layout::C) == a.is_c_contiguous()
        }
        (JitArg::Scalar(_, d), Ty::Scalar(p)) => d == p,
        _ => false,
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
