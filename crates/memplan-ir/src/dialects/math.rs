//! The `math` dialect (mlir/include/mlir/Dialect/Math/IR/MathOps.td). Every op is one of a
//! few shapes, so a table maps op names to a `Shape` and one parse/print/verify triple
//! handles each shape:
//!
//! ```text
//! %y = math.exp %x fastmath<fast> : f32        %n = math.ctlz %i : i32
//! %p = math.powf %a, %b : vector<4xf32>        %q = math.fpowi %a, %k : f32, i32
//! %f = math.fma %a, %b, %c : f32               %c = math.clampf %x to [%lo, %hi] : f32
//! %s, %c = math.sincos %x : f32                %b = math.isnan %x : f32
//! ```
//!
//! Float ops carry `fastmath` flags in the `#arith.fastmath<...>` attribute.

use crate::dialects::arith::{
    inherent, is_bool_like, is_float_like, is_int_like, parse_optional_flags, print_flags,
    with_elem,
};
use crate::ir::{Module, OpId, OperationState};
use crate::parser::{PResult, Parser};
use crate::printer::Printer;
use crate::registry::{OpDef, Registry};
use crate::Type;

/// The assembly/type shape of a math op.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    /// `%a fastmath? : T` on floats.
    UnaryF,
    /// `%a : T` on integers.
    UnaryI,
    /// `%a, %b fastmath? : T` on floats.
    BinaryF,
    /// `%a, %b : T` on integers.
    BinaryI,
    /// `%a, %b fastmath? : F, I`.
    Fpowi,
    /// `%a, %b, %c fastmath? : T`.
    Fma,
    /// `%a to [%lo, %hi] fastmath? : T`.
    Clampf,
    /// `%a fastmath? : T` with two results.
    Sincos,
    /// `%a fastmath? : T` with an i1-like result.
    Classify,
}

const OPS: &[(&str, Shape)] = &[
    ("math.absf", Shape::UnaryF),
    ("math.acos", Shape::UnaryF),
    ("math.acosh", Shape::UnaryF),
    ("math.asin", Shape::UnaryF),
    ("math.asinh", Shape::UnaryF),
    ("math.atan", Shape::UnaryF),
    ("math.atanh", Shape::UnaryF),
    ("math.cbrt", Shape::UnaryF),
    ("math.ceil", Shape::UnaryF),
    ("math.cos", Shape::UnaryF),
    ("math.cosh", Shape::UnaryF),
    ("math.erf", Shape::UnaryF),
    ("math.erfc", Shape::UnaryF),
    ("math.exp", Shape::UnaryF),
    ("math.exp2", Shape::UnaryF),
    ("math.expm1", Shape::UnaryF),
    ("math.floor", Shape::UnaryF),
    ("math.log", Shape::UnaryF),
    ("math.log10", Shape::UnaryF),
    ("math.log1p", Shape::UnaryF),
    ("math.log2", Shape::UnaryF),
    ("math.round", Shape::UnaryF),
    ("math.roundeven", Shape::UnaryF),
    ("math.rsqrt", Shape::UnaryF),
    ("math.sin", Shape::UnaryF),
    ("math.sinh", Shape::UnaryF),
    ("math.sqrt", Shape::UnaryF),
    ("math.tan", Shape::UnaryF),
    ("math.tanh", Shape::UnaryF),
    ("math.trunc", Shape::UnaryF),
    ("math.absi", Shape::UnaryI),
    ("math.ctlz", Shape::UnaryI),
    ("math.cttz", Shape::UnaryI),
    ("math.ctpop", Shape::UnaryI),
    ("math.atan2", Shape::BinaryF),
    ("math.copysign", Shape::BinaryF),
    ("math.powf", Shape::BinaryF),
    ("math.ipowi", Shape::BinaryI),
    ("math.fpowi", Shape::Fpowi),
    ("math.fma", Shape::Fma),
    ("math.clampf", Shape::Clampf),
    ("math.sincos", Shape::Sincos),
    ("math.isnan", Shape::Classify),
    ("math.isinf", Shape::Classify),
    ("math.isfinite", Shape::Classify),
    ("math.isnormal", Shape::Classify),
];

const FM_KW: &str = "fastmath";
const FM_PREFIX: &str = "#arith.fastmath";

fn shape(name: &str) -> Option<Shape> {
    OPS.iter().find(|o| o.0 == name).map(|o| o.1)
}

/// True for math ops that carry a `fastmath` property.
pub(crate) fn has_fastmath_op(name: &str) -> bool {
    shape(name).is_some_and(has_fastmath)
}

fn has_fastmath(s: Shape) -> bool {
    !matches!(s, Shape::UnaryI | Shape::BinaryI)
}

/// Registers the math ops.
pub fn register(r: &mut Registry) {
    for &(n, s) in OPS {
        r.register(OpDef {
            parse: Some(parse_math),
            print: Some(print_math),
            verify: Some(verify_math),
            inherent: if has_fastmath(s) { &["fastmath"] } else { &[] },
            ..OpDef::new(n)
        });
    }
}

