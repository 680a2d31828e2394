//! The LLVM dialect's rules for `llvm.*` argument and result attributes of functions
//! (MLIR's `LLVMDialect::verifyRegionArgAttribute` / `verifyRegionResultAttribute`, which run
//! for every function-like op, `llvm.func`, `func.func` and `gpu.func` alike): the kind of
//! attribute each name takes (unit, integer, type), the parameter type it may be attached to
//! (pointer, integer), the names results may not carry, and, for `llvm.func`, one dictionary
//! per argument and result. Names the rules do not know are left alone.

use super::ty::LTy;
use crate::attrs::Attribute;
use crate::cpp_rules::attr;
use crate::ir::{Module, OpId};
use crate::types::{Type, TypeKind};

/// What a parameter's type is, as far as the attribute rules ask.
#[derive(Clone, Copy, PartialEq)]
enum Param {
    Pointer,
    Integer,
    Other,
}

fn classify(t: &Type) -> Param {
    match t.kind() {
        TypeKind::Integer { .. } => Param::Integer,
        TypeKind::Opaque(_) => match LTy::of(t) {
            Some(LTy::Ptr(_)) => Param::Pointer,
            _ => Param::Other,
        },
        _ => Param::Other,
    }
}

fn classify_lty(t: &LTy) -> Param {
    match t {
        LTy::Ptr(_) => Param::Pointer,
        LTy::Builtin(b) => classify(b),
        _ => Param::Other,
    }
}

/// The attribute kind an `llvm.*` parameter attribute must have.
#[derive(Clone, Copy)]
enum Kind {
    Unit,
    Int,
    Type,
}

/// (name without `llvm.`, attribute kind, parameter type it needs).
const RULES: &[(&str, Kind, Option<Param>)] = &[
    ("noalias", Kind::Unit, Some(Param::Pointer)),
    ("readonly", Kind::Unit, Some(Param::Pointer)),
    ("readnone", Kind::Unit, Some(Param::Pointer)),
    ("writeonly", Kind::Unit, Some(Param::Pointer)),
    ("nest", Kind::Unit, Some(Param::Pointer)),
    ("nocapture", Kind::Unit, Some(Param::Pointer)),
    ("nofree", Kind::Unit, Some(Param::Pointer)),
    ("nonnull", Kind::Unit, Some(Param::Pointer)),
    ("signext", Kind::Unit, Some(Param::Integer)),
    ("zeroext", Kind::Unit, Some(Param::Integer)),
    ("noundef", Kind::Unit, None),
    ("inreg", Kind::Unit, None),
    ("returned", Kind::Unit, None),
    ("align", Kind::Int, Some(Param::Pointer)),
    ("alignstack", Kind::Int, Some(Param::Pointer)),
    ("dereferenceable", Kind::Int, Some(Param::Pointer)),
    ("dereferenceable_or_null", Kind::Int, Some(Param::Pointer)),
    ("sret", Kind::Type, Some(Param::Pointer)),
    ("byval", Kind::Type, Some(Param::Pointer)),
    ("byref", Kind::Type, Some(Param::Pointer)),
    ("inalloca", Kind::Type, Some(Param::Pointer)),
    ("preallocated", Kind::Type, Some(Param::Pointer)),
    ("elementtype", Kind::Type, Some(Param::Pointer)),
];

/// Names a result may not carry.
const NOT_FOR_RESULTS: &[&str] = &[
    "allocalign",
    "allocptr",
    "byval",
    "byref",
    "inalloca",
    "nest",
    "nocapture",
    "nofree",
    "preallocated",
    "readnone",
    "readonly",
    "alignstack",
    "sret",
    "writeonly",
    "returned",
];

