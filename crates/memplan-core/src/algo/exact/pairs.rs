//! The pair search: a second decision procedure for mid-size problems (at most
//! [`MAX_BUFFERS`] movable buffers), in the style of a CP solver's disjunctive
//! reasoning, run by every capacity probe before the canonical search.
//!
//! Any two co-live buffers are disjoint in bytes: one lies below the other.
//! The search branches on these pairwise orientations. Each node keeps, per
//! buffer, its earliest offset `est` and latest offset `lst` (aligned, clear
//! of fixed blocks, inside the offset domain when there is one), and the
//! orientations decided so far, closed transitively ("`i` below `j`" and "`j`
//! below `k`" give "`i` below `k`", a cycle fails the node), as bitsets.
//! Propagation, to a fixpoint:
//! - precedence: `i` below `j` gives `est_j >= est_i + size_i` and
//!   `lst_i <= lst_j - size_i` (longest paths over the closed graph);
//! - detectable orientations: if `i` cannot end below `lst_j`, `i` is above
//!   `j` (and a pair that fits neither way fails the node);
//! - overload, per resource (a one-machine disjunctive resource in the offset
//!   axis, fixed blocks included): the buffers whose windows lie within
//!   `[lo, hi)` must fit in `hi - lo` bytes;
//! - edge finding per resource: a buffer that cannot fit below (above) a set
//!   of members confined to a window lies above (below) all of them.
//!
//! The resources are the time sections and the maximal cliques of the co-live
//! graph: with holes in lifetimes, buffers can be pairwise co-live without a
//! common tick, and such a clique can outweigh every section (its total size
//! is then a lower bound above max-load).
//!
//! A node whose earliest offsets already overlap nowhere is a plan (every
//! decided pair is apart by propagation; the undecided ones do not meet): the
//! search stops there. Otherwise it branches on an undecided co-live pair
//! whose earliest placements overlap, the tightest first. Twins (same size,
//! alignment, live sections, fixed neighbours and domain) are ordered by index
//! at the root: exchanging two twins maps plans to plans.
//!
//! Each branch is one node; the search is complete, so "no node left" proves
//! that nothing fits below the capacity.

use std::sync::Arc;
use std::time::Instant;

use super::domains::Domains;
use super::model::Model;
use super::search::Status;

/// Problems with at most this many movable buffers get the pair search (the
/// orientations are kept in 64-bit sets).
pub(crate) const MAX_BUFFERS: usize = 64;

/// Check the clock every this many nodes (plus one).
const CLOCK_MASK: u64 = 63;

/// Iterates over the set bits of `w`.
fn bits(mut w: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if w == 0 {
            return None;
        }
        let k = w.trailing_zeros() as usize;
        w &= w - 1;
        Some(k)
    })
}

/// A disjunctive resource of the offset axis: movable buffers that are pairwise
/// co-live (so pairwise disjoint in bytes in every plan), and the byte runs of
/// the fixed blocks co-live with every one of them, merged, as `(offset, size)`
/// (each member avoids all of them).
///
/// Every time section's buffers form one, but with holes in lifetimes buffers
/// can be pairwise co-live without sharing a tick (`a` live in `[0, 1)` and
/// `[4, 5)`, `b` in `[0, 3)`, `c` in `[2, 5)`: at most two at any tick, yet all
/// three must be apart in bytes): the maximal
/// cliques of the co-live graph are the strongest such sets, and their total
/// sizes can exceed every section's load.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Resource {
    mask: u64,
    fixed: Vec<(u64, u64)>,
}

/// At most this many maximal cliques are listed (beyond it the sections and the
/// cliques listed so far are used: each is sound on its own).
const MAX_CLIQUES: usize = 1024;

/// Bron-Kerbosch steps allowed for listing the maximal cliques.
const CLIQUE_STEPS: u32 = 50_000;

