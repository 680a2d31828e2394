//! Parsing an op's custom form with its compiled format; types the text does not write are
//! inferred from the table's traits.

use super::*;

pub(super) struct PState {
    pub(super) operands: Vec<Vec<UnresolvedOperand>>,
    pub(super) operand_types: Vec<Option<Vec<Type>>>,
    pub(super) result_types: Vec<Option<Vec<Type>>>,
    /// Result group sizes when known from a written type list.
    pub(super) regions: Vec<Vec<crate::ir::RegionId>>,
    pub(super) successors: Vec<Vec<crate::ir::BlockId>>,
    /// Operand groups whose types a `type($group)` directive wrote: their counts must match
    /// (MLIR's `resolveOperands`), nothing is broadcast.
    pub(super) written: Vec<bool>,
}

pub(super) fn ods_of(name: &str) -> Option<&'static OdsOp> {
    table().get(name)
}

pub(super) fn parse_op(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let Some(op) = ods_of(&st.name) else {
        return Err(p.error_here("op is not in memplan's ODS table"));
    };
    let fmt = match op.compiled_format() {
        Ok(f) => f,
        Err(why) => {
            return Err(p.error_here(format!(
                "custom form of '{}' is not supported by memplan's format engine ({why}); write it in generic form",
                op.name
            )))
        }
    };
    let mut s = PState {
        operands: vec![Vec::new(); op.operands.len()],
        operand_types: vec![None; op.operands.len()],
        result_types: vec![None; op.results.len()],
        regions: vec![Vec::new(); op.regions.len()],
        successors: vec![Vec::new(); op.successors.len()],
        written: vec![false; op.operands.len()],
    };
    let start = p.current_span();
    parse_elems(p, st, op, &fmt.elems, &mut s)?;
    if let Some((v1, r, mask)) = shuffle_of(&fmt.elems) {
        let n = dense_ints(st.props.get(op.attrs[mask].name)).map(|v| v.len());
        let t = s.operand_types[v1].as_ref().and_then(|v| v.first());
        match (t, n) {
            (Some(t), Some(n)) => match shuffle_result(t, n) {
                Some(rt) => s.result_types[r] = Some(vec![rt]),
                None => return Err(Diagnostic::new(start, "expected a 1-D vector type")),
            },
            _ => {
                return Err(Diagnostic::new(
                    start,
                    "cannot infer the shuffle's result type",
                ))
            }
        }
    }
    infer_types(p, st, op, &mut s, start)?;
    // operands
    let mut sizes = Vec::new();
    for (i, us) in s.operands.iter().enumerate() {
        let tys = s.operand_types[i].clone().unwrap_or_default();
        if s.written[i] && tys.len() != us.len() {
            return Err(Diagnostic::new(
                start,
                format!(
                    "number of operands and types do not match: got {} operands and {} types",
                    us.len(),
                    tys.len()
                ),
            ));
        }
        let tys = if tys.len() == 1 && us.len() != 1 {
            vec![tys[0].clone(); us.len()]
        } else {
            tys
        };
        let vs = p.resolve_operands(us, &tys, start)?;
        sizes.push(vs.len() as i64);
        st.operands.extend(vs);
    }
    // a variadic of variadics written by no directive has no groups (MLIR's parsers set its
    // sizes attribute from the groups they read, none here)
    for spec in &op.operands {
        if let Some(seg) = spec.segments {
            if st.props.get(seg).is_none() {
                st.props.set(seg, dense_i32(Vec::new()));
            }
        }
    }
    if op.has_trait("AttrSizedOperandSegments") {
        st.props.set(
            "operandSegmentSizes",
            Attribute::DenseArray {
                elem: Type::int(32),
                values: DenseArrayValues::Int(sizes),
            },
        );
    }
    let mut rsizes = Vec::new();
    for (i, spec) in op.results.iter().enumerate() {
        let tys = s.result_types[i].take().unwrap_or_default();
        if spec.arity == Arity::Single && tys.len() != 1 {
            return Err(Diagnostic::new(
                start,
                format!("expected one type for result '{}'", spec.name),
            ));
        }
        rsizes.push(tys.len() as i64);
        st.result_types.extend(tys);
    }
    if op.has_trait("AttrSizedResultSegments") {
        st.props.set(
            "resultSegmentSizes",
            Attribute::DenseArray {
                elem: Type::int(32),
                values: DenseArrayValues::Int(rsizes),
            },
        );
    }
    for r in s.regions {
        st.regions.extend(r);
    }
    for b in s.successors {
        st.successors.extend(b);
    }
    Ok(())
}

pub(super) fn shuffle_of(elems: &[Elem]) -> Option<(usize, usize, usize)> {
    elems.iter().find_map(|e| match e {
        Elem::ShuffleType(a, b, c) => Some((*a, *b, *c)),
        _ => None,
    })
}

pub(super) fn lit_tok(l: &str) -> Option<Tok> {
    Some(match l {
        "(" => Tok::LParen,
        ")" => Tok::RParen,
        "[" => Tok::LBracket,
        "]" => Tok::RBracket,
        "{" => Tok::LBrace,
        "}" => Tok::RBrace,
        "<" => Tok::Less,
        ">" => Tok::Greater,
        "," => Tok::Comma,
        ":" => Tok::Colon,
        "=" => Tok::Equal,
        "->" => Tok::Arrow,
        "?" => Tok::Question,
        "*" => Tok::Star,
        "+" => Tok::Plus,
        "-" => Tok::Minus,
        "..." => Tok::Ellipsis,
        "|" => Tok::Pipe,
        _ => return None,
    })
}

pub(super) fn parse_literal(p: &mut Parser<'_>, l: &str) -> PResult<()> {
    // `` ` ` `` and ``` `` ``` are whitespace directives of the printer: nothing to read
    if l.trim().is_empty() {
        return Ok(());
    }
    match lit_tok(l) {
        Some(t) => {
            p.expect(t, &format!("'{l}'"))?;
            Ok(())
        }
        None => p.parse_keyword(l),
    }
}

