//! Module-level LLVM ops: `llvm.mlir.global` (value, type, linkage, alignment, initializer
//! region), `llvm.mlir.global_ctors` / `global_dtors`, `llvm.comdat` and comdat references.

use super::ty::{canon, LTy};
use crate::attrs::Attribute;
use crate::cpp_rules::{attr, enum_kw, int_attr, lookup, symbol_table_of};
use crate::ir::{Module, OpId};

/// Ops that read or write memory (or may): not allowed in global initialisers.
fn has_side_effects(name: &str) -> bool {
    matches!(
        name,
        "llvm.alloca"
            | "llvm.load"
            | "llvm.store"
            | "llvm.call"
            | "llvm.invoke"
            | "llvm.call_intrinsic"
            | "llvm.inline_asm"
            | "llvm.atomicrmw"
            | "llvm.cmpxchg"
            | "llvm.fence"
            | "llvm.va_arg"
            | "llvm.intr.memcpy"
            | "llvm.intr.memmove"
            | "llvm.intr.memset"
            | "llvm.intr.memcpy.inline"
            | "llvm.intr.memset.inline"
            | "llvm.intr.stacksave"
            | "llvm.intr.stackrestore"
            | "llvm.intr.lifetime.start"
            | "llvm.intr.lifetime.end"
    )
}

/// `isZeroAttribute`: integers and floats equal to zero, dense literals of zeros, arrays
/// of zeros. What memplan cannot read counts as zero (the rule then stays silent).
fn is_zero(a: &Attribute) -> bool {
    match a {
        Attribute::Integer { value, .. } => *value == 0,
        Attribute::Bool(b) => !b,
        Attribute::Float { value, .. } => *value == 0.0,
        Attribute::Array(items) => items.iter().all(is_zero),
        Attribute::Elements { kind, body, .. } if kind == "dense" => {
            let b = body.trim();
            if b.starts_with('"') || b.contains('(') {
                return true;
            }
            b.replace(['[', ']'], " ")
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .all(|s| {
                    s == "false"
                        || s.parse::<f64>().is_ok_and(|v| v == 0.0)
                        || s.parse::<f64>().is_err()
                })
        }
        _ => true,
    }
}

/// The op a (possibly nested) symbol reference names, from the nearest symbol table.
pub(super) fn lookup_ref(m: &Module, id: OpId, a: &Attribute) -> Option<OpId> {
    let Attribute::SymbolRef { root, nested } = a else {
        return None;
    };
    let mut cur = lookup(m, id, root)?;
    for n in nested {
        let r = *m.regions(cur).first()?;
        let b = m.entry_block(r)?;
        cur = m
            .block_ops(b)
            .find(|&o| attr(m, o, "sym_name").and_then(|a| a.as_str()) == Some(n.as_str()))?;
    }
    Some(cur)
}

/// A `comdat` attribute must name an `llvm.comdat_selector`.
pub(super) fn comdat(m: &Module, id: OpId) -> Result<(), String> {
    let Some(c) = attr(m, id, "comdat") else {
        return Ok(());
    };
    if !matches!(c, Attribute::SymbolRef { .. }) {
        return Ok(());
    }
    match lookup_ref(m, id, c) {
        Some(o) if m.op(o).name == "llvm.comdat_selector" => Ok(()),
        _ => Err("expected comdat symbol".into()),
    }
}

pub(super) fn verify_global(m: &Module, id: OpId) -> Result<(), String> {
    let Some(gt) = attr(m, id, "global_type").and_then(Attribute::as_type) else {
        return Ok(());
    };
    let lt = LTy::of(gt);
    if matches!(
        lt,
        Some(LTy::Void | LTy::Token | LTy::Metadata | LTy::Label)
    ) {
        return Err("expects type to be a valid element type for an LLVM global".into());
    }
    if let Some(p) = m.parent_op(id) {
        if symbol_table_of(m, id) != Some(p) {
            return Err("symbol's parent must have the SymbolTable trait".into());
        }
    }
    let value = attr(m, id, "value");
    if let Some(Attribute::String { value: bytes, .. }) = value {
        if !matches!(&lt, Some(LTy::Array(n, e)) if *n == bytes.len() as u64 && e.int_width() == Some(8))
        {
            return Err(
                "requires an i8 array type of the length equal to that of the string attribute"
                    .into(),
            );
        }
    }
    if let Some(LTy::Target(name, _)) = &lt {
        if !super::ops::target_ext_zero_ok(name) {
            return Err("this target extension type cannot be used in a global".into());
        }
    }
    if matches!(lt, Some(LTy::Target(..))) && value.is_some() {
        return Err(
            "global with target extension type can only be initialized with zero-initializer"
                .into(),
        );
    }
    let linkage = attr(m, id, "linkage").and_then(enum_kw);
    if linkage == Some("common") && value.is_some_and(|v| !is_zero(v)) {
        return Err("expected zero value for 'common' linkage".into());
    }
    if linkage == Some("appending") && !matches!(lt, Some(LTy::Array(..))) {
        return Err("expected array type for 'appending' linkage".into());
    }
    comdat(m, id)?;
    if let Some(a) = int_attr(m, id, "alignment") {
        if a <= 0 || (a & (a - 1)) != 0 {
            return Err("alignment attribute is not a power of 2".into());
        }
    }
    // the initializer region
    let Some(&r) = m.regions(id).first() else {
        return Ok(());
    };
    let Some(b) = m.entry_block(r) else {
        return Ok(());
    };
    if let Some(t) = m.last_op(b) {
        if m.op(t).name == "llvm.return" {
            let Some(v) = m.operands(t).first() else {
                return Err("initializer region cannot return void".into());
            };
            let vt = m.value_type(*v);
            if canon(vt) != canon(gt) {
                return Err(format!(
                    "initializer region type '{}' does not match global type '{}'",
                    canon(vt),
                    canon(gt)
                ));
            }
        }
    }
    if m.block_ops(b).any(|o| has_side_effects(&m.op(o).name)) {
        return Err("ops with side effects not allowed in global initializers".into());
    }
    if value.is_some() {
        return Err("cannot have both initializer value and region".into());
    }
    Ok(())
}

