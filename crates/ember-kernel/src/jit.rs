//! A `@cuda.jit` kernel at run time: its specialisations by argument types and device, found
//! without re-typing on every launch, and the launch itself (arguments packed as the
//! generated C expects them).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use ember_codegen::types::param_dtype;
use ember_core::dtype::Kind;
use ember_core::{DType, Error, Result, Scalar};
use ember_runtime::{Device, Function, FunctionAttribute, Handle, KernelArg};
use smallvec::SmallVec;

use ember_jit::coarsen::{Opportunities, Plan};
use ember_jit::compiler::{compile_kernel_checked, compile_kernel_coarse, ParamSlot, Raised, Site};
use ember_jit::types::{ArrayTy, Layout, RecordTy, Space, Ty};
use ember_jit::Program;

use crate::checked::{launch_checked, Fault};
use crate::compile::{compile_generated, Rounding};
use crate::dialect::dialect;
use crate::launch::Operand;
use crate::scalars::param_bytes;

/// One launch argument.
pub enum JitArg<'a> {
    Array(&'a dyn Operand),
    /// A scalar and the dtype it arrived as (Python int -> int64, float -> float64, NumPy
    /// scalars keep theirs).
    Scalar(Scalar, DType),
    /// A tuple of scalars, arrays or such tuples (Numba passes tuples by value): its type, its
    /// scalars in order (depth first), each passed as `Scalar`'s, and its arrays in order, each
    /// passed as `Array`'s. A namedtuple also has its field names.
    Tuple(
        &'a Ty,
        &'a [(Scalar, DType)],
        &'a [&'a dyn Operand],
        Option<&'a [String]>,
    ),
    /// A record (a NumPy structured scalar), copied to the device: one element of its
    /// structured dtype, passed by reference (Numba's record arguments).
    Record(&'a dyn Operand),
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
            JitArg::Tuple(t, ..) => (*t).clone(),
            JitArg::Record(r) => Ty::Record(RecordTy::element(r.dtype(), Space::Global)),
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
            (JitArg::Scalar(_, d), Ty::Scalar(p)) => scalar_fits(*d, *p),
            (JitArg::Tuple(a, ..), p) => tuple_fits(a, p),
            (JitArg::Record(r), Ty::Record(p)) => r.dtype() == p.dtype,
            _ => false,
        }
    }

    /// Whether this argument is an integer array that a kernel of one signature takes in place
    /// of the signature's integer dtype of the same width (`uint32` data for `int32[:]`): Numba
    /// binds such a kernel to its signature and passes the memory as it is, reinterpreted.
    /// Other dtype mismatches stay errors (a float read as an int is never what was meant).
    fn reinterprets(&self, t: &Ty) -> bool {
        let integer = |d: DType| matches!(d.kind(), Kind::Int | Kind::UInt);
        match (self, t) {
            (JitArg::Array(a), Ty::Array(p)) => {
                integer(a.dtype())
                    && integer(p.dtype)
                    && a.dtype().itemsize() == p.dtype.itemsize()
                    && a.ndim() == p.ndim
                    && (p.layout == Layout::A || a.is_c_contiguous())
            }
            _ => self.fits(t),
        }
    }
}

/// Whether a scalar of dtype `d` converts to a parameter of dtype `p` (not complex to real;
/// a datetime64/timedelta64 only to its own type, as Numba converts them).
fn scalar_fits(d: DType, p: DType) -> bool {
    if d.datetime().is_some() || p.datetime().is_some() {
        return d == p;
    }
    d.kind() != Kind::Complex || p.kind() == Kind::Complex
}

