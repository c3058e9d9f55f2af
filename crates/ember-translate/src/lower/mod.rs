//! The tree to OpenCL C: every kernel (and each template instance asked for by name), the
//! device functions they call — one copy per combination of address spaces their pointer
//! arguments have, as OpenCL C pointers carry their memory in their type — structs, constants
//! and the helpers the translation needs (atomics OpenCL lacks, CUDA's integer intrinsics).

mod atomics;
mod builtins;
mod calls;
mod expr;
mod function;
mod half;
pub mod layout;
mod names;
mod shared;
mod subst;

use std::collections::{BTreeSet, HashMap};

use crate::ast::{FnKind, Function, Item, Scalar, Space, StructDef, Type, Unit};
use crate::error::{Result, TranslateError};

/// Function instances one translation may make: a bound on templates that recurse.
const MAX_INSTANCES: usize = 2000;

/// The OpenCL C program and how its kernels are named.
#[derive(Clone, Debug, PartialEq)]
pub struct Translation {
    pub source: String,
    pub kernels: Vec<KernelName>,
    /// The module's variables kept in buffers: `__constant__` variables the host fills
    /// (`get_global`) and `__device__` variables (OpenCL C 1.2 has no writable program-scope
    /// variables): name and initial bytes (their size; zeros without an initialiser). Each is
    /// a buffer of the module, passed to the kernels that use it.
    pub constants: Vec<(String, Vec<u8>)>,
}

/// A kernel's CUDA name (or name expression, `fill<float>`) and its OpenCL name.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelName {
    pub cuda: String,
    pub opencl: String,
    /// The kernel takes the launch's dynamic shared memory as a last `__local` argument.
    pub dynamic_shared: bool,
    /// The host-filled `__constant__` variables it reads, passed after its own arguments.
    pub constants: Vec<String>,
}

/// A function to emit: which definition, the spaces of its pointer parameters, the types of
/// its template parameters.
#[derive(Clone, Debug, PartialEq)]
struct Instance {
    function: usize,
    spaces: Vec<Space>,
    targs: Vec<Type>,
    /// A kernel launched by a kernel: emitted as one thread's function, its indices passed in.
    child: bool,
}

/// The whole program being emitted.
pub(crate) struct Program<'u> {
    structs: HashMap<String, &'u StructDef>,
    functions: Vec<&'u Function>,
    globals: HashMap<String, (Type, Space)>,
    enums: HashMap<String, i64>,
    /// Instances emitted or queued, with their OpenCL names.
    instances: Vec<(Instance, String)>,
    queue: Vec<usize>,
    /// Helper functions the translation uses, by name, in the order first needed.
    helpers: Vec<(String, String)>,
    /// CUDA vector types of width 1 or 3 used (structs of their own in OpenCL C).
    odd_vectors: BTreeSet<(Scalar, u8)>,
    globals_text: String,
    prototypes: String,
    bodies: String,
    kernels: Vec<KernelName>,
    /// What each function reaches (device functions' `__shared__` arrays, host-filled
    /// constants), by function name.
    reached: HashMap<String, shared::Reached>,
    /// The host-filled `__constant__` variables: name, type, size in bytes.
    constant_buffers: Vec<ModuleVariable>,
    /// Kernels that take the launch's dynamic shared memory as their last argument.
    dynamic_shared: BTreeSet<String>,
    /// Whether doubles (or 64-bit atomics) appear: the extension pragmas are emitted then.
    uses_double: bool,
    uses_atomics64: bool,
}

