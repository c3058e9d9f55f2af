//! Macro expansion, as GCC (and Clang) do it: a macro is disabled while the tokens of its
//! expansion are being read (an [`Entry::End`] after them re-enables it), and a name read
//! while its macro is disabled is painted, so it never expands, wherever it goes later. So a
//! macro is never re-expanded within its own expansion and expansion always ends. (Prosser's
//! hide sets paint more than this: `EXPAND(DEFER(f)())` idioms differ from GCC there.)

use std::rc::Rc;

use super::macros::{Def, Item, Macro};
use super::{spell, Input, Preprocessor, Tok, COMMAND_LINE};
use crate::error::Result;
use crate::lex;
use crate::token::Kind;

/// How deep the pre-expansion of arguments (arguments holding macro calls holding ...) may go.
const MAX_DEPTH: u32 = 200;
/// How many tokens macro expansion may produce in all before it is taken for a runaway.
const MAX_PRODUCED: usize = 2_000_000;

/// What [`super::Input::pending`] holds.
#[derive(Debug)]
pub(super) enum Entry {
    Tok(Tok),
    /// The end of an expansion of the macro with this id: reading past it re-enables it.
    End(u32),
}

/// What the expander is expanding, which changes a few rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// The text of a file: output tokens; `_Pragma` is an operator.
    Top,
    /// A macro argument before substitution.
    Arg,
    /// An `#if` line: `defined` is an operator.
    If,
}

/// An empty argument's stand-in while `##` is applied (C's placemarker).
fn placemarker() -> Tok {
    Tok {
        kind: Kind::Punct,
        text: Rc::from(""),
        line: 0,
        file: 0,
        space: false,
        painted: false,
    }
}

fn is_placemarker(t: &Tok) -> bool {
    t.text.is_empty()
}

