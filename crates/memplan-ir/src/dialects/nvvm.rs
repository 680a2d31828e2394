//! `nvvm` ops that MLIR writes in C++ (the rest come from the op table's declarative
//! formats): `nvvm.mma.sync`.
//!
//! ```mlir
//! %d = nvvm.mma.sync A[%a0, %a1] B[%b0] C[%c0, %c1]
//!   {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
//!    shape = #nvvm.shape<m = 16, n = 8, k = 8>}
//!   : (vector<2xf16>, vector<2xf16>, vector<2xf16>) -> !llvm.struct<(vector<2xf16>, vector<2xf16>)>
//! ```

use crate::attrs::Attribute;
use crate::ir::{OpId, OperationState};
use crate::parser::{Delimiter, PResult, Parser};
use crate::printer::Printer;
use crate::registry::{OpDef, Registry};
use crate::types::{FloatKind, Type, TypeKind};

use super::memref::print_attrs;

const MMA_ATTRS: &[&str] = &[
    "shape",
    "b1Op",
    "intOverflowBehavior",
    "layoutA",
    "layoutB",
    "multiplicandAPtxType",
    "multiplicandBPtxType",
    "operandSegmentSizes",
];

/// Registers the hand-written nvvm ops.
pub fn register(r: &mut Registry) {
    r.register(OpDef {
        parse: Some(parse_mma),
        print: Some(print_mma),
        inherent: MMA_ATTRS,
        ..OpDef::new("nvvm.mma.sync")
    });
}

/// MLIR's `MmaOp::inferOperandMMAType` (its `isAccumulator` argument included).
fn infer_mma_type(t: &Type, acc: bool) -> Option<&'static str> {
    match t.kind() {
        TypeKind::Float(FloatKind::F64) => Some("f64"),
        TypeKind::Float(FloatKind::F16) => Some("f16"),
        TypeKind::Vector { shape, elem, .. }
            if shape.as_slice() == [2]
                && matches!(elem.kind(), TypeKind::Float(FloatKind::F16)) =>
        {
            Some("f16")
        }
        TypeKind::Float(FloatKind::F32) => Some(if acc { "f32" } else { "tf32" }),
        TypeKind::Integer { .. } => acc.then_some("s32"),
        TypeKind::Opaque(s) => {
            // `!llvm.struct<(T, ...)>`: the first member decides.
            let body = s.strip_prefix("!llvm.struct<(")?;
            let first = body.split([',', ')']).next()?.trim();
            match first {
                "f64" => Some("f64"),
                "f16" | "vector<2xf16>" => Some("f16"),
                "f32" => Some(if acc { "f32" } else { "tf32" }),
                f if f.starts_with('i')
                    && f[1..].chars().all(|c| c.is_ascii_digit())
                    && f.len() > 1 =>
                {
                    acc.then_some("s32")
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// `A[...] B[...] C[...] attr-dict : (tA, tB, tC) -> tRes`, as MLIR's MmaOp::parse:
/// multiplicand PTX types left out are inferred from the operand types.
fn parse_mma(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let mut frags = Vec::new();
    for kw in ["A", "B", "C"] {
        p.parse_keyword(kw)?;
        frags.push(p.parse_operand_list_delimited(Delimiter::OptionalSquare)?);
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.parse_colon()?;
    let at = p.current_span();
    let tys = p.parse_paren_type_list()?;
    if tys.len() != 3 {
        return Err(crate::Diagnostic::new(
            at,
            format!(
                "expected one type for each operand segment but got {} types",
                tys.len()
            ),
        ));
    }
    let mut inferred = Vec::new();
    for (i, (regs, t)) in frags.iter().zip(&tys).enumerate() {
        for u in regs {
            st.operands.push(p.resolve_operand(u, t)?);
        }
        inferred.push(infer_mma_type(t, i < 2));
    }
    p.parse_arrow()?;
    let res = p.parse_type()?;
    for n in MMA_ATTRS {
        if let Some(a) = st.attrs.remove(n) {
            st.props.set(*n, a);
        }
    }
    for (idx, name) in ["multiplicandAPtxType", "multiplicandBPtxType"]
        .iter()
        .enumerate()
    {
        if st.props.get(name).is_none() {
            let Some(k) = inferred[idx] else {
                return Err(p.error_here(format!(
                    "attribute {name} is not provided explicitly and cannot be inferred"
                )));
            };
            st.props
                .set(*name, Attribute::Opaque(format!("#nvvm.mma_type<{k}>")));
        }
    }
    st.props.set(
        "operandSegmentSizes",
        Attribute::i32_array(&frags.iter().map(|f| f.len() as i64).collect::<Vec<_>>()),
    );
    st.result_types.push(res);
    Ok(())
}

fn print_mma(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(seg) = m
        .op(op)
        .props
        .get("operandSegmentSizes")
        .and_then(Attribute::as_int_array)
        .filter(|s| s.len() == 3 && s.iter().all(|&x| x > 0))
    else {
        return false;
    };
    let ops = m.operands(op);
    if seg.iter().sum::<i64>() as usize != ops.len() || m.results(op).len() != 1 {
        return false;
    }
    let mut frags = Vec::new();
    let mut start = 0;
    for &n in seg {
        let f = &ops[start..start + n as usize];
        if f.iter().any(|&v| m.value_type(v) != m.value_type(f[0])) {
            return false;
        }
        frags.push(f);
        start += n as usize;
    }
    for (name, f) in ["A", "B", "C"].iter().zip(&frags) {
        p.write(&format!(" {name}["));
        p.print_operands(f);
        p.write("]");
    }
    print_attrs(p, op, &["operandSegmentSizes"]);
    p.write(" : (");
    for (i, f) in frags.iter().enumerate() {
        if i > 0 {
            p.write(", ");
        }
        p.print_type(m.value_type(f[0]));
    }
    p.write(") -> ");
    p.print_type(m.value_type(m.result(op, 0)));
    true
}

/// The NVVM dialect's discardable attributes, checked on any op that carries them (MLIR's
/// `NVVMDialect::verifyOperationAttribute`): `nvvm.kernel` marks LLVM functions only.
pub fn verify_discardable_attrs(m: &crate::ir::Module, op: crate::ir::OpId) -> Result<(), String> {
    let d = m.op(op);
    if d.attrs.get("nvvm.kernel").is_some() && d.name != "llvm.func" {
        return Err("'nvvm.kernel' attribute attached to unexpected op".into());
    }
    Ok(())
}
