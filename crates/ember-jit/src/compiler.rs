//! One compilation: a kernel (or a device function) typed for argument types into the typed
//! IR, with every device function it reaches, then written as source by a back end.

use ember_codegen::Dialect;
use ember_core::{DType, Error, Result};

use crate::ast::{Program, Span};
use crate::coarsen::{coarsen, Plan};
use crate::error::{locate, Fail};
use crate::helpers::Helper;
use crate::ir::{AggregateFn, IrFunction, IrProgram, Role, Uses};
use crate::types::{ArrayTy, Space, Ty};
use crate::typing::FnTyper;

/// What a kernel parameter receives at launch, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamSlot {
    /// Argument `arg` is an array: its data (a buffer, plus an offset on OpenCL), then its
    /// shape and byte strides as `2 * ndim` int64s (none for 0-d arrays and records).
    Array { arg: usize, ndim: usize },
    /// Argument `arg` is a scalar passed as `dtype`'s C value type (bool as a byte, float16
    /// as float32).
    Scalar { arg: usize, dtype: DType },
    /// Scalar `item` (the scalars counted depth first) of argument `arg`, a tuple of scalars,
    /// arrays and such tuples (passed by value, one parameter per scalar, as `Scalar`).
    Item {
        arg: usize,
        item: usize,
        dtype: DType,
    },
    /// Array `item` (the arrays counted depth first) of tuple argument `arg`, passed as `Array`.
    ItemArray {
        arg: usize,
        item: usize,
        ndim: usize,
    },
    /// OpenCL only: the launch's dynamic shared memory (`__local` bytes), then its size as
    /// an int64.
    DynamicShared,
    /// Checked kernels only, last: the device's fault record (`ember_codegen::checked`).
    FaultRecord,
}

/// How a checked access uses its element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    /// An atomic operation or a random draw (read, then written).
    Update,
}

/// What a checked kernel raises at a site that is not an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Raised {
    /// A `raise` statement: the front's number of its exception.
    Statement(usize),
    /// Python's own error (debug mode's Python error model): its class and message.
    Builtin(&'static str, &'static str),
}

/// One checked index of a checked kernel: which array, which axis, where in the source; or
/// one place that raises (`raised`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// The Python function (kernel or device function) it is in.
    pub function: String,
    pub file: String,
    pub line: u32,
    /// The array as the source names it (`a`), or what it is (`a shared array`).
    pub array: String,
    pub axis: usize,
    pub ndim: usize,
    pub access: Access,
    pub raised: Option<Raised>,
}

impl Site {
    /// The message for `index` found outside `0..extent` here (Python's negative indices
    /// already wrapped), as NumPy words it, with the kernel and the place.
    pub fn message(&self, kernel: &str, index: i64, extent: i64) -> String {
        let what = match self.access {
            Access::Read => "read",
            Access::Write => "write",
            Access::Update => "atomic update",
        };
        let axis = if self.ndim > 1 {
            format!("axis {} of ", self.axis)
        } else {
            String::new()
        };
        let inner = if self.function == kernel {
            String::new()
        } else {
            format!(" in device function {}", self.function)
        };
        format!(
            "kernel {kernel}{inner} ({}, line {}): index {index} is out of bounds for {axis}{} with size {extent} (a {what})",
            self.file, self.line, self.array
        )
    }
}

/// A kernel ready for the device compiler.
#[derive(Clone, Debug)]
pub struct KernelSource {
    pub source: String,
    /// The entry point's name in `source`.
    pub name: String,
    pub params: Vec<ParamSlot>,
    /// How the kernel was coarsened (launch it with the block shrunk accordingly), if it was.
    pub coarse: Option<Plan>,
    /// Checked kernels: the sites their fault record numbers (empty otherwise).
    pub sites: Vec<Site>,
    /// Per argument: whether the kernel may write its elements.
    pub writes: Vec<bool>,
    /// It synchronises the whole grid (`cuda.cg.this_grid().sync()`): launch it cooperatively.
    pub cooperative: bool,
}

/// A device function ready to be pasted into other generated code (`@vectorize`).
#[derive(Clone, Debug)]
pub struct DeviceSource {
    /// Everything before the call site: helpers, structs and the functions.
    pub preamble: String,
    /// The C name of the entry function.
    pub name: String,
    pub ret: Ty,
}

/// A device function specialised for argument types.
pub(crate) struct Spec {
    pub id: usize,
    pub args: Vec<Ty>,
    pub ret: Ty,
    pub ir: IrFunction,
}

