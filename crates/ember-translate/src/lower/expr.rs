//! Expressions: typed as C types them (the usual arithmetic conversions, pointer arithmetic,
//! arrays decaying to pointers that keep their memory), emitted fully parenthesised.

use crate::ast::{Expr, ExprKind as K, Pointee, Scalar, Space, Type};
use crate::error::{Result, TranslateError};

use super::function::FnCx;
use super::half;
use super::layout;
use super::names;
use super::subst::resolve;

/// An emitted expression: its OpenCL text, its type, and (for an lvalue) the memory it is in.
#[derive(Clone, Debug)]
pub(crate) struct V {
    pub code: String,
    pub ty: Type,
    pub space: Space,
    pub lvalue: bool,
    /// A half in the user's memory: where it is, for a store (`code` is its load).
    pub half: Option<half::Slot>,
}

impl V {
    pub fn rvalue(code: String, ty: Type) -> V {
        V {
            code,
            ty,
            space: Space::Private,
            lvalue: false,
            half: None,
        }
    }

    /// An lvalue in `space` (not a half in the user's memory).
    pub fn place(code: String, ty: Type, space: Space) -> V {
        V {
            code,
            ty,
            space,
            lvalue: true,
            half: None,
        }
    }

    /// The element of pointer `base` at `index`, of the pointer's type `p`.
    pub fn element(base: &str, index: &str, p: Pointee) -> V {
        if half::in_memory(&p) {
            let slot = half::Slot {
                pointer: base.to_string(),
                index: index.to_string(),
                lanes: half::lanes(&p.ty).unwrap_or(1),
            };
            return V {
                code: slot.load(),
                ty: p.ty,
                space: p.space,
                lvalue: true,
                half: Some(slot),
            };
        }
        let code = if index == "0" {
            format!("(*{base})")
        } else {
            format!("{base}[{index}]")
        };
        V::place(code, p.ty, p.space)
    }
}

/// The type of `v` where C converts an array to a pointer to its first element.
pub(crate) fn decayed(v: &V) -> Type {
    match &v.ty {
        Type::Array(e, _) => Type::Pointer(Box::new(Pointee {
            volatile: false,
            ty: (**e).clone(),
            konst: false,
            space: v.space,
        })),
        t => t.clone(),
    }
}

/// C's integer promotion and usual arithmetic conversions of two scalars.
pub(crate) fn arithmetic(a: Scalar, b: Scalar) -> Scalar {
    let promote = |s: Scalar| {
        if s.rank() < Scalar::Int.rank() {
            Scalar::Int
        } else {
            s
        }
    };
    let (a, b) = (promote(a), promote(b));
    if a.rank() >= b.rank() {
        a
    } else {
        b
    }
}

/// The type of `a op b` for arithmetic operands (vectors win over scalars).
fn common(a: &Type, b: &Type) -> Option<Type> {
    match (a, b) {
        (Type::Scalar(x), Type::Scalar(y)) => Some(Type::Scalar(arithmetic(*x, *y))),
        (Type::Vector(..), _) => Some(a.clone()),
        (_, Type::Vector(..)) => Some(b.clone()),
        _ => None,
    }
}

/// The type CUDA gives an integer literal, and its OpenCL spelling.
fn int_literal(text: &str, line: u32) -> Result<V> {
    let suffix: String = text
        .chars()
        .rev()
        .take_while(|c| "uUlL".contains(*c))
        .collect();
    let unsigned = suffix.contains(['u', 'U']);
    let long = suffix.contains(['l', 'L']);
    let digits = &text[..text.len() - suffix.len()];
    let value = crate::parse::int_value(digits)
        .map(|v| v as u64)
        .ok_or_else(|| {
            TranslateError::new(
                line,
                format!("integer literal {text} does not fit in 64 bits"),
            )
        })?;
    let decimal = !(digits.starts_with('0') && digits.len() > 1);
    let s = match (unsigned, long) {
        (false, false) if value <= i32::MAX as u64 => Scalar::Int,
        (false, false) if !decimal && value <= u32::MAX as u64 => Scalar::UInt,
        (true, false) if value <= u32::MAX as u64 => Scalar::UInt,
        (false, _) if value <= i64::MAX as u64 => Scalar::Long,
        _ => Scalar::ULong,
    };
    let written = if digits.to_ascii_lowercase().starts_with("0b") {
        value.to_string()
    } else {
        digits.to_string()
    };
    let suffix = match s {
        Scalar::UInt => "U",
        Scalar::Long => "L",
        Scalar::ULong => "UL",
        _ => "",
    };
    Ok(V::rvalue(format!("{written}{suffix}"), Type::Scalar(s)))
}

