//! C++ verifier rules of the NVVM matrix ops: `nvvm.mma.sync` / `mma.sp.sync` (the
//! shape x PTX type table of `MmaOp::verify` / `MmaSpOp::verify`), the block-scaled
//! `mma.block_scale` / `mma.sp.block_scale`, `wmma.load` / `wmma.mma` / `wmma.store` (the
//! fragment table MLIR generates from `NVVM_MMA_OPS`), `ldmatrix`, `stmatrix` and
//! `wgmma.mma_async`. Types are compared in MLIR's spelling (`canon`), so
//! `vector<2 x f16>` inside an `!llvm.struct` matches `vector<2xf16>`. An attribute the
//! rules cannot read (absent where MLIR would dereference it) leaves the op alone.

use super::super::llvm::ty::{canon, LTy};
use super::super::{attr, enum_of, group, int_attr, named_operands};
use crate::attrs::Attribute;
use crate::ir::{Module, OpId};
use crate::types::Type;

/// The integer fields of a `#nvvm.shape<m = 16, n = 8, k = 8>`-like attribute, in order.
pub(super) fn shape_fields(a: &Attribute) -> Option<Vec<(String, i64)>> {
    let Attribute::Opaque(t) = a else {
        return None;
    };
    let inner = t.strip_suffix('>')?;
    let inner = &inner[inner.find('<')? + 1..];
    inner
        .split(',')
        .map(|kv| {
            let (k, v) = kv.split_once('=')?;
            Some((k.trim().to_string(), v.trim().parse().ok()?))
        })
        .collect()
}

/// Field `f` of the shape attribute `name`.
fn shape_of(m: &Module, id: OpId, name: &str) -> Option<(i64, i64, Option<i64>)> {
    let fields = shape_fields(attr(m, id, name)?)?;
    let get = |f: &str| fields.iter().find(|(k, _)| k == f).map(|(_, v)| *v);
    Some((get("m")?, get("n")?, get("k")))
}

/// `MmaOp::inferOperandMMAType`: the PTX type of a fragment register type.
fn infer_ptx(t: &LTy, acc: bool) -> Option<&'static str> {
    match t {
        LTy::Struct {
            body: Some(body), ..
        } => infer_ptx(body.first()?, acc),
        LTy::Builtin(_) => match t.to_string().as_str() {
            "f64" => Some("f64"),
            "f16" | "vector<2xf16>" => Some("f16"),
            "f32" => Some(if acc { "f32" } else { "tf32" }),
            s if s.starts_with('i') && s[1..].bytes().all(|b| b.is_ascii_digit()) => {
                acc.then_some("s32")
            }
            _ => None,
        },
        _ => None,
    }
}

fn lty(t: &Type) -> Option<LTy> {
    LTy::of(t)
}

fn is_int4(t: &str) -> bool {
    matches!(t, "s4" | "u4")
}
fn is_int8(t: &str) -> bool {
    matches!(t, "s8" | "u8")
}
fn is_int_ptx(t: &str) -> bool {
    is_int4(t) || is_int8(t) || t == "b1" || t == "s32"
}

fn st(elems: &[&str]) -> String {
    format!("!llvm.struct<({})>", elems.join(", "))
}

fn rep(n: i64, t: &str) -> Vec<String> {
    vec![t.to_string(); usize::try_from(n).unwrap_or(0)]
}

