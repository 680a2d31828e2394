//! The `vector` dialect (mlir/include/mlir/Dialect/Vector/IR/VectorOps.td; custom forms in
//! mlir/lib/Dialect/Vector/IR/VectorOps.cpp). Transfer ops get MLIR's implicit defaults on
//! parse: a minor-identity `permutation_map`, an all-`false` `in_bounds` and a mask type
//! inferred through the inverse permutation; the printer leaves defaults out again.
//! Positions of `extract`/`insert` are mixed static/dynamic lists (`[%i, 2]`).
//! Ops without a custom form here (`vector.mask`, `vector.contract`, ...) still read and
//! print in generic form.
//!
//! ```text
//! %r = vector.transfer_read %t[%i, %j], %pad {in_bounds = [true, false]} : tensor<?x?xf32>, vector<4x8xf32>
//! vector.transfer_write %v, %m[%i, %j] : vector<4x8xf32>, memref<?x?xf32>
//! %e = vector.extract %v[%i, 2] : f32 from vector<4x8xf32>
//! %s = vector.shuffle %a, %b [0, 3] : vector<2xf32>, vector<2xf32>
//! %g = vector.gather %base[%c0][%idx], %mask, %pass : memref<?xf32>, vector<16xi32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
//! %x = vector.reduction <add>, %v : vector<8xf32> into f32
//! ```

use crate::affine::{AffineExpr, AffineMap};
use crate::dialects::arith::{inherent, parse_optional_flags, print_flags};
use crate::ir::{Module, OpId, OperationState, ValueId};
use crate::lexer::Tok;
use crate::parser::{Delimiter, PResult, Parser, UnresolvedOperand};
use crate::printer::Printer;
use crate::registry::{OpDef, ParseFn, PrintFn, Registry};
use crate::types::{TypeKind, DYNAMIC};
use crate::{Attribute, Diagnostic, Type};

/// Registers the vector ops.
pub fn register(r: &mut Registry) {
    let ops: &[(&str, ParseFn, PrintFn, &[&str])] = &[
        (
            "vector.transfer_read",
            parse_transfer,
            print_transfer,
            &["in_bounds", "operandSegmentSizes", "permutation_map"],
        ),
        (
            "vector.transfer_write",
            parse_transfer,
            print_transfer,
            &["in_bounds", "operandSegmentSizes", "permutation_map"],
        ),
        (
            "vector.load",
            parse_load_store,
            print_load_store,
            &["nontemporal"],
        ),
        (
            "vector.store",
            parse_load_store,
            print_load_store,
            &["nontemporal"],
        ),
        ("vector.broadcast", parse_cast, print_cast, &[]),
        ("vector.bitcast", parse_cast, print_cast, &[]),
        ("vector.shape_cast", parse_cast, print_cast, &[]),
        (
            "vector.extract",
            parse_extract,
            print_extract,
            &["static_position"],
        ),
        (
            "vector.insert",
            parse_extract,
            print_extract,
            &["static_position"],
        ),
        ("vector.shuffle", parse_shuffle, print_shuffle, &["mask"]),
        ("vector.gather", parse_gather, print_gather, &[]),
        ("vector.scatter", parse_gather, print_gather, &[]),
        (
            "vector.reduction",
            parse_reduction,
            print_reduction,
            &["kind", "fastmath"],
        ),
        ("vector.fma", parse_fma, print_fma, &[]),
        (
            "vector.constant_mask",
            parse_constant_mask,
            print_constant_mask,
            &["mask_dim_sizes"],
        ),
        ("vector.create_mask", parse_list_op, print_list_op, &[]),
        ("vector.from_elements", parse_list_op, print_list_op, &[]),
        ("vector.step", parse_list_op, print_list_op, &[]),
    ];
    r.register(OpDef {
        parse: Some(parse_contract),
        print: Some(print_contract),
        verify: Some(verify_contract),
        inherent: CONTRACT_TRAIT,
        ..OpDef::new("vector.contract")
    });
    r.register(OpDef {
        parse: Some(parse_outerproduct),
        print: Some(print_outerproduct),
        verify: Some(verify_outerproduct),
        inherent: &["kind"],
        ..OpDef::new("vector.outerproduct")
    });
    r.register(OpDef {
        parse: Some(parse_mask),
        print: Some(print_mask),
        verify: Some(verify_mask),
        traits: crate::registry::traits::SINGLE_BLOCK,
        ..OpDef::new("vector.mask")
    });
    for &(n, parse, print, inh) in ops {
        r.register(OpDef {
            parse: Some(parse),
            print: Some(print),
            verify: Some(verify_vector),
            inherent: inh,
            ..OpDef::new(n)
        });
    }
}

// ===== helpers =====

fn vshape(t: &Type) -> Option<(&[i64], &[bool], &Type)> {
    match t.kind() {
        TypeKind::Vector {
            shape,
            scalable,
            elem,
        } => Some((shape, scalable, elem)),
        _ => None,
    }
}

fn rank(t: &Type) -> usize {
    t.shape().map_or(0, <[i64]>::len)
}

fn vector_of(shape: Vec<i64>, scalable: Vec<bool>, elem: Type) -> Type {
    Type::new(TypeKind::Vector {
        shape,
        scalable,
        elem,
    })
}

fn resolve_idx(p: &mut Parser<'_>, us: &[UnresolvedOperand]) -> PResult<Vec<ValueId>> {
    p.resolve_operands_same(us, &Type::index())
}

fn one_result(m: &Module, op: OpId) -> Option<&Type> {
    match m.results(op) {
        [r] => Some(m.value_type(*r)),
        _ => None,
    }
}

fn bracket_operands(p: &mut Printer<'_>, vs: &[ValueId]) {
    p.write("[");
    p.print_operands(vs);
    p.write("]");
}

// ===== transfer ops =====

/// `(d0, ..., d{n-1}) -> (d{n-k}, ..., d{n-1})`.
fn minor_identity(n: usize, k: usize) -> AffineMap {
    AffineMap {
        num_dims: n as u32,
        num_symbols: 0,
        results: (n.saturating_sub(k)..n)
            .map(|d| AffineExpr::Dim(d as u32))
            .collect(),
    }
}

