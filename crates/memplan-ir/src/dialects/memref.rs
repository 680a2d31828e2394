//! The `memref` dialect's custom forms and verifiers (mlir/include/mlir/Dialect/MemRef/IR/
//! MemRefOps.td, mlir/lib/Dialect/MemRef/IR/MemRefOps.cpp). memplan's planner reads
//! `alloc`/`dealloc`/`view`/`subview` and its merge-alloc pass writes `alloc` + `view`
//! (seed: "compile-time memory planning", ARCHITECTURE.md memplan-ir), so these ops must
//! round-trip exactly: every property an assembly format implies (`operandSegmentSizes`,
//! `static_offsets`, ...) is set by the parser, and the printer writes the same text as
//! mlir-opt-22, falling back to the generic form when an op lacks the custom form's shape.
//!
//! ```text
//! %a = memref.alloc(%n)[%s] {alignment = 64} : memref<?xf32, affine_map<..>>
//! %v = memref.view %buf[%shift][%n] : memref<2048xi8> to memref<?xf32>
//! %s = memref.subview %a[0, %i] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1], offset: ?>>
//! %x = memref.load %a[%i] : memref<?xf32>      memref.store %x, %a[%i] : memref<?xf32>
//! %y = memref.generic_atomic_rmw %a[%i] : memref<?xf32> { ^bb0(%cur: f32): ... memref.atomic_yield %v : f32 }
//! ```
//!
//! The first section holds small helpers shared by the other dialect files of this group
//! (`scf`, `cf`, `affine`, `bufferization`).

use crate::attrs::{Attribute, Dict};
use crate::ir::{Module, OpId, OperationState, RegionId, ValueId};
use crate::lexer::Tok;
use crate::parser::{Delimiter, PResult, Parser, UnresolvedOperand};
use crate::printer::Printer;
use crate::registry::{traits, OpDef, Registry};
use crate::types::{Type, TypeKind, DYNAMIC};
use crate::AffineMap;

// ===================== shared helpers =====================

/// Properties then discardable attributes of `op`, merged (the custom forms print both in
/// one `{...}`; mlir-opt moves inherent names back into properties).
pub(crate) fn all_attrs(m: &Module, op: OpId) -> Dict {
    let d = m.op(op);
    let mut all = d.props.clone();
    for n in d.attrs.iter() {
        all.set(n.name.clone(), n.value.clone());
    }
    all
}

/// Prints ` {...}` with every property and attribute of `op` except `elided`.
pub(crate) fn print_attrs(p: &mut Printer<'_>, op: OpId, elided: &[&str]) {
    let all = all_attrs(p.module(), op);
    p.print_optional_attr_dict(&all, elided);
}

/// Parses `%v attr-dict : type`, the custom form of the ops that take one value and
/// return nothing (`memref.atomic_yield`, `scf.reduce.return`,
/// `bufferization.dealloc_tensor`).
pub(crate) fn parse_value_colon_type(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let v = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    st.operands.push(p.resolve_operand(&v, &t)?);
    Ok(())
}

/// Prints ` %v attr-dict : type` for an op with exactly one operand; false otherwise.
pub(crate) fn print_value_colon_type(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let [v] = m.operands(op) else { return false };
    p.write(" ");
    p.print_operand(*v);
    print_attrs(p, op, &[]);
    p.write(" : ");
    p.print_type(m.value_type(*v));
    true
}

/// Prints ` attributes {...}` with every property and attribute except `elided`.
pub(crate) fn print_attrs_kw(p: &mut Printer<'_>, op: OpId, elided: &[&str]) {
    let all = all_attrs(p.module(), op);
    p.print_optional_attr_dict_with_keyword(&all, elided);
}

/// A property (or, for ops built in generic form without properties, an attribute).
pub(crate) fn prop<'m>(m: &'m Module, op: OpId, name: &str) -> Option<&'m Attribute> {
    let d = m.op(op);
    d.props.get(name).or_else(|| d.attrs.get(name))
}

/// True if the unit/bool property `name` is set.
pub(crate) fn flag(m: &Module, op: OpId, name: &str) -> bool {
    matches!(
        prop(m, op, name),
        Some(Attribute::Unit | Attribute::Bool(true))
    )
}

/// Integer elements of a dense-array property.
pub(crate) fn int_array(m: &Module, op: OpId, name: &str) -> Option<Vec<i64>> {
    prop(m, op, name)
        .and_then(|a| a.as_int_array())
        .map(<[i64]>::to_vec)
}

/// Sets `operandSegmentSizes`.
pub(crate) fn set_segments(st: &mut OperationState, sizes: &[usize]) {
    let v: Vec<i64> = sizes.iter().map(|&s| s as i64).collect();
    st.props
        .set("operandSegmentSizes", Attribute::i32_array(&v));
}

/// Splits the operands of `op` by its `operandSegmentSizes` (which must have `n` entries
/// summing to the operand count).
pub(crate) fn segments(m: &Module, op: OpId, n: usize) -> Option<Vec<&[ValueId]>> {
    let sizes = prop(m, op, "operandSegmentSizes").and_then(|a| a.as_int_array())?;
    let ops = m.operands(op);
    if sizes.len() != n || sizes.iter().any(|&s| s < 0) {
        return None;
    }
    if sizes.iter().sum::<i64>() != ops.len() as i64 {
        return None;
    }
    let mut out = Vec::with_capacity(n);
    let mut at = 0usize;
    for &s in sizes {
        out.push(&ops[at..at + s as usize]);
        at += s as usize;
    }
    Some(out)
}

/// Like [`segments`] but verifier-friendly: an error message when the property is off.
pub(crate) fn segments_checked(m: &Module, op: OpId, n: usize) -> Result<Vec<&[ValueId]>, String> {
    segments(m, op, n).ok_or_else(|| {
        format!(
            "operandSegmentSizes must have {n} non-negative entries summing to the operand count"
        )
    })
}

/// Inserts the implicit terminator `name` (no operands) into the single block of `r`
/// when it is missing, creating the block if the region is empty (MLIR's
/// `SingleBlockImplicitTerminator::ensureTerminator`).
pub(crate) fn ensure_terminator(p: &mut Parser<'_>, r: RegionId, name: &'static str) {
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
    let t = m.create_op(OperationState::new(name));
    m.append_op(b, t);
}

/// True if the terminators of `r` can be left out of the custom form: every block ends
/// in a plain `name` op with no operands, results or attributes (the parser re-creates it).
pub(crate) fn terminators_elidable(m: &Module, r: RegionId, name: &str) -> bool {
    m.region_blocks(r).iter().all(|&b| match m.last_op(b) {
        Some(t) => {
            let d = m.op(t);
            d.name == name
                && m.operands(t).is_empty()
                && m.results(t).is_empty()
                && d.attrs.is_empty()
                && d.props.is_empty()
                && matches!(d.loc(), crate::Location::Unknown)
        }
        None => false,
    })
}

/// Region has exactly one block (what most structured ops need for their custom form).
pub(crate) fn single_block(m: &Module, r: RegionId) -> Option<crate::BlockId> {
    match m.region_blocks(r) {
        [b] => Some(*b),
        _ => None,
    }
}

/// Parts of a ranked memref type.
pub(crate) struct MemRefParts<'t> {
    /// Sizes.
    pub shape: &'t [i64],
    /// Element type.
    pub elem: &'t Type,
    /// Layout (`None` = identity).
    pub layout: Option<&'t Attribute>,
}

/// The parts of a ranked memref type.
pub(crate) fn memref_parts(t: &Type) -> Option<MemRefParts<'_>> {
    match t.kind() {
        TypeKind::MemRef {
            shape,
            elem,
            layout,
            ..
        } => Some(MemRefParts {
            shape,
            elem,
            layout: layout.as_ref(),
        }),
        _ => None,
    }
}

/// True for ranked or unranked memrefs.
pub(crate) fn is_memref(t: &Type) -> bool {
    matches!(
        t.kind(),
        TypeKind::MemRef { .. } | TypeKind::UnrankedMemRef { .. }
    )
}

/// Memory space of a (ranked or unranked) memref, with the default `0` normalised away.
pub(crate) fn memory_space(t: &Type) -> Option<Attribute> {
    let s = match t.kind() {
        TypeKind::MemRef { memory_space, .. } | TypeKind::UnrankedMemRef { memory_space, .. } => {
            memory_space.clone()
        }
        _ => None,
    };
    match s {
        Some(Attribute::Integer { value: 0, .. }) => None,
        s => s,
    }
}

/// True if a memref layout is the identity (absent, identity map, or canonical strides).
pub(crate) fn layout_is_identity(shape: &[i64], layout: Option<&Attribute>) -> bool {
    match layout {
        None => true,
        Some(Attribute::AffineMap(m)) => m.is_identity(),
        Some(Attribute::Strided { strides, offset }) => {
            if *offset != 0 {
                return false;
            }
            let mut expect = 1i64;
            for i in (0..shape.len()).rev() {
                if strides.get(i) != Some(&expect) {
                    return false;
                }
                if shape[i] == DYNAMIC {
                    // Any further stride would be dynamic: only fine if it is the outermost.
                    if i > 0 {
                        return false;
                    }
                } else {
                    expect = expect.saturating_mul(shape[i]);
                }
            }
            strides.len() == shape.len()
        }
        Some(_) => false,
    }
}

fn index_ty() -> Type {
    Type::index()
}

/// Resolves operands that all have type `index`.
pub(crate) fn resolve_indices(
    p: &mut Parser<'_>,
    us: &[UnresolvedOperand],
) -> PResult<Vec<ValueId>> {
    p.resolve_operands_same(us, &index_ty())
}

/// True if every value in `vs` has type `index`.
pub(crate) fn all_index(m: &Module, vs: &[ValueId]) -> bool {
    vs.iter().all(|&v| m.value_type(v).is_index())
}

/// Number of `DYNAMIC` entries.
pub(crate) fn count_dynamic(v: &[i64]) -> usize {
    v.iter().filter(|&&x| x == DYNAMIC).count()
}

/// Prints the types of `vs` joined by `, `.
pub(crate) fn types_of(m: &Module, vs: &[ValueId]) -> Vec<Type> {
    vs.iter().map(|&v| m.value_type(v).clone()).collect()
}

