//! Validity of number literals against their type, as MLIR's parser decides it:
//! integer attributes (`256 : i8` is out of range, `-1 : ui8` is not allowed) and the
//! bodies of `dense<...>` / `sparse<...>` elements literals (shape inferred from the
//! nesting, element kinds, per-element ranges, hexadecimal floats).
//!
//! The bodies stay verbatim in [`Attribute::Elements`](crate::attrs::Attribute); this
//! module only decides whether MLIR would accept them, token by token, so that memplan
//! rejects what mlir-opt-22 rejects (`mlir/test/IR/invalid-builtin-attributes.mlir`
//! has the classes) and nothing it accepts.

use crate::diag::{Diagnostic, Span};
use crate::lexer::{lex, Tok, Token};
use crate::types::{Signedness, Type, TypeKind, DYNAMIC};

/// Bit length of an integer literal's magnitude (decimal or `0x` hexadecimal, any size),
/// whether the magnitude is a power of two, and whether it is zero.
fn magnitude(text: &str) -> (u64, bool, bool) {
    // Little-endian 64-bit limbs.
    let mut limbs: Vec<u64> = vec![0];
    let (digits, radix) = match text.strip_prefix("0x") {
        Some(h) => (h, 16u128),
        None => (text, 10u128),
    };
    for c in digits.chars() {
        let d = u128::from(c.to_digit(radix as u32).unwrap_or(0));
        let mut carry = d;
        for l in limbs.iter_mut() {
            let v = u128::from(*l) * radix + carry;
            *l = v as u64;
            carry = v >> 64;
        }
        if carry != 0 {
            limbs.push(carry as u64);
        }
    }
    while limbs.len() > 1 && limbs.last() == Some(&0) {
        limbs.pop();
    }
    let top = *limbs.last().unwrap_or(&0);
    let bits = if top == 0 {
        0
    } else {
        (limbs.len() as u64 - 1) * 64 + u64::from(64 - top.leading_zeros())
    };
    let ones: u32 = limbs.iter().map(|l| l.count_ones()).sum();
    (bits, ones == 1, bits == 0)
}

/// Whether `[-]text` fits an integer (or `index`) type the way MLIR's
/// `buildAttributeAPInt` decides it: the magnitude must fit the width; a negative value
/// must have its sign bit set once negated in that width (so `-0` and `-129 : i8` fail);
/// a positive signed or `index` value must leave the sign bit clear. Signless values may
/// use the whole unsigned range (`255 : i8`).
pub(super) fn int_fits(ty: &Type, neg: bool, text: &str) -> bool {
    let (width, signed) = match ty.kind() {
        TypeKind::Integer { width, signedness } => {
            (u64::from(*width), *signedness == Signedness::Signed)
        }
        TypeKind::Index => (64, true),
        _ => return true,
    };
    let (bits, pow2, zero) = magnitude(text);
    if bits > width {
        return false;
    }
    if width == 0 {
        return !neg && zero;
    }
    if neg {
        // -m in `width` bits has its sign bit set iff 0 < m <= 2^(width-1).
        return !zero && (bits < width || (bits == width && pow2));
    }
    !(signed && bits == width)
}

/// Whether a hexadecimal integer literal fits the bit width of a float type.
pub(super) fn hex_float_fits(ty: &Type, text: &str) -> bool {
    let width = ty.bit_width().unwrap_or(0);
    magnitude(text).0 <= width
}

/// The element literal tokens of an elements-literal body, with their sign.
struct Elem {
    neg: bool,
    tok: Token,
}

/// A tensor literal as MLIR's `TensorLiteralParser` reads it: a nested list (its shape
/// inferred) or one element (a splat, empty shape), or a hexadecimal string.
struct Literal {
    shape: Vec<i64>,
    elems: Vec<Elem>,
    hex: Option<Token>,
}

struct BodyReader<'s> {
    src: &'s str,
    pos: usize,
    end: usize,
    tok: Token,
}

