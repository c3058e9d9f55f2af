//! One compilation: a kernel (or a device function) specialised for argument types, with every
//! device function it reaches, the C structs its tuples and arrays need and the helpers it
//! calls, assembled into one source.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use ember_codegen::types::storage_type;
use ember_codegen::Dialect;
use ember_core::{DType, Error, Result};

use crate::ast::Program;
use crate::coarsen::{coarsen, Plan};
use crate::error::{locate, Fail};
use crate::function::{FnCompiler, Role};
use crate::helpers::Helper;
use crate::types::{ArrayTy, Space, Ty};

/// What a kernel parameter receives at launch, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamSlot {
    /// Argument `arg` is an array: its data (a buffer, plus an offset on OpenCL), then its
    /// shape and byte strides as `2 * ndim` int64s (none for 0-d arrays).
    Array { arg: usize, ndim: usize },
    /// Argument `arg` is a scalar passed as `dtype`'s C value type (bool as a byte, float16
    /// as float32).
    Scalar { arg: usize, dtype: DType },
    /// OpenCL only: the launch's dynamic shared memory (`__local` bytes), then its size as
    /// an int64.
    DynamicShared,
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
    pub name: String,
    pub ret: Ty,
    pub code: String,
    /// Specialisations this one's code calls (indices into `Compiler::specs`).
    pub calls: Vec<usize>,
}

pub struct Compiler<'p> {
    pub(crate) program: &'p Program,
    pub(crate) dialect: Dialect,
    pub(crate) specs: Vec<Spec>,
    /// Device functions being typed right now (to reject recursion).
    pub(crate) in_progress: Vec<usize>,
    /// Tuple and array C structs, in definition order.
    structs: Vec<(Ty, String, String)>,
    pub(crate) helpers: BTreeSet<Helper>,
    pub(crate) dtypes: BTreeSet<DType>,
    /// Constant arrays read, by id, with their C names.
    pub(crate) constants: BTreeMap<usize, String>,
    pub(crate) xoroshiro: bool,
    /// Small functions on the structs (tuple makers, getters), after the struct definitions.
    extras: Vec<String>,
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
            structs: Vec::new(),
            helpers: BTreeSet::new(),
            dtypes: BTreeSet::new(),
            constants: BTreeMap::new(),
            xoroshiro: false,
            extras: Vec::new(),
            coarse: None,
        }
    }

    /// The C type of values of `ty`, defining its struct on first use.
    pub(crate) fn c_type(&mut self, ty: &Ty) -> String {
        match ty {
            Ty::Scalar(d) => {
                self.dtypes.insert(*d);
                ember_codegen::types::value_type(*d, self.dialect).to_string()
            }
            Ty::None => "void".into(),
            Ty::Tuple(_) | Ty::Array(_) => {
                if let Some((_, name, _)) = self.structs.iter().find(|(t, _, _)| t == ty) {
                    return name.clone();
                }
                let def = match ty {
                    Ty::Tuple(items) => {
                        let fields: Vec<String> = items.iter().map(|t| self.c_type(t)).collect();
                        tuple_struct(&format!("ember_tup{}", self.structs.len()), &fields)
                    }
                    Ty::Array(a) => {
                        self.dtypes.insert(a.dtype);
                        let elem = storage_type(a.dtype, self.dialect);
                        let dims = if a.ndim == 0 || a.fixed.is_some() {
                            String::new()
                        } else {
                            self.helpers.insert(Helper::Dims(a.ndim));
                            format!(" ember_dims{} d;", a.ndim)
                        };
                        format!(
                            "typedef struct {{ {}{elem}* data;{dims} }} ember_arr{};\n",
                            self.qualifier(a.space),
                            self.structs.len()
                        )
                    }
                    _ => unreachable!("only tuples and arrays have structs"),
                };
                // Named after the fields are defined, so nested tuples take lower numbers.
                let name = format!("ember_{}{}", kind_of(ty), self.structs.len());
                self.structs.push((ty.clone(), name.clone(), def));
                name
            }
        }
    }

    /// Adds a function on the structs, once.
    pub(crate) fn extra(&mut self, code: String) {
        if !self.extras.contains(&code) {
            self.extras.push(code);
        }
    }

    /// The address-space qualifier of pointers into `space`.
    pub(crate) fn qualifier(&self, space: Space) -> &'static str {
        let t = self.dialect.table();
        match space {
            Space::Global => t.global,
            Space::Shared => t.shared_pointer,
            Space::Const => t.constant_pointer,
            Space::Local => "",
        }
    }

    /// The device function `id` specialised for `args`: its C name and return type.
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
        let name = format!("ember_fn{}_{}", self.specs.len(), c_ident(&function.name));
        let result = FnCompiler::compile(self, id, args, Role::Device(name.clone()));
        self.in_progress.pop();
        let (code, ret, calls) = result.map_err(Fail::Located)?;
        self.specs.push(Spec {
            id,
            args: args.to_vec(),
            name,
            ret: ret.clone(),
            code,
            calls,
        });
        Ok((self.specs.len() - 1, ret))
    }

    /// Everything before the functions: prelude, helpers, structs, constants.
    fn head(&mut self) -> String {
        let mut s = ember_codegen::prelude::prelude_for(self.dialect, self.dtypes.iter().copied());
        s.push_str(&crate::helpers::extension_pragmas(
            &self.helpers,
            self.dialect,
        ));
        if self.xoroshiro {
            s.push_str(&ember_codegen::xoroshiro::xoroshiro_prelude(self.dialect));
        }
        let helpers: Vec<Helper> = self.helpers.iter().cloned().collect();
        for h in &helpers {
            s.push_str(&h.source(self.dialect));
        }
        for (_, _, def) in &self.structs {
            s.push_str(def);
        }
        for e in &self.extras {
            s.push_str(e);
        }
        for (id, name) in &self.constants {
            let array = &self.program.arrays[*id];
            let dtype = crate::types::dtype_named(&array.dtype).unwrap_or(DType::F64);
            let qualifier = self.dialect.table().constant;
            let _ = writeln!(
                s,
                "{qualifier}{} {name}[{}] = {{{}}};",
                storage_type(dtype, self.dialect),
                array.values.len().max(1),
                if array.values.is_empty() {
                    "0".to_string()
                } else {
                    array.values.join(", ")
                }
            );
        }
        s
    }

    /// The device functions reachable from `calls`, callees first.
    fn reachable(&self, calls: &[usize]) -> Vec<usize> {
        let mut order = Vec::new();
        let mut seen = BTreeSet::new();
        fn visit(c: &Compiler<'_>, i: usize, seen: &mut BTreeSet<usize>, order: &mut Vec<usize>) {
            if !seen.insert(i) {
                return;
            }
            for &j in &c.specs[i].calls {
                visit(c, j, seen, order);
            }
            order.push(i);
        }
        for &i in calls {
            visit(self, i, &mut seen, &mut order);
        }
        order
    }

    fn functions(&self, calls: &[usize]) -> String {
        self.reachable(calls)
            .into_iter()
            .map(|i| self.specs[i].code.as_str())
            .collect()
    }
}

