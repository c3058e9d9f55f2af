//! `#if` expressions: C's integer constant expressions over macro-expanded tokens, in 64 bits
//! (signed, or unsigned when an operand is: `-1 < 0u` is false, as in C).

use super::Tok;
use crate::token::Kind;

/// How deeply parentheses, unary operators and `?:` may nest (the parser recurses on them).
const MAX_NESTING: u32 = 256;

/// The value of an expanded `#if` line (`defined` already replaced, identifiers left are 0,
/// `true`/`false` are 1/0), or a message saying what is wrong.
pub(super) fn eval(toks: &[Tok]) -> Result<i64, String> {
    let mut p = Parser {
        toks,
        pos: 0,
        nesting: 0,
    };
    let v = p.comma(true)?;
    match p.toks.get(p.pos) {
        None => Ok(v.v),
        Some(t) if t.is_punct(")") => Err("missing '(' in expression".into()),
        Some(t) => Err(format!(
            "missing binary operator before token \"{}\"",
            t.text
        )),
    }
}

/// A value and whether its type is unsigned.
#[derive(Clone, Copy, Debug)]
struct Val {
    v: i64,
    unsigned: bool,
}

impl Val {
    fn int(v: i64) -> Val {
        Val { v, unsigned: false }
    }

    fn truth(b: bool) -> Val {
        Val::int(i64::from(b))
    }
}

struct Parser<'a> {
    toks: &'a [Tok],
    pos: usize,
    nesting: u32,
}

/// Binary operators by precedence (higher binds tighter).
fn precedence(op: &str) -> Option<u8> {
    Some(match op {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" => 6,
        "<" | ">" | "<=" | ">=" => 7,
        "<<" | ">>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => return None,
    })
}

impl Parser<'_> {
    fn peek_punct(&self) -> Option<&str> {
        self.toks
            .get(self.pos)
            .filter(|t| t.kind == Kind::Punct)
            .map(|t| &*t.text)
    }

    fn eat(&mut self, s: &str) -> bool {
        let found = self.peek_punct() == Some(s);
        if found {
            self.pos += 1;
        }
        found
    }

    /// `a, b` (C99 allows it where not evaluated; GCC everywhere). `live`: errors count.
    fn comma(&mut self, live: bool) -> Result<Val, String> {
        let mut v = self.conditional(live)?;
        while self.eat(",") {
            v = self.conditional(live)?;
        }
        Ok(v)
    }

    /// `c ? a : b`; nested (as `?:` chains and parentheses recurse) no deeper than
    /// [`MAX_NESTING`].
    fn conditional(&mut self, live: bool) -> Result<Val, String> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err("#if expression nested too deeply".into());
        }
        let v = self.conditional_inner(live);
        self.nesting -= 1;
        v
    }

    fn conditional_inner(&mut self, live: bool) -> Result<Val, String> {
        let c = self.binary(1, live)?;
        if !self.eat("?") {
            return Ok(c);
        }
        let yes = self.comma(live && c.v != 0)?;
        if !self.eat(":") {
            return Err("expected ':' in conditional expression in #if".into());
        }
        let no = self.conditional(live && c.v == 0)?;
        let v = if c.v != 0 { yes.v } else { no.v };
        Ok(Val {
            v,
            unsigned: yes.unsigned || no.unsigned,
        })
    }

    /// Operators of precedence `min` and tighter, left-associative (precedence climbing).
    fn binary(&mut self, min: u8, live: bool) -> Result<Val, String> {
        let mut lhs = self.unary(live)?;
        while let Some((op, prec)) = self
            .peek_punct()
            .and_then(|op| Some((op.to_string(), precedence(op)?)))
        {
            if prec < min {
                break;
            }
            self.pos += 1;
            let rhs_live = match op.as_str() {
                "&&" => live && lhs.v != 0,
                "||" => live && lhs.v == 0,
                _ => live,
            };
            let rhs = self.binary(prec + 1, rhs_live)?;
            lhs = apply(&op, lhs, rhs, live)?;
        }
        Ok(lhs)
    }

    fn unary(&mut self, live: bool) -> Result<Val, String> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err("#if expression nested too deeply".into());
        }
        let v = self.unary_inner(live);
        self.nesting -= 1;
        v
    }

    fn unary_inner(&mut self, live: bool) -> Result<Val, String> {
        let Some(t) = self.toks.get(self.pos) else {
            return Err("expected a value at the end of the #if expression".into());
        };
        self.pos += 1;
        match (t.kind, &*t.text) {
            (Kind::Punct, "-") => self.unary(live).map(|a| Val {
                v: a.v.wrapping_neg(),
                ..a
            }),
            (Kind::Punct, "+") => self.unary(live),
            (Kind::Punct, "~") => self.unary(live).map(|a| Val { v: !a.v, ..a }),
            (Kind::Punct, "!") => self.unary(live).map(|a| Val::truth(a.v == 0)),
            (Kind::Punct, "(") => {
                let v = self.comma(live)?;
                if !self.eat(")") {
                    return Err("missing ')' in expression".into());
                }
                Ok(v)
            }
            (Kind::Number, text) => integer(text),
            (Kind::Char, text) => character(text),
            (Kind::Ident, "true") => Ok(Val::int(1)),
            (Kind::Ident, _) => Ok(Val::int(0)),
            (_, text) => Err(format!(
                "token \"{text}\" is not valid in preprocessor expressions"
            )),
        }
    }
}

