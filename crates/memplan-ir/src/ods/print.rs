//! Printing an op's custom form with its compiled format, when every element can be printed
//! so that the parse reads the same op back.

use super::*;

/// Splits `n` values among groups; `None` if the table cannot tell how.
pub(crate) fn group_sizes(
    specs: &[ValueSpec],
    n: usize,
    seg: Option<&Attribute>,
    same_size: bool,
) -> Option<Vec<usize>> {
    if let Some(Attribute::DenseArray {
        values: DenseArrayValues::Int(v),
        ..
    }) = seg
    {
        if v.len() == specs.len() && v.iter().all(|&x| x >= 0) {
            let s: Vec<usize> = v.iter().map(|&x| x as usize).collect();
            if s.iter().sum::<usize>() == n {
                return Some(s);
            }
        }
        return None;
    }
    let fixed = specs.iter().filter(|x| x.arity == Arity::Single).count();
    let var = specs.len() - fixed;
    if n < fixed {
        return None;
    }
    let rest = n - fixed;
    if var == 0 {
        return (rest == 0).then(|| vec![1; specs.len()]);
    }
    if var > 1 && !same_size {
        return None;
    }
    if !rest.is_multiple_of(var) {
        return None;
    }
    let each = rest / var;
    let sizes: Vec<usize> = specs
        .iter()
        .map(|x| if x.arity == Arity::Single { 1 } else { each })
        .collect();
    if specs
        .iter()
        .zip(&sizes)
        .any(|(x, &k)| x.arity == Arity::Optional && k > 1)
    {
        return None;
    }
    Some(sizes)
}

pub(super) struct PrintCtx<'x> {
    pub(super) operands: Vec<&'x [ValueId]>,
    pub(super) results: Vec<&'x [ValueId]>,
    /// A space is due before the next element.
    pub(super) space: bool,
    pub(super) last_punct: bool,
    /// Nothing printed yet after the op name (a leading `` ` ` `` keeps the space).
    pub(super) first: bool,
}

pub(super) fn print_op(pr: &mut Printer<'_>, id: OpId) -> bool {
    let m: &Module = pr.module();
    let d = m.op(id);
    let Some(op) = ods_of(&d.name) else {
        return false;
    };
    let Ok(fmt) = op.compiled_format() else {
        return false;
    };
    let ops = m.operands(id);
    let rs = m.results(id);
    let Some(osz) = group_sizes(
        &op.operands,
        ops.len(),
        d.props.get("operandSegmentSizes"),
        op.has_trait("SameVariadicOperandSize"),
    ) else {
        return false;
    };
    let Some(rsz) = group_sizes(
        &op.results,
        rs.len(),
        d.props.get("resultSegmentSizes"),
        op.has_trait("SameVariadicResultSize"),
    ) else {
        return false;
    };
    if op.has_trait("AttrSizedOperandSegments") && d.props.get("operandSegmentSizes").is_none() {
        return false;
    }
    if m.regions(id).len() != op.regions.len() && !op.regions.iter().any(|r| r.1) {
        return false;
    }
    if d.successors.len() != op.successors.len() && !op.successors.iter().any(|r| r.1) {
        return false;
    }
    let mut cx = PrintCtx {
        operands: split(ops, &osz),
        results: split(rs, &rsz),
        space: true,
        last_punct: false,
        first: true,
    };
    // Every attribute the format writes must have the kind the format expects, and types
    // that the parser would infer must equal what inference gives.
    if !printable(m, id, op, fmt, &cx) {
        return false;
    }
    print_elems(pr, m, id, op, fmt, &fmt.elems, &mut cx);
    true
}

pub(super) fn split<'v>(v: &'v [ValueId], sz: &[usize]) -> Vec<&'v [ValueId]> {
    let mut out = Vec::new();
    let mut at = 0;
    for &k in sz {
        out.push(&v[at..at + k]);
        at += k;
    }
    out
}

pub(super) fn attr_matches_kind(a: &Attribute, k: &AttrKind) -> bool {
    match k {
        AttrKind::Unit => matches!(a, Attribute::Unit),
        AttrKind::IntEnum { width, cases } => match a {
            Attribute::Integer { value, ty } => {
                ty == &Type::int(*width) && cases.iter().any(|c| c.1 as i128 == *value)
            }
            _ => false,
        },
        AttrKind::EnumKw {
            dialect,
            mnemonic,
            cases,
        } => enum_kw_of(a, dialect, mnemonic).is_some_and(|k| cases.contains(&k)),
        AttrKind::Stripped { prefix, .. } => stripped_body(a, prefix).is_some(),
        AttrKind::Typed(t) => match a {
            Attribute::Integer { ty, .. } | Attribute::Float { ty, .. } => ty == t,
            _ => false,
        },
        AttrKind::TypeAttr => matches!(a, Attribute::Type(_)),
        AttrKind::DenseArray(t) => matches!(a, Attribute::DenseArray { elem, .. } if elem == t),
        AttrKind::Str => matches!(a, Attribute::String { ty: None, .. }),
        AttrKind::SymName => {
            matches!(a, Attribute::String { ty: None, value } if std::str::from_utf8(value).is_ok())
        }
        AttrKind::Any => true,
        AttrKind::Unsupported => false,
    }
}