/// A floating literal: `f` makes a float, anything else a double.
fn float_literal(text: &str) -> V {
    let t = text.trim_end_matches(['l', 'L']);
    let is_float = t.ends_with(['f', 'F']) && !t.to_ascii_lowercase().starts_with("0x");
    let s = if is_float {
        Scalar::Float
    } else {
        Scalar::Double
    };
    V::rvalue(t.to_string(), Type::Scalar(s))
}

/// CUDA's thread-index variables as OpenCL's work-item functions (CUDA's are `unsigned int`).
fn thread_index(name: &str, field: &str) -> Option<String> {
    let f = match name {
        "threadIdx" => "get_local_id",
        "blockIdx" => "get_group_id",
        "blockDim" => "get_local_size",
        "gridDim" => "get_num_groups",
        _ => return None,
    };
    let d = match field {
        "x" => 0,
        "y" => 1,
        "z" => 2,
        _ => return None,
    };
    Some(format!("((uint){f}({d}))"))
}

impl FnCx<'_, '_> {
    /// Emits an expression.
    pub(crate) fn expr(&mut self, e: &Expr) -> Result<V> {
        let line = e.line;
        Ok(match &e.kind {
            K::Ident(n) => self.name(n, line)?,
            K::Int(t) => int_literal(t, line)?,
            K::Float(t) => {
                let v = float_literal(t);
                self.prog.note_type(&v.ty);
                v
            }
            K::Str(s) => V::rvalue(
                s.clone(),
                Type::pointer(Type::Scalar(Scalar::Char), true, Space::Constant),
            ),
            K::Char(c) => V::rvalue(c.clone(), Type::Scalar(Scalar::Char)),
            K::Bool(b) => V::rvalue(b.to_string(), Type::Scalar(Scalar::Bool)),
            K::Null => V::rvalue("0".into(), Type::pointer(Type::Void, false, Space::Unknown)),
            K::Unary(op, x) => self.unary(op, x, line)?,
            K::Postfix(op, x) => {
                let v = self.expr(x)?;
                V::rvalue(format!("({}{op})", v.code), v.ty)
            }
            K::Binary(op, a, b) => self.binary(op, a, b, line)?,
            K::Assign(op, a, b) => self.assign(op, a, b, line)?,
            K::Cond(c, a, b) => {
                let c = self.expr(c)?;
                let a = self.expr(a)?;
                let b = self.expr(b)?;
                let ty = common(&decayed(&a), &decayed(&b)).unwrap_or_else(|| decayed(&a));
                V::rvalue(format!("({} ? {} : {})", c.code, a.code, b.code), ty)
            }
            K::Call(callee, targs, args) => self.call(callee, targs, args, line)?,
            K::Index(base, index) => {
                let b = self.expr(base)?;
                let i = self.expr(index)?;
                match decayed(&b) {
                    Type::Pointer(p) => V::element(&b.code, &i.code, *p),
                    other => {
                        return Err(TranslateError::new(
                            line,
                            format!(
                                "subscript of {}, which is not an array or pointer",
                                self.prog.declare(&other, "")
                            ),
                        ))
                    }
                }
            }
            K::Member(base, field, arrow) => self.member(base, field, *arrow, line)?,
            K::Cast(ty, x) => self.cast(ty, x)?,
            K::SizeofType(t) => {
                let t = resolve(t, &self.subst);
                self.prog.note_type(&t);
                V::rvalue(
                    format!("((ulong)sizeof({}))", self.prog.declare(&t, "")),
                    Type::Scalar(Scalar::ULong),
                )
            }
            K::AlignofType(t) => {
                let t = resolve(t, &self.subst);
                let structs = &self.prog.structs;
                let fields = |n: &str| {
                    structs
                        .get(n)
                        .map(|d| d.fields.iter().map(|f| f.1.clone()).collect())
                };
                let a = layout::align_of(&t, &fields).ok_or_else(|| {
                    TranslateError::new(line, "alignof of a type whose layout is not known here")
                })?;
                V::rvalue(format!("((ulong){a})"), Type::Scalar(Scalar::ULong))
            }
            K::SizeofExpr(x) => {
                let v = self.expr(x)?;
                V::rvalue(
                    format!("((ulong)sizeof({}))", v.code),
                    Type::Scalar(Scalar::ULong),
                )
            }
            K::Comma(a, b) => {
                let a = self.expr(a)?;
                let b = self.expr(b)?;
                V::rvalue(format!("({}, {})", a.code, b.code), b.ty)
            }
            K::Init(_) => {
                return Err(TranslateError::new(
                    line,
                    "a braced list is translated only as a declaration's initialiser",
                ))
            }
            K::Launch {
                kernel,
                config,
                args,
            } => self.launch(kernel, config, args, line)?,
        })
    }

