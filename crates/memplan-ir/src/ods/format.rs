//! The format language: `assemblyFormat` text lexed and compiled into a [`Format`].

use super::*;

/// What a `type(...)` directive refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeRef {
    /// Operand group.
    Operand(usize),
    /// Result group.
    Result(usize),
    /// All operands.
    Operands,
    /// All results.
    Results,
}

/// One element of a compiled format.
#[derive(Clone, Debug)]
pub enum Elem {
    /// A literal keyword or punctuation (empty: no space).
    Literal(&'static str),
    /// An operand group.
    Operand(usize),
    /// All operands.
    Operands,
    /// An attribute.
    Attr(usize),
    /// `qualified($attr)`: the attribute written in full (`#nvvm.reduction<or>`).
    QualifiedAttr(usize),
    /// `type(...)` (qualified or not).
    Type(TypeRef, bool),
    /// `functional-type(a, b)`.
    FunctionalType(TypeRef, TypeRef),
    /// `attr-dict` / `attr-dict-with-keyword`.
    AttrDict(bool),
    /// `prop-dict`.
    PropDict,
    /// A region.
    Region(usize),
    /// All regions.
    Regions,
    /// A successor.
    Successor(usize),
    /// All successors.
    Successors,
    /// `custom<AsyncDependencies>(type($token), $deps)` (gpu): `async` when the op has its
    /// token result, then `[%deps]` when it has dependencies.
    AsyncDeps(usize, usize),
    /// `custom<AwaitResultType>(type($operand), type($result))` (async.await): the operand's
    /// type; the result is the value type of an `!async.value<T>` (none for a token).
    AwaitResultType(usize, usize),
    /// An optional group: elements, the anchor's index in `elems`, else elements.
    Optional(Vec<Elem>, usize, Vec<Elem>),
    /// `oilist(clause | clause ...)`: clauses, each led by its keyword, in any order, each at
    /// most once; printed in declaration order when their variables are present.
    OIList(Vec<Vec<Elem>>),
    /// `custom<DynamicIndexList>($values, $static)`: `[%a, 4, %b]` (parentheses when the
    /// format asks for them); `static` holds [`crate::types::DYNAMIC`] where an operand is
    /// written.
    DynIndexList {
        /// The operand group.
        operand: usize,
        /// The dense i64 array attribute.
        attr: usize,
        /// Parentheses instead of square brackets.
        paren: bool,
        /// The `i1` dense array of scalable flags (`[4, [8]]`: the second size is scalable),
        /// when the directive has one.
        scalable: Option<usize>,
    },
    /// `custom<PackedOrDynamicIndexList>($packed, $values, $static)` (transform):
    /// `*(%packed)` or a dynamic index list.
    PackedIndexList {
        /// The optional packed operand.
        packed: usize,
        /// The operand group of the list.
        operand: usize,
        /// The dense i64 array attribute.
        attr: usize,
    },
    /// `custom<SemiFunctionType>(type($arg), type($res)[, "false"])` (transform): `A`,
    /// `(A) -> R` or `(A) -> (R1, R2)`; the parentheses are required when the result is not
    /// optional (the flag).
    SemiFn(TypeRef, usize, bool),
    /// `custom<TransformMatchDims>($list, $inverted, $all)`: `all`, `except(1, 2)` or `1, 2`.
    MatchDims(usize, usize, usize),
    /// `custom<SequenceOpOperands>($root, type($root), $extra, type($extra))`: nothing, or
    /// `%root : T` / `%root, %a, %b : (T, A, B)`.
    SeqOperands(usize, usize),
    /// `custom<ForeachMatchSymbols>($matchers, $actions)`: `@m -> @a, @m2 -> @a2`.
    ForeachMatch(usize, usize),
    /// `custom<MultitileSizesTypes>(type($target), type($a), type($b), ...)` and
    /// `custom<ContinuousTileSizeTypes>(...)`: `(T) -> R`, one functional type whose single
    /// result type is the type of every listed result.
    SharedResultType(usize, Vec<usize>),
    /// `custom<MNKDimensionList>($m, $n, $k)` (amdgpu): `16x16x32`, three i32 attributes.
    Mnk([usize; 3]),
    /// `custom<AllReduceOperation>($op)` (gpu): the reduction's keyword, if set.
    AllReduceOp(usize),
    /// `custom<LLVMLinkage>($linkage)`: a linkage keyword (`external` when left out).
    Linkage(usize),
    /// `custom<ShuffleType>(ref(type($v1)), type($res), ref($mask))`: writes nothing; the
    /// result is a vector of `v1`'s element type, one element per mask entry (scalable when
    /// `v1` is).
    ShuffleType(usize, usize, usize),
    /// `custom<IndirectBrOpSucessors>(..., $successors, $succOperands, type($succOperands))`:
    /// `[^bb1, ^bb2(%a : i32)]`; (successor group, operand group).
    IndirectBr(usize, usize),
    /// `custom<OpBundles>($ops, type($ops), $tags)`: `["tag"(%a, %b : i32, f32), "t"()]`;
    /// (operand group, tags attribute).
    OpBundles(usize, usize),
}

/// A compiled format.
#[derive(Clone, Debug)]
pub struct Format {
    /// Elements.
    pub elems: Vec<Elem>,
    /// Attributes written by the format (elided from `attr-dict`).
    pub attrs_used: Vec<&'static str>,
    /// For each operand group: the type is written by a directive.
    pub(super) operand_typed: Vec<bool>,
    /// For each result group: the type is written by a directive.
    pub(super) result_typed: Vec<bool>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FTok {
    Lit(&'static str),
    Var(&'static str),
    Ident(&'static str),
    Str(&'static str),
    Punct(char),
}

pub(super) fn lex_format(s: &'static str) -> Result<Vec<FTok>, String> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'`' {
            let end = s[i + 1..].find('`').ok_or("unterminated literal")? + i + 1;
            out.push(FTok::Lit(&s[i + 1..end]));
            i = end + 1;
        } else if c == b'"' {
            let end = s[i + 1..].find('"').ok_or("unterminated string")? + i + 1;
            out.push(FTok::Str(&s[i + 1..end]));
            i = end + 1;
        } else if c == b'$' {
            let st = i + 1;
            i = st;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(FTok::Var(&s[st..i]));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'-') {
                i += 1;
            }
            out.push(FTok::Ident(&s[st..i]));
        } else {
            out.push(FTok::Punct(c as char));
            i += 1;
        }
    }
    Ok(out)
}

/// An argument of a `custom<...>` directive.
#[derive(Clone, Copy, Debug)]
pub(super) enum CArg {
    Var(&'static str),
    Type(TypeRef),
    RefType(TypeRef),
    Ref(&'static str),
    Str(&'static str),
}

pub(super) struct FCompiler<'o> {
    pub(super) op: &'o OdsOp,
    pub(super) toks: Vec<FTok>,
    pub(super) pos: usize,
    pub(super) attrs_used: Vec<&'static str>,
    pub(super) operand_typed: Vec<bool>,
    pub(super) result_typed: Vec<bool>,
}

impl FCompiler<'_> {
    fn peek(&self) -> Option<FTok> {
        self.toks.get(self.pos).copied()
    }
    fn next(&mut self) -> Result<FTok, String> {
        let t = self.peek().ok_or("unexpected end of format")?;
        self.pos += 1;
        Ok(t)
    }
    fn expect(&mut self, c: char) -> Result<(), String> {
        match self.next()? {
            FTok::Punct(x) if x == c => Ok(()),
            t => Err(format!("expected '{c}' in format, found {t:?}")),
        }
    }
    fn type_ref(&mut self) -> Result<TypeRef, String> {
        match self.next()? {
            FTok::Var(v) => {
                if let Some(i) = self.op.operands.iter().position(|o| o.name == v) {
                    self.operand_typed[i] = true;
                    Ok(TypeRef::Operand(i))
                } else if let Some(i) = self.op.results.iter().position(|o| o.name == v) {
                    self.result_typed[i] = true;
                    Ok(TypeRef::Result(i))
                } else {
                    Err(format!("type of unknown variable ${v}"))
                }
            }
            FTok::Ident("operands") => {
                self.operand_typed.iter_mut().for_each(|x| *x = true);
                Ok(TypeRef::Operands)
            }
            FTok::Ident("results") => {
                self.result_typed.iter_mut().for_each(|x| *x = true);
                Ok(TypeRef::Results)
            }
            t => Err(format!("unsupported type argument {t:?}")),
        }
    }
    fn elems(&mut self, stop: Option<char>) -> Result<Vec<Elem>, String> {
        self.elems_until(stop.as_slice())
    }
    fn elems_until(&mut self, stops: &[char]) -> Result<Vec<Elem>, String> {
        let mut out = Vec::new();
        while let Some(t) = self.peek() {
            if let FTok::Punct(c) = t {
                if stops.contains(&c) {
                    break;
                }
            }
            out.push(self.elem()?);
        }
        Ok(out)
    }
    fn oilist(&mut self) -> Result<Elem, String> {
        self.expect('(')?;
        let mut clauses = Vec::new();
        loop {
            let c = self.elems_until(&['|', ')'])?;
            if !matches!(c.first(), Some(Elem::Literal(l)) if l.chars().all(|x| x.is_ascii_alphanumeric() || x == '_') && !l.is_empty())
            {
                return Err("oilist clause without a leading keyword".into());
            }
            clauses.push(c);
            match self.next()? {
                FTok::Punct('|') => continue,
                FTok::Punct(')') => break,
                t => return Err(format!("unexpected {t:?} in oilist")),
            }
        }
        Ok(Elem::OIList(clauses))
    }
    fn elem(&mut self) -> Result<Elem, String> {
        match self.next()? {
            FTok::Lit(l) => Ok(Elem::Literal(l)),
            FTok::Var(v) => {
                if let Some(i) = self.op.operands.iter().position(|o| o.name == v) {
                    if self.op.operands[i].arity == Arity::VariadicOfVariadic {
                        return Err("variadic-of-variadic operand".into());
                    }
                    Ok(Elem::Operand(i))
                } else if let Some(i) = self.op.attr(v) {
                    if matches!(self.op.attrs[i].kind, AttrKind::Unsupported) {
                        return Err(format!("attribute ${v} of an unsupported kind"));
                    }
                    self.attrs_used.push(self.op.attrs[i].name);
                    Ok(Elem::Attr(i))
                } else if let Some(i) = self.op.regions.iter().position(|r| r.0 == v) {
                    Ok(Elem::Region(i))
                } else if let Some(i) = self.op.successors.iter().position(|r| r.0 == v) {
                    Ok(Elem::Successor(i))
                } else {
                    Err(format!("unknown variable ${v}"))
                }
            }
            FTok::Ident(d) => match d {
                "attr-dict" => Ok(Elem::AttrDict(false)),
                "attr-dict-with-keyword" => Ok(Elem::AttrDict(true)),
                "prop-dict" => Ok(Elem::PropDict),
                "operands" => Ok(Elem::Operands),
                "regions" => Ok(Elem::Regions),
                "successors" => Ok(Elem::Successors),
                "type" => {
                    self.expect('(')?;
                    let r = self.type_ref()?;
                    self.expect(')')?;
                    Ok(Elem::Type(r, false))
                }
                "qualified" => {
                    self.expect('(')?;
                    let inner = self.elem()?;
                    self.expect(')')?;
                    match inner {
                        Elem::Type(r, _) => Ok(Elem::Type(r, true)),
                        Elem::Attr(i) => Ok(Elem::QualifiedAttr(i)),
                        _ => Err("qualified of something else".into()),
                    }
                }
                "functional-type" => {
                    self.expect('(')?;
                    let a = self.type_ref()?;
                    self.expect(',')?;
                    let b = self.type_ref()?;
                    self.expect(')')?;
                    Ok(Elem::FunctionalType(a, b))
                }
                "custom" => self.custom(),
                "oilist" => self.oilist(),
                other => Err(format!("unsupported directive {other}")),
            },
            FTok::Punct('(') => {
                let elems = self.elems(Some(')'))?;
                self.expect(')')?;
                let mut els = Vec::new();
                if self.peek() == Some(FTok::Punct(':')) {
                    self.pos += 1;
                    self.expect('(')?;
                    els = self.elems(Some(')'))?;
                    self.expect(')')?;
                }
                self.expect('?')?;
                // the anchor is marked `^`; otherwise the first non-literal element
                let anchor = self.take_anchor(&elems)?;
                Ok(Elem::Optional(elems, anchor, els))
            }
            t => Err(format!("unexpected {t:?} in format")),
        }
    }
    fn custom(&mut self) -> Result<Elem, String> {
        self.expect('<')?;
        let name = match self.next()? {
            FTok::Ident(n) => n,
            t => return Err(format!("bad custom directive {t:?}")),
        };
        self.expect('>')?;
        self.expect('(')?;
        let unsupported = || format!("unsupported directive custom<{name}>");
        let mut args = Vec::new();
        loop {
            let arg = match self.next()? {
                FTok::Ident(d @ ("type" | "ref")) => {
                    self.expect('(')?;
                    let a = match (d, self.peek()) {
                        ("ref", Some(FTok::Ident("type"))) => {
                            self.pos += 1;
                            self.expect('(')?;
                            let r = self.type_ref()?;
                            self.expect(')')?;
                            CArg::RefType(r)
                        }
                        ("ref", Some(FTok::Var(v))) => {
                            self.pos += 1;
                            CArg::Ref(v)
                        }
                        ("type", _) => CArg::Type(self.type_ref()?),
                        _ => return Err(unsupported()),
                    };
                    self.expect(')')?;
                    a
                }
                FTok::Var(v) => CArg::Var(v),
                FTok::Str(v) => CArg::Str(v),
                _ => return Err(unsupported()),
            };
            args.push(arg);
            match self.next()? {
                FTok::Punct(',') => continue,
                FTok::Punct(')') => break,
                _ => return Err(unsupported()),
            }
        }
        let op = self.op;
        let operand = |v: &str| op.operands.iter().position(|o| o.name == v);
        let result = |v: &str| op.results.iter().position(|o| o.name == v);
        let attr = |v: &str| op.attr(v);
        let elem = match (name, args.as_slice()) {
            ("AsyncDependencies", [CArg::Type(TypeRef::Result(r)), CArg::Var(o)]) => {
                let o = operand(o).ok_or_else(unsupported)?;
                self.operand_typed[o] = true;
                Elem::AsyncDeps(*r, o)
            }
            (
                "AwaitResultType",
                [CArg::Type(TypeRef::Operand(o)), CArg::Type(TypeRef::Result(r))],
            ) => Elem::AwaitResultType(*o, *r),
            ("DynamicIndexList", [CArg::Var(o), CArg::Var(a), rest @ ..]) => {
                let (Some(o), Some(a)) = (operand(o), attr(a)) else {
                    return Err(unsupported());
                };
                if !matches!(op.attrs[a].kind, AttrKind::DenseArray(ref t) if *t == Type::int(64))
                    || op.operands[o].arity != Arity::Variadic
                {
                    return Err(unsupported());
                }
                // further arguments: the scalable flags ("{}": none) and the delimiter
                let mut paren = false;
                let mut scalable = None;
                for x in rest {
                    match x {
                        CArg::Str("{}") => {}
                        CArg::Var(v) if scalable.is_none() => {
                            let sa = attr(v).ok_or_else(unsupported)?;
                            if !matches!(op.attrs[sa].kind, AttrKind::DenseArray(ref t) if *t == Type::int(1))
                            {
                                return Err(unsupported());
                            }
                            self.attrs_used.push(op.attrs[sa].name);
                            scalable = Some(sa);
                        }
                        CArg::Str(d) if d.ends_with("Delimiter::Paren") => paren = true,
                        CArg::Str(d) if d.ends_with("Delimiter::Square") => {}
                        _ => return Err(unsupported()),
                    }
                }
                self.attrs_used.push(op.attrs[a].name);
                Elem::DynIndexList {
                    operand: o,
                    attr: a,
                    paren,
                    scalable,
                }
            }
            ("PackedOrDynamicIndexList", [CArg::Var(pk), CArg::Var(o), CArg::Var(a)]) => {
                let (Some(pk), Some(o), Some(a)) = (operand(pk), operand(o), attr(a)) else {
                    return Err(unsupported());
                };
                if !matches!(op.attrs[a].kind, AttrKind::DenseArray(ref t) if *t == Type::int(64))
                    || op.operands[o].arity != Arity::Variadic
                    || op.operands[pk].arity != Arity::Optional
                {
                    return Err(unsupported());
                }
                self.attrs_used.push(op.attrs[a].name);
                Elem::PackedIndexList {
                    packed: pk,
                    operand: o,
                    attr: a,
                }
            }
            ("SemiFunctionType", [CArg::Type(arg), CArg::Type(TypeRef::Result(r)), rest @ ..]) => {
                let optional = match rest {
                    [] => true,
                    [CArg::Str("false")] => false,
                    [CArg::Str("true")] => true,
                    _ => return Err(unsupported()),
                };
                match arg {
                    TypeRef::Operand(o) if op.operands[*o].arity == Arity::Single => {
                        self.operand_typed[*o] = true;
                    }
                    _ => return Err(unsupported()),
                }
                if !optional && op.results[*r].arity != Arity::Single {
                    return Err(unsupported());
                }
                self.result_typed[*r] = true;
                Elem::SemiFn(*arg, *r, optional)
            }
            ("TransformMatchDims", [CArg::Var(l), CArg::Var(inv), CArg::Var(all)]) => {
                let (Some(l), Some(inv), Some(all)) = (attr(l), attr(inv), attr(all)) else {
                    return Err(unsupported());
                };
                if !matches!(op.attrs[l].kind, AttrKind::DenseArray(ref t) if *t == Type::int(64))
                    || !matches!(op.attrs[inv].kind, AttrKind::Unit)
                    || !matches!(op.attrs[all].kind, AttrKind::Unit)
                {
                    return Err(unsupported());
                }
                for i in [l, inv, all] {
                    self.attrs_used.push(op.attrs[i].name);
                }
                Elem::MatchDims(l, inv, all)
            }
            (
                "SequenceOpOperands",
                [CArg::Var(root), CArg::Type(TypeRef::Operand(rt)), CArg::Var(extra), CArg::Type(TypeRef::Operand(et))],
            ) => {
                let (Some(root), Some(extra)) = (operand(root), operand(extra)) else {
                    return Err(unsupported());
                };
                if root != *rt || extra != *et || op.operands[root].arity != Arity::Optional {
                    return Err(unsupported());
                }
                self.operand_typed[root] = true;
                self.operand_typed[extra] = true;
                Elem::SeqOperands(root, extra)
            }
            (
                "MultitileSizesTypes" | "ContinuousTileSizeTypes",
                [CArg::Type(TypeRef::Operand(o)), rest @ ..],
            ) if !rest.is_empty() => {
                let mut rs = Vec::new();
                for x in rest {
                    match x {
                        CArg::Type(TypeRef::Result(r)) if op.results[*r].arity == Arity::Single => {
                            self.result_typed[*r] = true;
                            rs.push(*r);
                        }
                        _ => return Err(unsupported()),
                    }
                }
                if op.operands[*o].arity != Arity::Single {
                    return Err(unsupported());
                }
                self.operand_typed[*o] = true;
                Elem::SharedResultType(*o, rs)
            }
            ("ForeachMatchSymbols", [CArg::Var(ms), CArg::Var(acts)]) => {
                let (Some(ms), Some(acts)) = (attr(ms), attr(acts)) else {
                    return Err(unsupported());
                };
                self.attrs_used.push(op.attrs[ms].name);
                self.attrs_used.push(op.attrs[acts].name);
                Elem::ForeachMatch(ms, acts)
            }
            ("MNKDimensionList", [CArg::Var(m), CArg::Var(n), CArg::Var(k)]) => {
                let mut ids = [0; 3];
                for (slot, v) in ids.iter_mut().zip([m, n, k]) {
                    let a = attr(v).ok_or_else(unsupported)?;
                    if !matches!(op.attrs[a].kind, AttrKind::Typed(ref t) if *t == Type::int(32)) {
                        return Err(unsupported());
                    }
                    self.attrs_used.push(op.attrs[a].name);
                    *slot = a;
                }
                Elem::Mnk(ids)
            }
            ("AllReduceOperation", [CArg::Var(v)]) => {
                let a = attr(v).ok_or_else(unsupported)?;
                if !matches!(op.attrs[a].kind, AttrKind::EnumKw { .. }) {
                    return Err(unsupported());
                }
                self.attrs_used.push(op.attrs[a].name);
                Elem::AllReduceOp(a)
            }
            ("LLVMLinkage", [CArg::Var(v)]) => {
                let a = attr(v).ok_or_else(unsupported)?;
                self.attrs_used.push(op.attrs[a].name);
                Elem::Linkage(a)
            }
            (
                "ShuffleType",
                [CArg::RefType(TypeRef::Operand(v1)), CArg::Type(TypeRef::Result(r)), CArg::Ref(mask)],
            ) => {
                let m = attr(mask).ok_or_else(unsupported)?;
                if !matches!(op.attrs[m].kind, AttrKind::DenseArray(_)) {
                    return Err(unsupported());
                }
                Elem::ShuffleType(*v1, *r, m)
            }
            (
                "IndirectBrOpSucessors",
                [CArg::RefType(TypeRef::Operand(_)), CArg::Var(succ), CArg::Var(ops), CArg::Type(TypeRef::Operand(t))],
            ) => {
                let b = op
                    .successors
                    .iter()
                    .position(|x| x.0 == *succ && x.1)
                    .ok_or_else(unsupported)?;
                let o = operand(ops).ok_or_else(unsupported)?;
                if o != *t || op.operands[o].segments.and_then(attr).is_none() {
                    return Err(unsupported());
                }
                self.operand_typed[o] = true;
                self.attrs_used.extend(op.operands[o].segments);
                Elem::IndirectBr(b, o)
            }
            ("OpBundles", [CArg::Var(ops), CArg::Type(TypeRef::Operand(t)), CArg::Var(tags)]) => {
                let o = operand(ops).ok_or_else(unsupported)?;
                let a = attr(tags).ok_or_else(unsupported)?;
                if o != *t || op.operands[o].segments.and_then(attr).is_none() {
                    return Err(unsupported());
                }
                self.operand_typed[o] = true;
                self.attrs_used.push(op.attrs[a].name);
                self.attrs_used.extend(op.operands[o].segments);
                Elem::OpBundles(o, a)
            }
            _ => return Err(unsupported()),
        };
        let _ = result;
        Ok(elem)
    }
    fn take_anchor(&mut self, elems: &[Elem]) -> Result<usize, String> {
        // provisional: the first non-literal element; `fix_anchors` applies the `^` marks
        elems
            .iter()
            .position(|e| !matches!(e, Elem::Literal(_)))
            .ok_or_else(|| "optional group without anchor".to_string())
    }
}

pub(super) fn compile(op: &OdsOp) -> Result<Format, String> {
    if op.format.is_empty() {
        return Err("no assemblyFormat".into());
    }
    let raw = lex_format(op.format)?;
    // `^` marks a group's anchor: drop the marks from the token stream and remember the
    // marked tokens (`fix_anchors` applies them to the compiled groups).
    let mut anchors = Vec::new();
    let mut toks = Vec::new();
    for t in raw {
        if t == FTok::Punct('^') {
            anchors.push(toks.len().saturating_sub(1));
            continue;
        }
        toks.push(t);
    }
    let mut c = FCompiler {
        op,
        toks,
        pos: 0,
        attrs_used: Vec::new(),
        operand_typed: vec![false; op.operands.len()],
        result_typed: vec![false; op.results.len()],
    };
    let mut elems = c.elems(None)?;
    // Fix anchors: for each optional group, the anchor is the element built from a token
    // marked `^` (we re-derive: the element whose variable name was marked).
    if c.pos != c.toks.len() {
        return Err("trailing tokens in format".into());
    }
    let marked: Vec<FTok> = anchors.iter().map(|&i| c.toks[i]).collect();
    fix_anchors(&mut elems, &marked, op);
    Ok(Format {
        elems,
        attrs_used: c.attrs_used,
        operand_typed: c.operand_typed,
        result_typed: c.result_typed,
    })
}

pub(super) fn elem_is_marked(e: &Elem, marked: &[FTok], op: &OdsOp) -> bool {
    let var = |n: &str| marked.iter().any(|t| matches!(t, FTok::Var(x) if *x == n));
    match e {
        Elem::Operand(i) => var(op.operands[*i].name),
        Elem::Attr(i) | Elem::QualifiedAttr(i) => var(op.attrs[*i].name),
        Elem::Region(i) => var(op.regions[*i].0),
        Elem::Successor(i) => var(op.successors[*i].0),
        Elem::Type(TypeRef::Operand(i), _) => var(op.operands[*i].name),
        Elem::Type(TypeRef::Result(i), _) => var(op.results[*i].name),
        Elem::Literal(l) => marked.iter().any(|t| matches!(t, FTok::Lit(x) if x == l)),
        Elem::Regions => marked.contains(&FTok::Ident("regions")),
        Elem::Operands => marked.contains(&FTok::Ident("operands")),
        _ => false,
    }
}

pub(super) fn fix_anchors(elems: &mut [Elem], marked: &[FTok], op: &OdsOp) {
    for e in elems.iter_mut() {
        if let Elem::Optional(inner, anchor, els) = e {
            fix_anchors(inner, marked, op);
            fix_anchors(els, marked, op);
            if let Some(p) = inner.iter().position(|x| elem_is_marked(x, marked, op)) {
                *anchor = p;
            }
        }
    }
}