/// `MmaOp::verify` (`sparse = false`) and `MmaSpOp::verify` (`sparse = true`).
fn verify_mma(m: &Module, id: OpId, sparse: bool) -> Result<(), String> {
    let Some((sm, sn, Some(sk))) = shape_of(m, id, "shape") else {
        return Ok(());
    };
    let Some(a_ty) = enum_of(m, id, "multiplicandAPtxType") else {
        return Ok(());
    };
    let b_ty = enum_of(m, id, "multiplicandBPtxType").unwrap_or("");
    let Some(groups) = named_operands(m, id) else {
        return Ok(());
    };
    let seg_types = |name: &str| -> Vec<String> {
        group(&groups, name)
            .iter()
            .map(|v| canon(m.value_type(*v)))
            .collect()
    };
    let (a, b, c) = (
        seg_types("operandA"),
        seg_types("operandB"),
        seg_types("operandC"),
    );
    let Some(&res) = m.results(id).first() else {
        return Ok(());
    };
    let res_t = m.value_type(res);
    let res_s = canon(res_t);
    let f16x2 = "vector<2xf16>";
    let f32x4 = st(&["f32"; 4]);
    let f16x2x2 = st(&[f16x2; 2]);
    let mut shapes: Vec<(i64, i64, i64)> = Vec::new();
    let mut exp_a: Vec<Vec<String>> = Vec::new();
    let mut exp_b: Vec<Vec<String>> = Vec::new();
    let mut exp_c: Vec<Vec<String>> = Vec::new();
    let mut exp_res: Vec<String> = Vec::new();
    if sm == 16 {
        let fp8 = ["e4m3", "e5m2", "e3m2", "e2m3", "e2m1"];
        let (kf, mut frag): (i64, &str) = match a_ty {
            "tf32" => {
                exp_res.push(f32x4.clone());
                if sparse {
                    shapes.extend([(16, 8, 8), (16, 8, 16)]);
                }
                (4, "i32")
            }
            "bf16" => {
                exp_res.push(f32x4.clone());
                if sparse {
                    shapes.extend([(16, 8, 16), (16, 8, 32)]);
                }
                (8, "i32")
            }
            "f16" => {
                exp_res.push(f16x2x2.clone());
                exp_res.push(f32x4.clone());
                if sparse {
                    shapes.extend([(16, 8, 16), (16, 8, 32)]);
                }
                (8, f16x2)
            }
            // MLIR 22's `MmaOp::verify` has no FP8 case (later versions add e4m3/e5m2).
            t if sparse && fp8.contains(&t) => {
                exp_res.push(f16x2x2.clone());
                exp_res.push(f32x4.clone());
                shapes.push((16, 8, 64));
                // MLIR 22 counts four 8-bit values per register twice over for the
                // sparse FP8 variant (A and B take two registers each at k = 64).
                (32, "i32")
            }
            "s4" | "u4" => {
                if sparse {
                    shapes.extend([(16, 8, 64), (16, 8, 128)]);
                }
                (32, "i32")
            }
            "b1" if !sparse => (128, "i32"),
            "s8" | "u8" => {
                if sparse {
                    shapes.extend([(16, 8, 32), (16, 8, 64)]);
                }
                (16, "i32")
            }
            t => return Err(format!("invalid shape or multiplicand type: {t}")),
        };
        if is_int_ptx(a_ty) {
            exp_res.push(st(&["i32"; 4]));
            exp_c.push(rep(4, "i32"));
            frag = "i32";
        } else {
            exp_c.push(rep(2, f16x2));
            exp_c.push(rep(4, "f32"));
        }
        let unit_a = (sm / 8) * (sk / kf) / if sparse { 2 } else { 1 };
        let unit_b = (sn / 8) * (sk / kf);
        exp_a.push(rep(unit_a, frag));
        exp_b.push(rep(unit_b, frag));
        if !sparse {
            shapes.extend([(16, 8, kf), (16, 8, kf * 2)]);
        }
        // `accumPtxType` / `resultPtxType`: MLIR asserts both are inferable.
        let first_c = group(&groups, "operandC")
            .first()
            .and_then(|v| lty(m.value_type(*v)));
        let acc = first_c.and_then(|t| infer_ptx(&t, true));
        let out = lty(res_t).and_then(|t| infer_ptx(&t, true));
        if let (Some(acc), Some(out)) = (acc, out) {
            if acc != out {
                return Err("ctype does not match dtype".into());
            }
        }
    }
    if sm == 8 {
        if a_ty == "f16" {
            exp_a.push(rep(2, f16x2));
            exp_b.push(rep(2, f16x2));
            exp_res.push(st(&[f16x2; 4]));
            exp_res.push(st(&["f32"; 8]));
            exp_c.push(rep(4, f16x2));
            exp_c.push(rep(8, "f32"));
            shapes.push((8, 8, 4));
        }
        if a_ty == "f64" {
            exp_a.push(rep(1, "f64"));
            exp_b.push(rep(1, "f64"));
            exp_c.push(rep(2, "f64"));
            exp_res.push(st(&["f64"; 2]));
            shapes.push((8, 8, 4));
        }
        if is_int_ptx(a_ty) {
            exp_a.push(rep(1, "i32"));
            exp_b.push(rep(1, "i32"));
            exp_c.push(rep(2, "i32"));
            exp_res.push(st(&["i32"; 2]));
            if is_int4(a_ty) {
                shapes.push((8, 8, 32));
            }
            if is_int8(a_ty) {
                shapes.push((8, 8, 16));
            }
            if a_ty == "b1" && !sparse {
                shapes.push((8, 8, 128));
            }
        }
    }
    if exp_a.is_empty() || exp_b.is_empty() || exp_c.is_empty() || !shapes.contains(&(sm, sn, sk)) {
        return Err(format!(
            "unimplemented variant for MMA shape <{sm}, {sn}, {sk}>"
        ));
    }
    for (name, want, got) in [("A", &exp_a, &a), ("B", &exp_b, &b), ("C", &exp_c, &c)] {
        if !want.contains(got) {
            let mut msg =
                format!("Could not match types for the {name} operands; expected one of ");
            for x in want {
                msg.push_str(&format!(
                    "{}x{} ",
                    x.len(),
                    x.first().map(String::as_str).unwrap_or("")
                ));
            }
            msg.push_str("but got ");
            msg.push_str(&got.join(", "));
            return Err(msg);
        }
    }
    if !exp_res.contains(&res_s) {
        return Err(format!(
            "Could not match allowed types for the result; expected one of {} but got {res_s}",
            exp_res.join(", ")
        ));
    }
    if !sparse && a_ty == "b1" && attr(m, id, "b1Op").is_none() {
        return Err("op requires b1Op attribute".into());
    }
    if (is_int4(a_ty) || is_int8(a_ty)) && attr(m, id, "intOverflowBehavior").is_none() {
        return Err("op requires intOverflowBehavior attribute".into());
    }
    let m8n8k4_f16 = sm == 8 && sn == 8 && sk == 4 && a_ty == "f16";
    if !sparse && !m8n8k4_f16 {
        let (la, lb) = (enum_of(m, id, "layoutA"), enum_of(m, id, "layoutB"));
        if let (Some(la), Some(lb)) = (la, lb) {
            if la != "row" || lb != "col" {
                return Err(format!(
                    "requires layoutA = #nvvm.mma_layout<row> and layoutB = #nvvm.mma_layout<col> for shape <{sm}, {sn}, {sk}> with element types {a_ty} and {b_ty}. Only m8n8k4 with f16 supports other layouts."
                ));
            }
        }
    }
    Ok(())
}