/// `a op b`; `live`: whether the result is used (a division by zero that is not is no error).
fn apply(op: &str, a: Val, b: Val, live: bool) -> Result<Val, String> {
    let unsigned = a.unsigned || b.unsigned;
    let (x, y) = (a.v, b.v);
    let v = match op {
        "*" => x.wrapping_mul(y),
        "/" | "%" if y == 0 => {
            return match live {
                true => Err("division by zero in #if".into()),
                false => Ok(Val { v: 0, unsigned }),
            }
        }
        "/" if unsigned => ((x as u64) / (y as u64)) as i64,
        "%" if unsigned => ((x as u64) % (y as u64)) as i64,
        "/" => x.wrapping_div(y),
        "%" => x.wrapping_rem(y),
        "+" => x.wrapping_add(y),
        "-" => x.wrapping_sub(y),
        "<<" => {
            return Ok(Val {
                v: shift(a, b, true),
                ..a
            })
        }
        ">>" => {
            return Ok(Val {
                v: shift(a, b, false),
                ..a
            })
        }
        "&" => x & y,
        "|" => x | y,
        "^" => x ^ y,
        "&&" => return Ok(Val::truth(x != 0 && y != 0)),
        "||" => return Ok(Val::truth(x != 0 || y != 0)),
        _ => return Ok(Val::truth(compare(op, a, b))),
    };
    Ok(Val { v, unsigned })
}

fn compare(op: &str, a: Val, b: Val) -> bool {
    let ord = if a.unsigned || b.unsigned {
        (a.v as u64).cmp(&(b.v as u64))
    } else {
        a.v.cmp(&b.v)
    };
    match op {
        "==" => ord.is_eq(),
        "!=" => ord.is_ne(),
        "<" => ord.is_lt(),
        ">" => ord.is_gt(),
        "<=" => ord.is_le(),
        _ => ord.is_ge(),
    }
}

/// `a << b` (`left`) or `a >> b`; a negative count shifts the other way (as GCC does), a count
/// of 64 or more shifts everything out.
fn shift(a: Val, b: Val, left: bool) -> i64 {
    let negative = !b.unsigned && b.v < 0;
    let count = if negative {
        b.v.unsigned_abs()
    } else {
        b.v as u64
    };
    let left = left != negative;
    if count >= 64 {
        return if !left && !a.unsigned && a.v < 0 {
            -1
        } else {
            0
        };
    }
    match (left, a.unsigned) {
        (true, _) => ((a.v as u64) << count) as i64,
        (false, true) => ((a.v as u64) >> count) as i64,
        (false, false) => a.v >> count,
    }
}

