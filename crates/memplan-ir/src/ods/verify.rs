//! Verification from the table: counts, segment sizes, type and attribute constraints, and
//! the C++ rules that read the table's traits.

use super::*;

/// The result count MLIR's ODS definition of `id` asks for, checked for ops whose syntax
/// memplan writes by hand (their verifiers look at operands and types, and an op written in
/// generic form can carry any number of results).
pub(crate) fn verify_result_count(m: &Module, id: OpId) -> Result<(), String> {
    let d = m.op(id);
    let Some(op) = ods_of(&d.name) else {
        return Ok(());
    };
    if op.has_trait("AttrSizedResultSegments") {
        return Ok(());
    }
    let nres = m.results(id).len();
    let fixed = op
        .results
        .iter()
        .filter(|x| x.arity == Arity::Single)
        .count();
    let variadic = op.results.len() > fixed;
    match (fixed, variadic) {
        (0, false) if nres != 0 => Err("requires zero results".into()),
        (1, false) if nres != 1 => Err("requires one result".into()),
        (n, false) if nres != n => Err(format!("requires {n} results, but found {nres}")),
        (n, true) if nres < n => Err(format!("expected {n} or more results, but found {nres}")),
        _ => Ok(()),
    }
}

pub(crate) fn verify_op(m: &Module, id: OpId) -> Result<(), String> {
    let d = m.op(id);
    let Some(op) = ods_of(&d.name) else {
        return Ok(());
    };
    let nops = m.operands(id).len();
    let fixed = op
        .operands
        .iter()
        .filter(|x| x.arity == Arity::Single)
        .count();
    let var = op.operands.len() - fixed;
    if op.has_trait("AttrSizedOperandSegments") {
        match d
            .props
            .get("operandSegmentSizes")
            .or_else(|| d.attrs.get("operandSegmentSizes"))
        {
            Some(Attribute::DenseArray {
                values: DenseArrayValues::Int(v),
                ..
            }) => {
                if v.len() != op.operands.len() {
                    return Err(format!(
                        "'operandSegmentSizes' attribute for specifying operand segments must have {} elements, but got {}",
                        op.operands.len(),
                        v.len()
                    ));
                }
                if v.iter().sum::<i64>() != nops as i64 {
                    return Err(format!(
                        "operand count ({nops}) does not match with the total size ({}) specified in attribute 'operandSegmentSizes'",
                        v.iter().sum::<i64>()
                    ));
                }
            }
            _ => return Err("requires dense i32 array attribute 'operandSegmentSizes'".into()),
        }
    } else if var == 0 && nops != fixed {
        return Err(format!("expected {fixed} operands, but found {nops}"));
    } else if var > 0 && nops < fixed {
        return Err(format!(
            "expected {fixed} or more operands, but found {nops}"
        ));
    }
    let nres = m.results(id).len();
    let rfixed = op
        .results
        .iter()
        .filter(|x| x.arity == Arity::Single)
        .count();
    let rvar = op.results.len() - rfixed;
    if !op.has_trait("AttrSizedResultSegments") {
        if rvar == 0 && nres != rfixed {
            return Err(format!("requires {rfixed} results, but found {nres}"));
        }
        if rvar > 0 && nres < rfixed {
            return Err(format!(
                "expected {rfixed} or more results, but found {nres}"
            ));
        }
    }
    // regions / successors counts
    let nreg = m.regions(id).len();
    if !op.regions.iter().any(|r| r.1) && nreg != op.regions.len() {
        return Err(format!(
            "requires {} regions, but found {nreg}",
            op.regions.len()
        ));
    }
    if !op.successors.iter().any(|r| r.1) && d.successors.len() != op.successors.len() {
        return Err(format!(
            "requires {} successors, but found {}",
            op.successors.len(),
            d.successors.len()
        ));
    }
    // exact buildable types where the split is known
    let exact_types = |specs: &[ValueSpec],
                       values: &[ValueId],
                       seg: &str,
                       same: &str,
                       what: &str|
     -> Result<(), String> {
        let Some(sz) = group_sizes(specs, values.len(), d.props.get(seg), op.has_trait(same))
        else {
            return Ok(());
        };
        let mut at = 0;
        for (spec, k) in specs.iter().zip(sz) {
            if let Some(t) = spec.ty.exact() {
                for (j, &v) in values[at..at + k].iter().enumerate() {
                    if m.value_type(v) != t {
                        return Err(format!(
                            "{what} #{} must be {t}, but got '{}'",
                            at + j,
                            m.value_type(v)
                        ));
                    }
                }
            }
            at += k;
        }
        Ok(())
    };
    exact_types(
        &op.operands,
        m.operands(id),
        "operandSegmentSizes",
        "SameVariadicOperandSize",
        "operand",
    )?;
    exact_types(
        &op.results,
        m.results(id),
        "resultSegmentSizes",
        "SameVariadicResultSize",
        "result",
    )?;
    for spec in &op.attrs {
        if spec.required
            && !matches!(spec.kind, AttrKind::Unit | AttrKind::Unsupported)
            && d.props.get(spec.name).is_none()
            && d.attrs.get(spec.name).is_none()
        {
            return Err(format!("requires attribute '{}'", spec.name));
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
            return Err("requires the same type for all operands and results".into());
        }
    }
    if op.has_trait("SameTypeOperands") {
        let all: Vec<&Type> = m.operands(id).iter().map(|&v| m.value_type(v)).collect();
        if all.windows(2).any(|w| w[0] != w[1]) {
            return Err("requires all operands to have the same type".into());
        }
    }
    if op.has_trait("SameOperandsAndResultElementType") {
        let all: Vec<Type> = m
            .operands(id)
            .iter()
            .chain(m.results(id))
            .map(|&v| elem_or_self(m.value_type(v)))
            .collect();
        if all.windows(2).any(|w| w[0] != w[1]) {
            return Err("requires the same element type for all operands and results".into());
        }
    }
    // per-group constraints, where the split into groups is known
    let osz = group_sizes(
        &op.operands,
        nops,
        d.props.get("operandSegmentSizes"),
        op.has_trait("SameVariadicOperandSize"),
    );
    let rsz = group_sizes(
        &op.results,
        nres,
        d.props.get("resultSegmentSizes"),
        op.has_trait("SameVariadicResultSize"),
    );
    let ogroups = osz.as_ref().map(|z| split(m.operands(id), z));
    let rgroups = rsz.as_ref().map(|z| split(m.results(id), z));
    for (specs, groups, what) in [
        (&op.operands, &ogroups, "operand"),
        (&op.results, &rgroups, "result"),
    ] {
        let Some(groups) = groups else { continue };
        let mut at = 0;
        for (spec, g) in specs.iter().zip(groups) {
            for &v in g.iter() {
                let t = m.value_type(v);
                if let Some(false) = satisfies(&spec.ty, t) {
                    return Err(format!(
                        "{what} #{at} must be {}, but got '{t}'",
                        constraint_text(&spec.ty)
                    ));
                }
                at += 1;
            }
        }
    }
    let named = |n: &str| -> Option<Vec<Type>> {
        if let Some(i) = op.operands.iter().position(|o| o.name == n) {
            return ogroups
                .as_ref()
                .map(|g| g[i].iter().map(|&v| m.value_type(v).clone()).collect());
        }
        if let Some(i) = op.results.iter().position(|o| o.name == n) {
            return rgroups
                .as_ref()
                .map(|g| g[i].iter().map(|&v| m.value_type(v).clone()).collect());
        }
        None
    };
    for (tr, what) in [
        ("AllTypesMatch", "type"),
        ("AllElementTypesMatch", "element type"),
        ("AllShapesMatch", "shape"),
        ("AllRanksMatch", "rank"),
    ] {
        for v in op.trait_values(tr) {
            let mut tys = Vec::new();
            for n in v.split('|') {
                match named(n) {
                    Some(ts) => tys.extend(ts),
                    None => {
                        if let Some(t) = d.props.get(n).and_then(|a| a.typed()) {
                            tys.push(t);
                        }
                    }
                }
            }
            let differ = match what {
                "type" => tys.windows(2).any(|w| w[0] != w[1]),
                "element type" => tys
                    .windows(2)
                    .any(|w| elem_or_self(&w[0]) != elem_or_self(&w[1])),
                // ranks / shapes compare only where every type is ranked
                _ => {
                    let shapes: Option<Vec<&[i64]>> = tys.iter().map(|t| t.shape()).collect();
                    shapes.is_some_and(|s| {
                        s.windows(2).any(|w| {
                            if what == "rank" {
                                w[0].len() != w[1].len()
                            } else {
                                w[0] != w[1]
                            }
                        })
                    })
                }
            };
            if differ {
                let names = v.replace('|', ", ");
                return Err(format!(
                    "failed to verify that all of {{{names}}} have same {what}"
                ));
            }
        }
    }
    for v in op.trait_values("TypesMatchWith") {
        let mut it = v.split('|');
        let (Some(from), Some(to), Some(how)) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        let (Some(f), Some(t)) = (named(from), named(to)) else {
            continue;
        };
        let (Some(f), Some(t)) = (f.first(), t.first()) else {
            continue;
        };
        if how == "elem" && f.element_type().is_none() {
            continue;
        }
        let Some(want) = transform(how, f) else {
            continue;
        };
        if &want != t {
            return Err(format!(
                "failed to verify that type of '{to}' matches what '{from}' requires ('{want}')"
            ));
        }
    }
    Ok(())
}

