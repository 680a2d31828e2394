//! Attribute, location and affine-expression parsing.

use std::collections::HashMap;

use super::{Delimiter, PResult, Parser, UnresolvedOperand};
use crate::affine::{AffineExpr, AffineMap, IntegerSet};
use crate::attrs::{Attribute, DenseArrayValues, Dict, Location, NamedAttr};
use crate::diag::{Diagnostic, Span};
use crate::ident::Ident;
use crate::lexer::Tok;
use crate::types::{FloatKind, Signedness, Type, TypeKind};

/// Dims and symbols met while parsing an affine map of SSA ids.
#[derive(Default)]
pub(crate) struct SsaAffineCtx {
    dims: Vec<UnresolvedOperand>,
    syms: Vec<UnresolvedOperand>,
}

impl SsaAffineCtx {
    pub(crate) fn finish(
        self,
        results: Vec<AffineExpr>,
        operands: &mut Vec<UnresolvedOperand>,
    ) -> AffineMap {
        let m = AffineMap {
            num_dims: self.dims.len() as u32,
            num_symbols: self.syms.len() as u32,
            results,
        };
        operands.extend(self.dims);
        operands.extend(self.syms);
        m
    }
}

/// Most distinct dictionary texts remembered by [`Parser::parse_optional_attr_dict`].
const DICT_CACHE_MAX: usize = 4096;

/// End of the `{...}` group at `p` when it is short (at most 256 bytes), on one line and
/// nested at most 8 deep; `None` otherwise (such dictionaries are simply not cached).
fn shallow_group(b: &[u8], p: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut q = p;
    while q < b.len() && q < p + 256 {
        match b[q] {
            b'<' | b'(' | b'[' | b'{' => depth += 1,
            b'>' | b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(q + 1);
                }
            }
            b'-' if b.get(q + 1) == Some(&b'>') => q += 1,
            b'"' => q = crate::lexer::scan_string(b, q)? - 1,
            b'\n' | b'/' | b'#' => return None,
            _ => {}
        }
        if depth > 8 {
            return None;
        }
        q += 1;
    }
    None
}

/// The value of a decimal literal of at most 18 digits (no overflow possible), else `None`.
fn small_decimal(t: &str) -> Option<i64> {
    if t.is_empty() || t.len() > 18 || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(t.bytes().fold(0i64, |v, b| v * 10 + i64::from(b - b'0')))
}

