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
//! Speed, with the same plans as the plain walk: the tree grows long *runs*
//! of chain levels, temporal nodes whose only child is a spatial split with
//! the next level as one side: the chain of old roots that each root growth
//! leaves behind (continued through the left side), and staircases of Empty
//! padding filled step by step (continued through the right side). Down a run,
//! a level's live ranges and size contain the next level's, so the tests that
//! stop the walk ("does not fit", "overlaps nothing") are monotone and a binary
//! search finds where the walk stops. The other side of each crossed level is
//! still tried in the plain walk's order (right-continued levels' sides top
//! down before the stop, left-continued levels' sides bottom up after it), but
//! sides whose first child is an allocation the block overlaps are passed
//! over, 16 or 512 levels at a time with per-chunk summaries of those
//! allocations' intervals. After a placement, the path learns the block only
//! up to the first node that already covered it. Runs are split when a level
//! gets a second child (the smaller part moves). On the largest benchmark
//! traces (62k buffers, 5k root growths) this cuts the search from thousands
//! of steps per buffer to tens; `plan_with(.., false)` keeps the plain walk
//! as the test reference.

use std::collections::{BTreeMap, VecDeque};

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
enum Frame {
    /// A node of the tree.
    Node {
        node: usize,
        is_last: bool,
        /// Temporal: 0 = not tried, 1 = descended. Spatial: 0, 1 = left tried, 2 = right tried.
        phase: u8,
        /// Temporal: the child slot descended into.
        slot: usize,
    },
    /// Chain levels `bottom + 1 ..= top` of one run (level indices), crossed
    /// in one binary search. The path goes through levels `cur ..= top`, then
    /// into a side of `cur` (`stage` Pre or Post) or down to `bottom`.
    Skip {
        /// The top level's node (it finds the run, even after a cut).
        top: usize,
        is_last: bool,
        bottom: i64,
        cur: i64,
        /// The next level whose side to look at.
        next: i64,
        stage: Stage,
    },
}

/// Where a skip frame stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Trying the side of right-continued levels, top down, before the bottom.
    Pre,
    /// The bottom level is being tried.
    Bottom,
    /// Trying the side of left-continued levels, bottom up, after the bottom.
    Post,
}

/// No run / no owner.
const NONE: u32 = u32::MAX;

/// Level index given to a run's first level (runs also grow downwards).
const ORIGIN: i64 = 1 << 40;

/// One chain level: a temporal node whose only child is a spatial node, with
/// the level below as that node's left (`left_cont`) or right side. The other
/// side is the level's *side*; `block` is one live interval of an allocation
/// child of the side (or empty): a buffer overlapping it cannot go there.
/// `lc` counts left-continued levels from an arbitrary origin.
#[derive(Debug, Clone, Copy)]
struct Level {
    node: usize,
    block: (u64, u64),
    left_cont: bool,
    lc: i64,
}

/// Levels per chunk of a run, as shifts: small chunks and large ones.
const TIERS: [u32; 2] = [4, 9];

/// What a chunk of levels may offer, per continuation side (0 = right,
/// 1 = left): the least block end and the greatest block start among its
/// levels of that kind. A query interval `[s, e)` can only be free of a
/// level's block if `min_end <= s` or `max_start >= e`. Kept as a superset:
/// a level that leaves the run or changes its block keeps its old share.
#[derive(Debug, Clone, Copy)]
struct Chunk {
    min_end: [u64; 2],
    max_start: [u64; 2],
}

impl Chunk {
    const NONE: Chunk = Chunk {
        min_end: [u64::MAX; 2],
        max_start: [0; 2],
    };

    fn add(&mut self, l: &Level) {
        let k = l.left_cont as usize;
        self.min_end[k] = self.min_end[k].min(l.block.1);
        self.max_start[k] = self.max_start[k].max(l.block.0);
    }

    /// Whether some level of kind `left_cont` here might not overlap `[s, e)`.
    fn may_be_free(&self, left_cont: bool, s: u64, e: u64) -> bool {
        let k = left_cont as usize;
        self.min_end[k] <= s || self.max_start[k] >= e
    }
}

