//! One fusion: the dependences that drive the slice, the candidate per depth (built, checked
//! by the abstract execution), and upstream's cost model to choose among them.

use super::*;

/// Ops of `st` nested in `nest` (itself included).
pub(super) fn cost_of(m: &Module, counts: &FxHashMap<OpId, u64>, nest: OpId) -> u64 {
    m.walk_ops(nest)
        .iter()
        .map(|o| counts.get(o).copied().unwrap_or(0))
        .sum()
}

/// Upper corner minus lower corner of the boxes of `points` (per key) for the accesses.
pub(super) fn region_elems(boxes: &Boxes) -> u64 {
    let mut ext: Vec<i64> = Vec::new();
    for b in boxes.values() {
        if ext.len() < b.len() {
            ext.resize(b.len(), 0);
        }
        for (j, (lo, hi)) in b.iter().enumerate() {
            ext[j] = ext[j].max(hi - lo + 1);
        }
    }
    ext.iter().map(|&e| e.max(0) as u64).product::<u64>().max(1)
}

pub(super) fn elem_bytes(m: &Module, root: ValueId) -> u64 {
    m.value_type(root)
        .element_type()
        .and_then(|t| t.byte_size())
        .unwrap_or(4)
}

/// Kind of fusion attempted.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Producer,
    Sibling,
}

pub(super) struct Candidate {
    pub(super) st: State,
    pub(super) depth: usize,
    pub(super) storage_reduction: f64,
    pub(super) extra: f64,
}

