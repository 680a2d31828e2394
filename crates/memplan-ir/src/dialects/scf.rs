//! The `scf` dialect's custom forms and verifiers (mlir/lib/Dialect/SCF/IR/SCF.cpp).
//! Structured control flow is what memplan's lifetime analysis walks (a buffer used in a
//! loop body lives for the whole loop; an `scf.if` joins its arms), so the region
//! structure, block arguments and implicit terminators must match MLIR exactly: the
//! parsers insert the implicit `scf.yield` the way `ensureTerminator` does, and the
//! printers leave it out only when it carries nothing.
//!
//! ```text
//! %r = scf.for %i = %lb to %ub step %s iter_args(%acc = %init) -> (f32) { ... scf.yield %x : f32 }
//! %v = scf.if %c -> (i32) { scf.yield %a : i32 } else { scf.yield %b : i32 }
//! %w = scf.while (%a = %x) : (i32) -> i32 { scf.condition(%c) %a : i32 } do { ^bb0(%b: i32): scf.yield %b : i32 }
//! scf.parallel (%i) = (%lb) to (%ub) step (%s) { ... scf.reduce }
//! %y = scf.index_switch %k -> i32 case 2 { ... } default { ... }
//! ```

use crate::attrs::Attribute;
use crate::ir::{Module, OpId, OperationState, RegionId, ValueId};
use crate::lexer::Tok;
use crate::parser::{Argument, Delimiter, PResult, Parser, UnresolvedOperand};
use crate::printer::Printer;
use crate::registry::{traits, OpDef, Registry};
use crate::types::Type;

use super::memref::{
    ensure_terminator, flag, int_array, parse_values_colon_types, print_attrs, print_attrs_kw,
    print_values_colon_types, prop, segments, segments_checked, set_segments, single_block,
    terminators_elidable, types_of,
};

/// Ops an `scf.yield` may terminate.
const YIELD_PARENTS: &[&str] = &[
    "scf.execute_region",
    "scf.for",
    "scf.if",
    "scf.index_switch",
    "scf.while",
];

/// Registers `scf.*`.
pub fn register(r: &mut Registry) {
    let def = |name: &'static str,
               parse: crate::registry::ParseFn,
               print: crate::registry::PrintFn,
               verify: crate::registry::VerifyFn,
               traits: u32| OpDef {
        parse: Some(parse),
        print: Some(print),
        verify: Some(verify),
        traits,
        ..OpDef::new(name)
    };
    r.register(OpDef {
        inherent: &["unsignedCmp"],
        ..def(
            "scf.for",
            parse_for,
            print_for,
            verify_for,
            traits::SINGLE_BLOCK,
        )
    });
    r.register(def(
        "scf.if",
        parse_if,
        print_if,
        verify_if,
        traits::SINGLE_BLOCK,
    ));
    r.register(def("scf.while", parse_while, print_while, verify_while, 0));
    r.register(OpDef {
        inherent: &["no_inline"],
        ..def(
            "scf.execute_region",
            parse_execute_region,
            print_execute_region,
            verify_execute_region,
            0,
        )
    });
    r.register(OpDef {
        inherent: &["cases"],
        ..def(
            "scf.index_switch",
            parse_index_switch,
            print_index_switch,
            verify_index_switch,
            traits::SINGLE_BLOCK,
        )
    });
    r.register(def(
        "scf.parallel",
        parse_parallel,
        print_parallel,
        verify_parallel,
        traits::SINGLE_BLOCK,
    ));
    r.register(def(
        "scf.reduce",
        parse_reduce,
        print_reduce,
        verify_reduce,
        traits::TERMINATOR,
    ));
    r.register(def(
        "scf.reduce.return",
        parse_reduce_return,
        print_reduce_return,
        verify_reduce_return,
        traits::TERMINATOR,
    ));
    r.register(def(
        "scf.yield",
        parse_values_colon_types,
        print_values_colon_types,
        verify_yield,
        traits::TERMINATOR,
    ));
    r.register(def(
        "scf.condition",
        parse_condition,
        print_condition,
        verify_condition,
        traits::TERMINATOR,
    ));
}

