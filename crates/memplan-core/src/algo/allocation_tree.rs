//! `allocation-tree`: PyTorch Inductor's pool planner (`memory_plan`).
//!
//! Source: seed `001_ed729980ea3d56a5.txt` (section "memory_plan" /
//! "AllocationTree") and upstream `torch/_inductor/codegen/memory_planning.py`
//! (`TemporalSplit._allocate`, `SpatialSplit._allocate`,
//! `AllocationPool.allocate` / `allocate_at_end`, `MemoryPlanner.allocate_groups`).
//!
//! The idea: buffers are placed biggest first (size descending, then live range
//! length descending), like Tetris pieces whose order, not position, is chosen.
//! The pool is a tree:
//! * a *TemporalSplit* holds children that reuse the same bytes at different
//!   times (their live ranges never overlap); its size is its largest child;
//! * a *SpatialSplit* puts a left and a right TemporalSplit side by side;
//! * leaves are allocations or *Empty* padding.
//!
//! Placing block `b` into a TemporalSplit of size `S`: if `b` does not fit
//! (`b > S`) and this node may not grow, fail. If `b` overlaps the live ranges
//! of two or more children, fail; of exactly one, recurse into it; of none,
//! add it as a new child: exactly (`b == S`), as `SpatialSplit(b, Empty(S - b))`
//! (`b < S`), or by growing (`b > S`, only on the rightmost path): every old
//! child is wrapped in `SpatialSplit(child, Empty(b - S))` and `b` is added.
//! A SpatialSplit tries its left side (never growing) then its right side. When
//! the root cannot take a block, the root grows: `root = Temporal[Spatial(root,
//! Temporal[b])]`, the block goes on top. Offsets come from the finished tree:
//! a TemporalSplit's children share its offset, a SpatialSplit's right side sits
//! after its left side.
//!
//! Choices made here: a block's live ranges are its real intervals (Inductor's
//! `LiveRanges` supports several; holes can thus be reused), and "live range
//! length" in the sort is the hull length; ties in the sort go by start time,
//! then index (Inductor's stable sort keeps program order). Inductor pads the
//! left side of every SpatialSplit to 64 bytes; here it is padded to the
//! alignment the right side needs, and a node's base is aligned to the largest
//! alignment inside it. Each TemporalSplit indexes its children's live ranges in
//! an interval map, so the overlap test costs a logarithm instead of a scan of
//! all children; the search itself is an explicit-stack depth-first walk (the
//! tree can be thousands of levels deep after many root growths). Fixed buffers
//! are planned around by [`super::place::honour_fixed`].
//!
//! Cost: every search starts at the root and walks down the chain of old roots
//! that each growth leaves behind, so a plan costs O(n * depth * log) with depth
//! the number of root growths; this is inherent to Inductor's recursive search
//! (whose Python recursion would overflow on traces that deep). On the largest
//! benchmark traces (18k-62k buffers, 1.9k-5k growths) that is seconds to tens
//! of seconds in release.

use std::collections::BTreeMap;

use super::place::honour_fixed;
use crate::problem::{Interval, Problem};

#[derive(Debug)]
enum Kind {
    /// A leaf holding one buffer.
    Alloc(usize),
    /// Unused padding.
    Empty,
    /// Children reusing the same bytes at disjoint times.
    Temporal(Temporal),
    /// Two temporal splits side by side.
    Spatial { left: usize, right: usize },
}

#[derive(Debug, Default)]
struct Temporal {
    children: Vec<usize>,
    /// Live ranges of the children: start -> (end, child slot). Ranges of one
    /// child are merged; ranges of different children never overlap.
    ranges: BTreeMap<u64, (u64, usize)>,
}

#[derive(Debug)]
struct Node {
    kind: Kind,
    size: u64,
    align: u64,
}

/// One level of the depth-first search for a place.
struct Frame {
    node: usize,
    is_last: bool,
    /// Temporal: 0 = not tried, 1 = descended. Spatial: 0, 1 = left tried, 2 = right tried.
    phase: u8,
    /// Temporal: the child slot descended into.
    slot: usize,
}

struct Tree<'a> {
    problem: &'a Problem,
    nodes: Vec<Node>,
}

