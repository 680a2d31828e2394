//! `tvm-layers`: TVM's shared-memory planner (`MergeSharedMemoryAllocations`,
//! `SharedMemoryRewriter::FindAlloc` / `Free` / `PlanMemory`).
//!
//! Source: seed `004_744580ff833e1378.txt` (the pass's gen/kill liveness and
//! free-list reuse) and upstream `src/tir/transforms/merge_shared_memory_allocations.cc`.
//!
//! The idea: replay the gen (allocate) and kill (free) events. Every buffer lands
//! in a *storage entry*; a freed entry goes into a free map keyed by its size.
//! `FindAlloc` for a buffer of `s` bytes:
//! 1. takes the smallest free entry whose size lies in `[s, 16 * s]`
//!    (`match_range = 16`; among equal sizes the one freed first) and puts the
//!    buffer at its base, as a new "layer" over the entry's old occupants;
//! 2. otherwise collects free entries smaller than `s`, largest first (among
//!    equal sizes the one freed last), until their sizes add up to `s`; they
//!    are stacked side by side into one new entry and the buffer becomes a new
//!    layer over all of them (TVM's `allocs = {{A, B}, {C}}`); the new entry
//!    is `max(s, their total)` bytes, so if all free entries together are too
//!    small the entry grows;
//! 3. otherwise (nothing free) opens a new entry.
//!
//! Buffers of at most 4 bytes (TVM: 32 bits) get an entry of their own and are
//! never freed, as upstream ("they will be lowered to registers"). At the end
//! every entry is laid out one after another in the order of the final free map
//! (size, then freeing order), and entries of tiny buffers after them.
//!
//! One deliberate deviation, for correctness: upstream computes offsets
//! "layer by layer" (layer `i` of a merged entry stacks layer `i` of each merged
//! entry), which lets a deeper layer of one merged entry overlap an older layer
//! of its neighbour whenever their layer sizes differ, even though those two
//! buffers may have been live at the same time. Here a merged entry keeps each
//! merged entry whole, side by side at aligned relative offsets (a tree of
//! entries), which gives the same layout when layers line up and a valid one
//! when they do not. Sizes include alignment padding; an entry's base is aligned
//! to the largest alignment of any buffer in it (TVM aligns each layer to its
//! widest dtype).
//!
//! Lifetimes are hulls (TVM's gen/kill points are the first and last touch).
//! Fixed buffers are planned around by [`super::place::honour_fixed`].

use std::collections::BTreeMap;

use super::place::{honour_fixed, hull_trace, TraceEvent};
use crate::problem::Problem;

/// TVM's `match_range`: an entry up to this many times larger may be reused.
pub const MATCH_RANGE: u64 = 16;

/// Buffers of at most this many bytes are never shared (TVM: 32 bits).
pub const SMALL_BYTES: u64 = 4;

/// A storage entry: buffers at its base (one layer each) over merged entries.
#[derive(Debug, Default)]
struct Entry {
    /// Bytes the entry spans (padding included).
    size: u64,
    /// Largest alignment of anything inside it.
    align: u64,
    /// Buffers placed at the entry's base, in layer order.
    buffers: Vec<usize>,
    /// Merged entries: (entry, offset relative to this entry's base).
    children: Vec<(usize, u64)>,
    /// Holds a tiny buffer: never freed, laid out after the others.
    small: bool,
    /// Part of a larger entry (not laid out at top level).
    merged: bool,
}

/// Plans the space with TVM's FindAlloc free-list reuse.
pub fn plan(problem: &Problem) -> Vec<u64> {
    let bufs = &problem.buffers;
    let mut entries: Vec<Entry> = Vec::new();
    let mut entry_of = vec![usize::MAX; bufs.len()];
    // (size, freeing sequence) -> entry; emulates std::multimap ordering.
    let mut free: BTreeMap<(u64, u64), usize> = BTreeMap::new();
    let mut seq = 0u64;
    for ev in hull_trace(problem) {
        match ev {
            TraceEvent::Free(i) => {
                let e = entry_of[i];
                if !entries[e].small {
                    free.insert((entries[e].size, seq), e);
                    seq += 1;
                }
            }
            TraceEvent::Alloc(i) => {
                entry_of[i] = find_alloc(&mut entries, &mut free, i, bufs[i].size, bufs[i].align);
            }
        }
    }
    let mut offsets = vec![0u64; bufs.len()];
    // Top-level layout: the final free map's order, then tiny-buffer entries.
    let mut order: Vec<usize> = free.values().copied().collect();
    order.extend((0..entries.len()).filter(|&e| entries[e].small));
    let mut cursor = 0u64;
    let mut stack: Vec<(usize, u64)> = Vec::new();
    for e in order {
        let base = cursor.next_multiple_of(entries[e].align);
        cursor = base + entries[e].size;
        stack.push((e, base));
        while let Some((e, base)) = stack.pop() {
            for &b in &entries[e].buffers {
                offsets[b] = base;
            }
            stack.extend(entries[e].children.iter().map(|&(c, rel)| (c, base + rel)));
        }
    }
    honour_fixed(problem, &mut offsets);
    offsets
}

