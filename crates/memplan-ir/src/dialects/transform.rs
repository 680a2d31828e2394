//! The transform dialect's ops whose syntax MLIR writes in C++ (TransformOps.cpp); every other
//! transform op (the core ones and those of the extensions: structured, loop, vector, ...)
//! reads and prints through the ODS table and the format engine.
//!
//! ```text
//! transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly})
//!     -> !transform.any_op attributes {...} { ... transform.yield %x : !transform.any_op }
//! transform.named_sequence private @decl(!transform.any_op {transform.consumed})
//! %0 = transform.structured.split %op after 42 {dimension = 0 : i64} : !transform.any_op
//! %1 = transform.structured.split %op after %p {dimension = 1 : i64} : !transform.any_op, !transform.param<i64>
//! ```

use crate::ir::{Module, OpId, OperationState};
use crate::parser::{PResult, Parser};
use crate::printer::Printer;
use crate::registry::{traits, OpDef, Registry};
use crate::types::DYNAMIC;
use crate::{Attribute, Type};

use super::func::{parse_func, print_func, verify_func};

/// Registers the hand-written `transform.*` ops.
pub fn register(r: &mut Registry) {
    // `NamedSequenceOp::parse/print` are `function_interface_impl::parseFunctionOp` /
    // `printFunctionOp`, the syntax of `func.func` (and no default dialect in its body)
    r.register(OpDef {
        parse: Some(parse_func),
        print: Some(print_func),
        verify: Some(verify_named_sequence),
        traits: traits::ISOLATED_FROM_ABOVE,
        inherent: &[
            "sym_name",
            "function_type",
            "sym_visibility",
            "arg_attrs",
            "res_attrs",
        ],
        ..OpDef::new("transform.named_sequence")
    });
    r.register(OpDef {
        parse: Some(parse_split),
        print: Some(print_split),
        inherent: &["dimension", "static_chunk_sizes", "multiway"],
        ..OpDef::new("transform.structured.split")
    });
}

/// `SplitOp::parse`: `%target after (N | %chunk) attr-dict : T [, CT]`; a dynamic chunk size
/// stores `static_chunk_sizes` as the dynamic marker.
fn parse_split(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let target = p.parse_operand()?;
    p.parse_keyword("after")?;
    let chunk = p.parse_optional_operand()?;
    let stat = match chunk {
        Some(_) => DYNAMIC,
        None => p.parse_integer()?,
    };
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let ty = p.parse_colon_type()?;
    st.operands.push(p.resolve_operand(&target, &ty)?);
    if let Some(c) = chunk {
        p.parse_comma()?;
        let ct = p.parse_type()?;
        st.operands.push(p.resolve_operand(&c, &ct)?);
    }
    st.props.set(
        "static_chunk_sizes",
        Attribute::Integer {
            value: i128::from(stat),
            ty: Type::int(64),
        },
    );
    st.result_types.push(ty);
    Ok(())
}

fn print_split(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let ops = m.operands(op);
    let stat = match d.props.get("static_chunk_sizes") {
        Some(Attribute::Integer { value, ty }) if *ty == Type::int(64) => *value,
        _ => return false,
    };
    let dynamic = stat == i128::from(DYNAMIC);
    let res = m.results(op);
    if ops.len() != 1 + usize::from(dynamic)
        || res.len() != 1
        || m.value_type(res[0]) != m.value_type(ops[0])
        || !m.regions(op).is_empty()
    {
        return false;
    }
    let mut all = d.props.clone();
    for n in d.attrs.iter() {
        all.set(n.name.clone(), n.value.clone());
    }
    p.write(" ");
    p.print_operand(ops[0]);
    p.write(" after ");
    if dynamic {
        p.print_operand(ops[1]);
    } else {
        p.write(&stat.to_string());
    }
    p.print_optional_attr_dict(&all, &["static_chunk_sizes"]);
    p.write(" : ");
    p.print_type(&m.value_type(ops[0]).clone());
    if dynamic {
        p.write(", ");
        p.print_type(&m.value_type(ops[1]).clone());
    }
    true
}

/// The function-interface rules (`function_type`, one dialect-attribute dictionary per
/// argument and result, entry block arguments matching the signature). MLIR allows a named
/// sequence without a body whatever its visibility, so that rule of `func.func` is left out.
fn verify_named_sequence(m: &Module, op: OpId) -> Result<(), String> {
    match verify_func(m, op) {
        Err(e) if e == "symbol declaration cannot have public visibility" => Ok(()),
        r => r,
    }
}
