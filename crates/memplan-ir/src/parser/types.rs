//! Type parsing: builtin types, function types, `!alias` and `!dialect.type<...>` (verbatim).

use super::{PResult, Parser};
use crate::attrs::Attribute;
use crate::diag::{Diagnostic, Span};
use crate::lexer::{scan_string, skip_trivia, Tok};
use crate::types::{FloatKind, Signedness, Type, TypeKind, DYNAMIC};

impl<'a> Parser<'a> {
    /// A type.
    pub fn parse_type(&mut self) -> PResult<Type> {
        match self.parse_optional_type()? {
            Some(t) => Ok(t),
            None => Err(self.error_expected("type")),
        }
    }

    /// True if the current token can start a type.
    pub fn at_type(&self) -> bool {
        match self.tok.kind {
            Tok::ExclId | Tok::LParen => true,
            Tok::BareId => is_type_keyword(self.peek_text()),
            _ => false,
        }
    }

    /// A type if one starts here.
    pub fn parse_optional_type(&mut self) -> PResult<Option<Type>> {
        if !self.at_type() {
            return Ok(None);
        }
        // Types repeat a lot (every generic op spells its function type): look the exact
        // source text up first, and intern what we parse so equal types share one handle.
        let start = self.current_pos();
        let extent = scan_type_extent(self.src.as_bytes(), start);
        if let Some(end) = extent {
            if let Some(t) = self.type_cache.get(&self.src[start..end]) {
                let t = t.clone();
                self.reset(end);
                return Ok(Some(t));
            }
        }
        self.enter()?;
        let t = self.parse_type_inner();
        self.leave();
        let t = self.intern_type(t?);
        if let Some(end) = extent {
            let next = self.current_pos();
            let b = self.src.as_bytes();
            if next >= end && b[end..next].iter().all(|c| c.is_ascii_whitespace()) {
                self.type_cache.insert(&self.src[start..end], t.clone());
            }
        }
        Ok(Some(t))
    }

    /// The shared handle for a type equal to `t`.
    fn intern_type(&mut self, t: Type) -> Type {
        if let Some(x) = self.type_interner.get(&t) {
            return x.clone();
        }
        self.type_interner.insert(t.clone());
        t
    }

    /// `: type`
    pub fn parse_colon_type(&mut self) -> PResult<Type> {
        self.parse_colon()?;
        self.parse_type()
    }
    /// One or more comma-separated types.
    pub fn parse_type_list(&mut self) -> PResult<Vec<Type>> {
        let mut v = vec![self.parse_type()?];
        while self.at(Tok::Comma) {
            self.bump();
            v.push(self.parse_type()?);
        }
        Ok(v)
    }
    /// `: t1, t2, ...`
    pub fn parse_colon_type_list(&mut self) -> PResult<Vec<Type>> {
        self.parse_colon()?;
        self.parse_type_list()
    }
    /// `: t1, t2` if a colon is present, else an empty list.
    pub fn parse_optional_colon_type_list(&mut self) -> PResult<Vec<Type>> {
        if self.at(Tok::Colon) {
            self.parse_colon_type_list()
        } else {
            Ok(Vec::new())
        }
    }
    /// `(t1, t2)` (possibly empty).
    pub fn parse_paren_type_list(&mut self) -> PResult<Vec<Type>> {
        self.parse_lparen()?;
        if self.consume_if(Tok::RParen) {
            return Ok(Vec::new());
        }
        let v = self.parse_type_list()?;
        self.parse_rparen()?;
        Ok(v)
    }
    /// Function results after `->`: one type, or a parenthesised (possibly empty) list.
    pub fn parse_function_result_types(&mut self) -> PResult<Vec<Type>> {
        if self.at(Tok::LParen) {
            self.parse_paren_type_list()
        } else {
            Ok(vec![self.parse_type()?])
        }
    }
    /// `-> results` if an arrow is present, else no results.
    pub fn parse_optional_arrow_type_list(&mut self) -> PResult<Vec<Type>> {
        if self.consume_if(Tok::Arrow) {
            self.parse_function_result_types()
        } else {
            Ok(Vec::new())
        }
    }
    /// `(inputs) -> results`, returned as the two lists.
    pub fn parse_function_type(&mut self) -> PResult<(Vec<Type>, Vec<Type>)> {
        let ins = self.parse_paren_type_list()?;
        self.parse_arrow()?;
        let outs = self.parse_function_result_types()?;
        Ok((ins, outs))
    }