/// Translates a parsed unit: every non-template kernel, and the template kernels named in
/// `name_expressions` (`fill<float>`).
pub fn lower(unit: &Unit, name_expressions: &[(String, String, Vec<Type>)]) -> Result<Translation> {
    let mut p = Program {
        structs: HashMap::new(),
        functions: Vec::new(),
        globals: HashMap::new(),
        enums: HashMap::new(),
        instances: Vec::new(),
        queue: Vec::new(),
        helpers: Vec::new(),
        odd_vectors: BTreeSet::new(),
        globals_text: String::new(),
        prototypes: String::new(),
        bodies: String::new(),
        kernels: Vec::new(),
        reached: HashMap::new(),
        constant_buffers: Vec::new(),
        dynamic_shared: BTreeSet::new(),
        uses_double: false,
        uses_atomics64: false,
    };
    let mut struct_text = String::new();
    for item in &unit.items {
        match item {
            Item::Struct(s) => {
                p.structs.insert(s.name.clone(), s);
                struct_text.push_str(&p.struct_definition(s)?);
            }
            Item::Function(f) => {
                if f.kind != FnKind::Host {
                    // A definition replaces an earlier declaration of the same signature.
                    match p.functions.iter().position(|g| same_signature(g, f)) {
                        Some(i) if f.body.is_some() => p.functions[i] = f,
                        Some(_) => {}
                        None => p.functions.push(f),
                    }
                }
            }
            Item::Enum(constants, _) => {
                for (n, v) in constants {
                    p.enums.insert(n.clone(), *v);
                }
            }
            Item::Global(v) => p.global(v)?,
        }
    }
    let constant_names: Vec<String> = p.constant_buffers.iter().map(|v| v.name.clone()).collect();
    p.reached = shared::reached(&p.functions, &constant_names);
    for i in 0..p.functions.len() {
        let f = p.functions[i];
        if f.kind == FnKind::Kernel && f.template.is_empty() && f.body.is_some() {
            let name = p.instantiate(i, kernel_spaces(f), Vec::new())?;
            p.kernels.push(KernelName {
                cuda: f.name.clone(),
                opencl: name,
                dynamic_shared: false,
                constants: p.constants_of(&f.name),
            });
        }
    }
    for (expression, base, targs) in name_expressions {
        let i = p
            .functions
            .iter()
            .position(|f| f.name == *base && f.template.len() == targs.len() && f.body.is_some())
            .ok_or_else(|| {
                TranslateError::new(0, format!("name expression {expression}: the source has no template {base} with {} parameter(s)", targs.len()))
            })?;
        let f = p.functions[i];
        let name = p.instantiate(i, kernel_spaces(f), targs.clone())?;
        p.kernels.push(KernelName {
            cuda: expression.clone(),
            opencl: name,
            dynamic_shared: false,
            constants: p.constants_of(&f.name),
        });
    }
    while let Some(k) = p.queue.pop() {
        p.emit_instance(k)?;
    }
    for k in &mut p.kernels {
        k.dynamic_shared = p.dynamic_shared.contains(&k.opencl);
    }
    Ok(Translation {
        source: p.assemble(&struct_text),
        kernels: p.kernels,
        constants: p
            .constant_buffers
            .iter()
            .map(|v| (v.name.clone(), v.init.clone()))
            .collect(),
    })
}

/// A variable of the module kept in a buffer (see [`Translation::constants`]).
#[derive(Clone, Debug)]
pub(crate) struct ModuleVariable {
    pub name: String,
    pub ty: Type,
    /// Constant (host-filled `__constant__`) or global (`__device__`).
    pub space: Space,
    pub init: Vec<u8>,
}

/// A kernel's pointer parameters point to global memory.
fn kernel_spaces(f: &Function) -> Vec<Space> {
    f.params
        .iter()
        .filter(|p| matches!(p.ty, Type::Pointer(_) | Type::Ref(_)))
        .map(|_| Space::Global)
        .collect()
}

/// Two declarations of one function (same name, same parameter types).
fn same_signature(a: &Function, b: &Function) -> bool {
    a.name == b.name
        && a.params.len() == b.params.len()
        && a.params.iter().zip(&b.params).all(|(x, y)| x.ty == y.ty)
        && a.template == b.template
        && a.specialization == b.specialization
}

impl<'u> Program<'u> {
    /// The OpenCL name of `instance` of function `index`, queued for emission if new.
    fn instantiate(
        &mut self,
        index: usize,
        spaces: Vec<Space>,
        targs: Vec<Type>,
    ) -> Result<String> {
        self.instance(index, spaces, targs, false)
    }

    /// The OpenCL name of the function running one thread of kernel `index`'s grid when a
    /// kernel launches it; its launcher (the loops over the grid) is that name with `_grid`.
    fn instantiate_child(
        &mut self,
        index: usize,
        spaces: Vec<Space>,
        targs: Vec<Type>,
    ) -> Result<String> {
        self.instance(index, spaces, targs, true)
    }

