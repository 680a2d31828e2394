//! The `arith` dialect (mlir/include/mlir/Dialect/Arith/IR/ArithOps.td): constants, the
//! binary-op family with `overflow<...>` / `fastmath<...>` flags, comparisons with their
//! enum predicates, `select`, the casts (with rounding modes and flags), the two-result
//! `*_extended` ops and `negf`. One assembly format is shared by many ops, so each family
//! has one parse/print/verify triple driven by small tables.
//!
//! ```text
//! %c = arith.constant 42 : i32          %t = arith.constant dense<0> : tensor<4xi32>
//! %s = arith.addi %a, %b overflow<nsw> : i32
//! %p = arith.cmpf ogt, %x, %y fastmath<fast> : f32
//! %r = arith.select %p, %a, %b : i32    %v = arith.select %m, %x, %y : vector<4xi1>, vector<4xf32>
//! %t = arith.truncf %d to_nearest_even fastmath<contract> : f64 to f32
//! %sum, %carry = arith.addui_extended %a, %b : i32, i1
//! ```
//!
//! The verifiers follow the ODS type constraints (`SignlessIntegerLike`, `FloatLike`,
//! `BoolLike`, same-shape rules, cast compatibility); their messages reuse MLIR's wording
//! so that diagnostics read like `mlir-opt`'s.

use crate::ir::{Module, OpData, OpId, OperationState};
use crate::lexer::Tok;
use crate::parser::{PResult, Parser};
use crate::printer::Printer;
use crate::registry::{OpDef, Registry};
use crate::types::{Signedness, TypeKind};
use crate::{Attribute, Diagnostic, Type};

/// Integer binary ops that carry `overflow<...>` flags.
pub const INT_OVERFLOW_OPS: &[&str] = &["arith.addi", "arith.subi", "arith.muli", "arith.shli"];
/// Integer binary ops without flags.
pub const INT_OPS: &[&str] = &[
    "arith.divsi",
    "arith.divui",
    "arith.ceildivsi",
    "arith.ceildivui",
    "arith.floordivsi",
    "arith.remsi",
    "arith.remui",
    "arith.andi",
    "arith.ori",
    "arith.xori",
    "arith.shrsi",
    "arith.shrui",
    "arith.maxsi",
    "arith.maxui",
    "arith.minsi",
    "arith.minui",
];
/// Integer ops that carry the `exact` unit flag (`isExact`).
pub const EXACT_OPS: &[&str] = &["arith.divsi", "arith.divui", "arith.shrsi", "arith.shrui"];
/// Float binary ops that carry `fastmath<...>` flags.
pub const FLOAT_OPS: &[&str] = &[
    "arith.addf",
    "arith.subf",
    "arith.mulf",
    "arith.divf",
    "arith.remf",
    "arith.maximumf",
    "arith.minimumf",
    "arith.maxnumf",
    "arith.minnumf",
];
/// `arith.cmpi` predicates, in enum order (`predicate = N : i64`).
pub const CMPI_PREDICATES: &[&str] = &[
    "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
];
/// `arith.cmpf` predicates, in enum order.
pub const CMPF_PREDICATES: &[&str] = &[
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule",
    "une", "uno", "true",
];
/// `arith.truncf` rounding modes, in enum order (`roundingmode = N : i32`).
pub const ROUNDING_MODES: &[&str] = &[
    "to_nearest_even",
    "downward",
    "upward",
    "toward_zero",
    "to_nearest_away",
];

/// What the operand/result element types of a cast must be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CastRule {
    /// Float to wider float.
    ExtF,
    /// Float to narrower float.
    TruncF,
    /// Integer to wider integer.
    ExtI,
    /// Integer to narrower integer.
    TruncI,
    /// Integer to float.
    IntToFloat,
    /// Float to integer.
    FloatToInt,
    /// Index to integer or back.
    Index,
    /// Same bit width.
    Bitcast,
}