pub(super) fn optional_literal(p: &mut Parser<'_>, l: &str) -> bool {
    match lit_tok(l) {
        Some(t) => p.consume_if(t),
        None => p.parse_optional_keyword(l),
    }
}

/// True if the group's anchor element can start at the current token.
pub(super) fn group_present(p: &mut Parser<'_>, op: &OdsOp, first: &Elem) -> bool {
    match first {
        Elem::Literal(l) => optional_literal(p, l),
        Elem::Operand(_) | Elem::Operands => p.at(Tok::PercentId),
        Elem::Region(_) | Elem::Regions => p.at(Tok::LBrace),
        Elem::Successor(_) | Elem::Successors => p.at(Tok::CaretId),
        Elem::Type(..) | Elem::FunctionalType(..) => p.at_type(),
        Elem::Attr(i) => match &op.attrs[*i].kind {
            AttrKind::Unit => false,
            AttrKind::IntEnum { cases, .. } => cases.iter().any(|c| p.peek_keyword(c.0)),
            AttrKind::EnumKw { cases, .. } => cases.iter().any(|c| p.peek_keyword(c)),
            AttrKind::Stripped { .. } => p.at(Tok::Less) || p.at(Tok::HashId),
            AttrKind::TypeAttr => p.at_type(),
            AttrKind::DenseArray(_) => p.at(Tok::LBracket),
            AttrKind::Str => p.at(Tok::String),
            AttrKind::SymName => p.at(Tok::AtId),
            AttrKind::Typed(_) | AttrKind::Any => {
                !matches!(
                    p.peek(),
                    Tok::Eof
                        | Tok::Colon
                        | Tok::RParen
                        | Tok::RBrace
                        | Tok::RBracket
                        | Tok::Comma
                        | Tok::Greater
                        | Tok::Arrow
                        | Tok::Equal
                        | Tok::LBrace
                ) && !p.peek_keyword("loc")
            }
            AttrKind::Unsupported => false,
        },
        Elem::AttrDict(_) => p.at(Tok::LBrace),
        Elem::PropDict => p.at(Tok::Less),
        Elem::QualifiedAttr(_) => p.at(Tok::HashId),
        Elem::AsyncDeps(..) => p.peek_keyword("async") || p.at(Tok::LBracket),
        Elem::AwaitResultType(..) => p.at_type(),
        Elem::DynIndexList { paren, .. } => p.at(if *paren { Tok::LParen } else { Tok::LBracket }),
        Elem::PackedIndexList { .. } => p.at(Tok::Star) || p.at(Tok::LBracket),
        Elem::SemiFn(..) => p.at(Tok::LParen) || p.at_type(),
        Elem::MatchDims(..) => {
            p.peek_keyword("all")
                || p.peek_keyword("except")
                || p.at(Tok::Integer)
                || p.at(Tok::Minus)
        }
        Elem::SeqOperands(..) => p.at(Tok::PercentId),
        Elem::ForeachMatch(..) => p.at(Tok::AtId),
        Elem::SharedResultType(..) => p.at(Tok::LParen),
        Elem::Mnk(_) => p.at(Tok::Integer),
        Elem::AllReduceOp(i) => match &op.attrs[*i].kind {
            AttrKind::EnumKw { cases, .. } => cases.iter().any(|c| p.peek_keyword(c)),
            _ => false,
        },
        Elem::Linkage(_) => LINKAGES.iter().any(|l| p.peek_keyword(l)),
        Elem::IndirectBr(..) | Elem::OpBundles(..) => p.at(Tok::LBracket),
        Elem::Optional(..) | Elem::OIList(_) | Elem::ShuffleType(..) => false,
    }
}

/// LLVM's linkage keywords (`#llvm.linkage<...>`), for the engine and the hand-written llvm ops.
pub(crate) const LINKAGES: [&str; 11] = [
    "private",
    "internal",
    "available_externally",
    "linkonce",
    "weak",
    "common",
    "appending",
    "extern_weak",
    "linkonce_odr",
    "weak_odr",
    "external",
];

/// `16x16x32`: three dimensions with no trailing `x` (MLIR's `parseDimensionList` without
/// dynamic sizes).
pub(super) fn parse_mnk(p: &mut Parser<'_>) -> PResult<[i64; 3]> {
    let start = p.current_pos();
    let b = p.source().as_bytes();
    let mut at = start;
    let mut out = [0i64; 3];
    for (k, slot) in out.iter_mut().enumerate() {
        if k > 0 {
            if b.get(at) != Some(&b'x') {
                return Err(Diagnostic::new(
                    crate::Span::at(at),
                    "expected three dimensions 'MxNxK'",
                ));
            }
            at += 1;
        }
        let st = at;
        while b.get(at).is_some_and(|c| c.is_ascii_digit()) {
            at += 1;
        }
        *slot = p.source()[st..at]
            .parse()
            .map_err(|_| Diagnostic::new(crate::Span::at(st), "expected a dimension size"))?;
    }
    p.reset(at);
    Ok(out)
}

pub(super) fn dense_i32(v: Vec<i64>) -> Attribute {
    Attribute::DenseArray {
        elem: Type::int(32),
        values: DenseArrayValues::Int(v),
    }
}

/// The entries of a dense integer array attribute.
/// `SingleBlockImplicitTerminator`: MLIR's parsers add the terminator when the text leaves
/// it out (`transform.sequence`, `transform.foreach`).
fn ensure_implicit_terminator(p: &mut Parser<'_>, op: &OdsOp, r: crate::ir::RegionId) {
    if let Some(t) = op
        .trait_values("SingleBlockImplicitTerminator")
        .find(|t| t.contains('.') && !t.contains("::"))
    {
        crate::dialects::memref::ensure_terminator(p, r, t);
    }
}

pub(super) fn dense_i64(v: Vec<i64>) -> Attribute {
    Attribute::DenseArray {
        elem: Type::int(64),
        values: DenseArrayValues::Int(v),
    }
}

