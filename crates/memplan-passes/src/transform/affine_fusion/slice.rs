//! Slices: fitting the per-iteration boxes of needed source iterations with affine covers,
//! and turning covers into slice loop bounds.

use super::*;

/// New bounds of slice loops: (lb map, lb operands, ub map, ub operands) per loop.
pub(super) type Bounds = FxHashMap<OpId, (AffineMap, Vec<ValueId>, AffineMap, Vec<ValueId>)>;

/// Per iteration prefix, the `[min, max]` of each subscript (or loop value).
pub(super) type Boxes = FxHashMap<Vec<i64>, Vec<(i64, i64)>>;

/// An affine cover of per-point ranges: `lo(x) = Σ slope·x + c0` (or `expr(x)` when set),
/// `[lo(x), lo(x) + width)`.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Cover {
    pub(super) slope: Vec<i64>,
    pub(super) c0: i64,
    pub(super) width: i64,
    /// A lower corner that is not linear (`(x + 1) mod 4`), over dims `0..x.len()`.
    pub(super) expr: Option<AffineExpr>,
}

impl Cover {
    /// The lower corner with `x`'s coordinates as dims `first..`.
    pub(super) fn lower(&self, first: u32) -> AffineExpr {
        match &self.expr {
            Some(e) => shift_dims(e, 0, first),
            None => linear(&self.slope, first, self.c0),
        }
    }
}

/// Fits a cover to `points`: (x, min, max). Slopes are the most frequent unit differences
/// of `min` along each coordinate; the offset and width then cover every point. A
/// candidate lower corner (an expression over `x`'s coordinates) replaces that fit when it
/// is below every `min` and gives a narrower window.
/// `records` (destination iteration, source iteration) closed under `edges` (source
/// iteration, source iteration it reads from) that stay inside one value of the source
/// levels the records move along; `None` when that adds nothing or grows too large.
pub(super) fn close_records(
    records: &[(Vec<i64>, Vec<i64>)],
    edges: &FxHashSet<(Vec<i64>, Vec<i64>)>,
) -> Option<Vec<(Vec<i64>, Vec<i64>)>> {
    if edges.is_empty() {
        return None;
    }
    // Source levels that move with the destination: the flow is followed only inside one
    // value of those (a flow along them, as in a prefix sum, is what earlier destination
    // iterations' slices computed; following it would recompute the whole prefix).
    let first = &records.first()?.1;
    let moving: Vec<bool> = (0..first.len())
        .map(|j| records.iter().any(|(_, y)| y.get(j) != first.get(j)))
        .collect();
    let mut succ: FxHashMap<&[i64], Vec<&[i64]>> = FxHashMap::default();
    for (r, w) in edges {
        let inside = r
            .iter()
            .zip(w)
            .zip(&moving)
            .all(|((a, b), &mv)| !mv || a == b);
        if inside {
            succ.entry(r.as_slice()).or_default().push(w.as_slice());
        }
    }
    let mut per: FxHashMap<&[i64], FxHashSet<&[i64]>> = FxHashMap::default();
    for (x, y) in records {
        per.entry(x.as_slice()).or_default().insert(y.as_slice());
    }
    let mut keys: Vec<&[i64]> = per.keys().copied().collect();
    keys.sort();
    let mut out = Vec::new();
    let mut added = false;
    let mut work = 0usize;
    for x in keys {
        let seen = per.get_mut(x)?;
        let mut stack: Vec<&[i64]> = seen.iter().copied().collect();
        stack.sort();
        while let Some(y) = stack.pop() {
            for &w in succ.get(y).map(Vec::as_slice).unwrap_or(&[]) {
                work += 1;
                if work > 4_000_000 {
                    return None;
                }
                if seen.insert(w) {
                    added = true;
                    stack.push(w);
                }
            }
        }
        let mut ys: Vec<&[i64]> = seen.iter().copied().collect();
        ys.sort();
        out.extend(ys.into_iter().map(|y| (x.to_vec(), y.to_vec())));
    }
    added.then_some(out)
}

