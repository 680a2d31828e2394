//! The `affine` dialect's custom forms and verifiers (mlir/lib/Dialect/Affine/IR/
//! AffineOps.cpp). memplan's loop-fusion pass (seed: affine fusion sample) reads loop
//! bounds and access maps as real affine trees, so the parsers rebuild exactly the maps
//! MLIR builds: a bare `%n` bound is the symbol identity map `()[s0] -> (s0)`, a constant
//! bound `() -> (c)`, subscripts `[%i + 1, symbol(%n)]` number dims and symbols by first
//! appearance (dims first in the operand list), and `affine.parallel` flattens its
//! `max(...)`/`min(...)` groups into one map plus a group-size vector.
//! The dim/symbol validity rules (`isValidDim`, `isValidSymbol`) are implemented on the
//! IR so that misuse (e.g. an `scf.for` induction variable as an affine dim) is rejected.
//!
//! ```text
//! %r = affine.for %i = 0 to %n step 2 iter_args(%a = %x) -> (f32) { ... affine.yield %b : f32 }
//! affine.for %j = max affine_map<(d0) -> (d0, 4)>(%i) to 10 { ... }
//! %v = affine.load %A[%i + 1, symbol(%n)] : memref<?x?xf32>
//! %m = affine.min affine_map<(d0)[s0] -> (d0, s0)>(%i)[%n]
//! affine.if affine_set<(d0) : (d0 - 10 >= 0)>(%i) { ... } else { ... }
//! affine.parallel (%x, %y) = (0, max(%a, %b)) to (%n, 100) step (1, 4) { ... }
//! ```

use crate::affine::{AffineExpr, AffineMap};
use crate::attrs::Attribute;
use crate::ir::{Module, OpId, OperationState, ValueDef, ValueId};
use crate::parser::{Argument, Delimiter, PResult, Parser, UnresolvedOperand};
use crate::printer::Printer;
use crate::registry::{traits, OpDef, Registry};
use crate::types::{Type, TypeKind, DYNAMIC};

use super::cf::dense_int_values;
use super::memref::{
    all_index, ensure_terminator, flag, int_array, memref_parts, parse_values_colon_types,
    print_attrs, print_values_colon_types, prop, resolve_indices, segments, segments_checked,
    set_segments, single_block, terminators_elidable, types_of, ATOMIC_KINDS,
};
use super::scf::{make_args, parse_arg_name, parse_assignment_list, print_assignment_list};

/// Ops that open an affine scope (MLIR's `AffineScope` trait).
const AFFINE_SCOPES: &[&str] = &["func.func", "builtin.module", "gpu.func", "affine.scope"];

/// Registers `affine.*`.
pub fn register(r: &mut Registry) {
    let def = |name: &'static str,
               parse: crate::registry::ParseFn,
               print: crate::registry::PrintFn,
               verify: crate::registry::VerifyFn,
               inherent: &'static [&'static str]| OpDef {
        parse: Some(parse),
        print: Some(print),
        verify: Some(verify),
        inherent,
        ..OpDef::new(name)
    };
    r.register(OpDef {
        traits: traits::SINGLE_BLOCK,
        ..def(
            "affine.for",
            parse_for,
            print_for,
            verify_for,
            &["lowerBoundMap", "upperBoundMap", "step"],
        )
    });
    r.register(OpDef {
        traits: traits::SINGLE_BLOCK,
        ..def("affine.if", parse_if, print_if, verify_if, &["condition"])
    });
    r.register(OpDef {
        traits: traits::SINGLE_BLOCK,
        ..def(
            "affine.parallel",
            parse_parallel,
            print_parallel,
            verify_parallel,
            PARALLEL_INHERENT,
        )
    });
    r.register(OpDef {
        traits: traits::TERMINATOR,
        ..def(
            "affine.yield",
            parse_values_colon_types,
            print_values_colon_types,
            verify_yield,
            &[],
        )
    });
    for n in ["affine.load", "affine.vector_load"] {
        r.register(def(n, parse_load, print_load, verify_load, &["map"]));
    }
    for n in ["affine.store", "affine.vector_store"] {
        r.register(def(n, parse_store, print_store, verify_store, &["map"]));
    }
    r.register(def(
        "affine.prefetch",
        parse_prefetch,
        print_prefetch,
        verify_prefetch,
        &["map", "isWrite", "localityHint", "isDataCache"],
    ));
    for n in ["affine.apply", "affine.min", "affine.max"] {
        r.register(def(n, parse_apply, print_apply, verify_apply, &["map"]));
    }
    r.register(def(
        "affine.delinearize_index",
        parse_delinearize,
        print_delinearize,
        verify_delinearize,
        &["static_basis"],
    ));
    r.register(def(
        "affine.linearize_index",
        parse_linearize,
        print_linearize,
        verify_linearize,
        &["static_basis", "disjoint"],
    ));
}

const PARALLEL_INHERENT: &[&str] = &[
    "reductions",
    "lowerBoundsMap",
    "lowerBoundsGroups",
    "upperBoundsMap",
    "upperBoundsGroups",
    "steps",
];

// ===================== dims and symbols =====================

/// `(%d0, %d1)[%s0]`: operands (dims then symbols, all `index`) and the number of dims.
fn parse_dim_and_symbol_list(p: &mut Parser<'_>) -> PResult<(Vec<ValueId>, u32)> {
    let dims = p.parse_operand_list_delimited(Delimiter::Paren)?;
    let syms = p.parse_operand_list_delimited(Delimiter::OptionalSquare)?;
    let mut v = resolve_indices(p, &dims)?;
    v.extend(resolve_indices(p, &syms)?);
    Ok((v, dims.len() as u32))
}

fn print_dim_and_symbol_list(p: &mut Printer<'_>, ops: &[ValueId], num_dims: usize) {
    let nd = num_dims.min(ops.len());
    p.write("(");
    p.print_operands(&ops[..nd]);
    p.write(")");
    if ops.len() > nd {
        p.write("[");
        p.print_operands(&ops[nd..]);
        p.write("]");
    }
}

/// Parses an `affine_map<...>` attribute (or an alias of one).
fn parse_map_attr(p: &mut Parser<'_>) -> PResult<AffineMap> {
    let at = p.current_span();
    match p.parse_attribute()? {
        Attribute::AffineMap(m) => Ok(m),
        _ => Err(crate::Diagnostic::new(at, "expected affine map attribute")),
    }
}

