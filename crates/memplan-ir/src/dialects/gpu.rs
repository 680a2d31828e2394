//! The `gpu` dialect's custom forms (mlir/lib/Dialect/GPU/IR/GPUDialect.cpp, MLIR 22): kernel
//! containers, kernels with workgroup/private memory attributions, launches and the async
//! memory ops. The attributions are the reason memplan reads this dialect: a `workgroup(...)`
//! buffer of a `gpu.func` is what NVVM turns into shared memory, so the shared-memory planner
//! (seeds/README.md, "GPU shared memory") needs them, and their address spaces, exactly.
//!
//! ```text
//! gpu.module @kernels [targets] attributes {..} { ... }
//! gpu.func @k(%a: f32) workgroup(%w : memref<32xf32, 3>) private(%p : memref<1xf32, 5>) kernel { ... }
//! gpu.launch [async] [[%t]] [clusters(..) in (..)] blocks(%bx, %by, %bz) in (%gx = %a, %gy = %b, %gz = %c)
//!     threads(..) in (..) [dynamic_shared_memory_size %s] [module(@m) function(@f)]
//!     [workgroup(..)] [private(..)] { ... } [attr-dict]
//! gpu.launch_func [async] [[%t]] [<%obj : t>] @m::@k [clusters in (..)] blocks in (%a, %b, %c)
//!     threads in (..) [: i32] [dynamic_shared_memory_size %s] [args(%x : f32, ..)]
//! %i = gpu.thread_id x [upper_bound 64]        gpu.barrier        gpu.return %v : f32
//! %m, %t = gpu.alloc async [%t0] host_shared (%n)[%s] : memref<?xf32>
//! gpu.dealloc %m : memref<?xf32>   gpu.wait async [%t]   gpu.memcpy %d, %s : t1, t2   gpu.memset %d, %v : t1, t2
//! ```
//!
//! The verifiers follow MLIR's: operand segment sizes, `gpu.terminator` ending launch bodies,
//! attributions being memrefs in the workgroup (3) / private (5) address space, and
//! `gpu.launch_func` resolving its kernel through the `gpu.container_module` module.

use crate::attrs::{Attribute, DenseArrayValues};
use crate::ir::{Module, OpId, OperationState, ValueId};
use crate::lexer::Tok;
use crate::parser::{Argument, Delimiter, PResult, Parser, UnresolvedOperand};
use crate::printer::Printer;
use crate::registry::{traits, OpDef, Registry};
use crate::types::{Type, TypeKind};
use crate::Dict;

/// Numeric address space of workgroup (shared) memory (`gpu::AddressSpace::Workgroup` on NVVM).
pub const WORKGROUP_SPACE: i128 = 3;
/// Numeric address space of private memory.
pub const PRIVATE_SPACE: i128 = 5;

const FUNC_INHERENT: &[&str] = &[
    "function_type",
    "arg_attrs",
    "res_attrs",
    "workgroup_attrib_attrs",
    "private_attrib_attrs",
    "known_block_size",
    "known_grid_size",
    "known_cluster_size",
];

/// Registers `gpu.*`.
pub fn register(r: &mut Registry) {
    r.register(OpDef {
        parse: Some(parse_module),
        print: Some(print_module),
        traits: traits::ISOLATED_FROM_ABOVE
            | traits::NO_TERMINATOR
            | traits::SYMBOL_TABLE
            | traits::SINGLE_BLOCK,
        verify: Some(verify_offload_attrs),
        inherent: &["sym_name", "targets", "offloadingHandler"],
        ..OpDef::new("gpu.module")
    });
    r.register(OpDef {
        parse: Some(parse_func),
        print: Some(print_func),
        verify: Some(verify_func),
        traits: traits::ISOLATED_FROM_ABOVE,
        inherent: FUNC_INHERENT,
        ..OpDef::new("gpu.func")
    });
    r.register(OpDef {
        parse: Some(parse_warp_execute),
        print: Some(print_warp_execute),
        verify: Some(verify_warp_execute),
        traits: traits::SINGLE_BLOCK,
        inherent: &["warp_size"],
        ..OpDef::new("gpu.warp_execute_on_lane_0")
    });
    r.register(OpDef {
        parse: Some(parse_launch),
        print: Some(print_launch),
        verify: Some(verify_launch),
        inherent: &["operandSegmentSizes", "module", "function"],
        ..OpDef::new("gpu.launch")
    });
    r.register(OpDef {
        parse: Some(parse_launch_func),
        print: Some(print_launch_func),
        verify: Some(verify_launch_func),
        inherent: &["operandSegmentSizes", "kernel"],
        ..OpDef::new("gpu.launch_func")
    });
    for name in [
        "gpu.thread_id",
        "gpu.block_id",
        "gpu.block_dim",
        "gpu.grid_dim",
    ] {
        r.register(OpDef {
            parse: Some(parse_dim_op),
            print: Some(print_dim_op),
            inherent: &["dimension", "upper_bound"],
            ..OpDef::new(name)
        });
    }
    r.register(OpDef {
        parse: Some(parse_attr_dict_only),
        print: Some(print_attr_dict_only),
        ..OpDef::new("gpu.barrier")
    });
    r.register(OpDef {
        parse: Some(parse_attr_dict_only),
        print: Some(print_attr_dict_only),
        traits: traits::TERMINATOR,
        ..OpDef::new("gpu.terminator")
    });
    r.register(OpDef {
        parse: Some(parse_values_terminator),
        print: Some(print_values_terminator),
        verify: Some(verify_return),
        traits: traits::TERMINATOR,
        ..OpDef::new("gpu.return")
    });
    r.register(OpDef {
        parse: Some(parse_values_terminator),
        print: Some(print_values_terminator),
        traits: traits::TERMINATOR,
        ..OpDef::new("gpu.yield")
    });
    r.register(OpDef {
        parse: Some(parse_alloc),
        print: Some(print_alloc),
        verify: Some(verify_alloc),
        inherent: &["operandSegmentSizes", "hostShared"],
        ..OpDef::new("gpu.alloc")
    });
    r.register(OpDef {
        parse: Some(parse_dealloc),
        print: Some(print_dealloc),
        ..OpDef::new("gpu.dealloc")
    });
    r.register(OpDef {
        parse: Some(parse_wait),
        print: Some(print_wait),
        ..OpDef::new("gpu.wait")
    });
    r.register(OpDef {
        parse: Some(parse_copy_like),
        print: Some(print_copy_like),
        ..OpDef::new("gpu.memcpy")
    });
    r.register(OpDef {
        parse: Some(parse_copy_like),
        print: Some(print_copy_like),
        ..OpDef::new("gpu.memset")
    });
    r.register(OpDef {
        parse: Some(parse_binary),
        print: Some(print_binary),
        verify: Some(verify_offload_attrs),
        inherent: &["sym_name", "offloadingHandler", "objects"],
        ..OpDef::new("gpu.binary")
    });
    // Generic-form only, registered for their verifiers.
    r.register(OpDef {
        verify: Some(verify_all_reduce),
        ..OpDef::new("gpu.all_reduce")
    });
    r.register(OpDef {
        verify: Some(verify_subgroup_reduce),
        ..OpDef::new("gpu.subgroup_reduce")
    });
    r.register(OpDef {
        verify: Some(verify_shuffle),
        ..OpDef::new("gpu.shuffle")
    });
}

/// `!gpu.async.token`.
pub fn async_token_type() -> Type {
    Type::new(TypeKind::Opaque("!gpu.async.token".into()))
}

fn is_token(t: &Type) -> bool {
    matches!(t.kind(), TypeKind::Opaque(s) if s == "!gpu.async.token")
}

/// Which GPU address space a memref memory-space attribute names, if it names one:
/// `#gpu.address_space<workgroup>` or a bare integer.
pub fn address_space_name(space: &Attribute) -> Option<String> {
    match space {
        Attribute::Integer { value, .. } => Some(match *value {
            1 => "global".into(),
            WORKGROUP_SPACE => "workgroup".into(),
            PRIVATE_SPACE => "private".into(),
            v => v.to_string(),
        }),
        Attribute::Opaque(s) => {
            let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
            let inner = compact
                .strip_prefix("#gpu.address_space<")
                .or_else(|| compact.strip_prefix("#gpu<address_space"))?;
            Some(inner.trim_end_matches('>').to_string())
        }
        _ => None,
    }
}

