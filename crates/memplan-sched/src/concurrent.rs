//! `--no-reuse-across-branches` (seed 001's concurrency option): buffers may
//! share bytes only when one is dead before the other is born in *every*
//! execution that respects the dataflow graph, so a runtime may run
//! independent branches in parallel.
//!
//! Buffer `a` dies before `b` is born when `b` has a producer `p` and every
//! node that touches `a` (its producer and its readers) strictly precedes `p`
//! in the graph, and `a` is neither a graph output nor an unread graph input. Two buffers conflict unless
//! one dies before the other; the rule does not depend on the order, and it
//! implies the sequential rule (time-disjoint in every topological order).
//! [`place_branch_safe`] places by first fit over this conflict relation;
//! [`check_branch_safe`] re-checks any offsets with its own reachability.

use crate::exact::closure;
use crate::graph::Graph;
use crate::Placement;

/// True when buffer `a` is dead before `b` is born in every execution.
fn dies_before(g: &Graph, anc: &crate::exact::Bits, a: usize, b: usize) -> bool {
    let (ba, bb) = (&g.buffers[a], &g.buffers[b]);
    let Some(p) = bb.producer else {
        return false;
    };
    // A graph output lives to the end; an unread graph input lives at the
    // first step, whichever node that is.
    if ba.graph_output || (ba.producer.is_none() && ba.consumers.is_empty()) {
        return false;
    }
    ba.producer
        .iter()
        .chain(&ba.consumers)
        .all(|&x| x != p && anc.get(p, x))
}

/// Places every buffer of non-zero size so that no two buffers that may be
/// live at the same time in a parallel execution share a byte: first fit in
/// decreasing size (ties by id), the lowest offset clear of every placed
/// conflicting buffer.
pub fn place_branch_safe(g: &Graph) -> Placement {
    let (anc, _) = closure(g);
    let nb = g.buffers.len();
    let mut ids: Vec<usize> = (0..nb).filter(|&b| g.buffers[b].size > 0).collect();
    ids.sort_by_key(|&b| (std::cmp::Reverse(g.buffers[b].size), b));
    let mut offsets: Vec<Option<u64>> = vec![None; nb];
    let mut placed: Vec<usize> = Vec::new();
    let mut peak = 0;
    for &b in &ids {
        let size = g.buffers[b].size;
        let mut busy: Vec<(u64, u64)> = placed
            .iter()
            .filter(|&&o| !dies_before(g, &anc, o, b) && !dies_before(g, &anc, b, o))
            .map(|&o| {
                let off = offsets[o].expect("placed");
                (off, off + g.buffers[o].size)
            })
            .collect();
        busy.sort_unstable();
        let mut at = 0;
        for (lo, hi) in busy {
            if lo >= at + size {
                break;
            }
            at = at.max(hi);
        }
        offsets[b] = Some(at);
        peak = peak.max(at + size);
        placed.push(b);
    }
    Placement {
        offsets,
        peak,
        algorithm: "branch-safe-first-fit".to_string(),
        optimal: false,
    }
}

/// A pair of buffers that share bytes although they may be live together in a
/// parallel execution.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("buffers {a} and {b} share bytes but neither is dead before the other is born")]
pub struct BranchConflict {
    /// One buffer.
    pub a: usize,
    /// The other.
    pub b: usize,
}

/// Checks offsets against the concurrency rule with reachability computed
/// here (a DFS from every node), trusting nothing from the placer.
pub fn check_branch_safe(g: &Graph, offsets: &[Option<u64>]) -> Result<(), BranchConflict> {
    let n = g.nodes.len();
    let mut succ = vec![Vec::new(); n];
    for (v, node) in g.nodes.iter().enumerate() {
        for &p in &node.preds {
            succ[p].push(v);
        }
    }
    for b in &g.buffers {
        if let Some(p) = b.producer {
            succ[p].extend(b.consumers.iter().copied());
        }
    }
    // reach[u][v]: v reachable from u by one or more edges.
    let mut reach = vec![vec![false; n]; n];
    for (u, row) in reach.iter_mut().enumerate() {
        let mut stack = succ[u].clone();
        while let Some(v) = stack.pop() {
            if !row[v] {
                row[v] = true;
                stack.extend(succ[v].iter().copied());
            }
        }
    }
    let before = |a: usize, b: usize| -> bool {
        let (ba, bb) = (&g.buffers[a], &g.buffers[b]);
        match bb.producer {
            Some(p) if !ba.graph_output && (ba.producer.is_some() || !ba.consumers.is_empty()) => {
                ba.producer
                    .iter()
                    .chain(&ba.consumers)
                    .all(|&x| reach[x][p])
            }
            _ => false,
        }
    };
    let placed: Vec<(usize, u64, u64)> = offsets
        .iter()
        .enumerate()
        .filter_map(|(i, o)| o.map(|o| (i, o, o + g.buffers[i].size)))
        .filter(|&(_, lo, hi)| hi > lo)
        .collect();
    for (k, &(a, alo, ahi)) in placed.iter().enumerate() {
        for &(b, blo, bhi) in &placed[k + 1..] {
            if alo < bhi && blo < ahi && !before(a, b) && !before(b, a) {
                return Err(BranchConflict { a, b });
            }
        }
    }
    Ok(())
}
