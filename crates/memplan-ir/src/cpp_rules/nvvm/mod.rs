//! C++ verifier rules of the NVVM dialect: conversions, barriers, fences and attribute
//! combinations.

mod bulk;
mod convert;
mod mbarrier;
mod misc;
mod mma;
mod tcgen05;
mod warp;

use super::{attr, enum_of, int_attr};
use crate::attrs::{Attribute, DenseArrayValues};
use crate::ir::{Module, OpId};
use crate::types::{FloatKind, Type, TypeKind};

fn nvvm_convert_dst(m: &Module, id: OpId) -> Result<(), String> {
    let name = m.op(id).name.as_str();
    let (key, allowed): (&str, &[FloatKind]) = match name {
        "nvvm.convert.f32x2.to.f4x2" | "nvvm.convert.f32x4.to.f4x4" => {
            ("dstTy", &[FloatKind::F4E2M1FN])
        }
        "nvvm.convert.f32x2.to.f6x2" | "nvvm.convert.f32x4.to.f6x4" => {
            ("dstTy", &[FloatKind::F6E2M3FN, FloatKind::F6E3M2FN])
        }
        "nvvm.convert.f16x2.to.f8x2" | "nvvm.convert.f32x4.to.f8x4" => {
            ("dstTy", &[FloatKind::F8E4M3FN, FloatKind::F8E5M2])
        }
        "nvvm.convert.bf16x2.to.f8x2" => ("dstTy", &[FloatKind::F8E8M0FNU]),
        "nvvm.convert.f32x2.to.f8x2" => (
            "dstTy",
            &[FloatKind::F8E4M3FN, FloatKind::F8E5M2, FloatKind::F8E8M0FNU],
        ),
        "nvvm.convert.f8x2.to.f16x2" => ("srcType", &[FloatKind::F8E4M3FN, FloatKind::F8E5M2]),
        "nvvm.convert.f8x2.to.bf16x2" => ("srcType", &[FloatKind::F8E8M0FNU]),
        "nvvm.convert.f6x2.to.f16x2" => ("srcType", &[FloatKind::F6E2M3FN, FloatKind::F6E3M2FN]),
        "nvvm.convert.f4x2.to.f16x2" => ("srcType", &[FloatKind::F4E2M1FN]),
        _ => return Ok(()),
    };
    let Some(t) = attr(m, id, key).and_then(|a| a.as_type()) else {
        return Ok(());
    };
    let kind = match t.kind() {
        TypeKind::Float(k) => Some(*k),
        _ => None,
    };
    if kind.is_some_and(|k| allowed.contains(&k)) {
        if name == "nvvm.convert.bf16x2.to.f8x2" {
            let rnd = enum_of(m, id, "rnd").unwrap_or("none");
            if rnd != "rz" && rnd != "rp" {
                return Err("Only RZ and RP rounding modes are supported for conversions from bf16x2 to f8x2.".into());
            }
        }
        if name == "nvvm.convert.f32x2.to.f8x2" {
            let rnd = enum_of(m, id, "rnd").unwrap_or("none");
            let sat = enum_of(m, id, "sat").unwrap_or("none");
            if kind == Some(FloatKind::F8E8M0FNU) {
                if rnd != "rz" && rnd != "rp" {
                    return Err("Only RZ and RP rounding modes are supported for conversions from f32x2 to 'f8E8M0FNU' type".into());
                }
                if matches!(
                    attr(m, id, "relu"),
                    Some(Attribute::Bool(true) | Attribute::Unit)
                ) {
                    return Err("relu not supported for conversions to 'f8E8M0FNU' type".into());
                }
            } else {
                if rnd != "rn" {
                    return Err("Only RN rounding mode is supported for conversions from f32x2 to 'f8E4M3FN' and 'f8E5M2' types".into());
                }
                if sat != "satfinite" {
                    return Err("Only SATFINITE saturation mode is supported for conversions from f32x2 to 'f8E4M3FN' and 'f8E5M2' types".into());
                }
            }
        }
        return Ok(());
    }
    let names: Vec<String> = allowed
        .iter()
        .map(|k| format!("'{}'", Type::new(TypeKind::Float(*k))))
        .collect();
    let what = name
        .trim_start_matches("nvvm.convert.")
        .replace(".to.", " to ");
    let list = match names.len() {
        1 => format!("{} type is", names[0]),
        2 => format!("{} and {} types are", names[0], names[1]),
        _ => format!("{}, {}, and {} types are", names[0], names[1], names[2]),
    };
    let dot = if name == "nvvm.convert.f32x2.to.f8x2" {
        ""
    } else {
        "."
    };
    Err(format!(
        "Only {list} supported for conversions from {what}{dot}"
    ))
}

