//! The `linalg` dialect (mlir/include/mlir/Dialect/Linalg/IR/LinalgOps.td,
//! LinalgStructuredOps.td, LinalgNamedStructuredOps.yaml; parsing and printing follow
//! mlir/lib/Dialect/Linalg/IR/LinalgOps.cpp).
//!
//! Every structured op is destination-passing style: `ins(%a, %b : A, B) outs(%c : C)`,
//! results only for tensor `outs`. Named ops (`matmul`, `fill`, `add`, ...) have an implicit
//! body that the custom form never shows: the parser builds it exactly as MLIR's region
//! builders do (block arguments of the operands' element types, casts to the output
//! element type, `arith`/`math` payload ops with default flags, `linalg.yield`), so the
//! generic print matches `mlir-opt --mlir-print-op-generic`. `matmul`-like ops also get
//! their default `indexing_maps` property, printed in custom form only when non-default.
//!
//! ```text
//! linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x4xf32>) outs(%c : memref<4x4xf32>)
//! %r = linalg.fill ins(%cst : f32) outs(%t : tensor<4xf32>) -> tensor<4xf32>
//! linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
//!     ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) attrs = {foo} {
//! ^bb0(%in: f32, %out: f32):
//!   linalg.yield %in : f32
//! }
//! %s = linalg.reduce { arith.addf } ins(%t : tensor<4x8xf32>) outs(%i : tensor<4xf32>) dimensions = [1]
//! %m = linalg.map { math.exp } ins(%t : tensor<4xf32>) outs(%o : tensor<4xf32>)
//! %p = linalg.transpose ins(%t : tensor<2x3xf32>) outs(%o : tensor<3x2xf32>) permutation = [1, 0]
//! ```

use crate::affine::{AffineExpr, AffineMap};
use crate::attrs::Dict;
use crate::diag::Span;
use crate::dialects::arith::{fastmath_none, inherent, overflow_none, FLOAT_OPS, INT_OVERFLOW_OPS};
use crate::dialects::linalg_named::{
    self, Attrs, BinaryFn, CastFn, Step, TernaryFn, To, UnaryFn, NAMED_OPS,
};
use crate::ident::Ident;
use crate::ir::{BlockId, Module, OpId, OperationState, RegionId, ValueId};
use crate::lexer::Tok;
use crate::parser::{Delimiter, PResult, Parser};
use crate::printer::Printer;
use crate::registry::{traits, OpDef, Registry};
use crate::types::TypeKind;
use crate::{Attribute, Diagnostic, Type};

/// The hand-written structured ops with an implicit body (LinalgStructuredOps.td; the
/// OpDSL ones come from the generated table, see `linalg_named.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hand {
    /// `linalg.matmul`.
    Matmul,
    /// `linalg.batch_matmul`.
    BatchMatmul,
    /// `linalg.batch_reduce_matmul`.
    BatchReduceMatmul,
    /// `linalg.contract` (its `indexing_maps` are required).
    Contract,
    /// `linalg.elementwise` (`kind = #linalg.elementwise_kind<...>`).
    Elementwise,
}

const HAND: &[(&str, Hand)] = &[
    ("linalg.matmul", Hand::Matmul),
    ("linalg.batch_matmul", Hand::BatchMatmul),
    ("linalg.batch_reduce_matmul", Hand::BatchReduceMatmul),
    ("linalg.contract", Hand::Contract),
    ("linalg.elementwise", Hand::Elementwise),
];

/// The body of the contractions: `out + cast(a) * cast(b)` with the `cast` attribute.
const MUL_ACC: &[Step] = &[
    Step::Cast(CastFn::Attr, To::Arg(2), 0),
    Step::Cast(CastFn::Attr, To::Arg(2), 1),
    Step::Binary(BinaryFn::Mul, 3, 4),
    Step::Binary(BinaryFn::Add, 2, 5),
];

fn hand(name: &str) -> Option<Hand> {
    // Cheap pre-filter: every hand-written name contains "matmul", "contract" or "elementwise".
    HAND.iter().find(|h| h.0 == name).map(|h| h.1)
}

/// Ops whose body is a single `linalg.yield %in` and a DPS `ins`/`outs` pair with an
/// integer-array attribute after it: name and attribute.
const PERMUTING: &[(&str, &str)] = &[
    ("linalg.transpose", "permutation"),
    ("linalg.broadcast", "dimensions"),
];

/// The attribute names of `linalg.generic`'s trait dictionary.
const GENERIC_TRAIT: &[&str] = &["doc", "indexing_maps", "iterator_types", "library_call"];
const SEGMENTS: &str = "operandSegmentSizes";
const MEMOIZED: &str = "linalg.memoized_indexing_maps";
const ITER_PREFIX: &str = "#linalg.iterator_type<";
/// The iterator types MLIR 22 knows (`mlir::utils::IteratorType`).
const ITERATOR_TYPES: [&str; 2] = ["parallel", "reduction"];

/// True for structured ops whose body is implicit (built by the parser).
fn has_implicit_body(name: &Ident) -> bool {
    linalg_named::lookup_ident(name).is_some() || hand(name.as_str()).is_some()
}

/// True for ops implementing the LinalgOp interface here (parents of yield/index).
fn is_structured(ident: &Ident) -> bool {
    let name = ident.as_str();
    name == "linalg.generic"
        || name == "linalg.map"
        || name == "linalg.reduce"
        || has_implicit_body(ident)
        || PERMUTING.iter().any(|p| p.0 == name)
}

/// Registers the linalg ops.
pub fn register(r: &mut Registry) {
    for op in NAMED_OPS {
        r.register(OpDef {
            parse: Some(parse_named),
            print: Some(print_named),
            verify: Some(verify_named),
            traits: traits::SINGLE_BLOCK,
            inherent: match op.attrs {
                Attrs::None => &[SEGMENTS],
                Attrs::Cast => &[SEGMENTS, "cast"],
                Attrs::Window(_) => &[SEGMENTS, "strides", "dilations"],
            },
            ..OpDef::new(op.name)
        });
    }
    for &(n, h) in HAND {
        r.register(OpDef {
            parse: Some(parse_hand),
            print: Some(print_hand),
            verify: Some(verify_hand),
            traits: traits::SINGLE_BLOCK,
            inherent: if h == Hand::Elementwise {
                &[SEGMENTS, "indexing_maps", "kind"]
            } else {
                &[SEGMENTS, "indexing_maps", "cast"]
            },
            ..OpDef::new(n)
        });
    }
    for &(n, _) in PERMUTING {
        r.register(OpDef {
            parse: Some(parse_permuting),
            print: Some(print_permuting),
            verify: Some(verify_permuting),
            traits: traits::SINGLE_BLOCK,
            inherent: &["permutation", "dimensions"],
            ..OpDef::new(n)
        });
    }
    r.register(OpDef {
        parse: Some(parse_generic),
        print: Some(print_generic),
        verify: Some(verify_structured),
        traits: traits::SINGLE_BLOCK,
        inherent: &[
            SEGMENTS,
            "doc",
            "indexing_maps",
            "iterator_types",
            "library_call",
        ],
        ..OpDef::new("linalg.generic")
    });
    for n in ["linalg.map", "linalg.reduce"] {
        r.register(OpDef {
            parse: Some(parse_map_reduce),
            print: Some(print_map_reduce),
            verify: Some(verify_map_reduce),
            traits: traits::SINGLE_BLOCK,
            inherent: &["dimensions"],
            ..OpDef::new(n)
        });
    }
    register_aggregates(r);
    r.register(OpDef {
        parse: Some(parse_yield),
        print: Some(print_yield),
        verify: Some(verify_yield),
        traits: traits::TERMINATOR,
        ..OpDef::new("linalg.yield")
    });
    r.register(OpDef {
        parse: Some(parse_index),
        print: Some(print_index),
        verify: Some(verify_index),
        inherent: &["dim"],
        ..OpDef::new("linalg.index")
    });
}

// ===== types =====

/// Element type of a memref / tensor operand, the type itself otherwise (what linalg's region
/// builder and verifier use: unlike `getElementTypeOrSelf`, vectors are not unwrapped).
fn elem_or_self(t: &Type) -> Type {
    elem_or_self_ref(t).clone()
}

/// [`elem_or_self`] without the clone.
fn elem_or_self_ref(t: &Type) -> &Type {
    match t.kind() {
        TypeKind::RankedTensor { elem, .. }
        | TypeKind::UnrankedTensor { elem }
        | TypeKind::MemRef { elem, .. }
        | TypeKind::UnrankedMemRef { elem, .. } => elem,
        // A vector operand of a linalg op is a scalar-like value: it is its own block argument
        // type (`linalg.fill ins(%c : vector<4xf32>)` gets `^bb0(%in: vector<4xf32>, ...)`).
        _ => t,
    }
}

fn is_tensor(t: &Type) -> bool {
    matches!(
        t.kind(),
        TypeKind::RankedTensor { .. } | TypeKind::UnrankedTensor { .. }
    )
}

fn is_tensor_or_memref(t: &Type) -> bool {
    matches!(
        t.kind(),
        TypeKind::RankedTensor { .. } | TypeKind::MemRef { .. }
    )
}

/// Rank of an operand as an indexing map sees it (scalars and vectors count as rank 0
/// unless they are tensors or memrefs).
fn operand_rank(t: &Type) -> usize {
    match t.kind() {
        TypeKind::RankedTensor { shape, .. } | TypeKind::MemRef { shape, .. } => shape.len(),
        _ => 0,
    }
}

// ===== building implicit bodies =====

/// Default properties MLIR's builders give the payload ops we create (the
/// default-valued `fastmath` / `overflowFlags` properties that the generic form prints).
fn default_props(name: &str) -> Dict {
    let mut d = Dict::new();
    if FLOAT_OPS.contains(&name)
        || name == "arith.negf"
        || crate::dialects::math::has_fastmath_op(name)
    {
        d.set("fastmath", fastmath_none());
    }
    if INT_OVERFLOW_OPS.contains(&name) {
        d.set("overflowFlags", overflow_none());
    }
    d
}

struct BodyBuilder<'m> {
    m: &'m mut Module,
    b: BlockId,
}

impl BodyBuilder<'_> {
    fn op(
        &mut self,
        name: impl Into<Ident>,
        operands: &[ValueId],
        ty: Type,
        props: Dict,
    ) -> ValueId {
        let mut st = OperationState::new(name);
        st.operands = operands.to_vec();
        st.result_types.push(ty);
        st.props = props;
        let o = self.m.create_op(st);
        self.m.append_op(self.b, o);
        self.m.result(o, 0)
    }
    fn yield_(&mut self, vals: &[ValueId]) {
        let mut st = OperationState::new("linalg.yield");
        st.operands = vals.to_vec();
        let o = self.m.create_op(st);
        self.m.append_op(self.b, o);
    }
}

/// Builds the implicit body region of a structured op from its operand types: block
/// arguments of the operands' element types, then `steps` and `linalg.yield`. Errors
/// (operand types the body cannot be built for) are reported at `at`.
fn build_region(
    p: &mut Parser<'_>,
    in_tys: &[Type],
    out_tys: &[Type],
    steps: &[Step],
    yields: &[u8],
    unsigned: bool,
    at: Span,
) -> PResult<RegionId> {
    let m = p.module_mut();
    let r = m.create_region();
    let b = m.create_block();
    m.append_block(r, b);
    for t in in_tys.iter().chain(out_tys) {
        m.add_block_arg(b, elem_or_self(t), None);
    }
    linalg_named::build_body(m, b, steps, yields, unsigned).map_err(|e| Diagnostic::new(at, e))?;
    Ok(r)
}

// ===== ins / outs =====