/// MLIR's `inferTransferOpMaskType`: vector sizes reordered by the memory dims they use.
fn mask_type(vt: &Type, map: &AffineMap) -> Type {
    let (shape, scal) = vshape(vt)
        .map(|(s, sc, _)| (s.to_vec(), sc.to_vec()))
        .unwrap_or_default();
    let mut used: Vec<(u32, usize)> = map
        .results
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match e {
            AffineExpr::Dim(d) => Some((*d, i)),
            _ => None,
        })
        .collect();
    used.sort_unstable();
    let mut ms: Vec<i64> = used
        .iter()
        .filter_map(|&(_, i)| shape.get(i).copied())
        .collect();
    let mut sc: Vec<bool> = used
        .iter()
        .map(|&(_, i)| scal.get(i).copied().unwrap_or(false))
        .collect();
    if ms.is_empty() {
        ms.push(1);
        sc.push(false);
    }
    vector_of(ms, sc, Type::int(1))
}

fn bool_array(n: usize) -> Attribute {
    Attribute::Array(vec![Attribute::Bool(false); n])
}

fn parse_transfer(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let read = st.name == "vector.transfer_read";
    let vec_u = if read {
        None
    } else {
        let v = p.parse_operand()?;
        p.parse_comma()?;
        Some(v)
    };
    let src = p.parse_operand()?;
    let idx = p.parse_operand_list_delimited(Delimiter::Square)?;
    let pad = if read {
        p.parse_comma()?;
        Some(p.parse_operand()?)
    } else {
        None
    };
    let mask = if p.consume_if(Tok::Comma) {
        Some(p.parse_operand()?)
    } else {
        None
    };
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.parse_colon()?;
    let at = p.current_span();
    let t1 = p.parse_type()?;
    p.parse_comma()?;
    let t2 = p.parse_type()?;
    let (shaped, vt) = if read { (t1, t2) } else { (t2, t1) };
    if vshape(&vt).is_none() {
        return Err(Diagnostic::new(
            at,
            format!("requires vector type, found '{vt}'"),
        ));
    }
    let map = match st.attrs.remove("permutation_map") {
        Some(Attribute::AffineMap(m)) => m,
        Some(_) => {
            return Err(Diagnostic::new(
                at,
                "expected an affine map for permutation_map",
            ))
        }
        None => minor_identity(rank(&shaped), rank(&vt)),
    };
    let in_bounds = st
        .attrs
        .remove("in_bounds")
        .unwrap_or_else(|| bool_array(map.results.len()));
    let Some(elem) = shaped.element_type().cloned() else {
        return Err(Diagnostic::new(
            at,
            format!("requires shaped type, found '{shaped}'"),
        ));
    };
    let mt = mask_type(&vt, &map);
    if let Some(v) = vec_u {
        st.operands.push(p.resolve_operand(&v, &vt)?);
    }
    st.operands.push(p.resolve_operand(&src, &shaped)?);
    st.operands.extend(resolve_idx(p, &idx)?);
    if let Some(pd) = pad {
        st.operands.push(p.resolve_operand(&pd, &elem)?);
    }
    if let Some(mk) = &mask {
        st.operands.push(p.resolve_operand(mk, &mt)?);
    }
    let nm = i64::from(mask.is_some());
    let seg = if read {
        [1, idx.len() as i64, 1, nm]
    } else {
        [1, 1, idx.len() as i64, nm]
    };
    st.props.set("in_bounds", in_bounds);
    st.props
        .set("operandSegmentSizes", Attribute::i32_array(&seg));
    st.props.set("permutation_map", Attribute::AffineMap(map));
    if read {
        st.result_types.push(vt);
    } else if matches!(shaped.kind(), TypeKind::RankedTensor { .. }) {
        st.result_types.push(shaped);
    }
    Ok(())
}

fn print_transfer(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let read = d.name == "vector.transfer_read";
    let ops = m.operands(op);
    let Some(seg) = d
        .props
        .get("operandSegmentSizes")
        .and_then(Attribute::as_int_array)
        .and_then(|s| {
            s.iter()
                .map(|&x| usize::try_from(x).ok())
                .collect::<Option<Vec<_>>>()
        })
    else {
        return false;
    };
    if seg.len() != 4 || seg.iter().sum::<usize>() != ops.len() || seg[0] != 1 {
        return false;
    }
    let (vec, src, idx, pad, mask) = if read {
        let (i0, i1) = (1, 1 + seg[1]);
        if seg[2] != 1 {
            return false;
        }
        (
            None,
            ops[0],
            &ops[i0..i1],
            Some(ops[i1]),
            ops.get(i1 + 1).copied(),
        )
    } else {
        if seg[1] != 1 {
            return false;
        }
        let i1 = 2 + seg[2];
        (
            Some(ops[0]),
            ops[1],
            &ops[2..i1],
            None,
            ops.get(i1).copied(),
        )
    };
    let vt = match (read, vec) {
        (true, _) => match one_result(m, op) {
            Some(t) => t.clone(),
            None => return false,
        },
        (false, Some(v)) => m.value_type(v).clone(),
        _ => return false,
    };
    let st = m.value_type(src);
    let Some(Attribute::AffineMap(map)) = d.props.get("permutation_map") else {
        return false;
    };
    if let Some(mk) = mask {
        if *m.value_type(mk) != mask_type(&vt, map) {
            return false;
        }
    }
    p.write(" ");
    if let Some(v) = vec {
        p.print_operand(v);
        p.write(", ");
    }
    p.print_operand(src);
    bracket_operands(p, idx);
    if let Some(pd) = pad {
        p.write(", ");
        p.print_operand(pd);
    }
    if let Some(mk) = mask {
        p.write(", ");
        p.print_operand(mk);
    }
    let mut extra = crate::Dict::new();
    if *map != minor_identity(rank(st), rank(&vt)) {
        extra.set("permutation_map", Attribute::AffineMap(map.clone()));
    }
    if let Some(ib) = d.props.get("in_bounds") {
        let all_false =
            matches!(ib, Attribute::Array(v) if v.iter().all(|x| *x == Attribute::Bool(false)));
        if !all_false {
            extra.set("in_bounds", ib.clone());
        }
    }
    for n in d.attrs.iter() {
        extra.set(n.name.clone(), n.value.clone());
    }
    p.print_optional_attr_dict(&extra, &[]);
    p.write(" : ");
    if read {
        p.print_type(st);
        p.write(", ");
        p.print_type(&vt);
    } else {
        p.print_type(&vt);
        p.write(", ");
        p.print_type(st);
    }
    true
}

