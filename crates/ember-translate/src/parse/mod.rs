//! CUDA's C/C++ subset, from preprocessed tokens to the tree of [`crate::ast`]: recursive
//! descent, with the type names (typedefs, structs, template parameters) tracked as C needs to
//! tell a declaration from an expression.

mod expr;
mod stmt;
mod types;

use std::collections::{HashMap, HashSet};

use crate::ast::{Expr, FnKind, Function, Item, Stmt, StmtKind as S, Storage, Type, Unit, VarDecl};
use crate::error::{Result, TranslateError};
use crate::token::{Kind, Token};

/// Parses a preprocessed token stream.
pub fn parse(tokens: &[Token]) -> Result<Unit> {
    let mut p = Parser::new(tokens);
    let mut unit = Unit::default();
    while !p.at_end() {
        p.item(&mut unit.items)?;
    }
    Ok(unit)
}

/// The parser's state: the tokens, where it is, and the names that denote types.
pub(crate) struct Parser<'t> {
    tokens: &'t [Token],
    at: usize,
    /// Typedef names (and struct names, usable bare as in C++) and what they denote.
    typedefs: HashMap<String, Type>,
    /// Names of function templates seen so far (`f<float>(x)` is a call, not a comparison).
    templates: HashSet<String>,
    /// Integer constants known while parsing (enumerators, `const int` with constant values):
    /// array sizes must fold to numbers, as OpenCL C has no variable-length arrays.
    constants: HashMap<String, i64>,
    /// `constexpr` functions whose body is one `return`: their parameters and that expression,
    /// evaluated where a constant is needed (array sizes, template arguments).
    constexpr_functions: HashMap<String, (Vec<String>, Expr)>,
    /// The value parameters of the template being parsed (`N` of `template <int N>`).
    value_params: HashSet<String>,
}

impl<'t> Parser<'t> {
    fn new(tokens: &'t [Token]) -> Self {
        Parser {
            tokens,
            at: 0,
            typedefs: HashMap::new(),
            templates: HashSet::new(),
            constants: HashMap::new(),
            constexpr_functions: HashMap::new(),
            value_params: HashSet::new(),
        }
    }

    fn at_end(&self) -> bool {
        self.at >= self.tokens.len()
    }