/// Lists maximal cliques of the graph `adj` (bitsets) containing `r`, with
/// candidates `p` and excluded vertices `x` (Bron-Kerbosch with pivoting).
fn cliques(adj: &[u64], r: u64, mut p: u64, mut x: u64, out: &mut Vec<u64>, steps: &mut u32) {
    if p == 0 {
        if x == 0 {
            out.push(r);
        }
        return;
    }
    if *steps == 0 || out.len() >= MAX_CLIQUES {
        return;
    }
    *steps -= 1;
    // The pivot leaves the fewest branches: the vertex with most candidates as neighbours.
    let u = bits(p | x)
        .max_by_key(|&u| ((p & adj[u]).count_ones(), std::cmp::Reverse(u)))
        .unwrap_or(0);
    for v in bits(p & !adj[u]) {
        cliques(adj, r | 1 << v, p & adj[v], x & adj[v], out, steps);
        p &= !(1 << v);
        x |= 1 << v;
    }
}

/// The disjunctive resources of `m`: its time sections and the maximal cliques
/// of its co-live graph, each with its fixed runs, dropping any whose members
/// are a subset of another's with the same fixed runs (fewer members mean the
/// same or more fixed blocks, so only then is it dominated).
fn resources(m: &Model, colive: &[u64]) -> Vec<Resource> {
    let n = colive.len();
    let mut masks: Vec<u64> = (0..m.nsec)
        .map(|t| m.members.row(t).iter().fold(0u64, |w, &q| w | 1 << q))
        .collect();
    let all = if n == 64 { !0 } else { (1u64 << n) - 1 };
    let mut steps = CLIQUE_STEPS;
    cliques(colive, 0, all, 0, &mut masks, &mut steps);
    let mut res: Vec<Resource> = masks
        .into_iter()
        .filter(|&w| w != 0)
        .map(|w| {
            let mut blocks: Vec<(u64, u64)> = m
                .fixed_colive
                .iter()
                .filter(|&&(_, _, c)| c & w == w)
                .map(|&(o, s, _)| (o, o.saturating_add(s)))
                .collect();
            blocks.sort_unstable();
            let mut runs: Vec<(u64, u64)> = Vec::new();
            for (lo, hi) in blocks {
                match runs.last_mut() {
                    Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
                    _ => runs.push((lo, hi)),
                }
            }
            Resource {
                mask: w,
                fixed: runs.into_iter().map(|(lo, hi)| (lo, hi - lo)).collect(),
            }
        })
        .filter(|r| r.mask.count_ones() >= 2 || !r.fixed.is_empty())
        .collect();
    res.sort_unstable();
    res.dedup();
    let keep: Vec<bool> = res
        .iter()
        .map(|a| {
            !res.iter()
                .any(|b| b.mask != a.mask && a.mask & !b.mask == 0 && b.fixed == a.fixed)
        })
        .collect();
    res.into_iter()
        .zip(keep)
        .filter_map(|(r, k)| k.then_some(r))
        .collect()
}

/// One open node: its state is `states[depth]`; it branches on `pair` (first
/// `pair.0` below `pair.1`, then the other way).
#[derive(Clone, Copy)]
struct Frame {
    pair: (u32, u32),
    tried: u8,
}

/// Decision searcher for one model; reusable across capacities.
pub(crate) struct PairSearch<'m> {
    m: &'m Model,
    n: usize,
    cap: u64,
    /// Co-live movable buffers of each buffer.
    colive: Vec<u64>,
    /// Twin pairs `(i, j)`, `i < j`, consecutive in their class.
    twins: Vec<(u32, u32)>,
    /// The disjunctive resources (see [`Resource`]), none dominated by another.
    res: Vec<Resource>,
    /// Per buffer, the resources it belongs to, with their member sets.
    bsecs: Vec<Vec<(usize, u64)>>,
    /// The heaviest resource's total size: a lower bound on every plan's peak.
    clique_bound: u64,
    /// Node states, `4 n` words per depth: est, lst, above, below.
    states: Vec<u64>,
    stack: Vec<Frame>,
    order: Vec<u32>,
    tasks: Vec<(u64, u64, u64)>,
    /// Edge finding's members of one resource: (latest end, earliest offset, size, buffer).
    ef: Vec<(u64, u64, u64, u32)>,
    /// The distinct earliest offsets of `ef`.
    los: Vec<u64>,
    /// Per buffer, how many children failed on a decision about it (kept
    /// across probes: the same conflicts recur at nearby capacities).
    wt: Vec<u32>,
    /// Offset domains at the capacity being decided, if any.
    pub dom: Option<Arc<Domains>>,
    /// Offsets of the last solution found.
    pub sol: Vec<u64>,
    /// Nodes visited, over all runs.
    pub nodes: u64,
    /// Absolute node count at which to stop.
    pub node_stop: u64,
    /// Deadline.
    pub deadline: Option<Instant>,
}

