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
//! The placed buffers live in an [`IntervalIndex`], so finding the `k` placed
//! buffers that conflict with the next one costs `O((k + 1) log n)` and the
//! whole plan `O(n log n + sum k log k)`, not `O(n^2)`.

use super::interval_index::IntervalIndex;
use crate::problem::Problem;

/// Places buffers one at a time by best fit.
pub(crate) struct Placer<'p> {
    problem: &'p Problem,
    index: IntervalIndex,
    offsets: Vec<u64>,
    placed: Vec<bool>,
    taken: Vec<(u64, u64)>,
}

impl<'p> Placer<'p> {
    /// A placer with every fixed buffer already placed at its offset.
    pub(crate) fn new(problem: &'p Problem) -> Self {
        let n = problem.buffers.len();
        let mut p = Placer {
            problem,
            index: IntervalIndex::new(problem),
            offsets: vec![0; n],
            placed: vec![false; n],
            taken: Vec::with_capacity(64),
        };
        for (b, buf) in problem.buffers.iter().enumerate() {
            if let Some(off) = buf.fixed_offset {
                p.offsets[b] = off;
                p.placed[b] = true;
                p.index.activate(b);
            }
        }
        p
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
        for iv in &buf.live {
            let (offsets, taken, bufs) = (&self.offsets, &mut self.taken, &self.problem.buffers);
            self.index.for_each_overlapping(iv.start, iv.end, |o| {
                let o = o as usize;
                taken.push((offsets[o], offsets[o].saturating_add(bufs[o].size)));
            });
        }
        let off = best_fit(&mut self.taken, buf.size, buf.align);
        self.offsets[b] = off;
        self.placed[b] = true;
        self.index.activate(b);
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