/// `llvm.mlir.global_ctors` / `global_dtors`.
pub(super) fn verify_structors(m: &Module, id: OpId, what: &str) -> Result<(), String> {
    let list = |n: &str| match attr(m, id, n) {
        Some(Attribute::Array(a)) => Some(a.as_slice()),
        _ => None,
    };
    let (Some(fns), Some(prio), Some(data)) = (list(what), list("priorities"), list("data")) else {
        return Ok(());
    };
    if fns.len() != prio.len() || fns.len() != data.len() {
        return Err(format!(
            "{what}, priorities, and data must have the same number of elements"
        ));
    }
    for d in data {
        let ok = matches!(d, Attribute::SymbolRef { nested, .. } if nested.is_empty())
            || matches!(d, Attribute::Opaque(s) if s.trim() == "#llvm.zero");
        if !ok {
            return Err("data element must be symbol or #llvm.zero".into());
        }
    }
    for f in fns {
        let Attribute::SymbolRef { root, .. } = f else {
            continue;
        };
        let Some(o) = lookup(m, id, root).filter(|&o| m.op(o).name == "llvm.func") else {
            return Err(format!("'{root}' does not reference a valid LLVM function"));
        };
        let body = m
            .regions(o)
            .first()
            .is_some_and(|&r| !m.region_blocks(r).is_empty());
        if !body {
            return Err(format!("'{root}' does not have a definition"));
        }
    }
    Ok(())
}

/// `llvm.comdat`: its body holds only selectors.
pub(super) fn verify_comdat_region(m: &Module, id: OpId) -> Result<(), String> {
    for &r in m.regions(id) {
        for &b in m.region_blocks(r) {
            if m.block_ops(b)
                .any(|o| m.op(o).name != "llvm.comdat_selector")
            {
                return Err("only comdat selector symbols can appear in a comdat region".into());
            }
        }
    }
    Ok(())
}

/// `llvm.mlir.alias`: type, linkage and the initializer region.
pub(super) fn verify_alias(m: &Module, id: OpId) -> Result<(), String> {
    let at = attr(m, id, "alias_type")
        .and_then(Attribute::as_type)
        .and_then(LTy::of);
    if matches!(
        at,
        Some(LTy::Void | LTy::Token | LTy::Metadata | LTy::Label)
    ) {
        return Err("expects type to be a valid element type for an LLVM global alias".into());
    }
    if let Some(l @ ("appending" | "extern_weak" | "common")) =
        attr(m, id, "linkage").and_then(enum_kw)
    {
        return Err(format!("'{l}' linkage not supported in aliases, available options: private, internal, linkonce, weak, linkonce_odr, weak_odr, external or available_externally"));
    }
    let Some(b) = m.regions(id).first().and_then(|&r| m.entry_block(r)) else {
        return Ok(());
    };
    if let Some(t) = m.last_op(b) {
        if m.op(t).name == "llvm.return" {
            let ptr = m
                .operands(t)
                .first()
                .is_some_and(|v| matches!(LTy::of(m.value_type(*v)), Some(LTy::Ptr(_))));
            if !ptr {
                return Err("initializer region must always return a pointer".into());
            }
        }
    }
    if m.block_ops(b).any(|o| has_side_effects(&m.op(o).name)) {
        return Err("ops with side effects are not allowed in alias initializers".into());
    }
    Ok(())
}

