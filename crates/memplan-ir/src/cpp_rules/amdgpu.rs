//! C++ verifier rules of the AMDGPU dialect: the `verify()` of every op that MLIR 22 marks
//! `hasVerifier` (fp8 packing, buffer casts and buffer ops, MFMA / WMMA / sparse and scaled
//! matrix ops, DPP, permlane swaps, LDS gathers and transpose loads, the TDM descriptor ops),
//! each checking what MLIR 22 checks, in the same order, with its message. A value whose type
//! a rule cannot read (an unparsed dialect type, say) leaves that rule alone.

use super::{attr, enum_of, group, int_attr, named_operands};
use crate::attrs::{Attribute, DenseArrayValues};
use crate::ir::{Module, OpId};
use crate::types::{FloatKind, Type, TypeKind, DYNAMIC};

/// A memory space attribute with whitespace removed, for comparing dialect attribute text.
fn space_text(a: &Attribute) -> Option<String> {
    match a {
        Attribute::Opaque(s) => Some(s.chars().filter(|c| !c.is_whitespace()).collect()),
        _ => None,
    }
}

fn gpu_space(a: &Attribute, which: &str) -> bool {
    space_text(a).is_some_and(|s| {
        s == format!("#gpu.address_space<{which}>") || s == format!("#gpu<address_space{which}>")
    })
}

/// MLIR's `hasGlobalMemorySpace`: no space, 0 or 1, or `#gpu.address_space<global>`.
fn global_space(space: Option<&Attribute>) -> bool {
    match space {
        None => true,
        Some(Attribute::Integer { value, .. }) => *value == 0 || *value == 1,
        Some(a) => gpu_space(a, "global"),
    }
}

/// MLIR's `hasWorkgroupMemorySpace`: 3 or `#gpu.address_space<workgroup>`.
fn workgroup_space(space: Option<&Attribute>) -> bool {
    match space {
        None => false,
        Some(Attribute::Integer { value, .. }) => *value == 3,
        Some(a) => gpu_space(a, "workgroup"),
    }
}

/// MLIR's `hasFatRawBufferMemorySpace`: 7 or `#amdgpu.address_space<fat_raw_buffer>`.
fn fat_raw_buffer_space(space: Option<&Attribute>) -> bool {
    match space {
        None => false,
        Some(Attribute::Integer { value, .. }) => *value == 7,
        Some(a) => space_text(a).is_some_and(|s| s == "#amdgpu.address_space<fat_raw_buffer>"),
    }
}

/// (shape, element, layout, memory space) of a ranked memref.
type MemRefParts<'a> = (
    &'a [i64],
    &'a Type,
    Option<&'a Attribute>,
    Option<&'a Attribute>,
);

fn memref(t: &Type) -> Option<MemRefParts<'_>> {
    match t.kind() {
        TypeKind::MemRef {
            shape,
            elem,
            layout,
            memory_space,
        } => Some((shape, elem, layout.as_ref(), memory_space.as_ref())),
        _ => None,
    }
}

/// (element count, element type) of a vector, or (1, the type) of a scalar.
fn len_elem(t: &Type) -> (i128, &Type) {
    match t.kind() {
        TypeKind::Vector { shape, elem, .. } => (shape.iter().map(|&d| d as i128).product(), elem),
        _ => (1, t),
    }
}

/// The float width of a float type (`isFloat(N)` compares it), or `None`.
fn fwidth(t: &Type) -> Option<u32> {
    match t.kind() {
        TypeKind::Float(k) => Some(k.bit_width()),
        _ => None,
    }
}

fn is_float_w(t: &Type, w: u32) -> bool {
    fwidth(t) == Some(w)
}

fn is_small_float(t: &Type) -> bool {
    matches!(fwidth(t), Some(4 | 6 | 8))
}

fn is_int_w(t: &Type, w: u32) -> bool {
    matches!(t.kind(), TypeKind::Integer { width, .. } if *width == w)
}

/// `getIntOrFloatBitWidth` of an integer or float type.
fn int_or_float_width(t: &Type) -> Option<u32> {
    match t.kind() {
        TypeKind::Integer { width, .. } => Some(*width),
        TypeKind::Float(k) => Some(k.bit_width()),
        _ => None,
    }
}

fn is_float_kind(t: &Type, k: FloatKind) -> bool {
    matches!(t.kind(), TypeKind::Float(x) if *x == k)
}