/// True if `t` is a memref in workgroup (shared) memory.
pub fn is_workgroup_memref(t: &Type) -> bool {
    match t.kind() {
        TypeKind::MemRef { memory_space, .. } | TypeKind::UnrankedMemRef { memory_space, .. } => {
            memory_space
                .as_ref()
                .and_then(address_space_name)
                .is_some_and(|n| n == "workgroup")
        }
        _ => false,
    }
}

/// `gpu.dynamic_shared_memory`: a 1-D `i8` memref in `#gpu.address_space<workgroup>` (the
/// attribute itself: a bare integer space is not accepted here) with a dynamic size.
pub fn verify_dynamic_shared_memory(m: &Module, op: OpId) -> Result<(), String> {
    let Some(&r) = m.results(op).first() else {
        return Err("requires one result".into());
    };
    let t = m.value_type(r);
    let TypeKind::MemRef {
        shape,
        elem,
        memory_space,
        ..
    } = t.kind()
    else {
        return Err(format!(
            "result #0 must be 1D memref of 8-bit signless integer values, but got '{t}'"
        ));
    };
    if shape.len() != 1 || *elem != Type::int(8) {
        return Err(format!(
            "result #0 must be 1D memref of 8-bit signless integer values, but got '{t}'"
        ));
    }
    let workgroup = matches!(memory_space, Some(a @ Attribute::Opaque(_))
        if address_space_name(a).is_some_and(|n| n == "workgroup"));
    if !workgroup {
        return Err("address space must be address_space<workgroup>".into());
    }
    if shape[0] != crate::DYNAMIC {
        return Err(
            "result memref type must be memref<?xi8, #gpu.address_space<workgroup>>".into(),
        );
    }
    Ok(())
}

/// The GPU dialect's discardable attributes, checked on any op that carries them (MLIR's
/// dialect attribute verifier): the `gpu.known_*_size` hints are `array<i32: x, y, z>`.
pub fn verify_discardable_attrs(m: &Module, op: OpId) -> Result<(), String> {
    for name in [
        "gpu.known_block_size",
        "gpu.known_grid_size",
        "gpu.known_cluster_size",
    ] {
        let Some(a) = m.op(op).attrs.get(name) else {
            continue;
        };
        match a {
            Attribute::DenseArray {
                elem,
                values: DenseArrayValues::Int(v),
            } if *elem == Type::int(32) => {
                if v.len() != 3 {
                    return Err(format!("{name} must contain exactly 3 elements"));
                }
            }
            _ => return Err(format!("{name} must be a dense i32 array")),
        }
    }
    Ok(())
}

/// An attribute of a dialect other than builtin (`#nvvm.target`, `#gpu.object<..>`): the
/// only kind that can carry the GPU target/object interfaces or the offloading trait. Which
/// dialect attribute has them is not known here, so any such attribute is accepted.
fn is_dialect_attr(a: &Attribute) -> bool {
    matches!(a, Attribute::Opaque(s) if s.starts_with('#'))
}

/// The ODS constraints on `gpu.module`'s `targets` / `gpu.binary`'s `objects` (a non-empty
/// array of dialect attributes; `objects` must hold `#gpu.object`s) and on either op's
/// `offloadingHandler`.
fn verify_offload_attrs(m: &Module, op: OpId) -> Result<(), String> {
    let is_binary = m.op(op).name == "gpu.binary";
    let (list_name, what) = if is_binary {
        ("objects", "an array of GPU object attributes")
    } else {
        ("targets", "array of GPU target attributes")
    };
    if let Some(a) = attr(m, op, list_name) {
        let ok =
            match a {
                Attribute::Array(v) => !v.is_empty() && v.iter().all(|e| {
                    is_dialect_attr(e)
                        && (!is_binary
                            || matches!(e, Attribute::Opaque(s) if s.starts_with("#gpu.object")))
                }),
                _ => false,
            };
        if !ok {
            return Err(format!(
                "attribute '{list_name}' failed to satisfy constraint: {what} with at least 1 elements"
            ));
        }
    }
    if let Some(h) = attr(m, op, "offloadingHandler") {
        if !is_dialect_attr(h) {
            return Err("attribute 'offloadingHandler' failed to satisfy constraint: any attribute with the `OffloadingTranslationAttrTrait` trait.".into());
        }
    }
    Ok(())
}

/// The shape and operand kind of a `!gpu.mma_matrix<RxCxT, "Op">`.
fn mma_matrix(t: &Type) -> Option<(Vec<i64>, String)> {
    let TypeKind::Opaque(s) = t.kind() else {
        return None;
    };
    let body = s.strip_prefix("!gpu.mma_matrix<")?.strip_suffix('>')?;
    let (shape, kind) = body.rsplit_once(',')?;
    let mut parts: Vec<&str> = shape.split('x').map(str::trim).collect();
    parts.pop();
    let dims = parts
        .iter()
        .map(|d| d.parse().ok())
        .collect::<Option<Vec<i64>>>()?;
    Some((dims, kind.trim().trim_matches('"').to_string()))
}