/// `llvm.mlir.ifunc`: linkage, and a resolver that is a defined function returning a
/// pointer (possibly through aliases).
pub(super) fn verify_ifunc(m: &Module, id: OpId) -> Result<(), String> {
    if let Some(l) = attr(m, id, "linkage").and_then(enum_kw) {
        if !matches!(
            l,
            "external" | "internal" | "private" | "weak" | "weak_odr" | "linkonce" | "linkonce_odr"
        ) {
            return Err(format!("'{l}' linkage not supported in ifuncs, available options: private, internal, linkonce, weak, linkonce_odr, weak_odr, or external linkage"));
        }
    }
    let Some(Attribute::SymbolRef { root, .. }) = attr(m, id, "resolver") else {
        return Ok(());
    };
    let mut cur = lookup(m, id, root);
    let mut hops = 0;
    while let Some(a) = cur.filter(|&o| m.op(o).name == "llvm.mlir.alias") {
        hops += 1;
        let ret = m
            .regions(a)
            .first()
            .and_then(|&r| m.entry_block(r))
            .and_then(|b| m.last_op(b));
        let addr = ret
            .and_then(|t| m.operands(t).first().copied())
            .and_then(|v| m.defining_op(v))
            .filter(|&o| m.op(o).name == "llvm.mlir.addressof");
        let Some(addr) = addr else {
            return Ok(());
        };
        let Some(Attribute::SymbolRef { root, .. }) = attr(m, addr, "global_name") else {
            return Ok(());
        };
        cur = lookup(m, addr, root);
        if hops > 64 {
            return Ok(());
        }
    }
    let Some(f) = cur.filter(|&o| m.op(o).name == "llvm.func") else {
        return Err("must have a function resolver".into());
    };
    let body = m
        .regions(f)
        .first()
        .is_some_and(|&r| !m.region_blocks(r).is_empty());
    if !body || attr(m, f, "linkage").and_then(enum_kw) == Some("available_externally") {
        return Err("resolver must be a definition".into());
    }
    if let Some(LTy::Func { ret, .. }) = attr(m, f, "function_type")
        .and_then(Attribute::as_type)
        .and_then(LTy::of)
    {
        if !matches!(*ret, LTy::Ptr(_)) {
            return Err("resolver must return a pointer".into());
        }
    }
    Ok(())
}

/// `#llvm.mlir.module_flag<behavior, "key", value>` values (MLIR 22's
/// `ModuleFlagAttr::verify`): `"CG Profile"` takes an array of `#llvm.cgprofile_entry`,
/// `"ProfileSummary"` a `#llvm.profile_summary`, any other key an integer or a string.
/// A flag whose text this cannot read is left alone.
pub(super) fn verify_module_flags(m: &Module, id: OpId) -> Result<(), String> {
    let Some(Attribute::Array(flags)) = attr(m, id, "flags") else {
        return Ok(());
    };
    for f in flags {
        let Attribute::Opaque(text) = f else {
            continue;
        };
        let Some(body) = text
            .trim()
            .strip_prefix("#llvm.mlir.module_flag<")
            .and_then(|b| b.strip_suffix('>'))
        else {
            continue;
        };
        let parts = super::ty::split_top(body);
        let [behavior, key, value] = parts.as_slice() else {
            continue;
        };
        const BEHAVIORS: &[&str] = &[
            "error",
            "warning",
            "require",
            "override",
            "append",
            "append_unique",
            "max",
            "min",
        ];
        let behavior = behavior.trim();
        if !BEHAVIORS.contains(&behavior) {
            return Err(format!(
                "expected one of [{}] for LLVM Module Flag Behavior, got: {behavior}",
                BEHAVIORS.join(", ")
            ));
        }
        let Some(Attribute::String { value: key, .. }) = crate::parser::parse_attr_str(key.trim())
        else {
            continue;
        };
        let value = value.trim();
        match key.as_slice() {
            b"CG Profile" => {
                let ok = match crate::parser::parse_attr_str(value) {
                    Some(Attribute::Array(items)) => items.iter().all(|e| {
                        matches!(e, Attribute::Opaque(t) if t.trim().starts_with("#llvm.cgprofile_entry<"))
                    }),
                    // an alias or a spelling this cannot read: left alone
                    None => true,
                    Some(_) => false,
                };
                if !ok {
                    return Err(
                        "'CG Profile' key expects an array of '#llvm.cgprofile_entry'".into(),
                    );
                }
            }
            b"ProfileSummary" => {
                if !value.starts_with("#llvm.profile_summary<") && known_kind(value) {
                    return Err(
                        "'ProfileSummary' key expects a '#llvm.profile_summary' attribute".into(),
                    );
                }
            }
            _ => {
                let ok = match crate::parser::parse_attr_str(value) {
                    Some(
                        Attribute::Integer { .. } | Attribute::Bool(_) | Attribute::String { .. },
                    ) => true,
                    _ => !known_kind(value),
                };
                if !ok {
                    return Err(format!(
                        "only integer and string values are currently supported for unknown key '\"{}\"'",
                        String::from_utf8_lossy(&key)
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Whether the attribute spelled `text` is one whose kind is known here: anything that
/// parses except an attribute alias (`#name` without a dialect prefix).
fn known_kind(text: &str) -> bool {
    match crate::parser::parse_attr_str(text) {
        Some(Attribute::Opaque(t)) => {
            let t = t.trim();
            !t.starts_with('#') || t.contains('.')
        }
        Some(_) => true,
        None => false,
    }
}
