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
