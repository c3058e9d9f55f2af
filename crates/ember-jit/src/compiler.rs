//! One compilation: a kernel (or a device function) typed for argument types into the typed
//! IR, with every device function it reaches, then written as source by a back end.

use ember_codegen::Dialect;
use ember_core::{DType, Error, Result};

use crate::ast::Program;
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
    /// shape and byte strides as `2 * ndim` int64s (none for 0-d arrays).
    Array { arg: usize, ndim: usize },
    /// Argument `arg` is a scalar passed as `dtype`'s C value type (bool as a byte, float16
    /// as float32).
    Scalar { arg: usize, dtype: DType },
    /// Scalar `item` (depth first) of argument `arg`, a tuple of scalars and such tuples
    /// (passed by value, one parameter per scalar, as `Scalar`).
    Item {
        arg: usize,
        item: usize,
        dtype: DType,
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

/// One checked index of a checked kernel: which array, which axis, where in the source.
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

/// The typing of one program: specialisations, and what they use.
pub struct Compiler<'p> {
    pub(crate) program: &'p Program,
    /// The target: typing rejects what its dialect cannot express (shared arrays in device
    /// functions on OpenCL); nothing typed depends on it otherwise.
    pub(crate) dialect: Dialect,
    pub(crate) specs: Vec<Spec>,
    /// Device functions being typed right now (to reject recursion).
    pub(crate) in_progress: Vec<usize>,
    pub(crate) uses: Uses,
    /// The kernel is coarsened (its tree already rewritten): how thread geometry reads.
    pub(crate) coarse: Option<Plan>,
}

impl<'p> Compiler<'p> {
    pub fn new(program: &'p Program, dialect: Dialect) -> Self {
        Compiler {
            program,
            dialect,
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
            Ty::None => {}
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
                if a.ndim > 0 && a.fixed.is_none() {
                    self.uses.helpers.insert(Helper::Dims(a.ndim));
                }
                self.uses.aggregates.push(ty.clone());
            }
        }
    }

    /// Records a function on an aggregate, once.
    pub(crate) fn aggregate_fn(&mut self, f: AggregateFn) {
        if !self.uses.aggregate_fns.contains(&f) {
            self.uses.aggregate_fns.push(f);
        }
    }

    /// The device function `id` specialised for `args`: its index and return type.
    pub(crate) fn specialise(
        &mut self,
        id: usize,
        args: &[Ty],
    ) -> std::result::Result<(usize, Ty), Fail> {
        if let Some(i) = self.specs.iter().position(|s| s.id == id && s.args == args) {
            return Ok((i, self.specs[i].ret.clone()));
        }
        let function = &self.program.functions[id];
        if self.in_progress.contains(&id) {
            let chain: Vec<&str> = self
                .in_progress
                .iter()
                .map(|&i| self.program.functions[i].name.as_str())
                .chain([function.name.as_str()])
                .collect();
            return Err(Fail::Located(locate(
                function,
                "device function",
                function.span,
                &format!(
                    "recursion is not supported in kernels (call chain: {}); rewrite it as a loop",
                    chain.join(" -> ")
                ),
            )));
        }
        self.in_progress.push(id);
        let ordinal = self.specs.len();
        let result = FnTyper::compile(self, id, args, Role::Device { ordinal });
        self.in_progress.pop();
        let ir = result.map_err(Fail::Located)?;
        let ret = ir.ret.clone();
        self.specs.push(Spec {
            id,
            args: args.to_vec(),
            ret: ret.clone(),
            ir,
        });
        Ok((self.specs.len() - 1, ret))
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
            if let Some(bad) = tuple_leaves(t)
                .into_iter()
                .find(|t| !matches!(t, Ty::Scalar(_)))
            {
                return Err(Error::Type(format!(
                    "kernel {} cannot take a tuple holding {bad}: tuples passed to kernels hold numbers",
                    function.name
                )));
            }
        } else if !matches!(t, Ty::Array(_) | Ty::Scalar(_)) {
            return Err(Error::Jit(format!(
                "kernel {} cannot take an argument of type {t}",
                function.name
            )));
        }
    }
    Ok(c.into_program(Some(kernel)))
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
            Ty::Tuple(_) => {
                for (item, t) in tuple_leaves(t).into_iter().enumerate() {
                    if let Ty::Scalar(dtype) = t {
                        params.push(ParamSlot::Item {
                            arg: i,
                            item,
                            dtype: *dtype,
                        });
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
    })
}