pub(super) fn dense_ints(a: Option<&Attribute>) -> Option<&[i64]> {
    match a {
        Some(Attribute::DenseArray {
            values: DenseArrayValues::Int(v),
            ..
        }) => Some(v),
        _ => None,
    }
}

/// `shufflevector`'s result type: `v1`'s element type, one element per mask entry.
pub(super) fn shuffle_result(v1: &Type, mask_len: usize) -> Option<Type> {
    match v1.kind() {
        TypeKind::Vector {
            shape,
            scalable,
            elem,
        } if shape.len() == 1 => Some(Type::new(TypeKind::Vector {
            shape: vec![mask_len as i64],
            scalable: vec![scalable[0]],
            elem: elem.clone(),
        })),
        _ => None,
    }
}

pub(super) fn parse_elems(
    p: &mut Parser<'_>,
    st: &mut OperationState,
    op: &OdsOp,
    elems: &[Elem],
    s: &mut PState,
) -> PResult<()> {
    for e in elems {
        parse_elem(p, st, op, e, s)?;
    }
    Ok(())
}

pub(super) fn parse_type_for(
    p: &mut Parser<'_>,
    spec: &ValueSpec,
    qualified: bool,
) -> PResult<Type> {
    if let (TypeC::Dialect(pre, _), false) = (&spec.ty, qualified) {
        // MLIR's parseCustomTypeWithFallback: a full type after `!`, else only the
        // parameters of the expected type class (nothing for a parameterless one)
        if !p.at(Tok::ExclId) {
            let mut text = pre.to_string();
            if p.at(Tok::Less) {
                let start = p.current_pos();
                let end = p.scan_balanced(start)?;
                text.push_str(&p.source()[start..end]);
                p.reset(end);
            }
            return Ok(Type::new(TypeKind::Opaque(
                crate::parser::tidy_dialect_text(&text),
            )));
        }
    }
    p.parse_type()
}

pub(super) fn parse_type_list_for(
    p: &mut Parser<'_>,
    spec: &ValueSpec,
    qualified: bool,
) -> PResult<Vec<Type>> {
    let mut v = Vec::new();
    match spec.arity {
        Arity::Single => v.push(parse_type_for(p, spec, qualified)?),
        Arity::Optional => {
            if p.at_type() {
                v.push(p.parse_type()?);
            }
        }
        _ => {
            // MLIR's generated parsers read a variadic's `type(...)` with `parseTypeList`,
            // which wants at least one type (an empty group is written by leaving out an
            // optional group, never by an empty list)
            v.push(p.parse_type()?);
            while p.consume_if(Tok::Comma) {
                v.push(p.parse_type()?);
            }
        }
    }
    Ok(v)
}

pub(super) fn parse_type_ref(
    p: &mut Parser<'_>,
    op: &OdsOp,
    r: TypeRef,
    qualified: bool,
    s: &mut PState,
) -> PResult<()> {
    match r {
        TypeRef::Operand(i) => {
            let v = parse_type_list_for(p, &op.operands[i], qualified)?;
            s.operand_types[i] = Some(v);
            s.written[i] = true;
        }
        TypeRef::Result(i) => {
            let v = parse_type_list_for(p, &op.results[i], qualified)?;
            s.result_types[i] = Some(v);
        }
        TypeRef::Operands | TypeRef::Results => {
            let v = if p.at_type() {
                let mut v = vec![p.parse_type()?];
                while p.consume_if(Tok::Comma) {
                    v.push(p.parse_type()?);
                }
                v
            } else {
                Vec::new()
            };
            assign_all(p, op, r == TypeRef::Operands, v, s)?;
        }
    }
    Ok(())
}

pub(super) fn assign_all(
    p: &Parser<'_>,
    op: &OdsOp,
    operands: bool,
    v: Vec<Type>,
    s: &mut PState,
) -> PResult<()> {
    let specs = if operands { &op.operands } else { &op.results };
    let sizes: Vec<usize> = if operands {
        s.operands.iter().map(|x| x.len()).collect()
    } else {
        let fixed = specs.iter().filter(|x| x.arity == Arity::Single).count();
        let var = specs.len() - fixed;
        if var > 1 {
            return Err(p.error_here("cannot split result types among several variadic groups"));
        }
        specs
            .iter()
            .map(|x| {
                if x.arity == Arity::Single {
                    1
                } else {
                    v.len().saturating_sub(fixed)
                }
            })
            .collect()
    };
    if sizes.iter().sum::<usize>() != v.len() {
        return Err(p.error_here(format!(
            "expected {} types, found {}",
            sizes.iter().sum::<usize>(),
            v.len()
        )));
    }
    let mut it = v.into_iter();
    for (i, n) in sizes.into_iter().enumerate() {
        let g: Vec<Type> = it.by_ref().take(n).collect();
        if operands {
            s.operand_types[i] = Some(g);
        } else {
            s.result_types[i] = Some(g);
        }
    }
    Ok(())
}