impl<'a> Tree<'a> {
    fn live(&self, b: usize) -> &'a [Interval] {
        &self.problem.buffers[b].live
    }

    fn push(&mut self, kind: Kind, size: u64, align: u64) -> usize {
        self.nodes.push(Node { kind, size, align });
        self.nodes.len() - 1
    }

    fn new_alloc(&mut self, b: usize) -> usize {
        let buf = &self.problem.buffers[b];
        self.push(Kind::Alloc(b), buf.size, buf.align)
    }

    fn new_temporal(&mut self, child: usize, ranges: &[(u64, u64)]) -> usize {
        let mut t = Temporal {
            children: vec![child],
            ranges: BTreeMap::new(),
        };
        for &(s, e) in ranges {
            insert_range(&mut t.ranges, s, e, 0);
        }
        let (size, align) = (self.nodes[child].size, self.nodes[child].align);
        self.push(Kind::Temporal(t), size, align)
    }

    fn new_spatial(&mut self, left: usize, right: usize) -> usize {
        let (l, r) = (&self.nodes[left], &self.nodes[right]);
        let size = l.size.next_multiple_of(r.align) + r.size;
        let align = l.align.max(r.align);
        self.push(Kind::Spatial { left, right }, size, align)
    }

    /// Inductor's `SpatialSplit.create(child, extra)`.
    fn wrap(&mut self, child: usize, extra: u64, ranges: &[(u64, u64)]) -> usize {
        let left = self.new_temporal(child, ranges);
        let empty = self.push(Kind::Empty, extra, 1);
        let right = self.new_temporal(empty, &[]);
        self.new_spatial(left, right)
    }

    fn refresh_spatial(&mut self, n: usize) {
        if let Kind::Spatial { left, right } = self.nodes[n].kind {
            let (l, r) = (&self.nodes[left], &self.nodes[right]);
            let size = l.size.next_multiple_of(r.align) + r.size;
            let align = l.align.max(r.align);
            self.nodes[n].size = size;
            self.nodes[n].align = align;
        }
    }

    /// Tries to place block `b` somewhere under `root`; true on success.
    fn allocate(&mut self, root: usize, b: usize, is_last: bool) -> bool {
        let bsize = self.problem.buffers[b].size;
        let live = self.live(b);
        let mut frames = vec![Frame {
            node: root,
            is_last,
            phase: 0,
            slot: 0,
        }];
        while let Some(f) = frames.last_mut() {
            let node = f.node;
            match &self.nodes[node].kind {
                Kind::Temporal(t) => {
                    if f.phase != 0 || (!f.is_last && bsize > self.nodes[node].size) {
                        frames.pop();
                        continue;
                    }
                    match overlapping(&t.ranges, live) {
                        Overlap::None => {
                            let last = f.is_last;
                            self.place(node, b, last);
                            frames.pop();
                            self.propagate(&frames, b);
                            return true;
                        }
                        Overlap::One(k) => {
                            let child = t.children[k];
                            f.phase = 1;
                            f.slot = k;
                            let last = f.is_last;
                            frames.push(Frame {
                                node: child,
                                is_last: last,
                                phase: 0,
                                slot: 0,
                            });
                        }
                        Overlap::Many => {
                            frames.pop();
                        }
                    }
                }
                Kind::Spatial { left, right } => {
                    let (left, right, last) = (*left, *right, f.is_last);
                    let next = match f.phase {
                        0 => Some((left, false)),
                        1 => Some((right, last)),
                        _ => None,
                    };
                    f.phase += 1;
                    match next {
                        Some((n, l)) => frames.push(Frame {
                            node: n,
                            is_last: l,
                            phase: 0,
                            slot: 0,
                        }),
                        None => {
                            frames.pop();
                        }
                    }
                }
                Kind::Alloc(_) | Kind::Empty => {
                    frames.pop();
                }
            }
        }
        false
    }

    /// Adds block `b` as a new child of temporal node `tn` (no child overlaps it).
    fn place(&mut self, tn: usize, b: usize, is_last: bool) {
        let slot_size = self.nodes[tn].size;
        let bsize = self.problem.buffers[b].size;
        let live = self.live(b);
        let mut t = match std::mem::replace(&mut self.nodes[tn].kind, Kind::Empty) {
            Kind::Temporal(t) => t,
            other => {
                self.nodes[tn].kind = other;
                return;
            }
        };
        if t.children.len() == 1 && matches!(self.nodes[t.children[0]].kind, Kind::Empty) {
            t.children.clear();
        }
        let ivs: Vec<(u64, u64)> = live.iter().map(|i| (i.start, i.end)).collect();
        let child = if bsize == slot_size {
            self.new_alloc(b)
        } else if bsize < slot_size {
            let a = self.new_alloc(b);
            self.wrap(a, slot_size - bsize, &ivs)
        } else {
            debug_assert!(is_last, "only the rightmost path grows");
            let mut per_slot: Vec<Vec<(u64, u64)>> = vec![Vec::new(); t.children.len()];
            for (&s, &(e, k)) in &t.ranges {
                per_slot[k].push((s, e));
            }
            for (k, ranges) in per_slot.iter().enumerate() {
                t.children[k] = self.wrap(t.children[k], bsize - slot_size, ranges);
            }
            self.new_alloc(b)
        };
        t.children.push(child);
        let k = t.children.len() - 1;
        for &(s, e) in &ivs {
            insert_range(&mut t.ranges, s, e, k);
        }
        let size = t
            .children
            .iter()
            .map(|&c| self.nodes[c].size)
            .max()
            .unwrap_or(0);
        let align = t
            .children
            .iter()
            .map(|&c| self.nodes[c].align)
            .max()
            .unwrap_or(1);
        self.nodes[tn] = Node {
            kind: Kind::Temporal(t),
            size,
            align,
        };
    }

    /// After a placement: the nodes on the search path learn the new block.
    fn propagate(&mut self, frames: &[Frame], b: usize) {
        let live = self.live(b);
        for f in frames.iter().rev() {
            let n = f.node;
            if let Kind::Temporal(t) = &mut self.nodes[n].kind {
                for iv in live {
                    insert_range(&mut t.ranges, iv.start, iv.end, f.slot);
                }
                let child = t.children[f.slot];
                let (cs, ca) = (self.nodes[child].size, self.nodes[child].align);
                let node = &mut self.nodes[n];
                node.size = node.size.max(cs);
                node.align = node.align.max(ca);
            } else {
                self.refresh_spatial(n);
            }
        }
    }

    /// Inductor's `allocate_at_end`: `root = Temporal[Spatial(root, Temporal[b])]`.
    fn grow_root(&mut self, root: usize, b: usize) -> usize {
        let mut all: Vec<(u64, u64)> = match &self.nodes[root].kind {
            Kind::Temporal(t) => t.ranges.iter().map(|(&s, &(e, _))| (s, e)).collect(),
            _ => Vec::new(),
        };
        let own: Vec<(u64, u64)> = self.live(b).iter().map(|i| (i.start, i.end)).collect();
        all.extend_from_slice(&own);
        let a = self.new_alloc(b);
        let right = self.new_temporal(a, &own);
        let sp = self.new_spatial(root, right);
        self.new_temporal(sp, &all)
    }

    /// Final offsets: temporal children share a base, spatial right sides follow the left.
    fn offsets(&self, root: usize, out: &mut [u64]) {
        let mut stack = vec![(root, 0u64)];
        while let Some((n, base)) = stack.pop() {
            match &self.nodes[n].kind {
                Kind::Alloc(b) => out[*b] = base,
                Kind::Empty => {}
                Kind::Temporal(t) => stack.extend(t.children.iter().map(|&c| (c, base))),
                Kind::Spatial { left, right } => {
                    let (l, r) = (&self.nodes[*left], &self.nodes[*right]);
                    stack.push((*left, base));
                    stack.push((*right, base + l.size.next_multiple_of(r.align)));
                }
            }
        }
    }
}

