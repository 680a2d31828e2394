//! C++ verifier rules of NVVM's bulk asynchronous copies (`cp.async.bulk.*` and the TMA ops
//! `cp.async.bulk.tensor.*`): coordinate counts per load/store mode, im2col offsets, the
//! inline-PTX (predicated) forms, and shared::cta versus shared::cluster destinations.

use super::misc::ptr_space;
use crate::attrs::Attribute;
use crate::cpp_rules::{enum_of, group, named_operands};
use crate::ir::{Module, OpId};

/// Coordinate-count rule shared by the TMA store and store-reduce ops
/// (`cpAsyncBulkTensorCommonVerifier` with no im2col offsets).
fn store_dims(dims: usize, im2col: bool) -> Result<(), String> {
    if !(1..=5).contains(&dims) {
        return Err("expects coordinates between 1 to 5 dimension".into());
    }
    if im2col && dims < 3 {
        return Err("to use im2col mode, the tensor has to be at least 3-dimensional".into());
    }
    Ok(())
}

/// Coordinate and im2col-offset counts of the TMA load and prefetch ops per load mode.
fn load_params(dims: usize, offsets: usize, mode: &str) -> Result<(), String> {
    if !(1..=5).contains(&dims) {
        return Err("expects coordinates between 1 to 5 dimension".into());
    }
    let (im2col, want) = match mode {
        "tile" => (false, 0),
        "im2col" => (true, dims.saturating_sub(2)),
        "im2col_w" | "im2col_w_128" => (true, 2),
        "tile_gather4" => {
            if dims != 5 {
                return Err("Gather4 mode expects 5 coordinates".into());
            }
            (false, 0)
        }
        _ => return Ok(()),
    };
    if im2col && dims < 3 {
        return Err(format!(
            "to use {mode} mode, the tensor has to be at least 3-dimensional"
        ));
    }
    if offsets != want {
        return Err(format!(
            " im2col offsets expected {want} (provided {offsets})"
        ));
    }
    Ok(())
}

fn is_true(m: &Module, id: OpId, name: &str) -> bool {
    let d = m.op(id);
    matches!(
        d.props.get(name).or_else(|| d.attrs.get(name)),
        Some(Attribute::Bool(true) | Attribute::Unit)
    )
}

/// Runs the rule of `id` if it is one of the bulk-copy ops with a C++ verifier.
pub(super) fn verify(m: &Module, id: OpId) -> Result<(), String> {
    let name = m.op(id).name.as_str();
    if !name.starts_with("nvvm.cp.async.bulk.") {
        return Ok(());
    }
    let Some(g) = named_operands(m, id) else {
        return Ok(());
    };
    let n = |k: &str| group(&g, k).len();
    match name {
        "nvvm.cp.async.bulk.shared.cluster.global" => {
            let dst = group(&g, "dstMem").first().and_then(|&v| ptr_space(m, v));
            if dst == Some(3) && n("multicastMask") > 0 {
                return Err("Multicast is not supported with shared::cta mode.".into());
            }
        }
        "nvvm.cp.async.bulk.tensor.global.shared.cta" => {
            let mode = enum_of(m, id, "mode").unwrap_or("tile");
            if n("predicate") > 0 {
                if mode != "tile" {
                    return Err("Inline-ptx lowering supported only for Tile mode.".into());
                }
                if n("l2CacheHint") > 0 {
                    return Err("Inline-ptx lowering unsupported with L2 cache-hint.".into());
                }
            }
            let dims = n("coordinates");
            match mode {
                "tile" => store_dims(dims, false)?,
                "im2col" | "im2col_w" => store_dims(dims, true)?,
                "tile_scatter4" if dims != 5 => {
                    return Err("Scatter4 mode expects 5 coordinates".into())
                }
                _ => {}
            }
        }
        "nvvm.cp.async.bulk.tensor.reduce" => {
            let dims = n("coordinates");
            match enum_of(m, id, "mode").unwrap_or("tile") {
                "tile" => store_dims(dims, false)?,
                "im2col" | "im2col_w" => store_dims(dims, true)?,
                "tile_scatter4" => {
                    return Err("Scatter mode unsupported for CpAsyncBulkTensorReduceOp".into())
                }
                _ => {}
            }
        }
        "nvvm.cp.async.bulk.tensor.prefetch" => {
            let mode = enum_of(m, id, "mode").unwrap_or("tile");
            load_params(n("coordinates"), n("im2colOffsets"), mode)?;
        }
        "nvvm.cp.async.bulk.tensor.shared.cluster.global" => {
            let mode = enum_of(m, id, "mode").unwrap_or("tile");
            let cta_only = is_true(m, id, "isCTAOnly");
            if n("predicate") > 0 {
                if cta_only {
                    return Err("Predicate is supported only for shared::cluster mode.".into());
                }
                if mode != "tile" && mode != "im2col" {
                    return Err("Predicate is supported only for Tile and Im2col modes.".into());
                }
            } else {
                let dst = group(&g, "dstMem").first().and_then(|&v| ptr_space(m, v));
                let want = if cta_only { 3 } else { 7 };
                if dst.is_some_and(|s| s != want) {
                    return Err(if cta_only {
                        "Shared::cta destination requires address-space 3.".into()
                    } else {
                        "Shared::cluster destination requires address-space 7.".into()
                    });
                }
                if cta_only {
                    if n("multicastMask") > 0 {
                        return Err("Multicast is not supported with shared::cta mode.".into());
                    }
                    if m.op(id)
                        .props
                        .get("group")
                        .or_else(|| m.op(id).attrs.get("group"))
                        .is_some()
                    {
                        return Err("CTAGroup is not supported with shared::cta mode.".into());
                    }
                }
            }
            load_params(n("coordinates"), n("im2colOffsets"), mode)?;
        }
        _ => {}
    }
    Ok(())
}