/// `ins(%a, %b : A, B)` / `outs(...)` after an optional `<{props}>` and attribute dictionary.
/// Returns the input and output types (operands are pushed to `st`).
fn parse_ins_outs(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<(Vec<Type>, Vec<Type>)> {
    if p.consume_if(Tok::Less) {
        match p.parse_attribute()? {
            Attribute::Dict(d) => {
                for n in d.0 {
                    st.props.set(n.name, n.value);
                }
            }
            _ => return Err(p.error_here("expected a dictionary of properties")),
        }
        p.parse_greater()?;
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let mut lists = Vec::new();
    for kw in ["ins", "outs"] {
        let mut ops = Vec::new();
        let mut tys = Vec::new();
        let at = p.current_span();
        if p.parse_optional_keyword(kw) {
            p.parse_lparen()?;
            if !p.at(Tok::RParen) {
                ops = p.parse_operand_list()?;
                tys = p.parse_colon_type_list()?;
            }
            p.parse_rparen()?;
        }
        lists.push((ops, tys, at));
    }
    for (ops, tys, at) in &lists {
        let vs = p.resolve_operands(ops, tys, *at)?;
        st.operands.extend(vs);
    }
    let outs = lists.pop().map(|l| l.1).unwrap_or_default();
    let ins = lists.pop().map(|l| l.1).unwrap_or_default();
    Ok((ins, outs))
}

fn print_ins_outs(p: &mut Printer<'_>, ins: &[ValueId], outs: &[ValueId]) {
    for (kw, vs) in [("ins", ins), ("outs", outs)] {
        if !vs.is_empty() {
            p.write(" ");
            p.write(kw);
            p.write("(");
            p.print_operands(vs);
            p.write(" : ");
            p.print_value_types(vs);
            p.write(")");
        }
    }
}

/// ` -> T` or ` -> (T1, T2)` when there are results.
fn print_arrow_results(p: &mut Printer<'_>, op: OpId) {
    let m = p.module();
    let rs = m.results(op);
    if rs.is_empty() {
        return;
    }
    let tys: Vec<Type> = rs.iter().map(|&r| m.value_type(r).clone()).collect();
    p.write(" -> ");
    p.print_function_result_types(&tys);
}

/// The (inputs, outputs) split of a structured op's operands.
fn split_operands(m: &Module, op: OpId) -> Option<(&[ValueId], &[ValueId])> {
    let d = m.op(op);
    let ops = m.operands(op);
    let n_in = if let Some(seg) = inherent(d, SEGMENTS) {
        let s = seg.as_int_array()?;
        if s.len() != 2 || s.iter().any(|&x| x < 0) || (s[0] + s[1]) as usize != ops.len() {
            return None;
        }
        s[0] as usize
    } else {
        match d.name.as_str() {
            "linalg.map" => ops.len().checked_sub(1)?,
            "linalg.reduce" => {
                if !ops.len().is_multiple_of(2) {
                    return None;
                }
                ops.len() / 2
            }
            n if PERMUTING.iter().any(|p| p.0 == n) => {
                if ops.len() != 2 {
                    return None;
                }
                1
            }
            _ => return None,
        }
    };
    Some(ops.split_at(n_in))
}

/// Merged properties and attributes, minus `elided`.
fn merged_attrs(m: &Module, op: OpId, elided: &[&str]) -> Dict {
    let d = m.op(op);
    let mut out = Dict::new();
    for n in d.props.iter().chain(d.attrs.iter()) {
        if !elided.contains(&n.name.as_str()) {
            out.set(n.name.clone(), n.value.clone());
        }
    }
    out
}

fn segments(n_in: usize, n_out: usize) -> Attribute {
    Attribute::i32_array(&[n_in as i64, n_out as i64])
}

/// Result types inferred from the tensor `outs`.
fn tensor_results(outs: &[Type]) -> Vec<Type> {
    outs.iter().filter(|t| is_tensor(t)).cloned().collect()
}

// ===== named ops =====

/// The default `indexing_maps` of the hand-written ops (`None`: required / rank-dependent).
fn default_maps(kind: Hand, out_rank: usize, n_operands: usize) -> Option<Vec<AffineMap>> {
    let d = AffineExpr::Dim;
    let map = |n: u32, r: Vec<AffineExpr>| AffineMap {
        num_dims: n,
        num_symbols: 0,
        results: r,
    };
    Some(match kind {
        Hand::Contract => return None,
        Hand::Elementwise => vec![AffineMap::identity(out_rank as u32); n_operands],
        Hand::Matmul => vec![
            map(3, vec![d(0), d(2)]),
            map(3, vec![d(2), d(1)]),
            map(3, vec![d(0), d(1)]),
        ],
        Hand::BatchMatmul => vec![
            map(4, vec![d(0), d(1), d(3)]),
            map(4, vec![d(0), d(3), d(2)]),
            map(4, vec![d(0), d(1), d(2)]),
        ],
        Hand::BatchReduceMatmul => vec![
            map(4, vec![d(0), d(1), d(3)]),
            map(4, vec![d(0), d(3), d(2)]),
            map(4, vec![d(1), d(2)]),
        ],
    })
}

fn maps_attr(maps: Vec<AffineMap>) -> Attribute {
    Attribute::Array(maps.into_iter().map(Attribute::AffineMap).collect())
}

/// The `cast` attribute as the region builder sees it: from the attribute dictionary of the
/// custom form only (MLIR passes `result.attributes` to the builder).
fn is_unsigned_cast(st: &OperationState) -> bool {
    matches!(st.attrs.get("cast"), Some(Attribute::Opaque(t)) if t == "#linalg.type_fn<cast_unsigned>")
}

/// The `[parseNamedStructuredOpRegion]` check of the operand count.
fn check_region_args(p: &Parser<'_>, want: usize, got: usize) -> PResult<()> {
    if want != got {
        return Err(p.error_here(format!(
            "[parseNamedStructuredOpRegion] ods-gen generated region expects {want} args, got {got}"
        )));
    }
    Ok(())
}

fn parse_named(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let Some(op) = linalg_named::lookup_ident(&st.name) else {
        return Err(p.error_here("unknown linalg named op"));
    };
    let at = p.current_span();
    let (ins, outs) = parse_ins_outs(p, st)?;
    st.props.set(SEGMENTS, segments(ins.len(), outs.len()));
    st.result_types = p.parse_optional_arrow_type_list()?;
    check_region_args(
        p,
        usize::from(op.inputs) + usize::from(op.outputs),
        ins.len() + outs.len(),
    )?;
    let r = build_region(p, &ins, &outs, op.body, op.yields, is_unsigned_cast(st), at)?;
    st.regions.push(r);
    Ok(())
}

/// Properties and attributes minus `elided`, sorted by name (MLIR prints the op's
/// attribute dictionary, which is sorted).
fn sorted_attrs(m: &Module, op: OpId, elided: &[&str]) -> Dict {
    let mut d = merged_attrs(m, op, elided);
    d.0.sort_by(|a, b| a.name.as_str().cmp(b.name.as_str()));
    d
}

/// ` {attrs} ins(...) outs(...) -> results`, or `false` when the operands are malformed.
fn print_named_tail(p: &mut Printer<'_>, op: OpId, elided: &[&str]) -> bool {
    let m = p.module();
    let Some((ins, outs)) = split_operands(m, op) else {
        return false;
    };
    let extra = sorted_attrs(m, op, elided);
    p.print_optional_attr_dict(&extra, &[]);
    print_ins_outs(p, ins, outs);
    print_arrow_results(p, op);
    true
}

fn print_named(p: &mut Printer<'_>, op: OpId) -> bool {
    print_named_tail(p, op, &[SEGMENTS, MEMOIZED])
}

/// Parses `[affine_map, ...]` after `indexing_maps =`.
fn parse_maps_list(p: &mut Parser<'_>) -> PResult<Attribute> {
    p.parse_equal()?;
    let at = p.current_span();
    let a = p.parse_attribute()?;
    let ok =
        matches!(&a, Attribute::Array(v) if v.iter().all(|x| matches!(x, Attribute::AffineMap(_))));
    if !ok {
        return Err(Diagnostic::new(at, "expected affine map attribute"));
    }
    Ok(a)
}

/// The elementwise kind named by `#linalg.elementwise_kind<NAME>`: its implicit body.
fn elementwise_body(kind: &Attribute) -> Option<(usize, Step)> {
    let Attribute::Opaque(t) = kind else {
        return None;
    };
    let name = t
        .strip_prefix("#linalg.elementwise_kind<")?
        .strip_suffix('>')?
        .trim();
    if let Some(f) = UnaryFn::ALL.iter().find(|f| f.name() == name) {
        return Some((1, Step::Unary(*f, 0)));
    }
    if let Some(f) = BinaryFn::ALL.iter().find(|f| f.name() == name) {
        return Some((2, Step::Binary(*f, 0, 1)));
    }
    TernaryFn::ALL
        .iter()
        .find(|f| f.name() == name)
        .map(|f| (3, Step::Ternary(*f, 0, 1, 2)))
}

fn parse_hand(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let Some(kind) = hand(&st.name) else {
        return Err(p.error_here("unknown linalg named op"));
    };
    let mut ew = None;
    if kind == Hand::Elementwise {
        p.parse_keyword("kind")?;
        p.parse_equal()?;
        let at = p.current_span();
        let k = p.parse_attribute()?;
        let Some(body) = elementwise_body(&k) else {
            return Err(Diagnostic::new(
                at,
                "expected a #linalg.elementwise_kind attribute",
            ));
        };
        ew = Some(body);
        st.props.set("kind", k);
    }
    let mut maps = None;
    if kind == Hand::Contract {
        if !p.parse_optional_keyword("indexing_maps") {
            return Err(p.error_here("expected 'indexing_maps' attribute"));
        }
        maps = Some(parse_maps_list(p)?);
    } else if p.parse_optional_keyword("indexing_maps") {
        maps = Some(parse_maps_list(p)?);
    }
    let at = p.current_span();
    let (ins, outs) = parse_ins_outs(p, st)?;
    st.result_types = p.parse_optional_arrow_type_list()?;
    let n = ins.len() + outs.len();
    let out_rank = outs.first().map_or(0, operand_rank);
    // Properties in MLIR's (sorted) order: indexing_maps, kind, operandSegmentSizes.
    let maps = maps.or_else(|| default_maps(kind, out_rank, n).map(maps_attr));
    let kind_attr = st.props.remove("kind");
    if let Some(a) = maps {
        st.props.set("indexing_maps", a);
    }
    if let Some(k) = kind_attr {
        st.props.set("kind", k);
    }
    st.props.set(SEGMENTS, segments(ins.len(), outs.len()));
    let r = match ew {
        Some((arity, step)) => {
            check_region_args(p, arity + 1, n)?;
            let y = (arity + 1) as u8;
            build_region(p, &ins, &outs, &[step], &[y], false, at)?
        }
        None => {
            check_region_args(p, 3, n)?;
            build_region(p, &ins, &outs, MUL_ACC, &[6], is_unsigned_cast(st), at)?
        }
    };
    st.regions.push(r);
    Ok(())
}

fn print_maps_list(p: &mut Printer<'_>, v: &[Attribute]) {
    p.write(" indexing_maps = [");
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            p.write(", ");
        }
        p.print_attr(x);
    }
    p.write("]");
}

fn print_hand(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let Some(kind) = hand(&d.name) else {
        return false;
    };
    let Some((ins, outs)) = split_operands(m, op) else {
        return false;
    };
    if kind == Hand::Elementwise {
        match d.props.get("kind") {
            Some(k) if elementwise_body(k).is_some() => {
                p.write(" kind=");
                p.print_attr(k);
            }
            _ => return false,
        }
    }
    let out_rank = outs.first().map_or(0, |&v| operand_rank(m.value_type(v)));
    let dflt = default_maps(kind, out_rank, ins.len() + outs.len()).map(maps_attr);
    match d.props.get("indexing_maps") {
        Some(a) if Some(a) != dflt.as_ref() => {
            // The custom form re-parses only affine maps here.
            let Attribute::Array(v) = a else {
                return false;
            };
            if !v.iter().all(|x| matches!(x, Attribute::AffineMap(_))) {
                return false;
            }
            print_maps_list(p, v);
        }
        Some(_) => {}
        None => return false,
    }
    print_named_tail(p, op, &[SEGMENTS, MEMOIZED, "indexing_maps", "kind"])
}

