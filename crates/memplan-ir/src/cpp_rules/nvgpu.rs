//! C++ verifier rules of the NVGPU dialect for the Hopper ops (TMA loads and stores, tensor
//! map descriptors, warpgroup descriptors and warpgroup MMA) and `nvgpu.rcp`: what MLIR 22's
//! `verify()` of each checks, in the same order, with its message. The older ops
//! (`ldmatrix`, `mma.sync`, `mma.sp.sync`, `device_async_copy`) are checked in
//! `crate::dialects::nvgpu`. The NVGPU types are dialect types memplan keeps as text; a rule
//! reads their parameters (`tensor = memref<...>`, `swizzle = ...`) and leaves the op alone
//! where it cannot read one, so as never to be stricter than MLIR.

use super::{enum_of, group, named_operands};
use crate::attrs::Attribute;
use crate::ir::{Module, OpId};
use crate::types::{FloatKind, Type, TypeKind, DYNAMIC};

/// `kMaxTMATensorDimension`: a TMA box has at most five dimensions.
const MAX_TMA_RANK: usize = 5;
/// `kMaxTMADimension`: each TMA box dimension is at most 256 elements.
const MAX_TMA_DIM: i64 = 256;
/// `kWgmmaSizeM`: the M size of one wgmma instruction.
const WGMMA_M: i64 = 64;

/// The `key = value` parameters of a dialect type `!prefix<k = v, ...>` (values split at
/// top-level commas), or `None` when `t` is not that type.
fn type_params(t: &Type, prefix: &str) -> Option<Vec<(String, String)>> {
    let TypeKind::Opaque(s) = t.kind() else {
        return None;
    };
    let inner = s
        .trim()
        .strip_prefix(prefix)?
        .trim_start()
        .strip_prefix('<')?
        .strip_suffix('>')?;
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    let bytes = inner.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'<' | b'(' | b'[' | b'{' => depth += 1,
            b'>' | b')' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .map(|p| {
            let (k, v) = p.split_once('=')?;
            Some((k.trim().to_string(), v.trim().to_string()))
        })
        .collect()
}

fn param<'a>(ps: &'a [(String, String)], key: &str) -> Option<&'a str> {
    ps.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// A `!nvgpu.tensormap.descriptor`: its memref, swizzle and interleave keywords.
struct TensorMap {
    tensor: Type,
    swizzle: String,
    interleave: String,
}

fn tensor_map(t: &Type) -> Option<TensorMap> {
    let ps = type_params(t, "!nvgpu.tensormap.descriptor")?;
    let tensor = crate::parser::parse_type_str(param(&ps, "tensor")?)?;
    matches!(tensor.kind(), TypeKind::MemRef { .. }).then_some(())?;
    Some(TensorMap {
        tensor,
        swizzle: param(&ps, "swizzle")?.to_string(),
        interleave: param(&ps, "interleave")?.to_string(),
    })
}

/// The memref of a `!nvgpu.warpgroup.descriptor<tensor = ...>`.
fn warpgroup_tensor(t: &Type) -> Option<Type> {
    let ps = type_params(t, "!nvgpu.warpgroup.descriptor")?;
    let tensor = crate::parser::parse_type_str(param(&ps, "tensor")?)?;
    matches!(tensor.kind(), TypeKind::MemRef { .. }).then_some(tensor)
}

/// The vector of a `!nvgpu.warpgroup.accumulator<fragmented = ...>`.
fn accumulator(t: &Type) -> Option<Type> {
    let ps = type_params(t, "!nvgpu.warpgroup.accumulator")?;
    let v = crate::parser::parse_type_str(param(&ps, "fragmented")?)?;
    matches!(v.kind(), TypeKind::Vector { .. }).then_some(v)
}

fn memref_parts(t: &Type) -> Option<(&[i64], &Type)> {
    match t.kind() {
        TypeKind::MemRef { shape, elem, .. } => Some((shape, elem)),
        _ => None,
    }
}

fn vector_parts(t: &Type) -> Option<(&[i64], &Type)> {
    match t.kind() {
        TypeKind::Vector { shape, elem, .. } => Some((shape, elem)),
        _ => None,
    }
}

/// `getIntOrFloatBitWidth` / `getElementTypeBitWidth` of an element type.
fn elem_width(t: &Type) -> Option<i64> {
    match t.kind() {
        TypeKind::Integer { width, .. } => Some(i64::from(*width)),
        TypeKind::Float(k) => Some(i64::from(k.bit_width())),
        _ => None,
    }
}