fn kind_of(ty: &Ty) -> &'static str {
    match ty {
        Ty::Tuple(_) => "tup",
        _ => "arr",
    }
}

fn tuple_struct(name: &str, fields: &[String]) -> String {
    let mut s = String::from("typedef struct {");
    for (i, f) in fields.iter().enumerate() {
        let _ = write!(s, " {f} f{i};");
    }
    if fields.is_empty() {
        s.push_str(" char unused;");
    }
    let _ = writeln!(s, " }} {name};");
    s
}

/// `name` as a C identifier (Python allows letters C does not).
pub(crate) fn c_ident(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c.to_string()
            } else {
                format!("_u{:x}_", c as u32)
            }
        })
        .collect()
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
    let plain = || compile(program, args, dialect, None);
    let Some(plan) = plan else {
        return plain();
    };
    let Ok(rewritten) = coarsen(program, plan) else {
        return plain();
    };
    match compile(&rewritten, args, dialect, Some(*plan)) {
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
    compile(program, args, dialect, None)
}

fn compile(
    program: &Program,
    args: &[Ty],
    dialect: Dialect,
    coarse: Option<Plan>,
) -> Result<KernelSource> {
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
    let name = format!("ember_kernel_{}", c_ident(&function.name));
    let (code, _, calls) = FnCompiler::compile(&mut c, 0, args, Role::Kernel(name.clone()))?;
    let mut params = Vec::new();
    for (i, t) in args.iter().enumerate() {
        params.push(match t {
            Ty::Array(a) => ParamSlot::Array {
                arg: i,
                ndim: a.ndim,
            },
            Ty::Scalar(d) => ParamSlot::Scalar { arg: i, dtype: *d },
            other => {
                return Err(Error::Jit(format!(
                    "kernel {} cannot take an argument of type {other}",
                    function.name
                )))
            }
        });
    }
    if dialect.table().dynamic_shared_param && c.helpers.contains(&Helper::DynamicShared) {
        params.push(ParamSlot::DynamicShared);
    }
    let mut source = c.head();
    source.push_str(&c.functions(&calls));
    source.push_str(&code);
    Ok(KernelSource {
        source,
        name,
        params,
        coarse,
    })
}

/// Compiles function 0 of `program` as a device function for arguments of `args` (the body of
/// a `@vectorize` ufunc).
pub fn compile_device(program: &Program, args: &[Ty], dialect: Dialect) -> Result<DeviceSource> {
    let mut c = Compiler::new(program, dialect);
    let (index, ret) = c.specialise(0, args).map_err(|f| match f {
        Fail::Located(e) => e,
        Fail::At(_, m) | Fail::Pending(_, m) => Error::Jit(m),
    })?;
    let mut preamble = c.head();
    preamble.push_str(&c.functions(&[index]));
    Ok(DeviceSource {
        preamble,
        name: c.specs[index].name.clone(),
        ret,
    })
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