/// `(%a = %x, %b = %y)`: region argument names and their initial values.
pub(crate) fn parse_assignment_list(
    p: &mut Parser<'_>,
) -> PResult<(Vec<UnresolvedOperand>, Vec<UnresolvedOperand>)> {
    let mut args = Vec::new();
    let mut vals = Vec::new();
    p.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
        args.push(parse_arg_name(p)?);
        p.parse_equal()?;
        vals.push(p.parse_operand()?);
        Ok(())
    })?;
    Ok((args, vals))
}

/// A region argument name `%x` (a result number `%x#0` is rejected, as MLIR does).
pub(crate) fn parse_arg_name(p: &mut Parser<'_>) -> PResult<UnresolvedOperand> {
    let next = p.peek2();
    if p.at(Tok::PercentId) && next.kind == Tok::HashId && next.span.start == p.current_span().end {
        return Err(p.error_here("result number not allowed in argument list"));
    }
    p.parse_operand()
}

/// Region arguments from names and types.
pub(crate) fn make_args(names: &[UnresolvedOperand], tys: &[Type]) -> Vec<Argument> {
    names
        .iter()
        .zip(tys)
        .map(|(n, t)| Argument {
            name: n.clone(),
            ty: t.clone(),
            attrs: None,
            loc: None,
        })
        .collect()
}

/// Prints `(%a = %x, %b = %y)` after `prefix` (nothing when empty).
pub(crate) fn print_assignment_list(
    p: &mut Printer<'_>,
    prefix: &str,
    args: &[ValueId],
    vals: &[ValueId],
) {
    if vals.is_empty() {
        return;
    }
    p.write(prefix);
    p.write("(");
    for (i, (&a, &v)) in args.iter().zip(vals).enumerate() {
        if i > 0 {
            p.write(", ");
        }
        p.print_operand(a);
        p.write(" = ");
        p.print_operand(v);
    }
    p.write(")");
}

/// True if every block argument of `b` carries no location we would lose.
fn args_plain(m: &Module, b: crate::BlockId) -> bool {
    m.block_args(b).iter().all(|&a| m.value(a).loc.is_none())
}

// ===================== scf.for =====================

fn parse_for(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let unsigned = p.parse_optional_keyword("unsigned");
    let iv = parse_arg_name(p)?;
    p.parse_equal()?;
    let lb = p.parse_operand()?;
    p.parse_keyword("to")?;
    let ub = p.parse_operand()?;
    p.parse_keyword("step")?;
    let step = p.parse_operand()?;
    let mut names = vec![iv];
    let mut inits = Vec::new();
    let at = p.current_span();
    if p.parse_optional_keyword("iter_args") {
        let (a, v) = parse_assignment_list(p)?;
        names.extend(a);
        inits = v;
        p.parse_arrow()?;
        st.result_types = p.parse_function_result_types()?;
    }
    if names.len() != st.result_types.len() + 1 {
        return Err(crate::Diagnostic::new(
            at,
            "custom op 'scf.for' mismatch in number of loop-carried values and defined values",
        ));
    }
    let ty = if p.consume_if(Tok::Colon) {
        p.parse_type()?
    } else {
        Type::index()
    };
    let mut tys = vec![ty.clone()];
    tys.extend(st.result_types.iter().cloned());
    let args = make_args(&names, &tys);
    let r = p.parse_region(&args)?;
    ensure_terminator(p, r, "scf.yield");
    st.regions.push(r);
    st.operands.push(p.resolve_operand(&lb, &ty)?);
    st.operands.push(p.resolve_operand(&ub, &ty)?);
    st.operands.push(p.resolve_operand(&step, &ty)?);
    let rt = st.result_types.clone();
    st.operands.extend(p.resolve_operands(&inits, &rt, at)?);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    if unsigned {
        st.props.set("unsignedCmp", Attribute::Unit);
    }
    Ok(())
}

