//! `reuse-exact`: PyTorch Inductor's `memory_plan_reuse` (the default wrapper
//! code path of `torch.compile`).
//!
//! Source: seed `001_ed729980ea3d56a5.txt` (section "memory_plan_reuse") and
//! upstream `torch/_inductor/codegen/wrapper.py` (`memory_plan_reuse`,
//! `MemoryPlanningState`, `AllocateLine.plan`, `FreeIfNotReusedLine.plan`).
//!
//! The idea: replay the program's allocations and frees in order. A freed
//! buffer's storage goes into a reuse pool keyed by its size (Inductor keys by
//! device, dtype, storage size and, in recent versions, alignment; one memory
//! space here, so the key is the size). An allocation pops the pool of its key
//! as a stack, so the most recently freed storage of exactly that size is reused
//! and keeps its offset; with no match a fresh storage is stacked on top of the
//! arena. Storages never shrink, split or merge, so the arena is the sum of the
//! distinct storages created.
//!
//! Choices made here: a buffer lives over its hull `[start, end)` (holes are not
//! reused; Inductor frees a buffer once, after its last use); frees come before
//! allocations at the same tick; a pooled storage is only taken when its offset
//! is a multiple of the new buffer's alignment (the most recent such one);
//! fixed buffers are planned around by [`super::place::honour_fixed`].

use std::collections::BTreeMap;

use super::place::{honour_fixed, hull_trace, TraceEvent};
use crate::problem::Problem;

/// Plans the space: exact-size reuse of the most recently freed storage.
pub fn plan(problem: &Problem) -> Vec<u64> {
    let bufs = &problem.buffers;
    let mut offsets = vec![0u64; bufs.len()];
    // size -> stack of free storage offsets, most recently freed last.
    let mut pool: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    let mut top = 0u64;
    for ev in hull_trace(problem) {
        match ev {
            TraceEvent::Free(i) => pool.entry(bufs[i].size).or_default().push(offsets[i]),
            TraceEvent::Alloc(i) => {
                let b = &bufs[i];
                let reused = pool.get_mut(&b.size).and_then(|stack| {
                    let pos = stack.iter().rposition(|&o| o % b.align == 0)?;
                    Some(stack.remove(pos))
                });
                offsets[i] = match reused {
                    Some(off) => off,
                    None => {
                        let off = top.next_multiple_of(b.align);
                        top = off + b.size;
                        off
                    }
                };
            }
        }
    }
    honour_fixed(problem, &mut offsets);
    offsets
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check_offsets;
    use crate::problem::Buffer;

    fn peak(p: &Problem) -> (Vec<u64>, u64) {
        let offs = plan(p);
        let peaks = check_offsets(p, &offs).expect("valid plan");
        (offs, peaks.iter().map(|&(_, v)| v).max().unwrap_or(0))
    }

    #[test]
    fn same_size_reuses_most_recent_free() {
        // a and b die at 2 (b freed after a, ties by id), c (same size) starts at 3:
        // it takes b's storage (the most recent free). Arena = 2 storages of 16.
        let p = Problem::new(vec![
            Buffer::new(16, 0, 2),
            Buffer::new(16, 1, 2),
            Buffer::new(16, 3, 5),
        ]);
        let (offs, pk) = peak(&p);
        assert_eq!(offs[2], offs[1]);
        assert_eq!(pk, 32);
    }

    #[test]
    fn different_size_never_reuses() {
        // 64 bytes then 32 bytes, disjoint in time: no exact match, so two
        // storages: 64 + 32 = 96 although 64 would do.
        let p = Problem::new(vec![Buffer::new(64, 0, 2), Buffer::new(32, 2, 4)]);
        assert_eq!(peak(&p).1, 96);
    }

    #[test]
    fn misaligned_storage_is_skipped() {
        // s0 (8 B) at 0, s1 (8 B, align 1) at 8. Both die at 2; the new buffer
        // (8 B, align 16) may not take s1 at 8 (most recent), so it takes s0 at 0.
        let p = Problem::new(vec![
            Buffer::new(8, 0, 2),
            Buffer::new(8, 1, 2),
            Buffer::new(8, 3, 4).with_align(16),
        ]);
        let (offs, pk) = peak(&p);
        assert_eq!(offs[2], 0);
        assert_eq!(pk, 16);
    }

    #[test]
    fn fixed_buffer_is_cleared() {
        // The free buffer would go at 0 but a fixed buffer sits at [0, 8) at the
        // same time: it moves to 8. Peak 16.
        let p = Problem::new(vec![Buffer::new(8, 0, 4).fixed_at(0), Buffer::new(8, 1, 3)]);
        let (offs, pk) = peak(&p);
        assert_eq!(offs, vec![0, 8]);
        assert_eq!(pk, 16);
    }
}