pub(super) fn parse_attr(p: &mut Parser<'_>, spec: &AttrSpec) -> PResult<Attribute> {
    match &spec.kind {
        AttrKind::Unit => Ok(Attribute::Unit),
        AttrKind::IntEnum { width, cases } => {
            let sp = p.current_span();
            let kw = if p.at(Tok::String) {
                p.parse_string()?
            } else {
                p.parse_keyword_any("enum keyword")?.to_string()
            };
            match cases.iter().find(|c| c.0 == kw) {
                Some(c) => Ok(Attribute::Integer {
                    value: c.1 as i128,
                    ty: Type::int(*width),
                }),
                None => Err(Diagnostic::new(
                    sp,
                    format!(
                        "expected one of [{}] for '{}'",
                        cases.iter().map(|c| c.0).collect::<Vec<_>>().join(", "),
                        spec.name
                    ),
                )),
            }
        }
        AttrKind::EnumKw {
            dialect,
            mnemonic,
            cases,
        } => {
            if p.at(Tok::HashId) {
                return p.parse_attribute();
            }
            let sp = p.current_span();
            let kw = if p.at(Tok::String) {
                p.parse_string()?
            } else {
                p.parse_keyword_any("enum keyword")?.to_string()
            };
            if !cases.contains(&kw.as_str()) {
                return Err(Diagnostic::new(
                    sp,
                    format!("expected one of [{}] for '{}'", cases.join(", "), spec.name),
                ));
            }
            Ok(Attribute::Opaque(format!("#{dialect}<{mnemonic} {kw}>")))
        }
        AttrKind::Stripped { prefix, cases } => {
            if p.at(Tok::HashId) {
                return p.parse_attribute();
            }
            if !p.at(Tok::Less) {
                return Err(p.error_expected("'<'"));
            }
            let sp = p.current_span();
            let start = p.current_pos();
            let end = p.scan_balanced(start)?;
            let text = format!("{prefix}{}", &p.source()[start..end]);
            if !cases.is_empty() {
                enum_body_ok(&text[prefix.len()..], cases, spec.name)
                    .map_err(|e| Diagnostic::new(sp, e))?;
            }
            p.reset(end);
            Ok(Attribute::Opaque(text))
        }
        AttrKind::Typed(t) => parse_typed_literal(p, t),
        AttrKind::TypeAttr => Ok(Attribute::Type(p.parse_type()?)),
        AttrKind::DenseArray(t) => {
            p.parse_lsquare()?;
            let mut ints = Vec::new();
            let mut floats = Vec::new();
            let float = t.is_float();
            if !p.at(Tok::RBracket) {
                loop {
                    if float {
                        match p.parse_attribute_of_type(t)? {
                            Attribute::Float { value, .. } => floats.push(value),
                            Attribute::Integer { value, .. } => floats.push(value as f64),
                            _ => return Err(p.error_expected("float")),
                        }
                    } else if p.peek_keyword("true") || p.peek_keyword("false") {
                        ints.push(i64::from(p.parse_optional_keyword("true")));
                        p.parse_optional_keyword("false");
                    } else {
                        ints.push(p.parse_integer()?);
                    }
                    if !p.consume_if(Tok::Comma) {
                        break;
                    }
                }
            }
            p.parse_rsquare()?;
            Ok(Attribute::DenseArray {
                elem: t.clone(),
                values: if float {
                    DenseArrayValues::Float(floats)
                } else {
                    DenseArrayValues::Int(ints)
                },
            })
        }
        AttrKind::Str => Ok(Attribute::String {
            value: p.parse_string_bytes()?,
            ty: None,
        }),
        AttrKind::SymName => Ok(Attribute::String {
            value: p.parse_symbol_name()?.into_bytes(),
            ty: None,
        }),
        AttrKind::Any => p.parse_attribute(),
        AttrKind::Unsupported => Err(p.error_here("unsupported attribute kind")),
    }
}

/// MLIR's `parseAttribute(attr, type)` for a known type: a number literal takes the type and
/// no `: type` follows; anything else is a full attribute.
pub(super) fn parse_typed_literal(p: &mut Parser<'_>, t: &Type) -> PResult<Attribute> {
    if t == &Type::int(1) && (p.peek_keyword("true") || p.peek_keyword("false")) {
        let v = p.parse_optional_keyword("true");
        if !v {
            p.parse_optional_keyword("false");
        }
        return Ok(Attribute::Integer {
            value: i128::from(v),
            ty: t.clone(),
        });
    }
    if matches!(p.peek(), Tok::Integer | Tok::Float | Tok::Minus) {
        let sp = p.current_span();
        let neg = p.consume_if(Tok::Minus);
        let kind = p.peek();
        let lit = p.peek_text();
        let text = if neg {
            format!("-{lit}")
        } else {
            lit.to_string()
        };
        if t.is_float() {
            if kind == Tok::Integer && lit.starts_with("0x") {
                let bits = u128::from_str_radix(&lit[2..], 16)
                    .map_err(|_| Diagnostic::new(sp, "invalid hexadecimal float literal"))?;
                p.bump();
                return Ok(Attribute::Float {
                    value: f64::NAN,
                    bits: Some(bits),
                    ty: t.clone(),
                });
            }
            let value = text
                .parse::<f64>()
                .map_err(|_| Diagnostic::new(sp, "invalid float literal"))?;
            p.bump();
            return Ok(Attribute::Float {
                value,
                bits: None,
                ty: t.clone(),
            });
        }
        if kind == Tok::Integer && (t.is_integer() || t.is_index()) {
            let value = if let Some(h) = lit.strip_prefix("0x") {
                i128::from_str_radix(h, 16).map(|v| if neg { -v } else { v })
            } else {
                text.parse::<i128>()
            }
            .map_err(|_| Diagnostic::new(sp, "integer constant out of range"))?;
            p.bump();
            return Ok(Attribute::Integer {
                value,
                ty: t.clone(),
            });
        }
        return Err(Diagnostic::new(
            sp,
            "invalid literal for the attribute's type",
        ));
    }
    p.parse_attribute()
}