/// The rules for one parameter's attribute dictionary (in name order, as MLIR keeps it).
fn check_dict(dict: &Attribute, param: Param, result: bool) -> Result<(), String> {
    let Attribute::Dict(d) = dict else {
        return Ok(());
    };
    let mut entries: Vec<_> = d.0.iter().collect();
    entries.sort_by(|a, b| a.name.as_str().cmp(b.name.as_str()));
    for na in entries {
        let name = na.name.as_str();
        let Some(key) = name.strip_prefix("llvm.") else {
            continue;
        };
        if result && NOT_FOR_RESULTS.contains(&key) {
            return Err(format!("\"{name}\" is not a valid result attribute"));
        }
        let Some(&(_, kind, needs)) = RULES.iter().find(|(k, _, _)| *k == key) else {
            continue;
        };
        let kind_ok = match kind {
            Kind::Unit => matches!(na.value, Attribute::Unit),
            Kind::Int => matches!(na.value, Attribute::Integer { .. } | Attribute::Bool(_)),
            Kind::Type => matches!(na.value, Attribute::Type(_)),
        };
        if !kind_ok {
            let what = match kind {
                Kind::Unit => "a unit",
                Kind::Int => "an integer",
                Kind::Type => "a type",
            };
            return Err(format!("\"{name}\" should be {what} attribute"));
        }
        match needs {
            Some(Param::Pointer) if param != Param::Pointer => {
                return Err(format!(
                    "\"{name}\" attribute attached to non-pointer LLVM type"
                ));
            }
            Some(Param::Integer) if param != Param::Integer => {
                return Err(format!(
                    "\"{name}\" attribute attached to non-integer LLVM type"
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

fn dicts<'a>(m: &'a Module, id: OpId, key: &str) -> Option<&'a [Attribute]> {
    match attr(m, id, key)? {
        Attribute::Array(v) => Some(v),
        _ => None,
    }
}

/// The parameter attribute rules of a function-like op (`llvm.func`, `func.func`,
/// `gpu.func`); for `llvm.func` also one dictionary per argument and per result.
pub(crate) fn verify(m: &Module, id: OpId) -> Result<(), String> {
    let Some(ft) = attr(m, id, "function_type").and_then(Attribute::as_type) else {
        return Ok(());
    };
    let (args, results): (Vec<Param>, Vec<Param>) = if m.op(id).name == "llvm.func" {
        let Some(LTy::Func { ret, params, .. }) = LTy::of(ft) else {
            return Ok(());
        };
        let results = if ret.is_void() {
            vec![]
        } else {
            vec![classify_lty(&ret)]
        };
        (params.iter().map(classify_lty).collect(), results)
    } else {
        let Some((ins, outs)) = ft.as_function() else {
            return Ok(());
        };
        (
            ins.iter().map(classify).collect(),
            outs.iter().map(classify).collect(),
        )
    };
    for (key, what, params, result) in [
        ("arg_attrs", "argument", &args, false),
        ("res_attrs", "result", &results, true),
    ] {
        let Some(ds) = dicts(m, id, key) else {
            continue;
        };
        if ds.len() != params.len() {
            if m.op(id).name == "llvm.func" {
                return Err(format!(
                    "expects {what} attribute array to have the same number of elements as the number of function {what}s, got {}, but expected {}",
                    ds.len(),
                    params.len()
                ));
            }
            continue;
        }
        for (d, &p) in ds.iter().zip(params.iter()) {
            check_dict(d, p, result)?;
        }
    }
    Ok(())
}

/// `llvm.func`'s `function_type` (an `!llvm.func` type) against the entry block: as many
/// block arguments as parameters, of the same types.
pub(crate) fn verify_signature(m: &Module, id: OpId) -> Result<(), String> {
    let Some(ft) = attr(m, id, "function_type") else {
        return Ok(());
    };
    let sig = ft.as_type().and_then(LTy::of);
    let Some(LTy::Func { params, .. }) = sig else {
        // an `!llvm.func` the structural view cannot read (a parameter type it does not
        // model, e.g. `ppc_fp128`) is left alone
        if ft
            .as_type()
            .is_some_and(|t| matches!(t.kind(), crate::types::TypeKind::Opaque(s) if s.trim().starts_with("!llvm.func<")))
        {
            return Ok(());
        }
        return Err(
            "attribute 'function_type' failed to satisfy constraint: type attribute of LLVM function type"
                .into(),
        );
    };
    let Some(entry) = m.regions(id).first().and_then(|&r| m.entry_block(r)) else {
        return Ok(());
    };
    let args = m.block_args(entry);
    if args.len() != params.len() {
        return Err(format!(
            "entry block must have {} arguments to match function signature",
            params.len()
        ));
    }
    for (i, (&a, p)) in args.iter().zip(&params).enumerate() {
        let t = m.value_type(a);
        if super::ty::canon(t) != p.to_string() {
            return Err(format!(
                "type of entry block argument #{i}('{t}') must match the type of the corresponding argument in function signature('{p}')"
            ));
        }
    }
    Ok(())
}