/// Formats a shape like `2, 2` for diagnostics.
fn fmt_shape(s: &[i64]) -> String {
    s.iter()
        .map(|&d| {
            if d == DYNAMIC {
                "?".to_string()
            } else {
                d.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

// ===================== registration =====================

/// Registers `memref.*`.
pub fn register(r: &mut Registry) {
    let simple = |name: &'static str,
                  parse: crate::registry::ParseFn,
                  print: crate::registry::PrintFn,
                  verify: Option<crate::registry::VerifyFn>,
                  inherent: &'static [&'static str]| OpDef {
        parse: Some(parse),
        print: Some(print),
        verify,
        inherent,
        ..OpDef::new(name)
    };
    r.register(simple(
        "memref.alloc",
        parse_alloc,
        print_alloc,
        Some(verify_alloc),
        &["alignment"],
    ));
    r.register(simple(
        "memref.alloca",
        parse_alloc,
        print_alloc,
        Some(verify_alloc),
        &["alignment"],
    ));
    r.register(simple(
        "memref.dealloc",
        parse_unary_void,
        print_unary_void,
        Some(verify_dealloc),
        &[],
    ));
    r.register(simple(
        "memref.load",
        parse_load,
        print_load,
        Some(verify_load),
        &["nontemporal", "alignment"],
    ));
    r.register(simple(
        "memref.store",
        parse_store,
        print_store,
        Some(verify_store),
        &["nontemporal", "alignment"],
    ));
    r.register(OpDef {
        traits: traits::SINGLE_BLOCK,
        ..simple(
            "memref.generic_atomic_rmw",
            parse_generic_atomic_rmw,
            print_generic_atomic_rmw,
            Some(verify_generic_atomic_rmw),
            &[],
        )
    });
    r.register(OpDef {
        traits: traits::TERMINATOR,
        ..simple(
            "memref.atomic_yield",
            parse_value_colon_type,
            print_atomic_yield,
            Some(verify_atomic_yield),
            &[],
        )
    });
    r.register(simple(
        "memref.view",
        parse_view,
        print_view,
        Some(verify_view),
        &[],
    ));
    r.register(simple(
        "memref.subview",
        parse_subview,
        print_subview,
        Some(verify_subview),
        &["static_offsets", "static_sizes", "static_strides"],
    ));
    r.register(simple(
        "memref.reinterpret_cast",
        parse_reinterpret_cast,
        print_reinterpret_cast,
        Some(verify_reinterpret_cast),
        &["static_offsets", "static_sizes", "static_strides"],
    ));
    for n in ["memref.cast", "memref.memory_space_cast"] {
        r.register(simple(
            n,
            parse_cast_to,
            print_cast_to,
            Some(verify_cast),
            &[],
        ));
    }
    r.register(simple(
        "memref.copy",
        parse_copy,
        print_copy,
        Some(verify_copy),
        &[],
    ));
    r.register(simple(
        "memref.expand_shape",
        parse_reshape_like,
        print_reshape_like,
        Some(verify_reshape_like),
        &["reassociation", "static_output_shape"],
    ));
    r.register(simple(
        "memref.collapse_shape",
        parse_reshape_like,
        print_reshape_like,
        Some(verify_reshape_like),
        &["reassociation"],
    ));
    r.register(simple(
        "memref.transpose",
        parse_transpose,
        print_transpose,
        Some(verify_transpose),
        &["permutation"],
    ));
    r.register(simple(
        "memref.dim",
        parse_dim,
        print_dim,
        Some(verify_dim),
        &[],
    ));
    r.register(simple(
        "memref.rank",
        parse_unary_result,
        print_unary_result,
        None,
        &[],
    ));
    r.register(simple(
        "memref.global",
        parse_global,
        print_global,
        Some(verify_global),
        GLOBAL_INHERENT,
    ));
    r.register(simple(
        "memref.get_global",
        parse_get_global,
        print_get_global,
        Some(verify_get_global),
        &["name"],
    ));
    for n in [
        "memref.extract_strided_metadata",
        "memref.extract_aligned_pointer_as_index",
    ] {
        r.register(simple(
            n,
            parse_arrow_results,
            print_arrow_results,
            None,
            &[],
        ));
    }
    r.register(simple(
        "memref.assume_alignment",
        parse_assume_alignment,
        print_assume_alignment,
        Some(verify_assume_alignment),
        &["alignment"],
    ));
    r.register(simple(
        "memref.reshape",
        parse_reshape,
        print_reshape,
        Some(verify_reshape),
        &[],
    ));
    r.register(simple(
        "memref.prefetch",
        parse_prefetch,
        print_prefetch,
        Some(verify_prefetch),
        &["isWrite", "localityHint", "isDataCache"],
    ));
    r.register(simple(
        "memref.realloc",
        parse_realloc,
        print_realloc,
        Some(verify_realloc),
        &["alignment"],
    ));
    r.register(simple(
        "memref.atomic_rmw",
        parse_atomic_rmw,
        print_atomic_rmw,
        Some(verify_atomic_rmw),
        &["kind"],
    ));
    r.register(OpDef {
        parse: Some(parse_dma_start),
        print: Some(print_dma_start),
        verify: Some(verify_dma_start),
        ..OpDef::new("memref.dma_start")
    });
    r.register(OpDef {
        parse: Some(parse_dma_wait),
        print: Some(print_dma_wait),
        verify: Some(verify_dma_wait),
        ..OpDef::new("memref.dma_wait")
    });
    r.register(OpDef {
        parse: Some(parse_alloca_scope),
        print: Some(print_alloca_scope),
        default_dialect: None,
        ..OpDef::new("memref.alloca_scope")
    });
    r.register(OpDef {
        parse: Some(parse_values_colon_types),
        print: Some(print_values_colon_types),
        verify: Some(verify_alloca_scope_return),
        traits: traits::TERMINATOR,
        ..OpDef::new("memref.alloca_scope.return")
    });
}

const GLOBAL_INHERENT: &[&str] = &[
    "sym_name",
    "sym_visibility",
    "type",
    "initial_value",
    "constant",
    "alignment",
];

/// Names of `memref.atomic_rmw` / `affine.parallel` reduction kinds, by enum value.
pub(crate) const ATOMIC_KINDS: &[&str] = &[
    "addf", "addi", "andi", "assign", "maximumf", "maxnumf", "maxs", "maxu", "minimumf", "minnumf",
    "mins", "minu", "mulf", "muli", "ori", "xori",
];

// ===================== common shapes =====================

/// `%x attr-dict : type` (no results): dealloc.
fn parse_unary_void(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let o = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    st.operands.push(p.resolve_operand(&o, &t)?);
    Ok(())
}

fn print_unary_void(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    if m.operands(op).len() != 1 || !m.results(op).is_empty() {
        return false;
    }
    let v = m.operands(op)[0];
    p.write(" ");
    p.print_operand(v);
    print_attrs(p, op, &[]);
    p.write(" : ");
    p.print_type(m.value_type(v));
    true
}

/// `%x attr-dict : type` with an index result: rank.
fn parse_unary_result(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    parse_unary_void(p, st)?;
    st.result_types.push(index_ty());
    Ok(())
}

fn print_unary_result(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    if m.operands(op).len() != 1 || m.results(op).len() != 1 {
        return false;
    }
    if !m.value_type(m.result(op, 0)).is_index() {
        return false;
    }
    let v = m.operands(op)[0];
    p.write(" ");
    p.print_operand(v);
    print_attrs(p, op, &[]);
    p.write(" : ");
    p.print_type(m.value_type(v));
    true
}

/// `%x attr-dict : T to U`: cast, memory_space_cast.
fn parse_cast_to(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let o = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    p.parse_keyword("to")?;
    let r = p.parse_type()?;
    st.operands.push(p.resolve_operand(&o, &t)?);
    st.result_types.push(r);
    Ok(())
}

/// Prints `%x attr-dict : T to U` for one-operand, one-result ops.
pub(crate) fn print_cast_to(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    if m.operands(op).len() != 1 || m.results(op).len() != 1 {
        return false;
    }
    let v = m.operands(op)[0];
    p.write(" ");
    p.print_operand(v);
    print_attrs(p, op, &[]);
    p.write(" : ");
    p.print_type(m.value_type(v));
    p.write(" to ");
    p.print_type(m.value_type(m.result(op, 0)));
    true
}

/// `%x : T -> R1, R2` with results after the arrow: extract_strided_metadata.
fn parse_arrow_results(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let o = p.parse_operand()?;
    let t = p.parse_colon_type()?;
    p.parse_arrow()?;
    st.result_types = p.parse_type_list()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    st.operands.push(p.resolve_operand(&o, &t)?);
    Ok(())
}

fn print_arrow_results(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    if m.operands(op).len() != 1 || m.results(op).is_empty() {
        return false;
    }
    let v = m.operands(op)[0];
    p.write(" ");
    p.print_operand(v);
    p.write(" : ");
    p.print_type(m.value_type(v));
    p.write(" -> ");
    p.print_value_types(m.results(op));
    print_attrs(p, op, &[]);
    true
}

/// `attr-dict ($values^ : types)?`: terminators like `alloca_scope.return`, `scf.yield`.
pub(crate) fn parse_values_colon_types(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let at = p.current_span();
    let ops = p.parse_operand_list()?;
    if !ops.is_empty() {
        let tys = p.parse_colon_type_list()?;
        st.operands = p.resolve_operands(&ops, &tys, at)?;
    }
    Ok(())
}

/// Prints `attr-dict ($values^ : types)?`.
pub(crate) fn print_values_colon_types(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    if !m.results(op).is_empty() || !m.regions(op).is_empty() || !m.op(op).successors.is_empty() {
        return false;
    }
    print_attrs(p, op, &[]);
    let ops = m.operands(op);
    if !ops.is_empty() {
        p.write(" ");
        p.print_operands(ops);
        p.write(" : ");
        p.print_value_types(ops);
    }
    true
}

// ===================== alloc / alloca / dealloc / realloc =====================

fn parse_alloc(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let dyns = p.parse_operand_list_delimited(Delimiter::Paren)?;
    let syms = p.parse_operand_list_delimited(Delimiter::OptionalSquare)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    st.operands = resolve_indices(p, &dyns)?;
    st.operands.extend(resolve_indices(p, &syms)?);
    set_segments(st, &[dyns.len(), syms.len()]);
    st.result_types.push(t);
    Ok(())
}

fn print_alloc(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(seg) = segments(m, op, 2) else {
        return false;
    };
    if m.results(op).len() != 1 {
        return false;
    }
    p.write("(");
    p.print_operands(seg[0]);
    p.write(")");
    if !seg[1].is_empty() {
        p.write("[");
        p.print_operands(seg[1]);
        p.write("]");
    }
    print_attrs(p, op, &["operandSegmentSizes"]);
    p.write(" : ");
    p.print_type(m.value_type(m.result(op, 0)));
    true
}

fn verify_alloc(m: &Module, op: OpId) -> Result<(), String> {
    super::bufferization::check_escape_attr(m, op, false)?;
    let seg = segments_checked(m, op, 2)?;
    if m.results(op).len() != 1 {
        return Err("requires one result".into());
    }
    let t = m.value_type(m.result(op, 0));
    let Some(mp) = memref_parts(t) else {
        return Err(format!(
            "result #0 must be memref of any type values, but got '{t}'"
        ));
    };
    if !all_index(m, m.operands(op)) {
        return Err("operands must be of index type".into());
    }
    let ndyn = count_dynamic(mp.shape);
    if seg[0].len() != ndyn {
        return Err(format!(
            "dimension operand count does not equal memref dynamic dimension count ({} vs {ndyn})",
            seg[0].len()
        ));
    }
    let nsyms = match mp.layout {
        Some(Attribute::AffineMap(am)) => am.num_symbols as usize,
        Some(Attribute::Strided { strides, offset }) => {
            count_dynamic(strides) + usize::from(*offset == DYNAMIC)
        }
        _ => 0,
    };
    if seg[1].len() != nsyms {
        return Err("symbol operand count does not equal memref symbol count".into());
    }
    if let Some(a) = prop(m, op, "alignment") {
        match a.as_int() {
            Some(v) if v > 0 && (v & (v - 1)) == 0 => {}
            _ => {
                return Err(
                    "attribute 'alignment' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive and whose value is a power of two > 0".into(),
                )
            }
        }
    }
    Ok(())
}

fn verify_dealloc(m: &Module, op: OpId) -> Result<(), String> {
    match m.operands(op) {
        [v] if is_memref(m.value_type(*v)) => Ok(()),
        [v] => Err(format!(
            "operand #0 must be unranked.memref of any type values or memref of any type values, but got '{}'",
            m.value_type(*v)
        )),
        _ => Err("requires exactly one operand".into()),
    }
}

fn parse_realloc(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let src = p.parse_operand()?;
    let size = p.parse_operand_list_delimited(Delimiter::OptionalParen)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    p.parse_keyword("to")?;
    let r = p.parse_type()?;
    st.operands.push(p.resolve_operand(&src, &t)?);
    st.operands.extend(resolve_indices(p, &size)?);
    st.result_types.push(r);
    Ok(())
}

fn print_realloc(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    if ops.is_empty() || ops.len() > 2 || m.results(op).len() != 1 {
        return false;
    }
    p.write(" ");
    p.print_operand(ops[0]);
    if ops.len() == 2 {
        p.write("(");
        p.print_operand(ops[1]);
        p.write(")");
    }
    print_attrs(p, op, &[]);
    p.write(" : ");
    p.print_type(m.value_type(ops[0]));
    p.write(" to ");
    p.print_type(m.value_type(m.result(op, 0)));
    true
}

// ===================== load / store / atomic_rmw / prefetch =====================

fn parse_load(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let mref = p.parse_operand()?;
    let idx = p.parse_operand_list_delimited(Delimiter::Square)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let at = p.current_span();
    let t = p.parse_colon_type()?;
    let Some(elem) = t.element_type().cloned() else {
        return Err(crate::Diagnostic::new(at, "expected a memref type"));
    };
    st.operands.push(p.resolve_operand(&mref, &t)?);
    st.operands.extend(resolve_indices(p, &idx)?);
    st.result_types.push(elem);
    Ok(())
}

fn print_load(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    if ops.is_empty() || m.results(op).len() != 1 {
        return false;
    }
    let t = m.value_type(ops[0]);
    if t.element_type() != Some(m.value_type(m.result(op, 0))) || !all_index(m, &ops[1..]) {
        return false;
    }
    p.write(" ");
    p.print_operand(ops[0]);
    p.write("[");
    p.print_operands(&ops[1..]);
    p.write("]");
    print_attrs(p, op, &[]);
    p.write(" : ");
    p.print_type(t);
    true
}

fn check_indices(m: &Module, t: &Type, idx: &[ValueId], what: &str) -> Result<(), String> {
    let Some(mp) = memref_parts(t) else {
        return Err(format!("expects a ranked memref, got '{t}'"));
    };
    if mp.shape.len() != idx.len() {
        return Err(format!(
            "incorrect number of indices for {what}, expected {} but got {}",
            mp.shape.len(),
            idx.len()
        ));
    }
    if !all_index(m, idx) {
        return Err("indices must be of index type".into());
    }
    Ok(())
}

fn verify_load(m: &Module, op: OpId) -> Result<(), String> {
    let ops = m.operands(op);
    if ops.is_empty() || m.results(op).len() != 1 {
        return Err("expects a memref operand and one result".into());
    }
    let t = m.value_type(ops[0]);
    check_indices(m, t, &ops[1..], "load")?;
    let r = m.value_type(m.result(op, 0));
    if t.element_type() != Some(r) {
        return Err(format!(
            "result type '{r}' does not match the element type of '{t}'"
        ));
    }
    Ok(())
}

fn parse_store(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let val = p.parse_operand()?;
    p.parse_comma()?;
    let mref = p.parse_operand()?;
    let idx = p.parse_operand_list_delimited(Delimiter::Square)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let at = p.current_span();
    let t = p.parse_colon_type()?;
    let Some(elem) = t.element_type().cloned() else {
        return Err(crate::Diagnostic::new(at, "expected a memref type"));
    };
    st.operands.push(p.resolve_operand(&val, &elem)?);
    st.operands.push(p.resolve_operand(&mref, &t)?);
    st.operands.extend(resolve_indices(p, &idx)?);
    Ok(())
}

fn print_store(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    if ops.len() < 2 || !m.results(op).is_empty() {
        return false;
    }
    let t = m.value_type(ops[1]);
    if t.element_type() != Some(m.value_type(ops[0])) || !all_index(m, &ops[2..]) {
        return false;
    }
    p.write(" ");
    p.print_operand(ops[0]);
    p.write(", ");
    p.print_operand(ops[1]);
    p.write("[");
    p.print_operands(&ops[2..]);
    p.write("]");
    print_attrs(p, op, &[]);
    p.write(" : ");
    p.print_type(t);
    true
}

/// The zero-result ops registered here by hand (MLIR's ODS gives them no results).
fn verify_no_results(m: &Module, op: OpId) -> Result<(), String> {
    if m.results(op).is_empty() {
        Ok(())
    } else {
        Err("requires zero results".into())
    }
}

fn verify_store(m: &Module, op: OpId) -> Result<(), String> {
    verify_no_results(m, op)?;
    let ops = m.operands(op);
    if ops.len() < 2 {
        return Err("expects a value and a memref operand".into());
    }
    let t = m.value_type(ops[1]);
    check_indices(m, t, &ops[2..], "store")?;
    let v = m.value_type(ops[0]);
    if t.element_type() != Some(v) {
        return Err(format!(
            "value type '{v}' does not match the element type of '{t}'"
        ));
    }
    Ok(())
}

fn parse_atomic_rmw(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let at = p.current_span();
    let kw = p.parse_keyword_any("atomic kind")?;
    let Some(k) = ATOMIC_KINDS.iter().position(|&n| n == kw) else {
        return Err(crate::Diagnostic::new(
            at,
            format!("invalid kind '{kw}' for memref.atomic_rmw"),
        ));
    };
    st.props
        .set("kind", Attribute::int(k as i128, Type::int(64)));
    let val = p.parse_operand()?;
    p.parse_comma()?;
    let mref = p.parse_operand()?;
    let idx = p.parse_operand_list_delimited(Delimiter::Square)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.parse_colon()?;
    let (ins, outs) = p.parse_function_type()?;
    if ins.len() != 2 || outs.len() != 1 {
        return Err(p.error_here("expected (value type, memref type) -> result type"));
    }
    st.operands.push(p.resolve_operand(&val, &ins[0])?);
    st.operands.push(p.resolve_operand(&mref, &ins[1])?);
    st.operands.extend(resolve_indices(p, &idx)?);
    st.result_types = outs;
    Ok(())
}

fn print_atomic_rmw(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    if ops.len() < 2 || m.results(op).len() != 1 || !all_index(m, &ops[2..]) {
        return false;
    }
    let Some(kind) = prop(m, op, "kind")
        .and_then(|a| a.as_int())
        .and_then(|k| ATOMIC_KINDS.get(usize::try_from(k).ok()?))
    else {
        return false;
    };
    p.write(" ");
    p.write(kind);
    p.write(" ");
    p.print_operand(ops[0]);
    p.write(", ");
    p.print_operand(ops[1]);
    p.write("[");
    p.print_operands(&ops[2..]);
    p.write("]");
    print_attrs(p, op, &["kind"]);
    p.write(" : (");
    p.print_value_types(&ops[..2]);
    p.write(") -> ");
    p.print_value_types(m.results(op));
    true
}

fn verify_atomic_rmw(m: &Module, op: OpId) -> Result<(), String> {
    let ops = m.operands(op);
    if ops.len() < 2 {
        return Err("expects a value and a memref operand".into());
    }
    let t = m.value_type(ops[1]);
    check_indices(m, t, &ops[2..], "atomic_rmw")?;
    if t.element_type() != Some(m.value_type(ops[0])) {
        return Err("value type must match the memref element type".into());
    }
    // AtomicRMWOp::verify: float kinds want a float value, integer kinds an integer one
    let kind = prop(m, op, "kind")
        .and_then(Attribute::as_int)
        .and_then(|k| usize::try_from(k).ok())
        .and_then(|k| ATOMIC_KINDS.get(k));
    let v = m.value_type(ops[0]);
    match kind.copied() {
        Some(k @ ("addf" | "maximumf" | "minimumf" | "mulf"))
            if !matches!(v.kind(), TypeKind::Float(_)) =>
        {
            Err(format!("with kind '{k}' expects a floating-point type"))
        }
        Some(
            k @ ("addi" | "maxs" | "maxu" | "mins" | "minu" | "muli" | "ori" | "xori" | "andi"),
        ) if !matches!(v.kind(), TypeKind::Integer { .. }) => {
            Err(format!("with kind '{k}' expects an integer type"))
        }
        _ => Ok(()),
    }
}

/// `ReallocOp::verify` and its ODS operand/result constraints (1-D memrefs): identity
/// layouts, one memory space, one element type, and a size operand exactly when the result
/// has a dynamic size. A strided layout is left alone (MLIR calls `strided<[1]>` identity).
fn verify_realloc(m: &Module, op: OpId) -> Result<(), String> {
    let (ops, res) = (m.operands(op), m.results(op));
    let (Some(&src), [r]) = (ops.first(), res) else {
        return Ok(());
    };
    let (a, b) = (m.value_type(src), m.value_type(*r));
    let rank1 = |t: &Type| match t.kind() {
        TypeKind::MemRef { shape, .. } => Some(shape.len() == 1),
        _ => None,
    };
    if rank1(a) == Some(false) {
        return Err(format!(
            "operand #0 must be 1D memref of any type values, but got '{a}'"
        ));
    }
    if rank1(b) == Some(false) {
        return Err(format!(
            "result #0 must be 1D memref of any type values, but got '{b}'"
        ));
    }
    let (Some(x), Some(y)) = (memref_parts(a), memref_parts(b)) else {
        return Ok(());
    };
    let not_identity =
        |l: Option<&Attribute>| matches!(l, Some(Attribute::AffineMap(am)) if !am.is_identity());
    if not_identity(x.layout) {
        return Err(format!("unsupported layout for source memref type {a}"));
    }
    if not_identity(y.layout) {
        return Err(format!("unsupported layout for result memref type {b}"));
    }
    if memory_space(a) != memory_space(b) {
        return Err(format!("different memory spaces specified for source memref type {a} and result memref type {b}"));
    }
    if a.element_type() != b.element_type() {
        return Err(format!("different element types specified for source memref type {a} and result memref type {b}"));
    }
    let dynamic = y.shape.contains(&DYNAMIC);
    match (dynamic, ops.len() > 1) {
        (true, false) => Err(format!("missing dimension operand for result type {b}")),
        (false, true) => Err(format!("unnecessary dimension operand for result type {b}")),
        _ => Ok(()),
    }
}

/// `AssumeAlignmentOp::verify`: the alignment is a power of two.
fn verify_assume_alignment(m: &Module, op: OpId) -> Result<(), String> {
    match prop(m, op, "alignment").and_then(Attribute::as_int) {
        Some(a) if a > 0 && (a & (a - 1)) != 0 => Err("alignment must be power of 2".into()),
        _ => Ok(()),
    }
}

/// `memref.dim`'s ODS constraints: an unranked or a non-0-ranked memref, an `index` result.
fn verify_dim(m: &Module, op: OpId) -> Result<(), String> {
    if let Some(&r) = m.results(op).first() {
        let t = m.value_type(r);
        if !matches!(t.kind(), TypeKind::Index) {
            return Err(format!("result #0 must be index, but got '{t}'"));
        }
    }
    match m.operands(op).first().map(|&v| m.value_type(v)) {
        Some(t) if matches!(t.kind(), TypeKind::MemRef { shape, .. } if shape.is_empty()) => Err(format!(
            "operand #0 must be unranked.memref of any type values or non-0-ranked.memref of any type values, but got '{t}'"
        )),
        _ => Ok(()),
    }
}

// ===================== generic_atomic_rmw / atomic_yield =====================

/// Ops with memory effects that may not appear in a `memref.generic_atomic_rmw` body
/// (MLIR asks `isMemoryEffectFree`; memplan has no effect interface, so it lists the
/// common offenders and lets everything else through).
const SIDE_EFFECT_OPS: &[&str] = &[
    "affine.dma_start",
    "affine.dma_wait",
    "affine.load",
    "affine.store",
    "func.call",
    "func.call_indirect",
    "gpu.barrier",
    "memref.alloc",
    "memref.alloca",
    "memref.atomic_rmw",
    "memref.copy",
    "memref.dealloc",
    "memref.dma_start",
    "memref.dma_wait",
    "memref.generic_atomic_rmw",
    "memref.load",
    "memref.prefetch",
    "memref.realloc",
    "memref.store",
    "vector.load",
    "vector.maskedload",
    "vector.maskedstore",
    "vector.store",
    "vector.transfer_read",
    "vector.transfer_write",
];

/// `%m[%i, %j] : memref<..> { ^bb0(%cur: T): ... memref.atomic_yield %v : T } attr-dict`.
fn parse_generic_atomic_rmw(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let mref = p.parse_operand()?;
    let idx = p.parse_operand_list_delimited(Delimiter::Square)?;
    p.parse_colon()?;
    let at = p.current_span();
    let t = p.parse_type()?;
    let Some(parts) = memref_parts(&t) else {
        return Err(crate::Diagnostic::new(at, "expected a ranked memref type"));
    };
    let elem = parts.elem.clone();
    st.operands.push(p.resolve_operand(&mref, &t)?);
    st.operands.extend(resolve_indices(p, &idx)?);
    let r = p.parse_region(&[])?;
    st.regions.push(r);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    st.result_types.push(elem);
    Ok(())
}

fn print_generic_atomic_rmw(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    let [r] = m.regions(op) else { return false };
    if ops.is_empty() || m.results(op).len() != 1 || !all_index(m, &ops[1..]) {
        return false;
    }
    let t = m.value_type(ops[0]);
    match memref_parts(t) {
        Some(parts) if parts.elem == m.value_type(m.results(op)[0]) => {}
        _ => return false,
    }
    // The region's entry block must print its argument list (`^bb0(%cur: f32):`).
    if m.region_blocks(*r)
        .first()
        .is_none_or(|&b| m.block_args(b).is_empty())
    {
        return false;
    }
    p.write(" ");
    p.print_operand(ops[0]);
    p.write("[");
    p.print_operands(&ops[1..]);
    p.write("] : ");
    p.print_type(t);
    p.write(" ");
    p.print_region(*r, true, true);
    print_attrs(p, op, &[]);
    true
}

fn verify_generic_atomic_rmw(m: &Module, op: OpId) -> Result<(), String> {
    let ops = m.operands(op);
    let Some(&mref) = ops.first() else {
        return Err("expects a memref operand".into());
    };
    let t = m.value_type(mref);
    let Some(parts) = memref_parts(t) else {
        return Err(format!(
            "operand #0 must be memref of any type values, but got '{t}'"
        ));
    };
    for (i, &v) in ops.iter().enumerate().skip(1) {
        if !m.value_type(v).is_index() {
            return Err(format!(
                "operand #{i} must be variadic of index, but got '{}'",
                m.value_type(v)
            ));
        }
    }
    let [res] = m.results(op) else {
        return Err("expects one result".into());
    };
    let rt = m.value_type(*res);
    if parts.elem != rt {
        return Err("failed to verify that result type matches element type of memref".into());
    }
    let [r] = m.regions(op) else {
        return Err("requires one region".into());
    };
    let Some(&b) = m.region_blocks(*r).first() else {
        return Err("expects a non-empty block".into());
    };
    match m.last_op(b) {
        None => return Err("expects a non-empty block".into()),
        Some(last) if m.op(last).name != "memref.atomic_yield" => {
            return Err(format!(
                "expects regions to end with 'memref.atomic_yield', found '{}'",
                m.op(last).name
            ))
        }
        Some(_) => {}
    }
    let args = m.block_args(b);
    if args.len() != 1 {
        return Err("expected single number of entry block arguments".into());
    }
    if m.value_type(args[0]) != rt {
        return Err("expected block argument of the same type result type".into());
    }
    let mut bad = None;
    m.walk(op, &mut |m, o| {
        if o != op && bad.is_none() && SIDE_EFFECT_OPS.contains(&m.op(o).name.as_str()) {
            bad = Some(m.op(o).name.clone());
        }
    });
    if let Some(name) = bad {
        return Err(format!(
            "body should contain only operations with no side effects, but contains '{name}'"
        ));
    }
    Ok(())
}

fn print_atomic_yield(p: &mut Printer<'_>, op: OpId) -> bool {
    p.module().results(op).is_empty() && print_value_colon_type(p, op)
}

fn verify_atomic_yield(m: &Module, op: OpId) -> Result<(), String> {
    let Some(parent) = m
        .parent_op(op)
        .filter(|&o| m.op(o).name == "memref.generic_atomic_rmw")
    else {
        return Err("expects parent op 'memref.generic_atomic_rmw'".into());
    };
    let [v] = m.operands(op) else {
        return Err("expects one operand".into());
    };
    let yt = m.value_type(*v);
    if let Some(&res) = m.results(parent).first() {
        let pt = m.value_type(res);
        if yt != pt {
            return Err(format!(
                "types mismatch between yield op: '{yt}' and its parent: '{pt}'"
            ));
        }
    }
    Ok(())
}

fn parse_prefetch(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let mref = p.parse_operand()?;
    let idx = p.parse_operand_list_delimited(Delimiter::Square)?;
    p.parse_comma()?;
    let at = p.current_span();
    let rw = p.parse_keyword_any("'read' or 'write'")?;
    if rw != "read" && rw != "write" {
        return Err(crate::Diagnostic::new(
            at,
            "rw specifier has to be 'read' or 'write'",
        ));
    }
    p.parse_comma()?;
    p.parse_keyword("locality")?;
    p.parse_less()?;
    let loc = p.parse_integer()?;
    p.parse_greater()?;
    p.parse_comma()?;
    let at = p.current_span();
    let cache = p.parse_keyword_any("'data' or 'instr'")?;
    if cache != "data" && cache != "instr" {
        return Err(crate::Diagnostic::new(
            at,
            "cache type has to be 'data' or 'instr'",
        ));
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    st.operands.push(p.resolve_operand(&mref, &t)?);
    st.operands.extend(resolve_indices(p, &idx)?);
    st.props.set("isWrite", Attribute::Bool(rw == "write"));
    st.props
        .set("localityHint", Attribute::int(loc.into(), Type::int(32)));
    st.props
        .set("isDataCache", Attribute::Bool(cache == "data"));
    Ok(())
}

/// The op table's checks, plus the range of `localityHint` (0 to 3), which the table
/// engine does not check.
fn verify_prefetch(m: &Module, op: OpId) -> Result<(), String> {
    crate::ods::verify_op(m, op)?;
    match prop(m, op, "localityHint").and_then(|a| a.as_int()) {
        Some(0..=3) | None => Ok(()),
        Some(_) => Err("attribute 'localityHint' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 3".into()),
    }
}

fn print_prefetch(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    if ops.is_empty() || !m.results(op).is_empty() || !all_index(m, &ops[1..]) {
        return false;
    }
    let (Some(w), Some(l), Some(c)) = (
        prop(m, op, "isWrite").and_then(|a| a.as_int()),
        prop(m, op, "localityHint").and_then(|a| a.as_int()),
        prop(m, op, "isDataCache").and_then(|a| a.as_int()),
    ) else {
        return false;
    };
    p.write(" ");
    p.print_operand(ops[0]);
    p.write("[");
    p.print_operands(&ops[1..]);
    p.write("]");
    let rw = if w != 0 { "write" } else { "read" };
    let cache = if c != 0 { "data" } else { "instr" };
    p.write(&format!(", {rw}, locality<{l}>, {cache}"));
    print_attrs(p, op, &["isWrite", "localityHint", "isDataCache"]);
    p.write(" : ");
    p.print_type(m.value_type(ops[0]));
    true
}

// ===================== view / subview / reinterpret_cast =====================

fn parse_view(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let src = p.parse_operand()?;
    let shift = p.parse_operand_list_delimited(Delimiter::Square)?;
    let sizes = p.parse_operand_list_delimited(Delimiter::Square)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let at = p.current_span();
    let t = p.parse_colon_type()?;
    p.parse_keyword("to")?;
    let r = p.parse_type()?;
    if shift.len() != 1 {
        return Err(crate::Diagnostic::new(
            at,
            "expects one operand for the byte shift",
        ));
    }
    st.operands.push(p.resolve_operand(&src, &t)?);
    st.operands.extend(resolve_indices(p, &shift)?);
    st.operands.extend(resolve_indices(p, &sizes)?);
    st.result_types.push(r);
    Ok(())
}

fn print_view(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    if ops.len() < 2 || m.results(op).len() != 1 || !all_index(m, &ops[1..]) {
        return false;
    }
    p.write(" ");
    p.print_operand(ops[0]);
    p.write("[");
    p.print_operand(ops[1]);
    p.write("][");
    p.print_operands(&ops[2..]);
    p.write("]");
    print_attrs(p, op, &[]);
    p.write(" : ");
    p.print_type(m.value_type(ops[0]));
    p.write(" to ");
    p.print_type(m.value_type(m.result(op, 0)));
    true
}

fn verify_view(m: &Module, op: OpId) -> Result<(), String> {
    super::bufferization::check_escape_attr(m, op, false)?;
    let ops = m.operands(op);
    if ops.len() < 2 || m.results(op).len() != 1 {
        return Err("expects a source, a byte shift and one result".into());
    }
    let st = m.value_type(ops[0]);
    let ok_src = memref_parts(st).is_some_and(|mp| mp.shape.len() == 1 && *mp.elem == Type::int(8));
    if !ok_src {
        return Err(format!(
            "operand #0 must be 1D memref of 8-bit signless integer values, but got '{st}'"
        ));
    }
    let mp = memref_parts(st).expect("checked above");
    if !layout_is_identity(mp.shape, mp.layout) {
        return Err(format!("unsupported map for base memref type {st}"));
    }
    if !all_index(m, &ops[1..]) {
        return Err("byte shift and sizes must be of index type".into());
    }
    let rt = m.value_type(m.result(op, 0));
    let Some(rp) = memref_parts(rt) else {
        return Err(format!(
            "result #0 must be memref of any type values, but got '{rt}'"
        ));
    };
    if !layout_is_identity(rp.shape, rp.layout) {
        return Err(format!("unsupported map for result memref type {rt}"));
    }
    if memory_space(st) != memory_space(rt) {
        return Err(format!(
            "different memory spaces specified for base memref type {st} and view memref type {rt}"
        ));
    }
    let ndyn = count_dynamic(rp.shape);
    if ops.len() - 2 != ndyn {
        return Err(format!("incorrect number of size operands for type {rt}"));
    }
    Ok(())
}

/// Parses the three `[...]` lists of subview-like ops, with `sep` between them
/// (`""` for subview; reinterpret_cast uses keywords and is parsed separately).
fn parse_offsets_sizes_strides(
    p: &mut Parser<'_>,
    dyn_ops: &mut [Vec<UnresolvedOperand>; 3],
) -> PResult<[Vec<i64>; 3]> {
    let a = p.parse_dynamic_index_list(&mut dyn_ops[0], Delimiter::Square)?;
    let b = p.parse_dynamic_index_list(&mut dyn_ops[1], Delimiter::Square)?;
    let c = p.parse_dynamic_index_list(&mut dyn_ops[2], Delimiter::Square)?;
    Ok([a, b, c])
}

fn set_static_lists(st: &mut OperationState, s: &[Vec<i64>; 3]) {
    st.props.set("static_offsets", Attribute::i64_array(&s[0]));
    st.props.set("static_sizes", Attribute::i64_array(&s[1]));
    st.props.set("static_strides", Attribute::i64_array(&s[2]));
}

fn parse_subview(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let src = p.parse_operand()?;
    let mut dyns: [Vec<UnresolvedOperand>; 3] = Default::default();
    let s = parse_offsets_sizes_strides(p, &mut dyns)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    p.parse_keyword("to")?;
    let r = p.parse_type()?;
    st.operands.push(p.resolve_operand(&src, &t)?);
    for d in &dyns {
        st.operands.extend(resolve_indices(p, d)?);
    }
    set_segments(st, &[1, dyns[0].len(), dyns[1].len(), dyns[2].len()]);
    set_static_lists(st, &s);
    st.result_types.push(r);
    Ok(())
}

/// Reads `static_offsets/sizes/strides` and checks them against the dynamic operand segments.
fn static_lists(m: &Module, op: OpId, seg: &[&[ValueId]]) -> Option<[Vec<i64>; 3]> {
    let o = int_array(m, op, "static_offsets")?;
    let s = int_array(m, op, "static_sizes")?;
    let t = int_array(m, op, "static_strides")?;
    let ok = count_dynamic(&o) == seg[1].len()
        && count_dynamic(&s) == seg[2].len()
        && count_dynamic(&t) == seg[3].len();
    ok.then_some([o, s, t])
}

fn print_subview(p: &mut Printer<'_>, op: OpId) -> bool {
    print_offsets_sizes_strides(p, op, ["", " ", " "])
}

fn check_static_lists(
    m: &Module,
    op: OpId,
    seg: &[&[ValueId]],
    rank: usize,
) -> Result<[Vec<i64>; 3], String> {
    let names = ["static_offsets", "static_sizes", "static_strides"];
    let mut out: [Vec<i64>; 3] = Default::default();
    for (i, n) in names.iter().enumerate() {
        let Some(v) = int_array(m, op, n) else {
            return Err(format!("requires attribute '{n}'"));
        };
        if v.len() != rank {
            let what = &n["static_".len()..n.len() - 1];
            return Err(format!("expected {rank} {what} values, got {}", v.len()));
        }
        if count_dynamic(&v) != seg[i + 1].len() {
            return Err(format!(
                "expected {} dynamic {} values",
                count_dynamic(&v),
                &n["static_".len()..]
            ));
        }
        out[i] = v;
    }
    // OffsetSizeAndStrideOpInterface: static offsets and sizes are never negative.
    for (what, v) in [("offsets", &out[0]), ("sizes", &out[1])] {
        if let Some(x) = v.iter().find(|&&x| x < 0 && x != DYNAMIC) {
            return Err(format!("expected {what} to be non-negative, but got {x}"));
        }
    }
    Ok(out)
}

fn verify_subview(m: &Module, op: OpId) -> Result<(), String> {
    super::bufferization::check_escape_attr(m, op, false)?;
    let seg = segments_checked(m, op, 4)?;
    if seg[0].len() != 1 || m.results(op).len() != 1 {
        return Err("expects one source and one result".into());
    }
    let st = m.value_type(seg[0][0]);
    let rt = m.value_type(m.result(op, 0));
    let (Some(sp), Some(rp)) = (memref_parts(st), memref_parts(rt)) else {
        return Err("source and result must be ranked memrefs".into());
    };
    let lists = check_static_lists(m, op, &seg, sp.shape.len())?;
    if !all_index(m, &m.operands(op)[1..]) {
        return Err("offsets, sizes and strides must be of index type".into());
    }
    if sp.elem != rp.elem {
        return Err(format!("expected result element type to be {}", sp.elem));
    }
    if memory_space(st) != memory_space(rt) {
        return Err("expected result and source memory spaces to match".into());
    }
    // As MLIR's SubViewOp::verify: the result is the type inferred from the static lists,
    // up to dropped unit dims.
    let Some((src_strides, src_off)) = canonical_strides(sp.shape, sp.layout) else {
        return Err(format!("base type {st} is not strided"));
    };
    let [offs, sizes, steps] = &lists;
    let mut exp_off = src_off;
    for (o, s) in offs.iter().zip(&src_strides) {
        exp_off = sat_add(exp_off, sat_mul(*o, *s));
    }
    let exp_strides: Vec<i64> = src_strides
        .iter()
        .zip(steps)
        .map(|(a, b)| sat_mul(*a, *b))
        .collect();
    let q = |x: i64| {
        if x == DYNAMIC {
            "?".to_string()
        } else {
            x.to_string()
        }
    };
    let fmt_list = |v: &[i64]| v.iter().map(|&x| q(x)).collect::<Vec<_>>().join(", ");
    let expected = format!(
        "memref<{}{}, strided<[{}]{}>{}>",
        sizes.iter().map(|&x| q(x) + "x").collect::<String>(),
        sp.elem,
        fmt_list(&exp_strides),
        if exp_off == 0 {
            String::new()
        } else {
            format!(", offset: {}", q(exp_off))
        },
        memory_space(st)
            .map(|a| format!(", {a}"))
            .unwrap_or_default()
    );
    let mismatch = |what: &str| {
        Err(format!(
            "expected result type to be '{expected}' or a rank-reduced version. (mismatch of result {what}), but got '{rt}'"
        ))
    };
    if rp.shape.len() > sizes.len() {
        return Err(format!(
            "expected result rank to be smaller or equal to the source rank, but got '{rt}'"
        ));
    }
    if rank_reduction_mask(sizes, rp.shape).is_none() {
        return mismatch("sizes");
    }
    let Some((res_strides, res_off)) = canonical_strides(rp.shape, rp.layout) else {
        return mismatch("layout");
    };
    if res_off != exp_off {
        return mismatch("layout");
    }
    // computeMemRefRankReductionMask: unit sizes are the dropped dims, unless that does not
    // add up; then strides decide which unit dims went.
    let mut unused: Vec<bool> = sizes.iter().map(|&s| s == 1).collect();
    if rp.shape.len() == sizes.len() {
        unused = vec![false; sizes.len()];
    } else if unused.iter().filter(|&&u| u).count() + rp.shape.len() != sizes.len() {
        let count = |v: &[i64]| {
            let mut c = std::collections::BTreeMap::<i64, usize>::new();
            for &x in v {
                *c.entry(x).or_default() += 1;
            }
            c
        };
        let mut left = count(&exp_strides);
        let cand = count(&res_strides);
        for d in 0..sizes.len() {
            if !unused[d] {
                continue;
            }
            let s = exp_strides[d];
            let (l, c) = (
                left.get(&s).copied().unwrap_or(0),
                cand.get(&s).copied().unwrap_or(0),
            );
            if l > c {
                *left.get_mut(&s).expect("counted") -= 1;
            } else if l == c {
                unused[d] = false;
            } else {
                return mismatch("layout");
            }
        }
        if unused.iter().filter(|&&u| u).count() + rp.shape.len() != sizes.len() {
            return mismatch("layout");
        }
    }
    let kept: Vec<i64> = (0..sizes.len())
        .filter(|&d| !unused[d])
        .map(|d| exp_strides[d])
        .collect();
    if kept != res_strides {
        return mismatch("layout");
    }
    for d in 0..sp.shape.len() {
        let (dim, o, sz, sd) = (sp.shape[d], offs[d], sizes[d], steps[d]);
        if dim == DYNAMIC || o == DYNAMIC {
            continue;
        }
        if o >= dim {
            return Err(format!("offset {d} is out-of-bounds: {o} >= {dim}"));
        }
        if sz == DYNAMIC || sd == DYNAMIC {
            continue;
        }
        let last = o.saturating_add((sz - 1).saturating_mul(sd));
        if last >= dim {
            return Err(format!(
                "slice along dimension {d} runs out-of-bounds: {last} >= {dim}"
            ));
        }
    }
    Ok(())
}

fn parse_reinterpret_cast(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let src = p.parse_operand()?;
    p.parse_keyword("to")?;
    let mut dyns: [Vec<UnresolvedOperand>; 3] = Default::default();
    p.parse_keyword("offset")?;
    p.parse_colon()?;
    let o = p.parse_dynamic_index_list(&mut dyns[0], Delimiter::Square)?;
    p.parse_comma()?;
    p.parse_keyword("sizes")?;
    p.parse_colon()?;
    let s = p.parse_dynamic_index_list(&mut dyns[1], Delimiter::Square)?;
    p.parse_comma()?;
    p.parse_keyword("strides")?;
    p.parse_colon()?;
    let t = p.parse_dynamic_index_list(&mut dyns[2], Delimiter::Square)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let ty = p.parse_colon_type()?;
    p.parse_keyword("to")?;
    let r = p.parse_type()?;
    st.operands.push(p.resolve_operand(&src, &ty)?);
    for d in &dyns {
        st.operands.extend(resolve_indices(p, d)?);
    }
    set_segments(st, &[1, dyns[0].len(), dyns[1].len(), dyns[2].len()]);
    set_static_lists(st, &[o, s, t]);
    st.result_types.push(r);
    Ok(())
}

fn print_reinterpret_cast(p: &mut Printer<'_>, op: OpId) -> bool {
    print_offsets_sizes_strides(p, op, [" to offset: ", ", sizes: ", ", strides: "])
}

/// The shared custom form of `memref.subview` and `memref.reinterpret_cast`:
/// `%src` + the offsets, sizes and strides lists, each after its label, then the
/// attributes and `: source-type to result-type`.
fn print_offsets_sizes_strides(p: &mut Printer<'_>, op: OpId, labels: [&str; 3]) -> bool {
    let m = p.module();
    let Some(seg) = segments(m, op, 4) else {
        return false;
    };
    if seg[0].len() != 1 || m.results(op).len() != 1 || !all_index(m, &m.operands(op)[1..]) {
        return false;
    }
    let Some(lists) = static_lists(m, op, &seg) else {
        return false;
    };
    p.write(" ");
    p.print_operand(seg[0][0]);
    for (k, label) in labels.iter().enumerate() {
        p.write(label);
        p.print_dynamic_index_list(seg[k + 1], &lists[k], '[', ']');
    }
    print_attrs(
        p,
        op,
        &[
            "operandSegmentSizes",
            "static_offsets",
            "static_sizes",
            "static_strides",
        ],
    );
    p.write(" : ");
    p.print_type(m.value_type(seg[0][0]));
    p.write(" to ");
    p.print_type(m.value_type(m.result(op, 0)));
    true
}

fn fmt_dyn(v: i64) -> String {
    if v == DYNAMIC {
        "dynamic".into()
    } else {
        v.to_string()
    }
}

fn verify_reinterpret_cast(m: &Module, op: OpId) -> Result<(), String> {
    let seg = segments_checked(m, op, 4)?;
    if seg[0].len() != 1 || m.results(op).len() != 1 {
        return Err("expects one source and one result".into());
    }
    let st = m.value_type(seg[0][0]);
    let rt = m.value_type(m.result(op, 0));
    let Some(rp) = memref_parts(rt) else {
        return Err(format!(
            "result #0 must be memref of any type values, but got '{rt}'"
        ));
    };
    let o = int_array(m, op, "static_offsets").unwrap_or_default();
    if o.len() != 1 {
        return Err(format!("expected 1 offset values, got {}", o.len()));
    }
    let lists = check_static_lists(m, op, &seg, rp.shape.len()).map_err(|e| {
        if e.starts_with("expected 1 offset") {
            e
        } else {
            e.replacen(
                &format!("expected {} offset", rp.shape.len()),
                "expected 1 offset",
                1,
            )
        }
    });
    // Offsets have length 1 whatever the rank: re-check sizes/strides only.
    let lists = match lists {
        Ok(l) => l,
        Err(_) => {
            let s = int_array(m, op, "static_sizes").unwrap_or_default();
            let t = int_array(m, op, "static_strides").unwrap_or_default();
            if s.len() != rp.shape.len() {
                return Err(format!(
                    "expected {} size values, got {}",
                    rp.shape.len(),
                    s.len()
                ));
            }
            if t.len() != rp.shape.len() {
                return Err(format!(
                    "expected {} stride values, got {}",
                    rp.shape.len(),
                    t.len()
                ));
            }
            [o.clone(), s, t]
        }
    };
    if st.element_type() != Some(rp.elem) {
        return Err(format!(
            "different element types specified for source type '{st}' and result memref type '{rt}'"
        ));
    }
    if memory_space(st) != memory_space(rt) {
        return Err(format!(
            "different memory spaces specified for source type '{st}' and result memref type '{rt}'"
        ));
    }
    // As MLIR: only what the result type states statically must agree with the lists (a
    // static size, offset or stride in the lists may meet a `?` in the type).
    for (i, (&s, &r)) in lists[1].iter().zip(rp.shape).enumerate() {
        if r != DYNAMIC && s != r {
            return Err(format!(
                "expected result type with size = {} instead of {r} in dim = {i}",
                fmt_dyn(s)
            ));
        }
    }
    let Some((strides, offset)) = canonical_strides(rp.shape, rp.layout) else {
        return Err(format!(
            "expected result type to have strided layout but found '{rt}'"
        ));
    };
    let want_off = lists[0][0];
    if offset != DYNAMIC && want_off != offset {
        return Err(format!(
            "expected result type with offset = {} instead of {offset}",
            fmt_dyn(want_off)
        ));
    }
    for (i, (&s, &r)) in lists[2].iter().zip(&strides).enumerate() {
        if r != DYNAMIC && s != r {
            return Err(format!(
                "expected result type with stride = {} instead of {r} in dim = {i}",
                fmt_dyn(s)
            ));
        }
    }
    Ok(())
}

fn verify_cast(m: &Module, op: OpId) -> Result<(), String> {
    super::bufferization::check_escape_attr(m, op, false)?;
    let (ops, res) = (m.operands(op), m.results(op));
    if ops.len() != 1 || res.len() != 1 {
        return Err("expects one operand and one result".into());
    }
    let (a, b) = (m.value_type(ops[0]), m.value_type(res[0]));
    if !is_memref(a) || !is_memref(b) {
        return Err(format!(
            "operand type '{a}' and result type '{b}' are cast incompatible"
        ));
    }
    if a.element_type() != b.element_type() {
        return Err(format!(
            "operand type '{a}' and result type '{b}' are cast incompatible"
        ));
    }
    if m.op(op).name == "memref.cast" {
        // CastOp::areCastCompatible: unranked to unranked is not a cast
        let unranked = |t: &Type| matches!(t.kind(), TypeKind::UnrankedMemRef { .. });
        if unranked(a) && unranked(b) {
            return Err(format!(
                "operand type '{a}' and result type '{b}' are cast incompatible"
            ));
        }
        if memory_space(a) != memory_space(b) {
            return Err(format!(
                "operand type '{a}' and result type '{b}' are cast incompatible"
            ));
        }
        if let (Some(x), Some(y)) = (memref_parts(a), memref_parts(b)) {
            let dims_ok = x.shape.len() == y.shape.len()
                && x.shape
                    .iter()
                    .zip(y.shape)
                    .all(|(&p, &q)| p == DYNAMIC || q == DYNAMIC || p == q);
            // As MLIR's CastOp::areCastCompatible: differing layouts must both be strided,
            // with each stride and the offset equal wherever both are static.
            let layouts_ok = x.layout == y.layout
                || match (
                    canonical_strides(x.shape, x.layout),
                    canonical_strides(y.shape, y.layout),
                ) {
                    (Some((sa, oa)), Some((sb, ob))) => {
                        let ok = |p: i64, q: i64| p == DYNAMIC || q == DYNAMIC || p == q;
                        sa.len() == sb.len()
                            && ok(oa, ob)
                            && sa.iter().zip(&sb).all(|(&p, &q)| ok(p, q))
                    }
                    _ => false,
                };
            if !dims_ok || !layouts_ok {
                return Err(format!(
                    "operand type '{a}' and result type '{b}' are cast incompatible"
                ));
            }
        }
    }
    Ok(())
}

// ===================== copy / dim / reshape ops =====================

fn parse_copy(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let a = p.parse_operand()?;
    p.parse_comma()?;
    let b = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let ta = p.parse_colon_type()?;
    p.parse_keyword("to")?;
    let tb = p.parse_type()?;
    st.operands.push(p.resolve_operand(&a, &ta)?);
    st.operands.push(p.resolve_operand(&b, &tb)?);
    Ok(())
}

fn print_copy(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    if ops.len() != 2 || !m.results(op).is_empty() {
        return false;
    }
    p.write(" ");
    p.print_operands(ops);
    print_attrs(p, op, &[]);
    p.write(" : ");
    p.print_type(m.value_type(ops[0]));
    p.write(" to ");
    p.print_type(m.value_type(ops[1]));
    true
}

fn verify_copy(m: &Module, op: OpId) -> Result<(), String> {
    let ops = m.operands(op);
    if ops.len() != 2 {
        return Err("expects two operands".into());
    }
    let (a, b) = (m.value_type(ops[0]), m.value_type(ops[1]));
    // MLIR's SameOperandsShape: compatible shapes (same rank; each dimension equal or `?`).
    if let (Some(x), Some(y)) = (a.shape(), b.shape()) {
        let compatible =
            x.len() == y.len() && x.iter().zip(y).all(|(&p, &q)| p == q || p < 0 || q < 0);
        if !compatible {
            return Err("requires the same shape for all operands".into());
        }
    }
    if a.element_type() != b.element_type() {
        return Err("requires the same element type for all operands".into());
    }
    Ok(())
}

fn parse_dim(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let src = p.parse_operand()?;
    p.parse_comma()?;
    let idx = p.parse_operand()?;
    let t = p.parse_colon_type()?;
    st.operands.push(p.resolve_operand(&src, &t)?);
    st.operands.push(p.resolve_operand(&idx, &index_ty())?);
    st.result_types.push(index_ty());
    Ok(())
}

fn print_dim(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    if ops.len() != 2 || m.results(op).len() != 1 || !m.value_type(ops[1]).is_index() {
        return false;
    }
    print_attrs(p, op, &[]);
    p.write(" ");
    p.print_operands(ops);
    p.write(" : ");
    p.print_type(m.value_type(ops[0]));
    true
}

/// `[[0, 1], [2]]` as an array of arrays of i64.
fn parse_reassociation(p: &mut Parser<'_>) -> PResult<Attribute> {
    let mut groups = Vec::new();
    p.parse_comma_separated_list(Delimiter::Square, &mut |p| {
        let mut g = Vec::new();
        p.parse_comma_separated_list(Delimiter::Square, &mut |p| {
            g.push(Attribute::int(p.parse_integer()?.into(), Type::int(64)));
            Ok(())
        })?;
        groups.push(Attribute::Array(g));
        Ok(())
    })?;
    Ok(Attribute::Array(groups))
}

/// Groups of a reassociation attribute.
pub(crate) fn reassociation(a: &Attribute) -> Option<Vec<Vec<i64>>> {
    let Attribute::Array(gs) = a else { return None };
    gs.iter()
        .map(|g| match g {
            Attribute::Array(v) => v
                .iter()
                .map(|x| x.as_int().and_then(|i| i64::try_from(i).ok()))
                .collect(),
            _ => None,
        })
        .collect()
}

fn write_reassociation(p: &mut Printer<'_>, groups: &[Vec<i64>]) {
    p.write("[");
    for (i, g) in groups.iter().enumerate() {
        if i > 0 {
            p.write(", ");
        }
        p.write("[");
        p.write(
            &g.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        );
        p.write("]");
    }
    p.write("]");
}

/// expand_shape / collapse_shape (memref and tensor share this syntax).
pub(crate) fn parse_reshape_like(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let src = p.parse_operand()?;
    let re = parse_reassociation(p)?;
    st.props.set("reassociation", re);
    let expand = st.name.ends_with("expand_shape");
    let mut dyns = Vec::new();
    if expand {
        p.parse_keyword("output_shape")?;
        let s = p.parse_dynamic_index_list(&mut dyns, Delimiter::Square)?;
        st.props
            .set("static_output_shape", Attribute::i64_array(&s));
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    p.parse_keyword("into")?;
    let r = p.parse_type()?;
    st.operands.push(p.resolve_operand(&src, &t)?);
    st.operands.extend(resolve_indices(p, &dyns)?);
    st.result_types.push(r);
    Ok(())
}

/// Prints expand_shape / collapse_shape.
pub(crate) fn print_reshape_like(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    if ops.is_empty() || m.results(op).len() != 1 {
        return false;
    }
    let Some(groups) = prop(m, op, "reassociation").and_then(reassociation) else {
        return false;
    };
    let expand = m.op(op).name.ends_with("expand_shape");
    p.write(" ");
    p.print_operand(ops[0]);
    p.write(" ");
    write_reassociation(p, &groups);
    if expand {
        let Some(s) = int_array(m, op, "static_output_shape") else {
            return false;
        };
        if count_dynamic(&s) != ops.len() - 1 || !all_index(m, &ops[1..]) {
            return false;
        }
        p.write(" output_shape ");
        p.print_dynamic_index_list(&ops[1..], &s, '[', ']');
    } else if ops.len() != 1 {
        return false;
    }
    print_attrs(p, op, &["reassociation", "static_output_shape"]);
    p.write(" : ");
    p.print_type(m.value_type(ops[0]));
    p.write(" into ");
    p.print_type(m.value_type(m.result(op, 0)));
    true
}

fn verify_reshape_like(m: &Module, op: OpId) -> Result<(), String> {
    let ops = m.operands(op);
    if ops.is_empty() || m.results(op).len() != 1 {
        return Err("expects a source and one result".into());
    }
    let expand = m.op(op).name.ends_with("expand_shape");
    let (st, rt) = (m.value_type(ops[0]), m.value_type(m.result(op, 0)));
    let (Some(sp), Some(rp)) = (memref_parts(st), memref_parts(rt)) else {
        return Err("expects ranked source and result types".into());
    };
    let (ss, rs) = (sp.shape, rp.shape);
    let Some(groups) = prop(m, op, "reassociation").and_then(reassociation) else {
        return Err("requires attribute 'reassociation'".into());
    };
    let (r0, r1) = (ss.len(), rs.len());
    if expand && r0 > r1 {
        return Err(format!(
            "has source rank {r0} and result rank {r1}. This is not an expansion ({r0} > {r1})."
        ));
    }
    if !expand && r0 < r1 {
        return Err(format!(
            "has source rank {r0} and result rank {r1}. This is not a collapse ({r0} < {r1})."
        ));
    }
    let (small, big) = if expand { (ss, rs) } else { (rs, ss) };
    verify_collapsed_shape(small, big, &groups)?;
    // The result type follows from the source layout (MLIR's computeExpandedType /
    // computeCollapsedLayoutMap); it must be written exactly so.
    let layout = if layout_is_identity_attr(sp.layout) {
        None
    } else {
        let Some((strides, offset)) = canonical_strides(ss, sp.layout) else {
            return Err(if expand {
                "invalid source layout map".into()
            } else {
                "invalid source layout map or collapsing non-contiguous dims".into()
            });
        };
        let new = if expand {
            Some(expanded_strides(&strides, rs, &groups))
        } else {
            collapsed_strides(ss, &strides, &groups)
        };
        let Some(new) = new else {
            return Err("invalid source layout map or collapsing non-contiguous dims".into());
        };
        Some(Attribute::Strided {
            strides: new,
            offset,
        })
    };
    let want = Type::new(TypeKind::MemRef {
        shape: rs.to_vec(),
        elem: sp.elem.clone(),
        layout,
        memory_space: memory_space(st),
    });
    let got = Type::new(TypeKind::MemRef {
        shape: rs.to_vec(),
        elem: rp.elem.clone(),
        layout: rp
            .layout
            .filter(|a| !matches!(a, Attribute::AffineMap(x) if x.is_identity()))
            .cloned(),
        memory_space: memory_space(rt),
    });
    if want != got {
        let what = if expand { "expanded" } else { "collapsed" };
        return Err(format!(
            "expected {what} type to be '{want}' but found '{rt}'"
        ));
    }
    if expand {
        let s = int_array(m, op, "static_output_shape").unwrap_or_default();
        if s.len() != rs.len() {
            return Err(format!(
                "expected number of static shape bounds to be equal to the output rank ({}) but found {} inputs instead",
                rs.len(),
                s.len()
            ));
        }
        if count_dynamic(&s) != ops.len() - 1 {
            return Err("mismatch in dynamic dims in output_shape and static_output_shape".into());
        }
        if let Some(pos) = (0..rs.len()).find(|&i| rs[i] != DYNAMIC && rs[i] != s[i]) {
            return Err(format!("invalid output shape provided at pos {pos}"));
        }
    }
    Ok(())
}

/// MLIR's `getLayout().isIdentity()`: no layout, an identity map, or a strided layout
/// whose map is the identity (only `strided<[1]>` at offset 0, on a rank-1 memref).
fn layout_is_identity_attr(layout: Option<&Attribute>) -> bool {
    match layout {
        None => true,
        Some(Attribute::AffineMap(m)) => m.is_identity(),
        Some(Attribute::Strided { strides, offset }) => *offset == 0 && strides.as_slice() == [1],
        Some(_) => false,
    }
}

/// MLIR's `verifyCollapsedShape` for memref reshapes (several dynamic dims per group are
/// allowed): contiguous groups in bounds, a collapsed dim dynamic exactly when its group
/// has a dynamic dim, and static sizes that multiply up.
fn verify_collapsed_shape(small: &[i64], big: &[i64], groups: &[Vec<i64>]) -> Result<(), String> {
    if small.len() != groups.len() {
        return Err(format!(
            "invalid number of reassociation groups: found {}, expected {}",
            groups.len(),
            small.len()
        ));
    }
    let mut next = 0i64;
    for (cd, g) in groups.iter().enumerate() {
        let mut dynamic = false;
        for &i in g {
            if i != next {
                return Err("reassociation indices must be contiguous".into());
            }
            next += 1;
            if i < 0 || i as usize >= big.len() {
                return Err(format!("reassociation index {i} is out of bounds"));
            }
            dynamic |= big[i as usize] == DYNAMIC;
        }
        if (small[cd] == DYNAMIC) != dynamic {
            return Err(format!(
                "collapsed dim ({cd}) must be dynamic if and only if reassociation group is dynamic"
            ));
        }
        if !dynamic {
            let n = g
                .iter()
                .fold(1i64, |a, &i| a.saturating_mul(big[i as usize]));
            if n != small[cd] {
                return Err(format!(
                    "collapsed dim size ({}) must equal reassociation group size ({n})",
                    small[cd]
                ));
            }
        }
    }
    if small.is_empty() {
        if big.iter().any(|&d| d != 1) {
            return Err("rank 0 memrefs can only be extended/collapsed with/from ones".into());
        }
    } else if next as usize != big.len() {
        return Err(format!(
            "expanded rank ({}) inconsistent with number of reassociation indices ({next})",
            big.len()
        ));
    }
    Ok(())
}

/// MLIR's `computeExpandedLayoutMap`: each source stride is the stride of the last dim of
/// its group; earlier dims of the group multiply by the sizes after them.
fn expanded_strides(src_strides: &[i64], shape: &[i64], groups: &[Vec<i64>]) -> Vec<i64> {
    let mut rev = Vec::with_capacity(shape.len());
    let mut k = shape.len();
    for (g, &s) in groups.iter().zip(src_strides).rev() {
        let mut cur = s;
        for _ in 0..g.len() {
            rev.push(cur);
            k -= 1;
            cur = sat_mul(cur, shape[k]);
        }
    }
    let mut out: Vec<i64> = rev.into_iter().rev().collect();
    out.resize(shape.len(), 1);
    out
}

/// MLIR's `computeCollapsedLayoutMap` (non-strict): a group takes the stride of its last
/// non-unit dim; `None` when a group's dims are visibly not contiguous.
fn collapsed_strides(shape: &[i64], strides: &[i64], groups: &[Vec<i64>]) -> Option<Vec<i64>> {
    let mut out = Vec::with_capacity(groups.len());
    for g in groups {
        let mut r: &[i64] = g;
        while r.len() > 1 && shape[*r.last()? as usize] == 1 {
            r = &r[..r.len() - 1];
        }
        let last = *r.last()? as usize;
        out.push(if shape[last] != DYNAMIC || r.len() == 1 {
            strides[last]
        } else {
            DYNAMIC
        });
    }
    for (gi, g) in groups.iter().enumerate() {
        let mut stride = out[gi];
        for w in g.windows(2).rev() {
            let (prev, idx) = (w[0] as usize, w[1] as usize);
            stride = sat_mul(stride, shape[idx]);
            let src = strides[prev];
            if shape[prev] == 1 {
                continue;
            }
            if stride != DYNAMIC && src != DYNAMIC && stride != src {
                return None;
            }
        }
    }
    Some(out)
}

fn parse_transpose(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let src = p.parse_operand()?;
    let map = if p.at(Tok::HashId) || p.peek_keyword("affine_map") {
        p.parse_attribute()?
    } else {
        Attribute::AffineMap(p.parse_affine_map_body()?)
    };
    st.props.set("permutation", map);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    p.parse_keyword("to")?;
    let r = p.parse_type()?;
    st.operands.push(p.resolve_operand(&src, &t)?);
    st.result_types.push(r);
    Ok(())
}

fn print_transpose(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(Attribute::AffineMap(map)) = prop(m, op, "permutation").cloned() else {
        return false;
    };
    if m.operands(op).len() != 1 || m.results(op).len() != 1 {
        return false;
    }
    let v = m.operands(op)[0];
    p.write(" ");
    p.print_operand(v);
    p.write(&format!(" {map}"));
    print_attrs(p, op, &["permutation"]);
    p.write(" : ");
    p.print_type(m.value_type(v));
    p.write(" to ");
    p.print_type(m.value_type(m.result(op, 0)));
    true
}

fn is_permutation(map: &AffineMap) -> bool {
    if map.num_symbols != 0 || map.results.len() != map.num_dims as usize {
        return false;
    }
    let mut seen = vec![false; map.num_dims as usize];
    for e in &map.results {
        match e {
            crate::AffineExpr::Dim(d) if !seen[*d as usize] => seen[*d as usize] = true,
            _ => return false,
        }
    }
    true
}

fn verify_transpose(m: &Module, op: OpId) -> Result<(), String> {
    let Some(Attribute::AffineMap(map)) = prop(m, op, "permutation") else {
        return Err("requires attribute 'permutation'".into());
    };
    if !is_permutation(map) {
        return Err("expected a permutation map".into());
    }
    let Some(&v) = m.operands(op).first() else {
        return Err("expects one operand".into());
    };
    let Some(sp) = memref_parts(m.value_type(v)) else {
        return Ok(());
    };
    if map.num_dims as usize != sp.shape.len() {
        return Err("expected a permutation map of same rank as the input".into());
    }
    // Canonical transposed type: permuted sizes and strides.
    let strides = canonical_strides(sp.shape, sp.layout);
    let Some((strides, offset)) = strides else {
        return Ok(());
    };
    let rt = m.value_type(m.result(op, 0));
    let Some(rp) = memref_parts(rt) else {
        return Ok(());
    };
    let perm: Vec<usize> = map
        .results
        .iter()
        .map(|e| match e {
            crate::AffineExpr::Dim(d) => *d as usize,
            _ => 0,
        })
        .collect();
    let want_shape: Vec<i64> = perm.iter().map(|&d| sp.shape[d]).collect();
    let want_strides: Vec<i64> = perm.iter().map(|&d| strides[d]).collect();
    let got = canonical_strides(rp.shape, rp.layout);
    let same = rp.shape == want_shape.as_slice()
        && got.is_some_and(|(s, o)| s == want_strides && o == offset)
        && rp.elem == sp.elem;
    if !same {
        return Err(format!(
            "result type '{rt}' is not equivalent to the canonical transposed input type 'memref<{}x{}, strided<[{}], offset: {}>>'",
            fmt_shape(&want_shape).replace(", ", "x"),
            sp.elem,
            fmt_shape(&want_strides),
            if offset == DYNAMIC { "?".to_string() } else { offset.to_string() }
        ));
    }
    Ok(())
}

/// Strides and offset of a memref layout (identity layouts get row-major strides).
pub(crate) fn canonical_strides(
    shape: &[i64],
    layout: Option<&Attribute>,
) -> Option<(Vec<i64>, i64)> {
    match layout {
        None => {
            let mut st = vec![1i64; shape.len()];
            for i in (0..shape.len().saturating_sub(1)).rev() {
                st[i] = if shape[i + 1] == DYNAMIC || st[i + 1] == DYNAMIC {
                    DYNAMIC
                } else {
                    st[i + 1].saturating_mul(shape[i + 1])
                };
            }
            Some((st, 0))
        }
        Some(Attribute::Strided { strides, offset }) => Some((strides.clone(), *offset)),
        Some(Attribute::AffineMap(m)) if m.is_identity() => canonical_strides(shape, None),
        Some(Attribute::AffineMap(m)) if m.results.len() == 1 => {
            let (coef, off) = linear_terms(&m.results[0], m.num_dims as usize)?;
            let d = |c: Option<i64>| c.unwrap_or(DYNAMIC);
            Some((coef.into_iter().map(d).collect(), d(off)))
        }
        _ => None,
    }
}

/// A layout expression as `sum_i coef_i * d_i + offset`, the way MLIR's
/// `getStridesAndOffset` reads a one-result affine layout: a coefficient or offset that
/// depends on a symbol is dynamic (`None`); anything that is not linear in the dims
/// (`mod`, `floordiv`, a product of dims) is not strided.
fn linear_terms(e: &crate::AffineExpr, dims: usize) -> Option<(Vec<Option<i64>>, Option<i64>)> {
    use crate::AffineExpr as E;
    let add = |a: Option<i64>, b: Option<i64>| match (a, b) {
        (Some(x), Some(y)) => x.checked_add(y),
        _ => None,
    };
    match e {
        E::Dim(i) => {
            let mut c = vec![Some(0); dims];
            *c.get_mut(*i as usize)? = Some(1);
            Some((c, Some(0)))
        }
        E::Symbol(_) => Some((vec![Some(0); dims], None)),
        E::Const(v) => Some((vec![Some(0); dims], Some(*v))),
        E::Add(a, b) => {
            let (ca, oa) = linear_terms(a, dims)?;
            let (cb, ob) = linear_terms(b, dims)?;
            Some((
                ca.into_iter().zip(cb).map(|(x, y)| add(x, y)).collect(),
                add(oa, ob),
            ))
        }
        E::Mul(a, b) => {
            let (ca, oa) = linear_terms(a, dims)?;
            let (cb, ob) = linear_terms(b, dims)?;
            let no_dims = |c: &[Option<i64>]| c.iter().all(|x| *x == Some(0));
            let (c, o, k) = if no_dims(&cb) {
                (ca, oa, ob)
            } else if no_dims(&ca) {
                (cb, ob, oa)
            } else {
                return None;
            };
            let mul = |x: Option<i64>| match (x, k) {
                (Some(0), _) | (_, Some(0)) => Some(0),
                (Some(x), Some(k)) => x.checked_mul(k),
                _ => None,
            };
            Some((c.into_iter().map(mul).collect(), mul(o)))
        }
        _ => None,
    }
}

/// `a * b` on static-or-dynamic sizes the way MLIR's `SaturatedInteger` does it: a zero
/// wins, then a dynamic operand makes the product dynamic.
fn sat_mul(a: i64, b: i64) -> i64 {
    if a == 0 || b == 0 {
        0
    } else if a == DYNAMIC || b == DYNAMIC {
        DYNAMIC
    } else {
        a.checked_mul(b).unwrap_or(DYNAMIC)
    }
}

/// `a + b` with dynamic operands giving dynamic.
fn sat_add(a: i64, b: i64) -> i64 {
    if a == DYNAMIC || b == DYNAMIC {
        DYNAMIC
    } else {
        a.checked_add(b).unwrap_or(DYNAMIC)
    }
}

/// MLIR's `computeRankReductionMask`: the dims of `orig` dropped to get `reduced` (each a
/// static 1), or `None` when the sizes do not match up.
fn rank_reduction_mask(orig: &[i64], reduced: &[i64]) -> Option<Vec<bool>> {
    let mut unused = vec![false; orig.len()];
    let mut j = 0;
    for (i, &s) in orig.iter().enumerate() {
        if j < reduced.len() && s == reduced[j] {
            j += 1;
            continue;
        }
        unused[i] = true;
        if s != 1 {
            return None;
        }
    }
    (j == reduced.len()).then_some(unused)
}

fn parse_reshape(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let src = p.parse_operand()?;
    p.parse_lparen()?;
    let shape = p.parse_operand()?;
    p.parse_rparen()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.parse_colon()?;
    let at = p.current_span();
    let (ins, outs) = p.parse_function_type()?;
    if ins.len() != 2 || outs.len() != 1 {
        return Err(crate::Diagnostic::new(
            at,
            "expected (source type, shape type) -> result type",
        ));
    }
    st.operands.push(p.resolve_operand(&src, &ins[0])?);
    st.operands.push(p.resolve_operand(&shape, &ins[1])?);
    st.result_types = outs;
    Ok(())
}

fn print_reshape(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    if ops.len() != 2 || m.results(op).len() != 1 {
        return false;
    }
    p.write(" ");
    p.print_operand(ops[0]);
    p.write("(");
    p.print_operand(ops[1]);
    p.write(")");
    print_attrs(p, op, &[]);
    p.write(" : ");
    crate::dialects::func::print_functional_type(p, op);
    true
}

fn verify_reshape(m: &Module, op: OpId) -> Result<(), String> {
    let ops = m.operands(op);
    if ops.len() != 2 || m.results(op).len() != 1 {
        return Err("expects two operands and one result".into());
    }
    let (st, sh, rt) = (
        m.value_type(ops[0]),
        m.value_type(ops[1]),
        m.value_type(m.result(op, 0)),
    );
    if st.element_type() != rt.element_type() {
        return Err(
            "element types of source and destination memref types should be the same".into(),
        );
    }
    if let Some(sp) = memref_parts(st) {
        if !layout_is_identity(sp.shape, sp.layout) {
            return Err("source memref type should have identity affine map".into());
        }
    }
    let shape_len = sh.shape().and_then(|s| s.first().copied());
    if let Some(rp) = memref_parts(rt) {
        if !layout_is_identity(rp.shape, rp.layout) {
            return Err("result memref type should have identity affine map".into());
        }
        match shape_len {
            Some(DYNAMIC) => {
                return Err("cannot use shape operand with dynamic length to reshape to statically-ranked memref type".into())
            }
            Some(n) if n != rp.shape.len() as i64 => {
                return Err("length of shape operand differs from the result's memref rank".into())
            }
            _ => {}
        }
    }
    Ok(())
}

fn parse_assume_alignment(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let v = p.parse_operand()?;
    p.parse_comma()?;
    let a = p.parse_integer()?;
    st.props
        .set("alignment", Attribute::int(a.into(), Type::int(32)));
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    st.operands.push(p.resolve_operand(&v, &t)?);
    st.result_types.push(t);
    Ok(())
}

fn print_assume_alignment(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(a) = prop(m, op, "alignment").and_then(|a| a.as_int()) else {
        return false;
    };
    if m.operands(op).len() != 1 || m.results(op).len() != 1 {
        return false;
    }
    let v = m.operands(op)[0];
    if m.value_type(v) != m.value_type(m.result(op, 0)) {
        return false;
    }
    p.write(" ");
    p.print_operand(v);
    p.write(&format!(", {a}"));
    print_attrs(p, op, &["alignment"]);
    p.write(" : ");
    p.print_type(m.value_type(v));
    true
}

// ===================== global / get_global =====================

fn parse_global(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    if let Some(v) = p.parse_optional_string()? {
        st.props.set("sym_visibility", Attribute::string(&v));
    }
    if p.parse_optional_keyword("constant") {
        st.props.set("constant", Attribute::Unit);
    }
    let name = p.parse_symbol_name().map_err(|e| {
        crate::Diagnostic::new(
            e.span,
            "custom op 'memref.global' expected valid '@'-identifier for symbol name",
        )
    })?;
    st.props.set("sym_name", Attribute::string(&name));
    p.parse_colon()?;
    let at = p.current_span();
    let t = p.parse_type()?;
    let static_memref = memref_parts(&t).is_some_and(|mp| !mp.shape.contains(&DYNAMIC));
    if !static_memref {
        return Err(crate::Diagnostic::new(
            at,
            format!("custom op 'memref.global' type should be static shaped memref, but got '{t}'"),
        ));
    }
    st.props.set("type", Attribute::Type(t.clone()));
    if p.consume_if(Tok::Equal) {
        if p.parse_optional_keyword("uninitialized") {
            st.props.set("initial_value", Attribute::Unit);
        } else {
            let mp = memref_parts(&t).expect("checked above");
            let tensor = Type::new(TypeKind::RankedTensor {
                shape: mp.shape.to_vec(),
                elem: mp.elem.clone(),
                encoding: None,
            });
            let at = p.current_span();
            let v = p.parse_attribute_of_type(&tensor)?;
            if let Attribute::Elements { kind, body, ty } = &v {
                if kind == "dense" {
                    if let (Some(lit), Some(want)) = (literal_shape(body), ty.shape()) {
                        if lit != want {
                            return Err(crate::Diagnostic::new(
                                at,
                                format!(
                                    "inferred shape of elements literal ([{}]) does not match type ([{}])",
                                    fmt_shape(&lit),
                                    fmt_shape(want)
                                ),
                            ));
                        }
                    }
                }
            }
            if !matches!(v, Attribute::Elements { .. }) {
                return Err(crate::Diagnostic::new(
                    at,
                    "custom op 'memref.global' initial value should be a unit or elements attribute",
                ));
            }
            st.props.set("initial_value", v);
        }
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    Ok(())
}

fn print_global(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    if !m.operands(op).is_empty() || !m.results(op).is_empty() || !m.regions(op).is_empty() {
        return false;
    }
    let (Some(name), Some(t)) = (
        prop(m, op, "sym_name").and_then(|a| a.as_str()),
        prop(m, op, "type").and_then(|a| a.as_type()),
    ) else {
        return false;
    };
    if let Some(v) = prop(m, op, "sym_visibility") {
        if v.as_str().is_none() {
            return false;
        }
        p.write(" ");
        p.print_attr(v);
    }
    if flag(m, op, "constant") {
        p.write(" constant");
    }
    p.write(" ");
    p.print_symbol_name(name);
    p.write(" : ");
    p.print_type(t);
    match prop(m, op, "initial_value") {
        None => {}
        Some(Attribute::Unit) => p.write(" = uninitialized"),
        Some(v @ Attribute::Elements { ty, .. }) => {
            p.write(" = ");
            let tensor_ok = memref_parts(t).is_some_and(|mp| {
                ty.shape() == Some(mp.shape) && ty.element_type() == Some(mp.elem)
            });
            if tensor_ok {
                p.print_attr_untyped(v);
            } else {
                p.print_attr(v);
            }
        }
        Some(_) => return false,
    }
    print_attrs(p, op, GLOBAL_INHERENT[..5].as_ref());
    true
}

fn verify_global(m: &Module, op: OpId) -> Result<(), String> {
    // `sym_visibility` is checked for every registered op by the verifier itself.
    let Some(t) = prop(m, op, "type").and_then(|a| a.as_type()) else {
        return Err("requires attribute 'type'".into());
    };
    let Some(mp) = memref_parts(t) else {
        return Err(format!(
            "type should be static shaped memref, but got '{t}'"
        ));
    };
    if mp.shape.contains(&DYNAMIC) {
        return Err(format!(
            "type should be static shaped memref, but got '{t}'"
        ));
    }
    if let Some(Attribute::Elements { ty, .. }) = prop(m, op, "initial_value") {
        if let Some(e) = ty.element_type() {
            if e != mp.elem {
                return Err(format!(
                    "initial value element expected to be of type '{}', but was of type '{e}'",
                    mp.elem
                ));
            }
        }
        if let Some(s) = ty.shape() {
            if s != mp.shape {
                return Err(format!(
                    "initial value shape expected to be {} but was {}",
                    fmt_shape(mp.shape),
                    fmt_shape(s)
                ));
            }
        }
    }
    if let Some(a) = prop(m, op, "alignment") {
        match a.as_int() {
            Some(v) if v > 0 && (v & (v - 1)) == 0 => {}
            _ => return Err("alignment attribute value must be a power of 2".into()),
        }
    }
    Ok(())
}

fn parse_get_global(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let name = p.parse_symbol_name()?;
    st.props.set("name", Attribute::symbol(&name));
    let t = p.parse_colon_type()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    st.result_types.push(t);
    Ok(())
}

fn print_get_global(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(n) = prop(m, op, "name").filter(|a| matches!(a, Attribute::SymbolRef { .. })) else {
        return false;
    };
    if m.results(op).len() != 1 || !m.operands(op).is_empty() {
        return false;
    }
    p.write(" ");
    p.print_attr(n);
    p.write(" : ");
    p.print_type(m.value_type(m.result(op, 0)));
    print_attrs(p, op, &["name"]);
    true
}

/// Finds the nearest enclosing symbol table's op named `sym`.
fn lookup_symbol(m: &Module, from: OpId, sym: &str) -> Option<OpId> {
    let mut cur = m.parent_op(from);
    while let Some(t) = cur {
        for &r in m.regions(t) {
            for &b in m.region_blocks(r) {
                for o in m.block_ops(b) {
                    if prop(m, o, "sym_name").and_then(|a| a.as_str()) == Some(sym) {
                        return Some(o);
                    }
                }
            }
        }
        if m.op(t).name == "builtin.module" {
            return None;
        }
        cur = m.parent_op(t);
    }
    None
}

fn verify_get_global(m: &Module, op: OpId) -> Result<(), String> {
    let Some(n) = prop(m, op, "name").and_then(|a| a.as_symbol()) else {
        return Err("requires attribute 'name'".into());
    };
    let g = lookup_symbol(m, op, n).filter(|&g| m.op(g).name == "memref.global");
    let Some(g) = g else {
        return Err(format!("'{n}' does not reference a valid global memref"));
    };
    if let (Some(gt), Some(&r)) = (
        prop(m, g, "type").and_then(|a| a.as_type()),
        m.results(op).first(),
    ) {
        let rt = m.value_type(r);
        if rt != gt {
            return Err(format!(
                "result type '{rt}' does not match type '{gt}' of the global memref @{n}"
            ));
        }
    }
    Ok(())
}

// ===================== alloca_scope =====================

fn parse_alloca_scope(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    st.result_types = p.parse_optional_arrow_type_list()?;
    let r = p.parse_region(&[])?;
    ensure_terminator(p, r, "memref.alloca_scope.return");
    st.regions.push(r);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    Ok(())
}

fn print_alloca_scope(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let [r] = m.regions(op) else { return false };
    if single_block(m, *r).is_none() || !m.operands(op).is_empty() {
        return false;
    }
    let res = m.results(op);
    if !res.is_empty() {
        p.write(" -> (");
        p.print_value_types(res);
        p.write(")");
    }
    let elide = res.is_empty() && terminators_elidable(m, *r, "memref.alloca_scope.return");
    p.write(" ");
    p.print_region(*r, false, !elide);
    print_attrs(p, op, &[]);
    true
}

fn verify_alloca_scope_return(m: &Module, op: OpId) -> Result<(), String> {
    match m.parent_op(op) {
        Some(par) if m.op(par).name == "memref.alloca_scope" => {
            let want = types_of(m, m.results(par));
            if types_of(m, m.operands(op)) != want {
                return Err("types mismatch between yield op and its parent".into());
            }
            Ok(())
        }
        _ => Err("expects parent op 'memref.alloca_scope'".into()),
    }
}

/// The shape of a nested `[...]` elements literal (`None` for a splat or odd text).
fn literal_shape(body: &str) -> Option<Vec<i64>> {
    fn list(b: &[u8], i: &mut usize, depth: usize, shape: &mut Vec<i64>) -> Option<()> {
        // At '['.
        *i += 1;
        let mut n = 0i64;
        skip_ws(b, i);
        if b.get(*i) == Some(&b']') {
            *i += 1;
            return record(shape, depth, 0);
        }
        loop {
            skip_ws(b, i);
            if b.get(*i) == Some(&b'[') {
                list(b, i, depth + 1, shape)?;
            } else {
                if shape.len() > depth + 1 {
                    return None;
                }
                scalar(b, i)?;
                if shape.len() > depth + 1 {
                    return None;
                }
                shape.truncate(depth + 1);
            }
            n += 1;
            skip_ws(b, i);
            match b.get(*i) {
                Some(b',') => *i += 1,
                Some(b']') => {
                    *i += 1;
                    return record(shape, depth, n);
                }
                _ => return None,
            }
        }
    }
    fn record(shape: &mut Vec<i64>, depth: usize, n: i64) -> Option<()> {
        if shape.len() <= depth {
            shape.resize(depth + 1, -1);
        }
        if shape[depth] == -1 {
            shape[depth] = n;
            Some(())
        } else if shape[depth] == n {
            Some(())
        } else {
            None
        }
    }
    fn skip_ws(b: &[u8], i: &mut usize) {
        while b.get(*i).is_some_and(|c| c.is_ascii_whitespace()) {
            *i += 1;
        }
    }
    fn scalar(b: &[u8], i: &mut usize) -> Option<()> {
        let mut depth = 0i32;
        let start = *i;
        while let Some(&c) = b.get(*i) {
            match c {
                b'(' => depth += 1,
                b')' => depth -= 1,
                b'"' => {
                    *i += 1;
                    while b.get(*i).is_some_and(|&c| c != b'"') {
                        *i += 1;
                    }
                }
                b',' | b']' if depth == 0 => break,
                _ => {}
            }
            *i += 1;
        }
        (*i > start).then_some(())
    }
    let b = body.trim().as_bytes();
    if b.first() != Some(&b'[') {
        return None;
    }
    let mut shape = Vec::new();
    let mut i = 0;
    list(b, &mut i, 0, &mut shape)?;
    if shape.contains(&-1) {
        return None;
    }
    Some(shape)
}

// ===================== dma_start / dma_wait =====================

fn parse_dma_start(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let src = p.parse_operand()?;
    let src_idx = p.parse_operand_list_delimited(Delimiter::Square)?;
    p.parse_comma()?;
    let dst = p.parse_operand()?;
    let dst_idx = p.parse_operand_list_delimited(Delimiter::Square)?;
    p.parse_comma()?;
    let num = p.parse_operand()?;
    p.parse_comma()?;
    let tag = p.parse_operand()?;
    let tag_idx = p.parse_operand_list_delimited(Delimiter::Square)?;
    let mut stride = Vec::new();
    if p.consume_if(Tok::Comma) {
        stride = p.parse_operand_list()?;
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let at = p.current_span();
    let tys = p.parse_colon_type_list()?;
    if tys.len() != 3 {
        return Err(crate::Diagnostic::new(at, "expected three types"));
    }
    if !stride.is_empty() && stride.len() != 2 {
        return Err(crate::Diagnostic::new(
            at,
            "expected two stride related operands",
        ));
    }
    st.operands.push(p.resolve_operand(&src, &tys[0])?);
    st.operands.extend(resolve_indices(p, &src_idx)?);
    st.operands.push(p.resolve_operand(&dst, &tys[1])?);
    st.operands.extend(resolve_indices(p, &dst_idx)?);
    st.operands.push(p.resolve_operand(&num, &index_ty())?);
    st.operands.push(p.resolve_operand(&tag, &tys[2])?);
    st.operands.extend(resolve_indices(p, &tag_idx)?);
    st.operands.extend(resolve_indices(p, &stride)?);
    Ok(())
}

/// Operand groups of a dma_start: (src, src idx, dst, dst idx, num, tag, tag idx, stride ops).
type DmaParts = (
    ValueId,
    Vec<ValueId>,
    ValueId,
    Vec<ValueId>,
    ValueId,
    ValueId,
    Vec<ValueId>,
    Vec<ValueId>,
);

fn dma_parts(m: &Module, op: OpId) -> Option<DmaParts> {
    let ops = m.operands(op);
    let rank = |v: ValueId| memref_parts(m.value_type(v)).map(|mp| mp.shape.len());
    let src = *ops.first()?;
    let sr = rank(src)?;
    let dst = *ops.get(1 + sr)?;
    let dr = rank(dst)?;
    let num = *ops.get(2 + sr + dr)?;
    let tag = *ops.get(3 + sr + dr)?;
    let tr = rank(tag)?;
    let end = 4 + sr + dr + tr;
    if ops.len() != end && ops.len() != end + 2 {
        return None;
    }
    Some((
        src,
        ops[1..1 + sr].to_vec(),
        dst,
        ops[2 + sr..2 + sr + dr].to_vec(),
        num,
        tag,
        ops[4 + sr + dr..end].to_vec(),
        ops[end..].to_vec(),
    ))
}

fn print_dma_start(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some((src, si, dst, di, num, tag, ti, stride)) = dma_parts(m, op) else {
        return false;
    };
    if !m.results(op).is_empty() || verify_dma_start(m, op).is_err() {
        return false;
    }
    p.write(" ");
    p.print_operand(src);
    p.write("[");
    p.print_operands(&si);
    p.write("], ");
    p.print_operand(dst);
    p.write("[");
    p.print_operands(&di);
    p.write("], ");
    p.print_operand(num);
    p.write(", ");
    p.print_operand(tag);
    p.write("[");
    p.print_operands(&ti);
    p.write("]");
    if !stride.is_empty() {
        p.write(", ");
        p.print_operands(&stride);
    }
    print_attrs(p, op, &[]);
    p.write(" : ");
    p.print_value_types(&[src, dst, tag]);
    true
}

fn verify_dma_start(m: &Module, op: OpId) -> Result<(), String> {
    let ops = m.operands(op);
    let n = ops.len();
    if n < 4 {
        return Err("expected at least 4 operands".into());
    }
    let rank = |v: ValueId| memref_parts(m.value_type(v)).map(|mp| mp.shape.len());
    let Some(sr) = rank(ops[0]) else {
        return Err("expected source to be of memref type".into());
    };
    if n < sr + 4 {
        return Err(format!("expected at least {} operands", sr + 4));
    }
    if !all_index(m, &ops[1..1 + sr]) {
        return Err("expected source indices to be of index type".into());
    }
    let Some(dr) = rank(ops[1 + sr]) else {
        return Err("expected destination to be of memref type".into());
    };
    let mut expected = sr + dr + 4;
    if n < expected {
        return Err(format!("expected at least {expected} operands"));
    }
    if !all_index(m, &ops[2 + sr..2 + sr + dr]) {
        return Err("expected destination indices to be of index type".into());
    }
    if !m.value_type(ops[2 + sr + dr]).is_index() {
        return Err("expected num elements to be of index type".into());
    }
    let Some(tr) = rank(ops[3 + sr + dr]) else {
        return Err("expected tag to be of memref type".into());
    };
    expected += tr;
    if n < expected {
        return Err(format!("expected at least {expected} operands"));
    }
    if !all_index(m, &ops[4 + sr + dr..expected]) {
        return Err("expected tag indices to be of index type".into());
    }
    if n != expected && n != expected + 2 {
        return Err("incorrect number of operands".into());
    }
    if n == expected + 2 && !all_index(m, &ops[expected..]) {
        return Err("expected stride and num elements per stride to be of type index".into());
    }
    Ok(())
}

fn parse_dma_wait(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let tag = p.parse_operand()?;
    let idx = p.parse_operand_list_delimited(Delimiter::Square)?;
    p.parse_comma()?;
    let num = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    st.operands.push(p.resolve_operand(&tag, &t)?);
    st.operands.extend(resolve_indices(p, &idx)?);
    st.operands.push(p.resolve_operand(&num, &index_ty())?);
    Ok(())
}

fn print_dma_wait(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    if ops.len() < 2 || !m.results(op).is_empty() || verify_dma_wait(m, op).is_err() {
        return false;
    }
    p.write(" ");
    p.print_operand(ops[0]);
    p.write("[");
    p.print_operands(&ops[1..ops.len() - 1]);
    p.write("], ");
    p.print_operand(ops[ops.len() - 1]);
    print_attrs(p, op, &[]);
    p.write(" : ");
    p.print_type(m.value_type(ops[0]));
    true
}

fn verify_dma_wait(m: &Module, op: OpId) -> Result<(), String> {
    let ops = m.operands(op);
    if ops.len() < 2 {
        return Err("expected at least 2 operands".into());
    }
    let Some(mp) = memref_parts(m.value_type(ops[0])) else {
        return Err("expected tag to be of memref type".into());
    };
    let got = ops.len() - 2;
    if got != mp.shape.len() {
        return Err(format!(
            "expected tagIndices to have the same number of elements as the tagMemRef rank, expected {}, but got {got}",
            mp.shape.len()
        ));
    }
    Ok(())
}
