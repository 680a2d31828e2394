//! Instruction-level rules: atomics, casts, GEP indices, shuffles, switches, value
//! positions and function attributes.

use super::ty::{canon, llvm_float, LTy};
use super::{atomic_type_ok, val_and_bool};
use crate::attrs::Attribute;
use crate::cpp_rules::{attr, int_attr};
use crate::ir::{Module, OpId};
use crate::types::{Type, TypeKind};

/// `llvm.atomicrmw`: the value type against the operation, and the ordering.
pub(super) fn atomicrmw(m: &Module, id: OpId) -> Result<(), String> {
    let (Some(&v), Some(op)) = (m.operands(id).get(1), int_attr(m, id, "bin_op")) else {
        return Ok(());
    };
    let t = m.value_type(v);
    match op {
        // fadd, fsub, fmax, fmin, fmaximum, fminimum (and the *num forms)
        11..=14 | 19..=22 => {
            if let TypeKind::Vector { scalable, elem, .. } = t.kind() {
                if scalable.iter().any(|&s| s) {
                    return Err("expected LLVM IR fixed vector type".into());
                }
                if !llvm_float(elem) {
                    return Err("expected LLVM IR floating point type for vector element".into());
                }
            } else if !llvm_float(t) {
                return Err("expected LLVM IR floating point type".into());
            }
        }
        0 => {
            if !atomic_type_ok(t) {
                return Err("unexpected LLVM IR type for 'xchg' bin_op".into());
            }
        }
        _ => {
            let ok = matches!(t.kind(), TypeKind::Integer { width, .. } if matches!(width, 8 | 16 | 32 | 64));
            if !ok {
                return Err("expected LLVM IR integer type".into());
            }
        }
    }
    if int_attr(m, id, "ordering").is_some_and(|o| o < 2) {
        return Err("expected at least 'monotonic' ordering".into());
    }
    Ok(())
}

/// `llvm.cmpxchg`: result type, value type and orderings.
pub(super) fn cmpxchg(m: &Module, id: OpId) -> Result<(), String> {
    let Some(&v) = m.operands(id).get(2) else {
        return Ok(());
    };
    let t = m.value_type(v);
    if let Some(&r) = m.results(id).first() {
        if canon(m.value_type(r)) != canon(&val_and_bool(t)) {
            return Err("failed to verify that result #0 has an LLVM struct type consisting of the type of operand #2 and a bool".into());
        }
    }
    if !atomic_type_ok(t) {
        return Err("unexpected LLVM IR type".into());
    }
    let s = int_attr(m, id, "success_ordering");
    let f = int_attr(m, id, "failure_ordering");
    if s.is_some_and(|o| o < 2) || f.is_some_and(|o| o < 2) {
        return Err("ordering must be at least 'monotonic'".into());
    }
    if f.is_some_and(|o| o == 5 || o == 6) {
        return Err("failure ordering cannot be 'release' or 'acq_rel'".into());
    }
    Ok(())
}

fn vector_elem(t: &Type) -> &Type {
    match t.kind() {
        TypeKind::Vector { elem, .. } => elem,
        _ => t,
    }
}

/// `llvm.bitcast` between pointers.
pub(super) fn bitcast(m: &Module, id: OpId) -> Result<(), String> {
    let (Some(&a), Some(&r)) = (m.operands(id).first(), m.results(id).first()) else {
        return Ok(());
    };
    let (at, rt) = (m.value_type(a), m.value_type(r));
    // n-D vectors are not LLVM types
    for (what, t) in [("operand", at), ("result", rt)] {
        if matches!(t.kind(), TypeKind::Vector { shape, .. } if shape.len() != 1) {
            return Err(format!(
                "{what} #0 must be LLVM-compatible non-aggregate type, but got '{t}'"
            ));
        }
    }
    let space = |t: &Type| match LTy::of(vector_elem(t)) {
        Some(LTy::Ptr(n)) => Some(n),
        _ => None,
    };
    let (sa, sr) = (space(at), space(rt));
    if sa.is_some() != sr.is_some() {
        return Err("can only cast pointers from and to pointers".into());
    }
    let (Some(sa), Some(sr)) = (sa, sr) else {
        return Ok(());
    };
    let vec = |t: &Type| matches!(t.kind(), TypeKind::Vector { .. });
    if vec(rt) && !vec(at) {
        return Err("cannot cast pointer to vector of pointers".into());
    }
    if !vec(rt) && vec(at) {
        return Err("cannot cast vector of pointers to pointer".into());
    }
    if sa != sr {
        return Err(
            "cannot cast pointers of different address spaces, use 'llvm.addrspacecast' instead"
                .into(),
        );
    }
    Ok(())
}

