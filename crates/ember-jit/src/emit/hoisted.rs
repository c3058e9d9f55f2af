//! Shared arrays of device functions on dialects that declare them only in the kernel
//! (OpenCL: `__local` variables live at kernel scope). The kernel declares every shared array
//! of the device functions it reaches, once (a `__shared__` array in a CUDA device function is
//! one per block too, however often it is called), and passes each down as a pointer to the
//! functions that use it, directly or through their callees.

use std::collections::BTreeSet;

use super::function::temp_name;
use super::Emitter;
use crate::ir::{FixedArrayDecl, IrFunction};
use crate::types::Space;

impl Emitter<'_> {
    /// Whether device functions' shared arrays are hoisted into the kernel.
    fn hoists(&self) -> bool {
        !self.dialect.table().shared_in_device_functions
    }

    /// The shared arrays function `i` reaches (its own and its callees'), as (function, array).
    fn reached(&self, i: usize) -> Vec<(usize, &FixedArrayDecl)> {
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        let mut stack = vec![i];
        while let Some(j) = stack.pop() {
            if !seen.insert(j) {
                continue;
            }
            let f = &self.ir.functions[j];
            out.extend(f.arrays.iter().filter(|a| a.shared).map(|a| (j, a)));
            stack.extend(f.calls.iter().rev());
        }
        out
    }

    /// The declaration of shared or local array storage `name` (one line, or two).
    ///
    /// 16-byte alignment, unless `alignment=` asks more, lets the C compiler merge neighbouring
    /// element reads into vector loads (a tiled matmul reads a shared row four floats at a
    /// time). OpenCL devices need not honour larger alignments of local and private arrays
    /// (PoCL's stop at 64 bytes), so there a larger one is made by hand: raw bytes, and `name`
    /// a pointer to their first aligned byte.
    pub(crate) fn storage_decl(&self, a: &FixedArrayDecl, name: &str) -> String {
        let elem = self.elem_type(a.dtype);
        let space = if a.shared {
            format!("{} ", self.dialect.table().shared)
        } else {
            String::new()
        };
        let align = a.align.unwrap_or(16);
        if self.dialect == ember_codegen::Dialect::OpenCl && align > 16 {
            let bytes = a.count * a.dtype.itemsize() as i64 + i64::from(align) - 16;
            let (_, sixteen) = self.dialect.aligned(16);
            return format!(
                "  {space}uchar {name}_raw[{bytes}]{sixteen};\n  {space}{elem}* {name} = ({space}{elem}*)(((size_t){name}_raw + {m}) & ~(size_t){m});\n",
                m = align - 1
            );
        }
        let (before, after) = self.dialect.aligned(align);
        format!("  {space}{before}{elem} {name}[{}]{after};\n", a.count)
    }

    fn hoisted_name(j: usize, a: &FixedArrayDecl) -> String {
        format!("ember_sh{j}_{}", temp_name(a.storage))
    }

    /// Extra arguments of a call of function `callee`: the shared arrays it reaches.
    pub(crate) fn hoisted_args(&self, callee: usize) -> Vec<String> {
        if !self.hoists() {
            return Vec::new();
        }
        self.reached(callee)
            .into_iter()
            .map(|(j, a)| Self::hoisted_name(j, a))
            .collect()
    }

    fn index_of(&self, f: &IrFunction) -> Option<usize> {
        self.ir.functions.iter().position(|g| std::ptr::eq(g, f))
    }

    /// Whether `f`'s own shared array `a` is declared elsewhere (received as a parameter).
    pub(crate) fn is_hoisted(&self, f: &IrFunction, a: &FixedArrayDecl) -> bool {
        a.shared && self.hoists() && self.index_of(f).is_some()
    }

    /// For device function `f`: its extra parameters, and the prologue naming its own shared
    /// arrays as its body does.
    pub(crate) fn hoisted_params(&self, f: &IrFunction) -> (Vec<String>, String) {
        let Some(i) = self.index_of(f).filter(|_| self.hoists()) else {
            return (Vec::new(), String::new());
        };
        let q = self.qualifier(Space::Shared);
        let mut params = Vec::new();
        let mut prologue = String::new();
        for (j, a) in self.reached(i) {
            let elem = self.elem_type(a.dtype);
            let name = Self::hoisted_name(j, a);
            params.push(format!("{q}{elem}* {name}"));
            if j == i {
                prologue.push_str(&format!(
                    "  {q}{elem}* {} = {name};\n",
                    temp_name(a.storage)
                ));
            }
        }
        (params, prologue)
    }

    /// For the kernel: the declarations of the shared arrays of the device functions it calls.
    pub(crate) fn hoisted_decls(&self, kernel: &IrFunction) -> String {
        if !self.hoists() {
            return String::new();
        }
        let mut seen = BTreeSet::new();
        let mut out = String::new();
        for &c in &kernel.calls {
            for (j, a) in self.reached(c) {
                let name = Self::hoisted_name(j, a);
                if seen.insert(name.clone()) {
                    out.push_str(&self.storage_decl(a, &name));
                }
            }
        }
        out
    }
}
