//! C++ verifier rules of the NVVM warp-level ops: `nvvm.shfl.sync`, `nvvm.vote.sync`,
//! `nvvm.redux.sync` and `nvvm.match.sync` (result types by kind, the struct form of
//! the shuffle, the reduction kinds per element type).

use super::super::llvm::ty::{canon, LTy};
use super::super::{attr, enum_of};
use crate::attrs::Attribute;
use crate::ir::{Module, OpId};

fn is_set(a: Option<&Attribute>) -> bool {
    matches!(a, Some(Attribute::Bool(true) | Attribute::Unit))
}

pub(super) fn verify(m: &Module, id: OpId) -> Result<(), String> {
    let name = m.op(id).name.as_str();
    let Some(&res) = m.results(id).first() else {
        return Ok(());
    };
    let res_t = m.value_type(res);
    let res_s = canon(res_t);
    match name {
        "nvvm.shfl.sync" => {
            let Some(&val) = m.operands(id).get(1) else {
                return Ok(());
            };
            let val_s = canon(m.value_type(val));
            let flag = attr(m, id, "return_value_and_is_valid").is_some();
            if let Some(LTy::Struct { body, .. }) = LTy::of(res_t) {
                if !flag {
                    return Err("\"return_value_and_is_valid\" attribute must be specified when the return type is a struct type".into());
                }
                let body = body.unwrap_or_default();
                if body.len() != 2 {
                    return Err("expected return type to be a two-element struct".into());
                }
                let first = body[0].to_string();
                if first != val_s {
                    return Err(format!("expected first element in the returned struct to be of type '{val_s}' but got '{first}' instead"));
                }
                let second = body[1].to_string();
                if second != "i1" {
                    return Err(format!("expected second element in the returned struct to be of type 'i1' but got '{second}' instead"));
                }
            } else {
                if flag {
                    return Err("expected return type to be a two-element struct".into());
                }
                if res_s != val_s {
                    return Err(format!(
                        "expected return type to be of type '{val_s}' but got '{res_s}' instead"
                    ));
                }
            }
        }
        "nvvm.vote.sync" => match enum_of(m, id, "kind") {
            Some("ballot") if res_s != "i32" => {
                return Err("vote.sync 'ballot' returns an i32".into())
            }
            Some("any" | "all" | "uni") if res_s != "i1" => {
                return Err("vote.sync 'any', 'all' and 'uni' returns an i1".into())
            }
            _ => {}
        },
        "nvvm.match.sync" => match enum_of(m, id, "kind") {
            Some("all") if res_s != "!llvm.struct<(i32, i1)>" => {
                return Err("match.sync 'all' returns a two element struct with first element as i32 and second element as i1".into())
            }
            Some("any") if res_s != "i32" => return Err("match.sync 'any' returns an i32".into()),
            _ => {}
        },
        "nvvm.redux.sync" => {
            if res_s != "f32" {
                if is_set(attr(m, id, "abs")) {
                    return Err("abs attribute is supported only for f32 type".into());
                }
                if is_set(attr(m, id, "nan")) {
                    return Err("nan attribute is supported only for f32 type".into());
                }
            }
            match enum_of(m, id, "kind") {
                Some(k @ ("add" | "and" | "or" | "xor" | "max" | "min" | "umax" | "umin"))
                    if res_s != "i32" =>
                {
                    return Err(format!("'{k}' redux kind unsupported with '{res_s}' type. Only supported type is 'i32'."))
                }
                Some(k @ ("fmin" | "fmax")) if res_s != "f32" => {
                    return Err(format!("'{k}' redux kind unsupported with '{res_s}' type. Only supported type is 'f32'."))
                }
                _ => {}
            }
        }
        _ => {}
    }
    Ok(())
}