type R<T> = Result<T, Diagnostic>;

impl<'s> BodyReader<'s> {
    fn new(src: &'s str, start: usize, end: usize) -> Self {
        let tok = lex(src.as_bytes(), start);
        let mut r = BodyReader {
            src,
            pos: start,
            end,
            tok,
        };
        r.clip();
        r
    }
    fn clip(&mut self) {
        if self.tok.span.start as usize >= self.end {
            self.tok = Token {
                kind: Tok::Eof,
                span: Span::new(self.end, self.end),
            };
        }
    }
    fn bump(&mut self) {
        self.pos = self.tok.span.end as usize;
        self.tok = lex(self.src.as_bytes(), self.pos);
        self.clip();
    }
    fn text(&self) -> &'s str {
        &self.src[self.tok.span.start as usize..self.tok.span.end as usize]
    }
    fn err(&self, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::new(self.tok.span, msg)
    }
    fn eat(&mut self, k: Tok) -> bool {
        if self.tok.kind == k {
            self.bump();
            true
        } else {
            false
        }
    }

    /// One literal: `"0x..."`, `[...]` or an element.
    fn literal(&mut self, allow_hex: bool) -> R<Literal> {
        let mut lit = Literal {
            shape: Vec::new(),
            elems: Vec::new(),
            hex: None,
        };
        match self.tok.kind {
            Tok::String if allow_hex && self.text().starts_with("\"0x") => {
                lit.hex = Some(self.tok);
                self.bump();
            }
            Tok::LBracket => lit.shape = self.list(&mut lit.elems)?,
            _ => self.element(&mut lit.elems)?,
        }
        Ok(lit)
    }

    /// `[e, e, ...]`, nested; returns its shape.
    fn list(&mut self, out: &mut Vec<Elem>) -> R<Vec<i64>> {
        let open = self.tok;
        self.bump();
        let mut sub: Option<Vec<i64>> = None;
        let mut n: i64 = 0;
        let mut first_err = None;
        if !self.eat(Tok::RBracket) {
            loop {
                let shape = if self.tok.kind == Tok::LBracket {
                    self.list(out)?
                } else {
                    self.element(out)?;
                    Vec::new()
                };
                match &sub {
                    None => sub = Some(shape),
                    Some(s) if *s != shape && first_err.is_none() => {
                        first_err = Some(Diagnostic::new(
                            open.span,
                            "tensor literal is invalid; ranks are not consistent between elements",
                        ));
                    }
                    _ => {}
                }
                n += 1;
                if self.eat(Tok::Comma) {
                    continue;
                }
                if !self.eat(Tok::RBracket) {
                    return Err(self.err("expected ',' or ']'"));
                }
                break;
            }
        }
        if let Some(e) = first_err {
            return Err(e);
        }
        let mut shape = vec![n];
        shape.extend(sub.unwrap_or_default());
        Ok(shape)
    }

    /// A primitive element or a complex `(a, b)` pair.
    fn element(&mut self, out: &mut Vec<Elem>) -> R<()> {
        if self.tok.kind == Tok::LParen {
            self.bump();
            self.primitive(out)?;
            if !self.eat(Tok::Comma) {
                return Err(self.err("expected ',' between complex elements"));
            }
            self.primitive(out)?;
            if !self.eat(Tok::RParen) {
                return Err(self.err("expected ')' after complex elements"));
            }
            return Ok(());
        }
        self.primitive(out)
    }

    fn primitive(&mut self, out: &mut Vec<Elem>) -> R<()> {
        let neg = self.eat(Tok::Minus);
        let ok = match self.tok.kind {
            Tok::Integer | Tok::Float => true,
            Tok::String | Tok::BareId if !neg => {
                self.tok.kind == Tok::String || matches!(self.text(), "true" | "false")
            }
            _ => false,
        };
        if !ok {
            return Err(self.err("expected element literal of primitive type"));
        }
        out.push(Elem { neg, tok: self.tok });
        self.bump();
        Ok(())
    }
}