    /// An expression converted to `ty` where C converts implicitly.
    pub(crate) fn converted(&mut self, e: &Expr, ty: &Type) -> Result<String> {
        if matches!(e.kind, K::Init(_)) {
            return self.initializer(e, ty);
        }
        let v = self.expr(e)?;
        Ok(self.converted_to(&v.code, &decayed(&v), ty))
    }

    fn name(&mut self, n: &str, line: u32) -> Result<V> {
        if let Some(var) = self.lookup(n) {
            return Ok(match (&var.ty, var.is_ref) {
                (Type::Ref(p), true) | (Type::Pointer(p), true) => {
                    V::element(&var.code, "0", (**p).clone())
                }
                _ => V::place(var.code.clone(), var.ty.clone(), var.space),
            });
        }
        if let Some(Type::Value(v)) = self.subst.get(n) {
            let s = if i32::try_from(*v).is_ok() {
                Scalar::Int
            } else {
                Scalar::Long
            };
            let suffix = if s == Scalar::Long { "L" } else { "" };
            return Ok(V::rvalue(format!("({v}{suffix})"), Type::Scalar(s)));
        }
        if let Some((ty, space)) = self.prog.globals.get(n) {
            return Ok(V::place(names::user(n), ty.clone(), *space));
        }
        if let Some(v) = self.prog.enums.get(n) {
            return Ok(V::rvalue(format!("({v})"), Type::Scalar(Scalar::Int)));
        }
        let builtin = match n {
            "warpSize" => Some(("32", Scalar::Int)),
            "INFINITY" | "CUDART_INF_F" => Some(("INFINITY", Scalar::Float)),
            "NAN" | "CUDART_NAN_F" => Some(("NAN", Scalar::Float)),
            _ => None,
        };
        if let Some((code, s)) = builtin {
            return Ok(V::rvalue(code.into(), Type::Scalar(s)));
        }
        if matches!(n, "threadIdx" | "blockIdx" | "blockDim" | "gridDim") {
            return Err(TranslateError::new(
                line,
                format!("{n} is translated field by field ({n}.x, {n}.y, {n}.z)"),
            ));
        }
        if self.prog.functions.iter().any(|f| f.name == n) {
            return Err(TranslateError::new(
                line,
                format!("function {n} used as a value: OpenCL C has no function pointers"),
            ));
        }
        Err(TranslateError::new(line, format!("unknown name {n}")))
    }

    fn unary(&mut self, op: &str, x: &Expr, line: u32) -> Result<V> {
        let v = self.expr(x)?;
        Ok(match op {
            "*" => match decayed(&v) {
                Type::Pointer(p) => V::element(&v.code, "0", *p),
                _ => {
                    return Err(TranslateError::new(
                        line,
                        "'*' applied to something that is not a pointer",
                    ))
                }
            },
            "&" => {
                if !v.lvalue {
                    return Err(TranslateError::new(
                        line,
                        "'&' of a value that has no address",
                    ));
                }
                let ty = Type::Pointer(Box::new(Pointee {
                    volatile: false,
                    ty: v.ty.clone(),
                    konst: false,
                    space: v.space,
                }));
                let code = match &v.half {
                    Some(slot) => format!("({} + {})", slot.pointer, slot.index),
                    None => format!("(&{})", v.code),
                };
                V::rvalue(code, ty)
            }
            "!" => V::rvalue(format!("(!{})", v.code), Type::Scalar(Scalar::Int)),
            "++" | "--" => V::rvalue(format!("({op}{})", v.code), v.ty),
            _ => {
                let ty = match &v.ty {
                    Type::Scalar(s) => Type::Scalar(arithmetic(*s, Scalar::Bool)),
                    t => t.clone(),
                };
                V::rvalue(format!("({op}{})", v.code), ty)
            }
        })
    }

