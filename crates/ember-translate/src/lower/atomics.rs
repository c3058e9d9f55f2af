//! CUDA's atomics on OpenCL: 32-bit integer ones are OpenCL 1.1's `atomic_*`; 64-bit add,
//! exchange and compare-and-swap are `cl_khr_int64_base_atomics`' `atom_*`; everything else
//! (float and double add, 64-bit min/max/and/or/xor, `atomicInc`/`atomicDec`'s wrapping) is a
//! compare-and-swap loop in a helper function, one per type and memory.

use crate::ast::{Scalar, Space, Type};
use crate::error::{Result, TranslateError};

use super::expr::{decayed, memory_name, V};
use super::function::FnCx;

/// CUDA's atomic operations: name, operands after the pointer, and the new value of a
/// compare-and-swap loop (`cur`: the value found, `v`: the operand).
const OPS: &[(&str, &str)] = &[
    ("Add", "cur + v"),
    ("Sub", "cur - v"),
    ("Exch", "v"),
    ("Min", "min(cur, v)"),
    ("Max", "max(cur, v)"),
    ("And", "cur & v"),
    ("Or", "cur | v"),
    ("Xor", "cur ^ v"),
    ("Inc", "(cur >= v) ? 0 : cur + 1"),
    ("Dec", "(cur == 0 || cur > v) ? v : cur - 1"),
];

impl FnCx<'_, '_> {
    /// A call of `atomicAdd`, `atomicCAS`, ... (and their `_block`/`_system` forms), if `name`
    /// is one.
    pub(crate) fn atomic(&mut self, name: &str, args: &[V], line: u32) -> Result<Option<V>> {
        let Some(op) = name.strip_prefix("atomic") else {
            return Ok(None);
        };
        let op = op.trim_end_matches("_block").trim_end_matches("_system");
        let cas = op == "CAS";
        let Some(&(_, formula)) = OPS
            .iter()
            .find(|(o, _)| *o == op)
            .or(cas.then_some(&("CAS", "")))
        else {
            return Ok(None);
        };
        let wanted = if cas { 3 } else { 2 };
        if args.len() != wanted {
            return Err(TranslateError::new(
                line,
                format!("{name} takes {wanted} arguments, got {}", args.len()),
            ));
        }
        let Type::Pointer(p) = decayed(&args[0]) else {
            return Err(TranslateError::new(
                line,
                format!("the first argument of {name} must be a pointer"),
            ));
        };
        let space = match p.space {
            Space::Global | Space::Local => p.space,
            Space::Unknown if self.learning => Space::Global,
            other => {
                return Err(TranslateError::new(
                    line,
                    format!(
                        "{name} on {} memory: OpenCL has atomics on global and shared memory only",
                        memory_name(other)
                    ),
                ))
            }
        };
        let Type::Scalar(t) = p.ty else {
            return Err(TranslateError::new(
                line,
                format!("{name} of a pointer to something that is not a number"),
            ));
        };
        let wide = t.size() == 8;
        let integer = matches!(t, Scalar::Int | Scalar::UInt | Scalar::Long | Scalar::ULong);
        if !(integer || matches!(t, Scalar::Float | Scalar::Double)) || t.size() < 4 {
            return Err(TranslateError::new(
                line,
                format!("{name} of {} is not translated", t.opencl()),
            ));
        }
        if wide {
            self.prog.uses_atomics64 = true;
        }
        if t == Scalar::Double {
            self.prog.uses_double = true;
        }
        let q = space.qualifier();
        let pointer = format!("(volatile {q} {}*)({})", t.opencl(), args[0].code);
        let prefix = if wide { "atom" } else { "atomic" };
        let ty = Type::Scalar(t);
        if cas {
            let code = if t.is_float() {
                let bits = bits_of(t);
                format!(
                    "as_{}({prefix}_cmpxchg((volatile {q} {bits}*)({}), as_{bits}(({})({})), as_{bits}(({})({}))))",
                    t.opencl(),
                    args[0].code,
                    t.opencl(),
                    args[1].code,
                    t.opencl(),
                    args[2].code
                )
            } else {
                format!(
                    "{prefix}_cmpxchg({pointer}, ({})({}), ({})({}))",
                    t.opencl(),
                    args[1].code,
                    t.opencl(),
                    args[2].code
                )
            };
            return Ok(Some(V::rvalue(code, ty)));
        }
        let native = match op {
            "Add" | "Sub" | "Exch" => integer || (op == "Exch" && t == Scalar::Float),
            "Min" | "Max" | "And" | "Or" | "Xor" => integer && !wide,
            _ => false,
        };
        let value = format!("({})({})", t.opencl(), args[1].code);
        if native {
            let f = match op {
                "Exch" => "xchg",
                other => &other.to_ascii_lowercase(),
            };
            return Ok(Some(V::rvalue(
                format!("{prefix}_{f}({pointer}, {value})"),
                ty,
            )));
        }
        if matches!(op, "Inc" | "Dec") && t != Scalar::UInt {
            return Err(TranslateError::new(
                line,
                format!("{name} is defined for unsigned int only"),
            ));
        }
        if matches!(op, "And" | "Or" | "Xor") && t.is_float() {
            return Err(TranslateError::new(
                line,
                format!("{name} of {} is not defined", t.opencl()),
            ));
        }
        let helper = format!(
            "ember_atomic_{}_{}_{}",
            op.to_ascii_lowercase(),
            t.opencl(),
            space.tag()
        );
        let formula = if t.is_float() {
            formula.replace("min(", "fmin(").replace("max(", "fmax(")
        } else {
            formula.to_string()
        };
        let text = cas_loop(&helper, t, space, &formula);
        self.prog.helper(&helper, || text);
        Ok(Some(V::rvalue(format!("{helper}({pointer}, {value})"), ty)))
    }
}

/// The unsigned integer of a type's size (what compare-and-swap compares).
fn bits_of(t: Scalar) -> &'static str {
    if t.size() == 8 {
        "ulong"
    } else {
        "uint"
    }
}

/// A helper doing `*p = formula(*p, v)` atomically by compare-and-swap; returns the old value.
fn cas_loop(name: &str, t: Scalar, space: Space, formula: &str) -> String {
    let q = space.qualifier();
    let ty = t.opencl();
    let bits = bits_of(t);
    let cas = if t.size() == 8 {
        "atom_cmpxchg"
    } else {
        "atomic_cmpxchg"
    };
    format!(
        "{ty} {name}(volatile {q} {ty}* p, {ty} v) {{\n    volatile {q} {bits}* w = (volatile {q} {bits}*)p;\n    {bits} seen, old = *w;\n    do {{\n        seen = old;\n        {ty} cur = as_{ty}(seen);\n        {ty} next = {formula};\n        old = {cas}(w, seen, as_{bits}(next));\n    }} while (old != seen);\n    return as_{ty}(old);\n}}\n"
    )
}