pub(super) fn map_prop(m: &Module, op: OpId, name: &str) -> Option<AffineMap> {
    match prop(m, op, name) {
        Some(Attribute::AffineMap(a)) => Some(a.clone()),
        _ => None,
    }
}

/// The op that opens the affine scope `op` lives in, if any.
pub(super) fn affine_scope(m: &Module, op: OpId) -> Option<OpId> {
    let mut cur = m.parent_op(op);
    while let Some(o) = cur {
        if AFFINE_SCOPES.contains(&m.op(o).name.as_str()) {
            return Some(o);
        }
        cur = m.parent_op(o);
    }
    None
}

/// The op whose region directly holds the definition of `v`.
fn def_parent(m: &Module, v: ValueId) -> Option<OpId> {
    match m.value_def(v) {
        ValueDef::OpResult { op, .. } => m.parent_op(op),
        ValueDef::BlockArg { block, .. } => m.block_region(block).and_then(|r| m.region_op(r)),
        ValueDef::Placeholder => None,
    }
}

/// True if `v` is defined directly in a region of an affine scope op.
fn is_top_level(m: &Module, v: ValueId, scope: Option<OpId>) -> bool {
    let Some(par) = def_parent(m, v) else {
        return false;
    };
    match scope {
        Some(s) => par == s,
        None => AFFINE_SCOPES.contains(&m.op(par).name.as_str()),
    }
}

fn is_affine_iv(m: &Module, v: ValueId) -> bool {
    match m.value_def(v) {
        ValueDef::BlockArg { block, index } => {
            let owner = m.block_region(block).and_then(|r| m.region_op(r));
            owner.is_some_and(|o| match m.op(o).name.as_str() {
                "affine.for" => index == 0,
                "affine.parallel" => true,
                _ => false,
            })
        }
        _ => false,
    }
}

/// Ops whose results are valid symbols when all their operands are (side-effect free).
fn is_pure(name: &str) -> bool {
    (name.starts_with("arith.") || name.starts_with("index.") || name.starts_with("math."))
        && name != "arith.constant"
        || matches!(name, "affine.apply" | "affine.min" | "affine.max")
}

pub(super) fn is_valid_symbol(m: &Module, v: ValueId, scope: Option<OpId>, depth: u32) -> bool {
    if !m.value_type(v).is_index() || depth > 64 {
        return false;
    }
    if is_top_level(m, v, scope) {
        return true;
    }
    let Some(d) = m.defining_op(v) else {
        return false;
    };
    let name = m.op(d).name.as_str();
    if name.ends_with(".constant") {
        return true;
    }
    if is_pure(name)
        && m.operands(d)
            .iter()
            .all(|&o| is_valid_symbol(m, o, scope, depth + 1))
    {
        return true;
    }
    if matches!(name, "memref.dim" | "tensor.dim") {
        return dim_is_valid_symbol(m, d, scope, depth);
    }
    false
}

/// MLIR's `isDimOpValidSymbol`: the shaped value is top-level, or the queried size of the
/// alloc/view/subview that defines it is static or itself a valid symbol.
fn dim_is_valid_symbol(m: &Module, dim: OpId, scope: Option<OpId>, depth: u32) -> bool {
    let [src, idx] = m.operands(dim)[..] else {
        return false;
    };
    if is_top_level(m, src, None) {
        return true;
    }
    let Some(index) = m
        .defining_op(idx)
        .filter(|&c| m.op(c).name == "arith.constant")
        .and_then(|c| prop(m, c, "value"))
        .and_then(|a| a.as_int())
        .and_then(|i| usize::try_from(i).ok())
    else {
        return false;
    };
    let mut v = src;
    let mut def = m.defining_op(v);
    while let Some(d) = def.filter(|&d| m.op(d).name == "memref.cast") {
        v = m.operands(d)[0];
        def = m.defining_op(v);
    }
    let Some(d) = def else { return false };
    let dyn_sizes: Vec<ValueId> = match m.op(d).name.as_str() {
        "memref.alloc" | "memref.alloca" => match segments(m, d, 2) {
            Some(s) => s[0].to_vec(),
            None => return false,
        },
        "memref.view" => m
            .operands(d)
            .get(2..)
            .map(<[_]>::to_vec)
            .unwrap_or_default(),
        "memref.subview" => match segments(m, d, 4) {
            Some(s) => s[2].to_vec(),
            None => return false,
        },
        _ => return false,
    };
    let Some(shape) = m.value_type(m.result(d, 0)).shape().map(<[i64]>::to_vec) else {
        return false;
    };
    match shape.get(index) {
        None => false,
        Some(&s) if s != DYNAMIC => true,
        Some(_) => {
            let pos = shape[..index].iter().filter(|&&x| x == DYNAMIC).count();
            dyn_sizes
                .get(pos)
                .is_some_and(|&s| is_valid_symbol(m, s, scope, depth + 1))
        }
    }
}

pub(super) fn is_valid_dim(m: &Module, v: ValueId, scope: Option<OpId>) -> bool {
    if !m.value_type(v).is_index() {
        return false;
    }
    if is_valid_symbol(m, v, scope, 0) {
        return true;
    }
    let Some(d) = m.defining_op(v) else {
        return is_affine_iv(m, v);
    };
    match m.op(d).name.as_str() {
        "affine.apply" => {
            let nd = map_prop(m, d, "map").map_or(0, |mp| mp.num_dims as usize);
            m.operands(d).iter().enumerate().all(|(i, &o)| {
                if i < nd {
                    is_valid_dim(m, o, scope)
                } else {
                    is_valid_symbol(m, o, scope, 0)
                }
            })
        }
        "memref.dim" | "tensor.dim" => m
            .operands(d)
            .first()
            .is_some_and(|&s| is_top_level(m, s, None)),
        _ => false,
    }
}

/// MLIR's `verifyDimAndSymbolIdentifiers`.
fn check_dims_syms(m: &Module, op: OpId, ops: &[ValueId], num_dims: usize) -> Result<(), String> {
    let scope = affine_scope(m, op);
    for (i, &v) in ops.iter().enumerate() {
        if i < num_dims {
            if !is_valid_dim(m, v, scope) {
                return Err("operand cannot be used as a dimension id".into());
            }
        } else if !is_valid_symbol(m, v, scope, 0) {
            return Err("operand cannot be used as a symbol".into());
        }
    }
    Ok(())
}

fn print_map(p: &mut Printer<'_>, map: &AffineMap) {
    p.print_attr(&Attribute::AffineMap(map.clone()));
}

// ===================== affine.for =====================

