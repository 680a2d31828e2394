//! The best-fit placer shared by the greedy (TFLite) and best-fit (XLA) heuristics.
//!
//! All of those planners differ only in the *order* in which they visit the
//! buffers; each buffer is then put into the smallest gap left between the
//! already-placed buffers that are live at one of its ticks (holes respected),
//! or just above them when no gap is large enough. This is the rule of TFLite's
//! `GreedyBySizeAssignment` / `SimpleMemoryArena` (Pisarchyk & Lee, "Efficient
//! Memory Management for Deep Neural Net Inference", 2020, §4) and of XLA's
//! `GlobalDecreasingSizeBestFitHeap`. Fixed buffers are placed first, at their
//! offsets, so the others flow around them.
//!
//! Time is first compressed to *ranks* (positions among the distinct interval
//! ends). The bytes of the placed buffers then live in one of two indexes,
//! picked by how many intervals each interval meets on average (one sweep):
//! a [`ClassIndex`] (intervals bucketed by length, scanned in short contiguous
//! runs) when few buffers are co-live, as in inference graphs; an
//! [`OccupancyTree`] (a segment tree over time holding merged byte runs, read
//! in `O(log n)` sets without listing each co-live buffer) when thousands are,
//! as in training traces. Both report the same union of taken bytes, so the
//! plan does not depend on the choice; either way the cost is about
//! `O(n log n)`, never the `O(n^2)` of comparing every pair.

use super::class_index::ClassIndex;
use super::occupancy::OccupancyTree;
use crate::problem::Problem;

/// Average number of conflicts per interval above which the occupancy tree
/// replaces the length-class scan (both give the same offsets).
const DENSE_CONFLICTS: u64 = 96;

/// Where the placed buffers' bytes are looked up.
enum Backend {
    /// Few co-live buffers: scan them (see [`ClassIndex`]).
    Sparse(ClassIndex),
    /// Many co-live buffers: read merged runs (see [`OccupancyTree`]).
    Dense(OccupancyTree),
}

/// Every interval of a problem in rank space: ticks replaced by their position
/// among the distinct interval ends (segment `r` is `[ticks[r], ticks[r + 1])`).
pub(crate) struct Ranked {
    /// Number of distinct ticks.
    pub(crate) n_ticks: usize,
    /// `ranks[begin[b]..begin[b + 1]]`: the intervals of buffer `b`, as ranks.
    pub(crate) begin: Vec<u32>,
    /// `(start, end)` rank of every interval slot.
    pub(crate) ranks: Vec<(u32, u32)>,
}

impl Ranked {
    /// Ranks every interval by one sort of all interval ends.
    pub(crate) fn new(problem: &Problem) -> Self {
        let mut begin = Vec::with_capacity(problem.buffers.len() + 1);
        begin.push(0u32);
        let mut ends: Vec<(u64, u32)> = Vec::new();
        for buf in &problem.buffers {
            for iv in &buf.live {
                let slot = (ends.len() / 2) as u32;
                ends.push((iv.start, 2 * slot));
                ends.push((iv.end, 2 * slot + 1));
            }
            begin.push((ends.len() / 2) as u32);
        }
        ends.sort_unstable();
        let mut ranks = vec![(0u32, 0u32); ends.len() / 2];
        let mut rank = 0u32;
        for (i, &(t, code)) in ends.iter().enumerate() {
            if i > 0 && t != ends[i - 1].0 {
                rank += 1;
            }
            let r = &mut ranks[(code / 2) as usize];
            if code % 2 == 0 {
                r.0 = rank;
            } else {
                r.1 = rank;
            }
        }
        let n_ticks = if ends.is_empty() {
            0
        } else {
            rank as usize + 1
        };
        Ranked {
            n_ticks,
            begin,
            ranks,
        }
    }

    /// The average number of intervals each interval meets when they arrive in
    /// start order (overlapping pairs over the interval count).
    fn conflicts_per_interval(&self) -> u64 {
        let mut starts = vec![0u64; self.n_ticks + 1];
        let mut ends = vec![0u64; self.n_ticks + 1];
        for &(s, e) in &self.ranks {
            starts[s as usize] += 1;
            ends[e as usize] += 1;
        }
        let (mut live, mut pairs) = (0u64, 0u64);
        for r in 0..self.n_ticks {
            live -= ends[r];
            let k = starts[r];
            pairs += k * live + k * k.saturating_sub(1) / 2;
            live += k;
        }
        pairs / (self.ranks.len() as u64).max(1)
    }