/// The integer or float width of a scalar type written as text (`i32`, `f16`, `bf16`, ...).
fn text_width(s: &str) -> Option<u32> {
    let s = s.trim();
    if let Some(w) = s.strip_prefix('i') {
        return w.parse().ok();
    }
    FloatKind::from_name(s).map(FloatKind::bit_width)
}

/// The parameters of a dialect type written `!dialect.name<a, b>`.
fn type_params<'a>(t: &'a Type, prefix: &str) -> Option<Vec<&'a str>> {
    let TypeKind::Opaque(s) = t.kind() else {
        return None;
    };
    let inner = s
        .strip_prefix(prefix)?
        .strip_prefix('<')?
        .strip_suffix('>')?;
    Some(inner.split(',').map(str::trim).collect())
}

fn dense_i64<'a>(m: &'a Module, id: OpId, name: &str) -> Option<&'a [i64]> {
    match attr(m, id, name)? {
        Attribute::DenseArray {
            values: DenseArrayValues::Int(v),
            ..
        } => Some(v),
        _ => None,
    }
}

/// `amdgpu.fat_raw_buffer_cast`: the result is the source memref in the fat raw buffer
/// address space, with its layout; under `resetOffset` a strided layout gets offset 0 (the
/// identity layout when the strides are those of a contiguous static shape, or rank <= 1),
/// and any other non-identity layout cannot have its offset reset.
fn fat_raw_buffer_cast(m: &Module, id: OpId) -> Result<(), String> {
    let (Some(s), Some(r)) = (m.operands(id).first(), m.results(id).first()) else {
        return Ok(());
    };
    let (ts, tr) = (m.value_type(*s), m.value_type(*r));
    let Some((shape, elem, layout, _)) = memref(ts) else {
        return Ok(());
    };
    let reset = attr(m, id, "resetOffset").is_some();
    let layout = match layout {
        None => None,
        Some(l) if !reset => Some(l.clone()),
        Some(Attribute::Strided { strides, .. }) => {
            let identity: Option<Vec<i64>> = if !shape.contains(&DYNAMIC) {
                let mut v = vec![0i64; shape.len()];
                let mut acc = 1i64;
                for (i, &d) in shape.iter().enumerate().rev() {
                    v[i] = acc;
                    acc = acc.saturating_mul(d);
                }
                Some(v)
            } else if shape.len() <= 1 {
                Some(vec![1; shape.len()])
            } else {
                None
            };
            if identity.as_ref() == Some(strides) {
                None
            } else {
                Some(Attribute::Strided {
                    strides: strides.clone(),
                    offset: 0,
                })
            }
        }
        Some(Attribute::AffineMap(_)) => {
            return Err(format!("source type '{ts}' can't have its offset reset"));
        }
        Some(_) => return Ok(()),
    };
    let want = Type::new(TypeKind::MemRef {
        shape: shape.to_vec(),
        elem: elem.clone(),
        layout,
        memory_space: Some(Attribute::Opaque(
            "#amdgpu.address_space<fat_raw_buffer>".into(),
        )),
    });
    if *tr != want {
        return Err(format!(
            "expected result type to be '{want}' but got '{tr}'"
        ));
    }
    Ok(())
}

/// The `raw_buffer_*` ops: a ranked memref in global memory, one index per dimension.
fn raw_buffer(m: &Module, id: OpId) -> Result<(), String> {
    let Some(g) = named_operands(m, id) else {
        return Ok(());
    };
    let Some(&mr) = group(&g, "memref").first() else {
        return Ok(());
    };
    let t = m.value_type(mr);
    let space = match t.kind() {
        TypeKind::MemRef { memory_space, .. } | TypeKind::UnrankedMemRef { memory_space, .. } => {
            memory_space.as_ref()
        }
        _ => return Ok(()),
    };
    if !global_space(space) {
        return Err("Buffer ops must operate on a memref in global memory".into());
    }
    let Some((shape, ..)) = memref(t) else {
        return Err("Cannot meaningfully buffer_store to an unranked memref".into());
    };
    if group(&g, "indices").len() != shape.len() {
        return Err(format!("Expected {} indices to memref", shape.len()));
    }
    Ok(())
}

fn existing_matches_result(m: &Module, id: OpId) -> Result<(), String> {
    let Some(g) = named_operands(m, id) else {
        return Ok(());
    };
    if let (Some(&e), Some(&r)) = (group(&g, "existing").first(), m.results(id).first()) {
        if m.value_type(e) != m.value_type(r) {
            return Err("existing values must have same type as result".into());
        }
    }
    Ok(())
}

