//! Placed byte ranges bucketed by lifetime length, for traces where few
//! buffers are live at once.
//!
//! Time is measured in *ranks*: the position of a tick among the distinct
//! interval ends of the problem (order-preserving, so overlap tests are
//! unchanged). Every live interval goes into the class of its rank length
//! (`floor(log2(len))`), each class an array sorted by start. An interval of a
//! class whose longest member spans `maxlen` ranks overlaps a window `[s, e)`
//! only if it starts in `(s - maxlen, e)`; since a class's lengths differ by
//! less than 2x, that run of entries holds at most about twice as many entries
//! as actually overlap. A per-class directory (first entry of every block of
//! 16 ranks) finds the run without a binary search over the whole class, and the
//! entries carry their byte range inline, so a query is a few short, contiguous
//! scans.
//!
//! This beats any tree when few buffers are live at once; when thousands are,
//! [`super::occupancy`] is better, because it reads merged runs of bytes instead
//! of every conflicting buffer.

/// log2 of the directory block, in ranks.
const BLOCK_SHIFT: u32 = 4;

/// One interval: its end rank and, once its buffer is placed, its bytes.
#[derive(Clone, Copy)]
struct Entry {
    end: u32,
    /// Byte range `[lo, hi)`; `lo == hi` while the buffer is not placed.
    lo: u64,
    hi: u64,
}

/// One length class.
struct Class {
    max_len: u32,
    starts: Vec<u32>,
    entries: Vec<Entry>,
    /// `dir[k]`: index of the first entry starting at rank `>= k << BLOCK_SHIFT`.
    dir: Vec<u32>,
}

impl Class {
    /// Index of the first entry starting at rank `>= r`.
    fn first_at(&self, r: u32) -> usize {
        let k = (r >> BLOCK_SHIFT) as usize;
        if k + 1 >= self.dir.len() {
            return self.starts.len();
        }
        let (a, z) = (self.dir[k] as usize, self.dir[k + 1] as usize);
        a + self.starts[a..z].partition_point(|&x| x < r)
    }
}

/// The index.
pub(crate) struct ClassIndex {
    classes: Vec<Class>,
    /// `(class, entry)` of every interval slot (see [`ClassIndex::new`]).
    slot_entry: Vec<(u32, u32)>,
}

impl ClassIndex {
    /// Indexes the intervals `ranks[i] = (start, end)` (ranks below `n_ranks`,
    /// `start < end`); slot `i` is addressed by [`ClassIndex::set`] afterwards.
    pub(crate) fn new(n_ranks: usize, ranks: &[(u32, u32)]) -> Self {
        let mut raw: Vec<(u32, u32, u32, u32)> = ranks // (class, start, end, slot)
            .iter()
            .enumerate()
            .map(|(i, &(s, e))| (31 - (e - s).max(1).leading_zeros(), s, e, i as u32))
            .collect();
        raw.sort_unstable();
        let blocks = (n_ranks >> BLOCK_SHIFT) + 2;
        let mut classes: Vec<Class> = Vec::new();
        let mut class_of = [u32::MAX; 32];
        let mut slot_entry = vec![(0u32, 0u32); ranks.len()];
        for &(c, s, e, slot) in &raw {
            if class_of[c as usize] == u32::MAX {
                class_of[c as usize] = classes.len() as u32;
                classes.push(Class {
                    max_len: 0,
                    starts: Vec::new(),
                    entries: Vec::new(),
                    dir: Vec::new(),
                });
            }
            let ci = class_of[c as usize];
            let class = &mut classes[ci as usize];
            class.max_len = class.max_len.max(e - s);
            slot_entry[slot as usize] = (ci, class.entries.len() as u32);
            class.starts.push(s);
            class.entries.push(Entry {
                end: e,
                lo: 0,
                hi: 0,
            });
        }
        for class in &mut classes {
            let mut dir = Vec::with_capacity(blocks);
            let mut i = 0usize;
            for k in 0..blocks {
                let r = (k as u64) << BLOCK_SHIFT;
                while i < class.starts.len() && (class.starts[i] as u64) < r {
                    i += 1;
                }
                dir.push(i as u32);
            }
            class.dir = dir;
        }
        ClassIndex {
            classes,
            slot_entry,
        }
    }

    /// Records interval slot `slot` as holding bytes `[lo, hi)` (`lo < hi`).
    pub(crate) fn set(&mut self, slot: usize, lo: u64, hi: u64) {
        let (c, i) = self.slot_entry[slot];
        let e = &mut self.classes[c as usize].entries[i as usize];
        e.lo = lo;
        e.hi = hi;
    }

    /// Appends the byte ranges of the placed intervals overlapping ranks `[s, e)`.
    pub(crate) fn query(&self, s: u32, e: u32, out: &mut Vec<(u64, u64)>) {
        for class in &self.classes {
            // Entries starting at or before s - max_len end by s.
            let a = class.first_at((s + 1).saturating_sub(class.max_len));
            let z = class.first_at(e);
            for entry in &class.entries[a..z.max(a)] {
                if entry.end > s && entry.hi > entry.lo {
                    out.push((entry.lo, entry.hi));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_placed_overlaps_across_classes() {
        // Slots: 0 = [0,1), 1 = [0,100), 2 = [5,8), 3 = [0,2), 4 = [30,40).
        let ranks = [(0, 1), (0, 100), (5, 8), (0, 2), (30, 40)];
        let mut ix = ClassIndex::new(101, &ranks);
        let q = |ix: &ClassIndex, s, e| {
            let mut v = Vec::new();
            ix.query(s, e, &mut v);
            v.sort_unstable();
            v
        };
        assert!(q(&ix, 0, 100).is_empty());
        ix.set(0, 0, 1);
        ix.set(1, 10, 20);
        ix.set(2, 20, 30);
        ix.set(3, 30, 40);
        ix.set(4, 30, 40);
        assert_eq!(q(&ix, 1, 2), vec![(10, 20), (30, 40)]);
        assert_eq!(q(&ix, 8, 30), vec![(10, 20)]);
        assert_eq!(q(&ix, 7, 8), vec![(10, 20), (20, 30)]);
        assert_eq!(q(&ix, 39, 50), vec![(10, 20), (30, 40)]);
        assert_eq!(q(&ix, 100, 101), vec![]);
        // Starts at rank 0 in a long class: found, no underflow.
        assert_eq!(q(&ix, 0, 1), vec![(0, 1), (10, 20), (30, 40)]);
    }
}
