//! C++ verifier rules of the NVVM conversions that the older rules in `mod.rs` do not cover:
//! the stochastic-rounding pair conversions `convert.f32x2.to.f16x2` / `to.bf16x2`
//! (rounding mode and the `random_bits` operand).

use crate::cpp_rules::{enum_of, group, named_operands};
use crate::ir::{Module, OpId};

/// Runs the rule of `id` if it is one of the conversions handled here.
pub(super) fn verify(m: &Module, id: OpId) -> Result<(), String> {
    let dst = match m.op(id).name.as_str() {
        "nvvm.convert.f32x2.to.f16x2" => "f16x2",
        "nvvm.convert.f32x2.to.bf16x2" => "bf16x2",
        _ => return Ok(()),
    };
    // `rnd` defaults to `none`, which is not one of the accepted modes.
    let rnd = enum_of(m, id, "rnd").unwrap_or("none");
    if !matches!(rnd, "rn" | "rz" | "rs") {
        return Err(format!(
            "Only RN, RZ, and RS rounding modes are supported for conversions from f32x2 to {dst}."
        ));
    }
    let Some(g) = named_operands(m, id) else {
        return Ok(());
    };
    let random_bits = !group(&g, "random_bits").is_empty();
    if rnd == "rs" && !random_bits {
        return Err("random_bits is required for RS rounding mode.".into());
    }
    if rnd != "rs" && random_bits {
        return Err("random_bits not supported for RN and RZ rounding modes.".into());
    }
    Ok(())
}