/// The element type of a `!gpu.mma_matrix<RxCxT, "Op">` when `T` is an integer or float type.
pub fn mma_matrix_elem(t: &Type) -> Option<Type> {
    let TypeKind::Opaque(s) = t.kind() else {
        return None;
    };
    let body = s.strip_prefix("!gpu.mma_matrix<")?.strip_suffix('>')?;
    let (shape, _) = body.rsplit_once(',')?;
    let name = shape.rsplit('x').next()?.trim();
    if let Some(k) = crate::types::FloatKind::from_name(name) {
        return Some(Type::float(k));
    }
    let (signedness, digits) = if let Some(d) = name.strip_prefix("si") {
        (crate::types::Signedness::Signed, d)
    } else if let Some(d) = name.strip_prefix("ui") {
        (crate::types::Signedness::Unsigned, d)
    } else {
        (crate::types::Signedness::Signless, name.strip_prefix('i')?)
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(Type::new(TypeKind::Integer {
        width: digits.parse().ok()?,
        signedness,
    }))
}

/// Whether a memref's innermost dimension has stride 1 (MLIR's `isLastDimUnitStride`).
/// `None` when this cannot tell (a single-result or non-trivial affine layout).
fn last_dim_unit_stride(t: &Type) -> Option<bool> {
    let TypeKind::MemRef { shape, layout, .. } = t.kind() else {
        return None;
    };
    shape.len().checked_sub(1)?;
    match layout {
        None => Some(true),
        Some(Attribute::Strided { strides, .. }) => Some(strides.last() == Some(&1)),
        Some(Attribute::AffineMap(am)) if am.is_identity() => Some(true),
        // MLIR finds no strides for a map with several results other than the identity (a
        // dim permutation, say), so the op is rejected whatever the sizes. Only maps made of
        // bare dims are judged here; anything else is left alone.
        Some(Attribute::AffineMap(am))
            if am.results.len() > 1
                && am
                    .results
                    .iter()
                    .all(|r| matches!(r, crate::affine::AffineExpr::Dim(_))) =>
        {
            Some(false)
        }
        _ => None,
    }
}

/// `gpu.subgroup_mma_load_matrix`, `_store_matrix` and `_compute`: MLIR 22's rules on the
/// memref (element type, unit innermost stride) and on the matrices' operand kinds/shapes.
pub fn verify_subgroup_mma(m: &Module, op: OpId) -> Result<(), String> {
    let ops = m.operands(op);
    let ty = |i: usize| ops.get(i).map(|&v| m.value_type(v));
    match m.op(op).name.as_str() {
        "gpu.subgroup_mma_load_matrix" => {
            let Some(src) = ty(0) else { return Ok(()) };
            let elem_ok = |e: &Type| {
                *e == Type::int(8)
                    || *e == Type::int(32)
                    || matches!(e.kind(), TypeKind::Float(k) if matches!(k, crate::types::FloatKind::F16 | crate::types::FloatKind::F32 | crate::types::FloatKind::F64))
            };
            let ok = match src.kind() {
                TypeKind::MemRef { elem, .. } => {
                    elem_ok(elem)
                        || matches!(elem.kind(), TypeKind::Vector { shape, elem: ve, .. } if shape.len() == 1 && elem_ok(ve))
                }
                _ => false,
            };
            if !ok {
                return Err(format!("operand #0 must be memref of 8-bit signless integer or 32-bit signless integer or 16-bit float or 32-bit float or 64-bit float or vector of 8-bit signless integer or 32-bit signless integer or 16-bit float or 32-bit float or 64-bit float values of ranks 1 values, but got '{src}'"));
            }
            if last_dim_unit_stride(src) == Some(false) {
                return Err("expected source memref most minor dim must have unit stride".into());
            }
        }
        "gpu.subgroup_mma_store_matrix" => {
            if let Some(dst) = ty(1) {
                if last_dim_unit_stride(dst) == Some(false) {
                    return Err(
                        "expected destination memref most minor dim must have unit stride".into(),
                    );
                }
            }
            if let Some((_, kind)) = ty(0).and_then(mma_matrix) {
                if kind != "COp" {
                    return Err(
                        "expected the operand matrix being stored to have 'COp' operand type"
                            .into(),
                    );
                }
            }
        }
        "gpu.subgroup_mma_compute" => {
            let (Some(a), Some(b), Some(c)) = (
                ty(0).and_then(mma_matrix),
                ty(1).and_then(mma_matrix),
                ty(2).and_then(mma_matrix),
            ) else {
                return Ok(());
            };
            if a.1 != "AOp" || b.1 != "BOp" || c.1 != "COp" {
                return Err("operands must be in the order AOp, BOp, COp".into());
            }
            let (a, b, c) = (a.0, b.0, c.0);
            if a.len() == 2
                && b.len() == 2
                && c.len() == 2
                && (a[1] != b[0] || a[0] != c[0] || b[1] != c[1])
            {
                return Err("operand shapes do not satisfy matmul constraints".into());
            }
        }
        _ => {}
    }
    Ok(())
}

// ===== gpu.warp_execute_on_lane_0 (C++ format upstream) =====

/// `(%laneid)[warp_size] (args(%a : T, ...))? (-> (types))? region attr-dict`, as MLIR's
/// `WarpExecuteOnLane0Op::parse`; the region's terminator `gpu.yield` may be left out.
fn parse_warp_execute(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_lparen()?;
    let lane = p.parse_operand()?;
    p.parse_rparen()?;
    p.parse_lsquare()?;
    let warp = p.parse_integer()?;
    p.parse_rsquare()?;
    st.props
        .set("warp_size", Attribute::int(warp.into(), Type::int(64)));
    st.operands.push(p.resolve_operand(&lane, &Type::index())?);
    if p.parse_optional_keyword("args") {
        p.parse_lparen()?;
        let at = p.current_span();
        let vals = p.parse_operand_list()?;
        let tys = p.parse_colon_type_list()?;
        p.parse_rparen()?;
        if vals.len() != tys.len() {
            return Err(crate::Diagnostic::new(
                at,
                format!(
                    "{} operands present, but expected {}",
                    vals.len(),
                    tys.len()
                ),
            ));
        }
        for (v, t) in vals.iter().zip(&tys) {
            st.operands.push(p.resolve_operand(v, t)?);
        }
    }
    st.result_types = p.parse_optional_arrow_type_list()?;
    let r = p.parse_region(&[])?;
    super::memref::ensure_terminator(p, r, "gpu.yield");
    st.regions.push(r);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    Ok(())
}

fn print_warp_execute(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    let warp = super::memref::prop(m, op, "warp_size").and_then(Attribute::as_int);
    let ([r], Some(warp), Some((&lane, args))) = (m.regions(op), warp, ops.split_first()) else {
        return false;
    };
    if m.value_type(lane) != &Type::index() || super::memref::single_block(m, *r).is_none() {
        return false;
    }
    p.write("(");
    p.print_operand(lane);
    p.write(&format!(")[{warp}]"));
    if !args.is_empty() {
        p.write(" args(");
        p.print_operands(args);
        p.write(" : ");
        p.print_value_types(args);
        p.write(")");
    }
    let res = m.results(op);
    if !res.is_empty() {
        p.write(" -> (");
        p.print_value_types(res);
        p.write(")");
    }
    p.write(" ");
    p.print_region(*r, true, !res.is_empty());
    super::memref::print_attrs(p, op, &["warp_size"]);
    true
}

/// `WarpExecuteOnLane0Op::verify`: as many body arguments as `args`, as many yielded values
/// as results, and each pair either equal or a vector distributed over the warp.
fn verify_warp_execute(m: &Module, op: OpId) -> Result<(), String> {
    let [r] = m.regions(op) else {
        return Ok(());
    };
    let Some(b) = super::memref::single_block(m, *r) else {
        return Ok(());
    };
    let args = m.operands(op).get(1..).unwrap_or(&[]);
    let bargs = m.block_args(b);
    if args.len() != bargs.len() {
        return Err("expected same number op arguments and block arguments.".into());
    }
    let Some(term) = m.last_op(b) else {
        return Ok(());
    };
    if m.op(term).name != "gpu.yield" {
        return Ok(());
    }
    let yielded = m.operands(term);
    let res = m.results(op);
    if yielded.len() != res.len() {
        return Err("expected same number of yield operands and return values.".into());
    }
    let Some(warp) = super::memref::prop(m, op, "warp_size").and_then(Attribute::as_int) else {
        return Ok(());
    };
    let pairs = bargs.iter().zip(args).chain(yielded.iter().zip(res));
    for (&expanded, &distributed) in pairs {
        distributed_ok(m.value_type(expanded), m.value_type(distributed), warp)?;
    }
    Ok(())
}

/// MLIR's `verifyDistributedType`.
fn distributed_ok(expanded: &Type, distributed: &Type, warp: i128) -> Result<(), String> {
    if expanded == distributed {
        return Ok(());
    }
    let (
        TypeKind::Vector {
            shape: es,
            elem: ee,
            ..
        },
        TypeKind::Vector {
            shape: ds,
            elem: de,
            ..
        },
    ) = (expanded.kind(), distributed.kind())
    else {
        return Err("expected vector type for distributed operands.".into());
    };
    if es.len() != ds.len() || ee != de {
        return Err("expected distributed vectors to have same rank and element type.".into());
    }
    let mut product: i128 = 1;
    for (i, (&e, &d)) in es.iter().zip(ds).enumerate() {
        if e == d {
            continue;
        }
        if d == 0 || e % d != 0 {
            return Err(format!("expected expanded vector dimension #{i} ({e}) to be a multipler of the distributed vector dimension ({d})"));
        }
        product = product.saturating_mul(i128::from(e / d));
    }
    if product != warp {
        return Err(format!("incompatible distribution dimensions from '{expanded}' to '{distributed}' with warp size = {warp}"));
    }
    Ok(())
}

// ===== shared pieces =====

/// `[async] [ '[' %deps ']' ]`: returns whether `async` was written and the dependencies.
fn parse_async_deps(p: &mut Parser<'_>) -> PResult<(bool, Vec<ValueId>)> {
    let is_async = p.parse_optional_keyword("async");
    let mut deps = Vec::new();
    if p.at(Tok::LBracket) {
        let ops = p.parse_operand_list_delimited(Delimiter::Square)?;
        deps = p.resolve_operands_same(&ops, &async_token_type())?;
    }
    Ok((is_async, deps))
}

fn print_async_deps(p: &mut Printer<'_>, is_async: bool, deps: &[ValueId]) {
    if is_async {
        p.write(" async");
    }
    if !deps.is_empty() {
        p.write(" [");
        p.print_operands(deps);
        p.write("]");
    }
}

/// Splits `op`'s async dependencies (its leading token-typed operands) from the rest.
fn split_deps(m: &Module, op: OpId) -> (&[ValueId], &[ValueId]) {
    let ops = m.operands(op);
    let n = ops
        .iter()
        .take_while(|&&v| is_token(m.value_type(v)))
        .count();
    ops.split_at(n)
}

fn has_token_result(m: &Module, op: OpId) -> bool {
    m.results(op)
        .last()
        .is_some_and(|&r| is_token(m.value_type(r)))
}

/// The shared head of the custom form of `gpu.dealloc`, `gpu.wait`, `gpu.memcpy` and
/// `gpu.memset`: when `op` has exactly `n` operands after its async dependencies, no
/// result but the optional token and no properties, prints `[async] [deps]` and returns
/// those `n` operands; `None` (nothing printed) when the custom form does not fit.
fn print_async_head<'a>(p: &mut Printer<'a>, op: OpId, n: usize) -> Option<&'a [ValueId]> {
    let m = p.module();
    let (deps, rest) = split_deps(m, op);
    let token = has_token_result(m, op);
    if rest.len() != n || m.results(op).len() != usize::from(token) || !m.op(op).props.is_empty() {
        return None;
    }
    print_async_deps(p, token, deps);
    Some(rest)
}

fn segments(m: &Module, op: OpId) -> Option<&[i64]> {
    m.op(op)
        .props
        .get("operandSegmentSizes")
        .and_then(|a| a.as_int_array())
}