/// TVM's `FindAlloc` for buffer `buf` of `size` bytes: returns its entry.
fn find_alloc(
    entries: &mut Vec<Entry>,
    free: &mut BTreeMap<(u64, u64), usize>,
    buf: usize,
    size: u64,
    align: u64,
) -> usize {
    if size > SMALL_BYTES {
        // 1. The smallest free entry in [size, 16 * size].
        let hi = size.saturating_mul(MATCH_RANGE);
        if let Some((&key, &e)) = free.range((size, 0)..=(hi, u64::MAX)).next() {
            free.remove(&key);
            let entry = &mut entries[e];
            entry.buffers.push(buf);
            entry.align = entry.align.max(align);
            return e;
        }
        // 2. Smaller free entries, largest first, until they cover `size`.
        let mut taken: Vec<((u64, u64), usize)> = Vec::new();
        let mut covered = 0u64;
        for (&key, &e) in free.range(..(size, 0)).rev() {
            let rel = covered.next_multiple_of(entries[e].align);
            covered = rel + entries[e].size;
            taken.push((key, e));
            if covered >= size {
                break;
            }
        }
        if !taken.is_empty() {
            let mut merged = Entry {
                size: 0,
                align,
                buffers: vec![buf],
                children: Vec::with_capacity(taken.len()),
                small: false,
                merged: false,
            };
            let mut cursor = 0u64;
            for (key, e) in taken {
                free.remove(&key);
                let child = &mut entries[e];
                child.merged = true;
                let rel = cursor.next_multiple_of(child.align);
                cursor = rel + child.size;
                merged.align = merged.align.max(child.align);
                merged.children.push((e, rel));
            }
            merged.size = cursor.max(size);
            entries.push(merged);
            return entries.len() - 1;
        }
    }
    // 3. A new entry.
    entries.push(Entry {
        size,
        align,
        buffers: vec![buf],
        children: Vec::new(),
        small: size <= SMALL_BYTES,
        merged: false,
    });
    entries.len() - 1
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
    fn reuse_within_match_range_only() {
        // 1000 B dies, then 100 B: 1000 <= 16 * 100, so it is reused: peak 1000.
        let p = Problem::new(vec![Buffer::new(1000, 0, 2), Buffer::new(100, 2, 4)]);
        assert_eq!(peak(&p), (vec![0, 0], 1000));
        // 1000 B dies, then 50 B: 1000 > 16 * 50, no reuse and no smaller free
        // entry: a new entry after it: peak 1050.
        let p = Problem::new(vec![Buffer::new(1000, 0, 2), Buffer::new(50, 2, 4)]);
        assert_eq!(peak(&p).1, 1050);
    }

    #[test]
    fn smallest_fitting_entry_is_preferred() {
        // Free entries of 300 and 200 bytes; a 150 B buffer takes the 200 one.
        // Layout: entries in free-map order (200 then 300) -> 500 bytes.
        let p = Problem::new(vec![
            Buffer::new(300, 0, 2),
            Buffer::new(200, 0, 2),
            Buffer::new(150, 2, 4),
        ]);
        let (offs, pk) = peak(&p);
        assert_eq!(offs[2], offs[1]);
        assert_eq!(pk, 500);
    }

    #[test]
    fn smaller_entries_grow_into_one() {
        // One free entry of 40 B and a 100 B buffer: the 40 B entry is merged
        // into a new 100 B entry (grown): peak 100 instead of 140.
        let p = Problem::new(vec![Buffer::new(40, 0, 2), Buffer::new(100, 2, 4)]);
        assert_eq!(peak(&p), (vec![0, 0], 100));
    }

    #[test]
    fn tiny_buffers_are_never_shared() {
        // Two 4-byte buffers, disjoint in time: TVM keeps both: 8 bytes.
        let p = Problem::new(vec![Buffer::new(4, 0, 2), Buffer::new(4, 2, 4)]);
        assert_eq!(peak(&p).1, 8);
    }

    #[test]
    fn uneven_layers_stay_valid() {
        // Entry X: a (10 B), then b (100 B) as a second layer; entry Y: c
        // (100 B), co-live with b. Both freed, d (200 B) merges Y and X.
        // Upstream's layer-wise offsets would stack layer 0 as [c, a] and put
        // b (layer 1) at the base, over c; the entry tree keeps Y and X side by
        // side, so every pair that was ever co-live stays apart.
        let p = Problem::new(vec![
            Buffer::new(10, 0, 2),
            Buffer::new(100, 2, 5),
            Buffer::new(100, 3, 5),
            Buffer::new(200, 6, 8),
        ]);
        let (_, pk) = peak(&p);
        // b (100) and c (100) co-live: at least 200; d takes both: exactly 200.
        assert_eq!(pk, 200);
    }
}