pub(super) fn parse_elem(
    p: &mut Parser<'_>,
    st: &mut OperationState,
    op: &OdsOp,
    e: &Elem,
    s: &mut PState,
) -> PResult<()> {
    match e {
        Elem::Literal(l) => parse_literal(p, l)?,
        Elem::Operand(i) => {
            let spec = &op.operands[*i];
            match spec.arity {
                Arity::Single => s.operands[*i].push(p.parse_operand()?),
                Arity::Optional => {
                    if let Some(u) = p.parse_optional_operand()? {
                        s.operands[*i].push(u);
                    }
                }
                _ => {
                    if let Some(u) = p.parse_optional_operand()? {
                        s.operands[*i].push(u);
                        while p.consume_if(Tok::Comma) {
                            s.operands[*i].push(p.parse_operand()?);
                        }
                    }
                }
            }
        }
        Elem::Operands => {
            let mut all = Vec::new();
            if let Some(u) = p.parse_optional_operand()? {
                all.push(u);
                while p.consume_if(Tok::Comma) {
                    all.push(p.parse_operand()?);
                }
            }
            // split among groups
            let fixed = op
                .operands
                .iter()
                .filter(|x| x.arity == Arity::Single)
                .count();
            let var = op.operands.len() - fixed;
            if var > 1 {
                return Err(p.error_here("cannot split operands among several variadic groups"));
            }
            let mut it = all.into_iter();
            let n = it.len();
            for (i, spec) in op.operands.iter().enumerate() {
                let k = if spec.arity == Arity::Single {
                    1
                } else {
                    n.saturating_sub(fixed)
                };
                s.operands[i] = it.by_ref().take(k).collect();
            }
        }
        Elem::Attr(i) => {
            let spec = &op.attrs[*i];
            let a = parse_attr(p, spec)?;
            st.props.set(spec.name, a);
        }
        Elem::QualifiedAttr(i) => {
            let a = p.parse_attribute()?;
            st.props.set(op.attrs[*i].name, a);
        }
        Elem::Type(r, q) => parse_type_ref(p, op, *r, *q, s)?,
        Elem::FunctionalType(a, b) => {
            let (ins, outs) = p.parse_function_type()?;
            set_types(p, op, *a, ins, s)?;
            set_types(p, op, *b, outs, s)?;
        }
        Elem::AttrDict(kw) => {
            if *kw {
                p.parse_optional_attr_dict_with_keyword(&mut st.attrs)?;
            } else {
                p.parse_optional_attr_dict(&mut st.attrs)?;
            }
        }
        Elem::PropDict => {
            if p.consume_if(Tok::Less) {
                let d = p.parse_dict_attr()?;
                for n in d.0 {
                    st.props.set(n.name, n.value);
                }
                p.parse_greater()?;
            }
        }
        Elem::Region(i) => {
            let variadic = op.regions[*i].1;
            if variadic {
                if let Some(r) = p.parse_optional_region(&[])? {
                    s.regions[*i].push(r);
                    while p.consume_if(Tok::Comma) {
                        let r = p.parse_region(&[])?;
                        s.regions[*i].push(r);
                    }
                }
            } else {
                let r = p.parse_region(&[])?;
                ensure_implicit_terminator(p, op, r);
                s.regions[*i].push(r);
            }
        }
        Elem::Regions => {
            if let Some(r) = p.parse_optional_region(&[])? {
                let mut all = vec![r];
                while p.consume_if(Tok::Comma) {
                    all.push(p.parse_region(&[])?);
                }
                if op.regions.len() == 1 || all.len() == op.regions.len() {
                    for &r in &all {
                        ensure_implicit_terminator(p, op, r);
                    }
                    if op.regions.len() == 1 {
                        s.regions[0] = all;
                    } else {
                        for (i, r) in all.into_iter().enumerate() {
                            s.regions[i] = vec![r];
                        }
                    }
                } else {
                    return Err(p.error_here("wrong number of regions"));
                }
            }
        }
        Elem::Successor(i) => {
            let variadic = op.successors[*i].1;
            if variadic {
                if p.at(Tok::CaretId) {
                    s.successors[*i].push(p.parse_successor()?);
                    while p.consume_if(Tok::Comma) {
                        s.successors[*i].push(p.parse_successor()?);
                    }
                }
            } else {
                s.successors[*i].push(p.parse_successor()?);
            }
        }
        Elem::Successors => {
            if p.at(Tok::CaretId) {
                let mut all = vec![p.parse_successor()?];
                while p.consume_if(Tok::Comma) {
                    all.push(p.parse_successor()?);
                }
                if op.successors.len() == 1 {
                    s.successors[0] = all;
                } else if all.len() == op.successors.len() {
                    for (i, b) in all.into_iter().enumerate() {
                        s.successors[i] = vec![b];
                    }
                } else {
                    return Err(p.error_here("wrong number of successors"));
                }
            }
        }
        Elem::AsyncDeps(r, o) => {
            let token = Type::new(TypeKind::Opaque("!gpu.async.token".into()));
            s.result_types[*r] = Some(if p.parse_optional_keyword("async") {
                vec![token.clone()]
            } else {
                Vec::new()
            });
            if p.at(Tok::LBracket) {
                let deps = p.parse_operand_list_delimited(crate::parser::Delimiter::Square)?;
                s.operand_types[*o] = Some(vec![token; deps.len()]);
                s.operands[*o] = deps;
            } else {
                s.operand_types[*o] = Some(Vec::new());
            }
        }
        Elem::AwaitResultType(o, r) => {
            let start = p.current_pos();
            let t = p.parse_type()?;
            let end = p.current_pos();
            const VALUE: &str = "!async.value<";
            let inner = if p.source()[start..].starts_with(VALUE) {
                p.reset(start + VALUE.len());
                let inner = p.parse_type()?;
                p.reset(end);
                vec![inner]
            } else {
                Vec::new()
            };
            s.operand_types[*o] = Some(vec![t]);
            s.result_types[*r] = Some(inner);
        }
        Elem::OIList(clauses) => {
            let mut seen = vec![false; clauses.len()];
            'clauses: loop {
                for (k, c) in clauses.iter().enumerate() {
                    let Some(Elem::Literal(kw)) = c.first() else {
                        continue;
                    };
                    if !seen[k] && p.parse_optional_keyword(kw) {
                        seen[k] = true;
                        parse_elems(p, st, op, &c[1..], s)?;
                        continue 'clauses;
                    }
                }
                break;
            }
        }
        Elem::DynIndexList {
            operand,
            attr,
            paren,
            scalable,
        } => {
            let delim = if *paren {
                crate::parser::Delimiter::Paren
            } else {
                crate::parser::Delimiter::Square
            };
            let mut dyn_ops = Vec::new();
            if let Some(sa) = scalable {
                // MLIR's parseDynamicIndexList with scalable flags: `[4]` is a scalable size
                let mut stat = Vec::new();
                let mut flags = Vec::new();
                p.parse_comma_separated_list(delim, &mut |p| {
                    if let Some(o) = p.parse_optional_operand()? {
                        dyn_ops.push(o);
                        stat.push(crate::types::DYNAMIC);
                        flags.push(0);
                    } else if p.consume_if(Tok::LBracket) {
                        stat.push(p.parse_integer()?);
                        flags.push(1);
                        if !p.consume_if(Tok::RBracket) {
                            return Err(p.error_here("requires closing square bracket"));
                        }
                    } else {
                        stat.push(p.parse_integer()?);
                        flags.push(0);
                    }
                    Ok(())
                })?;
                st.props.set(op.attrs[*attr].name, dense_i64(stat));
                st.props.set(
                    op.attrs[*sa].name,
                    Attribute::DenseArray {
                        elem: Type::int(1),
                        values: DenseArrayValues::Int(flags),
                    },
                );
            } else {
                let stat = p.parse_dynamic_index_list(&mut dyn_ops, delim)?;
                st.props.set(op.attrs[*attr].name, dense_i64(stat));
            }
            s.operands[*operand] = dyn_ops;
        }
        Elem::PackedIndexList {
            packed,
            operand,
            attr,
        } => {
            if p.consume_if(Tok::Star) {
                p.parse_lparen()?;
                s.operands[*packed] = vec![p.parse_operand()?];
                p.parse_rparen()?;
                st.props.set(op.attrs[*attr].name, dense_i64(Vec::new()));
            } else {
                let mut dyn_ops = Vec::new();
                let stat =
                    p.parse_dynamic_index_list(&mut dyn_ops, crate::parser::Delimiter::Square)?;
                s.operands[*operand] = dyn_ops;
                st.props.set(op.attrs[*attr].name, dense_i64(stat));
            }
        }
        Elem::SemiFn(arg, r, optional) => {
            let paren = p.consume_if(Tok::LParen);
            if !paren && !optional {
                return Err(p.error_expected("'('"));
            }
            let a = p.parse_type()?;
            if let TypeRef::Operand(o) = arg {
                s.operand_types[*o] = Some(vec![a]);
            }
            let mut res = Vec::new();
            if paren {
                p.parse_rparen()?;
                p.parse_arrow()?;
                if p.consume_if(Tok::LParen) {
                    res = p.parse_type_list()?;
                    p.parse_rparen()?;
                } else {
                    res.push(p.parse_type()?);
                }
            }
            s.result_types[*r] = Some(res);
        }
        Elem::MatchDims(l, inv, all) => {
            if p.parse_optional_keyword("all") {
                st.props.set(op.attrs[*l].name, dense_i64(Vec::new()));
                st.props.set(op.attrs[*all].name, Attribute::Unit);
            } else {
                let inverted = p.parse_optional_keyword("except");
                if inverted {
                    p.parse_lparen()?;
                    st.props.set(op.attrs[*inv].name, Attribute::Unit);
                }
                let mut v = vec![p.parse_integer()?];
                while p.consume_if(Tok::Comma) {
                    v.push(p.parse_integer()?);
                }
                if inverted {
                    p.parse_rparen()?;
                }
                st.props.set(op.attrs[*l].name, dense_i64(v));
            }
        }
        Elem::SeqOperands(root, extra) => {
            let mut root_ty = Vec::new();
            let mut extra_tys = Vec::new();
            if let Some(r) = p.parse_optional_operand()? {
                s.operands[*root] = vec![r];
                if p.consume_if(Tok::Comma) {
                    s.operands[*extra] = p.parse_operand_list()?;
                }
                p.parse_colon()?;
                // the parentheses are optional, each on its own (as in MLIR)
                p.consume_if(Tok::LParen);
                root_ty.push(p.parse_type()?);
                if !s.operands[*extra].is_empty() {
                    p.parse_comma()?;
                    extra_tys = p.parse_type_list()?;
                }
                if extra_tys.len() != s.operands[*extra].len() {
                    return Err(p.error_here("expected types to be provided for all operands"));
                }
                p.consume_if(Tok::RParen);
            }
            s.operand_types[*root] = Some(root_ty);
            s.operand_types[*extra] = Some(extra_tys);
        }
        Elem::SharedResultType(o, rs) => {
            let sp = p.current_span();
            let t = p.parse_type()?;
            let Some((ins, outs)) = t
                .as_function()
                .filter(|(i, o)| i.len() == 1 && o.len() == 1)
            else {
                return Err(Diagnostic::new(
                    sp,
                    "expects a trailing functional type with one argument and one result",
                ));
            };
            s.operand_types[*o] = Some(vec![ins[0].clone()]);
            for r in rs {
                s.result_types[*r] = Some(vec![outs[0].clone()]);
            }
        }
        Elem::ForeachMatch(ms, acts) => {
            let mut mv = Vec::new();
            let mut av = Vec::new();
            loop {
                let m = p.parse_symbol_name()?;
                p.parse_arrow()?;
                let a = p.parse_symbol_name()?;
                mv.push(Attribute::SymbolRef {
                    root: m,
                    nested: Vec::new(),
                });
                av.push(Attribute::SymbolRef {
                    root: a,
                    nested: Vec::new(),
                });
                if !p.consume_if(Tok::Comma) {
                    break;
                }
            }
            st.props.set(op.attrs[*ms].name, Attribute::Array(mv));
            st.props.set(op.attrs[*acts].name, Attribute::Array(av));
        }
        Elem::Mnk(ids) => {
            let v = parse_mnk(p)?;
            for (i, x) in ids.iter().zip(v) {
                st.props.set(
                    op.attrs[*i].name,
                    Attribute::Integer {
                        value: i128::from(x),
                        ty: Type::int(32),
                    },
                );
            }
        }
        Elem::AllReduceOp(i) => {
            let spec = &op.attrs[*i];
            let sp = p.current_span();
            if let Some(kw) = p.parse_optional_keyword_any() {
                let AttrKind::EnumKw {
                    dialect,
                    mnemonic,
                    cases,
                } = &spec.kind
                else {
                    return Err(p.error_here("unsupported attribute kind"));
                };
                if !cases.contains(&kw) {
                    return Err(Diagnostic::new(sp, "invalid op kind"));
                }
                st.props.set(
                    spec.name,
                    Attribute::Opaque(format!("#{dialect}<{mnemonic} {kw}>")),
                );
            }
        }
        Elem::Linkage(i) => {
            let kw = LINKAGES
                .iter()
                .find(|l| p.peek_keyword(l))
                .copied()
                .unwrap_or("external");
            p.parse_optional_keyword(kw);
            st.props.set(
                op.attrs[*i].name,
                Attribute::Opaque(format!("#llvm.linkage<{kw}>")),
            );
        }
        Elem::ShuffleType(..) => {}
        Elem::IndirectBr(b, o) => {
            p.parse_lsquare()?;
            let mut sizes = Vec::new();
            let mut types = Vec::new();
            if !p.consume_if(Tok::RBracket) {
                loop {
                    s.successors[*b].push(p.parse_successor()?);
                    let (ops, tys) = parse_paren_operands_with_types(p)?;
                    sizes.push(ops.len() as i64);
                    s.operands[*o].extend(ops);
                    types.extend(tys);
                    if !p.consume_if(Tok::Comma) {
                        break;
                    }
                }
                p.parse_rsquare()?;
            }
            s.operand_types[*o] = Some(types);
            if let Some(seg) = op.operands[*o].segments {
                st.props.set(seg, dense_i32(sizes));
            }
        }
        Elem::OpBundles(o, a) => {
            p.parse_lsquare()?;
            let mut sizes = Vec::new();
            let mut types = Vec::new();
            let mut tags = Vec::new();
            if !p.consume_if(Tok::RBracket) {
                loop {
                    tags.push(Attribute::String {
                        value: p.parse_string_bytes()?,
                        ty: None,
                    });
                    if !p.at(Tok::LParen) {
                        return Err(p.error_expected("'('"));
                    }
                    let (ops, tys) = parse_paren_operands_with_types(p)?;
                    sizes.push(ops.len() as i64);
                    s.operands[*o].extend(ops);
                    types.extend(tys);
                    if !p.consume_if(Tok::Comma) {
                        break;
                    }
                }
                p.parse_rsquare()?;
            }
            s.operand_types[*o] = Some(types);
            if let Some(seg) = op.operands[*o].segments {
                st.props.set(seg, dense_i32(sizes));
            }
            if !tags.is_empty() {
                st.props.set(op.attrs[*a].name, Attribute::Array(tags));
            }
        }
        Elem::Optional(elems, anchor, els) => {
            let first = &elems[0];
            let present = group_present(p, op, first);
            if present {
                // the first literal was consumed by group_present
                let rest = if matches!(first, Elem::Literal(_)) {
                    &elems[1..]
                } else {
                    &elems[..]
                };
                parse_elems(p, st, op, rest, s)?;
                // a unit attribute as anchor is set by the group's presence
                if let Elem::Attr(i) = &elems[*anchor] {
                    if matches!(op.attrs[*i].kind, AttrKind::Unit) {
                        st.props.set(op.attrs[*i].name, Attribute::Unit);
                    }
                }
            } else {
                parse_elems(p, st, op, els, s)?;
            }
        }
    }
    Ok(())
}

