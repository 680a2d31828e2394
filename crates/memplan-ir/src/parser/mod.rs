//! The MLIR text parser, in the shape of MLIR's `OperationParser` + `OpAsmParser`
//! (mlir/lib/AsmParser/Parser.cpp): a recursive-descent parser over lazily lexed tokens
//! that builds ops straight into a [`Module`]. SSA names live in a stack of scopes (one
//! per region); uses of names not yet defined become placeholders that are resolved when
//! the definition appears (forward references in CFG and graph regions). Block labels are
//! scoped per region the same way. Nesting is bounded by [`MAX_DEPTH`] so that hostile
//! input gives an error, not a stack overflow.
//!
//! The public `parse_*` methods form the API custom-syntax parsers use (see
//! `dialects/func.rs` and `dialects/arith.rs` for worked examples).

mod attrs;
mod literals;
mod types;
pub(crate) use types::tidy_dialect_text;

use std::collections::HashMap;

use crate::affine::AffineMap;
use crate::attrs::{Attribute, Dict, Location};
use crate::diag::{Diagnostic, Span};
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::ident::Ident;
use crate::ir::{BlockId, Module, OpId, OperationState, RegionId, ValueDef, ValueId};
use crate::lexer::{lex, unescape, Tok, Token};
use crate::registry::Registry;
use crate::types::{Type, DYNAMIC};

/// Result of parsing.
pub type PResult<T> = Result<T, Diagnostic>;

/// Maximum nesting of regions, brackets, types and attributes.
pub const MAX_DEPTH: u32 = 512;

/// Parser options.
#[derive(Clone, Copy, Debug)]
pub struct ParseOptions {
    /// Keep `loc(...)` information (otherwise every location is `unknown`).
    pub keep_locations: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            keep_locations: true,
        }
    }
}

/// An SSA use not yet bound to a value: `%name` or `%name#number`. The name is the source
/// text under `span` (see [`Parser::operand_name`]), so parsing an operand allocates nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnresolvedOperand {
    /// Result number (`#n`), 0 if absent.
    pub number: u32,
    /// Where `%name` was written (the `#n` suffix excluded).
    pub span: Span,
}

/// A region or function argument: `%name: type {attrs} loc(...)`.
#[derive(Clone, Debug)]
pub struct Argument {
    /// The SSA name.
    pub name: UnresolvedOperand,
    /// Its type.
    pub ty: Type,
    /// Argument attributes, if written.
    pub attrs: Option<Dict>,
    /// Location, if written.
    pub loc: Option<Location>,
}

/// Delimiters around a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delimiter {
    /// No delimiter.
    None,
    /// `( ... )`, required.
    Paren,
    /// `[ ... ]`, required.
    Square,
    /// `( ... )` if present.
    OptionalParen,
    /// `[ ... ]` if present.
    OptionalSquare,
}

/// Values bound to one SSA name: `count` consecutive ids from `first` (an op's results
/// are allocated contiguously; a block argument is a run of one).
#[derive(Clone, Copy, Debug)]
struct ValueRun {
    first: u32,
    count: u32,
}

impl ValueRun {
    fn get(self, i: u32) -> Option<ValueId> {
        (i < self.count).then(|| ValueId(self.first + i))
    }
}

/// SSA names of one region, keyed by their source text (no allocation per name).
#[derive(Default)]
struct ValueScope<'a> {
    /// The region belongs to an isolated-from-above op: outer names are not visible.
    isolated: bool,
    defs: FxHashMap<&'a str, (ValueRun, Span)>,
    fwd: FxHashMap<(&'a str, u32), (ValueId, Span)>,
}

struct BlockScope<'a> {
    region: RegionId,
    blocks: FxHashMap<&'a str, (BlockId, bool, Span)>,
}

/// The parser. Custom op parsers receive `&mut Parser` and use its `parse_*` methods.
pub struct Parser<'a> {
    src: &'a str,
    tok: Token,
    /// End of the previously consumed token (for "expected ..." error positions).
    prev_end: u32,
    m: Module,
    reg: &'a Registry,
    opts: ParseOptions,
    type_aliases: HashMap<String, Type>,
    type_cache: FxHashMap<&'a str, Type>,
    type_interner: FxHashSet<Type>,
    /// Parsed dictionaries by their exact source text (see `parse_optional_attr_dict`).
    dict_cache: FxHashMap<&'a str, Dict>,
    attr_aliases: HashMap<String, Attribute>,
    scopes: Vec<ValueScope<'a>>,
    /// Emptied scopes kept for reuse: a region's name tables keep their capacity, so the
    /// 100,000th small region allocates nothing.
    scope_pool: Vec<ValueScope<'a>>,
    block_scopes: Vec<BlockScope<'a>>,
    block_scope_pool: Vec<FxHashMap<&'a str, (BlockId, bool, Span)>>,
    /// Emptied per-op scratch lists (result name groups, generic operand lists), reused
    /// so that parsing an op allocates only what the module keeps.
    group_pool: Vec<Vec<(&'a str, u32, Span)>>,
    operand_pool: Vec<Vec<UnresolvedOperand>>,
    dialect_stack: Vec<&'static str>,
    /// Parallel to `dialect_stack`: whether the op whose regions are being parsed is
    /// isolated from above (its regions start a fresh SSA name scope for shadowing checks).
    isolated_stack: Vec<bool>,
    depth: u32,
    loc_refs: Vec<(String, Span)>,
    /// `distinct[N]<attr>` ids seen so far, with the attribute they were given (`None`
    /// where memplan could not read it; printed, so that equal attributes compare equal):
    /// a later `distinct[N]` must repeat the same one.
    pub(crate) distinct_defs: HashMap<i64, Option<String>>,
}

/// Parses a whole file into a module (wrapping top-level ops in an implicit `builtin.module`).
pub fn parse_module(src: &str, reg: &Registry, opts: ParseOptions) -> PResult<Module> {
    let mut p = Parser::new(src, reg, opts);
    // Dense custom-form MLIR spends ~35 bytes per op (including implicit ops such as
    // linalg bodies), generic ~90. Reserving generously avoids copying huge arenas while they
    // grow (a doubling step briefly holds both copies); untouched capacity costs address
    // space, not resident memory.
    p.m.reserve(src.len() / 24, src.len() / 24, src.len() / 120);
    p.parse_top_level()?;
    Ok(p.m)
}

