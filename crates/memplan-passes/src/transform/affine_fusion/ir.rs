//! Small IR helpers of the fusion pass: loop and access parts, loop chains, buffer roots,
//! movability and cloning of nests.

use super::*;

// Small IR helpers

pub(super) fn name(m: &Module, op: OpId) -> &str {
    m.op(op).name.as_str()
}

pub(super) fn map_prop(m: &Module, op: OpId, key: &str) -> Option<AffineMap> {
    match m.op(op).props.get(key).or_else(|| m.op(op).attrs.get(key)) {
        Some(Attribute::AffineMap(a)) => Some(a.clone()),
        _ => None,
    }
}

/// [`map_prop`], borrowed.
pub(super) fn map_ref<'m>(m: &'m Module, op: OpId, key: &str) -> Option<&'m AffineMap> {
    match m.op(op).props.get(key).or_else(|| m.op(op).attrs.get(key)) {
        Some(Attribute::AffineMap(a)) => Some(a),
        _ => None,
    }
}

pub(super) fn set_prop(m: &Module, op: OpId, key: &str) -> Option<IntegerSet> {
    match m.op(op).props.get(key).or_else(|| m.op(op).attrs.get(key)) {
        Some(Attribute::IntegerSet(a)) => Some(a.clone()),
        _ => None,
    }
}

pub(super) fn is_memref(m: &Module, v: ValueId) -> bool {
    matches!(m.value_type(v).kind(), TypeKind::MemRef { .. })
}

/// The body block of a single-block op (loop, if-then).
pub(super) fn body(m: &Module, op: OpId, region: usize) -> Option<BlockId> {
    let r = *m.regions(op).get(region)?;
    m.region_blocks(r).first().copied()
}

/// `affine.for` parts: (lb map, lb operands, ub map, ub operands, step, inits).
pub(super) struct ForParts {
    pub(super) lb: AffineMap,
    pub(super) lb_ops: Vec<ValueId>,
    pub(super) ub: AffineMap,
    pub(super) ub_ops: Vec<ValueId>,
    pub(super) step: i64,
    pub(super) inits: Vec<ValueId>,
}

pub(super) fn for_parts(m: &Module, op: OpId) -> Option<ForParts> {
    let lb = map_prop(m, op, "lowerBoundMap")?;
    let ub = map_prop(m, op, "upperBoundMap")?;
    let step = m.op(op).props.get("step").and_then(|a| a.as_int())? as i64;
    let ops = m.operands(op);
    let nl = (lb.num_dims + lb.num_symbols) as usize;
    let nu = (ub.num_dims + ub.num_symbols) as usize;
    if ops.len() < nl + nu {
        return None;
    }
    Some(ForParts {
        lb_ops: ops[..nl].to_vec(),
        ub_ops: ops[nl..nl + nu].to_vec(),
        inits: ops[nl + nu..].to_vec(),
        lb,
        ub,
        step,
    })
}

pub(super) fn for_iv(m: &Module, op: OpId) -> Option<ValueId> {
    let b = body(m, op, 0)?;
    m.block_args(b).first().copied()
}

/// The memref operand, map and subscript operands of an affine access, with its kind.
pub(super) fn access_parts(
    m: &Module,
    op: OpId,
) -> Option<(ValueId, AffineMap, Vec<ValueId>, bool)> {
    let ops = m.operands(op);
    match name(m, op) {
        "affine.load" => Some((
            *ops.first()?,
            map_prop(m, op, "map")?,
            ops.get(1..)?.to_vec(),
            false,
        )),
        "affine.store" => Some((
            *ops.get(1)?,
            map_prop(m, op, "map")?,
            ops.get(2..)?.to_vec(),
            true,
        )),
        _ => None,
    }
}

/// Top-level ancestor (in block `b`) of `op`.
pub(super) fn ancestor_in(m: &Module, mut op: OpId, b: BlockId) -> Option<OpId> {
    loop {
        if m.op_block(op) == Some(b) {
            return Some(op);
        }
        op = m.parent_op(op)?;
    }
}

