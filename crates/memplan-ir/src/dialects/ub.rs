//! The `ub` dialect (mlir/include/mlir/Dialect/UB/IR/UBOps.td): `ub.poison`, the undefined value
//! that vectorisation uses as the padding of `vector.transfer_read` (what mlir-opt-22 prints after
//! `--affine-super-vectorize`, issue 9).
//!
//! ```text
//! %p = ub.poison : f32                     // value = #ub.poison (the default) in properties
//! %q = ub.poison {tag = 1 : i64} : vector<4xf32>
//! %r = ub.poison <#custom.poison> : i32    // another poison attribute
//! ```
//!
//! Format (`attr-dict (`<` $value^ `>`)? `:` type($result)`): the `<...>` part is printed only
//! when the value is not the default `#ub.poison`.

use crate::attrs::Attribute;
use crate::ir::{Module, OpId, OperationState};
use crate::lexer::Tok;
use crate::parser::{PResult, Parser};
use crate::printer::Printer;
use crate::registry::{OpDef, Registry};

use super::memref::prop;

/// The default `value` property.
const DEFAULT: &str = "#ub.poison";

/// Registers the ub ops.
pub fn register(r: &mut Registry) {
    r.register(OpDef {
        parse: Some(parse_poison),
        print: Some(print_poison),
        verify: Some(verify_poison),
        inherent: &["value"],
        ..OpDef::new("ub.poison")
    });
}

fn is_default(a: &Attribute) -> bool {
    matches!(a, Attribute::Opaque(t) if t == DEFAULT)
}

fn parse_poison(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let value = if p.consume_if(Tok::Less) {
        let a = p.parse_attribute()?;
        p.expect(Tok::Greater, "'>'")?;
        a
    } else {
        Attribute::Opaque(DEFAULT.into())
    };
    st.props.set("value", value);
    st.result_types.push(p.parse_colon_type()?);
    Ok(())
}

fn print_poison(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    if !m.operands(op).is_empty() || m.results(op).len() != 1 || !m.regions(op).is_empty() {
        return false;
    }
    p.print_optional_attr_dict(&d.attrs, &[]);
    if let Some(v) = d.props.get("value").filter(|v| !is_default(v)) {
        p.write(" <");
        p.print_attr(v);
        p.write(">");
    }
    p.write(" : ");
    p.print_type(m.value_type(m.result(op, 0)));
    true
}

fn verify_poison(m: &Module, op: OpId) -> Result<(), String> {
    if !m.operands(op).is_empty() {
        return Err(format!(
            "requires 0 operands, but found {}",
            m.operands(op).len()
        ));
    }
    if m.results(op).len() != 1 {
        return Err(format!(
            "requires one result, but found {}",
            m.results(op).len()
        ));
    }
    // `value` is a DefaultValuedAttr (#ub.poison): MLIR accepts the op without it
    let _ = prop(m, op, "value");
    Ok(())
}
