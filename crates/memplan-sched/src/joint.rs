//! The joint search: an execution order **and** its offsets together, for the
//! least arena over every (topological order, placement) pair.
//!
//! `exact` ([`crate::exact`]) finds an order of least max-load and then places
//! it. That pair is jointly optimal whenever the placed arena reaches the
//! bound valid over all orders, but where the best order's placement leaves
//! fragmentation above its max-load, another order with a higher max-load may
//! place into a smaller arena. This module searches for that pair.
//!
//! **What is searched.** The optimum over pairs is the least, over
//! topological orders, of the optimal placement of that order's lifetimes.
//! A branch and bound runs over ready sets (one node per step, as in
//! `exact`); every complete order that survives the bounds is placed by the
//! portfolio and, when that leaves a gap above its max-load, by memplan-core's
//! exact planner (a MiniMalloc-style search whose canonical placements are
//! complete for a fixed set of lifetimes). A leaf whose exact placement is not
//! proved optimal (its node budget ran out) leaves the search unproved.
//!
//! **Why placements are not fixed when a buffer is made.** Fixing a buffer's
//! offset at its producer's step, from the offsets of the buffers live then
//! (0, the top of a live buffer, or just below a live buffer or a ceiling),
//! is *not* complete: every optimal placement may need a buffer to rest on
//! a buffer made later, while it is live. Brute force over integer offsets
//! finds such lifetimes quickly, e.g. (birth, death, size)
//! `(3,4,4) (3,7,5) (6,6,5) (4,4,3) (0,7,5) (0,6,4) (7,7,4) (2,3,1)`: the
//! optimum is 21, and placing each buffer at its birth at the bottom or the
//! top of a free gap (ceiling 21) cannot reach it (22). So the search fixes
//! the order and leaves the offsets to the planner, whose canonical set is
//! complete.
//!
//! **Bounds.** A partial order is cut when a bound on the arena of every
//! completion reaches the incumbent: the max-load of the steps so far, the
//! next step (live bytes plus the least output of a ready node), and the
//! max-load bound of the remaining graph (for each node not yet run, the
//! bytes live at its step in every order, plus the live buffers its
//! descendants still read) — every max-load bounds every placement's arena.
//!
//! **Dominance on executed-node sets.** Two prefixes reaching one executed
//! set leave the same buffers live, and every later conflict (a live or later
//! buffer against a later one) is the same for both; only the conflicts among
//! the buffers made so far differ. Placement feasibility depends only on
//! which pairs conflict (and which in-place pairs are merged), so if the
//! conflicts of prefix A are a subset of those of prefix B, with the same
//! merges, every completion of A places at least as well as the same
//! completion of B, and B is dropped. The search memoises, per executed set,
//! the conflict signatures it has explored.
//!
//! In-place hints are respected as [`crate::place`] does: an output and the
//! input it reuses become one buffer. `--no-reuse-across-branches` does not
//! use this search: its conflicts do not depend on the order.
//!
//! The search is anytime: it starts from an incumbent (order-then-place) and
//! returns the best pair found when the time or node limit runs out.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::exact::{closure, global_bound, input_bytes, must_live_per_node, Bits};
use crate::graph::Graph;
use crate::{place_with_bound, Placement};

/// Limits of the joint search.
#[derive(Clone, Debug, Default)]
pub struct JointOptions {
    /// Wall-clock limit.
    pub time_limit: Option<Duration>,
    /// Deterministic limit on search nodes.
    pub node_limit: Option<u64>,
    /// Node budget of the exact planner at each leaf (default 200,000).
    pub leaf_node_limit: Option<u64>,
    /// A lower bound already proved on every pair's arena (the exact
    /// scheduler's bound over all orders): the search stops when it meets it.
    pub lower_bound: Option<u64>,
}

/// What the joint search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JointResult {
    /// The best order found.
    pub order: Vec<usize>,
    /// Its placement.
    pub placement: Placement,
    /// The max-load of the order.
    pub max_load: u64,
    /// A lower bound on the arena of every (order, placement) pair.
    pub lower_bound: u64,
    /// `placement.peak == lower_bound`.
    pub proved: bool,
    /// True when the search beat the starting pair.
    pub improved: bool,
    /// Search nodes expanded.
    pub nodes: u64,
    /// Complete orders placed.
    pub leaves: u64,
    /// True when a limit stopped the search.
    pub limit_reached: bool,
}

/// One explored prefix's conflicts among the buffers made so far.
struct Signature {
    /// Pairs that must not share bytes.
    hard: Vec<u64>,
    /// In-place pairs merged into one buffer.
    merged: Vec<u64>,
}

