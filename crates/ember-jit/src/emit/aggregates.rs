//! C types: scalars by the dialect's value types, tuples and arrays as structs named by
//! their place in the program's first-use order, and the small functions on them.

use std::fmt::Write;

use ember_codegen::types::{storage_type, value_type};

use super::Emitter;
use crate::helpers::record_bytes_name;
use crate::ir::AggregateFn;
use crate::types::{record_of, Ty, INT64};
use ember_core::DType;

impl Emitter<'_> {
    /// The C type of an array element of dtype `d` in memory: a structured dtype's bytes, or
    /// a scalar's storage type.
    pub(crate) fn elem_type(&self, d: DType) -> String {
        match record_of(d) {
            Some(r) => record_bytes_name(r.itemsize, r.alignment_at(0)),
            None => storage_type(d, self.dialect).to_string(),
        }
    }

    /// The C type of values of `ty`.
    pub(crate) fn c_type(&self, ty: &Ty) -> String {
        match ty {
            Ty::Scalar(d) => value_type(*d, self.dialect).to_string(),
            Ty::None => "void".into(),
            // A group has no data: a placeholder int where one is named.
            Ty::Group => "int".into(),
            // Typing keeps optional values to host functions (compiled for the CPU): a C
            // compiler that meets one names ember's bug.
            Ty::Optional(_) => "ember_optional_values_are_host_only".into(),
            Ty::Record(r) => format!("{}unsigned char*", self.qualifier(r.space)),
            Ty::Tuple(_) | Ty::Array(_) => {
                let i = self.ir.uses.aggregates.iter().position(|t| t == ty);
                let kind = if matches!(ty, Ty::Tuple(_)) {
                    "tup"
                } else {
                    "arr"
                };
                match i {
                    Some(i) => format!("ember_{kind}{i}"),
                    // Typing registers every aggregate it makes: a miss is ember's bug, and
                    // the device compiler names it.
                    None => format!("ember_unregistered_{kind}"),
                }
            }
        }
    }

    /// The definition of aggregate `i` of the program, of type `ty`.
    pub(crate) fn struct_definition(&self, i: usize, ty: &Ty) -> String {
        match ty {
            Ty::Tuple(items) => {
                let mut s = String::from("typedef struct {");
                for (k, t) in items.iter().enumerate() {
                    let _ = write!(s, " {} f{k};", self.c_type(t));
                }
                if items.is_empty() {
                    s.push_str(" char unused;");
                }
                let _ = writeln!(s, " }} ember_tup{i};");
                s
            }
            Ty::Array(a) => {
                let elem = self.elem_type(a.dtype);
                let dims = if a.ndim == 0 || a.fixed.is_some() {
                    String::new()
                } else {
                    format!(" ember_dims{} d;", a.ndim)
                };
                format!(
                    "typedef struct {{ {}{elem}* data;{dims} }} ember_arr{i};\n",
                    self.qualifier(a.space)
                )
            }
            _ => String::new(),
        }
    }

    /// The definition of a function on an aggregate.
    pub(crate) fn aggregate_fn(&self, f: &AggregateFn) -> String {
        let dev = self.dialect.table().device_fn;
        match f {
            AggregateFn::MakeTuple(ty) => {
                let Ty::Tuple(items) = ty else {
                    return String::new();
                };
                let name = self.c_type(ty);
                let mut params = Vec::new();
                let mut body = String::new();
                for (i, t) in items.iter().enumerate() {
                    params.push(format!("{} a{i}", self.c_type(t)));
                    let _ = write!(body, " t.f{i} = a{i};");
                }
                format!(
                    "{dev} {name} {name}_make({}) {{ {name} t;{body} return t; }}\n",
                    if params.is_empty() {
                        "void".to_string()
                    } else {
                        params.join(", ")
                    }
                )
            }
            AggregateFn::TupleItem(ty) => {
                let Ty::Tuple(items) = ty else {
                    return String::new();
                };
                let st = self.c_type(ty);
                let et = self.c_type(&items[0]);
                let mut body = String::new();
                for k in 0..items.len() {
                    let _ = write!(body, "if (i == {k}) return t.f{k}; ");
                }
                let i64t = self.c_type(&INT64);
                format!("{dev} {et} {st}_get({st} t, {i64t} i) {{ {body}return t.f0; }}\n")
            }
            AggregateFn::FixedArray(ty) => {
                let Ty::Array(a) = ty else {
                    return String::new();
                };
                let st = self.c_type(ty);
                let q = self.qualifier(a.space);
                let elem = self.elem_type(a.dtype);
                format!("{dev} {st} {st}_at({q}{elem}* p) {{ {st} a; a.data = p; return a; }}\n")
            }
        }
    }
}
