//! `exact`: branch and bound over ready sets for the order of least peak.
//!
//! The state after a prefix of the schedule is the set of executed nodes: it
//! alone decides which buffers are live, so the search memoises, per executed
//! set, the smallest peak with which it was reached, and drops any later
//! arrival that is no better (dominance on executed-node sets). A partial
//! schedule is pruned when its bound reaches the best complete schedule:
//!
//! * the peak so far;
//! * the next step: current live bytes plus the smallest output of a ready node;
//! * the max-load bound of the remaining graph: for every node `v` not yet
//!   run, the bytes that are live at `v`'s step in *every* order — the
//!   buffers produced by `v` or one of its ancestors (or graph inputs) and
//!   read by `v` or one of its descendants (or graph outputs) — plus, in this
//!   state, the live buffers produced elsewhere that `v`'s descendants still read.
//!
//! The same static bound taken over all nodes ([`must_live_bound`]) is a lower
//! bound over all orders. Before searching, the tail bound ([`tail_lower_bound`],
//! a backward search over the nodes that make graph outputs) raises it where
//! outputs pile up at the end (gradients held for an optimizer step), up to
//! the starting order's peak. The search returns that bound, or the optimum
//! when it finishes, as the proven bound.
//!
//! A ready node whose persistent outputs are no larger than the inputs it
//! frees, and whose step stays within the larger of the peak so far and the
//! global bound, is run at once without branching: moving it to the front of
//! any completion lowers or keeps every intermediate step (an exchange argument),
//! so an optimal order with that prefix exists.
//!
//! The search is anytime: it starts from the best heuristic order and returns
//! the best order found when the time or node limit runs out.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::graph::Graph;

/// Search nodes of each probe of the tail bound.
const TAIL_BUDGET: u64 = 20_000;

/// Limits and the starting incumbent of the search.
#[derive(Clone, Debug, Default)]
pub struct ExactOptions {
    /// Wall-clock limit.
    pub time_limit: Option<Duration>,
    /// Deterministic limit on search nodes.
    pub node_limit: Option<u64>,
    /// A starting order (its peak is the first incumbent).
    pub initial: Option<Vec<usize>>,
}

/// What the search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactResult {
    /// The best order found.
    pub order: Vec<usize>,
    /// Its peak (max-load of the order).
    pub peak: u64,
    /// A lower bound on the peak of every topological order.
    pub lower_bound: u64,
    /// True when `peak == lower_bound`.
    pub proved: bool,
    /// Search nodes expanded.
    pub nodes: u64,
    /// True when a limit stopped the search.
    pub limit_reached: bool,
}

pub(crate) struct Bits {
    words: usize,
    data: Vec<u64>,
}

impl Bits {
    fn new(rows: usize, cols: usize) -> Bits {
        let words = cols.div_ceil(64).max(1);
        Bits {
            words,
            data: vec![0; rows * words],
        }
    }
    fn set(&mut self, r: usize, c: usize) {
        self.data[r * self.words + c / 64] |= 1 << (c % 64);
    }
    pub(crate) fn get(&self, r: usize, c: usize) -> bool {
        self.data[r * self.words + c / 64] >> (c % 64) & 1 == 1
    }
    fn or_row(&mut self, dst: usize, src: usize) {
        for k in 0..self.words {
            let v = self.data[src * self.words + k];
            self.data[dst * self.words + k] |= v;
        }
    }
}

/// Ancestors (inclusive) and descendants (inclusive) of every node.
pub(crate) fn closure(g: &Graph) -> (Bits, Bits) {
    let n = g.len();
    let order = g.topological_order().expect("validated graphs are acyclic");
    let mut anc = Bits::new(n, n);
    let mut desc = Bits::new(n, n);
    for &v in &order {
        anc.set(v, v);
        for &p in &g.nodes[v].preds {
            anc.or_row(v, p);
        }
    }
    for &v in order.iter().rev() {
        desc.set(v, v);
        for &s in &g.succs[v] {
            desc.or_row(v, s);
        }
    }
    (anc, desc)
}

