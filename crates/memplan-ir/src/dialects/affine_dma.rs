//! `affine.dma_start` and `affine.dma_wait`, two affine ops that MLIR defines in C++ only
//! (no ODS record; mlir/lib/Dialect/Affine/IR/AffineOps.cpp). They carry no properties:
//! the three access maps are plain attributes (`src_map`, `dst_map`, `tag_map`), and the
//! operands are `src, src map inputs, dst, dst map inputs, tag, tag map inputs, num
//! elements[, stride, elements per stride]`.
//!
//! ```text
//! affine.dma_start %A[%i + 1, symbol(%n)], %B[0, %i], %T[0], %num, %stride, %per
//!     : memref<100x100xf32>, memref<100x100xf32, 2>, memref<1xi32>
//! affine.dma_wait %T[0], %num : memref<1xi32>
//! ```
//!
//! The custom form takes no attribute dictionary, so an op with extra attributes (or with
//! operands its maps do not account for) is printed in generic form. The verifiers check
//! what MLIR 22's `verifyInvariantsImpl` checks and nothing more (e.g. a map's result count is
//! not compared with the memref rank, and the element count is not type-checked); where MLIR
//! would dereference a missing map attribute, memplan reports it instead.

use crate::affine::AffineMap;
use crate::attrs::Attribute;
use crate::ir::{Module, OpId, OperationState, ValueId};
use crate::parser::{Delimiter, PResult, Parser, UnresolvedOperand};
use crate::printer::Printer;
use crate::registry::{OpDef, Registry};
use crate::types::{Type, TypeKind};
use crate::Diagnostic;

use super::affine::{affine_scope, is_valid_dim, is_valid_symbol, map_prop, print_subscripts};
use super::memref::resolve_indices;

/// Registers `affine.dma_start` and `affine.dma_wait`.
pub fn register(r: &mut Registry) {
    r.register(OpDef {
        parse: Some(parse_start),
        print: Some(print_start),
        verify: Some(verify_start),
        ..OpDef::new("affine.dma_start")
    });
    r.register(OpDef {
        parse: Some(parse_wait),
        print: Some(print_wait),
        verify: Some(verify_wait),
        ..OpDef::new("affine.dma_wait")
    });
}

const START_MAPS: [&str; 3] = ["src_map", "dst_map", "tag_map"];

fn is_memref(t: &Type) -> bool {
    matches!(t.kind(), TypeKind::MemRef { .. })
}

/// `%m[subscripts]`: the memref operand, its map and the map's operands.
fn parse_access(
    p: &mut Parser<'_>,
) -> PResult<(UnresolvedOperand, AffineMap, Vec<UnresolvedOperand>)> {
    let m = p.parse_operand()?;
    let mut idx = Vec::new();
    let map = p.parse_affine_map_of_ssa_ids(&mut idx, Delimiter::Square)?;
    Ok((m, map, idx))
}

fn parse_start(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let at = p.current_span();
    let (src, src_map, src_idx) = parse_access(p)?;
    p.parse_comma()?;
    let (dst, dst_map, dst_idx) = parse_access(p)?;
    p.parse_comma()?;
    let (tag, tag_map, tag_idx) = parse_access(p)?;
    p.parse_comma()?;
    let num = p.parse_operand()?;
    let mut stride = Vec::new();
    if p.consume_if(crate::lexer::Tok::Comma) {
        stride = p.parse_operand_list()?;
    }
    if !stride.is_empty() && stride.len() != 2 {
        return Err(Diagnostic::new(at, "expected two stride related operands"));
    }
    let tys = p.parse_colon_type_list()?;
    if tys.len() != 3 {
        return Err(Diagnostic::new(at, "expected three types"));
    }
    let index = Type::index();
    st.operands.push(p.resolve_operand(&src, &tys[0])?);
    st.operands.extend(resolve_indices(p, &src_idx)?);
    st.operands.push(p.resolve_operand(&dst, &tys[1])?);
    st.operands.extend(resolve_indices(p, &dst_idx)?);
    st.operands.push(p.resolve_operand(&tag, &tys[2])?);
    st.operands.extend(resolve_indices(p, &tag_idx)?);
    st.operands.push(p.resolve_operand(&num, &index)?);
    st.operands.extend(resolve_indices(p, &stride)?);
    // in the order MLIR's generic form lists them (sorted by name)
    st.attrs.set("dst_map", Attribute::AffineMap(dst_map));
    st.attrs.set("src_map", Attribute::AffineMap(src_map));
    st.attrs.set("tag_map", Attribute::AffineMap(tag_map));
    Ok(())
}

/// The three maps of a dma_start, or the name of the first one missing (or not a map).
fn start_maps(m: &Module, op: OpId) -> Result<[AffineMap; 3], &'static str> {
    let get = |n: &'static str| map_prop(m, op, n).ok_or(n);
    Ok([
        get(START_MAPS[0])?,
        get(START_MAPS[1])?,
        get(START_MAPS[2])?,
    ])
}

fn inputs(map: &AffineMap) -> usize {
    (map.num_dims + map.num_symbols) as usize
}

/// True if the op has exactly the attributes `names` (so the custom form, which prints no
/// attribute dictionary, loses nothing).
fn only_attrs(m: &Module, op: OpId, names: &[&str]) -> bool {
    let d = m.op(op);
    d.props.is_empty() && d.attrs.len() == names.len() && names.iter().all(|n| d.attrs.contains(n))
}