    fn parse_type_inner(&mut self) -> PResult<Type> {
        match self.tok.kind {
            Tok::LParen => {
                let (ins, outs) = self.parse_function_type()?;
                Ok(Type::function(ins, outs))
            }
            Tok::ExclId => self.parse_excl_type(),
            _ => {
                let kw = self.peek_text();
                let span = self.tok.span;
                self.bump();
                self.parse_keyword_type(kw, span)
            }
        }
    }

    fn parse_excl_type(&mut self) -> PResult<Type> {
        let name = self.peek_text();
        let span = self.tok.span;
        if let Some(t) = self.type_aliases.get(name) {
            let t = t.clone();
            self.bump();
            return Ok(t);
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
        if name == "!llvm.ptr" && has_body {
            // LLVM pointers are opaque since LLVM 17: the only parameter is an address space.
            let body = &self.src[end + 1..stop - 1];
            let lead = body.len() - body.trim_start().len();
            if body.trim().parse::<u32>().is_err() {
                return Err(Diagnostic::new(
                    Span::at(end + 1 + lead),
                    "expected integer value",
                ));
            }
        }
        if name == "!gpu.mma_matrix" && has_body {
            if let Some(msg) = mma_matrix_error(&self.src[end + 1..stop - 1]) {
                return Err(Diagnostic::new(span, msg));
            }
        }
        if name == "!amdgpu.tdm_gather_base" && has_body {
            if let Some(msg) = tdm_gather_base_error(&self.src[end + 1..stop - 1]) {
                return Err(Diagnostic::new(span, msg));
            }
        }
        let text = tidy_dialect_text(&self.src[span.start as usize..stop]);
        self.reset(stop);
        Ok(Type::new(TypeKind::Opaque(text)))
    }

    /// Scans a balanced `<...>` (also `(`, `[`, `{` nested, strings, `->`) starting at `start`
    /// (which must be `<`); returns the offset after the closing `>`.
    pub(crate) fn scan_balanced(&self, start: usize) -> PResult<usize> {
        let b = self.src.as_bytes();
        let mut stack: Vec<u8> = Vec::new();
        let mut p = start;
        while p < b.len() {
            let c = b[p];
            match c {
                b'<' | b'(' | b'[' | b'{' => {
                    if stack.len() >= super::MAX_DEPTH as usize {
                        return Err(Diagnostic::new(Span::at(p), "nesting too deep"));
                    }
                    stack.push(match c {
                        b'<' => b'>',
                        b'(' => b')',
                        b'[' => b']',
                        _ => b'}',
                    });
                }
                b'>' | b')' | b']' | b'}' => {
                    if stack.pop() != Some(c) {
                        return Err(Diagnostic::new(
                            Span::new(p, p + 1),
                            format!("unbalanced '{}' in dialect symbol body", c as char),
                        ));
                    }
                    if stack.is_empty() {
                        return Ok(p + 1);
                    }
                }
                b'-' if b.get(p + 1) == Some(&b'>') => p += 1,
                b'"' => match scan_string(b, p) {
                    Some(e) => {
                        p = e;
                        continue;
                    }
                    None => {
                        return Err(Diagnostic::new(
                            Span::at(p),
                            "unterminated string in dialect symbol body",
                        ))
                    }
                },
                _ => {}
            }
            p += 1;
        }
        Err(Diagnostic::new(
            Span::at(start),
            "unbalanced '<' in dialect symbol body: reached the end of the input",
        ))
    }

    fn parse_keyword_type(&mut self, kw: &'a str, span: Span) -> PResult<Type> {
        if let Some(k) = FloatKind::from_name(kw) {
            return Ok(Type::float(k));
        }
        if let Some((sg, w)) = int_type_width(kw) {
            let width = w.ok_or_else(|| Diagnostic::new(span, "invalid integer width"))?;
            return Ok(Type::new(TypeKind::Integer {
                width,
                signedness: sg,
            }));
        }
        match kw {
            "index" => Ok(Type::index()),
            "none" => Ok(Type::none()),
            "complex" => {
                self.parse_less()?;
                let e = self.parse_type()?;
                self.parse_greater()?;
                if !matches!(e.kind(), TypeKind::Integer { .. } | TypeKind::Float(_)) {
                    return Err(Diagnostic::new(span, "invalid element type for complex"));
                }
                Ok(Type::new(TypeKind::Complex(e)))
            }
            "tuple" => {
                self.parse_less()?;
                let mut v = Vec::new();
                if !self.at(Tok::Greater) {
                    v = self.parse_type_list()?;
                }
                self.parse_greater()?;
                Ok(Type::new(TypeKind::Tuple(v)))
            }
            "vector" => {
                self.parse_less()?;
                let (shape, scalable) = self.parse_dims(false, true)?;
                let elem = self.parse_type()?;
                self.parse_greater()?;
                if shape.iter().any(|&d| d <= 0) {
                    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
                    return Err(Diagnostic::new(
                        span,
                        format!(
                            "vector types must have positive constant sizes but got {}",
                            dims.join(", ")
                        ),
                    ));
                }
                if !valid_vector_elem(&elem) {
                    return Err(Diagnostic::new(
                        span,
                        "failed to verify 'elementType': VectorElementTypeInterface instance",
                    ));
                }
                Ok(Type::new(TypeKind::Vector {
                    shape,
                    scalable,
                    elem,
                }))
            }
            "tensor" => {
                self.parse_less()?;
                if self.unranked_prefix()? {
                    let elem = self.parse_type()?;
                    self.parse_greater()?;
                    check_tensor_elem(&elem, span)?;
                    return Ok(Type::new(TypeKind::UnrankedTensor { elem }));
                }
                let (shape, _) = self.parse_dims(true, false)?;
                let elem = self.parse_type()?;
                check_tensor_elem(&elem, span)?;
                let encoding = if self.consume_if(Tok::Comma) {
                    Some(self.parse_attribute()?)
                } else {
                    None
                };
                self.parse_greater()?;
                Ok(Type::new(TypeKind::RankedTensor {
                    shape,
                    elem,
                    encoding,
                }))
            }
            "memref" => {
                self.parse_less()?;
                if self.unranked_prefix()? {
                    let elem = self.parse_type()?;
                    let memory_space = if self.consume_if(Tok::Comma) {
                        Some(self.parse_attribute()?)
                    } else {
                        None
                    };
                    self.parse_greater()?;
                    check_memref_elem(&elem, span)?;
                    check_memory_space(memory_space.as_ref(), span)?;
                    let memory_space = memory_space.filter(|a| !is_default_space(a));
                    return Ok(Type::new(TypeKind::UnrankedMemRef { elem, memory_space }));
                }
                let (shape, _) = self.parse_dims(true, false)?;
                let elem = self.parse_type()?;
                check_memref_elem(&elem, span)?;
                let mut layout = None;
                let mut memory_space = None;
                while self.consume_if(Tok::Comma) {
                    let aspan = self.tok.span;
                    let a = self.parse_attribute()?;
                    let is_layout =
                        matches!(a, Attribute::AffineMap(_) | Attribute::Strided { .. });
                    if is_layout && layout.is_none() && memory_space.is_none() {
                        layout = Some(a);
                    } else if memory_space.is_none() {
                        memory_space = Some(a);
                    } else {
                        return Err(Diagnostic::new(
                            aspan,
                            "unexpected extra attribute in memref type",
                        ));
                    }
                }
                self.parse_greater()?;
                check_memory_space(memory_space.as_ref(), span)?;
                let rank = shape.len();
                match &layout {
                    Some(Attribute::AffineMap(m)) if m.num_dims as usize != rank => {
                        return Err(Diagnostic::new(
                            span,
                            format!(
                                "memref layout mismatch between rank and affine map: {} != {}",
                                rank, m.num_dims
                            ),
                        ));
                    }
                    Some(Attribute::Strided { strides, .. }) if strides.len() != rank => {
                        return Err(Diagnostic::new(
                            span,
                            "expected the number of strides to match the rank",
                        ));
                    }
                    _ => {}
                }
                // An identity affine map is MLIR's default layout: `memref<4xf32,
                // affine_map<(d0) -> (d0)>>` is the same type as `memref<4xf32>`.
                let layout = layout.filter(|a| !is_identity_layout(a));
                // Like MLIR's MemRefType::get: an integer memory space 0 is the default
                // space and is dropped, so `memref<4xf32, 0>` is `memref<4xf32>`.
                let memory_space = memory_space.filter(|a| !is_default_space(a));
                Ok(Type::new(TypeKind::MemRef {
                    shape,
                    elem,
                    layout,
                    memory_space,
                }))
            }
            _ => Err(Diagnostic::new(
                span,
                format!("expected type, found '{kw}'"),
            )),
        }
    }

    /// After `<`: consumes `*x` if present.
    fn unranked_prefix(&mut self) -> PResult<bool> {
        if !self.at(Tok::Star) {
            return Ok(false);
        }
        let b = self.src.as_bytes();
        let p = skip_trivia(b, self.tok.span.end as usize);
        if b.get(p) != Some(&b'x') {
            return Err(Diagnostic::new(
                Span::at(p),
                "expected 'x' in dimension list",
            ));
        }
        self.reset(p + 1);
        Ok(true)
    }

    /// A dimension list `4x?x[8]x` at the current position (raw bytes: `4x8xf32` is one
    /// MLIR token sequence that needs splitting by hand).
    pub fn parse_dims(
        &mut self,
        allow_dynamic: bool,
        allow_scalable: bool,
    ) -> PResult<(Vec<i64>, Vec<bool>)> {
        let b = self.src.as_bytes();
        let mut p = self.tok.span.start as usize;
        let mut shape = Vec::new();
        let mut scalable = Vec::new();
        loop {
            p = skip_trivia(b, p);
            let start = p;
            let mut sc = false;
            let v = match b.get(p) {
                Some(b'?') => {
                    if !allow_dynamic {
                        return Err(Diagnostic::new(
                            Span::new(p, p + 1),
                            "dynamic dimensions are not allowed here",
                        ));
                    }
                    p += 1;
                    DYNAMIC
                }
                Some(c) if c.is_ascii_digit() => read_int(b, &mut p)?,
                Some(b'[') if allow_scalable => {
                    p = skip_trivia(b, p + 1);
                    if !b.get(p).is_some_and(|c| c.is_ascii_digit()) {
                        return Err(Diagnostic::new(
                            Span::at(p),
                            "expected a scalable dimension size",
                        ));
                    }
                    let v = read_int(b, &mut p)?;
                    p = skip_trivia(b, p);
                    if b.get(p) != Some(&b']') {
                        return Err(Diagnostic::new(
                            Span::at(p),
                            "expected ']' after scalable dimension",
                        ));
                    }
                    p += 1;
                    sc = true;
                    v
                }
                _ => break,
            };
            let q = skip_trivia(b, p);
            if b.get(q) != Some(&b'x') {
                return Err(Diagnostic::new(
                    Span::new(start, q),
                    "expected 'x' in dimension list",
                ));
            }
            shape.push(v);
            scalable.push(sc);
            p = q + 1;
        }
        self.reset(p);
        Ok((shape, scalable))
    }
}

fn read_int(b: &[u8], p: &mut usize) -> PResult<i64> {
    let start = *p;
    let mut v: i64 = 0;
    while *p < b.len() && b[*p].is_ascii_digit() {
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(i64::from(b[*p] - b'0')))
            .ok_or_else(|| Diagnostic::new(Span::new(start, *p), "dimension size too large"))?;
        *p += 1;
    }
    Ok(v)
}