/// The field names of namedtuple arguments, by argument (empty when there is none: no
/// allocation for other launches).
fn arg_fields(args: &[JitArg<'_>]) -> Vec<Option<Vec<String>>> {
    if !args
        .iter()
        .any(|a| matches!(a, JitArg::Tuple(_, _, _, Some(_))))
    {
        return Vec::new();
    }
    args.iter()
        .map(|a| match a {
            JitArg::Tuple(_, _, _, Some(names)) => Some(names.to_vec()),
            _ => None,
        })
        .collect()
}

/// Whether a tuple of type `a` converts to a parameter of type `p`, item by item.
fn tuple_fits(a: &Ty, p: &Ty) -> bool {
    match (a, p) {
        (Ty::Scalar(d), Ty::Scalar(p)) => scalar_fits(*d, *p),
        (Ty::Array(a), Ty::Array(p)) => {
            a.dtype == p.dtype
                && a.ndim == p.ndim
                && (p.layout == Layout::A || a.layout == Layout::C)
        }
        (Ty::Tuple(x), Ty::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, p)| tuple_fits(a, p))
        }
        _ => false,
    }
}

/// A compiled specialisation on one device.
pub struct Compiled {
    pub types: Vec<Ty>,
    /// Namedtuple arguments' field names (empty where there is none): part of the key.
    fields: Vec<Option<Vec<String>>>,
    /// The coarsening asked for (the key), and the one the kernel has (`None` where the
    /// rewrite was not sound): launches shrink the block by the latter.
    asked: Option<Plan>,
    coarse: Option<Plan>,
    device: usize,
    function: Function,
    params: Vec<ParamSlot>,
    /// Compiled with index checks: the sites a fault record numbers.
    checked: Option<Vec<Site>>,
    /// Per argument: whether the kernel may write its elements.
    writes: Vec<bool>,
    /// It synchronises its grid: launched cooperatively (every block resident).
    cooperative: bool,
    /// The generated C (for `inspect_source`-style introspection and errors).
    pub source: String,
}

impl Compiled {
    /// The ordinal of the device it was compiled for.
    pub fn device_ordinal(&self) -> usize {
        self.device
    }

    /// The coarsening it has (`"y2"`, ...), if any.
    pub fn coarsened(&self) -> Option<String> {
        self.coarse.map(|p| p.label())
    }

    /// Whether it was compiled with index checks.
    pub fn is_checked(&self) -> bool {
        self.checked.is_some()
    }

    /// The most blocks of `threads` threads a cooperative launch of it takes on its device
    /// (Numba's `max_cooperative_grid_blocks`).
    pub fn max_cooperative_blocks(&self, threads: u32, shared_bytes: u32) -> Result<u64> {
        self.function.device().backend().max_active_blocks(
            self.function.handle(),
            threads,
            shared_bytes,
        )
    }

    /// A kernel attribute as the device's API reports it (registers, shared memory, ...);
    /// an error where the API does not report that attribute (OpenCL has no register count).
    pub fn attribute(&self, attribute: FunctionAttribute) -> Result<i64> {
        self.function
            .device()
            .backend()
            .function_attribute(self.function.handle(), attribute)
    }
}

/// How a launch is shaped.
#[derive(Clone, Copy, Debug)]
pub struct LaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    pub stream: Handle,
    /// The stream is ember's (the thread's current one or an ember stream object), so only
    /// ember orders work on it; a stream another library handed in is its to order.
    pub ember_stream: bool,
    /// Arguments (bit `k`: argument `k`) copied from read-only host memory: a kernel that
    /// may write one is refused before it runs (its writes would be lost).
    pub read_only_args: u64,
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
    opportunities: OnceLock<Opportunities>,
    /// `boundscheck=`: checked mode for this kernel whatever `EMBER_CHECKED` says (`None`:
    /// as it says).
    boundscheck: Option<bool>,
}

impl Dispatcher {
    /// `fastmath` relaxes IEEE rules as Numba's `fastmath=True` does; `optimize: false` turns
    /// the device compiler's optimisation off (Numba's `opt=False`); `boundscheck` is Numba's
    /// option of that name (checked mode, see [`crate::checked`]).
    pub fn new(
        name: &str,
        fastmath: bool,
        optimize: bool,
        boundscheck: Option<bool>,
    ) -> Dispatcher {
        let mut options = Vec::new();
        if fastmath {
            options.push("fastmath".into());
        }
        if !optimize {
            options.push("noopt".into());
        }
        Dispatcher {
            name: name.to_string(),
            program: OnceLock::new(),
            options,
            signatures: Mutex::new(Vec::new()),
            compiled: Mutex::new(Vec::new()),
            opportunities: OnceLock::new(),
            boundscheck,
        }
    }