/// An integer literal with C's prefixes (`0x`, `0b`, octal `0`) and suffixes (`u`, `l`, `ll`).
fn integer(text: &str) -> Result<Val, String> {
    let lower = text.to_ascii_lowercase();
    let body = lower.trim_end_matches(['u', 'l']);
    let suffix = &lower[body.len()..];
    let hex = body.starts_with("0x");
    let float = body.contains('.') || (!hex && body.contains('e')) || (hex && body.contains('p'));
    if float {
        return Err(format!(
            "floating constant \"{text}\" in preprocessor expression"
        ));
    }
    if !matches!(suffix, "" | "u" | "l" | "ul" | "lu" | "ll" | "ull" | "llu") {
        return Err(format!("invalid suffix on integer constant \"{text}\""));
    }
    let (digits, radix) = if let Some(h) = body.strip_prefix("0x") {
        (h, 16)
    } else if let Some(b) = body.strip_prefix("0b") {
        (b, 2)
    } else if body.len() > 1 && body.starts_with('0') {
        (&body[1..], 8)
    } else {
        (body, 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(format!("invalid integer constant \"{text}\" in #if"));
    }
    let v = u64::from_str_radix(digits, radix)
        .map_err(|_| format!("integer constant \"{text}\" is too large"))?;
    Ok(Val {
        v: v as i64,
        unsigned: suffix.contains('u') || v > i64::MAX as u64,
    })
}

/// A character literal's value: one plain `char` is signed (as on x86); several are packed.
fn character(text: &str) -> Result<Val, String> {
    let open = text.find('\'').unwrap_or(0);
    let plain = open == 0;
    let inner = text
        .get(open + 1..text.len().saturating_sub(1))
        .unwrap_or("");
    let mut chars = inner.chars().peekable();
    let mut values = Vec::new();
    while let Some(c) = chars.next() {
        values.push(if c == '\\' {
            escape(&mut chars)
        } else {
            u64::from(u32::from(c))
        });
    }
    match values.as_slice() {
        [] => Err("empty character constant in #if".into()),
        [v] if plain => Ok(Val::int(i64::from(*v as u8 as i8))),
        [.., v] if !plain => Ok(Val::int(*v as i64)),
        vs => {
            Ok(Val::int(vs.iter().fold(0i64, |acc, v| {
                acc.wrapping_shl(8) | (*v & 0xff) as i64
            })))
        }
    }
}

/// The value of the escape sequence after a backslash.
fn escape(chars: &mut std::iter::Peekable<std::str::Chars>) -> u64 {
    let Some(c) = chars.next() else {
        return u64::from(b'\\');
    };
    let simple = match c {
        'n' => Some(10),
        't' => Some(9),
        'r' => Some(13),
        'a' => Some(7),
        'b' => Some(8),
        'f' => Some(12),
        'v' => Some(11),
        'e' => Some(27),
        _ => None,
    };
    if let Some(v) = simple {
        return v;
    }
    let (radix, max) = match c {
        'x' => (16, usize::MAX),
        'u' => (16, 4),
        'U' => (16, 8),
        '0'..='7' => (8, 2),
        other => return u64::from(u32::from(other)),
    };
    let mut v = if radix == 8 {
        u64::from(c) - u64::from('0')
    } else {
        0
    };
    let mut n = 0;
    while let Some(d) = chars.peek().and_then(|d| d.to_digit(radix)) {
        if n == max {
            break;
        }
        v = v.wrapping_mul(u64::from(radix)).wrapping_add(u64::from(d));
        chars.next();
        n += 1;
    }
    v
}
