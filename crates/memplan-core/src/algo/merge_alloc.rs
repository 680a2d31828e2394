//! `merge-alloc-size-first` / `merge-alloc-cost-model`: the static memory
//! planner of MLIR's merge-alloc pass.
//!
//! Source: seed `000_274efeeca36273db.txt` (LLVM PR #95882, section "Static
//! Memory Planner") and upstream `StaticMemoryPlanning.cpp` of the Intel graph
//! compiler (`memory_state::alloc` / `dealloc` / `split_alloc` / `extend_alloc`
//! / `calculate_chunk_score`, `schedule_memory_allocations`).
//!
//! The idea: a compile-time `malloc` over one logical arena that is a list of
//! contiguous chunks, each free or in use. The linearised trace is replayed:
//! * alloc: with no free chunk at all, a new chunk is appended at the top. Else
//!   a free chunk is chosen: [`Policy::SizeFirst`] takes the smallest free chunk
//!   that fits, or the largest one if none fits; [`Policy::CostModel`]
//!   (upstream's default, "hot first") scores every free chunk by
//!   `size_score + tick_score`, with `size_score = 1 - |chunk - size| / max(chunk,
//!   size)` when the chunk fits and `-|chunk - size| / max(chunk, size)` when it
//!   does not, and `tick_score = 1 - min(age / 10, 1)` (age in trace events since
//!   the chunk was freed), keeping the first best (the most recently freed chunk
//!   wins ties). A chunk larger than the request is split (the buffer takes the
//!   left part). A chunk that is too small is **extended**: it grows to the
//!   request and every chunk above it shifts up, which a runtime allocator
//!   cannot do but a compile-time planner can, since offsets are only read at
//!   the end.
//! * free: the chunk becomes free and merges with free neighbours.
//!
//! Offsets are resolved at the end through the chunk history, as upstream: a
//! split half knows its parent, a merged chunk its parts; extending a chunk
//! extends its parent chain, and a shift is applied to every chunk above. Here
//! both are recorded lazily on the chunk touched and pushed down the history
//! once, newest chunk first, so each extension costs the number of current
//! chunks instead of the size of their whole history.
//!
//! Choices made here: a buffer lives over its hull; frees precede allocations at
//! one tick and ties go by buffer index (upstream sorts stably by tick, with
//! allocation and free ticks never equal). Upstream rounds every size up to one
//! alignment for the whole scope (64 in the pass); here that is the largest
//! alignment any buffer of the problem asks for, so every chunk size, and
//! hence every offset, is a multiple of it. The in-place reuse extension of
//! upstream (buffers that may overwrite their inputs) has no counterpart in a
//! [`Problem`] and is left out. Fixed buffers are planned around by
//! [`super::place::honour_fixed`].

use std::collections::BTreeSet;

use super::place::{honour_fixed, hull_trace, TraceEvent};
use crate::problem::Problem;

/// Chunk choice policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Smallest fitting free chunk; if none fits, extend the largest.
    SizeFirst,
    /// Upstream's cost model: size closeness plus recency of the free.
    CostModel,
}

/// How a chunk came to be.
#[derive(Clone, Debug)]
enum Kind {
    /// Appended at the top of the arena at this offset.
    Origin { start: u64 },
    /// One half of a split chunk.
    Split { parent: u32, lhs: bool },
    /// Several adjacent free chunks merged, in address order.
    Merged { parents: Vec<u32> },
}

#[derive(Clone, Debug)]
struct Chunk {
    kind: Kind,
    size: u64,
    free: bool,
    last_freed_tick: u64,
    /// Insertion sequence in the free maps (emulates std::multimap order).
    seq: u64,
    /// Key under which it sits in `by_size` (size at insertion).
    size_key: u64,
    /// Extension still to pass up to the parent chain.
    up_ext: u64,
    /// Shift still to pass to the parents.
    up_move: u64,
}

struct State {
    policy: Policy,
    chunks: Vec<Chunk>,
    /// Current chunks in address order.
    cur: Vec<u32>,
    by_size: BTreeSet<(u64, u64, u32)>,
    by_tick: BTreeSet<(u64, u64, u32)>,
    seq: u64,
    tick: u64,
    total: u64,
}

impl State {
    fn new_chunk(&mut self, kind: Kind, size: u64) -> u32 {
        self.chunks.push(Chunk {
            kind,
            size,
            free: false,
            last_freed_tick: 0,
            seq: 0,
            size_key: 0,
            up_ext: 0,
            up_move: 0,
        });
        (self.chunks.len() - 1) as u32
    }

    fn position(&self, c: u32) -> usize {
        self.cur
            .iter()
            .position(|&x| x == c)
            .unwrap_or(self.cur.len())
    }

    fn add_free(&mut self, c: u32) {
        self.seq += 1;
        let ch = &mut self.chunks[c as usize];
        ch.seq = self.seq;
        ch.size_key = ch.size;
        ch.free = true;
        self.by_size.insert((ch.size, ch.seq, c));
        self.by_tick.insert((ch.last_freed_tick, ch.seq, c));
    }