/// Casts: name, element rule, flag keyword accepted after the operand.
const CASTS: &[(&str, CastRule)] = &[
    ("arith.extf", CastRule::ExtF),
    ("arith.truncf", CastRule::TruncF),
    ("arith.extsi", CastRule::ExtI),
    ("arith.extui", CastRule::ExtI),
    ("arith.trunci", CastRule::TruncI),
    ("arith.sitofp", CastRule::IntToFloat),
    ("arith.uitofp", CastRule::IntToFloat),
    ("arith.fptosi", CastRule::FloatToInt),
    ("arith.fptoui", CastRule::FloatToInt),
    ("arith.index_cast", CastRule::Index),
    ("arith.index_castui", CastRule::Index),
    ("arith.bitcast", CastRule::Bitcast),
];

/// Registers the arith ops.
pub fn register(r: &mut Registry) {
    r.register(OpDef {
        parse: Some(parse_constant),
        print: Some(print_constant),
        verify: Some(verify_constant),
        inherent: &["value"],
        ..OpDef::new("arith.constant")
    });
    for &n in INT_OVERFLOW_OPS {
        r.register(OpDef {
            parse: Some(parse_binary),
            print: Some(print_binary),
            verify: Some(verify_binary),
            inherent: &["overflowFlags"],
            ..OpDef::new(n)
        });
    }
    for &n in INT_OPS {
        r.register(OpDef {
            parse: Some(parse_binary),
            print: Some(print_binary),
            verify: Some(verify_binary),
            inherent: if EXACT_OPS.contains(&n) {
                &["isExact"]
            } else {
                &[]
            },
            ..OpDef::new(n)
        });
    }
    for &n in FLOAT_OPS {
        r.register(OpDef {
            parse: Some(parse_binary),
            print: Some(print_binary),
            verify: Some(verify_binary),
            inherent: &["fastmath"],
            ..OpDef::new(n)
        });
    }
    r.register(OpDef {
        parse: Some(parse_binary),
        print: Some(print_binary),
        verify: Some(verify_binary),
        inherent: &["fastmath"],
        ..OpDef::new("arith.negf")
    });
    r.register(OpDef {
        parse: Some(parse_cmp),
        print: Some(print_cmp),
        verify: Some(verify_cmp),
        inherent: &["predicate"],
        ..OpDef::new("arith.cmpi")
    });
    r.register(OpDef {
        parse: Some(parse_cmp),
        print: Some(print_cmp),
        verify: Some(verify_cmp),
        inherent: &["predicate", "fastmath"],
        ..OpDef::new("arith.cmpf")
    });
    r.register(OpDef {
        parse: Some(parse_select),
        print: Some(print_select),
        verify: Some(verify_select),
        ..OpDef::new("arith.select")
    });
    for &(n, _) in CASTS {
        r.register(OpDef {
            parse: Some(parse_cast),
            print: Some(print_cast),
            verify: Some(verify_cast),
            inherent: &["fastmath", "roundingmode", "overflowFlags"],
            ..OpDef::new(n)
        });
    }
    for n in [
        "arith.addui_extended",
        "arith.mulsi_extended",
        "arith.mului_extended",
    ] {
        r.register(OpDef {
            parse: Some(parse_extended),
            print: Some(print_extended),
            verify: Some(verify_extended),
            ..OpDef::new(n)
        });
    }
}

// ===== shared helpers (also used by math, linalg, tensor, vector) =====

/// An inherent attribute: from the properties, or from the attribute dictionary when the
/// op was written in generic form with `{predicate = 0}`.
pub(crate) fn inherent<'d>(d: &'d OpData, name: &str) -> Option<&'d Attribute> {
    d.props.get(name).or_else(|| d.attrs.get(name))
}

/// Parses `KW<a, b>` if keyword `kw` is next, returning `PREFIX<a, b>` as an opaque attribute.
pub(crate) fn parse_optional_flags(
    p: &mut Parser<'_>,
    kw: &str,
    prefix: &str,
) -> PResult<Option<Attribute>> {
    if !p.parse_optional_keyword(kw) {
        return Ok(None);
    }
    p.parse_less()?;
    let mut flags = Vec::new();
    loop {
        flags.push(p.parse_keyword_any("flag")?.to_string());
        if !p.consume_if(Tok::Comma) {
            break;
        }
    }
    p.parse_greater()?;
    // mlir-opt prints fastmath flags as `nnan,ninf` and overflow flags as `nsw, nuw`.
    let sep = if kw == "fastmath" { "," } else { ", " };
    Ok(Some(Attribute::Opaque(format!(
        "{prefix}<{}>",
        flags.join(sep)
    ))))
}

