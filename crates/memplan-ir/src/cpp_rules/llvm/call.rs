//! `llvm.call` / `llvm.invoke` against their callee (MLIR's `CallOp::verifySymbolUses`,
//! `verifyCallOpVarCalleeType`, `verifyOperandBundles`), and `llvm.return` against the
//! enclosing `llvm.func`.

use super::ty::{canon, LTy};
use crate::attrs::Attribute;
use crate::cpp_rules::{attr, lookup};
use crate::ir::{Module, OpId, ValueId};
use crate::types::Type;

/// The callee operands (callee pointer first for an indirect call): the first operand
/// segment.
fn callee_operands(m: &Module, id: OpId) -> &[ValueId] {
    let ops = m.operands(id);
    match attr(m, id, "operandSegmentSizes").and_then(Attribute::as_int_array) {
        Some(seg) if !seg.is_empty() => {
            let n = usize::try_from(seg[0]).unwrap_or(0).min(ops.len());
            &ops[..n]
        }
        _ => ops,
    }
}

/// The signature of an `!llvm.func<...>` type.
fn func_sig(t: &Type) -> Option<(LTy, Vec<LTy>, bool)> {
    match LTy::of(t)? {
        LTy::Func {
            ret,
            params,
            vararg,
        } => Some((*ret, params, vararg)),
        _ => None,
    }
}

fn lty_is(t: &Type, l: &LTy) -> bool {
    canon(t) == l.to_string()
}

/// `var_callee_type` against the call's arguments and result.
fn var_callee_type(m: &Module, id: OpId, args: &[ValueId]) -> Result<(), String> {
    let Some(Attribute::Type(vt)) = attr(m, id, "var_callee_type") else {
        return Ok(());
    };
    let Some((ret, params, vararg)) = func_sig(vt) else {
        return Ok(());
    };
    if !vararg {
        return Err("expected var_callee_type to be a variadic function type".into());
    }
    if params.len() > args.len() {
        return Err(format!(
            "expected var_callee_type to have at most {} parameters",
            args.len()
        ));
    }
    for (p, a) in params.iter().zip(args) {
        let at = m.value_type(*a);
        if !lty_is(at, p) {
            return Err(format!(
                "var_callee_type parameter type mismatch: '{p}' != '{}'",
                canon(at)
            ));
        }
    }
    match m.results(id).first() {
        None => {
            if !ret.is_void() {
                return Err("expected var_callee_type to return void".into());
            }
        }
        Some(r) => {
            let rt = m.value_type(*r);
            if !lty_is(rt, &ret) {
                return Err(format!(
                    "var_callee_type return type mismatch: '{ret}' != '{}'",
                    canon(rt)
                ));
            }
        }
    }
    Ok(())
}

/// Operand bundles: one tag per bundle.
pub(super) fn operand_bundles(m: &Module, id: OpId) -> Result<(), String> {
    let bundles = attr(m, id, "op_bundle_sizes")
        .and_then(Attribute::as_int_array)
        .map_or(0, <[i64]>::len);
    let tags = match attr(m, id, "op_bundle_tags") {
        Some(Attribute::Array(t)) => {
            if t.iter().any(|a| !matches!(a, Attribute::String { .. })) {
                return Err("operand bundle tag must be a StringAttr".into());
            }
            t.len()
        }
        _ => 0,
    };
    if bundles != tags {
        return Err(format!(
            "expected {bundles} operand bundle tags, but actually got {tags}"
        ));
    }
    Ok(())
}