/// MLIR's `verifyTmaDescriptorWithMemref`: the descriptor's own limits, then (when a memref
/// is given) the memref against the descriptor. `Ok(())` where something is unreadable.
fn tma_descriptor(desc: &Type, memref: Option<&Type>) -> Result<(), String> {
    let Some(tm) = tensor_map(desc) else {
        return Ok(());
    };
    if tm.interleave != "none" {
        return Err("Interleave options are not supported yet.".into());
    }
    match crate::dialects::nvgpu::in_shared_memory(&tm.tensor) {
        Some(false) => {
            return Err("the tensor map descriptor has incorrect address space, it must be shared memory address space.".into());
        }
        None => return Ok(()),
        Some(true) => {}
    }
    let Some((shape, elem)) = memref_parts(&tm.tensor) else {
        return Ok(());
    };
    if shape.contains(&DYNAMIC) {
        return Err("the tensor map descriptor must be static shaped".into());
    }
    if let Some(&d) = shape.iter().find(|&&d| d <= 0 || d > MAX_TMA_DIM) {
        return Err(format!(
            "the tensor map descriptor must have dimensions between 1 and {MAX_TMA_DIM} but it is {d}"
        ));
    }
    if shape.len() > 1 && tm.swizzle != "none" {
        let want: i64 = match tm.swizzle.as_str() {
            "swizzle_32b" => 32,
            "swizzle_64b" => 64,
            "swizzle_128b" => 128,
            _ => return Ok(()),
        };
        let Some(w) = elem_width(elem) else {
            return Ok(());
        };
        // MLIR computes this in `unsigned`
        let last = (w * shape[shape.len() - 1] / 8) as u32;
        if i64::from(last) != want {
            return Err(format!(
                "the tensormap descriptor must have last dimension of {want} bytes but it is {last} bytes"
            ));
        }
    }
    let Some(dst) = memref else {
        return Ok(());
    };
    let Some((dshape, delem)) = memref_parts(dst) else {
        return Ok(());
    };
    if delem != elem {
        return Err("the element type of tensor map descriptor and memref must be same".into());
    }
    match crate::dialects::nvgpu::in_shared_memory(dst) {
        Some(false) => {
            return Err("the destination memref has incorrect address space, it must be shared memory address space.".into());
        }
        None => return Ok(()),
        Some(true) => {}
    }
    if dshape.contains(&DYNAMIC) {
        return Err("the destination memref must be static shaped".into());
    }
    if dshape.len() != shape.len() {
        return Err("the shape of tensor map descriptor and memref must have same rank".into());
    }
    if dshape != shape {
        return Err(format!(
            "memref and tensor map shapes mismatch '{}' != '{dst}'",
            tm.tensor
        ));
    }
    Ok(())
}

/// `nvgpu.tma.async.load` / `nvgpu.tma.async.store`: the descriptor against the shared
/// memory buffer, then the coordinate count.
fn tma_async(m: &Module, id: OpId, buffer: &str) -> Result<(), String> {
    let Some(g) = named_operands(m, id) else {
        return Ok(());
    };
    let (Some(desc), Some(buf)) = (
        group(&g, "tensorMapDescriptor").first(),
        group(&g, buffer).first(),
    ) else {
        return Ok(());
    };
    let desc = m.value_type(*desc);
    tma_descriptor(desc, Some(m.value_type(*buf)))?;
    let coords = group(&g, "coordinates").len();
    if coords > MAX_TMA_RANK {
        return Err(format!("Maximum {MAX_TMA_RANK} coordinates are supported."));
    }
    if let Some((shape, _)) = tensor_map(desc)
        .as_ref()
        .and_then(|t| memref_parts(&t.tensor))
    {
        if coords != shape.len() {
            return Err(
                "number of coordinates do not match with the rank of tensor descriptor map.".into(),
            );
        }
    }
    Ok(())
}

/// `nvgpu.tma.create.descriptor`: at most five box dimensions, and a valid descriptor.
fn tma_create(m: &Module, id: OpId) -> Result<(), String> {
    let Some(g) = named_operands(m, id) else {
        return Ok(());
    };
    if group(&g, "boxDimensions").len() > MAX_TMA_RANK {
        return Err(format!("Maximum {MAX_TMA_RANK} coordinates are supported."));
    }
    match m.results(id).first() {
        Some(r) => tma_descriptor(m.value_type(*r), None),
        None => Ok(()),
    }
}