/// `llvm.getelementptr`: dynamic index count, flags, and the indices into structs.
pub(super) fn gep(m: &Module, id: OpId) -> Result<(), String> {
    let Some(raw) = attr(m, id, "rawConstantIndices").and_then(Attribute::as_int_array) else {
        return Ok(());
    };
    let dynamic = raw
        .iter()
        .filter(|&&i| i == crate::dialects::llvm::GEP_DYNAMIC_INDEX)
        .count();
    if dynamic != m.operands(id).len().saturating_sub(1) {
        return Err("expected as many dynamic indices as specified in 'rawConstantIndices'".into());
    }
    if int_attr(m, id, "noWrapFlags") == Some(1) {
        return Err("'inbounds_flag' cannot be used directly.".into());
    }
    let Some(elem) = attr(m, id, "elem_type")
        .and_then(Attribute::as_type)
        .and_then(LTy::of)
    else {
        return Ok(());
    };
    let mut cur = elem;
    for (pos, &idx) in raw.iter().enumerate().skip(1) {
        cur = match cur {
            LTy::Struct {
                body: Some(body), ..
            } => {
                if idx == crate::dialects::llvm::GEP_DYNAMIC_INDEX {
                    return Err(format!(
                        "expected index {pos} indexing a struct to be constant"
                    ));
                }
                let Some(e) = usize::try_from(idx).ok().and_then(|i| body.get(i)) else {
                    return Err(format!("index {pos} indexing a struct is out of bounds"));
                };
                e.clone()
            }
            LTy::Struct { body: None, .. } => return Ok(()),
            LTy::Array(_, e) => *e,
            LTy::Builtin(ref t) => match t.kind() {
                TypeKind::Vector { elem, .. } => LTy::Builtin(elem.clone()),
                _ => return Err(format!("type '{cur}' cannot be indexed (index #{pos})")),
            },
            LTy::Other(_) => return Ok(()),
            other => return Err(format!("type '{other}' cannot be indexed (index #{pos})")),
        };
    }
    Ok(())
}

/// `llvm.shufflevector` on scalable vectors: only the zero mask (a splat).
pub(super) fn shufflevector(m: &Module, id: OpId) -> Result<(), String> {
    let Some(&a) = m.operands(id).first() else {
        return Ok(());
    };
    let scalable = matches!(m.value_type(a).kind(), TypeKind::Vector { scalable, .. } if scalable.iter().any(|&s| s));
    let mask = attr(m, id, "mask").and_then(Attribute::as_int_array);
    if scalable && mask.is_some_and(|k| k.iter().any(|&v| v != 0)) {
        return Err("expected a splat operation for scalable vectors".into());
    }
    Ok(())
}

/// `llvm.switch`: case values and branch weights.
pub(super) fn switch(m: &Module, id: OpId) -> Result<(), String> {
    let succ = m.op(id).successors.len();
    if let Some(w) = attr(m, id, "branch_weights").and_then(Attribute::as_int_array) {
        if w.len() != succ {
            return Err(format!(
                "expects number of branch weights to match number of successors: {} vs {succ}",
                w.len()
            ));
        }
    }
    if let (Some(Attribute::Elements { ty, .. }), Some(&c)) =
        (attr(m, id, "case_values"), m.operands(id).first())
    {
        if let Some(e) = ty.element_type() {
            if e != m.value_type(c) {
                return Err("expects case value type to match condition value type".into());
            }
        }
    }
    Ok(())
}

/// `llvm.extractvalue` / `llvm.insertvalue`: the element type at the position.
pub(super) fn value_position(m: &Module, id: OpId, insert: bool) -> Result<(), String> {
    let Some(pos) = attr(m, id, "position").and_then(Attribute::as_int_array) else {
        return Ok(());
    };
    let ops = m.operands(id);
    // operands: (container) or (container, value)
    let agg = ops.first();
    let Some(&agg) = agg else {
        return Ok(());
    };
    let at = m.value_type(agg);
    let Some(mut cur) = LTy::of(at) else {
        return Ok(());
    };
    for &p in pos {
        cur = match cur {
            LTy::Struct {
                body: Some(body), ..
            } => match usize::try_from(p).ok().and_then(|i| body.get(i)) {
                Some(e) => e.clone(),
                None => return Ok(()),
            },
            LTy::Array(_, e) => *e,
            _ => return Ok(()),
        };
    }
    let want = cur.to_string();
    if insert {
        let Some(&v) = ops.get(1) else {
            return Ok(());
        };
        let vt = m.value_type(v);
        if canon(vt) != want {
            return Err(format!(
                "Type mismatch: cannot insert '{}' into '{}'",
                canon(vt),
                canon(at)
            ));
        }
    } else if let Some(&r) = m.results(id).first() {
        let rt = m.value_type(r);
        if canon(rt) != want {
            return Err(format!(
                "Type mismatch: extracting from '{}' should produce '{want}' but this op returns '{}'",
                canon(at),
                canon(rt)
            ));
        }
    }
    Ok(())
}