/// `(%a, %b : t1, t2)` or `()` if a parenthesis follows, else nothing.
pub(super) fn parse_paren_operands_with_types(
    p: &mut Parser<'_>,
) -> PResult<(Vec<UnresolvedOperand>, Vec<Type>)> {
    if !p.consume_if(Tok::LParen) {
        return Ok((Vec::new(), Vec::new()));
    }
    let sp = p.current_span();
    let ops = p.parse_operand_list()?;
    let tys = if ops.is_empty() {
        Vec::new()
    } else {
        p.parse_colon_type_list()?
    };
    p.parse_rparen()?;
    if ops.len() != tys.len() {
        return Err(Diagnostic::new(
            sp,
            format!(
                "expected {} types for the operands, found {}",
                ops.len(),
                tys.len()
            ),
        ));
    }
    Ok((ops, tys))
}

pub(super) fn set_types(
    p: &Parser<'_>,
    op: &OdsOp,
    r: TypeRef,
    v: Vec<Type>,
    s: &mut PState,
) -> PResult<()> {
    match r {
        TypeRef::Operand(i) => s.operand_types[i] = Some(v),
        TypeRef::Result(i) => s.result_types[i] = Some(v),
        TypeRef::Operands => assign_all(p, op, true, v, s)?,
        TypeRef::Results => assign_all(p, op, false, v, s)?,
    }
    Ok(())
}

