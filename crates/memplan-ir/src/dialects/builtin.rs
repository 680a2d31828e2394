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
        ..OpDef::new("builtin.module")
    });
    r.register(OpDef {
        ..OpDef::new("builtin.unrealized_conversion_cast")
    });
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