fn int_type_width(kw: &str) -> Option<(Signedness, Option<u32>)> {
    let (sg, digits) = if let Some(d) = kw.strip_prefix("si") {
        (Signedness::Signed, d)
    } else if let Some(d) = kw.strip_prefix("ui") {
        (Signedness::Unsigned, d)
    } else if let Some(d) = kw.strip_prefix('i') {
        (Signedness::Signless, d)
    } else {
        return None;
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((sg, digits.parse::<u32>().ok().filter(|w| *w <= 1 << 24)))
}

/// True if a bare identifier starts a builtin type.
pub fn is_type_keyword(s: &str) -> bool {
    FloatKind::from_name(s).is_some()
        || int_type_width(s).is_some()
        || matches!(
            s,
            "index" | "none" | "complex" | "tuple" | "vector" | "tensor" | "memref"
        )
}

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$' | b'-')
}

/// Where the balanced group opened at `p` closes (offset after the closer), ignoring string
/// contents; `None` when unbalanced or too deep.
fn scan_group(b: &[u8], mut p: usize) -> Option<usize> {
    let mut depth = 0usize;
    while p < b.len() {
        match b[p] {
            b'<' | b'(' | b'[' | b'{' => depth += 1,
            b'>' | b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(p + 1);
                }
            }
            b'-' if b.get(p + 1) == Some(&b'>') => p += 1,
            b'"' => p = scan_string(b, p)? - 1,
            _ => {}
        }
        if depth > 64 {
            return None;
        }
        p += 1;
    }
    None
}