/// Prints ` KW<flags>` for an opaque `PREFIX<flags>` attribute (nothing for `<none>`).
/// Returns false when the attribute does not have that shape (the caller then keeps it in
/// the attribute dictionary).
pub(crate) fn print_flags(p: &mut Printer<'_>, kw: &str, prefix: &str, a: &Attribute) -> bool {
    // The custom form re-parses the body as a list of bare keywords: anything else
    // (opaque text is not validated on the way in) stays in the attribute dictionary.
    let is_keyword = |w: &str| {
        let mut cs = w.chars();
        cs.next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && cs.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'))
    };
    match a {
        Attribute::Opaque(t)
            if t.strip_prefix(prefix)
                .and_then(|b| b.strip_prefix('<'))
                .and_then(|b| b.strip_suffix('>'))
                .is_some_and(|list| list.split(',').all(|w| is_keyword(w.trim()))) =>
        {
            let body = &t[prefix.len()..];
            if body != "<none>" {
                p.print_keyword(kw);
                p.write(body);
            }
            true
        }
        _ => false,
    }
}

/// `#arith.fastmath<none>`, the default flags MLIR's builders attach.
pub(crate) fn fastmath_none() -> Attribute {
    Attribute::Opaque("#arith.fastmath<none>".into())
}

/// `#arith.overflow<none>`.
pub(crate) fn overflow_none() -> Attribute {
    Attribute::Opaque("#arith.overflow<none>".into())
}

/// The element type of a vector or tensor, the type itself otherwise.
pub(crate) fn elem(t: &Type) -> &Type {
    match t.kind() {
        TypeKind::Vector { elem, .. }
        | TypeKind::RankedTensor { elem, .. }
        | TypeKind::UnrankedTensor { elem } => elem,
        _ => t,
    }
}

/// Signless integer or index scalar.
pub(crate) fn is_signless_int_or_index(t: &Type) -> bool {
    matches!(
        t.kind(),
        TypeKind::Index
            | TypeKind::Integer {
                signedness: Signedness::Signless,
                ..
            }
    )
}

/// True for scalars, vectors and tensors whose elements satisfy `f`.
fn like(t: &Type, f: fn(&Type) -> bool) -> bool {
    match t.kind() {
        TypeKind::Vector { elem, .. }
        | TypeKind::RankedTensor { elem, .. }
        | TypeKind::UnrankedTensor { elem } => f(elem),
        _ => f(t),
    }
}

/// `SignlessIntegerLike` (signless integers and index, or vectors/tensors of them).
pub(crate) fn is_int_like(t: &Type) -> bool {
    like(t, is_signless_int_or_index)
}

/// `FloatLike`.
pub(crate) fn is_float_like(t: &Type) -> bool {
    like(t, Type::is_float)
}

/// `BoolLike` (i1 or vectors/tensors of i1).
pub(crate) fn is_bool_like(t: &Type) -> bool {
    like(t, |e| *e == Type::int(1))
}

/// The same container (vector/tensor shape) as `t` with element type `e`.
pub(crate) fn with_elem(t: &Type, e: Type) -> Type {
    match t.kind() {
        TypeKind::Vector {
            shape, scalable, ..
        } => Type::new(TypeKind::Vector {
            shape: shape.clone(),
            scalable: scalable.clone(),
            elem: e,
        }),
        TypeKind::RankedTensor {
            shape, encoding, ..
        } => Type::new(TypeKind::RankedTensor {
            shape: shape.clone(),
            elem: e,
            encoding: encoding.clone(),
        }),
        TypeKind::UnrankedTensor { .. } => Type::new(TypeKind::UnrankedTensor { elem: e }),
        _ => e,
    }
}

/// True if `a` and `b` are the same container with the same shape (scalars match scalars).
pub(crate) fn same_shape(a: &Type, b: &Type) -> bool {
    with_elem(a, Type::none()) == with_elem(b, Type::none())
}

fn check_operand(
    m: &Module,
    op: OpId,
    i: usize,
    what: &str,
    f: fn(&Type) -> bool,
) -> Result<(), String> {
    let t = m.value_type(m.operands(op)[i]);
    if f(t) {
        Ok(())
    } else {
        Err(format!("operand #{i} must be {what}, but got '{t}'"))
    }
}

