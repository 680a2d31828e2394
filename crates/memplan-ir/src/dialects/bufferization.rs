//! The `bufferization` dialect's custom forms and verifiers (mlir/lib/Dialect/
//! Bufferization/IR/BufferizationOps.cpp): the bridge between tensors and buffers, and the
//! ownership-based `bufferization.dealloc` that memplan's deallocation pipeline example
//! produces (seed: dealloc_pipeline example). The `dealloc` op's three operand groups
//! (memrefs, conditions, retained) are kept in `operandSegmentSizes`, one `i1` result per
//! retained value.
//!
//! ```text
//! %t = bufferization.to_tensor %m restrict writable : memref<4xf32> to tensor<4xf32>
//! %m = bufferization.to_buffer %t read_only : tensor<4xf32> to memref<4xf32>
//! %c = bufferization.alloc_tensor(%n) copy(%t) : tensor<?xf32>
//! %r:2 = bufferization.dealloc (%a, %b : memref<2xf32>, memref<4xf32>) if (%c0, %c1) retain (%x, %y : memref<2xf32>, memref<2xf32>)
//! bufferization.materialize_in_destination %t in restrict writable %m : (tensor<4xf32>, memref<4xf32>) -> ()
//! ```

use crate::attrs::Attribute;
use crate::ir::{Module, OpId, OperationState};
use crate::lexer::Tok;
use crate::parser::{PResult, Parser};
use crate::printer::Printer;
use crate::registry::{OpDef, Registry};
use crate::types::{Type, TypeKind, DYNAMIC};

use super::memref::{
    count_dynamic, flag, is_memref, parse_value_colon_type, print_attrs, print_cast_to,
    print_value_colon_type, resolve_indices, segments, segments_checked, set_segments, types_of,
};

/// Registers `bufferization.*`.
pub fn register(r: &mut Registry) {
    r.register(OpDef {
        parse: Some(parse_to_tensor),
        print: Some(print_to_tensor),
        verify: Some(verify_to_tensor),
        inherent: &["restrict", "writable"],
        ..OpDef::new("bufferization.to_tensor")
    });
    r.register(OpDef {
        parse: Some(parse_to_buffer),
        print: Some(print_to_buffer),
        verify: Some(verify_to_buffer),
        inherent: &["read_only"],
        ..OpDef::new("bufferization.to_buffer")
    });
    r.register(OpDef {
        parse: Some(parse_clone),
        print: Some(print_cast_to),
        verify: Some(verify_clone),
        ..OpDef::new("bufferization.clone")
    });
    r.register(OpDef {
        parse: Some(parse_alloc_tensor),
        print: Some(print_alloc_tensor),
        verify: Some(verify_alloc_tensor),
        inherent: &["memory_space"],
        ..OpDef::new("bufferization.alloc_tensor")
    });
    r.register(OpDef {
        parse: Some(parse_dealloc),
        print: Some(print_dealloc),
        verify: Some(verify_dealloc),
        ..OpDef::new("bufferization.dealloc")
    });
    r.register(OpDef {
        parse: Some(parse_value_colon_type),
        print: Some(print_dealloc_tensor),
        verify: Some(verify_dealloc_tensor),
        ..OpDef::new("bufferization.dealloc_tensor")
    });
    r.register(OpDef {
        parse: Some(parse_materialize),
        print: Some(print_materialize),
        verify: Some(verify_materialize),
        inherent: &["restrict", "writable"],
        ..OpDef::new("bufferization.materialize_in_destination")
    });
}

fn is_tensor(t: &Type) -> bool {
    matches!(
        t.kind(),
        TypeKind::RankedTensor { .. } | TypeKind::UnrankedTensor { .. }
    )
}