    fn slots(&self, b: usize) -> std::ops::Range<usize> {
        self.begin[b] as usize..self.begin[b + 1] as usize
    }
}

/// Places buffers one at a time by best fit.
pub(crate) struct Placer<'p> {
    problem: &'p Problem,
    ranked: Ranked,
    backend: Backend,
    offsets: Vec<u64>,
    placed: Vec<bool>,
    taken: Vec<(u64, u64)>,
}

impl<'p> Placer<'p> {
    /// A placer with every fixed buffer already placed at its offset.
    pub(crate) fn new(problem: &'p Problem) -> Self {
        Self::with_backend(problem, None)
    }

    /// Like [`Placer::new`], with the backend forced (`Some(true)`: the occupancy
    /// tree) instead of chosen by conflict density.
    pub(crate) fn with_backend(problem: &'p Problem, dense: Option<bool>) -> Self {
        let n = problem.buffers.len();
        let ranked = Ranked::new(problem);
        let dense = dense.unwrap_or_else(|| ranked.conflicts_per_interval() > DENSE_CONFLICTS);
        let backend = if dense {
            Backend::Dense(OccupancyTree::new(ranked.n_ticks.saturating_sub(1)))
        } else {
            Backend::Sparse(ClassIndex::new(ranked.n_ticks, &ranked.ranks))
        };
        let mut p = Placer {
            problem,
            ranked,
            backend,
            offsets: vec![0; n],
            placed: vec![false; n],
            taken: Vec::with_capacity(64),
        };
        for (b, buf) in problem.buffers.iter().enumerate() {
            if let Some(off) = buf.fixed_offset {
                p.commit(b, off);
            }
        }
        p
    }

    fn commit(&mut self, b: usize, off: u64) {
        let buf = &self.problem.buffers[b];
        self.offsets[b] = off;
        self.placed[b] = true;
        let hi = off.saturating_add(buf.size);
        for slot in self.ranked.slots(b) {
            match &mut self.backend {
                Backend::Sparse(ix) => ix.set(slot, off, hi),
                Backend::Dense(tree) => {
                    let (s, e) = self.ranked.ranks[slot];
                    tree.insert(s as usize..e as usize, off, hi);
                }
            }
        }
    }

    /// True once buffer `b` has an offset (fixed buffers always do).
    pub(crate) fn is_placed(&self, b: usize) -> bool {
        self.placed[b]
    }

    /// Places buffer `b` (if not placed yet) by best fit and returns its offset.
    pub(crate) fn place(&mut self, b: usize) -> u64 {
        if self.placed[b] {
            return self.offsets[b];
        }
        let buf = &self.problem.buffers[b];
        self.taken.clear();
        for slot in self.ranked.slots(b) {
            let (s, e) = self.ranked.ranks[slot];
            match &mut self.backend {
                Backend::Sparse(ix) => ix.query(s, e, &mut self.taken),
                Backend::Dense(tree) => tree.query(s as usize..e as usize, &mut self.taken),
            }
        }
        let off = best_fit(&mut self.taken, buf.size, buf.align);
        self.commit(b, off);
        off
    }

    /// The offsets; buffers never placed stay at 0.
    pub(crate) fn into_offsets(self) -> Vec<u64> {
        self.offsets
    }
}

/// The offset of the smallest gap between the `taken` byte ranges (any order,
/// may overlap) that holds `size` bytes at alignment `align`; ties go to the
/// lowest gap. Without such a gap, the lowest aligned offset above all of them.
/// The gap size compared is the whole free run, before alignment padding.
pub(crate) fn best_fit(taken: &mut [(u64, u64)], size: u64, align: u64) -> u64 {
    let align = align.max(1);
    let up = |x: u64| x.checked_next_multiple_of(align).unwrap_or(u64::MAX);
    taken.sort_unstable();
    let mut best: Option<(u64, u64)> = None; // (gap, offset)
    let mut cursor = 0u64;
    for &(lo, hi) in taken.iter() {
        if lo > cursor {
            let off = up(cursor);
            if off.saturating_add(size) <= lo {
                let gap = lo - cursor;
                if best.is_none_or(|(g, _)| gap < g) {
                    best = Some((gap, off));
                }
            }
        }
        cursor = cursor.max(hi);
    }
    match best {
        Some((_, off)) => off,
        None => up(cursor),
    }
}

/// Places the non-fixed buffers in `order` (each once; ids not in it stay
/// unplaced at 0, so `order` should list them all) and returns the offsets.
pub(crate) fn place_in_order(
    problem: &Problem,
    order: impl IntoIterator<Item = usize>,
) -> Vec<u64> {
    let mut placer = Placer::new(problem);
    for b in order {
        placer.place(b);
    }
    placer.into_offsets()
}

