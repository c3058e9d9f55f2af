//! A C preprocessor (C99/C++ rules): object- and function-like macros with `#`, `##` and
//! `__VA_ARGS__`, conditionals, `#include` of the headers ember supplies, `#pragma`.
//!
//! The file is lexed once; directives are run as the expander reaches them, so a macro call
//! whose arguments span lines sees the definitions in force where it is written. Expansion
//! follows GCC's model (see `expand`): a macro is disabled while its expansion is being read,
//! and a name met while its macro is disabled is painted, never to expand.

mod expand;
mod expr;
mod macros;

use std::collections::HashSet;
use std::rc::Rc;

use crate::error::{Result, TranslateError};
use crate::lex::{self, PpToken};
use crate::token::{Kind, Token};

use expand::{Entry, Mode};
use macros::Macros;

/// Expands `source`: `defines` are `-D` options (name, value; value "1" when given without one),
/// `header` answers `#include` names (`cuda_fp16.h`, `stdint.h`, ...) with their text, or None.
///
/// The result is the fully expanded token stream without directives. A token from the user's
/// source keeps its line, a token a macro produced has the line of the macro's use, a token
/// from a header has line 0; each `#pragma` (other than `once`) is one [`Kind::Pragma`] token.
pub fn preprocess(
    source: &str,
    defines: &[(String, String)],
    header: &dyn Fn(&str) -> Option<&'static str>,
) -> Result<Vec<Token>> {
    let mut pp = Preprocessor::new(header);
    pp.predefine(defines)?;
    let toks = lex::lex_tolerant(source)?;
    pp.out.reserve(toks.len());
    let mut cur = Cursor::new(toks, USER_FILE);
    pp.run_file(&mut cur)?;
    Ok(pp.out)
}

/// `Preprocessor::files` index of the user's source.
const USER_FILE: u32 = 0;
/// `Preprocessor::files` index of the predefined macros and `-D` options.
const COMMAND_LINE: u32 = 1;
/// How deep `#include`s may nest: deeper is taken for endless recursion.
const MAX_INCLUDE_DEPTH: usize = 32;

/// A token inside the preprocessor: its origin (file and line, for lines and errors), whether
/// space preceded it (for `#`), and whether it is painted.
#[derive(Clone, Debug)]
struct Tok {
    kind: Kind,
    text: Rc<str>,
    line: u32,
    file: u32,
    space: bool,
    /// Met while its macro was disabled (within that macro's own expansion): it never expands
    /// (C's "blue paint").
    painted: bool,
}

impl Tok {
    fn new(pt: &PpToken, file: u32) -> Tok {
        Tok {
            kind: pt.kind,
            text: pt.text.clone(),
            line: pt.line,
            file,
            space: pt.space_before,
            painted: false,
        }
    }

    fn is_punct(&self, s: &str) -> bool {
        self.kind == Kind::Punct && &*self.text == s
    }
}

/// One open `#if` group of a file.
struct Cond {
    /// Where its `#if` is, for "missing #endif".
    line: u32,
    /// Some branch of this `#if` chain has been taken: later `#elif`/`#else` are skipped.
    taken: bool,
    seen_else: bool,
}

/// A file being read: its tokens, the position, and its open conditionals.
struct Cursor {
    toks: Vec<PpToken>,
    pos: usize,
    file: u32,
    conds: Vec<Cond>,
}

impl Cursor {
    fn new(toks: Vec<PpToken>, file: u32) -> Cursor {
        Cursor {
            toks,
            pos: 0,
            file,
            conds: Vec::new(),
        }
    }

    /// Index of the first token of the next logical line at or after `from`.
    fn line_end(&self, from: usize) -> usize {
        let rest = self.toks.get(from..).unwrap_or(&[]);
        from + rest.iter().position(|t| t.line_start).unwrap_or(rest.len())
    }