/// `MmaBlockScaleOp::verify` (`sparse = false`) and `MmaSpBlockScaleOp::verify`.
fn verify_block_scale(m: &Module, id: OpId, sparse: bool) -> Result<(), String> {
    if sparse && attr(m, id, "orderedMetadata").is_none() {
        return Err("'orderedMetadata' attribute is mandatory".into());
    }
    let Some((sm, sn, Some(sk))) = shape_of(m, id, "shape") else {
        return Ok(());
    };
    let (Some(kind), Some(vec), Some(fmt)) = (
        enum_of(m, id, "kind"),
        enum_of(m, id, "scaleVecSize"),
        enum_of(m, id, "blockScaleFormat"),
    ) else {
        return Ok(());
    };
    let a = enum_of(m, id, "multiplicandAPtxType");
    let b = enum_of(m, id, "multiplicandBPtxType");
    let (fp4_k, f8_k, what) = if sparse {
        (128, 64, "sparse mma")
    } else {
        (64, 32, "mma")
    };
    // MLIR keeps checking after a failure and reports every message; the last one is
    // the op's result, the first one is what a reader sees first: report the first.
    if sm == 16 && sn == 8 && sk == fp4_k {
        if a != Some("e2m1") || b != Some("e2m1") {
            return Err(format!(
                "unsupported MMATypes attribute for mma.m16n8k{fp4_k}.(mxf4nvf4|mxf4)"
            ));
        }
        match kind {
            "mxf4" => {
                if vec != "x2" {
                    return Err(format!(
                        "unsupported ScaleVecSize attribute for mma.m16n8k{fp4_k}.mxf4"
                    ));
                }
                if fmt != "ue8m0" {
                    return Err(format!(
                        "unsupported BlockScaleFormat attribute for mma.m16n8k{fp4_k}.mxf4"
                    ));
                }
            }
            "mxf4nvf4" => {
                // MLIR 22 pairs x2 with ue8m0 and x4 with ue4m3 only (later versions also
                // accept x4 with ue8m0).
                if !((vec == "x2" && fmt == "ue8m0") || (vec == "x4" && fmt == "ue4m3")) {
                    return Err(format!("unsupported ScaleVecSize and BlockScaleFormat attributes for mma.m16n8k{fp4_k}.mxf4nvf4"));
                }
            }
            _ => return Err(format!("unsupported Kind attribute for mma.m16n8k{fp4_k}")),
        }
    } else if sm == 16 && sn == 8 && sk == f8_k {
        if !(kind == "mxf8f6f4" && vec == "x1" && fmt == "ue8m0") {
            return Err(format!(
                "unsupported Kind, ScaleVecSize and BlockScaleFormat attributes for mma.m16n8k{f8_k}"
            ));
        }
    } else {
        return Err(format!("unsupported Geom for {what} with block scaling"));
    }
    Ok(())
}

