//! MLIR verifier rules that live in C++ (`verify()` / `verifySymbolUses()` of the ops), for
//! table ops the generated table cannot describe: cast compatibility of the scaling casts,
//! symbol references that must name a particular kind of op, LLVM atomic memory accesses,
//! landing pads, NVVM conversion and attribute-combination rules, AMDGPU buffer casts, NVGPU
//! TMA and warpgroup MMA rules, complex constants and bitcasts, and
//! a few vector / gpu / bufferization rules. Each rule was written from MLIR 22's behaviour
//! (the verdict and message of `mlir-opt-22` on an accepted and a rejected case, see
//! `crates/memplan-ir/tests/cpp_rules.rs`), and only rejects what `mlir-opt-22` rejects: an
//! attribute or type the rule does not understand leaves the op alone.
//!
//! One file per dialect family (`llvm`, `amdgpu`, `nvvm`, `nvgpu`, `misc` for arith / async / gpu /
//! bufferization / vector / affine); the helpers they share (attribute access, element types,
//! shape compatibility, symbol lookup) are here.

mod amdgpu;
mod complex;
pub(crate) mod llvm;
mod misc;
mod nvgpu;
pub(crate) mod nvvm;

use crate::attrs::Attribute;
use crate::ir::{Module, OpId, ValueId};
use crate::types::{FloatKind, Type, TypeKind, DYNAMIC};

/// An inherent attribute, from the properties or the attribute dictionary.
pub(super) fn attr<'a>(m: &'a Module, id: OpId, name: &str) -> Option<&'a Attribute> {
    let d = m.op(id);
    d.props.get(name).or_else(|| d.attrs.get(name))
}

/// The integer value of an attribute.
pub(super) fn int_attr(m: &Module, id: OpId, name: &str) -> Option<i128> {
    match attr(m, id, name)? {
        Attribute::Integer { value, .. } => Some(*value),
        _ => None,
    }
}

/// The operands of a table op by ODS operand name (each group's values), split as the table
/// and `operandSegmentSizes` say; `None` where the split is unknown.
pub(super) fn named_operands(m: &Module, id: OpId) -> Option<Vec<(&'static str, Vec<ValueId>)>> {
    let d = m.op(id);
    let op = crate::ods::table().get(&d.name)?;
    let ops = m.operands(id);
    let seg = d
        .props
        .get("operandSegmentSizes")
        .or_else(|| d.attrs.get("operandSegmentSizes"));
    let sizes = crate::ods::group_sizes(
        &op.operands,
        ops.len(),
        seg,
        op.has_trait("SameVariadicOperandSize"),
    )?;
    let mut at = 0;
    let mut out = Vec::with_capacity(sizes.len());
    for (spec, n) in op.operands.iter().zip(sizes) {
        out.push((spec.name, ops[at..at + n].to_vec()));
        at += n;
    }
    Some(out)
}

/// The values of operand group `name` (from [`named_operands`]).
pub(super) fn group<'a>(g: &'a [(&'static str, Vec<ValueId>)], name: &str) -> &'a [ValueId] {
    g.iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.as_slice())
        .unwrap_or(&[])
}

/// The case keyword of an enum attribute: `#nvvm.proxy_kind<async.shared>` -> `async.shared`,
/// `#gpu<broadcast specific_lane>` -> `specific_lane`.
pub(super) fn enum_kw(a: &Attribute) -> Option<&str> {
    let Attribute::Opaque(t) = a else {
        return None;
    };
    let inner = t.strip_suffix('>')?;
    let inner = &inner[inner.find('<')? + 1..];
    inner.split_whitespace().last()
}

/// The case keyword of enum attribute `name`, if set.
pub(super) fn enum_of<'a>(m: &'a Module, id: OpId, name: &str) -> Option<&'a str> {
    attr(m, id, name).and_then(enum_kw)
}

/// The element type of a shaped type, or the type itself.
pub(super) fn elem(t: &Type) -> &Type {
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
pub(super) fn shapes_compatible(a: &Type, b: &Type) -> bool {
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

pub(super) fn float_width(t: &Type) -> Option<u32> {
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
pub(super) fn symbol_table_of(m: &Module, id: OpId) -> Option<OpId> {
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
pub(super) fn lookup(m: &Module, id: OpId, name: &str) -> Option<OpId> {
    let table = symbol_table_of(m, id)?;
    let r = *m.regions(table).first()?;
    let b = m.entry_block(r)?;
    m.block_ops(b)
        .find(|&o| attr(m, o, "sym_name").and_then(|a| a.as_str()) == Some(name))
}

/// The name of the op a flat symbol reference attribute names, or `None` where it names
/// nothing; `Err(())` where the attribute is absent or not a flat reference.
pub(super) fn referenced<'a>(
    m: &'a Module,
    id: OpId,
    attr_name: &str,
) -> Result<Option<(OpId, &'a str)>, ()> {
    match attr(m, id, attr_name) {
        Some(Attribute::SymbolRef { root, nested }) if nested.is_empty() => {
            Ok(lookup(m, id, root).map(|o| (o, m.op(o).name.as_str())))
        }
        _ => Err(()),
    }
}

/// `!llvm.struct<(T, i1)>`, the result of `llvm.cmpxchg` on values of type `t`.
pub(crate) fn llvm_val_and_bool(t: &Type) -> Type {
    llvm::val_and_bool(t)
}

/// Whether two types are the same MLIR type, LLVM types compared by structure.
pub(crate) fn llvm_same(a: &Type, b: &Type) -> bool {
    llvm::ty::same(a, b)
}

/// Whether `t` may appear in an LLVM function signature (MLIR's `isCompatibleType`, types
/// of other dialects not judged).
pub(crate) fn llvm_compatible(t: &Type) -> bool {
    llvm::ty::llvm_compatible(t)
}

/// Runs the C++ rules of op `id` (table ops only; the caller prefixes `'name' op`).
pub fn verify(m: &Module, id: OpId) -> Result<(), String> {
    let name = m.op(id).name.as_str();
    if name == "func.func" || name == "gpu.func" {
        // the LLVM dialect's rules for `llvm.*` argument / result attributes
        llvm::params::verify(m, id)?;
    }
    let dialect = name.split('.').next().unwrap_or("");
    if matches!(dialect, "llvm" | "nvvm" | "rocdl" | "nvgpu" | "amdgpu") {
        llvm::ops::attr_kinds(m, id)?;
    }
    match dialect {
        "llvm" => llvm::verify(m, id),
        "amdgpu" => amdgpu::verify(m, id),
        "complex" => complex::verify(m, id),
        "nvvm" => nvvm::verify(m, id),
        "nvgpu" => nvgpu::verify(m, id),
        _ => misc::verify(m, id),
    }
}

/// The CastOpInterface rule of the ops whose cast check lives here, for callers that must
/// run it in MLIR's trait order (before the `Elementwise` trait of the op table).
pub(crate) fn cast_interface(m: &Module, id: OpId) -> Result<(), String> {
    match m.op(id).name.as_str() {
        "arith.scaling_extf" => misc::scaling_cast(m, id, true),
        "arith.scaling_truncf" => misc::scaling_cast(m, id, false),
        _ => Ok(()),
    }
}
