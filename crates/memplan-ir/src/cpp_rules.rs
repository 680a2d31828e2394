//! MLIR verifier rules that live in C++ (`verify()` / `verifySymbolUses()` of the ops), for
//! table ops the generated table cannot describe: cast compatibility of the scaling casts,
//! symbol references that must name a particular kind of op, LLVM atomic memory accesses,
//! landing pads, NVVM conversion and attribute-combination rules, AMDGPU buffer casts, and
//! a few vector / gpu / bufferization rules. Each rule was written from MLIR 22's behaviour
//! (the verdict and message of `mlir-opt-22` on an accepted and a rejected case, see
//! `crates/memplan-ir/tests/cpp_rules.rs`), and only rejects what `mlir-opt-22` rejects: an
//! attribute or type the rule does not understand leaves the op alone.

use crate::attrs::{Attribute, DenseArrayValues};
use crate::ir::{Module, OpId, ValueId};
use crate::types::{FloatKind, Type, TypeKind, DYNAMIC};

/// An inherent attribute, from the properties or the attribute dictionary.
fn attr<'a>(m: &'a Module, id: OpId, name: &str) -> Option<&'a Attribute> {
    let d = m.op(id);
    d.props.get(name).or_else(|| d.attrs.get(name))
}

/// The integer value of an attribute.
fn int_attr(m: &Module, id: OpId, name: &str) -> Option<i128> {
    match attr(m, id, name)? {
        Attribute::Integer { value, .. } => Some(*value),
        _ => None,
    }
}

/// The case keyword of an enum attribute: `#nvvm.proxy_kind<async.shared>` -> `async.shared`,
/// `#gpu<broadcast specific_lane>` -> `specific_lane`.
fn enum_kw(a: &Attribute) -> Option<&str> {
    let Attribute::Opaque(t) = a else {
        return None;
    };
    let inner = t.strip_suffix('>')?;
    let inner = &inner[inner.find('<')? + 1..];
    inner.split_whitespace().last()
}

/// The case keyword of enum attribute `name`, if set.
fn enum_of<'a>(m: &'a Module, id: OpId, name: &str) -> Option<&'a str> {
    attr(m, id, name).and_then(enum_kw)
}

/// The element type of a shaped type, or the type itself.
fn elem(t: &Type) -> &Type {
    match t.kind() {
        TypeKind::Vector { elem, .. }
        | TypeKind::RankedTensor { elem, .. }
        | TypeKind::UnrankedTensor { elem }
        | TypeKind::MemRef { elem, .. }
        | TypeKind::UnrankedMemRef { elem, .. } => elem,
        _ => t,
    }
}

/// MLIR's `verifyCompatibleShape` for two types: both unshaped, or both shaped with equal
/// ranks (unranked matches anything shaped) and equal static sizes; vectors must also agree
/// on scalability.
fn shapes_compatible(a: &Type, b: &Type) -> bool {
    let dims = |t: &Type| -> Option<Option<Vec<i64>>> {
        match t.kind() {
            TypeKind::Vector { shape, .. }
            | TypeKind::RankedTensor { shape, .. }
            | TypeKind::MemRef { shape, .. } => Some(Some(shape.clone())),
            TypeKind::UnrankedTensor { .. } | TypeKind::UnrankedMemRef { .. } => Some(None),
            _ => None,
        }
    };
    match (dims(a), dims(b)) {
        (None, None) => true,
        (Some(Some(x)), Some(Some(y))) => {
            if let (TypeKind::Vector { scalable: s1, .. }, TypeKind::Vector { scalable: s2, .. }) =
                (a.kind(), b.kind())
            {
                if s1 != s2 {
                    return false;
                }
            }
            x.len() == y.len()
                && x.iter()
                    .zip(&y)
                    .all(|(p, q)| p == q || *p == DYNAMIC || *q == DYNAMIC)
        }
        (Some(_), Some(_)) => true,
        _ => false,
    }
}