/// The fragment register type and count of `NVVM::inferMMAType` for a WMMA fragment
/// (`frag` is `a`, `b` or `c`; `rows`/`cols` from the m, n, k of the op).
fn wmma_frag(ty: &str, frag: &str, m: i64, n: i64, k: i64) -> Option<(&'static str, i64)> {
    let (rows, cols) = match frag {
        "a" => (m, k),
        "b" => (k, n),
        _ => (m, n),
    };
    let ab = frag == "a" || frag == "b";
    Some(match ty {
        "f16" => ("vector<2xf16>", if ab { 8 } else { 4 }),
        "f32" => ("f32", 8),
        "f64" => ("f64", if ab { 1 } else { 2 }),
        "tf32" => ("i32", 4),
        "s8" | "u8" => {
            let par = match frag {
                "a" => rows,
                "b" => cols,
                _ => 0,
            };
            let n = match par {
                16 => 2,
                8 => 1,
                32 => 4,
                _ => return None,
            };
            ("i32", n)
        }
        "s32" => ("i32", 8),
        _ => return None,
    })
}

const WMMA_GEOMS: [(i64, i64, i64); 3] = [(16, 16, 16), (32, 8, 16), (8, 32, 16)];

/// Whether a `wmma.load` (`frag` a/b/c) or `wmma.store` (`frag` d) of this shape and
/// element type has an intrinsic (`NVVM_MMA_OPS.all_ldst_ops`).
fn wmma_ldst_ok(frag: &str, mnk: (i64, i64, i64), ty: &str) -> bool {
    let ab = frag == "a" || frag == "b";
    (WMMA_GEOMS.contains(&mnk)
        && if ab {
            matches!(ty, "f16" | "s8" | "u8")
        } else {
            matches!(ty, "f16" | "f32" | "s32")
        })
        || (mnk == (16, 16, 8) && ty == if ab { "tf32" } else { "f32" })
        || (mnk == (8, 8, 4) && ty == "f64")
}

/// Whether `wmma.mma` of this shape, A type and C/D type has an intrinsic
/// (`NVVM_MMA_OPS.all_wmma_ops`; any layouts).
fn wmma_mma_ok(mnk: (i64, i64, i64), a: &str, d: &str) -> bool {
    (mnk == (8, 8, 4) && a == "f64" && d == "f64")
        || (mnk == (16, 16, 8) && a == "tf32" && d == "f32")
        || (WMMA_GEOMS.contains(&mnk)
            && ((a == "f16" && matches!(d, "f16" | "f32"))
                || (matches!(a, "s8" | "u8") && d == "s32")))
}