pub(super) fn enum_kw_of<'a>(a: &'a Attribute, dialect: &str, mnemonic: &str) -> Option<&'a str> {
    let Attribute::Opaque(t) = a else {
        return None;
    };
    let rest = t.strip_prefix('#')?.strip_prefix(dialect)?;
    if let Some(r) = rest.strip_prefix('<') {
        let r = r.strip_suffix('>')?.trim();
        let r = r.strip_prefix(mnemonic)?.trim();
        return Some(r);
    }
    let r = rest.strip_prefix('.')?.strip_prefix(mnemonic)?;
    let r = r.trim().strip_prefix('<')?.strip_suffix('>')?;
    Some(r.trim())
}

pub(super) fn stripped_body<'a>(a: &'a Attribute, prefix: &str) -> Option<&'a str> {
    let Attribute::Opaque(t) = a else {
        return None;
    };
    let r = t.strip_prefix(prefix)?;
    r.starts_with('<').then_some(r)
}

pub(super) fn printable(m: &Module, id: OpId, op: &OdsOp, fmt: &Format, cx: &PrintCtx<'_>) -> bool {
    let d = m.op(id);
    for name in &fmt.attrs_used {
        if let (Some(a), Some(i)) = (d.props.get(name), op.attr(name)) {
            if !attr_matches_kind(a, &op.attrs[i].kind) {
                return false;
            }
        }
    }
    // attributes the format always writes must be present (an absent one with a default
    // would print as nothing, and MLIR would read that as a syntax error)
    if !mandatory_attrs_present(m, id, op, &fmt.elems) {
        return false;
    }
    // types not written must be what the parser infers: check the simple sources
    for (i, spec) in op.operands.iter().enumerate() {
        if !fmt.operand_typed[i] {
            if let Some(t) = spec.ty.exact() {
                if cx.operands[i].iter().any(|&v| m.value_type(v) != t) {
                    return false;
                }
            }
        }
    }
    for (i, spec) in op.results.iter().enumerate() {
        if !fmt.result_typed[i] {
            if let Some(t) = spec.ty.exact() {
                if cx.results[i].iter().any(|&v| m.value_type(v) != t) {
                    return false;
                }
            }
        }
    }
    if op.has_trait("SameOperandsAndResultType") {
        let all: Vec<&Type> = m
            .operands(id)
            .iter()
            .chain(m.results(id))
            .map(|&v| m.value_type(v))
            .collect();
        if all.windows(2).any(|w| w[0] != w[1]) {
            return false;
        }
    }
    for v in op.trait_values("AllTypesMatch") {
        let mut tys = Vec::new();
        for n in v.split('|') {
            if let Some(i) = op.operands.iter().position(|o| o.name == n) {
                tys.extend(cx.operands[i].iter().map(|&x| m.value_type(x).clone()));
            } else if let Some(i) = op.results.iter().position(|o| o.name == n) {
                tys.extend(cx.results[i].iter().map(|&x| m.value_type(x).clone()));
            } else if let Some(t) = d.props.get(n).and_then(|a| a.typed()) {
                tys.push(t);
            }
        }
        if tys.windows(2).any(|w| w[0] != w[1]) {
            return false;
        }
    }
    for tr in ["TypesMatchWith", "TypesMatchWith?"] {
        for v in op.trait_values(tr) {
            let mut it = v.split('|');
            let (Some(from), Some(to), Some(how)) = (it.next(), it.next(), it.next()) else {
                continue;
            };
            let get = |n: &str| -> Option<Type> {
                if let Some(i) = op.operands.iter().position(|o| o.name == n) {
                    return cx.operands[i].first().map(|&x| m.value_type(x).clone());
                }
                if let Some(i) = op.results.iter().position(|o| o.name == n) {
                    return cx.results[i].first().map(|&x| m.value_type(x).clone());
                }
                d.props.get(n).and_then(|a| a.typed())
            };
            if let (Some(f), Some(t)) = (get(from), get(to)) {
                let Some(want) = transform(how, &f) else {
                    continue;
                };
                if want != t {
                    return false;
                }
            }
        }
    }
    customs_printable(m, id, op, &fmt.elems, cx)
        && no_empty_type_list(m, id, op, &fmt.elems, cx)
        && cpp_inferred_ok(m, id, op)
        && !swallows_next_result(m, id, op, fmt, cx)
}

/// False if the format would write an empty `type($variadic)` list: MLIR's parsers (and
/// memplan's) cannot read that back, so such an op prints in generic form.
pub(super) fn no_empty_type_list(
    m: &Module,
    id: OpId,
    op: &OdsOp,
    elems: &[Elem],
    cx: &PrintCtx<'_>,
) -> bool {
    elems.iter().all(|e| match e {
        Elem::Type(TypeRef::Operand(i), _) => {
            op.operands[*i].arity != Arity::Variadic || !cx.operands[*i].is_empty()
        }
        Elem::Type(TypeRef::Result(i), _) => {
            op.results[*i].arity != Arity::Variadic || !cx.results[*i].is_empty()
        }
        Elem::Optional(a, anchor, b) => {
            if elem_present(m, id, op, cx, &a[*anchor]) {
                no_empty_type_list(m, id, op, a, cx)
            } else {
                no_empty_type_list(m, id, op, b, cx)
            }
        }
        Elem::OIList(cs) => cs
            .iter()
            .all(|c| !clause_present(m, id, op, cx, c) || no_empty_type_list(m, id, op, c, cx)),
        _ => true,
    })
}