impl<'m> PairSearch<'m> {
    /// A searcher for `m`, or `None` when `m` has too many buffers.
    pub fn new(m: &'m Model) -> Option<Self> {
        let n = m.n();
        if n == 0 || n > MAX_BUFFERS {
            return None;
        }
        let colive: Vec<u64> = (0..n)
            .map(|b| m.adj.row(b).iter().fold(0u64, |w, &q| w | 1 << q))
            .collect();
        let mut twins = Vec::new();
        for j in 0..n {
            // The nearest lower-index twin.
            if let Some(i) = (0..j).rev().find(|&i| {
                m.size[i] == m.size[j]
                    && m.align[i] == m.align[j]
                    && m.live.row(i) == m.live.row(j)
                    && m.fixed.row(i) == m.fixed.row(j)
            }) {
                twins.push((i as u32, j as u32));
            }
        }
        let res = resources(m, &colive);
        let bsecs = (0..n)
            .map(|b| {
                res.iter()
                    .enumerate()
                    .filter(|(_, r)| r.mask >> b & 1 == 1)
                    .map(|(k, r)| (k, r.mask))
                    .collect()
            })
            .collect();
        let clique_bound = res
            .iter()
            .map(|r| bits(r.mask).map(|b| m.size[b]).sum::<u64>())
            .max()
            .unwrap_or(0);
        Some(PairSearch {
            m,
            n,
            cap: 0,
            colive,
            twins,
            res,
            bsecs,
            clique_bound,
            states: Vec::new(),
            stack: Vec::new(),
            order: (0..n as u32).collect(),
            tasks: Vec::new(),
            ef: Vec::new(),
            los: Vec::new(),
            wt: vec![0; n],
            dom: None,
            sol: vec![0; n],
            nodes: 0,
            node_stop: u64::MAX,
            deadline: None,
        })
    }

    /// The heaviest pairwise co-live set's total size: no plan's peak is lower.
    pub fn clique_bound(&self) -> u64 {
        self.clique_bound
    }

    /// The lowest offset `>= x` that `b` may take within the capacity.
    #[inline]
    fn lowest(&self, b: usize, x: u64) -> Option<u64> {
        let y = match &self.dom {
            Some(d) => d.next(b, x)?,
            None => self.m.fit(b, x),
        };
        (y.checked_add(self.m.size[b])? <= self.cap).then_some(y)
    }

    /// The highest offset `<= x` that `b` may take: aligned, clear of its
    /// co-live fixed blocks, in its domain.
    #[inline]
    fn highest(&self, b: usize, x: u64) -> Option<u64> {
        if let Some(d) = &self.dom {
            return d.prev(b, x);
        }
        let (a, s) = (self.m.align[b], self.m.size[b]);
        let row = self.m.fixed.row(b);
        let mut y = x - x % a;
        loop {
            // Runs are disjoint and sorted: the last one starting below `y + s`
            // reaches highest.
            let k = row.partition_point(|&(lo, _)| lo < y.saturating_add(s));
            match k.checked_sub(1).map(|k| row[k]) {
                Some((lo, hi)) if hi > y => {
                    let z = lo.checked_sub(s)?;
                    y = z - z % a;
                }
                _ => return Some(y),
            }
        }
    }

    /// Records "`i` below `j`" in the closure; false on a cycle.
    fn orient(st: &mut [u64], n: usize, i: usize, j: usize) -> bool {
        let (above, below) = st[2 * n..].split_at_mut(n);
        if below[i] >> j & 1 == 1 {
            return false;
        }
        if above[i] >> j & 1 == 1 {
            return true;
        }
        let lower = below[i] | 1 << i;
        let upper = above[j] | 1 << j;
        for x in bits(lower) {
            above[x] |= upper;
        }
        for y in bits(upper) {
            below[y] |= lower;
        }
        true
    }