impl Preprocessor<'_> {
    /// Expands `t` if it names a macro (pushing the expansion onto `input` to be rescanned and
    /// returning None); otherwise returns it, final.
    pub(super) fn expand_token(
        &mut self,
        t: Tok,
        input: &mut Input,
        mode: Mode,
    ) -> Result<Option<Tok>> {
        if t.kind != Kind::Ident {
            return Ok(Some(t));
        }
        match (mode, &*t.text) {
            (Mode::If, "defined") => return self.defined_operator(t, input).map(Some),
            (Mode::Top, "_Pragma") => return self.pragma_operator(t, input),
            _ => {}
        }
        let Some(mac) = self.macros.get(&t.text) else {
            return Ok(Some(t));
        };
        if t.painted {
            return Ok(Some(t));
        }
        if self.is_disabled(mac.id) {
            return Ok(Some(Tok { painted: true, ..t }));
        }
        let expansion = match mac.def {
            Def::Line => {
                return Ok(Some(Tok {
                    kind: Kind::Number,
                    text: t.line.to_string().into(),
                    ..t
                }))
            }
            Def::File => return Ok(Some(self.file_name(t))),
            Def::Object => self.substitute(&mac, &[], &t, mode)?,
            Def::Function { params, variadic } => {
                if !peek_is_lparen(input) {
                    return Ok(Some(t));
                }
                let max = variadic.then_some(params);
                let mut args = self.collect_args(&t, input, max)?;
                self.check_arity(&t, &mut args, params, variadic)?;
                self.substitute(&mac, &args, &t, mode)?
            }
        };
        self.produced += expansion.len();
        if self.produced > MAX_PRODUCED {
            return Err(self.error_at(
                &t,
                format!(
                    "expanding \"{}\" produces too many tokens (more than {MAX_PRODUCED})",
                    t.text
                ),
            ));
        }
        // Disabled from here until the expansion has been read (GCC's order: its arguments
        // were expanded with it still enabled).
        self.disable(mac.id);
        input.pending.push(Entry::End(mac.id));
        input
            .pending
            .extend(expansion.into_iter().rev().map(Entry::Tok));
        Ok(None)
    }

    /// An argument's token naming a macro that is disabled as it is read is painted then, as
    /// GCC does (so `#define f(x) g(x` / `f(f)(1))` leaves the inner `f` alone).
    fn paint_if_disabled(&self, t: Tok) -> Tok {
        if t.kind != Kind::Ident || t.painted {
            return t;
        }
        match self.macros.get(&t.text) {
            Some(mac) if self.is_disabled(mac.id) => Tok { painted: true, ..t },
            _ => t,
        }
    }

    fn is_disabled(&self, id: u32) -> bool {
        self.disabled.get(id as usize).is_some_and(|&n| n > 0)
    }

    fn disable(&mut self, id: u32) {
        let i = id as usize;
        if self.disabled.len() <= i {
            self.disabled.resize(i + 1, 0);
        }
        if let Some(n) = self.disabled.get_mut(i) {
            *n += 1;
        }
    }

    pub(super) fn enable(&mut self, id: u32) {
        if let Some(n) = self.disabled.get_mut(id as usize) {
            *n = n.saturating_sub(1);
        }
    }

    /// `__FILE__` at `t`: the name of the file it is in, as a string literal.
    fn file_name(&self, t: Tok) -> Tok {
        let name = match t.file {
            COMMAND_LINE => "<command-line>",
            f => self.files.get(f as usize).map_or("?", String::as_str),
        };
        Tok {
            kind: Kind::Str,
            text: format!("\"{name}\"").into(),
            ..t
        }
    }

    /// `defined X` / `defined(X)` in `#if`: 1 or 0, the name not expanded.
    fn defined_operator(&mut self, t: Tok, input: &mut Input) -> Result<Tok> {
        let mut next = self.next(input)?;
        let paren = next.as_ref().is_some_and(|n| n.is_punct("("));
        if paren {
            next = self.next(input)?;
        }
        let name = match next {
            Some(n) if n.kind == Kind::Ident => n,
            _ => return Err(self.error_at(&t, "operator \"defined\" requires an identifier")),
        };
        if paren && !self.next(input)?.is_some_and(|c| c.is_punct(")")) {
            return Err(self.error_at(&t, "missing ')' after \"defined\""));
        }
        let value = if self.macros.is_defined(&name.text) {
            "1"
        } else {
            "0"
        };
        Ok(Tok {
            kind: Kind::Number,
            text: value.into(),
            ..t
        })
    }

    /// `_Pragma("text")`: as `#pragma text` where it stands.
    fn pragma_operator(&mut self, t: Tok, input: &mut Input) -> Result<Option<Tok>> {
        let open = self.next(input)?;
        let string = self.next(input)?;
        let close = self.next(input)?;
        let text = match (open, string, close) {
            (Some(o), Some(s), Some(c))
                if o.is_punct("(") && s.kind == Kind::Str && c.is_punct(")") =>
            {
                s.text
            }
            _ => return Err(self.error_at(&t, "_Pragma takes a parenthesized string literal")),
        };
        let body = text
            .get(text.find('"').map_or(0, |q| q + 1)..text.len().saturating_sub(1))
            .unwrap_or("");
        let body = body.replace("\\\"", "\"").replace("\\\\", "\\");
        let toks = lex::lex_tolerant(&body).map_err(|e| self.error_at(&t, e.message))?;
        Ok(self.pragma(spell(&toks), t.file, t.line))
    }

    /// Reads a call's arguments, the `(` next in `input`: each argument's tokens. With `max` (a
    /// variadic macro's parameter count), commas after the last named argument stay in the
    /// variable argument.
    fn collect_args(
        &mut self,
        name: &Tok,
        input: &mut Input,
        max: Option<usize>,
    ) -> Result<Vec<Vec<Tok>>> {
        self.next(input)?; // the `(`
        self.in_args += 1;
        let result = self.read_args(name, input, max);
        self.in_args -= 1;
        result
    }

    fn read_args(
        &mut self,
        name: &Tok,
        input: &mut Input,
        max: Option<usize>,
    ) -> Result<Vec<Vec<Tok>>> {
        let mut args: Vec<Vec<Tok>> = vec![Vec::new()];
        let mut depth = 0usize;
        loop {
            let Some(t) = self.next(input)? else {
                let message = format!(
                    "unterminated argument list invoking macro \"{}\"",
                    name.text
                );
                return Err(self.error_at(name, message));
            };
            if t.is_punct(")") && depth == 0 {
                return Ok(args);
            }
            if t.is_punct(",") && depth == 0 && max.is_none_or(|m| args.len() < m) {
                args.push(Vec::new());
                continue;
            }
            if t.is_punct("(") {
                depth += 1;
            } else if t.is_punct(")") {
                depth -= 1;
            }
            if let Some(arg) = args.last_mut() {
                arg.push(self.paint_if_disabled(t));
            }
        }
    }

    /// Checks a call's argument count (an empty `()` is no arguments to a macro of none; a
    /// variadic macro may be given no variable part), normalising `args` to one per parameter.
    fn check_arity(
        &self,
        name: &Tok,
        args: &mut Vec<Vec<Tok>>,
        params: usize,
        variadic: bool,
    ) -> Result<()> {
        let given = args.len();
        if params == 0 && given == 1 && args.first().is_some_and(Vec::is_empty) {
            args.clear();
            return Ok(());
        }
        if variadic && given + 1 == params {
            args.push(Vec::new());
            return Ok(());
        }
        let message = match given.cmp(&params) {
            std::cmp::Ordering::Equal => return Ok(()),
            std::cmp::Ordering::Less => format!(
                "macro \"{}\" requires {params} arguments, but only {given} given",
                name.text
            ),
            std::cmp::Ordering::Greater => format!(
                "macro \"{}\" passed {given} arguments, but takes just {params}",
                name.text
            ),
        };
        Err(self.error_at(name, message))
    }

    /// The replacement of `mac` used at `inv`: parameters replaced (by the argument expanded,
    /// or as written next to `#`/`##`), `#` and `##` applied; every token carries `inv`'s line.
    fn substitute(
        &mut self,
        mac: &Macro,
        args: &[Vec<Tok>],
        inv: &Tok,
        mode: Mode,
    ) -> Result<Vec<Tok>> {
        let arg_mode = if mode == Mode::If {
            Mode::If
        } else {
            Mode::Arg
        };
        let mut expanded: Vec<Option<Vec<Tok>>> = vec![None; args.len()];
        let mut out: Vec<Tok> = Vec::with_capacity(mac.body.len());
        let mut paste = false;
        for (i, item) in mac.body.iter().enumerate() {
            let next_pastes = matches!(mac.body.get(i + 1), Some(Item::Paste));
            let piece = match item {
                Item::Paste => {
                    paste = true;
                    continue;
                }
                Item::Tok(t) if !paste => {
                    out.push(t.clone());
                    continue;
                }
                Item::Param { index, space } if !paste && !next_pastes => {
                    self.expand_arg(&mut expanded, args, *index, inv, arg_mode)?;
                    let toks = expanded
                        .get(*index)
                        .and_then(Option::as_deref)
                        .unwrap_or(&[]);
                    let start = out.len();
                    out.extend_from_slice(toks);
                    if let Some(first) = out.get_mut(start) {
                        first.space = *space;
                    }
                    continue;
                }
                Item::Tok(t) => vec![t.clone()],
                Item::Stringize { index, space } => vec![stringize(arg(args, *index), *space)],
                Item::Param { index, space } => {
                    let mut toks = arg(args, *index).to_vec();
                    match toks.first_mut() {
                        Some(first) => first.space = *space,
                        None => toks.push(placemarker()),
                    }
                    toks
                }
            };
            if std::mem::take(&mut paste) {
                let gnu_comma = is_gnu_comma(mac, i);
                self.paste(&mut out, piece, gnu_comma, inv)?;
            } else {
                out.extend(piece);
            }
        }
        out.retain(|t| !is_placemarker(t));
        for t in &mut out {
            t.line = inv.line;
            t.file = inv.file;
        }
        if let Some(first) = out.first_mut() {
            first.space = inv.space;
        }
        Ok(out)
    }

    /// Fills `cache[index]` with argument `index` fully macro-expanded (once per call, however
    /// often the parameter is used).
    fn expand_arg(
        &mut self,
        cache: &mut [Option<Vec<Tok>>],
        args: &[Vec<Tok>],
        index: usize,
        inv: &Tok,
        mode: Mode,
    ) -> Result<()> {
        if !matches!(cache.get(index), Some(None)) {
            return Ok(());
        }
        if self.depth >= MAX_DEPTH {
            return Err(self.error_at(
                inv,
                format!("macro arguments nested more than {MAX_DEPTH} levels deep"),
            ));
        }
        let toks = arg(args, index);
        // Most arguments hold no macro: then the expansion is the argument.
        let plain = !toks.iter().any(|t| {
            t.kind == Kind::Ident && (self.macros.is_defined(&t.text) || is_operator(&t.text))
        });
        self.depth += 1;
        let result = if plain {
            Ok(toks.to_vec())
        } else {
            self.expand_list(toks.to_vec(), mode)
        };
        self.depth -= 1;
        if let Some(slot) = cache.get_mut(index) {
            *slot = Some(result?);
        }
        Ok(())
    }

    /// Macro-expands `toks` completely, alone (no file to read further from).
    pub(super) fn expand_list(&mut self, toks: Vec<Tok>, mode: Mode) -> Result<Vec<Tok>> {
        let mut input = Input {
            pending: toks.into_iter().rev().map(Entry::Tok).collect(),
            cur: None,
        };
        let mut out = Vec::with_capacity(input.pending.len());
        while let Some(t) = self.next(&mut input)? {
            if let Some(t) = self.expand_token(t, &mut input, mode)? {
                out.push(t);
            }
        }
        Ok(out)
    }

    /// Applies `##` between the last token of `out` and the first of `piece`. With GNU's
    /// `, ## __VA_ARGS__`, the comma is dropped when the variable argument is empty and kept,
    /// unpasted, when not.
    fn paste(
        &mut self,
        out: &mut Vec<Tok>,
        piece: Vec<Tok>,
        gnu_comma: bool,
        inv: &Tok,
    ) -> Result<()> {
        let Some(left) = out.pop() else {
            out.extend(piece);
            return Ok(());
        };
        if gnu_comma && left.is_punct(",") {
            if !piece.iter().all(is_placemarker) {
                out.push(left);
            }
            out.extend(piece);
            return Ok(());
        }
        let mut rest = piece.into_iter();
        let glued = match rest.next() {
            None => left,
            Some(right) if is_placemarker(&left) => right,
            Some(right) if is_placemarker(&right) => left,
            Some(right) => self.glue(&left, &right, inv)?,
        };
        out.push(glued);
        out.extend(rest);
        Ok(())
    }

    /// `left ## right`: their spellings joined and lexed again, which must give one token.
    fn glue(&mut self, left: &Tok, right: &Tok, inv: &Tok) -> Result<Tok> {
        let text = format!("{}{}", left.text, right.text);
        match lex::lex(&text).as_deref() {
            Ok([t]) if *t.text == *text => Ok(Tok {
                kind: t.kind,
                text: text.into(),
                line: left.line,
                file: left.file,
                space: left.space,
                painted: false,
            }),
            _ => {
                let message = format!(
                    "pasting \"{}\" and \"{}\" does not give a valid preprocessing token",
                    left.text, right.text
                );
                Err(self.error_at(inv, message))
            }
        }
    }
}