/// `llvm.func` attribute combinations.
pub(super) fn func_attrs(m: &Module, id: OpId) -> Result<(), String> {
    let has = |n: &str| attr(m, id, n).is_some();
    if has("no_inline") && has("always_inline") {
        return Err("no_inline and always_inline attributes are incompatible".into());
    }
    if has("optimize_none") && !has("no_inline") {
        return Err("with optimize_none must also be no_inline".into());
    }
    Ok(())
}

/// `llvm.intr.vector.interleave2`: the result has twice the elements of `vec1` (same
/// scalability), of the same element type.
pub(super) fn interleave2(m: &Module, id: OpId) -> Result<(), String> {
    let (Some(&a), Some(&r)) = (m.operands(id).first(), m.results(id).first()) else {
        return Ok(());
    };
    let count = |t: &Type| match t.kind() {
        TypeKind::Vector {
            shape,
            scalable,
            elem,
        } if shape.len() == 1 => Some((shape[0], scalable[0], elem.clone())),
        _ => None,
    };
    if let (Some((n, sa, ea)), Some((k, sr, er))) = (count(m.value_type(a)), count(m.value_type(r)))
    {
        if k != 2 * n || sa != sr || ea != er {
            return Err("failed to verify that result has twice as many elements as 'vec1'".into());
        }
    }
    Ok(())
}

/// Target extension types that have a zero value and may be globals (MLIR's
/// `LLVMTargetExtType::hasProperty`: `aarch64.svcount` and `spirv.*`).
pub(super) fn target_ext_zero_ok(name: &str) -> bool {
    name == "aarch64.svcount" || name.starts_with("spirv.")
}

/// `llvm.mlir.zero` of a target extension type.
pub(super) fn zero(m: &Module, id: OpId) -> Result<(), String> {
    if let Some(&r) = m.results(id).first() {
        if let Some(LTy::Target(name, _)) = LTy::of(m.value_type(r)) {
            if !target_ext_zero_ok(&name) {
                return Err("target extension type does not support zero-initializer".into());
            }
        }
    }
    Ok(())
}