/// Whether buffer `b` is live at node `v`'s step in every order.
fn must_live(g: &Graph, anc: &Bits, desc: &Bits, b: usize, v: usize) -> bool {
    let buf = &g.buffers[b];
    let produced_before = match buf.producer {
        None => true,
        Some(p) => anc.get(v, p),
    };
    if !produced_before {
        return false;
    }
    if buf.producer == Some(v) || buf.graph_output {
        return true;
    }
    buf.consumers.iter().any(|&c| desc.get(v, c))
}

/// Whether output `o` of `v` has a hint whose input could ever be reused.
fn usable_hint(g: &Graph, v: usize, o: usize) -> bool {
    g.nodes[v].inplace.iter().any(|&(ho, b)| {
        let buf = &g.buffers[b];
        ho == o && buf.size > 0 && buf.producer.is_some() && !buf.graph_output
    })
}

/// For every node, the bytes live at its step in every order.
pub(crate) fn must_live_per_node(g: &Graph, anc: &Bits, desc: &Bits) -> Vec<u64> {
    (0..g.len())
        .map(|v| {
            let load: u64 = (0..g.buffers.len())
                .filter(|&b| must_live(g, anc, desc, b, v))
                .map(|b| g.buffers[b].size)
                .sum();
            // In-place outputs may share an input's bytes at v (when v reads it
            // last); both are counted above. Whatever the order, each such
            // output saves at most its own size, so take off every output
            // that has a usable hint.
            let saved: u64 = g.nodes[v]
                .outputs
                .iter()
                .filter(|&&o| usable_hint(g, v, o))
                .map(|&o| g.buffers[o].size)
                .sum();
            load - saved
        })
        .collect()
}

/// The bytes live at the last step of every order: every graph output, plus
/// what the last node reads or makes — and the last node is a sink, so the
/// least such load over the sinks (each in-place output with a usable hint
/// taken off, as in the per-node bound).
pub fn end_bound(g: &Graph) -> u64 {
    let outputs: u64 = g
        .buffers
        .iter()
        .filter(|b| b.graph_output)
        .map(|b| b.size)
        .sum();
    let extra = (0..g.len())
        .filter(|&s| g.succs[s].is_empty())
        .map(|s| {
            let touched: u64 = g.reads[s]
                .iter()
                .chain(&g.nodes[s].outputs)
                .filter(|&&b| !g.buffers[b].graph_output)
                .map(|&b| g.buffers[b].size)
                .sum();
            let saved: u64 = g.nodes[s]
                .outputs
                .iter()
                .filter(|&&o| usable_hint(g, s, o))
                .map(|&o| g.buffers[o].size)
                .sum();
            outputs.saturating_add(touched).saturating_sub(saved)
        })
        .min()
        .unwrap_or(outputs);
    extra
}

/// The bytes live when the last graph output is made. In every order some
/// node `u` makes the last graph output, and `u` has no proper descendant
/// that makes one; at `u`'s step every graph output is live (made earlier and
/// held to the end, or made now), and so is whatever must be live at `u`
/// (`static_bound[u]`, which already counts the outputs made by `u` and its
/// ancestors). The least of that over the candidates `u` bounds every order.
/// This is what lifts the bound of a training graph whose parameter
/// gradients are held for one optimizer step: the node making the last
/// gradient still holds the activations it reads.
fn last_output_bound(g: &Graph, anc: &Bits, desc: &Bits, static_bound: &[u64]) -> u64 {
    let makes_output: Vec<bool> = (0..g.len())
        .map(|v| {
            g.nodes[v]
                .outputs
                .iter()
                .any(|&b| g.buffers[b].graph_output && g.buffers[b].size > 0)
        })
        .collect();
    let producers: Vec<usize> = (0..g.len()).filter(|&v| makes_output[v]).collect();
    producers
        .iter()
        .copied()
        .filter(|&u| !producers.iter().any(|&w| w != u && desc.get(u, w)))
        .map(|u| {
            let elsewhere: u64 = g
                .buffers
                .iter()
                .filter(|b| b.graph_output)
                .filter(|b| b.producer.is_some_and(|p| !anc.get(u, p)))
                .map(|b| b.size)
                .sum();
            static_bound[u].saturating_add(elsewhere)
        })
        .min()
        .unwrap_or(0)
}