/// A device function specialisation being typed: what a recursive call to it needs.
pub(crate) struct InProgress {
    pub id: usize,
    pub args: Vec<Ty>,
    /// Its return type as far as typed (declared by a signature, or met at a `return`).
    pub ret: Option<Ty>,
    /// The slot reserved in `specs` once it calls itself (filled when it is typed).
    pub slot: Option<usize>,
    /// How often the return type widened after a recursive call used it.
    pub widenings: usize,
    /// The call chain back into it, once it is called back.
    pub chain: Option<String>,
}

/// Numba's word for a recursive function whose return type keeps changing.
const NO_CONVERGENCE: &str = "Return type of recursive function does not converge";

/// The typing of one program: specialisations, and what they use.
pub struct Compiler<'p> {
    pub(crate) program: &'p Program,
    /// The target: typing rejects what its dialect cannot express (shared arrays in device
    /// functions on OpenCL); nothing typed depends on it otherwise.
    pub(crate) dialect: Dialect,
    /// Typing a host function (`@njit`): it may allocate arrays.
    pub(crate) host: bool,
    pub(crate) specs: Vec<Spec>,
    /// Device function specialisations being typed right now, innermost last (recursion).
    pub(crate) in_progress: Vec<InProgress>,
    pub(crate) uses: Uses,
    /// The kernel is coarsened (its tree already rewritten): how thread geometry reads.
    pub(crate) coarse: Option<Plan>,
}

impl<'p> Compiler<'p> {
    pub fn new(program: &'p Program, dialect: Dialect) -> Self {
        Compiler {
            program,
            dialect,
            host: false,
            specs: Vec::new(),
            in_progress: Vec::new(),
            uses: Uses::default(),
            coarse: None,
        }
    }

    /// Records that values of `ty` occur (aggregates in first-use order, nested first).
    pub(crate) fn register(&mut self, ty: &Ty) {
        match ty {
            Ty::Scalar(d) => {
                self.uses.dtypes.insert(*d);
            }
            Ty::None | Ty::Group => {}
            Ty::Optional(t) => self.register(t),
            Ty::Record(r) => {
                self.uses.dtypes.insert(r.dtype);
                self.register_record_dtype(r.dtype);
            }
            Ty::Tuple(items) => {
                if self.uses.aggregates.contains(ty) {
                    return;
                }
                for t in items {
                    self.register(t);
                }
                self.uses.aggregates.push(ty.clone());
            }
            Ty::Array(a) => {
                if self.uses.aggregates.contains(ty) {
                    return;
                }
                self.uses.dtypes.insert(a.dtype);
                self.register_record_dtype(a.dtype);
                if a.ndim > 0 && a.fixed.is_none() {
                    self.uses.helpers.insert(Helper::Dims(a.ndim));
                }
                self.uses.aggregates.push(ty.clone());
            }
        }
    }

    /// A reference to a record: a byte pointer (no aggregate of its own).
    fn register_record_dtype(&mut self, d: DType) {
        if let Some(r) = crate::types::record_of(d) {
            self.uses.helpers.insert(Helper::RecordBytes {
                size: r.itemsize,
                align: r.alignment_at(0),
            });
        }
    }

    /// Records a function on an aggregate, once.
    pub(crate) fn aggregate_fn(&mut self, f: AggregateFn) {
        if !self.uses.aggregate_fns.contains(&f) {
            self.uses.aggregate_fns.push(f);
        }
    }