/// The ids of the buffers that are not fixed.
pub(crate) fn movable(problem: &Problem) -> Vec<usize> {
    (0..problem.buffers.len())
        .filter(|&b| problem.buffers[b].fixed_offset.is_none())
        .collect()
}

/// The peak (max of offset + size) of `offsets` for `problem`, saturating.
pub(crate) fn peak(problem: &Problem, offsets: &[u64]) -> u64 {
    problem
        .buffers
        .iter()
        .zip(offsets)
        .map(|(b, &o)| o.saturating_add(b.size))
        .max()
        .unwrap_or(0)
}

/// Random small problems for the property tests of the placement planners.
#[cfg(test)]
pub(crate) mod testgen {
    use crate::problem::{Buffer, Interval, Problem};
    use proptest::prelude::*;

    /// Up to 24 buffers with holes (1-3 intervals), alignments 1-8 and some
    /// fixed offsets (stacked at disjoint addresses, so they never collide).
    pub(crate) fn arb_problem() -> impl Strategy<Value = Problem> {
        let buf = (
            1u64..40,
            0u32..4,
            prop::collection::vec((0u64..20, 1u64..6), 1..4),
            prop::bool::weighted(0.15),
        );
        prop::collection::vec(buf, 0..24).prop_map(|raw| {
            let mut fixed_top = 0u64;
            let buffers = raw
                .into_iter()
                .map(|(size, a, ivs, fixed)| {
                    let live: Vec<Interval> = ivs
                        .into_iter()
                        .map(|(s, l)| Interval::new(s, s + l))
                        .collect();
                    let mut b = Buffer::new(size, 0, 1).with_live(live).with_align(1 << a);
                    if fixed {
                        let off = (fixed_top + 7).next_multiple_of(b.align);
                        fixed_top = off + size;
                        b = b.fixed_at(off);
                    }
                    b
                })
                .collect();
            Problem::new(buffers)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::testgen::arb_problem;
    use crate::check::check_offsets;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Both backends see the same conflicts, so they place identically.
        #[test]
        fn backends_agree(p in arb_problem(), rot in 0usize..24) {
            let mut order = movable(&p);
            let k = rot % order.len().max(1);
            order.rotate_left(k);
            let mut sparse = Placer::with_backend(&p, Some(false));
            let mut dense = Placer::with_backend(&p, Some(true));
            for &b in &order {
                prop_assert_eq!(sparse.place(b), dense.place(b));
            }
            let o = sparse.into_offsets();
            prop_assert!(check_offsets(&p, &o).is_ok());
        }
    }

    #[test]
    fn ranks_and_density() {
        // [0,10) [5,10) [10,20): distinct ticks 0,5,10,20 -> ranks 0..4.
        let p = Problem::new(vec![
            crate::Buffer::new(1, 0, 10),
            crate::Buffer::new(1, 5, 10),
            crate::Buffer::new(1, 10, 20),
        ]);
        let r = Ranked::new(&p);
        assert_eq!(r.n_ticks, 4);
        assert_eq!(r.ranks, vec![(0, 2), (1, 2), (2, 3)]);
        // One overlapping pair (the first two) over three intervals.
        assert_eq!(r.conflicts_per_interval(), 0);
        let q = Problem::new(vec![crate::Buffer::new(1, 0, 9); 5]);
        // 5 identical intervals: 10 pairs / 5 = 2.
        assert_eq!(Ranked::new(&q).conflicts_per_interval(), 2);
    }

    #[test]
    fn best_fit_gaps() {
        // Gaps: [8, 24) of 16 bytes and [32, 40) of 8 bytes; top at 48.
        let mut t = vec![(40, 48), (0, 8), (24, 32)];
        assert_eq!(best_fit(&mut t, 8, 1), 32);
        assert_eq!(best_fit(&mut t, 9, 1), 8);
        assert_eq!(best_fit(&mut t, 17, 1), 48);
        // Aligned to 16: the 8-byte gap at 32 still fits, the 16-byte gap at 8
        // only from 16 on, leaving 8 bytes.
        assert_eq!(best_fit(&mut t, 8, 16), 32);
        assert_eq!(best_fit(&mut t, 12, 16), 48);
        assert_eq!(best_fit(&mut [], 5, 4), 0);
        // Overlapping taken ranges merge.
        assert_eq!(best_fit(&mut [(0, 10), (5, 8), (12, 20)], 2, 1), 10);
    }
}