/// MLIR's `AttrSizedOperandSegments` checks plus a minimum operand count.
fn check_segments(m: &Module, op: OpId, min: usize, count: usize) -> Result<Vec<i64>, String> {
    let n = m.operands(op).len();
    if n < min {
        return Err(format!("expected {min} or more operands, but found {n}"));
    }
    let seg = segments(m, op).unwrap_or(&[]);
    let total: i64 = seg.iter().sum();
    if total != n as i64 {
        return Err(format!(
            "operand count ({n}) does not match with the total size ({total}) specified in attribute 'operandSegmentSizes'"
        ));
    }
    if seg.len() != count || seg.iter().any(|&s| s < 0) {
        return Err(format!(
            "'operandSegmentSizes' attribute for specifying operand segments must have {count} elements, but got {}",
            seg.len()
        ));
    }
    Ok(seg.to_vec())
}

/// `workgroup(%a : t, ...)` / `private(...)` if the keyword is present.
fn parse_attributions(
    p: &mut Parser<'_>,
    kw: &str,
    out: &mut Vec<Argument>,
) -> PResult<Option<Vec<Dict>>> {
    if !p.parse_optional_keyword(kw) {
        return Ok(None);
    }
    let mut dicts = Vec::new();
    p.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
        let a = p.parse_argument(true, true)?;
        dicts.push(a.attrs.clone().unwrap_or_default());
        out.push(a);
        Ok(())
    })?;
    Ok(Some(dicts))
}

fn print_attributions(p: &mut Printer<'_>, kw: &str, vals: &[ValueId], attrs: Option<&Attribute>) {
    if vals.is_empty() {
        return;
    }
    p.print_keyword(kw);
    p.write("(");
    for (i, &v) in vals.iter().enumerate() {
        if i > 0 {
            p.write(", ");
        }
        p.print_operand(v);
        p.write(" : ");
        p.print_type(p.module().value_type(v));
        if let Some(Attribute::Array(a)) = attrs {
            if let Some(Attribute::Dict(d)) = a.get(i) {
                p.print_optional_attr_dict(d, &[]);
            }
        }
    }
    p.write(")");
}

fn array_of_dicts(dicts: Vec<Dict>) -> Option<Attribute> {
    if dicts.iter().all(|d| d.is_empty()) {
        None
    } else {
        Some(Attribute::Array(
            dicts.into_iter().map(Attribute::Dict).collect(),
        ))
    }
}

/// Checks the address spaces of attributions (MLIR's `verifyAttributions`).
fn verify_attributions(m: &Module, vals: &[ValueId], want: &str) -> Result<(), String> {
    for &v in vals {
        let t = m.value_type(v);
        let space = match t.kind() {
            TypeKind::MemRef { memory_space, .. }
            | TypeKind::UnrankedMemRef { memory_space, .. } => memory_space,
            _ => return Err("expected memref type in attribution".into()),
        };
        if let Some(name) = space.as_ref().and_then(address_space_name) {
            if name != want {
                return Err(format!("expected memory space {want} in attribution"));
            }
        }
    }
    Ok(())
}

fn attr<'m>(m: &'m Module, op: OpId, name: &str) -> Option<&'m Attribute> {
    let d = m.op(op);
    d.props.get(name).or_else(|| d.attrs.get(name))
}

fn all_attrs(m: &Module, op: OpId) -> Dict {
    let d = m.op(op);
    let mut all = d.props.clone();
    for n in d.attrs.iter() {
        all.set(n.name.clone(), n.value.clone());
    }
    all
}

// ===== gpu.module =====

fn parse_module(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let name = p.parse_symbol_name()?;
    st.props.set("sym_name", Attribute::string(&name));
    if p.consume_if(Tok::Less) {
        let h = p.parse_attribute()?;
        st.props.set("offloadingHandler", h);
        p.parse_greater()?;
    }
    if p.at(Tok::LBracket) {
        let t = p.parse_attribute()?;
        st.props.set("targets", t);
    }
    p.parse_optional_attr_dict_with_keyword(&mut st.attrs)?;
    let r = p.parse_region(&[])?;
    let m = p.module_mut();
    if m.region_blocks(r).is_empty() {
        let b = m.create_block();
        m.append_block(r, b);
    }
    st.regions.push(r);
    Ok(())
}

fn print_module(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    if m.regions(op).len() != 1 || !m.operands(op).is_empty() || !m.results(op).is_empty() {
        return false;
    }
    let Some(name) = attr(m, op, "sym_name").and_then(|a| a.as_str()) else {
        return false;
    };
    p.write(" ");
    p.print_symbol_name(name);
    if let Some(h) = attr(m, op, "offloadingHandler") {
        p.write(" <");
        p.print_attr(h);
        p.write(">");
    }
    if let Some(t) = attr(m, op, "targets") {
        p.write(" ");
        p.print_attr(t);
    }
    p.print_optional_attr_dict_with_keyword(
        &all_attrs(m, op),
        &["sym_name", "targets", "offloadingHandler"],
    );
    p.write(" ");
    p.print_region(m.regions(op)[0], false, false);
    true
}

// ===== gpu.binary =====

/// The offloading handler `gpu.binary` gets when its custom form names none.
const DEFAULT_OFFLOADING_HANDLER: &str = "#gpu.select_object";

/// `gpu.binary @name [<handler>] attr-dict [objects]` (compiled kernels, kept verbatim).
fn parse_binary(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let name = p.parse_symbol_name()?;
    st.props.set("sym_name", Attribute::string(&name));
    // MLIR's builder fills the default handler when the custom form leaves it out.
    let mut h = Attribute::Opaque(DEFAULT_OFFLOADING_HANDLER.into());
    if p.consume_if(Tok::Less) {
        h = p.parse_attribute()?;
        p.parse_greater()?;
    }
    st.props.set("offloadingHandler", h);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let objects = p.parse_attribute()?;
    st.props.set("objects", objects);
    Ok(())
}

fn print_binary(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    if !m.operands(op).is_empty() || !m.results(op).is_empty() || !m.regions(op).is_empty() {
        return false;
    }
    let (Some(name), Some(objects)) = (
        d.props.get("sym_name").and_then(|a| a.as_str()),
        d.props.get("objects"),
    ) else {
        return false;
    };
    p.write(" ");
    p.print_symbol_name(name);
    if let Some(h) = d
        .props
        .get("offloadingHandler")
        .filter(|h| !matches!(h, Attribute::Opaque(t) if t == DEFAULT_OFFLOADING_HANDLER))
    {
        p.write(" <");
        p.print_attr(h);
        p.write(">");
    }
    p.print_optional_attr_dict(&d.attrs, &[]);
    p.write(" ");
    p.print_attr(objects);
    true
}

// ===== gpu.func =====

fn parse_func(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let name = p.parse_symbol_name()?;
    st.attrs.set("sym_name", Attribute::string(&name));
    let sig_span = p.current_span();
    let mut args: Vec<Argument> = Vec::new();
    let mut arg_attrs = Vec::new();
    p.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
        if !p.at(Tok::PercentId) {
            return Err(p.error_here("gpu.func requires named arguments"));
        }
        let a = p.parse_argument(true, true)?;
        arg_attrs.push(a.attrs.clone().unwrap_or_default());
        args.push(a);
        Ok(())
    })
    .map_err(|e| {
        if e.message.contains("named arguments") {
            crate::Diagnostic::new(sig_span, e.message)
        } else {
            e
        }
    })?;
    let ins: Vec<Type> = args.iter().map(|a| a.ty.clone()).collect();
    let (outs, res_attrs) = super::func::parse_result_list(p)?;
    st.props.set(
        "function_type",
        Attribute::Type(Type::function(ins.clone(), outs)),
    );
    if let Some(a) = array_of_dicts(arg_attrs) {
        st.props.set("arg_attrs", a);
    }
    if let Some(a) = array_of_dicts(res_attrs) {
        st.props.set("res_attrs", a);
    }
    let wg = parse_attributions(p, "workgroup", &mut args)?;
    let n_wg = args.len() - ins.len();
    st.attrs.set(
        "workgroup_attributions",
        Attribute::int(n_wg as i128, Type::int(64)),
    );
    if let Some(a) = wg.and_then(array_of_dicts) {
        st.props.set("workgroup_attrib_attrs", a);
    }
    if let Some(a) = parse_attributions(p, "private", &mut args)?.and_then(array_of_dicts) {
        st.props.set("private_attrib_attrs", a);
    }
    if p.parse_optional_keyword("kernel") {
        st.attrs.set("gpu.kernel", Attribute::Unit);
    }
    p.parse_optional_attr_dict_with_keyword(&mut st.attrs)?;
    let r = p.parse_region(&args)?;
    st.regions.push(r);
    Ok(())
}