fn subset(a: &[u64], b: &[u64]) -> bool {
    a.iter().zip(b).all(|(x, y)| x & !y == 0)
}

struct Search<'g> {
    g: &'g Graph,
    anc: Bits,
    desc: Bits,
    static_bound: Vec<u64>,
    by_bound: Vec<usize>,
    global_lb: u64,
    /// Index of every non-empty buffer among the non-empty ones.
    slot: Vec<Option<usize>>,
    nonempty: usize,
    // state
    done: Vec<u64>,
    remaining: Vec<usize>,
    indeg: Vec<usize>,
    ready: Vec<usize>,
    path: Vec<usize>,
    live: u64,
    dead_inputs: u64,
    birth: Vec<Option<usize>>,
    death: Vec<Option<usize>>,
    merged: Vec<(usize, usize)>,
    // results
    best_arena: u64,
    best_order: Vec<usize>,
    best_placement: Placement,
    improved: bool,
    memo: HashMap<Vec<u64>, Vec<Signature>>,
    memo_words: usize,
    memo_cap_words: usize,
    nodes: u64,
    leaves: u64,
    incomplete: bool,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    leaf_node_limit: u64,
    stopped: bool,
}

impl Search<'_> {
    fn is_done(&self, v: usize) -> bool {
        self.done[v / 64] >> (v % 64) & 1 == 1
    }

    fn saved(&self, u: usize) -> u64 {
        let g = self.g;
        if g.nodes[u].inplace.is_empty() {
            return 0;
        }
        g.inplace_at(u, |b| self.remaining[b] == 1)
            .iter()
            .map(|&(o, _)| g.buffers[o].size)
            .sum()
    }

    /// Bytes freed after `u`'s step: inputs it reads last, outputs nobody reads.
    fn freed(&self, u: usize) -> u64 {
        let g = self.g;
        let inputs: u64 = g.reads[u]
            .iter()
            .filter(|&&b| self.remaining[b] == 1 && !g.buffers[b].graph_output)
            .map(|&b| g.buffers[b].size)
            .sum();
        let dead: u64 = g.nodes[u]
            .outputs
            .iter()
            .filter(|&&b| g.buffers[b].consumers.is_empty() && !g.buffers[b].graph_output)
            .map(|&b| g.buffers[b].size)
            .sum();
        inputs + dead
    }

    /// Runs `u`; returns its step's bytes.
    fn execute(&mut self, u: usize) -> u64 {
        let g = self.g;
        let t = self.path.len();
        let out = g.out_bytes(u);
        let step = self.live + out - self.saved(u);
        for (o, b) in g.inplace_at(u, |b| self.remaining[b] == 1) {
            self.merged.push((o, b));
        }
        self.live = self.live + out - self.freed(u);
        if t == 0 {
            self.live -= self.dead_inputs;
            for (b, buf) in g.buffers.iter().enumerate() {
                if buf.producer.is_none() && buf.consumers.is_empty() && !buf.graph_output {
                    self.death[b] = Some(0);
                }
            }
        }
        for &b in &g.nodes[u].outputs {
            self.birth[b] = Some(t);
            if g.buffers[b].consumers.is_empty() && !g.buffers[b].graph_output {
                self.death[b] = Some(t);
            }
        }
        for &b in &g.reads[u] {
            self.remaining[b] -= 1;
            if self.remaining[b] == 0 && !g.buffers[b].graph_output {
                self.death[b] = Some(t);
            }
        }
        self.done[u / 64] |= 1 << (u % 64);
        let k = self.ready.iter().position(|&x| x == u).expect("u is ready");
        self.ready.swap_remove(k);
        for &s in &g.succs[u] {
            self.indeg[s] -= 1;
            if self.indeg[s] == 0 {
                self.ready.push(s);
            }
        }
        self.path.push(u);
        step
    }

    fn undo(&mut self, u: usize, live_before: u64, merged_before: usize) {
        let g = self.g;
        self.path.pop();
        let t = self.path.len();
        for &s in g.succs[u].iter().rev() {
            if self.indeg[s] == 0 {
                let k = self.ready.iter().position(|&x| x == s).expect("s is ready");
                self.ready.swap_remove(k);
            }
            self.indeg[s] += 1;
        }
        self.ready.push(u);
        self.done[u / 64] &= !(1 << (u % 64));
        for &b in &g.reads[u] {
            if self.remaining[b] == 0 {
                self.death[b] = None;
            }
            self.remaining[b] += 1;
        }
        for &b in &g.nodes[u].outputs {
            self.birth[b] = None;
            self.death[b] = None;
        }
        if t == 0 {
            for (b, buf) in g.buffers.iter().enumerate() {
                if buf.producer.is_none() && buf.consumers.is_empty() && !buf.graph_output {
                    self.death[b] = None;
                }
            }
        }
        self.merged.truncate(merged_before);
        self.live = live_before;
    }

    /// A bound on the max-load (hence the arena) of every completion.
    fn state_bound(&self) -> u64 {
        let g = self.g;
        let mut lb = self
            .ready
            .iter()
            .map(|&u| self.live + g.out_bytes(u) - self.saved(u))
            .min()
            .unwrap_or(0);
        let live: Vec<usize> = self
            .path
            .iter()
            .flat_map(|&u| g.nodes[u].outputs.iter().copied())
            .filter(|&b| self.death[b].is_none())
            .collect();
        let mut checked = 0;
        for &v in &self.by_bound {
            if self.is_done(v) {
                continue;
            }
            if self.static_bound[v] + self.live <= lb {
                break;
            }
            let extra: u64 = live
                .iter()
                .filter(|&&b| {
                    let buf = &g.buffers[b];
                    !buf.producer.is_some_and(|p| self.anc.get(v, p))
                        && (buf.graph_output || buf.consumers.iter().any(|&c| self.desc.get(v, c)))
                })
                .map(|&b| g.buffers[b].size)
                .sum();
            lb = lb.max(self.static_bound[v] + extra);
            checked += 1;
            if checked >= 8 {
                break;
            }
        }
        lb
    }

    /// The conflicts among the non-empty buffers made so far.
    fn signature(&self) -> Signature {
        let g = self.g;
        let m = self.nonempty;
        let words = (m * m).div_ceil(64).max(1);
        let mut hard = vec![0u64; words];
        let mut merged = vec![0u64; words];
        let t = self.path.len();
        let made: Vec<(usize, usize, usize)> = (0..g.buffers.len())
            .filter_map(|b| {
                let k = self.slot[b]?;
                let birth = match g.buffers[b].producer {
                    None => 0,
                    Some(_) => self.birth[b]?,
                };
                Some((k, birth, self.death[b].unwrap_or(t)))
            })
            .collect();
        let pair = |a: usize, b: usize| a.min(b) * m + a.max(b);
        for &(o, b) in &self.merged {
            if let (Some(ko), Some(kb)) = (self.slot[o], self.slot[b]) {
                let p = pair(ko, kb);
                merged[p / 64] |= 1 << (p % 64);
            }
        }
        for (i, &(ka, sa, ea)) in made.iter().enumerate() {
            for &(kb, sb, eb) in &made[i + 1..] {
                if sa <= eb && sb <= ea {
                    let p = pair(ka, kb);
                    if merged[p / 64] >> (p % 64) & 1 == 0 {
                        hard[p / 64] |= 1 << (p % 64);
                    }
                }
            }
        }
        Signature { hard, merged }
    }

    /// True when an explored prefix with this executed set dominates the
    /// current one; otherwise records the current one.
    fn dominated(&mut self) -> bool {
        let sig = self.signature();
        if let Some(seen) = self.memo.get(&self.done) {
            if seen
                .iter()
                .any(|s| s.merged == sig.merged && subset(&s.hard, &sig.hard))
            {
                return true;
            }
        }
        let words = sig.hard.len() * 2 + self.done.len();
        if self.memo_words + words <= self.memo_cap_words {
            self.memo_words += words;
            self.memo.entry(self.done.clone()).or_default().push(sig);
        }
        false
    }

    fn out_of_budget(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.node_limit.is_some_and(|l| self.nodes >= l) {
            self.stopped = true;
        }
        if self.nodes.is_multiple_of(64) && self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.stopped = true;
        }
        self.stopped
    }

    /// Places a complete order (the current path) and keeps it if better.
    fn leaf(&mut self, max_load: u64) {
        self.leaves += 1;
        let order = self.path.clone();
        let portfolio = memplan_core::Options::default();
        let Ok((p, _)) = place_with_bound(self.g, &order, &portfolio) else {
            self.incomplete = true;
            return;
        };
        if p.peak < self.best_arena {
            self.take(order.clone(), p.clone());
        }
        if p.peak <= max_load || max_load >= self.best_arena {
            return;
        }
        let remaining = self
            .deadline
            .map(|d| d.saturating_duration_since(Instant::now()));
        let exact = memplan_core::Options {
            algorithm: memplan_core::Algorithm::Exact,
            time_limit: remaining,
            node_limit: Some(self.leaf_node_limit),
            progress: None,
            restarts: None,
        };
        match place_with_bound(self.g, &order, &exact) {
            Ok((q, bound)) => {
                if q.peak < self.best_arena {
                    self.take(order, q);
                }
                if bound < self.best_arena {
                    // This order might place below the incumbent: not ruled out.
                    self.incomplete = true;
                }
            }
            Err(_) => self.incomplete = true,
        }
    }

    fn take(&mut self, order: Vec<usize>, p: Placement) {
        self.best_arena = p.peak;
        self.best_order = order;
        self.best_placement = p;
        self.improved = true;
    }

    fn search(&mut self, peak: u64) {
        if self.best_arena <= self.global_lb || self.out_of_budget() {
            return;
        }
        self.nodes += 1;
        let g = self.g;
        if self.path.len() == g.len() {
            self.leaf(peak);
            return;
        }
        if peak.max(self.state_bound()) >= self.best_arena || self.dominated() {
            return;
        }
        let mut children: Vec<(u64, usize)> = self
            .ready
            .iter()
            .map(|&u| ((self.live + g.out_bytes(u) - self.saved(u)).max(peak), u))
            .collect();
        children.sort_unstable();
        for (step_peak, u) in children {
            if step_peak >= self.best_arena {
                continue;
            }
            let (before, merged_before) = (self.live, self.merged.len());
            self.execute(u);
            self.search(step_peak);
            self.undo(u, before, merged_before);
            if self.stopped || self.best_arena <= self.global_lb {
                break;
            }
        }
    }
}