/// A `TypesMatchWith` transformer the table models: `same`, `elem` (element type or self),
/// `celem` (the element type of a complex type), `i1shape` (i1 with the shape of the input).
pub(super) fn transform(how: &str, t: &Type) -> Option<Type> {
    Some(match how {
        "same" => t.clone(),
        "elem" => elem_or_self(t),
        "celem" => match t.kind() {
            TypeKind::Complex(e) => e.clone(),
            _ => return None,
        },
        "i1shape" => match t.kind() {
            TypeKind::Vector {
                shape, scalable, ..
            } => Type::new(TypeKind::Vector {
                shape: shape.clone(),
                scalable: scalable.clone(),
                elem: Type::int(1),
            }),
            TypeKind::RankedTensor { shape, .. } => Type::new(TypeKind::RankedTensor {
                shape: shape.clone(),
                elem: Type::int(1),
                encoding: None,
            }),
            TypeKind::UnrankedTensor { .. } => {
                Type::new(TypeKind::UnrankedTensor { elem: Type::int(1) })
            }
            _ => Type::int(1),
        },
        _ => return None,
    })
}

/// LLVM dialect-compatible types (`LLVM::isCompatibleType`), leaning permissive on floats.
pub(super) fn llvm_compatible(t: &Type) -> bool {
    match t.kind() {
        TypeKind::Integer { signedness, .. } => *signedness == Signedness::Signless,
        TypeKind::Float(_) => true,
        TypeKind::Vector { elem, .. } => llvm_compatible(elem),
        TypeKind::Opaque(s) => s.starts_with("!llvm."),
        _ => false,
    }
}

pub(super) fn elem_or_self(t: &Type) -> Type {
    t.element_type().cloned().unwrap_or_else(|| t.clone())
}

