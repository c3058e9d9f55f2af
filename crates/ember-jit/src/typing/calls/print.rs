//! `print(...)` in kernels, as Numba lowers it: one device `printf` per call, the items
//! separated by spaces and a newline at the end, so each call's line comes out whole.
//! Integers print as 64-bit (`%lld`/`%llu`), floats as `%f` of a double, bools as `True`/`False`,
//! string constants as themselves, tuples as Python writes them, `cuda.threadIdx` and its kin
//! as `(x, y, z)`.
//!
//! In host functions the line is Python's own (Numba's CPU `print` boxes the values and prints
//! them with Python): the format holds [`HOST_MARK`] and a letter where each value goes, and
//! the back end hands the values to Python, which writes `repr`-style floats to `sys.stdout`.

use ember_codegen::dialect::Table;
use ember_codegen::Dialect;
use ember_core::dtype::Kind;
use ember_core::DType;

use crate::ast::{Expr, ExprKind, Span};
use crate::error::{at, R};
use crate::helpers::Helper;
use crate::ir::{ExprKind as K, PrintArg, HOST_MARK};
use crate::types::Ty;
use crate::typing::{FnTyper, Val};

/// The most items CUDA's `vprintf` formats; past it Numba prints the raw format string (and
/// warns: `ember._jit.front` does, with the same limit).
pub(crate) const PRINT_MOST_ITEMS: usize = 32;

/// A part of a format string, spelled by the dialect when the format is written.
enum Part {
    /// Text printed as it is.
    Text(String),
    /// A 64-bit integer's conversion: `d` or `u`.
    Int64(char),
    /// A double's conversion, as `%f` writes it.
    Double,
    /// A string argument's conversion (a bool's `True` or `False`).
    Truth,
    /// A complex number's two float64 parts, written as Python writes the number (host
    /// functions only).
    Complex,
}

/// `parts` as a host function's print format (see [`HOST_MARK`]).
fn spelled_for_host(parts: &[Part]) -> String {
    let mut out = String::new();
    for p in parts {
        match p {
            Part::Text(s) => out.push_str(&s.replace(HOST_MARK, "")),
            Part::Int64(c) => out.extend([HOST_MARK, *c]),
            Part::Double => out.extend([HOST_MARK, 'f']),
            Part::Truth => out.extend([HOST_MARK, 'b']),
            Part::Complex => out.extend([HOST_MARK, 'c']),
        }
    }
    out
}

/// `parts` as a printf format string of the dialect of `t`.
fn spelled(parts: &[Part], t: &Table) -> String {
    let mut out = String::new();
    for p in parts {
        match p {
            Part::Text(s) => out.push_str(&s.replace('%', "%%")),
            Part::Int64(c) => out.push_str(&format!("%{}{c}", t.printf_int64)),
            Part::Double => out.push_str(t.printf_double),
            Part::Truth => out.push_str("%s"),
            // Typing refuses complex numbers in kernels' prints.
            Part::Complex => {}
        }
    }
    out
}

impl FnTyper<'_, '_> {
    /// `print(args)`: a statement (its value is None).
    pub(super) fn print(&mut self, args: &[Expr]) -> R<Val> {
        let mut parts = Vec::new();
        let mut values = Vec::new();
        for (k, a) in args.iter().enumerate() {
            if k > 0 {
                parts.push(Part::Text(" ".into()));
            }
            match &a.kind {
                ExprKind::Str { v } => parts.push(Part::Text(v.clone())),
                ExprKind::Intrinsic { name }
                    if matches!(
                        name.as_str(),
                        "cuda.threadIdx" | "cuda.blockIdx" | "cuda.blockDim" | "cuda.gridDim"
                    ) =>
                {
                    parts.push(Part::Text("(".into()));
                    for (i, axis) in ["x", "y", "z"].into_iter().enumerate() {
                        if i > 0 {
                            parts.push(Part::Text(", ".into()));
                        }
                        let v = self.intrinsic_value(&format!("{name}.{axis}"), a.span)?;
                        self.print_value(&v, &mut parts, &mut values, a.span)?;
                    }
                    parts.push(Part::Text(")".into()));
                }
                _ => {
                    let v = self.expr(a)?;
                    self.print_value(&v, &mut parts, &mut values, a.span)?;
                }
            }
        }
        parts.push(Part::Text("\n".into()));
        if self.c.host {
            return Ok(Val::new(
                Ty::None,
                K::Print {
                    format: spelled_for_host(&parts),
                    args: values,
                },
            ));
        }
        let preamble = self.c.dialect.table().printf_preamble;
        if !preamble.is_empty() {
            self.c.uses.helpers.insert(Helper::Text(preamble.into()));
        }
        let (format, args) = if args.len() > PRINT_MOST_ITEMS {
            // Numba's behaviour (CUDA's vprintf takes 32 arguments at most): the format
            // string itself, as CUDA spells it, printed verbatim.
            let raw = spelled(&parts, Dialect::Cuda.table());
            (raw.replace('%', "%%"), Vec::new())
        } else {
            (spelled(&parts, self.c.dialect.table()), values)
        };
        Ok(Val::new(Ty::None, K::Print { format, args }))
    }

    /// Adds the conversion of `v` to `parts` and its printf arguments to `values`.
    fn print_value(
        &mut self,
        v: &Val,
        parts: &mut Vec<Part>,
        values: &mut Vec<PrintArg>,
        span: Span,
    ) -> R<()> {
        match &v.ty {
            Ty::Tuple(items) => {
                let items = items.clone();
                let t = self.temp(v)?;
                parts.push(Part::Text("(".into()));
                for (i, ty) in items.iter().enumerate() {
                    if i > 0 {
                        parts.push(Part::Text(", ".into()));
                    }
                    let item = Val::new(ty.clone(), K::Item(t.boxed(), i));
                    self.print_value(&item, parts, values, span)?;
                }
                parts.push(Part::Text(if items.len() == 1 { ",)" } else { ")" }.into()));
                Ok(())
            }
            Ty::Scalar(d) => match d.kind() {
                Kind::Bool => {
                    values.push(PrintArg::Truth(v.expr()));
                    parts.push(Part::Truth);
                    Ok(())
                }
                Kind::Int => {
                    values.push(PrintArg::Value(self.cast_to(v, DType::I64).expr()));
                    parts.push(Part::Int64('d'));
                    Ok(())
                }
                Kind::UInt => {
                    values.push(PrintArg::Value(self.cast_to(v, DType::U64).expr()));
                    parts.push(Part::Int64('u'));
                    Ok(())
                }
                Kind::Complex if self.c.host => {
                    let t = self.temp(v)?;
                    for imag in [false, true] {
                        let part = Val::new(
                            Ty::Scalar(crate::types::part_dtype(*d)),
                            K::Part {
                                value: t.boxed(),
                                imag,
                            },
                        );
                        values.push(PrintArg::Value(self.cast_to(&part, DType::F64).expr()));
                    }
                    parts.push(Part::Complex);
                    Ok(())
                }
                Kind::Float => {
                    self.c.uses.dtypes.insert(DType::F64);
                    values.push(PrintArg::Value(self.cast_to(v, DType::F64).expr()));
                    parts.push(Part::Double);
                    Ok(())
                }
                _ => at(
                    span,
                    format!(
                        "print() of {} is not supported in {} (Numba prints numbers, bools, strings and tuples of them); print .real and .imag",
                        d.name(),
                        self.c.realm()
                    ),
                ),
            },
            t => at(
                span,
                format!(
                    "print() of {t} is not supported in {}: print numbers, bools, string constants or tuples of them",
                    self.c.realm()
                ),
            ),
        }
    }
}