/// Types of a named operand, result or attribute (when known).
pub(super) fn known_type(op: &OdsOp, st: &OperationState, s: &PState, name: &str) -> Option<Type> {
    if let Some(i) = op.operands.iter().position(|o| o.name == name) {
        return s.operand_types[i].as_ref().and_then(|v| v.first().cloned());
    }
    if let Some(i) = op.results.iter().position(|o| o.name == name) {
        return s.result_types[i].as_ref().and_then(|v| v.first().cloned());
    }
    st.props.get(name).and_then(|a| a.typed())
}

pub(super) fn set_named_type(op: &OdsOp, s: &mut PState, name: &str, t: &Type) {
    if let Some(i) = op.operands.iter().position(|o| o.name == name) {
        if s.operand_types[i].is_none() {
            s.operand_types[i] = Some(vec![t.clone(); s.operands[i].len()]);
        }
    }
    if let Some(i) = op.results.iter().position(|o| o.name == name) {
        if s.result_types[i].is_none() {
            s.result_types[i] = Some(vec![t.clone()]);
        }
    }
}

pub(super) fn infer_types(
    p: &Parser<'_>,
    st: &OperationState,
    op: &OdsOp,
    s: &mut PState,
    at: crate::Span,
) -> PResult<()> {
    // buildable types
    for (i, spec) in op.operands.iter().enumerate() {
        if s.operand_types[i].is_none() {
            if let Some(t) = spec.ty.exact() {
                s.operand_types[i] = Some(vec![t.clone(); s.operands[i].len()]);
            }
        }
    }
    for (i, spec) in op.results.iter().enumerate() {
        if s.result_types[i].is_none() {
            if let Some(t) = spec.ty.exact() {
                if spec.arity == Arity::Single {
                    s.result_types[i] = Some(vec![t.clone()]);
                }
            }
        }
    }
    for _round in 0..3 {
        if op.has_trait("SameOperandsAndResultType") {
            let known = s
                .operand_types
                .iter()
                .chain(s.result_types.iter())
                .flatten()
                .flat_map(|v| v.first())
                .next()
                .cloned();
            if let Some(t) = known {
                for (i, g) in s.operand_types.iter_mut().enumerate() {
                    if g.is_none() {
                        *g = Some(vec![t.clone(); s.operands[i].len()]);
                    }
                }
                for (i, g) in s.result_types.iter_mut().enumerate() {
                    if g.is_none() {
                        let n = if op.results[i].arity == Arity::Single {
                            1
                        } else {
                            0
                        };
                        *g = Some(vec![t.clone(); n]);
                    }
                }
            }
        }
        for v in op.trait_values("AllTypesMatch") {
            let names: Vec<&str> = v.split('|').collect();
            if let Some(t) = names.iter().find_map(|n| known_type(op, st, s, n)) {
                for n in names {
                    set_named_type(op, s, n, &t);
                }
            }
        }
        for tr in ["TypesMatchWith", "TypesMatchWith?"] {
            for v in op.trait_values(tr) {
                let mut it = v.split('|');
                let (Some(from), Some(to), Some(how)) = (it.next(), it.next(), it.next()) else {
                    continue;
                };
                let Some(ft) = known_type(op, st, s, from) else {
                    continue;
                };
                // `other` is a C++ transformer; the one read here is the element type of a
                // `!gpu.mma_matrix` (gpu.subgroup_mma_constant_matrix and friends)
                let t = transform(how, &ft).or_else(|| {
                    crate::dialects::gpu::mma_matrix_elem(&ft).filter(|_| how == "other")
                });
                let Some(t) = t else {
                    continue;
                };
                set_named_type(op, s, to, &t);
            }
        }
    }
    for (i, spec) in op.operands.iter().enumerate() {
        if s.operand_types[i].is_none() {
            if s.operands[i].is_empty() {
                s.operand_types[i] = Some(Vec::new());
            } else {
                return Err(Diagnostic::new(
                    at,
                    format!(
                        "memplan cannot infer the type of operand '{}' of '{}'",
                        spec.name, op.name
                    ),
                ));
            }
        }
    }
    cpp_inferred_results(op, s);
    for (i, spec) in op.results.iter().enumerate() {
        if s.result_types[i].is_none() {
            if spec.arity != Arity::Single {
                s.result_types[i] = Some(Vec::new());
            } else {
                return Err(Diagnostic::new(
                    at,
                    format!(
                        "memplan cannot infer the type of result '{}' of '{}'",
                        spec.name, op.name
                    ),
                ));
            }
        }
    }
    let _ = p;
    Ok(())
}