fn print_for(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    let [r] = m.regions(op) else { return false };
    let Some(b) = single_block(m, *r) else {
        return false;
    };
    let args = m.block_args(b);
    if ops.len() < 3 || args.len() != ops.len() - 2 || !args_plain(m, b) {
        return false;
    }
    let inits = &ops[3..];
    let ty = m.value_type(ops[0]);
    if m.value_type(ops[1]) != ty || m.value_type(ops[2]) != ty || m.value_type(args[0]) != ty {
        return false;
    }
    let it = types_of(m, inits);
    if types_of(m, &args[1..]) != it || types_of(m, m.results(op)) != it {
        return false;
    }
    if flag(m, op, "unsignedCmp") {
        p.write(" unsigned");
    }
    p.write(" ");
    p.print_operand(args[0]);
    p.write(" = ");
    p.print_operand(ops[0]);
    p.write(" to ");
    p.print_operand(ops[1]);
    p.write(" step ");
    p.print_operand(ops[2]);
    print_assignment_list(p, " iter_args", &args[1..], inits);
    if !inits.is_empty() {
        p.write(" -> (");
        p.print_types(&it);
        p.write(")");
    }
    if !ty.is_index() {
        p.write(" : ");
        p.print_type(ty);
    }
    p.write(" ");
    let elide = inits.is_empty() && terminators_elidable(m, *r, "scf.yield");
    p.print_region(*r, false, !elide);
    print_attrs(p, op, &["unsignedCmp"]);
    true
}

fn int_or_index(t: &Type) -> bool {
    t.is_index()
        || matches!(
            t.kind(),
            crate::TypeKind::Integer {
                signedness: crate::Signedness::Signless,
                ..
            }
        )
}

/// Checks that region `i` of `op` has 0 or 1 blocks.
fn check_single_block(m: &Module, op: OpId, i: usize) -> Result<(), String> {
    if m.region_blocks(m.regions(op)[i]).len() > 1 {
        return Err(format!("expects region #{i} to have 0 or 1 blocks"));
    }
    Ok(())
}

/// The terminator of a region's single block, if any.
fn terminator(m: &Module, r: RegionId) -> Option<OpId> {
    m.region_blocks(r).first().and_then(|&b| m.last_op(b))
}

fn verify_for(m: &Module, op: OpId) -> Result<(), String> {
    let ops = m.operands(op);
    if ops.len() < 3 {
        return Err("expects lower bound, upper bound and step operands".into());
    }
    for (i, &v) in ops[..3].iter().enumerate() {
        let t = m.value_type(v);
        if !int_or_index(t) {
            return Err(format!(
                "operand #{i} must be signless integer or index, but got '{t}'"
            ));
        }
    }
    if m.regions(op).len() != 1 {
        return Err("requires one region".into());
    }
    check_single_block(m, op, 0)?;
    let ty = m.value_type(ops[0]);
    if m.value_type(ops[1]) != ty || m.value_type(ops[2]) != ty {
        return Err(
            "failed to verify that all of {lowerBound, upperBound, step} have same type".into(),
        );
    }
    let inits = &ops[3..];
    let res = m.results(op);
    if res.len() != inits.len() {
        return Err("mismatch in number of loop-carried values and defined values".into());
    }
    for (i, (&a, &b)) in inits.iter().zip(res).enumerate() {
        if m.value_type(a) != m.value_type(b) {
            return Err(format!(
                "types mismatch between {i}th iter operand and defined value"
            ));
        }
    }
    let r = m.regions(op)[0];
    let Some(&b) = m.region_blocks(r).first() else {
        return Ok(());
    };
    let args = m.block_args(b);
    if args.is_empty() || m.value_type(args[0]) != ty {
        return Err("expected induction variable to be same type as bounds and step".into());
    }
    if args.len() != inits.len() + 1 {
        return Err("mismatch in number of basic block args and defined values".into());
    }
    for (i, (&a, &v)) in args[1..].iter().zip(inits).enumerate() {
        if m.value_type(a) != m.value_type(v) {
            return Err(format!(
                "types mismatch between {i}th iter region arg and defined value"
            ));
        }
    }
    if let Some(t) = terminator(m, r).filter(|&t| m.op(t).name == "scf.yield") {
        let y = m.operands(t);
        if y.len() != inits.len() {
            return Err(format!(
                "mismatch in number of iter_args and yielded values: {} vs {}",
                inits.len(),
                y.len()
            ));
        }
        for (i, (&a, &v)) in args[1..].iter().zip(y).enumerate() {
            if m.value_type(a) != m.value_type(v) {
                return Err(format!(
                    "{i}-th region iter_arg and {i}-th yielded value have different type: '{}' != '{}'",
                    m.value_type(a),
                    m.value_type(v)
                ));
            }
        }
    }
    Ok(())
}

