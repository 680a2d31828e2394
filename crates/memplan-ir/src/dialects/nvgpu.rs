//! Verifiers of the `nvgpu` dialect's ops that MLIR writes in C++ (`NVGPUDialect.cpp`):
//! `nvgpu.ldmatrix`, `nvgpu.mma.sync`, `nvgpu.mma.sp.sync` and `nvgpu.device_async_copy`,
//! plus the element-type predicates their ODS definitions state (`PredOpTrait`s the op
//! table does not carry). Parsing and printing of these ops come from the op table
//! (`crate::ods`); this module only adds the rules. Where a rule needs something this
//! cannot read for certain (an attribute of an unexpected kind, a layout whose strides are
//! unknown here), the op is accepted, so as never to be stricter than MLIR.

use crate::attrs::Attribute;
use crate::ir::{Module, OpId};
use crate::types::{FloatKind, Type, TypeKind};

use super::memref::prop;

/// MLIR's `kSharedMemoryAddressSpace`.
const SHARED_SPACE: i128 = 3;
/// MLIR's `kWarpSize` in the nvgpu verifiers.
const WARP_SIZE: i64 = 32;

/// The hand-written verifier of `op` (an `nvgpu.*` op), if MLIR has one.
pub fn verify(m: &Module, op: OpId) -> Result<(), String> {
    match m.op(op).name.as_str() {
        "nvgpu.ldmatrix" => verify_ldmatrix(m, op),
        "nvgpu.mma.sync" => verify_mma(m, op, false),
        "nvgpu.mma.sp.sync" => {
            if let Some(sel) = prop(m, op, "sparsitySelector").and_then(Attribute::as_int) {
                // MLIR reads the selector as an unsigned value
                if !(0..=1).contains(&sel) {
                    return Err("sparsity selector should be 0 or 1".into());
                }
            }
            verify_mma(m, op, true)
        }
        "nvgpu.device_async_copy" => verify_async_copy(m, op),
        _ => Ok(()),
    }
}

/// `NVGPUDialect::hasSharedMemoryAddressSpace`: memory space `3` or
/// `#gpu.address_space<workgroup>`; `None` when the space is of a kind this does not read.
pub(crate) fn in_shared_memory(t: &Type) -> Option<bool> {
    let TypeKind::MemRef { memory_space, .. } = t.kind() else {
        return None;
    };
    match memory_space {
        None => Some(false),
        Some(Attribute::Integer { value, .. }) => Some(*value == SHARED_SPACE),
        Some(a @ Attribute::Opaque(s)) if s.starts_with("#gpu") => {
            Some(super::gpu::address_space_name(a).is_some_and(|n| n == "workgroup"))
        }
        Some(_) => Some(false),
    }
}

/// Bit width of an integer or float type (`getIntOrFloatBitWidth`).
fn int_or_float_width(t: &Type) -> Option<i64> {
    match t.kind() {
        TypeKind::Integer { width, .. } => Some(i64::from(*width)),
        TypeKind::Float(k) => Some(i64::from(k.bit_width())),
        _ => None,
    }
}

fn vector_parts(t: &Type) -> Option<(&[i64], &Type)> {
    match t.kind() {
        TypeKind::Vector { shape, elem, .. } => Some((shape, elem)),
        _ => None,
    }
}

fn memref_elem(t: &Type) -> Option<&Type> {
    match t.kind() {
        TypeKind::MemRef { elem, .. } => Some(elem),
        _ => None,
    }
}

fn verify_ldmatrix(m: &Module, op: OpId) -> Result<(), String> {
    let (Some(&src), Some(&res)) = (m.operands(op).first(), m.results(op).first()) else {
        return Ok(());
    };
    let (src, res) = (m.value_type(src), m.value_type(res));
    let Some((shape, elem)) = vector_parts(res) else {
        return Ok(());
    };
    // PredOpTrait "srcMemref and res have same element type"
    if memref_elem(src).is_some_and(|e| e != elem) {
        return Err("failed to verify that srcMemref and res have same element type".into());
    }
    if in_shared_memory(src) == Some(false) {
        return Err(format!(
            "expected nvgpu.ldmatrix srcMemref must have a memory space attribute of IntegerAttr({SHARED_SPACE}) or gpu::AddressSpaceAttr(Workgroup)"
        ));
    }
    let Some(width) = int_or_float_width(elem).filter(|&w| w > 0) else {
        return Ok(());
    };
    if width > 32 {
        return Err("nvgpu.ldmatrix works for 32b or lower".into());
    }
    let transpose = matches!(
        prop(m, op, "transpose"),
        Some(Attribute::Bool(true) | Attribute::Unit)
    );
    if transpose && width != 16 {
        return Err("nvgpu.ldmatrix transpose works only at 16b granularity".into());
    }
    if shape.len() != 2 {
        return Err("results must be 2 dimensional vector".into());
    }
    let per_32b = 32 / width;
    if shape[1] != per_32b {
        return Err(format!("expected vector register shape[1] = {per_32b}"));
    }
    if let Some(tiles) = prop(m, op, "numTiles").and_then(Attribute::as_int) {
        if i128::from(shape[0]) != tiles {
            return Err("expected vector register shape[0] and numTiles to match".into());
        }
    }
    Ok(())
}