    fn remove_free(&mut self, c: u32) {
        let ch = &mut self.chunks[c as usize];
        self.by_size.remove(&(ch.size_key, ch.seq, c));
        self.by_tick.remove(&(ch.last_freed_tick, ch.seq, c));
        ch.free = false;
    }

    /// Grows free chunk `t` to `aligned` bytes, shifting every chunk above it.
    fn extend_alloc(&mut self, t: u32, aligned: u64) {
        self.remove_free(t);
        let d = aligned - self.chunks[t as usize].size;
        self.total += d;
        let ch = &mut self.chunks[t as usize];
        ch.size += d;
        ch.up_ext += d;
        let pos = self.position(t);
        for &v in &self.cur[pos + 1..] {
            self.chunks[v as usize].up_move += d;
        }
    }

    /// Takes the low `aligned` bytes of free chunk `t` (split if larger).
    fn split_alloc(&mut self, t: u32, aligned: u64) -> u32 {
        let size = self.chunks[t as usize].size;
        if size == aligned {
            self.remove_free(t);
            return t;
        }
        let lhs = self.new_chunk(
            Kind::Split {
                parent: t,
                lhs: true,
            },
            aligned,
        );
        let rhs = self.new_chunk(
            Kind::Split {
                parent: t,
                lhs: false,
            },
            size - aligned,
        );
        let pos = self.position(t);
        self.cur[pos] = rhs;
        self.cur.insert(pos, lhs);
        self.chunks[rhs as usize].last_freed_tick = self.chunks[t as usize].last_freed_tick;
        self.add_free(rhs);
        self.remove_free(t);
        lhs
    }

    fn score(&self, c: u32, aligned: u64) -> f32 {
        let ch = &self.chunks[c as usize];
        let diff = ch.size.abs_diff(aligned) as f32;
        let mut size_score = -diff / ch.size.max(aligned) as f32;
        if aligned <= ch.size {
            size_score += 1.0;
        }
        let age = (self.tick - ch.last_freed_tick) as f32 / 10.0;
        size_score + (1.0 - age.min(1.0))
    }

    fn alloc(&mut self, aligned: u64) -> u32 {
        self.tick += 1;
        if self.by_size.is_empty() {
            let c = self.new_chunk(Kind::Origin { start: self.total }, aligned);
            self.total += aligned;
            self.cur.push(c);
            return c;
        }
        let (target, fits) = match self.policy {
            Policy::CostModel => {
                let mut best = self.by_tick.last().map_or(0, |&(_, _, c)| c);
                let mut best_score = self.score(best, aligned);
                for &(_, _, c) in &self.by_tick {
                    let s = self.score(c, aligned);
                    if s > best_score {
                        best = c;
                        best_score = s;
                    }
                }
                (best, self.chunks[best as usize].size >= aligned)
            }
            Policy::SizeFirst => match self.by_size.range((aligned, 0, 0)..).next() {
                Some(&(_, _, c)) => (c, true),
                None => (self.by_size.last().map_or(0, |&(_, _, c)| c), false),
            },
        };
        if fits {
            self.split_alloc(target, aligned)
        } else {
            self.extend_alloc(target, aligned);
            target
        }
    }

    fn dealloc(&mut self, c: u32) {
        self.tick += 1;
        self.chunks[c as usize].last_freed_tick = self.tick;
        self.add_free(c);
        let pos = self.position(c);
        let mut lo = pos;
        while lo > 0 && self.chunks[self.cur[lo - 1] as usize].free {
            lo -= 1;
        }
        let mut hi = pos + 1;
        while hi < self.cur.len() && self.chunks[self.cur[hi] as usize].free {
            hi += 1;
        }
        if hi - lo > 1 {
            let parents: Vec<u32> = self.cur[lo..hi].to_vec();
            let size = parents.iter().map(|&p| self.chunks[p as usize].size).sum();
            for &p in &parents {
                self.remove_free(p);
            }
            let m = self.new_chunk(Kind::Merged { parents }, size);
            self.cur.splice(lo..hi, [m]);
            self.chunks[m as usize].last_freed_tick = self.tick;
            self.add_free(m);
        }
    }

    /// Passes pending extensions and shifts down the history and returns the
    /// final start offset of every chunk.
    fn resolve(&mut self) -> Vec<u64> {
        for c in (0..self.chunks.len()).rev() {
            let (ext, mv) = (self.chunks[c].up_ext, self.chunks[c].up_move);
            if ext == 0 && mv == 0 {
                continue;
            }
            match self.chunks[c].kind.clone() {
                Kind::Origin { start } => {
                    self.chunks[c].kind = Kind::Origin { start: start + mv };
                }
                Kind::Split { parent, lhs } => {
                    let p = &mut self.chunks[parent as usize];
                    p.size += ext;
                    p.up_ext += ext;
                    if lhs {
                        p.up_move += mv;
                    }
                }
                Kind::Merged { parents } => {
                    if let Some(&last) = parents.last() {
                        let p = &mut self.chunks[last as usize];
                        p.size += ext;
                        p.up_ext += ext;
                    }
                    for &q in &parents {
                        self.chunks[q as usize].up_move += mv;
                    }
                }
            }
        }
        let mut start = vec![0u64; self.chunks.len()];
        for c in 0..self.chunks.len() {
            start[c] = match &self.chunks[c].kind {
                Kind::Origin { start } => *start,
                Kind::Split { parent, lhs: true } => start[*parent as usize],
                Kind::Split { parent, lhs: false } => {
                    let p = *parent as usize;
                    start[p] + self.chunks[p].size - self.chunks[c].size
                }
                Kind::Merged { parents } => parents.first().map_or(0, |&p| start[p as usize]),
            };
        }
        start
    }
}

