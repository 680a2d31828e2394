//! An independent schedule + plan checker. It trusts nothing a scheduler or
//! planner computed: it re-derives every lifetime from the graph and the
//! order with its own code, then checks that the order is a permutation that
//! respects every precedence edge and every data edge, that every buffer of
//! non-zero size has an offset, and that no two buffers live at a common step
//! share a byte — except an in-place output and its input at the same offset,
//! where the order allows that reuse (re-derived here from the hints).

use crate::graph::Graph;

/// A rule a schedule or a plan breaks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// The order's length is not the node count.
    #[error("the order has {got} entries for {want} nodes")]
    WrongLength {
        /// Entries in the order.
        got: usize,
        /// Nodes in the graph.
        want: usize,
    },
    /// A node id that does not exist or appears twice.
    #[error("order[{index}] = {node} is not a node or appears twice")]
    NotAPermutation {
        /// Position in the order.
        index: usize,
        /// The offending id.
        node: usize,
    },
    /// A node scheduled before one it must follow.
    #[error("node {node} runs at step {step} before its predecessor {pred}")]
    NotTopological {
        /// The node.
        node: usize,
        /// Its step.
        step: usize,
        /// The predecessor scheduled later.
        pred: usize,
    },
    /// The offsets list is not one per buffer.
    #[error("{got} offsets for {want} buffers")]
    OffsetsLength {
        /// Offsets given.
        got: usize,
        /// Buffers.
        want: usize,
    },
    /// A buffer of non-zero size without an offset.
    #[error("buffer {0} has {1} bytes but no offset")]
    MissingOffset(usize, u64),
    /// Two buffers live at a common step overlap in memory.
    #[error("buffers {a} and {b} are both live at step {step} and overlap in bytes")]
    Overlap {
        /// One buffer.
        a: usize,
        /// The other.
        b: usize,
        /// A common step.
        step: usize,
    },
    /// The plan's claimed peak is not `max(offset + size)`.
    #[error("claimed peak {claimed}, the offsets give {actual}")]
    WrongPeak {
        /// Claimed.
        claimed: u64,
        /// Recomputed.
        actual: u64,
    },
}

/// Checks that `order` is a topological order of `graph` (precedence edges and data edges).
pub fn check_order(graph: &Graph, order: &[usize]) -> Result<(), ScheduleError> {
    let n = graph.nodes.len();
    if order.len() != n {
        return Err(ScheduleError::WrongLength {
            got: order.len(),
            want: n,
        });
    }
    let mut step = vec![usize::MAX; n];
    for (i, &v) in order.iter().enumerate() {
        if v >= n || step[v] != usize::MAX {
            return Err(ScheduleError::NotAPermutation { index: i, node: v });
        }
        step[v] = i;
    }
    for (v, node) in graph.nodes.iter().enumerate() {
        for &p in &node.preds {
            if step[p] > step[v] {
                return Err(ScheduleError::NotTopological {
                    node: v,
                    step: step[v],
                    pred: p,
                });
            }
        }
    }
    for b in &graph.buffers {
        if let Some(p) = b.producer {
            for &c in &b.consumers {
                if step[p] > step[c] {
                    return Err(ScheduleError::NotTopological {
                        node: c,
                        step: step[c],
                        pred: p,
                    });
                }
            }
        }
    }
    Ok(())
}

/// Checks a schedule and a placement together; returns `(max-load peak of the
/// order, arena peak of the offsets)`. `offsets[b]` is `None` only for
/// zero-size buffers. If `claimed_peak` is given it must equal the arena peak.
pub fn check_schedule_plan(
    graph: &Graph,
    order: &[usize],
    offsets: &[Option<u64>],
    claimed_peak: Option<u64>,
) -> Result<(u64, u64), ScheduleError> {
    check_order(graph, order)?;
    if offsets.len() != graph.buffers.len() {
        return Err(ScheduleError::OffsetsLength {
            got: offsets.len(),
            want: graph.buffers.len(),
        });
    }
    let n = order.len();
    let mut step = vec![0usize; n];
    for (i, &v) in order.iter().enumerate() {
        step[v] = i;
    }
    // Lifetimes, re-derived here: [first, last] inclusive.
    let mut live = Vec::with_capacity(graph.buffers.len());
    for (id, b) in graph.buffers.iter().enumerate() {
        let first = match b.producer {
            Some(p) => step[p],
            None => 0,
        };
        let mut last = first;
        for &c in &b.consumers {
            if step[c] > last {
                last = step[c];
            }
        }
        if b.graph_output && n > 0 {
            last = n - 1;
        }
        if b.size > 0 && offsets[id].is_none() {
            return Err(ScheduleError::MissingOffset(id, b.size));
        }
        live.push((first, last));
    }
    // In-place reuses the order allows, re-derived here: at node v's step, v's
    // hints in order; the input must be a non-empty buffer made by a node, not a
    // graph output, with every reader at or before v's step; each output and
    // each input at most once.
    let mut shared: Vec<(usize, usize)> = Vec::new();
    for (s, &v) in order.iter().enumerate() {
        let mut used: Vec<usize> = Vec::new();
        for &(o, b) in &graph.nodes[v].inplace {
            let buf = &graph.buffers[b];
            let read_last = buf.consumers.iter().all(|&c| step[c] <= s);
            if buf.size > 0
                && buf.size == graph.buffers[o].size
                && buf.producer.is_some()
                && !buf.graph_output
                && read_last
                && !used.contains(&o)
                && !used.contains(&b)
            {
                used.push(o);
                used.push(b);
                shared.push((o.min(b), o.max(b)));
            }
        }
    }
    // At each step, every pair of live buffers: disjoint bytes, or an allowed
    // in-place pair at the same offset. The load is the bytes of the union.
    let mut starts: Vec<Vec<usize>> = vec![Vec::new(); n.max(1)];
    for (id, &(first, _)) in live.iter().enumerate() {
        if graph.buffers[id].size > 0 {
            starts[first].push(id);
        }
    }
    let mut active: Vec<usize> = Vec::new();
    let mut max_load = 0u64;
    let mut arena = 0u64;
    for (s, new) in starts.iter().enumerate() {
        active.retain(|&id| live[id].1 >= s);
        active.extend(new.iter().copied());
        let mut ranges: Vec<(u64, u64, usize)> = active
            .iter()
            .map(|&id| {
                let off = offsets[id].unwrap_or(0);
                (off, off + graph.buffers[id].size, id)
            })
            .collect();
        ranges.sort_unstable();
        for (i, &(alo, ahi, a)) in ranges.iter().enumerate() {
            for &(blo, bhi, b) in &ranges[i + 1..] {
                if blo >= ahi {
                    break;
                }
                let pair = (a.min(b), a.max(b));
                if !(alo == blo && ahi == bhi && shared.contains(&pair)) {
                    return Err(ScheduleError::Overlap {
                        a: pair.0,
                        b: pair.1,
                        step: s,
                    });
                }
            }
        }
        let mut load = 0u64;
        let mut covered_to = 0u64;
        for &(lo, hi, _) in &ranges {
            if hi > covered_to {
                load += hi - lo.max(covered_to);
                covered_to = hi;
            }
            arena = arena.max(hi);
        }
        max_load = max_load.max(load);
    }
    if let Some(claimed) = claimed_peak {
        if claimed != arena {
            return Err(ScheduleError::WrongPeak {
                claimed,
                actual: arena,
            });
        }
    }
    Ok((max_load, arena))
}