/// A conservative guess of where the type starting at `p` ends, used only as a cache key:
/// a keyword or `!name` with an optional `<...>` body, or `(...) -> result`. `None` when
/// unsure. A wrong guess can only miss the cache, since entries are added only for texts
/// that parsed to exactly that extent.
fn scan_type_extent(b: &[u8], p: usize) -> Option<usize> {
    let simple = |mut q: usize| -> Option<usize> {
        let s = q;
        if b.get(q) == Some(&b'!') {
            q += 1;
        }
        while q < b.len() && is_ident_byte(b[q]) {
            q += 1;
        }
        if q == s {
            return None;
        }
        if b.get(q) == Some(&b'<') {
            return scan_group(b, q);
        }
        Some(q)
    };
    if b.get(p) != Some(&b'(') {
        return simple(p);
    }
    let mut q = scan_group(b, p)?;
    while b.get(q).is_some_and(|c| *c == b' ') {
        q += 1;
    }
    if b.get(q..q + 2) != Some(b"->") {
        return None;
    }
    q += 2;
    while b.get(q).is_some_and(|c| *c == b' ') {
        q += 1;
    }
    if b.get(q) == Some(&b'(') {
        let e = scan_group(b, q)?;
        let mut r = e;
        while b.get(r).is_some_and(|c| *c == b' ') {
            r += 1;
        }
        if b.get(r..r + 2) == Some(b"->") {
            return None;
        }
        return Some(e);
    }
    simple(q)
}