    /// What a function compiled here is called in messages.
    /// What the code being compiled is, in messages: "kernels" or "functions compiled for the CPU".
    pub(crate) fn realm(&self) -> &'static str {
        if self.host {
            "functions compiled for the CPU"
        } else {
            "kernels"
        }
    }

    pub(crate) fn function_word(&self) -> &'static str {
        if self.host {
            "function"
        } else {
            "device function"
        }
    }

    /// The device function `id` specialised for `args`: its index and return type.
    pub(crate) fn specialise(
        &mut self,
        id: usize,
        args: &[Ty],
    ) -> std::result::Result<(usize, Ty), Fail> {
        let function = &self.program.functions[id];
        let declared = declared_signature(function)?;
        // A declared signature fixes the argument types: scalars convert at the call (C's
        // conversions, Numba's casts).
        let args: Vec<Ty> = match &declared {
            Some((_, params)) => convert_args(function, params, args)?,
            None => args.to_vec(),
        };
        let args = &args[..];
        if let Some(i) = self.specs.iter().position(|s| s.id == id && s.args == args) {
            if let Some(pos) = self.in_progress.iter().position(|p| p.slot == Some(i)) {
                return self.recursive_call(pos);
            }
            return Ok((i, self.specs[i].ret.clone()));
        }
        if let Some(pos) = self
            .in_progress
            .iter()
            .position(|p| p.id == id && p.args == args)
        {
            return self.recursive_call(pos);
        }
        if self.in_progress.iter().filter(|p| p.id == id).count() >= 4 {
            return Err(Fail::Located(locate(
                function,
                self.function_word(),
                function.span,
                &format!(
                    "cannot type infer runaway recursion: {}() calls itself with argument types that change at every call",
                    function.name
                ),
            )));
        }
        // Specialisations of one function nested in each other (recursion through other
        // argument types) start at the same count: the depth keeps their names apart.
        let depth = self.in_progress.iter().filter(|p| p.id == id).count();
        self.in_progress.push(InProgress {
            id,
            args: args.to_vec(),
            ret: declared.as_ref().map(|(r, _)| r.clone()),
            slot: None,
            widenings: 0,
            chain: None,
        });
        let ordinal = self.specs.len() + 100_000 * depth;
        let result = FnTyper::compile(self, id, args, Role::Device { ordinal });
        let done = self.in_progress.pop();
        let ir = result.map_err(Fail::Located)?;
        if let Some(chain) = done.as_ref().and_then(|p| p.chain.as_ref()) {
            if self.dialect == Dialect::OpenCl {
                return Err(Fail::Located(locate(
                    function,
                    self.function_word(),
                    function.span,
                    &format!(
                        "recursion (call chain: {chain}) needs the CUDA backend: OpenCL C forbids recursive functions; rewrite it as a loop"
                    ),
                )));
            }
        }
        let ret = ir.ret.clone();
        if let Some((want, _)) = &declared {
            if ret != *want {
                return Err(Fail::Located(locate(
                    function,
                    self.function_word(),
                    function.span,
                    &format!(
                        "{}() returns {ret} but its signature declares {want}",
                        function.name
                    ),
                )));
            }
        }
        let spec = Spec {
            id,
            args: args.to_vec(),
            ret: ret.clone(),
            ir,
        };
        match done.and_then(|p| p.slot) {
            Some(k) => {
                self.specs[k] = spec;
                Ok((k, ret))
            }
            None => {
                self.specs.push(spec);
                Ok((self.specs.len() - 1, ret))
            }
        }
    }

    /// A call of specialisation `in_progress[pos]` from inside its own typing: its slot
    /// (reserved now) and its return type as far as known.
    fn recursive_call(&mut self, pos: usize) -> std::result::Result<(usize, Ty), Fail> {
        let id = self.in_progress[pos].id;
        let function = &self.program.functions[id];
        let chain: Vec<&str> = self.in_progress[pos..]
            .iter()
            .map(|p| self.program.functions[p.id].name.as_str())
            .chain([function.name.as_str()])
            .collect();
        let chain = chain.join(" -> ");
        // OpenCL C forbids recursion: said once the function is typed (so a program with
        // a typing error gets that error on every back end).
        if self.in_progress[pos].chain.is_none() {
            self.in_progress[pos].chain = Some(chain.clone());
        }
        let slot = match self.in_progress[pos].slot {
            Some(k) => k,
            None => {
                let p = &self.in_progress[pos];
                let placeholder = Spec {
                    id,
                    args: p.args.clone(),
                    ret: Ty::None,
                    ir: IrFunction {
                        name: function.name.clone(),
                        file: function.file.clone(),
                        role: Role::Device { ordinal: 0 },
                        params: Vec::new(),
                        locals: Vec::new(),
                        ret: Ty::None,
                        arrays: Vec::new(),
                        body: Vec::new(),
                        calls: Vec::new(),
                    },
                };
                self.specs.push(placeholder);
                let k = self.specs.len() - 1;
                self.in_progress[pos].slot = Some(k);
                k
            }
        };
        match &self.in_progress[pos].ret {
            Some(t) => Ok((slot, t.clone())),
            // Another pass knows it once a `return` without the call is typed.
            None if pos + 1 == self.in_progress.len() => Err(Fail::Pending(
                Span::default(),
                "cannot type infer runaway recursion: no return of this function gives a type without calling itself".into(),
            )),
            None => Err(Fail::Located(locate(
                function,
                self.function_word(),
                function.span,
                &format!(
                    "the return type of {}() is not known where it is called back (call chain: {chain}): declare mutually recursive functions with a signature (@cuda.jit(\"int64(int64)\", device=True))",
                    function.name
                ),
            ))),
        }
    }

    /// The function being typed returns `ret` (so far): recursive calls of it return that.
    pub(crate) fn returns(&mut self, ret: &Ty) -> std::result::Result<(), String> {
        let Some(p) = self.in_progress.last_mut() else {
            return Ok(());
        };
        if p.ret.as_ref() == Some(ret) {
            return Ok(());
        }
        if p.slot.is_some() {
            p.widenings += 1;
            if p.widenings > 8 {
                return Err(NO_CONVERGENCE.into());
            }
        }
        p.ret = Some(ret.clone());
        Ok(())
    }

    /// The typed program, with `kernel` as its entry point (or none, for a device function).
    fn into_program(self, kernel: Option<IrFunction>) -> IrProgram {
        IrProgram {
            kernel,
            functions: self.specs.into_iter().map(|s| s.ir).collect(),
            uses: self.uses,
            coarse: self.coarse,
        }
    }
}

