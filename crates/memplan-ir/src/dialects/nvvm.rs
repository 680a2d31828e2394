//! `nvvm` ops that MLIR writes in C++ (the rest come from the op table's declarative
//! formats): `nvvm.mma.sync`, `nvvm.mma.sp.sync`, `nvvm.mma.block_scale` and
//! `nvvm.mma.sp.block_scale` (one syntax: the A, B, C fragments, then the op's fixed
//! groups such as `sparseMetadata[%m] selector[%s]` or `scaleA[%d, %byte, %thread]`).
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

/// One of the four MMA ops MLIR writes in C++: `A[...] B[...] C[...]`, then the op's
/// fixed operand groups, the attribute dictionary, `: (tA, tB, tC) -> tRes`.
struct MmaForm {
    name: &'static str,
    /// The groups after C, each with the types MLIR resolves its operands to (one
    /// operand segment per type).
    extra: &'static [(&'static str, &'static [u32])],
    /// The inherent attributes (moved from the dictionary to the properties).
    attrs: &'static [&'static str],
    /// Whether a missing multiplicand PTX type that cannot be inferred is an error
    /// (`mma.sync` / `mma.sp.sync`) or left out (the block-scale ops).
    must_infer: bool,
    /// MLIR 22's `MmaOp::parse` infers A and B with "is accumulator" set (`index < 2`),
    /// the other three with it clear.
    ab_accumulator: bool,
    /// `mma.sp.block_scale`'s parser adds the `orderedMetadata` unit when it is absent.
    add_ordered: bool,
}

const MMA_FORMS: &[MmaForm] = &[
    MmaForm {
        name: "nvvm.mma.sync",
        extra: &[],
        attrs: &[
            "shape",
            "b1Op",
            "intOverflowBehavior",
            "layoutA",
            "layoutB",
            "multiplicandAPtxType",
            "multiplicandBPtxType",
            "operandSegmentSizes",
        ],
        must_infer: true,
        ab_accumulator: true,
        add_ordered: false,
    },
    MmaForm {
        name: "nvvm.mma.sp.sync",
        extra: &[("sparseMetadata", &[32]), ("selector", &[32])],
        attrs: &[
            "shape",
            "intOverflowBehavior",
            "multiplicandAPtxType",
            "multiplicandBPtxType",
            "orderedMetadata",
            "kind",
            "operandSegmentSizes",
        ],
        must_infer: true,
        ab_accumulator: false,
        add_ordered: false,
    },
    MmaForm {
        name: "nvvm.mma.block_scale",
        extra: &[("scaleA", &[32, 16, 16]), ("scaleB", &[32, 16, 16])],
        attrs: &[
            "shape",
            "multiplicandAPtxType",
            "multiplicandBPtxType",
            "scaleVecSize",
            "blockScaleFormat",
            "kind",
            "operandSegmentSizes",
        ],
        must_infer: false,
        ab_accumulator: false,
        add_ordered: false,
    },
    MmaForm {
        name: "nvvm.mma.sp.block_scale",
        extra: &[
            ("sparseMetadata", &[32]),
            ("selector", &[32]),
            ("scaleA", &[32, 16, 16]),
            ("scaleB", &[32, 16, 16]),
        ],
        attrs: &[
            "shape",
            "multiplicandAPtxType",
            "multiplicandBPtxType",
            "orderedMetadata",
            "scaleVecSize",
            "blockScaleFormat",
            "kind",
            "operandSegmentSizes",
        ],
        must_infer: false,
        ab_accumulator: false,
        add_ordered: true,
    },
];

fn form(name: &str) -> Option<&'static MmaForm> {
    MMA_FORMS.iter().find(|f| f.name == name)
}