fn check_counts(m: &Module, op: OpId, operands: usize, results: usize) -> Result<(), String> {
    if m.operands(op).len() != operands {
        return Err(format!(
            "expected {operands} operands, but found {}",
            m.operands(op).len()
        ));
    }
    if m.results(op).len() != results {
        return Err(format!(
            "requires {results} result(s), but found {}",
            m.results(op).len()
        ));
    }
    Ok(())
}

// ===== constant =====

fn parse_constant(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let at = p.current_span();
    let v = p.parse_attribute()?;
    let Some(ty) = v.typed() else {
        return Err(Diagnostic::new(
            at,
            "expected a typed attribute for 'arith.constant'",
        ));
    };
    st.result_types.push(ty);
    st.props.set("value", v);
    Ok(())
}

fn print_constant(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let Some(v) = d.props.get("value") else {
        return false;
    };
    if m.results(op).len() != 1
        || !m.operands(op).is_empty()
        || v.typed().as_ref() != Some(m.value_type(m.result(op, 0)))
    {
        return false;
    }
    p.print_optional_attr_dict(&d.attrs, &[]);
    p.write(" ");
    p.print_attr(v);
    true
}

fn verify_constant(m: &Module, op: OpId) -> Result<(), String> {
    check_counts(m, op, 0, 1)?;
    let d = m.op(op);
    let Some(v) = inherent(d, "value") else {
        return Err("requires attribute 'value'".into());
    };
    let rt = m.value_type(m.result(op, 0));
    if let TypeKind::Integer { signedness, .. } = rt.kind() {
        if *signedness != Signedness::Signless {
            return Err("integer return type must be signless".into());
        }
    }
    let same = match v {
        Attribute::Integer { ty, value } => {
            ty == rt
                && match rt.kind() {
                    TypeKind::Integer { width: 1, .. } => *value == 0 || *value == 1,
                    _ => true,
                }
        }
        Attribute::Bool(_) => *rt == Type::int(1),
        Attribute::Float { ty, .. } | Attribute::Elements { ty, .. } => ty == rt,
        Attribute::String { .. } | Attribute::Unit | Attribute::Dict(_) => false,
        _ => true,
    };
    if !same {
        return Err("failed to verify that all of {value, result} have same type".into());
    }
    if let TypeKind::Vector { scalable, elem, .. } = rt.kind() {
        if scalable.iter().any(|&s| s) && known_not_splat(v, elem) {
            return Err("intializing scalable vectors with elements attribute is not supported unless it's a vector splat".into());
        }
    }
    Ok(())
}

/// True when `v` is an elements attribute that is certainly not a splat: a `dense` list
/// whose elements of type `elem` do not all have the same bits (MLIR stores a list of equal
/// values as a splat). Anything this cannot decode (hex bodies, complex or narrow floats,
/// hex float literals) counts as a possible splat, so the caller never rejects too much.
fn known_not_splat(v: &Attribute, elem: &Type) -> bool {
    let Attribute::Elements { kind, body, .. } = v else {
        return false;
    };
    if kind != "dense" {
        return kind == "sparse";
    }
    let flat: String = body.chars().filter(|c| *c != '[' && *c != ']').collect();
    let items: Vec<&str> = flat.split(',').map(str::trim).collect();
    if items.len() < 2 || items.iter().any(|s| s.is_empty() || s.starts_with('"')) {
        return false;
    }
    let bits: Option<Vec<u64>> = match elem.kind() {
        TypeKind::Integer { width, .. } if *width <= 64 => {
            let mask = if *width == 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            items
                .iter()
                .map(|s| {
                    let n: i128 = match *s {
                        "true" => 1,
                        "false" => 0,
                        _ => s.parse().ok()?,
                    };
                    Some((n as u64) & mask)
                })
                .collect()
        }
        TypeKind::Index => items
            .iter()
            .map(|s| s.parse::<i64>().ok().map(|n| n as u64))
            .collect(),
        TypeKind::Float(crate::types::FloatKind::F32) => items
            .iter()
            .map(|s| {
                dec_float(s)
                    .and_then(|t| t.parse::<f32>().ok())
                    .map(|f| u64::from(f.to_bits()))
            })
            .collect(),
        TypeKind::Float(crate::types::FloatKind::F64) => items
            .iter()
            .map(|s| {
                dec_float(s)
                    .and_then(|t| t.parse::<f64>().ok())
                    .map(f64::to_bits)
            })
            .collect(),
        _ => None,
    };
    bits.is_some_and(|b| b.iter().any(|x| *x != b[0]))
}