enum Overlap {
    None,
    One(usize),
    Many,
}

/// Which children of a temporal node the intervals `live` overlap.
fn overlapping(ranges: &BTreeMap<u64, (u64, usize)>, live: &[Interval]) -> Overlap {
    let mut found: Option<usize> = None;
    for iv in live {
        for (_, &(end, slot)) in ranges.range(..iv.end).rev() {
            if end <= iv.start {
                break;
            }
            match found {
                None => found = Some(slot),
                Some(k) if k != slot => return Overlap::Many,
                Some(_) => {}
            }
        }
    }
    found.map_or(Overlap::None, Overlap::One)
}

/// Adds `[s, e)` to the ranges of child `slot`, merging with that child's
/// overlapping or touching ranges (as Inductor's `LiveRanges` joins them).
fn insert_range(ranges: &mut BTreeMap<u64, (u64, usize)>, s: u64, e: u64, slot: usize) {
    // Fast path: the child's ranges already cover [s, e) (typical high in the tree).
    if let Some((_, &(end, k))) = ranges.range(..=s).next_back() {
        if k == slot && end >= e {
            return;
        }
    }
    let (mut lo, mut hi) = (s, e);
    let mut merged: Vec<u64> = Vec::new();
    for (&start, &(end, k)) in ranges.range(..=e).rev() {
        if end < s {
            break;
        }
        if k == slot {
            merged.push(start);
            lo = lo.min(start);
            hi = hi.max(end);
        }
    }
    for key in merged {
        ranges.remove(&key);
    }
    ranges.insert(lo, (hi, slot));
}