// ===== load / store =====

fn parse_load_store(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let store = st.name == "vector.store";
    let v = if store {
        let v = p.parse_operand()?;
        p.parse_comma()?;
        Some(v)
    } else {
        None
    };
    let base = p.parse_operand()?;
    let idx = p.parse_operand_list_delimited(Delimiter::Square)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let bt = p.parse_colon_type()?;
    p.parse_comma()?;
    let vt = p.parse_type()?;
    if let Some(v) = v {
        st.operands.push(p.resolve_operand(&v, &vt)?);
    }
    st.operands.push(p.resolve_operand(&base, &bt)?);
    st.operands.extend(resolve_idx(p, &idx)?);
    if !store {
        st.result_types.push(vt);
    }
    Ok(())
}

fn print_load_store(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let store = d.name == "vector.store";
    let ops = m.operands(op);
    let k = usize::from(store);
    if ops.len() <= k {
        return false;
    }
    let vt = if store {
        m.value_type(ops[0]).clone()
    } else {
        match one_result(m, op) {
            Some(t) => t.clone(),
            None => return false,
        }
    };
    p.write(" ");
    if store {
        p.print_operand(ops[0]);
        p.write(", ");
    }
    p.print_operand(ops[k]);
    bracket_operands(p, &ops[k + 1..]);
    let mut all = d.props.clone();
    for n in d.attrs.iter() {
        all.set(n.name.clone(), n.value.clone());
    }
    p.print_optional_attr_dict(&all, &[]);
    p.write(" : ");
    p.print_type(m.value_type(ops[k]));
    p.write(", ");
    p.print_type(&vt);
    true
}

// ===== casts / broadcast =====

fn parse_cast(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let a = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t1 = p.parse_colon_type()?;
    p.parse_keyword("to")?;
    let t2 = p.parse_type()?;
    st.operands.push(p.resolve_operand(&a, &t1)?);
    st.result_types.push(t2);
    Ok(())
}

fn print_cast(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let (Some(t), [a]) = (one_result(m, op), m.operands(op)) else {
        return false;
    };
    p.write(" ");
    p.print_operand(*a);
    p.print_optional_attr_dict(&m.op(op).attrs, &[]);
    p.write(" : ");
    p.print_type(m.value_type(*a));
    p.write(" to ");
    p.print_type(t);
    true
}

// ===== extract / insert =====

fn parse_extract(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let insert = st.name == "vector.insert";
    let first = p.parse_operand()?;
    let dest = if insert {
        p.parse_comma()?;
        Some(p.parse_operand()?)
    } else {
        None
    };
    let mut dy = Vec::new();
    let pos = p.parse_dynamic_index_list(&mut dy, Delimiter::Square)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t1 = p.parse_colon_type()?;
    p.parse_keyword(if insert { "into" } else { "from" })?;
    let t2 = p.parse_type()?;
    st.operands
        .push(p.resolve_operand(&first, if insert { &t1 } else { &t2 })?);
    if let Some(dd) = dest {
        st.operands.push(p.resolve_operand(&dd, &t2)?);
    }
    st.operands.extend(resolve_idx(p, &dy)?);
    st.props.set("static_position", Attribute::i64_array(&pos));
    st.result_types.push(if insert { t2 } else { t1 });
    Ok(())
}

fn print_extract(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let insert = d.name == "vector.insert";
    let ops = m.operands(op);
    let fixed = if insert { 2 } else { 1 };
    let Some(pos) = d
        .props
        .get("static_position")
        .and_then(Attribute::as_int_array)
    else {
        return false;
    };
    let Some(rt) = one_result(m, op) else {
        return false;
    };
    if ops.len() < fixed || pos.iter().filter(|&&x| x == DYNAMIC).count() != ops.len() - fixed {
        return false;
    }
    p.write(" ");
    p.print_operand(ops[0]);
    if insert {
        p.write(", ");
        p.print_operand(ops[1]);
        p.write(" ");
    }
    p.print_dynamic_index_list(&ops[fixed..], pos, '[', ']');
    p.print_optional_attr_dict(&d.attrs, &[]);
    p.write(" : ");
    if insert {
        p.print_type(m.value_type(ops[0]));
        p.write(" into ");
        p.print_type(rt);
    } else {
        p.print_type(rt);
        p.write(" from ");
        p.print_type(m.value_type(ops[0]));
    }
    true
}

// ===== shuffle =====

fn shuffle_result(t1: &Type, n: usize) -> Option<Type> {
    let (shape, scal, e) = vshape(t1)?;
    let mut s = vec![n as i64];
    let mut sc = vec![false];
    if shape.len() > 1 {
        s.extend_from_slice(&shape[1..]);
        sc.extend_from_slice(&scal[1..]);
    }
    Some(vector_of(s, sc, e.clone()))
}

fn parse_shuffle(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let a = p.parse_operand()?;
    p.parse_comma()?;
    let b = p.parse_operand()?;
    let mut mask = Vec::new();
    p.parse_comma_separated_list(Delimiter::Square, &mut |p| {
        mask.push(p.parse_integer()?);
        Ok(())
    })?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let at = p.current_span();
    let t1 = p.parse_colon_type()?;
    p.parse_comma()?;
    let t2 = p.parse_type()?;
    let Some(rt) = shuffle_result(&t1, mask.len()) else {
        return Err(Diagnostic::new(
            at,
            format!("expected a vector type, found '{t1}'"),
        ));
    };
    st.operands.push(p.resolve_operand(&a, &t1)?);
    st.operands.push(p.resolve_operand(&b, &t2)?);
    st.props.set("mask", Attribute::i64_array(&mask));
    st.result_types.push(rt);
    Ok(())
}

fn print_shuffle(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let ops = m.operands(op);
    let (Some(rt), Some(mask)) = (
        one_result(m, op),
        d.props.get("mask").and_then(Attribute::as_int_array),
    ) else {
        return false;
    };
    if ops.len() != 2 || shuffle_result(m.value_type(ops[0]), mask.len()).as_ref() != Some(rt) {
        return false;
    }
    p.write(" ");
    p.print_operands(ops);
    let items: Vec<String> = mask.iter().map(|x| x.to_string()).collect();
    p.write(&format!(" [{}]", items.join(", ")));
    p.print_optional_attr_dict(&d.attrs, &[]);
    p.write(" : ");
    p.print_value_types(ops);
    true
}