    fn instance(
        &mut self,
        index: usize,
        spaces: Vec<Space>,
        targs: Vec<Type>,
        child: bool,
    ) -> Result<String> {
        let instance = Instance {
            function: index,
            spaces,
            targs,
            child,
        };
        if let Some((_, name)) = self.instances.iter().find(|(i, _)| *i == instance) {
            return Ok(name.clone());
        }
        let f = self.functions[index];
        if self.instances.len() >= MAX_INSTANCES {
            return Err(TranslateError::new(
                f.line,
                format!("more than {MAX_INSTANCES} instances of functions: does template {} instantiate itself without end (recursion needs 'if constexpr' to stop)?", f.name),
            ));
        }
        let mut name = names::user(&f.name);
        for t in &instance.targs {
            name.push_str("__");
            name.push_str(&names::type_tag(t));
        }
        let overloaded = self.functions.iter().filter(|g| g.name == f.name).count() > 1;
        if overloaded {
            name.push_str(&format!("_o{index}"));
        }
        if instance.child {
            name.push_str("_thread");
        }
        if (f.kind != FnKind::Kernel || instance.child) && !instance.spaces.is_empty() {
            name.push_str("_s");
            name.extend(instance.spaces.iter().map(|s| s.tag()));
        }
        self.instances.push((instance, name.clone()));
        self.queue.push(self.instances.len() - 1);
        Ok(name)
    }

    /// The host-filled constants function `name` reads (itself or through its calls).
    fn constants_of(&self, name: &str) -> Vec<String> {
        self.reached
            .get(name)
            .map(|r| r.constants.clone())
            .unwrap_or_default()
    }

    /// Adds a helper function's text once.
    /// The module variable kept in a buffer under `name`.
    pub(crate) fn variable(&self, name: &str) -> Option<&ModuleVariable> {
        self.constant_buffers.iter().find(|v| v.name == name)
    }

    pub(crate) fn helper(&mut self, name: &str, text: impl FnOnce() -> String) {
        if !self.helpers.iter().any(|(n, _)| n == name) {
            let t = text();
            self.uses_double |= t.contains("double");
            self.helpers.push((name.to_string(), t));
        }
    }

    /// The OpenCL name of a struct (renamed if it collides with an OpenCL word).
    pub(crate) fn struct_name(name: &str) -> String {
        names::user(name)
    }

    fn struct_definition(&mut self, s: &StructDef) -> Result<String> {
        let name = Self::struct_name(&s.name);
        let keyword = if s.union { "union" } else { "struct" };
        let mut text = format!("typedef {keyword} {name} {{\n");
        for (field, ty) in &s.fields {
            if half::lanes(ty).is_some() {
                // Its float would not have CUDA's layout in memory.
                return Err(TranslateError::new(
                    s.line,
                    format!("struct {}: a __half field ({field}) is not translated (a half computes in a float here); make it float or unsigned short", s.name),
                ));
            }
            self.note_type(ty);
            text.push_str(&format!("    {};\n", self.declare(ty, &names::user(field))));
        }
        text.push_str(&format!("}} {name};\n"));
        Ok(text)
    }

    /// `ty` declaring `name` in OpenCL C.
    pub(crate) fn declare(&self, ty: &Type, name: &str) -> String {
        layout::declare(ty, name, &|s| Self::struct_name(s))
    }

    /// Notes what a type needs in the program's header (odd vectors, doubles).
    pub(crate) fn note_type(&mut self, ty: &Type) {
        match ty {
            Type::Vector(s, n) => {
                if layout::vector_is_struct(*n) {
                    self.odd_vectors.insert((*s, *n));
                }
                if *s == Scalar::Double {
                    self.uses_double = true;
                }
            }
            Type::Scalar(Scalar::Double) => self.uses_double = true,
            Type::Scalar(Scalar::Half) => {}
            Type::Pointer(p) | Type::Ref(p) => self.note_type(&p.ty),
            Type::Array(e, _) => self.note_type(e),
            _ => {}
        }
    }