pub(super) fn constraint_text(c: &TypeC) -> String {
    match c {
        TypeC::Exact(t) => t.to_string(),
        TypeC::Dialect(p, None) => format!("{p} type"),
        TypeC::Dialect(_, Some(t)) => t.to_string(),
        TypeC::Other("AnyIntegerOrFloat") => "Integer or Float".to_string(),
        TypeC::Other("complex_type_with_floating_point_elements") => {
            "complex type with floating-point elements".to_string()
        }
        TypeC::Other("AnyIntegerOrFloatOr1DVector") => {
            "Integer or Float or fixed-length vector of Integer or Float values of ranks 1"
                .to_string()
        }
        TypeC::Other(n)
            if crate::cpp_rules::llvm::ty::llvm_constraint_text(n).is_some()
                || table().summaries.get(n).is_some_and(|s| {
                    crate::cpp_rules::llvm::ty::llvm_constraint_text(s).is_some()
                }) =>
        {
            crate::cpp_rules::llvm::ty::llvm_constraint_text(n)
                .or_else(|| {
                    table()
                        .summaries
                        .get(n)
                        .and_then(|s| crate::cpp_rules::llvm::ty::llvm_constraint_text(s))
                })
                .unwrap_or_default()
        }
        TypeC::Other(n) => parse_summary(n)
            .or_else(|| table().summaries.get(n).and_then(|s| parse_summary(s)))
            .map(|alts| summary_text(&alts))
            .unwrap_or_else(|| n.replace('_', " ")),
    }
}

/// Whether `t` satisfies a constraint memplan knows; `None` for constraints it does not check.
pub(super) fn satisfies(c: &TypeC, t: &Type) -> Option<bool> {
    let k = t.kind();
    let opaque = |pre: &str| matches!(k, TypeKind::Opaque(s) if s == pre || s.starts_with(&format!("{pre}<")));
    let signless_int = |t: &Type| {
        matches!(
            t.kind(),
            TypeKind::Integer {
                signedness: Signedness::Signless,
                ..
            }
        )
    };
    let shaped_elem = || match k {
        TypeKind::Vector { elem, .. }
        | TypeKind::RankedTensor { elem, .. }
        | TypeKind::UnrankedTensor { elem } => Some(elem.clone()),
        _ => None,
    };
    let like = |f: &dyn Fn(&Type) -> bool| f(t) || shaped_elem().is_some_and(|e| f(&e));
    Some(match c {
        TypeC::Exact(x) => x == t,
        TypeC::Dialect(_, Some(x)) => x == t,
        TypeC::Dialect(p, None) => opaque(p),
        TypeC::Other(n) => match *n {
            "AnyType" | "any" => true,
            "LLVM_Type" => llvm_compatible(t),
            "LLVM_AnyPointer" => opaque("!llvm.ptr"),
            "AnyMemRef" => matches!(k, TypeKind::MemRef { .. }),
            "AnyRankedOrUnrankedMemRef" => {
                matches!(k, TypeKind::MemRef { .. } | TypeKind::UnrankedMemRef { .. })
            }
            "AnyRankedTensor" => matches!(k, TypeKind::RankedTensor { .. }),
            "AnyTensor" => matches!(
                k,
                TypeKind::RankedTensor { .. } | TypeKind::UnrankedTensor { .. }
            ),
            "AnyVectorOfAnyRank" => matches!(k, TypeKind::Vector { .. }),
            "AnyVectorOfNonZeroRank" => {
                matches!(k, TypeKind::Vector { shape, .. } if !shape.is_empty())
            }
            "AnyShaped" => matches!(
                k,
                TypeKind::Vector { .. }
                    | TypeKind::RankedTensor { .. }
                    | TypeKind::UnrankedTensor { .. }
                    | TypeKind::MemRef { .. }
                    | TypeKind::UnrankedMemRef { .. }
            ),
            "AnySignlessInteger" => signless_int(t),
            "AnyInteger" => t.is_integer(),
            "AnySignlessIntegerOrIndex" => signless_int(t) || t.is_index(),
            "AnyFloat" => t.is_float(),
            "AnyIntegerOrFloat" => signless_int(t) || t.is_float(),
            // `AnyTypeOf<[AnyIntegerOrFloat, FixedVectorOfRankAndType<[1], [AnyIntegerOrFloat]>]>`
            "AnyIntegerOrFloatOr1DVector" => {
                signless_int(t)
                    || t.is_float()
                    || matches!(k, TypeKind::Vector { shape, scalable, elem }
                        if shape.len() == 1
                            && !scalable.iter().any(|&s| s)
                            && (signless_int(elem) || elem.is_float()))
            }
            "SignlessIntegerOrIndexLike" => like(&|e: &Type| signless_int(e) || e.is_index()),
            "SignlessIntegerLike" => like(&signless_int),
            "FloatLike" => like(&|e: &Type| e.is_float()),
            "BoolLike" => like(&|e: &Type| e == &Type::int(1)),
            // complex dialect: `Complex<AnyFloat>` and `AnyComplex`
            "complex_type_with_floating_point_elements" => {
                matches!(k, TypeKind::Complex(e) if e.is_float())
            }
            "AnyComplex" | "complex_type" => matches!(k, TypeKind::Complex(_)),
            other => {
                // the LLVM dialect's constraints, by name or by their table summary
                let summary = table().summaries.get(other).copied();
                for s in std::iter::once(other).chain(summary) {
                    if let Some(ok) = crate::cpp_rules::llvm::ty::llvm_constraint(s, t) {
                        return Some(ok);
                    }
                }
                return summary_constraint(other, t).or_else(|| {
                    table()
                        .summaries
                        .get(other)
                        .and_then(|s| summary_constraint(s, t))
                });
            }
        },
    })
}