// ===== gather / scatter =====

fn parse_gather(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let gather = st.name == "vector.gather";
    let base = p.parse_operand()?;
    let idx = p.parse_operand_list_delimited(Delimiter::Square)?;
    p.parse_lsquare()?;
    let iv = p.parse_operand()?;
    p.parse_rsquare()?;
    p.parse_comma()?;
    let mask = p.parse_operand()?;
    p.parse_comma()?;
    let last = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.parse_colon()?;
    let at = p.current_span();
    let tys = p.parse_type_list()?;
    if tys.len() != 4 {
        return Err(Diagnostic::new(at, "expected four types"));
    }
    st.operands.push(p.resolve_operand(&base, &tys[0])?);
    st.operands.extend(resolve_idx(p, &idx)?);
    st.operands.push(p.resolve_operand(&iv, &tys[1])?);
    st.operands.push(p.resolve_operand(&mask, &tys[2])?);
    st.operands.push(p.resolve_operand(&last, &tys[3])?);
    if gather {
        p.parse_keyword("into")?;
        st.result_types.push(p.parse_type()?);
    } else if p.consume_if(Tok::Arrow) {
        st.result_types.push(p.parse_type()?);
    }
    Ok(())
}

fn print_gather(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let gather = d.name == "vector.gather";
    let ops = m.operands(op);
    if ops.len() < 4 || (gather && one_result(m, op).is_none()) {
        return false;
    }
    let n = ops.len();
    p.write(" ");
    p.print_operand(ops[0]);
    bracket_operands(p, &ops[1..n - 3]);
    p.write(" [");
    p.print_operand(ops[n - 3]);
    p.write("], ");
    p.print_operands(&ops[n - 2..]);
    p.print_optional_attr_dict(&d.attrs, &[]);
    p.write(" : ");
    p.print_type(m.value_type(ops[0]));
    p.write(", ");
    p.print_value_types(&ops[n - 3..]);
    match (gather, m.results(op)) {
        (true, [r]) => {
            p.write(" into ");
            p.print_type(m.value_type(*r));
        }
        (false, [r]) => {
            p.write(" -> ");
            p.print_type(m.value_type(*r));
        }
        _ => {}
    }
    true
}

// ===== reduction / fma / masks / lists / print =====

