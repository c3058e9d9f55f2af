//! Statements and local declarations.

use crate::ast::{Expr, Stmt, StmtKind as S, Storage, VarDecl};
use crate::error::{Result, TranslateError};
use crate::token::Kind;

use super::Parser;

impl Parser<'_> {
    /// `{ statements }`, braces included.
    pub(crate) fn block_body(&mut self) -> Result<Vec<Stmt>> {
        self.expect("{")?;
        let saved = self.typedefs.clone();
        let mut body = Vec::new();
        while !self.eat("}") {
            if self.at_end() {
                return Err(self.unexpected("'}'"));
            }
            body.push(self.statement()?);
        }
        self.typedefs = saved;
        Ok(body)
    }

    fn statement(&mut self) -> Result<Stmt> {
        let line = self.line();
        let Some(t) = self.peek() else {
            return Err(self.unexpected("a statement"));
        };
        if t.kind == Kind::Pragma {
            self.at += 1;
            return Ok(Stmt {
                kind: S::Pragma(t.text.clone()),
                line,
            });
        }
        let kind = match t.text.as_str() {
            "{" if t.kind == Kind::Punct => S::Block(self.block_body()?),
            ";" if t.kind == Kind::Punct => {
                self.at += 1;
                S::Empty
            }
            "if" => {
                self.at += 1;
                let constexpr = self.eat("constexpr");
                let c = self.condition()?;
                let then = Box::new(self.statement()?);
                let other = if self.eat("else") {
                    Some(Box::new(self.statement()?))
                } else {
                    None
                };
                if constexpr {
                    S::IfConstexpr(c, then, other)
                } else {
                    S::If(c, then, other)
                }
            }
            "while" => {
                self.at += 1;
                let c = self.condition()?;
                S::While(c, Box::new(self.statement()?))
            }
            "do" => {
                self.at += 1;
                let body = Box::new(self.statement()?);
                if !self.eat("while") {
                    return Err(self.unexpected("'while' after a do loop's body"));
                }
                let c = self.condition()?;
                self.expect(";")?;
                S::DoWhile(body, c)
            }
            "for" => self.for_loop()?,
            "switch" => {
                self.at += 1;
                let c = self.condition()?;
                S::Switch(c, Box::new(self.statement()?))
            }
            "case" => {
                self.at += 1;
                let e = self.conditional()?;
                self.expect(":")?;
                S::Case(e)
            }
            "default" if self.check_at(1, ":") => {
                self.at += 2;
                S::Default
            }
            "break" => self.keyword_then_semicolon(S::Break)?,
            "continue" => self.keyword_then_semicolon(S::Continue)?,
            "return" => {
                self.at += 1;
                let e = if self.check(";") {
                    None
                } else {
                    Some(self.expression()?)
                };
                self.expect(";")?;
                S::Return(e)
            }
            "goto" => {
                self.at += 1;
                let l = self.ident()?;
                self.expect(";")?;
                S::Goto(l)
            }
            "static_assert" => {
                self.static_assert()?;
                S::Block(Vec::new())
            }
            "using" if self.check_at(2, "=") => {
                self.alias()?;
                S::Block(Vec::new())
            }
            "typedef" => {
                return Err(TranslateError::new(
                    line,
                    "a typedef inside a function is not translated; move it to file scope",
                ))
            }
            _ if t.kind == Kind::Ident && self.check_at(1, ":") && !self.check_at(1, "::") => {
                self.at += 2;
                S::Label(t.text.clone())
            }
            _ if self.starts_declaration() => S::Decl(self.local_declaration()?),
            _ => {
                let e = self.expression()?;
                self.expect(";")?;
                S::Expr(e)
            }
        };
        Ok(Stmt { kind, line })
    }

    fn keyword_then_semicolon(&mut self, kind: S) -> Result<S> {
        self.at += 1;
        self.expect(";")?;
        Ok(kind)
    }

    /// `( expression )` of `if`/`while`/`switch`.
    fn condition(&mut self) -> Result<Expr> {
        self.expect("(")?;
        let e = self.expression()?;
        self.expect(")")?;
        Ok(e)
    }

    fn for_loop(&mut self) -> Result<S> {
        let line = self.line();
        self.at += 1;
        self.expect("(")?;
        let saved = self.typedefs.clone();
        let init = if self.eat(";") {
            None
        } else if self.starts_declaration() {
            Some(Box::new(Stmt {
                kind: S::Decl(self.local_declaration()?),
                line,
            }))
        } else {
            let e = self.expression()?;
            self.expect(";")?;
            Some(Box::new(Stmt {
                kind: S::Expr(e),
                line,
            }))
        };
        if self.check(":") {
            return Err(TranslateError::new(
                line,
                "range-based for loops are not translated",
            ));
        }
        let cond = if self.check(";") {
            None
        } else {
            Some(self.expression()?)
        };
        self.expect(";")?;
        let step = if self.check(")") {
            None
        } else {
            Some(self.expression()?)
        };
        self.expect(")")?;
        let body = Box::new(self.statement()?);
        self.typedefs = saved;
        Ok(S::For {
            init,
            cond,
            step,
            body,
        })
    }

    /// `T a = 1, *p, b[4];` inside a function (the `;` included).
    pub(crate) fn local_declaration(&mut self) -> Result<Vec<VarDecl>> {
        let spec = self.specifiers()?;
        if spec.defined.is_some() {
            return Err(TranslateError::new(
                self.line(),
                "a struct defined inside a function is not translated; define it at file scope",
            ));
        }
        let mut decls = Vec::new();
        loop {
            let d = self.declarator(&spec)?;
            if d.name.is_empty() {
                return Err(self.unexpected("a variable's name"));
            }
            let init = if self.eat("=") {
                Some(self.initializer()?)
            } else if self.check("(") || self.check("{") {
                // C++ direct initialisation: `float x(1.0f)`, `int a{3}`.
                if self.eat("(") {
                    // `dim3 grid(n / 128, 1)`: several arguments initialise like a braced list.
                    let line = self.line();
                    let mut items = vec![self.assignment()?];
                    while self.eat(",") {
                        items.push(self.assignment()?);
                    }
                    self.expect(")")?;
                    Some(if items.len() == 1 {
                        items.remove(0)
                    } else {
                        Expr::new(crate::ast::ExprKind::Init(items), line)
                    })
                } else {
                    Some(self.initializer()?)
                }
            } else {
                None
            };
            if let (true, Some(v)) = (
                spec.konst && d.ty.is_integer(),
                init.as_ref().and_then(|e| self.fold(e)),
            ) {
                self.constants.insert(d.name.clone(), v);
            }
            decls.push(VarDecl {
                name: d.name,
                ty: d.ty,
                konst: d.konst,
                storage: spec.storage.unwrap_or(Storage::Auto),
                init,
                line: d.line,
            });
            if self.eat(";") {
                return Ok(decls);
            }
            self.expect(",")?;
        }
    }
}
