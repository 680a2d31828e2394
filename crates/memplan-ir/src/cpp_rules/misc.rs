//! C++ verifier rules of the smaller families: arith scaling casts, async calls, gpu,
//! bufferization, vector and affine index ops.

use super::{attr, elem, enum_of, float_width, int_attr, referenced, shapes_compatible};
use crate::attrs::{Attribute, DenseArrayValues};
use crate::ir::{Module, OpId, ValueId};
use crate::types::{TypeKind, DYNAMIC};

/// `arith.scaling_extf` / `arith.scaling_truncf`: the input and the result have compatible
/// shapes and float elements, the result wider (ext) or narrower (trunc).
fn scaling_cast(m: &Module, id: OpId, wider: bool) -> Result<(), String> {
    let ops = m.operands(id);
    let rs = m.results(id);
    let (Some(a), Some(r)) = (ops.first(), rs.first()) else {
        return Ok(());
    };
    let (ta, tr) = (m.value_type(*a), m.value_type(*r));
    let ok = shapes_compatible(ta, tr)
        && match (float_width(elem(ta)), float_width(elem(tr))) {
            (Some(x), Some(y)) => {
                if wider {
                    y > x
                } else {
                    y < x
                }
            }
            _ => false,
        };
    if ok {
        return Ok(());
    }
    let list: Vec<String> = ops
        .iter()
        .map(|v| format!("'{}'", m.value_type(*v)))
        .collect();
    Err(format!(
        "operand types {} and result type '{tr}' are cast incompatible",
        list.join(", ")
    ))
}