fn float_width(t: &Type) -> Option<u32> {
    let TypeKind::Float(k) = t.kind() else {
        return None;
    };
    Some(match k {
        FloatKind::F16 | FloatKind::BF16 => 16,
        FloatKind::F32 => 32,
        FloatKind::F64 => 64,
        FloatKind::F80 => 80,
        FloatKind::F128 => 128,
        FloatKind::TF32 => 19,
        FloatKind::F4E2M1FN => 4,
        FloatKind::F6E2M3FN | FloatKind::F6E3M2FN => 6,
        _ => 8,
    })
}

/// The nearest enclosing op with a symbol table (`builtin.module`, `gpu.module`, ...).
fn symbol_table_of(m: &Module, id: OpId) -> Option<OpId> {
    let mut cur = m.parent_op(id);
    while let Some(o) = cur {
        let n = m.op(o).name.as_str();
        if n == "builtin.module"
            || crate::ods::table()
                .get(n)
                .is_some_and(|d| d.has_trait("SymbolTable"))
        {
            return Some(o);
        }
        cur = m.parent_op(o);
    }
    None
}

/// The op that defines symbol `name` in the nearest symbol table above `id`
/// (`lookupNearestSymbolFrom` for a flat reference).
fn lookup(m: &Module, id: OpId, name: &str) -> Option<OpId> {
    let table = symbol_table_of(m, id)?;
    let r = *m.regions(table).first()?;
    let b = m.entry_block(r)?;
    m.block_ops(b)
        .find(|&o| attr(m, o, "sym_name").and_then(|a| a.as_str()) == Some(name))
}

/// The name of the op a flat symbol reference attribute names, or `None` where it names
/// nothing; `Err(())` where the attribute is absent or not a flat reference.
fn referenced<'a>(m: &'a Module, id: OpId, attr_name: &str) -> Result<Option<(OpId, &'a str)>, ()> {
    match attr(m, id, attr_name) {
        Some(Attribute::SymbolRef { root, nested }) if nested.is_empty() => {
            Ok(lookup(m, id, root).map(|o| (o, m.op(o).name.as_str())))
        }
        _ => Err(()),
    }
}

/// The address space of an `!llvm.ptr` / `!llvm.ptr<N>` type.
fn llvm_ptr_space(t: &Type) -> Option<i64> {
    let TypeKind::Opaque(s) = t.kind() else {
        return None;
    };
    let s = s.trim();
    if s == "!llvm.ptr" {
        return Some(0);
    }
    s.strip_prefix("!llvm.ptr<")?
        .strip_suffix('>')?
        .trim()
        .parse()
        .ok()
}

/// LLVM's atomic ordering enum, by stored value.
fn ordering_name(v: i128) -> &'static str {
    match v {
        0 => "not_atomic",
        1 => "unordered",
        2 => "monotonic",
        4 => "acquire",
        5 => "release",
        6 => "acq_rel",
        7 => "seq_cst",
        _ => "?",
    }
}

/// Types `llvm.load`/`llvm.store` may access atomically: integers, LLVM floats and pointers
/// whose size is a power of two of at least 8 bits (default data layout: 64-bit pointers).
fn atomic_type_ok(t: &Type) -> bool {
    let bits = match t.kind() {
        TypeKind::Integer { width, .. } => *width as u64,
        TypeKind::Float(
            FloatKind::F16
            | FloatKind::BF16
            | FloatKind::F32
            | FloatKind::F64
            | FloatKind::F80
            | FloatKind::F128,
        ) => float_width(t).unwrap_or(0) as u64,
        _ if llvm_ptr_space(t).is_some() => 64,
        _ => return false,
    };
    bits >= 8 && bits.is_power_of_two()
}

fn llvm_atomic_access(
    m: &Module,
    id: OpId,
    value: Option<&ValueId>,
    bad_orderings: &[i128],
) -> Result<(), String> {
    let ordering = int_attr(m, id, "ordering").unwrap_or(0);
    if ordering != 0 {
        if let Some(v) = value {
            let t = m.value_type(*v);
            if !atomic_type_ok(t) {
                return Err(format!("unsupported type '{t}' for atomic access"));
            }
        }
        if bad_orderings.contains(&ordering) {
            return Err(format!(
                "unsupported ordering '{}'",
                ordering_name(ordering)
            ));
        }
        if attr(m, id, "alignment").is_none() {
            return Err("expected alignment for atomic access".into());
        }
    } else if attr(m, id, "syncscope").is_some() {
        return Err("expected syncscope to be null for non-atomic access".into());
    }
    Ok(())
}

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