    /// Propagates a node's state to a fixpoint; false if it has no plan.
    fn propagate(&mut self, st: &mut [u64]) -> bool {
        let n = self.n;
        let m = self.m;
        loop {
            // Closed sets grow along every path: fewer below comes first.
            let below = &st[3 * n..4 * n];
            self.order
                .sort_unstable_by_key(|&b| (below[b as usize].count_ones(), b));
            for k in 0..n {
                let j = self.order[k] as usize;
                let mut lb = st[j];
                for i in bits(st[3 * n + j]) {
                    lb = lb.max(st[i] + m.size[i]);
                }
                // Energy: in each section, everything below `j` lies in `[r, off_j)`
                // with `r` the lowest earliest offset among them.
                for k2 in 0..self.bsecs[j].len() {
                    let (r, mask) = self.bsecs[j][k2];
                    let below = st[3 * n + j] & mask;
                    let fixed = &self.res[r].fixed;
                    if below.count_ones() + (fixed.len() as u32) < 2 {
                        continue;
                    }
                    self.tasks.clear();
                    for q in bits(below) {
                        self.tasks.push((st[q], 0, m.size[q]));
                    }
                    // A fixed block `j` cannot pass below lies below it.
                    for &(o, sz) in fixed.iter() {
                        if st[j] + m.size[j] > o {
                            self.tasks.push((o, 0, sz));
                        }
                    }
                    self.tasks.sort_unstable_by(|a, b| b.cmp(a));
                    let mut acc = 0u64;
                    for &(r, _, p) in &self.tasks {
                        acc += p;
                        lb = lb.max(r + acc);
                    }
                }
                if lb > st[j] {
                    match self.lowest(j, lb) {
                        Some(y) => st[j] = y,
                        None => return false,
                    }
                }
            }
            for k in (0..n).rev() {
                let i = self.order[k] as usize;
                let mut ub = st[n + i];
                for j in bits(st[2 * n + i]) {
                    match st[n + j].checked_sub(m.size[i]) {
                        Some(u) => ub = ub.min(u),
                        None => return false,
                    }
                }
                // Energy: everything above `i` in a section lies in
                // `[off_i + size_i, d)` with `d` the highest latest end among them.
                for k2 in 0..self.bsecs[i].len() {
                    let (r, mask) = self.bsecs[i][k2];
                    let above = st[2 * n + i] & mask;
                    let fixed = &self.res[r].fixed;
                    if above.count_ones() + (fixed.len() as u32) < 2 {
                        continue;
                    }
                    self.tasks.clear();
                    for q in bits(above) {
                        self.tasks.push((st[n + q] + m.size[q], 0, m.size[q]));
                    }
                    // A fixed block `i` cannot pass above lies above it.
                    for &(o, sz) in fixed.iter() {
                        if st[n + i] < o.saturating_add(sz) {
                            self.tasks.push((o.saturating_add(sz), 0, sz));
                        }
                    }
                    self.tasks.sort_unstable();
                    let mut acc = 0u64;
                    for &(d, _, p) in &self.tasks {
                        acc += p;
                        match d.checked_sub(acc + m.size[i]) {
                            Some(u) => ub = ub.min(u),
                            None => return false,
                        }
                    }
                }
                if ub < st[n + i] {
                    match self.highest(i, ub) {
                        Some(y) => st[n + i] = y,
                        None => return false,
                    }
                }
                if st[i] > st[n + i] {
                    return false;
                }
            }
            // Detectable orientations.
            let mut changed = false;
            for i in 0..n {
                let open = self.colive[i] & !st[2 * n + i] & !st[3 * n + i] & (!0u64 << i << 1);
                for j in bits(open) {
                    let ij = st[i] + m.size[i] <= st[n + j];
                    let ji = st[j] + m.size[j] <= st[n + i];
                    match (ij, ji) {
                        (false, false) => return false,
                        (true, false) => {
                            if !Self::orient(st, n, i, j) {
                                return false;
                            }
                            changed = true;
                        }
                        (false, true) => {
                            if !Self::orient(st, n, j, i) {
                                return false;
                            }
                            changed = true;
                        }
                        (true, true) => {}
                    }
                }
            }
            if changed {
                continue;
            }
            if !self.overload(st) {
                return false;
            }
            match self.edge_find(st) {
                None => return false,
                Some(true) => continue,
                Some(false) => return true,
            }
        }
    }