pub(super) fn verify(m: &Module, id: OpId) -> Result<(), String> {
    let d = m.op(id);
    let ops = m.operands(id);
    match d.name.as_str() {
        n if n.starts_with("nvvm.mma.")
            || n.starts_with("nvvm.wmma.")
            || matches!(
                n,
                "nvvm.ldmatrix" | "nvvm.stmatrix" | "nvvm.wgmma.mma_async"
            ) =>
        {
            mma::verify(m, id)?
        }
        n if n.starts_with("nvvm.tcgen05.") => tcgen05::verify(m, id)?,
        "nvvm.shfl.sync" | "nvvm.vote.sync" | "nvvm.redux.sync" | "nvvm.match.sync" => {
            warp::verify(m, id)?
        }
        "nvvm.convert.float.to.tf32" => match enum_of(m, id, "rnd").unwrap_or("none") {
            "rn" | "rz" => {}
            "rna" => {
                if matches!(
                    attr(m, id, "relu"),
                    Some(Attribute::Bool(true) | Attribute::Unit)
                ) {
                    return Err("Relu not supported with rna rounding mode.".into());
                }
            }
            _ => {
                return Err(
                    "Only {rn,rz,rna} rounding modes supported for ConvertFloatToTF32Op.".into(),
                )
            }
        },
        "nvvm.convert.f32x2.to.f16x2" | "nvvm.convert.f32x2.to.bf16x2" => convert::verify(m, id)?,
        n if n.starts_with("nvvm.convert.") => nvvm_convert_dst(m, id)?,
        n if n.starts_with("nvvm.mbarrier.") => mbarrier::verify(m, id)?,
        n if n.starts_with("nvvm.cp.async.bulk.") => bulk::verify(m, id)?,
        "nvvm.prefetch"
        | "nvvm.clusterlaunchcontrol.query.cancel"
        | "nvvm.fence.proxy.sync_restrict" => misc::verify(m, id)?,
        n if n.starts_with("nvvm.read.ptx.sreg.") => misc::verify(m, id)?,
        "nvvm.cp.async.shared.global" => {
            let modifier = enum_of(m, id, "modifier");
            if modifier.is_some_and(|k| k != "cg" && k != "ca") {
                return Err("Only CG and CA cache modifiers are supported.".into());
            }
            let size = int_attr(m, id, "size");
            if size.is_some_and(|n| !matches!(n, 4 | 8 | 16)) {
                return Err("expected byte size to be either 4, 8 or 16.".into());
            }
            if modifier == Some("cg") && size.is_some_and(|n| n != 16) {
                return Err("CG cache modifier is only support for 16 bytes copy.".into());
            }
        }
        "nvvm.mapa" => {
            let space = |v: Option<&crate::ir::ValueId>| {
                let t = m.value_type(*v?);
                match crate::cpp_rules::llvm::ty::LTy::of(t)? {
                    crate::cpp_rules::llvm::ty::LTy::Ptr(n) => Some(n),
                    _ => None,
                }
            };
            let pair = (space(m.operands(id).first()), space(m.results(id).first()));
            if let (Some(a), Some(r)) = pair {
                if matches!(a, 0 | 3) && matches!(r, 0 | 7) && !matches!((a, r), (0, 0) | (3, 7)) {
                    return Err(
                        "failed to verify that Valid address-space check(or mapping) for mapa Op"
                            .into(),
                    );
                }
            }
        }
        "nvvm.pmevent" => {
            let id_ = int_attr(m, id, "eventId");
            let mask = attr(m, id, "maskedEventId");
            match (id_, mask) {
                (None, None) => return Err("either `id` or `mask` must be set".into()),
                (Some(_), Some(_)) => {
                    return Err("`id` and `mask` cannot be set at the same time".into())
                }
                (Some(v), None) if !(0..=15).contains(&v) => {
                    return Err("`id` must be between 0 and 15".into())
                }
                _ => {}
            }
        }
        "nvvm.st.bulk" => {
            if let Some(v) = int_attr(m, id, "initVal") {
                if v != 0 {
                    return Err(format!("only 0 is supported for initVal, got {v}"));
                }
            }
        }
        "nvvm.prmt" => {
            let has_hi = ops.len() == 3;
            match enum_of(m, id, "mode") {
                Some(mode @ ("default" | "f4e" | "b4e")) if !has_hi => {
                    return Err(format!("mode '{mode}' requires 'hi' operand."))
                }
                Some(mode @ ("rc8" | "ecl" | "ecr" | "rc16")) if has_hi => {
                    return Err(format!("mode '{mode}' does not accept 'hi' operand."))
                }
                _ => {}
            }
        }
        "nvvm.barrier" => {
            if let Some(Attribute::DenseArray {
                values: DenseArrayValues::Int(seg),
                ..
            }) = attr(m, id, "operandSegmentSizes")
            {
                if seg.len() == 3 {
                    let (bid, nthreads, pred) = (seg[0] > 0, seg[1] > 0, seg[2] > 0);
                    let op_ = attr(m, id, "reductionOp").is_some();
                    if nthreads && !bid {
                        return Err(
                            "barrier id is missing, it should be set between 0 to 15".into()
                        );
                    }
                    if bid && (op_ || pred) {
                        return Err("reduction are only available when id is 0".into());
                    }
                    if op_ != pred {
                        return Err("reduction predicate and reduction operation must be specified together".into());
                    }
                }
            }
        }
        "nvvm.fence.proxy" => {
            let kind = enum_of(m, id, "kind");
            let space = attr(m, id, "space").is_some();
            if kind == Some("generic") {
                return Err("generic proxy not a supported proxy kind".into());
            }
            if kind == Some("tensormap") {
                return Err("tensormap proxy is not a supported proxy kind".into());
            }
            if kind == Some("async.shared") && !space {
                return Err("async_shared fence requires space attribute".into());
            }
            if kind.is_some() && kind != Some("async.shared") && space {
                return Err("only async_shared fence can have space attribute".into());
            }
        }
        "nvvm.fence.proxy.acquire" | "nvvm.fence.proxy.release" => {
            if enum_of(m, id, "fromProxy").is_some_and(|k| k != "generic") {
                return Err(
                    "uni-directional proxies only support generic for from_proxy attribute".into(),
                );
            }
            if enum_of(m, id, "toProxy").is_some_and(|k| k != "tensormap") {
                return Err(
                    "uni-directional proxies only support tensormap for to_proxy attribute".into(),
                );
            }
        }
        _ => {}
    }
    Ok(())
}