    /// The token `k` ahead, if any.
    fn peek_at(&self, k: usize) -> Option<&'t Token> {
        self.tokens.get(self.at + k)
    }

    fn peek(&self) -> Option<&'t Token> {
        self.peek_at(0)
    }

    /// Whether the next token is `s`.
    fn check(&self, s: &str) -> bool {
        self.peek().is_some_and(|t| t.is(s))
    }

    fn check_at(&self, k: usize, s: &str) -> bool {
        self.peek_at(k).is_some_and(|t| t.is(s))
    }

    /// The line of the next token (of the last one at the end).
    fn line(&self) -> u32 {
        self.peek()
            .or_else(|| self.tokens.last())
            .map_or(0, |t| t.line)
    }

    fn bump(&mut self) -> Result<&'t Token> {
        let t = self.tokens.get(self.at).ok_or_else(|| {
            TranslateError::new(self.line(), "the source ends in the middle of a construct")
        })?;
        self.at += 1;
        Ok(t)
    }

    /// Consumes `s` if it is next.
    fn eat(&mut self, s: &str) -> bool {
        if self.check(s) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, s: &str) -> Result<()> {
        if self.eat(s) {
            return Ok(());
        }
        Err(self.unexpected(&format!("'{s}'")))
    }

    /// An error saying what was expected and what was found.
    fn unexpected(&self, wanted: &str) -> TranslateError {
        match self.peek() {
            Some(t) => {
                TranslateError::new(t.line, format!("expected {wanted}, found '{}'", t.text))
            }
            None => TranslateError::new(
                self.line(),
                format!("expected {wanted} at the end of the source"),
            ),
        }
    }

    fn ident(&mut self) -> Result<String> {
        match self.peek() {
            Some(t) if t.kind == Kind::Ident => {
                self.at += 1;
                Ok(t.text.clone())
            }
            _ => Err(self.unexpected("a name")),
        }
    }

    /// One item at file scope (a declaration may define several).
    fn item(&mut self, items: &mut Vec<Item>) -> Result<()> {
        if self.eat(";") {
            return Ok(());
        }
        if self.check("extern") && self.peek_at(1).is_some_and(|t| t.kind == Kind::Str) {
            // `extern "C"`: OpenCL C has C's linkage already.
            self.at += 2;
            if self.eat("{") {
                while !self.eat("}") {
                    if self.at_end() {
                        return Err(self.unexpected("'}' closing extern \"C\" {"));
                    }
                    self.item(items)?;
                }
                return Ok(());
            }
        }
        if let Some(t) = self.peek() {
            if t.kind == Kind::Pragma {
                self.at += 1; // a file-scope pragma has nothing to act on in OpenCL C
                return Ok(());
            }
        }
        if self.check("using") && self.check_at(2, "=") {
            return self.alias();
        }
        if self.check("static_assert") {
            return self.static_assert();
        }
        if self.check("namespace") || self.check("using") || self.check("class") {
            let t = self.bump()?;
            return Err(TranslateError::new(
                t.line,
                format!(
                    "C++ '{}' is not translated to OpenCL C (write plain C functions and structs)",
                    t.text
                ),
            ));
        }
        if self.eat("typedef") {
            return self.typedef(items);
        }
        if self.check("template") {
            return self.template(items);
        }
        let line = self.line();
        let spec = self.specifiers()?;
        if self.eat(";") {
            // `struct S { ... };` alone
            if let Some(def) = spec.defined {
                items.push(Item::Struct(def));
            }
            if let Some(e) = spec.enumerators {
                items.push(Item::Enum(e, line));
            }
            return Ok(());
        }
        if let Some(def) = spec.defined.clone() {
            items.push(Item::Struct(def));
        }
        if let Some(e) = spec.enumerators.clone() {
            items.push(Item::Enum(e, line));
        }
        loop {
            let decl = self.declarator(&spec)?;
            if self.check("(") {
                let f = self.function(&spec, decl.name, decl.ty, Vec::new(), decl.line)?;
                items.push(Item::Function(f));
                return Ok(());
            }
            let init = if self.eat("=") {
                Some(self.initializer()?)
            } else {
                None
            };
            if let (true, Some(v)) = (
                decl.konst && decl.ty.is_integer(),
                init.as_ref().and_then(|e| self.fold(e)),
            ) {
                self.constants.insert(decl.name.clone(), v);
            }
            items.push(Item::Global(VarDecl {
                name: decl.name,
                ty: decl.ty,
                konst: decl.konst,
                storage: spec.storage.unwrap_or(Storage::Device),
                init,
                line: decl.line,
            }));
            if self.eat(";") {
                return Ok(());
            }
            self.expect(",")?;
        }
    }

    /// `template <typename T, ...>` before a function.
    fn template(&mut self, items: &mut Vec<Item>) -> Result<()> {
        let line = self.line();
        self.bump()?;
        self.expect("<")?;
        if self.eat(">") {
            return self.specialization(items, line);
        }
        let mut names = Vec::new();
        let mut types = Vec::new();
        loop {
            if self.eat("typename") || self.eat("class") {
                let n = self.ident()?;
                types.push(n.clone());
                names.push(n);
            } else if self.starts_type_name() {
                // A value parameter (`int N`, `unsigned int blockSize`): a name in the body.
                let spec = self.specifiers()?;
                let d = self.declarator(&spec)?;
                if !d.ty.is_integer() {
                    return Err(TranslateError::new(
                        d.line,
                        format!("template parameter {} must be a type or an integer", d.name),
                    ));
                }
                self.value_params.insert(d.name.clone());
                names.push(d.name);
            } else {
                return Err(self.unexpected("a template parameter"));
            }
            if self.eat("=") {
                return Err(TranslateError::new(
                    self.line(),
                    "default template arguments are not translated; name every argument",
                ));
            }
            if self.eat(">") {
                break;
            }
            self.expect(",")?;
        }
        let saved: Vec<_> = types
            .iter()
            .map(|n| {
                (
                    n.clone(),
                    self.typedefs.insert(n.clone(), Type::Param(n.clone())),
                )
            })
            .collect();
        let spec = self.specifiers()?;
        let decl = self.declarator(&spec)?;
        if !self.check("(") {
            return Err(TranslateError::new(
                line,
                "only function templates are translated (not template structs or classes): write the struct for each type",
            ));
        }
        self.templates.insert(decl.name.clone());
        let f = self.function(&spec, decl.name, decl.ty, names, decl.line);
        self.value_params.clear();
        for (n, old) in saved {
            match old {
                Some(t) => self.typedefs.insert(n, t),
                None => self.typedefs.remove(&n),
            };
        }
        items.push(Item::Function(f?));
        Ok(())
    }

    /// `template <> ret name<args>(params) { ... }`, after `template <>`: the function the
    /// template `name` is for those arguments.
    fn specialization(&mut self, items: &mut Vec<Item>, line: u32) -> Result<()> {
        let spec = self.specifiers()?;
        let decl = self.declarator(&spec)?;
        let name = decl.name;
        if !self.templates.contains(&name) || !self.eat("<") {
            return Err(TranslateError::new(
                line,
                format!("template <> {name}: only explicit specializations of function templates declared before are translated"),
            ));
        }
        let mut args = Vec::new();
        while !self.eat(">") {
            args.push(self.template_argument()?);
            if !self.check(">") {
                self.expect(",")?;
            }
        }
        let mut f = self.function(&spec, name, decl.ty, Vec::new(), line)?;
        f.specialization = args;
        items.push(Item::Function(f));
        Ok(())
    }

    /// `static_assert(condition[, "message"]);`: checked where the condition is a constant
    /// now (one that depends on a template's arguments is left to NVRTC's reading).
    pub(crate) fn static_assert(&mut self) -> Result<()> {
        let line = self.line();
        self.expect("static_assert")?;
        self.expect("(")?;
        let c = self.conditional()?;
        let mut message = String::new();
        if self.eat(",") {
            while let Some(t) = self.peek().filter(|t| t.kind == Kind::Str) {
                message.push_str(t.text.trim_matches('"'));
                self.at += 1;
            }
        }
        self.expect(")")?;
        self.expect(";")?;
        if self.fold(&c) == Some(0) {
            return Err(TranslateError::new(
                line,
                format!("static assertion failed: {message}"),
            ));
        }
        Ok(())
    }

    /// C++'s `using name = T;`: a typedef.
    pub(crate) fn alias(&mut self) -> Result<()> {
        self.expect("using")?;
        let name = self.ident()?;
        self.expect("=")?;
        let ty = self.type_name()?;
        self.expect(";")?;
        self.typedefs.insert(name, ty);
        Ok(())
    }

    /// `typedef T name;` (several names allowed). An anonymous struct takes the first name.
    fn typedef(&mut self, items: &mut Vec<Item>) -> Result<()> {
        let mut spec = self.specifiers()?;
        if let (Some(def), Some(t)) = (&mut spec.defined, self.peek()) {
            if def.name.starts_with(types::ANONYMOUS) && t.kind == Kind::Ident {
                def.name = t.text.clone();
                spec.ty = Type::Struct(t.text.clone());
            }
        }
        loop {
            let d = self.declarator(&spec)?;
            self.typedefs.insert(d.name, d.ty);
            if self.eat(";") {
                break;
            }
            self.expect(",")?;
        }
        if let Some(def) = spec.defined {
            items.push(Item::Struct(def));
        }
        if let Some(e) = spec.enumerators {
            items.push(Item::Enum(e, self.line()));
        }
        Ok(())
    }

    /// A function's parameters and body (or `;`), after its name.
    fn function(
        &mut self,
        spec: &types::Specifiers,
        name: String,
        ret: Type,
        template: Vec<String>,
        line: u32,
    ) -> Result<Function> {
        let params = self.params()?;
        // Trailing qualifiers of C++ (`const`, `noexcept`) mean nothing here.
        while self.eat("noexcept") || self.eat("const") {}
        let body = if self.eat(";") {
            None
        } else {
            Some(self.block_body()?)
        };
        if let (
            true,
            Some(
                [Stmt {
                    kind: S::Return(Some(e)),
                    ..
                }],
            ),
        ) = (spec.konst, body.as_deref())
        {
            let names = params.iter().map(|p| p.name.clone()).collect();
            self.constexpr_functions
                .insert(name.clone(), (names, e.clone()));
        }
        Ok(Function {
            name,
            kind: spec.fn_kind.unwrap_or(FnKind::Device),
            ret,
            params,
            body,
            template,
            specialization: Vec::new(),
            line,
        })
    }
}

pub(crate) use expr::{fold, int_value};
pub(crate) use types::builtin_type;

/// Type names separated by commas (the arguments of a name expression `fill<float, int>`).
pub fn type_list(tokens: &[Token]) -> Result<Vec<Type>> {
    let mut p = Parser::new(tokens);
    let mut out = Vec::new();
    loop {
        out.push(p.template_argument()?);
        if p.at_end() {
            return Ok(out);
        }
        p.expect(",")?;
    }
}
