//! `JitError`s that point at the user's code: file, line, and the offending expression
//! underlined.

use ember_core::Error;

use crate::ast::{Function, Span};

/// A failure while compiling one function, before its location is attached.
#[derive(Debug)]
pub enum Fail {
    /// A real error, with the span it is about.
    At(Span, String),
    /// During type inference: a variable's type is not known yet (another pass may know).
    Pending(Span, String),
    /// Already located (raised inside a device function this one calls).
    Located(Error),
}

pub type R<T> = std::result::Result<T, Fail>;

impl Fail {
    /// A failure of a callee without a place of its own, placed at its call.
    pub fn at_call(self, span: Span) -> Fail {
        match self {
            Fail::Pending(s, m) if s == Span::default() => Fail::Pending(span, m),
            other => other,
        }
    }
}

/// Shorthand for an error at `span`.
pub fn at<T>(span: Span, message: impl Into<String>) -> R<T> {
    Err(Fail::At(span, message.into()))
}

/// The `JitError` for `message` at `span` of `function`: `file:line: in kernel 'f': message`,
/// then the source line with the expression underlined.
pub fn locate(function: &Function, kind: &str, span: Span, message: &str) -> Error {
    let mut text = format!(
        "{}:{}: in {kind} '{}': {message}",
        function.file, span.line, function.name
    );
    let index = span.line.checked_sub(function.first_line);
    if let Some(line) = index.and_then(|i| function.source.lines().nth(i as usize)) {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        text.push_str(&format!("\n    {}", trimmed.trim_end()));
        let start = (span.col as usize).saturating_sub(indent);
        let end = if span.end_line == span.line {
            (span.end_col as usize).saturating_sub(indent)
        } else {
            trimmed.trim_end().len()
        };
        // Columns are byte offsets: count characters, so carets line up under non-ASCII names.
        let trimmed = trimmed.trim_end();
        let chars = |r: std::ops::Range<usize>| trimmed.get(r).map(|t| t.chars().count());
        if let (Some(pad), Some(width)) = (chars(0..start), chars(start..end.min(trimmed.len()))) {
            if width > 0 {
                text.push_str(&format!("\n    {}{}", " ".repeat(pad), "^".repeat(width)));
            }
        }
    }
    Error::Jit(text)
}

/// The Python source of `span` in `function`, when it lies on one line.
pub fn snippet(function: &Function, span: Span) -> Option<String> {
    if span.line != span.end_line {
        return None;
    }
    let line = function
        .source
        .lines()
        .nth(span.line.checked_sub(function.first_line)? as usize)?;
    line.get(span.col as usize..span.end_col as usize)
        .map(str::to_string)
}