fn scaled_ext_packed_matrix(m: &Module, id: OpId) -> Result<(), String> {
    let (Some(block), Some(byte), Some(lane)) = (
        int_attr(m, id, "blockSize"),
        int_attr(m, id, "firstScaleByte"),
        int_attr(m, id, "firstScaleLane"),
    ) else {
        return Ok(());
    };
    let Some(&src) = m.operands(id).first() else {
        return Ok(());
    };
    let Some(w) = fwidth(len_elem(m.value_type(src)).1) else {
        return Ok(());
    };
    if w != 8 {
        if block == 16 && !matches!(byte, 0 | 1) {
            return Err(
                "blockSize of 16 can only have firstScaleByte be 0 or 1 for f4 and f6.".into(),
            );
        }
        if block != 16 && !matches!(byte, 0 | 2) {
            return Err(
                "blockSize of 32 can only have firstScaleByte be 0 or 2 for f4 and f6.".into(),
            );
        }
    } else if block == 16 && !((lane == 0 && byte == 0) || (lane == 16 && byte == 2)) {
        return Err("blockSize of 16 can only have (firstScaleLane, firstScaleByte) be (0, 0) or (16, 2) for f8.".into());
    }
    Ok(())
}

fn wmma(m: &Module, id: OpId) -> Result<(), String> {
    let ops = m.operands(id);
    let [a, b, c] = ops else {
        return Ok(());
    };
    let (ta, tb, tc) = (m.value_type(*a), m.value_type(*b), m.value_type(*c));
    let (TypeKind::Vector { .. }, TypeKind::Vector { .. }, TypeKind::Vector { .. }) =
        (ta.kind(), tb.kind(), tc.kind())
    else {
        return Ok(());
    };
    let ((la, ea), (lb, eb), (_, ec)) = (len_elem(ta), len_elem(tb), len_elem(tc));
    if la != lb {
        return Err(format!(
            "source vectors have different lengths: '{ta}' vs. '{tb}'"
        ));
    }
    let (dest_float, src_float) = (ec.is_float(), ea.is_float());
    if dest_float && !src_float {
        return Err("expected float sources with float destination".into());
    }
    if !dest_float && src_float {
        return Err("expected int sources with int destination".into());
    }
    if !is_float_w(ea, 8) && ea != eb {
        return Err(format!(
            "source element types must match (except for fp8/bf8) but have '{ta}' and '{tb}'"
        ));
    }
    if src_float {
        if attr(m, id, "clamp").is_some() {
            return Err("clamp flag is not supported for float types".into());
        }
        if attr(m, id, "unsignedA").is_some() || attr(m, id, "unsignedB").is_some() {
            return Err("unsigned flags are not supported for float types".into());
        }
    }
    Ok(())
}