fn ptr_space(t: &Type) -> Option<u64> {
    match LTy::of(t)? {
        LTy::Ptr(n) => Some(n),
        _ => None,
    }
}

fn wmma_mnk(m: &Module, id: OpId) -> Option<(i64, i64, i64)> {
    let g = |n: &str| int_attr(m, id, n).and_then(|v| i64::try_from(v).ok());
    Some((g("m")?, g("n")?, g("k")?))
}

fn verify_wmma(m: &Module, id: OpId, name: &str) -> Result<(), String> {
    let ops = m.operands(id);
    let Some(mnk) = wmma_mnk(m, id) else {
        return Ok(());
    };
    let (mm, nn, kk) = mnk;
    match name {
        "nvvm.wmma.load" => {
            let space = ops.first().and_then(|p| ptr_space(m.value_type(*p)));
            if space.is_some_and(|s| !matches!(s, 0 | 1 | 3)) {
                return Err("expected source pointer in memory space 0, 1, 3".into());
            }
            let (Some(ty), Some(frag)) = (enum_of(m, id, "eltype"), enum_of(m, id, "frag")) else {
                return Ok(());
            };
            if !wmma_ldst_ok(frag, mnk, ty) {
                return Err("invalid attribute combination".into());
            }
            let Some((elt, count)) = wmma_frag(ty, frag, mm, nn, kk) else {
                return Ok(());
            };
            let Some(&res) = m.results(id).first() else {
                return Ok(());
            };
            let got = canon(m.value_type(res));
            if elt == "f64" && count == 1 {
                if got != "f64" {
                    return Err("expected destination type to be f64".into());
                }
                return Ok(());
            }
            if got != st(&vec![elt; count as usize]) {
                return Err(format!(
                    "expected destination type is a structure of {count} elements of type '{elt}'"
                ));
            }
        }
        "nvvm.wmma.store" => {
            let space = ops.first().and_then(|p| ptr_space(m.value_type(*p)));
            if space.is_some_and(|s| !matches!(s, 0 | 1 | 3)) {
                return Err(
                    "expected operands to be a source pointer in memory space 0, 1, 3".into(),
                );
            }
            let Some(ty) = enum_of(m, id, "eltype") else {
                return Ok(());
            };
            if !wmma_ldst_ok("d", mnk, ty) {
                return Err("invalid attribute combination".into());
            }
            let Some((elt, count)) = wmma_frag(ty, "c", mm, nn, kk) else {
                return Ok(());
            };
            let Some(groups) = named_operands(m, id) else {
                return Ok(());
            };
            let args = group(&groups, "args");
            if args.len() as i64 != count {
                return Err(format!("expected {count} data operands"));
            }
            if args.iter().any(|v| canon(m.value_type(*v)) != elt) {
                return Err(format!("expected data operands of type '{elt}'"));
            }
        }
        _ => {
            let (Some(ta), Some(tb)) = (enum_of(m, id, "eltypeA"), enum_of(m, id, "eltypeB"))
            else {
                return Ok(());
            };
            if !wmma_mma_ok(mnk, ta, tb) {
                return Err("invalid attribute combination".into());
            }
            let (Some(fa), Some(fb), Some(fc)) = (
                wmma_frag(ta, "a", mm, nn, kk),
                wmma_frag(ta, "b", mm, nn, kk),
                wmma_frag(tb, "c", mm, nn, kk),
            ) else {
                return Ok(());
            };
            let mut want = rep(fa.1, fa.0);
            want.extend(rep(fb.1, fb.0));
            want.extend(rep(fc.1, fc.0));
            if ops.len() != want.len() {
                return Err(format!("expected {} arguments", want.len()));
            }
            for (i, (v, w)) in ops.iter().zip(&want).enumerate() {
                if &canon(m.value_type(*v)) != w {
                    return Err(format!("expected argument {i} to be of type '{w}'"));
                }
            }
            let Some(&res) = m.results(id).first() else {
                return Ok(());
            };
            if canon(m.value_type(res)) != st(&vec![fc.0; fc.1 as usize]) {
                return Err(format!(
                    "expected destination type is a structure of {} elements of type '{}'",
                    fc.1, fc.0
                ));
            }
        }
    }
    Ok(())
}