enum AffineNames<'c> {
    Named(&'c HashMap<String, AffineExpr>),
    Ssa(&'c mut SsaAffineCtx),
}

fn float_from_bits(k: FloatKind, bits: u128) -> f64 {
    match k {
        FloatKind::F32 => f64::from(f32::from_bits(bits as u32)),
        FloatKind::F64 => f64::from_bits(bits as u64),
        FloatKind::BF16 => f64::from(f32::from_bits((bits as u32) << 16)),
        FloatKind::F16 => {
            let h = bits as u32;
            let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
            let e = ((h >> 10) & 0x1f) as i32;
            let m = f64::from(h & 0x3ff);
            sign * match e {
                0 => m * 2f64.powi(-24),
                31 => {
                    if m == 0.0 {
                        f64::INFINITY
                    } else {
                        f64::NAN
                    }
                }
                _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
            }
        }
        _ => f64::NAN,
    }
}

impl<'a> Parser<'a> {
    /// An attribute value.
    pub fn parse_attribute(&mut self) -> PResult<Attribute> {
        self.enter()?;
        let r = self.parse_attribute_inner();
        self.leave();
        r
    }

    /// An attribute whose type may be left implicit (MLIR's `parseAttribute(attr, type)`):
    /// `dense<...>`, `sparse<...>`, `dense_resource<...>` and number literals take `ty` when
    /// no `: type` follows (as in `memref.global @g : memref<2xf32> = dense<1.0>`).
    pub fn parse_attribute_of_type(&mut self, ty: &Type) -> PResult<Attribute> {
        let kw = self.peek_text();
        if self.at(Tok::BareId) && matches!(kw, "dense" | "dense_resource" | "sparse") {
            let start = self.tok.span.end as usize;
            if self.src.as_bytes().get(start) != Some(&b'<') {
                return Err(self.error_expected("'<' after dense"));
            }
            let kw_span = self.tok.span;
            let end = self.scan_balanced(start)?;
            let body = self.src[start + 1..end - 1].to_string();
            self.reset(end);
            let ty = self.opt_colon_type()?.unwrap_or_else(|| ty.clone());
            super::literals::check_elements_attr(self.src, kw, start + 1, end - 1, &ty, kw_span)?;
            return Ok(Attribute::Elements {
                kind: kw.to_string(),
                body,
                ty,
            });
        }
        if matches!(self.peek(), Tok::Integer | Tok::Float | Tok::Minus) {
            let save = self.tok.span.start as usize;
            let neg = self.consume_if(Tok::Minus);
            let lit = self.peek_text();
            let kind = self.peek();
            self.bump();
            if !self.at(Tok::Colon) {
                let text = if neg {
                    format!("-{lit}")
                } else {
                    lit.to_string()
                };
                if ty.is_float() {
                    let value = if kind == Tok::Integer && lit.starts_with("0x") {
                        return {
                            self.reset(save);
                            self.parse_attribute()
                        };
                    } else {
                        text.parse::<f64>()
                            .map_err(|_| self.error_here("invalid float literal"))?
                    };
                    return Ok(Attribute::Float {
                        value,
                        bits: None,
                        ty: ty.clone(),
                    });
                }
                if kind == Tok::Integer && (ty.is_integer() || ty.is_index()) {
                    if let Ok(value) = text.parse::<i128>() {
                        return Ok(Attribute::Integer {
                            value,
                            ty: ty.clone(),
                        });
                    }
                }
            }
            self.reset(save);
        }
        self.parse_attribute()
    }

    /// An attribute that must be a dictionary `{...}`.
    pub fn parse_dict_attr(&mut self) -> PResult<Dict> {
        let mut d = Dict::new();
        if !self.at(Tok::LBrace) {
            return Err(self.error_expected("'{' to start a dictionary"));
        }
        self.parse_optional_attr_dict(&mut d)?;
        Ok(d)
    }

    /// `{name = attr, unit_name}` if present; entries are added to `into` (duplicates are errors).
    pub fn parse_optional_attr_dict(&mut self, into: &mut Dict) -> PResult<()> {
        if !self.at(Tok::LBrace) {
            return Ok(());
        }
        // Dictionaries repeat verbatim (every generic `linalg.fill` spells the same
        // `operandSegmentSizes`): the exact text of a shallow one parsed before gives the
        // same entries. Only for a fresh dictionary, away from the nesting limit.
        let start = self.current_pos();
        let key = if into.is_empty() && self.depth + 64 < super::MAX_DEPTH {
            shallow_group(self.src.as_bytes(), start).map(|end| (end, &self.src[start..end]))
        } else {
            None
        };
        if let Some((end, text)) = key {
            if let Some(d) = self.dict_cache.get(text) {
                *into = d.clone();
                self.reset(end);
                return Ok(());
            }
        }
        self.parse_attr_dict_entries(into)?;
        if let Some((end, text)) = key {
            if self.prev_end as usize == end && self.dict_cache.len() < DICT_CACHE_MAX {
                self.dict_cache.insert(text, into.clone());
            }
        }
        Ok(())
    }

    fn parse_attr_dict_entries(&mut self, into: &mut Dict) -> PResult<()> {
        self.bump();
        if self.consume_if(Tok::RBrace) {
            return Ok(());
        }
        self.enter()?;
        loop {
            let span = self.tok.span;
            let name = match self.tok.kind {
                Tok::BareId => {
                    let t = self.reg.attr_name(self.peek_text());
                    self.bump();
                    t
                }
                Tok::String => Ident::from(self.parse_string()?),
                _ => return Err(self.error_expected("attribute name")),
            };
            if name.is_empty() {
                return Err(Diagnostic::new(span, "expected valid attribute name"));
            }
            let value = if self.consume_if(Tok::Equal) {
                self.parse_attribute()?
            } else {
                Attribute::Unit
            };
            if into.contains(&name) {
                return Err(Diagnostic::new(
                    span,
                    format!("duplicate key '{name}' in dictionary attribute"),
                ));
            }
            into.0.push(NamedAttr { name, value });
            if !self.consume_if(Tok::Comma) {
                break;
            }
        }
        self.leave();
        self.expect(Tok::RBrace, "'}' to end the dictionary")?;
        // Most dictionaries hold one or two entries; drop the growth slack (an op keeps
        // its dictionaries for the module's lifetime).
        into.0.shrink_to_fit();
        Ok(())
    }

    /// `attributes {...}` if the keyword is present.
    pub fn parse_optional_attr_dict_with_keyword(&mut self, into: &mut Dict) -> PResult<()> {
        if self.parse_optional_keyword("attributes") {
            if !self.at(Tok::LBrace) {
                return Err(self.error_expected("'{' after 'attributes'"));
            }
            self.parse_optional_attr_dict(into)?;
        }
        Ok(())
    }

    fn opt_colon_type(&mut self) -> PResult<Option<Type>> {
        if self.consume_if(Tok::Colon) {
            Ok(Some(self.parse_type()?))
        } else {
            Ok(None)
        }
    }

    fn parse_number_attr(&mut self) -> PResult<Attribute> {
        let neg = self.consume_if(Tok::Minus);
        let span = self.tok.span;
        match self.tok.kind {
            Tok::Integer => {
                let text = self.peek_text();
                let is_hex = text.starts_with("0x");
                let raw = if is_hex {
                    u128::from_str_radix(&text[2..], 16)
                        .map_err(|_| self.error_here("integer literal out of range"))?
                } else {
                    text.parse::<u128>()
                        .map_err(|_| self.error_here("integer literal out of range"))?
                };
                self.bump();
                let ty = self.opt_colon_type()?.unwrap_or_else(|| Type::int(64));
                if let TypeKind::Float(k) = ty.kind() {
                    if is_hex {
                        if neg {
                            return Err(Diagnostic::new(
                                span,
                                "hexadecimal float literal should not have a leading minus",
                            ));
                        }
                        if !super::literals::hex_float_fits(&ty, text) {
                            return Err(Diagnostic::new(
                                span,
                                "hexadecimal float constant out of range for type",
                            ));
                        }
                        return Ok(Attribute::Float {
                            value: float_from_bits(*k, raw),
                            bits: Some(raw),
                            ty,
                        });
                    }
                    return Err(Diagnostic::new(
                        span,
                        "unexpected decimal integer literal for a floating point value",
                    )
                    .with_note(None, "add a trailing dot to make the literal a float"));
                }
                if !ty.is_integer() && !ty.is_index() {
                    return Err(Diagnostic::new(
                        span,
                        "integer literal not valid for specified type",
                    ));
                }
                if neg
                    && matches!(
                        ty.kind(),
                        TypeKind::Integer {
                            signedness: Signedness::Unsigned,
                            ..
                        }
                    )
                {
                    return Err(Diagnostic::new(
                        span,
                        "negative integer literal not valid for unsigned integer type",
                    ));
                }
                if !super::literals::int_fits(&ty, neg, text) {
                    return Err(Diagnostic::new(
                        span,
                        "integer constant out of range for attribute",
                    ));
                }
                let v = match i128::try_from(raw) {
                    Ok(v) => v,
                    // `2^128 - 1 : i128` is the bit pattern of -1 (MLIR prints it that way).
                    Err(_) if !neg && ty.bit_width() == Some(128) => raw as i128,
                    // -2^127 : i128 (checked by `int_fits` above).
                    Err(_) if neg && raw == 1u128 << 127 => i128::MIN,
                    Err(_) => return Err(Diagnostic::new(span, "integer constant out of range")),
                };
                let v = if neg && v != i128::MIN { -v } else { v };
                if ty == Type::int(1) {
                    return Ok(Attribute::Integer { value: v, ty });
                }
                Ok(Attribute::Integer { value: v, ty })
            }
            Tok::Float => {
                let v: f64 = self
                    .peek_text()
                    .parse()
                    .map_err(|_| self.error_here("invalid float literal"))?;
                self.bump();
                let ty = self
                    .opt_colon_type()?
                    .unwrap_or_else(|| Type::float(FloatKind::F64));
                if !ty.is_float() {
                    return Err(Diagnostic::new(
                        span,
                        "floating point value not valid for specified type",
                    ));
                }
                Ok(Attribute::Float {
                    value: if neg { -v } else { v },
                    bits: None,
                    ty,
                })
            }
            _ => Err(self.error_expected("integer or floating point literal")),
        }
    }

    fn parse_attribute_inner(&mut self) -> PResult<Attribute> {
        match self.tok.kind {
            Tok::Integer | Tok::Float | Tok::Minus => self.parse_number_attr(),
            Tok::String => {
                let value = self.string_bytes()?;
                let ty = self.opt_colon_type()?;
                Ok(Attribute::String { value, ty })
            }
            Tok::LBracket => {
                self.bump();
                let mut v = Vec::new();
                if !self.consume_if(Tok::RBracket) {
                    loop {
                        v.push(self.parse_attribute()?);
                        if !self.consume_if(Tok::Comma) {
                            break;
                        }
                    }
                    self.expect(Tok::RBracket, "']' to end the array")?;
                }
                Ok(Attribute::Array(v))
            }
            Tok::LBrace => Ok(Attribute::Dict(self.parse_dict_attr()?)),
            Tok::AtId => {
                let root = self.parse_symbol_name()?;
                let mut nested = Vec::new();
                while self.at(Tok::Colon) && self.peek2().kind == Tok::Colon {
                    let b = self.src.as_bytes();
                    // `::` must be adjacent.
                    if b.get(self.tok.span.end as usize) != Some(&b':') {
                        break;
                    }
                    self.bump();
                    self.bump();
                    nested.push(self.parse_symbol_name()?);
                }
                Ok(Attribute::SymbolRef { root, nested })
            }
            Tok::HashId => self.parse_hash_attr(),
            Tok::ExclId | Tok::LParen => Ok(Attribute::Type(self.parse_type()?)),
            Tok::BareId => {
                let kw = self.peek_text();
                match kw {
                    "true" | "false" => {
                        self.bump();
                        Ok(Attribute::Bool(kw == "true"))
                    }
                    "unit" => {
                        self.bump();
                        Ok(Attribute::Unit)
                    }
                    "dense" | "dense_resource" | "sparse" => {
                        let start = self.tok.span.end as usize;
                        if self.src.as_bytes().get(start) != Some(&b'<') {
                            return Err(self.error_expected("'<' after dense"));
                        }
                        let kw_span = self.tok.span;
                        let end = self.scan_balanced(start)?;
                        let body = self.src[start + 1..end - 1].to_string();
                        self.reset(end);
                        self.parse_colon()?;
                        let ty = self.parse_type()?;
                        super::literals::check_elements_attr(
                            self.src,
                            kw,
                            start + 1,
                            end - 1,
                            &ty,
                            kw_span,
                        )?;
                        Ok(Attribute::Elements {
                            kind: kw.to_string(),
                            body,
                            ty,
                        })
                    }
                    "array" => self.parse_dense_array(),
                    "affine_map" => {
                        self.bump();
                        self.parse_less()?;
                        let m = self.parse_affine_map_body()?;
                        self.parse_greater()?;
                        Ok(Attribute::AffineMap(m))
                    }
                    "affine_set" => {
                        self.bump();
                        self.parse_less()?;
                        let s = self.parse_integer_set_body()?;
                        self.parse_greater()?;
                        Ok(Attribute::IntegerSet(s))
                    }
                    "strided" => self.parse_strided(),
                    "loc" => Ok(Attribute::Location(self.parse_location()?)),
                    "distinct" => {
                        let start = self.tok.span.start as usize;
                        self.bump();
                        self.parse_lsquare()?;
                        let id = self.parse_integer()?;
                        if !self.at(Tok::RBracket) {
                            return Err(self.error_expected("']'"));
                        }
                        let lt = self.tok.span.end as usize;
                        if self.src.as_bytes().get(lt) != Some(&b'<') {
                            return Err(self.error_expected("'<' after distinct[N]"));
                        }
                        let end = self.scan_balanced(lt)?;
                        // The referenced attribute, when memplan can read it: an id used
                        // again must name the same attribute (as MLIR's parser checks).
                        self.reset(lt);
                        self.bump();
                        let inner = match self.parse_attribute() {
                            Ok(a) if self.at(Tok::Greater) && self.tok.span.end as usize == end => {
                                Some(a.to_string())
                            }
                            _ => None,
                        };
                        match self.distinct_defs.get(&id) {
                            Some(Some(prev)) if inner.as_ref().is_some_and(|a| a != prev) => {
                                return Err(Diagnostic::new(
                                    Span::new(start, end),
                                    format!(
                                        "referenced attribute does not match previous definition: {prev}"
                                    ),
                                ));
                            }
                            Some(_) => {}
                            None => {
                                self.distinct_defs.insert(id, inner);
                            }
                        }
                        self.reset(end);
                        Ok(Attribute::Opaque(self.src[start..end].to_string()))
                    }
                    _ if super::types::is_type_keyword(kw) => {
                        Ok(Attribute::Type(self.parse_type()?))
                    }
                    _ => Err(self.error_expected("attribute value")),
                }
            }
            _ => Err(self.error_expected("attribute value")),
        }
    }

    fn parse_hash_attr(&mut self) -> PResult<Attribute> {
        let name = self.peek_text();
        let span = self.tok.span;
        if let Some(a) = self.attr_aliases.get(name) {
            let a = a.clone();
            self.bump();
            return Ok(a);
        }
        let end = span.end as usize;
        let has_body = self.src.as_bytes().get(end) == Some(&b'<');
        if !has_body && !name.contains('.') {
            return Err(Diagnostic::new(
                span,
                format!("undefined symbol alias id '{}'", &name[1..]),
            ));
        }
        let stop = if has_body {
            self.scan_balanced(end)?
        } else {
            end
        };
        let text = self.src[span.start as usize..stop].to_string();
        self.reset(stop);
        Ok(Attribute::Opaque(text))
    }

    fn parse_dense_array(&mut self) -> PResult<Attribute> {
        self.bump();
        self.parse_less()?;
        let elem = self.parse_type()?;
        let is_float = elem.is_float();
        if !is_float && !elem.is_integer() {
            return Err(self.error_here("expected integer or float type in dense array"));
        }
        // `i1` of any signedness (MLIR's `isInteger(1)`).
        let is_i1 = matches!(elem.kind(), TypeKind::Integer { width: 1, .. });
        if !is_i1 && elem.bit_width().is_some_and(|w| !w.is_multiple_of(8)) {
            return Err(self.error_here("element type bitwidth must be a multiple of 8"));
        }
        let mut ints = Vec::new();
        let mut floats = Vec::new();
        if self.consume_if(Tok::Colon) {
            loop {
                if self.peek_keyword("true") || self.peek_keyword("false") {
                    // as MLIR's dense array parser: bool literals are for i1 only
                    if is_float {
                        return Err(self.error_here("expected floating point literal"));
                    }
                    if !is_i1 {
                        return Err(
                            self.error_here("expected i1 type for 'true' or 'false' values")
                        );
                    }
                    let b = self.peek_text() == "true";
                    self.bump();
                    ints.push(i64::from(b));
                } else {
                    let neg = self.consume_if(Tok::Minus);
                    let span = self.tok.span;
                    if self.tok.kind == Tok::Integer {
                        if is_i1 {
                            return Err(
                                self.error_here("expected 'true' or 'false' values for i1 type")
                            );
                        }
                        if is_float && !self.peek_text().starts_with("0x") {
                            return Err(self.error_here(
                                "unexpected decimal integer literal for a floating point value",
                            ));
                        }
                    }
                    match self.tok.kind {
                        // (A float element's integer token is hexadecimal: not read here.)
                        Tok::Integer if !is_float => {
                            let v = match small_decimal(self.peek_text()) {
                                Some(v) => i128::from(v),
                                None => self.int_literal()?,
                            };
                            let v = if neg { -v } else { v };
                            self.bump();
                            let iv = i64::try_from(v)
                                .map_err(|_| Diagnostic::new(span, "integer value too large"))?;
                            ints.push(iv);
                        }
                        Tok::Float if is_float => {
                            let v: f64 = self
                                .peek_text()
                                .parse()
                                .map_err(|_| self.error_here("invalid float"))?;
                            self.bump();
                            floats.push(if neg { -v } else { v });
                        }
                        _ => return Err(self.error_expected("dense array element")),
                    }
                }
                if !self.consume_if(Tok::Comma) {
                    break;
                }
            }
        }
        self.parse_greater()?;
        let values = if is_float {
            DenseArrayValues::Float(floats)
        } else {
            ints.shrink_to_fit();
            DenseArrayValues::Int(ints)
        };
        Ok(Attribute::DenseArray { elem, values })
    }

    fn parse_strided(&mut self) -> PResult<Attribute> {
        self.bump();
        self.parse_less()?;
        let mut strides = Vec::new();
        self.parse_comma_separated_list(Delimiter::Square, &mut |p| {
            strides.push(p.parse_integer_or_question()?);
            Ok(())
        })?;
        let mut offset = 0;
        if self.consume_if(Tok::Comma) {
            self.parse_keyword("offset")?;
            self.parse_colon()?;
            offset = self.parse_integer_or_question()?;
        }
        self.parse_greater()?;
        Ok(Attribute::Strided { strides, offset })
    }

    // ===== locations =====

    /// `loc(...)`; returns [`Location::Unknown`] when locations are dropped.
    pub fn parse_location(&mut self) -> PResult<Location> {
        self.parse_keyword("loc")?;
        self.parse_lparen()?;
        let l = self.parse_location_instance()?;
        self.parse_rparen()?;
        Ok(if self.opts.keep_locations {
            l
        } else {
            Location::Unknown
        })
    }

    fn parse_location_instance(&mut self) -> PResult<Location> {
        self.enter()?;
        let r = self.parse_location_inner();
        self.leave();
        r
    }

    fn parse_location_inner(&mut self) -> PResult<Location> {
        match self.tok.kind {
            Tok::HashId => {
                let name = self.peek_text().to_string();
                let span = self.tok.span;
                self.bump();
                if let Some(Attribute::Location(l)) = self.attr_aliases.get(&name) {
                    return Ok(l.clone());
                }
                if self.attr_aliases.contains_key(&name) {
                    return Err(Diagnostic::new(
                        span,
                        "expected location alias to refer to a location",
                    ));
                }
                self.loc_refs.push((name.clone(), span));
                Ok(Location::Alias(name))
            }
            Tok::String => {
                let s = self.parse_string()?;
                if self.consume_if(Tok::Colon) {
                    let line = self.parse_u32()?;
                    let mut col = None;
                    if self.consume_if(Tok::Colon) {
                        col = Some(self.parse_u32()?);
                    }
                    let mut end = None;
                    if self.parse_optional_keyword("to") {
                        let el = if self.at(Tok::Integer) {
                            Some(self.parse_u32()?)
                        } else {
                            None
                        };
                        self.parse_colon()?;
                        end = Some((el, self.parse_u32()?));
                    }
                    return Ok(Location::File {
                        file: s,
                        line,
                        col,
                        end,
                    });
                }
                let mut child = None;
                if self.consume_if(Tok::LParen) {
                    child = Some(Box::new(self.parse_location_instance()?));
                    self.parse_rparen()?;
                }
                Ok(Location::Name { name: s, child })
            }
            Tok::BareId => match self.peek_text() {
                "unknown" => {
                    self.bump();
                    Ok(Location::Unknown)
                }
                "callsite" => {
                    self.bump();
                    self.parse_lparen()?;
                    let callee = self.parse_location_instance()?;
                    self.parse_keyword("at")?;
                    let caller = self.parse_location_instance()?;
                    self.parse_rparen()?;
                    Ok(Location::CallSite {
                        callee: Box::new(callee),
                        caller: Box::new(caller),
                    })
                }
                "fused" => {
                    self.bump();
                    let mut metadata = None;
                    if self.consume_if(Tok::Less) {
                        metadata = Some(Box::new(self.parse_attribute()?));
                        self.parse_greater()?;
                    }
                    let mut locs = Vec::new();
                    self.parse_comma_separated_list(Delimiter::Square, &mut |p| {
                        locs.push(p.parse_location_instance()?);
                        Ok(())
                    })?;
                    Ok(Location::Fused { metadata, locs })
                }
                _ => Err(self.error_expected("location instance")),
            },
            _ => Err(self.error_expected("location instance")),
        }
    }

    fn parse_u32(&mut self) -> PResult<u32> {
        if !self.at(Tok::Integer) {
            return Err(self.error_expected("integer"));
        }
        let v = self.int_literal()?;
        self.bump();
        u32::try_from(v).map_err(|_| self.error_here("value out of range"))
    }

    // ===== affine =====

    fn parse_dim_sym_ids(
        &mut self,
        names: &mut HashMap<String, AffineExpr>,
    ) -> PResult<(u32, u32)> {
        let mut nd = 0u32;
        let mut ns = 0u32;
        self.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
            let span = p.tok.span;
            let n = p.parse_keyword_any("dimension identifier")?;
            if names.insert(n.to_string(), AffineExpr::Dim(nd)).is_some() {
                return Err(Diagnostic::new(
                    span,
                    format!("redefinition of identifier '{n}'"),
                ));
            }
            nd += 1;
            Ok(())
        })?;
        if self.at(Tok::LBracket) {
            self.parse_comma_separated_list(Delimiter::Square, &mut |p| {
                let span = p.tok.span;
                let n = p.parse_keyword_any("symbol identifier")?;
                if names
                    .insert(n.to_string(), AffineExpr::Symbol(ns))
                    .is_some()
                {
                    return Err(Diagnostic::new(
                        span,
                        format!("redefinition of identifier '{n}'"),
                    ));
                }
                ns += 1;
                Ok(())
            })?;
        }
        Ok((nd, ns))
    }

    /// The inside of `affine_map<...>`: `(d0, d1)[s0] -> (exprs)`.
    pub fn parse_affine_map_body(&mut self) -> PResult<AffineMap> {
        let mut names = HashMap::new();
        let (nd, ns) = self.parse_dim_sym_ids(&mut names)?;
        self.parse_arrow()?;
        let mut results = Vec::new();
        self.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
            results.push(p.parse_affine_expr(&mut AffineNames::Named(&names))?);
            Ok(())
        })?;
        Ok(AffineMap {
            num_dims: nd,
            num_symbols: ns,
            results,
        })
    }

    /// The inside of `affine_set<...>`: `(d0)[s0] : (d0 - s0 >= 0, d0 == 0)`.
    pub fn parse_integer_set_body(&mut self) -> PResult<IntegerSet> {
        let mut names = HashMap::new();
        let (nd, ns) = self.parse_dim_sym_ids(&mut names)?;
        self.parse_colon()?;
        let mut constraints = Vec::new();
        self.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
            let lhs = p.parse_affine_expr(&mut AffineNames::Named(&names))?;
            let (kind, rhs) = if p.at(Tok::Greater) && p.peek2().kind == Tok::Equal {
                p.bump();
                p.bump();
                (0, p.parse_affine_expr(&mut AffineNames::Named(&names))?)
            } else if p.at(Tok::Less) && p.peek2().kind == Tok::Equal {
                p.bump();
                p.bump();
                (1, p.parse_affine_expr(&mut AffineNames::Named(&names))?)
            } else if p.at(Tok::Equal) && p.peek2().kind == Tok::Equal {
                p.bump();
                p.bump();
                (2, p.parse_affine_expr(&mut AffineNames::Named(&names))?)
            } else {
                return Err(p.error_expected("'>=', '<=' or '==' in affine constraint"));
            };
            let is_zero = rhs == AffineExpr::Const(0);
            constraints.push(match kind {
                0 => (if is_zero { lhs } else { lhs - rhs }, false),
                1 => (rhs - lhs, false),
                _ => (if is_zero { lhs } else { lhs - rhs }, true),
            });
            Ok(())
        })?;
        Ok(IntegerSet {
            num_dims: nd,
            num_symbols: ns,
            constraints,
        })
    }

    pub(crate) fn parse_affine_expr_ssa(&mut self, ctx: &mut SsaAffineCtx) -> PResult<AffineExpr> {
        self.parse_affine_expr(&mut AffineNames::Ssa(ctx))
    }

    /// An affine expression over SSA ids (`%i + symbol(%n) * 2`); dims/symbols go to `dims`/`syms`.
    pub fn parse_affine_expr_of_ssa_ids(
        &mut self,
        dims: &mut Vec<UnresolvedOperand>,
        syms: &mut Vec<UnresolvedOperand>,
    ) -> PResult<AffineExpr> {
        let mut ctx = SsaAffineCtx {
            dims: std::mem::take(dims),
            syms: std::mem::take(syms),
        };
        let r = self.parse_affine_expr(&mut AffineNames::Ssa(&mut ctx));
        *dims = ctx.dims;
        *syms = ctx.syms;
        r
    }

    fn parse_affine_expr(&mut self, names: &mut AffineNames<'_>) -> PResult<AffineExpr> {
        self.enter()?;
        let mut lhs = self.parse_affine_term(names)?;
        loop {
            if self.consume_if(Tok::Plus) {
                let r = self.parse_affine_term(names)?;
                lhs = lhs + r;
            } else if self.consume_if(Tok::Minus) {
                let r = self.parse_affine_term(names)?;
                lhs = lhs - r;
            } else {
                break;
            }
        }
        self.leave();
        Ok(lhs)
    }

    fn parse_affine_term(&mut self, names: &mut AffineNames<'_>) -> PResult<AffineExpr> {
        let mut lhs = self.parse_affine_primary(names)?;
        loop {
            let op = if self.at(Tok::Star) {
                0
            } else if self.peek_keyword("floordiv") {
                1
            } else if self.peek_keyword("ceildiv") {
                2
            } else if self.peek_keyword("mod") {
                3
            } else {
                break;
            };
            let op_span = self.current_span();
            self.bump();
            let r = self.parse_affine_primary(names)?;
            if op == 0 && lhs.has_dim() && r.has_dim() {
                return Err(crate::Diagnostic::new(
                    op_span,
                    "non-affine expression: at least one of the multiply operands has to be either a constant or symbolic",
                ));
            }
            if op != 0 && r.has_dim() {
                let name = ["", "floordiv", "ceildiv", "mod"][op];
                return Err(crate::Diagnostic::new(
                    op_span,
                    format!("non-affine expression: right operand of {name} has to be either a constant or symbolic"),
                ));
            }
            let (a, b) = (Box::new(lhs), Box::new(r));
            lhs = match op {
                0 => AffineExpr::Mul(a, b),
                1 => AffineExpr::FloorDiv(a, b),
                2 => AffineExpr::CeilDiv(a, b),
                _ => AffineExpr::Mod(a, b),
            };
        }
        Ok(lhs)
    }

    fn parse_affine_primary(&mut self, names: &mut AffineNames<'_>) -> PResult<AffineExpr> {
        match self.tok.kind {
            Tok::LParen => {
                self.bump();
                let e = self.parse_affine_expr(names)?;
                self.parse_rparen()?;
                Ok(e)
            }
            Tok::Minus => {
                self.bump();
                self.enter()?;
                let e = self.parse_affine_primary(names)?;
                self.leave();
                Ok(-e)
            }
            Tok::Integer => {
                let v = self.int_literal()?;
                self.bump();
                i64::try_from(v)
                    .map(AffineExpr::Const)
                    .map_err(|_| self.error_here("constant too large for affine expression"))
            }
            Tok::BareId => {
                let span = self.tok.span;
                let n = self.peek_text();
                match names {
                    AffineNames::Named(map) => {
                        let e = map.get(n).cloned().ok_or_else(|| {
                            Diagnostic::new(span, format!("use of undeclared identifier '{n}'"))
                        })?;
                        self.bump();
                        Ok(e)
                    }
                    AffineNames::Ssa(ctx) => {
                        if n != "symbol" {
                            return Err(Diagnostic::new(
                                span,
                                "expected SSA value or 'symbol(...)' in affine expression",
                            ));
                        }
                        self.bump();
                        self.parse_lparen()?;
                        let o = self.parse_operand()?;
                        self.parse_rparen()?;
                        let i = match ctx.syms.iter().position(|x| {
                            self.operand_name(x) == self.operand_name(&o) && x.number == o.number
                        }) {
                            Some(i) => i,
                            None => {
                                ctx.syms.push(o);
                                ctx.syms.len() - 1
                            }
                        };
                        Ok(AffineExpr::Symbol(i as u32))
                    }
                }
            }
            Tok::PercentId => {
                let AffineNames::Ssa(ctx) = names else {
                    return Err(self.error_expected("affine expression"));
                };
                let o = self.parse_operand()?;
                let i = match ctx.dims.iter().position(|x| {
                    self.operand_name(x) == self.operand_name(&o) && x.number == o.number
                }) {
                    Some(i) => i,
                    None => {
                        ctx.dims.push(o);
                        ctx.dims.len() - 1
                    }
                };
                Ok(AffineExpr::Dim(i as u32))
            }
            _ => Err(self.error_expected("affine expression")),
        }
    }
}