/// Number of workgroup attributions of a `gpu.func` / `gpu.launch`.
fn num_workgroup(m: &Module, op: OpId) -> usize {
    attr(m, op, "workgroup_attributions")
        .and_then(|a| a.as_int())
        .map_or(0, |v| usize::try_from(v).unwrap_or(0))
}

/// The (workgroup, private) attribution arguments of a `gpu.func` (after `n_fixed` leading args).
fn attributions(m: &Module, op: OpId, n_fixed: usize) -> Option<(&[ValueId], &[ValueId])> {
    let r = *m.regions(op).first()?;
    let entry = m.entry_block(r)?;
    let args = m.block_args(entry);
    let rest = args.get(n_fixed..)?;
    let n_wg = num_workgroup(m, op);
    if n_wg > rest.len() {
        return None;
    }
    Some(rest.split_at(n_wg))
}

fn func_signature(m: &Module, op: OpId) -> Option<(Vec<Type>, Vec<Type>)> {
    let (i, o) = attr(m, op, "function_type")?.as_type()?.as_function()?;
    Some((i.to_vec(), o.to_vec()))
}

fn print_func(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    if m.regions(op).len() != 1 || !m.operands(op).is_empty() || !m.results(op).is_empty() {
        return false;
    }
    let Some(name) = attr(m, op, "sym_name").and_then(|a| a.as_str()) else {
        return false;
    };
    let Some((ins, outs)) = func_signature(m, op) else {
        return false;
    };
    let r = m.regions(op)[0];
    let Some(entry) = m.entry_block(r) else {
        return false;
    };
    let args = m.block_args(entry);
    let Some((wg, pr)) = attributions(m, op, ins.len()) else {
        return false;
    };
    // MLIR's custom parser always sets `workgroup_attributions`: an op without it (built in
    // generic form) would not come back the same from the custom form
    if attr(m, op, "workgroup_attributions").is_none() {
        return false;
    }
    if ins.iter().zip(args).any(|(t, &a)| m.value_type(a) != t) {
        return false;
    }
    let dict_at = |name: &str, i: usize| -> Dict {
        match attr(m, op, name) {
            Some(Attribute::Array(v)) => match v.get(i) {
                Some(Attribute::Dict(d)) => d.clone(),
                _ => Dict::new(),
            },
            _ => Dict::new(),
        }
    };
    p.write(" ");
    p.print_symbol_name(name);
    p.write("(");
    for (i, &a) in args[..ins.len()].iter().enumerate() {
        if i > 0 {
            p.write(", ");
        }
        p.print_arg_decl(a);
        p.print_optional_attr_dict(&dict_at("arg_attrs", i), &[]);
    }
    p.write(")");
    if !outs.is_empty() {
        p.write(" -> ");
        if (0..outs.len()).any(|i| !dict_at("res_attrs", i).is_empty()) {
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
    print_attributions(p, "workgroup", wg, attr(m, op, "workgroup_attrib_attrs"));
    print_attributions(p, "private", pr, attr(m, op, "private_attrib_attrs"));
    if attr(m, op, "gpu.kernel").is_some() {
        p.write(" kernel");
    }
    p.print_optional_attr_dict_with_keyword(
        &all_attrs(m, op),
        &[
            "sym_name",
            "workgroup_attributions",
            "gpu.kernel",
            "function_type",
            "arg_attrs",
            "res_attrs",
            "workgroup_attrib_attrs",
            "private_attrib_attrs",
        ],
    );
    p.write(" ");
    p.print_region(r, false, true);
    true
}

fn verify_func(m: &Module, op: OpId) -> Result<(), String> {
    let Some((ins, _)) = func_signature(m, op) else {
        return Err("requires attribute 'function_type'".into());
    };
    let Some(r) = m.regions(op).first() else {
        return Err("requires one region".into());
    };
    let Some(entry) = m.entry_block(*r) else {
        return Err("expected body with at least one block".into());
    };
    let args = m.block_args(entry);
    let Some((wg, pr)) = attributions(m, op, ins.len()) else {
        return Err(format!(
            "expected at least {} arguments to body region",
            ins.len() + num_workgroup(m, op)
        ));
    };
    for (i, (&a, t)) in args.iter().zip(&ins).enumerate() {
        if m.value_type(a) != t {
            return Err(format!(
                "expected body region argument #{i} to be of type {t}, got {}",
                m.value_type(a)
            ));
        }
    }
    verify_attributions(m, wg, "workgroup")?;
    verify_attributions(m, pr, "private")?;
    Ok(())
}

// ===== gpu.launch =====

const LAUNCH_FIXED_ARGS: usize = 12;

/// `(%x, %y, %z) in (%sx = %a, %sy = %b, %sz = %c)`: pushes the three ids to `ids`, the three
/// size arguments to `sizes_args` and the three operands to `operands`.
fn parse_size_assignment(
    p: &mut Parser<'_>,
    ids: &mut Vec<UnresolvedOperand>,
    size_args: &mut Vec<UnresolvedOperand>,
    operands: &mut Vec<UnresolvedOperand>,
) -> PResult<()> {
    let mut v = Vec::new();
    p.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
        v.push(p.parse_operand()?);
        Ok(())
    })?;
    if v.len() != 3 {
        return Err(p.error_here("expected 3 identifiers in the size assignment"));
    }
    ids.extend(v);
    p.parse_keyword("in")?;
    let mut n = 0;
    p.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
        size_args.push(p.parse_operand()?);
        p.parse_equal()?;
        operands.push(p.parse_operand()?);
        n += 1;
        Ok(())
    })?;
    if n != 3 {
        return Err(p.error_here("expected 3 size assignments"));
    }
    Ok(())
}

fn index_arg(name: UnresolvedOperand) -> Argument {
    Argument {
        name,
        ty: Type::index(),
        attrs: None,
        loc: None,
    }
}

fn parse_launch(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let (is_async, deps) = parse_async_deps(p)?;
    if is_async {
        st.result_types.push(async_token_type());
    }
    let n_deps = deps.len();
    st.operands.extend(deps);
    let (mut block_ids, mut thread_ids, mut grid_args, mut block_args) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut cluster_ids, mut cluster_args) = (Vec::new(), Vec::new());
    let (mut grid_ops, mut block_ops, mut cluster_ops) = (Vec::new(), Vec::new(), Vec::new());
    let has_cluster = p.parse_optional_keyword("clusters");
    if has_cluster {
        parse_size_assignment(p, &mut cluster_ids, &mut cluster_args, &mut cluster_ops)?;
    }
    p.parse_keyword("blocks")?;
    parse_size_assignment(p, &mut block_ids, &mut grid_args, &mut grid_ops)?;
    p.parse_keyword("threads")?;
    parse_size_assignment(p, &mut thread_ids, &mut block_args, &mut block_ops)?;
    let idx = Type::index();
    for u in grid_ops.iter().chain(&block_ops).chain(&cluster_ops) {
        let v = p.resolve_operand(u, &idx)?;
        st.operands.push(v);
    }
    let mut has_dsm = false;
    if p.parse_optional_keyword("dynamic_shared_memory_size") {
        let u = p.parse_operand()?;
        let v = p.resolve_operand(&u, &Type::int(32))?;
        st.operands.push(v);
        has_dsm = true;
    }
    if p.parse_optional_keyword("module") {
        p.parse_lparen()?;
        let s = p.parse_symbol_name()?;
        st.props.set("module", Attribute::symbol(&s));
        p.parse_rparen()?;
    }
    if p.parse_optional_keyword("function") {
        p.parse_lparen()?;
        let s = p.parse_symbol_name()?;
        st.props.set("function", Attribute::symbol(&s));
        p.parse_rparen()?;
    }
    let mut args: Vec<Argument> = block_ids
        .into_iter()
        .chain(thread_ids)
        .chain(grid_args)
        .chain(block_args)
        .chain(cluster_ids)
        .chain(cluster_args)
        .map(index_arg)
        .collect();
    let fixed = args.len();
    parse_attributions(p, "workgroup", &mut args)?;
    st.attrs.set(
        "workgroup_attributions",
        Attribute::int((args.len() - fixed) as i128, Type::int(64)),
    );
    parse_attributions(p, "private", &mut args)?;
    let r = p.parse_region(&args)?;
    st.regions.push(r);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let c = i64::from(has_cluster);
    st.props.set(
        "operandSegmentSizes",
        Attribute::i32_array(&[n_deps as i64, 1, 1, 1, 1, 1, 1, c, c, c, i64::from(has_dsm)]),
    );
    Ok(())
}

