//! The C back end: the typed IR written as CUDA C or OpenCL C through ember-codegen's dialect
//! tables. [`aggregates`] writes the structs of tuples and arrays, [`function`] functions and
//! statements, [`expr`] expressions, [`memory`] element addresses, loads, stores and views,
//! [`literal`] constants, [`intrinsic`] the registry's device functions, [`half`] float16 on
//! CUDA by its f16 instructions.

mod aggregates;
mod expr;
mod function;
mod half;
mod hoisted;
mod intrinsic;
mod literal;
mod memory;

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt::Write;

use ember_codegen::Dialect;
use ember_core::DType;

use crate::ast::Program;
use crate::compiler::Site;
use crate::helpers::Helper;
use crate::ir::{expressions, ExprKind, IrFunction, IrProgram, Role};
use crate::types::Space;

/// Writes one program's C.
pub(crate) struct Emitter<'a> {
    pub(crate) ir: &'a IrProgram,
    pub(crate) program: &'a Program,
    pub(crate) dialect: Dialect,
    /// Checked mode: every array index is checked (functions take the fault record), and
    /// each checked index is a site, numbered in this list.
    pub(crate) checked: Option<RefCell<Vec<Site>>>,
}

/// The kernel's whole source, its entry point's name, and (checked) its sites.
pub(crate) fn kernel_source(
    ir: &IrProgram,
    program: &Program,
    dialect: Dialect,
    checked: bool,
) -> (String, String, Vec<Site>) {
    let e = Emitter {
        ir,
        program,
        dialect,
        checked: checked.then(|| RefCell::new(Vec::new())),
    };
    let Some(kernel) = &ir.kernel else {
        return (String::new(), String::new(), Vec::new());
    };
    let mut source = e.head();
    source.push_str(&e.functions(&kernel.calls));
    source.push_str(&e.function(kernel));
    let name = e.function_name(kernel);
    let sites = e.checked.map(RefCell::into_inner).unwrap_or_default();
    (source, name, sites)
}

/// A device function's preamble (everything before a call site) and its name.
pub(crate) fn device_source(
    ir: &IrProgram,
    program: &Program,
    dialect: Dialect,
) -> (String, String) {
    let e = Emitter {
        ir,
        program,
        dialect,
        checked: None,
    };
    let Some(entry) = ir.functions.len().checked_sub(1) else {
        return (String::new(), String::new());
    };
    let mut preamble = e.head();
    preamble.push_str(&e.functions(&[entry]));
    (preamble, e.function_name(&ir.functions[entry]))
}

/// How a device function compiled on its own is entered (Numba's `abi=` of `compile`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Abi {
    /// `ret name(args)`: the C calling convention.
    C,
    /// `int name(ret* out, args)`: Numba's convention, the value through the first
    /// parameter and a status (0: no exception) returned.
    Numba,
}