pub(super) fn fit_cover(
    points: &[(Vec<i64>, i64, i64)],
    candidates: &[AffineExpr],
) -> Option<Cover> {
    let first = points.first()?;
    let n = first.0.len();
    // A coordinate equal to an earlier one plus a constant at every point (the loop of a
    // one-iteration slice, say) moves only with it: probe along the earlier one alone
    // and give the later one slope 0 (the offset absorbs the constant).
    let tied: Vec<bool> = (0..n)
        .map(|k| {
            (0..k).any(|j| {
                let c = first.0[k] - first.0[j];
                points.iter().all(|(x, _, _)| x[k] - x[j] == c)
            })
        })
        .collect();
    let free = |x: &[i64]| -> Vec<i64> {
        x.iter()
            .zip(&tied)
            .filter(|(_, &t)| !t)
            .map(|(&v, _)| v)
            .collect()
    };
    let index: FxHashMap<Vec<i64>, i64> = points.iter().map(|(x, lo, _)| (free(x), *lo)).collect();
    let mut slope = vec![0i64; n];
    for (k, s) in slope.iter_mut().enumerate() {
        if tied[k] {
            continue;
        }
        let kf = tied[..k].iter().filter(|&&t| !t).count();
        let mut freq: FxHashMap<i64, usize> = FxHashMap::default();
        for (x, lo, _) in points {
            let mut probe = free(x);
            probe[kf] += 1;
            if let Some(&l2) = index.get(&probe) {
                *freq.entry(l2 - lo).or_default() += 1;
            }
        }
        // Most frequent; ties go to the smaller magnitude, then the smaller value.
        if let Some((&v, _)) = freq
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then((b.0.abs(), *b.0).cmp(&(a.0.abs(), *a.0))))
        {
            *s = v;
        }
    }
    let dot = |x: &[i64]| -> Option<i64> {
        x.iter()
            .zip(&slope)
            .try_fold(0i64, |acc, (a, b)| acc.checked_add(a.checked_mul(*b)?))
    };
    let mut c0 = i64::MAX;
    for (x, lo, _) in points {
        c0 = c0.min(lo.checked_sub(dot(x)?)?);
    }
    let mut width = 0i64;
    for (x, _, hi) in points {
        width = width.max(hi.checked_sub(dot(x)?.checked_add(c0)?)?.checked_add(1)?);
    }
    let mut best = Cover {
        slope,
        c0,
        width,
        expr: None,
    };
    // The constant box (slope 0) when it is narrower: a union of needed ranges whose lower
    // corner moves with `x` over part of the points only (`{x} ∪ [15, 25)`) is covered by
    // `[10, 25)` at every point, where the most frequent slope needs a wider window.
    let lo_min = points.iter().map(|p| p.1).min()?;
    let hi_max = points.iter().map(|p| p.2).max()?;
    let w0 = hi_max.checked_sub(lo_min)?.checked_add(1)?;
    if w0 < best.width {
        best = Cover {
            slope: vec![0; n],
            c0: lo_min,
            width: w0,
            expr: None,
        };
    }
    // A candidate corner (from the subscripts) that gives a narrower window wins.
    for e in candidates {
        let mut w = 0i64;
        let mut ok = true;
        for (x, lo, hi) in points {
            match eval_expr(e, x, &[]) {
                Some(v) if v <= *lo => w = w.max(hi - v + 1),
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        if ok && w < best.width {
            best = Cover {
                slope: vec![0; n],
                c0: 0,
                width: w,
                expr: Some(e.clone()),
            };
        }
    }
    Some(best)
}

/// Builds bounds for the slice loops of `chain` (in the source) from `covers`, as functions
/// of `xs` (the destination's induction variables, whose value ranges are `xr` when
/// known). A `None` cover keeps the loop's bounds. A constant bound of the source loop that
/// the cover never crosses is dropped (and the cover, when it never passes the constant).
pub(super) fn slice_bounds(
    m: &Module,
    chain: &[OpId],
    covers: &[Option<Cover>],
    xs: &[ValueId],
    xr: &[Option<(i64, i64)>],
) -> Result<Bounds, String> {
    let mut out = FxHashMap::default();
    let d = xs.len() as u32;
    // Range of `Σ slope·x + c` over the destination's iteration box, when known.
    let range = |c: &Cover, add: i64| -> Option<(i64, i64)> {
        if c.expr.is_some() {
            return None;
        }
        let (mut lo, mut hi) = (c.c0.checked_add(add)?, c.c0.checked_add(add)?);
        for (k, &a) in c.slope.iter().enumerate() {
            if a == 0 {
                continue;
            }
            let (l, h) = (*xr.get(k)?)?;
            let (p, q) = (a.checked_mul(l)?, a.checked_mul(h)?);
            lo = lo.checked_add(p.min(q))?;
            hi = hi.checked_add(p.max(q))?;
        }
        Some((lo, hi))
    };
    let constant = |map: &AffineMap| match map.results.as_slice() {
        [AffineExpr::Const(c)] => Some(*c),
        _ => None,
    };
    for (l, c) in chain.iter().zip(covers) {
        let Some(c) = c else { continue };
        let p = for_parts(m, *l).ok_or("malformed loop")?;
        // lower: max(cover, orig); upper: min(cover + width, orig).
        let build = |orig: &AffineMap, ops: &[ValueId], add: i64, lower: bool| {
            let extra = simplify(&(c.lower(0) + AffineExpr::Const(add)));
            let r = range(c, add);
            if let (Some(k), Some((lo, hi))) = (constant(orig), r) {
                let (keep_extra, keep_orig) = if lower {
                    (hi > k, lo < k)
                } else {
                    (lo < k, hi > k)
                };
                if !keep_orig {
                    return (
                        AffineMap {
                            num_dims: d,
                            num_symbols: 0,
                            results: vec![extra],
                        },
                        xs.to_vec(),
                    );
                }
                if !keep_extra {
                    return (orig.clone(), ops.to_vec());
                }
            }
            let mut results = vec![extra];
            results.extend(orig.results.iter().map(|e| shift_dims(e, 0, d)));
            let map = AffineMap {
                num_dims: orig.num_dims + d,
                num_symbols: orig.num_symbols,
                results,
            };
            let mut operands = xs.to_vec();
            operands.extend_from_slice(ops);
            (map, operands)
        };
        let w = c.width;
        let (lbm, lbo) = build(&p.lb, &p.lb_ops, 0, true);
        let (ubm, ubo) = build(&p.ub, &p.ub_ops, w, false);
        let (lbm, lbo) = compact(&lbm, &lbo);
        let (ubm, ubo) = compact(&ubm, &ubo);
        out.insert(*l, (lbm, lbo, ubm, ubo));
    }
    Ok(out)
}

/// Constant `[lb, ub - 1]` of each loop, when its bounds are constants.
pub(super) fn const_ranges(m: &Module, loops: &[OpId]) -> Vec<Option<(i64, i64)>> {
    loops
        .iter()
        .map(|&l| {
            let p = for_parts(m, l)?;
            match (p.lb.results.as_slice(), p.ub.results.as_slice()) {
                ([AffineExpr::Const(a)], [AffineExpr::Const(b)]) if a < b => Some((*a, *b - 1)),
                _ => None,
            }
        })
        .collect()
}

/// The subscripts of access `op` as expressions over `xs` (dim `k` is `xs[k]`), where they
/// use only those values and constants.
pub(super) fn subscripts_over(m: &Module, op: OpId, xs: &[ValueId]) -> Vec<Option<AffineExpr>> {
    let Some((_, map, idx, _)) = access_parts(m, op) else {
        return Vec::new();
    };
    let nd = map.num_dims as usize;
    let dims: Vec<Option<u32>> = idx[..nd]
        .iter()
        .map(|v| xs.iter().position(|x| x == v).map(|p| p as u32))
        .collect();
    map.results
        .iter()
        .map(|e| {
            let mut ud = vec![false; nd];
            let mut us = vec![false; map.num_symbols as usize];
            uses_of(e, &mut ud, &mut us);
            if us.iter().any(|&u| u) || ud.iter().zip(&dims).any(|(&u, d)| u && d.is_none()) {
                return None;
            }
            Some(simplify(&rename(e, &dims, &[])))
        })
        .collect()
}

/// Candidate lower corners of the slice, per source chain level, as expressions over the
/// destination's `xs`: where a source store's subscript is `±y + c` in one chain loop's
/// induction variable `y`, a destination load of the same buffer with subscript `g(xs)`
/// there needs `y = ±(g(xs) - c)` (this keeps `mod`/`floordiv` subscripts exact).
pub(super) fn slice_candidates(
    m: &Module,
    src_stores: &[OpId],
    src_chain: &[OpId],
    dst_loads: &[OpId],
    xs: &[ValueId],
) -> Vec<Vec<AffineExpr>> {
    let ivs: Vec<Option<ValueId>> = src_chain.iter().map(|&l| for_iv(m, l)).collect();
    let mut out: Vec<Vec<AffineExpr>> = vec![Vec::new(); src_chain.len()];
    for &s in src_stores {
        let Some((mref, map, idx, true)) = access_parts(m, s) else {
            continue;
        };
        let root = root_of(m, mref);
        let loads: Vec<Vec<Option<AffineExpr>>> = dst_loads
            .iter()
            .filter(|&&l| access_parts(m, l).is_some_and(|a| root_of(m, a.0) == root))
            .map(|&l| subscripts_over(m, l, xs))
            .collect();
        for (r, e) in map.results.iter().enumerate() {
            let Some(lin) = linearize(e) else { continue };
            if lin.syms.values().any(|&k| k != 0) {
                continue;
            }
            let used: Vec<(u32, i64)> = lin
                .dims
                .iter()
                .filter(|(_, &k)| k != 0)
                .map(|(&d, &k)| (d, k))
                .collect();
            let [(p, a)] = used.as_slice() else { continue };
            if a.abs() != 1 {
                continue;
            }
            let Some(j) = idx
                .get(*p as usize)
                .and_then(|v| ivs.iter().position(|x| *x == Some(*v)))
            else {
                continue;
            };
            for g in loads.iter().filter_map(|l| l.get(r).cloned().flatten()) {
                let c = AffineExpr::Const(lin.c);
                let cand = simplify(&if *a == 1 { g - c } else { c - g });
                if !out[j].contains(&cand) {
                    out[j].push(cand);
                }
            }
        }
    }
    out
}

/// Candidate offsets for dimension `j` of a shrunk buffer: the accesses' own subscripts
/// over the induction variables of `chain`.
pub(super) fn shrink_candidates(
    st: &State,
    ops: &[OpId],
    chain: &[OpId],
    j: usize,
) -> Vec<AffineExpr> {
    let xs: Vec<ValueId> = chain.iter().filter_map(|&l| for_iv(&st.m, l)).collect();
    let mut out: Vec<AffineExpr> = Vec::new();
    for &o in ops {
        if let Some(Some(e)) = subscripts_over(&st.m, o, &xs).get(j) {
            if !out.contains(e) {
                out.push(e.clone());
            }
        }
    }
    out
}

/// Per destination prefix (first `d` values of the recorded x), the min/max of each
/// source chain level; then a cover per level.
#[allow(clippy::needless_range_loop)]
pub(super) fn covers_at(
    records: &[(Vec<i64>, Vec<i64>)],
    d: usize,
    k: usize,
    candidates: &[Vec<AffineExpr>],
) -> Option<Vec<Cover>> {
    let mut per: Boxes = FxHashMap::default();
    for (x, y) in records {
        let e = per
            .entry(x[..d].to_vec())
            .or_insert_with(|| vec![(i64::MAX, i64::MIN); k]);
        for (ej, &yj) in e.iter_mut().zip(y) {
            ej.0 = ej.0.min(yj);
            ej.1 = ej.1.max(yj);
        }
    }
    let mut keys: Vec<&Vec<i64>> = per.keys().collect();
    keys.sort();
    let mut out = Vec::new();
    for j in 0..k {
        let pts: Vec<(Vec<i64>, i64, i64)> = keys
            .iter()
            .map(|x| ((*x).clone(), per[*x][j].0, per[*x][j].1))
            .collect();
        out.push(fit_cover(
            &pts,
            candidates.get(j).map_or(&[], Vec::as_slice),
        )?);
    }
    Some(out)
}