fn print_launch(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Ok(seg) = check_segments(m, op, 6, 11) else {
        return false;
    };
    let ops = m.operands(op);
    let Some(&r) = m.regions(op).first() else {
        return false;
    };
    let Some(entry) = m.entry_block(r) else {
        return false;
    };
    let has_cluster = seg[7] == 1 && seg[8] == 1 && seg[9] == 1;
    if seg[1..7].iter().any(|&s| s != 1) || (!has_cluster && seg[7..10].iter().any(|&s| s != 0)) {
        return false;
    }
    let fixed = LAUNCH_FIXED_ARGS + if has_cluster { 6 } else { 0 };
    let args = m.block_args(entry);
    let Some((wg, pr)) = attributions(m, op, fixed) else {
        return false;
    };
    if args[..fixed].iter().any(|&a| !m.value_type(a).is_index()) {
        return false;
    }
    let n_deps = seg[0] as usize;
    let token = m.results(op).len() == 1 && has_token_result(m, op);
    if !m.results(op).is_empty() && !token {
        return false;
    }
    print_async_deps(p, token, &ops[..n_deps]);
    let sizes = &ops[n_deps..];
    let assign =
        |p: &mut Printer<'_>, kw: &str, ids: &[ValueId], sargs: &[ValueId], vals: &[ValueId]| {
            p.print_keyword(kw);
            p.write("(");
            p.print_operands(ids);
            p.write(") in (");
            for i in 0..3 {
                if i > 0 {
                    p.write(", ");
                }
                p.print_operand(sargs[i]);
                p.write(" = ");
                p.print_operand(vals[i]);
            }
            p.write(")");
        };
    if has_cluster {
        assign(p, "clusters", &args[12..15], &args[15..18], &sizes[6..9]);
    }
    assign(p, "blocks", &args[0..3], &args[6..9], &sizes[0..3]);
    assign(p, "threads", &args[3..6], &args[9..12], &sizes[3..6]);
    if seg[10] == 1 {
        p.write(" dynamic_shared_memory_size ");
        p.print_operand(*ops.last().expect("segment says one"));
    }
    let d = m.op(op);
    if let Some(s) = d.props.get("module") {
        p.write(" module(");
        p.print_attr(s);
        p.write(")");
    }
    if let Some(s) = d.props.get("function") {
        p.write(" function(");
        p.print_attr(s);
        p.write(")");
    }
    print_attributions(p, "workgroup", wg, None);
    print_attributions(p, "private", pr, None);
    p.write(" ");
    p.print_region(r, false, true);
    p.print_optional_attr_dict(
        &all_attrs(m, op),
        &[
            "operandSegmentSizes",
            "workgroup_attributions",
            "module",
            "function",
        ],
    );
    true
}

fn verify_launch(m: &Module, op: OpId) -> Result<(), String> {
    let seg = check_segments(m, op, 6, 11)?;
    let Some(&r) = m.regions(op).first() else {
        return Err("requires one region".into());
    };
    let Some(entry) = m.entry_block(r) else {
        return Ok(());
    };
    let has_cluster = seg.get(7).is_some_and(|&s| s > 0);
    let fixed = LAUNCH_FIXED_ARGS + if has_cluster { 6 } else { 0 };
    let Some((wg, pr)) = attributions(m, op, fixed) else {
        return Err("unexpected number of region arguments".into());
    };
    if m.block_args(entry)[..fixed]
        .iter()
        .any(|&a| !m.value_type(a).is_index())
    {
        return Err("expected index type for the launch region arguments".into());
    }
    verify_attributions(m, wg, "workgroup")?;
    verify_attributions(m, pr, "private")?;
    for &b in m.region_blocks(r) {
        if let Some(last) = m.last_op(b) {
            if m.op(last).successors.is_empty() && m.op(last).name != "gpu.terminator" {
                return Err(
                    "expected 'gpu.terminator' or a terminator with successors at the end of each body block".into(),
                );
            }
        }
    }
    Ok(())
}

// ===== gpu.launch_func =====

fn parse_launch_func(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let (is_async, deps) = parse_async_deps(p)?;
    if is_async {
        st.result_types.push(async_token_type());
    }
    let n_deps = deps.len();
    st.operands.extend(deps);
    let mut obj = None;
    if p.consume_if(Tok::Less) {
        let u = p.parse_operand()?;
        let t = p.parse_colon_type()?;
        p.parse_greater()?;
        obj = Some((u, t));
    }
    let at = p.current_span();
    let kernel = p.parse_attribute()?;
    if !matches!(kernel, Attribute::SymbolRef { .. }) {
        return Err(crate::Diagnostic::new(
            at,
            "custom op 'gpu.launch_func' invalid kind of attribute specified",
        ));
    }
    st.props.set("kernel", kernel);
    let three = |p: &mut Parser<'_>| -> PResult<Vec<UnresolvedOperand>> {
        p.parse_keyword("in")?;
        let at = p.current_span();
        let v = p.parse_operand_list_delimited(Delimiter::Paren)?;
        if v.len() != 3 {
            return Err(crate::Diagnostic::new(at, "expected three sizes"));
        }
        Ok(v)
    };
    let mut cluster = Vec::new();
    if p.parse_optional_keyword("clusters") {
        cluster = three(p)?;
    }
    p.parse_keyword("blocks")?;
    let grid = three(p)?;
    p.parse_keyword("threads")?;
    let block = three(p)?;
    let dim_ty = if p.consume_if(Tok::Colon) {
        p.parse_type()?
    } else {
        Type::index()
    };
    for u in grid.iter().chain(&block).chain(&cluster) {
        let v = p.resolve_operand(u, &dim_ty)?;
        st.operands.push(v);
    }
    let mut has_dsm = false;
    if p.parse_optional_keyword("dynamic_shared_memory_size") {
        let u = p.parse_operand()?;
        let v = p.resolve_operand(&u, &Type::int(32))?;
        st.operands.push(v);
        has_dsm = true;
    }
    let mut n_args = 0;
    if p.parse_optional_keyword("args") {
        let mut pairs = Vec::new();
        p.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
            let u = p.parse_operand()?;
            let t = p.parse_colon_type()?;
            pairs.push((u, t));
            Ok(())
        })?;
        for (u, t) in &pairs {
            let v = p.resolve_operand(u, t)?;
            st.operands.push(v);
        }
        n_args = pairs.len();
    }
    let has_obj = obj.is_some();
    if let Some((u, t)) = obj {
        let v = p.resolve_operand(&u, &t)?;
        st.operands.push(v);
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let c = i64::from(!cluster.is_empty());
    st.props.set(
        "operandSegmentSizes",
        Attribute::i32_array(&[
            n_deps as i64,
            1,
            1,
            1,
            1,
            1,
            1,
            c,
            c,
            c,
            i64::from(has_dsm),
            n_args as i64,
            i64::from(has_obj),
        ]),
    );
    Ok(())
}

fn print_launch_func(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Ok(seg) = check_segments(m, op, 6, 13) else {
        return false;
    };
    let Some(kernel) = m
        .op(op)
        .props
        .get("kernel")
        .filter(|k| matches!(k, Attribute::SymbolRef { .. }))
    else {
        return false;
    };
    let has_cluster = seg[7] == 1 && seg[8] == 1 && seg[9] == 1;
    if seg[1..7].iter().any(|&s| s != 1)
        || (!has_cluster && seg[7..10].iter().any(|&s| s != 0))
        || seg[10] > 1
        || seg[12] > 1
    {
        return false;
    }
    let token = m.results(op).len() == 1 && has_token_result(m, op);
    if !m.results(op).is_empty() && !token {
        return false;
    }
    let ops = m.operands(op);
    let mut starts = Vec::with_capacity(seg.len());
    let mut acc = 0usize;
    for &s in &seg {
        starts.push(acc);
        acc += s as usize;
    }
    let range = |i: usize| &ops[starts[i]..starts[i] + seg[i] as usize];
    let dim_ty = m.value_type(ops[starts[1]]).clone();
    let dims: Vec<ValueId> = (1..7).map(|i| ops[starts[i]]).collect();
    if dims.iter().any(|&v| *m.value_type(v) != dim_ty)
        || (has_cluster && (7..10).any(|i| *m.value_type(ops[starts[i]]) != dim_ty))
    {
        return false;
    }
    print_async_deps(p, token, range(0));
    if let Some(&o) = range(12).first() {
        p.write(" <");
        p.print_operand(o);
        p.write(" : ");
        p.print_type(m.value_type(o));
        p.write(">");
    }
    p.write(" ");
    p.print_attr(kernel);
    if has_cluster {
        p.write(" clusters in (");
        p.print_operands(&[ops[starts[7]], ops[starts[8]], ops[starts[9]]]);
        p.write(")");
    }
    p.write(" blocks in (");
    p.print_operands(&dims[0..3]);
    p.write(") threads in (");
    p.print_operands(&dims[3..6]);
    p.write(")");
    if !dim_ty.is_index() {
        p.write(" : ");
        p.print_type(&dim_ty);
    }
    if let Some(&v) = range(10).first() {
        p.write(" dynamic_shared_memory_size ");
        p.print_operand(v);
    }
    let args = range(11);
    if !args.is_empty() {
        p.write(" args(");
        for (i, &a) in args.iter().enumerate() {
            if i > 0 {
                p.write(", ");
            }
            p.print_operand(a);
            p.write(" : ");
            p.print_type(m.value_type(a));
        }
        p.write(")");
    }
    p.print_optional_attr_dict(&all_attrs(m, op), &["operandSegmentSizes", "kernel"]);
    true
}