/// Result types that an op's C++ `inferReturnTypes` gives and no trait of the table states.
pub(super) fn cpp_inferred_results(op: &OdsOp, s: &mut PState) {
    if s.result_types.first().is_some_and(|r| r.is_some()) {
        return;
    }
    let first_operand = || s.operand_types.first().cloned().flatten();
    let inferred = match op.name {
        // one result per operand, of the operand's type
        "memref.distinct_objects" => first_operand(),
        // one scalar per element of a statically shaped vector
        "vector.to_elements" => first_operand().and_then(|v| {
            let t = v.first()?;
            match t.kind() {
                TypeKind::Vector { shape, elem, .. } => {
                    let n: i64 = shape.iter().product();
                    Some(vec![elem.clone(); usize::try_from(n).ok()?])
                }
                _ => None,
            }
        }),
        // `!llvm.struct<(T, i1)>` for a value of type T
        "llvm.cmpxchg" => s
            .operand_types
            .get(2)
            .cloned()
            .flatten()
            .and_then(|v| Some(vec![crate::cpp_rules::llvm_val_and_bool(v.first()?)])),
        _ => None,
    };
    if let (Some(v), Some(slot)) = (inferred, s.result_types.first_mut()) {
        *slot = Some(v);
    }
}

/// True if the op's result types are what [`cpp_inferred_results`] gives (so that the format,
/// which does not write them, can be printed).
pub(super) fn cpp_inferred_ok(m: &Module, id: OpId, op: &OdsOp) -> bool {
    let ops: Vec<&Type> = m.operands(id).iter().map(|&v| m.value_type(v)).collect();
    let rs: Vec<&Type> = m.results(id).iter().map(|&v| m.value_type(v)).collect();
    match op.name {
        "memref.distinct_objects" => ops == rs,
        "vector.to_elements" => match ops.first().map(|t| t.kind()) {
            Some(TypeKind::Vector { shape, elem, .. }) => {
                let n: i64 = shape.iter().product();
                rs.len() as i64 == n && rs.iter().all(|t| *t == elem)
            }
            _ => false,
        },
        "llvm.cmpxchg" => match (ops.get(2), rs.first()) {
            (Some(v), Some(r)) => {
                crate::cpp_rules::llvm_same(r, &crate::cpp_rules::llvm_val_and_bool(v))
            }
            _ => false,
        },
        _ => true,
    }
}

/// The body `<case>` of a dialect enum attribute, as MLIR's enum parser reads it: one case,
/// as a keyword or a string. `Err` carries the message.
pub(crate) fn enum_body_ok(body: &str, cases: &[&str], name: &str) -> Result<(), String> {
    let inner = body
        .strip_prefix('<')
        .and_then(|b| b.strip_suffix('>'))
        .unwrap_or("")
        .trim();
    if inner.is_empty() {
        return Err("expected valid keyword or string".into());
    }
    let word = inner
        .strip_prefix('"')
        .and_then(|w| w.strip_suffix('"'))
        .unwrap_or(inner);
    if cases.contains(&word) {
        Ok(())
    } else {
        Err(format!(
            "expected one of [{}] for '{name}', found '{inner}'",
            cases.join(", ")
        ))
    }
}