/// `s` if it is a plain decimal float literal (no hex, no inf/nan spelling).
fn dec_float(s: &str) -> Option<&str> {
    let ok = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'))
        && s.chars().any(|c| c.is_ascii_digit());
    ok.then_some(s)
}

// ===== binary ops and negf =====

/// The flag keyword, attribute name and attribute prefix an op uses, if any.
fn flag_kind(name: &str) -> Option<(&'static str, &'static str, &'static str)> {
    if INT_OVERFLOW_OPS.contains(&name) || name == "arith.trunci" {
        Some(("overflow", "overflowFlags", "#arith.overflow"))
    } else if FLOAT_OPS.contains(&name)
        || matches!(
            name,
            "arith.negf" | "arith.cmpf" | "arith.extf" | "arith.truncf"
        )
    {
        Some(("fastmath", "fastmath", "#arith.fastmath"))
    } else {
        None
    }
}

fn parse_flags_for(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    if let Some((kw, attr, prefix)) = flag_kind(&st.name) {
        if let Some(a) = parse_optional_flags(p, kw, prefix)? {
            st.props.set(attr, a);
        }
    }
    Ok(())
}

/// Prints the op's flags; returns the names consumed and the leftovers for the dictionary.
fn print_flags_for(p: &mut Printer<'_>, d: &OpData, extra: &mut crate::Dict) -> Vec<&'static str> {
    let mut elided = Vec::new();
    if let Some((kw, attr, prefix)) = flag_kind(&d.name) {
        if let Some(a) = d.props.get(attr) {
            if print_flags(p, kw, prefix, a) {
                elided.push(attr);
            } else {
                extra.set(attr, a.clone());
            }
        }
    }
    elided
}

fn parse_binary(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let lhs = p.parse_operand()?;
    let rhs = if st.name == "arith.negf" {
        None
    } else {
        p.parse_comma()?;
        Some(p.parse_operand()?)
    };
    if EXACT_OPS.contains(&st.name.as_str()) && p.parse_optional_keyword("exact") {
        st.props.set("isExact", crate::Attribute::Unit);
    }
    parse_flags_for(p, st)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let ty = p.parse_colon_type()?;
    st.operands.push(p.resolve_operand(&lhs, &ty)?);
    if let Some(rhs) = rhs {
        st.operands.push(p.resolve_operand(&rhs, &ty)?);
    }
    st.result_types.push(ty);
    Ok(())
}

fn print_binary(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let ops = m.operands(op);
    let n = if d.name == "arith.negf" { 1 } else { 2 };
    if ops.len() != n || m.results(op).len() != 1 {
        return false;
    }
    let ty = m.value_type(m.result(op, 0));
    if ops.iter().any(|&v| m.value_type(v) != ty) {
        return false;
    }
    p.write(" ");
    p.print_operands(ops);
    let mut extra = d.attrs.clone();
    let exact = EXACT_OPS.contains(&d.name.as_str()) && d.props.get("isExact").is_some();
    if exact {
        p.write(" exact");
    }
    // properties this printer does not write otherwise go to the dictionary
    for n in d.props.iter() {
        let known = (exact && n.name == "isExact")
            || flag_kind(&d.name).is_some_and(|(_, attr, _)| n.name == attr);
        if !known {
            extra.set(n.name.clone(), n.value.clone());
        }
    }
    let elided = print_flags_for(p, d, &mut extra);
    p.print_optional_attr_dict(&extra, &elided);
    p.write(" : ");
    p.print_type(ty);
    true
}

fn verify_binary(m: &Module, op: OpId) -> Result<(), String> {
    let name = m.op(op).name.as_str();
    let n = if name == "arith.negf" { 1 } else { 2 };
    check_counts(m, op, n, 1)?;
    let float = FLOAT_OPS.contains(&name) || name == "arith.negf";
    let (what, f): (&str, fn(&Type) -> bool) = if float {
        ("floating-point-like", is_float_like)
    } else {
        ("signless-integer-like", is_int_like)
    };
    for i in 0..n {
        check_operand(m, op, i, what, f)?;
    }
    let rt = m.value_type(m.result(op, 0));
    if !f(rt) {
        return Err(format!("result #0 must be {what}, but got '{rt}'"));
    }
    if m.operands(op).iter().any(|&v| m.value_type(v) != rt) {
        return Err("requires the same type for all operands and results".into());
    }
    Ok(())
}

// ===== comparisons =====

fn predicates(name: &str) -> &'static [&'static str] {
    if name == "arith.cmpf" {
        CMPF_PREDICATES
    } else {
        CMPI_PREDICATES
    }
}