// ===================== scf.if =====================

fn parse_if(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let c = p.parse_operand()?;
    st.operands.push(p.resolve_operand(&c, &Type::int(1))?);
    st.result_types = p.parse_optional_arrow_type_list()?;
    let then = p.parse_region(&[])?;
    ensure_terminator(p, then, "scf.yield");
    let els = if p.parse_optional_keyword("else") {
        let e = p.parse_region(&[])?;
        ensure_terminator(p, e, "scf.yield");
        e
    } else {
        p.module_mut().create_region()
    };
    st.regions.push(then);
    st.regions.push(els);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    Ok(())
}

fn print_if(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let [then, els] = m.regions(op) else {
        return false;
    };
    if m.operands(op).len() != 1 || single_block(m, *then).is_none() {
        return false;
    }
    if m.region_blocks(*els).len() > 1 {
        return false;
    }
    let blocks_plain = [*then, *els].iter().all(|&r| {
        m.region_blocks(r)
            .first()
            .is_none_or(|&b| m.block_args(b).is_empty())
    });
    if !blocks_plain {
        return false;
    }
    let res = m.results(op);
    p.write(" ");
    p.print_operand(m.operands(op)[0]);
    if !res.is_empty() {
        p.write(" -> ");
        let tys = types_of(m, res);
        p.print_function_result_types(&tys);
    }
    p.write(" ");
    let elide = res.is_empty() && terminators_elidable(m, *then, "scf.yield");
    p.print_region(*then, false, !elide);
    if !m.region_blocks(*els).is_empty() {
        p.write(" else ");
        let elide = res.is_empty() && terminators_elidable(m, *els, "scf.yield");
        p.print_region(*els, false, !elide);
    }
    print_attrs(p, op, &[]);
    true
}

fn verify_if(m: &Module, op: OpId) -> Result<(), String> {
    let ops = m.operands(op);
    if ops.len() != 1 {
        return Err("expects one operand".into());
    }
    let ct = m.value_type(ops[0]);
    if *ct != Type::int(1) {
        return Err(format!(
            "operand #0 must be 1-bit signless integer, but got '{ct}'"
        ));
    }
    if m.regions(op).len() != 2 {
        return Err("expected 2 regions".into());
    }
    for i in 0..2 {
        check_single_block(m, op, i)?;
        if let Some(&b) = m.region_blocks(m.regions(op)[i]).first() {
            if !m.block_args(b).is_empty() {
                return Err(format!("region #{i} should have no arguments"));
            }
        }
    }
    let res = types_of(m, m.results(op));
    let els = m.regions(op)[1];
    if !res.is_empty() && m.region_blocks(els).is_empty() {
        return Err("must have an else block if defining values".into());
    }
    for &r in m.regions(op) {
        if let Some(t) = terminator(m, r).filter(|&t| m.op(t).name == "scf.yield") {
            let y = types_of(m, m.operands(t));
            if y.len() != res.len() {
                return Err(format!(
                    "along control flow edge from Operation scf.yield to parent: region branch point has {} operands, but region successor needs {} inputs",
                    y.len(),
                    res.len()
                ));
            }
            for (i, (a, b)) in y.iter().zip(&res).enumerate() {
                if a != b {
                    return Err(format!(
                        "along control flow edge from Operation scf.yield to parent: successor operand type #{i} '{a}' should match successor input type #{i} '{b}'"
                    ));
                }
            }
        }
    }
    Ok(())
}

// ===================== scf.while / scf.condition =====================

fn parse_while(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let (names, inits) = if p.at(Tok::LParen) {
        parse_assignment_list(p)?
    } else {
        (Vec::new(), Vec::new())
    };
    p.parse_colon()?;
    let at = p.current_span();
    let (ins, outs) = p.parse_function_type()?;
    if ins.len() != inits.len() {
        return Err(crate::Diagnostic::new(
            at,
            format!(
                "custom op 'scf.while' expected as many input types as operands (expected {} got {})",
                inits.len(),
                ins.len()
            ),
        ));
    }
    st.operands = p.resolve_operands(&inits, &ins, at)?;
    st.result_types = outs;
    let args = make_args(&names, &ins);
    let before = p.parse_region(&args)?;
    p.parse_keyword("do")?;
    let after = p.parse_region(&[])?;
    st.regions.push(before);
    st.regions.push(after);
    p.parse_optional_attr_dict_with_keyword(&mut st.attrs)?;
    Ok(())
}