/// True if the op would print as its bare name although its format starts with an optional
/// operand group (`vector.print`): a following `%r = ...` line would then be read as that
/// operand, by MLIR as by memplan, so such an op prints in generic form.
pub(super) fn swallows_next_result(
    m: &Module,
    id: OpId,
    op: &OdsOp,
    fmt: &Format,
    cx: &PrintCtx<'_>,
) -> bool {
    let Some(Elem::Optional(g, anchor, els)) = fmt.elems.first() else {
        return false;
    };
    if !matches!(g[*anchor], Elem::Operand(_) | Elem::Operands)
        || elem_present(m, id, op, cx, &g[*anchor])
        || !els.is_empty()
    {
        return false;
    }
    let d = m.op(id);
    fmt.elems[1..].iter().all(|e| match e {
        Elem::OIList(cs) => !cs.iter().any(|c| clause_present(m, id, op, cx, c)),
        Elem::Optional(g, a, els) => els.is_empty() && !elem_present(m, id, op, cx, &g[*a]),
        Elem::AttrDict(_) => {
            d.attrs.is_empty()
                && d.props.iter().all(|n| {
                    fmt.attrs_used.contains(&n.name.as_str())
                        || n.name == "operandSegmentSizes"
                        || n.name == "resultSegmentSizes"
                })
        }
        _ => false,
    })
}

pub(super) fn mandatory_attrs_present(m: &Module, id: OpId, op: &OdsOp, elems: &[Elem]) -> bool {
    let d = m.op(id);
    let has = |i: &usize| d.props.get(op.attrs[*i].name).is_some();
    elems.iter().all(|e| match e {
        Elem::Attr(i) => matches!(op.attrs[*i].kind, AttrKind::Unit) || has(i),
        Elem::QualifiedAttr(i) | Elem::DynIndexList { attr: i, .. } | Elem::Linkage(i) => has(i),
        Elem::Mnk(ids) => ids.iter().all(has),
        _ => true,
    })
}

