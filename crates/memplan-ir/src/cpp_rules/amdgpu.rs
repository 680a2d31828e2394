//! C++ verifier rules of the AMDGPU dialect.

use super::attr;
use crate::attrs::{Attribute, DenseArrayValues};
use crate::ir::{Module, OpId, ValueId};
use crate::types::{Type, TypeKind, DYNAMIC};

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

pub(super) fn verify(m: &Module, id: OpId) -> Result<(), String> {
    let d = m.op(id);
    let ops = m.operands(id);
    let ty = |v: &ValueId| m.value_type(*v);
    match d.name.as_str() {
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
        _ => {}
    }
    Ok(())
}
