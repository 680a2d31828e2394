//! C++ verifier rules of the LLVM dialect: symbol uses, atomic accesses, landing pads,
//! intrinsics and function linkage here; constants, calls, module-level ops and
//! instruction rules in the submodules.

mod call;
mod constant;
mod global;
pub(crate) mod ops;
pub(crate) mod params;
pub(crate) mod ty;

use super::{attr, enum_kw, float_width, int_attr, referenced};
use crate::ir::{Module, OpId, ValueId};
use crate::types::{FloatKind, Type, TypeKind};

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

/// `!llvm.struct<(T, i1)>`: what `llvm.cmpxchg` returns for values of type `t`.
pub(crate) fn val_and_bool(t: &Type) -> Type {
    let elem = ty::LTy::of(t).unwrap_or_else(|| ty::LTy::Builtin(t.clone()));
    let s = ty::LTy::Struct {
        name: None,
        packed: false,
        body: Some(vec![elem, ty::LTy::Builtin(Type::int(1))]),
    };
    Type::new(TypeKind::Opaque(s.to_string()))
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
pub(super) fn atomic_type_ok(t: &Type) -> bool {
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

pub(super) fn verify(m: &Module, id: OpId) -> Result<(), String> {
    let d = m.op(id);
    let ops = m.operands(id);
    let rs = m.results(id);
    let ty = |v: &ValueId| m.value_type(*v);
    ops::metadata_arrays(m, id)?;
    match d.name.as_str() {
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
        "llvm.mlir.constant" => constant::verify(m, id)?,
        "llvm.call" => {
            call::call_types(m, id)?;
            call::verify_call(m, id)?;
        }
        "llvm.invoke" => {
            call::verify_invoke(m, id)?;
            ops::invoke_unwind(m, id)?;
            call::operand_bundles(m, id)?;
        }
        "llvm.call_intrinsic" => {
            if attr(m, id, "intrin")
                .and_then(|a| a.as_str())
                .is_some_and(|n| !n.starts_with("llvm."))
            {
                return Err("intrinsic name must start with 'llvm.'".into());
            }
            call::operand_bundles(m, id)?;
        }
        "llvm.mlir.alias" => global::verify_alias(m, id)?,
        "llvm.mlir.ifunc" => global::verify_ifunc(m, id)?,
        "llvm.blockaddress" => ops::blockaddress(m, id)?,
        "llvm.inline_asm" => ops::inline_asm(m, id)?,
        "llvm.return" => call::verify_return(m, id)?,
        "llvm.mlir.global" => global::verify_global(m, id)?,
        "llvm.mlir.global_ctors" => global::verify_structors(m, id, "ctors")?,
        "llvm.mlir.global_dtors" => global::verify_structors(m, id, "dtors")?,
        "llvm.comdat" => global::verify_comdat_region(m, id)?,
        "llvm.module_flags" => global::verify_module_flags(m, id)?,
        "llvm.atomicrmw" => ops::atomicrmw(m, id)?,
        "llvm.cmpxchg" => ops::cmpxchg(m, id)?,
        "llvm.bitcast" => ops::bitcast(m, id)?,
        "llvm.getelementptr" => ops::gep(m, id)?,
        "llvm.shufflevector" => ops::shufflevector(m, id)?,
        "llvm.switch" => ops::switch(m, id)?,
        "llvm.intr.vector.interleave2" => ops::interleave2(m, id)?,
        "llvm.mlir.zero" => ops::zero(m, id)?,
        "llvm.extractvalue" => ops::value_position(m, id, false)?,
        "llvm.insertvalue" => ops::value_position(m, id, true)?,
        "llvm.func" => {
            ops::func_attrs(m, id)?;
            params::verify_signature(m, id)?;
            params::verify(m, id)?;
            ops::func_body(m, id)?;
            global::comdat(m, id)?;
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
        _ => {}
    }
    Ok(())
}
