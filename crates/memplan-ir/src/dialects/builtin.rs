//! `builtin.module`: `module @name attributes {...} { ... }` (mlir/lib/IR/BuiltinDialect.cpp).

use crate::ir::{OpId, OperationState};
use crate::parser::{PResult, Parser};
use crate::printer::Printer;
use crate::registry::{traits, OpDef, Registry};
use crate::Attribute;

const INHERENT: &[&str] = &["sym_name", "sym_visibility"];

/// Registers the builtin dialect's ops.
pub fn register(r: &mut Registry) {
    r.register(OpDef {
        parse: Some(parse_module),
        print: Some(print_module),
        traits: traits::ISOLATED_FROM_ABOVE
            | traits::NO_TERMINATOR
            | traits::SYMBOL_TABLE
            | traits::GRAPH_REGION
            | traits::SINGLE_BLOCK,
        inherent: INHERENT,
        verify: Some(verify_module),
        ..OpDef::new("builtin.module")
    });
    r.register(OpDef {
        parse: Some(parse_unrealized_cast),
        ..OpDef::new("builtin.unrealized_conversion_cast")
    });
}

/// `%r = builtin.unrealized_conversion_cast %a, %b : T1, T2 to R1, R2 {attrs}` (the operand
/// list and its types may be empty: `builtin.unrealized_conversion_cast to R`).
fn parse_unrealized_cast(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let mut ins = Vec::new();
    while let Some(u) = p.parse_optional_operand()? {
        ins.push(u);
        if !p.parse_optional_comma() {
            break;
        }
    }
    let tys = if ins.is_empty() {
        Vec::new()
    } else {
        p.parse_colon_type_list()?
    };
    if tys.len() != ins.len() {
        return Err(p.error_here("operand and type counts differ"));
    }
    for (u, t) in ins.iter().zip(&tys) {
        st.operands.push(p.resolve_operand(u, t)?);
    }
    p.parse_keyword("to")?;
    st.result_types = p.parse_type_list()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    Ok(())
}

/// MLIR's `ModuleOp::verify`: discardable attributes must carry a dialect prefix.
fn verify_module(m: &crate::ir::Module, op: OpId) -> Result<(), String> {
    for a in m.op(op).attrs.iter() {
        let name: &str = &a.name;
        if !name.contains('.') && !INHERENT.contains(&name) {
            return Err(format!(
                "can only contain attributes with dialect-prefixed names, found: '{name}'"
            ));
        }
    }
    Ok(())
}

fn parse_module(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    if let Some(name) = p.parse_optional_symbol_name()? {
        st.props.set("sym_name", Attribute::string(&name));
    }
    p.parse_optional_attr_dict_with_keyword(&mut st.attrs)?;
    let r = p.parse_region(&[])?;
    let m = p.module_mut();
    if m.region_blocks(r).is_empty() {
        let b = m.create_block();
        m.append_block(r, b);
    }
    st.regions.push(r);
    Ok(())
}

fn print_module(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    if m.regions(op).len() != 1 || !m.operands(op).is_empty() || !m.results(op).is_empty() {
        return false;
    }
    if let Some(name) = d.props.get("sym_name").and_then(|a| a.as_str()) {
        p.write(" ");
        p.print_symbol_name(name);
    }
    let mut all = d.props.clone();
    for n in d.attrs.iter() {
        all.set(n.name.clone(), n.value.clone());
    }
    p.print_optional_attr_dict_with_keyword(&all, &["sym_name"]);
    p.write(" ");
    p.print_region(m.regions(op)[0], false, false);
    true
}