/// Tries to fuse `src` into `dst`, returning the best candidate over the depths.
pub(super) fn fuse_best(
    ctx: &FnCtx<'_>,
    st: &State,
    src: OpId,
    dst: OpId,
    kind: Kind,
    remove_src: bool,
) -> Result<Candidate, String> {
    let m = &st.m;
    movable(m, src).map_err(|e| format!("the source nest cannot be moved: {e}"))?;
    let written = written_set(m, ctx.func);
    if let Some(why) = opaque_reason(m, src, &written, &ctx.syms, &ctx.subs) {
        return Err(format!("the source nest holds {why}"));
    }
    if let Some(why) = opaque_reason(m, dst, &written, &ctx.syms, &ctx.subs) {
        return Err(format!("the destination nest holds {why}"));
    }
    let shared: Vec<ValueId> = match kind {
        Kind::Producer => {
            let w = roots_accessed(m, src, true);
            roots_accessed(m, dst, false)
                .into_iter()
                .filter(|r| w.contains(r))
                .collect()
        }
        Kind::Sibling => {
            let r = roots_accessed(m, src, false);
            roots_accessed(m, dst, false)
                .into_iter()
                .filter(|x| r.contains(x))
                .collect()
        }
    };
    if shared.is_empty() {
        return Err("no shared buffer".into());
    }
    let dst_ops = accesses_to(m, dst, &shared, None);
    let dst_chain = common_chain(m, &dst_ops, dst);
    let src_ops = match kind {
        Kind::Producer => accesses_to(m, src, &shared, Some(true)),
        Kind::Sibling => accesses_to(m, src, &shared, Some(false)),
    };
    let src_chain = common_chain(m, &src_ops, src);
    if dst_chain.is_empty() || src_chain.is_empty() {
        return Err("no common loop".into());
    }
    let k = src_chain.len();
    let dn = dst_chain.len();
    // One run of the current program: which source iterations each destination iteration
    // needs, and the costs.
    let mut records: Vec<(Vec<i64>, Vec<i64>)> = Vec::new();
    let mut sib_dst: Vec<(Vec<i64>, u32, u128)> = Vec::new();
    let mut sib_src: FxHashMap<(u32, u128), Vec<Vec<i64>>> = FxHashMap::default();
    let mut src_box: Vec<(i64, i64)> = Vec::new();
    let src_set: FxHashSet<OpId> = m.walk_ops(src).into_iter().collect();
    let dst_set: FxHashSet<OpId> = m.walk_ops(dst).into_iter().collect();
    let shared_set: FxHashSet<ValueId> = shared.iter().copied().collect();
    let origin_of = |o: &OpId| *st.origin.get(o).unwrap_or(o);
    let src_store_origins: FxHashSet<OpId> = src_ops.iter().map(origin_of).collect();
    let src_chain_origins: Vec<OpId> = src_chain.iter().map(origin_of).collect();
    let src_all_store_origins: FxHashSet<OpId> = src_set
        .iter()
        .filter(|&&o| access_parts(m, o).is_some_and(|(_, _, _, w)| w))
        .map(origin_of)
        .collect();
    // Values flowing inside the source: (reading iteration, writing iteration) of the source
    // chain loops, for loads that read what another source iteration stored.
    let mut inner_edges: FxHashSet<(Vec<i64>, Vec<i64>)> = FxHashSet::default();
    // The source chain values of a store instance (through the origins of its loops).
    let writer_chain = |w: Writer| -> Option<Vec<i64>> {
        let loops = ctx.orig_loops.get(&w.op)?;
        let ws = unpack(w.ivs, loops.len());
        src_chain_origins
            .iter()
            .map(|l| loops.iter().position(|x| x == l).map(|p| ws[p]))
            .collect()
    };
    let counts = {
        let mut obs = |a: &Access<'_>| {
            if !a.write && src_set.contains(&a.op) {
                if let Some(w) = a.prev.filter(|w| src_all_store_origins.contains(&w.op)) {
                    let reader: Option<Vec<i64>> = src_chain
                        .iter()
                        .map(|l| a.stack.iter().find(|(o, _)| o == l).map(|x| x.1))
                        .collect();
                    if let (Some(r), Some(wy)) = (reader, writer_chain(w)) {
                        if r != wy {
                            inner_edges.insert((r, wy));
                        }
                    }
                }
            }
            if !shared_set.contains(&a.root) {
                return;
            }
            let chain_vals = |chain: &[OpId], stack: &[(OpId, i64)]| -> Option<Vec<i64>> {
                chain
                    .iter()
                    .map(|l| stack.iter().find(|(o, _)| o == l).map(|x| x.1))
                    .collect()
            };
            if src_set.contains(&a.op) && a.write {
                if src_box.len() < a.idx.len() {
                    src_box.resize(a.idx.len(), (i64::MAX, i64::MIN));
                }
                for (j, &i) in a.idx.iter().enumerate() {
                    src_box[j].0 = src_box[j].0.min(i);
                    src_box[j].1 = src_box[j].1.max(i);
                }
            }
            match kind {
                Kind::Producer => {
                    if a.write || !dst_set.contains(&a.op) {
                        return;
                    }
                    let Some(w) = a.prev else { return };
                    if !src_store_origins.contains(&w.op) {
                        return;
                    }
                    // The writer's values of the source chain loops (through their origins).
                    let Some(y) = writer_chain(w) else { return };
                    if let Some(x) = chain_vals(&dst_chain, a.stack) {
                        records.push((x, y));
                    }
                }
                Kind::Sibling => {
                    if a.write {
                        return;
                    }
                    let Some(loc) = pack(a.idx.iter().copied()) else {
                        return;
                    };
                    if dst_set.contains(&a.op) {
                        if let Some(x) = chain_vals(&dst_chain, a.stack) {
                            sib_dst.push((x, a.root.0, loc));
                        }
                    } else if src_set.contains(&a.op) {
                        if let Some(y) = chain_vals(&src_chain, a.stack) {
                            sib_src.entry((a.root.0, loc)).or_default().push(y);
                        }
                    }
                }
            }
        };
        ctx.simulate(st, Some(&mut obs))?
    };
    if kind == Kind::Sibling {
        for (x, r, loc) in &sib_dst {
            if let Some(ys) = sib_src.get(&(*r, *loc)) {
                for y in ys {
                    records.push((x.clone(), y.clone()));
                }
            }
        }
    }
    if records.is_empty() {
        return Err("no dependence to fuse along".into());
    }
    // The slice of the needed iterations alone is tried first (earlier destination
    // iterations' slices may have run what they read); if that is not legal, the slice
    // closed under the source's own value flow.
    let mut variants = vec![records];
    if let Some(closed) = close_records(&variants[0], &inner_edges) {
        variants.push(closed);
    }
    let src_cost = cost_of(m, &counts, src) as f64;
    let dst_cost = cost_of(m, &counts, dst) as f64;
    let elem = shared.iter().map(|&r| elem_bytes(m, r)).max().unwrap_or(4);
    let src_region = src_box
        .iter()
        .map(|(lo, hi)| (hi - lo + 1).max(0) as u64)
        .product::<u64>()
        .max(1)
        * elem;
    let mut best: Option<Candidate> = None;
    let mut why: Vec<String> = Vec::new();
    for d in (1..=dn).rev() {
        let mut failed: Option<String> = None;
        for records in &variants {
            let xs: Vec<ValueId> = dst_chain[..d]
                .iter()
                .filter_map(|&l| for_iv(m, l))
                .collect();
            let cands = if kind == Kind::Producer {
                slice_candidates(
                    m,
                    &src_ops,
                    &src_chain,
                    &accesses_to(m, dst, &shared, Some(false)),
                    &xs,
                )
            } else {
                Vec::new()
            };
            let Some(covers) = covers_at(records, d, k, &cands) else {
                continue;
            };
            // Loops carrying values keep their full range.
            let covers: Vec<Option<Cover>> = covers
                .into_iter()
                .zip(&src_chain)
                .map(|(c, &l)| {
                    let carried = for_parts(m, l).is_some_and(|p| !p.inits.is_empty());
                    (!carried).then_some(c)
                })
                .collect();
            let xr = const_ranges(m, &dst_chain[..d]);
            let bounds = match slice_bounds(m, &src_chain, &covers, &xs, &xr) {
                Ok(b) => b,
                Err(e) => {
                    failed.get_or_insert(format!("depth {d}: {e}"));
                    continue;
                }
            };
            let mut cand = st.clone();
            let clone_root = match build_fused(
                &mut cand,
                ctx.entry,
                src,
                dst,
                &dst_chain[d - 1],
                kind,
                &bounds,
                remove_src,
            ) {
                Ok(c) => c,
                Err(e) => {
                    failed.get_or_insert(format!("depth {d}: {e}"));
                    continue;
                }
            };
            let clone_set: FxHashSet<OpId> = cand.m.walk_ops(clone_root).into_iter().collect();
            let mut slice_boxes: Boxes = FxHashMap::default();
            let chain_d: Vec<OpId> = dst_chain[..d].to_vec();
            let res = {
                let mut obs = |a: &Access<'_>| {
                    if !a.write || !clone_set.contains(&a.op) || !shared_set.contains(&a.root) {
                        return;
                    }
                    let x: Option<Vec<i64>> = chain_d
                        .iter()
                        .map(|l| a.stack.iter().find(|(o, _)| o == l).map(|v| v.1))
                        .collect();
                    if let Some(x) = x {
                        let e = slice_boxes
                            .entry(x)
                            .or_insert_with(|| vec![(i64::MAX, i64::MIN); a.idx.len()]);
                        for (j, &i) in a.idx.iter().enumerate() {
                            if j < e.len() {
                                e[j].0 = e[j].0.min(i);
                                e[j].1 = e[j].1.max(i);
                            }
                        }
                    }
                };
                ctx.simulate(&cand, Some(&mut obs))
            };
            let new_counts = match res {
                Ok(c) => c,
                Err(e) => {
                    failed.get_or_insert(format!("depth {d}: {e}"));
                    continue;
                }
            };
            let fused_cost = cost_of(&cand.m, &new_counts, dst) as f64;
            let extra = fused_cost / (src_cost + dst_cost).max(1.0) - 1.0;
            if !ctx.opts.maximal && extra > ctx.opts.compute_tolerance {
                failed.get_or_insert(format!(
                    "depth {d}: {:.0}% redundant computation exceeds the tolerance of {:.0}%",
                    extra * 100.0,
                    ctx.opts.compute_tolerance * 100.0
                ));
                break;
            }
            let slice_region = region_elems(&slice_boxes) * elem;
            let reduction = src_region as f64 / slice_region.max(1) as f64;
            if best
                .as_ref()
                .is_none_or(|b| reduction > b.storage_reduction)
            {
                best = Some(Candidate {
                    st: cand,
                    depth: d,
                    storage_reduction: reduction,
                    extra,
                });
            }
            failed = None;
            break;
        }
        why.extend(failed);
    }
    best.ok_or_else(|| {
        if why.is_empty() {
            "no slice could be computed".to_string()
        } else {
            why.join("; ")
        }
    })
}

