//! `async` dialect: `async.execute` and `async.func`, the ops of the dialect that MLIR writes
//! in C++ (the others come from the op table's declarative formats).
//!
//! ```mlir
//! %token, %value = async.execute [%dep] (%v as %x: !async.value<f32>) -> !async.value<f32> {
//!   async.yield %x : f32
//! }
//! ```

use crate::attrs::Attribute;
use crate::ir::{OpId, OperationState};
use crate::lexer::Tok;
use crate::parser::{Delimiter, PResult, Parser};
use crate::printer::Printer;
use crate::registry::{traits, OpDef, Registry};
use crate::types::{Type, TypeKind};

use super::memref::{ensure_terminator, print_attrs_kw, single_block, types_of};
use super::scf::make_args;

const TOKEN: &str = "!async.token";
const VALUE: &str = "!async.value<";

/// Registers `async.execute` and `async.func` (a function like `func.func`, written as
/// MLIR's function_interface_impl writes it; `async` is the default dialect of its body).
pub fn register(r: &mut Registry) {
    r.register(OpDef {
        parse: Some(super::func::parse_func),
        print: Some(super::func::print_func),
        verify: Some(verify_async_func),
        traits: traits::ISOLATED_FROM_ABOVE,
        default_dialect: Some("async"),
        inherent: &[
            "sym_name",
            "function_type",
            "sym_visibility",
            "arg_attrs",
            "res_attrs",
        ],
        ..OpDef::new("async.func")
    });
    r.register(OpDef {
        parse: Some(parse_execute),
        print: Some(print_execute),
        traits: traits::SINGLE_BLOCK,
        inherent: &["operandSegmentSizes"],
        ..OpDef::new("async.execute")
    });
}

/// `async.func`: the function rules of `func.func`, then MLIR's `FuncOp::verify` of the async
/// dialect: at least one result, each an `!async.value<T>` or an `!async.token`, a token only
/// as the first result.
fn verify_async_func(m: &crate::ir::Module, op: OpId) -> Result<(), String> {
    super::func::verify_func(m, op)?;
    let d = m.op(op);
    let Some((_, outs)) = d
        .props
        .get("function_type")
        .or_else(|| d.attrs.get("function_type"))
        .and_then(|a| a.as_type())
        .and_then(|t| t.as_function())
    else {
        return Ok(());
    };
    if outs.is_empty() {
        return Err("result is expected to be at least of size 1, but got 0".into());
    }
    for (i, t) in outs.iter().enumerate() {
        let s = t.to_string();
        let is_token = s == TOKEN;
        let is_value = s.starts_with(VALUE) && s.ends_with('>');
        if !(is_token || is_value) {
            return Err(format!(
                "result type must be async value type or async token type, but got '{t}'"
            ));
        }
        if is_token && i != 0 {
            return Err(format!(
                " results' (optional) async token type is expected to appear as the 1st return value, but got {}",
                i + 1
            ));
        }
    }
    Ok(())
}

fn token() -> Type {
    Type::new(TypeKind::Opaque(TOKEN.into()))
}

/// True if a body argument of type `arg` stands for an operand of type `t`: the payload of
/// an `!async.value<T>`, else `t` itself.
fn unwraps_to(t: &Type, arg: &Type) -> bool {
    if let TypeKind::Opaque(s) = t.kind() {
        if let Some(inner) = s.strip_prefix(VALUE).and_then(|r| r.strip_suffix('>')) {
            return arg.to_string() == inner.trim();
        }
    }
    t == arg
}

/// `async.execute [deps]? ((%v as %arg: T),*)? (-> types)? attr-dict-with-keyword region`,
/// as MLIR's ExecuteOp::parse.
fn parse_execute(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let deps = if p.at(Tok::LBracket) {
        p.parse_operand_list_delimited(Delimiter::Square)?
    } else {
        Vec::new()
    };
    let mut vals = Vec::new();
    let mut names = Vec::new();
    let mut tys = Vec::new();
    let mut arg_tys = Vec::new();
    if p.consume_if(Tok::LParen) && !p.consume_if(Tok::RParen) {
        loop {
            vals.push(p.parse_operand()?);
            p.parse_keyword("as")?;
            names.push(super::scf::parse_arg_name(p)?);
            p.parse_colon()?;
            let start = p.current_pos();
            let t = p.parse_type()?;
            let end = p.current_pos();
            // the body argument is the payload of an `!async.value<T>`
            let arg = if p.source()[start..].starts_with(VALUE) {
                p.reset(start + VALUE.len());
                let inner = p.parse_type()?;
                p.reset(end);
                inner
            } else {
                t.clone()
            };
            tys.push(t);
            arg_tys.push(arg);
            if !p.parse_optional_comma() {
                break;
            }
        }
        p.parse_rparen()?;
    }
    let results = p.parse_optional_arrow_type_list()?;
    p.parse_optional_attr_dict_with_keyword(&mut st.attrs)?;
    let r = p.parse_region(&make_args(&names, &arg_tys))?;
    ensure_terminator(p, r, "async.yield");
    st.regions.push(r);
    let tok = token();
    for d in &deps {
        st.operands.push(p.resolve_operand(d, &tok)?);
    }
    for (v, t) in vals.iter().zip(&tys) {
        st.operands.push(p.resolve_operand(v, t)?);
    }
    st.props.set(
        "operandSegmentSizes",
        Attribute::i32_array(&[deps.len() as i64, vals.len() as i64]),
    );
    st.result_types.push(tok);
    st.result_types.extend(results);
    Ok(())
}

fn print_execute(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let Some(seg) = d
        .props
        .get("operandSegmentSizes")
        .and_then(Attribute::as_int_array)
        .filter(|s| s.len() == 2 && s.iter().all(|&x| x >= 0))
    else {
        return false;
    };
    let ops = m.operands(op);
    let (nd, nv) = (seg[0] as usize, seg[1] as usize);
    let res = m.results(op);
    let [r] = m.regions(op) else {
        return false;
    };
    let Some(b) = single_block(m, *r) else {
        return false;
    };
    let args = m.block_args(b);
    let tok = token();
    let ok = nd + nv == ops.len()
        && args.len() == nv
        && !res.is_empty()
        && m.value_type(res[0]) == &tok
        && ops[..nd].iter().all(|&v| m.value_type(v) == &tok)
        && ops[nd..]
            .iter()
            .zip(args)
            .all(|(&v, &a)| unwraps_to(m.value_type(v), m.value_type(a)));
    if !ok {
        return false;
    }
    if nd > 0 {
        p.write(" [");
        p.print_operands(&ops[..nd]);
        p.write("]");
    }
    if nv > 0 {
        p.write(" (");
        for (i, (&v, &a)) in ops[nd..].iter().zip(args).enumerate() {
            if i > 0 {
                p.write(", ");
            }
            p.print_operand(v);
            p.write(" as ");
            p.print_operand(a);
            p.write(": ");
            p.print_type(m.value_type(v));
        }
        p.write(")");
    }
    if res.len() > 1 {
        p.write(" -> ");
        let tys = types_of(m, &res[1..]);
        p.print_function_result_types(&tys);
    }
    print_attrs_kw(p, op, &["operandSegmentSizes"]);
    p.write(" ");
    p.print_region(*r, false, true);
    true
}