/// Parses `%x (kw)* attr-dict : T to U` where each keyword is a unit property.
fn parse_convert(p: &mut Parser<'_>, st: &mut OperationState, kws: &[&'static str]) -> PResult<()> {
    let v = p.parse_operand()?;
    for kw in kws {
        if p.parse_optional_keyword(kw) {
            st.props.set(*kw, Attribute::Unit);
        }
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    p.parse_keyword("to")?;
    let r = p.parse_type()?;
    st.operands.push(p.resolve_operand(&v, &t)?);
    st.result_types.push(r);
    Ok(())
}

fn print_convert(p: &mut Printer<'_>, op: OpId, kws: &[&str]) -> bool {
    let m = p.module();
    let ([v], [r]) = (m.operands(op), m.results(op)) else {
        return false;
    };
    p.write(" ");
    p.print_operand(*v);
    for kw in kws {
        if flag(m, op, kw) {
            p.write(" ");
            p.write(kw);
        }
    }
    print_attrs(p, op, kws);
    p.write(" : ");
    p.print_type(m.value_type(*v));
    p.write(" to ");
    p.print_type(m.value_type(*r));
    true
}

fn parse_to_tensor(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    parse_convert(p, st, &["restrict", "writable"])
}

fn print_to_tensor(p: &mut Printer<'_>, op: OpId) -> bool {
    print_convert(p, op, &["restrict", "writable"])
}

/// Shape and element type of a tensor/memref agree with the other side.
fn same_shape_elem(a: &Type, b: &Type) -> bool {
    a.shape() == b.shape() && a.element_type() == b.element_type()
}

fn verify_to_tensor(m: &Module, op: OpId) -> Result<(), String> {
    let ([v], [r]) = (m.operands(op), m.results(op)) else {
        return Err("expects one operand and one result".into());
    };
    let (b, t) = (m.value_type(*v), m.value_type(*r));
    if !is_memref(b) || !is_tensor(t) {
        return Err(format!(
            "expects a memref operand and a tensor result, got '{b}' and '{t}'"
        ));
    }
    if !same_shape_elem(b, t) {
        return Err(format!(
            "tensor type '{t}' does not match the buffer type '{b}'"
        ));
    }
    Ok(())
}

fn parse_to_buffer(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    parse_convert(p, st, &["read_only"])
}

fn print_to_buffer(p: &mut Printer<'_>, op: OpId) -> bool {
    print_convert(p, op, &["read_only"])
}

fn verify_to_buffer(m: &Module, op: OpId) -> Result<(), String> {
    let ([v], [r]) = (m.operands(op), m.results(op)) else {
        return Err("expects one operand and one result".into());
    };
    let (t, b) = (m.value_type(*v), m.value_type(*r));
    if !is_tensor(t) || !is_memref(b) {
        return Err(format!(
            "expects a tensor operand and a memref result, got '{t}' and '{b}'"
        ));
    }
    if !same_shape_elem(t, b) {
        return Err(format!(
            "buffer type '{b}' does not match the tensor type '{t}'"
        ));
    }
    Ok(())
}

fn parse_clone(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    parse_convert(p, st, &[])
}

fn verify_clone(m: &Module, op: OpId) -> Result<(), String> {
    let ([v], [r]) = (m.operands(op), m.results(op)) else {
        return Err("expects one operand and one result".into());
    };
    if !is_memref(m.value_type(*v)) || !is_memref(m.value_type(*r)) {
        return Err("operand and result must be memrefs".into());
    }
    Ok(())
}

// ===================== alloc_tensor =====================

fn parse_alloc_tensor(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let dyns = p.parse_operand_list_delimited(crate::Delimiter::Paren)?;
    let mut copy = Vec::new();
    if p.parse_optional_keyword("copy") {
        p.parse_lparen()?;
        copy.push(p.parse_operand()?);
        p.parse_rparen()?;
    }
    let mut hint = Vec::new();
    if p.parse_optional_keyword("size_hint") {
        p.parse_equal()?;
        hint.push(p.parse_operand()?);
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    st.operands = resolve_indices(p, &dyns)?;
    for c in &copy {
        st.operands.push(p.resolve_operand(c, &t)?);
    }
    st.operands.extend(resolve_indices(p, &hint)?);
    set_segments(st, &[dyns.len(), copy.len(), hint.len()]);
    st.result_types.push(t);
    Ok(())
}

fn print_alloc_tensor(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(seg) = segments(m, op, 3) else {
        return false;
    };
    if m.results(op).len() != 1 || seg[1].len() > 1 || seg[2].len() > 1 {
        return false;
    }
    p.write("(");
    p.print_operands(seg[0]);
    p.write(")");
    if let Some(&c) = seg[1].first() {
        p.write(" copy(");
        p.print_operand(c);
        p.write(")");
    }
    if let Some(&h) = seg[2].first() {
        p.write(" size_hint = ");
        p.print_operand(h);
    }
    print_attrs(p, op, &["operandSegmentSizes"]);
    p.write(" : ");
    p.print_type(m.value_type(m.result(op, 0)));
    true
}

/// Checks the `bufferization.escape` discardable attribute: a bool array with one entry per
/// result, and only on ops that bufferize (`bufferizable`).
pub(crate) fn check_escape_attr(m: &Module, op: OpId, bufferizable: bool) -> Result<(), String> {
    let Some(a) = m.op(op).attrs.get("bufferization.escape") else {
        return Ok(());
    };
    if !bufferizable {
        return Err("'bufferization.escape' only valid on bufferizable ops".into());
    }
    let Attribute::Array(items) = a else {
        return Err("'bufferization.escape' is expected to be a bool array attribute".into());
    };
    if items.iter().any(|x| !matches!(x, Attribute::Bool(_))) {
        return Err("'bufferization.escape' is expected to be a bool array attribute".into());
    }
    let n = m.results(op).len();
    if items.len() != n {
        return Err(format!(
            "'bufferization.escape' has wrong number of elements, expected {n}, got {}",
            items.len()
        ));
    }
    Ok(())
}

fn is_sparse(t: &Type) -> bool {
    matches!(t.kind(), TypeKind::RankedTensor { encoding: Some(Attribute::Opaque(e)), .. } if e.starts_with("#sparse_tensor.encoding"))
}

fn verify_alloc_tensor(m: &Module, op: OpId) -> Result<(), String> {
    check_escape_attr(m, op, true)?;
    let seg = segments_checked(m, op, 3)?;
    if let Some(&r) = m.results(op).first() {
        if is_sparse(m.value_type(r)) {
            let escapes = m
                .uses(r)
                .iter()
                .any(|u| matches!(m.op(u.op).name.as_str(), "func.return" | "func.call"));
            if escapes {
                return Err("sparse tensor allocation should not escape function".into());
            }
        }
    }
    let [r] = m.results(op) else {
        return Err("expects one result".into());
    };
    let t = m.value_type(*r);
    let Some(shape) = t.shape().filter(|_| is_tensor(t)) else {
        return Err(format!("result must be a ranked tensor, got '{t}'"));
    };
    if let Some(&c) = seg[1].first() {
        if !seg[0].is_empty() {
            return Err("dynamic sizes not needed when copying a tensor".into());
        }
        if m.value_type(c) != t {
            return Err("expected that `copy` and return type match".into());
        }
    }
    let ndyn = count_dynamic(shape);
    if seg[1].is_empty() && seg[0].len() != ndyn {
        return Err(format!(
            "incorrect number of dynamic sizes, has {}, expected {ndyn}",
            seg[0].len()
        ));
    }
    if shape.contains(&DYNAMIC) && ndyn == 0 {
        return Err("inconsistent shape".into());
    }
    Ok(())
}

// ===================== dealloc / dealloc_tensor =====================

fn parse_dealloc(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let mut memrefs = Vec::new();
    let mut conds = Vec::new();
    if p.consume_if(Tok::LParen) {
        let at = p.current_span();
        let ops = p.parse_operand_list()?;
        p.parse_colon()?;
        let tys = p.parse_type_list()?;
        p.parse_rparen()?;
        memrefs = p.resolve_operands(&ops, &tys, at)?;
        p.parse_keyword("if")?;
        let cs = p.parse_operand_list_delimited(crate::Delimiter::Paren)?;
        conds = p.resolve_operands_same(&cs, &Type::int(1))?;
    }
    let mut retained = Vec::new();
    if p.parse_optional_keyword("retain") {
        p.parse_lparen()?;
        let at = p.current_span();
        let ops = p.parse_operand_list()?;
        p.parse_colon()?;
        let tys = p.parse_type_list()?;
        p.parse_rparen()?;
        retained = p.resolve_operands(&ops, &tys, at)?;
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    set_segments(st, &[memrefs.len(), conds.len(), retained.len()]);
    st.result_types = vec![Type::int(1); retained.len()];
    st.operands = memrefs;
    st.operands.extend(conds);
    st.operands.extend(retained);
    Ok(())
}

fn print_dealloc(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(seg) = segments(m, op, 3) else {
        return false;
    };
    if seg[0].is_empty() != seg[1].is_empty() || m.results(op).len() != seg[2].len() {
        return false;
    }
    if !seg[0].is_empty() {
        p.write(" (");
        p.print_operands(seg[0]);
        p.write(" : ");
        p.print_value_types(seg[0]);
        p.write(") if (");
        p.print_operands(seg[1]);
        p.write(")");
    }
    if !seg[2].is_empty() {
        p.write(" retain (");
        p.print_operands(seg[2]);
        p.write(" : ");
        p.print_value_types(seg[2]);
        p.write(")");
    }
    print_attrs(p, op, &["operandSegmentSizes"]);
    true
}

fn verify_dealloc(m: &Module, op: OpId) -> Result<(), String> {
    let seg = segments_checked(m, op, 3)?;
    if seg[0].len() != seg[1].len() {
        return Err(format!(
            "must have the same number of conditions as memrefs to deallocate ({} vs {})",
            seg[1].len(),
            seg[0].len()
        ));
    }
    if m.results(op).len() != seg[2].len() {
        return Err(format!(
            "must have the same number of updated conditions (results) as retained operands ({} vs {})",
            m.results(op).len(),
            seg[2].len()
        ));
    }
    for &v in seg[0].iter().chain(seg[2]) {
        if !is_memref(m.value_type(v)) {
            return Err(format!(
                "expects memref operands, got '{}'",
                m.value_type(v)
            ));
        }
    }
    if types_of(m, seg[1]).iter().any(|t| *t != Type::int(1))
        || types_of(m, m.results(op))
            .iter()
            .any(|t| *t != Type::int(1))
    {
        return Err("conditions and results must be i1".into());
    }
    Ok(())
}

fn print_dealloc_tensor(p: &mut Printer<'_>, op: OpId) -> bool {
    p.module().results(op).is_empty() && print_value_colon_type(p, op)
}

fn verify_dealloc_tensor(m: &Module, op: OpId) -> Result<(), String> {
    match m.operands(op) {
        [v] if is_tensor(m.value_type(*v)) => Ok(()),
        _ => Err("expects one tensor operand".into()),
    }
}

// ===================== materialize_in_destination =====================

fn parse_materialize(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let src = p.parse_operand()?;
    p.parse_keyword("in")?;
    for kw in ["restrict", "writable"] {
        if p.parse_optional_keyword(kw) {
            st.props.set(kw, Attribute::Unit);
        }
    }
    let dst = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.parse_colon()?;
    let at = p.current_span();
    let (ins, outs) = p.parse_function_type()?;
    st.operands = p.resolve_operands(&[src, dst], &ins, at)?;
    st.result_types = outs;
    Ok(())
}

fn print_materialize(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let [s, d] = m.operands(op) else { return false };
    p.write(" ");
    p.print_operand(*s);
    p.write(" in");
    for kw in ["restrict", "writable"] {
        if flag(m, op, kw) {
            p.write(" ");
            p.write(kw);
        }
    }
    p.write(" ");
    p.print_operand(*d);
    print_attrs(p, op, &["restrict", "writable"]);
    p.write(" : ");
    crate::dialects::func::print_functional_type(p, op);
    true
}

fn verify_materialize(m: &Module, op: OpId) -> Result<(), String> {
    let [s, d] = m.operands(op) else {
        return Err("expects a source and a destination".into());
    };
    let dt = m.value_type(*d);
    if is_tensor(dt) {
        if m.results(op).len() != 1 || m.value_type(m.result(op, 0)) != dt {
            return Err(
                "'result' must be present and have the same type as 'dest' when 'dest' is a tensor"
                    .into(),
            );
        }
    } else if !m.results(op).is_empty() {
        return Err("'result' must not be present when 'dest' is a buffer".into());
    }
    if !is_tensor(m.value_type(*s)) {
        return Err("'source' must be a tensor".into());
    }
    Ok(())
}