fn scaled_wmma(m: &Module, id: OpId) -> Result<(), String> {
    let Some(g) = named_operands(m, id) else {
        return Ok(());
    };
    let one = |n: &str| group(&g, n).first().map(|v| m.value_type(*v));
    let (Some(ta), Some(tb), Some(tc), Some(sa), Some(sb)) = (
        one("sourceA"),
        one("sourceB"),
        one("destC"),
        one("scaleA"),
        one("scaleB"),
    ) else {
        return Ok(());
    };
    let Some(mm) = int_attr(m, id, "m") else {
        return Ok(());
    };
    let ((la, ea), (lb, eb), (lc, _)) = (len_elem(ta), len_elem(tb), len_elem(tc));
    let f4 = |t: &Type| is_float_kind(t, FloatKind::F4E2M1FN);
    let f6 =
        |t: &Type| is_float_kind(t, FloatKind::F6E2M3FN) || is_float_kind(t, FloatKind::F6E3M2FN);
    let f8 =
        |t: &Type| is_float_kind(t, FloatKind::F8E4M3FN) || is_float_kind(t, FloatKind::F8E5M2);
    let e8m0 = |t: &Type| is_float_kind(t, FloatKind::F8E8M0FNU);
    let e4m3 = |t: &Type| is_float_kind(t, FloatKind::F8E4M3FN);
    let out = if mm == 16 { 8 } else { 16 };
    if lc != out {
        return Err(format!(
            "expected output vector of length {out} but got {lc}"
        ));
    }
    if mm == 16 {
        if la != 64 {
            return Err(format!(
                "for 16x16x128, sourceA must have 64 elements but got {la}"
            ));
        }
        if lb != 64 {
            return Err(format!(
                "for 16x16x128, sourceB must have 64 elements but got {lb}"
            ));
        }
    } else {
        if !f4(ea) && !f4(eb) {
            return Err("32x16x128 only supports fp4 element types".into());
        }
        if la != 128 {
            return Err(format!(
                "for 32x16x128, sourceA must have 128 elements but got {la}"
            ));
        }
        if lb != 64 {
            return Err(format!(
                "for 32x16x128, sourceB must have 64 elements but got {lb}"
            ));
        }
        if int_attr(m, id, "a_first_scale_lane").is_some_and(|l| l != 0) {
            return Err("for 32x16x128, a_first_scale_lane must be 0".into());
        }
    }
    let (esa, esb) = (len_elem(sa).1, len_elem(sb).1);
    if !(e8m0(esa) || e4m3(esa)) || !(e8m0(esb) || e4m3(esb)) {
        return Err("scale operands must have f8 element types (E8M0FNU or E4M3FN)".into());
    }
    let ok = (e8m0(esa) && e8m0(esb))
        || ((f8(ea) || f6(ea)) && e8m0(esa) && f4(eb) && e4m3(esb))
        || (f4(ea) && e4m3(esa) && (f8(eb) || f6(eb)) && e8m0(esb))
        || (f4(ea) && f4(eb) && e4m3(esa) && e4m3(esb));
    if !ok {
        return Err(format!(
            "invalid combination of matrix and scale types: sourceA={ea}, scaleA={esa}, sourceB={eb}, scaleB={esb}"
        ));
    }
    Ok(())
}

fn mfma(m: &Module, id: OpId) -> Result<(), String> {
    let ops = m.operands(id);
    let [a, b, c] = ops else {
        return Ok(());
    };
    let (ta, tb, tc) = (m.value_type(*a), m.value_type(*b), m.value_type(*c));
    let (Some(mm), Some(n), Some(k)) = (
        int_attr(m, id, "m"),
        int_attr(m, id, "n"),
        int_attr(m, id, "k"),
    ) else {
        return Ok(());
    };
    let blocks = int_attr(m, id, "blocks").unwrap_or(1);
    let cbsz = int_attr(m, id, "cbsz").unwrap_or(0);
    let abid = int_attr(m, id, "abid").unwrap_or(0);
    let (mut la, mut ea) = len_elem(ta);
    let (lc, ec) = len_elem(tc);
    if is_small_float(ea) {
        let (lb, eb) = len_elem(tb);
        if !is_small_float(eb) {
            return Err(
                "expected both source operands to have small-float elements if one does".into(),
            );
        }
        if la != lb {
            return Err("expected both small-float source vectors to have the same length".into());
        }
    } else if ta != tb {
        return Err("expected both non-small-float source operand types to match exactly".into());
    }
    let i8t = Type::int(8);
    if is_int_w(ea, 32) {
        la *= 4;
        ea = &i8t;
    }
    if is_int_w(ea, 64) {
        la *= 8;
    }
    let want_src = mm * k * blocks / 64;
    if la != want_src {
        return Err(format!(
            "expected {want_src} source values for this operation but got {la}"
        ));
    }
    let want_dst = mm * n * blocks / 64;
    if lc != want_dst {
        return Err(format!(
            "expected {want_dst} result values for this operation but got {lc}"
        ));
    }
    let f64_dest = is_float_kind(ec, FloatKind::F64);
    if f64_dest && enum_of(m, id, "blgp").is_some_and(|p| p != "none") {
        return Err("double-precision ops do not support permuting lanes of B".into());
    }
    if f64_dest && cbsz != 0 {
        return Err("double-precision ops do not support permuting lanes of A".into());
    }
    // `1u << cbsz` in 32-bit arithmetic (the shift amount taken modulo 32 on the hardware
    // MLIR runs on); cbsz is a non-negative i32 here
    let limit: i128 = if (0..32).contains(&cbsz) {
        1i128 << cbsz
    } else {
        i128::MAX
    };
    if (abid as u32) as i128 >= limit {
        return Err("block ID for permuting A (abid) must be below 2 ** cbsz".into());
    }
    let negate = ["negateA", "negateB", "negateC"]
        .iter()
        .any(|n| attr(m, id, n).is_some());
    if negate && !f64_dest {
        return Err("negation flags only available for double-precision operations".into());
    }
    Ok(())
}