fn print_while(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let [before, after] = m.regions(op) else {
        return false;
    };
    let Some(&bb) = m.region_blocks(*before).first() else {
        return false;
    };
    let inits = m.operands(op);
    let args = m.block_args(bb);
    if args.len() != inits.len()
        || types_of(m, args) != types_of(m, inits)
        || !args_plain(m, bb)
        || m.region_blocks(*after).is_empty()
    {
        return false;
    }
    print_assignment_list(p, " ", args, inits);
    p.write(" : ");
    let outs = types_of(m, m.results(op));
    p.print_function_type(&types_of(m, inits), &outs);
    p.write(" ");
    p.print_region(*before, false, true);
    p.write(" do ");
    p.print_region(*after, true, true);
    print_attrs_kw(p, op, &[]);
    true
}

fn verify_while(m: &Module, op: OpId) -> Result<(), String> {
    if m.regions(op).len() != 2 {
        return Err("expects two regions".into());
    }
    let (before, after) = (m.regions(op)[0], m.regions(op)[1]);
    if m.region_blocks(before).len() != 1 {
        return Err(
            "region #0 ('before') failed to verify constraint: region with 1 blocks".into(),
        );
    }
    if m.region_blocks(after).len() != 1 {
        return Err("region #1 ('after') failed to verify constraint: region with 1 blocks".into());
    }
    let Some(cond) = terminator(m, before) else {
        return Err("expects a non-empty block".into());
    };
    if m.op(cond).name != "scf.condition" {
        return Err("expects the 'before' region to terminate with 'scf.condition'".into());
    }
    let Some(y) = terminator(m, after) else {
        return Err("expects a non-empty block".into());
    };
    if m.op(y).name != "scf.yield" {
        return Err("expects the 'after' region to terminate with 'scf.yield'".into());
    }
    let inits = types_of(m, m.operands(op));
    let bargs = types_of(m, m.block_args(m.region_blocks(before)[0]));
    if inits != bargs {
        return Err(format!(
            "along control flow edge from parent operands to Region #0: region branch point has {} operands, but region successor needs {} inputs",
            inits.len(),
            bargs.len()
        ));
    }
    let passed = types_of(m, &m.operands(cond)[1.min(m.operands(cond).len())..]);
    let aargs = types_of(m, m.block_args(m.region_blocks(after)[0]));
    check_edge("scf.condition", "Region #1", &passed, &aargs)?;
    let res = types_of(m, m.results(op));
    check_edge("scf.condition", "parent", &passed, &res)?;
    let yielded = types_of(m, m.operands(y));
    check_edge("scf.yield", "Region #0", &yielded, &bargs)?;
    Ok(())
}

/// MLIR's RegionBranchOpInterface message for a control-flow edge.
fn check_edge(from: &str, to: &str, got: &[Type], want: &[Type]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "along control flow edge from Operation {from} to {to}: region branch point has {} operands, but region successor needs {} inputs",
            got.len(),
            want.len()
        ));
    }
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        if a != b {
            return Err(format!(
                "along control flow edge from Operation {from} to {to}: successor operand type #{i} '{a}' should match successor input type #{i} '{b}'"
            ));
        }
    }
    Ok(())
}

fn parse_condition(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_lparen()?;
    let c = p.parse_operand()?;
    p.parse_rparen()?;
    st.operands.push(p.resolve_operand(&c, &Type::int(1))?);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let at = p.current_span();
    let args = p.parse_operand_list()?;
    if !args.is_empty() {
        let tys = p.parse_colon_type_list()?;
        st.operands.extend(p.resolve_operands(&args, &tys, at)?);
    }
    Ok(())
}