/// One loop bound: `%n`, a constant, or `[max|min] #map(dims)[syms]`.
fn parse_bound(p: &mut Parser<'_>, lower: bool, operands: &mut Vec<ValueId>) -> PResult<AffineMap> {
    let kw = if lower { "max" } else { "min" };
    let has_kw = p.parse_optional_keyword(kw);
    let start = p.current_span();
    let ssa = p.parse_operand_list()?;
    if !ssa.is_empty() {
        if ssa.len() > 1 {
            return Err(crate::Diagnostic::new(
                start,
                "expected only one loop bound operand",
            ));
        }
        operands.extend(resolve_indices(p, &ssa)?);
        return Ok(AffineMap {
            num_dims: 0,
            num_symbols: 1,
            results: vec![AffineExpr::Symbol(0)],
        });
    }
    let at = p.current_span();
    match p.parse_attribute()? {
        Attribute::AffineMap(map) => {
            let (ops, nd) = parse_dim_and_symbol_list(p)?;
            if map.num_dims != nd {
                return Err(crate::Diagnostic::new(
                    at,
                    "dim operand count and affine map dim count must match",
                ));
            }
            if ops.len() != (map.num_dims + map.num_symbols) as usize {
                return Err(crate::Diagnostic::new(
                    at,
                    "symbol operand count and affine map symbol count must match",
                ));
            }
            if map.results.len() > 1 && !has_kw {
                let which = if lower { "lower" } else { "upper" };
                return Err(crate::Diagnostic::new(
                    at,
                    format!(
                        "custom op 'affine.for' {which} loop bound affine map with multiple results requires '{kw}' prefix"
                    ),
                ));
            }
            operands.extend(ops);
            Ok(map)
        }
        Attribute::Integer { value, .. } => {
            let c = i64::try_from(value)
                .map_err(|_| crate::Diagnostic::new(at, "loop bound out of range"))?;
            Ok(AffineMap {
                num_dims: 0,
                num_symbols: 0,
                results: vec![AffineExpr::Const(c)],
            })
        }
        _ => Err(crate::Diagnostic::new(
            at,
            "expected valid affine map representation for loop bounds",
        )),
    }
}

fn parse_for(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let iv = parse_arg_name(p)?;
    p.parse_equal()?;
    let mut lb_ops = Vec::new();
    let lb = parse_bound(p, true, &mut lb_ops)?;
    if !p.parse_optional_keyword("to") {
        return Err(p.error_here("custom op 'affine.for' expected 'to' between bounds"));
    }
    let mut ub_ops = Vec::new();
    let ub = parse_bound(p, false, &mut ub_ops)?;
    let mut step = 1i64;
    if p.parse_optional_keyword("step") {
        let at = p.current_span();
        let v = p.parse_integer()?;
        if v <= 0 {
            return Err(crate::Diagnostic::new(
                at,
                "custom op 'affine.for' expected step to be representable as a positive signed integer",
            ));
        }
        step = v;
    }
    let mut names = vec![iv];
    let mut inits = Vec::new();
    if p.parse_optional_keyword("iter_args") {
        let (a, v) = parse_assignment_list(p)?;
        names.extend(a);
        inits = v;
        p.parse_arrow()?;
        st.result_types = p.parse_function_result_types()?;
    }
    let at = p.current_span();
    if names.len() != st.result_types.len() + 1 {
        return Err(crate::Diagnostic::new(
            at,
            "custom op 'affine.for' mismatch between the number of loop-carried values and results",
        ));
    }
    let rt = st.result_types.clone();
    let init_vals = p.resolve_operands(&inits, &rt, at)?;
    let mut tys = vec![Type::index()];
    tys.extend(rt);
    let args = make_args(&names, &tys);
    let r = p.parse_region(&args)?;
    ensure_terminator(p, r, "affine.yield");
    st.regions.push(r);
    set_segments(st, &[lb_ops.len(), ub_ops.len(), init_vals.len()]);
    st.operands.extend(lb_ops);
    st.operands.extend(ub_ops);
    st.operands.extend(init_vals);
    st.props.set("lowerBoundMap", Attribute::AffineMap(lb));
    st.props.set("upperBoundMap", Attribute::AffineMap(ub));
    st.props
        .set("step", Attribute::int(step.into(), Type::index()));
    p.parse_optional_attr_dict(&mut st.attrs)?;
    Ok(())
}

fn print_bound(p: &mut Printer<'_>, map: &AffineMap, ops: &[ValueId], kw: &str) {
    if map.results.len() == 1 {
        if map.num_dims == 0 && map.num_symbols == 0 {
            if let AffineExpr::Const(c) = map.results[0] {
                p.write(&c.to_string());
                return;
            }
        }
        if map.num_dims == 0 && map.num_symbols == 1 && map.results[0] == AffineExpr::Symbol(0) {
            p.print_operand(ops[0]);
            return;
        }
    } else {
        p.write(kw);
        p.write(" ");
    }
    print_map(p, map);
    print_dim_and_symbol_list(p, ops, map.num_dims as usize);
}

fn print_for(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(seg) = segments(m, op, 3) else {
        return false;
    };
    let (Some(lb), Some(ub)) = (
        map_prop(m, op, "lowerBoundMap"),
        map_prop(m, op, "upperBoundMap"),
    ) else {
        return false;
    };
    let Some(step) = prop(m, op, "step").and_then(|a| a.as_int()) else {
        return false;
    };
    let [r] = m.regions(op) else { return false };
    let Some(b) = single_block(m, *r) else {
        return false;
    };
    let args = m.block_args(b);
    let inputs = |mp: &AffineMap| (mp.num_dims + mp.num_symbols) as usize;
    if inputs(&lb) != seg[0].len()
        || inputs(&ub) != seg[1].len()
        || lb.results.is_empty()
        || ub.results.is_empty()
        || args.len() != seg[2].len() + 1
        || !m.value_type(args[0]).is_index()
        || types_of(m, &args[1..]) != types_of(m, seg[2])
        || types_of(m, m.results(op)) != types_of(m, seg[2])
        || args.iter().any(|&a| m.value(a).loc().is_some())
    {
        return false;
    }
    p.write(" ");
    p.print_operand(args[0]);
    p.write(" = ");
    print_bound(p, &lb, seg[0], "max");
    p.write(" to ");
    print_bound(p, &ub, seg[1], "min");
    if step != 1 {
        p.write(&format!(" step {step}"));
    }
    print_assignment_list(p, " iter_args", &args[1..], seg[2]);
    if !seg[2].is_empty() {
        p.write(" -> (");
        p.print_value_types(seg[2]);
        p.write(")");
    }
    p.write(" ");
    let elide = seg[2].is_empty() && terminators_elidable(m, *r, "affine.yield");
    p.print_region(*r, false, !elide);
    print_attrs(
        p,
        op,
        &[
            "lowerBoundMap",
            "upperBoundMap",
            "step",
            "operandSegmentSizes",
        ],
    );
    true
}