/// The SM version a `#nvvm.target` chip names, as MLIR 22's
/// `NVVMCheckSMVersion::getTargetSMVersionFromStr` reads it: the digits after the first three
/// characters (`sm_90a` -> 90) and whether the name ends in `a` (arch-accelerated). `None`
/// when there are no digits there or the number does not fit: MLIR then reads an
/// uninitialised value, so its verdict is not defined and the target is left alone.
fn target_sm(chip: &str) -> Option<(u32, bool)> {
    let digits: String = chip
        .chars()
        .skip(3)
        .take_while(|c| c.is_ascii_digit())
        .collect();
    Some((digits.parse().ok()?, chip.ends_with('a')))
}

/// Where a `gpu.module` target check failed: the op, the message, and whether MLIR prefixes
/// the message with `'name' op`.
pub(crate) type TargetError = (OpId, String, bool);

/// The `#nvvm.target` attributes of a `gpu.module`: the attribute's own rules
/// (`NVVMTargetAttr::verify`: optimization level 0..=3, non-empty triple and chip, string
/// `link` entries) and, unless `verifyTarget = false`, MLIR 22's
/// `NVVMTargetAttr::verifyTarget`: a chip of at least sm_20, and every nested op whose ODS
/// carries `NVVMRequiresSM<N>` needs a chip of at least sm_N, every op with
/// `NVVMRequiresSMa<[N, ...]>` an arch-accelerated chip `sm_Na` of its list (the op table
/// carries the trait arguments). A target whose text this cannot read is left alone.
pub(crate) fn verify_targets(m: &Module, module: OpId) -> Result<(), TargetError> {
    let Some(Attribute::Array(targets)) = attr(m, module, "targets") else {
        return Ok(());
    };
    for t in targets {
        let Attribute::Opaque(text) = t else {
            continue;
        };
        let text = text.trim();
        let Some(rest) = text.strip_prefix("#nvvm.target") else {
            continue;
        };
        let body = match rest.trim() {
            "" => "",
            r => match r.strip_prefix('<').and_then(|b| b.strip_suffix('>')) {
                Some(b) => b,
                None => continue,
            },
        };
        let mut chip = "sm_50".to_string();
        let mut verify_target = true;
        let mut readable = true;
        for p in crate::cpp_rules::llvm::ty::split_top(body) {
            let p = p.trim();
            if p.is_empty() {
                continue;
            }
            let Some((k, v)) = p.split_once('=') else {
                readable = false;
                continue;
            };
            let v = crate::parser::parse_attr_str(v.trim());
            match (k.trim(), v) {
                ("O", Some(Attribute::Integer { value, .. })) => {
                    if !(0..=3).contains(&value) {
                        return Err((
                            module,
                            "The optimization level must be a number between 0 and 3.".into(),
                            false,
                        ));
                    }
                }
                ("triple", Some(Attribute::String { value, .. })) => {
                    if value.is_empty() {
                        return Err((module, "The target triple cannot be empty.".into(), false));
                    }
                }
                ("chip", Some(Attribute::String { value, .. })) => {
                    if value.is_empty() {
                        return Err((module, "The target chip cannot be empty.".into(), false));
                    }
                    chip = String::from_utf8_lossy(&value).into_owned();
                }
                ("link", Some(Attribute::Array(items))) => {
                    if !items.iter().all(|i| matches!(i, Attribute::String { .. })) {
                        return Err((
                            module,
                            "All the elements in the `link` array must be strings.".into(),
                            false,
                        ));
                    }
                }
                ("verifyTarget", Some(Attribute::Bool(b))) => verify_target = b,
                ("features" | "flags" | "triple" | "O" | "link", Some(_)) => {}
                _ => readable = false,
            }
        }
        if !readable || !verify_target {
            continue;
        }
        let Some((version, accelerated)) = target_sm(&chip) else {
            continue;
        };
        if version < 20 {
            return Err((
                module,
                "Minimum NVVM target SM version is sm_20".into(),
                false,
            ));
        }
        let table = crate::ods::table();
        for op in m.walk_ops(module) {
            let Some(def) = table.get(m.op(op).name.as_str()) else {
                continue;
            };
            let min_ok = def
                .trait_values("NVVMRequiresSM")
                .filter_map(|v| v.parse::<u32>().ok())
                .all(|min| version >= min);
            let acc_ok = def.trait_values("NVVMRequiresSMa").all(|list| {
                accelerated
                    && list
                        .split('|')
                        .filter_map(|v| v.parse::<u32>().ok())
                        .any(|v| v == version)
            });
            if !min_ok || !acc_ok {
                return Err((op, format!("is not supported on {chip}"), true));
            }
        }
    }
    Ok(())
}
