//! CuPy's parameter lists (`"T x, raw float32 y"`) and how a call's arguments give the
//! placeholders their dtypes.

use std::collections::HashMap;

use ember_core::{DType, Error, Result};

/// A declared parameter's type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ParamType {
    Fixed(DType),
    /// A one-letter type name (`T`), given a dtype by the array arguments.
    Placeholder(String),
}

/// One declared parameter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParamSpec {
    pub name: String,
    pub ty: ParamType,
    /// `raw`: the whole array, indexed by the snippet.
    pub raw: bool,
}

/// A dtype from a type name as CuPy takes it (NumPy names, `int`/`float`/`complex`, and type
/// codes such as `f4`).
fn dtype_of(name: &str) -> Result<DType> {
    let aliases = [
        ("int", DType::I64),
        ("float", DType::F64),
        ("complex", DType::C128),
        ("bool_", DType::Bool),
    ];
    if let Some((_, d)) = aliases.iter().find(|(n, _)| *n == name) {
        return Ok(*d);
    }
    if let Ok(d) = DType::from_name(name) {
        return Ok(d);
    }
    DType::ALL
        .iter()
        .find(|d| &d.typestr()[1..] == name)
        .copied()
        .ok_or_else(|| Error::Type(format!("data type '{name}' not understood")))
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Parses a parameter list; `what` (`"in_params"`) names it in errors.
pub fn parse_params(text: &str, what: &str) -> Result<Vec<ParamSpec>> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|part| {
            let tokens: Vec<&str> = part.split_whitespace().collect();
            if tokens.len() < 2 {
                return Err(Error::Value(format!(
                    "Syntax error in {what}: {:?} (each parameter is `[raw] type name`)",
                    part.trim()
                )));
            }
            let (ty, name) = (tokens[tokens.len() - 2], tokens[tokens.len() - 1]);
            let mut raw = false;
            for modifier in &tokens[..tokens.len() - 2] {
                match *modifier {
                    "raw" => raw = true,
                    "_non_const" => {}
                    other => {
                        return Err(Error::Value(format!(
                        "Unknown keyword \"{other}\" in {what} (only `raw` may come before a type)"
                    )))
                    }
                }
            }
            if !is_identifier(name) {
                return Err(Error::Value(format!(
                    "{what}: {name:?} is not a C identifier"
                )));
            }
            let ty = if ty.chars().count() == 1 {
                ParamType::Placeholder(ty.to_string())
            } else {
                ParamType::Fixed(dtype_of(ty)?)
            };
            Ok(ParamSpec {
                name: name.to_string(),
                ty,
                raw,
            })
        })
        .collect()
}

/// Checks names across inputs and outputs: unique, and none the kernel itself uses.
pub fn check_names(params: &[&ParamSpec], reserved: &[&str]) -> Result<()> {
    for (k, p) in params.iter().enumerate() {
        if reserved.contains(&p.name.as_str()) {
            return Err(Error::Value(format!(
                "Can not use '{}' as a parameter name",
                p.name
            )));
        }
        if params[..k].iter().any(|q| q.name == p.name) {
            return Err(Error::Value(format!(
                "the parameter name '{}' is used twice; each input and output needs its own name",
                p.name
            )));
        }
    }
    Ok(())
}

/// Placeholder -> dtype, bound as CuPy binds them: only arrays bind, outputs before inputs.
pub fn bind_types(params: &[(&ParamSpec, Option<DType>)]) -> Result<HashMap<String, DType>> {
    let mut types: HashMap<String, DType> = HashMap::new();
    for (p, arg) in params {
        let Some(have) = arg else { continue };
        match &p.ty {
            ParamType::Fixed(want) if want != have => {
                return Err(Error::Type(format!(
                    "Type is mismatched. {} {} {} (arrays are not cast: pass an array of {}, e.g. x.astype({}))",
                    p.name,
                    have.name(),
                    want.name(),
                    want.name(),
                    want.name()
                )))
            }
            ParamType::Fixed(_) => {}
            ParamType::Placeholder(t) => match types.get(t) {
                Some(bound) if bound != have => {
                    return Err(Error::Type(format!(
                        "Type is mismatched. {} {} {} {}: {t} is already {} from an earlier array",
                        p.name,
                        have.name(),
                        bound.name(),
                        t,
                        bound.name()
                    )))
                }
                Some(_) => {}
                None => {
                    types.insert(t.clone(), *have);
                }
            },
        }
    }
    Ok(types)
}

/// The dtype of a parameter once placeholders are bound.
pub fn resolved(p: &ParamSpec, types: &HashMap<String, DType>) -> Result<DType> {
    match &p.ty {
        ParamType::Fixed(d) => Ok(*d),
        ParamType::Placeholder(t) => types.get(t).copied().ok_or_else(|| {
            Error::Type(format!(
                "cannot determine the type {t} of parameter '{}': only array arguments give a placeholder its dtype; pass an array for a {t} parameter or declare '{}' with a dtype",
                p.name, p.name
            ))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_typed_placeholder_and_raw_params() {
        let ps = parse_params("T x, raw float32 y, f4 z", "in_params").unwrap();
        assert_eq!(ps[0].ty, ParamType::Placeholder("T".into()));
        assert!(ps[1].raw && ps[1].ty == ParamType::Fixed(DType::F32));
        assert_eq!(ps[2].ty, ParamType::Fixed(DType::F32));
        assert!(parse_params("x", "in_params")
            .unwrap_err()
            .to_string()
            .contains("Syntax error"));
        assert!(parse_params("foo T x", "in_params")
            .unwrap_err()
            .to_string()
            .contains("Unknown keyword"));
        assert!(parse_params("float33 x", "in_params")
            .unwrap_err()
            .to_string()
            .contains("not understood"));
    }

    #[test]
    fn arrays_bind_placeholders_and_mismatches_fail() {
        let ps = parse_params("T x, T y", "in_params").unwrap();
        let types = bind_types(&[(&ps[0], Some(DType::F32)), (&ps[1], None)]).unwrap();
        assert_eq!(types["T"], DType::F32);
        let err =
            bind_types(&[(&ps[0], Some(DType::F32)), (&ps[1], Some(DType::I64))]).unwrap_err();
        assert!(
            err.to_string()
                .contains("Type is mismatched. y int64 float32 T"),
            "{err}"
        );
    }
}
