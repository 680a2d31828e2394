//! `llvm.mlir.constant`: the value attribute against the result type (MLIR's
//! `ConstantOp::verify`).

use super::ty::LTy;
use crate::attrs::Attribute;
use crate::cpp_rules::{attr, float_width};
use crate::ir::{Module, OpId};
use crate::types::{Signedness, Type, TypeKind};

/// `#llvm.zero` / `#llvm.undef` (what a nested array initialiser may hold instead of an
/// array).
fn zero_or_undef(a: &Attribute) -> bool {
    matches!(a, Attribute::Opaque(s) if matches!(s.trim(), "#llvm.zero" | "#llvm.undef"))
}

/// Whether an elements attribute is a splat: `Some(true)` / `Some(false)`, `None` where
/// memplan cannot tell from the text (hex buffers, complex elements). A dense literal whose
/// elements are all equal is a splat, as MLIR stores it.
fn is_splat(kind: &str, body: &str) -> Option<bool> {
    if kind != "dense" {
        return Some(false);
    }
    let b = body.trim();
    if b.starts_with('"') || b.contains('(') {
        return None;
    }
    if !b.starts_with('[') {
        return Some(true);
    }
    let flat = b.replace(['[', ']'], " ");
    let elems: Vec<&str> = flat
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let first = *elems.first()?;
    let num = |s: &str| -> Option<f64> {
        match s {
            "true" => Some(1.0),
            "false" => Some(0.0),
            _ => s.parse::<f64>().ok(),
        }
    };
    Some(
        elems
            .iter()
            .all(|e| *e == first || matches!((num(e), num(first)), (Some(x), Some(y)) if x == y)),
    )
}

fn has_scalable(t: &LTy) -> bool {
    match t {
        LTy::Builtin(b) => match b.kind() {
            TypeKind::Vector { scalable, elem, .. } => {
                scalable.iter().any(|&s| s) || has_scalable(&LTy::Builtin(elem.clone()))
            }
            _ => false,
        },
        LTy::Array(_, e) => has_scalable(e),
        _ => false,
    }
}

/// Elements of `t`, nested arrays and vectors multiplied out.
fn num_elements(t: &LTy) -> u128 {
    match t {
        LTy::Builtin(b) => match b.kind() {
            TypeKind::Vector { shape, elem, .. } => {
                shape.iter().map(|&d| d.max(0) as u128).product::<u128>()
                    * num_elements(&LTy::Builtin(elem.clone()))
            }
            _ => 1,
        },
        LTy::Array(n, e) => *n as u128 * num_elements(e),
        _ => 1,
    }
}

/// The scalar element type below arrays and one vector level.
fn scalar_of(t: &LTy) -> LTy {
    match t {
        LTy::Array(_, e) => scalar_of(e),
        LTy::Builtin(b) => match b.kind() {
            TypeKind::Vector { elem, .. } | TypeKind::RankedTensor { elem, .. } => {
                LTy::Builtin(elem.clone())
            }
            _ => t.clone(),
        },
        _ => t.clone(),
    }
}

/// A float attribute of type `float` initialising elements of type `elem`: the same float
/// type, or an integer of the float's width.
fn float_semantics(float: &Type, elem: &LTy) -> Result<(), String> {
    let Some(e) = elem.builtin() else {
        return Ok(());
    };
    match e.kind() {
        TypeKind::Float(k) if !matches!(float.kind(), TypeKind::Float(a) if a == k) => {
            return Err("attribute and type have different float semantics".into());
        }
        TypeKind::Integer { width, signedness } => {
            let Some(fw) = float_width(float) else {
                return Ok(());
            };
            if *width != fw || *signedness != Signedness::Signless {
                return Err(format!("expected integer type of width {fw}"));
            }
        }
        _ => {}
    }
    Ok(())
}

/// The array-of-structs initialiser `[[...], ...]` against `!llvm.array<n x elem>`.
fn struct_array(n: u64, elem: &LTy, items: &[Attribute], dim: usize) -> Result<(), String> {
    if n != items.len() as u64 {
        return Err(format!(
            "array attribute size does not match array type size in dimension {dim}: {} vs. {n}",
            items.len()
        ));
    }
    if let LTy::Array(sn, se) = elem {
        for (idx, a) in items.iter().enumerate() {
            if zero_or_undef(a) {
                continue;
            }
            let Attribute::Array(sub) = a else {
                return Err(format!("nested attribute for sub-array in dimension {dim} at index {idx} must be a zero, or undef, or array attribute"));
            };
            struct_array(*sn, se, sub, dim + 1)?;
        }
        return Ok(());
    }
    let LTy::Struct { body, .. } = elem else {
        return Err("for array with an array attribute must have a struct element type".into());
    };
    let size = body.as_ref().map_or(0, Vec::len);
    for (idx, a) in items.iter().enumerate() {
        if zero_or_undef(a) {
            continue;
        }
        let Attribute::Array(sub) = a else {
            return Err(format!("nested attribute for struct element at index {idx} must be a zero, or undef, or array attribute"));
        };
        if sub.len() != size {
            return Err(format!("nested array attribute size for struct element at index {idx} must match struct size: {} vs. {size}", sub.len()));
        }
    }
    Ok(())
}

