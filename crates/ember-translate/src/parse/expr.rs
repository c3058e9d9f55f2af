//! Expressions by C's precedence, with CUDA's additions (`k<<<g, b>>>(...)`, C++ casts,
//! functional casts `float(x)`, calls with template arguments `f<float>(x)`), and the folding
//! of integer constant expressions that array sizes and enum values need.

use std::collections::HashMap;

use crate::ast::{Expr, ExprKind as K, Type};
use crate::error::{Result, TranslateError};
use crate::token::Kind;

use super::types::builtin_type;
use super::Parser;

/// Binary operators by precedence, loosest first.
const LEVELS: &[&[&str]] = &[
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!="],
    &["<", ">", "<=", ">="],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

const ASSIGNMENTS: &[&str] = &[
    "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=",
];

/// The operator text as a `'static` string (the tree keeps operators that way).
fn op(text: &str, among: &[&'static str]) -> Option<&'static str> {
    among.iter().copied().find(|o| *o == text)
}

impl Parser<'_> {
    /// A full expression (commas included).
    pub(crate) fn expression(&mut self) -> Result<Expr> {
        let mut e = self.assignment()?;
        while self.check(",") {
            let line = self.line();
            self.at += 1;
            let r = self.assignment()?;
            e = Expr::new(K::Comma(Box::new(e), Box::new(r)), line);
        }
        Ok(e)
    }

    /// An assignment expression (what a function argument or initialiser is).
    pub(crate) fn assignment(&mut self) -> Result<Expr> {
        let lhs = self.conditional()?;
        if let Some(t) = self.peek() {
            if t.kind == Kind::Punct {
                if let Some(o) = op(&t.text, ASSIGNMENTS) {
                    self.at += 1;
                    let rhs = self.assignment()?;
                    return Ok(Expr::new(
                        K::Assign(o, Box::new(lhs), Box::new(rhs)),
                        t.line,
                    ));
                }
            }
        }
        Ok(lhs)
    }

    /// `c ? a : b` and everything tighter.
    pub(crate) fn conditional(&mut self) -> Result<Expr> {
        let c = self.binary(0)?;
        if !self.check("?") {
            return Ok(c);
        }
        let line = self.line();
        self.at += 1;
        let a = self.expression()?;
        self.expect(":")?;
        let b = self.assignment()?;
        Ok(Expr::new(
            K::Cond(Box::new(c), Box::new(a), Box::new(b)),
            line,
        ))
    }

    fn binary(&mut self, level: usize) -> Result<Expr> {
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut e = self.binary(level + 1)?;
        while let Some(t) = self.peek() {
            let Some(o) = (t.kind == Kind::Punct)
                .then(|| op(&t.text, LEVELS[level]))
                .flatten()
            else {
                break;
            };
            self.at += 1;
            let r = self.binary(level + 1)?;
            e = Expr::new(K::Binary(o, Box::new(e), Box::new(r)), t.line);
        }
        Ok(e)
    }

    fn unary(&mut self) -> Result<Expr> {
        let Some(t) = self.peek() else {
            return Err(self.unexpected("an expression"));
        };
        let line = t.line;
        if t.kind == Kind::Punct {
            if let Some(o) = op(&t.text, &["-", "+", "!", "~", "*", "&", "++", "--"]) {
                self.at += 1;
                let x = self.unary()?;
                return Ok(Expr::new(K::Unary(o, Box::new(x)), line));
            }
            if t.text == "(" && self.cast_follows() {
                self.at += 1;
                let ty = self.type_name()?;
                self.expect(")")?;
                if self.check("{") {
                    return Err(TranslateError::new(
                        line,
                        "compound literals are not translated",
                    ));
                }
                let x = self.unary()?;
                return Ok(Expr::new(K::Cast(ty, Box::new(x)), line));
            }
        }
        if t.is("sizeof") {
            self.at += 1;
            if self.check("(") && {
                self.at += 1;
                let is_type = self.starts_type_name();
                self.at -= 1;
                is_type
            } {
                self.at += 1;
                let ty = self.type_name()?;
                self.expect(")")?;
                return Ok(Expr::new(K::SizeofType(ty), line));
            }
            let x = self.unary()?;
            return Ok(Expr::new(K::SizeofExpr(Box::new(x)), line));
        }
        self.postfix()
    }

    /// After `(`: whether a type name follows (a cast), not an expression.
    fn cast_follows(&mut self) -> bool {
        self.at += 1;
        let is_type = self.starts_type_name();
        self.at -= 1;
        is_type
    }

    fn postfix(&mut self) -> Result<Expr> {
        let mut e = self.primary()?;
        loop {
            let line = self.line();
            if self.eat("[") {
                let i = self.expression()?;
                self.expect("]")?;
                e = Expr::new(K::Index(Box::new(e), Box::new(i)), line);
            } else if self.check("(") {
                let args = self.arguments()?;
                e = Expr::new(K::Call(Box::new(e), Vec::new(), args), line);
            } else if self.eat(".") {
                let f = self.ident()?;
                e = Expr::new(K::Member(Box::new(e), f, false), line);
            } else if self.eat("->") {
                let f = self.ident()?;
                e = Expr::new(K::Member(Box::new(e), f, true), line);
            } else if self.check("++") || self.check("--") {
                let o = if self.bump()?.text == "++" {
                    "++"
                } else {
                    "--"
                };
                e = Expr::new(K::Postfix(o, Box::new(e)), line);
            } else {
                return Ok(e);
            }
        }
    }

    /// `(a, b, c)` of a call.
    fn arguments(&mut self) -> Result<Vec<Expr>> {
        self.expect("(")?;
        let mut args = Vec::new();
        while !self.eat(")") {
            args.push(self.assignment()?);
            if !self.eat(",") {
                self.expect(")")?;
                break;
            }
        }
        Ok(args)
    }

    fn primary(&mut self) -> Result<Expr> {
        let t = self.bump()?;
        let line = t.line;
        let kind = match t.kind {
            Kind::Number => number(&t.text),
            Kind::Char => K::Char(t.text.clone()),
            Kind::Str => {
                let mut s = t.text.clone();
                while let Some(n) = self.peek().filter(|n| n.kind == Kind::Str) {
                    s.push(' ');
                    s.push_str(&n.text);
                    self.at += 1;
                }
                K::Str(s)
            }
            Kind::Punct if t.text == "(" => {
                let e = self.expression()?;
                self.expect(")")?;
                return Ok(e);
            }
            Kind::Ident => return self.name(&t.text, line),
            _ => {
                return Err(TranslateError::new(
                    line,
                    format!("expected an expression, found '{}'", t.text),
                ))
            }
        };
        Ok(Expr::new(kind, line))
    }

    /// An expression starting with a name: a variable, a literal word, a cast or a call.
    fn name(&mut self, word: &str, line: u32) -> Result<Expr> {
        // `Mode::A`: a C++ scoped enumerator, known by its qualified name.
        let qualified;
        let word = if self.check("::") && self.peek_at(1).is_some_and(|t| t.kind == Kind::Ident) {
            self.at += 1;
            qualified = format!("{word}::{}", self.ident()?);
            qualified.as_str()
        } else {
            word
        };
        let kind = match word {
            "true" => K::Bool(true),
            "false" => K::Bool(false),
            "nullptr" | "NULL" => K::Null,
            "alignof" | "__alignof__" | "_Alignof" | "__alignof" => {
                self.expect("(")?;
                let ty = self.type_name()?;
                self.expect(")")?;
                K::AlignofType(ty)
            }
            "static_cast" | "reinterpret_cast" | "const_cast" => {
                self.expect("<")?;
                let ty = self.type_name()?;
                self.expect(">")?;
                self.expect("(")?;
                let x = self.expression()?;
                self.expect(")")?;
                K::Cast(ty, Box::new(x))
            }
            "dynamic_cast" | "new" | "delete" | "throw" | "typeid" | "this" | "operator" => {
                return Err(TranslateError::new(
                    line,
                    format!("C++ '{word}' is not translated to OpenCL C"),
                ))
            }
            _ if self.check("<") && self.check_at(1, "<") && self.check_at(2, "<") => {
                return self.launch(word, line)
            }
            _ if self.check("<<") && self.check_at(1, "<") => return self.launch(word, line),
            _ if self.templates.contains(word) && self.check("<") => {
                self.at += 1;
                let mut targs = Vec::new();
                loop {
                    targs.push(self.template_argument()?);
                    if self.eat(">") {
                        break;
                    }
                    self.expect(",")?;
                }
                let args = self.arguments()?;
                let callee = Expr::new(K::Ident(word.to_string()), line);
                K::Call(Box::new(callee), targs, args)
            }
            _ if self.check("(") && self.is_functional_cast(word) => {
                self.at -= 1;
                let ty = self.type_name()?;
                self.expect("(")?;
                let x = self.expression()?;
                self.expect(")")?;
                K::Cast(ty, Box::new(x))
            }
            _ => K::Ident(word.to_string()),
        };
        Ok(Expr::new(kind, line))
    }

    /// One argument of a template: a type, or a value (folded now if it can be).
    pub(crate) fn template_argument(&mut self) -> Result<Type> {
        if self.starts_type_name() {
            return self.type_name();
        }
        let e = self.binary(LEVELS.len() - 2)?; // tighter than `>`, which ends the list
        Ok(match self.fold(&e) {
            Some(v) => Type::Value(v),
            None => Type::ValueExpr(Box::new(e)),
        })
    }

    /// `float(x)`, `int(x)`, `size_t(x)`: C++'s functional casts of one argument.
    fn is_functional_cast(&self, word: &str) -> bool {
        matches!(
            word,
            "float" | "double" | "int" | "char" | "short" | "long" | "bool" | "unsigned" | "signed"
        ) || builtin_type(word).is_some_and(|t| t.is_arithmetic())
            || self
                .typedefs
                .get(word)
                .is_some_and(|t| t.is_arithmetic() || matches!(t, Type::Param(_)))
    }

    /// `kernel<<<grid, block[, shared[, stream]]>>>(args)`, after the kernel's name.
    fn launch(&mut self, kernel: &str, line: u32) -> Result<Expr> {
        // `<<<` lexes as `<<` `<` (or three `<`), `>>>` as `>>` `>`.
        if !self.eat("<<") {
            self.expect("<")?;
            self.expect("<")?;
        }
        self.expect("<")?;
        let mut config = Vec::new();
        loop {
            config.push(self.binary(LEVELS.len() - 2)?); // tighter than `>>`, so `>>>` ends it
            if !self.eat(",") {
                break;
            }
        }
        if !self.eat(">>") {
            self.expect(">")?;
            self.expect(">")?;
        }
        self.expect(">")?;
        let args = self.arguments()?;
        Ok(Expr::new(
            K::Launch {
                kernel: kernel.to_string(),
                config,
                args,
            },
            line,
        ))
    }

    /// A braced initialiser list or an assignment expression.
    pub(crate) fn initializer(&mut self) -> Result<Expr> {
        let line = self.line();
        if !self.eat("{") {
            return self.assignment();
        }
        let mut items = Vec::new();
        while !self.eat("}") {
            items.push(self.initializer()?);
            if !self.eat(",") {
                self.expect("}")?;
                break;
            }
        }
        Ok(Expr::new(K::Init(items), line))
    }

    /// The value of an integer constant expression (enum constants, `const int` variables
    /// seen so far, `sizeof` of a scalar), or `None`.
    /// Calls of `constexpr` functions whose body is one `return` are evaluated too.
    pub(crate) fn fold(&self, e: &Expr) -> Option<i64> {
        self.fold_at(e, &HashMap::new(), 0)
    }

    /// `fold` with a constexpr function's parameters bound, `depth` calls deep (bounded: a
    /// recursive constexpr function stops being a constant past it).
    fn fold_at(&self, e: &Expr, params: &HashMap<String, i64>, depth: u32) -> Option<i64> {
        let lookup = |n: &str| params.get(n).or_else(|| self.constants.get(n)).copied();
        let call = |name: &str, args: &[i64]| {
            let (names, body) = self.constexpr_functions.get(name)?;
            if depth >= 64 || names.len() != args.len() {
                return None;
            }
            let bound = names.iter().cloned().zip(args.iter().copied()).collect();
            self.fold_at(body, &bound, depth + 1)
        };
        fold_with(e, &lookup, &call)
    }
}

/// The value of an integer constant expression whose names `lookup` knows, or `None`.
pub(crate) fn fold(e: &Expr, lookup: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
    fold_with(e, lookup, &|_, _| None)
}

/// `fold`, with `call` giving the value of a call of a function by name (`constexpr`).
fn fold_with(
    e: &Expr,
    lookup: &dyn Fn(&str) -> Option<i64>,
    call: &dyn Fn(&str, &[i64]) -> Option<i64>,
) -> Option<i64> {
    let fold_in = |x: &Expr| fold_with(x, lookup, call);
    Some(match &e.kind {
        K::Call(callee, targs, args) if targs.is_empty() => {
            let K::Ident(name) = &callee.kind else {
                return None;
            };
            let values = args.iter().map(fold_in).collect::<Option<Vec<_>>>()?;
            call(name, &values)?
        }
        K::Int(s) => int_value(s)?,
        K::Char(s) => char_value(s)?,
        K::Bool(b) => *b as i64,
        K::Ident(n) => lookup(n)?,
        K::Unary(o, x) => {
            let v = fold_in(x)?;
            match *o {
                "-" => v.checked_neg()?,
                "+" => v,
                "~" => !v,
                "!" => (v == 0) as i64,
                _ => return None,
            }
        }
        K::Binary(o, a, b) => {
            let (a, b) = (fold_in(a)?, fold_in(b)?);
            match *o {
                "+" => a.checked_add(b)?,
                "-" => a.checked_sub(b)?,
                "*" => a.checked_mul(b)?,
                "/" => a.checked_div(b)?,
                "%" => a.checked_rem(b)?,
                "<<" => a.checked_shl(u32::try_from(b).ok()?)?,
                ">>" => a.checked_shr(u32::try_from(b).ok()?)?,
                "&" => a & b,
                "|" => a | b,
                "^" => a ^ b,
                "<" => (a < b) as i64,
                ">" => (a > b) as i64,
                "<=" => (a <= b) as i64,
                ">=" => (a >= b) as i64,
                "==" => (a == b) as i64,
                "!=" => (a != b) as i64,
                "&&" => (a != 0 && b != 0) as i64,
                "||" => (a != 0 || b != 0) as i64,
                _ => return None,
            }
        }
        K::Cond(c, a, b) => {
            if fold_in(c)? != 0 {
                fold_in(a)?
            } else {
                fold_in(b)?
            }
        }
        K::Cast(t, x) if t.is_integer() => fold_in(x)?,
        K::SizeofType(t) => crate::lower::layout::size_of_plain(t)? as i64,
        _ => return None,
    })
}

/// An integer or floating literal's kind.
fn number(text: &str) -> K {
    let lower = text.to_ascii_lowercase();
    let hex = lower.starts_with("0x");
    let float = if hex {
        lower.contains('p')
    } else {
        lower.contains('.') || lower.contains('e') || lower.ends_with('f')
    };
    if float {
        K::Float(text.to_string())
    } else {
        K::Int(text.to_string())
    }
}

/// The value of an integer literal (`0x1F`, `017`, `0b101`, `10ull`).
pub(crate) fn int_value(text: &str) -> Option<i64> {
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let lower = digits.to_ascii_lowercase();
    let v = if let Some(h) = lower.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()?
    } else if let Some(b) = lower.strip_prefix("0b") {
        u64::from_str_radix(b, 2).ok()?
    } else if lower.len() > 1 && lower.starts_with('0') {
        u64::from_str_radix(&lower[1..], 8).ok()?
    } else {
        lower.parse::<u64>().ok()?
    };
    Some(v as i64)
}

/// The value of a simple character literal (`'a'`, `'\n'`, `'\0'`).
fn char_value(text: &str) -> Option<i64> {
    let inner = text.strip_prefix('\'')?.strip_suffix('\'')?;
    let mut chars = inner.chars();
    let v = match (chars.next()?, chars.next()) {
        ('\\', Some(c)) => match c {
            'n' => 10,
            't' => 9,
            'r' => 13,
            '0' => 0,
            '\\' => 92,
            '\'' => 39,
            '"' => 34,
            _ => return None,
        },
        (c, None) => c as i64,
        _ => return None,
    };
    Some(v)
}
