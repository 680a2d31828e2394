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
//! scf.forall (%i, %j) in (%n, 8) { ... } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
//! %t = scf.forall (%i) = (%lb) to (%ub) step (4) shared_outs(%o = %init) -> (tensor<?xf32>) {
//!   ... scf.forall.in_parallel { tensor.parallel_insert_slice ... } }
//! ```
//!
//! `scf.forall` keeps its bounds as mixed static/dynamic lists (`staticLowerBound` etc. with
//! `DYNAMIC` marking an SSA operand). mlir-opt prints the short `in (...)` form whenever the
//! lower bounds fold to 0 and the steps to 1, even when they are SSA constants, which drops
//! those operands on re-parse; memplan prints `in` only when the bounds are *static* 0/1, so
//! printing never changes the IR. Likewise the implicit `scf.forall.in_parallel` is left out
//! only when it is the plain empty terminator the parser would re-create.

use crate::attrs::Attribute;
use crate::ir::{Module, OpId, OperationState, RegionId, ValueId};
use crate::lexer::Tok;
use crate::parser::{Argument, Delimiter, PResult, Parser, UnresolvedOperand};
use crate::printer::Printer;
use crate::registry::{traits, OpDef, Registry};
use crate::types::Type;

use super::memref::{
    all_index, count_dynamic, ensure_terminator, flag, int_array, parse_value_colon_type,
    parse_values_colon_types, print_attrs, print_attrs_kw, print_value_colon_type,
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
        parse_value_colon_type,
        print_value_colon_type,
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
    r.register(OpDef {
        inherent: &["mapping"],
        ..def(
            "scf.forall",
            parse_forall,
            print_forall,
            verify_forall,
            traits::SINGLE_BLOCK,
        )
    });
    r.register(def(
        "scf.forall.in_parallel",
        parse_in_parallel,
        print_in_parallel,
        verify_in_parallel,
        traits::TERMINATOR | traits::NO_TERMINATOR | traits::GRAPH_REGION | traits::SINGLE_BLOCK,
    ));
    r.register(def(
        "scf.condition",
        parse_condition,
        print_condition,
        verify_condition,
        traits::TERMINATOR,
    ));
}

