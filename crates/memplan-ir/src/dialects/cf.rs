//! The `cf` dialect's custom forms and verifiers (mlir/lib/Dialect/ControlFlow/IR/
//! ControlFlowOps.cpp): unstructured branches between blocks. memplan's liveness works on
//! the CFG these terminators define, so successor operands must line up with the
//! successor's block arguments (checked here, as MLIR's `BranchOpInterface` does).
//!
//! ```text
//! cf.br ^bb1(%a : i32)
//! cf.cond_br %c weights([1, 3]), ^bb1, ^bb2(%x : f32)
//! cf.switch %flag : i32, [
//!   default: ^bb1,
//!   42: ^bb2(%a : i32)
//! ]
//! cf.assert %ok, "message"
//! ```

use crate::attrs::Attribute;
use crate::ir::{BlockId, Module, OpId, OperationState, ValueId};
use crate::lexer::Tok;
use crate::parser::{PResult, Parser};
use crate::printer::Printer;
use crate::registry::{traits, OpDef, Registry};
use crate::types::{Type, TypeKind};

use super::memref::{int_array, print_attrs, prop, segments, segments_checked, set_segments};

/// Registers `cf.*`.
pub fn register(r: &mut Registry) {
    r.register(OpDef {
        parse: Some(parse_br),
        print: Some(print_br),
        verify: Some(verify_br),
        traits: traits::TERMINATOR,
        ..OpDef::new("cf.br")
    });
    r.register(OpDef {
        parse: Some(parse_cond_br),
        print: Some(print_cond_br),
        verify: Some(verify_cond_br),
        traits: traits::TERMINATOR,
        inherent: &["branch_weights"],
        ..OpDef::new("cf.cond_br")
    });
    r.register(OpDef {
        parse: Some(parse_switch),
        print: Some(print_switch),
        verify: Some(verify_switch),
        traits: traits::TERMINATOR,
        inherent: &["case_values", "case_operand_segments"],
        ..OpDef::new("cf.switch")
    });
    r.register(OpDef {
        parse: Some(parse_assert),
        print: Some(print_assert),
        verify: Some(verify_assert),
        inherent: &["msg"],
        ..OpDef::new("cf.assert")
    });
}

/// Checks successor operands against the successor's block arguments.
fn check_successor(m: &Module, b: BlockId, vals: &[ValueId], i: usize) -> Result<(), String> {
    let args = m.block_args(b);
    if args.len() != vals.len() {
        return Err(format!(
            "branch has {} operands for successor #{i}, but target block has {}",
            vals.len(),
            args.len()
        ));
    }
    for (k, (&a, &v)) in args.iter().zip(vals).enumerate() {
        if m.value_type(a) != m.value_type(v) {
            return Err(format!(
                "type mismatch for bb argument #{k} of successor #{i}"
            ));
        }
    }
    Ok(())
}

// ===================== cf.br =====================

fn parse_br(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let (b, vals) = p.parse_successor_and_use_list()?;
    st.successors.push(b);
    st.operands = vals;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    Ok(())
}

fn print_br(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let [b] = m.op(op).successors[..] else {
        return false;
    };
    p.write(" ");
    p.print_successor_and_use_list(b, m.operands(op));
    print_attrs(p, op, &[]);
    true
}

fn verify_br(m: &Module, op: OpId) -> Result<(), String> {
    let [b] = m.op(op).successors[..] else {
        return Err("requires one successor".into());
    };
    check_successor(m, b, m.operands(op), 0)
}

// ===================== cf.cond_br =====================

fn parse_cond_br(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let c = p.parse_operand()?;
    if p.parse_optional_keyword("weights") {
        p.parse_lparen()?;
        let mut w = Vec::new();
        p.parse_comma_separated_list(crate::Delimiter::Square, &mut |p| {
            w.push(p.parse_integer()?);
            Ok(())
        })?;
        p.parse_rparen()?;
        st.props.set("branch_weights", Attribute::i32_array(&w));
    }
    p.parse_comma()?;
    let (t, tv) = p.parse_successor_and_use_list()?;
    p.parse_comma()?;
    let (f, fv) = p.parse_successor_and_use_list()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    st.operands.push(p.resolve_operand(&c, &Type::int(1))?);
    set_segments(st, &[1, tv.len(), fv.len()]);
    st.operands.extend(tv);
    st.operands.extend(fv);
    st.successors = vec![t, f];
    Ok(())
}

