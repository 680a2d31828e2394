//! The `func` dialect's custom forms (mlir/lib/Dialect/Func/IR/FuncOps.cpp and
//! `function_interface_impl`): the reference example for writing custom parsers/printers.
//!
//! ```text
//! func.func [private|nested|public] @name(%arg0: i32 {attrs} loc(..), ...) -> (i32 {attrs}, f32)
//!     [attributes {...}] [{ body }]
//! func.func private @decl(i32, f32) -> i32
//! func.return %a, %b : i32, f32
//! %r = func.call @f(%a) : (i32) -> i32
//! %r = func.call_indirect %fn(%a) : (i32) -> i32
//! %f = func.constant @f : (i32) -> i32
//! ```

use crate::ir::{Module, OpId, OperationState, ValueDef};
use crate::lexer::Tok;
use crate::parser::{Argument, Delimiter, PResult, Parser};
use crate::printer::Printer;
use crate::registry::{traits, OpDef, Registry};
use crate::types::Type;
use crate::{Attribute, Dict};

const FUNC_INHERENT: &[&str] = &[
    "sym_name",
    "function_type",
    "sym_visibility",
    "arg_attrs",
    "res_attrs",
    "no_inline",
];

/// Registers `func.*`.
pub fn register(r: &mut Registry) {
    r.register(OpDef {
        parse: Some(parse_func),
        print: Some(print_func),
        verify: Some(verify_func),
        traits: traits::ISOLATED_FROM_ABOVE,
        default_dialect: Some("func"),
        inherent: FUNC_INHERENT,
        ..OpDef::new("func.func")
    });
    r.register(OpDef {
        parse: Some(parse_return),
        print: Some(print_return),
        verify: Some(verify_return),
        traits: traits::TERMINATOR,
        ..OpDef::new("func.return")
    });
    r.register(OpDef {
        parse: Some(parse_call),
        print: Some(print_call),
        inherent: &["callee", "arg_attrs", "res_attrs", "no_inline"],
        ..OpDef::new("func.call")
    });
    r.register(OpDef {
        parse: Some(parse_call_indirect),
        print: Some(print_call_indirect),
        verify: Some(verify_call_indirect),
        ..OpDef::new("func.call_indirect")
    });
    r.register(OpDef {
        parse: Some(parse_constant),
        print: Some(print_constant),
        inherent: &["value"],
        ..OpDef::new("func.constant")
    });
}

/// Builds `arg_attrs`/`res_attrs`: `None` when every dictionary is empty (MLIR omits them).
fn attrs_array(dicts: Vec<Dict>) -> Option<Attribute> {
    if dicts.iter().all(|d| d.is_empty()) {
        None
    } else {
        Some(Attribute::Array(
            dicts.into_iter().map(Attribute::Dict).collect(),
        ))
    }
}

/// The optional results of a function signature, `-> t` or `-> (t {attrs}, u)`: their
/// types and one attribute dictionary each (empty when none is written). Shared by
/// `func.func` and `gpu.func`.
pub(crate) fn parse_result_list(p: &mut Parser<'_>) -> PResult<(Vec<Type>, Vec<Dict>)> {
    let mut types = Vec::new();
    let mut attrs = Vec::new();
    if p.consume_if(Tok::Arrow) {
        if p.at(Tok::LParen) {
            p.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
                types.push(p.parse_type()?);
                let mut d = Dict::new();
                p.parse_optional_attr_dict(&mut d)?;
                attrs.push(d);
                Ok(())
            })?;
        } else {
            types.push(p.parse_type()?);
            attrs.push(Dict::new());
        }
    }
    Ok((types, attrs))
}

