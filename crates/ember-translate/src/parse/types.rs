//! Declarations: the specifiers before a name (`static __device__ const float`), the declarator
//! around it (`*p`, `a[16][16]`, `&x`), structs, enums and parameter lists.

use crate::ast::{FnKind, Param, Pointee, Scalar, Storage, StructDef, Type};
use crate::error::{Result, TranslateError};
use crate::token::Kind;

use super::Parser;

/// The name given to a struct declared without one (a typedef renames it).
pub(crate) const ANONYMOUS: &str = "__ember_anonymous_";

/// What the specifiers of a declaration said.
#[derive(Clone, Debug)]
pub(crate) struct Specifiers {
    pub ty: Type,
    pub konst: bool,
    pub volatile: bool,
    pub storage: Option<Storage>,
    pub fn_kind: Option<FnKind>,
    /// A struct or union defined here.
    pub defined: Option<StructDef>,
    /// An enum's constants defined here.
    pub enumerators: Option<Vec<(String, i64)>>,
}

/// A declarator: the declared name, its whole type, its line.
pub(crate) struct Declarator {
    pub name: String,
    pub ty: Type,
    /// The declared object itself is `const` (a `const` scalar, or `T* const`).
    pub konst: bool,
    pub line: u32,
}

/// The types CUDA predefines by name (stdint's, `size_t`, the vector types).
pub(crate) fn builtin_type(name: &str) -> Option<Type> {
    let scalar = |s| Some(Type::Scalar(s));
    match name {
        "size_t" | "uint64_t" | "uintptr_t" | "__uint64_t" => scalar(Scalar::ULong),
        "ptrdiff_t" | "intptr_t" | "int64_t" | "ssize_t" | "__int64_t" => scalar(Scalar::Long),
        "int32_t" => scalar(Scalar::Int),
        "uint32_t" => scalar(Scalar::UInt),
        "int16_t" => scalar(Scalar::Short),
        "uint16_t" => scalar(Scalar::UShort),
        "int8_t" => scalar(Scalar::Char),
        "uint8_t" => scalar(Scalar::UChar),
        "half" | "__half" => scalar(Scalar::Half),
        "dim3" => Some(Type::Vector(Scalar::UInt, 3)),
        _ => vector_type(name),
    }
}

/// `float4`, `uint2`, `longlong3`, `half2` ...: CUDA's vector types.
fn vector_type(name: &str) -> Option<Type> {
    let width = name.chars().last()?.to_digit(10)? as u8;
    if !(1..=4).contains(&width) {
        return None;
    }
    let element = match &name[..name.len() - 1] {
        "char" => Scalar::Char,
        "uchar" => Scalar::UChar,
        "short" => Scalar::Short,
        "ushort" => Scalar::UShort,
        "int" => Scalar::Int,
        "uint" => Scalar::UInt,
        "long" | "longlong" => Scalar::Long,
        "ulong" | "ulonglong" => Scalar::ULong,
        "float" => Scalar::Float,
        "double" => Scalar::Double,
        "half" | "__half" if width == 2 => Scalar::Half,
        _ => return None,
    };
    Some(Type::Vector(element, width))
}

/// The words that count `long`s, signs and base types before folding them into one scalar.
#[derive(Default)]
struct Words {
    longs: u8,
    signed: Option<bool>,
    base: Option<&'static str>,
}

impl Words {
    fn any(&self) -> bool {
        self.longs > 0 || self.signed.is_some() || self.base.is_some()
    }

    fn fold(&self, line: u32) -> Result<Type> {
        let unsigned = self.signed == Some(false);
        let s = match (self.base, self.longs) {
            (Some("void"), 0) => return Ok(Type::Void),
            (Some("bool"), 0) => Scalar::Bool,
            (Some("char"), 0) => {
                if unsigned {
                    Scalar::UChar
                } else {
                    Scalar::Char
                }
            }
            (Some("short"), 0) => {
                if unsigned {
                    Scalar::UShort
                } else {
                    Scalar::Short
                }
            }
            (Some("int") | None, 0) => {
                if unsigned {
                    Scalar::UInt
                } else {
                    Scalar::Int
                }
            }
            (Some("int") | None, 1 | 2) => {
                if unsigned {
                    Scalar::ULong
                } else {
                    Scalar::Long
                }
            }
            (Some("float"), 0) => Scalar::Float,
            (Some("double"), 0 | 1) => Scalar::Double,
            (Some("half"), 0) => Scalar::Half,
            _ => {
                return Err(TranslateError::new(
                    line,
                    "this combination of type words is not a C type",
                ))
            }
        };
        Ok(Type::Scalar(s))
    }
}

