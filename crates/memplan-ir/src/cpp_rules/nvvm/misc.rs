//! C++ verifier rules of assorted NVVM ops: `prefetch` (cache level, tensormap, eviction
//! priority versus address space), `clusterlaunchcontrol.query.cancel` (result type per
//! query), the proxies of `fence.proxy.sync_restrict` and the `range` attribute of the
//! `read.ptx.sreg.*` special-register reads.

use crate::attrs::Attribute;
use crate::cpp_rules::{attr, enum_of, group, named_operands};
use crate::ir::{Module, OpId};
use crate::types::{Signedness, TypeKind};

/// The address space of an `!llvm.ptr` value (`None` for any other type).
pub(super) fn ptr_space(m: &Module, v: crate::ir::ValueId) -> Option<u64> {
    match crate::cpp_rules::llvm::ty::LTy::of(m.value_type(v))? {
        crate::cpp_rules::llvm::ty::LTy::Ptr(n) => Some(n),
        _ => None,
    }
}

/// Runs the rule of `id` if it is one of the ops handled here.
pub(super) fn verify(m: &Module, id: OpId) -> Result<(), String> {
    let name = m.op(id).name.as_str();
    match name {
        "nvvm.prefetch" => prefetch(m, id),
        "nvvm.clusterlaunchcontrol.query.cancel" => {
            let Some(&r) = m.results(id).first() else {
                return Ok(());
            };
            let width = match m.value_type(r).kind() {
                TypeKind::Integer {
                    width,
                    signedness: Signedness::Signless,
                } => Some(*width),
                _ => None,
            };
            match enum_of(m, id, "query_type") {
                Some("is_canceled") if width != Some(1) => {
                    Err("is_canceled query type returns an i1".into())
                }
                Some("get_first_cta_id_x" | "get_first_cta_id_y" | "get_first_cta_id_z")
                    if width != Some(32) =>
                {
                    Err("get_first_cta_id_x, get_first_cta_id_y, get_first_cta_id_z query types return an i32".into())
                }
                _ => Ok(()),
            }
        }
        n if n.starts_with("nvvm.read.ptx.sreg.") => sreg_range(m, id),
        // the order is checked with the op table's rules; the proxies default to
        // generic -> async, the only pair this fence supports
        "nvvm.fence.proxy.sync_restrict" => {
            if enum_of(m, id, "fromProxy").is_some_and(|k| k != "generic") {
                return Err("only generic is support for from_proxy attribute".into());
            }
            if enum_of(m, id, "toProxy").is_some_and(|k| k != "async") {
                return Err("only async is supported for to_proxy attribute".into());
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn is_set(m: &Module, id: OpId, name: &str) -> bool {
    matches!(
        attr(m, id, name),
        Some(Attribute::Unit | Attribute::Bool(true))
    )
}

/// `PrefetchOp::verify`: what the cache level, tensormap, uniform and eviction-priority
/// forms allow, per address space of the pointer.
fn prefetch(m: &Module, id: OpId) -> Result<(), String> {
    let Some(space) = m.operands(id).first().and_then(|&v| ptr_space(m, v)) else {
        return Ok(());
    };
    let level = enum_of(m, id, "cacheLevel");
    let evict = enum_of(m, id, "evictPriority");
    let tensormap = is_set(m, id, "tensormap");
    let predicated = named_operands(m, id)
        .map(|g| !group(&g, "predicate").is_empty())
        .unwrap_or(false);
    if tensormap && level.is_some() {
        return Err("cannot specify both tensormap and cache level".into());
    }
    if tensormap {
        if space != 0 && space != 4 {
            return Err("prefetch tensormap requires a generic or constant pointer".into());
        }
        if evict.is_some() {
            return Err("prefetch tensormap does not support eviction priority".into());
        }
        if is_set(m, id, "in_param_space") && space != 0 {
            return Err("in_param_space can only be specified for a generic pointer".into());
        }
        return Ok(());
    }
    let Some(level) = level else {
        return Err("requires specification of either cache level or tensormap".into());
    };
    if !matches!(space, 0 | 1 | 5) {
        return Err("prefetch to cache level requires a generic, global, or local pointer".into());
    }
    if is_set(m, id, "uniform") {
        if level != "L1" {
            return Err(
                "unsupported cache level, the only supported uniform cache level is L1".into(),
            );
        }
        if space != 0 {
            return Err("prefetch to uniform cache requires a generic pointer".into());
        }
    }
    if let Some(e) = evict {
        if level != "L2" {
            return Err("cache eviction priority supported only for cache level L2".into());
        }
        if space != 1 {
            return Err("cache eviction priority requires a global pointer".into());
        }
        if e != "evict_normal" && e != "evict_last" {
            return Err(
                "unsupported cache eviction priority, only evict_last and evict_normal are supported"
                    .into(),
            );
        }
    }
    if predicated {
        return Err("predicate supported only on prefetch tensormap".into());
    }
    Ok(())
}

/// The `range` attribute of a special-register read must be a range LLVM's `ConstantRange`
/// accepts: equal bounds only for the full or the empty set (both 0 or both all-ones).
fn sreg_range(m: &Module, id: OpId) -> Result<(), String> {
    let Some(Attribute::Opaque(text)) = attr(m, id, "range") else {
        return Ok(());
    };
    let Some(body) = text
        .strip_prefix("#llvm.constant_range<")
        .and_then(|t| t.strip_suffix('>'))
    else {
        return Ok(());
    };
    let parts: Vec<&str> = body.split(',').map(str::trim).collect();
    let [ty, lo, hi] = parts.as_slice() else {
        return Ok(());
    };
    let Some(width) = ty.strip_prefix('i').and_then(|w| w.parse::<u32>().ok()) else {
        return Ok(());
    };
    if width == 0 || width > 64 {
        return Ok(());
    }
    // values as `width`-bit patterns (the literal may be written signed or unsigned)
    let mask: u128 = (1u128 << width) - 1;
    let bits = |s: &str| -> Option<u128> {
        let v: i128 = s.parse().ok()?;
        Some((v as u128) & mask)
    };
    let (Some(l), Some(h)) = (bits(lo), bits(hi)) else {
        return Ok(());
    };
    if l == h && l != 0 && l != mask {
        return Err(format!(
            "invalid range attribute: Lower == Upper, but they aren't min (0) or max ({mask}) value! This is an invalid constant range."
        ));
    }
    Ok(())
}