fn verify_for(m: &Module, op: OpId) -> Result<(), String> {
    let seg = segments_checked(m, op, 3)?;
    let (Some(lb), Some(ub)) = (
        map_prop(m, op, "lowerBoundMap"),
        map_prop(m, op, "upperBoundMap"),
    ) else {
        return Err("requires attributes 'lowerBoundMap' and 'upperBoundMap'".into());
    };
    if (lb.num_dims + lb.num_symbols) as usize != seg[0].len() {
        return Err("lower bound operand count does not match the affine map".into());
    }
    if (ub.num_dims + ub.num_symbols) as usize != seg[1].len() {
        return Err("upper bound operand count does not match the affine map".into());
    }
    check_dims_syms(m, op, seg[0], lb.num_dims as usize)?;
    check_dims_syms(m, op, seg[1], ub.num_dims as usize)?;
    if m.results(op).len() != seg[2].len() {
        return Err("mismatch between the number of loop-carried values and results".into());
    }
    let Some(&r) = m.regions(op).first() else {
        return Err("requires one region".into());
    };
    if let Some(&b) = m.region_blocks(r).first() {
        let args = m.block_args(b);
        if args.len() != seg[2].len() + 1
            || !args.first().is_some_and(|&a| m.value_type(a).is_index())
        {
            return Err("expected body to have a single index argument for the induction variable and one argument per iter_arg".into());
        }
        if let Some(y) = m.last_op(b).filter(|&y| m.op(y).name == "affine.yield") {
            if types_of(m, m.operands(y)) != types_of(m, m.results(op)) {
                return Err("types mismatch between yield op and its parent".into());
            }
        }
    }
    Ok(())
}

// ===================== affine.if =====================