fn print_cond_br(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(seg) = segments(m, op, 3) else {
        return false;
    };
    let [t, f] = m.op(op).successors[..] else {
        return false;
    };
    if seg[0].len() != 1 {
        return false;
    }
    p.write(" ");
    p.print_operand(seg[0][0]);
    let mut elided = vec!["operandSegmentSizes"];
    if let Some(w) = int_array(m, op, "branch_weights") {
        p.write(" weights([");
        p.write(
            &w.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        );
        p.write("])");
        elided.push("branch_weights");
    }
    p.write(", ");
    p.print_successor_and_use_list(t, seg[1]);
    p.write(", ");
    p.print_successor_and_use_list(f, seg[2]);
    print_attrs(p, op, &elided);
    true
}

fn check_weights(m: &Module, op: OpId, n: usize) -> Result<(), String> {
    if let Some(w) = int_array(m, op, "branch_weights") {
        if w.len() != n {
            return Err(format!(
                "expects number of branch weights to match number of successors: {} vs {n}",
                w.len()
            ));
        }
        if w.iter().all(|&x| x == 0) {
            return Err("branch weights cannot all be zero".into());
        }
    }
    Ok(())
}

fn verify_cond_br(m: &Module, op: OpId) -> Result<(), String> {
    let seg = segments_checked(m, op, 3)?;
    let [t, f] = m.op(op).successors[..] else {
        return Err("requires two successors".into());
    };
    match seg[0][..] {
        [c] if *m.value_type(c) == Type::int(1) => {}
        [c] => {
            return Err(format!(
                "operand #0 must be 1-bit signless integer, but got '{}'",
                m.value_type(c)
            ))
        }
        _ => return Err("requires one condition operand".into()),
    }
    check_weights(m, op, 2)?;
    check_successor(m, t, seg[1], 0)?;
    check_successor(m, f, seg[2], 1)
}

// ===================== cf.switch =====================

/// Integers of a `dense<...>` integer attribute (list or splat).
pub(crate) fn dense_int_values(a: &Attribute) -> Option<Vec<i64>> {
    let Attribute::Elements { kind, body, ty } = a else {
        return None;
    };
    if kind != "dense" {
        return None;
    }
    let n = ty.shape()?.iter().product::<i64>();
    let t = body.trim();
    let inner = t.strip_prefix('[').and_then(|x| x.strip_suffix(']'));
    let parse = |s: &str| -> Option<i64> {
        let s = s.trim();
        match s {
            "true" => Some(1),
            "false" => Some(0),
            _ => s.parse().ok(),
        }
    };
    if t.is_empty() {
        return Some(Vec::new());
    }
    match inner {
        Some(list) if list.trim().is_empty() => Some(Vec::new()),
        Some(list) => list.split(',').map(parse).collect(),
        None => Some(vec![parse(t)?; usize::try_from(n).ok()?]),
    }
}