/// The custom directives print only what their parsers give back.
pub(super) fn customs_printable(
    m: &Module,
    id: OpId,
    op: &OdsOp,
    elems: &[Elem],
    cx: &PrintCtx<'_>,
) -> bool {
    let token = Type::new(TypeKind::Opaque("!gpu.async.token".into()));
    let d = m.op(id);
    // a variadic of variadics: its sizes attribute splits the group exactly
    let segs = |o: usize| -> Option<&[i64]> {
        let v = dense_ints(d.props.get(op.operands[o].segments?))?;
        (v.iter().all(|&x| x >= 0) && v.iter().sum::<i64>() == cx.operands[o].len() as i64)
            .then_some(v)
    };
    let index_list = |operand: usize, attr: usize| {
        dense_ints(d.props.get(op.attrs[attr].name)).is_some_and(|v| {
            v.iter().filter(|&&x| x == crate::types::DYNAMIC).count() == cx.operands[operand].len()
        })
    };
    let unit_or_absent =
        |i: usize| matches!(d.props.get(op.attrs[i].name), None | Some(Attribute::Unit));
    elems.iter().all(|e| match e {
        Elem::DynIndexList {
            operand,
            attr,
            scalable,
            ..
        } => {
            index_list(*operand, *attr)
                && scalable.is_none_or(|sa| match d.props.get(op.attrs[sa].name) {
                    None => true,
                    Some(a) => dense_ints(Some(a)).is_some_and(|f| {
                        let n =
                            dense_ints(d.props.get(op.attrs[*attr].name)).map_or(0, |v| v.len());
                        f.len() == n && f.iter().all(|&x| x == 0 || x == 1)
                    }),
                })
        }
        Elem::PackedIndexList {
            packed,
            operand,
            attr,
        } => {
            if cx.operands[*packed].is_empty() {
                index_list(*operand, *attr)
            } else {
                cx.operands[*operand].is_empty()
                    && dense_ints(d.props.get(op.attrs[*attr].name)).is_none_or(|v| v.is_empty())
            }
        }
        Elem::SemiFn(TypeRef::Operand(o), r, optional) => {
            cx.operands[*o].len() == 1 && (*optional || cx.results[*r].len() == 1)
        }
        Elem::MatchDims(l, inv, all) => {
            unit_or_absent(*inv)
                && unit_or_absent(*all)
                && match dense_ints(d.props.get(op.attrs[*l].name)) {
                    None => false,
                    Some(v) if d.props.get(op.attrs[*all].name).is_some() => {
                        v.is_empty() && d.props.get(op.attrs[*inv].name).is_none()
                    }
                    Some(v) => !v.is_empty(),
                }
        }
        Elem::SeqOperands(root, extra) => {
            !cx.operands[*root].is_empty() || cx.operands[*extra].is_empty()
        }
        Elem::SharedResultType(o, rs) => {
            let tys: Vec<&Type> = rs
                .iter()
                .filter_map(|&r| cx.results[r].first().map(|&v| m.value_type(v)))
                .collect();
            cx.operands[*o].len() == 1
                && tys.len() == rs.len()
                && tys.windows(2).all(|w| w[0] == w[1])
        }
        Elem::ForeachMatch(ms, acts) => {
            let flat = |i: usize| match d.props.get(op.attrs[i].name) {
                Some(Attribute::Array(v)) => v
                    .iter()
                    .all(|a| matches!(a, Attribute::SymbolRef { nested, .. } if nested.is_empty()))
                    .then_some(v.len()),
                _ => None,
            };
            matches!((flat(*ms), flat(*acts)), (Some(a), Some(b)) if a == b && a > 0)
        }
        Elem::Linkage(i) => d
            .props
            .get(op.attrs[*i].name)
            .and_then(linkage_of)
            .is_some(),
        Elem::ShuffleType(v1, r, mask) => {
            let (Some(&a), Some(&res), Some(n)) = (
                cx.operands[*v1].first(),
                cx.results[*r].first(),
                dense_ints(d.props.get(op.attrs[*mask].name)).map(|v| v.len()),
            ) else {
                return false;
            };
            shuffle_result(m.value_type(a), n).as_ref() == Some(m.value_type(res))
        }
        Elem::IndirectBr(_, o) => segs(*o).is_some_and(|v| v.len() == d.successors.len()),
        Elem::OpBundles(o, a) => {
            let Some(v) = segs(*o) else {
                return false;
            };
            match d.props.get(op.attrs[*a].name) {
                None => v.is_empty(),
                Some(Attribute::Array(tags)) => {
                    tags.len() == v.len()
                        && tags
                            .iter()
                            .all(|t| matches!(t, Attribute::String { ty: None, .. }))
                }
                Some(_) => false,
            }
        }
        Elem::OIList(cs) => cs.iter().all(|c| customs_printable(m, id, op, c, cx)),
        Elem::AsyncDeps(r, o) => cx.results[*r]
            .iter()
            .chain(cx.operands[*o].iter())
            .all(|&v| m.value_type(v) == &token),
        Elem::AwaitResultType(o, r) => {
            let (Some(&v), rs) = (cx.operands[*o].first(), cx.results[*r]) else {
                return false;
            };
            match m.value_type(v).kind() {
                TypeKind::Opaque(t) if t.starts_with("!async.value<") => {
                    let inner = &t["!async.value<".len()..t.len() - 1];
                    rs.len() == 1 && m.value_type(rs[0]).to_string() == inner.trim()
                }
                _ => rs.is_empty(),
            }
        }
        Elem::Optional(a, _, b) => {
            customs_printable(m, id, op, a, cx) && customs_printable(m, id, op, b, cx)
        }
        _ => true,
    })
}

pub(super) fn emit_space(pr: &mut Printer<'_>, cx: &mut PrintCtx<'_>) {
    cx.first = false;
    if cx.space {
        pr.write(" ");
    }
    cx.space = true;
    cx.last_punct = false;
}

pub(super) fn print_literal(pr: &mut Printer<'_>, cx: &mut PrintCtx<'_>, l: &str) {
    if l.is_empty() {
        if !cx.first {
            cx.space = false;
        }
        return;
    }
    if l == " " {
        // `` ` ` ``: exactly one space, and none before the next element
        pr.write(" ");
        cx.first = false;
        cx.space = false;
        cx.last_punct = false;
        return;
    }
    cx.first = false;
    let c = l.chars().next().unwrap_or(' ');
    let space_before = if l.len() != 1 && l != "->" {
        true
    } else if cx.last_punct {
        !">)}],".contains(c)
    } else {
        !"<>(){}[],".contains(c)
    };
    if space_before && cx.space {
        pr.write(" ");
    }
    pr.write(l);
    cx.space = l.len() != 1 || !"<({[".contains(c);
    cx.last_punct = c != '_' && !c.is_ascii_alphabetic();
}

pub(super) fn print_type_of(
    pr: &mut Printer<'_>,
    t: &Type,
    spec: Option<&ValueSpec>,
    qualified: bool,
) {
    if let (
        Some(ValueSpec {
            ty: TypeC::Dialect(pre, _),
            arity: Arity::Single,
            ..
        }),
        false,
    ) = (spec, qualified)
    {
        if let TypeKind::Opaque(s) = t.kind() {
            // MLIR's printStrippedAttrOrType: the parameters only; a type without
            // parameters (nothing stripped to print) is written in full
            if let Some(r) = s.strip_prefix(pre) {
                if r.starts_with('<') {
                    pr.write(r);
                    return;
                }
            }
        }
    }
    pr.print_type(t);
}