/// A run of chain levels, bottom first; level `first + k` is `levels[k]`.
/// The bottom may be any temporal node (its other fields are unused).
/// `chunks[k][c - chunk_first[k]]` summarises levels `c << TIERS[k] ..`.
#[derive(Debug, Default)]
struct Run {
    levels: VecDeque<Level>,
    first: i64,
    chunks: [VecDeque<Chunk>; 2],
    chunk_first: [i64; 2],
}

impl Run {
    fn new(levels: VecDeque<Level>, first: i64) -> Run {
        let mut run = Run {
            levels,
            first,
            chunks: [VecDeque::new(), VecDeque::new()],
            chunk_first: TIERS.map(|t| first >> t),
        };
        for v in first..=run.last() {
            run.note(v);
        }
        run
    }
    fn at(&self, v: i64) -> &Level {
        &self.levels[(v - self.first) as usize]
    }
    fn at_mut(&mut self, v: i64) -> &mut Level {
        &mut self.levels[(v - self.first) as usize]
    }
    fn last(&self) -> i64 {
        self.first + self.levels.len() as i64 - 1
    }
    /// The tier-`k` chunk holding level `v`.
    fn chunk(&self, k: usize, v: i64) -> &Chunk {
        &self.chunks[k][((v >> TIERS[k]) - self.chunk_first[k]) as usize]
    }
    /// Adds level `v`'s current block to its chunks' summaries.
    fn note(&mut self, v: i64) {
        let l = *self.at(v);
        for (k, &shift) in TIERS.iter().enumerate() {
            let c = v >> shift;
            let chunks = &mut self.chunks[k];
            while c < self.chunk_first[k] {
                chunks.push_front(Chunk::NONE);
                self.chunk_first[k] -= 1;
            }
            while c >= self.chunk_first[k] + chunks.len() as i64 {
                chunks.push_back(Chunk::NONE);
            }
            chunks[(c - self.chunk_first[k]) as usize].add(&l);
        }
    }
    fn push_back(&mut self, l: Level) {
        self.levels.push_back(l);
        self.note(self.last());
    }
    fn push_front(&mut self, l: Level) {
        self.levels.push_front(l);
        self.first -= 1;
        self.note(self.first);
    }
}

struct Tree<'a> {
    problem: &'a Problem,
    nodes: Vec<Node>,
    /// Use the chain skips (false: the plain walk, kept as a test reference).
    fast: bool,
    /// Per node: (run, level index) for temporal nodes, else `NONE`.
    place_in_run: Vec<(u32, i64)>,
    /// Per node: the chain level whose side it is, else `NONE`.
    owner: Vec<u32>,
    runs: Vec<Run>,
}

