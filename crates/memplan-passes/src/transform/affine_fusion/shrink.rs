//! Private buffers: shrinking each to the per-iteration footprint of its accesses, and the
//! clean-up of single-iteration slice loops.

use super::*;

/// Static bytes of the function's allocations after shrinking (on a copy).
pub(super) fn shrunk_bytes(ctx: &mut FnCtx<'_>, st: &State) -> u64 {
    let mut copy = st.clone();
    let saved = (ctx.remarks.len(), ctx.shrunk);
    shrink_all(ctx, &mut copy, false);
    ctx.remarks.truncate(saved.0);
    ctx.shrunk = saved.1;
    copy.m
        .walk_ops(ctx.func)
        .into_iter()
        .filter(|&o| matches!(name(&copy.m, o), "memref.alloc" | "memref.alloca"))
        .filter_map(|o| copy.m.value_type(copy.m.result(o, 0)).static_byte_size())
        .sum()
}

// Shrinking

pub(super) fn shrink_all(ctx: &mut FnCtx<'_>, st: &mut State, report: bool) {
    let allocs: Vec<OpId> =
        st.m.block_ops(func_body(ctx, &st.m))
            .filter(|&o| matches!(name(&st.m, o), "memref.alloc" | "memref.alloca"))
            .collect();
    for a in allocs {
        match shrink_one(ctx, st, a) {
            Ok(Some((new, old_b, new_b))) => {
                if report {
                    let ty = st.m.value_type(st.m.result(new, 0)).to_string();
                    let msg = format!("buffer shrunk from {old_b} B to {new_b} B ({ty})");
                    ctx.remark(st, a, msg);
                }
                ctx.shrunk += 1;
            }
            Ok(None) => {}
            Err(why) => {
                if report {
                    ctx.remark(st, a, format!("buffer not shrunk: {why}"));
                }
            }
        }
    }
}