pub(super) fn print_type_ref(
    pr: &mut Printer<'_>,
    m: &Module,
    op: &OdsOp,
    cx: &PrintCtx<'_>,
    r: TypeRef,
    q: bool,
) {
    let (vals, spec): (Vec<ValueId>, Option<&ValueSpec>) = match r {
        TypeRef::Operand(i) => (cx.operands[i].to_vec(), Some(&op.operands[i])),
        TypeRef::Result(i) => (cx.results[i].to_vec(), Some(&op.results[i])),
        TypeRef::Operands => (cx.operands.concat(), None),
        TypeRef::Results => (cx.results.concat(), None),
    };
    for (k, v) in vals.iter().enumerate() {
        if k > 0 {
            pr.write(", ");
        }
        print_type_of(pr, m.value_type(*v), spec, q);
    }
}

pub(super) fn print_attr_value(pr: &mut Printer<'_>, spec: &AttrSpec, a: &Attribute) {
    match &spec.kind {
        AttrKind::Unit => {}
        AttrKind::IntEnum { cases, .. } => {
            if let Attribute::Integer { value, .. } = a {
                if let Some(c) = cases.iter().find(|c| c.1 as i128 == *value) {
                    pr.write(c.0);
                    return;
                }
            }
            pr.print_attr(a);
        }
        AttrKind::EnumKw {
            dialect, mnemonic, ..
        } => match enum_kw_of(a, dialect, mnemonic) {
            Some(k) => pr.write(k),
            None => pr.print_attr(a),
        },
        AttrKind::Stripped { prefix, .. } => match stripped_body(a, prefix) {
            Some(b) => pr.write(b),
            None => pr.print_attr(a),
        },
        AttrKind::Typed(t) => match a {
            Attribute::Integer { ty, .. } | Attribute::Float { ty, .. } if ty == t => {
                pr.print_attr_untyped(a)
            }
            _ => pr.print_attr(a),
        },
        AttrKind::TypeAttr => match a {
            Attribute::Type(t) => pr.print_type(t),
            _ => pr.print_attr(a),
        },
        AttrKind::DenseArray(_) => match a {
            Attribute::DenseArray { values, .. } => {
                pr.write("[");
                match values {
                    DenseArrayValues::Int(v) => {
                        for (i, x) in v.iter().enumerate() {
                            if i > 0 {
                                pr.write(", ");
                            }
                            pr.write(&x.to_string());
                        }
                    }
                    DenseArrayValues::Float(v) => {
                        for (i, x) in v.iter().enumerate() {
                            if i > 0 {
                                pr.write(", ");
                            }
                            let mut s = String::new();
                            crate::attrs::write_float(&mut s, *x, None);
                            pr.write(&s);
                        }
                    }
                }
                pr.write("]");
            }
            _ => pr.print_attr(a),
        },
        AttrKind::SymName => match a {
            Attribute::String { value, .. } => {
                pr.print_symbol_name(&String::from_utf8_lossy(value));
            }
            _ => pr.print_attr(a),
        },
        AttrKind::Str | AttrKind::Any | AttrKind::Unsupported => pr.print_attr(a),
    }
}

pub(super) fn elem_present(m: &Module, id: OpId, op: &OdsOp, cx: &PrintCtx<'_>, e: &Elem) -> bool {
    let d = m.op(id);
    match e {
        Elem::Operand(i) => !cx.operands[*i].is_empty(),
        Elem::Operands => cx.operands.iter().any(|g| !g.is_empty()),
        Elem::Attr(i) | Elem::QualifiedAttr(i) => d.props.get(op.attrs[*i].name).is_some(),
        Elem::Type(TypeRef::Operand(i), _) => !cx.operands[*i].is_empty(),
        Elem::Type(TypeRef::Result(i), _) => !cx.results[*i].is_empty(),
        Elem::Type(TypeRef::Operands, _) => !m.operands(id).is_empty(),
        Elem::Type(TypeRef::Results, _) => !m.results(id).is_empty(),
        Elem::Region(i) => {
            let rs = region_groups(m, id, op);
            rs.get(*i)
                .is_some_and(|g| g.iter().any(|&r| !m.region_blocks(r).is_empty()))
        }
        Elem::Regions => m
            .regions(id)
            .iter()
            .any(|&r| !m.region_blocks(r).is_empty()),
        Elem::Successor(_) | Elem::Successors => !d.successors.is_empty(),
        Elem::AllReduceOp(i) => d.props.get(op.attrs[*i].name).is_some(),
        // MLIR: a custom directive anchors a group when one of its arguments is present
        Elem::DynIndexList {
            operand,
            attr,
            scalable,
            ..
        } => {
            !cx.operands[*operand].is_empty()
                || d.props.get(op.attrs[*attr].name).is_some()
                || scalable.is_some_and(|s| d.props.get(op.attrs[s].name).is_some())
        }
        Elem::PackedIndexList {
            packed,
            operand,
            attr,
        } => {
            !cx.operands[*packed].is_empty()
                || !cx.operands[*operand].is_empty()
                || d.props.get(op.attrs[*attr].name).is_some()
        }
        Elem::OpBundles(o, a) => {
            let n = op.operands[*o]
                .segments
                .and_then(|seg| dense_ints(d.props.get(seg)))
                .map_or(0, |v| v.len());
            n > 0 || d.props.get(op.attrs[*a].name).is_some()
        }
        _ => true,
    }
}

