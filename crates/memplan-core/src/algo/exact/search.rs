//! The decision search: "does every buffer fit below capacity `cap`?", by
//! depth-first branch and bound over canonical placements (MiniMalloc,
//! Moffitt, ASPLOS 2024), with an explicit stack instead of recursion.
//!
//! A node places one buffer at its current minimum offset (the lowest aligned
//! offset above every placed co-live buffer, clear of fixed blocks), so every
//! buffer rests on another one, on a fixed block or on 0. Placements along a
//! path are non-decreasing in `(offset, rank)`, so each canonical solution is
//! met once. Pruning:
//! - dominance: no buffer is placed at or above the lowest top any unplaced
//!   buffer of the same partition could reach (that buffer could drop into the gap);
//! - section inference: in every section, the floor (highest placed top, raised
//!   to the lowest minimum offset of its unplaced buffers, and never below the
//!   current offset) plus the unplaced bytes must stay within `cap`;
//! - twins (same size, alignment and lifetime) are placed in rank order only;
//! - dynamic decomposition: once no unplaced buffer crosses a section boundary,
//!   the two sides are solved one after the other, and a failure on one side
//!   fails the node at once (no backtracking into the other side).

use std::time::Instant;

use super::domains::Domains;
use super::model::Model;

const NONE: u64 = u64::MAX;
const NO_BUF: u32 = u32::MAX;
/// Check the clock every this many placement attempts (plus one).
const PLACE_CLOCK_MASK: u64 = 63;

/// Sub-partitions up to this many buffers are re-ranked when a split creates them.
const RERANK_MAX: u32 = 4096;

/// How a decision search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// A solution was found (in `Search::sol`).
    Found,
    /// Proved: nothing fits.
    Infeasible,
    /// The node budget ran out.
    NodeLimit,
    /// The deadline passed (or another worker asked to stop).
    TimeLimit,
}

/// One static sort key (all descending), as in MiniMalloc's preorder strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Key {
    /// Lifetime width (hull length in ticks).
    Width,
    /// Size times width.
    Area,
    /// The largest unplaced total of any section the buffer lives in (recomputed
    /// for every sub-partition a split creates, from the totals at that moment).
    Total,
}

/// A static preorder of the buffers (the rank breaks ties among equal offsets).
#[derive(Clone, Debug)]
pub(crate) struct Order {
    /// The three keys, most significant first; ties go to the lower buffer index.
    pub keys: [Key; 3],
    /// Re-rank every sub-partition a split creates (else keep the static ranks).
    pub rerank: bool,
    /// Rank of each buffer (0 = placed first among equal offsets).
    pub rank: Vec<u32>,
    /// The twin with the next-lower rank (same size, alignment and lifetime), or NO_BUF.
    pub twin_prev: Vec<u32>,
}

#[derive(Clone, Copy, Debug)]
struct Part {
    bufs_start: u32,
    bufs_end: u32,
    lo: u32,
    hi: u32,
}

#[derive(Clone, Copy, Debug)]
enum Frame {
    Search {
        part: u32,
        cands_start: u32,
        cands_end: u32,
        next: u32,
        cur: u32,
        hatless: bool,
        trail_min: u32,
        trail_floor: u32,
    },
    Split {
        parts_start: u32,
        parts_end: u32,
        next: u32,
        /// Offset of the placement that caused the split: every later placement is at or above it.
        base_off: u64,
        /// Length of the rank trail before the sub-partitions were re-ranked.
        rank_trail: u32,
    },
}

/// Search state for one model; reusable across capacities and orders.
pub(crate) struct Search<'m> {
    m: &'m Model,
    cap: u64,
    off: Vec<u64>,
    min_off: Vec<u64>,
    /// `min_off` of unplaced buffers, `u64::MAX` for placed ones (one load per scan step).
    open_min: Vec<u64>,
    /// Per section, an unplaced member whose minimum offset was at or below the
    /// section's effective floor when last seen (a watch: rechecked before use).
    witness: Vec<u32>,
    floor: Vec<u64>,
    total: Vec<u64>,
    cuts: Vec<u32>,
    trail_min: Vec<(u32, u64)>,
    trail_floor: Vec<(u32, u64)>,
    rank: Vec<u32>,
    trail_rank: Vec<(u32, u32)>,
    width: Vec<u64>,
    area: Vec<u64>,
    keybuf: Vec<(u64, u64, u64, u32)>,
    /// Offsets of the last solution found.
    pub sol: Vec<u64>,
    parts: Vec<Part>,
    bufpool: Vec<u32>,
    cands: Vec<u32>,
    stack: Vec<Frame>,
    /// Nodes visited, over all runs of this searcher.
    pub nodes: u64,
    /// Absolute node count at which to stop.
    pub node_stop: u64,
    /// Deadline.
    pub deadline: Option<Instant>,
    /// Shared stop flag (another worker finished).
    pub stop: Option<&'m std::sync::atomic::AtomicBool>,
    /// Check the clock when `nodes & clock_mask == 0`.
    clock_mask: u64,
    /// Placement attempts, over all runs (the clock is also checked by them).
    places: u64,
    /// Called with the node count every 65536 nodes.
    pub report: Option<&'m (dyn Fn(u64) + Sync)>,
    /// Offset domains at the capacity being decided (see `domains`), if any.
    pub dom: Option<std::sync::Arc<Domains>>,
}