/// A device function's source with an `extern "C"` entry point `entry` that calls it (what a
/// linker or Numba's `compile(device=True)` expects), returning `ret` (converted as C converts
/// where it differs from the function's own). `Err` names why it cannot stand alone.
pub(crate) fn device_entry_source(
    ir: &IrProgram,
    program: &Program,
    dialect: Dialect,
    entry: &str,
    abi: Abi,
    ret: &crate::types::Ty,
    forceinline: bool,
) -> Result<String, String> {
    let e = Emitter {
        ir,
        program,
        dialect,
        checked: None,
    };
    let Some(f) = ir.functions.last() else {
        return Err("there is no function to compile".into());
    };
    if !e.hoisted_params(f).0.is_empty() {
        return Err(format!(
            "{}() declares shared arrays, which only a kernel that calls it can provide: compile a kernel that calls it",
            f.name
        ));
    }
    // float16 crosses the entry as its 16 bits (Numba's ABI: a `.b16` parameter or value),
    // converted by the hardware's `cvt` to and from the float the function computes in.
    let half = |t: &crate::types::Ty| *t == crate::types::Ty::Scalar(DType::F16);
    let params: Vec<String> = f
        .params
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let t = if half(&p.ty) {
                "unsigned short".into()
            } else {
                e.c_type(&p.ty)
            };
            format!("{t} a{k}")
        })
        .collect();
    let call = format!(
        "{}({})",
        e.function_name(f),
        f.params
            .iter()
            .enumerate()
            .map(|(k, p)| if half(&p.ty) {
                format!("ember_h2f(a{k})")
            } else {
                format!("a{k}")
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    let value = if *ret == f.ret {
        call
    } else {
        format!("({})({call})", e.c_type(ret))
    };
    let (ret_c, value) = if half(ret) {
        ("unsigned short".to_string(), format!("ember_f2h({value})"))
    } else {
        (e.c_type(ret), value)
    };
    let inline = if forceinline { " __forceinline__" } else { "" };
    let mut source = e.head();
    source.push_str(&e.functions(&[ir.functions.len() - 1]));
    let none = matches!(ret, crate::types::Ty::None);
    let _ = match abi {
        Abi::C => writeln!(
            source,
            "extern \"C\" __device__{inline} {ret_c} {entry}({}) {{ {}{value}; }}",
            if params.is_empty() {
                "void".into()
            } else {
                params.join(", ")
            },
            if none { "" } else { "return " }
        ),
        Abi::Numba => {
            let out = if none {
                "void*".to_string()
            } else {
                format!("{ret_c}*")
            };
            let all: Vec<String> = std::iter::once(format!("{out} ret"))
                .chain(params)
                .collect();
            let store = if none {
                format!("{value};")
            } else {
                format!("*ret = {value};")
            };
            writeln!(
                source,
                "extern \"C\" __device__{inline} int {entry}({}) {{ {store} return 0; }}",
                all.join(", ")
            )
        }
    };
    Ok(source)
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

impl Emitter<'_> {
    /// The C name of a function.
    pub(crate) fn function_name(&self, f: &IrFunction) -> String {
        match f.role {
            Role::Kernel => format!("ember_kernel_{}", c_ident(&f.name)),
            Role::Device { ordinal } => format!("ember_fn{ordinal}_{}", c_ident(&f.name)),
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

    /// Everything before the functions: prelude, helpers, structs, constants.
    fn head(&self) -> String {
        let uses = &self.ir.uses;
        let dtypes: BTreeSet<DType> = uses.dtypes.clone();
        let mut s = ember_codegen::prelude::prelude_for(self.dialect, dtypes.iter().copied());
        if self.checked.is_some() {
            s.push_str(&ember_codegen::checked::prelude(self.dialect));
        }
        let helpers = self.helpers();
        s.push_str(&crate::helpers::extension_pragmas(&helpers, self.dialect));
        if uses.xoroshiro {
            s.push_str(&ember_codegen::xoroshiro::xoroshiro_prelude(self.dialect));
        }
        for h in &helpers {
            s.push_str(&h.source(self.dialect));
        }
        for (i, ty) in uses.aggregates.iter().enumerate() {
            s.push_str(&self.struct_definition(i, ty));
        }
        for f in &uses.aggregate_fns {
            s.push_str(&self.aggregate_fn(f));
        }
        for &id in &uses.constants {
            let array = &self.program.arrays[id];
            let dtype = crate::types::element_dtype_named(&array.dtype).unwrap_or(DType::F64);
            let table = self.dialect.table();
            let qualifier = table.constant;
            let values: Vec<String> = if dtype.kind() == ember_core::dtype::Kind::Complex {
                // Each value is "re,im".
                let vt = ember_codegen::types::value_type(dtype, self.dialect);
                array
                    .values
                    .iter()
                    .map(|v| {
                        table
                            .complex_initializer
                            .replace("{type}", vt)
                            .replace("{parts}", v)
                    })
                    .collect()
            } else {
                array.values.clone()
            };
            let _ = writeln!(
                s,
                "{qualifier}{} ember_const{id}[{}] = {{{}}};",
                self.elem_type(dtype),
                values.len().max(1),
                if values.is_empty() {
                    "0".to_string()
                } else {
                    values.join(", ")
                }
            );
        }
        s
    }

    /// The helpers typing found, and the device functions of the ufuncs the code calls (as
    /// their registry writes them for this dialect).
    fn helpers(&self) -> BTreeSet<Helper> {
        let mut helpers = self.ir.uses.helpers.clone();
        let functions = self.ir.functions.iter().chain(self.ir.kernel.iter());
        for e in functions.flat_map(|f| expressions(&f.body)) {
            if let ExprKind::Ufunc { name, ins, args } = &e.kind {
                let (Some(out), Ok(u)) = (e.dtype(), ember_codegen::ufuncs::ufunc(name)) else {
                    continue;
                };
                let probe: Vec<String> = (0..args.len()).map(|k| format!("a{k}")).collect();
                if let Ok(x) = u.expression(ins, out, &probe, self.dialect) {
                    if !x.helpers.is_empty() {
                        helpers.insert(Helper::Text(x.helpers));
                    }
                }
            }
        }
        helpers
    }

    /// The device functions reachable from `calls`, callees first; recursive ones are
    /// declared ahead of all (C calls only what it has seen declared).
    fn functions(&self, calls: &[usize]) -> String {
        let mut order = Vec::new();
        let mut seen = BTreeSet::new();
        let mut cycle = false;
        fn visit(
            ir: &IrProgram,
            i: usize,
            seen: &mut BTreeSet<usize>,
            order: &mut Vec<usize>,
            cycle: &mut bool,
        ) {
            if !seen.insert(i) {
                // Seen but not yet placed: a call back into a function being visited.
                *cycle |= !order.contains(&i);
                return;
            }
            for &j in &ir.functions[i].calls {
                visit(ir, j, seen, order, cycle);
            }
            order.push(i);
        }
        for &i in calls {
            visit(self.ir, i, &mut seen, &mut order, &mut cycle);
        }
        let texts: Vec<String> = order
            .into_iter()
            .map(|i| self.function(&self.ir.functions[i]))
            .collect();
        let mut out = String::new();
        if cycle {
            for t in &texts {
                if let Some((head, _)) = t.split_once(" {\n") {
                    out.push_str(head);
                    out.push_str(";\n");
                }
            }
        }
        out.extend(texts);
        out
    }

    /// Whether the kernel takes the dynamic shared memory as parameters (OpenCL).
    pub(crate) fn dynamic_shared_param(&self) -> bool {
        self.dialect.table().dynamic_shared_param
            && self.ir.uses.helpers.contains(&Helper::DynamicShared)
    }
}