/// The `id = N` of a `#llvm.blocktag<id = N>` / `tag = <id = N>` text.
fn tag_id(s: &str) -> Option<i64> {
    let i = s.find("id")?;
    let rest = s[i + 2..].trim_start().strip_prefix('=')?.trim_start();
    let end = rest
        .find(|c: char| !c.is_ascii_digit() && c != '-')
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// Every op nested in `id`, in pre-order.
fn walk(m: &Module, id: OpId, out: &mut Vec<OpId>) {
    for &r in m.regions(id) {
        for &b in m.region_blocks(r) {
            for o in m.block_ops(b) {
                out.push(o);
                walk(m, o, out);
            }
        }
    }
}

/// `llvm.func` bodies: unique block tags, one landing pad type and one resume type.
pub(super) fn func_body(m: &Module, id: OpId) -> Result<(), String> {
    let mut ops = Vec::new();
    walk(m, id, &mut ops);
    let mut tags = Vec::new();
    let mut pad: Option<String> = None;
    let mut resume: Option<String> = None;
    for o in ops {
        match m.op(o).name.as_str() {
            "llvm.blocktag" => {
                if let Some(Attribute::Opaque(t)) = attr(m, o, "tag") {
                    if let Some(n) = tag_id(t) {
                        if tags.contains(&n) {
                            return Err(format!("duplicate block tag '{n}' in the same function"));
                        }
                        tags.push(n);
                    }
                }
            }
            "llvm.landingpad" => {
                if let Some(&r) = m.results(o).first() {
                    let t = canon(m.value_type(r));
                    match &pad {
                        Some(p) if *p != t => {
                            return Err("'llvm.landingpad' should have a consistent result type inside a function".into())
                        }
                        _ => pad = Some(t),
                    }
                }
            }
            "llvm.resume" => {
                if let Some(&v) = m.operands(o).first() {
                    let t = canon(m.value_type(v));
                    match &resume {
                        Some(p) if *p != t => return Err(
                            "'llvm.resume' should have a consistent input type inside a function"
                                .into(),
                        ),
                        _ => resume = Some(t),
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// `llvm.blockaddress`: the function exists and holds a `llvm.blocktag` with the tag.
pub(super) fn blockaddress(m: &Module, id: OpId) -> Result<(), String> {
    let Some(Attribute::Opaque(a)) = attr(m, id, "block_addr") else {
        return Ok(());
    };
    let Some(f) = a.find("function").map(|i| &a[i + 8..]) else {
        return Ok(());
    };
    let Some(f) = f.trim_start().strip_prefix('=').map(str::trim_start) else {
        return Ok(());
    };
    let Some(name) = f.strip_prefix('@') else {
        return Ok(());
    };
    if name.starts_with('"') {
        return Ok(());
    }
    let end = name
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.')))
        .unwrap_or(name.len());
    let name = &name[..end];
    let Some(tag) = a.find("tag").and_then(|i| tag_id(&a[i + 3..])) else {
        return Ok(());
    };
    let func = crate::cpp_rules::lookup(m, id, name).filter(|&o| m.op(o).name == "llvm.func");
    let found = func.is_some_and(|f| {
        let mut ops = Vec::new();
        walk(m, f, &mut ops);
        ops.into_iter().any(|o| {
            m.op(o).name == "llvm.blocktag"
                && matches!(attr(m, o, "tag"), Some(Attribute::Opaque(t)) if tag_id(t) == Some(tag))
        })
    });
    if !found {
        return Err("expects an existing block label target in the referenced function".into());
    }
    Ok(())
}

/// `llvm.invoke`: the unwind destination starts with `llvm.landingpad`.
pub(super) fn invoke_unwind(m: &Module, id: OpId) -> Result<(), String> {
    let Some(&b) = m.op(id).successors.get(1) else {
        return Ok(());
    };
    match m.block_ops(b).next() {
        None => Err("must have at least one operation in unwind destination".into()),
        Some(o) if m.op(o).name != "llvm.landingpad" => Err(
            "first operation in unwind destination should be a llvm.landingpad operation".into(),
        ),
        _ => Ok(()),
    }
}

/// `llvm.inline_asm` cannot be a `musttail` call.
pub(super) fn inline_asm(m: &Module, id: OpId) -> Result<(), String> {
    if attr(m, id, "tail_call_kind").and_then(crate::cpp_rules::enum_kw) == Some("musttail") {
        return Err("tail call kind 'musttail' is not supported".into());
    }
    Ok(())
}

/// The alias-analysis and access-group attributes of the memory ops that declare them
/// (ODS constraints MLIR checks on `access_groups`, `alias_scopes`, `noalias_scopes` and
/// `tbaa`): arrays whose elements are all `#llvm.access_group`, `#llvm.alias_scope` or
/// `#llvm.tbaa_tag` attributes.
pub(super) fn metadata_arrays(m: &Module, id: OpId) -> Result<(), String> {
    const KINDS: &[(&str, &str, &str)] = &[
        (
            "access_groups",
            "#llvm.access_group<",
            "LLVM dialect access group metadata array",
        ),
        (
            "alias_scopes",
            "#llvm.alias_scope<",
            "LLVM dialect alias scope array",
        ),
        (
            "noalias_scopes",
            "#llvm.alias_scope<",
            "LLVM dialect alias scope array",
        ),
        (
            "tbaa",
            "#llvm.tbaa_tag<",
            "LLVM dialect TBAA tag metadata array",
        ),
    ];
    let Some(def) = crate::ods::table().get(m.op(id).name.as_str()) else {
        return Ok(());
    };
    for &(name, prefix, what) in KINDS {
        if !def.attr_names.contains(&name) {
            continue;
        }
        let Some(a) = attr(m, id, name) else {
            continue;
        };
        let ok = match a {
            Attribute::Array(items) => items.iter().all(|e| match e {
                Attribute::Opaque(t) => {
                    let t = t.trim();
                    // an element this cannot read (another spelling) is left alone
                    t.starts_with(prefix) || !t.starts_with("#llvm")
                }
                _ => false,
            }),
            _ => false,
        };
        if !ok {
            return Err(format!(
                "attribute '{name}' failed to satisfy constraint: {what}"
            ));
        }
    }
    Ok(())
}

/// The raw attribute kinds of the op table (`name -> [(attr, kind)]`), read once from the
/// table text: the parsed table folds `sym` and `attr` into one kind.
fn raw_attr_kinds(
) -> &'static crate::fxhash::FxHashMap<&'static str, Vec<(&'static str, &'static str)>> {
    static KINDS: std::sync::OnceLock<
        crate::fxhash::FxHashMap<&'static str, Vec<(&'static str, &'static str)>>,
    > = std::sync::OnceLock::new();
    KINDS.get_or_init(|| {
        let mut out = crate::fxhash::FxHashMap::default();
        for line in crate::ods::TABLE_TEXT.lines() {
            if line.starts_with(['#', '%']) {
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            let (Some(name), Some(attrs)) = (f.first(), f.get(3)) else {
                continue;
            };
            let v: Vec<(&str, &str)> = attrs
                .split(';')
                .filter_map(|a| {
                    let mut it = a.splitn(3, ' ');
                    let n = it.next()?;
                    let _req = it.next()?;
                    Some((n, it.next()?))
                })
                .collect();
            out.insert(*name, v);
        }
        out
    })
}

/// Whether attribute `a` has the kind the table's code `kind` names, as MLIR's property
/// conversion and attribute constraints check it; `None` for kinds not judged here
/// (`attr`, property structs, bit enums, ...).
fn kind_ok(a: &Attribute, kind: &str) -> Option<bool> {
    let kind = kind.split('@').next().unwrap_or(kind);
    let (head, rest) = kind.split_once(':').unwrap_or((kind, ""));
    Some(match head {
        "unit" => matches!(a, Attribute::Unit),
        "ienum" => {
            let (w, cases) = rest.split_once(':')?;
            let w: u32 = w.parse().ok()?;
            let Attribute::Integer { value, ty } = a else {
                return Some(false);
            };
            *ty == crate::types::Type::int(w)
                && cases
                    .split('|')
                    .filter_map(|c| c.split_once('=').and_then(|(_, v)| v.parse::<i128>().ok()))
                    .any(|v| v == *value)
        }
        "typed" => {
            let t = crate::parser::parse_type_str(rest.trim_start_matches('='))?;
            match a {
                Attribute::Integer { ty, .. } | Attribute::Float { ty, .. } => *ty == t,
                Attribute::Bool(_) => t == crate::types::Type::int(1),
                _ => false,
            }
        }
        "type" => matches!(a, Attribute::Type(_)),
        "darray" => {
            let t = crate::parser::parse_type_str(rest)?;
            matches!(a, Attribute::DenseArray { elem, .. } if *elem == t)
        }
        "str" | "symname" => matches!(a, Attribute::String { .. }),
        // `FlatSymbolRefAttr` or `SymbolRefAttr` (the table does not tell them apart)
        "sym" => matches!(a, Attribute::SymbolRef { .. }),
        "strip" => {
            let prefix = rest.rsplit_once(':').map_or(rest, |(p, _)| p);
            match a {
                Attribute::Opaque(t) => {
                    let t = t.trim();
                    // an alias this cannot see through is left alone
                    t.starts_with(&format!("{prefix}<")) || !t.contains('.')
                }
                _ => false,
            }
        }
        "denum" => {
            let mut it = rest.splitn(4, ':');
            let dia = it.next()?;
            let mn = it.next()?;
            match a {
                Attribute::Opaque(t) => {
                    let t = t.trim();
                    t.starts_with(&format!("{dia}.{mn}<"))
                        || t.starts_with(&format!("{dia}<{mn}"))
                        || !t.contains('.')
                }
                _ => false,
            }
        }
        _ => return None,
    })
}

/// The kinds of the inherent attributes of a table op of the LLVM-family dialects (MLIR
/// rejects a wrong kind when it converts the generic form's properties, or with the
/// attribute's ODS constraint): `addr_space = 1.0 : f32` on `llvm.mlir.global`,
/// `global_name = "foo"` on `llvm.mlir.addressof`, `fpExceptionBehavior = 3 : i32` on a
/// constrained intrinsic. The custom forms build the right kinds.
pub(crate) fn attr_kinds(m: &Module, id: OpId) -> Result<(), String> {
    let d = m.op(id);
    let Some(kinds) = raw_attr_kinds().get(d.name.as_str()) else {
        return Ok(());
    };
    for &(name, kind) in kinds {
        let Some(a) = d.props.get(name).or_else(|| d.attrs.get(name)) else {
            continue;
        };
        if kind_ok(a, kind) == Some(false) {
            return Err(format!(
                "Invalid attribute `{name}` in property conversion: {a}"
            ));
        }
    }
    Ok(())
}
