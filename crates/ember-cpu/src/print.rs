//! The runtime half of `print(...)` in host functions: the line's pieces, read back from what
//! the compiled code laid out, handed to the printer the embedding installs (ember's Python
//! module prints them with Python, as Numba does); without one, Rust writes them to stdout.

use std::sync::OnceLock;

use ember_jit::ir::HOST_MARK;

use crate::abi::CallContext;

/// A piece of a printed line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PrintPiece<'a> {
    Text(&'a str),
    Int(i64),
    UInt(u64),
    Float(f64),
    Bool(bool),
    /// Real and imaginary parts.
    Complex(f64, f64),
}

/// What prints a line (its pieces end with the newline).
pub type Printer = fn(&[PrintPiece<'_>]);

static PRINTER: OnceLock<Printer> = OnceLock::new();

/// Installs the printer of every compiled function's `print` (once per process).
pub fn set_printer(printer: Printer) {
    let _ = PRINTER.set(printer);
}

/// The pieces of `format` (text with [`HOST_MARK`] and a kind letter where each value goes)
/// with `values` in place; `None` when they do not match.
fn pieces<'a>(format: &'a str, values: &[u64]) -> Option<Vec<PrintPiece<'a>>> {
    let mut out = Vec::new();
    let mut values = values.iter();
    let mut parts = format.split(HOST_MARK);
    if let Some(head) = parts.next().filter(|t| !t.is_empty()) {
        out.push(PrintPiece::Text(head));
    }
    for part in parts {
        let kind = part.chars().next()?;
        let v = *values.next()?;
        out.push(match kind {
            'd' => PrintPiece::Int(v as i64),
            'u' => PrintPiece::UInt(v),
            'f' => PrintPiece::Float(f64::from_bits(v)),
            'b' => PrintPiece::Bool(v & 1 != 0),
            'c' => PrintPiece::Complex(f64::from_bits(v), f64::from_bits(*values.next()?)),
            _ => return None,
        });
        let rest = &part[kind.len_utf8()..];
        if !rest.is_empty() {
            out.push(PrintPiece::Text(rest));
        }
    }
    values.next().is_none().then_some(out)
}

/// `print(...)`: the format's `len` bytes at `text`, `count` value words at `values`.
pub(crate) extern "C" fn print(
    _ctx: *mut CallContext,
    text: *const u8,
    len: i64,
    values: *const u64,
    count: i64,
) {
    let (text, values) = unsafe {
        (
            std::slice::from_raw_parts(text, len.max(0) as usize),
            std::slice::from_raw_parts(values, count.max(0) as usize),
        )
    };
    let Some(line) = std::str::from_utf8(text)
        .ok()
        .and_then(|f| pieces(f, values))
    else {
        return;
    };
    match PRINTER.get() {
        Some(printer) => printer(&line),
        None => print!(
            "{}",
            line_text(
                &line,
                |v| format!("{v:?}"),
                |re, im| format!("({re:?}{im:+?}j)")
            )
        ),
    }
}

/// The line's text, with floats and complex numbers written by `float` and `complex` (the
/// printer's own: Python's `repr` in ember's module) and the rest as Python writes them.
pub fn line_text(
    line: &[PrintPiece<'_>],
    float: impl Fn(f64) -> String,
    complex: impl Fn(f64, f64) -> String,
) -> String {
    let mut out = String::new();
    for p in line {
        match p {
            PrintPiece::Text(t) => out.push_str(t),
            PrintPiece::Int(v) => out.push_str(&v.to_string()),
            PrintPiece::UInt(v) => out.push_str(&v.to_string()),
            PrintPiece::Bool(v) => out.push_str(if *v { "True" } else { "False" }),
            PrintPiece::Float(v) => out.push_str(&float(*v)),
            PrintPiece::Complex(re, im) => out.push_str(&complex(*re, *im)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_format_and_its_values_make_the_pieces() {
        let f = format!("x = {HOST_MARK}d, {HOST_MARK}f{HOST_MARK}b\n");
        let got = pieces(&f, &[(-3i64) as u64, 1.5f64.to_bits(), 1]).unwrap();
        assert_eq!(
            got,
            vec![
                PrintPiece::Text("x = "),
                PrintPiece::Int(-3),
                PrintPiece::Text(", "),
                PrintPiece::Float(1.5),
                PrintPiece::Bool(true),
                PrintPiece::Text("\n"),
            ]
        );
        assert_eq!(pieces(&f, &[1, 2]), None);
        assert_eq!(pieces(&f, &[1, 2, 3, 4]), None);
    }
}