/// Searches orders and placements together, from the pair `(order,
/// placement)`; see the module documentation.
pub fn joint(
    g: &Graph,
    order: &[usize],
    placement: &Placement,
    opts: &JointOptions,
) -> JointResult {
    let start = Instant::now();
    let n = g.len();
    let (anc, desc) = closure(g);
    let static_bound = must_live_per_node(g, &anc, &desc);
    let global_lb = if n == 0 {
        g.total_bytes()
    } else {
        global_bound(g, &anc, &desc, &static_bound)
    }
    .max(opts.lower_bound.unwrap_or(0));
    let mut by_bound: Vec<usize> = (0..n).collect();
    by_bound.sort_by_key(|&v| (std::cmp::Reverse(static_bound[v]), v));
    let mut slot = vec![None; g.buffers.len()];
    let mut nonempty = 0;
    for (b, buf) in g.buffers.iter().enumerate() {
        if buf.size > 0 {
            slot[b] = Some(nonempty);
            nonempty += 1;
        }
    }
    let (inputs_live, dead_inputs) = input_bytes(g);
    let mut s = Search {
        g,
        anc,
        desc,
        static_bound,
        by_bound,
        global_lb,
        slot,
        nonempty,
        done: vec![0; n.div_ceil(64).max(1)],
        remaining: g.buffers.iter().map(|b| b.consumers.len()).collect(),
        indeg: g.nodes.iter().map(|v| v.preds.len()).collect(),
        ready: Vec::new(),
        path: Vec::with_capacity(n),
        live: inputs_live,
        dead_inputs,
        birth: vec![None; g.buffers.len()],
        death: vec![None; g.buffers.len()],
        merged: Vec::new(),
        best_arena: placement.peak,
        best_order: order.to_vec(),
        best_placement: placement.clone(),
        improved: false,
        memo: HashMap::new(),
        memo_words: 0,
        memo_cap_words: (64 << 20) / 8,
        nodes: 0,
        leaves: 0,
        incomplete: false,
        deadline: opts.time_limit.map(|t| start + t),
        node_limit: opts.node_limit,
        leaf_node_limit: opts.leaf_node_limit.unwrap_or(200_000),
        stopped: false,
    };
    s.ready = (0..n).filter(|&v| s.indeg[v] == 0).collect();
    if n > 0 {
        s.search(0);
    }
    let exhausted = !s.stopped && !s.incomplete;
    let lower_bound = if exhausted || s.best_arena <= global_lb {
        s.best_arena
    } else {
        global_lb
    };
    JointResult {
        max_load: g.peak(&s.best_order),
        proved: lower_bound == s.best_arena,
        order: s.best_order,
        placement: s.best_placement,
        lower_bound,
        improved: s.improved,
        nodes: s.nodes,
        leaves: s.leaves,
        limit_reached: s.stopped,
    }
}