/// `verifyMmaSyncOp` of NVGPUDialect.cpp, shared by `mma.sync` and `mma.sp.sync`.
fn verify_mma(m: &Module, op: OpId, sparse: bool) -> Result<(), String> {
    let ops = m.operands(op);
    if ops.len() < 3 {
        return Ok(());
    }
    let parts: Vec<_> = ops[..3]
        .iter()
        .map(|&v| vector_parts(m.value_type(v)))
        .collect();
    let (Some((a_shape, a_elem)), Some((b_shape, b_elem)), Some((c_shape, _))) =
        (parts[0], parts[1], parts[2])
    else {
        return Ok(());
    };
    // PredOpTrait "matrixA and matrixB have same element type"
    if a_elem != b_elem {
        return Err("failed to verify that matrixA and matrixB have same element type".into());
    }
    let is_float = |k: FloatKind| matches!(a_elem.kind(), TypeKind::Float(f) if *f == k);
    let int_width = match a_elem.kind() {
        TypeKind::Integer { width, .. } => Some(*width),
        _ => None,
    };
    if sparse && is_float(FloatKind::F64) {
        return Err("f64 is not supported for sparse mode".into());
    }
    let (shape_k, num_a, num_b): (i64, i64, i64) = if is_float(FloatKind::F64) {
        (4, 1, 1)
    } else if is_float(FloatKind::F32)
        || is_float(FloatKind::BF16)
        || is_float(FloatKind::F16)
        || matches!(int_width, Some(8 | 4))
    {
        let w = int_or_float_width(a_elem).unwrap_or(32);
        (128 / w, 32 / w, 32 / w)
    } else {
        return Err(format!(
            "expected input data type (i4,i8,f16,bf16,tf32,f64) supported by {}",
            m.op(op).name
        ));
    };
    if a_shape.len() != 2 {
        return Err("matrixA must be 2 dimensional vector".into());
    }
    if b_shape.len() != 2 {
        return Err("matrixB must be 2 dimensional vector".into());
    }
    if c_shape.len() != 2 {
        return Err("matrixC must be 2 dimensional vector".into());
    }
    let Some([mm, nn, kk]) = mma_shape(m, op) else {
        return Ok(());
    };
    let sparse_factor = if sparse { 2 } else { 1 };
    let count = |s: &[i64]| {
        s[0].checked_mul(s[1])
            .and_then(|x| x.checked_mul(WARP_SIZE))
    };
    let (Some(ma), Some(mb), Some(mc)) =
        (mm.checked_mul(kk), kk.checked_mul(nn), mm.checked_mul(nn))
    else {
        return Ok(());
    };
    if count(a_shape) != Some(ma / sparse_factor) {
        return Err(format!("expected {ma} warp-wide matrix A elements"));
    }
    if count(b_shape) != Some(mb) {
        return Err(format!("expected {mb} warp-wide matrix B elements"));
    }
    if count(c_shape) != Some(mc) {
        return Err(format!("expected {mc} warp-wide matrix C elements"));
    }
    let tf32 = prop(m, op, "tf32Enabled").is_some();
    if tf32 && !is_float(FloatKind::F32) {
        return Err("expected tf32 tensor cores only for F32 operands".into());
    }
    let (m_tile, n_tile, k_tile) = (mm / 8, nn / 8, kk / shape_k);
    if a_shape[0] != m_tile * k_tile / sparse_factor || a_shape[1] != num_a {
        return Err(format!(
            "expected matrix A to be shaped ({} x {num_a})",
            m_tile * k_tile
        ));
    }
    if b_shape[0] != k_tile * n_tile || b_shape[1] != num_b {
        return Err(format!(
            "expected matrix B to be shaped ({} x {num_b})",
            k_tile * n_tile
        ));
    }
    if c_shape[0] != m_tile * n_tile || c_shape[1] != 2 {
        return Err(format!(
            "expected matrix C to be shaped ({} x 2)",
            m_tile * n_tile
        ));
    }
    Ok(())
}

