//! The tokens the preprocessor hands the parser.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A name or keyword (`float`, `__global__`, `threadIdx`).
    Ident,
    /// A number as written (`1`, `0x1Fu`, `2.5f`, `1e-3`).
    Number,
    /// A string literal, quotes included.
    Str,
    /// A character literal, quotes included.
    Char,
    /// An operator or punctuator (`+`, `<<=`, `->`, `::`, `...`).
    Punct,
    /// A `#pragma` line the compiler after us should see (`text` is what follows `pragma`).
    Pragma,
}

/// One token and the line of the user's source it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub text: String,
    /// 1-based line in the user's source; a token a macro expansion produced has the line of
    /// the macro's use; a token from a header ember supplies has line 0.
    pub line: u32,
}

impl Token {
    /// A punctuator or identifier spelled `s`.
    pub fn is(&self, s: &str) -> bool {
        matches!(self.kind, Kind::Punct | Kind::Ident) && self.text == s
    }
}