/// An `oilist` clause is printed when one of its variables is present.
pub(super) fn clause_present(
    m: &Module,
    id: OpId,
    op: &OdsOp,
    cx: &PrintCtx<'_>,
    c: &[Elem],
) -> bool {
    c.iter().any(|e| match e {
        Elem::Operand(_)
        | Elem::Attr(_)
        | Elem::QualifiedAttr(_)
        | Elem::DynIndexList { .. }
        | Elem::PackedIndexList { .. } => elem_present(m, id, op, cx, e),
        _ => false,
    })
}

pub(super) fn region_groups(m: &Module, id: OpId, op: &OdsOp) -> Vec<Vec<crate::ir::RegionId>> {
    let rs = m.regions(id);
    if op.regions.len() == 1 {
        return vec![rs.to_vec()];
    }
    rs.iter().map(|&r| vec![r]).collect()
}

pub(super) fn print_elems(
    pr: &mut Printer<'_>,
    m: &Module,
    id: OpId,
    op: &OdsOp,
    fmt: &Format,
    elems: &[Elem],
    cx: &mut PrintCtx<'_>,
) {
    for e in elems {
        print_elem(pr, m, id, op, fmt, e, cx);
    }
}

pub(super) fn print_elem(
    pr: &mut Printer<'_>,
    m: &Module,
    id: OpId,
    op: &OdsOp,
    fmt: &Format,
    e: &Elem,
    cx: &mut PrintCtx<'_>,
) {
    let d = m.op(id);
    match e {
        Elem::Literal(l) => print_literal(pr, cx, l),
        Elem::Operand(i) => {
            if cx.operands[*i].is_empty() {
                return;
            }
            emit_space(pr, cx);
            pr.print_operands(cx.operands[*i]);
        }
        Elem::Operands => {
            emit_space(pr, cx);
            pr.print_operands(m.operands(id));
        }
        Elem::Attr(i) => {
            let spec = &op.attrs[*i];
            if matches!(spec.kind, AttrKind::Unit) {
                return;
            }
            if let Some(a) = d.props.get(spec.name) {
                emit_space(pr, cx);
                print_attr_value(pr, spec, a);
            }
        }
        Elem::QualifiedAttr(i) => {
            if let Some(a) = d.props.get(op.attrs[*i].name) {
                emit_space(pr, cx);
                pr.print_attr(a);
            }
        }
        Elem::Type(r, q) => {
            emit_space(pr, cx);
            print_type_ref(pr, m, op, cx, *r, *q);
        }
        Elem::FunctionalType(a, b) => {
            emit_space(pr, cx);
            pr.write("(");
            print_type_ref(pr, m, op, cx, *a, true);
            pr.write(") -> ");
            let outs: Vec<Type> = match b {
                TypeRef::Operand(i) => cx.operands[*i]
                    .iter()
                    .map(|&v| m.value_type(v).clone())
                    .collect(),
                TypeRef::Result(i) => cx.results[*i]
                    .iter()
                    .map(|&v| m.value_type(v).clone())
                    .collect(),
                TypeRef::Operands => m
                    .operands(id)
                    .iter()
                    .map(|&v| m.value_type(v).clone())
                    .collect(),
                TypeRef::Results => m
                    .results(id)
                    .iter()
                    .map(|&v| m.value_type(v).clone())
                    .collect(),
            };
            pr.print_function_result_types(&outs);
        }
        Elem::AttrDict(kw) => {
            // inherent attributes the format does not write go to the attr-dict
            let mut all = Dict::new();
            for n in d.props.iter() {
                if fmt.attrs_used.contains(&n.name.as_str())
                    || n.name == "operandSegmentSizes"
                    || n.name == "resultSegmentSizes"
                {
                    continue;
                }
                if has_prop_dict(fmt) {
                    continue;
                }
                all.set(n.name.clone(), n.value.clone());
            }
            for n in d.attrs.iter() {
                all.set(n.name.clone(), n.value.clone());
            }
            if *kw {
                pr.print_optional_attr_dict_with_keyword(&all, &[]);
            } else {
                pr.print_optional_attr_dict(&all, &[]);
            }
            cx.space = true;
            cx.last_punct = false;
        }
        Elem::PropDict => {
            let mut all = Dict::new();
            for n in d.props.iter() {
                if fmt.attrs_used.contains(&n.name.as_str())
                    || n.name == "operandSegmentSizes"
                    || n.name == "resultSegmentSizes"
                {
                    continue;
                }
                all.set(n.name.clone(), n.value.clone());
            }
            if !all.is_empty() {
                emit_space(pr, cx);
                pr.write("<");
                let mut s = String::new();
                all.write_to(&mut s);
                pr.write(&s);
                pr.write(">");
            }
        }
        Elem::Region(i) => {
            let groups = region_groups(m, id, op);
            if let Some(g) = groups.get(*i) {
                for (k, &r) in g.iter().enumerate() {
                    if k > 0 {
                        pr.write(",");
                    }
                    emit_space(pr, cx);
                    pr.print_region(r, true, true);
                }
            }
        }
        Elem::Regions => {
            for (k, &r) in m.regions(id).iter().enumerate() {
                if k > 0 {
                    pr.write(",");
                }
                emit_space(pr, cx);
                pr.print_region(r, true, true);
            }
        }
        Elem::Successor(i) => {
            let succ: Vec<_> = if op.successors.len() == 1 {
                d.successors.clone()
            } else {
                d.successors.get(*i).into_iter().copied().collect()
            };
            if succ.is_empty() {
                return;
            }
            emit_space(pr, cx);
            for (k, b) in succ.iter().enumerate() {
                if k > 0 {
                    pr.write(", ");
                }
                pr.print_successor(*b);
            }
        }
        Elem::Successors => {
            emit_space(pr, cx);
            for (k, b) in d.successors.iter().enumerate() {
                if k > 0 {
                    pr.write(", ");
                }
                pr.print_successor(*b);
            }
        }
        Elem::AsyncDeps(r, o) => {
            let has_token = !cx.results[*r].is_empty();
            if has_token {
                emit_space(pr, cx);
                pr.write("async");
            }
            if !cx.operands[*o].is_empty() {
                emit_space(pr, cx);
                pr.write("[");
                pr.print_operands(cx.operands[*o]);
                pr.write("]");
            }
        }
        Elem::AwaitResultType(o, _) => {
            emit_space(pr, cx);
            print_type_ref(pr, m, op, cx, TypeRef::Operand(*o), true);
        }
        Elem::OIList(clauses) => {
            for c in clauses {
                if clause_present(m, id, op, cx, c) {
                    print_elems(pr, m, id, op, fmt, c, cx);
                }
            }
        }
        Elem::DynIndexList {
            operand,
            attr,
            paren,
            scalable,
        } => {
            emit_space(pr, cx);
            let stat = dense_ints(d.props.get(op.attrs[*attr].name)).unwrap_or(&[]);
            let (o, c) = if *paren { ('(', ')') } else { ('[', ']') };
            let flags = scalable
                .and_then(|sa| dense_ints(d.props.get(op.attrs[sa].name)))
                .unwrap_or(&[]);
            if flags.contains(&1) {
                pr.write(&o.to_string());
                let mut k = 0;
                for (i, &v) in stat.iter().enumerate() {
                    if i > 0 {
                        pr.write(", ");
                    }
                    let sc = flags.get(i) == Some(&1);
                    if sc {
                        pr.write("[");
                    }
                    if v == crate::types::DYNAMIC {
                        if let Some(&x) = cx.operands[*operand].get(k) {
                            pr.print_operand(x);
                        }
                        k += 1;
                    } else {
                        pr.write(&v.to_string());
                    }
                    if sc {
                        pr.write("]");
                    }
                }
                pr.write(&c.to_string());
            } else {
                pr.print_dynamic_index_list(cx.operands[*operand], stat, o, c);
            }
        }
        Elem::PackedIndexList {
            packed,
            operand,
            attr,
        } => {
            emit_space(pr, cx);
            if let Some(&v) = cx.operands[*packed].first() {
                pr.write("*(");
                pr.print_operand(v);
                pr.write(")");
            } else {
                let stat = dense_ints(d.props.get(op.attrs[*attr].name)).unwrap_or(&[]);
                pr.print_dynamic_index_list(cx.operands[*operand], stat, '[', ']');
            }
        }
        Elem::SemiFn(arg, r, _) => {
            emit_space(pr, cx);
            let a = match arg {
                TypeRef::Operand(o) => cx.operands[*o].first().map(|&v| m.value_type(v).clone()),
                _ => None,
            };
            let rs: Vec<Type> = cx.results[*r]
                .iter()
                .map(|&v| m.value_type(v).clone())
                .collect();
            if !rs.is_empty() {
                pr.write("(");
            }
            if let Some(a) = a {
                pr.print_type(&a);
            }
            if !rs.is_empty() {
                pr.write(") -> ");
                if rs.len() > 1 {
                    pr.write("(");
                }
                pr.print_types(&rs);
                if rs.len() > 1 {
                    pr.write(")");
                }
            }
        }
        Elem::MatchDims(l, inv, all) => {
            emit_space(pr, cx);
            if d.props.get(op.attrs[*all].name).is_some() {
                pr.write("all");
            } else {
                let v = dense_ints(d.props.get(op.attrs[*l].name)).unwrap_or(&[]);
                let list = v
                    .iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(", ");
                if d.props.get(op.attrs[*inv].name).is_some() {
                    pr.write(&format!("except({list})"));
                } else {
                    pr.write(&list);
                }
            }
        }
        Elem::SeqOperands(root, extra) => {
            if let Some(&rv) = cx.operands[*root].first() {
                emit_space(pr, cx);
                pr.print_operand(rv);
                let ex = cx.operands[*extra];
                if !ex.is_empty() {
                    pr.write(", ");
                    pr.print_operands(ex);
                }
                pr.write(" : ");
                if !ex.is_empty() {
                    pr.write("(");
                }
                pr.print_type(&m.value_type(rv).clone());
                if !ex.is_empty() {
                    let tys: Vec<Type> = ex.iter().map(|&v| m.value_type(v).clone()).collect();
                    pr.write(", ");
                    pr.print_types(&tys);
                    pr.write(")");
                }
            }
        }
        Elem::SharedResultType(o, rs) => {
            emit_space(pr, cx);
            let a = cx.operands[*o].first().map(|&v| m.value_type(v).clone());
            let r = rs
                .first()
                .and_then(|&r| cx.results[r].first())
                .map(|&v| m.value_type(v).clone());
            if let (Some(a), Some(r)) = (a, r) {
                pr.print_type(&Type::function(vec![a], vec![r]));
            }
        }
        Elem::ForeachMatch(ms, acts) => {
            emit_space(pr, cx);
            let syms = |i: usize| match d.props.get(op.attrs[i].name) {
                Some(Attribute::Array(v)) => v.clone(),
                _ => Vec::new(),
            };
            for (k, (a, b)) in syms(*ms).iter().zip(syms(*acts).iter()).enumerate() {
                if k > 0 {
                    pr.write(", ");
                }
                pr.print_attr(a);
                pr.write(" -> ");
                pr.print_attr(b);
            }
        }
        Elem::Mnk(ids) => {
            emit_space(pr, cx);
            for (k, i) in ids.iter().enumerate() {
                if k > 0 {
                    pr.write("x");
                }
                if let Some(a) = d.props.get(op.attrs[*i].name) {
                    pr.print_attr_untyped(a);
                }
            }
        }
        Elem::AllReduceOp(i) => {
            if let Some(a) = d.props.get(op.attrs[*i].name) {
                // MLIR writes a space of its own before the keyword
                emit_space(pr, cx);
                pr.write(" ");
                print_attr_value(pr, &op.attrs[*i], a);
            }
        }
        Elem::Linkage(i) => {
            if let Some(l) = d.props.get(op.attrs[*i].name).and_then(linkage_of) {
                emit_space(pr, cx);
                pr.write(l);
            }
        }
        Elem::ShuffleType(..) => {}
        Elem::IndirectBr(_, o) => {
            emit_space(pr, cx);
            pr.write("[");
            let sizes = op.operands[*o]
                .segments
                .and_then(|seg| dense_ints(d.props.get(seg)))
                .unwrap_or(&[]);
            let mut at = 0;
            for (k, (&b, &n)) in d.successors.iter().zip(sizes).enumerate() {
                if k > 0 {
                    pr.write(",");
                }
                pr.print_newline();
                let n = n as usize;
                pr.print_successor_and_use_list(b, &cx.operands[*o][at..at + n]);
                at += n;
            }
            if !d.successors.is_empty() {
                pr.print_newline();
            }
            pr.write("]");
        }
        Elem::OpBundles(o, a) => {
            emit_space(pr, cx);
            pr.write("[");
            let sizes = op.operands[*o]
                .segments
                .and_then(|seg| dense_ints(d.props.get(seg)))
                .unwrap_or(&[]);
            let tags = match d.props.get(op.attrs[*a].name) {
                Some(Attribute::Array(t)) => t.as_slice(),
                _ => &[],
            };
            let mut at = 0;
            for (k, (t, &n)) in tags.iter().zip(sizes).enumerate() {
                if k > 0 {
                    pr.write(", ");
                }
                pr.print_attr(t);
                let vs = &cx.operands[*o][at..at + n as usize];
                at += n as usize;
                pr.write("(");
                if !vs.is_empty() {
                    pr.print_operands(vs);
                    pr.write(" : ");
                    for (j, &v) in vs.iter().enumerate() {
                        if j > 0 {
                            pr.write(", ");
                        }
                        pr.print_type(m.value_type(v));
                    }
                }
                pr.write(")");
            }
            pr.write("]");
        }
        Elem::Optional(elems, anchor, els) => {
            if elem_present(m, id, op, cx, &elems[*anchor]) {
                print_elems(pr, m, id, op, fmt, elems, cx);
            } else {
                print_elems(pr, m, id, op, fmt, els, cx);
            }
        }
    }
}

/// The keyword of a `#llvm.linkage<kw>` attribute.
pub(super) fn linkage_of(a: &Attribute) -> Option<&'static str> {
    let Attribute::Opaque(t) = a else {
        return None;
    };
    let kw = t.strip_prefix("#llvm.linkage<")?.strip_suffix('>')?.trim();
    LINKAGES.iter().find(|l| **l == kw).copied()
}

pub(super) fn has_prop_dict(fmt: &Format) -> bool {
    fn any(es: &[Elem]) -> bool {
        es.iter().any(|e| match e {
            Elem::PropDict => true,
            Elem::Optional(a, _, b) => any(a) || any(b),
            _ => false,
        })
    }
    any(&fmt.elems)
}