fn llvm_landingpad(m: &Module, id: OpId) -> Result<(), String> {
    let mut p = m.parent_op(id);
    while let Some(o) = p {
        if m.op(o).name == "llvm.func" {
            if attr(m, o, "personality").is_none() {
                return Err("llvm.landingpad needs to be in a function with a personality".into());
            }
            break;
        }
        p = m.parent_op(o);
    }
    let ops = m.operands(id);
    if attr(m, id, "cleanup").is_none() && ops.is_empty() {
        return Err(
            "landingpad instruction expects at least one clause or cleanup attribute".into(),
        );
    }
    for (i, v) in ops.iter().enumerate() {
        let is_filter =
            matches!(m.value_type(*v).kind(), TypeKind::Opaque(t) if t.starts_with("!llvm.array"));
        if is_filter {
            continue;
        }
        let def = m.defining_op(*v).map(|o| (o, m.op(o).name.as_str()));
        match def {
            Some((_, "llvm.mlir.zero" | "llvm.mlir.addressof")) => {}
            Some((bc, "llvm.bitcast")) => {
                let arg = m.operands(bc).first().and_then(|a| m.defining_op(*a));
                if arg.is_none_or(|a| m.op(a).name != "llvm.mlir.addressof") {
                    return Err("constant clauses expected".into());
                }
            }
            _ => {
                return Err(format!(
                    "clause #{i} is not a known constant - null, addressof, bitcast"
                ))
            }
        }
    }
    Ok(())
}