/// The `affine.for` ops enclosing `op` up to and including `top` (outermost first).
pub(super) fn loops_within(m: &Module, op: OpId, top: OpId) -> Vec<OpId> {
    let mut out = Vec::new();
    let mut cur = if op == top { None } else { m.parent_op(op) };
    if op == top && name(m, op) == "affine.for" {
        out.push(op);
    }
    while let Some(p) = cur {
        if name(m, p) == "affine.for" {
            out.push(p);
        }
        if p == top {
            break;
        }
        cur = m.parent_op(p);
    }
    out.reverse();
    out
}

/// Longest common prefix of the enclosing loops of `ops` within `top`.
pub(super) fn common_chain(m: &Module, ops: &[OpId], top: OpId) -> Vec<OpId> {
    let mut chain: Option<Vec<OpId>> = None;
    for &o in ops {
        let l = loops_within(m, o, top);
        chain = Some(match chain {
            None => l,
            Some(c) => c
                .iter()
                .zip(l.iter())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| *a)
                .collect(),
        });
    }
    chain.unwrap_or_default()
}

/// The memref root (function argument or alloc result) of a memref value, if direct.
pub(super) fn root_of(m: &Module, v: ValueId) -> Option<ValueId> {
    match m.value_def(v) {
        ValueDef::BlockArg { .. } => Some(v),
        ValueDef::OpResult { op, .. } => {
            matches!(name(m, op), "memref.alloc" | "memref.alloca").then_some(v)
        }
        ValueDef::Placeholder => None,
    }
}

/// Ops that compute on scalars only and may be cloned or recomputed freely.
pub(super) fn is_pure_scalar(m: &Module, op: OpId) -> bool {
    let n = name(m, op);
    let dialect_ok = n.starts_with("arith.")
        || n.starts_with("math.")
        || matches!(
            n,
            "affine.apply" | "affine.min" | "affine.max" | "affine.yield" | "index.constant"
        );
    dialect_ok
        && m.regions(op).is_empty()
        && !m.operands(op).iter().any(|&v| is_memref(m, v))
        && !m.results(op).iter().any(|&v| is_memref(m, v))
}

/// A nest that may be cloned, sliced or removed: affine loops, ifs, loads, stores and
/// pure scalar ops only, and no results used elsewhere.
pub(super) fn movable(m: &Module, nest: OpId) -> Result<(), String> {
    if m.results(nest).iter().any(|&r| !m.uses(r).is_empty()) {
        return Err("its results are used after it".into());
    }
    for o in m.walk_ops(nest) {
        let n = name(m, o);
        if matches!(
            n,
            "affine.for" | "affine.if" | "affine.load" | "affine.store"
        ) {
            continue;
        }
        if !is_pure_scalar(m, o) {
            return Err(format!("it contains '{n}'"));
        }
    }
    Ok(())
}

/// Deep copy of `op` (detached); `vmap` maps outside values (identity by default) and
/// receives the results and block arguments of the copies; `origin` records, for each new
/// op, the op it was copied from (through earlier copies). `bounds` replaces the bounds of
/// the listed loops: (lb map, lb operands, ub map, ub operands), operands before mapping.
pub(super) fn clone_op(
    m: &mut Module,
    op: OpId,
    vmap: &mut FxHashMap<ValueId, ValueId>,
    origin: &mut FxHashMap<OpId, OpId>,
    bounds: &Bounds,
) -> OpId {
    let get = |vmap: &FxHashMap<ValueId, ValueId>, v: ValueId| *vmap.get(&v).unwrap_or(&v);
    let d = m.op(op).clone();
    let mut st = OperationState::new(d.name.clone());
    st.attrs = d.attrs.clone();
    st.props = d.props.clone();
    st.loc = d.loc().clone();
    if let Some((lb, lbo, ub, ubo)) = bounds.get(&op) {
        let parts = for_parts(m, op).expect("loop");
        st.operands.extend(lbo.iter().map(|&v| get(vmap, v)));
        st.operands.extend(ubo.iter().map(|&v| get(vmap, v)));
        st.operands
            .extend(parts.inits.iter().map(|&v| get(vmap, v)));
        st.props
            .set("lowerBoundMap", Attribute::AffineMap(lb.clone()));
        st.props
            .set("upperBoundMap", Attribute::AffineMap(ub.clone()));
        st.props.set(
            "operandSegmentSizes",
            Attribute::i32_array(&[lbo.len() as i64, ubo.len() as i64, parts.inits.len() as i64]),
        );
    } else {
        st.operands = m.operands(op).iter().map(|&v| get(vmap, v)).collect();
    }
    st.result_types = m
        .results(op)
        .iter()
        .map(|&r| m.value_type(r).clone())
        .collect();
    let regions: Vec<_> = m.regions(op).to_vec();
    let mut new_regions = Vec::new();
    for r in regions {
        let nr = m.create_region();
        for b in m.region_blocks(r).to_vec() {
            let nb = m.create_block();
            for a in m.block_args(b).to_vec() {
                let ty = m.value_type(a).clone();
                let na = m.add_block_arg(nb, ty, None);
                vmap.insert(a, na);
            }
            m.append_block(nr, nb);
            let ops: Vec<OpId> = m.block_ops(b).collect();
            for o in ops {
                let c = clone_op(m, o, vmap, origin, bounds);
                m.append_op(nb, c);
            }
        }
        new_regions.push(nr);
    }
    st.regions = new_regions;
    let new = m.create_op(st);
    m.op_mut(new).span = m.op(op).span;
    for (i, &r) in m.results(op).to_vec().iter().enumerate() {
        let nr = m.result(new, i);
        vmap.insert(r, nr);
    }
    let o = *origin.get(&op).unwrap_or(&op);
    origin.insert(new, o);
    new
}