    /// Edge finding per resource (its movable members; leaving fixed blocks
    /// out keeps every rule sound): for a set `Ω` of members whose windows lie
    /// within `[lo, hi)` (total size `P`) and a member `i` outside it,
    /// - if `min(lo, est_i) + P + size_i > hi`, `i` cannot lie below any member
    ///   of `Ω` (the block of all of them would have to start at or above
    ///   `min(lo, est_i)` and end by `hi`): every member of `Ω` is below `i`;
    /// - if `lo + P + size_i > max(hi, lct_i)`, no member of `Ω` can lie below
    ///   `i`: `i` is below all of them.
    ///
    /// Returns `None` when an orientation closes a cycle, else whether any
    /// orientation was added.
    fn edge_find(&mut self, st: &mut [u64]) -> Option<bool> {
        let n = self.n;
        let m = self.m;
        let mut changed = false;
        for r in 0..self.res.len() {
            let mask = self.res[r].mask;
            if mask.count_ones() < 3 {
                continue;
            }
            // (lct, est, size, buffer) by latest end.
            self.ef.clear();
            let mut pmax = 0;
            for b in bits(mask) {
                self.ef
                    .push((st[n + b] + m.size[b], st[b], m.size[b], b as u32));
                pmax = pmax.max(m.size[b]);
            }
            self.ef.sort_unstable();
            // Each distinct earliest offset once (members often share one).
            self.los.clear();
            self.los.extend(self.ef.iter().map(|e| e.1));
            self.los.sort_unstable();
            self.los.dedup();
            for k in 0..self.los.len() {
                let lo = self.los[k];
                let (mut p, mut omega) = (0u64, 0u64);
                for h in 0..self.ef.len() {
                    let (hi, r0, sz, b) = self.ef[h];
                    if r0 < lo {
                        continue;
                    }
                    p += sz;
                    omega |= 1 << b;
                    // Only a member larger than the slack can be forced.
                    let slack = hi.saturating_sub(lo + p);
                    if slack >= pmax {
                        continue;
                    }
                    for x in 0..self.ef.len() {
                        let (lct_i, est_i, sz_i, i) = self.ef[x];
                        let i = i as usize;
                        if sz_i <= slack || omega >> i & 1 == 1 {
                            continue;
                        }
                        if lo.min(est_i) + p + sz_i > hi {
                            let todo = omega & !st[3 * n + i];
                            if todo != 0 {
                                for q in bits(todo) {
                                    if !Self::orient(st, n, q, i) {
                                        return None;
                                    }
                                }
                                changed = true;
                            }
                        } else if lo + p + sz_i > hi.max(lct_i) {
                            let todo = omega & !st[2 * n + i];
                            if todo != 0 {
                                for q in bits(todo) {
                                    if !Self::orient(st, n, i, q) {
                                        return None;
                                    }
                                }
                                changed = true;
                            }
                        }
                    }
                }
            }
        }
        Some(changed)
    }

    /// Overload checking per section: for every `lo` among the windows' starts
    /// and every `hi` among their ends, the sizes of the windows inside
    /// `[lo, hi)` add up to at most `hi - lo`.
    fn overload(&mut self, st: &[u64]) -> bool {
        let n = self.n;
        let m = self.m;
        for r in &self.res {
            self.tasks.clear();
            for b in bits(r.mask) {
                self.tasks.push((st[n + b] + m.size[b], st[b], m.size[b]));
            }
            for &(o, s) in &r.fixed {
                self.tasks.push((o.saturating_add(s), o, s));
            }
            self.tasks.sort_unstable();
            for k in 0..self.tasks.len() {
                let lo = self.tasks[k].1;
                let mut acc = 0u64;
                for &(hi, r, p) in &self.tasks {
                    if r >= lo {
                        acc += p;
                        if lo + acc > hi {
                            return false;
                        }
                    }
                }
            }
        }
        true
    }