fn parse_if(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let at = p.current_span();
    let set = match p.parse_attribute()? {
        Attribute::IntegerSet(s) => s,
        _ => return Err(crate::Diagnostic::new(at, "expected integer set attribute")),
    };
    let (ops, nd) = parse_dim_and_symbol_list(p)?;
    if set.num_dims != nd {
        return Err(crate::Diagnostic::new(
            at,
            "dim operand count and integer set dim count must match",
        ));
    }
    if (set.num_dims + set.num_symbols) as usize != ops.len() {
        return Err(crate::Diagnostic::new(
            at,
            "symbol operand count and integer set symbol count must match",
        ));
    }
    st.operands = ops;
    st.props.set("condition", Attribute::IntegerSet(set));
    st.result_types = p.parse_optional_arrow_type_list()?;
    let then = p.parse_region(&[])?;
    ensure_terminator(p, then, "affine.yield");
    let els = if p.parse_optional_keyword("else") {
        let e = p.parse_region(&[])?;
        ensure_terminator(p, e, "affine.yield");
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
    let Some(Attribute::IntegerSet(set)) = prop(m, op, "condition").cloned() else {
        return false;
    };
    let [then, els] = m.regions(op) else {
        return false;
    };
    if single_block(m, *then).is_none()
        || m.region_blocks(*els).len() > 1
        || (set.num_dims + set.num_symbols) as usize != m.operands(op).len()
    {
        return false;
    }
    let no_args = [*then, *els].iter().all(|&r| {
        m.region_blocks(r)
            .first()
            .is_none_or(|&b| m.block_args(b).is_empty())
    });
    if !no_args {
        return false;
    }
    p.write(" ");
    p.print_attr(&Attribute::IntegerSet(set.clone()));
    print_dim_and_symbol_list(p, m.operands(op), set.num_dims as usize);
    let res = m.results(op);
    if !res.is_empty() {
        p.write(" -> ");
        let tys = types_of(m, res);
        p.print_function_result_types(&tys);
    }
    p.write(" ");
    let elide = res.is_empty() && terminators_elidable(m, *then, "affine.yield");
    p.print_region(*then, false, !elide);
    if !m.region_blocks(*els).is_empty() {
        p.write(" else ");
        let elide = res.is_empty() && terminators_elidable(m, *els, "affine.yield");
        p.print_region(*els, false, !elide);
    }
    print_attrs(p, op, &["condition"]);
    true
}

fn verify_if(m: &Module, op: OpId) -> Result<(), String> {
    let Some(Attribute::IntegerSet(set)) = prop(m, op, "condition") else {
        return Err("requires an integer set attribute named 'condition'".into());
    };
    if (set.num_dims + set.num_symbols) as usize != m.operands(op).len() {
        return Err(
            "operand count and condition integer set dim and symbol count must match".into(),
        );
    }
    if m.regions(op).len() != 2 {
        return Err("expected 2 regions".into());
    }
    for (i, &r) in m.regions(op).iter().enumerate() {
        if let Some(&b) = m.region_blocks(r).first() {
            if !m.block_args(b).is_empty() {
                return Err(format!("region #{i} should have no arguments"));
            }
        }
    }
    check_dims_syms(m, op, m.operands(op), set.num_dims as usize)?;
    let res = types_of(m, m.results(op));
    if !res.is_empty() && m.region_blocks(m.regions(op)[1]).is_empty() {
        return Err("must have an else block if defining values".into());
    }
    for &r in m.regions(op) {
        let y = m
            .region_blocks(r)
            .first()
            .and_then(|&b| m.last_op(b))
            .filter(|&y| m.op(y).name == "affine.yield");
        if let Some(y) = y {
            if types_of(m, m.operands(y)) != res {
                return Err("types mismatch between yield op and its parent".into());
            }
        }
    }
    Ok(())
}

// ===================== affine.yield =====================

fn verify_yield(m: &Module, op: OpId) -> Result<(), String> {
    match m.parent_op(op).map(|o| m.op(o).name.as_str()) {
        Some("affine.for" | "affine.if" | "affine.parallel") => Ok(()),
        _ => Err("expects parent op to be one of 'affine.for, affine.if, affine.parallel'".into()),
    }
}

// ===================== load / store =====================

fn parse_load(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let mref = p.parse_operand()?;
    let mut idx: Vec<UnresolvedOperand> = Vec::new();
    let map = p.parse_affine_map_of_ssa_ids(&mut idx, Delimiter::Square)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let at = p.current_span();
    let t = p.parse_colon_type()?;
    let res = if st.name == "affine.vector_load" {
        p.parse_comma()?;
        p.parse_type()?
    } else {
        match t.element_type() {
            Some(e) => e.clone(),
            None => return Err(crate::Diagnostic::new(at, "expected a memref type")),
        }
    };
    st.operands.push(p.resolve_operand(&mref, &t)?);
    st.operands.extend(resolve_indices(p, &idx)?);
    st.props.set("map", Attribute::AffineMap(map));
    st.result_types.push(res);
    Ok(())
}

pub(super) fn print_subscripts(p: &mut Printer<'_>, map: &AffineMap, ops: &[ValueId]) -> bool {
    if (map.num_dims + map.num_symbols) as usize != ops.len() {
        return false;
    }
    p.write("[");
    p.print_affine_map_of_ssa_ids(map, ops);
    p.write("]");
    true
}

fn print_load(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    let Some(map) = map_prop(m, op, "map") else {
        return false;
    };
    if ops.is_empty() || m.results(op).len() != 1 {
        return false;
    }
    let vector = m.op(op).name == "affine.vector_load";
    let t = m.value_type(ops[0]);
    let r = m.value_type(m.result(op, 0));
    if !vector && t.element_type() != Some(r) {
        return false;
    }
    p.write(" ");
    p.print_operand(ops[0]);
    if !print_subscripts(p, &map, &ops[1..]) {
        return false;
    }
    print_attrs(p, op, &["map"]);
    p.write(" : ");
    p.print_type(t);
    if vector {
        p.write(", ");
        p.print_type(r);
    }
    true
}

fn check_access(m: &Module, op: OpId, mref: ValueId, idx: &[ValueId]) -> Result<AffineMap, String> {
    let Some(map) = map_prop(m, op, "map") else {
        return Err("requires attribute 'map'".into());
    };
    let t = m.value_type(mref);
    let Some(mp) = memref_parts(t) else {
        return Err(format!("expects a ranked memref, got '{t}'"));
    };
    if map.results.len() != mp.shape.len() {
        return Err("affine map num results must equal memref rank".into());
    }
    if (map.num_dims + map.num_symbols) as usize != idx.len() {
        return Err("expects as many subscripts as affine map inputs".into());
    }
    if !all_index(m, idx) {
        return Err("index to load must have 'index' type".into());
    }
    check_dims_syms(m, op, idx, map.num_dims as usize)?;
    Ok(map)
}

fn check_vector_elem(m: &Module, mref: ValueId, v: &Type) -> Result<(), String> {
    let is_vec = matches!(v.kind(), TypeKind::Vector { .. });
    if !is_vec || m.value_type(mref).element_type() != v.element_type() {
        return Err("requires memref and vector types of the same elemental type".into());
    }
    Ok(())
}

fn verify_load(m: &Module, op: OpId) -> Result<(), String> {
    let ops = m.operands(op);
    if ops.is_empty() || m.results(op).len() != 1 {
        return Err("expects a memref operand and one result".into());
    }
    let r = m.value_type(m.result(op, 0));
    if m.op(op).name == "affine.vector_load" {
        check_vector_elem(m, ops[0], r)?;
    } else if m.value_type(ops[0]).element_type() != Some(r) {
        return Err("result type must match element type of memref".into());
    }
    check_access(m, op, ops[0], &ops[1..]).map(|_| ())
}

fn parse_store(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let val = p.parse_operand()?;
    p.parse_comma()?;
    let mref = p.parse_operand()?;
    let mut idx: Vec<UnresolvedOperand> = Vec::new();
    let map = p.parse_affine_map_of_ssa_ids(&mut idx, Delimiter::Square)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let at = p.current_span();
    let t = p.parse_colon_type()?;
    let vt = if st.name == "affine.vector_store" {
        p.parse_comma()?;
        p.parse_type()?
    } else {
        match t.element_type() {
            Some(e) => e.clone(),
            None => return Err(crate::Diagnostic::new(at, "expected a memref type")),
        }
    };
    st.operands.push(p.resolve_operand(&val, &vt)?);
    st.operands.push(p.resolve_operand(&mref, &t)?);
    st.operands.extend(resolve_indices(p, &idx)?);
    st.props.set("map", Attribute::AffineMap(map));
    Ok(())
}

fn print_store(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    let Some(map) = map_prop(m, op, "map") else {
        return false;
    };
    if ops.len() < 2 || !m.results(op).is_empty() {
        return false;
    }
    let vector = m.op(op).name == "affine.vector_store";
    let t = m.value_type(ops[1]);
    let v = m.value_type(ops[0]);
    if !vector && t.element_type() != Some(v) {
        return false;
    }
    p.write(" ");
    p.print_operand(ops[0]);
    p.write(", ");
    p.print_operand(ops[1]);
    if !print_subscripts(p, &map, &ops[2..]) {
        return false;
    }
    print_attrs(p, op, &["map"]);
    p.write(" : ");
    p.print_type(t);
    if vector {
        p.write(", ");
        p.print_type(v);
    }
    true
}

fn verify_store(m: &Module, op: OpId) -> Result<(), String> {
    let ops = m.operands(op);
    if ops.len() < 2 {
        return Err("expects a value and a memref operand".into());
    }
    if m.op(op).name == "affine.vector_store" {
        check_vector_elem(m, ops[1], m.value_type(ops[0]))?;
    } else if m.value_type(ops[1]).element_type() != Some(m.value_type(ops[0])) {
        return Err("value to store must have the same type as memref element type".into());
    }
    check_access(m, op, ops[1], &ops[2..]).map(|_| ())
}

// ===================== prefetch =====================

/// `affine.prefetch %m[%i + 1, %j], read, locality<3>, data : memref<...>` (MLIR writes its
/// syntax in C++: `AffinePrefetchOp::parse`).
fn parse_prefetch(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let mref = p.parse_operand()?;
    let mut idx: Vec<UnresolvedOperand> = Vec::new();
    let map = p.parse_affine_map_of_ssa_ids(&mut idx, Delimiter::Square)?;
    p.parse_comma()?;
    let rw_at = p.current_span();
    let rw = p.parse_keyword_any("keyword")?;
    p.parse_comma()?;
    p.parse_keyword("locality")?;
    p.parse_less()?;
    let hint_at = p.current_span();
    let hint = p.parse_integer()?;
    p.parse_greater()?;
    p.parse_comma()?;
    let cache_at = p.current_span();
    let cache = p.parse_keyword_any("keyword")?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    st.operands.push(p.resolve_operand(&mref, &t)?);
    st.operands.extend(resolve_indices(p, &idx)?);
    if rw != "read" && rw != "write" {
        return Err(crate::Diagnostic::new(
            rw_at,
            "rw specifier has to be 'read' or 'write'",
        ));
    }
    if cache != "data" && cache != "instr" {
        return Err(crate::Diagnostic::new(
            cache_at,
            "cache type has to be 'data' or 'instr'",
        ));
    }
    if i32::try_from(hint).is_err() {
        return Err(crate::Diagnostic::new(
            hint_at,
            "integer constant out of range for attribute",
        ));
    }
    // in the order MLIR's generic form lists them (sorted by name)
    st.props
        .set("isDataCache", Attribute::Bool(cache == "data"));
    st.props.set("isWrite", Attribute::Bool(rw == "write"));
    st.props
        .set("localityHint", Attribute::int(hint as i128, Type::int(32)));
    st.props.set("map", Attribute::AffineMap(map));
    Ok(())
}

fn print_prefetch(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    let (Some(map), Some(Attribute::Bool(write)), Some(Attribute::Bool(data))) = (
        map_prop(m, op, "map"),
        prop(m, op, "isWrite"),
        prop(m, op, "isDataCache"),
    ) else {
        return false;
    };
    let Some(Attribute::Integer { value: hint, ty }) = prop(m, op, "localityHint") else {
        return false;
    };
    if ops.is_empty() || !m.results(op).is_empty() || *ty != Type::int(32) {
        return false;
    }
    let (write, data, hint) = (*write, *data, *hint);
    p.write(" ");
    p.print_operand(ops[0]);
    if !print_subscripts(p, &map, &ops[1..]) {
        return false;
    }
    p.write(if write { ", write" } else { ", read" });
    p.write(&format!(", locality<{hint}>, "));
    p.write(if data { "data" } else { "instr" });
    print_attrs(p, op, &["map", "isWrite", "localityHint", "isDataCache"]);
    p.write(" : ");
    p.print_type(m.value_type(ops[0]));
    true
}

fn verify_prefetch(m: &Module, op: OpId) -> Result<(), String> {
    let ops = m.operands(op);
    let Some(&mref) = ops.first() else {
        return Err("expects a memref operand".into());
    };
    for name in ["isWrite", "isDataCache"] {
        match prop(m, op, name) {
            Some(Attribute::Bool(_)) => {}
            Some(_) => {
                return Err(format!(
                    "attribute '{name}' failed to satisfy constraint: bool attribute"
                ))
            }
            None => return Err(format!("requires attribute '{name}'")),
        }
    }
    match prop(m, op, "localityHint") {
        Some(Attribute::Integer { value, ty }) if *ty == Type::int(32) => {
            if !(0..=3).contains(value) {
                return Err("attribute 'localityHint' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 3".into());
            }
        }
        Some(_) => return Err("attribute 'localityHint' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 3".into()),
        None => return Err("requires attribute 'localityHint'".into()),
    }
    let t = m.value_type(mref);
    let Some(mp) = memref_parts(t) else {
        return Err(format!(
            "operand #0 must be memref of any type values, but got '{t}'"
        ));
    };
    match map_prop(m, op, "map") {
        Some(map) => {
            if map.results.len() != mp.shape.len() {
                return Err("affine.prefetch affine map num results must equal memref rank".into());
            }
            if (map.num_dims + map.num_symbols) as usize + 1 != ops.len() {
                return Err("too few operands".into());
            }
        }
        None if ops.len() != 1 => return Err("too few operands".into()),
        None => {}
    }
    if !all_index(m, &ops[1..]) {
        return Err("operand #1 must be variadic of index, but got a non-index operand".into());
    }
    let scope = affine_scope(m, op);
    for &v in &ops[1..] {
        if !is_valid_dim(m, v, scope) && !is_valid_symbol(m, v, scope, 0) {
            return Err("index must be a dimension or symbol identifier".into());
        }
    }
    Ok(())
}

// ===================== apply / min / max =====================

fn parse_apply(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let at = p.current_span();
    let map = parse_map_attr(p)?;
    let (ops, nd) = parse_dim_and_symbol_list(p)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    if st.name == "affine.apply"
        && (map.num_dims != nd || (map.num_dims + map.num_symbols) as usize != ops.len())
    {
        return Err(crate::Diagnostic::new(
            at,
            "dimension or symbol index mismatch",
        ));
    }
    let n = if st.name == "affine.apply" {
        map.results.len()
    } else {
        1
    };
    st.result_types = vec![Type::index(); n];
    st.operands = ops;
    st.props.set("map", Attribute::AffineMap(map));
    Ok(())
}

fn print_apply(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(map) = map_prop(m, op, "map") else {
        return false;
    };
    let ops = m.operands(op);
    let n_res = if m.op(op).name == "affine.apply" {
        map.results.len()
    } else {
        1
    };
    if (map.num_dims + map.num_symbols) as usize != ops.len()
        || !all_index(m, ops)
        || m.results(op).len() != n_res
        || !all_index(m, m.results(op))
    {
        return false;
    }
    p.write(" ");
    print_map(p, &map);
    print_dim_and_symbol_list(p, ops, map.num_dims as usize);
    print_attrs(p, op, &["map"]);
    true
}

fn verify_apply(m: &Module, op: OpId) -> Result<(), String> {
    let name = m.op(op).name.clone();
    for (i, &v) in m.operands(op).iter().enumerate() {
        if !m.value_type(v).is_index() {
            return Err(format!(
                "operand #{i} must be variadic of index, but got '{}'",
                m.value_type(v)
            ));
        }
    }
    for (i, &v) in m.results(op).iter().enumerate() {
        if !m.value_type(v).is_index() {
            return Err(format!(
                "result #{i} must be index, but got '{}'",
                m.value_type(v)
            ));
        }
    }
    let Some(map) = map_prop(m, op, "map") else {
        return Err("requires attribute 'map'".into());
    };
    if (map.num_dims + map.num_symbols) as usize != m.operands(op).len() {
        return Err("operand count and affine map dimension and symbol count must match".into());
    }
    if name == "affine.apply" {
        if map.results.len() != 1 {
            return Err("mapping must produce one value".into());
        }
    } else if map.results.is_empty() {
        return Err("affine map expect at least one result".into());
    }
    Ok(())
}

// ===================== delinearize / linearize =====================

fn parse_delinearize(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let lin = p.parse_operand()?;
    p.parse_keyword("into")?;
    let mut dyns = Vec::new();
    let basis = p.parse_dynamic_index_list(&mut dyns, Delimiter::Paren)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    st.result_types = p.parse_colon_type_list()?;
    st.operands.push(p.resolve_operand(&lin, &Type::index())?);
    st.operands.extend(resolve_indices(p, &dyns)?);
    st.props.set("static_basis", Attribute::i64_array(&basis));
    Ok(())
}

fn print_delinearize(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    let Some(basis) = int_array(m, op, "static_basis") else {
        return false;
    };
    let ndyn = basis.iter().filter(|&&b| b == DYNAMIC).count();
    if ops.len() != ndyn + 1 || m.results(op).is_empty() || !all_index(m, ops) {
        return false;
    }
    p.write(" ");
    p.print_operand(ops[0]);
    p.write(" into ");
    p.print_dynamic_index_list(&ops[1..], &basis, '(', ')');
    print_attrs(p, op, &["static_basis"]);
    p.write(" : ");
    p.print_value_types(m.results(op));
    true
}

fn verify_delinearize(m: &Module, op: OpId) -> Result<(), String> {
    let basis = int_array(m, op, "static_basis").unwrap_or_default();
    let n = m.results(op).len();
    if basis.len() != n && basis.len() + 1 != n {
        return Err(format!(
            "should return an index for each basis element and up to one extra index (got {n} results for {} basis elements)",
            basis.len()
        ));
    }
    Ok(())
}

fn parse_linearize(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    if p.parse_optional_keyword("disjoint") {
        st.props.set("disjoint", Attribute::Unit);
    }
    let idx = p.parse_operand_list_delimited(Delimiter::Square)?;
    p.parse_keyword("by")?;
    let mut dyns = Vec::new();
    let basis = p.parse_dynamic_index_list(&mut dyns, Delimiter::Paren)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    st.operands = resolve_indices(p, &idx)?;
    st.operands.extend(resolve_indices(p, &dyns)?);
    set_segments(st, &[idx.len(), dyns.len()]);
    st.props.set("static_basis", Attribute::i64_array(&basis));
    st.result_types.push(t);
    Ok(())
}

fn print_linearize(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(seg) = segments(m, op, 2) else {
        return false;
    };
    let Some(basis) = int_array(m, op, "static_basis") else {
        return false;
    };
    if basis.iter().filter(|&&b| b == DYNAMIC).count() != seg[1].len() || m.results(op).len() != 1 {
        return false;
    }
    if flag(m, op, "disjoint") {
        p.write(" disjoint");
    }
    p.write(" [");
    p.print_operands(seg[0]);
    p.write("] by ");
    p.print_dynamic_index_list(seg[1], &basis, '(', ')');
    print_attrs(p, op, &["static_basis", "disjoint", "operandSegmentSizes"]);
    p.write(" : ");
    p.print_value_types(m.results(op));
    true
}

fn verify_linearize(m: &Module, op: OpId) -> Result<(), String> {
    let seg = segments_checked(m, op, 2)?;
    let basis = int_array(m, op, "static_basis").unwrap_or_default();
    let n = seg[0].len();
    if basis.len() != n && basis.len() + 1 != n {
        return Err(format!(
            "should be passed a basis element for each index except possibly the first (got {n} indices for {} basis elements)",
            basis.len()
        ));
    }
    Ok(())
}

// ===================== affine.parallel =====================

/// `(e0, max(e1, e2), ...)`: one flattened map over shared dims/symbols, plus group sizes.
fn parse_min_max_bounds(
    p: &mut Parser<'_>,
    kw: &str,
    operands: &mut Vec<UnresolvedOperand>,
) -> PResult<(AffineMap, Vec<i64>)> {
    let mut dims = Vec::new();
    let mut syms = Vec::new();
    let mut exprs = Vec::new();
    let mut groups = Vec::new();
    p.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
        if p.parse_optional_keyword(kw) {
            let mut n = 0;
            p.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
                exprs.push(p.parse_affine_expr_of_ssa_ids(&mut dims, &mut syms)?);
                n += 1;
                Ok(())
            })?;
            groups.push(n);
        } else {
            exprs.push(p.parse_affine_expr_of_ssa_ids(&mut dims, &mut syms)?);
            groups.push(1);
        }
        Ok(())
    })?;
    let map = AffineMap {
        num_dims: dims.len() as u32,
        num_symbols: syms.len() as u32,
        results: exprs,
    };
    operands.extend(dims);
    operands.extend(syms);
    Ok((map, groups))
}