/// The global bound from the per-node bounds: their largest, the end bound
/// and the last-output bound.
pub(crate) fn global_bound(g: &Graph, anc: &Bits, desc: &Bits, static_bound: &[u64]) -> u64 {
    static_bound
        .iter()
        .copied()
        .max()
        .unwrap_or(0)
        .max(end_bound(g))
        .max(last_output_bound(g, anc, desc, static_bound))
}

/// A lower bound on the peak of every topological order: the largest, over
/// nodes, of the bytes that are live at that node's step whatever the order,
/// the bytes live at the last step ([`end_bound`]), and the bytes live when
/// the last graph output is made (the least over the nodes that can make it).
pub fn must_live_bound(g: &Graph) -> u64 {
    if g.is_empty() {
        return g.buffers.iter().map(|b| b.size).sum();
    }
    let (anc, desc) = closure(g);
    let static_bound = must_live_per_node(g, &anc, &desc);
    global_bound(g, &anc, &desc, &static_bound)
}

/// The tail bound (see the `tail` module): the largest `T` up to `hi` such
/// that, listing the nodes that make graph outputs from the last one
/// backwards, every listing reaches a step of `T` bytes; proved with at most
/// `budget` search nodes per probe, never below [`must_live_bound`]. A lower
/// bound on the peak of every order.
pub fn tail_lower_bound(g: &Graph, hi: u64, budget: u64) -> u64 {
    let lo = must_live_bound(g);
    if g.is_empty() {
        return lo;
    }
    let (anc, desc) = closure(g);
    let static_bound = must_live_per_node(g, &anc, &desc);
    crate::tail::tail_bound(g, &anc, &desc, &static_bound, lo, hi, budget, None)
}

struct Search<'g> {
    g: &'g Graph,
    desc: Bits,
    anc: Bits,
    /// Nodes by descending static bound.
    by_bound: Vec<usize>,
    static_bound: Vec<u64>,
    global_lb: u64,
    // state
    done: Vec<u64>,
    remaining: Vec<usize>,
    indeg: Vec<usize>,
    ready: Vec<usize>,
    live: u64,
    dead_inputs: u64,
    path: Vec<usize>,
    // results
    best_peak: u64,
    best_order: Vec<usize>,
    memo: HashMap<Vec<u64>, u64>,
    memo_cap: usize,
    nodes: u64,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    stopped: bool,
}

impl<'g> Search<'g> {
    fn is_done(&self, v: usize) -> bool {
        self.done[v / 64] >> (v % 64) & 1 == 1
    }

    /// Bytes freed by running `u` now: (inputs it reads last, outputs nobody reads).
    fn freed(&self, u: usize) -> (u64, u64) {
        let g = self.g;
        let mut inputs = 0;
        for &b in &g.reads[u] {
            if self.remaining[b] == 1 && !g.buffers[b].graph_output {
                inputs += g.buffers[b].size;
            }
        }
        let mut dead = 0;
        for &b in &g.nodes[u].outputs {
            if g.buffers[b].consumers.is_empty() && !g.buffers[b].graph_output {
                dead += g.buffers[b].size;
            }
        }
        (inputs, dead)
    }

    /// Bytes an in-place output saves if `u` runs now.
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