fn print_condition(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    if ops.is_empty() || !m.results(op).is_empty() {
        return false;
    }
    p.write("(");
    p.print_operand(ops[0]);
    p.write(")");
    print_attrs(p, op, &[]);
    if ops.len() > 1 {
        p.write(" ");
        p.print_operands(&ops[1..]);
        p.write(" : ");
        p.print_value_types(&ops[1..]);
    }
    true
}

fn verify_condition(m: &Module, op: OpId) -> Result<(), String> {
    match m.parent_op(op) {
        Some(w) if m.op(w).name == "scf.while" => {}
        _ => return Err("expects parent op 'scf.while'".into()),
    }
    match m.operands(op).first() {
        Some(&c) if *m.value_type(c) == Type::int(1) => Ok(()),
        Some(&c) => Err(format!(
            "operand #0 must be 1-bit signless integer, but got '{}'",
            m.value_type(c)
        )),
        None => Err("expects a condition operand".into()),
    }
}

// ===================== scf.yield =====================

fn verify_yield(m: &Module, op: OpId) -> Result<(), String> {
    let parent = m.parent_op(op).map(|o| m.op(o).name.as_str());
    match parent {
        Some(n) if YIELD_PARENTS.contains(&n) => Ok(()),
        _ => Err(format!(
            "expects parent op to be one of '{}'",
            YIELD_PARENTS.join(", ")
        )),
    }
}

// ===================== scf.execute_region =====================

fn parse_execute_region(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    st.result_types = p.parse_optional_arrow_type_list()?;
    if p.parse_optional_keyword("no_inline") {
        st.props.set("no_inline", Attribute::Unit);
    }
    let r = p.parse_region(&[])?;
    st.regions.push(r);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    Ok(())
}

fn print_execute_region(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let [r] = m.regions(op) else { return false };
    if !m.operands(op).is_empty() {
        return false;
    }
    if m.region_blocks(*r)
        .first()
        .is_some_and(|&b| !m.block_args(b).is_empty())
    {
        return false;
    }
    let res = m.results(op);
    if !res.is_empty() {
        p.write(" -> ");
        let tys = types_of(m, res);
        p.print_function_result_types(&tys);
    }
    if flag(m, op, "no_inline") {
        p.write(" no_inline");
    }
    p.write(" ");
    p.print_region(*r, false, true);
    print_attrs(p, op, &["no_inline"]);
    true
}

fn verify_execute_region(m: &Module, op: OpId) -> Result<(), String> {
    let Some(&r) = m.regions(op).first() else {
        return Err("requires one region".into());
    };
    let blocks = m.region_blocks(r);
    if blocks.is_empty() {
        return Err("region needs to have at least one block".into());
    }
    if !m.block_args(blocks[0]).is_empty() {
        return Err("region cannot have any arguments".into());
    }
    Ok(())
}

// ===================== scf.index_switch =====================

fn parse_index_switch(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let a = p.parse_operand()?;
    st.operands.push(p.resolve_operand(&a, &Type::index())?);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    if p.consume_if(Tok::Arrow) {
        st.result_types = p.parse_type_list()?;
    }
    let mut cases = Vec::new();
    let mut regions = Vec::new();
    while p.parse_optional_keyword("case") {
        cases.push(p.parse_integer()?);
        regions.push(p.parse_region(&[])?);
    }
    p.parse_keyword("default")?;
    let d = p.parse_region(&[])?;
    st.regions.push(d);
    st.regions.extend(regions);
    st.props.set("cases", Attribute::i64_array(&cases));
    Ok(())
}

fn print_index_switch(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let regions = m.regions(op);
    let Some(cases) = int_array(m, op, "cases") else {
        return false;
    };
    if m.operands(op).len() != 1 || regions.len() != cases.len() + 1 {
        return false;
    }
    p.write(" ");
    p.print_operand(m.operands(op)[0]);
    print_attrs(p, op, &["cases"]);
    if !m.results(op).is_empty() {
        p.write(" -> ");
        p.print_value_types(m.results(op));
    }
    for (i, c) in cases.iter().enumerate() {
        p.print_newline();
        p.write(&format!("case {c} "));
        p.print_region(regions[i + 1], false, true);
    }
    p.print_newline();
    p.write("default ");
    p.print_region(regions[0], false, true);
    true
}