fn sparse_mfma(m: &Module, id: OpId) -> Result<(), String> {
    let ops = m.operands(id);
    let [a, b, c, idx] = ops else {
        return Ok(());
    };
    let (ta, tb, tc, ti) = (
        m.value_type(*a),
        m.value_type(*b),
        m.value_type(*c),
        m.value_type(*idx),
    );
    if ![ta, tb, tc, ti]
        .iter()
        .all(|t| matches!(t.kind(), TypeKind::Vector { .. }))
    {
        return Ok(());
    }
    let (Some(mm), Some(n), Some(k)) = (
        int_attr(m, id, "m"),
        int_attr(m, id, "n"),
        int_attr(m, id, "k"),
    ) else {
        return Ok(());
    };
    let cbsz = int_attr(m, id, "cbsz").unwrap_or(0);
    let abid = int_attr(m, id, "abid").unwrap_or(0);
    let ((ls, es), (ld, ed), (lc, _), (li, ei)) =
        (len_elem(ta), len_elem(tb), len_elem(tc), len_elem(ti));
    if ld != 2 * ls {
        return Err("expected dense source operand to have exactly double the number of elements of the sparse source operand".into());
    }
    let both_f8 = is_float_w(es, 8) && is_float_w(ed, 8);
    if !both_f8 && es != ed {
        return Err("expected source operands to have the same element type".into());
    }
    let eight = is_float_w(es, 8) || is_int_w(es, 8);
    // abid and cbsz are unsigned 32-bit in the C++
    let (abid, cbsz) = (abid as u32, cbsz as u32);
    if cbsz == 0 && eight && abid > 1 {
        return Err("ABID must be 0 or 1 for 8-bit source data".into());
    }
    if cbsz == 0 && !eight && abid > 3 {
        return Err("ABID must be between 0 and 3 for 16-bit source data".into());
    }
    if eight {
        if li != 2 || !is_int_w(ei, 16) {
            return Err(format!(
                "expected vector<2xi16> sparse indices for 8-bit source data, but got '{ti}'"
            ));
        }
    } else if li != 4 || !is_int_w(ei, 8) {
        return Err(format!(
            "expected vector<4xi8> sparse indices for 16-bit source data, but got '{ti}'"
        ));
    }
    let want_src = mm * k / 64;
    if ld != want_src {
        return Err(format!(
            "expected {want_src} source values for this operation but got {ld}"
        ));
    }
    let want_dst = mm * n / 64;
    if lc != want_dst {
        return Err(format!(
            "expected {want_dst} result values for this operation but got {lc}"
        ));
    }
    Ok(())
}

fn dpp(m: &Module, id: OpId) -> Result<(), String> {
    if let Some(&src) = m.operands(id).first() {
        if int_or_float_width(m.value_type(src)).is_some_and(|w| w > 64) {
            return Err(
                "integer and floating point types larger than 64 bits are not supported".into(),
            );
        }
    }
    let Some(kind) = enum_of(m, id, "kind") else {
        return Ok(());
    };
    let arg = attr(m, id, "permArgument");
    match kind {
        "quad_perm" => {
            let Some(Attribute::Array(v)) = arg else {
                return Err("quad_perm attribute must have exactly 4 elements".into());
            };
            if v.len() != 4 {
                return Err("quad_perm attribute must have exactly 4 elements".into());
            }
            for e in v {
                if let Attribute::Integer { value, .. } = e {
                    // `getInt()` truncated to int32_t
                    let x = *value as i32;
                    if !(0..=3).contains(&x) {
                        return Err("Each element of quad_perm must be in the range [0, 3]".into());
                    }
                }
            }
        }
        "row_shl" | "row_shr" | "row_ror" => {
            let Some(a) = arg else {
                return Err(format!("Attribute '{kind}' value not specified"));
            };
            if let Attribute::Integer { value, .. } = a {
                let x = *value as u32;
                if !(1..=15).contains(&x) {
                    return Err("Attribute value must be between 1 and 15".into());
                }
            }
        }
        "wave_shl" | "wave_shr" | "wave_rol" | "wave_ror" | "row_mirror" | "row_half_mirror"
        | "row_bcast_15" | "row_bcast_31"
            if arg.is_some_and(|a| !matches!(a, Attribute::Unit)) =>
        {
            return Err(
                "Expected unit attribute for permArgument, but found non-trivial argument".into(),
            );
        }
        _ => {}
    }
    Ok(())
}