/// An element type named in a constraint summary (`16-bit float`, `bfloat16 type`,
/// `8-bit signless integer`, `f8E4M3FN type`, ...).
fn summary_elem(s: &mut &str) -> Option<Type> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 {
        let w: u32 = s[..digits].parse().ok()?;
        let rest = &s[digits..];
        for (suffix, sign) in [
            ("_bit_signless_integer", Some(Signedness::Signless)),
            ("_bit_signed_integer", Some(Signedness::Signed)),
            ("_bit_unsigned_integer", Some(Signedness::Unsigned)),
            ("_bit_float", None),
        ] {
            if let Some(r) = rest.strip_prefix(suffix) {
                *s = r;
                return Some(match sign {
                    Some(signedness) => Type::new(TypeKind::Integer {
                        width: w,
                        signedness,
                    }),
                    None => Type::new(TypeKind::Float(match w {
                        16 => FloatKind::F16,
                        32 => FloatKind::F32,
                        64 => FloatKind::F64,
                        _ => return None,
                    })),
                });
            }
        }
        return None;
    }
    let end = s.find("_type")?;
    let name = if &s[..end] == "bfloat16" {
        "bf16"
    } else {
        &s[..end]
    };
    let k = FloatKind::from_name(name)?;
    *s = &s[end + "_type".len()..];
    Some(Type::new(TypeKind::Float(k)))
}

/// MLIR's summary of an element type (the inverse of [`summary_elem`]).
fn elem_summary(t: &Type) -> String {
    match t.kind() {
        TypeKind::Float(FloatKind::F16) => "16-bit float".into(),
        TypeKind::Float(FloatKind::F32) => "32-bit float".into(),
        TypeKind::Float(FloatKind::F64) => "64-bit float".into(),
        TypeKind::Float(FloatKind::BF16) => "bfloat16 type".into(),
        TypeKind::Integer { width, signedness } => format!(
            "{width}-bit {} integer",
            match signedness {
                Signedness::Signless => "signless",
                Signedness::Signed => "signed",
                Signedness::Unsigned => "unsigned",
            }
        ),
        _ => format!("{t} type"),
    }
}

/// The summary text MLIR prints for parsed alternatives.
fn summary_text(alts: &[SummaryAlt]) -> String {
    let parts: Vec<String> = alts
        .iter()
        .map(|a| match a {
            SummaryAlt::Scalar(t) => elem_summary(t),
            SummaryAlt::Ptr(n) => format!("LLVM pointer in address space {n}"),
            SummaryAlt::Vector {
                fixed,
                elems,
                lengths,
            } => {
                let es: Vec<String> = elems.iter().map(elem_summary).collect();
                let mut s = format!(
                    "{}vector of {} values",
                    if *fixed { "fixed-length " } else { "" },
                    es.join(" or ")
                );
                if !lengths.is_empty() {
                    let ls: Vec<String> = lengths.iter().map(i64::to_string).collect();
                    s.push_str(&format!(" of length {}", ls.join("/")));
                }
                s
            }
        })
        .collect();
    parts.join(" or ")
}

/// One alternative of a constraint summary: a scalar type, or a vector (fixed-length or
/// not) of some element types with some element counts (empty: any).
enum SummaryAlt {
    Scalar(Type),
    /// `LLVM pointer in address space N` (`LLVM_PointerInAddressSpace<N>`).
    Ptr(u64),
    Vector {
        fixed: bool,
        elems: Vec<Type>,
        lengths: Vec<i64>,
    },
}

/// Reads a type-constraint summary as the table writes it (non-alphanumerics as `_`) when it
/// is built only from `AnyTypeOf`, `VectorOfLengthAndType`, `FixedVectorOfLengthAndType`
/// and exact scalar types; `None` for anything else.
fn parse_summary(mut s: &str) -> Option<Vec<SummaryAlt>> {
    let mut alts = Vec::new();
    loop {
        if let Some(r) = s.strip_prefix("LLVM_pointer_in_address_space_") {
            let n = r.bytes().take_while(u8::is_ascii_digit).count();
            if n == 0 {
                return None;
            }
            alts.push(SummaryAlt::Ptr(r[..n].parse().ok()?));
            s = &r[n..];
            if s.is_empty() {
                return Some(alts);
            }
            s = s.strip_prefix("_or_")?;
            continue;
        }
        let fixed = s.starts_with("fixed_length_vector_of_");
        if let Some(r) = s
            .strip_prefix("fixed_length_vector_of_")
            .or_else(|| s.strip_prefix("vector_of_"))
        {
            s = r;
            let mut elems = vec![summary_elem(&mut s)?];
            loop {
                if let Some(r) = s.strip_prefix("_values") {
                    s = r;
                    break;
                }
                s = s.strip_prefix("_or_")?;
                elems.push(summary_elem(&mut s)?);
            }
            let mut lengths = Vec::new();
            if let Some(r) = s.strip_prefix("_of_length_") {
                s = r;
                loop {
                    let n = s.bytes().take_while(u8::is_ascii_digit).count();
                    if n == 0 {
                        return None;
                    }
                    lengths.push(s[..n].parse().ok()?);
                    s = &s[n..];
                    match s.strip_prefix('_') {
                        Some(r) if r.starts_with(|c: char| c.is_ascii_digit()) => s = r,
                        _ => break,
                    }
                }
            }
            alts.push(SummaryAlt::Vector {
                fixed,
                elems,
                lengths,
            });
        } else {
            alts.push(SummaryAlt::Scalar(summary_elem(&mut s)?));
        }
        if s.is_empty() {
            return Some(alts);
        }
        s = s.strip_prefix("_or_")?;
    }
}