/// Checks every element of `elems` against the (scalar) element type `elt`, as MLIR's
/// `getIntAttrElements` / `getFloatAttrElements` / `getStringAttr` do.
fn check_elements_of(src: &str, elems: &[Elem], elt: &Type, at: Span) -> R<()> {
    let text = |e: &Elem| &src[e.tok.span.start as usize..e.tok.span.end as usize];
    match elt.kind() {
        TypeKind::Integer { .. } | TypeKind::Index => {
            let unsigned = matches!(
                elt.kind(),
                TypeKind::Integer {
                    signedness: Signedness::Unsigned,
                    ..
                }
            );
            for e in elems {
                let sp = e.tok.span;
                if e.neg && unsigned {
                    return Err(Diagnostic::new(
                        sp,
                        "expected unsigned integer elements, but parsed negative value",
                    ));
                }
                match e.tok.kind {
                    Tok::Float => {
                        return Err(Diagnostic::new(
                            sp,
                            "expected integer elements, but parsed floating-point",
                        ))
                    }
                    Tok::BareId => {
                        if *elt != Type::int(1) {
                            return Err(Diagnostic::new(
                                sp,
                                "expected i1 type for 'true' or 'false' values",
                            ));
                        }
                    }
                    Tok::Integer => {
                        if !int_fits(elt, e.neg, text(e)) {
                            return Err(Diagnostic::new(
                                sp,
                                "integer constant out of range for type",
                            ));
                        }
                    }
                    _ => return Err(Diagnostic::new(sp, "expected integer elements")),
                }
            }
        }
        TypeKind::Float(_) => {
            for e in elems {
                let sp = e.tok.span;
                match e.tok.kind {
                    Tok::Integer if text(e).starts_with("0x") => {
                        if e.neg {
                            return Err(Diagnostic::new(
                                sp,
                                "hexadecimal float literal should not have a leading minus",
                            ));
                        }
                        if !hex_float_fits(elt, text(e)) {
                            return Err(Diagnostic::new(
                                sp,
                                "hexadecimal float constant out of range for type",
                            ));
                        }
                    }
                    Tok::Integer => {
                        return Err(Diagnostic::new(
                            sp,
                            "unexpected decimal integer literal for a floating point value",
                        )
                        .with_note(None, "add a trailing dot to make the literal a float"))
                    }
                    Tok::Float => {}
                    _ => return Err(Diagnostic::new(sp, "expected floating point literal")),
                }
            }
        }
        _ => {
            // Other element types hold strings (`DenseStringElementsAttr`).
            for e in elems {
                if e.tok.kind != Tok::String {
                    return Err(Diagnostic::new(
                        at,
                        format!("expected string token, got {}", text(e)),
                    ));
                }
            }
        }
    }
    Ok(())
}

fn num_elements(shape: &[i64]) -> Option<i64> {
    shape.iter().try_fold(1i64, |a, &d| a.checked_mul(d))
}