/// Replaces the buffer of `alloc` by a smaller one if every use allows; returns the new
/// alloc and the byte sizes.
pub(super) fn shrink_one(
    ctx: &FnCtx<'_>,
    st: &mut State,
    alloc: OpId,
) -> Result<Option<(OpId, u64, u64)>, String> {
    let m = &st.m;
    let buf = m.result(alloc, 0);
    let ty = m.value_type(buf).clone();
    let TypeKind::MemRef {
        shape,
        elem,
        layout,
        memory_space,
    } = ty.kind()
    else {
        return Ok(None);
    };
    if layout.is_some() || shape.iter().any(|&s| s < 0) || !m.operands(alloc).is_empty() {
        return Ok(None);
    }
    let old_bytes = ty.static_byte_size().unwrap_or(0);
    let entry = func_body(ctx, m);
    let mut groups: Vec<(OpId, Vec<OpId>)> = Vec::new();
    let mut deallocs = Vec::new();
    for u in m.uses(buf) {
        let n = name(m, u.op);
        match n {
            "memref.dealloc" => {
                if m.op_block(u.op) != Some(entry) {
                    return Err("it is deallocated inside a region".into());
                }
                deallocs.push(u.op);
            }
            "affine.load" | "affine.store" => {
                if n == "affine.store" && u.index == 0 {
                    return Err("it is stored as a value".into());
                }
                let top = ancestor_in(m, u.op, entry).ok_or("a use outside the function body")?;
                if top == u.op || name(m, top) != "affine.for" {
                    return Ok(None);
                }
                match groups.iter_mut().find(|g| g.0 == top) {
                    Some(g) => g.1.push(u.op),
                    None => groups.push((top, vec![u.op])),
                }
            }
            _ => return Ok(None),
        }
    }
    if groups.is_empty() {
        return Ok(None);
    }
    let written = written_set(m, ctx.func);
    if let Some(why) = groups
        .iter()
        .find_map(|g| opaque_reason(m, g.0, &written, &ctx.syms, &ctx.subs))
    {
        return Err(format!("a nest using it holds {why}"));
    }
    groups.sort_by_key(|g| pos(m, entry, g.0));
    for g in &mut groups {
        g.1.sort();
    }
    let chains: Vec<Vec<OpId>> = groups
        .iter()
        .map(|(top, ops)| common_chain(m, ops, *top))
        .collect();
    let max_len = chains.iter().map(|c| c.len()).max().unwrap_or(0);
    let rank = shape.len();
    let mut last_err = String::from("no smaller footprint");
    for t in 0..=max_len {
        let depths: Vec<usize> = chains.iter().map(|c| c.len().saturating_sub(t)).collect();
        // Footprint per group and prefix.
        let mut boxes: Vec<Boxes> = vec![FxHashMap::default(); groups.len()];
        let group_of: FxHashMap<OpId, usize> = groups
            .iter()
            .enumerate()
            .flat_map(|(i, g)| g.1.iter().map(move |&o| (o, i)))
            .collect();
        {
            let mut obs = |a: &Access<'_>| {
                if a.root != buf {
                    return;
                }
                let Some(&g) = group_of.get(&a.op) else {
                    return;
                };
                let x: Option<Vec<i64>> = chains[g][..depths[g]]
                    .iter()
                    .map(|l| a.stack.iter().find(|(o, _)| o == l).map(|v| v.1))
                    .collect();
                let Some(x) = x else { return };
                let e = boxes[g]
                    .entry(x)
                    .or_insert_with(|| vec![(i64::MAX, i64::MIN); rank]);
                for (j, &i) in a.idx.iter().enumerate().take(rank) {
                    e[j].0 = e[j].0.min(i);
                    e[j].1 = e[j].1.max(i);
                }
            };
            ctx.simulate(st, Some(&mut obs))?;
        }
        let mut covers: Vec<Vec<Cover>> = Vec::new();
        let mut new_shape = vec![1i64; rank];
        let mut fail = false;
        for (gi, b) in boxes.iter().enumerate() {
            let mut keys: Vec<&Vec<i64>> = b.keys().collect();
            keys.sort();
            let mut per = Vec::new();
            for j in 0..rank {
                let pts: Vec<(Vec<i64>, i64, i64)> = keys
                    .iter()
                    .map(|x| ((*x).clone(), b[*x][j].0, b[*x][j].1))
                    .collect();
                match fit_cover(
                    &pts,
                    &shrink_candidates(st, &groups[gi].1, &chains[gi][..depths[gi]], j),
                ) {
                    Some(c) => {
                        new_shape[j] = new_shape[j].max(c.width);
                        per.push(c);
                    }
                    None => {
                        fail = true;
                        break;
                    }
                }
            }
            if fail || per.len() != rank {
                fail = true;
                break;
            }
            covers.push(per);
        }
        if fail {
            continue;
        }
        let elem_b = elem.byte_size().unwrap_or(4);
        let new_bytes = new_shape.iter().map(|&s| s.max(0) as u64).product::<u64>() * elem_b;
        if new_bytes >= old_bytes {
            continue;
        }
        // The rewrite, on a copy.
        let mut cand = st.clone();
        let space = match ctx.opts.fast_mem_space {
            Some(s) if new_bytes <= ctx.opts.local_buf_threshold_kib.saturating_mul(1024) => {
                (s != 0).then(|| Attribute::int(i128::from(s), Type::int(64)))
            }
            _ => memory_space.clone(),
        };
        let new_ty = Type::new(TypeKind::MemRef {
            shape: new_shape.clone(),
            elem: elem.clone(),
            layout: None,
            memory_space: space,
        });
        let cm = &mut cand.m;
        let mut ast = OperationState::new(cm.op(alloc).name.clone());
        ast.props = cm.op(alloc).props.clone();
        ast.attrs = cm.op(alloc).attrs.clone();
        ast.loc = cm.op(alloc).loc().clone();
        ast.result_types.push(new_ty);
        let new_alloc = cm.create_op(ast);
        cm.op_mut(new_alloc).span = cm.op(alloc).span;
        cm.insert_before(alloc, new_alloc);
        let nb = cm.result(new_alloc, 0);
        for (g, (_, ops)) in groups.iter().enumerate() {
            let xs: Vec<ValueId> = chains[g][..depths[g]]
                .iter()
                .filter_map(|&l| for_iv(cm, l))
                .collect();
            for &op in ops {
                let (_, map, idx, write) = access_parts(cm, op).ok_or("malformed access")?;
                let nd = map.num_dims;
                let d = xs.len() as u32;
                let results: Vec<AffineExpr> = map
                    .results
                    .iter()
                    .zip(&covers[g])
                    .map(|(e, c)| {
                        let off = c.lower(nd);
                        if off == AffineExpr::Const(0) {
                            e.clone()
                        } else {
                            simplify(&(e.clone() - off))
                        }
                    })
                    .collect();
                let new_map = AffineMap {
                    num_dims: nd + d,
                    num_symbols: map.num_symbols,
                    results,
                };
                let mut operands = Vec::new();
                let old_ops = cm.operands(op).to_vec();
                if write {
                    operands.push(old_ops[0]);
                }
                operands.push(nb);
                operands.extend_from_slice(&idx[..nd as usize]);
                operands.extend_from_slice(&xs);
                operands.extend_from_slice(&idx[nd as usize..]);
                let split = usize::from(write) + 1;
                let (new_map, idx_ops) = compact(&new_map, &operands[split..]);
                operands.truncate(split);
                operands.extend(idx_ops);
                replace_access(cm, &mut cand.origin, op, new_map, operands);
            }
        }
        for &dl in &deallocs {
            cm.set_operand(dl, 0, nb);
        }
        cm.erase_op(alloc);
        match ctx.simulate(&cand, None) {
            Ok(_) => {
                *st = cand;
                return Ok(Some((new_alloc, old_bytes, new_bytes)));
            }
            Err(e) => last_err = e,
        }
    }
    Err(last_err)
}

