//! The C/C++ lexer: source text to preprocessing tokens, with what the preprocessor needs to
//! know about the space around each (whether whitespace preceded it, whether it starts a line).
//!
//! Backslash-newline splices are removed first (translation phase 2), remembering where, so a
//! token's line is the physical line it starts on in the user's text.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

use crate::error::{Result, TranslateError};
use crate::token::Kind;

/// One preprocessing token as lexed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PpToken {
    /// `Ident`, `Number`, `Str`, `Char` or `Punct` (never `Pragma`).
    pub kind: Kind,
    /// The token as written, splices removed (quotes included for literals); shared, as the
    /// preprocessor copies tokens often.
    pub text: Rc<str>,
    /// 1-based physical line the token starts on.
    pub line: u32,
    /// Whitespace (or a comment, or a newline) came between this token and the previous one.
    pub space_before: bool,
    /// No token precedes this one on its logical line (a newline outside comments came
    /// before it, or it is the first token): where `#` starts a directive.
    pub line_start: bool,
    /// Set when the token is not valid C (an unterminated literal, a stray character): the
    /// message to report if the token is used. A skipped `#if 0` group may hold such tokens
    /// harmlessly, so [`lex_tolerant`] reports them here rather than failing.
    pub problem: Option<String>,
}

/// Lexes `source`, failing on the first invalid token (an unterminated string, character
/// literal or comment; a stray character) with its line.
pub fn lex(source: &str) -> Result<Vec<PpToken>> {
    let tokens = lex_tolerant(source)?;
    if let Some(bad) = tokens.iter().find(|t| t.problem.is_some()) {
        let message = bad.problem.clone().unwrap_or_default();
        return Err(TranslateError::new(bad.line, message));
    }
    Ok(tokens)
}

/// Lexes `source`, keeping invalid tokens (with [`PpToken::problem`] set) for the caller to
/// judge; only an unterminated comment fails here, as it does in every C compiler.
pub fn lex_tolerant(source: &str) -> Result<Vec<PpToken>> {
    Lexer::new(source).run()
}

/// Every multi-character punctuator, longest first so the first match is the longest.
const PUNCTS: [&[u8]; 26] = [
    b"->*", b"...", b"<<=", b">>=", b"->", b"++", b"--", b"<<", b">>", b"<=", b">=", b"==", b"!=",
    b"&&", b"||", b"+=", b"-=", b"*=", b"/=", b"%=", b"&=", b"^=", b"|=", b"##", b"::", b".*",
];

/// The single-character punctuators.
const SINGLE: &[u8] = b"[](){}.&*+-~!/%<>^|?:;=,#";

struct Lexer {
    /// The source after splicing (still UTF-8: only ASCII was removed).
    text: String,
    /// Offsets in `text` where a backslash-newline was removed (each one a physical line).
    splices: Vec<usize>,
    pos: usize,
    out: Vec<PpToken>,
    space: bool,
    line_start: bool,
    /// Line counting, advanced monotonically: `text` is counted up to `counted`.
    counted: usize,
    line: u32,
    next_splice: usize,
    /// Each distinct spelling once: most tokens repeat, and sharing saves an allocation each.
    spellings: HashSet<Rc<str>, BuildHasherDefault<FxHasher>>,
}

impl Lexer {
    fn new(source: &str) -> Self {
        let (text, splices) = splice(source);
        Lexer {
            // A guess (C averages a token per 4-5 characters) to save regrowing.
            out: Vec::with_capacity(text.len() / 5),
            text,
            splices,
            pos: 0,
            space: false,
            line_start: true,
            counted: 0,
            line: 1,
            next_splice: 0,
            spellings: HashSet::default(),
        }
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.text.as_bytes().get(self.pos + ahead).copied()
    }

    /// The physical line of offset `at`; `at` never decreases between calls.
    fn line_at(&mut self, at: usize) -> u32 {
        let bytes = self.text.as_bytes().get(self.counted..at).unwrap_or(&[]);
        let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
        self.line = self
            .line
            .saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
        self.counted = self.counted.max(at);
        while self.splices.get(self.next_splice).is_some_and(|&s| s <= at) {
            self.line = self.line.saturating_add(1);
            self.next_splice += 1;
        }
        self.line
    }