fn i32_tensor(vals: &[i64]) -> Attribute {
    let body = if vals.is_empty() {
        String::new()
    } else {
        format!(
            "[{}]",
            vals.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    Attribute::Elements {
        kind: "dense".into(),
        body,
        ty: Type::new(TypeKind::RankedTensor {
            shape: vec![vals.len() as i64],
            elem: Type::int(32),
            encoding: None,
        }),
    }
}

fn parse_parallel(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let ivs = p.parse_argument_list(Delimiter::Paren, false, false)?;
    p.parse_equal()?;
    let mut lb_ops = Vec::new();
    let (lb, lbg) = parse_min_max_bounds(p, "max", &mut lb_ops)?;
    p.parse_keyword("to")?;
    let mut ub_ops = Vec::new();
    let (ub, ubg) = parse_min_max_bounds(p, "min", &mut ub_ops)?;
    let steps = if p.parse_optional_keyword("step") {
        let at = p.current_span();
        let mut tmp = Vec::new();
        let sm = p.parse_affine_map_of_ssa_ids(&mut tmp, Delimiter::Paren)?;
        let mut v = Vec::new();
        for e in &sm.results {
            match e {
                AffineExpr::Const(c) => v.push(Attribute::int((*c).into(), Type::int(64))),
                _ => {
                    return Err(crate::Diagnostic::new(
                        at,
                        "steps must be constant integers",
                    ))
                }
            }
        }
        v
    } else {
        vec![Attribute::int(1, Type::int(64)); ivs.len()]
    };
    let mut reductions = Vec::new();
    if p.parse_optional_keyword("reduce") {
        p.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
            let at = p.current_span();
            let s = p.parse_string()?;
            match ATOMIC_KINDS.iter().position(|&k| k == s) {
                Some(k) => {
                    reductions.push(Attribute::int(k as i128, Type::int(64)));
                    Ok(())
                }
                None => Err(crate::Diagnostic::new(
                    at,
                    format!("custom op 'affine.parallel' invalid reduction value: \"{s}\""),
                )),
            }
        })?;
    }
    st.result_types = p.parse_optional_arrow_type_list()?;
    let args: Vec<Argument> = ivs
        .into_iter()
        .map(|mut a| {
            a.ty = Type::index();
            a
        })
        .collect();
    let r = p.parse_region(&args)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    ensure_terminator(p, r, "affine.yield");
    st.regions.push(r);
    st.operands = resolve_indices(p, &lb_ops)?;
    st.operands.extend(resolve_indices(p, &ub_ops)?);
    st.props.set("lowerBoundsMap", Attribute::AffineMap(lb));
    st.props.set("lowerBoundsGroups", i32_tensor(&lbg));
    st.props.set("upperBoundsMap", Attribute::AffineMap(ub));
    st.props.set("upperBoundsGroups", i32_tensor(&ubg));
    st.props.set("steps", Attribute::Array(steps));
    st.props.set("reductions", Attribute::Array(reductions));
    Ok(())
}