/// Compiles function 0 of `program` as a kernel for arguments of `args`, coarsened by `plan`
/// where that is sound (the result says whether it was). A program the plain compiler
/// rejects gets the plain compiler's error, which names the user's code as written. A sound
/// plan whose rewritten kernel fails to compile is ember's bug: `strict` reports it (tests),
/// otherwise the plain kernel runs.
pub fn compile_kernel_coarse(
    program: &Program,
    args: &[Ty],
    dialect: Dialect,
    plan: Option<&Plan>,
    strict: bool,
) -> Result<KernelSource> {
    let plain = || compile(program, args, dialect, None, false);
    let Some(plan) = plan else {
        return plain();
    };
    let Ok(rewritten) = coarsen(program, plan) else {
        return plain();
    };
    match compile(&rewritten, args, dialect, Some(*plan), false) {
        Ok(k) => Ok(k),
        Err(e) => {
            let k = plain()?;
            if strict {
                return Err(Error::Jit(format!(
                    "coarsening kernel {} by {} failed (please report this): {e}",
                    program.functions[0].name,
                    plan.label()
                )));
            }
            Ok(k)
        }
    }
}

/// Compiles function 0 of `program` as a kernel for arguments of `args`.
pub fn compile_kernel(program: &Program, args: &[Ty], dialect: Dialect) -> Result<KernelSource> {
    compile(program, args, dialect, None, false)
}

/// [`compile_kernel`] in checked mode: every array index is checked at run time, and a fault
/// is recorded in the record passed last ([`ParamSlot::FaultRecord`]) at one of the returned
/// sites.
pub fn compile_kernel_checked(
    program: &Program,
    args: &[Ty],
    dialect: Dialect,
) -> Result<KernelSource> {
    compile(program, args, dialect, None, true)
}

/// Types function 0 of `program` as a kernel for arguments of `args`: its typed IR, with
/// every device-function specialisation it reaches. Typing checks what CUDA allows (a
/// target's own limits, such as OpenCL's on shared arrays, are checked when compiling).
pub fn type_kernel(program: &Program, args: &[Ty]) -> Result<IrProgram> {
    type_kernel_for(program, args, Dialect::Cuda, None)
}

/// Types function 0 of `program` as a device function for arguments of `args`.
pub fn type_device(program: &Program, args: &[Ty]) -> Result<IrProgram> {
    type_device_for(program, args, Dialect::Cuda)
}