    fn run(mut self) -> Result<Vec<PpToken>> {
        while let Some(c) = self.peek(0) {
            match c {
                b'\n' => {
                    self.pos += 1;
                    self.space = true;
                    self.line_start = true;
                }
                b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c' => {
                    self.pos += 1;
                    self.space = true;
                }
                b'/' if self.peek(1) == Some(b'/') => self.line_comment(),
                b'/' if self.peek(1) == Some(b'*') => self.block_comment()?,
                _ => self.token(c),
            }
        }
        Ok(self.out)
    }

    fn line_comment(&mut self) {
        let rest = self.text.as_bytes().get(self.pos..).unwrap_or(&[]);
        self.pos += rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        self.space = true;
    }

    /// A block comment is one space: its newlines neither end a directive nor start a line.
    fn block_comment(&mut self) -> Result<()> {
        let start = self.pos;
        match self.text.get(start + 2..).and_then(|rest| rest.find("*/")) {
            Some(end) => {
                self.pos = start + 2 + end + 2;
                self.space = true;
                Ok(())
            }
            None => Err(TranslateError::new(
                self.line_at(start),
                "unterminated comment",
            )),
        }
    }

    fn token(&mut self, c: u8) {
        let start = self.pos;
        let line = self.line_at(start);
        let (kind, problem) = self.scan(c);
        let spelling = self.text.get(start..self.pos).unwrap_or("");
        let text = match self.spellings.get(spelling) {
            Some(shared) => shared.clone(),
            None => {
                let shared: Rc<str> = Rc::from(spelling);
                self.spellings.insert(shared.clone());
                shared
            }
        };
        self.out.push(PpToken {
            kind,
            text,
            line,
            space_before: self.space,
            line_start: self.line_start,
            problem,
        });
        self.space = false;
        self.line_start = false;
    }

    /// Advances over one token starting with `c`, saying what it is.
    fn scan(&mut self, c: u8) -> (Kind, Option<String>) {
        if c.is_ascii_digit() || (c == b'.' && self.peek(1).is_some_and(|d| d.is_ascii_digit())) {
            self.number();
            return (Kind::Number, None);
        }
        if let Some(quote) = self.literal_prefix() {
            return self.literal(quote);
        }
        if is_ident_start(c) {
            while self.peek(0).is_some_and(is_ident_char) {
                self.pos += 1;
            }
            return (Kind::Ident, None);
        }
        if c == b'"' || c == b'\'' {
            return self.literal(c);
        }
        if self.punct() {
            return (Kind::Punct, None);
        }
        let stray = self
            .text
            .get(self.pos..)
            .and_then(|r| r.chars().next())
            .unwrap_or('?');
        self.pos += stray.len_utf8();
        (Kind::Punct, Some(format!("stray '{stray}' in program")))
    }

    /// A pp-number (C's rule): digits, letters, `_`, `.`, and a sign after an exponent letter.
    fn number(&mut self) {
        self.pos += 1;
        while let Some(c) = self.peek(0) {
            let signed =
                matches!(c, b'e' | b'E' | b'p' | b'P') && matches!(self.peek(1), Some(b'+' | b'-'));
            if signed {
                self.pos += 2;
            } else if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// At `u8"`, `u"`, `U"`, `L"` (or the `'` forms): skips the prefix, returns the quote.
    fn literal_prefix(&mut self) -> Option<u8> {
        let prefix_len = match (self.peek(0), self.peek(1)) {
            (Some(b'u'), Some(b'8')) => 2,
            (Some(b'u' | b'U' | b'L'), _) => 1,
            _ => return None,
        };
        match self.peek(prefix_len) {
            Some(q @ (b'"' | b'\'')) => {
                self.pos += prefix_len;
                Some(q)
            }
            _ => None,
        }
    }

    /// A string or character literal from its opening quote. Unterminated, the token runs to
    /// the end of the line (as in GCC) and carries the problem.
    fn literal(&mut self, quote: u8) -> (Kind, Option<String>) {
        let kind = if quote == b'"' { Kind::Str } else { Kind::Char };
        self.pos += 1;
        loop {
            match self.peek(0) {
                Some(c) if c == quote => {
                    self.pos += 1;
                    return (kind, None);
                }
                Some(b'\\') if self.peek(1).is_some_and(|c| c != b'\n') => {
                    self.pos += 1 + self.char_len(1)
                }
                Some(b'\n') | None => break,
                Some(_) => self.pos += 1,
            }
        }
        let what = if quote == b'"' { "string" } else { "character" };
        (kind, Some(format!("unterminated {what} literal")))
    }

    /// The byte length of the character `ahead` bytes on (so a slice never splits one).
    fn char_len(&self, ahead: usize) -> usize {
        self.text
            .get(self.pos + ahead..)
            .and_then(|r| r.chars().next())
            .map_or(1, char::len_utf8)
    }

    fn punct(&mut self) -> bool {
        let rest = self.text.as_bytes().get(self.pos..).unwrap_or(&[]);
        let multi = rest.get(1).is_some_and(|c| b".<>=+-&|#:*".contains(c));
        if let Some(p) = PUNCTS
            .iter()
            .filter(|_| multi)
            .find(|p| rest.starts_with(p))
        {
            self.pos += p.len();
            return true;
        }
        if rest.first().is_some_and(|c| SINGLE.contains(c)) {
            self.pos += 1;
            return true;
        }
        false
    }
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// Translation phase 2: removes backslash-newline (GCC also allows spaces between the two),
/// returning the text and where splices were; `\r\n` becomes `\n`.
fn splice(source: &str) -> (String, Vec<usize>) {
    if !source.contains('\\') && !source.contains('\r') {
        return (source.to_string(), Vec::new());
    }
    let src = source.as_bytes();
    let mut out = Vec::with_capacity(src.len());
    let mut splices = Vec::new();
    let mut i = 0;
    while let Some(&c) = src.get(i) {
        if c == b'\\' {
            if let Some(after) = splice_end(src, i + 1) {
                splices.push(out.len());
                i = after;
                continue;
            }
        }
        if !(c == b'\r' && src.get(i + 1) == Some(&b'\n')) {
            out.push(c);
        }
        i += 1;
    }
    // Only ASCII bytes were removed, so `out` is still UTF-8.
    (String::from_utf8_lossy(&out).into_owned(), splices)
}

/// After a backslash at `i - 1`: where the text resumes if a (possibly space-padded) newline
/// follows, else `None`.
fn splice_end(src: &[u8], mut i: usize) -> Option<usize> {
    while matches!(src.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    match src.get(i) {
        Some(b'\n') => Some(i + 1),
        Some(b'\r') if src.get(i + 1) == Some(&b'\n') => Some(i + 2),
        _ => None,
    }
}

/// FxHash (rustc's): fast and good enough for short keys that no adversary chooses to collide
/// (a collision only costs time).
#[derive(Default)]
pub(crate) struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
        for &b in chunks.remainder() {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<String> {
        lex(src)
            .unwrap()
            .into_iter()
            .map(|t| t.text.to_string())
            .collect()
    }

    #[test]
    fn punctuators_longest_first() {
        assert_eq!(
            texts("a->*b ... <<= >>=->++--::.*##"),
            ["a", "->*", "b", "...", "<<=", ">>=", "->", "++", "--", "::", ".*", "##"]
        );
        assert_eq!(texts("x+++y"), ["x", "++", "+", "y"]);
    }

    #[test]
    fn numbers_follow_pp_number_rule() {
        assert_eq!(
            texts("1e+5f .5 0x1p-3 1.2.3 1+2"),
            ["1e+5f", ".5", "0x1p-3", "1.2.3", "1", "+", "2"]
        );
    }

    #[test]
    fn literals_and_prefixes() {
        let toks = lex(r#"u8"a\"b" L'x' U"z" '\''"#).unwrap();
        let kinds: Vec<Kind> = toks.iter().map(|t| t.kind).collect();
        assert_eq!(kinds, [Kind::Str, Kind::Char, Kind::Str, Kind::Char]);
        assert_eq!(&*toks[0].text, r#"u8"a\"b""#);
    }

    #[test]
    fn splices_and_comments_keep_lines() {
        let toks = lex("a /* x\n y */ b\nc\\\nd // e \\\n f\ng").unwrap();
        let got: Vec<(String, u32, bool)> = toks
            .into_iter()
            .map(|t| (t.text.to_string(), t.line, t.line_start))
            .collect();
        assert_eq!(
            got,
            [
                ("a".into(), 1, true),
                ("b".into(), 2, false),
                ("cd".into(), 3, true),
                ("g".into(), 6, true)
            ]
        );
    }

    #[test]
    fn errors_carry_lines() {
        assert_eq!(lex("a\n\"abc\n").unwrap_err().line, 2);
        assert!(lex("'x")
            .unwrap_err()
            .message
            .contains("unterminated character"));
        assert!(lex("/* open")
            .unwrap_err()
            .message
            .contains("unterminated comment"));
        assert!(lex("a @ b").unwrap_err().message.contains("'@'"));
        assert!(lex("`").unwrap_err().message.contains("'`'"));
    }
}