    fn binary(&mut self, op: &str, a: &Expr, b: &Expr, line: u32) -> Result<V> {
        if matches!(op, "+" | "-") {
            // A product on either side: its factors are translated once, then fused (halves)
            // or combined as written.
            fn product(e: &Expr) -> Option<(&Expr, &Expr)> {
                match &e.kind {
                    K::Binary(m, x, y) if *m == "*" => Some((x, y)),
                    _ => None,
                }
            }
            let split = match (product(a), product(b)) {
                (Some(p), _) => Some((p, b, true)),
                (None, Some(p)) => Some((p, a, false)),
                _ => None,
            };
            if let Some(((x, y), other, left)) = split {
                let (x, y, c) = (self.expr(x)?, self.expr(y)?, self.expr(other)?);
                if let Some(v) = self.half_multiply_add(op, &x, &y, &c, left) {
                    return Ok(v);
                }
                let p = self.arithmetic_of("*", x, y, line)?;
                return if left {
                    self.arithmetic_of(op, p, c, line)
                } else {
                    self.arithmetic_of(op, c, p, line)
                };
            }
        }
        let x = self.expr(a)?;
        let y = self.expr(b)?;
        self.arithmetic_of(op, x, y, line)
    }

    /// `x op y` of two translated operands, typed as C types it (a half result rounded).
    fn arithmetic_of(&mut self, op: &str, x: V, y: V, line: u32) -> Result<V> {
        let (xt, yt) = (decayed(&x), decayed(&y));
        let code = format!("({} {op} {})", x.code, y.code);
        let ty = match op {
            "==" | "!=" | "<" | ">" | "<=" | ">=" | "&&" | "||" => match common(&xt, &yt) {
                Some(t @ Type::Vector(..)) => t,
                _ => Type::Scalar(Scalar::Int),
            },
            "<<" | ">>" => match &xt {
                Type::Scalar(s) => Type::Scalar(arithmetic(*s, Scalar::Bool)),
                t => t.clone(),
            },
            "+" | "-" if xt.is_pointer() || yt.is_pointer() => match (&xt, &yt) {
                (Type::Pointer(_), Type::Pointer(_)) if op == "-" => Type::Scalar(Scalar::Long),
                (Type::Pointer(_), _) => xt.clone(),
                (_, Type::Pointer(_)) if op == "+" => yt.clone(),
                _ => {
                    return Err(TranslateError::new(
                        line,
                        format!("'{op}' of these pointer operands is not C"),
                    ))
                }
            },
            _ => common(&xt, &yt).ok_or_else(|| {
                TranslateError::new(line, format!("'{op}' of operands that are not numbers"))
            })?,
        };
        if let (Some(lanes), "+" | "-" | "*" | "/") = (half::lanes(&ty), op) {
            let code = self.round_half(&code, lanes);
            return Ok(V::rvalue(code, ty));
        }
        Ok(V::rvalue(code, ty))
    }

    fn assign(&mut self, op: &'static str, a: &Expr, b: &Expr, line: u32) -> Result<V> {
        let x = self.expr(a)?;
        let y = self.expr(b)?;
        if !x.lvalue {
            return Err(TranslateError::new(
                line,
                format!("the left side of '{op}' cannot be assigned"),
            ));
        }
        if let (Type::Pointer(p), Type::Pointer(q)) = (&x.ty, &decayed(&y)) {
            if op == "=" {
                if let K::Ident(n) = &a.kind {
                    if p.space == Space::Unknown {
                        self.learn_space(n, q.space);
                    } else if !self.learning && q.space != Space::Unknown && q.space != p.space {
                        return Err(TranslateError::new(
                            line,
                            format!(
                                "pointer {n} points into {} memory and is assigned a pointer into {} memory; OpenCL C pointers keep one memory: use two pointers",
                                memory_name(p.space),
                                memory_name(q.space)
                            ),
                        ));
                    }
                }
            }
        }
        if let Some(lanes) = half::lanes(&x.ty) {
            return Ok(self.assign_half(op, &x, &y, lanes));
        }
        Ok(V::rvalue(format!("({} {op} {})", x.code, y.code), x.ty))
    }

    /// `x * y ± c` (`left`) or `c ± x * y` of halves as one fused multiply-add, as NVRTC
    /// contracts them (`fma.rn.f16`); the float fma is rounded to half once more. `None`
    /// where the operands are not all halves.
    fn half_multiply_add(&mut self, op: &str, x: &V, y: &V, c: &V, left: bool) -> Option<V> {
        let half = Type::Scalar(Scalar::Half);
        if [x, y, c].iter().any(|v| decayed(v) != half) {
            return None;
        }
        let code = match (op, left) {
            ("+", _) => format!("fma({}, {}, {})", x.code, y.code, c.code),
            (_, true) => format!("fma({}, {}, -{})", x.code, y.code, c.code),
            (_, false) => format!("fma(-{}, {}, {})", x.code, y.code, c.code),
        };
        let code = self.round_half(&code, 1);
        Some(V::rvalue(code, half))
    }