/// Checks a literal against a shaped type the way `TensorLiteralParser::getAttr` does.
fn check_literal(src: &str, lit: &Literal, ty: &Type, at: Span) -> R<()> {
    let shape = ty.shape().unwrap_or(&[]);
    let elt = ty.element_type().cloned().unwrap_or_else(|| Type::int(64));
    let count = num_elements(shape).unwrap_or(i64::MAX);
    if lit.hex.is_none() && lit.elems.is_empty() && lit.shape.is_empty() && count != 0 {
        return Err(Diagnostic::new(
            at,
            format!("parsed zero elements, but type ('{ty}') expected at least 1"),
        ));
    }
    if let Some(h) = lit.hex {
        let scalar = matches!(
            elt.kind(),
            TypeKind::Integer { .. } | TypeKind::Index | TypeKind::Float(_) | TypeKind::Complex(_)
        );
        if scalar {
            return check_hex(src, h, &elt, count);
        }
        return Ok(());
    }
    if !lit.shape.is_empty() && lit.shape != shape {
        let fmt = |s: &[i64]| {
            s.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(Diagnostic::new(
            at,
            format!(
                "inferred shape of elements literal ([{}]) does not match type ([{}])",
                fmt(&lit.shape),
                fmt(shape)
            ),
        ));
    }
    let mut scalar = elt.clone();
    if let TypeKind::Complex(inner) = elt.kind() {
        scalar = inner.clone();
        let splat = lit.shape.is_empty() && count != 0;
        if splat && lit.elems.len() != 2 {
            return Err(Diagnostic::new(
                at,
                format!(
                    "parsed {} elements, but type ('{elt}') expected 2 elements",
                    lit.elems.len()
                ),
            ));
        }
        if !lit.shape.is_empty() && lit.elems.len() as i64 != count.saturating_mul(2) {
            return Err(Diagnostic::new(
                at,
                format!(
                    "parsed {} elements, but type ('{ty}') expected {} elements",
                    lit.elems.len(),
                    count.saturating_mul(2)
                ),
            ));
        }
    }
    check_elements_of(src, &lit.elems, &scalar, at)
}

/// `dense<"0x...">`: the data must hold one element (a splat) or every element.
fn check_hex(src: &str, tok: Token, elt: &Type, count: i64) -> R<()> {
    let text = &src[tok.span.start as usize + 1..tok.span.end as usize - 1];
    let digits = &text[2..];
    if !digits.len().is_multiple_of(2) || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Diagnostic::new(
            tok.span,
            "expected string containing hex digits starting with `0x`",
        ));
    }
    let bytes = (digits.len() / 2) as u64;
    let bits = elt.bit_width().unwrap_or(0);
    let count = u64::try_from(count).unwrap_or(u64::MAX);
    if bits == 1 {
        // i1 is packed by the bit: one all-zero or all-one byte is a splat.
        let splat = digits.eq_ignore_ascii_case("00") || digits.eq_ignore_ascii_case("ff");
        if splat || Some(bytes) == count.checked_add(7).map(|c| c / 8) {
            return Ok(());
        }
    } else {
        // Other element types take whole bytes each (complex: both parts).
        let per = bits.div_ceil(8);
        if bytes == per || Some(bytes) == count.checked_mul(per) {
            return Ok(());
        }
    }
    Err(Diagnostic::new(
        tok.span,
        "elements hex data size is invalid for provided type",
    ))
}

/// Checks the body of `dense<...>`, `sparse<...>` or `dense_resource<...>` (the bytes
/// `src[start..end]`, between the angle brackets) against its type `ty`; `kw` is the
/// keyword's span, where type errors are reported.
pub(super) fn check_elements_attr(
    src: &str,
    kind: &str,
    start: usize,
    end: usize,
    ty: &Type,
    kw: Span,
) -> R<()> {
    let shaped = matches!(
        ty.kind(),
        TypeKind::RankedTensor { .. }
            | TypeKind::Vector { .. }
            | TypeKind::UnrankedTensor { .. }
            | TypeKind::MemRef { .. }
            | TypeKind::UnrankedMemRef { .. }
    );
    if kind == "dense_resource" {
        if !shaped {
            return Err(Diagnostic::new(
                kw,
                "`dense_resource` expected a shaped type",
            ));
        }
        return Ok(());
    }
    let mut r = BodyReader::new(src, start, end);
    if kind == "sparse" {
        return check_sparse(&mut r, ty, kw, shaped);
    }
    let lit = if r.tok.kind == Tok::Eof {
        Literal {
            shape: Vec::new(),
            elems: Vec::new(),
            hex: None,
        }
    } else {
        r.literal(true)?
    };
    if r.tok.kind != Tok::Eof {
        return Err(r.err("expected '>'"));
    }
    // MLIR: a `ShapedType` with a static shape.
    if !shaped {
        return Err(Diagnostic::new(
            kw,
            "elements literal must be a shaped type",
        ));
    }
    if ty.shape().is_none_or(|s| s.contains(&DYNAMIC)) {
        return Err(Diagnostic::new(
            kw,
            "elements literal type must have static shape",
        ));
    }
    check_literal(src, &lit, ty, kw)
}