fn type_kernel_for(
    program: &Program,
    args: &[Ty],
    dialect: Dialect,
    coarse: Option<Plan>,
) -> Result<IrProgram> {
    let function = program
        .functions
        .first()
        .ok_or_else(|| Error::Jit("the kernel tree has no function".into()))?;
    if args.len() != function.params.len() {
        // A TypeError, as Python (and Numba) raise for a call with the wrong argument count.
        let located = locate(
            function,
            "kernel",
            function.span,
            &format!(
                "takes {} argument(s) ({}), but {} were given",
                function.params.len(),
                function.params.join(", "),
                args.len()
            ),
        );
        return Err(Error::Type(located.to_string()));
    }
    let mut c = Compiler::new(program, dialect);
    c.coarse = coarse;
    let kernel = FnTyper::compile(&mut c, 0, args, Role::Kernel)?;
    for t in args {
        if let Ty::Tuple(_) = t {
            if let Some(bad) = tuple_leaves(t).into_iter().find(|t| match t {
                Ty::Scalar(_) => false,
                // Global arrays (arguments); shared, local and constant ones exist only inside.
                Ty::Array(a) => a.space != Space::Global || a.fixed.is_some(),
                _ => true,
            }) {
                return Err(Error::Type(format!(
                    "kernel {} cannot take a tuple holding {bad}: tuples passed to kernels hold numbers and arrays",
                    function.name
                )));
            }
        } else if !matches!(t, Ty::Array(_) | Ty::Scalar(_) | Ty::Record(_)) {
            return Err(Error::Jit(format!(
                "kernel {} cannot take an argument of type {t}",
                function.name
            )));
        }
    }
    Ok(c.into_program(Some(kernel)))
}

/// Types function 0 of `program` as a host function (`@ember.njit`) for arguments of `args`:
/// the typed program, and the index of the entry's specialisation among its functions.
pub fn type_host(program: &Program, args: &[Ty]) -> Result<(IrProgram, usize)> {
    let function = program
        .functions
        .first()
        .ok_or_else(|| Error::Jit("the function tree has no function".into()))?;
    if args.len() != function.params.len() {
        return Err(Error::Type(format!(
            "{}() takes {} positional argument(s) but {} were given",
            function.name,
            function.params.len(),
            args.len()
        )));
    }
    // Typing checks what CUDA C allows; nothing typed depends on the dialect otherwise.
    let mut c = Compiler::new(program, Dialect::Cuda);
    c.host = true;
    let (entry, _) = c.specialise(0, args).map_err(|f| match f {
        Fail::Located(e) => e,
        Fail::At(_, m) | Fail::Pending(_, m) => Error::Jit(m),
    })?;
    Ok((c.into_program(None), entry))
}

fn type_device_for(program: &Program, args: &[Ty], dialect: Dialect) -> Result<IrProgram> {
    let mut c = Compiler::new(program, dialect);
    c.specialise(0, args).map_err(|f| match f {
        Fail::Located(e) => e,
        Fail::At(_, m) | Fail::Pending(_, m) => Error::Jit(m),
    })?;
    Ok(c.into_program(None))
}

fn compile(
    program: &Program,
    args: &[Ty],
    dialect: Dialect,
    coarse: Option<Plan>,
    checked: bool,
) -> Result<KernelSource> {
    let ir = type_kernel_for(program, args, dialect, coarse)?;
    let mut params = Vec::new();
    for (i, t) in args.iter().enumerate() {
        params.push(match t {
            Ty::Array(a) => ParamSlot::Array {
                arg: i,
                ndim: a.ndim,
            },
            Ty::Scalar(d) => ParamSlot::Scalar { arg: i, dtype: *d },
            // A record argument is passed by reference, as a 0-d array of its dtype is.
            Ty::Record(_) => ParamSlot::Array { arg: i, ndim: 0 },
            Ty::Tuple(_) => {
                let (mut scalars, mut arrays) = (0, 0);
                for t in tuple_leaves(t) {
                    match t {
                        Ty::Scalar(dtype) => {
                            params.push(ParamSlot::Item {
                                arg: i,
                                item: scalars,
                                dtype: *dtype,
                            });
                            scalars += 1;
                        }
                        Ty::Array(a) => {
                            params.push(ParamSlot::ItemArray {
                                arg: i,
                                item: arrays,
                                ndim: a.ndim,
                            });
                            arrays += 1;
                        }
                        _ => unreachable!("typing rejects other tuple items of kernel arguments"),
                    }
                }
                continue;
            }
            _ => unreachable!("typing rejects other kernel arguments"),
        });
    }
    if dialect.table().dynamic_shared_param && ir.uses.helpers.contains(&Helper::DynamicShared) {
        params.push(ParamSlot::DynamicShared);
    }
    if checked {
        params.push(ParamSlot::FaultRecord);
    }
    let (source, name, sites) = crate::emit::kernel_source(&ir, program, dialect, checked);
    Ok(KernelSource {
        source,
        name,
        params,
        coarse,
        sites,
        writes: ir.kernel_writes(),
        cooperative: ir.uses.helpers.contains(&Helper::GridSync),
    })
}