    /// The pair to branch on, the orientation to try first leading, or `None`
    /// when the earliest offsets are a plan.
    fn choose(&self, st: &[u64]) -> Option<(u32, u32)> {
        let n = self.n;
        let m = self.m;
        let mut best: Option<(u64, u64, (u32, u32))> = None;
        for i in 0..n {
            let open = self.colive[i] & !st[2 * n + i] & !st[3 * n + i] & (!0u64 << i << 1);
            for j in bits(open) {
                let (ei, ej) = (st[i], st[j]);
                if ei + m.size[i] <= ej || ej + m.size[j] <= ei {
                    continue;
                }
                // Room left either way; the tighter way decides the score.
                let sij = st[n + j] - (ei + m.size[i]);
                let sji = st[n + i] - (ej + m.size[j]);
                // Conflict-directed: pairs whose buffers failed most often first
                // (weighted degree), then the tighter pair.
                let w = u64::MAX - (u64::from(self.wt[i]) + u64::from(self.wt[j]));
                let key = (w, sij.max(sji));
                let pair = if sij >= sji {
                    (i as u32, j as u32)
                } else {
                    (j as u32, i as u32)
                };
                if best.is_none_or(|(a, b, _)| key < (a, b)) {
                    best = Some((key.0, key.1, pair));
                }
            }
        }
        best.map(|(_, _, p)| p)
    }

    fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Decides whether every buffer fits below `cap`.
    pub fn decide(&mut self, cap: u64) -> Status {
        let n = self.n;
        let m = self.m;
        self.cap = cap;
        self.stack.clear();
        let mut states = std::mem::take(&mut self.states);
        states.clear();
        states.resize(4 * n, 0);
        let status = 'search: {
            self.nodes += 1;
            for b in 0..n {
                let (Some(lo), Some(hi)) = (
                    self.lowest(b, 0),
                    cap.checked_sub(m.size[b]).and_then(|x| self.highest(b, x)),
                ) else {
                    break 'search Status::Infeasible;
                };
                states[b] = lo;
                states[n + b] = hi;
            }
            for k in 0..self.twins.len() {
                let (i, j) = self.twins[k];
                let (i, j) = (i as usize, j as usize);
                if self.colive[i] >> j & 1 == 1
                    && self.dom.as_ref().is_none_or(|d| d.same(i, j))
                    && !Self::orient(&mut states[..4 * n], n, i, j)
                {
                    break 'search Status::Infeasible;
                }
            }
            if !self.propagate(&mut states[..4 * n]) {
                break 'search Status::Infeasible;
            }
            match self.choose(&states[..4 * n]) {
                None => {
                    self.sol.copy_from_slice(&states[..n]);
                    break 'search Status::Found;
                }
                Some(pair) => self.stack.push(Frame { pair, tried: 0 }),
            }
            loop {
                let Some(top) = self.stack.last_mut() else {
                    break 'search Status::Infeasible;
                };
                if top.tried == 2 {
                    self.stack.pop();
                    continue;
                }
                let (a, b) = if top.tried == 0 {
                    (top.pair.0, top.pair.1)
                } else {
                    (top.pair.1, top.pair.0)
                };
                top.tried += 1;
                if self.nodes >= self.node_stop {
                    break 'search Status::NodeLimit;
                }
                self.nodes += 1;
                if self.nodes & CLOCK_MASK == 0 && self.expired() {
                    break 'search Status::TimeLimit;
                }
                let d = self.stack.len();
                if states.len() < 4 * n * (d + 1) {
                    states.resize(4 * n * (d + 1), 0);
                }
                let (parent, child) = states.split_at_mut(4 * n * d);
                let child = &mut child[..4 * n];
                child.copy_from_slice(&parent[4 * n * (d - 1)..]);
                if !Self::orient(child, n, a as usize, b as usize) || !self.propagate(child) {
                    self.wt[a as usize] = self.wt[a as usize].saturating_add(1);
                    self.wt[b as usize] = self.wt[b as usize].saturating_add(1);
                    continue;
                }
                match self.choose(child) {
                    None => {
                        self.sol.copy_from_slice(&child[..n]);
                        break 'search Status::Found;
                    }
                    Some(pair) => self.stack.push(Frame { pair, tried: 0 }),
                }
            }
        };
        self.states = states;
        status
    }
}