pub(super) fn verify(m: &Module, id: OpId) -> Result<(), String> {
    let d = m.op(id);
    let ops = m.operands(id);
    let rs = m.results(id);
    let ty = |v: &ValueId| m.value_type(*v);
    match d.name.as_str() {
        "arith.scaling_extf" => scaling_cast(m, id, true)?,
        "arith.scaling_truncf" => scaling_cast(m, id, false)?,
        "async.call" => {
            if let Ok(found) = referenced(m, id, "callee") {
                if found.is_none_or(|(_, n)| n != "async.func") {
                    let name = attr(m, id, "callee")
                        .and_then(|a| a.as_symbol())
                        .unwrap_or("");
                    return Err(format!(
                        "'{name}' does not reference a valid async function"
                    ));
                }
            }
        }
        // operands: asyncDependencies..., dst, src
        "gpu.memcpy" if ops.len() >= 2 => {
            let (dst, src) = (ty(&ops[ops.len() - 2]), ty(&ops[ops.len() - 1]));
            if elem(dst) != elem(src) {
                return Err("arguments have incompatible element type".into());
            }
            if !shapes_compatible(dst, src) {
                return Err("arguments have incompatible shape".into());
            }
        }
        "gpu.subgroup_broadcast" => {
            let specific = enum_of(m, id, "broadcast_type") == Some("specific_lane");
            let lane = ops.len() > 1;
            if specific && !lane {
                return Err("lane must be specified for `specific_lane` broadcast".into());
            }
            if !specific && lane {
                return Err("lane can only be specified for `specific_lane` broadcast".into());
            }
        }
        "gpu.rotate" => {
            if let (Some(off), Some(w)) = (int_attr(m, id, "offset"), int_attr(m, id, "width")) {
                if off < 0 || off >= w {
                    return Err(format!("offset must be in the range [0, {w})"));
                }
            }
        }
        "bufferization.materialize_in_destination" => {
            if let Some(dst) = ops.get(1) {
                let is_memref = matches!(
                    ty(dst).kind(),
                    TypeKind::MemRef { .. } | TypeKind::UnrankedMemRef { .. }
                );
                if attr(m, id, "restrict").is_some() && !is_memref {
                    return Err("'restrict' is valid only for memref destinations".into());
                }
                if attr(m, id, "writable").is_some() != is_memref {
                    return Err("'writable' must be specified if and only if the destination is of memref type".into());
                }
            }
        }
        "vector.transpose" => {
            if let (Some(a), Some(r)) = (ops.first(), rs.first()) {
                if let (TypeKind::Vector { shape: sa, .. }, TypeKind::Vector { shape: sr, .. }) =
                    (ty(a).kind(), ty(r).kind())
                {
                    let rank = sr.len();
                    if sa.len() != rank {
                        return Err(format!("vector result rank mismatch: {rank}"));
                    }
                    if let Some(Attribute::DenseArray {
                        values: DenseArrayValues::Int(perm),
                        ..
                    }) = attr(m, id, "permutation")
                    {
                        if perm.len() != rank {
                            return Err(format!("transposition length mismatch: {}", perm.len()));
                        }
                        let mut seen = vec![false; rank];
                        for (i, &p) in perm.iter().enumerate() {
                            if p < 0 || p as usize >= rank {
                                return Err(format!("transposition index out of range: {p}"));
                            }
                            if seen[p as usize] {
                                return Err(format!("duplicate position index: {p}"));
                            }
                            seen[p as usize] = true;
                            if sr[i] != sa[p as usize] {
                                return Err(format!("dimension size mismatch at: {p}"));
                            }
                        }
                    }
                }
            }
        }
        "vector.outerproduct" => {
            // the optional accumulator has the result type
            if let (Some(acc), Some(r)) = (ops.get(2), rs.first()) {
                if ty(acc) != ty(r) {
                    return Err("expected operand #3 of same type as result type".into());
                }
            }
        }
        "vector.bitcast" => {
            if let (Some(a), Some(r)) = (ops.first(), rs.first()) {
                if let (Some(x), Some(y)) = (ty(a).shape(), ty(r).shape()) {
                    if x.len() != y.len() {
                        return Err(
                            "failed to verify that all of {source, result} have same rank".into(),
                        );
                    }
                }
            }
        }
        "vector.shape_cast" => {
            if let (Some(a), Some(r)) = (ops.first(), rs.first()) {
                if let (TypeKind::Vector { shape: sa, .. }, TypeKind::Vector { shape: sr, .. }) =
                    (ty(a).kind(), ty(r).kind())
                {
                    let (na, nr): (i64, i64) = (sa.iter().product(), sr.iter().product());
                    if na != nr {
                        return Err(format!(
                            "has different number of elements at source ({na}) and result ({nr})"
                        ));
                    }
                }
            }
        }
        "vector.maskedstore" | "vector.maskedload" => {
            // maskedload: base, indices..., mask, pass_thru -> result
            // maskedstore: base, indices..., mask, valueToStore
            let n = ops.len();
            if n >= 3 {
                let mask = ty(&ops[n - 2]);
                let (val, what) = if d.name == "vector.maskedstore" {
                    (Some(ty(&ops[n - 1])), "valueToStore")
                } else {
                    (rs.first().map(ty), "result")
                };
                if let (Some(v), TypeKind::Vector { shape: ms, .. }) = (val, mask.kind()) {
                    if let TypeKind::Vector { shape: vs, .. } = v.kind() {
                        if vs != ms {
                            return Err(format!("expected {what} shape to match mask shape"));
                        }
                    }
                }
            }
        }
        "vector.scan" => {
            // ScanOp::verify: a reduction dim inside the source, an initial value of the
            // source's shape without that dim, a combining kind the element type supports.
            if let (Some(a), Some(b)) = (ops.first(), ops.get(1)) {
                if let (TypeKind::Vector { shape: src, .. }, TypeKind::Vector { shape: init, .. }) =
                    (ty(a).kind(), ty(b).kind())
                {
                    let rank = src.len() as i128;
                    if let Some(dim) = int_attr(m, id, "reduction_dim") {
                        if dim >= rank {
                            return Err(format!(
                                "reduction dimension {dim} has to be less than {rank}"
                            ));
                        }
                        if init.len() as i128 != rank - 1 {
                            return Err(format!(
                                "initial value rank {} has to be equal to {}",
                                init.len(),
                                rank - 1
                            ));
                        }
                        let expected: Vec<i64> = src
                            .iter()
                            .enumerate()
                            .filter(|&(i, _)| i as i128 != dim)
                            .map(|(_, &s)| s)
                            .collect();
                        if *init != expected {
                            return Err("incompatible input/initial value shapes".into());
                        }
                    }
                }
            }
            if let (Some(r), Some(kind)) = (rs.first(), enum_of(m, id, "kind")) {
                let e = elem(ty(r));
                if !crate::dialects::vector::combining_kind_supported(kind, e) {
                    return Err(format!(
                        "unsupported reduction type '{e}' for kind '{kind}'"
                    ));
                }
            }
        }
        // memref.cast (unranked to unranked), memref.assume_alignment and
        // memref.distinct_objects are checked with the other memref rules
        // (dialects/memref.rs, ods/verify.rs).
        "affine.linearize_index" | "affine.delinearize_index" => {
            if let Some(Attribute::DenseArray {
                values: DenseArrayValues::Int(basis),
                ..
            }) = attr(m, id, "static_basis")
            {
                let dynamic = basis.iter().filter(|&&b| b == DYNAMIC).count();
                let given = if d.name == "affine.delinearize_index" {
                    ops.len().saturating_sub(1)
                } else {
                    match attr(m, id, "operandSegmentSizes") {
                        Some(Attribute::DenseArray {
                            values: DenseArrayValues::Int(seg),
                            ..
                        }) if seg.len() == 2 => seg[1] as usize,
                        _ => dynamic,
                    }
                };
                if dynamic != given {
                    return Err("mismatch between dynamic and static basis (kDynamic marker but no corresponding dynamic basis entry) -- this can only happen due to an incorrect fold/rewrite".into());
                }
            }
        }
        _ => {}
    }
    Ok(())
}
