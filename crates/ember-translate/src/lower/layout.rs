//! Types as OpenCL C spells them, the sizes and alignments CUDA gives them, and constant values
//! in CUDA's layout (the initial bytes of a module variable).
//!
//! CUDA's three-element vectors (`float3`: 12 bytes) are not OpenCL's (`float3`: 16 bytes), so
//! they become structs of three fields (`ember_float3`) that keep CUDA's layout in memory.

use crate::ast::{Pointee, Scalar, Space, Type};

/// The size CUDA gives a type with no struct in it (`None`: a struct, an array of unknown
/// size, a template parameter).
pub fn size_of_plain(t: &Type) -> Option<u64> {
    match t {
        Type::Scalar(s) => Some(s.size()),
        Type::Vector(s, n) => Some(s.size() * u64::from(*n)),
        Type::Pointer(_) | Type::Ref(_) => Some(8),
        Type::Array(e, Some(n)) => Some(size_of_plain(e)? * n),
        _ => None,
    }
}

/// The alignment CUDA gives a type (`vector_types.h`: `float4` 16, `float3` 4, `double2` 16);
/// `fields` gives a struct's field types. `None`: a template parameter, an unknown struct.
pub fn align_of(t: &Type, fields: &dyn Fn(&str) -> Option<Vec<Type>>) -> Option<u64> {
    match t {
        Type::Scalar(s) => Some(s.size()),
        Type::Vector(s, n) if vector_is_struct(*n) => Some(s.size()),
        Type::Vector(s, n) => Some((s.size() * u64::from(*n)).min(16)),
        Type::Pointer(_) | Type::Ref(_) => Some(8),
        Type::Array(e, _) => align_of(e, fields),
        Type::Struct(n) => fields(n)?
            .iter()
            .map(|f| align_of(f, fields))
            .try_fold(1, |a, f| f.map(|f| a.max(f))),
        _ => None,
    }
}

/// The name OpenCL C uses for CUDA's vector type (a struct for widths 1 and 3).
pub fn vector_name(s: Scalar, n: u8) -> String {
    if n == 1 || n == 3 {
        format!("ember_{}{n}", s.opencl())
    } else {
        format!("{}{n}", s.opencl())
    }
}

/// Whether CUDA's vector type is a struct in OpenCL C (widths 1 and 3).
pub fn vector_is_struct(n: u8) -> bool {
    n == 1 || n == 3
}

/// `ty` declaring `name` in OpenCL C (`__global const float* restrict x`, `float t[16][16]`).
/// `name` may be empty (a cast's type).
pub fn declare(ty: &Type, name: &str, structs: &dyn Fn(&str) -> String) -> String {
    let mut suffix = String::new();
    let mut t = ty;
    while let Type::Array(e, n) = t {
        match n {
            Some(n) => suffix.push_str(&format!("[{n}]")),
            None => suffix.push_str("[]"),
        }
        t = e;
    }
    if let Type::Pointer(p) = t {
        if matches!(p.ty, Type::Array(..)) {
            // A pointer to rows (`__local float (*t)[16]`): how a 2-D array is passed.
            let rows = declare(&p.ty, &format!("(*{name})"), structs);
            let space = match p.space {
                Space::Unknown | Space::Private => String::new(),
                s => format!("{} ", s.qualifier()),
            };
            return format!("{space}{rows}{suffix}");
        }
    }
    let base = match t {
        Type::Pointer(p) | Type::Ref(p) => pointer(p, structs),
        other => base_name(other, structs),
    };
    if name.is_empty() {
        format!("{base}{suffix}")
    } else {
        format!("{base} {name}{suffix}")
    }
}

/// A pointer type (`__global const float*`).
fn pointer(p: &Pointee, structs: &dyn Fn(&str) -> String) -> String {
    let space = match p.space {
        Space::Unknown | Space::Private => "",
        s => s.qualifier(),
    };
    let konst = match (p.konst, p.volatile) {
        (true, true) => "const volatile ",
        (true, false) => "const ",
        (false, true) => "volatile ",
        (false, false) => "",
    };
    // Halves in the user's memory are `half` (read and written with vload_half/vstore_half).
    let inner = if super::half::in_memory(p) {
        "half".to_string()
    } else {
        declare(&p.ty, "", structs)
    };
    let sep = if space.is_empty() { "" } else { " " };
    format!("{space}{sep}{konst}{inner}*")
}

/// A type with no declarator around it.
fn base_name(t: &Type, structs: &dyn Fn(&str) -> String) -> String {
    match t {
        Type::Void => "void".into(),
        Type::Scalar(s) => s.opencl().into(),
        Type::Vector(s, n) => vector_name(*s, *n),
        Type::Struct(n) => structs(n),
        Type::Param(n) => n.clone(),
        Type::Pointer(p) | Type::Ref(p) => pointer(p, structs),
        Type::Array(..) => declare(t, "", structs),
        // Resolved before emission (`FnCx::declaration` refuses what is left).
        Type::Value(_) | Type::ValueExpr(_) | Type::SizedBy(..) => "int".into(),
    }
}

/// The bytes of a numeric initialiser (`= 5`, `= {1.5f, 2}`) for a variable of `ty`, in
/// CUDA's layout (little-endian), zero-filled past the listed values; `None` for anything else.
pub fn initial_bytes(ty: &Type, init: &crate::ast::Expr, size: u64) -> Option<Vec<u8>> {
    use crate::ast::ExprKind as K;
    let element = match ty {
        Type::Array(e, _) => match &**e {
            Type::Scalar(s) => *s,
            _ => return None,
        },
        Type::Scalar(s) => *s,
        _ => return None,
    };
    if element == Scalar::Half {
        return None;
    }
    let items: Vec<&crate::ast::Expr> = match &init.kind {
        K::Init(items) => items.iter().collect(),
        _ => vec![init],
    };
    let mut bytes = Vec::with_capacity(size as usize);
    for item in items {
        let value = number(item)?;
        bytes.extend(scalar_bytes(element, value));
    }
    if bytes.len() as u64 > size {
        return None;
    }
    bytes.resize(size as usize, 0);
    Some(bytes)
}

/// A constant number: an integer or floating literal, negated or not.
fn number(e: &crate::ast::Expr) -> Option<f64> {
    use crate::ast::ExprKind as K;
    match &e.kind {
        K::Unary(op, x) if *op == "-" => number(x).map(|v| -v),
        K::Unary(op, x) if *op == "+" => number(x),
        K::Float(t) => t.trim_end_matches(['f', 'F', 'l', 'L']).parse().ok(),
        _ => crate::parse::fold(e, &|_| None).map(|v| v as f64),
    }
}

fn scalar_bytes(s: Scalar, v: f64) -> Vec<u8> {
    match s {
        Scalar::Float => (v as f32).to_le_bytes().to_vec(),
        Scalar::Double => v.to_le_bytes().to_vec(),
        Scalar::Bool => vec![u8::from(v != 0.0)],
        // Integers (a half never comes here: `initial_bytes` refuses it).
        s => {
            let i = v as i64;
            i.to_le_bytes()[..s.size() as usize].to_vec()
        }
    }
}