/// The rank checks MLIR's `verifyStructuredOpInterface` does with the indexing maps.
fn verify_map_ranks(
    m: &Module,
    all: impl Iterator<Item = ValueId>,
    ranks: impl Iterator<Item = usize>,
) -> Result<(), String> {
    for (i, (v, want)) in all.zip(ranks).enumerate() {
        let rank = operand_rank(m.value_type(v));
        if rank != want {
            return Err(format!(
                "expected operand rank ({rank}) to match the result rank of indexing_map #{i} ({want})"
            ));
        }
    }
    Ok(())
}

fn verify_named(m: &Module, op: OpId) -> Result<(), String> {
    let (ins, outs) = verify_structured_impl(m, op, true)?;
    let d = m.op(op);
    let Some(named) = linalg_named::lookup_ident(&d.name) else {
        return Ok(());
    };
    if let Attrs::Window(n) = named.attrs {
        for a in ["strides", "dilations"] {
            let Some(v) = inherent(d, a) else { continue };
            let Attribute::Elements { ty, .. } = v else {
                return Err(format!("attribute '{a}' failed to satisfy constraint: 64-bit signless int elements attribute of shape [{n}]"));
            };
            if ty.element_type() != Some(&Type::int(64)) {
                return Err(format!("incorrect element type for index attribute '{a}'"));
            }
            if ty.shape() != Some(&[i64::from(n)]) {
                return Err(format!("incorrect shape for index attribute '{a}'"));
            }
        }
    }
    // Inputs then outputs, as one slice.
    let all = &m.operands(op)[..ins.len() + outs.len()];
    if let Some(Attribute::Array(list)) = d.attrs.get(MEMOIZED) {
        let maps = affine_maps(list);
        if maps.len() == list.len() && !maps.is_empty() {
            return verify_memoized(m, &d.name, all, &maps);
        }
    }
    if named.maps.is_empty() {
        // Element-wise: scalars get `() -> ()`, everything else the identity of the init's
        // rank.
        let loops = outs.first().map_or(0, |&v| operand_rank(m.value_type(v)));
        for (i, &v) in all.iter().enumerate() {
            let rank = operand_rank(m.value_type(v));
            if rank != 0 && rank != loops {
                return Err(format!(
                    "expected operand rank ({rank}) to match the result rank of indexing_map #{i} ({loops})"
                ));
            }
        }
        return verify_elementwise_shapes(m, all);
    }
    let all = || all.iter().copied();
    verify_map_ranks(m, all(), named.maps.iter().map(|r| r.len()))?;
    let all: Vec<ValueId> = all().collect();
    let ranks: Vec<usize> = all.iter().map(|&v| operand_rank(m.value_type(v))).collect();
    match linalg_named::indexing_maps(named, &d.props, &ranks) {
        Some(maps) => verify_static_shapes(m, &all, &maps.iter().collect::<Vec<_>>()),
        None => Ok(()),
    }
}

/// A named op carrying `linalg.memoized_indexing_maps`: MLIR's generated `getIndexingMaps`
/// returns that array when it is present, so the structured-op checks (map count, loops,
/// operand ranks, static shapes) run on it, and for convolutions and poolings (first, as in
/// MLIR) the `ConvolutionOpInterface` checks that memplan models (`isConvolutionInterfaceImpl`: input
/// map results each a loop or a sum of two loops, each loop alone or times a constant or
/// symbol, no loop twice; filter and output maps projected permutations).
fn verify_memoized(
    m: &Module,
    name: &str,
    all: &[ValueId],
    maps: &[&AffineMap],
) -> Result<(), String> {
    // MLIR runs the ConvolutionOpInterface verifier before the structured-op one
    let conv = ["linalg.conv_", "linalg.depthwise_conv_", "linalg.pooling_"]
        .iter()
        .any(|p| name.starts_with(p));
    if conv && maps.len() == 3 {
        verify_conv_maps(maps)?;
    }
    if maps.len() != all.len() {
        return Err(format!(
            "expected the number of indexing_map ({}) to be equal to the number of input/output operands ({})",
            maps.len(),
            all.len()
        ));
    }
    let loops = maps[0].num_dims;
    for (i, map) in maps.iter().enumerate() {
        if map.num_symbols != 0 {
            return Err(format!("unexpected symbols in indexing_map #{i}"));
        }
        if map.num_dims != loops {
            return Err(format!(
                "expected indexing_map #{i} to have {loops} dim(s) to match the number of loops"
            ));
        }
    }
    verify_map_ranks(m, all.iter().copied(), maps.iter().map(|x| x.results.len()))?;
    verify_static_shapes(m, all, maps)
}

/// The input / filter / output map shapes `isConvolutionInterfaceImpl` requires (see
/// [`verify_memoized`]).
fn verify_conv_maps(maps: &[&AffineMap]) -> Result<(), String> {
    let mut seen = std::collections::BTreeSet::new();
    // a loop alone or times a constant / symbol, used once in the input map
    let mut convolved = |e: &AffineExpr| -> bool {
        let d = match e {
            AffineExpr::Dim(d) => *d,
            AffineExpr::Mul(a, b) => match (a.as_ref(), b.as_ref()) {
                (AffineExpr::Dim(d), AffineExpr::Const(_) | AffineExpr::Symbol(_))
                | (AffineExpr::Const(_) | AffineExpr::Symbol(_), AffineExpr::Dim(d)) => *d,
                _ => return false,
            },
            _ => return false,
        };
        seen.insert(d)
    };
    for e in &maps[0].results {
        let ok = match e {
            AffineExpr::Dim(_) => convolved(e),
            AffineExpr::Add(a, b) => {
                let l = convolved(a);
                let r = convolved(b);
                l && r
            }
            _ => false,
        };
        if !ok {
            return Err("unexpected input index map for convolutions".into());
        }
    }
    if !is_projected_permutation(maps[1]) || !is_projected_permutation(maps[2]) {
        return Err("expected output/filter indexing maps to be projected permutations".into());
    }
    Ok(())
}

fn verify_hand(m: &Module, op: OpId) -> Result<(), String> {
    let (ins, outs) = verify_structured_impl(m, op, true)?;
    let d = m.op(op);
    let Some(Attribute::Array(maps)) = inherent(d, "indexing_maps") else {
        return Err("requires attribute 'indexing_maps'".into());
    };
    let all: Vec<ValueId> = ins.iter().chain(outs).copied().collect();
    if maps.len() != all.len() {
        return Err(format!(
            "expected the number of indexing_map ({}) to be equal to the number of input/output operands ({})",
            maps.len(),
            all.len()
        ));
    }
    let maps = affine_maps(maps);
    if maps.len() != all.len() {
        return Err("expected indexing_maps to hold affine maps".into());
    }
    let loops = maps.first().map_or(0, |m| m.num_dims);
    for (i, map) in maps.iter().enumerate() {
        if map.num_symbols != 0 {
            return Err(format!("unexpected symbols in indexing_map #{i}"));
        }
        if map.num_dims != loops {
            return Err(format!(
                "expected indexing_map #{i} to have {loops} dim(s) to match the number of loops"
            ));
        }
    }
    let kind = hand(d.name.as_str());
    if kind == Some(Hand::Contract) {
        verify_contract_maps(&maps)?;
    } else if kind != Some(Hand::Elementwise) {
        let matmul_family = matches!(
            d.name.as_str(),
            "linalg.matmul" | "linalg.batch_matmul" | "linalg.batch_reduce_matmul"
        );
        match d.name.as_str() {
            "linalg.batch_matmul" => verify_batch_matmul_maps(&maps, false)?,
            "linalg.batch_reduce_matmul" => verify_batch_matmul_maps(&maps, true)?,
            _ => {
                // matmul: user maps of the inputs index by loops alone.
                for map in maps.iter().take(ins.len()) {
                    if map.results.iter().any(|e| !matches!(e, AffineExpr::Dim(_))) {
                        return Err("Unexpected dim expression in map result.".into());
                    }
                }
                if d.name == "linalg.matmul" {
                    verify_matmul_maps(&maps)?;
                }
            }
        }
        // the matmul family's maps (output included) are projected permutations
        if matmul_family && !maps.iter().all(|m| is_projected_permutation(m)) {
            return Err("expected indexing maps to be projected permutations".into());
        }
    }
    verify_hand_ranks(m, &all, &maps)?;
    verify_static_shapes(m, &all, &maps)
}

/// `MatmulOp::verify` with user maps (`verifyExtendedMatmulSemantic` for A and B): every
/// result of an input map is one of the default map's results (`A: (d0, d2)`,
/// `B: (d2, d1)`), and a map with fewer results (a broadcast) keeps only the reduction
/// loop, the last dim.
fn verify_matmul_maps(maps: &[&AffineMap]) -> Result<(), String> {
    for (map, default) in maps.iter().zip([[0u32, 2], [2, 1]]) {
        let in_default = |e: &AffineExpr| matches!(e, AffineExpr::Dim(k) if default.contains(k));
        if !map.results.iter().all(in_default) {
            return Err("Unexpected dim expression in map result.".into());
        }
        // MLIR asserts a single result here; an empty map is left alone
        if map.results.len() == 1 {
            let last = map.num_dims.checked_sub(1);
            if !matches!(map.results[0], AffineExpr::Dim(k) if Some(k) == last) {
                return Err("Invalid broadcast requested, should be (d2).".into());
            }
        }
    }
    Ok(())
}

/// Whether every result of `map` is a distinct loop (`AffineMap::isProjectedPermutation`).
fn is_projected_permutation(map: &AffineMap) -> bool {
    let mut used = std::collections::BTreeSet::new();
    map.results
        .iter()
        .all(|e| matches!(e, AffineExpr::Dim(d) if used.insert(*d)))
}

/// Whether affine expression `e` involves loop `d` (MLIR's `AffineExpr::isFunctionOfDim`).
fn uses_dim(e: &AffineExpr, d: u32) -> bool {
    match e {
        AffineExpr::Dim(k) => *k == d,
        AffineExpr::Symbol(_) | AffineExpr::Const(_) => false,
        AffineExpr::Add(a, b)
        | AffineExpr::Mul(a, b)
        | AffineExpr::Mod(a, b)
        | AffineExpr::FloorDiv(a, b)
        | AffineExpr::CeilDiv(a, b) => uses_dim(a, d) || uses_dim(b, d),
    }
}