fn print_start(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Ok(maps) = start_maps(m, op) else {
        return false;
    };
    let ops = m.operands(op);
    let (ns, nd, nt) = (inputs(&maps[0]), inputs(&maps[1]), inputs(&maps[2]));
    let base = ns + nd + nt + 4;
    if (ops.len() != base && ops.len() != base + 2)
        || !m.results(op).is_empty()
        || !only_attrs(m, op, &START_MAPS)
        || verify_start(m, op).is_err()
    {
        return false;
    }
    // the custom form reads the element count and strides back as `index`
    if !ops[base - 1..].iter().all(|&v| m.value_type(v).is_index()) {
        return false;
    }
    let (src, dst, tag) = (ops[0], ops[1 + ns], ops[2 + ns + nd]);
    p.write(" ");
    p.print_operand(src);
    print_subscripts(p, &maps[0], &ops[1..1 + ns]);
    p.write(", ");
    p.print_operand(dst);
    print_subscripts(p, &maps[1], &ops[2 + ns..2 + ns + nd]);
    p.write(", ");
    p.print_operand(tag);
    print_subscripts(p, &maps[2], &ops[3 + ns + nd..base - 1]);
    p.write(", ");
    p.print_operands(&ops[base - 1..]);
    p.write(" : ");
    p.print_value_types(&[src, dst, tag]);
    true
}

/// A C++-only op has no properties: MLIR rejects a generic `<{...}>` on it.
fn no_properties(m: &Module, op: OpId) -> Result<(), String> {
    if m.op(op).props.is_empty() {
        Ok(())
    } else {
        Err("this operation does not support properties".into())
    }
}

/// MLIR's `isValidAffineIndexOperand`.
fn valid_index(m: &Module, scope: Option<OpId>, v: ValueId) -> bool {
    is_valid_dim(m, v, scope) || is_valid_symbol(m, v, scope, 0)
}

fn verify_start(m: &Module, op: OpId) -> Result<(), String> {
    no_properties(m, op)?;
    if !m.results(op).is_empty() {
        return Err("requires zero results".into());
    }
    let maps = start_maps(m, op).map_err(|n| format!("requires affine map attribute '{n}'"))?;
    let ops = m.operands(op);
    let (ns, nd, nt) = (inputs(&maps[0]), inputs(&maps[1]), inputs(&maps[2]));
    let base = ns + nd + nt + 4;
    let ty = |i: usize| ops.get(i).map(|&v| m.value_type(v));
    if !ty(0).is_some_and(is_memref) {
        return Err("expected DMA source to be of memref type".into());
    }
    if !ty(1 + ns).is_some_and(is_memref) {
        return Err("expected DMA destination to be of memref type".into());
    }
    if !ty(2 + ns + nd).is_some_and(is_memref) {
        return Err("expected DMA tag to be of memref type".into());
    }
    if ops.len() != base && ops.len() != base + 2 {
        return Err("incorrect number of operands".into());
    }
    let scope = affine_scope(m, op);
    let groups = [
        ("src", &ops[1..1 + ns]),
        ("dst", &ops[2 + ns..2 + ns + nd]),
        ("tag", &ops[3 + ns + nd..base - 1]),
    ];
    for (what, idx) in groups {
        for &v in idx {
            if !m.value_type(v).is_index() {
                return Err(format!("{what} index to dma_start must have 'index' type"));
            }
            if !valid_index(m, scope, v) {
                return Err(format!(
                    "{what} index must be a valid dimension or symbol identifier"
                ));
            }
        }
    }
    Ok(())
}

fn parse_wait(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let at = p.current_span();
    let (tag, map, idx) = parse_access(p)?;
    p.parse_comma()?;
    let num = p.parse_operand()?;
    let t = p.parse_colon_type()?;
    st.operands.push(p.resolve_operand(&tag, &t)?);
    st.operands.extend(resolve_indices(p, &idx)?);
    st.operands.push(p.resolve_operand(&num, &Type::index())?);
    if !is_memref(&t) {
        return Err(Diagnostic::new(at, "expected tag to be of memref type"));
    }
    st.attrs.set("tag_map", Attribute::AffineMap(map));
    Ok(())
}

fn print_wait(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(map) = map_prop(m, op, "tag_map") else {
        return false;
    };
    let ops = m.operands(op);
    let n = inputs(&map);
    if ops.len() != n + 2
        || !m.results(op).is_empty()
        || !only_attrs(m, op, &["tag_map"])
        || !m.value_type(ops[1 + n]).is_index()
        || verify_wait(m, op).is_err()
    {
        return false;
    }
    p.write(" ");
    p.print_operand(ops[0]);
    print_subscripts(p, &map, &ops[1..1 + n]);
    p.write(", ");
    p.print_operand(ops[1 + n]);
    p.write(" : ");
    p.print_type(m.value_type(ops[0]));
    true
}

fn verify_wait(m: &Module, op: OpId) -> Result<(), String> {
    no_properties(m, op)?;
    if !m.results(op).is_empty() {
        return Err("requires zero results".into());
    }
    let Some(map) = map_prop(m, op, "tag_map") else {
        return Err("requires affine map attribute 'tag_map'".into());
    };
    let ops = m.operands(op);
    if !ops.first().is_some_and(|&v| is_memref(m.value_type(v))) {
        return Err("expected DMA tag to be of memref type".into());
    }
    // MLIR reads the element count after the map's inputs without checking that it exists
    let n = inputs(&map);
    if ops.len() < n + 2 {
        return Err("incorrect number of operands".into());
    }
    let scope = affine_scope(m, op);
    for &v in &ops[1..1 + n] {
        if !m.value_type(v).is_index() {
            return Err("index to dma_wait must have 'index' type".into());
        }
        if !valid_index(m, scope, v) {
            return Err("index must be a valid dimension or symbol identifier".into());
        }
    }
    Ok(())
}