fn verify_index_switch(m: &Module, op: OpId) -> Result<(), String> {
    let cases = int_array(m, op, "cases").unwrap_or_default();
    let n = m.regions(op).len();
    if n != cases.len() + 1 {
        return Err(format!(
            "has {} case regions but {} case values",
            n.saturating_sub(1),
            cases.len()
        ));
    }
    let mut sorted = cases.clone();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() != cases.len() {
        return Err("has duplicate case value".into());
    }
    let res = types_of(m, m.results(op));
    for (i, &r) in m.regions(op).iter().enumerate() {
        let Some(t) = terminator(m, r) else {
            return Err(format!("region #{i} must not be empty"));
        };
        if m.op(t).name != "scf.yield" {
            return Err("expected region to end with scf.yield".into());
        }
        if types_of(m, m.operands(t)) != res {
            return Err(format!(
                "expected each region to return {} values",
                res.len()
            ));
        }
    }
    Ok(())
}

// ===================== scf.parallel / scf.reduce =====================

fn parse_parallel(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let ivs = p.parse_argument_list(Delimiter::Paren, false, false)?;
    let n = ivs.len();
    let idx = Type::index();
    let mut counts = Vec::new();
    for (i, kw) in ["=", "to", "step"].iter().enumerate() {
        if i == 0 {
            p.parse_equal()?;
        } else {
            p.parse_keyword(kw)?;
        }
        let at = p.current_span();
        let vs = p.parse_operand_list_delimited(Delimiter::Paren)?;
        if vs.len() != n {
            return Err(crate::Diagnostic::new(
                at,
                format!("custom op 'scf.parallel' expected {n} operands"),
            ));
        }
        counts.push(vs.len());
        let r = p.resolve_operands_same(&vs, &idx)?;
        st.operands.extend(r);
    }
    let mut inits = Vec::new();
    if p.parse_optional_keyword("init") {
        inits = p.parse_operand_list_delimited(Delimiter::Paren)?;
    }
    let at = p.current_span();
    st.result_types = p.parse_optional_arrow_type_list()?;
    let args: Vec<Argument> = ivs
        .into_iter()
        .map(|mut a| {
            a.ty = idx.clone();
            a
        })
        .collect();
    let r = p.parse_region(&args)?;
    counts.push(inits.len());
    set_segments(st, &counts);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let rt = st.result_types.clone();
    st.operands.extend(p.resolve_operands(&inits, &rt, at)?);
    ensure_terminator(p, r, "scf.reduce");
    st.regions.push(r);
    Ok(())
}

fn print_parallel(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(seg) = segments(m, op, 4) else {
        return false;
    };
    let [r] = m.regions(op) else { return false };
    let Some(b) = single_block(m, *r) else {
        return false;
    };
    let ivs = m.block_args(b);
    if ivs.len() != seg[0].len() || !args_plain(m, b) {
        return false;
    }
    p.write(" (");
    p.print_operands(ivs);
    p.write(") = (");
    p.print_operands(&seg[0]);
    p.write(") to (");
    p.print_operands(&seg[1]);
    p.write(") step (");
    p.print_operands(&seg[2]);
    p.write(")");
    if !seg[3].is_empty() {
        p.write(" init (");
        p.print_operands(&seg[3]);
        p.write(")");
    }
    let res = m.results(op);
    if !res.is_empty() {
        p.write(" -> ");
        let tys = types_of(m, res);
        p.print_function_result_types(&tys);
    }
    p.write(" ");
    p.print_region(*r, false, true);
    print_attrs(p, op, &["operandSegmentSizes"]);
    true
}

/// The integer value of an `arith.constant` defining `v`, if any.
fn constant_int(m: &Module, v: ValueId) -> Option<i128> {
    let d = m.defining_op(v)?;
    if m.op(d).name != "arith.constant" {
        return None;
    }
    prop(m, d, "value")?.as_int()
}