/// Registers the hand-written nvvm ops.
pub fn register(r: &mut Registry) {
    for f in MMA_FORMS {
        r.register(OpDef {
            parse: Some(match f.name {
                "nvvm.mma.sync" => parse_mma_sync,
                "nvvm.mma.sp.sync" => parse_mma_sp,
                "nvvm.mma.block_scale" => parse_mma_block_scale,
                _ => parse_mma_sp_block_scale,
            }),
            print: Some(print_mma),
            inherent: f.attrs,
            ..OpDef::new(f.name)
        });
    }
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

fn parse_mma_sync(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    parse_mma(p, st, &MMA_FORMS[0])
}
fn parse_mma_sp(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    parse_mma(p, st, &MMA_FORMS[1])
}
fn parse_mma_block_scale(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    parse_mma(p, st, &MMA_FORMS[2])
}
fn parse_mma_sp_block_scale(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    parse_mma(p, st, &MMA_FORMS[3])
}

/// `A[...] B[...] C[...] <groups> attr-dict : (tA, tB, tC) -> tRes`, as MLIR 22's C++
/// parsers: multiplicand PTX types left out are inferred from the operand types.
fn parse_mma(p: &mut Parser<'_>, st: &mut OperationState, f: &MmaForm) -> PResult<()> {
    let mut frags = Vec::new();
    for kw in ["A", "B", "C"] {
        p.parse_keyword(kw)?;
        frags.push(p.parse_operand_list_delimited(Delimiter::OptionalSquare)?);
    }
    let mut extra = Vec::new();
    for (kw, _) in f.extra {
        p.parse_keyword(kw)?;
        extra.push(p.parse_operand_list_delimited(Delimiter::OptionalSquare)?);
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
        let acc = if f.ab_accumulator { i < 2 } else { i >= 2 };
        inferred.push(infer_mma_type(t, acc));
    }
    p.parse_arrow()?;
    let res = p.parse_type()?;
    let mut seg: Vec<i64> = frags.iter().map(|f| f.len() as i64).collect();
    for (regs, (kw, widths)) in extra.iter().zip(f.extra) {
        if regs.len() != widths.len() {
            return Err(p.error_here(format!(
                "expected {} operands in {kw}[...] but got {}",
                widths.len(),
                regs.len()
            )));
        }
        for (u, w) in regs.iter().zip(widths.iter()) {
            st.operands.push(p.resolve_operand(u, &Type::int(*w))?);
            seg.push(1);
        }
    }
    // Added before the properties are moved so that it takes its place in their order.
    if f.add_ordered && st.attrs.get("orderedMetadata").is_none() {
        st.attrs.set("orderedMetadata", Attribute::Unit);
    }
    for n in f.attrs {
        if let Some(a) = st.attrs.remove(n) {
            st.props.set(*n, a);
        }
    }
    for (idx, name) in ["multiplicandAPtxType", "multiplicandBPtxType"]
        .iter()
        .enumerate()
    {
        if st.props.get(name).is_none() {
            match inferred[idx] {
                Some(k) => st
                    .props
                    .set(*name, Attribute::Opaque(format!("#nvvm.mma_type<{k}>"))),
                None if f.must_infer => {
                    return Err(p.error_here(format!(
                        "attribute {name} is not provided explicitly and cannot be inferred"
                    )));
                }
                None => {}
            }
        }
    }
    st.props
        .set("operandSegmentSizes", Attribute::i32_array(&seg));
    st.result_types.push(res);
    Ok(())
}

fn print_mma(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(f) = form(&m.op(op).name) else {
        return false;
    };
    let widths: Vec<u32> = f
        .extra
        .iter()
        .flat_map(|(_, w)| w.iter().copied())
        .collect();
    let Some(seg) = m
        .op(op)
        .props
        .get("operandSegmentSizes")
        .and_then(Attribute::as_int_array)
        .filter(|s| {
            s.len() == 3 + widths.len()
                && s[..3].iter().all(|&x| x > 0)
                && s[3..].iter().all(|&x| x == 1)
        })
    else {
        return false;
    };
    let ops = m.operands(op);
    if seg.iter().sum::<i64>() as usize != ops.len() || m.results(op).len() != 1 {
        return false;
    }
    let mut frags = Vec::new();
    let mut start = 0;
    for &n in &seg[..3] {
        let fr = &ops[start..start + n as usize];
        if fr.iter().any(|&v| m.value_type(v) != m.value_type(fr[0])) {
            return false;
        }
        frags.push(fr);
        start += n as usize;
    }
    // The custom form resolves the fixed groups to their integer types.
    let rest = &ops[start..];
    if rest
        .iter()
        .zip(&widths)
        .any(|(&v, &w)| m.value_type(v) != &Type::int(w))
    {
        return false;
    }
    for (name, fr) in ["A", "B", "C"].iter().zip(&frags) {
        p.write(&format!(" {name}["));
        p.print_operands(fr);
        p.write("]");
    }
    let mut at = 0;
    for (name, w) in f.extra {
        p.write(&format!(" {name}["));
        p.print_operands(&rest[at..at + w.len()]);
        p.write("]");
        at += w.len();
    }
    print_attrs(p, op, &["operandSegmentSizes"]);
    p.write(" : (");
    for (i, fr) in frags.iter().enumerate() {
        if i > 0 {
            p.write(", ");
        }
        p.print_type(m.value_type(fr[0]));
    }
    p.write(") -> ");
    p.print_type(m.value_type(m.result(op, 0)));
    true
}

/// The NVVM dialect's discardable attributes, checked on any op that carries them (MLIR's
/// `NVVMDialect::verifyOperationAttribute`): `nvvm.kernel` marks LLVM functions only; and
/// `verifyRegionArgAttribute`: an argument's `nvvm.grid_constant` needs a kernel, must be a
/// unit attribute and needs `llvm.byval` on the same argument.
pub fn verify_discardable_attrs(m: &crate::ir::Module, op: crate::ir::OpId) -> Result<(), String> {
    use crate::Attribute;
    let d = m.op(op);
    if d.attrs.get("nvvm.kernel").is_some() && d.name != "llvm.func" {
        return Err("'nvvm.kernel' attribute attached to unexpected op".into());
    }
    // function-like ops keep their argument attributes in `arg_attrs`
    if !matches!(d.name.as_str(), "llvm.func" | "func.func" | "gpu.func") {
        return Ok(());
    }
    let Some(Attribute::Array(args)) = d
        .props
        .get("arg_attrs")
        .or_else(|| d.attrs.get("arg_attrs"))
    else {
        return Ok(());
    };
    let kernel = d.attrs.get("nvvm.kernel").is_some();
    for arg in args {
        let Attribute::Dict(dict) = arg else {
            continue;
        };
        let find = |name: &str| dict.0.iter().find(|na| na.name.as_str() == name);
        let Some(gc) = find("nvvm.grid_constant") else {
            continue;
        };
        if !kernel {
            return Err(
                "'\"nvvm.grid_constant\"' attribute must be present only on kernel arguments"
                    .into(),
            );
        }
        if !matches!(gc.value, Attribute::Unit) {
            return Err("'\"nvvm.grid_constant\"' must be a unit attribute".into());
        }
        if find("llvm.byval").is_none() {
            return Err("'\"nvvm.grid_constant\"' attribute requires the argument to also have attribute 'llvm.byval'".into());
        }
    }
    Ok(())
}
