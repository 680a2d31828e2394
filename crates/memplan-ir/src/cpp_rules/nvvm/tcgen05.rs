//! C++ verifier rules of the NVVM `tcgen05` ops: `tcgen05.cp` (shape and multicast),
//! `tcgen05.ld` / `tcgen05.st` (the offset operand and the vector length per shape),
//! `tcgen05.mma` / `tcgen05.mma.sp` (output-lane mask length per CTA group, A-shift)
//! and the block-scaled `tcgen05.mma.block_scale` / `tcgen05.mma.sp.block_scale`.

use super::super::llvm::ty::LTy;
use super::super::{attr, enum_of, group, named_operands};
use crate::ir::{Module, OpId};
use crate::types::TypeKind;

/// The number of elements of a vector type, 1 for anything else.
fn vec_len(t: &crate::types::Type) -> i64 {
    match t.kind() {
        TypeKind::Vector { shape, .. } => shape.iter().product(),
        _ => 1,
    }
}

/// `isValidVectorLength` of the tcgen05.ld/st table.
fn valid_len(shape: &str, n: i64) -> bool {
    match shape {
        "shape_16x128b" => n >= 2,
        "shape_16x256b" => n >= 4,
        _ => true,
    }
}

fn verify_ld_st(m: &Module, id: OpId, load: bool) -> Result<(), String> {
    let Some(shape) = enum_of(m, id, "shape") else {
        return Ok(());
    };
    let Some(groups) = named_operands(m, id) else {
        return Ok(());
    };
    let has_offset = !group(&groups, "offset").is_empty();
    if shape == "shape_16x32bx2" && !has_offset {
        return Err("shape 16x32bx2 requires offset argument".into());
    }
    // MLIR 22 rejects a stray offset on `tcgen05.ld` only.
    if load && shape != "shape_16x32bx2" && has_offset {
        return Err("offset argument is only supported for shape 16x32bx2".into());
    }
    let t = if load {
        m.results(id).first().map(|v| m.value_type(*v))
    } else {
        group(&groups, "val").first().map(|v| m.value_type(*v))
    };
    let Some(t) = t else {
        return Ok(());
    };
    let n = vec_len(t);
    if !valid_len(shape, n) {
        let what = if load {
            "result type length"
        } else {
            "input length"
        };
        let op = if load { "ld" } else { "st" };
        return Err(format!(
            "invalid {what} {n} for shape {shape} in tcgen05.{op} Op"
        ));
    }
    Ok(())
}

fn verify_cp(m: &Module, id: OpId) -> Result<(), String> {
    let Some(shape) = enum_of(m, id, "shape") else {
        return Ok(());
    };
    let mc = enum_of(m, id, "multicast").unwrap_or("none");
    match shape {
        "shape_128x256b" | "shape_128x128b" | "shape_4x256b" if mc != "none" => {
            Err("Invalid multicast type for tcgen05.cp Op".into())
        }
        "shape_64x128b" if !matches!(mc, "warpx2_01_23" | "warpx2_02_13") => Err(
            "Shape 64x128b requires multicast warpx2_01_23 or warpx2_02_13 for tcgen05.cp Op"
                .into(),
        ),
        "shape_32x128b" if mc != "warpx4" => {
            Err("Shape 32x128b requires multicast warpx4 for tcgen05.cp Op".into())
        }
        _ => Ok(()),
    }
}

/// `verifyTcgen05MMAOp`, shared by `tcgen05.mma` and `tcgen05.mma.sp`.
fn verify_mma(m: &Module, id: OpId) -> Result<(), String> {
    let Some(groups) = named_operands(m, id) else {
        return Ok(());
    };
    if let Some(mask) = group(&groups, "disableOutputLane").first() {
        let n = vec_len(m.value_type(*mask));
        match enum_of(m, id, "ctaGroup") {
            Some("cta_1") if n != 4 => {
                return Err(format!(
                    "Disable Output Lane of length {n} is incompatible with CtaGroupAttr"
                ))
            }
            Some("cta_2") if n != 8 => {
                return Err(format!(
                    "Disable Output Lane of length {n} is incompatible with CtaGroupAttr"
                ))
            }
            _ => {}
        }
    }
    if attr(m, id, "aShift").is_some() {
        let a_tensor = group(&groups, "matrixA")
            .first()
            .and_then(|v| LTy::of(m.value_type(*v)))
            .is_some_and(|t| matches!(t, LTy::Ptr(_)));
        if !a_tensor {
            return Err("A-shift can be applied only when matrix A is in tensor memory".into());
        }
        if matches!(enum_of(m, id, "collectorOp"), Some("fill" | "use")) {
            return Err("Cannot use collector buffer operation fill or use with ashift".into());
        }
    }
    Ok(())
}

/// `verifyTcgen05MMABlockScaleOp`.
fn verify_block_scale(m: &Module, id: OpId) -> Result<(), String> {
    let Some(kind) = enum_of(m, id, "kind") else {
        return Ok(());
    };
    let scale = enum_of(m, id, "blockScale").unwrap_or("default");
    if scale == "default" && kind == "mxf4nvf4" {
        return Err("mxf4nvf4 requires block scale attribute".into());
    }
    if scale == "block16" && kind != "mxf4nvf4" {
        return Err(format!("{kind} kind does not support block16 attribute"));
    }
    Ok(())
}

pub(super) fn verify(m: &Module, id: OpId) -> Result<(), String> {
    match m.op(id).name.as_str() {
        "nvvm.tcgen05.ld" => verify_ld_st(m, id, true),
        "nvvm.tcgen05.st" => verify_ld_st(m, id, false),
        "nvvm.tcgen05.cp" => verify_cp(m, id),
        "nvvm.tcgen05.mma" | "nvvm.tcgen05.mma.sp" => verify_mma(m, id),
        "nvvm.tcgen05.mma.block_scale" | "nvvm.tcgen05.mma.sp.block_scale" => {
            verify_block_scale(m, id)
        }
        _ => Ok(()),
    }
}