fn verify_ldmatrix(m: &Module, id: OpId) -> Result<(), String> {
    let (Some(num), Some((sm, sn, _))) = (int_attr(m, id, "num"), shape_of(m, id, "shape")) else {
        return Ok(());
    };
    let elt = enum_of(m, id, "eltType").unwrap_or("");
    let layout = enum_of(m, id, "layout").unwrap_or("");
    let b8x16 = matches!(elt, "b8x16.b4x16_p64" | "b8x16.b6x16_p32");
    match (sm, sn) {
        (8, 8) => {
            if !matches!(num, 1 | 2 | 4) {
                return Err("expected num attribute to be 1, 2 or 4 for 8x8 matrix".into());
            }
            if elt != "b16" {
                return Err("expected element type to be b16 for 8x8 matrix".into());
            }
        }
        (8, 16) => {
            if !matches!(num, 1 | 2 | 4) {
                return Err("expected num attribute to be 1, 2 or 4 for 8x16 matrix".into());
            }
            if layout != "row" {
                return Err("expected layout to be row for 8x16 matrix".into());
            }
            if !b8x16 {
                return Err("expected element type to be b8x16.b4x16_p64 or b8x16.b6x16_p32 for 8x16 matrix".into());
            }
        }
        (16, 16) => {
            if !matches!(num, 1 | 2) {
                return Err("expected num attribute to be 1 or 2 for 16x16 matrix".into());
            }
            if layout != "col" {
                return Err("expected layout to be col for 16x16 matrix".into());
            }
            if !(elt == "b8" || b8x16) {
                return Err("expected element type to be b8, b8x16.b4x16_p64 or b8x16.b6x16_p32 for 16x16 matrix".into());
            }
        }
        _ => return Err("expected shape to be 8x8, 8x16 or 16x16".into()),
    }
    let n = if (sm, sn) == (16, 16) { num * 2 } else { num };
    let Some(&res) = m.results(id).first() else {
        return Ok(());
    };
    let got = canon(m.value_type(res));
    if n == 1 && got != "i32" {
        return Err("expected destination type is i32".into());
    }
    if (n == 2 || n == 4) && got != st(&vec!["i32"; n as usize]) {
        return Err(format!(
            "expected destination type is a structure of {n} elements of type i32"
        ));
    }
    Ok(())
}

fn verify_stmatrix(m: &Module, id: OpId) -> Result<(), String> {
    let n = m.operands(id).len().saturating_sub(1);
    if !matches!(n, 1 | 2 | 4) {
        return Err("expected num attribute to be 1, 2 or 4".into());
    }
    let Some((sm, sn, _)) = shape_of(m, id, "shape") else {
        return Ok(());
    };
    let elt = enum_of(m, id, "eltType").unwrap_or("");
    match (sm, sn) {
        (8, 8) => {
            if elt != "b16" {
                return Err("expected element type to be B16 for 8x8 matrix".into());
            }
        }
        (16, 8) => {
            if elt != "b8" {
                return Err("expected element type to be B8 for 16x8 matrix".into());
            }
            if enum_of(m, id, "layout") != Some("col") {
                return Err("expected layout to be col for 16x8 matrix".into());
            }
        }
        _ => return Err("expected shape to be 8x8 or 16x8".into()),
    }
    Ok(())
}