/// `nvgpu.warpgroup.generate.descriptor`: a valid descriptor with 128-byte swizzling and
/// no interleave.
fn generate_descriptor(m: &Module, id: OpId) -> Result<(), String> {
    let Some(desc) = m.operands(id).get(1).map(|v| m.value_type(*v)) else {
        return Ok(());
    };
    tma_descriptor(desc, None)?;
    let Some(tm) = tensor_map(desc) else {
        return Ok(());
    };
    if tm.swizzle != "swizzle_128b" {
        return Err("supports only swizzle_128b is supported for the time being".into());
    }
    if tm.interleave != "none" {
        return Err("supports only none is supported for the time being".into());
    }
    Ok(())
}

fn is_float(t: &Type, k: FloatKind) -> bool {
    matches!(t.kind(), TypeKind::Float(x) if *x == k)
}

fn is_int(t: &Type, w: u32) -> bool {
    matches!(t.kind(), TypeKind::Integer { width, .. } if *width == w)
}

fn is_f8(t: &Type) -> bool {
    is_float(t, FloatKind::F8E5M2) || is_float(t, FloatKind::F8E4M3FN)
}

/// MLIR's `isAllowedWGMMADataType(D, A, B)`.
fn wgmma_types_ok(d: &Type, a: &Type, b: &Type) -> bool {
    let d_f32_or_f16 = is_float(d, FloatKind::F32) || is_float(d, FloatKind::F16);
    (is_float(a, FloatKind::F16) && is_float(b, FloatKind::F16) && d_f32_or_f16)
        || (is_float(a, FloatKind::TF32)
            && is_float(d, FloatKind::F32)
            && is_float(b, FloatKind::TF32))
        || (is_int(a, 16) && is_int(b, 16) && is_int(d, 32))
        || (is_int(a, 1) && is_int(b, 1) && is_int(d, 32))
        || (is_float(a, FloatKind::BF16) && is_float(b, FloatKind::BF16) && d_f32_or_f16)
        || (is_f8(a) && is_f8(b) && d_f32_or_f16)
}

/// MLIR's `isAllowedSizeN(n, A)`; `n` is read as a C `int`.
fn wgmma_n_ok(n: i64, a: &Type) -> bool {
    let n = n as i32;
    let wide = is_float(a, FloatKind::BF16)
        || is_float(a, FloatKind::F16)
        || is_float(a, FloatKind::F32)
        || is_float(a, FloatKind::TF32)
        || is_f8(a);
    if wide && n % 8 == 0 && (8..=256).contains(&n) {
        return true;
    }
    let short = is_int(a, 8) || is_int(a, 1);
    short && (matches!(n, 8 | 16 | 24 | 32 | 48 | 64) || (n % 16 == 0 && (64..=256).contains(&n)))
}

/// `nvgpu.warpgroup.mma`: transposes, C and D alike, 2-d matrices with matching M/N/K,
/// supported element types and N size.
fn warpgroup_mma(m: &Module, id: OpId) -> Result<(), String> {
    if m.op(id).props.get("transposeA").is_some() || m.op(id).attrs.get("transposeA").is_some() {
        let tb = m.op(id).props.get("transposeB").is_some()
            || m.op(id).attrs.get("transposeB").is_some();
        if !tb {
            return Err("supports non-transpose A (Row Major) and transpose B (Column Major) for the time being ".into());
        }
    }
    let ops = m.operands(id);
    let (Some(a), Some(b), Some(c), Some(d)) = (
        ops.first().and_then(|v| warpgroup_tensor(m.value_type(*v))),
        ops.get(1).and_then(|v| warpgroup_tensor(m.value_type(*v))),
        ops.get(2).and_then(|v| accumulator(m.value_type(*v))),
        m.results(id)
            .first()
            .and_then(|v| accumulator(m.value_type(*v))),
    ) else {
        return Ok(());
    };
    if c != d {
        return Err("type of matrix C and matrix D must be the same".into());
    }
    let (Some((sa, ea)), Some((sb, eb)), Some((sc, ec))) =
        (memref_parts(&a), memref_parts(&b), vector_parts(&c))
    else {
        return Ok(());
    };
    if sa.len() != 2 || sb.len() != 2 || sc.len() != 2 {
        return Err("has matrices A, B, C and D, they must be 2 dimensional".into());
    }
    if sa[1] != sb[0] {
        return Err(format!(
            "2nd dim matrix-A ({})!= 1st dim matrix-B ({} )",
            sa[1], sb[0]
        ));
    }
    if sa[0] != sc[0] {
        return Err(format!(
            "1st dim matrix-A ( {} )!= 1st dim matrix-C ( {} )",
            sa[0], sc[0]
        ));
    }
    if sb[1] != sc[1] {
        return Err(format!(
            "2nd dim matrix-B ( {} ) != 2nd dim matrix-C ( {} )",
            sb[1], sc[1]
        ));
    }
    if !wgmma_types_ok(ec, ea, eb) {
        return Err(format!("'{ec}' += '{ea}' * '{eb}', it is not supported."));
    }
    if !wgmma_n_ok(sb[1], ea) {
        return Err(format!(
            "has input type '{b}' n is set to {}, it is not supported",
            sb[1]
        ));
    }
    if !is_float(ec, FloatKind::F32)
        && !is_float(ea, FloatKind::F16)
        && !is_float(ea, FloatKind::BF16)
    {
        return Err(format!(
            "hit a limitation: '{ec}' += '{ea}' * '{eb}', it is not supported yet"
        ));
    }
    Ok(())
}