    /// `code` (a float or float2 of `lanes`) rounded to half, its helpers emitted.
    pub(crate) fn round_half(&mut self, code: &str, lanes: u8) -> String {
        let code = half::round(code, lanes);
        self.builtin_helpers(&code, "");
        code
    }

    /// `code` of type `from` converted to `to`, rounded where `to` is a half type (its
    /// helpers emitted); as it is for any other type.
    pub(crate) fn converted_to(&mut self, code: &str, from: &Type, to: &Type) -> String {
        let code = half::rounded(code, from, to);
        self.builtin_helpers(&code, "");
        code
    }

    /// An assignment to a half: the value rounded, stored with `vstore_half` in the user's
    /// memory (a statement: it has no value there).
    fn assign_half(&mut self, op: &str, x: &V, y: &V, lanes: u8) -> V {
        let value = if op == "=" {
            self.converted_to(&y.code, &decayed(y), &x.ty)
        } else {
            let current = x.half.as_ref().map_or(x.code.clone(), half::Slot::load);
            self.round_half(
                &format!("({current} {} {})", &op[..op.len() - 1], y.code),
                lanes,
            )
        };
        match &x.half {
            Some(slot) => V::rvalue(slot.store(&value), Type::Void),
            None => V::rvalue(format!("({} = {value})", x.code), x.ty.clone()),
        }
    }

    fn member(&mut self, base: &Expr, field: &str, arrow: bool, line: u32) -> Result<V> {
        if let K::Ident(n) = &base.kind {
            if self.lookup(n).is_none() {
                if let Some(code) = thread_index(n, field) {
                    // A child grid's thread takes its indices as parameters.
                    let code = if self.child {
                        format!("ember_{n}_{field}")
                    } else {
                        code
                    };
                    return Ok(V::rvalue(code, Type::Scalar(Scalar::UInt)));
                }
            }
        }
        let b = self.expr(base)?;
        let (owner, space, sep) = if arrow {
            match decayed(&b) {
                Type::Pointer(p) => (p.ty, p.space, "->"),
                _ => {
                    return Err(TranslateError::new(
                        line,
                        format!("'->{field}' of something that is not a pointer"),
                    ))
                }
            }
        } else {
            (b.ty.clone(), b.space, ".")
        };
        let ty = match &owner {
            Type::Vector(s, n) => {
                let lanes = ["x", "y", "z", "w"];
                if !lanes[..*n as usize].contains(&field) {
                    return Err(TranslateError::new(
                        line,
                        format!("a vector of {n} has no field {field}"),
                    ));
                }
                Type::Scalar(*s)
            }
            Type::Struct(s) => {
                let def = self.prog.structs.get(s).ok_or_else(|| {
                    TranslateError::new(line, format!("struct {s} is declared but not defined"))
                })?;
                def.fields
                    .iter()
                    .find(|(f, _)| f == field)
                    .map(|(_, t)| t.clone())
                    .ok_or_else(|| {
                        TranslateError::new(line, format!("struct {s} has no field {field}"))
                    })?
            }
            _ => {
                return Err(TranslateError::new(
                    line,
                    format!("'.{field}' of something that is not a struct or vector"),
                ))
            }
        };
        let name = match &owner {
            Type::Struct(_) => names::user(field),
            _ => field.to_string(),
        };
        Ok(V {
            code: format!("({}{sep}{name})", b.code),
            ty,
            space,
            // A lane of a __half2 in the user's memory is read only (it is loaded whole).
            lvalue: b.half.is_none(),
            half: None,
        })
    }

    fn cast(&mut self, ty: &Type, x: &Expr) -> Result<V> {
        let v = self.expr(x)?;
        let mut ty = resolve(ty, &self.subst);
        if let Type::Pointer(p) = &mut ty {
            if p.space == Space::Unknown {
                p.space = match decayed(&v) {
                    Type::Pointer(q) => q.space,
                    _ => Space::Private,
                };
            }
        }
        self.prog.note_type(&ty);
        if half::lanes(&ty).is_some() {
            let code = self.converted_to(&v.code, &decayed(&v), &ty);
            return Ok(V::rvalue(code, ty));
        }
        let t = self.prog.declare(&ty, "");
        Ok(V::rvalue(format!("(({t}){})", v.code), ty))
    }
}

/// How an error names a memory.
pub(crate) fn memory_name(s: Space) -> &'static str {
    match s {
        Space::Global => "global",
        Space::Local => "shared",
        Space::Constant => "constant",
        Space::Private | Space::Unknown => "private",
    }
}