/// Transfer size in bits of a vector or scalar integer/float type.
fn transfer_bits(t: &Type) -> Option<i128> {
    let (n, e) = len_elem(t);
    int_or_float_width(e).map(|w| n * i128::from(w))
}

/// `areTrailingDimsContiguous(1)` of a memref layout: the innermost stride is 1; `None`
/// where the layout is not one memplan reads.
fn innermost_contiguous(shape: &[i64], layout: Option<&Attribute>) -> Option<bool> {
    match layout {
        None => Some(true),
        Some(Attribute::Strided { strides, .. }) => {
            Some(strides.last().is_none_or(|&s| s == 1) || shape.last() == Some(&1))
        }
        _ => None,
    }
}

fn gather_to_lds(m: &Module, id: OpId) -> Result<(), String> {
    let Some(g) = named_operands(m, id) else {
        return Ok(());
    };
    let (Some(&s), Some(&d)) = (group(&g, "src").first(), group(&g, "dst").first()) else {
        return Ok(());
    };
    let (Some((_, se, _, ss)), Some((dshape, de, dl, ds))) =
        (memref(m.value_type(s)), memref(m.value_type(d)))
    else {
        return Ok(());
    };
    if !dshape.is_empty() && innermost_contiguous(dshape, dl) == Some(false) {
        return Err("destination type inner most dim must be contiguous".into());
    }
    if se != de {
        return Err("source and destination element types must match".into());
    }
    if let Some(Attribute::Type(t)) = attr(m, id, "transferType") {
        if let Some(bits) = transfer_bits(t) {
            if ![8, 16, 32, 96, 128].contains(&bits) {
                return Err("Transfering type size must be 8, 16, 32, 96 or 128 bits".into());
            }
        }
    }
    if !global_space(ss) && !fat_raw_buffer_space(ss) {
        return Err("source memory address space must be global or fat raw buffer".into());
    }
    if !workgroup_space(ds) {
        return Err("destination memory address space must be Workgroup".into());
    }
    Ok(())
}

fn transpose_load(m: &Module, id: OpId) -> Result<(), String> {
    let (Some(&s), Some(&r)) = (m.operands(id).first(), m.results(id).first()) else {
        return Ok(());
    };
    let Some((_, _, _, space)) = memref(m.value_type(s)) else {
        return Ok(());
    };
    if !workgroup_space(space) {
        return Err("source memory address space must be Workgroup".into());
    }
    let rt = m.value_type(r);
    if !matches!(rt.kind(), TypeKind::Vector { .. }) {
        return Ok(());
    }
    let (n, e) = len_elem(rt);
    let Some(w) = int_or_float_width(e) else {
        return Ok(());
    };
    let want = match w {
        4 | 6 => 16,
        8 => 8,
        16 => 4,
        _ => {
            return Err(format!(
                "Unsupported element type size for transpose load: {w} bits"
            ))
        }
    };
    if n != want {
        return Err(format!(
            "Transferring type size mismatch: expected num of elements: {want}"
        ));
    }
    Ok(())
}

fn dma_base(m: &Module, id: OpId) -> Result<(), String> {
    let Some(g) = named_operands(m, id) else {
        return Ok(());
    };
    let (Some(&gl), Some(&lds)) = (group(&g, "global").first(), group(&g, "lds").first()) else {
        return Ok(());
    };
    let (Some((_, _, _, gs)), Some((_, le, _, ls))) =
        (memref(m.value_type(gl)), memref(m.value_type(lds)))
    else {
        return Ok(());
    };
    if !workgroup_space(ls) {
        return Err("lds memref must have workgroup address space attribute.".into());
    }
    if !global_space(gs) {
        return Err("global memref must have global address space attribute.".into());
    }
    if let Some(w) = int_or_float_width(le) {
        if ![8, 16, 32, 64].contains(&w) {
            return Err(format!(
                "element type must be 1, 2, 4, or 8 bytes long but type was {w} bits long."
            ));
        }
    }
    Ok(())
}