    /// At a `#` that starts a line: the directive's name (the identifier after it), if any.
    fn directive_at(&self, i: usize) -> Option<&str> {
        let hash = self.toks.get(i)?;
        if !(hash.line_start && hash.kind == Kind::Punct && &*hash.text == "#") {
            return None;
        }
        match self.toks.get(i + 1) {
            Some(t) if !t.line_start => Some(&*t.text),
            _ => Some(""),
        }
    }
}

/// Where the expander reads: tokens already produced and waiting to be rescanned (a stack, the
/// next on top, with the ends of macro expansions marked), then, at the top level, the file.
struct Input<'c> {
    pending: Vec<Entry>,
    cur: Option<&'c mut Cursor>,
}

struct Preprocessor<'h> {
    macros: Macros,
    /// By macro id: nonzero while that macro's expansion is being read.
    disabled: Vec<u32>,
    header: &'h dyn Fn(&str) -> Option<&'static str>,
    /// File names by index: the user's source, the command line, then headers as included.
    files: Vec<String>,
    include_depth: usize,
    /// Headers that said `#pragma once` and were read.
    once: HashSet<String>,
    /// Nonzero while a macro's arguments are being read from the file.
    in_args: u32,
    /// How deep argument pre-expansion has recursed.
    depth: u32,
    /// Tokens macro expansion has produced so far (bounded, so exponential macros stop).
    produced: usize,
    out: Vec<Token>,
}

impl<'h> Preprocessor<'h> {
    fn new(header: &'h dyn Fn(&str) -> Option<&'static str>) -> Self {
        Preprocessor {
            macros: Macros::default(),
            disabled: Vec::new(),
            header,
            files: vec!["kernel.cu".into(), "<command-line>".into()],
            include_depth: 0,
            once: HashSet::new(),
            in_args: 0,
            depth: 0,
            produced: 0,
            out: Vec::new(),
        }
    }

    /// The macros every translation sees, then the `-D` options (which may override them).
    fn predefine(&mut self, defines: &[(String, String)]) -> Result<()> {
        self.macros.define_builtins();
        let predefined = [
            ("__CUDACC__", "1"),
            ("__CUDACC_RTC__", "1"),
            ("__CUDA_ARCH__", "700"),
            ("__cplusplus", "201703L"),
            ("__EMBER_TRANSLATE__", "1"),
        ];
        let user = defines.iter().map(|(n, v)| (n.as_str(), v.as_str()));
        for (name, value) in predefined.into_iter().chain(user) {
            self.define_option(name, value).map_err(|e| {
                TranslateError::new(0, format!("in -D {name}={value}: {}", e.message))
            })?;
        }
        Ok(())
    }

    /// `-D name=value` is `#define name value` (so `-D 'f(x)=x'` defines a function-like macro).
    fn define_option(&mut self, name: &str, value: &str) -> Result<()> {
        let line = format!("{name} {value}");
        let toks: Vec<Tok> = lex::lex(&line)?
            .iter()
            .map(|t| Tok::new(t, COMMAND_LINE))
            .collect();
        self.define(&toks, COMMAND_LINE, 1)
    }

    /// Processes one file to its end: text is expanded into `self.out`, directives are run.
    fn run_file(&mut self, cur: &mut Cursor) -> Result<()> {
        let mut input = Input {
            pending: Vec::new(),
            cur: Some(&mut *cur),
        };
        while let Some(t) = self.next(&mut input)? {
            if let Some(t) = self.expand_token(t, &mut input, Mode::Top)? {
                self.emit(t);
            }
        }
        match cur.conds.last() {
            Some(open) => {
                Err(self.error(cur.file, open.line, "unterminated #if: no matching #endif"))
            }
            None => Ok(()),
        }
    }

    fn emit(&mut self, t: Tok) {
        let line = if t.file == USER_FILE { t.line } else { 0 };
        self.out.push(Token {
            kind: t.kind,
            text: String::from(&*t.text),
            line,
        });
    }

    /// An error at `line` of file `file`: a header's errors are at line 0 and name it.
    fn error(&self, file: u32, line: u32, message: impl Into<String>) -> TranslateError {
        let message = message.into();
        match file {
            USER_FILE => TranslateError::new(line, message),
            _ => {
                let name = self.files.get(file as usize).map_or("?", String::as_str);
                TranslateError::new(0, format!("in {name}, line {line}: {message}"))
            }
        }
    }