pub(super) fn verify_call(m: &Module, id: OpId) -> Result<(), String> {
    operand_bundles(m, id)?;
    let cops = callee_operands(m, id);
    let callee = match attr(m, id, "callee") {
        Some(Attribute::SymbolRef { root, nested }) if nested.is_empty() => Some(root.as_str()),
        _ => None,
    };
    let indirect = callee.is_none();
    let args = if indirect && !cops.is_empty() {
        &cops[1..]
    } else {
        cops
    };
    var_callee_type(m, id, args)?;
    let Some(name) = callee else {
        let Some(&c) = cops.first() else {
            return Err("must have either a `callee` attribute or at least an operand".into());
        };
        let ct = m.value_type(c);
        if !matches!(LTy::of(ct), Some(LTy::Ptr(_))) {
            return Err(format!(
                "indirect call expects a pointer as callee: '{}'",
                canon(ct)
            ));
        }
        return Ok(());
    };
    let Some(f) = lookup(m, id, name) else {
        return Err(format!(
            "'{name}' does not reference a symbol in the current scope"
        ));
    };
    let fty = match m.op(f).name.as_str() {
        "llvm.func" => attr(m, f, "function_type"),
        "llvm.mlir.ifunc" => attr(m, f, "i_func_type"),
        _ => {
            return Err(format!(
                "'{name}' does not reference a valid LLVM function or IFunc"
            ))
        }
    };
    let Some((ret, params, vararg)) = fty.and_then(Attribute::as_type).and_then(func_sig) else {
        return Ok(());
    };
    if vararg && attr(m, id, "var_callee_type").is_none() {
        return Err("missing var_callee_type attribute for vararg call".into());
    }
    if !vararg && params.len() != args.len() {
        return Err(format!(
            "incorrect number of operands ({}) for callee (expecting: {})",
            args.len(),
            params.len()
        ));
    }
    if params.len() > args.len() {
        return Err(format!(
            "incorrect number of operands ({}) for varargs callee (expecting at least: {})",
            args.len(),
            params.len()
        ));
    }
    for (i, (p, a)) in params.iter().zip(args).enumerate() {
        let at = m.value_type(*a);
        if !lty_is(at, p) {
            return Err(format!(
                "operand type mismatch for operand {i}: '{}' != '{p}'",
                canon(at)
            ));
        }
    }
    let rs = m.results(id);
    if rs.is_empty() && !ret.is_void() {
        return Err("expected function call to produce a value".into());
    }
    if !rs.is_empty() && ret.is_void() {
        return Err("calling function with void result must not produce values".into());
    }
    if rs.len() > 1 {
        return Err("expected LLVM function call to produce 0 or 1 result".into());
    }
    if let Some(r) = rs.first() {
        let rt = m.value_type(*r);
        if !lty_is(rt, &ret) {
            return Err(format!("result type mismatch: '{}' != '{ret}'", canon(rt)));
        }
    }
    Ok(())
}

pub(super) fn verify_invoke(m: &Module, id: OpId) -> Result<(), String> {
    let cops = callee_operands(m, id);
    let indirect = !matches!(attr(m, id, "callee"), Some(Attribute::SymbolRef { .. }));
    let args = if indirect && !cops.is_empty() {
        &cops[1..]
    } else {
        cops
    };
    var_callee_type(m, id, args)
}

/// `llvm.return` against the result type of the enclosing `llvm.func`.
pub(super) fn verify_return(m: &Module, id: OpId) -> Result<(), String> {
    let mut p = m.parent_op(id);
    while let Some(o) = p {
        if m.op(o).name == "llvm.func" {
            break;
        }
        p = m.parent_op(o);
    }
    let Some(f) = p else {
        return Ok(());
    };
    let Some((ret, _, _)) = attr(m, f, "function_type")
        .and_then(Attribute::as_type)
        .and_then(func_sig)
    else {
        return Ok(());
    };
    let arg = m.operands(id).first();
    if ret.is_void() {
        if arg.is_some() {
            return Err("expected no operands".into());
        }
        return Ok(());
    }
    let Some(a) = arg else {
        return Err("expected 1 operand".into());
    };
    if !lty_is(m.value_type(*a), &ret) {
        return Err("mismatching result types".into());
    }
    Ok(())
}

/// Whether a type may be an operand or result of `llvm.call` (LLVM dialect-compatible).
pub(super) fn call_types(m: &Module, id: OpId) -> Result<(), String> {
    for (i, v) in m.operands(id).iter().enumerate() {
        let t = m.value_type(*v);
        if super::ty::never_llvm(t) {
            return Err(format!(
                "operand #{i} must be variadic of LLVM dialect-compatible type, but got '{t}'"
            ));
        }
    }
    for (i, v) in m.results(id).iter().enumerate() {
        let t = m.value_type(*v);
        if super::ty::never_llvm(t) {
            return Err(format!(
                "result #{i} must be LLVM dialect-compatible type, but got '{t}'"
            ));
        }
    }
    Ok(())
}
