//! `arith.constant` and the binary-op family (mlir/include/mlir/Dialect/Arith/IR/ArithOps.td):
//! the compact pattern for many ops sharing one assembly format.
//!
//! ```text
//! %c = arith.constant 42 : i32          %t = arith.constant dense<0> : tensor<4xi32>
//! %s = arith.addi %a, %b overflow<nsw> : i32
//! %f = arith.mulf %x, %y fastmath<fast> : f32
//! ```

use crate::ir::{OpId, OperationState};
use crate::lexer::Tok;
use crate::parser::{PResult, Parser};
use crate::printer::Printer;
use crate::registry::{OpDef, Registry};
use crate::Attribute;

/// Integer binary ops that carry `overflow<...>` flags.
pub const INT_OVERFLOW_OPS: &[&str] = &["arith.addi", "arith.subi", "arith.muli", "arith.shli"];
/// Integer binary ops without flags.
pub const INT_OPS: &[&str] = &[
    "arith.divsi",
    "arith.divui",
    "arith.ceildivsi",
    "arith.ceildivui",
    "arith.floordivsi",
    "arith.remsi",
    "arith.remui",
    "arith.andi",
    "arith.ori",
    "arith.xori",
    "arith.shrsi",
    "arith.shrui",
    "arith.maxsi",
    "arith.maxui",
    "arith.minsi",
    "arith.minui",
];
/// Float binary ops that carry `fastmath<...>` flags.
pub const FLOAT_OPS: &[&str] = &[
    "arith.addf",
    "arith.subf",
    "arith.mulf",
    "arith.divf",
    "arith.remf",
    "arith.maximumf",
    "arith.minimumf",
    "arith.maxnumf",
    "arith.minnumf",
];

/// Registers `arith.constant` and the binary ops.
pub fn register(r: &mut Registry) {
    r.register(OpDef {
        parse: Some(parse_constant),
        print: Some(print_constant),
        inherent: &["value"],
        ..OpDef::new("arith.constant")
    });
    for &n in INT_OVERFLOW_OPS {
        r.register(OpDef {
            parse: Some(parse_binary),
            print: Some(print_binary),
            inherent: &["overflowFlags"],
            ..OpDef::new(n)
        });
    }
    for &n in INT_OPS {
        r.register(OpDef {
            parse: Some(parse_binary),
            print: Some(print_binary),
            ..OpDef::new(n)
        });
    }
    for &n in FLOAT_OPS {
        r.register(OpDef {
            parse: Some(parse_binary),
            print: Some(print_binary),
            inherent: &["fastmath"],
            ..OpDef::new(n)
        });
    }
}

fn parse_constant(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let at = p.current_span();
    let v = p.parse_attribute()?;
    let Some(ty) = v.typed() else {
        return Err(crate::Diagnostic::new(
            at,
            "expected a typed attribute for 'arith.constant'",
        ));
    };
    st.result_types.push(ty);
    st.props.set("value", v);
    Ok(())
}

fn print_constant(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let Some(v) = d.props.get("value") else {
        return false;
    };
    if m.results(op).len() != 1
        || !m.operands(op).is_empty()
        || v.typed().as_ref() != Some(m.value_type(m.result(op, 0)))
    {
        return false;
    }
    p.print_optional_attr_dict(&d.attrs, &[]);
    p.write(" ");
    p.print_attr(v);
    true
}

/// The flag keyword and attribute name a binary op uses, if any.
fn flag_kind(name: &str) -> Option<(&'static str, &'static str, &'static str)> {
    if INT_OVERFLOW_OPS.contains(&name) {
        Some(("overflow", "overflowFlags", "#arith.overflow"))
    } else if FLOAT_OPS.contains(&name) {
        Some(("fastmath", "fastmath", "#arith.fastmath"))
    } else {
        None
    }
}

fn parse_binary(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let lhs = p.parse_operand()?;
    p.parse_comma()?;
    let rhs = p.parse_operand()?;
    if let Some((kw, attr, prefix)) = flag_kind(&st.name) {
        if p.parse_optional_keyword(kw) {
            // `overflow<nsw, nuw>`: keep the flags as the dialect attribute text.
            p.parse_less()?;
            let mut flags = Vec::new();
            loop {
                flags.push(p.parse_keyword_any("flag")?.to_string());
                if !p.consume_if(Tok::Comma) {
                    break;
                }
            }
            p.parse_greater()?;
            st.props.set(
                attr,
                Attribute::Opaque(format!("{prefix}<{}>", flags.join(", "))),
            );
        }
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let ty = p.parse_colon_type()?;
    st.operands.push(p.resolve_operand(&lhs, &ty)?);
    st.operands.push(p.resolve_operand(&rhs, &ty)?);
    st.result_types.push(ty);
    Ok(())
}

fn print_binary(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let ops = m.operands(op);
    if ops.len() != 2 || m.results(op).len() != 1 {
        return false;
    }
    let ty = m.value_type(m.result(op, 0));
    if m.value_type(ops[0]) != ty || m.value_type(ops[1]) != ty {
        return false;
    }
    p.write(" ");
    p.print_operands(ops);
    let mut elided: Vec<&str> = Vec::new();
    let mut extra = d.attrs.clone();
    if let Some((kw, attr, prefix)) = flag_kind(&d.name) {
        if let Some(a) = d.props.get(attr) {
            match a {
                Attribute::Opaque(t)
                    if t.starts_with(prefix) && t[prefix.len()..].starts_with('<') =>
                {
                    let body = &t[prefix.len()..];
                    if body != "<none>" {
                        p.print_keyword(kw);
                        p.write(body);
                    }
                    elided.push(attr);
                }
                // Anything unexpected goes to the attribute dictionary (mlir-opt moves it back).
                other => extra.set(attr, other.clone()),
            }
        }
    }
    p.print_optional_attr_dict(&extra, &elided);
    p.write(" : ");
    p.print_type(ty);
    true
}