fn verify_parallel(m: &Module, op: OpId) -> Result<(), String> {
    let seg = segments_checked(m, op, 4)?;
    let Some(&r) = m.regions(op).first() else {
        return Err("requires one region".into());
    };
    let Some(&b) = m.region_blocks(r).first() else {
        return Err("expects a non-empty body".into());
    };
    let ivs = m.block_args(b);
    if ivs.iter().any(|&v| !m.value_type(v).is_index()) {
        return Err("expects arguments for the induction variable to be of index type".into());
    }
    let n = seg[2].len();
    if n == 0 {
        return Err("needs at least one tuple element for lowerBound, upperBound and step".into());
    }
    for &s in &seg[2] {
        if constant_int(m, s).is_some_and(|c| c <= 0) {
            return Err("constant step operand must be positive".into());
        }
    }
    if ivs.len() != n || seg[0].len() != n || seg[1].len() != n {
        return Err(format!(
            "expects the same number of induction variables: {} as bound and step values: {n}",
            ivs.len()
        ));
    }
    let Some(t) = m.last_op(b).filter(|&t| m.op(t).name == "scf.reduce") else {
        return Err("expects body to terminate with 'scf.reduce'".into());
    };
    let nred = m.operands(t).len();
    if m.results(op).len() != nred {
        return Err(format!(
            "expects number of results: {} to be the same as number of reductions: {nred}",
            m.results(op).len()
        ));
    }
    for (i, (&a, &res)) in seg[3].iter().zip(m.results(op)).enumerate() {
        if m.value_type(a) != m.value_type(res) {
            return Err(format!(
                "expects type of {i}-th init value to be the same as the result type"
            ));
        }
    }
    Ok(())
}

fn parse_reduce(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    if p.consume_if(Tok::LParen) {
        let at = p.current_span();
        let ops = p.parse_operand_list()?;
        p.parse_colon()?;
        let tys = p.parse_type_list()?;
        p.parse_rparen()?;
        st.operands = p.resolve_operands(&ops, &tys, at)?;
    }
    if p.at(Tok::LBrace) {
        loop {
            st.regions.push(p.parse_region(&[])?);
            if !p.consume_if(Tok::Comma) {
                break;
            }
        }
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    Ok(())
}

fn print_reduce(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    if !m.results(op).is_empty() {
        return false;
    }
    if !ops.is_empty() {
        p.write("(");
        p.print_operands(ops);
        p.write(" : ");
        p.print_value_types(ops);
        p.write(")");
    }
    for (i, &r) in m.regions(op).iter().enumerate() {
        p.write(if i == 0 { " " } else { ", " });
        p.print_region(r, true, true);
    }
    print_attrs(p, op, &[]);
    true
}

fn verify_reduce(m: &Module, op: OpId) -> Result<(), String> {
    let ops = m.operands(op);
    if m.regions(op).len() != ops.len() {
        return Err(format!(
            "expects {} reduction regions, got {}",
            ops.len(),
            m.regions(op).len()
        ));
    }
    for (i, (&v, &r)) in ops.iter().zip(m.regions(op)).enumerate() {
        let t = m.value_type(v);
        let Some(&b) = m.region_blocks(r).first() else {
            return Err(format!("reduction region #{i} is empty"));
        };
        let args = types_of(m, m.block_args(b));
        if args.len() != 2 || args[0] != *t || args[1] != *t {
            return Err(format!("expects two arguments to reduce block of type {t}"));
        }
        if let Some(ret) = m
            .last_op(b)
            .filter(|&o| m.op(o).name == "scf.reduce.return")
        {
            if types_of(m, m.operands(ret)) != vec![t.clone()] {
                return Err(format!("the reduce body must yield a value of type {t}"));
            }
        }
    }
    match m.parent_op(op) {
        Some(par) if m.op(par).name == "scf.parallel" => Ok(()),
        _ => Err("expects parent op 'scf.parallel'".into()),
    }
}

fn parse_reduce_return(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let v = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    st.operands.push(p.resolve_operand(&v, &t)?);
    Ok(())
}

fn print_reduce_return(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let [v] = m.operands(op) else { return false };
    p.write(" ");
    p.print_operand(*v);
    print_attrs(p, op, &[]);
    p.write(" : ");
    p.print_type(m.value_type(*v));
    true
}

fn verify_reduce_return(m: &Module, op: OpId) -> Result<(), String> {
    match m.parent_op(op) {
        Some(par) if m.op(par).name == "scf.reduce" => Ok(()),
        _ => Err("expects parent op 'scf.reduce'".into()),
    }
}