#[cfg(test)]
mod tests {
    use super::super::domains::tests::{fits, random_problem, Rng};
    use super::super::domains::{filter, Filtered};
    use super::*;

    /// Whether some plan of `m` fits within `cap` (every offset up to `cap - size`).
    fn brute_feasible(p: &crate::problem::Problem, m: &Model, cap: u64) -> bool {
        let n = m.n();
        if m.size.iter().any(|&s| s > cap) {
            return false;
        }
        let mut off = vec![0u64; n];
        'all: loop {
            if (0..n).all(|k| fits(p, m, &off, k, off[k], cap)) {
                return true;
            }
            for (o, &s) in off.iter_mut().zip(&m.size) {
                *o += 1;
                if *o + s <= cap {
                    continue 'all;
                }
                *o = 0;
            }
            return false;
        }
    }

    /// The pair search decides every capacity from below the max-load bound up
    /// exactly as brute force does (with and without offset domains), and every
    /// plan it finds fits.
    #[test]
    fn pair_search_matches_brute_force() {
        let mut rng = Rng(0x9a1f_77e3_0c15);
        let (mut found, mut refuted, mut with_domains) = (0u64, 0u64, 0u64);
        let mut below_clique = 0u64;
        for _ in 0..500 {
            let p = random_problem(&mut rng);
            let m = Model::build(&p);
            let Some(mut ps) = PairSearch::new(&m) else {
                continue;
            };
            let fixed_top = p
                .buffers
                .iter()
                .filter_map(|b| b.fixed_offset.map(|o| o + b.size))
                .max()
                .unwrap_or(0);
            let lb = crate::bounds::max_load(&p).max(fixed_top);
            for cap in lb..lb + 6 {
                let truth = brute_feasible(&p, &m, cap);
                if cap < ps.clique_bound() {
                    assert!(
                        !truth,
                        "clique bound {} above cap {cap}: {p:?}",
                        ps.clique_bound()
                    );
                    below_clique += 1;
                }
                let doms: Vec<Option<Arc<Domains>>> = match filter(&m, cap, u64::MAX) {
                    Filtered::Domains(d) => vec![None, Some(Arc::new(d))],
                    Filtered::Infeasible => {
                        assert!(!truth, "filtering refuted a feasible cap {cap}: {p:?}");
                        vec![None]
                    }
                    Filtered::Unavailable => vec![None],
                };
                for dom in doms {
                    with_domains += u64::from(dom.is_some());
                    ps.dom = dom;
                    let st = ps.decide(cap);
                    match st {
                        Status::Found => {
                            assert!(truth, "{p:?} cap {cap}");
                            let sol = ps.sol.clone();
                            for k in 0..m.n() {
                                assert!(fits(&p, &m, &sol, k, sol[k], cap), "{p:?} {sol:?}");
                            }
                            found += 1;
                        }
                        Status::Infeasible => {
                            assert!(!truth, "refuted a feasible cap {cap}: {p:?}");
                            refuted += 1;
                        }
                        other => panic!("{other:?} without limits"),
                    }
                }
            }
        }
        assert!(
            found > 1000 && refuted > 200 && with_domains > 50 && below_clique > 20,
            "{found} {refuted} {with_domains} {below_clique}"
        );
    }

    /// Three buffers pairwise co-live with no tick in common (holes): max-load
    /// sees two at a time, the clique bound all three, and `exact` proves the
    /// optimum at once; a fixed block co-live with all three joins their clique
    /// as a fixed run.
    #[test]
    fn pairwise_co_live_buffers_without_a_common_tick_form_a_clique() {
        use crate::problem::{Buffer, Interval, Problem};
        let mk = |live: Vec<Interval>| Buffer::new(10, 0, 1).with_live(live);
        let p = Problem::new(vec![
            mk(vec![Interval::new(0, 1), Interval::new(4, 5)]),
            mk(vec![Interval::new(0, 3)]),
            mk(vec![Interval::new(2, 5)]),
        ]);
        assert_eq!(crate::bounds::max_load(&p), 20);
        let m = Model::build(&p);
        let mut ps = PairSearch::new(&m).expect("small");
        assert_eq!(ps.clique_bound(), 30);
        assert!(ps.res.iter().any(|r| r.mask == 0b111 && r.fixed.is_empty()));
        assert_eq!(ps.decide(29), Status::Infeasible);
        assert_eq!(ps.decide(30), Status::Found);
        let opts = crate::Options::with_algorithm(crate::Algorithm::Exact);
        let r = crate::plan(&p, &opts).expect("plans");
        assert!(r.optimal);
        assert_eq!(r.peak(), 30);

        let mut bufs = p.buffers.clone();
        bufs.push(Buffer::new(4, 0, 5).fixed_at(0));
        let p2 = Problem::new(bufs);
        let m2 = Model::build(&p2);
        let ps2 = PairSearch::new(&m2).expect("small");
        assert!(ps2
            .res
            .iter()
            .any(|r| r.mask == 0b111 && r.fixed == vec![(0, 4)]));
        let r2 = crate::plan(&p2, &opts).expect("plans");
        assert!(r2.optimal);
        assert_eq!(r2.peak(), 34);
    }

    /// Mid-size problems (8-16 buffers, holes, alignments, fixed blocks): the
    /// pair search and the canonical search agree on every capacity both decide.
    #[test]
    fn pair_search_agrees_with_the_canonical_search() {
        use super::super::orders;
        use super::super::search::Search;
        use crate::problem::{Buffer, Interval, Problem};
        let mut rng = Rng(0x51d_c0de_4242);
        let (mut agreed, mut infeasible) = (0u64, 0u64);
        for _ in 0..120 {
            let n = 8 + rng.below(9) as usize;
            let mut bufs = Vec::new();
            for _ in 0..n {
                let mut live = Vec::new();
                for _ in 0..1 + rng.below(2) {
                    let s = rng.below(16);
                    live.push(Interval::new(s, s + 1 + rng.below(5)));
                }
                let align = [1, 1, 2, 4, 8][rng.below(5) as usize];
                let mut b = Buffer::new(1 + rng.below(48), 0, 1)
                    .with_live(crate::problem::normalize_intervals(live))
                    .with_align(align);
                if rng.below(10) == 0 {
                    b = b.fixed_at(align * rng.below(8));
                }
                bufs.push(b);
            }
            let p = Problem::new(bufs);
            let m = Model::build(&p);
            if p.validate().is_err() || m.n() == 0 {
                continue;
            }
            let fixed_top = p
                .buffers
                .iter()
                .filter_map(|b| b.fixed_offset.map(|o| o + b.size))
                .max()
                .unwrap_or(0);
            let lb = crate::bounds::max_load(&p).max(fixed_top);
            let ords = orders(&m);
            let mut ps = PairSearch::new(&m).expect("mid-size");
            let mut cs = Search::new(&m);
            for cap in lb..lb + 12 {
                ps.node_stop = ps.nodes + 200_000;
                let a = ps.decide(cap);
                if a == Status::Found {
                    let sol = ps.sol.clone();
                    for k in 0..m.n() {
                        assert!(fits(&p, &m, &sol, k, sol[k], cap), "{p:?} {sol:?}");
                    }
                }
                cs.node_stop = cs.nodes + 2_000_000;
                let b = cs.decide(cap, &ords[0]);
                if a != Status::NodeLimit && b != Status::NodeLimit {
                    assert_eq!(a, b, "cap {cap}: {p:?}");
                    agreed += 1;
                    infeasible += u64::from(a == Status::Infeasible);
                }
                if a == Status::Found && b == Status::Found {
                    break;
                }
            }
        }
        assert!(agreed > 300 && infeasible > 100, "{agreed} {infeasible}");
    }
}