fn parse_reduction(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_less()?;
    let kind = p.parse_keyword_any("combining kind")?.to_string();
    p.parse_greater()?;
    st.props
        .set("kind", Attribute::Opaque(format!("#vector.kind<{kind}>")));
    p.parse_comma()?;
    let v = p.parse_operand()?;
    let acc = if p.consume_if(Tok::Comma) {
        Some(p.parse_operand()?)
    } else {
        None
    };
    if let Some(a) = parse_optional_flags(p, "fastmath", "#arith.fastmath")? {
        st.props.set("fastmath", a);
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let vt = p.parse_colon_type()?;
    p.parse_keyword("into")?;
    let rt = p.parse_type()?;
    st.operands.push(p.resolve_operand(&v, &vt)?);
    if let Some(a) = acc {
        st.operands.push(p.resolve_operand(&a, &rt)?);
    }
    st.result_types.push(rt);
    Ok(())
}

fn print_reduction(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let ops = m.operands(op);
    let Some(rt) = one_result(m, op) else {
        return false;
    };
    let Some(Attribute::Opaque(k)) = d.props.get("kind") else {
        return false;
    };
    let Some(kind) = k
        .strip_prefix("#vector.kind<")
        .and_then(|x| x.strip_suffix('>'))
    else {
        return false;
    };
    if ops.is_empty() || ops.len() > 2 {
        return false;
    }
    p.write(&format!(" <{kind}>, "));
    p.print_operands(ops);
    let mut extra = d.attrs.clone();
    if let Some(f) = d.props.get("fastmath") {
        if !print_flags(p, "fastmath", "#arith.fastmath", f) {
            extra.set("fastmath", f.clone());
        }
    }
    p.print_optional_attr_dict(&extra, &[]);
    p.write(" : ");
    p.print_type(m.value_type(ops[0]));
    p.write(" into ");
    p.print_type(rt);
    true
}

fn parse_fma(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let a = p.parse_operand_list()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    if a.len() != 3 {
        return Err(p.error_here("expected three operands"));
    }
    st.operands = p.resolve_operands_same(&a, &t)?;
    st.result_types.push(t);
    Ok(())
}

fn print_fma(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let ops = m.operands(op);
    let Some(t) = one_result(m, op) else {
        return false;
    };
    if ops.len() != 3 || ops.iter().any(|&v| m.value_type(v) != t) {
        return false;
    }
    p.write(" ");
    p.print_operands(ops);
    p.print_optional_attr_dict(&m.op(op).attrs, &[]);
    p.write(" : ");
    p.print_type(t);
    true
}

fn parse_constant_mask(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let mut v = Vec::new();
    p.parse_comma_separated_list(Delimiter::Square, &mut |p| {
        v.push(p.parse_integer()?);
        Ok(())
    })?;
    st.props.set("mask_dim_sizes", Attribute::i64_array(&v));
    p.parse_optional_attr_dict(&mut st.attrs)?;
    st.result_types.push(p.parse_colon_type()?);
    Ok(())
}

fn print_constant_mask(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let (Some(t), Some(v)) = (
        one_result(m, op),
        d.props
            .get("mask_dim_sizes")
            .and_then(Attribute::as_int_array),
    ) else {
        return false;
    };
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    p.write(&format!(" [{}]", items.join(", ")));
    p.print_optional_attr_dict(&d.attrs, &[]);
    p.write(" : ");
    p.print_type(t);
    true
}

/// `create_mask %a, %b : T`, `from_elements %a, %b : T`, `step : T`.
fn parse_list_op(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let us = p.parse_operand_list()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    let ot = match st.name.as_str() {
        "vector.from_elements" => t.element_type().cloned().unwrap_or_else(|| t.clone()),
        _ => Type::index(),
    };
    st.operands = p.resolve_operands_same(&us, &ot)?;
    st.result_types.push(t);
    Ok(())
}

fn print_list_op(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let Some(t) = one_result(m, op) else {
        return false;
    };
    if !m.operands(op).is_empty() {
        p.write(" ");
        p.print_operands(m.operands(op));
    }
    p.print_optional_attr_dict(&m.op(op).attrs, &[]);
    p.write(" : ");
    p.print_type(t);
    true
}

// ===== vector.outerproduct =====

/// `vector.outerproduct %lhs, %rhs[, %acc] attr-dict : lhs-type, rhs-type`
/// (`OuterProductOp::parse`): the result type follows from the operand types.
fn parse_outerproduct(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let at = p.current_span();
    let ops = p.parse_operand_list()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let tl = p.parse_colon_type()?;
    p.parse_comma()?;
    let tr = p.parse_type()?;
    if ops.len() < 2 {
        return Err(Diagnostic::new(at, "expected at least 2 operands"));
    }
    let Some((ls, lsc, le)) = vshape(&tl) else {
        return Err(Diagnostic::new(at, "expected vector type for operand #1"));
    };
    let (Some(&l0), Some(&l0s)) = (ls.first(), lsc.first()) else {
        return Err(Diagnostic::new(at, "expected 1-d vector for operand #1"));
    };
    let res = match vshape(&tr) {
        Some((rs, rsc, _)) => match (rs.first(), rsc.first()) {
            (Some(&r0), Some(&r0s)) => vector_of(vec![l0, r0], vec![l0s, r0s], le.clone()),
            _ => return Err(Diagnostic::new(at, "expected 1-d vector for operand #2")),
        },
        None => vector_of(vec![l0], vec![l0s], le.clone()),
    };
    if st.attrs.get("kind").is_none() {
        st.attrs
            .set("kind", Attribute::Opaque("#vector.kind<add>".to_string()));
    }
    st.operands.push(p.resolve_operand(&ops[0], &tl)?);
    st.operands.push(p.resolve_operand(&ops[1], &tr)?);
    if let Some(acc) = ops.get(2) {
        st.operands.push(p.resolve_operand(acc, &res)?);
    }
    st.result_types.push(res);
    Ok(())
}

fn print_outerproduct(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let ops = m.operands(op);
    let Some(rt) = one_result(m, op) else {
        return false;
    };
    if ops.len() < 2 || ops.len() > 3 {
        return false;
    }
    let Some(kind) = inherent(d, "kind") else {
        return false;
    };
    // The custom form infers the result type and shows the attributes only with an
    // accumulator: anything it could not say is printed in generic form.
    let (tl, tr) = (m.value_type(ops[0]), m.value_type(ops[1]));
    let inferred = match (vshape(tl), vshape(tr)) {
        (Some(([l0], [l0s], le)), Some(([r0], [r0s], _))) => {
            vector_of(vec![*l0, *r0], vec![*l0s, *r0s], le.clone())
        }
        (Some(([l0], [l0s], le)), None) => vector_of(vec![*l0], vec![*l0s], le.clone()),
        _ => return false,
    };
    if inferred != *rt {
        return false;
    }
    let mut all = d.attrs.clone();
    all.set("kind", kind.clone());
    let default_kind = matches!(kind, Attribute::Opaque(k) if k == "#vector.kind<add>");
    if ops.len() == 2 && (!default_kind || !d.attrs.is_empty()) {
        return false;
    }
    p.write(" ");
    p.print_operands(ops);
    if ops.len() == 3 {
        p.print_optional_attr_dict(&all, &[]);
    }
    p.write(" : ");
    p.print_type(tl);
    p.write(", ");
    p.print_type(tr);
    true
}

/// `OuterProductOp::verify`.
fn verify_outerproduct(m: &Module, op: OpId) -> Result<(), String> {
    let d = m.op(op);
    let ops = m.operands(op);
    let (Some(rt), Some(&l), Some(&r)) = (one_result(m, op), ops.first(), ops.get(1)) else {
        return Ok(());
    };
    let (Some((ls, lsc, _)), Some((res, _, re))) = (vshape(m.value_type(l)), vshape(rt)) else {
        return Ok(());
    };
    if ls.len() != 1 {
        return Err("expected 1-d vector for operand #1".into());
    }
    match vshape(m.value_type(r)) {
        Some((rs, rsc, _)) => {
            if rs.len() != 1 {
                return Err("expected 1-d vector for operand #2".into());
            }
            if res.len() != 2 {
                return Err("expected 2-d vector result".into());
            }
            if ls[0] != res[0] {
                return Err("expected #1 operand dim to match result dim #1".into());
            }
            if rs[0] != res[1] {
                return Err("expected #2 operand dim to match result dim #2".into());
            }
            if lsc[0] && !rsc[0] {
                return Err("expected either both or only #2 operand dim to be scalable".into());
            }
        }
        None => {
            if res.len() != 1 {
                return Err("expected 1-d vector result".into());
            }
            if ls[0] != res[0] {
                return Err("expected #1 operand dim to match result dim #1".into());
            }
        }
    }
    if let Some(&a) = ops.get(2) {
        if m.value_type(a) != rt {
            return Err("expected operand #3 of same type as result type".into());
        }
    }
    if let Some(Attribute::Opaque(k)) = inherent(d, "kind") {
        if let Some(kind) = k
            .strip_prefix("#vector.kind<")
            .and_then(|x| x.strip_suffix('>'))
        {
            if !combining_kind_supported(kind, re) {
                return Err("unsupported outerproduct type".into());
            }
        }
    }
    Ok(())
}

// ===== vector.mask =====

/// `vector.mask %mask[, %passthru] { maskable-op } attr-dict : mask-type [-> result-type]`
/// (`MaskOp::parse`). As MLIR's `MaskOp::ensureTerminator`, a body of one op gets a
/// `vector.yield` of that op's results.
fn parse_mask(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let at = p.current_span();
    let mask = p.parse_operand()?;
    let passthru = if p.consume_if(Tok::Comma) {
        Some(p.parse_operand()?)
    } else {
        None
    };
    let r = p.parse_region(&[])?;
    super::memref::ensure_terminator(p, r, "vector.yield");
    {
        let m = p.module_mut();
        if let Some(&b) = m.region_blocks(r).first() {
            let body: Vec<OpId> = m.block_ops(b).collect();
            if let [first, last] = body[..] {
                if m.op(last).name == "vector.yield" {
                    let mut y = OperationState::new("vector.yield");
                    y.operands = m.results(first).to_vec();
                    let y = m.create_op(y);
                    m.erase_op(last);
                    m.append_op(b, y);
                }
            }
        }
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let mt = p.parse_colon_type()?;
    let results = p.parse_optional_arrow_type_list()?;
    st.operands.push(p.resolve_operand(&mask, &mt)?);
    if let Some(pt) = passthru {
        let Some(t) = results.first() else {
            return Err(Diagnostic::new(
                at,
                "expects a result if passthru operand is provided",
            ));
        };
        st.operands.push(p.resolve_operand(&pt, t)?);
    }
    st.result_types = results;
    st.regions.push(r);
    Ok(())
}

/// The op `vector.mask` shows between braces: its body's only op, or the terminator of an
/// empty mask; `None` when the body is anything the custom form cannot say.
fn mask_body(m: &Module, op: OpId) -> Option<OpId> {
    let [r] = m.regions(op) else {
        return None;
    };
    let [b] = m.region_blocks(*r) else {
        return None;
    };
    if !m.block_args(*b).is_empty() {
        return None;
    }
    let body: Vec<OpId> = m.block_ops(*b).collect();
    match body[..] {
        [y] if m.op(y).name == "vector.yield" => Some(y),
        [x, y]
            if m.op(y).name == "vector.yield"
                && m.operands(y) == m.results(x)
                && m.op(y).attrs.is_empty()
                && m.op(y).props.is_empty() =>
        {
            Some(x)
        }
        _ => None,
    }
}

fn print_mask(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let ops = m.operands(op);
    let rs = m.results(op);
    if ops.is_empty() || ops.len() > 2 || rs.len() > 1 || (ops.len() == 2 && rs.is_empty()) {
        return false;
    }
    if ops.len() == 2 && m.value_type(ops[1]) != m.value_type(rs[0]) {
        return false;
    }
    let Some(inner) = mask_body(m, op) else {
        return false;
    };
    if !d.props.is_empty() {
        return false;
    }
    p.write(" ");
    p.print_operands(ops);
    p.write(" { ");
    p.print_operation(inner);
    p.write(" }");
    p.print_optional_attr_dict(&d.attrs, &[]);
    p.write(" : ");
    p.print_type(m.value_type(ops[0]));
    if let Some(&r) = rs.first() {
        p.write(" -> ");
        p.print_type(m.value_type(r));
    }
    true
}

/// `MaskOp::verify`: the structural rules, and the mask type for the maskable ops whose
/// expected mask type memplan computes (transfers, reductions).
fn verify_mask(m: &Module, op: OpId) -> Result<(), String> {
    let Some(&r) = m.regions(op).first() else {
        return Ok(());
    };
    let Some(&b) = m.region_blocks(r).first() else {
        return Ok(());
    };
    let body: Vec<OpId> = m.block_ops(b).collect();
    let Some(&last) = body.last() else {
        return Err("expects a terminator within the mask region".into());
    };
    if body.len() > 2 {
        return Err("expects only one operation to mask".into());
    }
    if m.op(last).name != "vector.yield" {
        return Err("expects a terminator within the mask region".into());
    }
    let rs = m.results(op);
    if m.operands(last).len() != rs.len() {
        return Err("expects number of results to match mask region yielded values".into());
    }
    if body.len() == 1 {
        return Ok(());
    }
    let inner = body[0];
    let d = m.op(inner);
    let inner_rs = m.results(inner);
    if inner_rs.len() != rs.len() {
        return Err(
            "expects number of results to match maskable operation number of results".into(),
        );
    }
    if inner_rs
        .iter()
        .zip(rs)
        .any(|(a, b)| m.value_type(*a) != m.value_type(*b))
    {
        return Err("expects all the results from the MaskableOpInterface to match all the vector.mask results".into());
    }
    let ops = m.operands(inner);
    let i1_like =
        |t: &Type| vshape(t).map(|(s, sc, _)| vector_of(s.to_vec(), sc.to_vec(), Type::int(1)));
    let expected = match d.name.as_str() {
        "vector.transfer_read" | "vector.transfer_write" => {
            let vt = if d.name == "vector.transfer_read" {
                inner_rs.first().map(|&v| m.value_type(v))
            } else {
                ops.first().map(|&v| m.value_type(v))
            };
            match (vt, inherent(d, "permutation_map")) {
                (Some(vt), Some(Attribute::AffineMap(map))) => Some(mask_type(vt, map)),
                _ => None,
            }
        }
        "vector.reduction" | "vector.multi_reduction" => {
            ops.first().and_then(|&v| i1_like(m.value_type(v)))
        }
        _ => None,
    };
    if let (Some(want), Some(&mk)) = (expected, m.operands(op).first()) {
        if *m.value_type(mk) != want {
            return Err(format!(
                "expects a '{want}' mask for the maskable operation"
            ));
        }
    }
    Ok(())
}

// ===== vector.contract =====

/// The attributes `vector.contract` shows in its leading trait dictionary.
const CONTRACT_TRAIT: &[&str] = &["indexing_maps", "iterator_types", "kind"];

/// `vector.contract {indexing_maps = [...], iterator_types = ["parallel", ...], kind = ...}
/// %lhs, %rhs, %acc attr-dict : lhs-type, rhs-type into result-type` (MLIR writes it in C++,
/// `ContractionOp::parse`): the iterator types are strings here, enum attributes inside.
fn parse_contract(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let at = p.current_span();
    let Attribute::Dict(dict) = p.parse_attribute()? else {
        return Err(Diagnostic::new(at, "invalid kind of attribute specified"));
    };
    let lhs = p.parse_operand()?;
    p.parse_comma()?;
    let rhs = p.parse_operand()?;
    p.parse_comma()?;
    let acc = p.parse_operand()?;
    let mut masks = 0;
    while p.consume_if(Tok::Comma) {
        p.parse_operand()?;
        masks += 1;
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let types_at = p.current_span();
    let types = p.parse_colon_type_list()?;
    p.parse_keyword("into")?;
    let rt = p.parse_type()?;
    if types.len() != 2 {
        return Err(Diagnostic::new(types_at, "expected 2 operand types"));
    }
    st.operands.push(p.resolve_operand(&lhs, &types[0])?);
    st.operands.push(p.resolve_operand(&rhs, &types[1])?);
    st.operands.push(p.resolve_operand(&acc, &rt)?);
    st.result_types.push(rt);
    for na in dict.iter() {
        st.attrs.set(na.name.clone(), na.value.clone());
    }
    let Some(Attribute::Array(names)) = st.attrs.get("iterator_types").cloned() else {
        return Err(p.error_here("expected iterator_types array attribute"));
    };
    let mut iters = Vec::with_capacity(names.len());
    for n in &names {
        let s = n.as_str().unwrap_or("");
        if s != "parallel" && s != "reduction" {
            return Err(Diagnostic::new(
                at,
                format!("unexpected iterator_type ({s})"),
            ));
        }
        iters.push(Attribute::Opaque(format!("#vector.iterator_type<{s}>")));
    }
    st.attrs.set("iterator_types", Attribute::Array(iters));
    if st.attrs.get("kind").is_none() {
        st.attrs
            .set("kind", Attribute::Opaque("#vector.kind<add>".to_string()));
    }
    if masks != 0 {
        return Err(Diagnostic::new(
            at,
            "expected zero or exactly 2 vector mask operands",
        ));
    }
    Ok(())
}

/// `#vector.iterator_type<parallel>` -> `parallel`.
fn iterator_kind(a: &Attribute) -> Option<&str> {
    match a {
        Attribute::Opaque(t) => t
            .strip_prefix("#vector.iterator_type<")
            .and_then(|x| x.strip_suffix('>'))
            .filter(|k| *k == "parallel" || *k == "reduction"),
        _ => None,
    }
}

fn contract_maps(d: &crate::ir::OpData) -> Option<Vec<&AffineMap>> {
    match inherent(d, "indexing_maps")? {
        Attribute::Array(xs) => xs
            .iter()
            .map(|x| match x {
                Attribute::AffineMap(m) => Some(m),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

fn print_contract(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.module();
    let d = m.op(op);
    let ops = m.operands(op);
    let (Some(rt), [lhs, rhs, acc]) = (one_result(m, op), ops) else {
        return false;
    };
    let (Some(maps), Some(Attribute::Array(its)), Some(kind)) = (
        inherent(d, "indexing_maps"),
        inherent(d, "iterator_types"),
        inherent(d, "kind"),
    ) else {
        return false;
    };
    let Some(names) = its.iter().map(iterator_kind).collect::<Option<Vec<_>>>() else {
        return false;
    };
    if m.value_type(*acc) != rt {
        return false;
    }
    p.write(" {indexing_maps = ");
    p.print_attr(maps);
    p.write(", iterator_types = [");
    for (i, n) in names.iter().enumerate() {
        if i > 0 {
            p.write(", ");
        }
        p.write(&format!("\"{n}\""));
    }
    p.write("], kind = ");
    p.print_attr(kind);
    p.write("} ");
    p.print_operands(ops);
    let mut rest = d.attrs.clone();
    for (k, v) in d.props.iter().map(|na| (na.name.as_str(), &na.value)) {
        if !CONTRACT_TRAIT.contains(&k) {
            rest.set(k.to_string(), v.clone());
        }
    }
    p.print_optional_attr_dict(&rest, CONTRACT_TRAIT);
    p.write(" : ");
    p.print_type(m.value_type(*lhs));
    p.write(", ");
    p.print_type(m.value_type(*rhs));
    p.write(" into ");
    p.print_type(rt);
    true
}

/// The position of `d{dim}` among a projected permutation's results.
fn dim_position(map: &AffineMap, dim: u32) -> Option<usize> {
    map.results
        .iter()
        .position(|e| matches!(e, AffineExpr::Dim(x) if *x == dim))
}

/// `ContractionOp::verify`: three projected-permutation maps over the iterators, at least
/// one contracting dim, matching contracting/batch dim sizes, the accumulator/result shape the
/// maps imply, a combining kind the element type supports.
fn verify_contract(m: &Module, op: OpId) -> Result<(), String> {
    let d = m.op(op);
    let ops = m.operands(op);
    let (Some(rt), [lhs, rhs, acc]) = (one_result(m, op), ops) else {
        return Ok(());
    };
    let (lt, rtt, at) = (m.value_type(*lhs), m.value_type(*rhs), m.value_type(*acc));
    let (Some((ls, lsc, le)), Some((rs, _, _))) = (vshape(lt), vshape(rtt)) else {
        return Ok(());
    };
    if let TypeKind::Integer { signedness, .. } = le.kind() {
        if *signedness != crate::types::Signedness::Signless {
            return Err("only supports signless integer types".into());
        }
    }
    let Some(maps) = contract_maps(d) else {
        return Err("requires attribute 'indexing_maps'".into());
    };
    let Some(Attribute::Array(its)) = inherent(d, "iterator_types") else {
        return Err("requires attribute 'iterator_types'".into());
    };
    let Some(iters) = its.iter().map(iterator_kind).collect::<Option<Vec<_>>>() else {
        return Ok(());
    };
    if maps.len() != 3 {
        return Err("expected an indexing map for each vector operand".into());
    }
    let n = iters.len() as u32;
    for (i, map) in maps.iter().enumerate() {
        if map.num_symbols != 0 {
            return Err(format!("expected indexing map {i} to have no symbols"));
        }
        let r = match m.value_type(ops[i]).kind() {
            TypeKind::Vector { shape, .. } => shape.len(),
            _ => 0,
        };
        if map.num_dims != n {
            return Err(format!(
                "expected indexing map {i} to have {n} number of inputs"
            ));
        }
        if map.results.len() != r {
            return Err(format!(
                "expected indexing map {i} to have {r} number of outputs"
            ));
        }
        let mut seen = vec![false; n as usize];
        for e in &map.results {
            match e {
                AffineExpr::Dim(x) if (*x as usize) < seen.len() && !seen[*x as usize] => {
                    seen[*x as usize] = true
                }
                _ => {
                    return Err(format!(
                        "expected indexing map {i} to be a projected permutation of its inputs"
                    ))
                }
            }
        }
    }
    let pairs = |kind: &str| -> Vec<(usize, usize)> {
        (0..n)
            .filter(|&i| iters[i as usize] == kind)
            .filter_map(|i| Some((dim_position(maps[0], i)?, dim_position(maps[1], i)?)))
            .collect()
    };
    let (contracting, batch) = (pairs("reduction"), pairs("parallel"));
    if contracting.is_empty() {
        return Err("expected at least one contracting dimension pair".into());
    }
    let dims_ok = |ps: &[(usize, usize)]| {
        ps.iter()
            .all(|&(a, b)| a < ls.len() && b < rs.len() && ls[a] == rs[b])
    };
    if !dims_ok(&contracting) {
        return Err("invalid contracting dimension map".into());
    }
    if !dims_ok(&batch) {
        return Err("invalid batch dimension map".into());
    }
    // verifyOutputShape
    let free_lhs = (0..ls.len()).filter(|i| !contracting.iter().any(|p| p.0 == *i));
    let free_rhs = (0..rs.len())
        .filter(|i| !contracting.iter().any(|p| p.1 == *i) && !batch.iter().any(|p| p.1 == *i));
    let any_result_dim = free_lhs.count() + free_rhs.count() > 0;
    let (rv, av) = (vshape(rt), vshape(at));
    if !any_result_dim {
        if rv.is_some() || av.is_some() {
            return Err("invalid accumulator/result vector shape".into());
        }
    } else {
        let (Some((_, rsc, re)), Some(_)) = (rv, av) else {
            return Err("invalid accumulator/result vector shape".into());
        };
        let mut extent: Vec<Option<i64>> = vec![None; n as usize];
        for (shape, map) in [(ls, maps[0]), (rs, maps[1])] {
            for (idx, e) in map.results.iter().enumerate() {
                if let AffineExpr::Dim(x) = e {
                    let slot = &mut extent[*x as usize];
                    if slot.is_none() {
                        *slot = shape.get(idx).copied();
                    }
                }
            }
        }
        if extent.iter().any(Option::is_none) {
            return Err("expected all dimensions to be either a LHS or a RHS dimension".into());
        }
        let mut want = Vec::new();
        for e in &maps[2].results {
            match e {
                AffineExpr::Dim(x) => want.extend(extent[*x as usize]),
                _ => return Ok(()),
            }
        }
        let expected = vector_of(want, rsc.to_vec(), re.clone());
        if *rt != expected || *at != expected {
            return Err(format!(
                "invalid accumulator/result vector shape, expected: '{expected}'"
            ));
        }
    }
    let _ = lsc;
    let e = match rt.kind() {
        TypeKind::Vector { elem, .. } => elem,
        _ => rt,
    };
    if let Some(Attribute::Opaque(k)) = inherent(d, "kind") {
        if let Some(kind) = k
            .strip_prefix("#vector.kind<")
            .and_then(|x| x.strip_suffix('>'))
        {
            if !combining_kind_supported(kind, e) {
                return Err("unsupported contraction type".into());
            }
        }
    }
    Ok(())
}

/// `vector::isSupportedCombiningKind`.
pub(crate) fn combining_kind_supported(kind: &str, e: &Type) -> bool {
    let int_or_index = e.is_integer() || e.is_index();
    match kind {
        "add" | "mul" => int_or_index || e.is_float(),
        "minui" | "minsi" | "maxui" | "maxsi" | "and" | "or" | "xor" => int_or_index,
        "minnumf" | "maxnumf" | "minimumf" | "maximumf" => e.is_float(),
        _ => true,
    }
}

// ===== verification =====

fn verify_vector(m: &Module, op: OpId) -> Result<(), String> {
    let d = m.op(op);
    let ops = m.operands(op);
    match d.name.as_str() {
        "vector.extract" | "vector.insert" => {
            let Some(pos) = inherent(d, "static_position").and_then(Attribute::as_int_array) else {
                return Err("requires attribute 'static_position'".into());
            };
            let src = if d.name == "vector.insert" {
                ops.get(1)
            } else {
                ops.first()
            };
            if let Some(&s) = src {
                if let Some((shape, _, _)) = vshape(m.value_type(s)) {
                    if pos.len() > shape.len() {
                        return Err(
                            "expected position attribute of rank no greater than vector rank"
                                .into(),
                        );
                    }
                    for (i, &x) in pos.iter().enumerate() {
                        if x != DYNAMIC && (x < -1 || x >= shape[i]) {
                            return Err(format!(
                                "expected position attribute #{} to be a non-negative integer smaller than the corresponding vector dimension or poison (-1)",
                                i + 1
                            ));
                        }
                    }
                }
            }
        }
        "vector.fma" => {
            let Some(t) = one_result(m, op) else {
                return Err("expects one result".into());
            };
            if ops.len() != 3 || ops.iter().any(|&v| m.value_type(v) != t) {
                return Err("requires all operands and results to have the same type".into());
            }
        }
        "vector.load" | "vector.store" => {
            // verifyLoadStoreMemRefLayout: beyond one element, the memref's innermost stride
            // must be 1. Only a layout whose strides memplan can work out is judged.
            let (vec, base) = if d.name == "vector.load" {
                (one_result(m, op), ops.first())
            } else {
                (ops.first().map(|&v| m.value_type(v)), ops.get(1))
            };
            if let (Some(vt), Some(&b)) = (vec, base) {
                let single = match vt.kind() {
                    TypeKind::Vector {
                        shape, scalable, ..
                    } => !scalable.iter().any(|&s| s) && shape.iter().product::<i64>() == 1,
                    _ => true,
                };
                if let TypeKind::MemRef { shape, layout, .. } = m.value_type(b).kind() {
                    let strides = super::memref::canonical_strides(shape, layout.as_ref());
                    if !single
                        && matches!(strides, Some((st, _)) if st.last().is_some_and(|&x| x != 1))
                    {
                        return Err("most minor memref dim must have unit stride".into());
                    }
                }
            }
        }
        "vector.transfer_read" | "vector.transfer_write" => {
            if let Some(Attribute::AffineMap(map)) = inherent(d, "permutation_map") {
                let st = if d.name == "vector.transfer_read" {
                    ops.first()
                } else {
                    ops.get(1)
                };
                if let Some(&s) = st {
                    if map.num_dims as usize != rank(m.value_type(s)) {
                        return Err("requires a permutation_map with input dims of the same rank as the source type".into());
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}