    fn error_at(&self, t: &Tok, message: impl Into<String>) -> TranslateError {
        self.error(t.file, t.line, message)
    }

    /// The next token to expand: a waiting one, else the next text token of the file (running
    /// the directives before it).
    fn next(&mut self, input: &mut Input) -> Result<Option<Tok>> {
        while let Some(entry) = input.pending.pop() {
            match entry {
                Entry::Tok(t) => return Ok(Some(t)),
                Entry::End(id) => self.enable(id),
            }
        }
        match input.cur.as_deref_mut() {
            Some(cur) => self.next_from_file(cur),
            None => Ok(None),
        }
    }

    fn next_from_file(&mut self, cur: &mut Cursor) -> Result<Option<Tok>> {
        loop {
            if cur.directive_at(cur.pos).is_some() {
                self.directive(cur)?;
                continue;
            }
            let Some(pt) = cur.toks.get(cur.pos) else {
                return Ok(None);
            };
            cur.pos += 1;
            if let Some(problem) = &pt.problem {
                return Err(self.error(cur.file, pt.line, problem.clone()));
            }
            return Ok(Some(Tok::new(pt, cur.file)));
        }
    }

    /// Runs the directive whose `#` is at the cursor, leaving the cursor after its line.
    fn directive(&mut self, cur: &mut Cursor) -> Result<()> {
        let line = cur.toks.get(cur.pos).map_or(0, |t| t.line);
        let name = cur.directive_at(cur.pos).unwrap_or("").to_string();
        let start = cur.pos + if name.is_empty() { 1 } else { 2 };
        let end = cur.line_end(start);
        let raw = cur.toks.get(start..end).unwrap_or(&[]);
        let file = cur.file;
        if matches!(name.as_str(), "error" | "warning") {
            cur.pos = end;
            return match name.as_str() {
                "error" => Err(self.error(file, line, format!("#error {}", spell(raw)))),
                _ => Ok(()),
            };
        }
        if let Some(bad) = raw.iter().find(|t| t.problem.is_some()) {
            return Err(self.error(file, bad.line, bad.problem.clone().unwrap_or_default()));
        }
        let args: Vec<Tok> = raw.iter().map(|t| Tok::new(t, file)).collect();
        cur.pos = end;
        match name.as_str() {
            "define" => self.define(&args, file, line),
            "undef" => self.undef(&args, file, line),
            "include" => self.include(args, file, line),
            "if" | "ifdef" | "ifndef" => self.open_if(cur, &name, args, line),
            "elif" | "elifdef" | "elifndef" | "else" => self.after_taken_branch(cur, &name, line),
            "endif" => match cur.conds.pop() {
                Some(_) => Ok(()),
                None => Err(self.error(file, line, "#endif without #if")),
            },
            "pragma" => {
                if let Some(t) = self.pragma(spell(raw), file, line) {
                    self.emit(t);
                }
                Ok(())
            }
            // `#line` and GNU line markers (`# 33 "file"`) are accepted and ignored; so is `#`.
            "line" | "" => Ok(()),
            _ if name.starts_with(|c: char| c.is_ascii_digit()) => Ok(()),
            _ => Err(self.error(
                file,
                line,
                format!("unknown preprocessor directive #{name}"),
            )),
        }
    }

    fn undef(&mut self, args: &[Tok], file: u32, line: u32) -> Result<()> {
        let name = self.macro_name(args, "#undef", file, line)?;
        self.macros.undefine(&name);
        Ok(())
    }

    /// The identifier a `#define`/`#undef`/`#ifdef` names.
    fn macro_name(&self, args: &[Tok], directive: &str, file: u32, line: u32) -> Result<Rc<str>> {
        match args.first() {
            None => Err(self.error(
                file,
                line,
                format!("no macro name given in {directive} directive"),
            )),
            Some(t) if t.kind != Kind::Ident => {
                Err(self.error(file, line, "macro names must be identifiers"))
            }
            Some(t) => Ok(t.text.clone()),
        }
    }