    /// A variable at file scope: `__constant__` data and `const` values with initialisers
    /// (program-scope constants), host-filled `__constant__` and `__device__` variables
    /// (buffers of the module).
    fn global(&mut self, v: &crate::ast::VarDecl) -> Result<()> {
        use crate::ast::Storage;
        let writable_from_host = matches!(v.storage, Storage::Constant) && v.init.is_none();
        let device_variable = v.storage == Storage::Device && !v.konst;
        if writable_from_host || device_variable {
            // A buffer of the module, passed to the kernels that use it (`get_global`).
            let what = if device_variable {
                "__device__"
            } else {
                "__constant__"
            };
            let size = layout::size_of_plain(&v.ty).ok_or_else(|| {
                TranslateError::new(
                    v.line,
                    format!(
                        "{what} {}: only numbers, vectors and arrays of them are translated",
                        v.name
                    ),
                )
            })?;
            let init = match &v.init {
                None => vec![0; size as usize],
                Some(e) => layout::initial_bytes(&v.ty, e, size).ok_or_else(|| {
                    TranslateError::new(
                        v.line,
                        format!("{what} {}: its initialiser must be numbers (constants) to be translated", v.name),
                    )
                })?,
            };
            self.note_type(&v.ty);
            self.constant_buffers.push(ModuleVariable {
                name: v.name.clone(),
                ty: v.ty.clone(),
                space: if device_variable {
                    Space::Global
                } else {
                    Space::Constant
                },
                init,
            });
            return Ok(());
        }
        if !(v.konst || v.storage == Storage::Constant) || v.init.is_none() {
            return Err(TranslateError::new(
                v.line,
                format!(
                    "the file-scope variable {} is written by kernels: OpenCL C has no program-scope global variables before 2.0; pass it as a kernel argument",
                    v.name
                ),
            ));
        }
        self.note_type(&v.ty);
        let ty = v.ty.clone();
        let text = {
            let mut cx = function::FnCx::constant_context(self);
            let init = cx.initializer(v.init.as_ref().expect("checked above"), &ty)?;
            format!(
                "__constant {} = {init};\n",
                cx.prog.declare(&ty, &names::user(&v.name))
            )
        };
        self.globals_text.push_str(&text);
        self.globals.insert(v.name.clone(), (ty, Space::Constant));
        Ok(())
    }

    fn emit_instance(&mut self, k: usize) -> Result<()> {
        let (instance, name) = self.instances[k].clone();
        let f = self.functions[instance.function];
        let emitted = function::emit(self, f, &instance, &name)?;
        if f.kind != FnKind::Kernel || instance.child {
            self.prototypes.push_str(&emitted.prototype);
            self.prototypes.push_str(";\n");
        }
        if let Some((prototype, launcher)) = emitted.launcher {
            self.prototypes.push_str(&prototype);
            self.prototypes.push_str(";\n");
            self.bodies.push_str(&launcher);
        }
        if emitted.dynamic_shared {
            self.dynamic_shared.insert(name);
        }
        self.bodies.push_str(&emitted.body);
        Ok(())
    }

    fn assemble(&self, structs: &str) -> String {
        let mut out = String::from("// Translated from CUDA C by ember.\n");
        if self.uses_double {
            out.push_str("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
        }
        if self.uses_atomics64 {
            out.push_str("#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n");
        }
        for (s, n) in &self.odd_vectors {
            out.push_str(&odd_vector(*s, *n));
        }
        out.push_str(structs);
        out.push_str(&self.globals_text);
        for (_, text) in &self.helpers {
            out.push_str(text);
        }
        out.push_str(&self.prototypes);
        out.push_str(&self.bodies);
        out
    }
}

/// A CUDA vector of width 1 or 3 as a struct, with its `make_` function.
fn odd_vector(s: Scalar, n: u8) -> String {
    let name = layout::vector_name(s, n);
    let t = s.opencl();
    let fields = ["x", "y", "z"];
    let fields = &fields[..n as usize];
    let params: Vec<String> = fields.iter().map(|f| format!("{t} {f}")).collect();
    let sets: Vec<String> = fields.iter().map(|f| format!("v.{f} = {f};")).collect();
    format!(
        "typedef struct {{ {t} {}; }} {name};\ninline {name} make_{name}({}) {{ {name} v; {} return v; }}\n",
        fields.join(", "),
        params.join(", "),
        sets.join(" ")
    )
}