/// `(%a = %x, %b = %y)`: region arguments (name and optional `loc(...)`, type not yet known)
/// and their initial values.
pub(crate) fn parse_assignment_list(
    p: &mut Parser<'_>,
) -> PResult<(Vec<Argument>, Vec<UnresolvedOperand>)> {
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

/// A region argument `%x loc(...)` without a type, as MLIR's `parseArgument(allowType=false)`
/// reads it: a result number `%x#0` is rejected, a trailing location is kept. The type is
/// filled in by [`make_args`].
pub(crate) fn parse_arg_name(p: &mut Parser<'_>) -> PResult<Argument> {
    let next = p.peek2();
    if p.at(Tok::PercentId) && next.kind == Tok::HashId && next.span.start == p.current_span().end {
        return Err(p.error_here("result number not allowed in argument list"));
    }
    p.parse_argument(false, false)
}

/// `scf.for`'s induction variable: MLIR reads it with `parseOperand`, so unlike the other
/// region arguments it takes no `loc(...)`.
fn parse_iv_name(p: &mut Parser<'_>) -> PResult<Argument> {
    let next = p.peek2();
    if p.at(Tok::PercentId) && next.kind == Tok::HashId && next.span.start == p.current_span().end {
        return Err(p.error_here("result number not allowed in argument list"));
    }
    Ok(Argument {
        name: p.parse_operand()?,
        ty: Type::none(),
        attrs: None,
        loc: None,
    })
}

/// Region arguments from parsed names (with their locations) and types.
pub(crate) fn make_args(names: &[Argument], tys: &[Type]) -> Vec<Argument> {
    names
        .iter()
        .zip(tys)
        .map(|(n, t)| Argument {
            ty: t.clone(),
            ..n.clone()
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
    m.block_args(b).iter().all(|&a| m.value(a).loc().is_none())
}

// ===================== scf.for =====================

fn parse_for(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let unsigned = p.parse_optional_keyword("unsigned");
    let iv = parse_iv_name(p)?;
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
    // Like mlir-opt-22, the `default` region gets an implicit `scf.yield` when it does not end
    // in one; `case` regions are read as written (an empty one fails verification).
    while p.parse_optional_keyword("case") {
        cases.push(p.parse_integer()?);
        regions.push(p.parse_region(&[])?);
    }
    p.parse_keyword("default")?;
    let d = p.parse_region(&[])?;
    ensure_terminator(p, d, "scf.yield");
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
    // mlir-opt-22 leaves out the default region's terminator when it yields nothing.
    let bare_yield = |r: RegionId| {
        let blocks = m.region_blocks(r);
        blocks.len() == 1
            && m.last_op(blocks[0]).is_some_and(|o| {
                m.op(o).name == "scf.yield" && m.operands(o).is_empty() && m.op(o).attrs.is_empty()
            })
    };
    for (i, c) in cases.iter().enumerate() {
        p.print_newline();
        p.write(&format!("case {c} "));
        p.print_region(regions[i + 1], false, true);
    }
    p.print_newline();
    p.write("default ");
    p.print_region(regions[0], false, !bare_yield(regions[0]));
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
    p.print_operands(seg[0]);
    p.write(") to (");
    p.print_operands(seg[1]);
    p.write(") step (");
    p.print_operands(seg[2]);
    p.write(")");
    if !seg[3].is_empty() {
        p.write(" init (");
        p.print_operands(seg[3]);
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
    for &s in seg[2] {
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
        match m.last_op(b) {
            Some(ret) if m.op(ret).name == "scf.reduce.return" => {
                if types_of(m, m.operands(ret)) != vec![t.clone()] {
                    return Err(format!("the reduce body must yield a value of type {t}"));
                }
            }
            Some(_) => {
                return Err(
                    "reduction bodies must be terminated with an 'scf.reduce.return' op".into(),
                )
            }
            None => return Err("empty block: expect at least a terminator".into()),
        }
    }
    match m.parent_op(op) {
        Some(par) if m.op(par).name == "scf.parallel" => {
            // As MLIR's ParallelOp::verify: reduction operand i has the type of result i.
            for (i, (&v, &r)) in ops.iter().zip(m.results(par)).enumerate() {
                let (a, b) = (m.value_type(v), m.value_type(r));
                if a != b {
                    return Err(format!(
                        "expects type of {i}-th reduction operand: '{a}' to be the same as the {i}-th result type: '{b}'"
                    ));
                }
            }
            Ok(())
        }
        _ => Err("expects parent op 'scf.parallel'".into()),
    }
}

fn verify_reduce_return(m: &Module, op: OpId) -> Result<(), String> {
    match m.parent_op(op) {
        Some(par) if m.op(par).name == "scf.reduce" => Ok(()),
        _ => Err("expects parent op 'scf.reduce'".into()),
    }
}

// ===================== scf.forall / scf.forall.in_parallel =====================

/// Names of the three static bound lists of `scf.forall`, in operand-segment order.
const FORALL_LISTS: [&str; 3] = ["staticLowerBound", "staticUpperBound", "staticStep"];

/// Ops allowed in `scf.forall.in_parallel` (MLIR's `ParallelCombiningOpInterface`), with
/// the index of the operand they write to.
const PARALLEL_COMBINING: &[(&str, usize)] = &[("tensor.parallel_insert_slice", 1)];

/// Creates the implicit `scf.forall.in_parallel` (one empty block) when the body's last op
/// is not a terminator, like `ForallOp::ensureTerminator`.
fn ensure_in_parallel(p: &mut Parser<'_>, r: RegionId) {
    let has_terminator = {
        let m = p.module();
        m.region_blocks(r)
            .last()
            .and_then(|&b| m.last_op(b))
            .is_some_and(|o| p.registry().has_trait(&m.op(o).name, traits::TERMINATOR))
    };
    if has_terminator {
        return;
    }
    let m = p.module_mut();
    let b = match m.region_blocks(r).last() {
        Some(&b) => b,
        None => {
            let b = m.create_block();
            m.append_block(r, b);
            b
        }
    };
    let body = m.create_region();
    let inner = m.create_block();
    m.append_block(body, inner);
    let mut st = OperationState::new("scf.forall.in_parallel");
    st.regions.push(body);
    let t = m.create_op(st);
    m.append_op(b, t);
}

/// True if `t` is the plain `scf.forall.in_parallel` the parser re-creates when it is left
/// out: no operands, results, attributes or location, one region with one empty block.
fn in_parallel_elidable(m: &Module, t: OpId) -> bool {
    let d = m.op(t);
    if d.name != "scf.forall.in_parallel"
        || !m.operands(t).is_empty()
        || !m.results(t).is_empty()
        || !d.attrs.is_empty()
        || !d.props.is_empty()
        || !matches!(d.loc(), crate::Location::Unknown)
    {
        return false;
    }
    match m.regions(t) {
        [r] => single_block(m, *r)
            .is_some_and(|b| m.first_op(b).is_none() && m.block_args(b).is_empty()),
        _ => false,
    }
}

fn parse_forall(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let ivs = p.parse_argument_list(Delimiter::Paren, false, false)?;
    let n = ivs.len();
    let idx = Type::index();
    let mut dynamic: [Vec<ValueId>; 3] = Default::default();
    let mut statics: [Vec<i64>; 3] = Default::default();
    if p.parse_optional_keyword("in") {
        let mut us = Vec::new();
        statics[1] = p.parse_dynamic_index_list(&mut us, Delimiter::Paren)?;
        dynamic[1] = p.resolve_operands_same(&us, &idx)?;
        statics[0] = vec![0; n];
        statics[2] = vec![1; n];
    } else {
        for (i, kw) in ["=", "to", "step"].iter().enumerate() {
            if i == 0 {
                p.parse_equal()?;
            } else {
                p.parse_keyword(kw)?;
            }
            let mut us = Vec::new();
            statics[i] = p.parse_dynamic_index_list(&mut us, Delimiter::Paren)?;
            dynamic[i] = p.resolve_operands_same(&us, &idx)?;
        }
    }
    let mut out_names = Vec::new();
    let mut outs = Vec::new();
    if p.parse_optional_keyword("shared_outs") {
        let at = p.current_span();
        let (names, vals) = parse_assignment_list(p)?;
        st.result_types = p.parse_optional_arrow_type_list()?;
        let rt = st.result_types.clone();
        outs = p.resolve_operands(&vals, &rt, at)?;
        out_names = names;
    }
    let mut args: Vec<Argument> = ivs
        .into_iter()
        .map(|mut a| {
            a.ty = idx.clone();
            a
        })
        .collect();
    args.extend(make_args(&out_names, &st.result_types));
    let r = p.parse_region(&args)?;
    ensure_in_parallel(p, r);
    st.regions.push(r);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let mut counts: Vec<usize> = dynamic.iter().map(Vec::len).collect();
    counts.push(outs.len());
    for d in dynamic {
        st.operands.extend(d);
    }
    st.operands.extend(outs);
    // Properties in alphabetical order, as mlir-opt lists them.
    if let Some(a) = st.attrs.remove("mapping") {
        st.props.set("mapping", a);
    }
    set_segments(st, &counts);
    st.props
        .set("staticLowerBound", Attribute::i64_array(&statics[0]));
    st.props
        .set("staticStep", Attribute::i64_array(&statics[2]));
    st.props
        .set("staticUpperBound", Attribute::i64_array(&statics[1]));
    Ok(())
}

/// The static bound lists of a forall, each checked against its dynamic operand segment.
fn forall_lists(m: &Module, op: OpId, seg: &[&[ValueId]]) -> Option<[Vec<i64>; 3]> {
    let mut out: [Vec<i64>; 3] = Default::default();
    for (i, name) in FORALL_LISTS.iter().enumerate() {
        let l = int_array(m, op, name)?;
        if count_dynamic(&l) != seg[i].len() {
            return None;
        }
        out[i] = l;
    }
    Some(out)
}

fn print_forall(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(seg) = segments(m, op, 4) else {
        return false;
    };
    let Some(lists) = forall_lists(m, op, &seg) else {
        return false;
    };
    let n = lists[0].len();
    if lists[1].len() != n || lists[2].len() != n {
        return false;
    }
    let [r] = m.regions(op) else { return false };
    let Some(b) = single_block(m, *r) else {
        return false;
    };
    let args = m.block_args(b);
    let outs = &seg[3];
    if args.len() != n + outs.len() || !args_plain(m, b) || !all_index(m, &args[..n]) {
        return false;
    }
    let out_tys = types_of(m, outs);
    if types_of(m, &args[n..]) != out_tys || types_of(m, m.results(op)) != out_tys {
        return false;
    }
    p.write(" (");
    p.print_operands(&args[..n]);
    p.write(")");
    let normalized = lists[0].iter().all(|&v| v == 0) && lists[2].iter().all(|&v| v == 1);
    if normalized {
        p.write(" in ");
        p.print_dynamic_index_list(seg[1], &lists[1], '(', ')');
    } else {
        for (i, kw) in [" = ", " to ", " step "].iter().enumerate() {
            p.write(kw);
            p.print_dynamic_index_list(seg[i], &lists[i], '(', ')');
        }
    }
    print_assignment_list(p, " shared_outs", &args[n..], outs);
    p.write(" ");
    if !outs.is_empty() {
        p.write("-> (");
        p.print_types(&out_tys);
        p.write(") ");
    }
    let elide = outs.is_empty() && m.last_op(b).is_some_and(|t| in_parallel_elidable(m, t));
    p.print_region(*r, false, !elide);
    let mut elided = vec!["operandSegmentSizes"];
    elided.extend(FORALL_LISTS);
    print_attrs(p, op, &elided);
    true
}

/// True for MLIR's `DeviceMappingAttrInterface` attributes memplan can recognise: the
/// GPU dialect's mapping attributes (`#gpu.thread<x>`, `#gpu.block<y>`, `#gpu.warp<..>`,
/// `#gpu.warpgroup<..>`, `#gpu.lane<..>`, `#gpu.memory_space<..>`) and any other dialect
/// attribute (kept verbatim, so its interface is unknown and it gets the benefit of the doubt).
fn is_device_mapping(a: &Attribute) -> bool {
    matches!(a, Attribute::Opaque(t) if t.starts_with('#'))
}

fn verify_forall(m: &Module, op: OpId) -> Result<(), String> {
    let seg = segments_checked(m, op, 4)?;
    let idx_count = seg[0].len() + seg[1].len() + seg[2].len();
    for (i, &v) in m.operands(op).iter().enumerate() {
        let t = m.value_type(v);
        if i < idx_count && !t.is_index() {
            return Err(format!(
                "operand #{i} must be variadic of index, but got '{t}'"
            ));
        }
        if i >= idx_count && !matches!(t.kind(), crate::TypeKind::RankedTensor { .. }) {
            return Err(format!(
                "operand #{i} must be variadic of ranked tensor of any type values, but got '{t}'"
            ));
        }
    }
    for (i, &v) in m.results(op).iter().enumerate() {
        let t = m.value_type(v);
        if !matches!(t.kind(), crate::TypeKind::RankedTensor { .. }) {
            return Err(format!(
                "result #{i} must be variadic of ranked tensor of any type values, but got '{t}'"
            ));
        }
    }
    let mut lists: Vec<Vec<i64>> = Vec::new();
    for name in FORALL_LISTS {
        match int_array(m, op, name) {
            Some(l) => lists.push(l),
            None => return Err(format!("requires attribute '{name}'")),
        }
    }
    let mapping = match prop(m, op, "mapping") {
        None => None,
        Some(Attribute::Array(items)) if items.iter().all(is_device_mapping) => Some(items.len()),
        Some(_) => {
            return Err(
                "attribute 'mapping' failed to satisfy constraint: Device Mapping array attribute"
                    .into(),
            )
        }
    };
    let [r] = m.regions(op) else {
        return Err("requires one region".into());
    };
    let Some(b) = single_block(m, *r) else {
        return Err(
            "region #0 ('region') failed to verify constraint: region with 1 blocks".into(),
        );
    };
    match m.last_op(b) {
        None => return Err("expects a non-empty block".into()),
        Some(t) if m.op(t).name != "scf.forall.in_parallel" => {
            return Err(format!(
                "expects regions to end with 'scf.forall.in_parallel', found '{}'",
                m.op(t).name
            ))
        }
        Some(_) => {}
    }
    let n = lists[0].len();
    let outs = &seg[3];
    let nres = m.results(op).len();
    if nres != outs.len() {
        return Err(format!(
            "produces {nres} results, but has only {} outputs",
            outs.len()
        ));
    }
    let args = m.block_args(b);
    if args.len() != n + outs.len() {
        return Err(format!("region expects {n} arguments"));
    }
    for (i, &a) in args[..n].iter().enumerate() {
        if !m.value_type(a).is_index() {
            return Err(format!("expects {i}-th block argument to be an index"));
        }
    }
    for (i, (&a, &o)) in args[n..].iter().zip(outs.iter()).enumerate() {
        if m.value_type(a) != m.value_type(o) {
            return Err(format!(
                "type mismatch between {i}-th output and corresponding block argument"
            ));
        }
    }
    if let Some(k) = mapping {
        if k != 0 && k != n {
            return Err("mapping attribute size must match op rank".into());
        }
    }
    for (i, what) in ["lower bound", "upper bound", "step"].iter().enumerate() {
        if lists[i].len() != n {
            return Err(format!(
                "{what} expected {n} elements, but got {}",
                lists[i].len()
            ));
        }
        let want = count_dynamic(&lists[i]);
        if seg[i].len() != want {
            return Err(format!("expected {want} dynamic {what} values"));
        }
    }
    Ok(())
}

fn parse_in_parallel(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let r = p.parse_region(&[])?;
    if p.module().region_blocks(r).is_empty() {
        let m = p.module_mut();
        let b = m.create_block();
        m.append_block(r, b);
    }
    st.regions.push(r);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    Ok(())
}

fn print_in_parallel(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let [r] = m.regions(op) else { return false };
    let Some(b) = single_block(m, *r) else {
        return false;
    };
    if !m.operands(op).is_empty() || !m.results(op).is_empty() || !m.block_args(b).is_empty() {
        return false;
    }
    p.write(" ");
    if m.first_op(b).is_none() {
        // MLIR prints an empty entry block as `{` newline `}` (no `^bb0:` label).
        p.write("{");
        p.print_newline();
        p.write("}");
    } else {
        p.print_region(*r, false, false);
    }
    print_attrs(p, op, &[]);
    true
}

fn verify_in_parallel(m: &Module, op: OpId) -> Result<(), String> {
    let Some(parent) = m.parent_op(op).filter(|&o| m.op(o).name == "scf.forall") else {
        return Err("expects parent op 'scf.forall'".into());
    };
    let Some(&r) = m.regions(op).first() else {
        return Err("requires one region".into());
    };
    let Some(b) = single_block(m, r) else {
        return Err(
            "region #0 ('region') failed to verify constraint: region with 1 blocks".into(),
        );
    };
    // The forall's shared_outs block arguments: the ones after the induction variables.
    let n = int_array(m, parent, "staticLowerBound").map_or(0, |l| l.len());
    let out_args: &[ValueId] = m
        .regions(parent)
        .first()
        .and_then(|&pr| m.region_blocks(pr).first())
        .map_or(&[], |&pb| {
            let a = m.block_args(pb);
            &a[n.min(a.len())..]
        });
    for o in m.block_ops(b) {
        let name = m.op(o).name.as_str();
        let Some(&(_, dest)) = PARALLEL_COMBINING.iter().find(|(n, _)| *n == name) else {
            return Err("expected only ParallelCombiningOpInterface ops".into());
        };
        if let Some(&d) = m.operands(o).get(dest) {
            if !out_args.contains(&d) {
                return Err(format!(
                    "'{name}' op may only insert into an output block argument"
                ));
            }
        }
    }
    Ok(())
}