fn parse_math(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let Some(s) = shape(&st.name) else {
        return Err(p.error_here("unknown math op"));
    };
    let mut ops = vec![p.parse_operand()?];
    match s {
        Shape::BinaryF | Shape::BinaryI | Shape::Fpowi => {
            p.parse_comma()?;
            ops.push(p.parse_operand()?);
        }
        Shape::Fma => {
            for _ in 0..2 {
                p.parse_comma()?;
                ops.push(p.parse_operand()?);
            }
        }
        Shape::Clampf => {
            p.parse_keyword("to")?;
            p.parse_lsquare()?;
            ops.push(p.parse_operand()?);
            p.parse_comma()?;
            ops.push(p.parse_operand()?);
            p.parse_rsquare()?;
        }
        _ => {}
    }
    // the classification ops carry `fastmath` too, but MLIR's format writes it only in the
    // attribute dictionary
    if has_fastmath(s) && s != Shape::Classify {
        if let Some(a) = parse_optional_flags(p, FM_KW, FM_PREFIX)? {
            st.props.set("fastmath", a);
        }
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let ty = p.parse_colon_type()?;
    let mut tys = vec![ty.clone(); ops.len()];
    if s == Shape::Fpowi {
        p.parse_comma()?;
        tys[1] = p.parse_type()?;
    }
    for (o, t) in ops.iter().zip(&tys) {
        st.operands.push(p.resolve_operand(o, t)?);
    }
    match s {
        Shape::Sincos => st.result_types.extend([ty.clone(), ty]),
        Shape::Classify => st.result_types.push(with_elem(&ty, Type::int(1))),
        _ => st.result_types.push(ty),
    }
    Ok(())
}

fn print_math(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let Some(s) = shape(&d.name) else {
        return false;
    };
    let ops = m.operands(op);
    let n = match s {
        Shape::UnaryF | Shape::UnaryI | Shape::Sincos | Shape::Classify => 1,
        Shape::BinaryF | Shape::BinaryI | Shape::Fpowi => 2,
        Shape::Fma | Shape::Clampf => 3,
    };
    let nres = if s == Shape::Sincos { 2 } else { 1 };
    if ops.len() != n || m.results(op).len() != nres {
        return false;
    }
    let ty = m.value_type(ops[0]);
    // The custom form can only express these type relations.
    let same = |i: usize| m.value_type(ops[i]) == ty;
    let res_ok = match s {
        Shape::Classify => *m.value_type(m.result(op, 0)) == with_elem(ty, Type::int(1)),
        _ => m.results(op).iter().all(|&r| m.value_type(r) == ty),
    };
    let ops_ok = match s {
        Shape::Fpowi => true,
        _ => (0..n).all(same),
    };
    if !res_ok || !ops_ok {
        return false;
    }
    p.write(" ");
    match s {
        Shape::Clampf => {
            p.print_operand(ops[0]);
            p.write(" to [");
            p.print_operands(&ops[1..]);
            p.write("]");
        }
        _ => p.print_operands(ops),
    }
    let mut extra = d.attrs.clone();
    let mut elided = Vec::new();
    let classify = shape(&d.name) == Some(Shape::Classify);
    if let Some(a) = d.props.get("fastmath") {
        if !classify && print_flags(p, FM_KW, FM_PREFIX, a) {
            elided.push("fastmath");
        } else {
            extra.set("fastmath", a.clone());
        }
    }
    p.print_optional_attr_dict(&extra, &elided);
    p.write(" : ");
    p.print_type(ty);
    if s == Shape::Fpowi {
        p.write(", ");
        p.print_type(m.value_type(ops[1]));
    }
    true
}

fn verify_math(m: &Module, op: OpId) -> Result<(), String> {
    let d = m.op(op);
    let Some(s) = shape(&d.name) else {
        return Ok(());
    };
    let ops = m.operands(op);
    let n = match s {
        Shape::UnaryF | Shape::UnaryI | Shape::Sincos | Shape::Classify => 1,
        Shape::BinaryF | Shape::BinaryI | Shape::Fpowi => 2,
        Shape::Fma | Shape::Clampf => 3,
    };
    let nres = if s == Shape::Sincos { 2 } else { 1 };
    if ops.len() != n {
        return Err(format!("expected {n} operands, but found {}", ops.len()));
    }
    if m.results(op).len() != nres {
        return Err(format!(
            "requires {nres} result(s), but found {}",
            m.results(op).len()
        ));
    }
    let ty = m.value_type(ops[0]);
    let int = matches!(s, Shape::UnaryI | Shape::BinaryI);
    let (what, f): (&str, fn(&Type) -> bool) = if int {
        ("signless-integer-like", is_int_like)
    } else {
        ("floating-point-like", is_float_like)
    };
    if !f(ty) {
        return Err(format!("operand #0 must be {what}, but got '{ty}'"));
    }
    if let Some(fm) = inherent(d, "fastmath") {
        if !matches!(fm, crate::Attribute::Opaque(t) if t.starts_with(FM_PREFIX)) {
            return Err(
                "attribute 'fastmath' failed to satisfy constraint: floating point fast math flags"
                    .into(),
            );
        }
    }
    match s {
        Shape::Fpowi => {
            let k = m.value_type(ops[1]);
            if !is_int_like(k) || !crate::dialects::arith::same_shape(ty, k) {
                return Err(format!(
                    "operand #1 must be signless-integer-like with the shape of operand #0, but got '{k}'"
                ));
            }
        }
        _ => {
            if ops.iter().any(|&v| m.value_type(v) != ty) {
                return Err("requires all operands to have the same type".into());
            }
        }
    }
    match s {
        Shape::Classify => {
            let rt = m.value_type(m.result(op, 0));
            if !is_bool_like(rt) || *rt != with_elem(ty, Type::int(1)) {
                return Err(format!(
                    "result #0 must be bool-like with the shape of the operand, but got '{rt}'"
                ));
            }
        }
        _ => {
            if m.results(op).iter().any(|&r| m.value_type(r) != ty) {
                return Err("requires the same type for all operands and results".into());
            }
        }
    }
    Ok(())
}