/// `BatchMatmulOp::verify` / `BatchReduceMatmulOp::verify` with user maps
/// (`verifyExtendedBatchVariantMatmulSemantic`), loops `(batch, m, n, k)`: each input map's
/// results are among its default map's (`A: (d0, d1, d3)`, `B: (d0, d3, d2)`), at most 3; a
/// map with fewer results is a broadcast (`A`: `(k)`, `(m, k)` or `(batch, k)`, `B`: `(k)`,
/// `(batch, k)` or `(k, n)`), a full one starts with the batch loop; the output map has 3 results over `(batch, m, n)` (2
/// over `(m, n)` for the reduce variant), in that order.
fn verify_batch_matmul_maps(maps: &[&AffineMap], reduce: bool) -> Result<(), String> {
    const BATCH: u32 = 0;
    const M: u32 = 1;
    const N: u32 = 2;
    const K: u32 = 3;
    for (i, (map, default)) in maps.iter().zip([[BATCH, M, K], [BATCH, K, N]]).enumerate() {
        let in_default = |e: &AffineExpr| matches!(e, AffineExpr::Dim(k) if default.contains(k));
        if !map.results.iter().all(in_default) {
            return Err(
                "Unexpected result dim expression (outside the set of default result dims).".into(),
            );
        }
        let r = &map.results;
        if r.len() > 3 {
            return Err("no. of result dim expressions exceeds 3.".into());
        }
        if r.len() < 3 {
            let valid = match r.len() {
                1 => uses_dim(&r[0], K),
                2 if i == 0 => (uses_dim(&r[0], BATCH) || uses_dim(&r[0], M)) && uses_dim(&r[1], K),
                2 => {
                    (uses_dim(&r[0], BATCH) && uses_dim(&r[1], K))
                        || (uses_dim(&r[0], K) && uses_dim(&r[1], N))
                }
                _ => false,
            };
            if !valid {
                return Err("Invalid broadcast requested.".into());
            }
        } else if !uses_dim(&r[0], BATCH) {
            return Err("Invalid batch dimension expression.".into());
        }
    }
    let Some(out) = maps.get(2) else {
        return Ok(());
    };
    let want: &[u32] = if reduce { &[M, N] } else { &[BATCH, M, N] };
    if out.results.len() != want.len() {
        return Err(format!(
            "expects {} dims, but got ({}).",
            want.len(),
            out.results.len()
        ));
    }
    if !out.results.iter().zip(want).all(|(e, &d)| uses_dim(e, d)) {
        return Err("Invalid output map result dimension.".into());
    }
    Ok(())
}

/// The rank check of the hand-written ops (MLIR words it differently from the OpDSL ops').
fn verify_hand_ranks(m: &Module, all: &[ValueId], maps: &[&AffineMap]) -> Result<(), String> {
    for (i, (&v, map)) in all.iter().zip(maps).enumerate() {
        let rank = operand_rank(m.value_type(v));
        if rank != map.results.len() {
            return Err(format!(
                "expected operand #{i} rank ({rank}) to match the result rank of indexing_map ({})",
                map.results.len()
            ));
        }
    }
    Ok(())
}

/// `linalg.contract`'s own rules: projected permutations over one iteration space, every
/// loop either parallel (in the output) or contracting (in both inputs, not the output), and
/// at least one contracting loop.
fn verify_contract_maps(maps: &[&AffineMap]) -> Result<(), String> {
    let loops = maps.first().map_or(0, |m| m.num_dims as usize);
    let mut ins = vec![0usize; loops];
    let mut outs = vec![0usize; loops];
    for (i, map) in maps.iter().enumerate() {
        let mut seen = vec![false; loops];
        for e in &map.results {
            let AffineExpr::Dim(d) = e else {
                return Err("provided affine_map is not a projected permutation".into());
            };
            let d = *d as usize;
            if d >= loops || seen[d] {
                return Err("provided affine_map is not a projected permutation".into());
            }
            seen[d] = true;
            if i < 2 {
                ins[d] += 1;
            } else {
                outs[d] += 1;
            }
        }
    }
    let mut contracting = false;
    for d in 0..loops {
        contracting |= ins[d] == 2 && outs[d] == 0;
        if ins[d] == 0 && outs[d] == 0 {
            return Err(format!(
                "iteration space dim at index {d} not used to access any operand"
            ));
        }
        if ins[d] == 1 && outs[d] != 1 {
            return Err(format!(
                "iteration space dim at index {d} is neither a contracting dim nor of parallel iteration type"
            ));
        }
    }
    if !contracting {
        return Err(
            "'indexing_map' attribute must specify at least one contracting dimension".into(),
        );
    }
    Ok(())
}

// ===== transpose / broadcast =====

fn permuting_attr(name: &str) -> &'static str {
    PERMUTING
        .iter()
        .find(|x| x.0 == name)
        .map(|x| x.1)
        .unwrap_or("dimensions")
}

fn parse_i64_list(p: &mut Parser<'_>) -> PResult<Attribute> {
    let mut v = Vec::new();
    p.parse_comma_separated_list(Delimiter::Square, &mut |p| {
        v.push(p.parse_integer()?);
        Ok(())
    })?;
    Ok(Attribute::i64_array(&v))
}

fn print_i64_list(p: &mut Printer<'_>, name: &str, a: &Attribute) -> bool {
    let Some(v) = a.as_int_array() else {
        return false;
    };
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    p.write(&format!(" {name} = [{}] ", items.join(", ")));
    true
}

fn parse_permuting(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let (ins, outs) = parse_ins_outs(p, st)?;
    let attr = permuting_attr(&st.name);
    p.parse_keyword(attr)?;
    p.parse_equal()?;
    let a = parse_i64_list(p)?;
    st.props.set(attr, a);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    st.result_types = tensor_results(&outs);
    let at = p.current_span();
    let r = build_region(p, &ins, &outs, &[], &[0], false, at)?;
    st.regions.push(r);
    Ok(())
}

fn print_permuting(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let attr = permuting_attr(&d.name);
    let Some((ins, outs)) = split_operands(m, op) else {
        return false;
    };
    let Some(a) = d.props.get(attr) else {
        return false;
    };
    let out_tys: Vec<Type> = outs.iter().map(|&v| m.value_type(v).clone()).collect();
    let res: Vec<Type> = m
        .results(op)
        .iter()
        .map(|&r| m.value_type(r).clone())
        .collect();
    if res != tensor_results(&out_tys) {
        return false;
    }
    print_ins_outs(p, ins, outs);
    if !print_i64_list(p, attr, a) {
        return false;
    }
    let extra = merged_attrs(m, op, &[attr]);
    p.print_optional_attr_dict(&extra, &[]);
    true
}

// ===== generic =====

fn parse_generic(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let at = p.current_span();
    let Attribute::Dict(traits_dict) = p.parse_attribute()? else {
        return Err(Diagnostic::new(at, "expected attribute dictionary"));
    };
    for n in traits_dict.0 {
        if n.name == "iterator_types" {
            let Attribute::Array(items) = &n.value else {
                return Err(Diagnostic::new(at, "expected array of iterator types"));
            };
            let mut conv = Vec::new();
            for it in items {
                let s = match it {
                    Attribute::String { .. } => it.as_str().unwrap_or("").to_string(),
                    Attribute::Opaque(t) => t
                        .strip_prefix(ITER_PREFIX)
                        .and_then(|x| x.strip_suffix('>'))
                        .unwrap_or("")
                        .to_string(),
                    _ => String::new(),
                };
                if s != "parallel" && s != "reduction" {
                    return Err(Diagnostic::new(
                        at,
                        format!("unexpected iterator_type ({s})"),
                    ));
                }
                conv.push(Attribute::Opaque(format!("{ITER_PREFIX}{s}>")));
            }
            st.props.set(n.name, Attribute::Array(conv));
        } else if GENERIC_TRAIT.contains(&n.name.as_str()) {
            st.props.set(n.name, n.value);
        } else {
            st.attrs.set(n.name, n.value);
        }
    }
    let (ins, outs) = parse_ins_outs(p, st)?;
    st.props.set(SEGMENTS, segments(ins.len(), outs.len()));
    if p.parse_optional_keyword("attrs") {
        p.parse_equal()?;
        p.parse_optional_attr_dict(&mut st.attrs)?;
    }
    let r = p.parse_region(&[])?;
    st.regions.push(r);
    st.result_types = p.parse_optional_arrow_type_list()?;
    Ok(())
}

fn print_generic(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let Some((ins, outs)) = split_operands(m, op) else {
        return false;
    };
    if m.regions(op).len() != 1 {
        return false;
    }
    let mut trait_dict = Dict::new();
    for &k in GENERIC_TRAIT {
        let Some(a) = d.props.get(k) else { continue };
        if k == "iterator_types" {
            let Attribute::Array(items) = a else {
                return false;
            };
            let mut strs = Vec::new();
            for it in items {
                let Attribute::Opaque(t) = it else {
                    return false;
                };
                let Some(s) = t
                    .strip_prefix(ITER_PREFIX)
                    .and_then(|x| x.strip_suffix('>'))
                    .filter(|x| ITERATOR_TYPES.contains(x))
                else {
                    return false;
                };
                strs.push(Attribute::string(s));
            }
            trait_dict.set(k, Attribute::Array(strs));
        } else {
            trait_dict.set(k, a.clone());
        }
    }
    if !trait_dict.is_empty() {
        p.write(" ");
        p.print_attr(&Attribute::Dict(trait_dict));
    }
    print_ins_outs(p, ins, outs);
    let mut elided: Vec<&str> = GENERIC_TRAIT.to_vec();
    elided.push(SEGMENTS);
    let extra = merged_attrs(m, op, &elided);
    if !extra.is_empty() {
        p.write(" attrs = ");
        p.print_optional_attr_dict(&extra, &[]);
    }
    p.write(" ");
    p.print_region(m.regions(op)[0], true, true);
    print_arrow_results(p, op);
    true
}

// ===== map / reduce =====

/// `{ arith.addf {attrs} }`: the payload op name and its attributes.
fn parse_short_form(p: &mut Parser<'_>) -> PResult<Option<(String, Dict)>> {
    if !p.at(Tok::LBrace) {
        return Ok(None);
    }
    p.bump();
    let name = p.parse_keyword_any("payload operation name")?.to_string();
    let mut attrs = Dict::new();
    p.parse_optional_attr_dict(&mut attrs)?;
    p.expect(Tok::RBrace, "'}'")?;
    Ok(Some((name, attrs)))
}