impl<'a> Tree<'a> {
    fn live(&self, b: usize) -> &'a [Interval] {
        &self.problem.buffers[b].live
    }

    fn push(&mut self, kind: Kind, size: u64, align: u64) -> usize {
        self.nodes.push(Node { kind, size, align });
        self.place_in_run.push((NONE, 0));
        self.owner.push(NONE);
        self.nodes.len() - 1
    }

    /// One live interval of the first child of temporal `r` if that child is
    /// an allocation: a block overlapping it can never go under `r`.
    fn block_of(&self, r: usize) -> (u64, u64) {
        if let Kind::Temporal(t) = &self.nodes[r].kind {
            if let Some(&c) = t.children.first() {
                if let Kind::Alloc(b) = self.nodes[c].kind {
                    if let Some(iv) = self.live(b).first() {
                        return (iv.start, iv.end);
                    }
                }
            }
        }
        (0, 0)
    }

    /// A fresh run holding temporal node `n` alone.
    fn solo(&mut self, n: usize) {
        self.place_in_run[n] = (self.runs.len() as u32, ORIGIN);
        let levels = VecDeque::from([Level {
            node: n,
            block: (0, 0),
            left_cont: false,
            lc: 0,
        }]);
        self.runs.push(Run::new(levels, ORIGIN));
    }

    /// Files the new temporal node `n` into a run: on top of its left side's
    /// run when `n` is a chain level over it, else in a run of its own.
    fn register(&mut self, n: usize) {
        let mut over = None;
        if let Kind::Temporal(t) = &self.nodes[n].kind {
            if let [c] = t.children[..] {
                if let Kind::Spatial { left, right } = self.nodes[c].kind {
                    let (r, v) = self.place_in_run[left];
                    if r != NONE && self.runs[r as usize].last() == v {
                        over = Some((r as usize, right));
                    }
                }
            }
        }
        match over {
            Some((r, side)) if self.fast => {
                let block = self.block_of(side);
                let run = &mut self.runs[r];
                let lc = run.at(run.last()).lc + 1;
                run.push_back(Level {
                    node: n,
                    block,
                    left_cont: true,
                    lc,
                });
                self.place_in_run[n] = (r as u32, run.last());
                self.owner[side] = n as u32;
            }
            _ => self.solo(n),
        }
    }

    /// Temporal `tn`, the bottom of its run, has just become a chain level
    /// over a fresh right side (an Empty slot filled with `Spatial(b,
    /// Empty)`): that side joins the run below it.
    fn extend_down(&mut self, tn: usize) {
        let (r, v) = self.place_in_run[tn];
        let Kind::Temporal(t) = &self.nodes[tn].kind else {
            return;
        };
        let [c] = t.children[..] else {
            return;
        };
        let Kind::Spatial { left, right } = self.nodes[c].kind else {
            return;
        };
        let rr = self.place_in_run[right].0;
        if !self.fast
            || r == NONE
            || rr == NONE
            || rr == r
            || self.runs[r as usize].first != v
            || self.runs[rr as usize].levels.len() != 1
            || !matches!(self.nodes[left].kind, Kind::Temporal(_))
        {
            return;
        }
        let block = self.block_of(left);
        let r = r as usize;
        self.runs[rr as usize].levels.clear();
        let run = &mut self.runs[r];
        let lc = run.at(v).lc;
        *run.at_mut(v) = Level {
            node: tn,
            block,
            left_cont: false,
            lc,
        };
        run.note(v);
        run.push_front(Level {
            node: right,
            block: (0, 0),
            left_cont: false,
            lc,
        });
        self.place_in_run[right] = (r as u32, v - 1);
        self.owner[left] = tn as u32;
    }

    /// Makes temporal `n` the bottom of its run (it is about to change and
    /// may stop being a chain level). Moves the smaller part to a new run.
    fn cut(&mut self, n: usize) {
        let (r, v) = self.place_in_run[n];
        if r == NONE {
            return;
        }
        let new = self.runs.len() as u32;
        let run = &mut self.runs[r as usize];
        if v == run.first {
            return;
        }
        let k = (v - run.first) as usize;
        let moved = if run.levels.len() - k <= k {
            let levels = run.levels.split_off(k);
            Run::new(levels, v)
        } else {
            let levels: VecDeque<Level> = run.levels.drain(..k).collect();
            let first = run.first;
            run.first = v;
            Run::new(levels, first)
        };
        for l in &moved.levels {
            self.place_in_run[l.node].0 = new;
        }
        self.runs.push(moved);
    }

    /// The run of temporal node `n` and its level index there.
    fn level(&self, n: usize) -> (usize, i64) {
        let (r, v) = self.place_in_run[n];
        (r as usize, v)
    }

    /// The spatial child of chain level `n`: (left, right).
    fn sides(&self, n: usize) -> (usize, usize) {
        if let Kind::Temporal(t) = &self.nodes[n].kind {
            if let Some(&c) = t.children.first() {
                if let Kind::Spatial { left, right } = self.nodes[c].kind {
                    return (left, right);
                }
            }
        }
        (n, n)
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
        let n = self.push(Kind::Temporal(t), size, align);
        self.register(n);
        n
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
        let mut frames = vec![Frame::Node {
            node: root,
            is_last,
            phase: 0,
            slot: 0,
        }];
        while let Some(f) = frames.last_mut() {
            let (node, is_last, phase) = match *f {
                Frame::Node {
                    node,
                    is_last,
                    phase,
                    ..
                } => (node, is_last, phase),
                Frame::Skip { .. } => {
                    if let Some(next) = self.step(f, live) {
                        frames.push(next);
                    } else {
                        frames.pop();
                    }
                    continue;
                }
            };
            match &self.nodes[node].kind {
                Kind::Temporal(t) => {
                    if phase != 0 || (!is_last && bsize > self.nodes[node].size) {
                        frames.pop();
                        continue;
                    }
                    match overlapping(&t.ranges, live) {
                        Overlap::None => {
                            self.place(node, b, is_last);
                            frames.pop();
                            self.propagate(&frames, b);
                            return true;
                        }
                        Overlap::One(k) => {
                            if let Some(bottom) = self.skip_to(node, is_last, bsize, live) {
                                *f = Frame::Skip {
                                    top: node,
                                    is_last,
                                    bottom,
                                    cur: self.level(node).1,
                                    next: self.level(node).1,
                                    stage: Stage::Pre,
                                };
                                continue;
                            }
                            let child = t.children[k];
                            if let Frame::Node { phase, slot, .. } = f {
                                *phase = 1;
                                *slot = k;
                            }
                            frames.push(Frame::Node {
                                node: child,
                                is_last,
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
                    let (left, right) = (*left, *right);
                    let next = match phase {
                        0 => Some((left, false)),
                        1 => Some((right, is_last)),
                        _ => None,
                    };
                    if let Frame::Node { phase, .. } = f {
                        *phase += 1;
                    }
                    match next {
                        Some((n, l)) => frames.push(Frame::Node {
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

    /// Block `b` overlaps chain level `top` (and fits or may grow it): the
    /// plain walk would go down the run level by level while each level fits
    /// `b` and overlaps it. Both tests only get harder going down (a level's
    /// live ranges and size contain the next level's, and once a level is
    /// entered through a left side it may no longer grow), so a binary search
    /// finds where the walk stops: the highest level below `top` that fails a
    /// test, or the run's bottom. None when `top` is no chain level.
    fn skip_to(&self, top: usize, is_last: bool, bsize: u64, live: &[Interval]) -> Option<i64> {
        if !self.fast {
            return None;
        }
        let (r, pos) = self.level(top);
        let run = &self.runs[r];
        if pos <= run.first {
            return None;
        }
        let top_lc = run.at(pos).lc;
        let goes_on = |v: i64| {
            let l = run.at(v);
            let grows = is_last && l.lc == top_lc;
            match &self.nodes[l.node].kind {
                Kind::Temporal(t) => {
                    (grows || bsize <= self.nodes[l.node].size)
                        && !matches!(overlapping(&t.ranges, live), Overlap::None)
                }
                _ => false,
            }
        };
        // The lowest level in [first, pos) from which every level up to pos - 1 goes on.
        let (mut a, mut z) = (run.first, pos);
        while a < z {
            let m = a + (z - a) / 2;
            if goes_on(m) {
                z = m;
            } else {
                a = m + 1;
            }
        }
        Some((a - 1).max(run.first))
    }

    /// Moves a skip frame on: the next side (or the bottom level) the plain
    /// walk would enter, passing over sides whose first child is an
    /// allocation that the block overlaps (the plain walk fails there). Sides
    /// of right-continued levels come top down before the bottom, those of
    /// left-continued levels bottom up after it. None when all is tried.
    fn step(&self, f: &mut Frame, live: &[Interval]) -> Option<Frame> {
        let Frame::Skip {
            top,
            is_last,
            bottom,
            cur,
            next,
            stage,
        } = f
        else {
            return None;
        };
        let (r, top_v) = self.level(*top);
        let run = &self.runs[r];
        let top_lc = run.at(top_v).lc;
        let blocked = |l: &Level| {
            let (s, e) = l.block;
            live.iter().any(|iv| iv.start < e && s < iv.end)
        };
        let frame = |node: usize, is_last: bool| {
            Some(Frame::Node {
                node,
                is_last,
                phase: 0,
                slot: 0,
            })
        };
        // Chunks whose levels all overlap the block's first interval are skipped.
        let q = live.first().map(|iv| (iv.start, iv.end));
        // The shift of the largest chunk holding `v` that can be passed over.
        let skips = |v: i64, left_cont: bool| {
            let (s, e) = q?;
            (0..TIERS.len())
                .rev()
                .find(|&k| !run.chunk(k, v).may_be_free(left_cont, s, e))
                .map(|k| TIERS[k])
        };
        if *stage == Stage::Pre {
            while *next > *bottom {
                let v = *next;
                if let Some(shift) = skips(v, false) {
                    *next = ((v >> shift) << shift) - 1;
                    continue;
                }
                *next -= 1;
                let l = run.at(v);
                if !l.left_cont && !blocked(l) {
                    *cur = v;
                    return frame(self.sides(l.node).0, false);
                }
            }
            *stage = Stage::Bottom;
            *cur = *bottom + 1;
            let l = run.at(*bottom);
            return frame(l.node, *is_last && l.lc == top_lc);
        }
        if *stage == Stage::Bottom {
            *stage = Stage::Post;
            *next = *bottom + 1;
        }
        while *next <= top_v {
            let v = *next;
            if let Some(shift) = skips(v, true) {
                *next = ((v >> shift) + 1) << shift;
                continue;
            }
            *next += 1;
            let l = run.at(v);
            if l.left_cont && !blocked(l) {
                *cur = v;
                return frame(self.sides(l.node).1, *is_last && l.lc == top_lc);
            }
        }
        None
    }

    /// Adds block `b` as a new child of temporal node `tn` (no child overlaps it).
    fn place(&mut self, tn: usize, b: usize, is_last: bool) {
        self.cut(tn);
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
        let owner = self.owner[tn];
        if owner != NONE {
            let block = self.block_of(tn);
            let (r, v) = self.level(owner as usize);
            self.runs[r].at_mut(v).block = block;
            self.runs[r].note(v);
        }
        self.extend_down(tn);
    }

    /// After a placement: the nodes on the search path learn the new block,
    /// innermost first. Stops at the first temporal node that already covers
    /// the block's live ranges and keeps its size: its ancestors' ranges
    /// contain its own and their sizes derive from it, so nothing above changes
    /// (the plain walk, `fast == false`, updates every node).
    fn propagate(&mut self, frames: &[Frame], b: usize) {
        for f in frames.iter().rev() {
            match *f {
                Frame::Node { node, slot, .. } => {
                    if !self.learn(node, slot, b) {
                        return;
                    }
                }
                Frame::Skip { top, cur, .. } => {
                    let (r, top_v) = self.level(top);
                    for v in cur..=top_v {
                        let n = self.runs[r].at(v).node;
                        if let Kind::Temporal(t) = &self.nodes[n].kind {
                            let sp = t.children[0];
                            self.refresh_spatial(sp);
                        }
                        if !self.learn(n, 0, b) {
                            return;
                        }
                    }
                }
            }
        }
    }

    /// One node of the placement path learns block `b` (through child
    /// `slot` if temporal); false when nothing about it changed.
    fn learn(&mut self, n: usize, slot: usize, b: usize) -> bool {
        let live = self.live(b);
        let before = (self.nodes[n].size, self.nodes[n].align);
        if let Kind::Temporal(t) = &mut self.nodes[n].kind {
            let mut changed = false;
            for iv in live {
                changed |= insert_range(&mut t.ranges, iv.start, iv.end, slot);
            }
            let child = t.children[slot];
            let (cs, ca) = (self.nodes[child].size, self.nodes[child].align);
            let node = &mut self.nodes[n];
            node.size = node.size.max(cs);
            node.align = node.align.max(ca);
            changed || !self.fast || before != (node.size, node.align)
        } else {
            self.refresh_spatial(n);
            true
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
/// False when they already covered it.
fn insert_range(ranges: &mut BTreeMap<u64, (u64, usize)>, s: u64, e: u64, slot: usize) -> bool {
    // Fast path: the child's ranges already cover [s, e) (typical high in the tree).
    if let Some((_, &(end, k))) = ranges.range(..=s).next_back() {
        if k == slot && end >= e {
            return false;
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
    true
}

/// Plans the space with Inductor's AllocationTree.
pub fn plan(problem: &Problem) -> Vec<u64> {
    plan_with(problem, true).0
}

/// [`plan`] with the chain skips on (`fast`) or off (the plain walk); also
/// returns how many times the root grew.
fn plan_with(problem: &Problem, fast: bool) -> (Vec<u64>, usize) {
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
    let mut growths = 0;
    if let Some((&first, rest)) = order.split_first() {
        let mut tree = Tree {
            problem,
            nodes: Vec::new(),
            fast,
            place_in_run: Vec::new(),
            owner: Vec::new(),
            runs: Vec::new(),
        };
        let a = tree.new_alloc(first);
        let ivs: Vec<(u64, u64)> = bufs[first].live.iter().map(|i| (i.start, i.end)).collect();
        let mut root = tree.new_temporal(a, &ivs);
        for &b in rest {
            if !tree.allocate(root, b, true) {
                root = tree.grow_root(root, b);
                growths += 1;
            }
        }
        tree.offsets(root, &mut offsets);
    }
    honour_fixed(problem, &mut offsets);
    (offsets, growths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check_offsets;
    use crate::problem::{Buffer, Interval};

    fn run(p: &Problem) -> (Vec<u64>, u64) {
        let offs = plan(p);
        let peaks = check_offsets(p, &offs).expect("valid plan");
        (offs, peaks.iter().map(|&(_, v)| v).max().unwrap_or(0))
    }

    /// A trace built to grow the root often: a quarter of the buffers live
    /// (nearly) all the time, the rest are short, some with holes or an
    /// alignment; sizes repeat so that exact fits, Empty staircases and
    /// nested chains all occur.
    fn many_growths(seed: u64, n: usize) -> Problem {
        let mut x = seed | 1;
        let mut rnd = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let horizon = 300;
        let bufs = (0..n)
            .map(|_| {
                let size = [1, 3, 8, 8, 24, 64, 100][rnd(7) as usize] * (1 + rnd(4));
                let b = if rnd(4) == 0 {
                    Buffer::new(size, rnd(8), horizon - rnd(8))
                } else {
                    let s = rnd(horizon - 40);
                    Buffer::new(size, s, s + 1 + rnd(40))
                };
                let b = if rnd(6) == 0 {
                    let (s, e) = (b.start(), b.end());
                    b.with_live(vec![
                        Interval::new(s, s + 1),
                        Interval::new(e + 2, e + 3 + rnd(20)),
                    ])
                } else {
                    b
                };
                if rnd(8) == 0 {
                    b.with_align(1 << rnd(6))
                } else {
                    b
                }
            })
            .collect();
        Problem::new(bufs)
    }

    #[test]
    fn chain_skips_match_the_plain_walk() {
        for (seed, n) in [(1, 300), (7, 700), (42, 1200), (99, 1500)] {
            let p = many_growths(seed, n);
            let (fast, grown) = plan_with(&p, true);
            let (plain, plain_grown) = plan_with(&p, false);
            assert!(grown >= n / 8, "seed {seed}: only {grown} root growths");
            assert_eq!(grown, plain_grown, "seed {seed}");
            assert_eq!(fast, plain, "seed {seed}");
            check_offsets(&p, &fast).expect("valid plan");
        }
    }

    #[test]
    fn rightmost_staircase_grows_its_last_step() {
        // a 100 [0, 10) is the root; b 100 [0, 5) overlaps it: the root grows,
        // b at 100. c 60, d 30, e 20, all [5, 10), overlap a but not b: c goes
        // under b in time (Spatial(c, Empty 40)) at 100, d into that Empty at
        // 160 (Spatial(d, Empty 10)), and e, reached through the skipped run
        // of Empty steps on the rightmost path, grows the last Empty step to
        // 20: e at 190, peak 210 = a + c + d + e, the lower bound.
        let p = Problem::new(vec![
            Buffer::new(100, 0, 10),
            Buffer::new(100, 0, 5),
            Buffer::new(60, 5, 10),
            Buffer::new(30, 5, 10),
            Buffer::new(20, 5, 10),
        ]);
        assert_eq!(run(&p), (vec![0, 100, 100, 160, 190], 210));
        assert_eq!(plan_with(&p, false).0, plan(&p));
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