/// The closest enclosing `builtin.module` of `op`.
fn enclosing_module(m: &Module, op: OpId) -> Option<OpId> {
    let mut cur = m.parent_op(op);
    while let Some(o) = cur {
        if m.op(o).name == "builtin.module" {
            return Some(o);
        }
        cur = m.parent_op(o);
    }
    None
}

/// The op defining symbol `name` directly inside the single-block region of `table`.
pub fn lookup_symbol(m: &Module, table: OpId, name: &str) -> Option<OpId> {
    let r = *m.regions(table).first()?;
    let b = m.entry_block(r)?;
    m.block_ops(b)
        .find(|&o| attr(m, o, "sym_name").and_then(|a| a.as_str()) == Some(name))
}

fn verify_launch_func(m: &Module, op: OpId) -> Result<(), String> {
    let seg = check_segments(m, op, 6, 13)?;
    let Some(Attribute::SymbolRef { root, nested }) = m.op(op).props.get("kernel") else {
        return Err("requires attribute 'kernel'".into());
    };
    let module = enclosing_module(m, op);
    let Some(module) = module.filter(|&md| m.op(md).attrs.contains("gpu.container_module")) else {
        return Err(
            "expected the closest surrounding module to have the 'gpu.container_module' attribute"
                .into(),
        );
    };
    let Some(container) = lookup_symbol(m, module, root) else {
        return Err(format!("kernel container '{root}' is undefined"));
    };
    let Some(fname) = nested.last() else {
        return Err("kernel symbol must be a nested reference @module::@kernel".into());
    };
    if m.op(container).name != "gpu.module" {
        // Only gpu.module (and binaries, which memplan keeps opaque) contain kernels.
        if m.op(container).name == "gpu.binary" {
            return Ok(());
        }
        return Err(format!("kernel module '{root}' is undefined"));
    }
    let full = format!("@{root}::@{fname}");
    let Some(f) = lookup_symbol(m, container, fname) else {
        return Err(format!("kernel function '{full}' is undefined"));
    };
    if m.op(f).name != "gpu.func" && m.op(f).name != "llvm.func" {
        return Err(format!("referenced kernel '{full}' is not a function"));
    }
    if attr(m, f, "gpu.kernel").is_none() && m.op(f).name == "gpu.func" {
        return Err("kernel function is missing the 'gpu.kernel' attribute".into());
    }
    let Some((ins, _)) = func_signature(m, f) else {
        return Ok(());
    };
    let start: i64 = seg[..11].iter().sum();
    let args = &m.operands(op)[start as usize..(start + seg[11]) as usize];
    if args.len() != ins.len() {
        return Err(format!(
            "got {} kernel operands but expected {}",
            args.len(),
            ins.len()
        ));
    }
    for (i, (&a, t)) in args.iter().zip(&ins).enumerate() {
        if m.value_type(a) != t {
            return Err(format!("type of function argument {i} does not match"));
        }
    }
    Ok(())
}

// ===== small ops =====

fn parse_dim_op(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let Some(d) = p.parse_optional_keyword_of(&["x", "y", "z"]) else {
        return Err(p.error_expected("dimension 'x', 'y' or 'z'"));
    };
    st.props
        .set("dimension", Attribute::Opaque(format!("#gpu<dim {d}>")));
    if p.parse_optional_keyword("upper_bound") {
        let v = p.parse_integer()?;
        st.props
            .set("upper_bound", Attribute::int(i128::from(v), Type::index()));
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    st.result_types.push(Type::index());
    Ok(())
}

fn dim_name(a: &Attribute) -> Option<&'static str> {
    let Attribute::Opaque(s) = a else { return None };
    let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    match compact.as_str() {
        "#gpu<dimx>" => Some("x"),
        "#gpu<dimy>" => Some("y"),
        "#gpu<dimz>" => Some("z"),
        _ => None,
    }
}

fn print_dim_op(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let Some(dim) = d.props.get("dimension").and_then(dim_name) else {
        return false;
    };
    if m.results(op).len() != 1
        || !m.value_type(m.result(op, 0)).is_index()
        || !m.operands(op).is_empty()
    {
        return false;
    }
    p.print_keyword(dim);
    if let Some(ub) = d.props.get("upper_bound") {
        let Some(v) = ub.as_int() else { return false };
        p.write(&format!(" upper_bound {v}"));
    }
    p.print_optional_attr_dict(&d.attrs, &[]);
    true
}

fn parse_attr_dict_only(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(&mut st.attrs)
}

fn print_attr_dict_only(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    if !m.operands(op).is_empty() || !m.results(op).is_empty() || !d.props.is_empty() {
        return false;
    }
    p.print_optional_attr_dict(&d.attrs, &[]);
    true
}

/// `attr-dict ($values^ : type($values))?` (gpu.return, gpu.yield).
fn parse_values_terminator(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let at = p.current_span();
    let ops = p.parse_operand_list()?;
    if !ops.is_empty() {
        let tys = p.parse_colon_type_list()?;
        st.operands = p.resolve_operands(&ops, &tys, at)?;
    }
    Ok(())
}

fn print_values_terminator(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    if !m.results(op).is_empty() || !d.props.is_empty() || !d.successors.is_empty() {
        return false;
    }
    p.print_optional_attr_dict(&d.attrs, &[]);
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
    if m.op(f).name != "gpu.func" {
        return Err("expects parent op 'gpu.func'".into());
    }
    let Some((_, outs)) = func_signature(m, f) else {
        return Ok(());
    };
    let ops = m.operands(op);
    if ops.len() != outs.len() {
        return Err(format!(
            "expected {} result operands, got {}",
            outs.len(),
            ops.len()
        ));
    }
    for (i, (&v, t)) in ops.iter().zip(&outs).enumerate() {
        if m.value_type(v) != t {
            return Err(format!(
                "unexpected type `{}' for operand #{i}",
                m.value_type(v)
            ));
        }
    }
    Ok(())
}

fn parse_alloc(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let (is_async, deps) = parse_async_deps(p)?;
    let n_deps = deps.len();
    st.operands.extend(deps);
    if p.parse_optional_keyword("host_shared") {
        st.props.set("hostShared", Attribute::Unit);
    }
    let dyn_sizes = p.parse_operand_list_delimited(Delimiter::Paren)?;
    let syms = if p.at(Tok::LBracket) {
        p.parse_operand_list_delimited(Delimiter::Square)?
    } else {
        Vec::new()
    };
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let ty = p.parse_colon_type()?;
    let idx = Type::index();
    let a = p.resolve_operands_same(&dyn_sizes, &idx)?;
    st.operands.extend(a);
    let s = p.resolve_operands_same(&syms, &idx)?;
    st.operands.extend(s);
    st.result_types.push(ty);
    if is_async {
        st.result_types.push(async_token_type());
    }
    st.props.set(
        "operandSegmentSizes",
        Attribute::i32_array(&[n_deps as i64, dyn_sizes.len() as i64, syms.len() as i64]),
    );
    Ok(())
}