fn parse_map_reduce(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let reduce = st.name == "linalg.reduce";
    let short = parse_short_form(p)?;
    let (ins, outs) = parse_ins_outs(p, st)?;
    if reduce {
        p.parse_keyword("dimensions")?;
        p.parse_equal()?;
        let a = parse_i64_list(p)?;
        st.props.set("dimensions", a);
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    st.result_types = tensor_results(&outs);
    let r = match short {
        Some((name, attrs)) => {
            let def = p.registry().get(&name);
            let inh = def.map(|d| d.inherent).unwrap_or(&[]);
            let op_name: Ident = def.map_or_else(|| name.clone().into(), |d| d.name.into());
            let m = p.module_mut();
            let r = m.create_region();
            let b = m.create_block();
            m.append_block(r, b);
            let args: Vec<ValueId> = ins
                .iter()
                .chain(&outs)
                .map(|t| m.add_block_arg(b, elem_or_self(t), None))
                .collect();
            let operands: Vec<ValueId> = if reduce {
                args.last()
                    .copied()
                    .into_iter()
                    .chain(args[..args.len().saturating_sub(1)].iter().copied())
                    .collect()
            } else {
                args[..args.len().saturating_sub(1)].to_vec()
            };
            let out_ty = outs.last().map(elem_or_self).unwrap_or_else(Type::none);
            let mut props = default_props(&name);
            let mut discardable = Dict::new();
            for n in attrs.0 {
                if inh.contains(&n.name.as_str()) {
                    props.set(n.name, n.value);
                } else {
                    discardable.set(n.name, n.value);
                }
            }
            let mut bb = BodyBuilder { m, b };
            let v = bb.op(op_name, &operands, out_ty, props);
            let o = bb.m.defining_op(v);
            if let Some(o) = o {
                bb.m.op_mut(o).attrs = discardable;
            }
            bb.yield_(&[v]);
            r
        }
        None => {
            let args = p.parse_argument_list(Delimiter::Paren, true, false)?;
            p.parse_region(&args)?
        }
    };
    st.regions.push(r);
    Ok(())
}

/// The single payload op of a map/reduce body when the short form can express it.
fn short_form_payload(m: &Module, op: OpId, reduce: bool) -> Option<OpId> {
    let r = *m.regions(op).first()?;
    let [b] = m.region_blocks(r) else {
        return None;
    };
    let ops: Vec<OpId> = m.block_ops(*b).collect();
    let [payload, y] = ops[..] else {
        return None;
    };
    let args = m.block_args(*b);
    let n = args.len();
    if n == 0 || m.op(y).name != "linalg.yield" {
        return None;
    }
    let expect: Vec<ValueId> = if reduce {
        std::iter::once(args[n - 1])
            .chain(args[..n - 1].iter().copied())
            .collect()
    } else {
        args[..n - 1].to_vec()
    };
    let pd = m.op(payload);
    if expect.is_empty()
        || m.operands(payload) != expect.as_slice()
        || m.results(payload).len() != 1
        || m.operands(y) != m.results(payload)
        || !m.regions(payload).is_empty()
        || !pd.successors.is_empty()
        || *m.value_type(m.result(payload, 0)) != *m.value_type(args[n - 1])
        || !pd.name.contains('.')
    {
        return None;
    }
    Some(payload)
}

fn print_map_reduce(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let reduce = d.name == "linalg.reduce";
    let Some((ins, outs)) = split_operands(m, op) else {
        return false;
    };
    if m.regions(op).len() != 1 {
        return false;
    }
    let out_tys: Vec<Type> = outs.iter().map(|&v| m.value_type(v).clone()).collect();
    let res: Vec<Type> = m
        .results(op)
        .iter()
        .map(|&r| m.value_type(r).clone())
        .collect();
    if res != tensor_results(&out_tys) {
        return false;
    }
    let payload = short_form_payload(m, op, reduce);
    if let Some(po) = payload {
        let pd = m.op(po);
        p.write(" { ");
        p.write(&pd.name);
        let mut elide: Vec<&str> = Vec::new();
        if pd.props.get("fastmath") == Some(&fastmath_none()) {
            elide.push("fastmath");
        }
        let all = merged_attrs(m, po, &[]);
        p.print_optional_attr_dict(&all, &elide);
        p.write(" }");
    }
    print_ins_outs(p, ins, outs);
    let mut elided = Vec::new();
    if reduce {
        let Some(a) = d.props.get("dimensions") else {
            return false;
        };
        if !print_i64_list(p, "dimensions", a) {
            return false;
        }
        elided.push("dimensions");
    }
    let extra = merged_attrs(m, op, &elided);
    p.print_optional_attr_dict(&extra, &[]);
    if payload.is_none() {
        let r = m.regions(op)[0];
        let Some(b) = m.entry_block(r) else {
            return false;
        };
        p.print_newline();
        p.write("  (");
        for (i, &a) in m.block_args(b).iter().enumerate() {
            if i > 0 {
                p.write(", ");
            }
            p.print_arg_decl(a);
        }
        p.write(") ");
        p.print_region(r, false, true);
    }
    true
}

// ===== yield / index =====

fn parse_yield(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let at = p.current_span();
    let ops = p.parse_operand_list()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    if !ops.is_empty() {
        let tys = p.parse_colon_type_list()?;
        st.operands = p.resolve_operands(&ops, &tys, at)?;
    }
    Ok(())
}

fn print_yield(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    if !ops.is_empty() {
        p.write(" ");
        p.print_operands(ops);
    }
    p.print_optional_attr_dict(&m.op(op).attrs, &[]);
    if !ops.is_empty() {
        p.write(" : ");
        p.print_value_types(ops);
    }
    true
}

fn parse_index(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let at = p.current_span();
    let Some(dim) = p.parse_optional_integer()? else {
        return Err(Diagnostic::new(at, "expected integer value"));
    };
    st.props
        .set("dim", Attribute::int(i128::from(dim), Type::int(64)));
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    st.result_types.push(t);
    Ok(())
}

fn print_index(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let Some(dim) = d.props.get("dim").and_then(Attribute::as_int) else {
        return false;
    };
    if m.results(op).len() != 1 || !m.operands(op).is_empty() {
        return false;
    }
    p.write(&format!(" {dim}"));
    p.print_optional_attr_dict(&d.attrs, &[]);
    p.write(" : ");
    p.print_type(m.value_type(m.result(op, 0)));
    true
}

// ===== verification =====

/// The loop count of a structured op when it can be read off cheaply.
fn num_loops(m: &Module, op: OpId) -> Option<usize> {
    let d = m.op(op);
    if let Some(Attribute::Array(it)) = inherent(d, "iterator_types") {
        return Some(it.len());
    }
    if let Some(Attribute::Array(maps)) = inherent(d, "indexing_maps") {
        if let Some(Attribute::AffineMap(a)) = maps.first() {
            return Some(a.num_dims as usize);
        }
    }
    let (ins, outs) = split_operands(m, op)?;
    if let Some(named) = linalg_named::lookup_ident(&d.name) {
        if !named.iterators.is_empty() {
            return Some(named.iterators.len());
        }
        return outs.first().map(|&v| operand_rank(m.value_type(v)));
    }
    match d.name.as_str() {
        "linalg.reduce" | "linalg.transpose" | "linalg.broadcast" => {
            ins.first().map(|&v| operand_rank(m.value_type(v)))
        }
        "linalg.map" | "linalg.fill" | "linalg.copy" => {
            outs.first().map(|&v| operand_rank(m.value_type(v)))
        }
        _ => None,
    }
}

fn verify_structured(m: &Module, op: OpId) -> Result<(), String> {
    verify_structured_impl(m, op, false).map(|_| ())
}

/// `TransposeOp::verify` / `BroadcastOp::verify` after the structured-op rules: the
/// permutation is one of the input's dims, ranks agree and each init dim equals the input dim
/// it comes from (broadcast: the init dims not listed in `dimensions`, in order). Sizes are
/// compared as written, `?` included, as MLIR compares them.
fn verify_permuting(m: &Module, op: OpId) -> Result<(), String> {
    let (ins, outs) = verify_structured_impl(m, op, false)?;
    let (Some(&input), Some(&init)) = (ins.first(), outs.first()) else {
        return Ok(());
    };
    let (Some(in_shape), Some(init_shape)) = (
        m.value_type(input).shape().map(<[i64]>::to_vec),
        m.value_type(init).shape().map(<[i64]>::to_vec),
    ) else {
        return Ok(());
    };
    let d = m.op(op);
    if d.name == "linalg.transpose" {
        let Some(perm) = inherent(d, "permutation").and_then(Attribute::as_int_array) else {
            return Ok(());
        };
        let n = perm.len() as i64;
        let mut seen = vec![false; perm.len()];
        for &x in perm.iter() {
            if x < 0 || x >= n || std::mem::replace(&mut seen[x as usize], true) {
                return Err("permutation is not valid".into());
            }
        }
        let rank = in_shape.len();
        if rank != init_shape.len() {
            return Err(format!(
                "input rank ({rank}) does not match init rank ({})",
                init_shape.len()
            ));
        }
        if rank != perm.len() {
            return Err(format!(
                "size of permutation {} does not match the argument rank {rank}",
                perm.len()
            ));
        }
        for (i, &p) in perm.iter().enumerate() {
            let (a, b) = (in_shape[p as usize], init_shape[i]);
            if a != b {
                return Err(format!(
                    "dim(result, {i}) = {b} doesn't match dim(input, permutation[{i}]) = {a}"
                ));
            }
        }
        return Ok(());
    }
    let Some(dims) = inherent(d, "dimensions").and_then(Attribute::as_int_array) else {
        return Ok(());
    };
    let (in_rank, init_rank) = (in_shape.len(), init_shape.len());
    if in_rank + dims.len() != init_rank {
        return Err(format!(
            "input rank plus added dimensions does not match init rank. input rank: {in_rank}, dimensions size: {}, init rank: {init_rank}",
            dims.len()
        ));
    }
    for (i, &x) in dims.iter().enumerate() {
        if x < 0 || x >= init_rank as i64 {
            return Err(format!(
                "dimension {i} is out of range. expected range: [0, {}], got: {x}",
                init_rank as i64 - 1
            ));
        }
    }
    let kept = (0..init_rank as i64).filter(|x| !dims.contains(x));
    for (i, j) in kept.enumerate() {
        let (a, b) = (in_shape[i], init_shape[j as usize]);
        if a != b {
            return Err(format!(
                "input dim {i} should match init dim {j}. input: {a}, init: {b}"
            ));
        }
    }
    Ok(())
}

/// `MapOp::verify` / `ReduceOp::verify`: the mapper's arity and argument types, equal
/// shapes of inputs and init (map); equal input shapes, equal init shapes, the reduced
/// dimensions in range and the init shape equal to the input shape without them (reduce).
fn verify_map_reduce(m: &Module, op: OpId) -> Result<(), String> {
    let (ins, outs) = verify_structured_impl(m, op, false)?;
    let ty = |v: &ValueId| m.value_type(*v);
    let shape = |v: &ValueId| ty(v).shape().map(<[i64]>::to_vec);
    let Some(b) = m.regions(op).first().and_then(|&r| m.entry_block(r)) else {
        return Ok(());
    };
    let args = m.block_args(b);
    if m.op(op).name == "linalg.map" {
        let Some(init) = outs.first() else {
            return Ok(());
        };
        if ins.len() + 1 != args.len() {
            return Err(format!(
                "expects number of operands to match the arity of mapper, but got: {} and {}",
                ins.len() + 1,
                args.len()
            ));
        }
        for (&a, v) in args.iter().zip(ins) {
            if let Some(e) = ty(v).element_type() {
                if e != m.value_type(a) {
                    return Err(format!(
                        "expected element type of input '{e}' to match bbArg type '{}'",
                        m.value_type(a)
                    ));
                }
            }
        }
        let Some(out) = shape(init) else {
            return Ok(());
        };
        for v in ins {
            if let Some(s) = shape(v).filter(|s| *s != out) {
                return Err(format!(
                    "expected shape of input ({}) to match shape of output ({})",
                    fmt_dims(&s),
                    fmt_dims(&out)
                ));
            }
        }
        return Ok(());
    }
    // linalg.reduce
    let (Some(in0), Some(init0)) = (ins.first(), outs.first()) else {
        return Ok(());
    };
    let (Some(in_shape), Some(init_shape)) = (shape(in0), shape(init0)) else {
        return Ok(());
    };
    for (i, v) in ins.iter().enumerate().skip(1) {
        if shape(v).is_some_and(|s| s != in_shape) {
            return Err(format!("expects all inputs to have the same shapes. Shape at input-index {i} is not equal to the shape at input-index 0."));
        }
    }
    for (i, v) in outs.iter().enumerate().skip(1) {
        if shape(v).is_some_and(|s| s != init_shape) {
            return Err(format!("expects all outputs to have the same shapes. Shape at output-index {i} is not equal to the shape at output-index 0."));
        }
    }
    let Some(dims) = inherent(m.op(op), "dimensions").and_then(Attribute::as_int_array) else {
        return Ok(());
    };
    let rank = in_shape.len() as i64;
    if dims.iter().any(|&d| d < 0 || d >= rank) {
        return Err(format!(
            "dimensions for reduction should be in the range [0, {}].",
            rank - 1
        ));
    }
    let kept: Vec<i64> = in_shape
        .iter()
        .enumerate()
        .filter(|(i, _)| !dims.contains(&(*i as i64)))
        .map(|(_, &d)| d)
        .collect();
    if kept.len() != init_shape.len() {
        return Err(format!(
            "number of dimensions after reduction {} doesn't match the init rank {}",
            kept.len(),
            init_shape.len()
        ));
    }
    if kept != init_shape {
        return Err(format!(
            "init dimensions [{}] doesn't match input dimensions after reduction [{}]",
            fmt_dims(&init_shape),
            fmt_dims(&kept)
        ));
    }
    if args.len() != m.operands(op).len() {
        return Err("mismatching number of operands and block arguments".into());
    }
    for (&a, v) in args.iter().zip(ins) {
        if let Some(e) = ty(v).element_type().filter(|e| *e != m.value_type(a)) {
            return Err(format!(
                "input element type '{e}' does not match corresponding block argument type '{}'",
                m.value_type(a)
            ));
        }
    }
    for (&a, v) in args[args.len() - outs.len()..].iter().zip(outs) {
        if let Some(e) = ty(v).element_type().filter(|e| *e != m.value_type(a)) {
            return Err(format!(
                "output element type '{e}' does not match corresponding block argument type '{}'",
                m.value_type(a)
            ));
        }
    }
    Ok(())
}

/// `4, ?, 8` (MLIR prints a dynamic size as its sentinel value; `?` reads better).
fn fmt_dims(s: &[i64]) -> String {
    s.iter()
        .map(|&d| {
            if d == crate::types::DYNAMIC {
                "?".to_string()
            } else {
                d.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The (inputs, outputs) of a verified structured op.
type InsOuts<'m> = (&'m [ValueId], &'m [ValueId]);

/// The checks common to structured ops; `implicit_body`: the op is a named op whose body
/// the parser builds (its block arguments are checked like `linalg.generic`'s).
fn verify_structured_impl(
    m: &Module,
    op: OpId,
    implicit_body: bool,
) -> Result<InsOuts<'_>, String> {
    let d = m.op(op);
    let regions = m.regions(op);
    if regions.len() != 1 || m.region_blocks(regions[0]).len() != 1 {
        return Err("expects to have 1 region with 1 block".into());
    }
    let Some((ins, outs)) = split_operands(m, op) else {
        return Err("operand segments do not match the operand count".into());
    };
    // LinalgOp interface: tensors and memrefs are not mixed (scalars aside).
    let kinds = ins.iter().chain(outs).map(|&v| m.value_type(v));
    let (mut tensors, mut memrefs) = (false, false);
    for t in kinds {
        tensors |= matches!(
            t.kind(),
            TypeKind::RankedTensor { .. } | TypeKind::UnrankedTensor { .. }
        );
        memrefs |= matches!(
            t.kind(),
            TypeKind::MemRef { .. } | TypeKind::UnrankedMemRef { .. }
        );
    }
    if tensors && memrefs {
        return Err("expected to have pure tensor or buffer semantics".into());
    }
    if let Some(a) = inherent(d, "indexing_maps") {
        let Attribute::Array(maps) = a else {
            return Err("'indexing_maps' must be an array of affine maps".into());
        };
        if let Some(i) = maps
            .iter()
            .position(|x| !matches!(x, Attribute::AffineMap(_)))
        {
            return Err(format!("expected indexing_map #{i} to be an affine map"));
        }
    }
    for (k, &v) in outs.iter().enumerate() {
        let t = m.value_type(v);
        if !is_tensor_or_memref(t) {
            return Err(format!(
                "expected init operand #{k} to be a ranked tensor or memref, but got '{t}'"
            ));
        }
    }
    let tensor_outs: Vec<(usize, &Type)> = outs
        .iter()
        .enumerate()
        .map(|(k, &v)| (ins.len() + k, m.value_type(v)))
        .filter(|(_, t)| is_tensor(t))
        .collect();
    if tensor_outs.len() != m.results(op).len() {
        return Err(format!(
            "expected the number of tensor results ({}) to be equal to the number of output tensors ({})",
            m.results(op).len(),
            tensor_outs.len()
        ));
    }
    for ((k, t), &r) in tensor_outs.iter().zip(m.results(op)) {
        let rt = m.value_type(r);
        if rt != *t {
            return Err(format!(
                "expected type of operand #{k} ('{t}') to match type of corresponding result ('{rt}')"
            ));
        }
    }
    let b = m.region_blocks(regions[0])[0];
    let args = m.block_args(b);
    let n_all = ins.len() + outs.len();
    let generic = d.name == "linalg.generic";
    if generic || implicit_body || d.name == "linalg.reduce" {
        if args.len() != n_all {
            return Err(format!(
                "expected as many non-induction variable region arguments as the number of input/output operands ({} vs {})",
                args.len(),
                n_all
            ));
        }
        if generic || implicit_body {
            for (i, (&a, &v)) in args.iter().zip(ins.iter().chain(outs)).enumerate() {
                let want = elem_or_self_ref(m.value_type(v));
                let got = m.value_type(a);
                if got != want {
                    return Err(format!(
                        "expected type of bb argument #{i} ('{got}') to match element or self type of the corresponding operand ('{want}')"
                    ));
                }
            }
        }
    }
    if generic {
        let all: Vec<ValueId> = ins.iter().chain(outs).copied().collect();
        verify_generic_maps(m, op, &all)?;
        if let Some(Attribute::Array(maps)) = inherent(d, "indexing_maps") {
            let maps: Vec<&AffineMap> = maps
                .iter()
                .filter_map(|a| match a {
                    Attribute::AffineMap(map) => Some(map),
                    _ => None,
                })
                .collect();
            verify_static_shapes(m, &all, &maps)?;
        }
    }
    Ok((ins, outs))
}

/// Static shape of a structured op's operand (`[]` for scalars).
fn static_shape(t: &Type) -> &[i64] {
    match t.kind() {
        TypeKind::RankedTensor { shape, .. } | TypeKind::MemRef { shape, .. } => shape,
        _ => &[],
    }
}

/// The value of an affine expression at a point (`None` on symbols or division by zero).
fn eval_affine(e: &AffineExpr, at: &[i64]) -> Option<i64> {
    Some(match e {
        AffineExpr::Dim(d) => *at.get(*d as usize)?,
        AffineExpr::Symbol(_) => return None,
        AffineExpr::Const(c) => *c,
        AffineExpr::Add(a, b) => eval_affine(a, at)?.checked_add(eval_affine(b, at)?)?,
        AffineExpr::Mul(a, b) => eval_affine(a, at)?.checked_mul(eval_affine(b, at)?)?,
        AffineExpr::Mod(a, b) => eval_affine(a, at)?.checked_rem_euclid(eval_affine(b, at)?)?,
        AffineExpr::FloorDiv(a, b) => {
            let (x, y) = (eval_affine(a, at)?, eval_affine(b, at)?);
            if y == 0 {
                return None;
            }
            x.div_euclid(y) - i64::from(y < 0 && x.rem_euclid(y) != 0)
        }
        AffineExpr::CeilDiv(a, b) => {
            let (x, y) = (eval_affine(a, at)?, eval_affine(b, at)?);
            if y == 0 {
                return None;
            }
            -((-x).div_euclid(y) - i64::from(y < 0 && (-x).rem_euclid(y) != 0))
        }
    })
}

/// MLIR's static shape check of structured ops (`verifyStructuredOpInterface`): every loop
/// must be some map result on its own (else the maps are non-invertible); the loop
/// ranges come from the first operand dimension indexed by each loop alone; when all are
/// static, every static non-zero operand dimension must equal (pure loop index) or hold (any
/// other expression) the range of its indexing expression.
fn verify_static_shapes(m: &Module, all: &[ValueId], maps: &[&AffineMap]) -> Result<(), String> {
    let Some(loops) = maps.first().map(|m| m.num_dims as usize) else {
        return Ok(());
    };
    // `getShapesToLoopsMap`: the maps' results, concatenated, must hold each loop alone
    // somewhere (`inversePermutation` of the loops-to-shapes map); no loops is fine.
    let concat: Vec<AffineExpr> = maps
        .iter()
        .flat_map(|m| m.results.iter().cloned())
        .collect();
    let bare = |d: usize| {
        concat
            .iter()
            .any(|e| matches!(e, AffineExpr::Dim(k) if *k as usize == d))
    };
    if !(0..loops).all(bare) {
        let whole = AffineMap {
            num_dims: loops as u32,
            num_symbols: 0,
            results: concat,
        };
        return Err(format!(
            "invalid indexing maps are non-invertible: ({whole})"
        ));
    }
    let mut ranges: Vec<Option<i64>> = vec![None; loops];
    for (&v, map) in all.iter().zip(maps) {
        let shape = static_shape(m.value_type(v));
        for (k, e) in map.results.iter().enumerate() {
            if let (AffineExpr::Dim(d), Some(&size)) = (e, shape.get(k)) {
                if let Some(r) = ranges.get_mut(*d as usize) {
                    r.get_or_insert(size);
                }
            }
        }
    }
    let Some(end) = ranges
        .iter()
        .map(|r| r.filter(|&x| x != crate::DYNAMIC).map(|x| x - 1))
        .collect::<Option<Vec<i64>>>()
    else {
        return Ok(());
    };
    let start = vec![0; loops];
    for (i, (&v, map)) in all.iter().zip(maps).enumerate() {
        let shape = static_shape(m.value_type(v));
        for (k, (e, &size)) in map.results.iter().zip(shape).enumerate() {
            if size == crate::DYNAMIC || size == 0 {
                continue;
            }
            let (Some(a), Some(b)) = (eval_affine(e, &start), eval_affine(e, &end)) else {
                continue;
            };
            if a.min(b) < 0 {
                return Err(format!(
                    "unexpected result less than 0 at expression #{k} in {map}"
                ));
            }
            let inferred = a.max(b) + 1;
            if matches!(e, AffineExpr::Dim(_)) {
                if inferred != size {
                    return Err(format!(
                        "inferred input/output operand #{i} has shape's dimension #{k} to be {inferred}, but found {size}"
                    ));
                }
            } else if inferred > size {
                return Err(format!(
                    "inferred input/output operand #{i} has shape's dimension #{k} to be greater than or equal to {inferred}, but found {size}"
                ));
            }
        }
    }
    Ok(())
}

/// [`verify_static_shapes`] for element-wise ops (identity maps over the first shaped
/// operand's rank, scalars `() -> ()`), without building the maps.
fn verify_elementwise_shapes(m: &Module, all: &[ValueId]) -> Result<(), String> {
    let Some(ranges) = all
        .iter()
        .map(|&v| static_shape(m.value_type(v)))
        .find(|s| !s.is_empty())
    else {
        return Ok(());
    };
    if ranges.contains(&crate::DYNAMIC) {
        return Ok(());
    }
    for (i, &v) in all.iter().enumerate() {
        let shape = static_shape(m.value_type(v));
        for (k, (&size, &range)) in shape.iter().zip(ranges).enumerate() {
            if size == crate::DYNAMIC || size == 0 {
                continue;
            }
            if range == 0 {
                return Err(format!(
                    "unexpected result less than 0 at expression #{k} in {}",
                    AffineMap::identity(ranges.len() as u32)
                ));
            }
            if size != range {
                return Err(format!(
                    "inferred input/output operand #{i} has shape's dimension #{k} to be {range}, but found {size}"
                ));
            }
        }
    }
    Ok(())
}

fn verify_generic_maps(m: &Module, op: OpId, all: &[ValueId]) -> Result<(), String> {
    let d = m.op(op);
    let Some(Attribute::Array(maps)) = inherent(d, "indexing_maps") else {
        return Err("requires attribute 'indexing_maps'".into());
    };
    let Some(Attribute::Array(iters)) = inherent(d, "iterator_types") else {
        return Err("requires attribute 'iterator_types'".into());
    };
    for it in iters {
        let known = matches!(it, Attribute::Opaque(t) if t
            .strip_prefix(ITER_PREFIX)
            .and_then(|x| x.strip_suffix('>'))
            .is_some_and(|x| ITERATOR_TYPES.contains(&x)));
        if !known {
            return Err(format!(
                "expected iterator_types to hold #linalg.iterator_type<parallel> or <reduction>, got {}",
                it
            ));
        }
    }
    if maps.len() != all.len() {
        return Err(format!(
            "expected the number of indexing_map ({}) to be equal to the number of input/output operands ({})",
            maps.len(),
            all.len()
        ));
    }
    let loops = iters.len();
    for (i, (a, &v)) in maps.iter().zip(all).enumerate() {
        let Attribute::AffineMap(map) = a else {
            return Err(format!("expected indexing_map #{i} to be an affine map"));
        };
        if map.num_symbols != 0 {
            return Err(format!("unexpected symbols in indexing_map #{i}"));
        }
        if map.num_dims as usize != loops {
            return Err(format!(
                "expected indexing_map #{i} to have {loops} dim(s) to match the number of loops"
            ));
        }
        let rank = operand_rank(m.value_type(v));
        if map.results.len() != rank {
            return Err(format!(
                "expected operand #{i} rank ({rank}) to match the result rank of indexing_map ({})",
                map.results.len()
            ));
        }
    }
    Ok(())
}

fn linalg_parent(m: &Module, op: OpId) -> Result<OpId, String> {
    match m.parent_op(op) {
        Some(p) if is_structured(&m.op(p).name) => Ok(p),
        _ => Err("expected parent op with LinalgOp interface".into()),
    }
}

fn verify_yield(m: &Module, op: OpId) -> Result<(), String> {
    let parent = linalg_parent(m, op)?;
    let Some((_, outs)) = split_operands(m, parent) else {
        return Ok(());
    };
    let vals = m.operands(op);
    if vals.len() != outs.len() {
        return Err(format!(
            "expected number of yield values ({}) to match the number of inits / outs operands of the enclosing LinalgOp ({})",
            vals.len(),
            outs.len()
        ));
    }
    for (i, (&v, &o)) in vals.iter().zip(outs).enumerate() {
        let got = m.value_type(v);
        let want = elem_or_self_ref(m.value_type(o));
        if got != want {
            return Err(format!(
                "type of yield operand {} ('{got}') doesn't match the element type of the enclosing {} op ('{want}')",
                i + 1,
                m.op(parent).name
            ));
        }
    }
    Ok(())
}

fn verify_index(m: &Module, op: OpId) -> Result<(), String> {
    let d = m.op(op);
    let dim = match inherent(d, "dim") {
        Some(Attribute::Integer { value, .. }) if *value >= 0 => *value,
        Some(_) => {
            return Err("attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0".into())
        }
        None => return Err("requires attribute 'dim'".into()),
    };
    if m.results(op).len() != 1 || !m.value_type(m.result(op, 0)).is_index() {
        return Err("result #0 must be index".into());
    }
    let parent = linalg_parent(m, op)?;
    if let Some(n) = num_loops(m, parent) {
        if dim >= n as i128 {
            return Err(format!(
                "expected dim ({dim}) to be lower than the number of loops ({n}) of the enclosing LinalgOp"
            ));
        }
    }
    Ok(())
}

// ===== softmax / winograd transforms / pack / unpack (declarative formats) =====

/// `linalg.winograd_*_transform`: name and the ranks of `ins` and `outs`.
const WINOGRAD: &[(&str, usize, usize)] = &[
    ("linalg.winograd_filter_transform", 4, 4),
    ("linalg.winograd_input_transform", 4, 6),
    ("linalg.winograd_output_transform", 6, 4),
];
/// `WinogradConv2DFmr` cases, by value.
const WINOGRAD_FMR: [&str; 3] = ["F_2_3", "F_4_3", "F_2_5"];

fn register_aggregates(r: &mut Registry) {
    r.register(OpDef {
        parse: Some(parse_softmax),
        print: Some(print_softmax),
        verify: Some(verify_softmax),
        inherent: &["dimension"],
        ..OpDef::new("linalg.softmax")
    });
    for &(n, _, _) in WINOGRAD {
        r.register(OpDef {
            parse: Some(parse_winograd),
            print: Some(print_winograd),
            verify: Some(verify_winograd),
            inherent: &["fmr"],
            ..OpDef::new(n)
        });
    }
    for n in ["linalg.pack", "linalg.unpack"] {
        r.register(OpDef {
            parse: Some(parse_relayout),
            print: Some(print_relayout),
            verify: Some(verify_relayout),
            inherent: &[
                SEGMENTS,
                "outer_dims_perm",
                "inner_dims_pos",
                "static_inner_tiles",
            ],
            ..OpDef::new(n)
        });
    }
}

/// `KW ( %v : T )`: one operand with its type.
fn parse_kw_operand(p: &mut Parser<'_>, kw: &str) -> PResult<(ValueId, Type)> {
    p.parse_keyword(kw)?;
    p.parse_lparen()?;
    let u = p.parse_operand()?;
    let t = p.parse_colon_type()?;
    p.parse_rparen()?;
    let v = p.resolve_operand(&u, &t)?;
    Ok((v, t))
}

fn print_kw_operand(p: &mut Printer<'_>, kw: &str, v: ValueId) {
    p.write(" ");
    p.write(kw);
    p.write("(");
    p.print_operand(v);
    p.write(" : ");
    p.print_type(p.module().value_type(v));
    p.write(")");
}

fn parse_softmax(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.parse_keyword("dimension")?;
    p.parse_lparen()?;
    let d = p.parse_integer()?;
    p.parse_rparen()?;
    st.props
        .set("dimension", Attribute::int(i128::from(d), Type::int(64)));
    let (a, _) = parse_kw_operand(p, "ins")?;
    let (b, _) = parse_kw_operand(p, "outs")?;
    st.operands = vec![a, b];
    st.result_types = p.parse_optional_arrow_type_list()?;
    Ok(())
}

fn print_softmax(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let ops = m.operands(op);
    let Some(Attribute::Integer { value, ty }) = d.props.get("dimension") else {
        return false;
    };
    if ops.len() != 2 || *ty != Type::int(64) {
        return false;
    }
    let dim = *value;
    p.print_optional_attr_dict(&sorted_attrs(m, op, &["dimension"]), &[]);
    p.write(&format!(" dimension({dim})"));
    print_kw_operand(p, "ins", ops[0]);
    print_kw_operand(p, "outs", ops[1]);
    print_arrow_results(p, op);
    true
}

fn verify_softmax(m: &Module, op: OpId) -> Result<(), String> {
    let ops = m.operands(op);
    if ops.len() != 2 {
        return Err(format!("expected 2 operands, but found {}", ops.len()));
    }
    let (ti, to) = (m.value_type(ops[0]), m.value_type(ops[1]));
    for (i, t) in [ti, to].into_iter().enumerate() {
        if t.shape().is_none() || matches!(t.kind(), TypeKind::Vector { .. }) {
            return Err(format!(
                "operand #{i} must be shaped of any type values, but got '{t}'"
            ));
        }
    }
    if ti.element_type() != to.element_type() {
        return Err("failed to verify that input and output have same element type".into());
    }
    let tensor_res = usize::from(is_tensor(to));
    if m.results(op).len() != tensor_res || m.results(op).iter().any(|&r| m.value_type(r) != to) {
        return Err("result types must match the tensor `outs` operand".into());
    }
    let (si, so) = (ti.shape().unwrap_or(&[]), to.shape().unwrap_or(&[]));
    if si.len() != so.len()
        || si
            .iter()
            .zip(so)
            .any(|(&a, &b)| a != b && a != crate::DYNAMIC && b != crate::DYNAMIC)
    {
        return Err("incompatible output shape".into());
    }
    match inherent(m.op(op), "dimension").and_then(Attribute::as_int) {
        Some(d) if d >= 0 && (d as usize) < si.len() => Ok(()),
        Some(_) => Err("incorrect dimension specified".into()),
        None => Err("requires attribute 'dimension'".into()),
    }
}

fn parse_winograd(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.parse_keyword("fmr")?;
    p.parse_lparen()?;
    let at = p.current_span();
    let kw = p.parse_keyword_any("fmr case")?;
    let Some(v) = WINOGRAD_FMR.iter().position(|c| *c == kw) else {
        return Err(Diagnostic::new(
            at,
            format!("expected one of [F_2_3, F_4_3, F_2_5] for WinogradConv2DFmr, got: {kw}"),
        ));
    };
    p.parse_rparen()?;
    st.props
        .set("fmr", Attribute::int(v as i128, Type::int(32)));
    let (a, _) = parse_kw_operand(p, "ins")?;
    let (b, _) = parse_kw_operand(p, "outs")?;
    st.operands = vec![a, b];
    p.parse_arrow()?;
    st.result_types.push(p.parse_type()?);
    Ok(())
}

fn print_winograd(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let ops = m.operands(op);
    let Some(Attribute::Integer { value, ty }) = d.props.get("fmr") else {
        return false;
    };
    let Some(fmr) = usize::try_from(*value)
        .ok()
        .and_then(|v| WINOGRAD_FMR.get(v))
    else {
        return false;
    };
    if ops.len() != 2 || m.results(op).len() != 1 || *ty != Type::int(32) {
        return false;
    }
    p.print_optional_attr_dict(&sorted_attrs(m, op, &["fmr"]), &[]);
    p.write(&format!(" fmr({fmr})"));
    print_kw_operand(p, "ins", ops[0]);
    print_kw_operand(p, "outs", ops[1]);
    p.write(" -> ");
    p.print_type(m.value_type(m.result(op, 0)));
    true
}

/// MLIR's `verifyCompatibleShape`: same rank, equal sizes where both are static.
fn compatible_shape(a: &[i64], b: &[i64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(&x, &y)| x == y || x == crate::DYNAMIC || y == crate::DYNAMIC)
}

fn verify_winograd(m: &Module, op: OpId) -> Result<(), String> {
    let d = m.op(op);
    let Some(&(_, rin, rout)) = WINOGRAD.iter().find(|w| w.0 == d.name) else {
        return Ok(());
    };
    let ops = m.operands(op);
    if ops.len() != 2 || m.results(op).len() != 1 {
        return Err("expected 2 operands and 1 result".into());
    }
    for (i, (&v, rank)) in ops.iter().zip([rin, rout]).enumerate() {
        let t = m.value_type(v);
        if !is_tensor(t) || operand_rank(t) != rank {
            return Err(format!(
                "operand #{i} must be {rank}D tensor of any type values, but got '{t}'"
            ));
        }
    }
    let rt = m.value_type(m.result(op, 0));
    if operand_rank(rt) != rout || !is_tensor(rt) {
        return Err(format!(
            "result #0 must be {rout}D tensor of any type values, but got '{rt}'"
        ));
    }
    let fmr = match inherent(d, "fmr").and_then(Attribute::as_int) {
        Some(v) if (0..WINOGRAD_FMR.len() as i128).contains(&v) => v as usize,
        _ => return Err("attribute 'fmr' failed to satisfy constraint: allowed 32-bit signless integer cases: 0, 1, 2".into()),
    };
    let (ti, to) = (m.value_type(ops[0]), m.value_type(ops[1]));
    if ti.element_type() != to.element_type() || rt.element_type() != to.element_type() {
        let names = match d.name.as_str() {
            "linalg.winograd_filter_transform" => "{filter, output}",
            "linalg.winograd_input_transform" => "{input, output}",
            _ => "{value, output}",
        };
        return Err(format!(
            "failed to verify that all of {names} have same element type"
        ));
    }
    if rt != to {
        return Err(format!(
            "expected type of operand #1 ('{to}') to match type of corresponding result ('{rt}')"
        ));
    }
    // F(m, r): output tile m, kernel r.
    let (mt, r) = [(2, 3), (4, 3), (2, 5)][fmr];
    let alpha = mt + r - 1;
    let dynamic = crate::DYNAMIC;
    let (si, so) = (ti.shape().unwrap_or(&[]), to.shape().unwrap_or(&[]));
    let expected: Vec<i64> = match d.name.as_str() {
        "linalg.winograd_filter_transform" => {
            // filter (F, H, W, C) -> (alphaH, alphaW, C, F)
            let (h, w) = (si[1], si[2]);
            if h != r && h != 1 {
                return Err("expect filter height either equals to r or 1".into());
            }
            if w != r && w != 1 {
                return Err("expect filter width either equals to r or 1".into());
            }
            if h == 1 && w == 1 {
                return Err("expect either filter height or width equals to r".into());
            }
            vec![
                if h == r { alpha } else { 1 },
                if w == r { alpha } else { 1 },
                si[3],
                si[0],
            ]
        }
        "linalg.winograd_input_transform" => {
            // input (N, H, W, C) -> (alphaH, alphaW, tileH, tileW, N, C)
            let (left, right) = (so[0] != 1, so[1] != 1);
            let tile = |size: i64, on: bool| {
                if size == dynamic {
                    (if on { alpha } else { 1 }, dynamic)
                } else if on {
                    (alpha, (size - (r - 1)) / mt)
                } else {
                    (1, size)
                }
            };
            let (ah, th) = tile(si[1], left);
            let (aw, tw) = tile(si[2], right);
            vec![ah, aw, th, tw, si[0], si[3]]
        }
        _ => {
            // value (alphaH, alphaW, tileH, tileW, N, F) -> (N, H, W, F)
            let (left, right) = (si[0] != 1, si[1] != 1);
            let size = |a: i64, t: i64, on: bool, what: &str| -> Result<i64, String> {
                if a == dynamic || t == dynamic {
                    return Ok(dynamic);
                }
                if a != (if on { alpha } else { 1 }) {
                    return Err(format!("expect input {what} equals to input tile size"));
                }
                Ok(if on { mt } else { 1 } * t)
            };
            let h = size(si[0], si[2], left, "height")?;
            let w = size(si[1], si[3], right, "width")?;
            vec![si[4], h, w, si[5]]
        }
    };
    if !compatible_shape(&expected, so) {
        return Err("the output shape is not expected".into());
    }
    Ok(())
}

fn parse_relayout(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let pack = st.name == "linalg.pack";
    let src = p.parse_operand()?;
    let mut pad = None;
    if pack && p.parse_optional_keyword("padding_value") {
        p.parse_lparen()?;
        let u = p.parse_operand()?;
        let t = p.parse_colon_type()?;
        p.parse_rparen()?;
        pad = Some((u, t));
    }
    if p.parse_optional_keyword("outer_dims_perm") {
        p.parse_equal()?;
        let a = parse_i64_list(p)?;
        st.props.set("outer_dims_perm", a);
    }
    p.parse_keyword("inner_dims_pos")?;
    p.parse_equal()?;
    let a = parse_i64_list(p)?;
    st.props.set("inner_dims_pos", a);
    p.parse_keyword("inner_tiles")?;
    p.parse_equal()?;
    let mut dyns = Vec::new();
    let tiles = p.parse_dynamic_index_list(&mut dyns, Delimiter::Square)?;
    st.props
        .set("static_inner_tiles", Attribute::i64_array(&tiles));
    p.parse_keyword("into")?;
    let dest = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.parse_colon()?;
    let ts = p.parse_type()?;
    p.parse_arrow()?;
    let td = p.parse_type()?;
    let s = p.resolve_operand(&src, &ts)?;
    let d = p.resolve_operand(&dest, &td)?;
    st.operands = vec![s, d];
    if let Some((u, t)) = &pad {
        let v = p.resolve_operand(u, t)?;
        st.operands.push(v);
    }
    for u in &dyns {
        let v = p.resolve_operand(u, &Type::index())?;
        st.operands.push(v);
    }
    if pack {
        st.props.set(
            SEGMENTS,
            Attribute::i32_array(&[1, 1, i64::from(pad.is_some()), dyns.len() as i64]),
        );
    }
    st.result_types.push(td);
    Ok(())
}

/// The operands of a pack/unpack: source, dest, optional padding value, inner tiles.
fn relayout_operands(
    m: &Module,
    op: OpId,
) -> Option<(ValueId, ValueId, Option<ValueId>, &[ValueId])> {
    let d = m.op(op);
    let ops = m.operands(op);
    if d.name == "linalg.pack" {
        let seg = inherent(d, SEGMENTS)?.as_int_array()?;
        let [1, 1, np, nt] = seg[..] else {
            return None;
        };
        if !(0..=1).contains(&np) || nt < 0 || (2 + np + nt) as usize != ops.len() {
            return None;
        }
        let pad = (np == 1).then(|| ops[2]);
        Some((ops[0], ops[1], pad, &ops[2 + np as usize..]))
    } else {
        if ops.len() < 2 {
            return None;
        }
        Some((ops[0], ops[1], None, &ops[2..]))
    }
}

fn print_relayout(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let Some((src, dest, pad, tiles)) = relayout_operands(m, op) else {
        return false;
    };
    let Some(statics) = d
        .props
        .get("static_inner_tiles")
        .and_then(Attribute::as_int_array)
    else {
        return false;
    };
    let Some(pos) = d.props.get("inner_dims_pos") else {
        return false;
    };
    if statics.iter().filter(|&&s| s == crate::DYNAMIC).count() != tiles.len()
        || m.results(op).len() != 1
        || m.value_type(m.result(op, 0)) != m.value_type(dest)
    {
        return false;
    }
    p.write(" ");
    p.print_operand(src);
    if let Some(v) = pad {
        print_kw_operand(p, "padding_value", v);
    }
    let list = |a: &Attribute| {
        a.as_int_array().map(|v| {
            let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            format!("[{}]", items.join(", "))
        })
    };
    if let Some(perm) = d.props.get("outer_dims_perm") {
        // MLIR elides the default (empty) permutation.
        let Some(text) = list(perm) else {
            return false;
        };
        if text != "[]" {
            p.write(" outer_dims_perm = ");
            p.write(&text);
        }
    }
    let Some(text) = list(pos) else {
        return false;
    };
    p.write(" inner_dims_pos = ");
    p.write(&text);
    p.write(" ");
    p.write("inner_tiles = ");
    p.print_dynamic_index_list(tiles, statics, '[', ']');
    p.write(" into ");
    p.print_operand(dest);
    p.print_optional_attr_dict(
        &sorted_attrs(
            m,
            op,
            &[
                SEGMENTS,
                "outer_dims_perm",
                "inner_dims_pos",
                "static_inner_tiles",
            ],
        ),
        &[],
    );
    p.write(" : ");
    p.print_type(m.value_type(src));
    p.write(" -> ");
    p.print_type(m.value_type(dest));
    true
}

fn verify_relayout(m: &Module, op: OpId) -> Result<(), String> {
    let d = m.op(op);
    let pack = d.name == "linalg.pack";
    let Some((src, dest, pad, tiles)) = relayout_operands(m, op) else {
        return Err("operand segments do not match the operand count".into());
    };
    for (what, v) in [("source", src), ("dest", dest)] {
        let t = m.value_type(v);
        if !matches!(t.kind(), TypeKind::RankedTensor { .. }) {
            return Err(format!(
                "{what} must be ranked tensor of any type values, but got '{t}'"
            ));
        }
    }
    if m.results(op).len() != 1 || m.value_type(m.result(op, 0)) != m.value_type(dest) {
        return Err("result type must match the dest type".into());
    }
    let Some(statics) = inherent(d, "static_inner_tiles").and_then(Attribute::as_int_array) else {
        return Err("requires attribute 'static_inner_tiles'".into());
    };
    let Some(pos) = inherent(d, "inner_dims_pos").and_then(Attribute::as_int_array) else {
        return Err("requires attribute 'inner_dims_pos'".into());
    };
    let perm = inherent(d, "outer_dims_perm")
        .and_then(Attribute::as_int_array)
        .unwrap_or(&[]);
    if statics.iter().filter(|&&s| s == crate::DYNAMIC).count() != tiles.len() {
        return Err("expected as many dynamic inner tile operands as '?' tile sizes".into());
    }
    if tiles.iter().any(|&v| !m.value_type(v).is_index()) {
        return Err("inner tile operands must be index".into());
    }
    // MLIR's commonVerifierPackAndUnPackOp.
    let (unpacked, packed) = if pack {
        (m.value_type(src), m.value_type(dest))
    } else {
        (m.value_type(dest), m.value_type(src))
    };
    let (us, ps) = (
        unpacked.shape().unwrap_or(&[]),
        packed.shape().unwrap_or(&[]),
    );
    let rank = us.len();
    if statics.contains(&0) {
        return Err("invalid zero tile factor".into());
    }
    let mut seen = vec![false; rank];
    let bad_pos = pos.len() > rank
        || pos.iter().any(|&p| {
            let ok = p >= 0 && (p as usize) < rank && !seen[p as usize];
            if ok {
                seen[p as usize] = true;
            }
            !ok
        });
    if bad_pos {
        return Err("invalid inner_dims_pos vector".into());
    }
    if !perm.is_empty() {
        let mut seen = vec![false; rank];
        let is_perm = perm.len() == rank
            && perm.iter().all(|&p| {
                let ok = p >= 0 && (p as usize) < rank && !seen[p as usize];
                if ok {
                    seen[p as usize] = true;
                }
                ok
            });
        if !is_perm {
            return Err("outer_dims_perm must be a permutation or empty".into());
        }
    }
    if pos.len() != statics.len() {
        return Err("tiling factors must equal the number of dimensions to tile".into());
    }
    if ps.len() != rank + statics.len() {
        return Err(format!(
            "packed rank != (unpacked rank + num tiling factors), got {} != {}",
            ps.len(),
            rank + statics.len()
        ));
    }
    let dynamic = crate::DYNAMIC;
    if statics
        .iter()
        .zip(&ps[rank..])
        .any(|(&t, &s)| if t == dynamic { s != dynamic } else { s != t })
    {
        return Err(
            "mismatch in inner tile sizes specified and shaped of tiled dimension in the packed type"
                .into(),
        );
    }
    // The packed shape the unpacked one implies: tiled dims divided (rounding up), permuted,
    // then the tiles.
    let mut outer: Vec<i64> = us.to_vec();
    for (&p, &t) in pos.iter().zip(statics) {
        let u = &mut outer[p as usize];
        if *u != dynamic {
            *u = if t == dynamic {
                dynamic
            } else {
                (*u + t - 1).div_euclid(t)
            };
        }
    }
    let mut expected: Vec<i64> = if perm.is_empty() {
        outer
    } else {
        perm.iter().map(|&p| outer[p as usize]).collect()
    };
    expected.extend_from_slice(statics);
    if !compatible_shape(&expected, ps) {
        let dims: String = expected
            .iter()
            .map(|&x| {
                if x == dynamic {
                    "?x".to_string()
                } else {
                    format!("{x}x")
                }
            })
            .collect();
        let elem = packed
            .element_type()
            .map(|e| e.to_string())
            .unwrap_or_default();
        return Err(format!(
            "expected 'tensor<{dims}{elem}>' for the packed domain value, got '{packed}'"
        ));
    }
    if !pack {
        return Ok(());
    }
    if let Some(p) = pad {
        let pt = m.value_type(p);
        let et = unpacked.element_type().cloned().unwrap_or_else(Type::none);
        if *pt != et {
            return Err(format!("expected padding_value has '{et}' but got: '{pt}'"));
        }
        return Ok(());
    }
    // Without a padding value only full tiles are allowed.
    let inv: Vec<usize> = if perm.is_empty() {
        (0..rank).collect()
    } else {
        let mut inv = vec![0; rank];
        for (i, &p) in perm.iter().enumerate() {
            inv[p as usize] = i;
        }
        inv
    };
    for (&p, &t) in pos.iter().zip(statics) {
        let u = us[p as usize];
        if u == dynamic {
            continue;
        }
        let div = if t != dynamic { t } else { ps[inv[p as usize]] };
        if div != dynamic && div != 0 && u % div != 0 {
            return Err("invalid tile factor or output size provided. Only full tiles are supported when padding_value is not set".into());
        }
    }
    Ok(())
}

/// The affine maps of an attribute list (other entries skipped: callers compare the counts).
fn affine_maps(list: &[Attribute]) -> Vec<&AffineMap> {
    list.iter()
        .filter_map(|a| match a {
            Attribute::AffineMap(map) => Some(map),
            _ => None,
        })
        .collect()
}