    /// `#if`/`#ifdef`/`#ifndef`: opens a group, skipping it when false.
    fn open_if(&mut self, cur: &mut Cursor, name: &str, args: Vec<Tok>, line: u32) -> Result<()> {
        let taken = self.condition(name, args, cur.file, line)?;
        cur.conds.push(Cond {
            line,
            taken,
            seen_else: false,
        });
        if !taken {
            self.skip_group(cur)?;
        }
        Ok(())
    }

    /// Evaluates the condition of `#if`, `#elif`, `#ifdef`, ... .
    fn condition(&mut self, directive: &str, args: Vec<Tok>, file: u32, line: u32) -> Result<bool> {
        match directive {
            "ifdef" | "elifdef" | "ifndef" | "elifndef" => {
                let name = self.macro_name(&args, &format!("#{directive}"), file, line)?;
                Ok(self.macros.is_defined(&name) == directive.ends_with("ifdef"))
            }
            _ => self.eval_if(args, file, line),
        }
    }

    fn eval_if(&mut self, args: Vec<Tok>, file: u32, line: u32) -> Result<bool> {
        if args.is_empty() {
            return Err(self.error(file, line, "#if with no expression"));
        }
        let expanded = self.expand_list(args, Mode::If)?;
        expr::eval(&expanded)
            .map(|v| v != 0)
            .map_err(|message| self.error(file, line, message))
    }

    /// `#elif`/`#else` reached in a group being processed: that group was the branch taken, so
    /// the rest of the chain is skipped.
    fn after_taken_branch(&mut self, cur: &mut Cursor, name: &str, line: u32) -> Result<()> {
        let file = cur.file;
        let Some(cond) = cur.conds.last_mut() else {
            return Err(self.error(file, line, format!("#{name} without #if")));
        };
        if cond.seen_else {
            return Err(self.error(file, line, format!("#{name} after #else")));
        }
        cond.seen_else = name == "else";
        self.skip_group(cur)
    }

    /// Skips lines until the innermost open conditional ends or a branch of it is taken.
    /// Nested conditionals are only counted; other directives are not looked at.
    fn skip_group(&mut self, cur: &mut Cursor) -> Result<()> {
        let mut depth = 0usize;
        loop {
            let Some(i) = (cur.pos..cur.toks.len()).find(|&i| cur.directive_at(i).is_some()) else {
                cur.pos = cur.toks.len();
                let line = cur.conds.last().map_or(0, |c| c.line);
                return Err(self.error(cur.file, line, "unterminated #if: no matching #endif"));
            };
            let name = cur.directive_at(i).unwrap_or("").to_string();
            let line = cur.toks.get(i).map_or(0, |t| t.line);
            let args_start = i + 2;
            cur.pos = cur.line_end(i + 1);
            match name.as_str() {
                "if" | "ifdef" | "ifndef" => depth += 1,
                "endif" if depth > 0 => depth -= 1,
                "endif" => {
                    cur.conds.pop();
                    return Ok(());
                }
                "elif" | "elifdef" | "elifndef" | "else" if depth == 0 => {
                    let taken = self.reenter(cur, &name, args_start, line)?;
                    if taken {
                        return Ok(());
                    }
                }
                _ => {}
            }
        }
    }

    /// At `#elif`/`#else` of the skipped chain (the cursor after its line): whether its branch
    /// is the one taken.
    fn reenter(
        &mut self,
        cur: &mut Cursor,
        name: &str,
        args_start: usize,
        line: u32,
    ) -> Result<bool> {
        let file = cur.file;
        let Some(cond) = cur.conds.last() else {
            return Ok(false);
        };
        if cond.seen_else {
            return Err(self.error(file, line, format!("#{name} after #else")));
        }
        let already = cond.taken;
        let take = match name {
            "else" => !already,
            _ if already => false,
            _ => {
                let raw = cur.toks.get(args_start..cur.pos).unwrap_or(&[]);
                if let Some(bad) = raw.iter().find(|t| t.problem.is_some()) {
                    return Err(self.error(
                        file,
                        bad.line,
                        bad.problem.clone().unwrap_or_default(),
                    ));
                }
                let args = raw.iter().map(|t| Tok::new(t, file)).collect();
                self.condition(name, args, file, line)?
            }
        };
        if let Some(cond) = cur.conds.last_mut() {
            cond.seen_else = name == "else";
            cond.taken |= take;
        }
        Ok(take)
    }

