//! CUDA C -> OpenCL C, at run time, in-process: what lets `RawKernel`, `RawModule` and
//! `SourceModule` run on every OpenCL device (PoCL on the CPU, AMD/Intel/NVIDIA GPUs).
//!
//! The passes, each a module: [`preprocess`] (a C preprocessor: macros, conditionals, the
//! headers ember supplies in [`headers`]) -> [`parse`] (CUDA's C/C++ subset to the tree of
//! [`ast`]) -> [`lower`] (address spaces inferred, OpenCL C emitted).

pub mod ast;
pub mod error;
pub mod headers;
pub mod lex;
pub mod lower;
pub mod parse;
pub mod preprocess;
pub mod token;

pub use error::{Result, TranslateError};
pub use lower::{KernelName, Translation};
pub use token::{Kind, Token};

/// Translates CUDA C `source` to OpenCL C. `defines` are the `-D` options; `name_expressions`
/// name template kernels to instantiate (`fill<float>`), as CuPy's `RawModule` takes them.
pub fn translate(
    source: &str,
    defines: &[(String, String)],
    name_expressions: &[String],
) -> Result<Translation> {
    let tokens = preprocess::preprocess(source, defines, &headers::header).map_err(|mut e| {
        if e.message.starts_with("cannot include") {
            e.message = format!("{} (it supplies {})", e.message, headers::SUPPLIED);
        }
        e
    })?;
    let unit = parse::parse(&tokens)?;
    let mut instances = Vec::new();
    for e in name_expressions {
        if let Some(i) = name_expression(e)? {
            instances.push(i);
        }
    }
    lower::lower(&unit, &instances)
}

/// `fill<float, int>` as (the expression, `fill`, its type arguments); `None` for a plain name.
fn name_expression(text: &str) -> Result<Option<(String, String, Vec<ast::Type>)>> {
    let bare = text.trim().trim_start_matches('&').trim();
    let Some((base, rest)) = bare.split_once('<') else {
        return Ok(None);
    };
    let inner = rest.trim_end().strip_suffix('>').ok_or_else(|| {
        TranslateError::new(0, format!("name expression {text} does not end with '>'"))
    })?;
    let tokens = preprocess::preprocess(inner, &[], &|_| None)?;
    let types = parse::type_list(&tokens)
        .map_err(|e| TranslateError::new(0, format!("name expression {text}: {}", e.message)))?;
    Ok(Some((text.to_string(), base.trim().to_string(), types)))
}