/// Plans the space with the merge-alloc static memory planner.
pub fn plan(problem: &Problem, policy: Policy) -> Vec<u64> {
    let bufs = &problem.buffers;
    let alignment = bufs
        .iter()
        .filter(|b| b.fixed_offset.is_none())
        .map(|b| b.align)
        .max()
        .unwrap_or(1);
    let mut st = State {
        policy,
        chunks: Vec::new(),
        cur: Vec::new(),
        by_size: BTreeSet::new(),
        by_tick: BTreeSet::new(),
        seq: 0,
        tick: 0,
        total: 0,
    };
    let mut chunk_of = vec![0u32; bufs.len()];
    for ev in hull_trace(problem) {
        match ev {
            TraceEvent::Alloc(i) => {
                chunk_of[i] = st.alloc(bufs[i].size.next_multiple_of(alignment));
            }
            TraceEvent::Free(i) => st.dealloc(chunk_of[i]),
        }
    }
    let start = st.resolve();
    let mut offsets: Vec<u64> = (0..bufs.len())
        .map(|i| {
            if bufs[i].fixed_offset.is_some() {
                0
            } else {
                start[chunk_of[i] as usize]
            }
        })
        .collect();
    honour_fixed(problem, &mut offsets);
    offsets
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check_offsets;
    use crate::problem::Buffer;

    fn run(p: &Problem, policy: Policy) -> (Vec<u64>, u64) {
        let offs = plan(p, policy);
        let peaks = check_offsets(p, &offs).expect("valid plan");
        (offs, peaks.iter().map(|&(_, v)| v).max().unwrap_or(0))
    }

    #[test]
    fn policies_differ_on_recency() {
        // X 64 | K1 8 | Y 70 | K2 8 are appended at 0, 64, 72, 142 (ticks 1-4).
        // X is freed at tick 5, Y at tick 6, then Z (64) is allocated at tick 7.
        // Size-first: X fits exactly -> Z at 0.
        // Cost model: X = 1 (exact) + (1 - 2/10) = 1.8;
        //             Y = 1 - 6/70 + (1 - 1/10) = 1.814 -> Y wins, Z at 72.
        let p = Problem::new(vec![
            Buffer::new(64, 0, 2),
            Buffer::new(8, 0, 50),
            Buffer::new(70, 0, 9),
            Buffer::new(8, 0, 50),
            Buffer::new(64, 9, 12),
        ]);
        let (sf, sf_peak) = run(&p, Policy::SizeFirst);
        let (cm, cm_peak) = run(&p, Policy::CostModel);
        assert_eq!(&sf[..4], &[0, 64, 72, 142]);
        assert_eq!(sf[4], 0);
        assert_eq!(cm[4], 72);
        assert_eq!((sf_peak, cm_peak), (150, 150));
    }

    #[test]
    fn extend_shifts_chunks_above() {
        // a (32) at 0, b (32) at 32; a dies; c (48) finds only a's 32-byte
        // chunk: it is extended to 48 and b moves to 48. Peak 48 + 32 = 80,
        // the lower bound (b and c are co-live), instead of 32 + 32 + 48 = 112.
        for policy in [Policy::SizeFirst, Policy::CostModel] {
            let p = Problem::new(vec![
                Buffer::new(32, 0, 2),
                Buffer::new(32, 1, 4),
                Buffer::new(48, 2, 4),
            ]);
            assert_eq!(run(&p, policy), (vec![0, 48, 0], 80));
        }
    }

    #[test]
    fn free_neighbours_coalesce() {
        // Three 16-byte buffers side by side die; a 48-byte buffer fits in
        // their merged chunk at 0: peak 48.
        for policy in [Policy::SizeFirst, Policy::CostModel] {
            let p = Problem::new(vec![
                Buffer::new(16, 0, 2),
                Buffer::new(16, 0, 2),
                Buffer::new(16, 0, 2),
                Buffer::new(48, 2, 3),
            ]);
            assert_eq!(run(&p, policy), (vec![0, 16, 32, 0], 48));
        }
    }

    #[test]
    fn sizes_round_up_to_the_scope_alignment() {
        // Alignment 16 for the scope: 10 -> 16, so b sits at 16; peak 26.
        let p = Problem::new(vec![
            Buffer::new(10, 0, 2).with_align(16),
            Buffer::new(10, 0, 2),
        ]);
        assert_eq!(run(&p, Policy::SizeFirst), (vec![0, 16], 26));
    }
}