/// Whether `t` satisfies a constraint known only by its summary (see [`parse_summary`]);
/// `None` when the summary is not one memplan reads, or the answer would need the element
/// count of a scalable vector.
fn summary_constraint(name: &str, t: &Type) -> Option<bool> {
    let alts = parse_summary(name)?;
    let mut unknown = false;
    for alt in &alts {
        let ok = match alt {
            SummaryAlt::Scalar(x) => Some(x == t),
            SummaryAlt::Ptr(n) => Some(matches!(
                crate::cpp_rules::llvm::ty::LTy::of(t),
                Some(crate::cpp_rules::llvm::ty::LTy::Ptr(k)) if k == *n
            )),
            SummaryAlt::Vector {
                fixed,
                elems,
                lengths,
            } => match t.kind() {
                TypeKind::Vector {
                    shape,
                    scalable,
                    elem,
                } => {
                    let is_scalable = scalable.iter().any(|&s| s);
                    if (*fixed && is_scalable) || !elems.contains(elem) {
                        Some(false)
                    } else if lengths.is_empty() {
                        Some(true)
                    } else if is_scalable {
                        None
                    } else {
                        let n: i64 = shape.iter().product();
                        Some(lengths.contains(&n))
                    }
                }
                _ => Some(false),
            },
        };
        match ok {
            Some(true) => return Some(true),
            None => unknown = true,
            Some(false) => {}
        }
    }
    if unknown {
        None
    } else {
        Some(false)
    }
}

// ===== C++ verifier rules =====

/// Whether attribute `a` satisfies the ConfinedAttr predicates `confine` (the table's codes,
/// see `AttrSpec::confine`), each evaluated as MLIR's predicate does. A predicate whose
/// attribute is not of the kind it reads (the table's kind checks report that) passes.
fn confined_attr_ok(a: &Attribute, confine: &str) -> bool {
    confine.split(',').all(|c| {
        let (code, arg) = c.split_once('=').unwrap_or((c, ""));
        let num = || arg.parse::<i128>().ok();
        match (code, a) {
            ("min", Attribute::Integer { value, .. }) => num().is_none_or(|n| *value >= n),
            ("max", Attribute::Integer { value, .. }) => num().is_none_or(|n| *value <= n),
            ("pos", Attribute::Integer { value, .. }) => *value > 0,
            ("nonneg", Attribute::Integer { value, .. }) => *value >= 0,
            // `APInt::isPowerOf2` reads the bits: the most negative value of the width
            // (a lone sign bit) counts
            ("pow2", Attribute::Integer { value, ty }) => {
                let v = *value;
                (v > 0 && v & (v - 1) == 0)
                    || (v < 0
                        && int_width(ty)
                            .is_some_and(|w| (1..=64).contains(&w) && v == -(1i128 << (w - 1))))
            }
            ("oneof", Attribute::Integer { value, .. }) => arg
                .split(':')
                .any(|x| x.parse::<i128>().is_ok_and(|x| x == *value)),
            (
                "sorted",
                Attribute::DenseArray {
                    values: DenseArrayValues::Int(v),
                    ..
                },
            ) => v.windows(2).all(|w| w[0] < w[1]),
            (
                "sorted",
                Attribute::DenseArray {
                    values: DenseArrayValues::Float(v),
                    ..
                },
            ) => v.windows(2).all(|w| w[0] < w[1]),
            (
                "count",
                Attribute::DenseArray {
                    values: DenseArrayValues::Int(v),
                    ..
                },
            ) => num().is_none_or(|n| v.len() as i128 == n),
            (
                "count",
                Attribute::DenseArray {
                    values: DenseArrayValues::Float(v),
                    ..
                },
            ) => num().is_none_or(|n| v.len() as i128 == n),
            ("mincount", Attribute::Array(v)) => num().is_none_or(|n| v.len() as i128 >= n),
            _ => true,
        }
    })
}

fn int_width(t: &Type) -> Option<u32> {
    match t.kind() {
        TypeKind::Integer { width, .. } => Some(*width),
        _ => None,
    }
}

/// The block counts that the ops' region constraints fix (`SizedRegion<1>` and friends), as
/// MLIR's generated `verifyInvariants` checks them; regions are numbered over all groups.
fn verify_region_sizes(m: &Module, id: OpId, op: &OdsOp) -> Result<(), String> {
    if op.region_sizes.iter().all(|s| s.is_empty()) {
        return Ok(());
    }
    for (i, &r) in m.regions(id).iter().enumerate() {
        // a variadic group can only be the last one
        let g = i.min(op.regions.len().saturating_sub(1));
        let (Some(&(name, _)), Some(&size)) = (op.regions.get(g), op.region_sizes.get(g)) else {
            continue;
        };
        let (ok, what) = match size.as_bytes().first() {
            Some(b'=') => (size[1..].parse::<usize>().ok(), ""),
            Some(b'<') => (size[2..].parse::<usize>().ok(), "at most "),
            Some(b'>') => (size[2..].parse::<usize>().ok(), "at least "),
            _ => (None, ""),
        };
        let Some(n) = ok else {
            continue;
        };
        let blocks = m.region_blocks(r).len();
        let good = match what {
            "" => blocks == n,
            "at most " => blocks <= n,
            _ => blocks >= n,
        };
        if !good {
            return Err(format!(
                "region #{i} ('{name}') failed to verify constraint: region with {what}{n} blocks"
            ));
        }
    }
    Ok(())
}