fn parse_cmp(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let preds = predicates(&st.name);
    let at = p.current_span();
    let word = if p.at(Tok::String) {
        Some(p.parse_string()?)
    } else if p.at(Tok::BareId) {
        p.parse_optional_keyword_any().map(str::to_string)
    } else {
        None
    };
    let Some(idx) = word.and_then(|w| preds.iter().position(|x| *x == w)) else {
        return Err(Diagnostic::new(
            at,
            format!(
                "expected string or keyword containing one of the following enum values for attribute 'predicate' [{}]",
                preds.join(", ")
            ),
        ));
    };
    st.props
        .set("predicate", Attribute::int(idx as i128, Type::int(64)));
    p.parse_comma()?;
    let lhs = p.parse_operand()?;
    p.parse_comma()?;
    let rhs = p.parse_operand()?;
    parse_flags_for(p, st)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let tat = p.current_span();
    let ty = p.parse_colon_type()?;
    let (what, ok) = if st.name == "arith.cmpf" {
        ("floating-point-like", is_float_like(&ty))
    } else {
        ("signless-integer-like", is_int_like(&ty))
    };
    if !ok {
        return Err(Diagnostic::new(
            tat,
            format!("'lhs' must be {what}, but got '{ty}'"),
        ));
    }
    st.operands.push(p.resolve_operand(&lhs, &ty)?);
    st.operands.push(p.resolve_operand(&rhs, &ty)?);
    st.result_types.push(with_elem(&ty, Type::int(1)));
    Ok(())
}

fn print_cmp(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let ops = m.operands(op);
    if ops.len() != 2 || m.results(op).len() != 1 {
        return false;
    }
    let ty = m.value_type(ops[0]);
    if m.value_type(ops[1]) != ty || *m.value_type(m.result(op, 0)) != with_elem(ty, Type::int(1)) {
        return false;
    }
    let Some(pred) = d
        .props
        .get("predicate")
        .and_then(Attribute::as_int)
        .and_then(|i| usize::try_from(i).ok())
        .and_then(|i| predicates(&d.name).get(i))
    else {
        return false;
    };
    p.write(" ");
    p.write(pred);
    p.write(", ");
    p.print_operands(ops);
    let mut extra = d.attrs.clone();
    let mut elided = print_flags_for(p, d, &mut extra);
    elided.push("predicate");
    p.print_optional_attr_dict(&extra, &elided);
    p.write(" : ");
    p.print_type(ty);
    true
}

fn verify_cmp(m: &Module, op: OpId) -> Result<(), String> {
    let d = m.op(op);
    let preds = predicates(&d.name);
    let Some(pred) = inherent(d, "predicate") else {
        return Err("requires attribute 'predicate'".into());
    };
    match pred.as_int() {
        Some(i) if (0..preds.len() as i128).contains(&i) => {}
        _ => {
            let cases: Vec<String> = (0..preds.len()).map(|i| i.to_string()).collect();
            return Err(format!(
                "attribute 'predicate' failed to satisfy constraint: allowed 64-bit signless integer cases: {}",
                cases.join(", ")
            ));
        }
    }
    check_counts(m, op, 2, 1)?;
    let (what, f): (&str, fn(&Type) -> bool) = if d.name == "arith.cmpf" {
        ("floating-point-like", is_float_like)
    } else {
        ("signless-integer-like", is_int_like)
    };
    check_operand(m, op, 0, what, f)?;
    check_operand(m, op, 1, what, f)?;
    let (a, b) = (
        m.value_type(m.operands(op)[0]),
        m.value_type(m.operands(op)[1]),
    );
    if a != b {
        return Err("requires all operands to have the same type".into());
    }
    let rt = m.value_type(m.result(op, 0));
    if !is_bool_like(rt) {
        return Err(format!("result #0 must be bool-like, but got '{rt}'"));
    }
    if *rt != with_elem(a, Type::int(1)) {
        return Err(
            "failed to verify that result type has i1 element type and same shape as operands"
                .into(),
        );
    }
    Ok(())
}