/// Compiles function 0 of `program` as a device function for arguments of `args` (the body of
/// a `@vectorize` ufunc).
pub fn compile_device(program: &Program, args: &[Ty], dialect: Dialect) -> Result<DeviceSource> {
    let ir = type_device_for(program, args, dialect)?;
    let (preamble, name) = crate::emit::device_source(&ir, program, dialect);
    let ret = ir
        .functions
        .last()
        .map(|f| f.ret.clone())
        .unwrap_or(Ty::None);
    Ok(DeviceSource {
        preamble,
        name,
        ret,
    })
}

/// Compiles function 0 of `program` for argument types `args` as CUDA C that stands alone: the
/// device function and an `extern "C"` entry `entry` calling it by `abi` (Numba's
/// `compile(device=True)`). `ret` is the declared return type (None: the function's own).
/// Returns the source and the return type.
pub fn compile_device_entry(
    program: &Program,
    args: &[Ty],
    entry: &str,
    abi: crate::emit::Abi,
    ret: Option<Ty>,
    forceinline: bool,
) -> Result<(String, Ty)> {
    let ir = type_device_for(program, args, Dialect::Cuda)?;
    let own = ir
        .functions
        .last()
        .map(|f| f.ret.clone())
        .unwrap_or(Ty::None);
    let ret = match ret {
        None => own,
        Some(r) if r == own => r,
        Some(r @ Ty::Scalar(_)) if matches!(own, Ty::Scalar(_)) => r,
        Some(r) => {
            return Err(Error::Jit(format!(
                "the signature returns {r} but the function returns {own}: declare {own}, or return a number for a number"
            )))
        }
    };
    let name = crate::emit::c_ident(entry);
    let source = crate::emit::device_entry_source(
        &ir,
        program,
        Dialect::Cuda,
        &name,
        abi,
        &ret,
        forceinline,
    )
    .map_err(Error::Jit)?;
    Ok((source, ret))
}

/// The items of tuple `t` that are not tuples, depth first (a kernel's tuple argument is
/// passed as these).
pub(crate) fn tuple_leaves(t: &Ty) -> Vec<&Ty> {
    match t {
        Ty::Tuple(items) => items.iter().flat_map(tuple_leaves).collect(),
        other => vec![other],
    }
}

/// The array type of a shared, local or constant array of `shape`.
pub(crate) fn fixed_array(dtype: DType, shape: Vec<i64>, space: Space) -> Ty {
    Ty::Array(ArrayTy {
        dtype,
        ndim: shape.len(),
        layout: crate::types::Layout::C,
        space,
        fixed: Some(shape),
        unaligned: false,
    })
}

/// The return and argument types a device function's signature declares, if it has one.
fn declared_signature(
    function: &crate::ast::Function,
) -> std::result::Result<Option<(Ty, Vec<Ty>)>, Fail> {
    let Some(text) = &function.signature else {
        return Ok(None);
    };
    let err = |m: String| Fail::Located(locate(function, "device function", function.span, &m));
    let (ret, args) = crate::types::parse_signature(text).map_err(err)?;
    if args.len() != function.params.len() {
        return Err(err(format!(
            "the signature '{text}' has {} argument(s) but {}() takes {}",
            args.len(),
            function.name,
            function.params.len()
        )));
    }
    Ok(Some((ret.unwrap_or(Ty::None), args)))
}

/// The argument types of a call of a function declared with `params`: scalars convert.
fn convert_args(
    function: &crate::ast::Function,
    params: &[Ty],
    args: &[Ty],
) -> std::result::Result<Vec<Ty>, Fail> {
    let fits = args.len() == params.len()
        && args.iter().zip(params).all(|(a, p)| {
            a == p
                || matches!((a, p), (Ty::Scalar(_), Ty::Scalar(_)))
                || matches!((a, p), (Ty::Array(x), Ty::Array(y)) if x.dtype == y.dtype && x.ndim == y.ndim && x.space == y.space)
        });
    if !fits {
        let shown: Vec<String> = args.iter().map(|t| t.to_string()).collect();
        return Err(Fail::Located(locate(
            function,
            "device function",
            function.span,
            &format!(
                "{}() is declared as '{}' and cannot take ({})",
                function.name,
                function.signature.as_deref().unwrap_or(""),
                shown.join(", ")
            ),
        )));
    }
    // Arrays keep the caller's layout (the same value; only its known contiguity differs).
    Ok(args
        .iter()
        .zip(params)
        .map(|(a, p)| match a {
            Ty::Array(_) => a.clone(),
            _ => p.clone(),
        })
        .collect())
}