/// Checks that MLIR states in C++ (`verify()` methods, `PredOpTrait`s) rather than in
/// the table's constraints: the table's `ElemSame` predicates, for every table op (hand-written
/// ones included), and the rules below, each as MLIR 22 checks it. Run by the verifier after an
/// op's own checks; ops outside the table pass.
pub fn verify_cpp_rules(m: &Module, id: OpId) -> Result<(), String> {
    let d = m.op(id);
    let Some(op) = ods_of(&d.name) else {
        return Ok(());
    };
    let ops = m.operands(id);
    let rs = m.results(id);
    verify_region_sizes(m, id, op)?;
    // dialect enum attributes (`#nvvm.mem_scope<cta>`): one of the enum's cases; the custom
    // forms are checked as they are parsed, the generic form here
    for spec in &op.attrs {
        if let AttrKind::Stripped { prefix, cases } = &spec.kind {
            if cases.is_empty() {
                continue;
            }
            if let Some(a) = d.props.get(spec.name).or_else(|| d.attrs.get(spec.name)) {
                if let Some(body) = super::print::stripped_body(a, prefix) {
                    super::parse::enum_body_ok(body, cases, spec.name)?;
                }
            }
        }
    }
    if op.has_trait("Elementwise") {
        // CastOpInterface comes before Elementwise in these ops' trait lists
        crate::cpp_rules::cast_interface(m, id)?;
        verify_elementwise(m, ops, rs)?;
    }
    for v in op.trait_values("ElemSame") {
        let mut it = v.split('|');
        let (Some(a), Some(b), Some(why)) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        let pick = |x: &str| -> Option<Type> {
            let (kind, idx) = x.split_at(1);
            let idx: usize = idx.parse().ok()?;
            let v = if kind == "r" {
                rs.get(idx)
            } else {
                ops.get(idx)
            };
            v.map(|&v| elem_or_self(m.value_type(v)))
        };
        if let (Some(x), Some(y)) = (pick(a), pick(b)) {
            if x != y {
                return Err(format!("failed to verify that {}", why.replace('+', " ")));
            }
        }
    }
    // integer attributes of a fixed type (`I32Attr`, `ConfinedAttr<I32Attr, ...>`): a number
    // of another type (`1 : i1`, `1 : index`, `1.0 : f32`) fails the constraint
    for spec in &op.attrs {
        let AttrKind::Typed(t) = &spec.kind else {
            continue;
        };
        let TypeKind::Integer {
            width,
            signedness: Signedness::Signless,
        } = t.kind()
        else {
            continue;
        };
        let Some(a) = d.props.get(spec.name).or_else(|| d.attrs.get(spec.name)) else {
            continue;
        };
        // a property of another storage kind fails MLIR's property conversion first
        if matches!(a, Attribute::Float { .. }) && d.props.get(spec.name).is_some() {
            return Err(format!(
                "Invalid attribute `{}` in property conversion: {a}",
                spec.name
            ));
        }
        let wrong = match a {
            Attribute::Integer { ty, .. } | Attribute::Float { ty, .. } => ty != t,
            _ => false,
        };
        if wrong {
            let summary = if spec.confine_summary.is_empty() {
                format!("{width}-bit signless integer attribute")
            } else {
                spec.confine_summary.replace('+', " ")
            };
            return Err(format!(
                "attribute '{}' failed to satisfy constraint: {summary}",
                spec.name
            ));
        }
    }
    for spec in op.attrs.iter().filter(|a| !a.confine.is_empty()) {
        let Some(a) = d.props.get(spec.name).or_else(|| d.attrs.get(spec.name)) else {
            continue;
        };
        if !confined_attr_ok(a, spec.confine) {
            return Err(format!(
                "attribute '{}' failed to satisfy constraint: {}",
                spec.name,
                spec.confine_summary.replace('+', " ")
            ));
        }
    }
    let ty = |v: &ValueId| m.value_type(*v);
    let rank_of = |v: &ValueId| match ty(v).kind() {
        TypeKind::MemRef { shape, .. } => Some(shape.len()),
        _ => None,
    };
    let elem_of_memref = |t: &Type| match t.kind() {
        TypeKind::MemRef { elem, .. } | TypeKind::UnrankedMemRef { elem, .. } => Some(elem.clone()),
        _ => None,
    };
    // vector loads/stores: a scalar memref element type equals the vector's element type
    let vec_vs_base = |value: Option<&ValueId>, base: Option<&ValueId>, msg: &str| {
        let (Some(v), Some(b)) = (value, base) else {
            return Ok(());
        };
        let Some(be) = elem_of_memref(ty(b)) else {
            return Ok(());
        };
        if matches!(be.kind(), TypeKind::Vector { .. }) {
            return Ok(());
        }
        match ty(v).kind() {
            TypeKind::Vector { elem, .. } if *elem != be => Err(msg.to_string()),
            _ => Ok(()),
        }
    };
    // vector loads/stores: one index per memref dimension
    let index_count = |base: Option<&ValueId>, n: usize| match base.and_then(rank_of) {
        Some(r) if r != n => Err(format!("requires {r} indices")),
        _ => Ok(()),
    };
    match op.name {
        "gpu.subgroup_mma_load_matrix"
        | "gpu.subgroup_mma_store_matrix"
        | "gpu.subgroup_mma_compute" => crate::dialects::gpu::verify_subgroup_mma(m, id)?,
        "gpu.dynamic_shared_memory" => crate::dialects::gpu::verify_dynamic_shared_memory(m, id)?,
        n if n.starts_with("nvgpu.") => crate::dialects::nvgpu::verify(m, id)?,
        "vector.load" => index_count(ops.first(), ops.len().saturating_sub(1))?,
        "vector.store" => index_count(ops.get(1), ops.len().saturating_sub(2))?,
        "vector.maskedload" | "vector.maskedstore" => {
            index_count(ops.first(), ops.len().saturating_sub(3))?
        }
        _ => {}
    }
    if op.name.starts_with("amdgpu.raw_buffer_") {
        let osz = group_sizes(
            &op.operands,
            ops.len(),
            d.props.get("operandSegmentSizes"),
            false,
        );
        let mem = op.operands.iter().position(|o| o.name == "memref");
        let idx = op.operands.iter().position(|o| o.name == "indices");
        if let (Some(z), Some(mi), Some(ii)) = (osz, mem, idx) {
            let g = split(ops, &z);
            if let (Some(v), n) = (g[mi].first(), g[ii].len()) {
                if let Some(r) = rank_of(v) {
                    if r != n {
                        return Err(format!("Expected {r} indices to memref"));
                    }
                }
            }
        }
    }
    let vec_rank = |v: &ValueId| match ty(v).kind() {
        TypeKind::Vector { shape, .. } => Some(shape.len()),
        _ => None,
    };
    let tensor_shape = |v: &ValueId| match ty(v).kind() {
        TypeKind::RankedTensor { shape, .. } => Some(shape.clone()),
        _ => None,
    };
    match op.name {
        "vector.create_mask"
            if rs
                .first()
                .and_then(vec_rank)
                .is_some_and(|r| r != ops.len()) =>
        {
            return Err("must specify an operand for each result vector dimension".into());
        }
        "vector.constant_mask" => {
            let n = dense_ints(
                d.props
                    .get("mask_dim_sizes")
                    .or_else(|| d.attrs.get("mask_dim_sizes")),
            )
            .map(|v| v.len());
            if let (Some(r), Some(n)) = (rs.first().and_then(vec_rank), n) {
                if r != n {
                    return Err("must specify array attr of size equal vector result rank".into());
                }
            }
        }
        "tensor.concat" => {
            if ops.is_empty() {
                return Err("requires at least one input".into());
            }
            if let Some(rank) = rs.first().and_then(tensor_shape).map(|s| s.len()) {
                if ops
                    .iter()
                    .any(|v| tensor_shape(v).is_some_and(|s| s.len() != rank))
                {
                    return Err("rank of concatenated inputs must match result rank".into());
                }
                let dim = d.props.get("dim").or_else(|| d.attrs.get("dim"));
                if let Some(Attribute::Integer { value, .. }) = dim {
                    if *value < 0 || *value >= rank as i128 {
                        return Err("concatenation dim must be less than the tensor rank".into());
                    }
                }
            }
        }
        "tensor.splat" => {
            if let Some(shape) = rs.first().and_then(tensor_shape) {
                let want = shape
                    .iter()
                    .filter(|&&x| x == crate::types::DYNAMIC)
                    .count();
                let has = ops.len().saturating_sub(1);
                if has != want {
                    return Err(format!(
                        "incorrect number of dynamic sizes, has {has}, expected {want}"
                    ));
                }
            }
        }
        _ => {}
    }
    match op.name {
        "llvm.zext" | "llvm.sext" => {
            if let (Some(a), Some(r)) = (ops.first(), rs.first()) {
                let (a, r) = (ty(a), ty(r));
                let shape = |t: &Type| match t.kind() {
                    TypeKind::Vector {
                        shape, scalable, ..
                    } => Some((shape.clone(), scalable.clone())),
                    _ => None,
                };
                match (shape(a), shape(r)) {
                    (Some(_), None) => {
                        return Err("input type is a vector but output type is an integer".into())
                    }
                    (None, Some(_)) => {
                        return Err("input type is an integer but output type is a vector".into())
                    }
                    (Some(x), Some(y)) if x != y => {
                        return Err("input and output vectors are of incompatible shape".into())
                    }
                    _ => {}
                }
                let width = |t: &Type| match elem_or_self(t).kind() {
                    TypeKind::Integer { width, .. } => Some(*width),
                    _ => None,
                };
                if let (Some(x), Some(y)) = (width(a), width(r)) {
                    if y <= x {
                        return Err("integer width of the output type is smaller or equal to the integer width of the input type".into());
                    }
                }
            }
        }
        "nvvm.fence.sync_restrict" | "nvvm.fence.proxy.sync_restrict" => {
            if let Some(Attribute::Opaque(t)) =
                d.props.get("order").or_else(|| d.attrs.get("order"))
            {
                if !(t.contains("<acquire>") || t.contains("<release>")) {
                    return Err("only acquire and release semantics are supported".into());
                }
            }
        }
        "memref.distinct_objects" => {
            if ops.is_empty() {
                return Err("expected at least one operand".into());
            }
            let a: Vec<&Type> = ops.iter().map(ty).collect();
            let b: Vec<&Type> = rs.iter().map(ty).collect();
            if a != b {
                return Err("operand types and result types must match".into());
            }
        }
        "vector.to_elements" => {
            if let Some(TypeKind::Vector { shape, elem, .. }) = ops.first().map(|v| ty(v).kind()) {
                let n: i64 = shape.iter().product();
                if rs.len() as i64 != n || rs.iter().any(|r| ty(r) != elem) {
                    return Err("failed to verify that shaped type 'source' matches 'elements' element count and types".into());
                }
            }
        }
        "vector.store" => vec_vs_base(
            ops.first(),
            ops.get(1),
            "base and valueToStore element type should match",
        )?,
        "vector.load" => vec_vs_base(
            rs.first(),
            ops.first(),
            "base and result element types should match",
        )?,
        "vector.maskedload" => vec_vs_base(
            rs.first(),
            ops.first(),
            "base and result element type should match",
        )?,
        "vector.maskedstore" => vec_vs_base(
            ops.last(),
            ops.first(),
            "base and valueToStore element type should match",
        )?,
        "vector.interleave" | "vector.deinterleave" => {
            let trailing = |t: &Type| match t.kind() {
                TypeKind::Vector { shape, .. } => Some(shape.last().copied().unwrap_or(1)),
                _ => None,
            };
            let (Some(a), Some(r)) = (ops.first(), rs.first()) else {
                return Ok(());
            };
            let (Some(x), Some(y)) = (trailing(ty(a)), trailing(ty(r))) else {
                return Ok(());
            };
            if op.name == "vector.interleave" && y != 2 * x {
                return Err(
                    "failed to verify that type of 'result' is double the width of the inputs"
                        .into(),
                );
            }
            if op.name == "vector.deinterleave" {
                if x % 2 != 0 {
                    return Err("failed to verify that the trailing dimension of the source vector has an even number of elements".into());
                }
                if y * 2 != x {
                    return Err("failed to verify that the trailing dimension of the results is half the width of source trailing dimension".into());
                }
            }
        }
        "index.casts" | "index.castu" => {
            if let (Some(a), Some(r)) = (ops.first(), rs.first()) {
                let (a, r) = (ty(a), ty(r));
                if !((a.is_index() && r.is_integer()) || (a.is_integer() && r.is_index())) {
                    return Err(format!(
                        "operand type '{a}' and result type '{r}' are cast incompatible"
                    ));
                }
            }
        }
        "memref.memory_space_cast" => {
            if let (Some(a), Some(r)) = (ops.first(), rs.first()) {
                let (a, r) = (ty(a), ty(r));
                let ok = match (a.kind(), r.kind()) {
                    (
                        TypeKind::MemRef {
                            shape: s1,
                            elem: e1,
                            layout: l1,
                            ..
                        },
                        TypeKind::MemRef {
                            shape: s2,
                            elem: e2,
                            layout: l2,
                            ..
                        },
                    ) => s1 == s2 && e1 == e2 && l1 == l2,
                    (
                        TypeKind::UnrankedMemRef { elem: e1, .. },
                        TypeKind::UnrankedMemRef { elem: e2, .. },
                    ) => e1 == e2,
                    _ => false,
                };
                if !ok {
                    return Err(format!(
                        "operand type '{a}' and result type '{r}' are cast incompatible"
                    ));
                }
            }
        }
        "async.await" => {
            if let Some(a) = ops.first() {
                if let TypeKind::Opaque(t) = ty(a).kind() {
                    if t == "!async.token" && !rs.is_empty() {
                        return Err("awaiting on a token must have empty result".into());
                    }
                    if let Some(inner) = t
                        .strip_prefix("!async.value<")
                        .and_then(|x| x.strip_suffix('>'))
                    {
                        if let [r] = rs {
                            if ty(r).to_string() != inner.trim() {
                                return Err(format!(
                                    "result type '{}' does not match async value type '{}'",
                                    ty(r),
                                    inner.trim()
                                ));
                            }
                        }
                    }
                }
            }
        }
        "amdgpu.permlane_swap" => {
            if let Some(Attribute::Integer { value, .. }) = d
                .props
                .get("row_length")
                .or_else(|| d.attrs.get("row_length"))
            {
                if *value != 16 && *value != 32 {
                    return Err("row_length attribute must either be 16 or 32.".into());
                }
            }
        }
        "nvvm.setmaxregister" => {
            if let Some(Attribute::Integer { value, .. }) =
                d.props.get("regCount").or_else(|| d.attrs.get("regCount"))
            {
                if value % 8 != 0 {
                    return Err("new register size must be multiple of 8".into());
                }
                if !(24..=256).contains(value) {
                    return Err("new register size must be in between 24 to 256".into());
                }
            }
        }
        "llvm.comdat_selector" => {
            let table_parent = m
                .parent_op(id)
                .map(|p| m.op(p).name.as_str())
                .is_some_and(|n| {
                    n == "builtin.module" || ods_of(n).is_some_and(|o| o.has_trait("SymbolTable"))
                });
            if !table_parent {
                return Err("symbol's parent must have the SymbolTable trait".into());
            }
        }
        _ => {}
    }
    Ok(())
}