impl Parser<'_> {
    /// Whether the next tokens begin a declaration (a type or a qualifier).
    pub(crate) fn starts_declaration(&self) -> bool {
        let Some(t) = self.peek() else { return false };
        if t.kind != Kind::Ident {
            return false;
        }
        let word = t.text.as_str();
        if is_specifier_word(word)
            || self.typedefs.contains_key(word)
            || builtin_type(word).is_some()
        {
            // `size_t(x)` and `float4(...)` would be functional casts; CUDA C rarely writes them
            // at the start of a statement.
            return !(self.check_at(1, "(") && !is_specifier_word(word) && !self.check_at(2, "*"));
        }
        false
    }

    /// Whether the next tokens are a type name (for casts and `sizeof`).
    pub(crate) fn starts_type_name(&self) -> bool {
        let Some(t) = self.peek() else { return false };
        t.kind == Kind::Ident
            && (is_type_word(&t.text)
                || self.typedefs.contains_key(&t.text)
                || builtin_type(&t.text).is_some())
    }

    /// The specifiers of a declaration.
    pub(crate) fn specifiers(&mut self) -> Result<Specifiers> {
        let line = self.line();
        let mut words = Words::default();
        let mut spec = Specifiers {
            ty: Type::Void,
            konst: false,
            volatile: false,
            storage: None,
            fn_kind: None,
            defined: None,
            enumerators: None,
        };
        let mut named: Option<Type> = None;
        let mut external = false;
        while let Some(t) = self.peek() {
            if t.kind != Kind::Ident {
                break;
            }
            let word = t.text.as_str();
            match word {
                "const" | "constexpr" => spec.konst = true,
                "volatile" => spec.volatile = true,
                "static" | "inline" | "__inline__" | "__forceinline__" | "__noinline__"
                | "register" | "__restrict__" | "restrict" | "typename" => {
                    if word == "static" && spec.storage.is_none() {
                        spec.storage = Some(Storage::Static);
                    }
                }
                "extern" => external = true,
                "__global__" => spec.fn_kind = Some(FnKind::Kernel),
                "__device__" => {
                    if spec.fn_kind != Some(FnKind::Kernel) {
                        spec.fn_kind = Some(FnKind::Device);
                    }
                    if !matches!(spec.storage, Some(Storage::Shared | Storage::Constant)) {
                        spec.storage = Some(Storage::Device);
                    }
                }
                "__host__" => {
                    if spec.fn_kind.is_none() {
                        spec.fn_kind = Some(FnKind::Host);
                    }
                }
                "__shared__" => spec.storage = Some(Storage::Shared),
                "__constant__" => spec.storage = Some(Storage::Constant),
                "__managed__" => {
                    return Err(TranslateError::new(
                        t.line,
                        "__managed__ memory has no OpenCL equivalent",
                    ))
                }
                "__launch_bounds__" | "__align__" | "__attribute__" | "__declspec" | "alignas" => {
                    self.at += 1;
                    self.skip_parens()?;
                    continue;
                }
                "signed" => words.signed = Some(true),
                "unsigned" => words.signed = Some(false),
                "long" => words.longs += 1,
                "void" | "char" | "short" | "int" | "float" | "double" | "bool" | "_Bool" => {
                    if words.base.is_some() || named.is_some() {
                        break;
                    }
                    words.base = Some(match word {
                        "void" => "void",
                        "char" => "char",
                        "short" => "short",
                        "int" => "int",
                        "float" => "float",
                        "double" => "double",
                        _ => "bool",
                    });
                }
                "struct" | "union" => {
                    self.at += 1;
                    named = Some(self.struct_specifier(word == "union", &mut spec)?);
                    continue;
                }
                "enum" => {
                    self.at += 1;
                    named = Some(self.enum_specifier(&mut spec)?);
                    continue;
                }
                "auto" => named = Some(Type::Param("auto".into())),
                _ => {
                    if words.any() || named.is_some() {
                        break;
                    }
                    if let Some(ty) = self
                        .typedefs
                        .get(word)
                        .cloned()
                        .or_else(|| builtin_type(word))
                    {
                        named = Some(ty);
                    } else {
                        break;
                    }
                }
            }
            self.at += 1;
        }
        if external && spec.storage == Some(Storage::Shared) {
            spec.storage = Some(Storage::DynamicShared);
        }
        spec.ty = match named {
            Some(ty) if !words.any() => ty,
            Some(_) => {
                return Err(TranslateError::new(
                    line,
                    "a type name cannot take 'long', 'signed' or 'unsigned'",
                ))
            }
            None if words.any() => words.fold(line)?,
            None => return Err(self.unexpected("a type")),
        };
        Ok(spec)
    }

    /// Skips a parenthesised group (attribute arguments).
    fn skip_parens(&mut self) -> Result<()> {
        if !self.eat("(") {
            return Ok(());
        }
        let mut depth = 1;
        while depth > 0 {
            let t = self.bump()?;
            if t.is("(") {
                depth += 1;
            } else if t.is(")") {
                depth -= 1;
            }
        }
        Ok(())
    }

    /// `struct [name] [{ fields }]`, after the keyword.
    fn struct_specifier(&mut self, union: bool, spec: &mut Specifiers) -> Result<Type> {
        let line = self.line();
        let name = if self.peek().is_some_and(|t| t.kind == Kind::Ident) {
            self.ident()?
        } else {
            format!("{ANONYMOUS}{}", self.at)
        };
        let ty = Type::Struct(name.clone());
        self.typedefs.insert(name.clone(), ty.clone());
        if !self.eat("{") {
            return Ok(ty);
        }
        let mut fields = Vec::new();
        while !self.eat("}") {
            let fl = self.line();
            let s = self.specifiers()?;
            if s.defined.is_some() {
                return Err(TranslateError::new(
                    fl,
                    "a struct defined inside a struct is not translated; define it before",
                ));
            }
            loop {
                let d = self.declarator(&s)?;
                if self.check("(") {
                    return Err(TranslateError::new(
                        d.line,
                        format!("struct {name} has a member function {}; OpenCL C structs hold data only (write a plain function)", d.name),
                    ));
                }
                if self.check(":") {
                    return Err(TranslateError::new(d.line, "bit-fields are not translated"));
                }
                fields.push((d.name, d.ty));
                if self.eat(";") {
                    break;
                }
                self.expect(",")?;
            }
        }
        spec.defined = Some(StructDef {
            name,
            union,
            fields,
            line,
        });
        Ok(ty)
    }

    /// `enum [name] [: type] [{ A, B = 3 }]`, after the keyword: the constants are folded now.
    fn enum_specifier(&mut self, spec: &mut Specifiers) -> Result<Type> {
        // `enum class E` / `enum struct E`: its enumerators are also named `E::A` (below).
        if !self.eat("class") {
            self.eat("struct");
        }
        let mut enum_name = None;
        if self.peek().is_some_and(|t| t.kind == Kind::Ident) && !self.check("{") {
            let name = self.ident()?;
            self.typedefs
                .insert(name.clone(), Type::Scalar(Scalar::Int));
            enum_name = Some(name);
        }
        if self.eat(":") {
            self.specifiers()?;
        }
        if !self.eat("{") {
            return Ok(Type::Scalar(Scalar::Int));
        }
        let mut next = 0i64;
        let mut constants = Vec::new();
        while !self.eat("}") {
            let line = self.line();
            let name = self.ident()?;
            if self.eat("=") {
                let e = self.conditional()?;
                next = self.fold(&e).ok_or_else(|| {
                    TranslateError::new(line, format!("the value of {name} is not a constant"))
                })?;
            }
            // Also as `E::A` (C++ lets every enumerator be named so; a scoped one must be).
            if let Some(e) = &enum_name {
                self.constants.insert(format!("{e}::{name}"), next);
                constants.push((format!("{e}::{name}"), next));
            }
            self.constants.insert(name.clone(), next);
            constants.push((name, next));
            next += 1;
            if !self.eat(",") {
                self.expect("}")?;
                break;
            }
        }
        spec.enumerators = Some(constants);
        Ok(Type::Scalar(Scalar::Int))
    }

    /// A declarator on top of the specifiers' type: pointers, references, the name, arrays.
    /// The name may be missing (an abstract declarator: a parameter of a prototype, a cast).
    pub(crate) fn declarator(&mut self, spec: &Specifiers) -> Result<Declarator> {
        let mut ty = spec.ty.clone();
        let mut pointee_const = spec.konst;
        let mut pointee_volatile = spec.volatile;
        let mut own_const = spec.konst;
        let line = self.line();
        loop {
            if self.eat("*") {
                ty = Type::Pointer(Box::new(Pointee {
                    volatile: pointee_volatile,
                    ty,
                    konst: pointee_const,
                    space: crate::ast::Space::Unknown,
                }));
                pointee_const = false;
                pointee_volatile = false;
                own_const = false;
                while let Some(q) = self.peek() {
                    match q.text.as_str() {
                        "const" => {
                            own_const = true;
                            pointee_const = true;
                        }
                        "volatile" => pointee_volatile = true,
                        "__restrict__" | "restrict" | "__restrict" => {}
                        _ => break,
                    }
                    self.at += 1;
                }
            } else if self.eat("&") || self.eat("&&") {
                ty = Type::Ref(Box::new(Pointee {
                    volatile: false,
                    ty,
                    konst: pointee_const,
                    space: crate::ast::Space::Unknown,
                }));
                while self.eat("__restrict__") || self.eat("restrict") {}
            } else {
                break;
            }
        }
        if self.check("(") && self.check_at(1, "*") {
            return Err(TranslateError::new(
                line,
                "function pointers are not translated (OpenCL C has none)",
            ));
        }
        let name = if self.peek().is_some_and(|t| t.kind == Kind::Ident) {
            self.ident()?
        } else {
            String::new()
        };
        let mut sizes = Vec::new();
        let mut dependent = Vec::new();
        while self.eat("[") {
            if self.eat("]") {
                sizes.push(None);
                continue;
            }
            let e = self.expression()?;
            let Some(n) = self.fold(&e) else {
                if !self.value_params.is_empty() {
                    // Sized by a template's values: known when it is instantiated.
                    self.expect("]")?;
                    dependent.push((sizes.len(), e));
                    sizes.push(None);
                    continue;
                }
                let why = if matches!(e.kind, crate::ast::ExprKind::Call(..)) {
                    "only calls of constexpr functions of one `return` are evaluated by the translation: use a constexpr variable or a #define"
                } else {
                    "OpenCL C has no variable-length arrays"
                };
                return Err(TranslateError::new(
                    e.line,
                    format!("the size of array {name} is not a constant ({why})"),
                ));
            };
            if n < 0 {
                return Err(TranslateError::new(
                    e.line,
                    format!("array {name} has a negative size {n}"),
                ));
            }
            sizes.push(Some(n as u64));
            self.expect("]")?;
        }
        for (k, n) in sizes.into_iter().enumerate().rev() {
            ty = match dependent.iter().position(|(at, _)| *at == k) {
                Some(i) => Type::SizedBy(Box::new(ty), Box::new(dependent.remove(i).1)),
                None => Type::Array(Box::new(ty), n),
            };
        }
        Ok(Declarator {
            name,
            ty,
            konst: own_const,
            line,
        })
    }

    /// `(params)` of a function.
    pub(crate) fn params(&mut self) -> Result<Vec<Param>> {
        self.expect("(")?;
        let mut params = Vec::new();
        if self.check("void") && self.check_at(1, ")") {
            self.at += 1;
        }
        while !self.eat(")") {
            let line = self.line();
            if self.check("...") {
                return Err(TranslateError::new(
                    line,
                    "variadic functions are not translated",
                ));
            }
            let spec = self.specifiers()?;
            let d = self.declarator(&spec)?;
            let default = if self.eat("=") {
                Some(self.conditional()?)
            } else {
                None
            };
            params.push(Param {
                name: d.name,
                ty: d.ty,
                konst: d.konst,
                default,
                line,
            });
            if !self.eat(",") {
                self.expect(")")?;
                break;
            }
        }
        Ok(params)
    }

    /// A type name (for casts, `sizeof`, template arguments).
    pub(crate) fn type_name(&mut self) -> Result<Type> {
        let spec = self.specifiers()?;
        Ok(self.declarator(&spec)?.ty)
    }
}

/// A word that can only begin a declaration.
fn is_specifier_word(w: &str) -> bool {
    is_type_word(w)
        || matches!(
            w,
            "static"
                | "inline"
                | "__inline__"
                | "__forceinline__"
                | "__noinline__"
                | "register"
                | "extern"
                | "__device__"
                | "__global__"
                | "__host__"
                | "__shared__"
                | "__constant__"
                | "__managed__"
                | "__launch_bounds__"
                | "__align__"
                | "__attribute__"
                | "constexpr"
                | "auto"
        )
}

/// A word that begins a type.
fn is_type_word(w: &str) -> bool {
    matches!(
        w,
        "void"
            | "char"
            | "short"
            | "int"
            | "long"
            | "float"
            | "double"
            | "bool"
            | "_Bool"
            | "signed"
            | "unsigned"
            | "const"
            | "volatile"
            | "struct"
            | "union"
            | "enum"
            | "typename"
    )
}
