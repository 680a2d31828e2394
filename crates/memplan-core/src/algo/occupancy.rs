//! A segment tree over time whose nodes hold *merged* byte ranges: the memory
//! occupied by the placed buffers, asked for over a window of time.
//!
//! Best-fit placement needs, for the next buffer, the union of the byte ranges
//! of every placed buffer live at one of its ticks. Listing those buffers one by
//! one costs as much as the number of conflicts, and real traces have thousands
//! of co-live buffers (idealloc's `Y_1`: 62k buffers, 180M overlapping pairs).
//! But the *union* of their ranges is usually a handful of runs. So the time
//! axis (compressed to the ticks where some interval starts or ends) is laid out
//! as a segment tree, and a placed buffer `[s, e) x [lo, hi)` is recorded, as in
//! a classic segment tree for intervals, at the `O(log T)` canonical nodes that
//! tile `[s, e)` (their *own* set), and additionally in the *sub* set of those
//! nodes and of all their ancestors. Both sets are kept as sorted, merged runs.
//!
//! A placed rectangle conflicts with a query window `W` exactly when one of its
//! canonical nodes meets `W`; such a node either lies inside a maximal node `C`
//! contained in `W` (covered by `sub(C)`) or straddles the border of `W`, and
//! then it is an ancestor of such a `C` (covered by its `own` set). A query thus
//! reads `O(log T)` merged sets and never enumerates individual buffers.

use std::ops::Range;

/// Sorted, disjoint, non-touching byte runs `[lo, hi)`.
type Runs = Vec<(u64, u64)>;

/// Adds `[lo, hi)` to `runs`, merging with the runs it overlaps or touches.
fn insert_run(runs: &mut Runs, lo: u64, hi: u64) {
    // First run whose end reaches lo (may merge), last run whose start is <= hi.
    let a = runs.partition_point(|&(_, h)| h < lo);
    let b = runs.partition_point(|&(l, _)| l <= hi);
    if a == b {
        runs.insert(a, (lo, hi));
        return;
    }
    let nlo = lo.min(runs[a].0);
    let nhi = hi.max(runs[b - 1].1);
    runs[a] = (nlo, nhi);
    runs.drain(a + 1..b);
}

/// The occupancy tree. Leaves are elementary time segments.
pub(crate) struct OccupancyTree {
    /// Number of leaves, a power of two.
    leaves: usize,
    /// Per node: index into `sets` of its own runs (0 = none).
    own: Vec<u32>,
    /// Per node: index into `sets` of the runs of its whole subtree (0 = none).
    sub: Vec<u32>,
    /// Run sets; entry 0 is a permanently empty placeholder.
    sets: Vec<Runs>,
    /// Reused traversal stack.
    stack: Vec<(u32, u32, u32)>,
}

impl OccupancyTree {
    /// An empty tree over `segments` elementary time segments.
    pub(crate) fn new(segments: usize) -> Self {
        let leaves = segments.next_power_of_two().max(1);
        OccupancyTree {
            leaves,
            own: vec![0; 2 * leaves],
            sub: vec![0; 2 * leaves],
            sets: vec![Vec::new()],
            stack: Vec::with_capacity(64),
        }
    }

    fn add_to(&mut self, which_own: bool, node: usize, lo: u64, hi: u64) {
        let slot = if which_own {
            &mut self.own[node]
        } else {
            &mut self.sub[node]
        };
        if *slot == 0 {
            *slot = self.sets.len() as u32;
            self.sets.push(Vec::with_capacity(2));
        }
        let idx = *slot as usize;
        insert_run(&mut self.sets[idx], lo, hi);
    }

    /// Records bytes `[lo, hi)` as taken over the elementary segments `seg`.
    pub(crate) fn insert(&mut self, seg: Range<usize>, lo: u64, hi: u64) {
        if seg.is_empty() || lo >= hi {
            return;
        }
        let (mut l, mut r) = (seg.start + self.leaves, seg.end + self.leaves);
        // Canonical nodes; afterwards their ancestors' sub sets.
        let (l0, r0) = (l, r - 1);
        while l < r {
            if l & 1 == 1 {
                self.add_to(true, l, lo, hi);
                self.add_to(false, l, lo, hi);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                self.add_to(true, r, lo, hi);
                self.add_to(false, r, lo, hi);
            }
            l /= 2;
            r /= 2;
        }
        // Every ancestor of a canonical node is an ancestor of leaf l0 or r0.
        let (mut a, mut b) = (l0 / 2, r0 / 2);
        while a >= 1 {
            self.add_to(false, a, lo, hi);
            if b != a {
                self.add_to(false, b, lo, hi);
            }
            a /= 2;
            b /= 2;
        }
    }

    /// Appends to `out` runs whose union is exactly the bytes taken at some
    /// segment of `seg` (runs from different nodes may overlap).
    pub(crate) fn query(&mut self, seg: Range<usize>, out: &mut Vec<(u64, u64)>) {
        if seg.is_empty() {
            return;
        }
        let (qs, qe) = (seg.start as u32, seg.end as u32);
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push((1, 0, self.leaves as u32));
        while let Some((node, lo, len)) = stack.pop() {
            let n = node as usize;
            if self.sub[n] == 0 || lo >= qe || lo + len <= qs {
                continue;
            }
            if qs <= lo && lo + len <= qe {
                out.extend_from_slice(&self.sets[self.sub[n] as usize]);
                continue;
            }
            out.extend_from_slice(&self.sets[self.own[n] as usize]);
            let half = len / 2;
            stack.push((2 * node + 1, lo + half, half));
            stack.push((2 * node, lo, half));
        }
        self.stack = stack;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn union(t: &mut OccupancyTree, seg: Range<usize>) -> Runs {
        let mut raw = Vec::new();
        t.query(seg, &mut raw);
        raw.sort_unstable();
        let mut out = Runs::new();
        for (lo, hi) in raw {
            insert_run(&mut out, lo, hi);
        }
        out
    }

    #[test]
    fn runs_merge() {
        let mut r = Runs::new();
        insert_run(&mut r, 10, 20);
        insert_run(&mut r, 30, 40);
        insert_run(&mut r, 0, 5);
        assert_eq!(r, vec![(0, 5), (10, 20), (30, 40)]);
        insert_run(&mut r, 20, 30);
        assert_eq!(r, vec![(0, 5), (10, 40)]);
        insert_run(&mut r, 3, 12);
        assert_eq!(r, vec![(0, 40)]);
    }

    #[test]
    fn queries_see_exactly_the_overlapping_rectangles() {
        // 5 segments (padded to 8 leaves).
        let mut t = OccupancyTree::new(5);
        t.insert(0..2, 0, 10); // A
        t.insert(1..5, 10, 20); // B
        t.insert(3..4, 40, 50); // C
        assert_eq!(union(&mut t, 0..1), vec![(0, 10)]);
        assert_eq!(union(&mut t, 2..3), vec![(10, 20)]);
        assert_eq!(union(&mut t, 2..4), vec![(10, 20), (40, 50)]);
        assert_eq!(union(&mut t, 0..5), vec![(0, 20), (40, 50)]);
        assert_eq!(union(&mut t, 4..5), vec![(10, 20)]);
        assert!(union(&mut t, 5..5).is_empty());
    }
}