/// Plans the space with Inductor's AllocationTree.
pub fn plan(problem: &Problem) -> Vec<u64> {
    let bufs = &problem.buffers;
    let mut order: Vec<usize> = (0..bufs.len())
        .filter(|&i| bufs[i].fixed_offset.is_none())
        .collect();
    order.sort_by_key(|&i| {
        let b = &bufs[i];
        (
            std::cmp::Reverse(b.size),
            std::cmp::Reverse(b.hull().len()),
            b.start(),
            i,
        )
    });
    let mut offsets = vec![0u64; bufs.len()];
    if let Some((&first, rest)) = order.split_first() {
        let mut tree = Tree {
            problem,
            nodes: Vec::new(),
        };
        let a = tree.new_alloc(first);
        let ivs: Vec<(u64, u64)> = bufs[first].live.iter().map(|i| (i.start, i.end)).collect();
        let mut root = tree.new_temporal(a, &ivs);
        for &b in rest {
            if !tree.allocate(root, b, true) {
                root = tree.grow_root(root, b);
            }
        }
        tree.offsets(root, &mut offsets);
    }
    honour_fixed(problem, &mut offsets);
    offsets
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check_offsets;
    use crate::problem::Buffer;

    fn run(p: &Problem) -> (Vec<u64>, u64) {
        let offs = plan(p);
        let peaks = check_offsets(p, &offs).expect("valid plan");
        (offs, peaks.iter().map(|&(_, v)| v).max().unwrap_or(0))
    }

    #[test]
    fn smaller_block_reuses_a_slot_in_time() {
        // 100 B over [0, 2), then 60 B over [2, 4): the second fits in the
        // root's 100-byte slot at a later time -> offset 0, peak 100.
        let p = Problem::new(vec![Buffer::new(100, 0, 2), Buffer::new(60, 2, 4)]);
        assert_eq!(run(&p), (vec![0, 0], 100));
    }

    #[test]
    fn co_live_blocks_grow_the_root() {
        // Both live over [0, 4): the second overlaps the root's only child,
        // an allocation, so the root grows and it goes on top: 100 + 60.
        let p = Problem::new(vec![Buffer::new(100, 0, 4), Buffer::new(60, 0, 4)]);
        assert_eq!(run(&p), (vec![0, 100], 160));
    }

    #[test]
    fn empty_padding_is_used() {
        // a 100 [0, 2); b 60 [2, 6) goes under a in time as Spatial(b, Empty 40);
        // c 40 [3, 5) overlaps only b's child, whose right side is the 40-byte
        // Empty: c lands at 60. Peak 100 = lower bound.
        let p = Problem::new(vec![
            Buffer::new(100, 0, 2),
            Buffer::new(60, 2, 6),
            Buffer::new(40, 3, 5),
        ]);
        assert_eq!(run(&p), (vec![0, 0, 60], 100));
    }

    #[test]
    fn two_overlapping_children_fail() {
        // a 100 [0, 2), b 100 [3, 5) share the root slot at different times.
        // c 10 [1, 4) overlaps both children, so it cannot go inside: the root
        // grows and c sits at 100. Peak 110 (the lower bound is 110 too).
        let p = Problem::new(vec![
            Buffer::new(100, 0, 2),
            Buffer::new(100, 3, 5),
            Buffer::new(10, 1, 4),
        ]);
        assert_eq!(run(&p), (vec![0, 0, 100], 110));
    }
}