    /// Whether launches now run the checked specialisations.
    fn checked(&self) -> Result<bool> {
        match self.boundscheck {
            Some(on) => Ok(on),
            None => crate::checked::checked(),
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
        let compiled = self.compile(device, &types, None, self.checked()?, front)?;
        lock(&self.signatures).push(types);
        Ok(compiled)
    }

    /// The generated C of each compiled specialisation, by its argument types.
    pub fn sources(&self) -> Vec<(String, String)> {
        lock(&self.compiled)
            .iter()
            .map(|c| {
                let items: Vec<String> = c.types.iter().map(Ty::to_string).collect();
                let coarse = match c.coarse {
                    Some(p) => format!(" coarsened {}", p.label()),
                    None => String::new(),
                };
                (format!("({}){coarse}", items.join(", ")), c.source.clone())
            })
            .collect()
    }

    /// Every compiled specialisation, oldest first.
    pub fn compiled(&self) -> Vec<Arc<Compiled>> {
        lock(&self.compiled).clone()
    }

    /// Whether launches are bound to explicit signatures.
    pub fn has_signatures(&self) -> bool {
        !lock(&self.signatures).is_empty()
    }

    /// The specialisation of `types` (coarsened by `plan` where sound) on `device`, compiled
    /// if new.
    pub fn compile(
        &self,
        device: &'static Device,
        types: &[Ty],
        plan: Option<Plan>,
        checked: bool,
        front: &mut dyn FnMut() -> Result<String>,
    ) -> Result<Arc<Compiled>> {
        self.compile_named(device, types, &[], plan, checked, front)
    }

    /// [`Dispatcher::compile`] for namedtuple arguments: `fields[i]`, the field names of
    /// argument `i` (empty: none is a namedtuple).
    fn compile_named(
        &self,
        device: &'static Device,
        types: &[Ty],
        fields: &[Option<Vec<String>>],
        plan: Option<Plan>,
        checked: bool,
        front: &mut dyn FnMut() -> Result<String>,
    ) -> Result<Arc<Compiled>> {
        let ordinal = device.info().ordinal;
        if let Some(c) = lock(&self.compiled).iter().find(|c| {
            c.device == ordinal
                && c.types == types
                && c.asked == plan
                && c.checked.is_some() == checked
                && c.fields == fields
        }) {
            return Ok(c.clone());
        }
        let named;
        let program = if fields.is_empty() {
            self.program(front)?
        } else {
            named = ember_jit::with_named_fields(&front()?, fields).map_err(Error::Jit)?;
            &named
        };
        let d = dialect(device);
        let strict = matches!(coarsening()?, Coarsening::Force(_));
        // Checked kernels are for finding bugs: never coarsened.
        let kernel = match checked {
            true => compile_kernel_checked(program, types, d)?,
            false => compile_kernel_coarse(program, types, d, plan.as_ref(), strict)?,
        };
        let options: Vec<String> = self
            .options
            .iter()
            .map(|o| match o.as_str() {
                "fastmath" => d.table().fast_math_option.to_string(),
                "noopt" => d.table().no_optimization_option.to_string(),
                _ => o.clone(),
            })
            .collect();
        // User code: contracted as Numba compiles it.
        let rounding = Rounding::Contracted;
        let (kernel, function) =
            match compile_generated(device, &kernel.source, &kernel.name, &options, rounding) {
                Ok(f) => (kernel, f),
                // The device compiler can refuse what coarsening multiplied (local arrays past
                // the per-thread limit): the plain kernel runs instead, except in tests.
                Err(_) if kernel.coarse.is_some() && !strict => {
                    let plain = compile_kernel_coarse(program, types, d, None, false)?;
                    let f =
                        compile_generated(device, &plain.source, &plain.name, &options, rounding)?;
                    (plain, f)
                }
                Err(e) => return Err(e),
            };
        let compiled = Arc::new(Compiled {
            types: types.to_vec(),
            fields: fields.to_vec(),
            asked: plan,
            coarse: kernel.coarse,
            device: ordinal,
            function,
            params: kernel.params,
            checked: checked.then_some(kernel.sites),
            writes: kernel.writes,
            cooperative: kernel.cooperative,
            source: kernel.source,
        });
        lock(&self.compiled).push(compiled.clone());
        Ok(compiled)
    }

    /// Whether to coarsen this launch, and how. Automatic coarsening is for CUDA: rows of a
    /// tiled kernel that share shared-memory loads (y by 2, from 2^16 threads, where fewer
    /// hardware threads still fill the GPU), and guarded elementwise bodies over aligned 1-D
    /// arrays (x by 16 bytes' worth of elements, for vector loads). The elementwise plan waits
    /// for 2^22 threads: it saves about 7% of a memory-bound launch, under a microsecond below
    /// that size, while its four-fold body costs NVRTC about 10 ms more once.
    fn plan(
        &self,
        device: &'static Device,
        args: &[JitArg<'_>],
        config: &LaunchConfig,
        front: &mut dyn FnMut() -> Result<String>,
    ) -> Result<Option<Plan>> {
        let mode = coarsening()?;
        let t = dialect(device).table();
        if mode == Coarsening::Off || (mode == Coarsening::Auto && !t.coarsen_by_default) {
            return Ok(None);
        }
        let o = match self.opportunities.get() {
            Some(o) => o,
            None => {
                let o = Opportunities::of(self.program(front)?);
                self.opportunities.get_or_init(|| o)
            }
        };
        let arrays = || {
            args.iter()
                .flat_map(|a| match a {
                    JitArg::Array(a) => std::slice::from_ref(a),
                    JitArg::Tuple(_, _, arrays, _) => arrays,
                    JitArg::Scalar(..) | JitArg::Record(_) => &[],
                })
                .copied()
        };
        // Where buffers come with offsets, the kernel cannot assume their alignment.
        let aligned = !t.buffer_offsets && arrays().all(|a| a.is_aligned(16));
        // A block too big for the device stays too big: the launch must fail as written.
        let info = device.info();
        let legal = config.block.iter().map(|&n| n as usize).product::<usize>()
            <= info.max_threads_per_block
            && config
                .block
                .iter()
                .zip(info.max_block_dims)
                .all(|(&n, m)| n as usize <= m);
        let fits = |axis: usize, factor: u32| {
            legal
                && o.sound[axis]
                && config.block[axis] >= factor
                && config.block[axis].is_multiple_of(factor)
        };
        let plan = |axis: usize, factor: u32| Plan::new(axis, factor, aligned);
        Ok(match mode {
            Coarsening::Off => None,
            Coarsening::Force((axis, factor)) => fits(axis, factor).then(|| plan(axis, factor)),
            Coarsening::Auto => {
                let threads: u64 = config
                    .grid
                    .iter()
                    .chain(&config.block)
                    .map(|&n| n as u64)
                    .product();
                let widest = arrays().map(|a| a.dtype().itemsize()).max().unwrap_or(0);
                let elementwise = o.elementwise
                    && aligned
                    && widest > 0
                    && widest <= 8
                    && threads >= 1 << 22
                    && arrays().all(|a| a.ndim() == 1 && a.is_c_contiguous());
                if o.shared_rows && threads >= 1 << 16 && fits(1, 2) {
                    Some(plan(1, 2))
                } else if elementwise && fits(0, (16 / widest) as u32) {
                    Some(plan(0, (16 / widest) as u32))
                } else {
                    None
                }
            }
        })
    }

    /// The specialisation these arguments launch, on `device`.
    fn find(
        &self,
        device: &'static Device,
        args: &[JitArg<'_>],
        plan: Option<Plan>,
        checked: bool,
        front: &mut dyn FnMut() -> Result<String>,
    ) -> Result<Arc<Compiled>> {
        let ordinal = device.info().ordinal;
        let chosen = {
            let signatures = lock(&self.signatures);
            if signatures.is_empty() {
                None
            } else {
                let lone = signatures.len() == 1;
                let fits = signatures.iter().find(|s| {
                    s.len() == args.len()
                        && s.iter()
                            .zip(args)
                            .all(|(t, a)| a.fits(t) || (lone && a.reinterprets(t)))
                });
                match fits {
                    Some(types) => Some(types.clone()),
                    None => return Err(self.no_signature(&signatures, args)),
                }
            }
        };
        let fields = arg_fields(args);
        if let Some(types) = chosen {
            return self.compile_named(device, &types, &fields, plan, checked, front);
        }
        {
            let compiled = lock(&self.compiled);
            let hit = compiled.iter().find(|c| {
                c.device == ordinal
                    && c.asked == plan
                    && c.checked.is_some() == checked
                    && c.types.len() == args.len()
                    && c.types.iter().zip(args).all(|(t, a)| same_type(a, t))
                    && c.fields == fields
            });
            if let Some(c) = hit {
                return Ok(c.clone());
            }
        }
        let types: Vec<Ty> = args.iter().map(JitArg::ty).collect();
        self.compile_named(device, &types, &fields, plan, checked, front)
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
            if let JitArg::Array(a) | JitArg::Record(a) = a {
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
        let checked = self.checked()?;
        let plan = match checked {
            true => None,
            false => self.plan(device, args, config, front)?,
        };
        let compiled = self.find(device, args, plan, checked, front)?;
        if let Some(k) = (0..args.len().min(64))
            .find(|&k| config.read_only_args >> k & 1 == 1 && compiled.writes.get(k) == Some(&true))
        {
            return Err(self.writes_read_only(k));
        }
        let mut blob: SmallVec<[u8; 512]> = SmallVec::new();
        // Byte ranges of the blob, per parameter slot, filled first so the kernel
        // arguments can borrow the finished blob.
        let mut ranges: SmallVec<[(usize, usize); 16]> = SmallVec::new();
        for slot in &compiled.params {
            let start = blob.len();
            match slot {
                ParamSlot::Array { arg, .. } => {
                    if let JitArg::Array(a) | JitArg::Record(a) = &args[*arg] {
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
                        ranges.push(push_scalar(&mut blob, *value, *dtype));
                        continue;
                    }
                }
                ParamSlot::ItemArray { arg, item, .. } => {
                    if let JitArg::Tuple(_, _, arrays, _) = &args[*arg] {
                        if let Some(a) = arrays.get(*item) {
                            for &n in a.shape() {
                                blob.extend_from_slice(&(n as i64).to_le_bytes());
                            }
                            for &s in a.strides() {
                                blob.extend_from_slice(&(s as i64).to_le_bytes());
                            }
                        }
                    }
                }
                ParamSlot::Item { arg, item, dtype } => {
                    if let JitArg::Tuple(_, items, _, _) = &args[*arg] {
                        if let Some((value, _)) = items.get(*item) {
                            ranges.push(push_scalar(&mut blob, *value, *dtype));
                            continue;
                        }
                    }
                }
                ParamSlot::DynamicShared => {
                    blob.extend_from_slice(&(config.shared_bytes as i64).to_le_bytes());
                }
                ParamSlot::FaultRecord => {}
            }
            ranges.push((start, blob.len()));
        }
        let mut kargs: SmallVec<[KernelArg<'_>; 16]> = SmallVec::new();
        for (slot, &(s, e)) in compiled.params.iter().zip(&ranges) {
            match slot {
                ParamSlot::Array { arg, ndim } => {
                    let (JitArg::Array(a) | JitArg::Record(a)) = &args[*arg] else {
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
                ParamSlot::ItemArray { arg, item, ndim } => {
                    let JitArg::Tuple(_, _, arrays, _) = &args[*arg] else {
                        return Err(mismatch(&self.name, *arg));
                    };
                    let Some(a) = arrays.get(*item) else {
                        return Err(mismatch(&self.name, *arg));
                    };
                    kargs.push(a.kernel_arg());
                    if *ndim > 0 {
                        kargs.push(KernelArg::Bytes(&blob[s..e]));
                    }
                }
                ParamSlot::Item { arg, item, .. } => {
                    if !matches!(args[*arg], JitArg::Tuple(_, t, _, _) if *item < t.len()) {
                        return Err(mismatch(&self.name, *arg));
                    }
                    kargs.push(KernelArg::Bytes(&blob[s..e]));
                }
                ParamSlot::DynamicShared => {
                    kargs.push(KernelArg::Local(config.shared_bytes.max(1) as usize));
                    kargs.push(KernelArg::Bytes(&blob[s..e]));
                }
                // Passed by the checked launch below.
                ParamSlot::FaultRecord => {}
            }
        }
        // On OpenCL, dynamic shared memory is the kernel's own `__local` parameter (set above):
        // the runtime must not append another.
        let shared_bytes = if dialect(device).table().dynamic_shared_param {
            0
        } else {
            config.shared_bytes
        };
        let mut block = config.block;
        if let Some(p) = compiled.coarse {
            block[p.axis] /= p.factor;
        }
        // A grid-wide barrier needs every block resident: a cooperative launch, never queued.
        let launch_one = if compiled.cooperative {
            Device::launch_cooperative
        } else {
            Device::launch
        };
        crate::launch::note_bytes(
            args.iter()
                .flat_map(|a| match a {
                    JitArg::Array(a) | JitArg::Record(a) => std::slice::from_ref(a),
                    JitArg::Tuple(_, _, arrays, _) => arrays,
                    JitArg::Scalar(..) => &[],
                })
                .copied(),
        );
        if let Some(sites) = &compiled.checked {
            let fault = launch_checked(device, config.stream, |record| {
                kargs.push(record);
                launch_one(
                    device,
                    &compiled.function,
                    config.grid,
                    block,
                    shared_bytes,
                    config.stream,
                    &kargs,
                )
            })?;
            return match fault {
                None => Ok(()),
                Some(f) => Err(self.fault_error(sites, &f)),
            };
        }
        // The language has no way to make a pointer of a number: arrays are all the memory a
        // kernel reaches, and when ember alone orders work on them and on the stream, a burst
        // may be queued.
        let private = config.ember_stream
            && args.iter().all(|a| match a {
                JitArg::Array(a) | JitArg::Record(a) => a.is_private(),
                JitArg::Tuple(_, _, arrays, _) => arrays.iter().all(|a| a.is_private()),
                JitArg::Scalar(..) => true,
            });
        let launch = if private && !compiled.cooperative {
            Device::launch_queued
        } else {
            launch_one
        };
        launch(
            device,
            &compiled.function,
            config.grid,
            block,
            shared_bytes,
            config.stream,
            &kargs,
        )
    }
}

impl Dispatcher {
    /// The error for a launch that would write argument `k`, copied from read-only host memory.
    fn writes_read_only(&self, k: usize) -> Error {
        let name = self
            .program
            .get()
            .and_then(|p| p.functions.first())
            .and_then(|f| f.params.get(k))
            .map_or(String::new(), |n| format!(" ('{n}')"));
        Error::Value(format!(
            "kernel {} writes to argument {k}{name}, a read-only NumPy array (flags.writeable is False): its writes would be lost; pass a writeable copy (np.array(x)) or a device array (ember.asarray(x)) and read the result from it",
            self.name
        ))
    }

    /// The error for a fault a checked launch recorded.
    fn fault_error(&self, sites: &[Site], f: &Fault) -> Error {
        if let Some(site) = sites.get(f.site as usize) {
            if let Some(raised) = site.raised {
                let (exception, builtin) = match raised {
                    Raised::Statement(n) => (Some(n), None),
                    Raised::Builtin(class, message) => (None, Some((class.into(), message.into()))),
                };
                return Error::Raised(Box::new(ember_core::error::KernelRaise {
                    exception,
                    builtin,
                    function: site.function.clone(),
                    file: site.file.clone(),
                    line: site.line,
                    thread: f.thread,
                    block: f.block,
                }));
            }
        }
        self.out_of_bounds(sites, f)
    }

    fn out_of_bounds(&self, sites: &[Site], f: &Fault) -> Error {
        let text = match sites.get(f.site as usize) {
            Some(site) => site.message(&self.name, f.index, f.extent),
            None => format!(
                "kernel {}: index {} is out of bounds for size {}",
                self.name, f.index, f.extent
            ),
        };
        Error::OutOfBounds(format!(
            "{text}, at {}; found by checked mode (the access did not touch memory outside its array)",
            f.place()
        ))
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
        (JitArg::Tuple(a, ..), p) => *a == p,
        (JitArg::Record(r), Ty::Record(p)) => r.dtype() == p.dtype,
        _ => false,
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether launches coarsen kernels: `EMBER_JIT_COARSEN` = `0`/`off`, `auto` (the default),
/// or a plan such as `y2` or `x4` to apply wherever it is sound (for tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coarsening {
    Off,
    Auto,
    /// (axis, factor).
    Force((usize, u32)),
}

impl Coarsening {
    /// What [`Coarsening::parse`] accepts, for error messages.
    pub const VALUES: &'static str =
        "use off (or 0), auto (or 1, the default), or a plan such as y2 or x4 (an axis x, y or z and a factor 2-16)";

    pub fn parse(text: &str) -> Option<Coarsening> {
        match text.trim() {
            "0" | "off" => Some(Coarsening::Off),
            "" | "1" | "auto" => Some(Coarsening::Auto),
            t => Plan::parse(t).map(|p| Coarsening::Force((p.axis, p.factor))),
        }
    }

    fn encode(self) -> u32 {
        match self {
            Coarsening::Off => 1,
            Coarsening::Auto => 2,
            Coarsening::Force((axis, factor)) => 16 + ((axis as u32) << 8) + factor,
        }
    }

    fn decode(v: u32) -> Coarsening {
        match v {
            1 => Coarsening::Off,
            16.. => Coarsening::Force((((v - 16) >> 8) as usize, (v - 16) & 0xff)),
            _ => Coarsening::Auto,
        }
    }
}

/// 0 until first read from the environment.
static COARSENING: AtomicU32 = AtomicU32::new(0);

/// The current coarsening mode; a bad `EMBER_JIT_COARSEN` is an error at every launch that
/// reads it (until the mode is set from Python).
pub fn coarsening() -> Result<Coarsening> {
    match COARSENING.load(Ordering::Relaxed) {
        0 => {
            let text = std::env::var("EMBER_JIT_COARSEN").unwrap_or_default();
            let mode = Coarsening::parse(&text).ok_or_else(|| {
                Error::Value(format!(
                    "EMBER_JIT_COARSEN={text:?} is not valid: {}",
                    Coarsening::VALUES
                ))
            })?;
            COARSENING.store(mode.encode(), Ordering::Relaxed);
            Ok(mode)
        }
        v => Ok(Coarsening::decode(v)),
    }
}

/// Sets the coarsening mode; returns the previous one (`auto` if the environment's was bad).
pub fn set_coarsening(mode: Coarsening) -> Coarsening {
    let old = coarsening().unwrap_or(Coarsening::Auto);
    COARSENING.store(mode.encode(), Ordering::Relaxed);
    old
}

/// Appends a scalar parameter's bytes to `blob` at its natural alignment; returns where they lie.
fn push_scalar(
    blob: &mut smallvec::SmallVec<[u8; 512]>,
    value: Scalar,
    dtype: DType,
) -> (usize, usize) {
    let bytes = param_bytes(value, dtype);
    let align = param_dtype(dtype).itemsize().clamp(1, 8);
    while !blob.len().is_multiple_of(align) {
        blob.push(0);
    }
    let start = blob.len();
    blob.extend_from_slice(&bytes);
    (start, blob.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coarsening_modes_round_trip_through_their_encoding() {
        for mode in [
            Coarsening::Off,
            Coarsening::Auto,
            Coarsening::Force((0, 4)),
            Coarsening::Force((1, 2)),
            Coarsening::Force((2, 16)),
        ] {
            assert_eq!(Coarsening::decode(mode.encode()), mode);
        }
        assert_eq!(Coarsening::parse("off"), Some(Coarsening::Off));
        assert_eq!(Coarsening::parse(""), Some(Coarsening::Auto));
        assert_eq!(Coarsening::parse("y2"), Some(Coarsening::Force((1, 2))));
        assert_eq!(Coarsening::parse("sideways"), None);
    }
}
