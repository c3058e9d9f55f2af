//! Template parameters: their types put in (`T` -> `float`), and deduced from a call's
//! arguments when the call names none (`scale(x, 2.0f)` with `template <typename T> scale(T*, T)`).

use std::collections::HashMap;

use crate::ast::{Pointee, Type};

/// `ty` with the template parameters of `map` replaced.
pub fn resolve(ty: &Type, map: &HashMap<String, Type>) -> Type {
    match ty {
        Type::Param(n) => map.get(n).cloned().unwrap_or_else(|| ty.clone()),
        Type::Pointer(p) => Type::Pointer(Box::new(resolve_pointee(p, map))),
        Type::Ref(p) => Type::Ref(Box::new(resolve_pointee(p, map))),
        Type::Array(e, n) => Type::Array(Box::new(resolve(e, map)), *n),
        Type::ValueExpr(e) => match value_of(e, map) {
            Some(v) => Type::Value(v),
            None => ty.clone(),
        },
        Type::SizedBy(e, size) => match value_of(size, map) {
            Some(n) if n >= 0 => Type::Array(Box::new(resolve(e, map)), Some(n as u64)),
            _ => Type::SizedBy(Box::new(resolve(e, map)), size.clone()),
        },
        _ => ty.clone(),
    }
}

/// The value of an expression of a template's value parameters.
pub fn value_of(e: &crate::ast::Expr, map: &HashMap<String, Type>) -> Option<i64> {
    crate::parse::fold(e, &|n| match map.get(n) {
        Some(Type::Value(v)) => Some(*v),
        _ => None,
    })
}

fn resolve_pointee(p: &Pointee, map: &HashMap<String, Type>) -> Pointee {
    Pointee {
        volatile: p.volatile,
        ty: resolve(&p.ty, map),
        konst: p.konst,
        space: p.space,
    }
}

/// Binds the template parameters in `param` by matching it against an argument's type.
pub fn deduce(param: &Type, arg: &Type, map: &mut HashMap<String, Type>) {
    match (param, arg) {
        (Type::Param(n), a) => {
            let a = match a {
                Type::Array(e, _) => {
                    Type::pointer((**e).clone(), false, crate::ast::Space::Unknown)
                }
                other => other.clone(),
            };
            map.entry(n.clone()).or_insert(a);
        }
        (Type::Pointer(p), Type::Pointer(a)) => deduce(&p.ty, &a.ty, map),
        (Type::Pointer(p), Type::Array(e, _)) => deduce(&p.ty, e, map),
        (Type::Ref(p), a) => deduce(&p.ty, a, map),
        _ => {}
    }
}