/// Names the expander treats as operators in some mode.
fn is_operator(name: &str) -> bool {
    matches!(name, "defined" | "_Pragma")
}

/// Argument `index` as written (empty if absent).
fn arg(args: &[Vec<Tok>], index: usize) -> &[Tok] {
    args.get(index).map_or(&[], Vec::as_slice)
}

/// Item `i` of a variadic macro is its variable parameter, pasted onto a `,` of the body.
fn is_gnu_comma(mac: &Macro, i: usize) -> bool {
    let Def::Function {
        params,
        variadic: true,
    } = mac.def
    else {
        return false;
    };
    let is_va = matches!(mac.body.get(i), Some(Item::Param { index, .. }) if index + 1 == params);
    let after_comma =
        i >= 2 && matches!(mac.body.get(i - 2), Some(Item::Tok(t)) if t.is_punct(","));
    is_va && after_comma
}

/// `# param`: the argument's spelling as a string literal, spaces between its tokens
/// collapsed to one, `"` and `\` escaped inside its string and character literals.
fn stringize(toks: &[Tok], space: bool) -> Tok {
    let mut s = String::from("\"");
    for (i, t) in toks.iter().enumerate() {
        if i > 0 && t.space {
            s.push(' ');
        }
        if matches!(t.kind, Kind::Str | Kind::Char) {
            for c in t.text.chars() {
                if c == '"' || c == '\\' {
                    s.push('\\');
                }
                s.push(c);
            }
        } else {
            s.push_str(&t.text);
        }
    }
    s.push('"');
    Tok {
        kind: Kind::Str,
        text: s.into(),
        line: 0,
        file: 0,
        space,
        painted: false,
    }
}

/// Whether the next token `input` will give is `(`: past the ends of expansions (reading on
/// would re-enable their macros, which cannot matter to the name before them), into the file,
/// but not past a directive.
fn peek_is_lparen(input: &Input) -> bool {
    let waiting = input.pending.iter().rev().find_map(|e| match e {
        Entry::Tok(t) => Some(t),
        Entry::End(_) => None,
    });
    if let Some(t) = waiting {
        return t.is_punct("(");
    }
    let Some(cur) = input.cur.as_deref() else {
        return false;
    };
    cur.toks
        .get(cur.pos)
        .is_some_and(|t| t.kind == Kind::Punct && &*t.text == "(")
}