pub(crate) fn parse_func(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    if let Some(v) = p.parse_optional_keyword_of(&["private", "nested", "public"]) {
        st.props.set("sym_visibility", Attribute::string(v));
    }
    let name = p.parse_symbol_name()?;
    st.props.set("sym_name", Attribute::string(&name));
    // Arguments: named (`%a: i32`) when there is a body, bare types for declarations.
    let mut args: Vec<Argument> = Vec::new();
    let mut in_types = Vec::new();
    let mut arg_attrs = Vec::new();
    p.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
        if p.at(Tok::PercentId) {
            let a = p.parse_argument(true, true)?;
            in_types.push(a.ty.clone());
            arg_attrs.push(a.attrs.clone().unwrap_or_default());
            args.push(a);
        } else {
            in_types.push(p.parse_type()?);
            let mut d = Dict::new();
            p.parse_optional_attr_dict(&mut d)?;
            arg_attrs.push(d);
            p.parse_optional_location()?;
        }
        Ok(())
    })?;
    if !args.is_empty() && args.len() != in_types.len() {
        return Err(p.error_here("expected SSA identifier for every argument, or none"));
    }
    let (out_types, res_attrs) = parse_result_list(p)?;
    st.props.set(
        "function_type",
        Attribute::Type(Type::function(in_types, out_types)),
    );
    if let Some(a) = attrs_array(arg_attrs) {
        st.props.set("arg_attrs", a);
    }
    if let Some(a) = attrs_array(res_attrs) {
        st.props.set("res_attrs", a);
    }
    let dict_span = p.current_span();
    p.parse_optional_attr_dict_with_keyword(&mut st.attrs)?;
    // As MLIR's `parseFunctionOp`: what the signature already says may not be repeated.
    for inferred in ["sym_visibility", "sym_name", "function_type"] {
        if st.attrs.get(inferred).is_some() {
            return Err(crate::Diagnostic::new(
                dict_span,
                format!(
                    "'{inferred}' is an inferred attribute and should not be specified in the explicit attribute dictionary"
                ),
            ));
        }
    }
    let body_span = p.current_span();
    if let Some(r) = p.parse_optional_region(&args)? {
        if p.module().region_blocks(r).is_empty() {
            return Err(crate::Diagnostic::new(
                body_span,
                "expected non-empty function body",
            ));
        }
        st.regions.push(r);
    } else {
        st.regions.push(p.module_mut().create_region());
    }
    Ok(())
}

pub(crate) fn print_func(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    if m.regions(op).len() != 1 || !m.operands(op).is_empty() || !m.results(op).is_empty() {
        return false;
    }
    let get = |n: &str| d.props.get(n).or_else(|| d.attrs.get(n));
    let Some(name) = get("sym_name").and_then(|a| a.as_str()) else {
        return false;
    };
    let body = m
        .regions(op)
        .first()
        .copied()
        .filter(|&r| !m.region_blocks(r).is_empty());
    let entry = body.and_then(|r| m.entry_block(r));
    if let Some(b) = entry {
        let ok = get("function_type")
            .and_then(|a| a.as_type())
            .and_then(|t| t.as_function())
            .is_some_and(|(i, _)| i.len() == m.block_args(b).len());
        if !ok {
            return false;
        }
    }
    if let Some(v) = get("sym_visibility") {
        // Only a real visibility is a keyword; anything else keeps the generic form.
        match v.as_str() {
            Some(s @ ("public" | "private" | "nested")) => p.print_keyword(s),
            _ => return false,
        }
    }
    p.write(" ");
    p.print_symbol_name(name);
    let (ins, outs) = match get("function_type")
        .and_then(|a| a.as_type())
        .and_then(|t| t.as_function())
    {
        Some((i, o)) => (i.to_vec(), o.to_vec()),
        None => return false,
    };
    let dict_at = |name: &str, i: usize| -> Dict {
        match get(name) {
            Some(Attribute::Array(v)) => match v.get(i) {
                Some(Attribute::Dict(d)) => d.clone(),
                _ => Dict::new(),
            },
            _ => Dict::new(),
        }
    };
    p.write("(");
    for (i, t) in ins.iter().enumerate() {
        if i > 0 {
            p.write(", ");
        }
        match entry.and_then(|b| m.block_args(b).get(i).copied()) {
            Some(a) => {
                p.print_operand(a);
                p.write(": ");
                p.print_type(t);
            }
            None => p.print_type(t),
        }
        p.print_optional_attr_dict(&dict_at("arg_attrs", i), &[]);
        if let Some(l) = entry
            .and_then(|b| m.block_args(b).get(i).copied())
            .and_then(|a| m.value(a).loc().cloned())
        {
            p.print_optional_location(&l);
        }
    }
    p.write(")");
    if !outs.is_empty() {
        p.write(" -> ");
        let any_attrs = (0..outs.len()).any(|i| !dict_at("res_attrs", i).is_empty());
        if any_attrs {
            p.write("(");
            for (i, t) in outs.iter().enumerate() {
                if i > 0 {
                    p.write(", ");
                }
                p.print_type(t);
                p.print_optional_attr_dict(&dict_at("res_attrs", i), &[]);
            }
            p.write(")");
        } else {
            p.print_function_result_types(&outs);
        }
    }
    let mut all = d.props.clone();
    for n in d.attrs.iter() {
        all.set(n.name.clone(), n.value.clone());
    }
    p.print_optional_attr_dict_with_keyword(&all, FUNC_INHERENT[..5].as_ref());
    if let Some(r) = body {
        p.write(" ");
        p.print_region(r, false, true);
    }
    true
}