// ===== select =====

fn parse_select(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let c = p.parse_operand()?;
    p.parse_comma()?;
    let a = p.parse_operand()?;
    p.parse_comma()?;
    let b = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.parse_colon()?;
    let t1 = p.parse_type()?;
    let (ct, ty) = if p.consume_if(Tok::Comma) {
        (t1, p.parse_type()?)
    } else {
        (Type::int(1), t1)
    };
    st.operands.push(p.resolve_operand(&c, &ct)?);
    st.operands.push(p.resolve_operand(&a, &ty)?);
    st.operands.push(p.resolve_operand(&b, &ty)?);
    st.result_types.push(ty);
    Ok(())
}

fn print_select(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let ops = m.operands(op);
    if ops.len() != 3 || m.results(op).len() != 1 {
        return false;
    }
    let ty = m.value_type(m.result(op, 0));
    if m.value_type(ops[1]) != ty || m.value_type(ops[2]) != ty {
        return false;
    }
    let ct = m.value_type(ops[0]);
    p.write(" ");
    p.print_operands(ops);
    p.print_optional_attr_dict(&d.attrs, &[]);
    p.write(" : ");
    if *ct != Type::int(1) {
        p.print_type(ct);
        p.write(", ");
    }
    p.print_type(ty);
    true
}

fn verify_select(m: &Module, op: OpId) -> Result<(), String> {
    check_counts(m, op, 3, 1)?;
    let ops = m.operands(op);
    let ct = m.value_type(ops[0]);
    if !is_bool_like(ct) {
        return Err(format!("operand #0 must be bool-like, but got '{ct}'"));
    }
    let rt = m.value_type(m.result(op, 0));
    if m.value_type(ops[1]) != rt || m.value_type(ops[2]) != rt {
        return Err(
            "failed to verify that all of {true_value, false_value, result} have same type".into(),
        );
    }
    if *ct != Type::int(1) && !same_shape(ct, rt) {
        return Err("expected condition type to have the same shape as the result type".into());
    }
    Ok(())
}

// ===== casts =====

fn cast_rule(name: &str) -> Option<CastRule> {
    CASTS.iter().find(|c| c.0 == name).map(|c| c.1)
}

fn parse_cast(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let a = p.parse_operand()?;
    if st.name == "arith.truncf" {
        if let Some(k) = p.parse_optional_keyword_of(ROUNDING_MODES) {
            let i = ROUNDING_MODES.iter().position(|x| *x == k).unwrap_or(0);
            st.props
                .set("roundingmode", Attribute::int(i as i128, Type::int(32)));
        }
    }
    parse_flags_for(p, st)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let from = p.parse_colon_type()?;
    p.parse_keyword("to")?;
    let to = p.parse_type()?;
    st.operands.push(p.resolve_operand(&a, &from)?);
    st.result_types.push(to);
    Ok(())
}

fn print_cast(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    if m.operands(op).len() != 1 || m.results(op).len() != 1 {
        return false;
    }
    p.write(" ");
    p.print_operand(m.operands(op)[0]);
    let mut extra = d.attrs.clone();
    let mut elided = Vec::new();
    if d.name == "arith.truncf" {
        if let Some(a) = d.props.get("roundingmode") {
            match a
                .as_int()
                .and_then(|i| usize::try_from(i).ok())
                .and_then(|i| ROUNDING_MODES.get(i))
            {
                Some(k) => p.print_keyword(k),
                None => extra.set("roundingmode", a.clone()),
            }
            elided.push("roundingmode");
        }
    }
    elided.extend(print_flags_for(p, d, &mut extra));
    p.print_optional_attr_dict(&extra, &elided);
    p.write(" : ");
    p.print_type(m.value_type(m.operands(op)[0]));
    p.write(" to ");
    p.print_type(m.value_type(m.result(op, 0)));
    true
}

