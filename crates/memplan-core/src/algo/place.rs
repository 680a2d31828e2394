//! Shared placement primitives: given the byte ranges already taken by buffers
//! that are live at the same time as the one being placed, find an offset for it;
//! plus the linearised hull trace and the fixed-offset repair that the
//! trace-replay planners share.

use crate::problem::Problem;

/// A taken byte range `[lo, hi)`.
pub type Range = (u64, u64);

/// Which gap to choose among those that fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// The lowest offset that fits.
    First,
    /// The smallest gap that fits (ties: lowest); above all ranges if none does.
    Best,
}

/// Finds an offset for a buffer of `size` bytes aligned to `align`, clear of all
/// `taken` ranges (in any order, may overlap each other). `taken` is sorted in place.
pub fn find_offset(taken: &mut [Range], size: u64, align: u64, fit: Fit) -> u64 {
    taken.sort_unstable();
    let mut best: Option<(u64, u64)> = None; // (gap size, offset)
    let mut cursor = 0u64; // lowest free byte so far
    for &(lo, hi) in taken.iter() {
        if lo > cursor {
            let off = cursor.next_multiple_of(align.max(1));
            if off + size <= lo {
                let gap = lo - cursor;
                match fit {
                    Fit::First => return off,
                    Fit::Best => {
                        if best.is_none_or(|(g, _)| gap < g) {
                            best = Some((gap, off));
                        }
                    }
                }
            }
        }
        cursor = cursor.max(hi);
    }
    match best {
        Some((_, off)) => off,
        None => cursor.next_multiple_of(align.max(1)),
    }
}

/// One step of a linearised lifetime trace (see [`hull_trace`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceEvent {
    /// The buffer with this index becomes live.
    Alloc(usize),
    /// The buffer with this index dies.
    Free(usize),
}

/// The alloc/free trace of the non-fixed buffers of `problem`, each buffer live
/// over its hull `[start, end)`: events in time order, frees before allocations
/// at the same tick (intervals are half-open), ties by buffer index.
pub fn hull_trace(problem: &Problem) -> Vec<TraceEvent> {
    let mut ev: Vec<(u64, u8, usize)> = Vec::with_capacity(2 * problem.buffers.len());
    for (i, b) in problem.buffers.iter().enumerate() {
        if b.fixed_offset.is_none() {
            ev.push((b.start(), 1, i));
            ev.push((b.end(), 0, i));
        }
    }
    ev.sort_unstable();
    ev.into_iter()
        .map(|(_, k, i)| {
            if k == 0 {
                TraceEvent::Free(i)
            } else {
                TraceEvent::Alloc(i)
            }
        })
        .collect()
}

/// Makes a plan of the non-fixed buffers honour the fixed ones.
///
/// `offsets` must already be valid among the non-fixed buffers (entries of fixed
/// buffers are ignored and overwritten with their fixed offsets). Non-fixed
/// buffers are visited in order of planned offset and each is moved to the
/// lowest aligned offset at or above its planned one that clears every fixed
/// buffer and every already-moved buffer live at the same time. A buffer that
/// keeps its offset cannot collide with one visited earlier (those lie below it
/// when co-live), so only fixed and moved buffers need checking: the cost is
/// O(n log n + n * m) with m the number of fixed plus moved buffers, and nothing
/// at all when no buffer is fixed.
pub fn honour_fixed(problem: &Problem, offsets: &mut [u64]) {
    let mut pinned: Vec<usize> = Vec::new();
    for (i, b) in problem.buffers.iter().enumerate() {
        if let Some(o) = b.fixed_offset {
            offsets[i] = o;
            pinned.push(i);
        }
    }
    if pinned.is_empty() {
        return;
    }
    let mut order: Vec<usize> = (0..problem.buffers.len())
        .filter(|&i| problem.buffers[i].fixed_offset.is_none())
        .collect();
    order.sort_unstable_by_key(|&i| (offsets[i], i));
    let mut taken: Vec<Range> = Vec::new();
    for i in order {
        let b = &problem.buffers[i];
        let planned = offsets[i];
        taken.clear();
        if planned > 0 {
            taken.push((0, planned));
        }
        for &j in &pinned {
            let c = &problem.buffers[j];
            if b.overlaps_in_time(c) {
                taken.push((offsets[j], offsets[j] + c.size));
            }
        }
        let off = find_offset(&mut taken, b.size, b.align, Fit::First);
        if off != planned {
            offsets[i] = off;
            pinned.push(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_and_best_fit() {
        let mut t = vec![(0, 8), (24, 32), (40, 48)];
        assert_eq!(find_offset(&mut t, 8, 1, Fit::First), 8);
        assert_eq!(find_offset(&mut t, 8, 1, Fit::Best), 32);
        assert_eq!(find_offset(&mut t, 16, 1, Fit::Best), 8);
        assert_eq!(find_offset(&mut t, 17, 1, Fit::First), 48);
        assert_eq!(find_offset(&mut t, 8, 16, Fit::First), 16);
    }
}