/// The `mmaShape` array attribute as `[m, n, k]`, when it is three integers that keep the
/// products below in range.
fn mma_shape(m: &Module, op: OpId) -> Option<[i64; 3]> {
    let Attribute::Array(items) = prop(m, op, "mmaShape")? else {
        return None;
    };
    let v: Vec<i64> = items
        .iter()
        .map(|a| a.as_int().and_then(|x| i64::try_from(x).ok()))
        .collect::<Option<_>>()?;
    let bounded = v.iter().all(|x| x.unsigned_abs() < (1 << 24));
    match v.as_slice() {
        [a, b, c] if bounded => Some([*a, *b, *c]),
        _ => None,
    }
}

/// MLIR's `MemRefType::isLastDimUnitStride`; `None` when this cannot read the layout.
fn last_dim_unit_stride(t: &Type) -> Option<bool> {
    let TypeKind::MemRef { shape, layout, .. } = t.kind() else {
        return None;
    };
    let (strides, _) = super::memref::canonical_strides(shape, layout.as_ref())?;
    Some(!matches!(strides.last(), Some(&s) if s != 1))
}

fn verify_async_copy(m: &Module, op: OpId) -> Result<(), String> {
    let d = m.op(op);
    let sizes = prop(m, op, "operandSegmentSizes").and_then(Attribute::as_int_array);
    let ops = m.operands(op);
    let Some(sizes) = sizes.filter(|s| s.len() == 5 && s.iter().all(|&x| x >= 0)) else {
        return Ok(());
    };
    if sizes.iter().sum::<i64>() != ops.len() as i64 {
        return Ok(());
    }
    // segments: dst, dstIndices, src, srcIndices, srcElements
    let (dst_n, dst_idx, src_n, src_idx) = (sizes[0], sizes[1], sizes[2], sizes[3]);
    if dst_n != 1 || src_n != 1 {
        return Ok(());
    }
    let dst = m.value_type(ops[0]);
    let src = m.value_type(ops[(1 + dst_idx) as usize]);
    let (Some(src_elem), Some(dst_elem)) = (memref_elem(src), memref_elem(dst)) else {
        return Ok(());
    };
    if last_dim_unit_stride(src) == Some(false) {
        return Err("source memref most minor dim must have unit stride".into());
    }
    if last_dim_unit_stride(dst) == Some(false) {
        return Err("destination memref most minor dim must have unit stride".into());
    }
    if in_shared_memory(dst) == Some(false) {
        return Err(format!(
            "destination memref must have a memory space attribute of IntegerAttr({SHARED_SPACE}) or gpu::AddressSpaceAttr(Workgroup)"
        ));
    }
    if dst_elem != src_elem {
        return Err("source and destination must have the same element type".into());
    }
    let rank = |t: &Type| t.shape().map(|s| s.len() as i64);
    if let Some(r) = rank(src).filter(|&r| r != src_idx) {
        return Err(format!("expected {r} source indices, got {src_idx}"));
    }
    if let Some(r) = rank(dst).filter(|&r| r != dst_idx) {
        return Err(format!("expected {r} destination indices, got {dst_idx}"));
    }
    let bypass = matches!(
        d.props.get("bypassL1").or_else(|| d.attrs.get("bypassL1")),
        Some(Attribute::Unit | Attribute::Bool(true))
    );
    let (Some(width), Some(elems)) = (
        int_or_float_width(dst_elem).filter(|&w| w > 0),
        prop(m, op, "dstElements").and_then(Attribute::as_int),
    ) else {
        return Ok(());
    };
    if bypass {
        // `getZExtValue` of the index attribute; sizes beyond i64 are left alone
        let Ok(elems) = i64::try_from(elems) else {
            return Ok(());
        };
        let bytes = width.checked_mul(elems).map(|b| b / 8);
        if bytes != Some(16) {
            return Err(format!(
                "bypassL1 does not satify alignment for '{dst}' with destination element {elems}. Unset bypassL1, or set destination element to {}",
                16 * 8 / width
            ));
        }
    }
    Ok(())
}