/// An integer memory-space attribute equal to 0 (MLIR's default memory space).
fn is_default_space(a: &Attribute) -> bool {
    matches!(
        a,
        Attribute::Integer { value: 0, .. } | Attribute::Bool(false)
    )
}

/// True for an affine-map layout that is the identity (MLIR's default layout).
fn is_identity_layout(a: &Attribute) -> bool {
    matches!(a, Attribute::AffineMap(m) if m.is_identity())
}

/// The dialect namespace of a verbatim `!dialect.name...` / `#dialect.name...` text.
fn dialect_of(text: &str) -> &str {
    let t = text.trim_start_matches(['!', '#']);
    let end = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(t.len());
    if t[end..].starts_with('.') {
        &t[..end]
    } else {
        ""
    }
}

/// MLIR's `TDMGatherBaseType::verify` on the body of `!amdgpu.tdm_gather_base<E, I>`: an
/// element type of 1, 2, 4 or 8 bytes and an `i16` or `i32` index type. Bodies other than
/// an integer or float keyword first are left alone (`None`).
fn tdm_gather_base_error(body: &str) -> Option<String> {
    let (e, i) = body.split_once(',')?;
    let (e, i) = (e.trim(), i.trim());
    let width = |s: &str| -> Option<u32> {
        match s.strip_prefix('i') {
            Some(w) => w.parse().ok(),
            None => crate::types::FloatKind::from_name(s).map(|k| k.bit_width()),
        }
    };
    let we = width(e)?;
    if ![8, 16, 32, 64].contains(&we) {
        return Some(format!(
            "element type must be 1, 2, 4, or 8 bytes wide but type '{e}' is {} bytes wide.",
            we / 8
        ));
    }
    if i != "i16" && i != "i32" {
        return Some(format!(
            "index type must be i16 or i32 but index type is '{i}'."
        ));
    }
    None
}

/// Dialects that MLIR 22's `mlir-opt` registers (their types and attributes are real ones,
/// where those of any other namespace are opaque).
fn is_mlir_dialect(d: &str) -> bool {
    const DIALECTS: &[&str] = &[
        "acc",
        "affine",
        "amdgpu",
        "amx",
        "arith",
        "arm_neon",
        "arm_sme",
        "arm_sve",
        "async",
        "bufferization",
        "cf",
        "complex",
        "dlti",
        "emitc",
        "func",
        "gpu",
        "index",
        "irdl",
        "linalg",
        "llvm",
        "math",
        "memref",
        "ml_program",
        "mpi",
        "nvgpu",
        "nvvm",
        "omp",
        "pdl",
        "pdl_interp",
        "ptr",
        "quant",
        "rocdl",
        "scf",
        "shape",
        "shard",
        "smt",
        "sparse_tensor",
        "spirv",
        "tensor",
        "tosa",
        "transform",
        "ub",
        "vector",
        "wasmssa",
        "x86",
        "x86vector",
        "xegpu",
        "xevm",
    ];
    DIALECTS.contains(&d)
}

