//! C++ verifier rules of the smaller families: arith scaling casts, async calls, gpu,
//! bufferization, vector and affine index ops.

use super::{attr, elem, enum_of, float_width, int_attr, referenced, shapes_compatible};
use crate::attrs::{Attribute, DenseArrayValues};
use crate::ir::{Module, OpId, ValueId};
use crate::types::{TypeKind, DYNAMIC};

/// `arith.scaling_extf` / `arith.scaling_truncf`: the input and the result have compatible
/// shapes and float elements, the result wider (ext) or narrower (trunc).
pub(super) fn scaling_cast(m: &Module, id: OpId, wider: bool) -> Result<(), String> {
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
        // ShuffleOp::verify
        "vector.shuffle" if ops.len() == 2 && rs.len() == 1 => {
            let shape = |v: &ValueId| match ty(v).kind() {
                TypeKind::Vector { shape, .. } => Some(shape.clone()),
                _ => None,
            };
            if let (Some(a), Some(b), Some(r)) = (shape(&ops[0]), shape(&ops[1]), shape(&rs[0])) {
                let zero_d = a.is_empty() && b.is_empty() && r.len() == 1;
                let same_rank = a.len() == r.len() && b.len() == r.len();
                if !(zero_d || same_rank) {
                    return Err("rank mismatch".into());
                }
                for k in 1..a.len() {
                    if r[k] != a[k] || a[k] != b[k] {
                        return Err("dimension mismatch".into());
                    }
                }
                if let Some(Attribute::DenseArray {
                    values: DenseArrayValues::Int(mask),
                    ..
                }) = attr(m, id, "mask")
                {
                    if mask.is_empty() {
                        return Err("invalid mask length".into());
                    }
                    if Some(&(mask.len() as i64)) != r.first() {
                        return Err("mask length mismatch".into());
                    }
                    let n = a.first().copied().unwrap_or(1) + b.first().copied().unwrap_or(1);
                    for (i, &k) in mask.iter().enumerate() {
                        if k != -1 && !(0..n).contains(&k) {
                            return Err(format!("mask index #{} out of range", i + 1));
                        }
                    }
                }
            }
        }
        "vector.from_elements" => {
            // the PredOpTrait MLIR's table states with a transformer the generator cannot read
            if let Some(r) = rs.first() {
                if let TypeKind::Vector { shape, elem: e, .. } = ty(r).kind() {
                    let n = shape.iter().try_fold(1i64, |a, &d| a.checked_mul(d));
                    if n != Some(ops.len() as i64) || ops.iter().any(|o| ty(o) != e) {
                        return Err("failed to verify that shaped type 'dest' matches 'elements' element count and types".into());
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
        // ExpandLoadOp / CompressStoreOp::verify: base, indices..., mask, vector
        "vector.expandload" | "vector.compressstore" if ops.len() >= 3 => {
            let load = d.name == "vector.expandload";
            let (what, val) = if load {
                ("result", rs.first().map(ty))
            } else {
                ("valueToStore", ops.last().map(ty))
            };
            let base = ty(&ops[0]);
            let mask = ty(&ops[ops.len() - 2]);
            if let Some(v) = val {
                if let (TypeKind::MemRef { elem: be, .. }, TypeKind::Vector { elem: ve, .. }) =
                    (base.kind(), v.kind())
                {
                    if be != ve {
                        return Err(format!("base and {what} element type should match"));
                    }
                }
            }
            if let TypeKind::MemRef { shape, .. } = base.kind() {
                if shape.len() != ops.len() - 3 {
                    return Err(format!("requires {} indices", shape.len()));
                }
            }
            if let (Some(v), TypeKind::Vector { shape: ms, .. }) = (val, mask.kind()) {
                if let TypeKind::Vector { shape: vs, .. } = v.kind() {
                    if vs.first() != ms.first() {
                        return Err(format!("expected {what} dim to match mask dim"));
                    }
                }
                if load && ty(&ops[ops.len() - 1]) != v {
                    return Err("expected pass_thru of same type as result type".into());
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
                    if d.name == "vector.maskedload" && ty(&ops[n - 1]) != v {
                        return Err("expected pass_thru of same type as result type".into());
                    }
                }
            }
        }
        // GatherOp::verify: base, offsets..., index vector, mask, pass_thru -> result
        "vector.gather" if ops.len() >= 4 => {
            let n = ops.len();
            let base = ty(&ops[0]);
            let rank = match base.kind() {
                TypeKind::MemRef { shape, .. } | TypeKind::RankedTensor { shape, .. } => {
                    shape.len()
                }
                _ => return Err("requires base to be a memref or ranked tensor type".into()),
            };
            if let Some(r) = rs.first().map(ty) {
                if let TypeKind::Vector { shape: rshape, .. } = r.kind() {
                    if base.element_type() != r.element_type() {
                        return Err("base and result element type should match".into());
                    }
                    if rank != n - 4 {
                        return Err(format!("requires {rank} indices"));
                    }
                    if ty(&ops[n - 3]).shape() != Some(rshape.as_slice()) {
                        return Err("expected result dim to match indices dim".into());
                    }
                    if ty(&ops[n - 2]).shape() != Some(rshape.as_slice()) {
                        return Err("expected result dim to match mask dim".into());
                    }
                    if ty(&ops[n - 1]) != r {
                        return Err("expected pass_thru of same type as result type".into());
                    }
                }
            }
        }
        "vector.extract_strided_slice" => {
            if let (Some(a), Some(r)) = (ops.first(), rs.first()) {
                extract_strided_slice(m, id, ty(a), ty(r))?;
            }
        }
        "vector.insert_strided_slice" => {
            if let (Some(a), Some(b)) = (ops.first(), ops.get(1)) {
                insert_strided_slice(m, id, ty(a), ty(b))?;
            }
        }
        "vector.multi_reduction" => {
            // MultiDimReductionOp::verify: the destination is the source without the
            // reduced dims (the element type itself when every dim is reduced).
            if let (Some(a), Some(r)) = (ops.first(), rs.first()) {
                if let (
                    TypeKind::Vector {
                        shape,
                        scalable,
                        elem: e,
                    },
                    Some(Attribute::DenseArray {
                        values: DenseArrayValues::Int(dims),
                        ..
                    }),
                ) = (ty(a).kind(), attr(m, id, "reduction_dims"))
                {
                    let keep: Vec<usize> = (0..shape.len())
                        .filter(|i| !dims.contains(&(*i as i64)))
                        .collect();
                    let want = if keep.is_empty() {
                        e.clone()
                    } else {
                        crate::types::Type::new(TypeKind::Vector {
                            shape: keep.iter().map(|&i| shape[i]).collect(),
                            scalable: keep.iter().map(|&i| scalable[i]).collect(),
                            elem: e.clone(),
                        })
                    };
                    if *ty(r) != want {
                        return Err(format!(
                            "destination type '{}' is incompatible with source type '{}'",
                            ty(r),
                            ty(a)
                        ));
                    }
                }
            }
        }
        "vector.type_cast" => {
            if let (Some(a), Some(r)) = (ops.first(), rs.first()) {
                type_cast(ty(a), ty(r))?;
            }
        }
        "async.return" => {
            // ReturnOp::verify: the operands are the value types of the parent async.func's
            // results (after the leading !async.token of a stateful function).
            let parent = m.parent_op(id).filter(|&p| m.op(p).name == "async.func");
            let sig = parent
                .and_then(|p| attr(m, p, "function_type"))
                .and_then(|a| a.as_type())
                .and_then(|t| t.as_function().map(|(_, outs)| outs.to_vec()));
            if let Some(outs) = sig {
                let outs: Vec<String> = outs.iter().map(|t| t.to_string()).collect();
                let outs = match outs.first() {
                    Some(t) if t == "!async.token" => &outs[1..],
                    _ => &outs[..],
                };
                let mut want = Vec::new();
                for t in outs {
                    match t
                        .strip_prefix("!async.value<")
                        .and_then(|x| x.strip_suffix('>'))
                    {
                        Some(inner) => want.push(inner.to_string()),
                        None => return Ok(()),
                    }
                }
                let got: Vec<String> = ops.iter().map(|v| ty(v).to_string()).collect();
                if got != want {
                    return Err(
                        "operand types do not match the types returned from the parent FuncOp"
                            .into(),
                    );
                }
            }
        }
        "vector.reduction" => {
            // ReductionOp::verify: a 0-D or 1-D source, a combining kind the result type
            // supports.
            if let Some(TypeKind::Vector { shape, .. }) = ops.first().map(|a| ty(a).kind()) {
                if shape.len() > 1 {
                    return Err(format!("unsupported reduction rank: {}", shape.len()));
                }
            }
            if let (Some(r), Some(kind)) = (rs.first(), enum_of(m, id, "kind")) {
                let e = ty(r);
                if !crate::dialects::vector::combining_kind_supported(kind, e) {
                    return Err(format!(
                        "unsupported reduction type '{e}' for kind '{kind}'"
                    ));
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
                // AffineDelinearizeIndexOp::verify only (linearize_index takes any value)
                if d.name == "affine.delinearize_index"
                    && basis.iter().any(|&b| b <= 0 && b != DYNAMIC)
                {
                    return Err("no basis element may be statically non-positive".into());
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// An `I64ArrayAttr` (`[1, 2]`) as integers.
fn i64_list(a: Option<&Attribute>) -> Option<Vec<i64>> {
    match a? {
        Attribute::Array(xs) => xs
            .iter()
            .map(|x| match x {
                Attribute::Integer { value, .. } => i64::try_from(*value).ok(),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// `isIntegerArrayAttrConfinedToShape`: `lo <= v[i] < shape[i] (+1 when closed)`.
fn confined_to_shape(
    v: &[i64],
    shape: &[i64],
    name: &str,
    closed: bool,
    lo: i64,
) -> Result<(), String> {
    for (i, (&x, &s)) in v.iter().zip(shape).enumerate() {
        let hi = if closed { s.saturating_add(1) } else { s };
        if x < lo || x >= hi {
            return Err(format!(
                "expected {name} dimension {i} to be confined to [{lo}, {hi})"
            ));
        }
    }
    Ok(())
}

/// `isSumOfIntegerArrayAttrConfinedToShape` with a closed range and minimum 1.
fn sum_confined(a: &[i64], b: &[i64], shape: &[i64], n1: &str, n2: &str) -> Result<(), String> {
    for (i, ((&x, &y), &s)) in a.iter().zip(b).zip(shape).enumerate() {
        let hi = s.saturating_add(1);
        let v = x.saturating_add(y);
        if v < 1 || v >= hi {
            return Err(format!(
                "expected sum({n1}, {n2}) dimension {i} to be confined to [1, {hi})"
            ));
        }
    }
    Ok(())
}

fn unit_strides(strides: &[i64]) -> Result<(), String> {
    if strides.iter().any(|&s| s != 1) {
        return Err("expected strides to be confined to [1, 2)".into());
    }
    Ok(())
}

/// `ExtractStridedSliceOp::verify`.
fn extract_strided_slice(
    m: &Module,
    id: OpId,
    src: &crate::types::Type,
    res: &crate::types::Type,
) -> Result<(), String> {
    let TypeKind::Vector {
        shape,
        scalable,
        elem: e,
    } = src.kind()
    else {
        return Ok(());
    };
    let (Some(off), Some(sizes), Some(strides)) = (
        i64_list(attr(m, id, "offsets")),
        i64_list(attr(m, id, "sizes")),
        i64_list(attr(m, id, "strides")),
    ) else {
        return Ok(());
    };
    if off.len() != sizes.len() || off.len() != strides.len() {
        return Err("expected offsets, sizes and strides attributes of same size".into());
    }
    for (v, name) in [(&off, "offsets"), (&sizes, "sizes"), (&strides, "strides")] {
        if v.len() > shape.len() {
            return Err(format!(
                "expected {name} attribute of rank no greater than vector rank"
            ));
        }
    }
    confined_to_shape(&off, shape, "offsets", false, 0)?;
    confined_to_shape(&sizes, shape, "sizes", true, 1)?;
    unit_strides(&strides)?;
    sum_confined(&off, &sizes, shape, "offsets", "sizes")?;
    let mut want_shape = sizes.clone();
    want_shape.extend_from_slice(&shape[sizes.len()..]);
    let want = crate::types::Type::new(TypeKind::Vector {
        shape: want_shape,
        scalable: scalable.clone(),
        elem: e.clone(),
    });
    if *res != want {
        return Err(format!("expected result type to be '{want}'"));
    }
    for (i, &sz) in sizes.iter().enumerate() {
        if scalable[i] && shape[i] != sz {
            return Err(format!(
                "expected size at idx={i} to match the corresponding base size from the input vector ({sz} vs {})",
                shape[i]
            ));
        }
    }
    Ok(())
}

/// `InsertStridedSliceOp::verify`.
fn insert_strided_slice(
    m: &Module,
    id: OpId,
    src: &crate::types::Type,
    dst: &crate::types::Type,
) -> Result<(), String> {
    let (
        TypeKind::Vector {
            shape: ss,
            scalable: ssc,
            ..
        },
        TypeKind::Vector {
            shape: ds,
            scalable: dsc,
            ..
        },
    ) = (src.kind(), dst.kind())
    else {
        return Ok(());
    };
    let (Some(off), Some(strides)) = (
        i64_list(attr(m, id, "offsets")),
        i64_list(attr(m, id, "strides")),
    ) else {
        return Ok(());
    };
    if off.len() != ds.len() {
        return Err("expected offsets of same size as destination vector rank".into());
    }
    if strides.len() != ss.len() {
        return Err("expected strides of same size as source vector rank".into());
    }
    if ss.len() > ds.len() {
        return Err("expected source rank to be no greater than destination rank".into());
    }
    let diff = ds.len() - ss.len();
    let mut as_dest = vec![1i64; diff];
    as_dest.extend_from_slice(ss);
    confined_to_shape(&off, ds, "offsets", false, 0)?;
    unit_strides(&strides)?;
    sum_confined(&off, &as_dest, ds, "offsets", "source vector shape")?;
    for i in 0..ss.len() {
        if ssc[i] != dsc[i + diff] {
            return Err(format!(
                "mismatching scalable flags (at source vector idx={i})"
            ));
        }
        if ssc[i] && ss[i] != ds[i + diff] {
            return Err(format!(
                "expected size at idx={i} to match the corresponding base size from the input vector ({} vs {})",
                ss[i],
                ds[i + diff]
            ));
        }
    }
    Ok(())
}

/// `TypeCastOp::verify`: identity layouts (a strided layout equal to the row-major one counts),
/// one memory space, one scalar type, and the same shape once the element vector's dims are
/// appended.
fn type_cast(src: &crate::types::Type, res: &crate::types::Type) -> Result<(), String> {
    use crate::dialects::memref::{canonical_strides, memory_space};
    let (
        TypeKind::MemRef {
            shape: ss,
            elem: se,
            layout: sl,
            ..
        },
        TypeKind::MemRef {
            shape: rs,
            elem: re,
            layout: rl,
            ..
        },
    ) = (src.kind(), res.kind())
    else {
        return Ok(());
    };
    let row_major = canonical_strides(ss, None);
    match (sl, canonical_strides(ss, sl.as_ref())) {
        (None, _) => {}
        (Some(_), Some((st, off))) => {
            if off != 0 || Some(st) != row_major.map(|x| x.0) {
                return Err("expects operand to be a memref with identity layout".into());
            }
        }
        // a layout memplan cannot read: not judged
        (Some(_), None) => return Ok(()),
    }
    if let Some(l) = rl {
        if !matches!(l, Attribute::AffineMap(am) if am.is_identity()) {
            return Err("expects result to be a memref with identity layout".into());
        }
    }
    if memory_space(src) != memory_space(res) {
        return Err("expects result in same memory space".into());
    }
    let flat = |shape: &[i64], e: &crate::types::Type| {
        let mut v = shape.to_vec();
        if let TypeKind::Vector { shape: vs, .. } = e.kind() {
            v.extend_from_slice(vs);
        }
        v
    };
    if elem(se) != elem(re) {
        return Err(format!(
            "expects result and operand with same underlying scalar type: '{res}'"
        ));
    }
    if flat(ss, se) != flat(rs, re) {
        return Err(format!(
            "expects concatenated result and operand shapes to be equal: '{res}'"
        ));
    }
    Ok(())
}