/// The type spelled exactly `src` (no aliases, nothing after it), or `None`.
pub(crate) fn parse_type_str(src: &str) -> Option<Type> {
    let reg = Registry::empty();
    let mut p = Parser::new(src, &reg, ParseOptions::default());
    let t = p.parse_type().ok()?;
    (p.tok.kind == crate::lexer::Tok::Eof).then_some(t)
}

/// The attribute spelled exactly `src` (no aliases, nothing after it), or `None`.
pub(crate) fn parse_attr_str(src: &str) -> Option<crate::Attribute> {
    let reg = Registry::empty();
    let mut p = Parser::new(src, &reg, ParseOptions::default());
    let a = p.parse_attribute().ok()?;
    (p.tok.kind == crate::lexer::Tok::Eof).then_some(a)
}

impl<'a> Parser<'a> {
    fn new(src: &'a str, reg: &'a Registry, opts: ParseOptions) -> Parser<'a> {
        Parser {
            src,
            tok: lex(src.as_bytes(), 0),
            prev_end: 0,
            m: Module::new(),
            reg,
            opts,
            type_aliases: HashMap::new(),
            type_cache: FxHashMap::default(),
            type_interner: FxHashSet::default(),
            dict_cache: FxHashMap::default(),
            attr_aliases: HashMap::new(),
            scopes: Vec::new(),
            scope_pool: Vec::new(),
            block_scopes: Vec::new(),
            block_scope_pool: Vec::new(),
            group_pool: Vec::new(),
            operand_pool: Vec::new(),
            dialect_stack: vec!["builtin"],
            isolated_stack: vec![true],
            depth: 0,
            loc_refs: Vec::new(),
            distinct_defs: HashMap::new(),
        }
    }

    // ===== tokens =====

    /// The current token's kind.
    pub fn peek(&self) -> Tok {
        self.tok.kind
    }
    /// The current token's text.
    pub fn peek_text(&self) -> &'a str {
        self.text(self.tok.span)
    }
    /// The current token's span.
    pub fn current_span(&self) -> Span {
        self.tok.span
    }
    /// Byte offset where the current token starts.
    pub fn current_pos(&self) -> usize {
        self.tok.span.start as usize
    }
    fn text(&self, s: Span) -> &'a str {
        self.src.get(s.start as usize..s.end as usize).unwrap_or("")
    }
    /// The token after the current one.
    pub fn peek2(&self) -> Token {
        lex(self.src.as_bytes(), self.tok.span.end as usize)
    }
    /// Advances one token.
    pub fn bump(&mut self) {
        self.prev_end = self.tok.span.end;
        self.tok = lex(self.src.as_bytes(), self.tok.span.end as usize);
    }
    /// The whole source text (for dialects whose syntax the lexer has no token for).
    pub(crate) fn source(&self) -> &'a str {
        self.src
    }
    /// Moves the cursor to byte offset `pos`.
    pub(crate) fn reset(&mut self, pos: usize) {
        self.prev_end = pos as u32;
        self.tok = lex(self.src.as_bytes(), pos);
    }
    /// True if the current token is `k`.
    pub fn at(&self, k: Tok) -> bool {
        self.tok.kind == k
    }
    /// Consumes the current token if it is `k`.
    pub fn consume_if(&mut self, k: Tok) -> bool {
        if self.at(k) {
            self.bump();
            true
        } else {
            false
        }
    }
    /// Consumes a `k` token or fails with "expected WHAT".
    pub fn expect(&mut self, k: Tok, what: &str) -> PResult<Span> {
        if self.at(k) {
            let s = self.tok.span;
            self.bump();
            Ok(s)
        } else {
            Err(self.error_expected(what))
        }
    }
    /// An error at the current token.
    pub fn error_here(&self, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::new(self.tok.span, msg)
    }
    /// An error "expected WHAT" at the current token.
    pub fn error_expected(&self, what: &str) -> Diagnostic {
        // Like MLIR's `emitWrongTokenError`: when the offending token starts a later line,
        // the thing is missing at the end of the previous line, so point there.
        let (p, t) = (self.prev_end as usize, self.tok.span.start as usize);
        let at = if p < t && self.src.as_bytes()[p..t].contains(&b'\n') {
            Span::at(p)
        } else {
            self.tok.span
        };
        if self.at(Tok::Eof) {
            return Diagnostic::new(
                at,
                format!("expected {what}, but reached the end of the input"),
            );
        }
        let shown: String = self.peek_text().chars().take(40).collect();
        Diagnostic::new(at, format!("expected {what}, found '{shown}'"))
    }
    /// Enters one nesting level (errors past [`MAX_DEPTH`]); pair with [`Parser::leave`].
    pub fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error_here(format!("nesting too deep (more than {MAX_DEPTH} levels)")));
        }
        Ok(())
    }
    /// Leaves one nesting level.
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    // ===== punctuation and keywords (OpAsmParser style) =====

    /// `,`
    pub fn parse_comma(&mut self) -> PResult<()> {
        self.expect(Tok::Comma, "','").map(|_| ())
    }
    /// `,` if present.
    pub fn parse_optional_comma(&mut self) -> bool {
        self.consume_if(Tok::Comma)
    }
    /// `:`
    pub fn parse_colon(&mut self) -> PResult<()> {
        self.expect(Tok::Colon, "':'").map(|_| ())
    }
    /// `=`
    pub fn parse_equal(&mut self) -> PResult<()> {
        self.expect(Tok::Equal, "'='").map(|_| ())
    }
    /// `->`
    pub fn parse_arrow(&mut self) -> PResult<()> {
        self.expect(Tok::Arrow, "'->'").map(|_| ())
    }
    /// `(`
    pub fn parse_lparen(&mut self) -> PResult<()> {
        self.expect(Tok::LParen, "'('").map(|_| ())
    }
    /// `)`
    pub fn parse_rparen(&mut self) -> PResult<()> {
        self.expect(Tok::RParen, "')'").map(|_| ())
    }
    /// `[`
    pub fn parse_lsquare(&mut self) -> PResult<()> {
        self.expect(Tok::LBracket, "'['").map(|_| ())
    }
    /// `]`
    pub fn parse_rsquare(&mut self) -> PResult<()> {
        self.expect(Tok::RBracket, "']'").map(|_| ())
    }
    /// `<`
    pub fn parse_less(&mut self) -> PResult<()> {
        self.expect(Tok::Less, "'<'").map(|_| ())
    }
    /// `>`
    pub fn parse_greater(&mut self) -> PResult<()> {
        self.expect(Tok::Greater, "'>'").map(|_| ())
    }
    /// True if the current token is the bare keyword `kw`.
    pub fn peek_keyword(&self, kw: &str) -> bool {
        self.at(Tok::BareId) && self.peek_text() == kw
    }
    /// Consumes keyword `kw` if present.
    pub fn parse_optional_keyword(&mut self, kw: &str) -> bool {
        if self.peek_keyword(kw) {
            self.bump();
            true
        } else {
            false
        }
    }
    /// Consumes keyword `kw` or fails.
    pub fn parse_keyword(&mut self, kw: &str) -> PResult<()> {
        if self.parse_optional_keyword(kw) {
            Ok(())
        } else {
            Err(self.error_expected(&format!("'{kw}'")))
        }
    }
    /// Consumes any bare keyword and returns it.
    pub fn parse_optional_keyword_any(&mut self) -> Option<&'a str> {
        if self.at(Tok::BareId) {
            let t = self.peek_text();
            self.bump();
            Some(t)
        } else {
            None
        }
    }
    /// Consumes one of `choices` if present.
    pub fn parse_optional_keyword_of(&mut self, choices: &[&str]) -> Option<&'a str> {
        if self.at(Tok::BareId) && choices.contains(&self.peek_text()) {
            self.parse_optional_keyword_any()
        } else {
            None
        }
    }
    /// A bare keyword (any).
    pub fn parse_keyword_any(&mut self, what: &str) -> PResult<&'a str> {
        match self.parse_optional_keyword_any() {
            Some(k) => Ok(k),
            None => Err(self.error_expected(what)),
        }
    }
    /// A string literal, decoded.
    pub fn parse_string(&mut self) -> PResult<String> {
        match self.parse_optional_string()? {
            Some(s) => Ok(s),
            None => Err(self.error_expected("string literal")),
        }
    }
    /// A string literal if present.
    pub fn parse_optional_string(&mut self) -> PResult<Option<String>> {
        if !self.at(Tok::String) {
            return Ok(None);
        }
        let b = self.string_bytes()?;
        Ok(Some(String::from_utf8_lossy(&b).into_owned()))
    }
    /// A string literal as raw (unescaped) bytes.
    pub fn parse_string_bytes(&mut self) -> PResult<Vec<u8>> {
        if !self.at(Tok::String) {
            return Err(self.error_expected("string literal"));
        }
        self.string_bytes()
    }
    fn string_bytes(&mut self) -> PResult<Vec<u8>> {
        let t = self.peek_text();
        let span = self.tok.span;
        let b = unescape(t).map_err(|off| {
            Diagnostic::new(
                Span::at(span.start as usize + off + 1),
                "invalid escape sequence in string",
            )
        })?;
        self.bump();
        Ok(b)
    }
    /// `@name` or `@"name"`, returned without `@`.
    pub fn parse_symbol_name(&mut self) -> PResult<String> {
        match self.parse_optional_symbol_name()? {
            Some(s) => Ok(s),
            None => Err(self.error_expected("symbol name")),
        }
    }
    /// `@name` if present.
    pub fn parse_optional_symbol_name(&mut self) -> PResult<Option<String>> {
        if !self.at(Tok::AtId) {
            return Ok(None);
        }
        let t = &self.peek_text()[1..];
        let s = if t.starts_with('"') {
            String::from_utf8_lossy(
                &unescape(t).map_err(|_| self.error_here("invalid escape in symbol name"))?,
            )
            .into_owned()
        } else {
            t.to_string()
        };
        self.bump();
        Ok(Some(s))
    }
    /// A possibly negative integer literal.
    pub fn parse_integer(&mut self) -> PResult<i64> {
        match self.parse_optional_integer()? {
            Some(v) => Ok(v),
            None => Err(self.error_expected("integer value")),
        }
    }
    /// A possibly negative integer literal, if present.
    pub fn parse_optional_integer(&mut self) -> PResult<Option<i64>> {
        let neg = self.at(Tok::Minus) && self.peek2().kind == Tok::Integer;
        if neg {
            self.bump();
        }
        if !self.at(Tok::Integer) {
            return Ok(None);
        }
        let v = self.int_literal()?;
        let v = if neg { -v } else { v };
        self.bump();
        i64::try_from(v)
            .map(Some)
            .map_err(|_| self.error_here("integer value too large"))
    }
    fn int_literal(&self) -> PResult<i128> {
        let t = self.peek_text();
        let r = if let Some(h) = t.strip_prefix("0x") {
            u128::from_str_radix(h, 16)
                .ok()
                .and_then(|v| i128::try_from(v).ok())
        } else {
            t.parse::<i128>().ok()
        };
        r.ok_or_else(|| self.error_here("integer literal out of range"))
    }
    /// An integer or `?` (returned as [`DYNAMIC`]).
    pub fn parse_integer_or_question(&mut self) -> PResult<i64> {
        if self.consume_if(Tok::Question) {
            Ok(DYNAMIC)
        } else {
            self.parse_integer()
        }
    }

    /// Parses a comma-separated list between `delim`, calling `f` for each element.
    pub fn parse_comma_separated_list(
        &mut self,
        delim: Delimiter,
        f: &mut dyn FnMut(&mut Parser<'a>) -> PResult<()>,
    ) -> PResult<()> {
        let close = match delim {
            Delimiter::None => None,
            Delimiter::Paren => Some((self.expect(Tok::LParen, "'('")?, Tok::RParen)).map(|x| x.1),
            Delimiter::Square => {
                Some((self.expect(Tok::LBracket, "'['")?, Tok::RBracket)).map(|x| x.1)
            }
            Delimiter::OptionalParen => {
                if !self.consume_if(Tok::LParen) {
                    return Ok(());
                }
                Some(Tok::RParen)
            }
            Delimiter::OptionalSquare => {
                if !self.consume_if(Tok::LBracket) {
                    return Ok(());
                }
                Some(Tok::RBracket)
            }
        };
        if let Some(c) = close {
            if self.consume_if(c) {
                return Ok(());
            }
        }
        self.enter()?;
        loop {
            f(self)?;
            if !self.consume_if(Tok::Comma) {
                break;
            }
        }
        self.leave();
        if let Some(c) = close {
            self.expect(c, if c == Tok::RParen { "')'" } else { "']'" })?;
        }
        Ok(())
    }

    // ===== operands =====

    /// `%name` or `%name#n`.
    pub fn parse_operand(&mut self) -> PResult<UnresolvedOperand> {
        match self.parse_optional_operand()? {
            Some(o) => Ok(o),
            None => Err(self.error_expected("SSA operand")),
        }
    }
    /// An operand if the current token is `%...`.
    pub fn parse_optional_operand(&mut self) -> PResult<Option<UnresolvedOperand>> {
        if !self.at(Tok::PercentId) {
            return Ok(None);
        }
        let span = self.tok.span;
        self.bump();
        let mut number = 0;
        if self.at(Tok::HashId) && self.tok.span.start == span.end {
            let t = &self.peek_text()[1..];
            number = t
                .parse::<u32>()
                .map_err(|_| self.error_here("invalid SSA value result number"))?;
            self.bump();
        }
        Ok(Some(UnresolvedOperand { number, span }))
    }
    /// The name of an operand, without `%`.
    pub fn operand_name(&self, u: &UnresolvedOperand) -> &'a str {
        self.text(u.span).get(1..).unwrap_or("")
    }
    /// A possibly empty comma-separated operand list (no delimiters, stops before a non-`%` token).
    pub fn parse_operand_list(&mut self) -> PResult<Vec<UnresolvedOperand>> {
        let mut v = Vec::new();
        if !self.at(Tok::PercentId) {
            return Ok(v);
        }
        loop {
            v.push(self.parse_operand()?);
            if !(self.at(Tok::Comma) && self.peek2().kind == Tok::PercentId) {
                break;
            }
            self.bump();
        }
        Ok(v)
    }
    /// An operand list between delimiters: `(%a, %b)`, `[%i]`.
    pub fn parse_operand_list_delimited(
        &mut self,
        delim: Delimiter,
    ) -> PResult<Vec<UnresolvedOperand>> {
        let mut v = Vec::new();
        self.parse_comma_separated_list(delim, &mut |p| {
            v.push(p.parse_operand()?);
            Ok(())
        })?;
        Ok(v)
    }
    /// Binds an unresolved operand to a value of type `ty` (or a forward-reference placeholder).
    pub fn resolve_operand(&mut self, u: &UnresolvedOperand, ty: &Type) -> PResult<ValueId> {
        let name = self.operand_name(u);
        for s in self.scopes.iter().rev() {
            if let Some((vals, dspan)) = s.defs.get(name) {
                let Some(v) = vals.get(u.number) else {
                    return Err(Diagnostic::new(
                        u.span,
                        format!("reference to invalid result number in '%{name}'"),
                    ));
                };
                let vt = self.m.value_type(v);
                if vt != ty {
                    return Err(Diagnostic::new(
                        u.span,
                        format!("use of value '%{name}' expects different type than prior uses: '{ty}' vs '{vt}'"),
                    )
                    .with_note(Some(*dspan), "prior use here"));
                }
                return Ok(v);
            }
        }
        let key = (name, u.number);
        for s in self.scopes.iter().rev() {
            if let Some(&(v, pspan)) = s.fwd.get(&key) {
                let vt = self.m.value_type(v);
                if vt != ty {
                    return Err(Diagnostic::new(
                        u.span,
                        format!("use of value '%{name}' expects different type than prior uses: '{ty}' vs '{vt}'"),
                    )
                    .with_note(Some(pspan), "prior use here"));
                }
                return Ok(v);
            }
        }
        let v = self.m.create_placeholder(ty.clone());
        match self.scopes.last_mut() {
            Some(s) => {
                s.fwd.insert(key, (v, u.span));
                Ok(v)
            }
            None => Err(Diagnostic::new(
                u.span,
                "SSA value used outside of any region",
            )),
        }
    }
    /// Resolves operands against the same number of types.
    pub fn resolve_operands(
        &mut self,
        us: &[UnresolvedOperand],
        tys: &[Type],
        at: Span,
    ) -> PResult<Vec<ValueId>> {
        if us.len() != tys.len() {
            return Err(Diagnostic::new(
                at,
                format!("{} operands present, but expected {}", us.len(), tys.len()),
            ));
        }
        let mut out = Vec::with_capacity(us.len());
        for (u, t) in us.iter().zip(tys) {
            out.push(self.resolve_operand(u, t)?);
        }
        Ok(out)
    }
    /// Resolves every operand with type `ty`.
    pub fn resolve_operands_same(
        &mut self,
        us: &[UnresolvedOperand],
        ty: &Type,
    ) -> PResult<Vec<ValueId>> {
        us.iter().map(|u| self.resolve_operand(u, ty)).collect()
    }

    /// Binds `name` to `count` consecutive values starting at `first`.
    fn define_values(
        &mut self,
        name: &'a str,
        first: ValueId,
        count: u32,
        span: Span,
    ) -> PResult<()> {
        let vals = ValueRun {
            first: first.0,
            count,
        };
        if !name.as_bytes()[0].is_ascii_digit() {
            for i in 0..count {
                self.m.set_name_hint(ValueId(first.0 + i), Some(name));
            }
        }
        let Some(scope) = self.scopes.last_mut() else {
            return Err(Diagnostic::new(
                span,
                "SSA value defined outside of any region",
            ));
        };
        let mut prev = scope.defs.get(name).map(|(_, p)| *p);
        if prev.is_none() {
            // A name defined in an enclosing region cannot be defined again either: MLIR's
            // parser opens an isolated name scope only for regions parsed with name
            // shadowing enabled, which no op of the dialects memplan reads does (so even a
            // `func.func` body inside a module that names `%0` cannot name `%0` again).
            let n = self.scopes.len();
            prev = self.scopes[..n - 1]
                .iter()
                .rev()
                .find_map(|s| s.defs.get(name).map(|(_, p)| *p));
        }
        if let Some(prev) = prev {
            return Err(
                Diagnostic::new(span, format!("redefinition of SSA value '%{name}'"))
                    .with_note(Some(prev), "previously defined here"),
            );
        }
        let Some(scope) = self.scopes.last_mut() else {
            return Ok(());
        };
        let mut resolved = Vec::new();
        if !scope.fwd.is_empty() {
            // Forward uses `%name#i` of this definition (a use with a result number past the
            // end stays pending and is reported as undeclared when the region closes).
            let mut key = (name, 0u32);
            for i in 0..count {
                key.1 = i;
                if let Some((ph, uspan)) = scope.fwd.remove(&key) {
                    resolved.push((i, ph, uspan));
                }
            }
        }
        for (n, ph, uspan) in resolved {
            let Some(v) = vals.get(n) else {
                return Err(Diagnostic::new(
                    uspan,
                    format!("reference to invalid result number in '%{name}'"),
                ));
            };
            if self.m.value_type(ph) != self.m.value_type(v) {
                return Err(Diagnostic::new(
                    span,
                    format!(
                        "definition of SSA value '%{name}#{n}' has type '{}', but prior uses expect '{}'",
                        self.m.value_type(v),
                        self.m.value_type(ph)
                    ),
                )
                .with_note(Some(uspan), "prior use here"));
            }
            self.m.replace_all_uses(ph, v);
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.defs.insert(name, (vals, span));
        }
        Ok(())
    }

    fn push_scope(&mut self) {
        let isolated = self.isolated_stack.last().copied().unwrap_or(true);
        let mut s = self.scope_pool.pop().unwrap_or_default();
        s.isolated = isolated;
        self.scopes.push(s);
    }

    /// MLIR forbids a region entry argument to shadow a name defined in an enclosing region
    /// (isolated-from-above ops included: see `define_values`).
    fn check_entry_arg_shadowing(&self, a: &Argument) -> PResult<()> {
        let n = self.scopes.len();
        if n == 0 {
            return Ok(());
        }
        let name = self.operand_name(&a.name);
        for s in self.scopes[..n - 1].iter().rev() {
            if let Some((_, prev)) = s.defs.get(name) {
                return Err(Diagnostic::new(
                    a.name.span,
                    format!("region entry argument '%{name}' is already in use"),
                )
                .with_note(Some(*prev), "previously referenced here"));
            }
        }
        Ok(())
    }
    fn pop_scope(&mut self) -> PResult<()> {
        let Some(mut s) = self.scopes.pop() else {
            return Ok(());
        };
        s.defs.clear();
        if s.fwd.is_empty() {
            self.scope_pool.push(s);
            return Ok(());
        }
        let mut fwd: Vec<_> = s.fwd.drain().collect();
        self.scope_pool.push(s);
        fwd.sort_by_key(|(_, (_, sp))| sp.start);
        match self.scopes.last_mut() {
            None => {
                let ((name, n), (_, span)) = &fwd[0];
                let shown = if *n > 0 {
                    format!("%{name}#{n}")
                } else {
                    format!("%{name}")
                };
                Err(Diagnostic::new(
                    *span,
                    format!("use of undeclared SSA value name '{shown}'"),
                ))
            }
            Some(parent) => {
                let mut merges = Vec::new();
                for (k, (ph, sp)) in fwd {
                    match parent.fwd.get(&k) {
                        Some(&(existing, _)) => merges.push((ph, existing, sp, k.0)),
                        None => {
                            parent.fwd.insert(k, (ph, sp));
                        }
                    }
                }
                for (ph, existing, sp, name) in merges {
                    if self.m.value_type(ph) != self.m.value_type(existing) {
                        return Err(Diagnostic::new(
                            sp,
                            format!(
                                "use of value '%{name}' expects different type than prior uses"
                            ),
                        ));
                    }
                    self.m.replace_all_uses(ph, existing);
                }
                Ok(())
            }
        }
    }

    // ===== types, attributes: see types.rs / attrs.rs =====

    // ===== top level =====

    fn parse_top_level(&mut self) -> PResult<()> {
        let holder = self.m.create_region();
        let block = self.m.create_block();
        self.m.append_block(holder, block);
        self.push_scope();
        self.block_scopes.push(BlockScope {
            region: holder,
            blocks: FxHashMap::default(),
        });
        loop {
            match self.tok.kind {
                Tok::Eof => break,
                Tok::HashId | Tok::ExclId if self.peek2().kind == Tok::Equal => {
                    self.parse_alias_def()?
                }
                Tok::FileMetaBegin => self.parse_file_metadata()?,
                _ => {
                    self.parse_operation(block)?;
                }
            }
        }
        self.pop_scope()?;
        self.block_scopes.pop();
        for (name, span) in std::mem::take(&mut self.loc_refs) {
            if !self.m.loc_aliases.contains_key(&name) {
                return Err(Diagnostic::new(
                    span,
                    format!("undefined location alias '{name}'"),
                ));
            }
        }
        let ops: Vec<OpId> = self.m.block_ops(block).collect();
        if ops.len() == 1
            && self.m.op(ops[0]).name == "builtin.module"
            && self.m.results(ops[0]).is_empty()
        {
            self.m.detach_op(ops[0]);
            self.m.top = ops[0];
        } else {
            let body = self.m.body();
            for op in ops {
                self.m.detach_op(op);
                self.m.append_op(body, op);
            }
        }
        Ok(())
    }

    fn parse_alias_def(&mut self) -> PResult<()> {
        let name = self.peek_text().to_string();
        let span = self.tok.span;
        let is_type = self.at(Tok::ExclId);
        if name[1..].contains('.') {
            let what = if is_type { "type" } else { "attribute" };
            return Err(Diagnostic::new(
                span,
                format!("{what} names with a '.' are reserved for dialect-defined names"),
            ));
        }
        self.bump();
        self.bump(); // '='
        let start = self.current_pos();
        if is_type {
            if self.type_aliases.contains_key(&name) {
                return Err(Diagnostic::new(
                    span,
                    format!("redefinition of type alias id '{}'", &name[1..]),
                ));
            }
            let t = self.parse_type()?;
            self.type_aliases.insert(name.clone(), t);
        } else {
            if self.attr_aliases.contains_key(&name) {
                return Err(Diagnostic::new(
                    span,
                    format!("redefinition of attribute alias id '{}'", &name[1..]),
                ));
            }
            let a = self.parse_attribute()?;
            if let Attribute::Location(l) = &a {
                self.m.loc_aliases.insert(name.clone(), l.clone());
            }
            self.attr_aliases.insert(name.clone(), a);
        }
        let end = self.tok.span.start as usize;
        let text = self
            .src
            .get(start..end)
            .unwrap_or("")
            .trim_end()
            .to_string();
        self.m.alias_defs.push((name, text));
        Ok(())
    }

    fn parse_file_metadata(&mut self) -> PResult<()> {
        let start = self.current_pos();
        let Some(rel) = self.src[start..].find("#-}") else {
            return Err(self.error_here("unterminated file metadata dictionary, expected '#-}'"));
        };
        let end = start + rel + 3;
        let text = self.src[start..end].to_string();
        match &mut self.m.file_metadata {
            Some(t) => {
                t.push('\n');
                t.push_str(&text);
            }
            None => self.m.file_metadata = Some(text),
        }
        self.reset(end);
        Ok(())
    }

    // ===== operations =====

    fn parse_operation(&mut self, block: BlockId) -> PResult<OpId> {
        self.enter()?;
        let op_start = self.tok.span;
        let mut groups = self.group_pool.pop().unwrap_or_default();
        if self.at(Tok::PercentId) {
            loop {
                let span = self.expect(Tok::PercentId, "SSA value name")?;
                let name = &self.text(span)[1..];
                let mut count = 1;
                if self.consume_if(Tok::Colon) {
                    let n = self.parse_integer()?;
                    if n < 1 || n > u32::MAX as i64 {
                        return Err(Diagnostic::new(
                            span,
                            "expected a positive number of results",
                        ));
                    }
                    count = n as u32;
                }
                groups.push((name, count, span));
                if !self.consume_if(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::Equal, "'=' after SSA names")?;
        }
        let name_span = self.tok.span;
        let mut st = match self.tok.kind {
            Tok::String => {
                // Registered names borrow the registry's static text (no allocation per op).
                let known = self
                    .peek_text()
                    .strip_prefix('"')
                    .and_then(|t| t.strip_suffix('"'))
                    .filter(|t| !t.contains('\\'))
                    .and_then(|t| self.reg.get(t))
                    .map(|d| d.name);
                let name: Ident = match known {
                    Some(n) => {
                        self.bump();
                        n.into()
                    }
                    None => self.parse_string()?.into(),
                };
                if name.is_empty() {
                    return Err(Diagnostic::new(
                        name_span,
                        "empty operation name is invalid",
                    ));
                }
                self.parse_generic_op_body(name, name_span)?
            }
            Tok::BareId => self.parse_custom_op(name_span)?,
            _ => return Err(self.error_expected("operation name in quotes")),
        };
        if let Some(l) = self.parse_optional_trailing_location()? {
            st.loc = l;
        }
        let declared: u32 = groups.iter().map(|g| g.1).sum();
        if !groups.is_empty() && declared as usize != st.result_types.len() {
            return Err(Diagnostic::new(
                op_start,
                format!(
                    "operation defines {} results but was provided {} to bind",
                    st.result_types.len(),
                    declared
                ),
            ));
        }
        // Custom parsers fill dictionaries with `set`; keep no growth slack per op.
        st.props.0.shrink_to_fit();
        st.attrs.0.shrink_to_fit();
        let op = self.m.create_op(st);
        self.m.op_mut(op).span = op_start;
        self.m.append_op(block, op);
        let mut i = 0usize;
        for &(name, count, span) in &groups {
            let first = self.m.results(op)[i];
            i += count as usize;
            self.define_values(name, first, count, span)?;
        }
        groups.clear();
        self.group_pool.push(groups);
        self.leave();
        Ok(op)
    }

    fn push_dialect_for(&mut self, name: &str) {
        let d = self
            .reg
            .get(name)
            .and_then(|d| d.default_dialect)
            .unwrap_or("");
        self.dialect_stack.push(d);
        let iso = self
            .reg
            .has_trait(name, crate::registry::traits::ISOLATED_FROM_ABOVE);
        self.isolated_stack.push(iso);
    }

    fn parse_custom_op(&mut self, name_span: Span) -> PResult<OperationState> {
        let written = self.peek_text();
        let default = self.dialect_stack.last().copied().unwrap_or("");
        let mut candidates = Vec::new();
        if !default.is_empty() {
            candidates.push(format!("{default}.{written}"));
        }
        if !written.contains('.') {
            candidates.push(format!("builtin.{written}"));
        }
        candidates.push(written.to_string());
        let found = candidates
            .iter()
            .find_map(|c| self.reg.get(c).filter(|d| d.parse.is_some()));
        let Some(def) = found.copied() else {
            return Err(Diagnostic::new(
                name_span,
                format!(
                    "custom op '{written}' is unknown to memplan (no custom parser is registered for it); \
                     write it in generic form, e.g. re-print the input with `mlir-opt --mlir-print-op-generic`"
                ),
            ));
        };
        self.bump();
        let mut st = OperationState::new(def.name);
        self.dialect_stack.push(def.default_dialect.unwrap_or(""));
        self.isolated_stack
            .push(def.has(crate::registry::traits::ISOLATED_FROM_ABOVE));
        let parse = def.parse.expect("filtered above");
        let r = parse(self, &mut st);
        self.dialect_stack.pop();
        self.isolated_stack.pop();
        r?;
        for name in def.inherent {
            if let Some(a) = st.attrs.remove(name) {
                st.props.set(*name, a);
            }
        }
        Ok(st)
    }

    fn parse_generic_op_body(&mut self, name: Ident, name_span: Span) -> PResult<OperationState> {
        let mut st = OperationState::new(name);
        let mut operands = self.operand_pool.pop().unwrap_or_default();
        self.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
            operands.push(p.parse_operand()?);
            Ok(())
        })?;
        if self.consume_if(Tok::LBracket) {
            loop {
                let b = self.parse_successor()?;
                st.successors.push(b);
                if !self.consume_if(Tok::Comma) {
                    break;
                }
            }
            self.parse_rsquare()?;
        }
        if self.at(Tok::Less) {
            self.bump();
            match self.parse_attribute()? {
                Attribute::Dict(d) => st.props = d,
                _ => return Err(self.error_here("expected a dictionary of properties")),
            }
            self.parse_greater()?;
        }
        if self.at(Tok::LParen) {
            self.bump();
            self.push_dialect_for(&st.name);
            let r = (|| -> PResult<()> {
                loop {
                    let r = self.parse_region(&[])?;
                    st.regions.push(r);
                    if !self.consume_if(Tok::Comma) {
                        break;
                    }
                }
                Ok(())
            })();
            self.dialect_stack.pop();
            self.isolated_stack.pop();
            r?;
            self.parse_rparen()?;
        }
        self.parse_optional_attr_dict(&mut st.attrs)?;
        self.parse_colon()?;
        let tspan = self.tok.span;
        let ft = self.parse_type()?;
        let Some((ins, outs)) = ft.as_function() else {
            return Err(Diagnostic::new(tspan, "expected function type"));
        };
        if ins.len() != operands.len() {
            return Err(Diagnostic::new(
                tspan,
                format!(
                    "expected {} operand type(s) but had {}",
                    operands.len(),
                    ins.len()
                ),
            ));
        }
        st.operands = self.resolve_operands(&operands, ins, name_span)?;
        st.result_types = outs.to_vec();
        operands.clear();
        self.operand_pool.push(operands);
        Ok(st)
    }

    fn parse_optional_trailing_location(&mut self) -> PResult<Option<Location>> {
        if self.peek_keyword("loc") && self.peek2().kind == Tok::LParen {
            return self.parse_location().map(Some);
        }
        Ok(None)
    }

    /// `loc(...)` if present (returns `None` also when locations are being dropped).
    pub fn parse_optional_location(&mut self) -> PResult<Option<Location>> {
        self.parse_optional_trailing_location()
    }

    // ===== regions and blocks =====

    /// A region `{ ... }` whose entry block gets `entry_args` (custom forms name the
    /// entry arguments outside the braces, e.g. `func.func @f(%a: i32) { ... }`).
    pub fn parse_region(&mut self, entry_args: &[Argument]) -> PResult<RegionId> {
        self.enter()?;
        self.expect(Tok::LBrace, "'{' to begin a region")?;
        let region = self.m.create_region();
        self.push_scope();
        let blocks = self.block_scope_pool.pop().unwrap_or_default();
        self.block_scopes.push(BlockScope { region, blocks });
        let r = self.parse_region_body(region, entry_args);
        let r2 = self.finish_region_scopes();
        r?;
        r2?;
        self.leave();
        Ok(region)
    }

    /// A region if the current token is `{`.
    pub fn parse_optional_region(&mut self, entry_args: &[Argument]) -> PResult<Option<RegionId>> {
        if self.at(Tok::LBrace) {
            self.parse_region(entry_args).map(Some)
        } else {
            Ok(None)
        }
    }

    fn finish_region_scopes(&mut self) -> PResult<()> {
        let bs = self.block_scopes.pop();
        if let Some(mut bs) = bs {
            let mut undefined: Vec<_> = bs.blocks.iter().filter(|(_, v)| !v.1).collect();
            undefined.sort_by_key(|(_, v)| v.2.start);
            if let Some((name, (_, _, span))) = undefined.first() {
                return Err(Diagnostic::new(
                    *span,
                    format!("reference to an undefined block '^{name}'"),
                ));
            }
            bs.blocks.clear();
            self.block_scope_pool.push(bs.blocks);
        }
        self.pop_scope()
    }

    fn parse_region_body(&mut self, region: RegionId, entry_args: &[Argument]) -> PResult<()> {
        if self.at(Tok::RBrace) && entry_args.is_empty() {
            self.bump();
            return Ok(());
        }
        if !self.at(Tok::CaretId) || !entry_args.is_empty() {
            if self.at(Tok::CaretId) {
                return Err(self.error_here("invalid block name in region with named arguments"));
            }
            let b = self.m.create_block();
            self.m.append_block(region, b);
            for a in entry_args {
                self.check_entry_arg_shadowing(a)?;
                let v = self.m.add_block_arg(b, a.ty.clone(), a.loc.clone());
                let name = self.operand_name(&a.name);
                self.define_values(name, v, 1, a.name.span)?;
            }
            self.parse_block_ops(b)?;
        }
        while self.at(Tok::CaretId) {
            self.parse_block(region)?;
        }
        self.expect(Tok::RBrace, "'}' to end the region")?;
        Ok(())
    }

    fn parse_block_ops(&mut self, b: BlockId) -> PResult<()> {
        while !matches!(self.tok.kind, Tok::CaretId | Tok::RBrace | Tok::Eof) {
            self.parse_operation(b)?;
        }
        if self.at(Tok::Eof) {
            return Err(self.error_expected("'}' to end the region"));
        }
        Ok(())
    }

    fn block_ref(&mut self, name: &'a str, span: Span, define: bool) -> PResult<BlockId> {
        let Some(bs) = self.block_scopes.last_mut() else {
            return Err(Diagnostic::new(span, "block reference outside of a region"));
        };
        let region = bs.region;
        match bs.blocks.get_mut(name) {
            Some(e) => {
                if define {
                    if e.1 {
                        return Err(Diagnostic::new(
                            span,
                            format!("redefinition of block '^{name}'"),
                        ));
                    }
                    e.1 = true;
                    let b = e.0;
                    self.m.append_block(region, b);
                    return Ok(b);
                }
                Ok(e.0)
            }
            None => {
                let b = self.m.create_block();
                self.m.set_block_name_hint(b, Some(name));
                bs.blocks.insert(name, (b, define, span));
                if define {
                    self.m.append_block(region, b);
                }
                Ok(b)
            }
        }
    }

    fn parse_block(&mut self, region: RegionId) -> PResult<()> {
        let span = self.tok.span;
        let name = self.peek_text().get(1..).unwrap_or("");
        self.bump();
        let b = self.block_ref(name, span, true)?;
        debug_assert_eq!(self.m.block_region(b), Some(region));
        if self.at(Tok::LParen) {
            let mut args = Vec::new();
            self.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
                args.push(p.parse_argument(true, false)?);
                Ok(())
            })?;
            for a in args {
                let v = self.m.add_block_arg(b, a.ty, a.loc);
                let name = self.operand_name(&a.name);
                self.define_values(name, v, 1, a.name.span)?;
            }
        }
        self.expect(Tok::Colon, "':' after block name")?;
        self.parse_block_ops(b)
    }

    /// A successor block reference `^bb3` (may be a forward reference).
    pub fn parse_successor(&mut self) -> PResult<BlockId> {
        if !self.at(Tok::CaretId) {
            return Err(self.error_expected("block name"));
        }
        let span = self.tok.span;
        let name = self.peek_text().get(1..).unwrap_or("");
        self.bump();
        self.block_ref(name, span, false)
    }

    /// `^bb1` or `^bb1(%a, %b : i32, i64)`: a successor and its operands (resolved).
    pub fn parse_successor_and_use_list(&mut self) -> PResult<(BlockId, Vec<ValueId>)> {
        let b = self.parse_successor()?;
        let mut vals = Vec::new();
        if self.consume_if(Tok::LParen) {
            let at = self.tok.span;
            let ops = self.parse_operand_list()?;
            let tys = if ops.is_empty() {
                Vec::new()
            } else {
                self.parse_colon_type_list()?
            };
            self.parse_rparen()?;
            vals = self.resolve_operands(&ops, &tys, at)?;
        }
        Ok((b, vals))
    }

    /// `%name: type {attrs} loc(...)`; type and attributes optional per flags.
    pub fn parse_argument(&mut self, allow_type: bool, allow_attrs: bool) -> PResult<Argument> {
        let name = self.parse_operand()?;
        let ty = if allow_type {
            self.parse_colon()?;
            self.parse_type()?
        } else {
            Type::none()
        };
        let mut attrs = None;
        if allow_attrs && self.at(Tok::LBrace) {
            let mut d = Dict::new();
            self.parse_optional_attr_dict(&mut d)?;
            attrs = Some(d);
        }
        let loc = self.parse_optional_location()?;
        Ok(Argument {
            name,
            ty,
            attrs,
            loc,
        })
    }

    /// A delimited list of arguments.
    pub fn parse_argument_list(
        &mut self,
        delim: Delimiter,
        allow_type: bool,
        allow_attrs: bool,
    ) -> PResult<Vec<Argument>> {
        let mut v = Vec::new();
        self.parse_comma_separated_list(delim, &mut |p| {
            v.push(p.parse_argument(allow_type, allow_attrs)?);
            Ok(())
        })?;
        Ok(v)
    }

    /// The module under construction (custom parsers may create blocks/regions in it).
    pub fn module_mut(&mut self) -> &mut Module {
        &mut self.m
    }
    /// The module under construction.
    pub fn module(&self) -> &Module {
        &self.m
    }
    /// The registry in use.
    pub fn registry(&self) -> &Registry {
        self.reg
    }

    /// True if `v` is a forward-reference placeholder (its type is the one uses asked for).
    pub fn is_placeholder(&self, v: ValueId) -> bool {
        self.m.value_def(v) == ValueDef::Placeholder
    }

    // ===== helpers for common custom syntaxes =====

    /// MLIR's dynamic index list `[%a, 4, %b]` (ViewLikeInterface): returns static values with
    /// [`DYNAMIC`] where an SSA operand was written, and appends those operands to `dyn_ops`.
    pub fn parse_dynamic_index_list(
        &mut self,
        dyn_ops: &mut Vec<UnresolvedOperand>,
        delim: Delimiter,
    ) -> PResult<Vec<i64>> {
        let mut stat = Vec::new();
        self.parse_comma_separated_list(delim, &mut |p| {
            if let Some(o) = p.parse_optional_operand()? {
                dyn_ops.push(o);
                stat.push(DYNAMIC);
            } else {
                stat.push(p.parse_integer()?);
            }
            Ok(())
        })?;
        Ok(stat)
    }

    /// An affine map whose dims/symbols are SSA values, as in `affine.load %A[%i + 1, symbol(%n)]`:
    /// every distinct `%v` becomes a dim, every `symbol(%v)` a symbol; the operands (dims first,
    /// then symbols) are appended to `operands`.
    pub fn parse_affine_map_of_ssa_ids(
        &mut self,
        operands: &mut Vec<UnresolvedOperand>,
        delim: Delimiter,
    ) -> PResult<AffineMap> {
        let mut ctx = attrs::SsaAffineCtx::default();
        let mut results = Vec::new();
        self.parse_comma_separated_list(delim, &mut |p| {
            results.push(p.parse_affine_expr_ssa(&mut ctx)?);
            Ok(())
        })?;
        Ok(ctx.finish(results, operands))
    }
}