pub(super) fn ancestor_or_self(m: &Module, mut op: OpId, anc: OpId) -> bool {
    loop {
        if op == anc {
            return true;
        }
        match m.parent_op(op) {
            Some(p) => op = p,
            None => return false,
        }
    }
}

/// Memref values the function `f` stores to or passes to other ops (all but loads,
/// deallocations and ops that read only the descriptor, such as `memref.dim`).
pub(super) fn written_set(m: &Module, f: OpId) -> FxHashSet<ValueId> {
    let mut out = FxHashSet::default();
    for o in m.walk_ops(f) {
        match name(m, o) {
            "affine.store" | "memref.store" => {
                if let Some(&v) = m.operands(o).get(1) {
                    out.insert(v);
                }
            }
            "affine.load"
            | "memref.load"
            | "memref.dealloc"
            | "memref.dim"
            | "memref.rank"
            | "memref.extract_aligned_pointer_as_index" => {}
            _ => {
                for &v in m.operands(o) {
                    if is_memref(m, v) {
                        out.insert(v);
                    }
                }
            }
        }
    }
    out
}

/// Roots of every buffer an op (and what it nests) uses.
pub(super) fn roots_used(m: &Module, op: OpId) -> Vec<ValueId> {
    let mut out = Vec::new();
    for o in m.walk_ops(op) {
        for &v in m.operands(o) {
            if is_memref(m, v) {
                let r = root_of(m, v).unwrap_or(v);
                if !out.contains(&r) {
                    out.push(r);
                }
            }
        }
    }
    out
}

pub(super) fn pos(m: &Module, b: BlockId, op: OpId) -> usize {
    m.block_ops(b).position(|o| o == op).unwrap_or(usize::MAX)
}

/// Roots of the buffers `nest` stores to / loads from.
pub(super) fn roots_accessed(m: &Module, nest: OpId, write: bool) -> Vec<ValueId> {
    let mut out = Vec::new();
    for o in m.walk_ops(nest) {
        if let Some((mref, _, _, w)) = access_parts(m, o) {
            if w == write {
                if let Some(r) = root_of(m, mref) {
                    if !out.contains(&r) {
                        out.push(r);
                    }
                }
            }
        }
    }
    out
}

pub(super) fn accesses_to(
    m: &Module,
    nest: OpId,
    roots: &[ValueId],
    want: Option<bool>,
) -> Vec<OpId> {
    m.walk_ops(nest)
        .into_iter()
        .filter(|&o| {
            access_parts(m, o).is_some_and(|(mref, _, _, w)| {
                want.is_none_or(|x| x == w) && root_of(m, mref).is_some_and(|r| roots.contains(&r))
            })
        })
        .collect()
}