pub(super) fn verify(m: &Module, id: OpId) -> Result<(), String> {
    let (Some(value), Some(&r)) = (attr(m, id, "value"), m.results(id).first()) else {
        return Ok(());
    };
    let rt = m.value_type(r);
    let Some(lt) = LTy::of(rt) else {
        return Ok(());
    };
    if let Attribute::String { value: bytes, .. } = value {
        let n = bytes.len() as u64;
        if !matches!(&lt, LTy::Array(k, e) if *k == n && e.int_width() == Some(8)) {
            return Err(format!(
                "expected array type of {n} i8 elements for the string constant"
            ));
        }
        return Ok(());
    }
    if let LTy::Struct { body, .. } = &lt {
        let Attribute::Array(items) = value else {
            return Err("expected array attribute for struct type".into());
        };
        let Some(body) = body else {
            return Ok(());
        };
        if items.len() != body.len() {
            return Err(format!("expected array attribute of size {}", body.len()));
        }
        for (i, (a, t)) in items.iter().zip(body).enumerate() {
            let elem = t.builtin().filter(|b| {
                matches!(
                    b.kind(),
                    TypeKind::Index
                        | TypeKind::Float(_)
                        | TypeKind::Integer {
                            signedness: Signedness::Signless,
                            ..
                        }
                )
            });
            let Some(elem) = elem else {
                return Err(
                    "expected struct element types to be floating point type or integer type"
                        .into(),
                );
            };
            let aty = match a {
                Attribute::Integer { ty, .. } | Attribute::Float { ty, .. } => ty.clone(),
                Attribute::Bool(_) => Type::int(1),
                _ => {
                    return Err(
                        "expected element of array attribute to be floating point or integer"
                            .into(),
                    )
                }
            };
            if aty != *elem {
                return Err(format!("struct element at index {i} is of wrong type"));
            }
        }
        return Ok(());
    }
    if matches!(lt, LTy::Target(..)) {
        return Err("does not support target extension type.".into());
    }
    match value {
        Attribute::Integer { .. } | Attribute::Bool(_) => {
            if !matches!(rt.kind(), TypeKind::Integer { .. }) {
                return Err("expected integer type".into());
            }
        }
        Attribute::Float { ty, .. } => return float_semantics(ty, &lt),
        Attribute::Elements { kind, body, ty } => {
            if has_scalable(&lt) {
                if is_splat(kind, body) == Some(false) {
                    return Err("scalable vector type requires a splat attribute".into());
                }
                return Ok(());
            }
            let vector = matches!(rt.kind(), TypeKind::Vector { .. });
            if !vector && !matches!(lt, LTy::Array(..)) {
                return Err("expected vector or array type".into());
            }
            let Some(shape) = ty.shape() else {
                return Ok(());
            };
            let attr_n: u128 = shape.iter().map(|&d| d.max(0) as u128).product();
            let type_n = num_elements(&lt);
            if type_n != attr_n {
                return Err(format!(
                    "type and attribute have a different number of elements: {type_n} vs. {attr_n}"
                ));
            }
            let Some(attr_elem) = ty.element_type() else {
                return Ok(());
            };
            let elem = scalar_of(&lt);
            match attr_elem.kind() {
                TypeKind::Float(_) => return float_semantics(attr_elem, &elem),
                TypeKind::Integer { .. } => {
                    let int = elem
                        .builtin()
                        .is_some_and(|b| matches!(b.kind(), TypeKind::Integer { .. }));
                    if !int {
                        return Err(
                            "expected integer element type for integer elements attribute".into(),
                        );
                    }
                }
                _ => {}
            }
        }
        Attribute::Array(items) => {
            let LTy::Array(n, e) = &lt else {
                return Err("expected array or struct type for array attribute".into());
            };
            return struct_array(*n, e, items, 0);
        }
        _ => {
            return Err("only supports integer, float, string or elements attributes".into());
        }
    }
    Ok(())
}
