//! The MLIR token set, lexed on demand from a byte offset so that the parser can step back
//! into raw bytes where MLIR's grammar is not token-based (shapes such as `4x?xf32`, and
//! the verbatim bodies of dialect types and attributes). Follows MLIR's `Lexer.cpp`
//! (mlir/lib/AsmParser): identifiers may contain `$ . _ -` after a sigil, `#1` after a
//! value name is a hash identifier, and `{-#`/`#-}` delimit the file-level resource block.

use crate::diag::Span;

/// Token kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    /// End of input.
    Eof,
    /// A byte sequence that is no token (the span covers it).
    Error,
    /// `foo`, `i32`, `func.func`.
    BareId,
    /// `%name`.
    PercentId,
    /// `^bb0`.
    CaretId,
    /// `@sym` or `@"sym"`.
    AtId,
    /// `#map`, `#1`.
    HashId,
    /// `!type`.
    ExclId,
    /// `42`, `0x1F`.
    Integer,
    /// `1.5e3`.
    Float,
    /// `"text"`.
    String,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `<`
    Less,
    /// `>`
    Greater,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `=`
    Equal,
    /// `->`
    Arrow,
    /// `?`
    Question,
    /// `*`
    Star,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `...`
    Ellipsis,
    /// `|`
    Pipe,
    /// `{-#`
    FileMetaBegin,
    /// `#-}`
    FileMetaEnd,
}

/// One token: kind and byte span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// The kind.
    pub kind: Tok,
    /// Where it is.
    pub span: Span,
}

fn is_id_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}
fn is_id_cont(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.'
}
fn is_suffix_cont(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.' | b'-')
}

/// Skips whitespace and `//` comments from `pos`; returns the new offset.
pub fn skip_trivia(src: &[u8], mut pos: usize) -> usize {
    loop {
        while pos < src.len() && src[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if pos + 1 < src.len() && src[pos] == b'/' && src[pos + 1] == b'/' {
            while pos < src.len() && src[pos] != b'\n' {
                pos += 1;
            }
            continue;
        }
        return pos;
    }
}

/// Scans a string literal starting at the opening quote; returns the offset after the
/// closing quote, or `None` when unterminated.
pub fn scan_string(src: &[u8], start: usize) -> Option<usize> {
    let mut p = start + 1;
    while p < src.len() {
        match src[p] {
            b'"' => return Some(p + 1),
            b'\\' => p += 2,
            b'\n' => return None,
            _ => p += 1,
        }
    }
    None
}

/// Lexes the token at `pos` (after trivia).
pub fn lex(src: &[u8], pos: usize) -> Token {
    let start = skip_trivia(src, pos);
    let tok = |kind, end: usize| Token {
        kind,
        span: Span::new(start, end),
    };
    if start >= src.len() {
        return tok(Tok::Eof, start);
    }
    let c = src[start];
    let next = src.get(start + 1).copied().unwrap_or(0);
    match c {
        b'(' => tok(Tok::LParen, start + 1),
        b')' => tok(Tok::RParen, start + 1),
        b'[' => tok(Tok::LBracket, start + 1),
        b']' => tok(Tok::RBracket, start + 1),
        b'{' => {
            if next == b'-' && src.get(start + 2) == Some(&b'#') {
                tok(Tok::FileMetaBegin, start + 3)
            } else {
                tok(Tok::LBrace, start + 1)
            }
        }
        b'}' => tok(Tok::RBrace, start + 1),
        b'<' => tok(Tok::Less, start + 1),
        b'>' => tok(Tok::Greater, start + 1),
        b',' => tok(Tok::Comma, start + 1),
        b':' => tok(Tok::Colon, start + 1),
        b'=' => tok(Tok::Equal, start + 1),
        b'?' => tok(Tok::Question, start + 1),
        b'*' => tok(Tok::Star, start + 1),
        b'+' => tok(Tok::Plus, start + 1),
        b'|' => tok(Tok::Pipe, start + 1),
        b'-' => {
            if next == b'>' {
                tok(Tok::Arrow, start + 2)
            } else {
                tok(Tok::Minus, start + 1)
            }
        }
        b'.' => {
            if next == b'.' && src.get(start + 2) == Some(&b'.') {
                tok(Tok::Ellipsis, start + 3)
            } else {
                tok(Tok::Error, start + 1)
            }
        }
        b'"' => match scan_string(src, start) {
            Some(end) => tok(Tok::String, end),
            None => tok(Tok::Error, start + 1),
        },
        b'#' if next == b'-' && src.get(start + 2) == Some(&b'}') => {
            tok(Tok::FileMetaEnd, start + 3)
        }
        b'%' | b'^' | b'#' | b'!' | b'@' => {
            let kind = match c {
                b'%' => Tok::PercentId,
                b'^' => Tok::CaretId,
                b'#' => Tok::HashId,
                b'!' => Tok::ExclId,
                _ => Tok::AtId,
            };
            if c == b'@' && next == b'"' {
                return match scan_string(src, start + 1) {
                    Some(end) => tok(Tok::AtId, end),
                    None => tok(Tok::Error, start + 1),
                };
            }
            let mut p = start + 1;
            if c == b'@' && !(next.is_ascii_alphabetic() || next == b'_') {
                // `@` identifiers start with a letter or `_` (MLIR's lexer).
                return tok(Tok::Error, start + 1);
            }
            if p < src.len() && src[p].is_ascii_digit() {
                while p < src.len() && src[p].is_ascii_digit() {
                    p += 1;
                }
            } else if p < src.len()
                && (src[p].is_ascii_alphabetic() || matches!(src[p], b'_' | b'$' | b'.' | b'-'))
            {
                while p < src.len() && is_suffix_cont(src[p]) {
                    p += 1;
                }
            } else {
                return tok(Tok::Error, start + 1);
            }
            tok(kind, p)
        }
        b'0'..=b'9' => {
            let mut p = start;
            if c == b'0'
                && next == b'x'
                && src.get(start + 2).is_some_and(|b| b.is_ascii_hexdigit())
            {
                p += 2;
                while p < src.len() && src[p].is_ascii_hexdigit() {
                    p += 1;
                }
                return tok(Tok::Integer, p);
            }
            while p < src.len() && src[p].is_ascii_digit() {
                p += 1;
            }
            if p < src.len() && src[p] == b'.' {
                p += 1;
                while p < src.len() && src[p].is_ascii_digit() {
                    p += 1;
                }
                if p < src.len() && (src[p] == b'e' || src[p] == b'E') {
                    let mut q = p + 1;
                    if q < src.len() && (src[q] == b'+' || src[q] == b'-') {
                        q += 1;
                    }
                    if q < src.len() && src[q].is_ascii_digit() {
                        while q < src.len() && src[q].is_ascii_digit() {
                            q += 1;
                        }
                        p = q;
                    }
                }
                return tok(Tok::Float, p);
            }
            tok(Tok::Integer, p)
        }
        _ if is_id_start(c) => {
            let mut p = start + 1;
            while p < src.len() && is_id_cont(src[p]) {
                p += 1;
            }
            tok(Tok::BareId, p)
        }
        _ => {
            // One whole UTF-8 character (or one byte of garbage).
            let mut p = start + 1;
            while p < src.len() && (src[p] & 0xC0) == 0x80 {
                p += 1;
            }
            tok(Tok::Error, p)
        }
    }
}

/// Decodes the body of a string literal token (quotes included in `text`), resolving
/// `\n`, `\t`, `\"`, `\\` and two-digit hex escapes.
pub fn unescape(text: &str) -> Result<Vec<u8>, usize> {
    let b = text.as_bytes();
    let inner = &b[1..b.len().saturating_sub(1).max(1)];
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        if inner[i] != b'\\' {
            out.push(inner[i]);
            i += 1;
            continue;
        }
        let e = inner.get(i + 1).copied().unwrap_or(0);
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'"' => out.push(b'"'),
            b'\\' => out.push(b'\\'),
            _ => {
                let h = inner.get(i + 1..i + 3).ok_or(i + 1)?;
                let s = std::str::from_utf8(h).map_err(|_| i + 1)?;
                out.push(u8::from_str_radix(s, 16).map_err(|_| i + 1)?);
                i += 3;
                continue;
            }
        }
        i += 2;
    }
    Ok(out)
}