fn int_list(a: Option<&Attribute>) -> Option<Vec<i64>> {
    match a? {
        Attribute::Array(v) => v
            .iter()
            .map(|x| x.as_int().and_then(|i| i64::try_from(i).ok()))
            .collect(),
        _ => None,
    }
}

fn print_min_max_bound(
    p: &mut Printer<'_>,
    map: &AffineMap,
    groups: &[i64],
    ops: &[ValueId],
    kw: &str,
) {
    let mut start = 0usize;
    for (i, &g) in groups.iter().enumerate() {
        if i > 0 {
            p.write(", ");
        }
        let g = g as usize;
        if g == 1 {
            p.print_affine_expr_of_ssa_ids(&map.results[start], map.num_dims, ops);
        } else {
            p.write(kw);
            p.write("(");
            let sub = AffineMap {
                num_dims: map.num_dims,
                num_symbols: map.num_symbols,
                results: map.results[start..start + g].to_vec(),
            };
            p.print_affine_map_of_ssa_ids(&sub, ops);
            p.write(")");
        }
        start += g;
    }
}

/// Maps, groups, steps and reductions of an `affine.parallel`, checked for consistency.
struct ParallelParts {
    lb: AffineMap,
    lbg: Vec<i64>,
    ub: AffineMap,
    ubg: Vec<i64>,
    steps: Vec<i64>,
    reductions: Vec<i64>,
}