pub(crate) fn verify_func(m: &Module, op: OpId) -> Result<(), String> {
    let d = m.op(op);
    let Some(ft) = d
        .props
        .get("function_type")
        .or_else(|| d.attrs.get("function_type"))
    else {
        return Err("requires attribute 'function_type'".into());
    };
    let Some((ins, outs)) = ft.as_type().and_then(|t| t.as_function()) else {
        return Err("attribute 'function_type' must be a function type".into());
    };
    let get = |n: &str| d.props.get(n).or_else(|| d.attrs.get(n));
    // FunctionOpInterface: one dictionary of dialect attributes per argument / result.
    for (key, what, count) in [
        ("arg_attrs", "argument", ins.len()),
        ("res_attrs", "result", outs.len()),
    ] {
        let Some(Attribute::Array(dicts)) = get(key) else {
            continue;
        };
        if dicts.len() != count {
            return Err(format!(
                "expects {what} attribute array to have the same number of elements as the number of function {what}s, got {}, but expected {count}",
                dicts.len()
            ));
        }
        for a in dicts {
            let Attribute::Dict(dict) = a else {
                return Err(format!(
                    "expects {what} attribute dictionary to be a DictionaryAttr, but got `{a}`"
                ));
            };
            if dict.0.iter().any(|na| !na.name.as_str().contains('.')) {
                return Err(format!("{what}s may only have dialect attributes"));
            }
        }
    }
    // SymbolOpInterface: an external function (no body) must not be public.
    let declaration = m
        .regions(op)
        .first()
        .is_none_or(|&r| m.region_blocks(r).is_empty());
    if declaration
        && get("sym_visibility")
            .and_then(|a| a.as_str())
            .is_none_or(|v| v == "public")
    {
        return Err("symbol declaration cannot have public visibility".into());
    }
    if let Some(entry) = m.regions(op).first().and_then(|&r| m.entry_block(r)) {
        let args = m.block_args(entry);
        if args.len() != ins.len() {
            return Err(format!(
                "entry block must have {} arguments to match function signature",
                ins.len()
            ));
        }
        for (i, (&a, t)) in args.iter().zip(ins).enumerate() {
            if m.value_type(a) != t {
                return Err(format!(
                    "type of entry block argument #{i}('{}') must match the type of the corresponding argument in function signature('{t}')",
                    m.value_type(a)
                ));
            }
        }
    }
    Ok(())
}

fn parse_return(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let at = p.current_span();
    let ops = p.parse_operand_list()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    if !ops.is_empty() {
        let tys = p.parse_colon_type_list()?;
        st.operands = p.resolve_operands(&ops, &tys, at)?;
    }
    Ok(())
}

fn print_return(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    if !m.results(op).is_empty() || !m.regions(op).is_empty() || !m.op(op).successors.is_empty() {
        return false;
    }
    p.print_optional_attr_dict(&m.op(op).attrs, &[]);
    let ops = m.operands(op);
    if !ops.is_empty() {
        p.write(" ");
        p.print_operands(ops);
        p.write(" : ");
        p.print_value_types(ops);
    }
    true
}

fn verify_return(m: &Module, op: OpId) -> Result<(), String> {
    let Some(f) = m.parent_op(op) else {
        return Ok(());
    };
    if m.op(f).name != "func.func" {
        return Err("expects parent op 'func.func'".into());
    }
    let fd = m.op(f);
    let Some((_, outs)) = fd
        .props
        .get("function_type")
        .and_then(|a| a.as_type())
        .and_then(|t| t.as_function())
    else {
        return Ok(());
    };
    let ops = m.operands(op);
    if ops.len() != outs.len() {
        return Err(format!(
            "has {} operands, but enclosing function (@{}) returns {}",
            ops.len(),
            fd.props
                .get("sym_name")
                .and_then(|a| a.as_str())
                .unwrap_or("?"),
            outs.len()
        ));
    }
    for (i, (&v, t)) in ops.iter().zip(outs).enumerate() {
        if m.value_type(v) != t {
            return Err(format!(
                "type of return operand {i} ('{}') doesn't match function result type ('{t}') in function @{}",
                m.value_type(v),
                fd.props.get("sym_name").and_then(|a| a.as_str()).unwrap_or("?")
            ));
        }
    }
    Ok(())
}