// Clean-up: single-iteration slice loops

/// Recreates an affine load/store with a new map and subscript operands.
pub(super) fn rebuild_access(st: &mut State, op: OpId, map: AffineMap, idx: Vec<ValueId>) {
    let m = &mut st.m;
    let Some((mref, _, _, write)) = access_parts(m, op) else {
        return;
    };
    let mut operands = Vec::new();
    if write {
        operands.push(m.operands(op)[0]);
    }
    operands.push(mref);
    operands.extend(idx);
    replace_access(m, &mut st.origin, op, map, operands);
}

/// Replaces the affine load/store `op` by a copy with map `map` and operands `operands`
/// (value to store, memref, subscripts), keeping its results' uses and its origin.
pub(super) fn replace_access(
    m: &mut Module,
    origin: &mut FxHashMap<OpId, OpId>,
    op: OpId,
    map: AffineMap,
    operands: Vec<ValueId>,
) {
    let mut s2 = OperationState::new(m.op(op).name.clone());
    s2.props = m.op(op).props.clone();
    s2.props.set("map", Attribute::AffineMap(map));
    s2.attrs = m.op(op).attrs.clone();
    s2.loc = m.op(op).loc().clone();
    s2.operands = operands;
    s2.result_types = m
        .results(op)
        .iter()
        .map(|&r| m.value_type(r).clone())
        .collect();
    let new_op = m.create_op(s2);
    m.op_mut(new_op).span = m.op(op).span;
    m.insert_before(op, new_op);
    for (i, r) in m.results(op).to_vec().into_iter().enumerate() {
        let nr = m.result(new_op, i);
        m.replace_all_uses(r, nr);
    }
    m.erase_op(op);
    let o = *origin.get(&op).unwrap_or(&op);
    origin.insert(new_op, o);
}

/// Replaces each loop the pass created that runs exactly once (`lb` to `lb + 1`, no
/// iteration arguments) by its body, its induction variable by the lower bound; then folds
/// the subscripts of every affine access of the function.
pub(super) fn promote_single_iteration(st: &mut State, func: OpId) {
    let loops: Vec<OpId> =
        st.m.walk_ops(func)
            .into_iter()
            .filter(|&o| name(&st.m, o) == "affine.for" && st.origin.contains_key(&o))
            .collect();
    for l in loops {
        let m = &mut st.m;
        let Some(p) = for_parts(m, l) else { continue };
        if !p.inits.is_empty() || p.lb.results.len() != 1 || p.ub.results.len() != 1 {
            continue;
        }
        if p.lb_ops != p.ub_ops || p.lb.num_dims != p.ub.num_dims {
            continue;
        }
        let (Some(a), Some(b)) = (linearize(&p.lb.results[0]), linearize(&p.ub.results[0])) else {
            continue;
        };
        let mut diff = b;
        if diff.add(&a, -1).is_none()
            || diff.dims.values().any(|&v| v != 0)
            || diff.syms.values().any(|&v| v != 0)
            || diff.c != 1
        {
            continue;
        }
        let Some(iv) = for_iv(m, l) else { continue };
        // The value of the induction variable.
        let value = match (&p.lb.results[0], p.lb_ops.as_slice()) {
            (AffineExpr::Dim(0), [v]) if p.lb.num_dims == 1 => *v,
            (AffineExpr::Symbol(0), [v]) if p.lb.num_dims == 0 => *v,
            _ => {
                let mut s2 = OperationState::new("affine.apply");
                s2.props.set("map", Attribute::AffineMap(p.lb.clone()));
                s2.operands = p.lb_ops.clone();
                s2.result_types.push(Type::index());
                let ap = m.create_op(s2);
                m.insert_before(l, ap);
                let o = *st.origin.get(&l).unwrap_or(&l);
                st.origin.insert(ap, o);
                st.m.result(ap, 0)
            }
        };
        let m = &mut st.m;
        m.replace_all_uses(iv, value);
        let Some(b) = body(m, l, 0) else { continue };
        let ops: Vec<OpId> = m.block_ops(b).collect();
        for o in ops {
            if name(m, o) == "affine.yield" {
                continue;
            }
            m.detach_op(o);
            m.insert_before(l, o);
        }
        m.erase_op(l);
    }
    let accesses: Vec<OpId> =
        st.m.walk_ops(func)
            .into_iter()
            .filter(|&o| access_parts(&st.m, o).is_some())
            .collect();
    for op in accesses {
        let Some((_, map, idx, _)) = access_parts(&st.m, op) else {
            continue;
        };
        let (nm, nidx) = compact(&map, &idx);
        if nm != map || nidx != idx {
            rebuild_access(st, op, nm, nidx);
        }
    }
}