/// `amdgpu.fat_raw_buffer_cast`: the result is the source memref in the fat raw buffer
/// address space (with offset 0 under `resetOffset`).
fn fat_raw_buffer_cast(m: &Module, id: OpId) -> Result<(), String> {
    let (Some(s), Some(r)) = (m.operands(id).first(), m.results(id).first()) else {
        return Ok(());
    };
    let (ts, tr) = (m.value_type(*s), m.value_type(*r));
    let TypeKind::MemRef {
        shape,
        elem,
        layout,
        ..
    } = ts.kind()
    else {
        return Ok(());
    };
    let layout = match layout {
        None => None,
        Some(Attribute::Strided { strides, offset }) => {
            let offset = if attr(m, id, "resetOffset").is_some() {
                0
            } else {
                *offset
            };
            // a strided layout with offset 0 and contiguous row-major strides is the
            // identity, which MLIR's memref type drops
            let mut want = Vec::with_capacity(shape.len());
            let mut acc = 1i64;
            for &s in shape.iter().rev() {
                want.push(acc);
                acc = if s == DYNAMIC || acc == DYNAMIC {
                    DYNAMIC
                } else {
                    acc.saturating_mul(s)
                };
            }
            want.reverse();
            if offset == 0 && *strides == want && !strides.contains(&DYNAMIC) {
                None
            } else {
                Some(Attribute::Strided {
                    strides: strides.clone(),
                    offset,
                })
            }
        }
        Some(_) => return Ok(()),
    };
    let want = Type::new(TypeKind::MemRef {
        shape: shape.clone(),
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

fn memref_space_is_workgroup(t: &Type) -> Option<bool> {
    let TypeKind::MemRef { memory_space, .. } = t.kind() else {
        return None;
    };
    Some(match memory_space {
        Some(Attribute::Integer { value, .. }) => *value == 3,
        Some(Attribute::Opaque(s)) => {
            s == "#gpu.address_space<workgroup>" || s == "#gpu<address_space workgroup>"
        }
        _ => false,
    })
}

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

/// Runs the C++ rules of op `id` (table ops only; the caller prefixes `'name' op`).
pub fn verify(m: &Module, id: OpId) -> Result<(), String> {
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
        "llvm.mlir.addressof" => {
            if let Ok(found) = referenced(m, id, "global_name") {
                let Some((g, n)) = found.filter(|(_, n)| {
                    matches!(
                        *n,
                        "llvm.mlir.global" | "llvm.mlir.alias" | "llvm.func" | "llvm.mlir.ifunc"
                    )
                }) else {
                    return Err("must reference a global defined by 'llvm.mlir.global', 'llvm.mlir.alias' or 'llvm.func' or 'llvm.mlir.ifunc'".into());
                };
                if n == "llvm.mlir.global" || n == "llvm.mlir.alias" {
                    let space = int_attr(m, g, "addr_space").unwrap_or(0) as i64;
                    let have = rs.first().and_then(|r| llvm_ptr_space(ty(r)));
                    if have.is_some_and(|h| h != space) {
                        return Err("pointer address space must match address space of the referenced global".into());
                    }
                }
            }
        }
        "llvm.dso_local_equivalent" => {
            if let Ok(found) = referenced(m, id, "function_name") {
                if !found.is_some_and(|(_, n)| n == "llvm.func" || n == "llvm.mlir.alias") {
                    return Err(
                        "must reference a global defined by 'llvm.func' or 'llvm.mlir.alias'"
                            .into(),
                    );
                }
            }
        }
        "llvm.landingpad" => llvm_landingpad(m, id)?,
        "llvm.intr.sincos" => {
            if let (Some(a), Some(r)) = (ops.first(), rs.first()) {
                let want = format!("!llvm.struct<({0},{0})>", ty(a)).replace(' ', "");
                let got = ty(r).to_string().replace(' ', "");
                if got != want {
                    return Err(format!("expected result type to be an homogeneous struct with two elements matching the operand type, but got '{}'", ty(r)));
                }
            }
        }
        "llvm.load" => llvm_atomic_access(m, id, rs.first(), &[5, 6])?,
        "llvm.store" => llvm_atomic_access(m, id, ops.first(), &[4, 6])?,
        "llvm.fence" => {
            if let Some(o) = int_attr(m, id, "ordering") {
                if !(4..=7).contains(&o) {
                    return Err(
                        "can be given only acquire, release, acq_rel, and seq_cst orderings".into(),
                    );
                }
            }
        }
        "amdgpu.fat_raw_buffer_cast" => fat_raw_buffer_cast(m, id)?,
        "amdgpu.gather_to_lds" => {
            // operands: src, srcIndices..., dst, dstIndices... (segment sizes)
            if let Some(Attribute::DenseArray {
                values: DenseArrayValues::Int(seg),
                ..
            }) = attr(m, id, "operandSegmentSizes")
            {
                if seg.len() == 4 && seg[0] == 1 && seg[2] == 1 {
                    let src = ty(&ops[0]);
                    let dst = ty(&ops[1 + seg[1] as usize]);
                    if let (TypeKind::MemRef { elem: e1, .. }, TypeKind::MemRef { elem: e2, .. }) =
                        (src.kind(), dst.kind())
                    {
                        if e1 != e2 {
                            return Err("source and destination element types must match".into());
                        }
                    }
                    if memref_space_is_workgroup(dst) == Some(false) {
                        return Err("destination memory address space must be Workgroup".into());
                    }
                }
            }
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
        n if n.starts_with("nvvm.convert.") => nvvm_convert_dst(m, id)?,
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
        // ValidRoundingModeAttr: a RoundingMode confined to values >= 0
        n if n.starts_with("llvm.intr.experimental.constrained.")
            && int_attr(m, id, "roundingmode").is_some_and(|v| v < 0) =>
        {
            return Err("attribute 'roundingmode' failed to satisfy constraint: LLVM Rounding Mode whose minimum value is 0".into());
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
        "llvm.func" => {
            // a declaration (no body) links externally
            let body = m
                .regions(id)
                .first()
                .is_some_and(|&r| !m.region_blocks(r).is_empty());
            if !body {
                if let Some(l) = attr(m, id, "linkage").and_then(enum_kw) {
                    if l != "external" && l != "extern_weak" {
                        return Err(
                            "external functions must have 'external' or 'extern_weak' linkage"
                                .into(),
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
        // memref.cast (unranked to unranked), memref.assume_alignment and
        // memref.distinct_objects are checked with the other memref rules
        // (dialects/memref.rs, ods.rs).
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