    /// `#include <name>` / `#include "name"` (or a macro expanding to either): the header's
    /// text, preprocessed here, in the same macro table.
    fn include(&mut self, args: Vec<Tok>, file: u32, line: u32) -> Result<()> {
        if self.in_args > 0 {
            return Err(self.error(file, line, "#include inside the arguments of a macro call"));
        }
        let args = match args.first() {
            Some(t) if t.kind == Kind::Str || t.is_punct("<") => args,
            _ => self.expand_list(args, Mode::Arg)?,
        };
        let (name, shown) = header_name(&args)
            .ok_or_else(|| self.error(file, line, "#include expects \"FILENAME\" or <FILENAME>"))?;
        if self.once.contains(&name) {
            return Ok(());
        }
        let Some(text) = (self.header)(&name) else {
            let message = format!(
                "cannot include {shown}: ember's CUDA C translator does not supply this header"
            );
            return Err(self.error(file, line, message));
        };
        if self.include_depth >= MAX_INCLUDE_DEPTH {
            let message = format!(
                "#include nested more than {MAX_INCLUDE_DEPTH} levels deep (including {shown})"
            );
            return Err(self.error(file, line, message));
        }
        let index = self.file_index(&name);
        let toks = lex::lex_tolerant(text).map_err(|e| self.error(index, e.line, e.message))?;
        self.include_depth += 1;
        let done = self.run_file(&mut Cursor::new(toks, index));
        self.include_depth -= 1;
        done
    }

    /// The index of header `name` in `self.files`, added if new.
    fn file_index(&mut self, name: &str) -> u32 {
        let found = self.files.iter().position(|f| f == name);
        let index = found.unwrap_or_else(|| {
            self.files.push(name.to_string());
            self.files.len() - 1
        });
        u32::try_from(index).unwrap_or(u32::MAX)
    }

    /// `#pragma once` marks a header read once; any other pragma is passed on as one token,
    /// returned here (`text` is what follows `pragma`, spaces normalised).
    fn pragma(&mut self, text: String, file: u32, line: u32) -> Option<Tok> {
        if text == "once" {
            if let Some(name) = self
                .files
                .get(file as usize)
                .filter(|_| file > COMMAND_LINE)
            {
                self.once.insert(name.clone());
            }
            return None;
        }
        Some(Tok {
            kind: Kind::Pragma,
            text: Rc::from(text.as_str()),
            line,
            file,
            space: true,
            painted: false,
        })
    }
}

/// The tokens of a line as written, one space wherever there was whitespace.
fn spell(toks: &[PpToken]) -> String {
    let mut s = String::new();
    for (i, t) in toks.iter().enumerate() {
        if i > 0 && t.space_before {
            s.push(' ');
        }
        s.push_str(&t.text);
    }
    s
}

/// The header an `#include`'s tokens name, and how to show it (`<x.h>` or `"x.h"`).
fn header_name(args: &[Tok]) -> Option<(String, String)> {
    let first = args.first()?;
    if first.kind == Kind::Str && first.text.starts_with('"') {
        let name = first
            .text
            .get(1..first.text.len().saturating_sub(1))?
            .to_string();
        return Some((name.clone(), format!("\"{name}\"")));
    }
    if !first.is_punct("<") {
        return None;
    }
    let close = args.iter().position(|t| t.is_punct(">"))?;
    let mut name = String::new();
    for (i, t) in args.get(1..close)?.iter().enumerate() {
        if i > 0 && t.space {
            name.push(' ');
        }
        name.push_str(&t.text);
    }
    Some((name.clone(), format!("<{name}>")))
}