    /// Runs `u`; returns its step's bytes.
    fn execute(&mut self, u: usize) -> u64 {
        let g = self.g;
        let out = g.out_bytes(u);
        let (fin, fdead) = self.freed(u);
        let step = self.live + out - self.saved(u);
        self.live = self.live + out - fin - fdead;
        if self.path.is_empty() {
            self.live -= self.dead_inputs;
        }
        for &b in &g.reads[u] {
            self.remaining[b] -= 1;
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

    fn undo(&mut self, u: usize, live_before: u64) {
        let g = self.g;
        self.path.pop();
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
            self.remaining[b] += 1;
        }
        self.live = live_before;
    }

    /// The bound on the peak of any completion of the current state.
    fn state_bound(&self) -> u64 {
        let g = self.g;
        let mut lb = 0;
        if let Some(m) = self
            .ready
            .iter()
            .map(|&u| g.out_bytes(u) - self.saved(u))
            .min()
        {
            lb = self.live + m;
        }
        // Static bound of the first few unexecuted nodes, strengthened by the
        // live buffers their descendants need.
        let live = self.live_buffers();
        let mut checked = 0;
        for &v in &self.by_bound {
            if self.is_done(v) {
                continue;
            }
            if self.static_bound[v] + self.live <= lb {
                break;
            }
            let mut extra = 0;
            for &b in &live {
                let buf = &g.buffers[b];
                let static_counted = match buf.producer {
                    None => true,
                    Some(p) => self.anc.get(v, p),
                };
                if static_counted {
                    continue;
                }
                if buf.graph_output || buf.consumers.iter().any(|&c| self.desc.get(v, c)) {
                    extra += buf.size;
                }
            }
            lb = lb.max(self.static_bound[v] + extra);
            checked += 1;
            if checked >= 8 {
                break;
            }
        }
        lb
    }

    /// Buffers produced (by a run node) and not yet freed.
    fn live_buffers(&self) -> Vec<usize> {
        let g = self.g;
        self.path
            .iter()
            .flat_map(|&u| g.nodes[u].outputs.iter().copied())
            .filter(|&b| {
                let buf = &g.buffers[b];
                buf.graph_output || self.remaining[b] > 0
            })
            .collect()
    }

    fn out_of_budget(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if let Some(limit) = self.node_limit {
            if self.nodes >= limit {
                self.stopped = true;
            }
        }
        if self.nodes.is_multiple_of(256) {
            if let Some(d) = self.deadline {
                if Instant::now() >= d {
                    self.stopped = true;
                }
            }
        }
        self.stopped
    }

    fn search(&mut self, peak: u64) {
        if self.best_peak <= self.global_lb || self.out_of_budget() {
            return;
        }
        self.nodes += 1;
        let g = self.g;
        // Forced moves.
        let mut forced: Vec<(usize, u64)> = Vec::new();
        let mut peak = peak;
        loop {
            let threshold = peak.max(self.global_lb);
            let pick = self.ready.iter().copied().find(|&u| {
                let out = g.out_bytes(u);
                let (fin, fdead) = self.freed(u);
                out - fdead <= fin && self.live + out - self.saved(u) <= threshold
            });
            match pick {
                Some(u) => {
                    let before = self.live;
                    let step = self.execute(u);
                    peak = peak.max(step);
                    forced.push((u, before));
                }
                None => break,
            }
        }
        if self.path.len() == g.len() {
            if peak < self.best_peak {
                self.best_peak = peak;
                self.best_order = self.path.clone();
            }
        } else if peak.max(self.state_bound()) < self.best_peak {
            let fresh = !matches!(self.memo.get(&self.done), Some(&seen) if seen <= peak);
            if fresh {
                if self.memo.len() < self.memo_cap || self.memo.contains_key(&self.done) {
                    self.memo.insert(self.done.clone(), peak);
                }
                let mut children: Vec<(u64, i128, usize)> = self
                    .ready
                    .iter()
                    .map(|&u| {
                        let out = g.out_bytes(u);
                        let (fin, fdead) = self.freed(u);
                        (
                            (self.live + out - self.saved(u)).max(peak),
                            i128::from(out) - i128::from(fin + fdead),
                            u,
                        )
                    })
                    .collect();
                children.sort_unstable();
                for (step_peak, _, u) in children {
                    if step_peak >= self.best_peak {
                        continue;
                    }
                    let before = self.live;
                    self.execute(u);
                    self.search(step_peak);
                    self.undo(u, before);
                    if self.stopped || self.best_peak <= self.global_lb {
                        break;
                    }
                }
            }
        }
        for (u, before) in forced.into_iter().rev() {
            self.undo(u, before);
        }
    }
}

/// Bytes of the graph inputs (live from the start), and of those no node reads and the
/// graph does not return (dead from the start); shared by the order search and the joint search.
pub(crate) fn input_bytes(g: &Graph) -> (u64, u64) {
    let inputs = g.buffers.iter().filter(|b| b.producer.is_none());
    let live = inputs.clone().map(|b| b.size).sum();
    let dead = inputs
        .filter(|b| b.consumers.is_empty() && !b.graph_output)
        .map(|b| b.size)
        .sum();
    (live, dead)
}

/// Searches for an order of least peak; see the module documentation.
pub fn exact(g: &Graph, opts: &ExactOptions) -> ExactResult {
    let start = Instant::now();
    let n = g.len();
    let initial = opts
        .initial
        .clone()
        .unwrap_or_else(|| g.topological_order().expect("acyclic"));
    let initial_peak = g.peak(&initial);
    if n == 0 {
        return ExactResult {
            order: initial,
            peak: initial_peak,
            lower_bound: initial_peak,
            proved: true,
            nodes: 0,
            limit_reached: false,
        };
    }
    let (anc, desc) = closure(g);
    let static_bound = must_live_per_node(g, &anc, &desc);
    // The tail bound (see `crate::tail`): try to prove the starting order
    // optimal, else raise the bound as far as a small budget allows.
    let global_lb = global_bound(g, &anc, &desc, &static_bound);
    let global_lb = crate::tail::tail_bound(
        g,
        &anc,
        &desc,
        &static_bound,
        global_lb,
        initial_peak,
        TAIL_BUDGET,
        opts.time_limit.map(|t| start + t),
    );
    let mut by_bound: Vec<usize> = (0..n).collect();
    by_bound.sort_by_key(|&v| (std::cmp::Reverse(static_bound[v]), v));
    let (inputs_live, dead_inputs) = input_bytes(g);
    let words = n.div_ceil(64);
    let memo_cap = (64 << 20) / (words * 8 + 64);
    let mut s = Search {
        g,
        desc,
        anc,
        by_bound,
        static_bound,
        global_lb,
        done: vec![0; words],
        remaining: g.buffers.iter().map(|b| b.consumers.len()).collect(),
        indeg: g.nodes.iter().map(|v| v.preds.len()).collect(),
        ready: Vec::new(),
        live: inputs_live,
        dead_inputs,
        path: Vec::with_capacity(n),
        best_peak: initial_peak,
        best_order: initial,
        memo: HashMap::new(),
        memo_cap,
        nodes: 0,
        deadline: opts.time_limit.map(|t| start + t),
        node_limit: opts.node_limit,
        stopped: false,
    };
    s.ready = (0..n).filter(|&v| s.indeg[v] == 0).collect();
    s.search(0);
    let exhausted = !s.stopped;
    let lower_bound = if exhausted || s.best_peak <= global_lb {
        // Either the bound was met or every better order was ruled out.
        s.best_peak
    } else {
        global_lb
    };
    ExactResult {
        proved: lower_bound == s.best_peak,
        order: s.best_order,
        peak: s.best_peak,
        lower_bound,
        nodes: s.nodes,
        limit_reached: s.stopped,
    }
}