fn parallel_parts(m: &Module, op: OpId) -> Option<ParallelParts> {
    let parts = ParallelParts {
        lb: map_prop(m, op, "lowerBoundsMap")?,
        lbg: dense_int_values(prop(m, op, "lowerBoundsGroups")?)?,
        ub: map_prop(m, op, "upperBoundsMap")?,
        ubg: dense_int_values(prop(m, op, "upperBoundsGroups")?)?,
        steps: int_list(prop(m, op, "steps"))?,
        reductions: int_list(prop(m, op, "reductions"))?,
    };
    let sum_ok = |g: &[i64], mp: &AffineMap| {
        g.iter().all(|&x| x >= 1) && g.iter().sum::<i64>() == mp.results.len() as i64
    };
    (sum_ok(&parts.lbg, &parts.lb) && sum_ok(&parts.ubg, &parts.ub)).then_some(parts)
}

fn print_parallel(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(pp) = parallel_parts(m, op) else {
        return false;
    };
    let [r] = m.regions(op) else { return false };
    let Some(b) = single_block(m, *r) else {
        return false;
    };
    let ivs = m.block_args(b);
    let ops = m.operands(op);
    let nl = (pp.lb.num_dims + pp.lb.num_symbols) as usize;
    let nu = (pp.ub.num_dims + pp.ub.num_symbols) as usize;
    let n = ivs.len();
    let res = m.results(op);
    if ops.len() != nl + nu
        || pp.lbg.len() != n
        || pp.ubg.len() != n
        || pp.steps.len() != n
        || pp.reductions.len() != res.len()
        || pp
            .reductions
            .iter()
            .any(|&k| usize::try_from(k).map_or(true, |k| k >= ATOMIC_KINDS.len()))
        || ivs.iter().any(|&a| m.value(a).loc().is_some())
    {
        return false;
    }
    p.write(" (");
    p.print_operands(ivs);
    p.write(") = (");
    print_min_max_bound(p, &pp.lb, &pp.lbg, &ops[..nl], "max");
    p.write(") to (");
    print_min_max_bound(p, &pp.ub, &pp.ubg, &ops[nl..], "min");
    p.write(")");
    if pp.steps.iter().any(|&s| s != 1) {
        p.write(" step (");
        p.write(
            &pp.steps
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        );
        p.write(")");
    }
    if !res.is_empty() {
        p.write(" reduce (");
        let names: Vec<String> = pp
            .reductions
            .iter()
            .map(|&k| format!("\"{}\"", ATOMIC_KINDS[k as usize]))
            .collect();
        p.write(&names.join(", "));
        p.write(") -> (");
        p.print_value_types(res);
        p.write(")");
    }
    p.write(" ");
    let elide = res.is_empty() && terminators_elidable(m, *r, "affine.yield");
    p.print_region(*r, false, !elide);
    print_attrs(p, op, PARALLEL_INHERENT);
    true
}

fn verify_parallel(m: &Module, op: OpId) -> Result<(), String> {
    let Some(pp) = parallel_parts(m, op) else {
        return Err("requires consistent bound maps, groups, steps and reductions".into());
    };
    let Some(&r) = m.regions(op).first() else {
        return Err("requires one region".into());
    };
    let n = m
        .region_blocks(r)
        .first()
        .map_or(0, |&b| m.block_args(b).len());
    if n != pp.lbg.len() || n != pp.ubg.len() || n != pp.steps.len() {
        return Err(format!(
            "the number of region arguments ({n}) and the number of map groups for lower ({}) and upper bound ({}), and the number of steps ({}) must all match",
            pp.lbg.len(),
            pp.ubg.len(),
            pp.steps.len()
        ));
    }
    if pp.reductions.len() != m.results(op).len() {
        return Err("a reduction must be specified for each output".into());
    }
    let ops = m.operands(op);
    let nl = (pp.lb.num_dims + pp.lb.num_symbols) as usize;
    let nu = (pp.ub.num_dims + pp.ub.num_symbols) as usize;
    if ops.len() != nl + nu {
        return Err("operand count does not match the bound maps".into());
    }
    check_dims_syms(m, op, &ops[..nl], pp.lb.num_dims as usize)?;
    check_dims_syms(m, op, &ops[nl..], pp.ub.num_dims as usize)?;
    Ok(())
}