/// Writes `bytes` as an MLIR string literal (with quotes), escaping as MLIR does.
pub fn escape_into(out: &mut String, bytes: &[u8]) {
    out.push('"');
    // Common case (op names, keys): printable ASCII with nothing to escape, copied whole.
    if bytes
        .iter()
        .all(|&c| (0x20..=0x7e).contains(&c) && c != b'"' && c != b'\\')
    {
        out.push_str(std::str::from_utf8(bytes).unwrap_or(""));
        out.push('"');
        return;
    }
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\0A"),
            b'\t' => out.push_str("\\09"),
            0x20..=0x7e => out.push(c as char),
            _ => {
                // Keep valid multi-byte UTF-8 readable; escape anything else.
                let len = match c {
                    0xC0..=0xDF => 2,
                    0xE0..=0xEF => 3,
                    0xF0..=0xF7 => 4,
                    _ => 0,
                };
                if len > 0 {
                    if let Some(s) = bytes
                        .get(i..i + len)
                        .and_then(|s| std::str::from_utf8(s).ok())
                    {
                        out.push_str(s);
                        i += len;
                        continue;
                    }
                }
                out.push_str(&format!("\\{c:02X}"));
            }
        }
        i += 1;
    }
    out.push('"');
}

/// True if `s` can be printed as a bare identifier (else it needs quotes).
pub fn is_bare_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty() && is_id_start(b[0]) && b.iter().all(|&c| is_id_cont(c))
}

/// True if `s` is a valid suffix-id (what may follow `%`, `^`, `@` unquoted).
pub fn is_suffix_id(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() {
        return false;
    }
    if b[0].is_ascii_digit() {
        return b.iter().all(|c| c.is_ascii_digit());
    }
    (b[0].is_ascii_alphabetic() || matches!(b[0], b'_' | b'$' | b'.' | b'-'))
        && b.iter().all(|&c| is_suffix_cont(c))
}