/// `WgmmaMmaAsyncOp::verify`.
fn verify_wgmma(m: &Module, id: OpId) -> Result<(), String> {
    let Some(&res) = m.results(id).first() else {
        return Ok(());
    };
    let Some(LTy::Struct {
        body: Some(body), ..
    }) = LTy::of(m.value_type(res))
    else {
        return Err("expected results to be struct".into());
    };
    if let Some(first) = body.first() {
        if let Some(t) = body.iter().find(|t| *t != first) {
            return Err(format!(
                "all elements in struct must be same type but there is '{t}'"
            ));
        }
    }
    let (Some(d), Some(a), Some(b)) = (
        enum_of(m, id, "typeD"),
        enum_of(m, id, "typeA"),
        enum_of(m, id, "typeB"),
    ) else {
        return Ok(());
    };
    if !matches!(d, "f32" | "f16" | "s32") {
        return Err(format!("does not support the given output type {d}"));
    }
    if d == "s32"
        && (enum_of(m, id, "scaleA") == Some("neg") || enum_of(m, id, "scaleB") == Some("neg"))
    {
        return Err("has s32 output, scaleA and scaleB cannot be neg".into());
    }
    let ok = match a {
        "f16" => matches!(d, "f32" | "f16") && b == "f16",
        "tf32" => d == "f32" && b == "tf32",
        "u8" | "s8" => d == "s32" && matches!(b, "u8" | "s8"),
        "b1" => d == "s32" && b == "b1",
        "bf16" => d == "f32" && b == "bf16",
        "e4m3" | "e5m2" => matches!(d, "f32" | "f16") && matches!(b, "e5m2" | "e4m3"),
        // MLIR reaches `llvm_unreachable` here: leave it alone.
        _ => return Ok(()),
    };
    if !ok {
        return Err(format!("{d} += {a} * {b}, it is not supported."));
    }
    let Some((sm, sn, Some(sk))) = shape_of(m, id, "shape") else {
        return Ok(());
    };
    if sm != 64 {
        return Err("shape 'm' must be 64".into());
    }
    let allowed_k = match a {
        "tf32" => 8,
        "f16" | "bf16" => 16,
        "s8" | "u8" | "e4m3" | "e5m2" => 32,
        _ => 256,
    };
    if allowed_k != sk {
        return Err(format!("shape 'k' must be {allowed_k} for input type {a}"));
    }
    let n_ok = match a {
        "u8" | "s8" | "b1" => {
            (8..=32).contains(&sn) && sn % 8 == 0 || (48..=256).contains(&sn) && sn % 16 == 0
        }
        _ => (8..=256).contains(&sn) && sn % 8 == 0,
    };
    if !n_ok {
        return Err(format!(
            "has input type {a} n is set to {sn}, it is not supported."
        ));
    }
    let (la, lb) = (
        enum_of(m, id, "layoutA").unwrap_or("row"),
        enum_of(m, id, "layoutB").unwrap_or("col"),
    );
    if !matches!(a, "f16" | "bf16") && (la == "col" || lb == "row") {
        return Err(format!("given layouts layout_a = {la} and layout_b = {lb} for input types {a} and {b} requires transpose. However, this is only supported for: f16 and bf16"));
    }
    let expected = if d == "f16" { sn / 4 } else { sn / 2 };
    if body.len() as i64 != expected {
        return Err(format!(
            "results {expected}, however output struct has {} elements",
            body.len()
        ));
    }
    if d != "s32" && enum_of(m, id, "satfinite") == Some("satfinite") {
        return Err(format!(" `satfinite` can be only used with s32 accumulator, however the current accumulator is {d}"));
    }
    Ok(())
}

pub(super) fn verify(m: &Module, id: OpId) -> Result<(), String> {
    let name = m.op(id).name.as_str();
    match name {
        "nvvm.mma.sync" => verify_mma(m, id, false),
        "nvvm.mma.sp.sync" => verify_mma(m, id, true),
        "nvvm.mma.block_scale" => verify_block_scale(m, id, false),
        "nvvm.mma.sp.block_scale" => verify_block_scale(m, id, true),
        "nvvm.wmma.load" | "nvvm.wmma.store" | "nvvm.wmma.mma" => verify_wmma(m, id, name),
        "nvvm.ldmatrix" => verify_ldmatrix(m, id),
        "nvvm.stmatrix" => verify_stmatrix(m, id),
        "nvvm.wgmma.mma_async" => verify_wgmma(m, id),
        _ => Ok(()),
    }
}