/// `sparse<indices, values>` (or `sparse<>`).
fn check_sparse(r: &mut BodyReader<'_>, ty: &Type, kw: Span, shaped: bool) -> R<()> {
    if r.tok.kind == Tok::Eof {
        return if shaped {
            Ok(())
        } else {
            Err(Diagnostic::new(
                kw,
                "elements literal must be a shaped type",
            ))
        };
    }
    let indices = r.literal(false)?;
    if !r.eat(Tok::Comma) {
        return Err(r.err("expected ','"));
    }
    let values = r.literal(true)?;
    if r.tok.kind != Tok::Eof {
        return Err(r.err("expected '>'"));
    }
    if !shaped {
        return Err(Diagnostic::new(
            kw,
            "elements literal must be a shaped type",
        ));
    }
    let Some(shape) = ty.shape().filter(|s| !s.contains(&DYNAMIC)) else {
        return Err(Diagnostic::new(
            kw,
            "elements literal type must have static shape",
        ));
    };
    let rank = shape.len() as i64;
    // Indices: a splat means one index with every coordinate equal to it.
    let ishape = if indices.shape.is_empty() {
        vec![1, rank]
    } else {
        indices.shape.clone()
    };
    check_elements_of(r.src, &indices.elems, &Type::int(64), kw)?;
    if values.shape.len() > 1 {
        return Err(Diagnostic::new(
            kw,
            "expected 1-d tensor for sparse element values",
        ));
    }
    let nvalues = values.shape.first().copied().unwrap_or(ishape[0]);
    let shape_ok = match ishape.len() {
        2 => ishape[1] == rank,
        1 => rank == 1,
        _ => false,
    };
    if !shape_ok {
        return Err(Diagnostic::new(
            kw,
            "expected shape of sparse indices to match the type's rank",
        ));
    }
    if ishape[0] != nvalues {
        return Err(Diagnostic::new(
            kw,
            format!(
                "expected {} sparse values to be specified, but got {nvalues}",
                ishape[0]
            ),
        ));
    }
    // Values against the element type.
    if values.hex.is_none() {
        let elt = ty.element_type().cloned().unwrap_or_else(|| Type::int(64));
        let scalar = match elt.kind() {
            TypeKind::Complex(inner) => inner.clone(),
            _ => elt.clone(),
        };
        check_elements_of(r.src, &values.elems, &scalar, kw)?;
    }
    // Every index inside the shape.
    let coords: Vec<i128> = indices
        .elems
        .iter()
        .map(|e| {
            let t = &r.src[e.tok.span.start as usize..e.tok.span.end as usize];
            let v = if let Some(h) = t.strip_prefix("0x") {
                i128::from_str_radix(h, 16).unwrap_or(i128::MAX)
            } else {
                t.parse::<i128>().unwrap_or(i128::MAX)
            };
            if e.neg {
                -v
            } else {
                v
            }
        })
        .collect();
    let per = if ishape.len() == 2 { rank as usize } else { 1 };
    let rows: Vec<Vec<i128>> = if indices.shape.is_empty() {
        vec![vec![coords.first().copied().unwrap_or(0); rank as usize]]
    } else if per == 0 {
        Vec::new()
    } else {
        coords.chunks(per).map(|c| c.to_vec()).collect()
    };
    for (i, row) in rows.iter().enumerate() {
        let inside = row
            .iter()
            .zip(shape)
            .all(|(&c, &d)| c >= 0 && c < i128::from(d));
        if !inside {
            return Err(Diagnostic::new(
                kw,
                format!("sparse index #{i} is not contained within the value shape"),
            ));
        }
    }
    Ok(())
}