/// Inserts a slice copy of `src` (with `bounds`) into `dst`'s loop `at`; returns the copy.
#[allow(clippy::too_many_arguments)]
pub(super) fn build_fused(
    st: &mut State,
    entry: BlockId,
    src: OpId,
    dst: OpId,
    at: &OpId,
    kind: Kind,
    bounds: &Bounds,
    remove_src: bool,
) -> Result<OpId, String> {
    let m = &mut st.m;
    let src_pos = pos(m, entry, src);
    let dst_pos = pos(m, entry, dst);
    // Values the copy uses must be available at the destination.
    if kind == Kind::Sibling {
        let inside: FxHashSet<OpId> = m.walk_ops(src).into_iter().collect();
        let mut hoist = Vec::new();
        for o in m.walk_ops(src) {
            for &v in m.operands(o) {
                if let Some(d) = m.defining_op(v) {
                    if inside.contains(&d) {
                        continue;
                    }
                    if m.op_block(d) == Some(entry) && pos(m, entry, d) > dst_pos {
                        let n = name(m, d);
                        let ok = m.operands(d).is_empty()
                            && m.regions(d).is_empty()
                            && (n == "arith.constant"
                                || ((n == "memref.alloc" || n == "memref.alloca")
                                    && m.value_type(m.result(d, 0))
                                        .shape()
                                        .is_some_and(|s| s.iter().all(|&x| x >= 0))));
                        if !ok {
                            return Err(format!(
                                "the source uses a value defined by '{n}' after the destination"
                            ));
                        }
                        if !hoist.contains(&d) {
                            hoist.push(d);
                        }
                    }
                }
            }
        }
        hoist.sort_by_key(|&d| pos(m, entry, d));
        for d in hoist {
            m.move_before(d, dst);
        }
    }
    let mut vmap = FxHashMap::default();
    let copy = clone_op(m, src, &mut vmap, &mut st.origin, bounds);
    let b = body(m, *at, 0).ok_or("loop without body")?;
    match kind {
        Kind::Producer => m.prepend_op(b, copy),
        Kind::Sibling => {
            let term = m.last_op(b).ok_or("loop without terminator")?;
            m.insert_before(term, copy);
        }
    }
    if kind == Kind::Producer && src_pos < dst_pos {
        // Deallocations between the source and the destination of buffers the copy uses
        // go after the destination.
        let used: FxHashSet<ValueId> = m
            .walk_ops(copy)
            .into_iter()
            .flat_map(|o| m.operands(o).to_vec())
            .filter_map(|v| root_of(m, v))
            .collect();
        let between: Vec<OpId> = m
            .block_ops(entry)
            .skip(src_pos + 1)
            .take(dst_pos.saturating_sub(src_pos + 1))
            .filter(|&o| {
                name(m, o) == "memref.dealloc"
                    && m.operands(o)
                        .first()
                        .and_then(|&v| root_of(m, v))
                        .is_some_and(|r| used.contains(&r))
            })
            .collect();
        let mut anchor = dst;
        for d in between {
            m.detach_op(d);
            m.insert_after(anchor, d);
            anchor = d;
        }
    }
    if remove_src {
        m.erase_op(src);
    }
    Ok(copy)
}