fn print_alloc(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Ok(seg) = check_segments(m, op, 0, 3) else {
        return false;
    };
    let n = m.results(op).len();
    let token = n == 2 && has_token_result(m, op);
    if !(n == 1 || token) {
        return false;
    }
    let ops = m.operands(op);
    let (a, b) = (seg[0] as usize, seg[1] as usize);
    print_async_deps(p, token, &ops[..a]);
    if m.op(op).props.contains("hostShared") {
        p.write(" host_shared");
    }
    p.write(" (");
    p.print_operands(&ops[a..a + b]);
    p.write(")");
    if seg[2] > 0 {
        p.write("[");
        p.print_operands(&ops[a + b..]);
        p.write("]");
    }
    p.print_optional_attr_dict(&m.op(op).attrs, &[]);
    p.write(" : ");
    p.print_type(m.value_type(m.result(op, 0)));
    true
}

fn verify_alloc(m: &Module, op: OpId) -> Result<(), String> {
    let seg = check_segments(m, op, 0, 3)?;
    let Some(&r) = m.results(op).first() else {
        return Err("requires a memref result".into());
    };
    let t = m.value_type(r);
    let Some(shape) = t
        .shape()
        .filter(|_| matches!(t.kind(), TypeKind::MemRef { .. }))
    else {
        return Err("result #0 must be memref of any type values".into());
    };
    let dynamic = shape.iter().filter(|&&d| d == crate::DYNAMIC).count();
    if dynamic as i64 != seg[1] {
        return Err("dimension operand count does not equal memref dynamic dimension count".into());
    }
    // The layout's symbols (an affine map's, or a strided layout's dynamic strides/offset)
    // each take one symbol operand.
    let nsyms = match t.kind() {
        TypeKind::MemRef {
            layout: Some(Attribute::AffineMap(am)),
            ..
        } => am.num_symbols as usize,
        TypeKind::MemRef {
            layout: Some(Attribute::Strided { strides, offset }),
            ..
        } => {
            strides.iter().filter(|&&s| s == crate::DYNAMIC).count()
                + usize::from(*offset == crate::DYNAMIC)
        }
        _ => 0,
    };
    if nsyms as i64 != seg[2] {
        return Err("symbol operand count does not equal memref symbol count".into());
    }
    Ok(())
}

fn parse_dealloc(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let (is_async, deps) = parse_async_deps(p)?;
    st.operands.extend(deps);
    let u = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    let v = p.resolve_operand(&u, &t)?;
    st.operands.push(v);
    if is_async {
        st.result_types.push(async_token_type());
    }
    Ok(())
}

fn print_dealloc(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(rest) = print_async_head(p, op, 1) else {
        return false;
    };
    p.write(" ");
    p.print_operand(rest[0]);
    p.print_optional_attr_dict(&m.op(op).attrs, &[]);
    p.write(" : ");
    p.print_type(m.value_type(rest[0]));
    true
}

fn parse_wait(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let (is_async, deps) = parse_async_deps(p)?;
    st.operands.extend(deps);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    if is_async {
        st.result_types.push(async_token_type());
    }
    Ok(())
}

fn print_wait(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    if print_async_head(p, op, 0).is_none() {
        return false;
    }
    p.print_optional_attr_dict(&m.op(op).attrs, &[]);
    true
}

/// `gpu.memcpy` / `gpu.memset`: `[async] [deps] %a, %b attr-dict : type(a), type(b)`.
fn parse_copy_like(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let (is_async, deps) = parse_async_deps(p)?;
    st.operands.extend(deps);
    let a = p.parse_operand()?;
    p.parse_comma()?;
    let b = p.parse_operand()?;
    // `... : type($dst), type($src) attr-dict`: the attributes come last
    let ta = p.parse_colon_type()?;
    p.parse_comma()?;
    let tb = p.parse_type()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let va = p.resolve_operand(&a, &ta)?;
    let vb = p.resolve_operand(&b, &tb)?;
    st.operands.push(va);
    st.operands.push(vb);
    if is_async {
        st.result_types.push(async_token_type());
    }
    Ok(())
}

fn print_copy_like(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(rest) = print_async_head(p, op, 2) else {
        return false;
    };
    p.write(" ");
    p.print_operands(rest);
    p.write(" : ");
    p.print_value_types(rest);
    p.print_optional_attr_dict(&m.op(op).attrs, &[]);
    true
}

/// The reduction kind of `gpu.all_reduce` / `gpu.subgroup_reduce` (`add`, `and`, ...).
fn reduce_kind(m: &Module, op: OpId) -> Option<String> {
    match attr(m, op, "op")? {
        Attribute::Opaque(t) => t
            .strip_prefix("#gpu<all_reduce_op")
            .and_then(|r| r.strip_suffix('>'))
            .map(|k| k.trim().to_string()),
        _ => None,
    }
}

/// MLIR's `verifyReduceOpAndType`: float-only and integer-only reduction kinds.
fn check_reduce_kind(kind: &str, elem: &Type, whole: &Type) -> Result<(), String> {
    let float_only = matches!(kind, "minnumf" | "maxnumf" | "minimumf" | "maximumf");
    let int_only = matches!(
        kind,
        "minsi" | "minui" | "maxsi" | "maxui" | "and" | "or" | "xor"
    );
    if (float_only && !elem.is_float()) || (int_only && !elem.is_integer()) {
        return Err(format!(
            "`{kind}` reduction operation is not compatible with type {whole}"
        ));
    }
    Ok(())
}

/// As MLIR's AllReduceOp::verifyRegions (after the op table's checks).
fn verify_all_reduce(m: &Module, op: OpId) -> Result<(), String> {
    crate::ods::verify_op(m, op)?;
    let body = m.regions(op).first().copied();
    let blocks = body
        .map(|r| m.region_blocks(r).to_vec())
        .unwrap_or_default();
    let kind = reduce_kind(m, op);
    if blocks.is_empty() == kind.is_none() {
        return Err("expected either an op attribute or a non-empty body".into());
    }
    let Some(&r) = m.results(op).first() else {
        return Ok(());
    };
    let t = m.value_type(r).clone();
    if let Some(k) = kind {
        return check_reduce_kind(&k, &t, &t);
    }
    let args = m.block_args(blocks[0]);
    if args.len() != 2 {
        return Err("expected two region arguments".into());
    }
    if args.iter().any(|&a| m.value_type(a) != &t) {
        return Err("incorrect region argument type".into());
    }
    let mut yields = 0;
    for &b in &blocks {
        if let Some(y) = m.last_op(b).filter(|&y| m.op(y).name == "gpu.yield") {
            if m.operands(y).len() != 1 {
                return Err("expected one gpu.yield operand".into());
            }
            if m.value_type(m.operands(y)[0]) != &t {
                return Err("incorrect gpu.yield type".into());
            }
            yields += 1;
        }
    }
    if yields == 0 {
        return Err("expected gpu.yield op in region".into());
    }
    Ok(())
}

/// As MLIR's SubgroupReduceOp::verify (after the op table's checks).
fn verify_subgroup_reduce(m: &Module, op: OpId) -> Result<(), String> {
    crate::ods::verify_op(m, op)?;
    let Some(&r) = m.results(op).first() else {
        return Ok(());
    };
    let t = m.value_type(r);
    let elem = match t.kind() {
        TypeKind::Vector { scalable, elem, .. } => {
            if scalable.iter().any(|&s| s) {
                return Err("is not compatible with scalable vector types".into());
            }
            elem
        }
        _ => t,
    };
    if let Some(k) = reduce_kind(m, op) {
        check_reduce_kind(&k, elem, t)?;
    }
    let size = attr(m, op, "cluster_size").and_then(Attribute::as_int);
    if let Some(n) = size {
        if n <= 0 || n & (n - 1) != 0 {
            return Err(format!("cluster size {n} is not a power of two"));
        }
    }
    let stride = attr(m, op, "cluster_stride")
        .and_then(Attribute::as_int)
        .unwrap_or(1);
    if stride != 1 && size.is_none() {
        return Err("cluster stride can only be specified if cluster size is specified".into());
    }
    if stride <= 0 || stride & (stride - 1) != 0 {
        return Err(format!("cluster stride {stride} is not a power of two"));
    }
    Ok(())
}

fn verify_shuffle(m: &Module, op: OpId) -> Result<(), String> {
    let (Some(&v), Some(&r)) = (m.operands(op).first(), m.results(op).first()) else {
        return Err("expects a value operand and a result".into());
    };
    if m.value_type(v) != m.value_type(r) {
        return Err("failed to verify that all of {value, shuffleResult} have same type".into());
    }
    let t = m.value_type(v);
    let ok = t.is_integer()
        || t.is_float()
        || matches!(t.kind(), TypeKind::Vector { shape, .. } if shape.len() == 1);
    if !ok {
        return Err(format!(
            "operand #0 must be Integer or Float or fixed-length vector of Integer or Float values of ranks 1, but got '{t}'"
        ));
    }
    Ok(())
}