fn parse_call(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let callee = p.parse_symbol_name()?;
    st.props.set("callee", Attribute::symbol(&callee));
    let at = p.current_span();
    let ops = p.parse_operand_list_delimited(Delimiter::Paren)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.parse_colon()?;
    let (ins, outs) = p.parse_function_type()?;
    st.operands = p.resolve_operands(&ops, &ins, at)?;
    st.result_types = outs;
    Ok(())
}

fn print_call(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let Some(c) = d
        .props
        .get("callee")
        .filter(|c| matches!(c, Attribute::SymbolRef { .. }))
    else {
        return false;
    };
    p.write(" ");
    p.print_attr(c);
    p.write("(");
    p.print_operands(m.operands(op));
    p.write(")");
    let mut all = d.props.clone();
    for n in d.attrs.iter() {
        all.set(n.name.clone(), n.value.clone());
    }
    p.print_optional_attr_dict(&all, &["callee"]);
    p.write(" : ");
    print_functional_type(p, op);
    true
}

/// Prints `(operand types) -> result types` of an op.
pub fn print_functional_type(p: &mut Printer<'_>, op: OpId) {
    let m = p.module();
    let ins: Vec<Type> = m
        .operands(op)
        .iter()
        .map(|&v| m.value_type(v).clone())
        .collect();
    let outs: Vec<Type> = m
        .results(op)
        .iter()
        .map(|&v| m.value_type(v).clone())
        .collect();
    p.print_function_type(&ins, &outs);
}

fn parse_call_indirect(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let callee = p.parse_operand()?;
    let at = p.current_span();
    let ops = p.parse_operand_list_delimited(Delimiter::Paren)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.parse_colon()?;
    let (ins, outs) = p.parse_function_type()?;
    let fty = Type::function(ins.clone(), outs.clone());
    let c = p.resolve_operand(&callee, &fty)?;
    st.operands.push(c);
    st.operands.extend(p.resolve_operands(&ops, &ins, at)?);
    st.result_types = outs;
    Ok(())
}

fn print_call_indirect(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    let Some((&c, rest)) = ops.split_first() else {
        return false;
    };
    // The custom form carries only the callee's type: operands and results must match it.
    if !call_indirect_types_match(m, op) {
        return false;
    }
    p.write(" ");
    p.print_operand(c);
    p.write("(");
    p.print_operands(rest);
    p.write(")");
    p.print_optional_attr_dict(&m.op(op).attrs, &[]);
    p.write(" : ");
    p.print_type(m.value_type(c));
    true
}

/// True when `op`'s first operand is a function whose inputs are the other operands'
/// types and whose results are `op`'s result types.
fn call_indirect_types_match(m: &Module, op: OpId) -> bool {
    let ops = m.operands(op);
    let Some((&c, rest)) = ops.split_first() else {
        return false;
    };
    let Some((ins, outs)) = m.value_type(c).as_function() else {
        return false;
    };
    ins.len() == rest.len()
        && ins.iter().zip(rest).all(|(t, &v)| m.value_type(v) == t)
        && outs.len() == m.results(op).len()
        && outs
            .iter()
            .zip(m.results(op))
            .all(|(t, &r)| m.value_type(r) == t)
}

fn verify_call_indirect(m: &Module, op: OpId) -> Result<(), String> {
    if m.operands(op)
        .first()
        .is_none_or(|&c| m.value_type(c).as_function().is_none())
    {
        return Err("requires a callee of function type".into());
    }
    if !call_indirect_types_match(m, op) {
        return Err("callee input and result types must match the operands and results".into());
    }
    Ok(())
}

fn parse_constant(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let name = p.parse_symbol_name()?;
    st.props.set("value", Attribute::symbol(&name));
    p.parse_optional_attr_dict(&mut st.attrs)?;
    st.result_types.push(p.parse_colon_type()?);
    Ok(())
}

fn print_constant(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let Some(v) = d
        .props
        .get("value")
        .filter(|v| matches!(v, Attribute::SymbolRef { .. }))
    else {
        return false;
    };
    if m.results(op).len() != 1 {
        return false;
    }
    p.write(" ");
    p.print_attr(v);
    p.print_optional_attr_dict(&d.attrs, &[]);
    p.write(" : ");
    p.print_value_types(m.results(op));
    true
}

/// True if `v` is an argument of a `func.func` entry block.
pub fn is_func_argument(m: &Module, v: crate::ValueId) -> bool {
    match m.value_def(v) {
        ValueDef::BlockArg { block, .. } => m
            .block_region(block)
            .and_then(|r| m.region_op(r))
            .is_some_and(|o| m.op(o).name == "func.func"),
        _ => false,
    }
}