impl<'m> Search<'m> {
    /// A searcher for `m`.
    pub fn new(m: &'m Model) -> Self {
        let n = m.n();
        Search {
            m,
            cap: 0,
            off: vec![NONE; n],
            min_off: vec![0; n],
            open_min: vec![0; n],
            witness: vec![NO_BUF; m.nsec],
            floor: vec![0; m.nsec],
            total: m.sec_total.clone(),
            cuts: vec![0; m.nsec.saturating_sub(1)],
            trail_min: Vec::new(),
            trail_floor: Vec::new(),
            rank: vec![0; n],
            trail_rank: Vec::new(),
            width: (0..n).map(|b| m.t_end[b] - m.t_start[b]).collect(),
            area: (0..n)
                .map(|b| m.size[b].saturating_mul(m.t_end[b] - m.t_start[b]))
                .collect(),
            keybuf: Vec::new(),
            sol: vec![0; n],
            parts: Vec::new(),
            bufpool: Vec::new(),
            cands: Vec::new(),
            stack: Vec::new(),
            nodes: 0,
            node_stop: u64::MAX,
            deadline: None,
            stop: None,
            report: None,
            dom: None,
            places: 0,
            clock_mask: (65_536 / (n as u64).max(1))
                .next_power_of_two()
                .clamp(1, 256)
                - 1,
        }
    }

    fn reset(&mut self, cap: u64) {
        let m = self.m;
        self.cap = cap;
        self.off.fill(NONE);
        for b in 0..m.n() {
            self.min_off[b] = self.lowest(b, 0);
        }
        self.open_min.copy_from_slice(&self.min_off);
        self.witness.fill(NO_BUF);
        self.floor.fill(0);
        self.total.copy_from_slice(&m.sec_total);
        self.cuts.fill(0);
        for &(lo, hi) in &m.hull {
            for k in lo..hi.saturating_sub(1) {
                self.cuts[k as usize] += 1;
            }
        }
        self.trail_min.clear();
        self.trail_floor.clear();
        self.trail_rank.clear();
        self.parts.clear();
        self.bufpool.clear();
        self.cands.clear();
        self.stack.clear();
    }

    /// The lowest offset `>= x` buffer `b` may take: aligned, clear of fixed
    /// blocks and in its domain when there is one (`cap + 1` when none is left).
    #[inline]
    fn lowest(&self, b: usize, x: u64) -> u64 {
        match &self.dom {
            Some(d) => d.next(b, x).unwrap_or(self.cap.saturating_add(1)),
            None => self.m.fit(b, x),
        }
    }

    /// Decides whether everything fits below `cap`, with buffers ranked by `order`.
    pub fn decide(&mut self, cap: u64, order: &Order) -> Status {
        self.reset(cap);
        self.rank.copy_from_slice(&order.rank);
        let m = self.m;
        let n = m.n();
        if n == 0 {
            return Status::Found;
        }
        // A refutation at the root still costs one node, so node budgets bound
        // the number of probes too.
        for b in 0..n {
            if self.min_off[b].saturating_add(m.size[b]) > cap {
                self.nodes += 1;
                return Status::Infeasible;
            }
        }
        if self.total.iter().any(|&t| t > cap) {
            self.nodes += 1;
            return Status::Infeasible;
        }
        // Initial partitions: between section boundaries no buffer crosses.
        let mut bufs: Vec<u32> = (0..n as u32).collect();
        bufs.sort_unstable_by_key(|&b| (m.hull[b as usize].0, order.rank[b as usize]));
        let mut i = 0;
        while i < bufs.len() {
            let lo = m.hull[bufs[i] as usize].0;
            let mut hi = m.hull[bufs[i] as usize].1;
            let start = self.bufpool.len();
            while i < bufs.len() && m.hull[bufs[i] as usize].0 < hi {
                hi = hi.max(m.hull[bufs[i] as usize].1);
                self.bufpool.push(bufs[i]);
                i += 1;
            }
            self.bufpool[start..].sort_unstable_by_key(|&b| order.rank[b as usize]);
            self.parts.push(Part {
                bufs_start: start as u32,
                bufs_end: self.bufpool.len() as u32,
                lo,
                hi,
            });
        }
        self.stack.push(Frame::Split {
            parts_start: 0,
            parts_end: self.parts.len() as u32,
            next: 0,
            base_off: 0,
            rank_trail: 0,
        });
        self.run(order)
    }