fn verify_cast(m: &Module, op: OpId) -> Result<(), String> {
    check_counts(m, op, 1, 1)?;
    let d = m.op(op);
    let Some(rule) = cast_rule(&d.name) else {
        return Ok(());
    };
    let from = m.value_type(m.operands(op)[0]);
    let to = m.value_type(m.result(op, 0));
    if !same_shape(from, to) {
        return Err("requires the same shape for all operands and results".into());
    }
    let (a, b) = (elem(from), elem(to));
    let int = |t: &Type| {
        matches!(
            t.kind(),
            TypeKind::Integer {
                signedness: Signedness::Signless,
                ..
            }
        )
    };
    let width = |t: &Type| t.bit_width().unwrap_or(0);
    let ok = match rule {
        CastRule::ExtF => a.is_float() && b.is_float() && width(a) < width(b),
        CastRule::TruncF => a.is_float() && b.is_float() && width(a) > width(b),
        CastRule::ExtI => int(a) && int(b) && width(a) < width(b),
        CastRule::TruncI => int(a) && int(b) && width(a) > width(b),
        CastRule::IntToFloat => int(a) && b.is_float(),
        CastRule::FloatToInt => a.is_float() && int(b),
        CastRule::Index => (a.is_index() && int(b)) || (int(a) && b.is_index()),
        CastRule::Bitcast => {
            let scalar = |t: &Type| int(t) || t.is_float() || t.is_index();
            scalar(a) && scalar(b) && width(a) == width(b) && !a.is_index() && !b.is_index()
        }
    };
    if !ok {
        return Err(format!(
            "operand type '{from}' and result type '{to}' are cast incompatible"
        ));
    }
    Ok(())
}

// ===== *_extended =====

fn parse_extended(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let a = p.parse_operand()?;
    p.parse_comma()?;
    let b = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let ty = p.parse_colon_type()?;
    let second = if st.name == "arith.addui_extended" {
        p.parse_comma()?;
        p.parse_type()?
    } else {
        ty.clone()
    };
    st.operands.push(p.resolve_operand(&a, &ty)?);
    st.operands.push(p.resolve_operand(&b, &ty)?);
    st.result_types.push(ty);
    st.result_types.push(second);
    Ok(())
}

fn print_extended(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let ops = m.operands(op);
    if ops.len() != 2 || m.results(op).len() != 2 {
        return false;
    }
    let ty = m.value_type(ops[0]);
    let r1 = m.value_type(m.result(op, 1));
    let add = d.name == "arith.addui_extended";
    if m.value_type(ops[1]) != ty || m.value_type(m.result(op, 0)) != ty || (!add && r1 != ty) {
        return false;
    }
    p.write(" ");
    p.print_operands(ops);
    p.print_optional_attr_dict(&d.attrs, &[]);
    p.write(" : ");
    p.print_type(ty);
    if add {
        p.write(", ");
        p.print_type(r1);
    }
    true
}

fn verify_extended(m: &Module, op: OpId) -> Result<(), String> {
    check_counts(m, op, 2, 2)?;
    check_operand(m, op, 0, "signless-integer-like", is_int_like)?;
    check_operand(m, op, 1, "signless-integer-like", is_int_like)?;
    let ty = m.value_type(m.operands(op)[0]);
    let r0 = m.value_type(m.result(op, 0));
    let r1 = m.value_type(m.result(op, 1));
    if m.op(op).name == "arith.addui_extended" {
        if !is_bool_like(r1) {
            return Err(format!("result #1 must be bool-like, but got '{r1}'"));
        }
        let shaped = |t: &Type| elem(t) != t;
        if shaped(ty) && !shaped(r1) {
            return Err("if an operand is non-scalar, then all results must be non-scalar".into());
        }
        if !same_shape(ty, r1) {
            return Err(
                "all non-scalar operands/results must have the same shape and base type".into(),
            );
        }
    } else if r1 != ty {
        return Err("requires the same type for all operands and results".into());
    }
    if r0 != ty || m.value_type(m.operands(op)[1]) != ty {
        return Err("requires the same type for all operands and results".into());
    }
    Ok(())
}
