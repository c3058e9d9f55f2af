//! The macro table and `#define`: a replacement list is stored as [`Item`]s, its parameters
//! and `#`/`##` resolved (and checked) once, when it is defined.

use std::collections::HashMap as StdHashMap;
use std::hash::BuildHasherDefault;
use std::rc::Rc;

use super::{Preprocessor, Tok};
use crate::error::Result;
use crate::lex::FxHasher;
use crate::token::Kind;

/// A HashMap with a fast hash: macro names are looked up for every identifier.
type HashMap<K, V> = StdHashMap<K, V, BuildHasherDefault<FxHasher>>;

/// What a macro name stands for.
#[derive(Clone, Copy, Debug)]
pub(super) enum Def {
    Object,
    Function {
        params: usize,
        variadic: bool,
    },
    /// `__LINE__`.
    Line,
    /// `__FILE__`.
    File,
}

/// One piece of a replacement list, its parameters resolved when it is defined.
#[derive(Debug)]
pub(super) enum Item {
    Tok(Tok),
    /// A parameter, replaced by its argument; `space`: whitespace preceded it.
    Param {
        index: usize,
        space: bool,
    },
    /// `# param`.
    Stringize {
        index: usize,
        space: bool,
    },
    /// `##`.
    Paste,
}

#[derive(Debug)]
pub(super) struct Macro {
    /// Its name's number (small and dense: an index into the disabled counts).
    pub(super) id: u32,
    pub(super) def: Def,
    pub(super) body: Vec<Item>,
}

/// The macro table.
#[derive(Default)]
pub(super) struct Macros {
    table: HashMap<Rc<str>, Rc<Macro>>,
    /// Each name ever defined, numbered (a redefinition keeps its number).
    ids: HashMap<Rc<str>, u32>,
}

impl Macros {
    /// `__LINE__` and `__FILE__`, which expand to where they are used.
    pub(super) fn define_builtins(&mut self) {
        self.insert("__LINE__".into(), Def::Line, Vec::new());
        self.insert("__FILE__".into(), Def::File, Vec::new());
    }

    fn insert(&mut self, name: Rc<str>, def: Def, body: Vec<Item>) {
        let next = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
        let id = *self.ids.entry(name.clone()).or_insert(next);
        self.table.insert(name, Rc::new(Macro { id, def, body }));
    }

    pub(super) fn undefine(&mut self, name: &str) {
        self.table.remove(name);
    }

    pub(super) fn is_defined(&self, name: &str) -> bool {
        self.table.contains_key(name)
    }

    pub(super) fn get(&self, name: &str) -> Option<Rc<Macro>> {
        self.table.get(name).cloned()
    }
}

impl Preprocessor<'_> {
    /// `#define`: `args` are the tokens after the directive name.
    pub(super) fn define(&mut self, args: &[Tok], file: u32, line: u32) -> Result<()> {
        let name = self.macro_name(args, "#define", file, line)?;
        if &*name == "defined" {
            return Err(self.error(file, line, "\"defined\" cannot be used as a macro name"));
        }
        let rest = args.get(1..).unwrap_or(&[]);
        let function = rest.first().is_some_and(|t| t.is_punct("(") && !t.space);
        if !function {
            let body = self.replacement(rest, None, file, line)?;
            self.macros.insert(name, Def::Object, body);
            return Ok(());
        }
        let (params, variadic, used) = self.parameters(rest.get(1..).unwrap_or(&[]), file, line)?;
        let body = self.replacement(
            rest.get(1 + used..).unwrap_or(&[]),
            Some(&params),
            file,
            line,
        )?;
        let def = Def::Function {
            params: params.len(),
            variadic,
        };
        self.macros.insert(name, def, body);
        Ok(())
    }

    /// A function-like macro's parameter list after its `(`: the names (`__VA_ARGS__` for
    /// `...`; GNU's `args...` names the variable part), whether variadic, tokens used.
    fn parameters(
        &self,
        toks: &[Tok],
        file: u32,
        line: u32,
    ) -> Result<(Vec<Rc<str>>, bool, usize)> {
        let mut params: Vec<Rc<str>> = Vec::new();
        if toks.first().is_some_and(|t| t.is_punct(")")) {
            return Ok((params, false, 1));
        }
        let mut i = 0;
        loop {
            let name = match toks.get(i) {
                Some(t) if t.is_punct("...") => Rc::from("__VA_ARGS__"),
                Some(t) if t.kind == Kind::Ident => t.text.clone(),
                Some(t) => {
                    return Err(self.error(
                        file,
                        line,
                        format!("expected parameter name, found \"{}\"", t.text),
                    ))
                }
                None => return Err(self.error(file, line, "missing ')' in macro parameter list")),
            };
            if params.contains(&name) {
                return Err(self.error(
                    file,
                    line,
                    format!("duplicate macro parameter \"{name}\""),
                ));
            }
            params.push(name);
            let variadic = toks.get(i).is_some_and(|t| t.is_punct("..."));
            i += 1;
            if !variadic && toks.get(i).is_some_and(|t| t.is_punct("...")) {
                i += 1;
                return self.close_params(toks, i, params, file, line);
            }
            if variadic {
                return self.close_params(toks, i, params, file, line);
            }
            match toks.get(i) {
                Some(t) if t.is_punct(",") => i += 1,
                Some(t) if t.is_punct(")") => return Ok((params, false, i + 1)),
                Some(_) => {
                    return Err(self.error(
                        file,
                        line,
                        "expected ',' or ')' in macro parameter list",
                    ))
                }
                None => return Err(self.error(file, line, "missing ')' in macro parameter list")),
            }
        }
    }

    /// After a variadic parameter: the list must close.
    fn close_params(
        &self,
        toks: &[Tok],
        i: usize,
        params: Vec<Rc<str>>,
        file: u32,
        line: u32,
    ) -> Result<(Vec<Rc<str>>, bool, usize)> {
        match toks.get(i) {
            Some(t) if t.is_punct(")") => Ok((params, true, i + 1)),
            _ => Err(self.error(
                file,
                line,
                "missing ')' after \"...\" in macro parameter list",
            )),
        }
    }

    /// A replacement list as [`Item`]s, checking where `#` and `##` may stand.
    fn replacement(
        &self,
        toks: &[Tok],
        params: Option<&[Rc<str>]>,
        file: u32,
        line: u32,
    ) -> Result<Vec<Item>> {
        let param = |t: &Tok| match params {
            Some(ps) if t.kind == Kind::Ident => ps.iter().position(|p| *p == t.text),
            _ => None,
        };
        let mut items = Vec::with_capacity(toks.len());
        let mut i = 0;
        while let Some(t) = toks.get(i) {
            i += 1;
            if t.is_punct("##") {
                if items.is_empty() || i == toks.len() {
                    return Err(self.error(
                        file,
                        line,
                        "'##' cannot appear at either end of a macro expansion",
                    ));
                }
                items.push(Item::Paste);
            } else if params.is_some() && t.is_punct("#") {
                let Some(index) = toks.get(i).and_then(param) else {
                    return Err(self.error(file, line, "'#' is not followed by a macro parameter"));
                };
                i += 1;
                items.push(Item::Stringize {
                    index,
                    space: t.space,
                });
            } else if let Some(index) = param(t) {
                items.push(Item::Param {
                    index,
                    space: t.space,
                });
            } else {
                items.push(Item::Tok(t.clone()));
            }
        }
        Ok(items)
    }
}
