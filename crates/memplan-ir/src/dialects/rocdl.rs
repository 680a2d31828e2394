//! The ROCDL dialect's rules outside its ops (its ops come from the op table).

use crate::ir::{Module, OpId};

/// The ROCDL dialect's discardable attributes, checked on any op that carries them (MLIR's
/// `ROCDLDialect::verifyOperationAttribute`): `rocdl.kernel` marks LLVM functions only.
pub fn verify_discardable_attrs(m: &Module, op: OpId) -> Result<(), String> {
    let d = m.op(op);
    if d.attrs.get("rocdl.kernel").is_some() && d.name != "llvm.func" {
        return Err("'\"rocdl.kernel\"' attribute attached to unexpected op".into());
    }
    Ok(())
}