/// MLIR's `OpTrait::impl::verifyElementwise`: vectors and tensors ("mappable" types) among
/// the operands and results come together, every result is mappable once an operand is, and
/// all of them have the same type class and compatible shapes. Scalable dims are compared by
/// size only (never stricter than MLIR).
fn verify_elementwise(m: &Module, ops: &[ValueId], rs: &[ValueId]) -> Result<(), String> {
    // 0: vector, 1: ranked tensor, 2: unranked tensor (MLIR compares their TypeIDs)
    let class = |t: &Type| match t.kind() {
        TypeKind::Vector { .. } => Some(0),
        TypeKind::RankedTensor { .. } => Some(1),
        TypeKind::UnrankedTensor { .. } => Some(2),
        _ => None,
    };
    let mappable = |vs: &[ValueId]| -> Vec<&Type> {
        vs.iter()
            .map(|&v| m.value_type(v))
            .filter(|t| class(t).is_some())
            .collect()
    };
    let (mo, mr) = (mappable(ops), mappable(rs));
    if mo.is_empty() && mr.is_empty() {
        return Ok(());
    }
    if mo.is_empty() {
        return Err(
            "if a result is non-scalar, then at least one operand must be non-scalar".into(),
        );
    }
    if mr.is_empty() {
        return Err(
            "if an operand is non-scalar, then there must be at least one non-scalar result".into(),
        );
    }
    if mr.len() != rs.len() {
        return Err("if an operand is non-scalar, then all results must be non-scalar".into());
    }
    let all: Vec<&Type> = mo.into_iter().chain(mr).collect();
    let base = class(all[0]);
    let same_class = all.iter().all(|t| class(t) == base);
    let ranked: Vec<&[i64]> = all.iter().filter_map(|t| t.shape()).collect();
    let compatible = ranked.windows(2).all(|w| w[0].len() == w[1].len())
        && ranked.first().is_none_or(|s0| {
            (0..s0.len()).all(|k| {
                let mut fixed = ranked.iter().map(|s| s[k]).filter(|&x| x != crate::DYNAMIC);
                let first = fixed.next();
                fixed.all(|x| Some(x) == first)
            })
        });
    if !same_class || !compatible {
        return Err(
            "all non-scalar operands/results must have the same shape and base type".into(),
        );
    }
    Ok(())
}
