//! The complex dialect's C++ verifiers (`ComplexOps.cpp` of MLIR 22): `complex.constant`
//! (`ConstantOp::verify`) and `complex.bitcast` (`BitcastOp::verify`).

use super::attr;
use crate::attrs::Attribute;
use crate::ir::{Module, OpId};
use crate::types::{Type, TypeKind};

pub(super) fn verify(m: &Module, id: OpId) -> Result<(), String> {
    match m.op(id).name.as_str() {
        "complex.constant" => constant(m, id),
        "complex.bitcast" => bitcast(m, id),
        _ => Ok(()),
    }
}

/// The type of an integer or float attribute.
fn scalar_type(a: &Attribute) -> Option<&Type> {
    match a {
        Attribute::Integer { ty, .. } | Attribute::Float { ty, .. } => Some(ty),
        _ => None,
    }
}

/// `ConstantOp::verify`: `value` is an array of two integer or float attributes whose types
/// are the element type of the result.
fn constant(m: &Module, id: OpId) -> Result<(), String> {
    let Some(Attribute::Array(items)) = attr(m, id, "value") else {
        // not an array: the ODS `ArrayAttr` constraint's business
        return Ok(());
    };
    if items.len() != 2 {
        return Err(
            "requires 'value' to be a complex constant, represented as array of two values".into(),
        );
    }
    let (Some(re), Some(im)) = (scalar_type(&items[0]), scalar_type(&items[1])) else {
        return Err("requires attribute's elements to be float or integer attributes".into());
    };
    let Some(&r) = m.results(id).first() else {
        return Ok(());
    };
    let TypeKind::Complex(e) = m.value_type(r).kind() else {
        return Ok(());
    };
    if e != re || e != im {
        return Err(format!(
            "requires attribute's element types ('{re}', '{im}') to match the element type of the op's return type ('{e}')"
        ));
    }
    Ok(())
}

/// `BitcastOp::verify`: equal types pass; otherwise both int / float / complex, exactly one
/// complex, and the complex type twice as wide as the other.
fn bitcast(m: &Module, id: OpId) -> Result<(), String> {
    let (Some(&a), Some(&r)) = (m.operands(id).first(), m.results(id).first()) else {
        return Ok(());
    };
    let (src, dst) = (m.value_type(a), m.value_type(r));
    if src == dst {
        return Ok(());
    }
    let int_or_float = |t: &Type| t.is_float() || matches!(t.kind(), TypeKind::Integer { .. });
    let complex = |t: &Type| matches!(t.kind(), TypeKind::Complex(_));
    if !int_or_float(src) && !complex(src) {
        return Err("operand must be int/float/complex".into());
    }
    if !int_or_float(dst) && !complex(dst) {
        return Err("result must be int/float/complex".into());
    }
    if complex(src) == complex(dst) {
        return Err("requires that either input or output has a complex type".into());
    }
    let (c, other) = if complex(src) { (src, dst) } else { (dst, src) };
    let (Some(cw), Some(ow)) = (c.bit_width(), other.bit_width()) else {
        return Ok(());
    };
    if cw != ow {
        return Err("casting bitwidths do not match".into());
    }
    Ok(())
}