    fn out_of_budget(&mut self) -> Option<Status> {
        if self.nodes >= self.node_stop {
            return Some(Status::NodeLimit);
        }
        if self.nodes & 0xFFFF == 0 {
            if let Some(r) = self.report {
                r(self.nodes);
            }
        }
        // Nodes cost O(partition size): check the clock more often on big problems.
        if self.nodes & self.clock_mask == 0 && self.clock_expired() {
            return Some(Status::TimeLimit);
        }
        None
    }

    /// True once the deadline has passed or another worker asked to stop.
    fn clock_expired(&self) -> bool {
        self.stop
            .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Opens a node on partition `part`: pushes a frame, or returns at once.
    fn enter(&mut self, part: u32, last_off: u64, last_rank: u32, order: &Order) -> Option<Status> {
        self.nodes += 1;
        if let Some(s) = self.out_of_budget() {
            return Some(s);
        }
        let m = self.m;
        let p = self.parts[part as usize];
        let mut min_height = u64::MAX;
        let mut any = false;
        for &b in &self.bufpool[p.bufs_start as usize..p.bufs_end as usize] {
            let b = b as usize;
            if self.off[b] == NONE {
                any = true;
                min_height = min_height.min(self.min_off[b] + m.size[b]);
            }
        }
        if !any {
            return Some(Status::Found);
        }
        let cstart = self.cands.len();
        for &b in &self.bufpool[p.bufs_start as usize..p.bufs_end as usize] {
            let bu = b as usize;
            if self.off[bu] != NONE {
                continue;
            }
            let o = self.min_off[bu];
            if o >= min_height || o + m.size[bu] > self.cap {
                continue;
            }
            let r = self.rank[bu];
            if o < last_off || (o == last_off && r < last_rank) {
                continue;
            }
            let tw = order.twin_prev[bu];
            if tw != NO_BUF && self.off[tw as usize] == NONE {
                continue;
            }
            self.cands.push(b);
        }
        let (min_off, rank) = (&self.min_off, &self.rank);
        self.cands[cstart..].sort_unstable_by_key(|&b| (min_off[b as usize], rank[b as usize]));
        if self.cands.len() == cstart {
            return Some(Status::Infeasible);
        }
        self.stack.push(Frame::Search {
            part,
            cands_start: cstart as u32,
            cands_end: self.cands.len() as u32,
            next: cstart as u32,
            cur: NO_BUF,
            hatless: false,
            trail_min: self.trail_min.len() as u32,
            trail_floor: self.trail_floor.len() as u32,
        });
        None
    }

    /// Places `b` at its minimum offset and propagates; false if a bound fails
    /// (the caller must still call `undo`).
    fn place(&mut self, b: usize, lo: u32, hi: u32) -> bool {
        let m = self.m;
        let o = self.min_off[b];
        let top = o + m.size[b];
        self.off[b] = o;
        self.open_min[b] = u64::MAX;
        self.sol[b] = o;
        let mut ok = top <= self.cap;
        let mut span = (u32::MAX, 0u32);
        for &q in m.adj.row(b) {
            let qu = q as usize;
            if self.off[qu] != NONE || self.min_off[qu] >= top {
                continue;
            }
            let nm = self.lowest(qu, top);
            self.trail_min.push((q, self.min_off[qu]));
            self.min_off[qu] = nm;
            self.open_min[qu] = nm;
            if nm + m.size[qu] > self.cap {
                ok = false;
            }
            let (hlo, hhi) = m.hull[qu];
            span = (span.0.min(hlo), span.1.max(hhi));
        }
        for &(slo, shi) in m.live.row(b) {
            for s in slo..shi {
                let su = s as usize;
                self.total[su] -= m.size[b];
                if self.floor[su] < top {
                    self.trail_floor.push((s, self.floor[su]));
                    self.floor[su] = top;
                }
            }
        }
        if !ok {
            return false;
        }
        // Raise the floors of the sections spanned by buffers whose minimum offset
        // moved to their lowest unplaced minimum offset.
        for s in span.0 as usize..(span.1 as usize).max(span.0 as usize) {
            if self.total[s] == 0 {
                continue;
            }
            // Stop early once some unplaced buffer sits at or below the current
            // floor: the raise would then change nothing.
            let base = self.floor[s].max(o);
            let w = self.witness[s];
            if w != NO_BUF && self.open_min[w as usize] <= base {
                continue;
            }
            let mut lowest = u64::MAX;
            let mut arg = NO_BUF;
            for &q in m.members.row(s) {
                let mq = self.open_min[q as usize];
                if mq < lowest {
                    lowest = mq;
                    arg = q;
                    if mq <= base {
                        break;
                    }
                }
            }
            self.witness[s] = arg;
            if lowest != u64::MAX && lowest > self.floor[s] {
                self.trail_floor.push((s as u32, self.floor[s]));
                self.floor[s] = lowest;
            }
        }
        // Section inference over the partition.
        for s in lo as usize..hi as usize {
            let f = self.floor[s].max(o);
            if f + self.total[s] > self.cap && self.total[s] > 0 {
                return false;
            }
        }
        true
    }

    fn undo(&mut self, b: usize, trail_min: u32, trail_floor: u32) {
        let m = self.m;
        while self.trail_min.len() > trail_min as usize {
            let (q, v) = self.trail_min.pop().unwrap_or((0, 0));
            self.min_off[q as usize] = v;
            self.open_min[q as usize] = v;
        }
        while self.trail_floor.len() > trail_floor as usize {
            let (s, v) = self.trail_floor.pop().unwrap_or((0, 0));
            self.floor[s as usize] = v;
        }
        for &(slo, shi) in m.live.row(b) {
            for s in slo..shi {
                self.total[s as usize] += m.size[b];
            }
        }
        self.off[b] = NONE;
        self.open_min[b] = self.min_off[b];
    }

    fn run(&mut self, order: &Order) -> Status {
        let mut ret: Option<Status> = None;
        loop {
            let Some(top) = self.stack.last().copied() else {
                return ret.unwrap_or(Status::Found);
            };
            match top {
                Frame::Split {
                    parts_start,
                    parts_end,
                    mut next,
                    base_off,
                    rank_trail,
                } => {
                    if let Some(st) = ret.take() {
                        if st != Status::Found {
                            self.pop_split(parts_start, rank_trail);
                            ret = Some(st);
                            continue;
                        }
                        next += 1;
                    }
                    if next < parts_end {
                        if let Some(Frame::Split { next: n, .. }) = self.stack.last_mut() {
                            *n = next;
                        }
                        ret = self.enter(next, base_off, 0, order);
                    } else {
                        self.pop_split(parts_start, rank_trail);
                        ret = Some(Status::Found);
                    }
                }
                Frame::Search {
                    part,
                    cands_start,
                    cands_end,
                    mut next,
                    cur,
                    hatless,
                    trail_min,
                    trail_floor,
                } => {
                    if let Some(st) = ret.take() {
                        self.undo_cut(cur as usize);
                        self.undo(cur as usize, trail_min, trail_floor);
                        // A buffer with nothing unplaced above it constrains no one: if
                        // the rest fails with it in place, it fails without it too.
                        if st != Status::Infeasible || hatless {
                            self.pop_search(cands_start);
                            ret = Some(st);
                            continue;
                        }
                    }
                    let p = self.parts[part as usize];
                    let mut pushed = false;
                    let mut expired = false;
                    while next < cands_end {
                        // Failed placements count no node but can cost a lot on
                        // problems with many fixed blocks: check the clock by them too.
                        self.places += 1;
                        if self.places & PLACE_CLOCK_MASK == 0 && self.clock_expired() {
                            expired = true;
                            break;
                        }
                        let b = self.cands[next as usize] as usize;
                        next += 1;
                        if self.place(b, p.lo, p.hi) {
                            let hl = self
                                .m
                                .adj
                                .row(b)
                                .iter()
                                .all(|&q| self.off[q as usize] != NONE);
                            if let Some(Frame::Search {
                                next: n,
                                cur: c,
                                hatless: h,
                                ..
                            }) = self.stack.last_mut()
                            {
                                *n = next;
                                *c = b as u32;
                                *h = hl;
                            }
                            let o = self.off[b];
                            ret = self.descend(part, b, o, order);
                            pushed = true;
                            break;
                        }
                        self.undo(b, trail_min, trail_floor);
                    }
                    if !pushed {
                        self.pop_search(cands_start);
                        ret = Some(if expired {
                            Status::TimeLimit
                        } else {
                            Status::Infeasible
                        });
                    }
                }
            }
        }
    }

    fn pop_search(&mut self, cands_start: u32) {
        self.stack.pop();
        self.cands.truncate(cands_start as usize);
    }

    fn pop_split(&mut self, parts_start: u32, rank_trail: u32) {
        self.stack.pop();
        while self.trail_rank.len() > rank_trail as usize {
            let (b, r) = self.trail_rank.pop().unwrap_or((0, 0));
            self.rank[b as usize] = r;
        }
        if let Some(p) = self.parts.get(parts_start as usize) {
            self.bufpool.truncate(p.bufs_start as usize);
        }
        self.parts.truncate(parts_start as usize);
    }

    fn undo_cut(&mut self, b: usize) {
        let (lo, hi) = self.m.hull[b];
        for k in lo..hi.saturating_sub(1) {
            self.cuts[k as usize] += 1;
        }
    }

    /// After placing `b` at `o` in `part`: lowers the cut counts and either goes on
    /// in the same partition or splits it.
    fn descend(&mut self, part: u32, b: usize, o: u64, order: &Order) -> Option<Status> {
        let m = self.m;
        let (hlo, hhi) = m.hull[b];
        let mut split = false;
        for k in hlo..hhi.saturating_sub(1) {
            self.cuts[k as usize] -= 1;
            if self.cuts[k as usize] == 0 {
                split = true;
            }
        }
        if !split {
            return self.enter(part, o, self.rank[b], order);
        }
        let p = self.parts[part as usize];
        let parts_start = self.parts.len() as u32;
        // Walk the partition's sections, cutting where no unplaced buffer crosses.
        let mut bounds = vec![p.lo];
        for k in p.lo..p.hi.saturating_sub(1) {
            if self.cuts[k as usize] == 0 {
                bounds.push(k + 1);
            }
        }
        bounds.push(p.hi);
        for w in bounds.windows(2) {
            let (lo, hi) = (w[0], w[1]);
            let start = self.bufpool.len();
            for i in p.bufs_start..p.bufs_end {
                let q = self.bufpool[i as usize];
                let qu = q as usize;
                if self.off[qu] == NONE && m.hull[qu].0 >= lo && m.hull[qu].0 < hi {
                    self.bufpool.push(q);
                }
            }
            if self.bufpool.len() > start {
                self.parts.push(Part {
                    bufs_start: start as u32,
                    bufs_end: self.bufpool.len() as u32,
                    lo,
                    hi,
                });
            }
        }
        let parts_end = self.parts.len() as u32;
        if parts_end == parts_start {
            return Some(Status::Found);
        }
        let rank_trail = self.trail_rank.len() as u32;
        for k in parts_start..parts_end {
            let q = self.parts[k as usize];
            // Ranks only compare within a partition, so a huge one may keep its
            // parent's (still consistent) ranks: re-sorting it at every split of a
            // long chain would cost O(n^2 log n).
            if order.rerank && q.bufs_end - q.bufs_start <= RERANK_MAX {
                self.rerank(k as usize, order);
            }
        }
        self.stack.push(Frame::Split {
            parts_start,
            parts_end,
            next: parts_start,
            base_off: o,
            rank_trail,
        });
        None
    }

    /// Re-ranks the buffers of a fresh sub-partition by the order's keys, with the
    /// section totals of this moment (MiniMalloc re-sorts every sub-problem).
    fn rerank(&mut self, part: usize, order: &Order) {
        let m = self.m;
        let p = self.parts[part];
        self.keybuf.clear();
        for i in p.bufs_start..p.bufs_end {
            let b = self.bufpool[i as usize] as usize;
            let mut total = 0u64;
            for &(lo, hi) in m.live.row(b) {
                for s in lo..hi {
                    total = total.max(self.total[s as usize]);
                }
            }
            let key = |k: Key| match k {
                Key::Width => self.width[b],
                Key::Area => self.area[b],
                Key::Total => total,
            };
            self.keybuf.push((
                key(order.keys[0]),
                key(order.keys[1]),
                key(order.keys[2]),
                b as u32,
            ));
        }
        self.keybuf
            .sort_unstable_by(|x, y| (y.0, y.1, y.2, x.3).cmp(&(x.0, x.1, x.2, y.3)));
        for (r, &(_, _, _, b)) in self.keybuf.iter().enumerate() {
            self.trail_rank.push((b, self.rank[b as usize]));
            self.rank[b as usize] = r as u32;
        }
    }
}