/// `nvgpu.warpgroup.mma.store`: f32 results whose first two dimensions match the
/// destination's (ranks below 2 are left alone: MLIR reads past the shape there).
fn warpgroup_store(m: &Module, id: OpId) -> Result<(), String> {
    let ops = m.operands(id);
    let (Some(v), Some(dst)) = (
        ops.first().and_then(|v| accumulator(m.value_type(*v))),
        ops.get(1).map(|v| m.value_type(*v)),
    ) else {
        return Ok(());
    };
    let (Some((vs, ve)), Some((ds, _))) = (vector_parts(&v), memref_parts(dst)) else {
        return Ok(());
    };
    if !is_float(ve, FloatKind::F32) {
        return Err("hit a limitation: only f32 results for the time being".into());
    }
    if vs.len() < 2 || ds.len() < 2 {
        return Ok(());
    }
    if vs[0] != ds[0] || vs[1] != ds[1] {
        return Err(format!(
            "results ['{v}'][{}] values. However, destination memref[{}][{}]  does not have same size as results",
            vs[1], ds[0], ds[1]
        ));
    }
    Ok(())
}

/// `nvgpu.warpgroup.mma.init.accumulator`: M a multiple of 64 and an N wgmma allows for
/// the element type (ranks below 2 left alone).
fn init_accumulator(m: &Module, id: OpId) -> Result<(), String> {
    let Some(v) = m
        .results(id)
        .first()
        .and_then(|r| accumulator(m.value_type(*r)))
    else {
        return Ok(());
    };
    let Some((s, e)) = vector_parts(&v) else {
        return Ok(());
    };
    if s.len() < 2 {
        return Ok(());
    }
    // both sizes are read as C `int`s
    if (s[0] as i32) % (WGMMA_M as i32) != 0 || !wgmma_n_ok(s[1], e) {
        return Err(format!(
            "has type '{v}'. It does not fit into warp-group level (wgmma) matrix multiplication instruction (or not supported yet)"
        ));
    }
    Ok(())
}

/// `nvgpu.rcp`: only the approximate, flush-to-zero form.
fn rcp(m: &Module, id: OpId) -> Result<(), String> {
    let d = m.op(id);
    let rounding = match d.props.get("rounding").or_else(|| d.attrs.get("rounding")) {
        None => Some("approx"),
        Some(_) => enum_of(m, id, "rounding"),
    };
    let Some(rounding) = rounding else {
        return Ok(());
    };
    let ftz = matches!(
        d.props.get("ftz").or_else(|| d.attrs.get("ftz")),
        Some(Attribute::Unit)
    );
    if rounding != "approx" || !ftz {
        return Err(format!(
            "has a limitation. #nvgpu<rcp_rounding_mode {rounding}> or non-ftz is not supported yet."
        ));
    }
    Ok(())
}

pub(super) fn verify(m: &Module, id: OpId) -> Result<(), String> {
    match m.op(id).name.as_str() {
        "nvgpu.tma.async.load" => tma_async(m, id, "dst"),
        "nvgpu.tma.async.store" => tma_async(m, id, "src"),
        "nvgpu.tma.create.descriptor" => tma_create(m, id),
        "nvgpu.warpgroup.generate.descriptor" => generate_descriptor(m, id),
        "nvgpu.warpgroup.mma" => warpgroup_mma(m, id),
        "nvgpu.warpgroup.mma.store" => warpgroup_store(m, id),
        "nvgpu.warpgroup.mma.init.accumulator" => init_accumulator(m, id),
        "nvgpu.rcp" => rcp(m, id),
        _ => Ok(()),
    }
}
