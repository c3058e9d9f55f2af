//! What the translator reports: a construct it cannot express, at a line of the user's source.

use std::fmt;

/// A translation failure: the message and the line of the user's source (0: a header or the
/// whole program).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TranslateError {
    pub line: u32,
    pub message: String,
}

impl TranslateError {
    pub fn new(line: u32, message: impl Into<String>) -> Self {
        TranslateError {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for TranslateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: {}", self.line, self.message)
        } else {
            f.write_str(&self.message)
        }
    }
}

impl std::error::Error for TranslateError {}

pub type Result<T> = std::result::Result<T, TranslateError>;