fn parse_switch(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let flag = p.parse_operand()?;
    let ft = p.parse_colon_type()?;
    p.parse_comma()?;
    p.parse_lsquare()?;
    p.parse_keyword("default")
        .map_err(|e| crate::Diagnostic::new(e.span, "custom op 'cf.switch' expected 'default'"))?;
    p.parse_colon()?;
    let (d, dv) = p.parse_successor_and_use_list()?;
    let mut values = Vec::new();
    let mut succs = vec![d];
    let mut seg_sizes = Vec::new();
    let mut case_ops = Vec::new();
    while p.consume_if(Tok::Comma) {
        let v = p
            .parse_optional_integer()?
            .ok_or_else(|| p.error_here("custom op 'cf.switch' expected integer value"))?;
        values.push(v);
        p.parse_colon()?;
        let (b, vs) = p.parse_successor_and_use_list()?;
        succs.push(b);
        seg_sizes.push(vs.len() as i64);
        case_ops.extend(vs);
    }
    p.parse_rsquare()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    st.operands.push(p.resolve_operand(&flag, &ft)?);
    set_segments(st, &[1, dv.len(), case_ops.len()]);
    st.operands.extend(dv);
    st.operands.extend(case_ops);
    st.successors = succs;
    if !values.is_empty() {
        let body = format!(
            "[{}]",
            values
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let ty = Type::new(TypeKind::Vector {
            shape: vec![values.len() as i64],
            scalable: vec![false],
            elem: ft,
        });
        st.props.set(
            "case_values",
            Attribute::Elements {
                kind: "dense".into(),
                body,
                ty,
            },
        );
    }
    st.props
        .set("case_operand_segments", Attribute::i32_array(&seg_sizes));
    Ok(())
}

fn print_switch(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(seg) = segments(m, op, 3) else {
        return false;
    };
    let succs = m.op(op).successors.clone();
    if seg[0].len() != 1 || succs.is_empty() {
        return false;
    }
    let values = match prop(m, op, "case_values") {
        Some(a) => match dense_int_values(a) {
            Some(v) => v,
            None => return false,
        },
        None => Vec::new(),
    };
    let case_seg = int_array(m, op, "case_operand_segments").unwrap_or_default();
    if values.len() != succs.len() - 1
        || case_seg.len() != values.len()
        || case_seg.iter().sum::<i64>() != seg[2].len() as i64
        || case_seg.iter().any(|&s| s < 0)
    {
        return false;
    }
    p.write(" ");
    p.print_operand(seg[0][0]);
    p.write(" : ");
    p.print_type(m.value_type(seg[0][0]));
    p.write(", [");
    p.print_newline();
    p.write("  default: ");
    p.print_successor_and_use_list(succs[0], seg[1]);
    let mut at = 0usize;
    for (i, v) in values.iter().enumerate() {
        p.write(",");
        p.print_newline();
        p.write(&format!("  {v}: "));
        let n = case_seg[i] as usize;
        p.print_successor_and_use_list(succs[i + 1], &seg[2][at..at + n]);
        at += n;
    }
    p.print_newline();
    p.write("]");
    print_attrs(
        p,
        op,
        &[
            "operandSegmentSizes",
            "case_values",
            "case_operand_segments",
        ],
    );
    true
}

fn verify_switch(m: &Module, op: OpId) -> Result<(), String> {
    let seg = segments_checked(m, op, 3)?;
    let succs = &m.op(op).successors;
    if succs.is_empty() {
        return Err("requires a default successor".into());
    }
    let values = match prop(m, op, "case_values") {
        Some(a) => dense_int_values(a).ok_or("'case_values' must be a dense integer vector")?,
        None => Vec::new(),
    };
    if values.len() != succs.len() - 1 {
        return Err(format!(
            "number of case values ({}) should match number of case destinations ({})",
            values.len(),
            succs.len() - 1
        ));
    }
    let case_seg = int_array(m, op, "case_operand_segments").unwrap_or_default();
    if case_seg.len() != values.len() || case_seg.iter().sum::<i64>() != seg[2].len() as i64 {
        return Err("case_operand_segments does not match the case operands".into());
    }
    check_successor(m, succs[0], seg[1], 0)?;
    let mut at = 0usize;
    for (i, &n) in case_seg.iter().enumerate() {
        let n = usize::try_from(n).map_err(|_| "negative case operand segment")?;
        check_successor(m, succs[i + 1], &seg[2][at..at + n], i + 1)?;
        at += n;
    }
    Ok(())
}

// ===================== cf.assert =====================

fn parse_assert(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let c = p.parse_operand()?;
    p.parse_comma()?;
    let msg = p.parse_string()?;
    st.props.set("msg", Attribute::string(&msg));
    p.parse_optional_attr_dict(&mut st.attrs)?;
    st.operands.push(p.resolve_operand(&c, &Type::int(1))?);
    Ok(())
}

fn print_assert(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let [c] = m.operands(op) else { return false };
    let Some(msg) = prop(m, op, "msg").filter(|a| a.as_str().is_some()) else {
        return false;
    };
    p.write(" ");
    p.print_operand(*c);
    p.write(", ");
    p.print_attr(&msg.clone());
    print_attrs(p, op, &["msg"]);
    true
}

fn verify_assert(m: &Module, op: OpId) -> Result<(), String> {
    match m.operands(op) {
        [c] if *m.value_type(*c) == Type::int(1) => Ok(()),
        [c] => Err(format!(
            "operand #0 must be 1-bit signless integer, but got '{}'",
            m.value_type(*c)
        )),
        _ => Err("requires one operand".into()),
    }
}