/// MLIR's VectorElementTypeInterface: integers, index, floats and pointers.
fn valid_vector_elem(t: &Type) -> bool {
    match t.kind() {
        TypeKind::Integer { .. } | TypeKind::Index | TypeKind::Float(_) => true,
        TypeKind::Opaque(s) => {
            let s = s.trim_start_matches('!');
            s == "llvm.ptr" || s.starts_with("llvm.ptr<") || s.starts_with("ptr.ptr")
        }
        _ => false,
    }
}

/// MLIR's `TensorType::isValidElementType`: any type of a dialect other than builtin, and
/// of builtin ones the scalars, complex and vectors.
fn check_tensor_elem(t: &Type, span: Span) -> PResult<()> {
    match t.kind() {
        TypeKind::RankedTensor { .. }
        | TypeKind::UnrankedTensor { .. }
        | TypeKind::MemRef { .. }
        | TypeKind::UnrankedMemRef { .. }
        | TypeKind::Tuple(_)
        | TypeKind::None
        | TypeKind::Function { .. } => Err(Diagnostic::new(span, "invalid tensor element type")),
        _ => Ok(()),
    }
}

/// MLIR's `BaseMemRefType::isValidElementType`: scalars, complex, vectors, memrefs and
/// types with MemRefElementTypeInterface (of the upstream dialects, only `!ptr.ptr`).
fn check_memref_elem(t: &Type, span: Span) -> PResult<()> {
    let ok = match t.kind() {
        TypeKind::Integer { .. }
        | TypeKind::Index
        | TypeKind::Float(_)
        | TypeKind::Complex(_)
        | TypeKind::Vector { .. }
        | TypeKind::MemRef { .. }
        | TypeKind::UnrankedMemRef { .. } => true,
        TypeKind::Opaque(s) => s.trim_start_matches('!').starts_with("ptr.ptr"),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(Diagnostic::new(span, "invalid memref element type"))
    }
}

/// MLIR's `isSupportedMemorySpace`: integer, string and dictionary attributes, or an
/// attribute of a (registered) dialect other than builtin.
fn check_memory_space(a: Option<&Attribute>, span: Span) -> PResult<()> {
    let ok = match a {
        None => true,
        Some(Attribute::Integer { .. } | Attribute::Bool(_) | Attribute::Dict(_)) => true,
        Some(Attribute::String { .. }) => true,
        Some(Attribute::Opaque(s)) => is_mlir_dialect(dialect_of(s)),
        Some(_) => false,
    };
    if ok {
        Ok(())
    } else {
        Err(Diagnostic::new(span, "unsupported memory space Attribute"))
    }
}

/// MLIR's checks on `!gpu.mma_matrix<RxCxT, "Op">` (the text between the brackets): two
/// dimensions, an element type MMA supports, and an `AOp`/`BOp`/`COp` operand kind. A body
/// this cannot split is left for the opaque type as before.
fn mma_matrix_error(body: &str) -> Option<&'static str> {
    let (shape, kind) = body.rsplit_once(',')?;
    let parts: Vec<&str> = shape.split('x').map(str::trim).collect();
    let (elem, dims) = parts.split_last()?;
    if dims.len() != 2 {
        return Some("MMAMatrixType must have exactly two dimensions");
    }
    if !matches!(*elem, "si8" | "ui8" | "i32" | "f16" | "f32" | "f64") {
        return Some("MMAMatrixType elements must be SI8, UI8, I32, F16, F32, or F64");
    }
    if !matches!(kind.trim(), "\"AOp\"" | "\"BOp\"" | "\"COp\"") {
        return Some("operand expected to be one of AOp, BOp or COp");
    }
    None
}

/// The text of a dialect type with its layout made canonical, so that two spellings of one
/// type compare equal (MLIR compares the parsed types): whitespace runs become one space,
/// none after an opening or before a closing bracket or a comma, exactly one after a comma.
/// String literals are kept as written.
pub(crate) fn tidy_dialect_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    let mut pending_space = false;
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            pending_space = true;
            continue;
        }
        let last = out.chars().last();
        let opens = matches!(last, Some('<' | '(' | '[' | '{') | None);
        let closes = matches!(c, '>' | ')' | ']' | '}' | ',');
        if (last == Some(',') || (pending_space && !opens)) && !closes {
            out.push(' ');
        }
        pending_space = false;
        out.push(c);
        if c == '"' {
            // copy the string literal through its closing quote
            while let Some(d) = chars.next() {
                out.push(d);
                if d == '\\' {
                    if let Some(e) = chars.next() {
                        out.push(e);
                    }
                } else if d == '"' {
                    break;
                }
            }
        }
    }
    out
}