fn dma_descriptor(m: &Module, id: OpId, gather: bool) -> Result<(), String> {
    let Some(g) = named_operands(m, id) else {
        return Ok(());
    };
    let (Some(sizes), Some(strides), Some(shared)) = (
        dense_i64(m, id, "global_static_sizes"),
        dense_i64(m, id, "global_static_strides"),
        dense_i64(m, id, "shared_static_sizes"),
    ) else {
        return Ok(());
    };
    let base = group(&g, "base").first().map(|v| m.value_type(*v));
    let base_params = base.and_then(|t| {
        type_params(
            t,
            if gather {
                "!amdgpu.tdm_gather_base"
            } else {
                "!amdgpu.tdm_base"
            },
        )
    });
    if gather {
        if sizes.len() > 2 {
            return Err("tensor and tile must be at most of rank two in gather mode.".into());
        }
        if let (Some(&ix), Some(p)) = (group(&g, "indices").first(), base_params.as_ref()) {
            let ie = len_elem(m.value_type(ix)).1.to_string();
            if p.len() == 2 && ie != p[1] {
                return Err("indices' element type must match base's element type.".into());
            }
        }
    }
    let Some(&last) = strides.last() else {
        return Err("strides must not be empty.".into());
    };
    if last != 1 {
        return Err("strides for the innermost dimension must be 1.".into());
    }
    if sizes.len() > 5 {
        return Err("tensor and tile must be at most of rank 5.".into());
    }
    if sizes.len() != strides.len() {
        return Err("strides and sizes must have same rank.".into());
    }
    if sizes.len() != shared.len() {
        return Err("tensor must have same rank as tile.".into());
    }
    if let Some(w) = base_params
        .as_ref()
        .and_then(|p| p.first())
        .and_then(|e| text_width(e))
    {
        if ![8, 16, 32, 64].contains(&w) {
            return Err(format!(
                "element type width must be 1, 2, 4 or 8 bytes, but was {w} bits long"
            ));
        }
    }
    if let Some(&b) = group(&g, "atomic_barrier_address").first() {
        if let Some((_, _, _, space)) = memref(m.value_type(b)) {
            if !workgroup_space(space) {
                return Err("atomic barrier address must be in LDS.".into());
            }
        }
    }
    if !group(&g, "early_timeout").is_empty() && group(&g, "workgroup_mask").is_empty() {
        return Err("early timeout does not apply when workgroup_mask is not set.".into());
    }
    Ok(())
}

pub(super) fn verify(m: &Module, id: OpId) -> Result<(), String> {
    let name = m.op(id).name.as_str();
    match name {
        "amdgpu.fat_raw_buffer_cast" => fat_raw_buffer_cast(m, id),
        "amdgpu.raw_buffer_load"
        | "amdgpu.raw_buffer_store"
        | "amdgpu.raw_buffer_atomic_cmpswap"
        | "amdgpu.raw_buffer_atomic_fadd"
        | "amdgpu.raw_buffer_atomic_fmax"
        | "amdgpu.raw_buffer_atomic_smax"
        | "amdgpu.raw_buffer_atomic_umin" => raw_buffer(m, id),
        "amdgpu.packed_trunc_2xfp8"
        | "amdgpu.packed_stoch_round_fp8"
        | "amdgpu.packed_scaled_trunc" => existing_matches_result(m, id),
        "amdgpu.scaled_ext_packed_matrix" => scaled_ext_packed_matrix(m, id),
        "amdgpu.wmma" => wmma(m, id),
        "amdgpu.scaled_wmma" => scaled_wmma(m, id),
        "amdgpu.mfma" => mfma(m, id),
        "amdgpu.sparse_mfma" => sparse_mfma(m, id),
        "amdgpu.dpp" => dpp(m, id),
        "amdgpu.permlane_swap" => match int_attr(m, id, "row_length") {
            // `getRowLength()` is an unsigned 32-bit value
            Some(r) if !matches!(r as u32, 16 | 32) => {
                Err("row_length attribute must either be 16 or 32.".into())
            }
            _ => Ok(()),
        },
        "amdgpu.gather_to_lds" => gather_to_lds(m, id),
        "amdgpu.transpose_load" => transpose_load(m, id),
        "amdgpu.make_dma_base" | "amdgpu.make_gather_dma_base" => dma_base(m, id),
        "amdgpu.make_dma_descriptor" => dma_descriptor(m, id, false),
        "amdgpu.make_gather_dma_descriptor" => dma_descriptor(m, id, true),
        _ => Ok(()),
    }
}
