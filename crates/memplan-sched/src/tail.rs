//! The tail bound: a lower bound on the peak of every order from the last
//! steps that make graph outputs.
//!
//! Graph outputs live to the end, so towards the end of an order they pile
//! up (a training graph's parameter gradients held for one optimizer step).
//! Take any order and list the nodes that make a graph output from the last
//! one backwards: `u1` (the last), `u2`, ... At `u_i`'s step, these are live
//! whatever the rest of the order:
//!
//! * every graph output, except those made by `u1 .. u_{i-1}` (every other
//!   output node runs at or before `u_i`);
//! * what is live at `u_i` in every order (its static bound: the buffers made
//!   by it or its ancestors and read by it or its descendants);
//! * the buffers made by its ancestors (or graph inputs) that `u1 .. u_{i-1}`
//!   read, since those run later.
//!
//! `u_i` can be any output node without a descendant among the output nodes
//! not yet listed. So "every order has a step of at least `T` bytes" follows
//! if every such backward sequence reaches a step of `T` or more before it
//! runs out of output nodes. [`tail_bound`] decides that by a depth-first
//! search over the set of nodes listed so far (the loads depend on the set,
//! not on its order, so proved sets are memoised), under a node budget, and
//! bisects for the largest `T` it can prove.

use std::collections::HashSet;
use std::time::Instant;

use crate::exact::Bits;
use crate::graph::Graph;

struct Tail<'a> {
    g: &'a Graph,
    anc: &'a Bits,
    desc: &'a Bits,
    /// Nodes making a non-empty graph output.
    out_nodes: Vec<usize>,
    /// `static_bound[u] + ` the outputs made by non-ancestors of `u`.
    base: Vec<u64>,
    /// Output bytes each node makes.
    out_bytes: Vec<u64>,
}

struct Probe {
    target: u64,
    budget: u64,
    deadline: Option<Instant>,
    proved: HashSet<Vec<u64>>,
    listed: Vec<u64>,
    /// Per output node: output nodes among its proper descendants not yet listed.
    pending: Vec<usize>,
    /// Per buffer: listed nodes reading it.
    read_by_listed: Vec<u32>,
    /// The buffers some listed node reads (each once; a stack).
    read_list: Vec<usize>,
    removed_out: u64,
}

impl Tail<'_> {
    fn load(&self, u: usize, p: &Probe) -> u64 {
        let g = self.g;
        let mut extra = 0;
        for &b in &p.read_list {
            let buf = &g.buffers[b];
            if buf.graph_output || buf.size == 0 || buf.producer == Some(u) {
                continue;
            }
            let made_before = buf.producer.is_none_or(|q| self.anc.get(u, q));
            let counted = buf.consumers.iter().any(|&c| self.desc.get(u, c));
            if made_before && !counted {
                extra += buf.size;
            }
        }
        // The outputs of listed nodes are among those `base` counts as made
        // by non-ancestors of `u` (a listed node runs after `u`).
        self.base[u]
            .saturating_sub(p.removed_out)
            .saturating_add(extra)
    }

    fn list(&self, k: usize, p: &mut Probe, add: bool) {
        let u = self.out_nodes[k];
        if add {
            p.listed[k / 64] |= 1 << (k % 64);
            p.removed_out += self.out_bytes[u];
        } else {
            p.listed[k / 64] &= !(1 << (k % 64));
            p.removed_out -= self.out_bytes[u];
        }
        for (j, &w) in self.out_nodes.iter().enumerate() {
            if w != u && self.desc.get(w, u) {
                if add {
                    p.pending[j] -= 1;
                } else {
                    p.pending[j] += 1;
                }
            }
        }
        if add {
            for &b in &self.g.reads[u] {
                p.read_by_listed[b] += 1;
                if p.read_by_listed[b] == 1 {
                    p.read_list.push(b);
                }
            }
        } else {
            for &b in self.g.reads[u].iter().rev() {
                p.read_by_listed[b] -= 1;
                if p.read_by_listed[b] == 0 {
                    p.read_list.pop();
                }
            }
        }
    }

    /// Some(true): every continuation reaches `target`; Some(false): one
    /// does not; None: out of budget.
    fn proves(&self, p: &mut Probe) -> Option<bool> {
        if p.proved.contains(&p.listed) {
            return Some(true);
        }
        if p.budget == 0
            || (p.budget.is_multiple_of(256) && p.deadline.is_some_and(|d| Instant::now() >= d))
        {
            return None;
        }
        p.budget -= 1;
        let mut open: Vec<(u64, usize)> = Vec::new();
        let mut any = false;
        for k in 0..self.out_nodes.len() {
            if p.listed[k / 64] >> (k % 64) & 1 == 1 || p.pending[k] > 0 {
                continue;
            }
            any = true;
            let load = self.load(self.out_nodes[k], p);
            if load < p.target {
                open.push((load, k));
            }
        }
        if !any {
            // Every output node listed with all steps below the target.
            return Some(false);
        }
        open.sort_unstable();
        for (_, k) in open {
            self.list(k, p, true);
            let r = self.proves(p);
            self.list(k, p, false);
            if r != Some(true) {
                return r;
            }
        }
        p.proved.insert(p.listed.clone());
        Some(true)
    }
}

/// The largest `T` in `(lo, hi]` such that every order has a step of at
/// least `T` bytes, proved by the tail argument within `budget` search nodes
/// per probe (and before `deadline`); `lo` when none is proved.
#[allow(clippy::too_many_arguments)]
pub(crate) fn tail_bound(
    g: &Graph,
    anc: &Bits,
    desc: &Bits,
    static_bound: &[u64],
    lo: u64,
    hi: u64,
    budget: u64,
    deadline: Option<Instant>,
) -> u64 {
    let out_bytes: Vec<u64> = (0..g.len())
        .map(|v| {
            g.nodes[v]
                .outputs
                .iter()
                .filter(|&&b| g.buffers[b].graph_output)
                .map(|&b| g.buffers[b].size)
                .sum()
        })
        .collect();
    let out_nodes: Vec<usize> = (0..g.len()).filter(|&v| out_bytes[v] > 0).collect();
    if out_nodes.is_empty() || hi <= lo {
        return lo;
    }
    let base: Vec<u64> = (0..g.len())
        .map(|u| {
            let elsewhere: u64 = g
                .buffers
                .iter()
                .filter(|b| b.graph_output && b.producer.is_some_and(|q| !anc.get(u, q)))
                .map(|b| b.size)
                .sum();
            static_bound[u].saturating_add(elsewhere)
        })
        .collect();
    let t = Tail {
        g,
        anc,
        desc,
        base,
        out_bytes,
        out_nodes,
    };
    let probe = |target: u64| -> bool {
        let m = t.out_nodes.len();
        let mut p = Probe {
            target,
            budget,
            deadline,
            proved: HashSet::new(),
            listed: vec![0; m.div_ceil(64)],
            pending: t
                .out_nodes
                .iter()
                .map(|&u| {
                    t.out_nodes
                        .iter()
                        .filter(|&&w| w != u && desc.get(u, w))
                        .count()
                })
                .collect(),
            read_by_listed: vec![0; g.buffers.len()],
            read_list: Vec::new(),
            removed_out: 0,
        };
        t.proves(&mut p) == Some(true)
    };
    if probe(hi) {
        return hi;
    }
    // Bisect: proved at `good` (or nothing), not proved at `bad`.
    let (mut good, mut bad) = (lo, hi);
    while bad - good > 1 && deadline.is_none_or(|d| Instant::now() < d) {
        let mid = good + (bad - good) / 2;
        if probe(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    good
}
