//! A static interval index over every live interval of a problem, with
//! per-buffer activation.
//!
//! Greedy by breadth asks one question over and over: "which buffers, among
//! those not placed yet, are live at tick `t`?" (more generally, at some tick
//! of `[s, e)`). All intervals
//! are known up front, so instead of a dynamic interval tree we sort them once
//! by start and lay a max segment tree over that order. A leaf holds the end of
//! its interval while the owning buffer is *active* and 0 otherwise; an inner
//! node holds the largest end below it. The intervals overlapping `[s, e)` are
//! the active ones with `start < e` (a prefix of the sorted order, found by
//! binary search) and `end > s` (subtrees whose maximum end is `<= s` are
//! skipped). A query visits `O((k + 1) log n)` nodes for `k` reported
//! intervals; activating or deactivating a buffer costs `O(log n)` per interval.
//!
//! This is the classic "priority search" use of a segment tree (Cormen et al.,
//! interval trees, §14.3, with the tree made implicit because the key set is static).

use crate::problem::Problem;

/// The index. Slots are intervals in start order; leaves of the tree are slots.
pub(crate) struct IntervalIndex {
    /// Start tick of every slot, ascending.
    starts: Vec<u64>,
    /// End tick of every slot.
    ends: Vec<u64>,
    /// The buffer each slot belongs to.
    owner: Vec<u32>,
    /// `slots[slot_begin[b]..slot_begin[b + 1]]` are the slots of buffer `b`.
    slot_begin: Vec<u32>,
    /// Slot numbers grouped by buffer (CSR layout with `slot_begin`).
    slots: Vec<u32>,
    /// Number of leaves (a power of two, at least 1).
    leaves: usize,
    /// Implicit binary tree: node 1 is the root, leaf `i` is node `leaves + i`.
    /// A value of 0 means "nothing active below" (every end is at least 1).
    tree: Vec<u64>,
    /// Reused traversal stack.
    stack: Vec<(u32, u32, u32)>,
}

impl IntervalIndex {
    /// Builds the index for every interval of every buffer, all inactive.
    pub(crate) fn new(problem: &Problem) -> Self {
        let n_iv: usize = problem.buffers.iter().map(|b| b.live.len()).sum();
        let mut order: Vec<(u64, u32, u32)> = Vec::with_capacity(n_iv);
        for (b, buf) in problem.buffers.iter().enumerate() {
            for (k, iv) in buf.live.iter().enumerate() {
                order.push((iv.start, b as u32, k as u32));
            }
        }
        order.sort_unstable();
        let mut starts = Vec::with_capacity(n_iv);
        let mut ends = Vec::with_capacity(n_iv);
        let mut owner = Vec::with_capacity(n_iv);
        // Count slots per buffer, then fill the CSR arrays.
        let mut slot_begin = vec![0u32; problem.buffers.len() + 1];
        for (b, buf) in problem.buffers.iter().enumerate() {
            slot_begin[b + 1] = slot_begin[b] + buf.live.len() as u32;
        }
        let mut fill = slot_begin.clone();
        let mut slots = vec![0u32; n_iv];
        for (slot, &(start, b, k)) in order.iter().enumerate() {
            let iv = problem.buffers[b as usize].live[k as usize];
            starts.push(start);
            // An empty interval can never overlap anything: store it as end 0.
            ends.push(if iv.end > iv.start { iv.end } else { 0 });
            owner.push(b);
            slots[fill[b as usize] as usize] = slot as u32;
            fill[b as usize] += 1;
        }
        let leaves = n_iv.next_power_of_two().max(1);
        IntervalIndex {
            starts,
            ends,
            owner,
            slot_begin,
            slots,
            leaves,
            tree: vec![0; 2 * leaves],
            stack: Vec::with_capacity(64),
        }
    }

    fn set_leaf(&mut self, slot: usize, value: u64) {
        let mut node = self.leaves + slot;
        self.tree[node] = value;
        node /= 2;
        while node >= 1 {
            let m = self.tree[2 * node].max(self.tree[2 * node + 1]);
            if self.tree[node] == m {
                break;
            }
            self.tree[node] = m;
            node /= 2;
        }
    }

    /// Makes every interval of buffer `b` visible to queries.
    pub(crate) fn activate(&mut self, b: usize) {
        let (lo, hi) = (self.slot_begin[b] as usize, self.slot_begin[b + 1] as usize);
        for k in lo..hi {
            let slot = self.slots[k] as usize;
            let end = self.ends[slot];
            self.set_leaf(slot, end);
        }
    }

    /// Hides every interval of buffer `b` from queries.
    pub(crate) fn deactivate(&mut self, b: usize) {
        let (lo, hi) = (self.slot_begin[b] as usize, self.slot_begin[b + 1] as usize);
        for k in lo..hi {
            let slot = self.slots[k] as usize;
            self.set_leaf(slot, 0);
        }
    }

    /// Calls `f(buffer)` for every active interval overlapping `[s, e)` (a buffer
    /// with several such intervals is reported once per interval).
    pub(crate) fn for_each_overlapping(&mut self, s: u64, e: u64, mut f: impl FnMut(u32)) {
        let hi = self.starts.partition_point(|&x| x < e) as u32;
        if hi == 0 || self.tree[1] <= s {
            return;
        }
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push((1, 0, self.leaves as u32));
        while let Some((node, lo, len)) = stack.pop() {
            if lo >= hi || self.tree[node as usize] <= s {
                continue;
            }
            if len == 1 {
                f(self.owner[lo as usize]);
                continue;
            }
            let half = len / 2;
            // Push the right child first so leaves come out in start order.
            stack.push((2 * node + 1, lo + half, half));
            stack.push((2 * node, lo, half));
        }
        self.stack = stack;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::{Buffer, Interval};

    fn collect(ix: &mut IntervalIndex, s: u64, e: u64) -> Vec<u32> {
        let mut v = Vec::new();
        ix.for_each_overlapping(s, e, |b| v.push(b));
        v.sort_unstable();
        v
    }

    #[test]
    fn reports_only_active_overlapping() {
        let p = Problem::new(vec![
            Buffer::new(1, 0, 4),
            Buffer::new(1, 4, 6),
            Buffer::new(1, 2, 9).with_live(vec![Interval::new(2, 3), Interval::new(7, 9)]),
            Buffer::new(1, 5, 8),
        ]);
        let mut ix = IntervalIndex::new(&p);
        assert!(collect(&mut ix, 0, 100).is_empty());
        for b in 0..4 {
            ix.activate(b);
        }
        // [3, 5): b0 (0..4) and b1 (4..6); b2's hole covers 3..7; b3 starts at 5.
        assert_eq!(collect(&mut ix, 3, 5), vec![0, 1]);
        // [2, 8): every buffer, b2 twice (both of its intervals).
        assert_eq!(collect(&mut ix, 2, 8), vec![0, 1, 2, 2, 3]);
        // Touching is not overlapping.
        assert_eq!(collect(&mut ix, 9, 12), Vec::<u32>::new());
        ix.deactivate(0);
        assert_eq!(collect(&mut ix, 3, 5), vec![1]);
        ix.deactivate(2);
        assert_eq!(collect(&mut ix, 2, 8), vec![1, 3]);
    }
}
